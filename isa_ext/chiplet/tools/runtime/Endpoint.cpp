#include "isa_ext/chiplet/tools/runtime/Endpoint.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <sys/resource.h>
#include <tuple>
#include <unistd.h>

namespace ptxsim::chiplet {

std::string formatTraceLine(const TraceRecord &r) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%llu %u %u %u %u %u\n", (unsigned long long)r.time, r.sx, r.sy,
                r.dx, r.dy, r.bytes);
  return buf;
}

Endpoint::Endpoint(EndpointConfig cfg, std::unique_ptr<Transport> t)
    : cfg_(std::move(cfg)), t_(std::move(t)), model_(cfg_.net) {
  window_ = model_.minDelay();
}

Endpoint::~Endpoint() = default;

bool Endpoint::start(std::string &err) {
  nextBarrier_ = window_;
  return t_->start(cfg_, window_, err);
}

void Endpoint::advanceClock(uint64_t t) {
  std::lock_guard<std::mutex> g(mu_);
  clock_ = std::max(clock_, t);
}

bool Endpoint::advanceTo(uint64_t t, std::string &err) {
  while (!finished_ && nextBarrier_ <= t) {
    SyncStatus st;
    st.state = SyncState::Running;
    st.clock = t;
    if (!doBarrier(st, err))
      return false;
  }
  return true;
}

bool Endpoint::doBarrier(const SyncStatus &st, std::string &err) {
  uint64_t b = nextBarrier_, next = 0;
  auto decideFn = [this, b](const std::vector<SyncStatus> &all, std::string &e) -> uint64_t {
    if (!ingest(b, e))
      return kDeadlock;
    return decide(all, b, e);
  };
  if (!t_->barrier(b, st, decideFn, next, err))
    return false;
  ++stats_.barriers;
  if (next == kAllDone) {
    finished_ = true;
    return true;
  }
  if (st.state == SyncState::Done && t_->leavesWhenDone()) {
    finished_ = true;
    return true;
  }
  if (next == kDeadlock || next <= b) {
    if (err.empty())
      err = "synchronization at cycle " + std::to_string(b) + " went wrong (next " +
            std::to_string(next) + ")";
    return false;
  }
  if (!ingest(b, err))
    return false;
  nextBarrier_ = next;
  return true;
}

bool Endpoint::ingest(uint64_t before, std::string &err) {
  if (before <= ingestedBefore_)
    return true;
  std::vector<TraceRecord> recs;
  if (!t_->newRecords(before, recs, err))
    return false;
  windowRecs_.clear();
  unsigned me = cfg_.index();
  for (const TraceRecord &r : recs) {
    if (r.sx >= cfg_.width || r.sy >= cfg_.height || r.dx >= cfg_.width || r.dy >= cfg_.height) {
      err = "a trace record names a chiplet outside the " + std::to_string(cfg_.width) + "x" +
            std::to_string(cfg_.height) + " grid: " + formatTraceLine(r);
      return false;
    }
    noc::Packet p;
    p.time = r.time;
    p.src[0] = r.sx;
    p.src[1] = r.sy;
    p.dst[0] = r.dx;
    p.dst[1] = r.dy;
    p.bytes = r.bytes;
    uint64_t arrival = model_.add(p);
    unsigned src = r.sy * cfg_.width + r.sx, dst = r.dy * cfg_.width + r.dx;
    windowRecs_.push_back({src, dst, r.channel, r.bytes, arrival});
    if (dst != me)
      continue;
    Peer &peer = peers_[src];
    Channel &c = peer.channels[r.channel];
    c.msgs.push_back({r.bytes, arrival, r.time, peer.nextStream++, r.site});
    c.knownBytes += r.bytes;
    peer.sizes.push_back(r.bytes / 4);
  }
  ingestedBefore_ = before;
  return true;
}

static std::string name(const EndpointConfig &c, unsigned idx) {
  return "(" + std::to_string(idx % c.width) + "," + std::to_string(idx / c.width) + ")";
}

uint64_t Endpoint::decide(const std::vector<SyncStatus> &all, uint64_t b, std::string &err) {
  // A blocked chiplet knew every record before the previous barrier; the message it waits for,
  // if sent before this one, is among the window's records on its channel (windowRecs_).
  struct Need {
    uint64_t bytes, seen = 0, arrival = ~0ull;
  };
  std::map<std::tuple<unsigned, unsigned, uint32_t>, Need> needs;
  for (unsigned i = 0; i < all.size(); ++i)
    if (all[i].state == SyncState::Blocked)
      needs[{all[i].waitFrom, i, all[i].channel}] = Need{std::max<uint64_t>(all[i].needBytes, 1)};
  if (!needs.empty())
    for (const WindowRec &r : windowRecs_) {
      auto it = needs.find({r.src, r.dst, r.channel});
      if (it == needs.end() || it->second.seen >= it->second.bytes)
        continue;
      it->second.seen += r.bytes;
      if (it->second.seen >= it->second.bytes)
        it->second.arrival = r.arrival;
    }
  uint64_t minBound = ~0ull;
  bool allDone = true;
  for (unsigned i = 0; i < all.size(); ++i) {
    const SyncStatus &s = all[i];
    if (s.state == SyncState::Done)
      continue;
    allDone = false;
    uint64_t bound = s.clock;
    if (s.state == SyncState::Blocked) {
      uint64_t a = needs[{s.waitFrom, i, s.channel}].arrival;
      bound = a == ~0ull ? a : std::max(s.clock, a);
    }
    minBound = std::min(minBound, bound);
  }
  if (allDone)
    return kAllDone;
  if (minBound == ~0ull) {
    std::ostringstream os;
    os << "deadlock at cycle " << b << ": every chiplet still running waits for data no chiplet "
          "will send:";
    for (unsigned i = 0; i < all.size(); ++i)
      if (all[i].state == SyncState::Blocked)
        os << " " << name(cfg_, i) << " waits for " << all[i].needBytes << " more byte"
           << (all[i].needBytes == 1 ? "" : "s") << " from "
           << (all[i].waitFrom < cfg_.count() ? name(cfg_, all[i].waitFrom) : "?")
           << " on channel " << all[i].channel << ";";
    err = os.str();
    return kDeadlock;
  }
  return std::max(b + window_, minBound / window_ * window_ + window_);
}

uint32_t Endpoint::siteId(const std::string &text, std::string &err) {
  if (text.empty())
    return 0;
  auto it = sites_.find(text);
  if (it != sites_.end())
    return it->second;
  uint32_t id = (uint32_t)sites_.size() + 1;
  if (!t_->defineSite(id, text, err))
    return ~0u;
  sites_.emplace(text, id);
  return id;
}

bool Endpoint::send(unsigned dx, unsigned dy, const uint32_t *words, size_t n, uint64_t at,
                    std::string &err, uint32_t channel, const std::string &site) {
  std::lock_guard<std::mutex> g(mu_);
  if (dx >= cfg_.width || dy >= cfg_.height) {
    err = "send to chiplet (" + std::to_string(dx) + "," + std::to_string(dy) +
          ") outside the " + std::to_string(cfg_.width) + "x" + std::to_string(cfg_.height) +
          " grid";
    return false;
  }
  if (finished_) {
    err = "send after this chiplet finished";
    return false;
  }
  clock_ = std::max(clock_, at);
  if (!advanceTo(clock_, err))
    return false;
  TraceRecord r;
  r.time = clock_;
  r.sx = cfg_.x;
  r.sy = cfg_.y;
  r.dx = dx;
  r.dy = dy;
  r.bytes = (uint32_t)(n * 4);
  r.channel = channel;
  r.site = siteId(site, err);
  if (r.site == ~0u)
    return false;
  if (!t_->send(r, dy * cfg_.width + dx, words, n, err))
    return false;
  ++stats_.sends;
  stats_.sentBytes += r.bytes;
  return true;
}

bool Endpoint::fetch(unsigned src, Peer &p, uint64_t stream, std::vector<uint32_t> &out,
                     std::string &err) {
  auto it = p.stash.find(stream);
  if (it != p.stash.end()) {
    out = std::move(it->second);
    p.stash.erase(it);
    return true;
  }
  while (p.pulled <= stream) {
    if (p.sizes.empty()) {
      err = "internal: message " + std::to_string(stream) + " from " + name(cfg_, src) +
            " is not known";
      return false;
    }
    std::vector<uint32_t> w(p.sizes.front());
    p.sizes.pop_front();
    if (!t_->take(src, w.data(), w.size(), err))
      return false;
    if (p.pulled == stream)
      out = std::move(w);
    else
      p.stash[p.pulled] = std::move(w);
    ++p.pulled;
  }
  return true;
}

static std::string wordsText(uint64_t bytes) {
  return std::to_string(bytes / 4) + (bytes == 4 ? " word" : " words");
}

bool Endpoint::receive(unsigned sx, unsigned sy, uint32_t *words, size_t n, uint64_t at,
                       std::string &err, uint32_t channel, bool whole, const std::string &site) {
  std::lock_guard<std::mutex> g(mu_);
  if (sx >= cfg_.width || sy >= cfg_.height) {
    err = "receive from chiplet (" + std::to_string(sx) + "," + std::to_string(sy) +
          ") outside the " + std::to_string(cfg_.width) + "x" + std::to_string(cfg_.height) +
          " grid";
    return false;
  }
  if (finished_) {
    err = "receive after this chiplet finished";
    return false;
  }
  clock_ = std::max(clock_, at);
  if (!advanceTo(clock_, err))
    return false;
  unsigned src = sy * cfg_.width + sx;
  uint64_t need = n * 4;
  for (;;) {
    // The peer's entry appears when its first record to this chiplet does.
    auto pit = peers_.find(src);
    Channel *c = nullptr;
    if (pit != peers_.end()) {
      auto cit = pit->second.channels.find(channel);
      if (cit != pit->second.channels.end())
        c = &cit->second;
    }
    uint64_t have = c ? c->knownBytes : 0;
    if (whole ? (c && !c->msgs.empty()) : have >= need)
      break;
    SyncStatus st;
    st.state = SyncState::Blocked;
    st.clock = clock_;
    st.waitFrom = src;
    st.channel = channel;
    st.needBytes = whole ? 1 : need - have;
    if (!doBarrier(st, err))
      return false;
    if (finished_) {
      err = "every other chiplet finished while this one waits for data from (" +
            std::to_string(sx) + "," + std::to_string(sy) + ") on channel " +
            std::to_string(channel);
      return false;
    }
  }
  Peer &p = peers_[src];
  Channel &c = p.channels[channel];
  uint64_t arrival = 0;
  if (whole) {
    const Msg &m = c.msgs.front();
    if (c.headTaken || m.bytes != need) {
      std::string theirs = t_->siteText(src, m.site);
      err = (site.empty() ? std::string("a receive") : site) + " on this chiplet takes " +
            wordsText(need) + " from (" + std::to_string(sx) + "," + std::to_string(sy) +
            ") on channel " + std::to_string(channel) + ", but the next message it sent there " +
            (c.headTaken ? "was partly read by a word-stream receive (" +
                               std::to_string(c.headTaken) + " of its " + wordsText(m.bytes) + ")"
                         : "has " + wordsText(m.bytes)) +
            " (sent at cycle " + std::to_string(m.time) +
            (theirs.empty() ? std::string("") : " by " + theirs) +
            "): every send is one message and the receive must take all of it";
      return false;
    }
    std::vector<uint32_t> w;
    if (!fetch(src, p, m.stream, w, err))
      return false;
    std::copy(w.begin(), w.end(), words);
    arrival = m.arrival;
    c.knownBytes -= m.bytes;
    c.msgs.pop_front();
  } else {
    size_t got = 0;
    while (got < n) {
      Msg &m = c.msgs.front();
      if (c.headTaken == 0 && !fetch(src, p, m.stream, c.head, err))
        return false;
      size_t k = std::min<size_t>(n - got, c.head.size() - c.headTaken);
      std::copy(c.head.begin() + (long)c.headTaken, c.head.begin() + (long)(c.headTaken + k),
                words + got);
      got += k;
      c.headTaken += k;
      c.knownBytes -= k * 4;
      arrival = m.arrival;
      if (c.headTaken == c.head.size()) {
        c.msgs.pop_front();
        c.head.clear();
        c.headTaken = 0;
      }
    }
  }
  if (arrival > clock_) {
    stats_.waitCycles += arrival - clock_;
    clock_ = arrival;
  }
  ++stats_.receives;
  stats_.receivedBytes += n * 4;
  return true;
}

bool Endpoint::finish(uint64_t at, std::string &err) {
  std::lock_guard<std::mutex> g(mu_);
  if (finished_)
    return true;
  clock_ = std::max(clock_, at);
  if (!advanceTo(clock_, err))
    return false;
  while (!finished_) {
    SyncStatus st;
    st.state = SyncState::Done;
    st.clock = clock_;
    if (!doBarrier(st, err))
      return false;
  }
  stats_.finalClock = clock_;
  return true;
}

/// This process's peak resident memory so far.
static long maxRssKb() {
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
}

ProcessSample sampleProcess(long pid) {
  ProcessSample s;
  if (pid <= 0)
    return s;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  FILE *f = std::fopen(path, "r");
  if (!f)
    return s;
  char buf[1024];
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = 0;
  // pid (comm) state ppid ... : the command may hold spaces and parentheses, so parse after the
  // last ')'; utime and stime are fields 14 and 15.
  const char *p = std::strrchr(buf, ')');
  if (!p)
    return s;
  std::istringstream in(p + 2);
  std::string field;
  std::vector<std::string> fields;
  while (in >> field && fields.size() < 13)
    fields.push_back(field);
  if (fields.size() < 13)
    return s;
  s.state = fields[0][0];
  s.exists = s.state != 'Z' && s.state != 'X';
  s.cpuTicks = std::strtoull(fields[11].c_str(), nullptr, 10) + std::strtoull(fields[12].c_str(), nullptr, 10);
  return s;
}

std::string livenessProblem(long pid, const ProcessSample &before, const ProcessSample &now,
                            double sec) {
  if (pid <= 0)
    return "";
  if (!now.exists)
    return "its process " + std::to_string(pid) + " is gone without finishing";
  if (now.state == 'T' || now.state == 't')
    return "its process " + std::to_string(pid) + " is stopped";
  if (now.state != 'R' && before.exists && now.cpuTicks == before.cpuTicks) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", sec);
    return "its process " + std::to_string(pid) + " is alive but used no CPU time in " + buf +
           " s outside any chiplet operation: stuck";
  }
  return "";
}

std::string Endpoint::statsJson() const {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "{\"x\": %u, \"y\": %u, \"clock\": %llu, \"sends\": %llu, \"sent_bytes\": %llu, "
                "\"receives\": %llu, \"received_bytes\": %llu, \"barriers\": %llu, "
                "\"wait_cycles\": %llu, \"window\": %llu, \"max_rss_kb\": %ld}",
                cfg_.x, cfg_.y, (unsigned long long)clock_, (unsigned long long)stats_.sends,
                (unsigned long long)stats_.sentBytes, (unsigned long long)stats_.receives,
                (unsigned long long)stats_.receivedBytes, (unsigned long long)stats_.barriers,
                (unsigned long long)stats_.waitCycles, (unsigned long long)window_, maxRssKb());
  return buf;
}

void Endpoint::close() { t_->close(statsJson()); }

[[noreturn]] void fatalAt(const EndpointConfig *c, const std::string &msg) {
  std::fflush(stdout);
  if (c)
    std::fprintf(stderr, "ptxsim chiplet (%u,%u): error: %s\n", c->x, c->y, msg.c_str());
  else
    std::fprintf(stderr, "ptxsim chiplet: error: %s\n", msg.c_str());
  std::fflush(stderr);
  std::_Exit(3);
}

bool parseNetOptions(const std::string &opts, noc::NetworkConfig &cfg, std::string &err) {
  std::istringstream in(opts);
  std::string o, v;
  while (in >> o) {
    if (!(in >> v)) {
      err = "network option '" + o + "' has no value";
      return false;
    }
    char *end = nullptr;
    double d = std::strtod(v.c_str(), &end);
    if (o.size() != 2 || o[0] != '-' || *end) {
      err = "bad network option '" + o + " " + v + "'";
      return false;
    }
    switch (o[1]) {
    case 'A': cfg.radix = (unsigned)d; break;
    case 'c': cfg.dims = (unsigned)d; break;
    case 'V': cfg.vcs = (unsigned)d; break;
    case 'B': cfg.inBufFlits = (unsigned)d; break;
    case 'O': cfg.outBufFlits = (unsigned)d; break;
    case 'F': cfg.flitWords = (unsigned)d; break;
    case 'L': cfg.linkLengthUm = d; break;
    case 'T': cfg.maxCycles = (uint64_t)d; break;
    case 'r': cfg.seed = (uint64_t)d; break;
    case 'D': cfg.routerDelay = (unsigned)d; break;
    case 'G': cfg.clockGhz = d; break;
    case 'R':
      if (d != 0 && d != 1) {
        err = "-R selects 0 (mesh) or 1 (torus), got " + v;
        return false;
      }
      cfg.topology = d == 1 ? noc::Topology::Torus : noc::Topology::Mesh;
      break;
    default:
      err = "unknown network option '" + o + "'";
      return false;
    }
  }
  err = cfg.validate();
  return err.empty();
}

} // namespace ptxsim::chiplet

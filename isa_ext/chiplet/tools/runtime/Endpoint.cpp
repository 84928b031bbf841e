#include "isa_ext/chiplet/tools/runtime/Endpoint.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
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
  known_.resize((size_t)cfg_.count() * cfg_.count());
  consumed_.assign(cfg_.count(), 0);
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
  unsigned n = cfg_.count();
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
    auto &v = known_[(size_t)(r.sy * cfg_.width + r.sx) * n + (r.dy * cfg_.width + r.dx)];
    uint64_t end = (v.empty() ? 0 : v.back().first) + r.bytes;
    v.push_back({end, arrival});
  }
  ingestedBefore_ = before;
  return true;
}

uint64_t Endpoint::arrivalOf(unsigned src, unsigned dst, uint64_t end) const {
  const auto &v = known_[(size_t)src * cfg_.count() + dst];
  auto it = std::lower_bound(v.begin(), v.end(), end,
                             [](const std::pair<uint64_t, uint64_t> &e, uint64_t x) {
                               return e.first < x;
                             });
  return it == v.end() ? ~0ull : it->second;
}

static std::string name(const EndpointConfig &c, unsigned idx) {
  return "(" + std::to_string(idx % c.width) + "," + std::to_string(idx / c.width) + ")";
}

uint64_t Endpoint::decide(const std::vector<SyncStatus> &all, uint64_t b, std::string &err) {
  uint64_t minBound = ~0ull;
  bool allDone = true;
  for (unsigned i = 0; i < all.size(); ++i) {
    const SyncStatus &s = all[i];
    if (s.state == SyncState::Done)
      continue;
    allDone = false;
    uint64_t bound = s.clock;
    if (s.state == SyncState::Blocked) {
      uint64_t a = s.waitFrom < cfg_.count() ? arrivalOf(s.waitFrom, i, s.needEnd) : ~0ull;
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
      if (all[i].state == SyncState::Blocked) {
        uint64_t have = known_[(size_t)all[i].waitFrom * cfg_.count() + i].empty()
                            ? 0
                            : known_[(size_t)all[i].waitFrom * cfg_.count() + i].back().first;
        os << " " << name(cfg_, i) << " waits for byte " << all[i].needEnd << " from "
           << name(cfg_, all[i].waitFrom) << " (" << have << " sent);";
      }
    err = os.str();
    return kDeadlock;
  }
  return std::max(b + window_, minBound / window_ * window_ + window_);
}

bool Endpoint::send(unsigned dx, unsigned dy, const uint32_t *words, size_t n, uint64_t at,
                    std::string &err) {
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
  if (!t_->send(r, dy * cfg_.width + dx, words, n, err))
    return false;
  ++stats_.sends;
  stats_.sentBytes += r.bytes;
  return true;
}

bool Endpoint::receive(unsigned sx, unsigned sy, uint32_t *words, size_t n, uint64_t at,
                       std::string &err) {
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
  unsigned src = sy * cfg_.width + sx, me = cfg_.index();
  uint64_t need = consumed_[src] + n * 4;
  uint64_t arrival;
  while ((arrival = arrivalOf(src, me, need)) == ~0ull) {
    SyncStatus st;
    st.state = SyncState::Blocked;
    st.clock = clock_;
    st.waitFrom = src;
    st.needEnd = need;
    if (!doBarrier(st, err))
      return false;
    if (finished_) {
      err = "every other chiplet finished while this one waits for data from (" +
            std::to_string(sx) + "," + std::to_string(sy) + ")";
      return false;
    }
  }
  if (!t_->take(src, words, n, err))
    return false;
  consumed_[src] = need;
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

std::string Endpoint::statsJson() const {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "{\"x\": %u, \"y\": %u, \"clock\": %llu, \"sends\": %llu, \"sent_bytes\": %llu, "
                "\"receives\": %llu, \"received_bytes\": %llu, \"barriers\": %llu, "
                "\"wait_cycles\": %llu, \"window\": %llu}",
                cfg_.x, cfg_.y, (unsigned long long)clock_, (unsigned long long)stats_.sends,
                (unsigned long long)stats_.sentBytes, (unsigned long long)stats_.receives,
                (unsigned long long)stats_.receivedBytes, (unsigned long long)stats_.barriers,
                (unsigned long long)stats_.waitCycles, (unsigned long long)window_);
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
    case 'R': cfg.topology = d == 1 ? noc::Topology::Torus : noc::Topology::Mesh; break;
    default:
      err = "unknown network option '" + o + "'";
      return false;
    }
  }
  err = cfg.validate();
  return err.empty();
}

} // namespace ptxsim::chiplet

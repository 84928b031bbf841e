// The `files` transport: the reference document's file formats in one run directory.
//   buffer_<dx>_<dy>_<sx>_<sy>  words sent by (sx,sy) to (dx,dy) and not yet read, one decimal
//                               per line; the sender appends, the reader keeps a read offset and
//                               empties the file once it has read everything in it
//   bench.<x>.<y>               the sends of (x,y), one `T sx sy dx dy n` line each (n in bytes)
//   synchronization             line 1: the cycle of the barrier being gathered; line 2: the
//                               window (the least distance to the next barrier); then one
//                               `x, y` line per chiplet that has arrived
// and, beyond the document: .trace (every chiplet's sends, `T sx sy dx dy n channel site`, the one
// log every chiplet reads from its offset), .sites.<x>.<y> (`id text`: the sending instructions
// named in errors), .status/table (one fixed-size line per chiplet: state, clock, what it waits
// for, pid), stats.<x>.<y>.json, `abort` (written by the launcher or by the chiplet that finds a
// deadlock), and .tmp/.
//
// Cost: a send appends to three files (O(1)); a receive reads its words from its offset (O(1));
// a barrier is O(1) file operations per chiplet (one line in `synchronization`, one slot of the
// status table, one read of .trace from its offset) and one read of the table by the chiplet
// that completes it: O(P) per barrier, not P^2 file opens.
//
// Contract: the synchronization file is replaced by write-to-temporary + rename under flock, so
// a reader never sees half of it; data, trace and status writes happen under the lock their
// readers take (or are one O_APPEND write of complete lines, of which readers use complete lines
// only). Waiting is inotify on .sync/, never a spin.

#include "isa_ext/chiplet/tools/runtime/Endpoint.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <poll.h>
#include <sstream>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>

namespace ptxsim::chiplet {
namespace {

bool readWhole(const std::string &path, std::string &out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  out.clear();
  char buf[65536];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0)
    out.append(buf, (size_t)n);
  ::close(fd);
  return true;
}

bool writeAtomic(const std::string &dir, const std::string &name, const std::string &content,
                 std::string &err) {
  // Temporaries live in a subdirectory nobody watches: only the final rename wakes waiters.
  std::string flat = name;
  std::replace(flat.begin(), flat.end(), '/', '_');
  std::string tmp = dir + "/.tmp/" + flat + "." + std::to_string(::getpid());
  std::string path = dir + "/" + name;
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    err = "cannot write " + tmp + ": " + std::strerror(errno);
    return false;
  }
  size_t off = 0;
  while (off < content.size()) {
    ssize_t n = ::write(fd, content.data() + off, content.size() - off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      err = "cannot write " + tmp + ": " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    off += (size_t)n;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    err = "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

std::vector<std::string> splitLines(const std::string &s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  std::string l;
  while (std::getline(in, l))
    v.push_back(l);
  return v;
}

bool writeAll(int fd, const std::string &s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    off += (size_t)n;
  }
  return true;
}

/// Holds flock(LOCK_EX) on an open descriptor for a scope.
class Locked {
public:
  explicit Locked(int fd) : fd_(fd) {
    while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~Locked() { ::flock(fd_, LOCK_UN); }

private:
  int fd_;
};

constexpr size_t kSlot = 96; ///< bytes per chiplet in .status/table

class FilesTransport : public Transport {
public:
  ~FilesTransport() override {
    for (int fd : {inotify_, benchFd_, traceFd_, syncLockFd_, tableFd_, sitesFd_})
      if (fd >= 0)
        ::close(fd);
    for (auto *m : {&outFds_, &inFds_})
      for (auto &kv : *m)
        ::close(kv.second);
    for (auto &kv : lockFds_)
      ::close(kv.second);
  }

  bool start(const EndpointConfig &cfg, uint64_t window, std::string &err) override {
    cfg_ = cfg;
    dir_ = cfg.dir;
    window_ = window;
    seqs_.assign(cfg.count(), 0);
    ::mkdir(dir_.c_str(), 0755);
    ::mkdir((dir_ + "/.tmp").c_str(), 0755);
    ::mkdir((dir_ + "/.status").c_str(), 0755);
    ::mkdir((dir_ + "/.sync").c_str(), 0755);
    inotify_ = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    // Waiters watch .sync/, where a completed barrier or an abort renames a file after writing
    // `synchronization` or `abort`: data files and arrivals in the run directory wake nobody.
    if (inotify_ < 0 || ::inotify_add_watch(inotify_, (dir_ + "/.sync").c_str(), IN_MOVED_TO) < 0) {
      err = "cannot watch " + dir_ + ": " + std::strerror(errno);
      return false;
    }
    syncLockFd_ = openOrFail(dir_ + "/.synchronization.lock", O_RDWR | O_CREAT, err);
    tableFd_ = openOrFail(dir_ + "/.status/table", O_RDWR | O_CREAT, err);
    traceFd_ = openOrFail(dir_ + "/.trace", O_RDWR | O_CREAT | O_APPEND, err);
    if (syncLockFd_ < 0 || tableFd_ < 0 || traceFd_ < 0)
      return false;
    Locked lock(syncLockFd_);
    std::string s;
    if (!readWhole(dir_ + "/synchronization", s)) {
      if (!writeAtomic(dir_, "synchronization",
                       std::to_string(window) + "\n" + std::to_string(window) + "\n", err))
        return false;
    } else {
      auto lines = splitLines(s);
      if (lines.size() < 2 || std::to_string(window) != lines[1]) {
        err = dir_ + "/synchronization: window '" + (lines.size() > 1 ? lines[1] : "") +
              "' differs from this chiplet's network lookahead " + std::to_string(window) +
              " (all chiplets need the same network options; is it left from another run?)";
        return false;
      }
    }
    SyncStatus st;
    return writeSlot(st, err);
  }

  bool leavesWhenDone() const override { return true; }

  int openOrFail(const std::string &path, int flags, std::string &err) {
    int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
    if (fd < 0)
      err = "cannot open " + path + ": " + std::strerror(errno);
    return fd;
  }

  std::string bufferName(unsigned dx, unsigned dy, unsigned sx, unsigned sy) const {
    return "buffer_" + std::to_string(dx) + "_" + std::to_string(dy) + "_" + std::to_string(sx) +
           "_" + std::to_string(sy);
  }

  int cachedFd(std::unordered_map<unsigned, int> &fds, unsigned peer, const std::string &name,
               int flags, std::string &err) {
    auto it = fds.find(peer);
    if (it != fds.end())
      return it->second;
    int fd = openOrFail(dir_ + "/" + name, flags, err);
    if (fd >= 0)
      fds[peer] = fd;
    return fd;
  }

  /// The lock of data file `name` (the document's readers and writers of one pair share it).
  int lockFd(const std::string &name, std::string &err) {
    auto it = lockFds_.find(name);
    if (it != lockFds_.end())
      return it->second;
    int fd = openOrFail(dir_ + "/." + name + ".lock", O_RDWR | O_CREAT, err);
    if (fd >= 0)
      lockFds_[name] = fd;
    return fd;
  }

  bool send(const TraceRecord &rec, unsigned dstIndex, const uint32_t *words, size_t n,
            std::string &err) override {
    std::string name = bufferName(rec.dx, rec.dy, rec.sx, rec.sy);
    std::string content;
    content.reserve(n * 12);
    char buf[16];
    for (size_t i = 0; i < n; ++i) {
      int len = std::snprintf(buf, sizeof buf, "%d\n", (int32_t)words[i]);
      content.append(buf, (size_t)len);
    }
    int lfd = lockFd(name, err);
    if (lfd < 0)
      return false;
    int fd = cachedFd(outFds_, dstIndex, name, O_WRONLY | O_CREAT | O_APPEND, err);
    if (fd < 0)
      return false;
    {
      Locked lock(lfd);
      if (!writeAll(fd, content)) {
        err = "cannot append to " + dir_ + "/" + name + ": " + std::strerror(errno);
        return false;
      }
    }
    if (benchFd_ < 0) {
      std::string bench = dir_ + "/bench." + std::to_string(cfg_.x) + "." + std::to_string(cfg_.y);
      if ((benchFd_ = openOrFail(bench, O_WRONLY | O_CREAT | O_APPEND, err)) < 0)
        return false;
    }
    std::string line = formatTraceLine(rec);
    char ext[64];
    std::snprintf(ext, sizeof ext, " %u %u\n", rec.channel, rec.site);
    std::string full = line.substr(0, line.size() - 1) + ext;
    if (::write(benchFd_, line.data(), line.size()) != (ssize_t)line.size() ||
        ::write(traceFd_, full.data(), full.size()) != (ssize_t)full.size()) {
      err = std::string("cannot append to the trace: ") + std::strerror(errno);
      return false;
    }
    return true;
  }

  bool defineSite(uint32_t id, const std::string &text, std::string &err) override {
    if (sitesFd_ < 0) {
      std::string path = dir_ + "/.sites." + std::to_string(cfg_.x) + "." + std::to_string(cfg_.y);
      if ((sitesFd_ = openOrFail(path, O_WRONLY | O_CREAT | O_APPEND, err)) < 0)
        return false;
    }
    std::string line = std::to_string(id) + " " + text + "\n";
    std::replace(line.begin(), line.end() - 1, '\n', ' ');
    if (!writeAll(sitesFd_, line)) {
      err = std::string("cannot append to .sites: ") + std::strerror(errno);
      return false;
    }
    return true;
  }

  std::string siteText(unsigned src, uint32_t id) override {
    std::string s;
    if (!id || !readWhole(dir_ + "/.sites." + std::to_string(src % cfg_.width) + "." +
                              std::to_string(src / cfg_.width),
                          s))
      return "";
    std::string key = std::to_string(id) + " ";
    for (const std::string &l : splitLines(s))
      if (l.rfind(key, 0) == 0)
        return l.substr(key.size());
    return "";
  }

  std::string idLine(unsigned idx) const {
    return std::to_string(idx % cfg_.width) + ", " + std::to_string(idx / cfg_.width);
  }

  bool writeSlot(const SyncStatus &st, std::string &err) {
    char buf[kSlot];
    std::memset(buf, ' ', sizeof buf);
    int len = std::snprintf(buf, sizeof buf, "%u %llu %u %u %llu %ld", (unsigned)st.state,
                            (unsigned long long)st.clock, st.waitFrom, st.channel,
                            (unsigned long long)st.needBytes, (long)::getpid());
    buf[len] = ' ';
    buf[kSlot - 1] = '\n';
    if (::pwrite(tableFd_, buf, kSlot, (off_t)(cfg_.index() * kSlot)) != (ssize_t)kSlot) {
      err = dir_ + "/.status/table: cannot write: " + std::strerror(errno);
      return false;
    }
    return true;
  }

  /// Every chiplet's slot of the status table (one read); `present` false where a chiplet has
  /// not joined yet.
  bool readTable(std::vector<SyncStatus> &all, std::vector<bool> &present, std::vector<long> &pids,
                 std::string &err) {
    size_t n = cfg_.count();
    std::string buf(n * kSlot, '\0');
    ssize_t got = ::pread(tableFd_, buf.data(), buf.size(), 0);
    if (got < 0) {
      err = dir_ + "/.status/table: cannot read: " + std::strerror(errno);
      return false;
    }
    all.assign(n, SyncStatus());
    present.assign(n, false);
    pids.assign(n, 0);
    for (size_t i = 0; i < n && (i + 1) * kSlot <= (size_t)got; ++i) {
      const char *p = buf.data() + i * kSlot;
      if (!*p)
        continue;
      unsigned state, from, ch;
      unsigned long long clock, need;
      long pid;
      if (std::sscanf(p, "%u %llu %u %u %llu %ld", &state, &clock, &from, &ch, &need, &pid) != 6 ||
          state > 2) {
        err = "malformed slot of chiplet " + idLine((unsigned)i) + " in " + dir_ + "/.status/table";
        return false;
      }
      all[i].state = (SyncState)state;
      all[i].clock = clock;
      all[i].waitFrom = from;
      all[i].channel = ch;
      all[i].needBytes = need;
      pids[i] = pid;
      present[i] = true;
    }
    return true;
  }

  bool barrier(uint64_t cycle, const SyncStatus &mine, const DecideFn &decide, uint64_t &next,
               std::string &err) override {
    std::string cycleStr = std::to_string(cycle);
    {
      Locked lock(syncLockFd_);
      if (!writeSlot(mine, err))
        return false;
      std::string s;
      if (!readWhole(dir_ + "/synchronization", s)) {
        err = dir_ + "/synchronization disappeared";
        return false;
      }
      auto lines = splitLines(s);
      if (mine.state == SyncState::Done && !lines.empty() && lines[0] != cycleStr) {
        // The barrier this chiplet was heading for completed counting it as finished (its
        // status said Done before it took the lock): nothing left to do.
        next = kAllDone;
        return true;
      }
      if (lines.size() < 2 || lines[0] != cycleStr) {
        err = dir_ + "/synchronization is at cycle '" + (lines.empty() ? "" : lines[0]) +
              "', this chiplet is at the barrier at cycle " + cycleStr;
        return false;
      }
      std::vector<bool> arrived(cfg_.count(), false);
      unsigned count = 0;
      for (size_t i = 2; i < lines.size(); ++i) {
        unsigned x, y;
        if (std::sscanf(lines[i].c_str(), "%u, %u", &x, &y) == 2 && x < cfg_.width &&
            y < cfg_.height && !arrived[y * cfg_.width + x]) {
          arrived[y * cfg_.width + x] = true;
          ++count;
        }
      }
      if (!arrived[cfg_.index()]) {
        arrived[cfg_.index()] = true;
        ++count;
      }
      // Only when the arrivals cannot complete the barrier alone does the table matter (the
      // finished chiplets count too).
      std::vector<SyncStatus> all;
      std::vector<bool> present;
      std::vector<long> pids;
      if (!readTable(all, present, pids, err))
        return false;
      for (unsigned i = 0; i < cfg_.count(); ++i)
        if (!arrived[i] && present[i] && all[i].state == SyncState::Done)
          ++count;
      all[cfg_.index()] = mine;
      if (count == cfg_.count()) {
        next = decide(all, err);
        if (next == kDeadlock) {
          std::string e2;
          writeAtomic(dir_, "abort", "chiplet (" + std::to_string(cfg_.x) + "," +
                                         std::to_string(cfg_.y) + ") found: " + err + "\n", e2);
          writeAtomic(dir_, ".sync/abort", "\n", e2);
          return false;
        }
        std::string content =
            next == kAllDone ? cycleStr + "\n" + std::to_string(window_) + "\n"
                             : std::to_string(next) + "\n" + std::to_string(window_) + "\n";
        return writeAtomic(dir_, "synchronization", content, err) &&
               writeAtomic(dir_, ".sync/release", content, err);
      }
      // Arriving appends one `x, y` line under the lock (everyone who reads the lines holds it;
      // waiters read only line 1, which changes by rename), so an arrival wakes nobody.
      if (mine.state != SyncState::Done) {
        std::string line = idLine(cfg_.index()) + "\n";
        int fd = ::open((dir_ + "/synchronization").c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd < 0 || ::write(fd, line.data(), line.size()) != (ssize_t)line.size()) {
          err = dir_ + "/synchronization: cannot append: " + std::strerror(errno);
          if (fd >= 0)
            ::close(fd);
          return false;
        }
        ::close(fd);
      }
    }
    if (mine.state == SyncState::Done) {
      next = kAllDone;
      return true;
    }
    return waitRelease(cycleStr, next, err);
  }

  /// The chiplets that have neither arrived at the current barrier nor finished, with their
  /// pids (0 if they have not joined yet).
  std::vector<std::pair<unsigned, long>> missing() {
    std::vector<std::pair<unsigned, long>> out;
    std::string s, err;
    {
      Locked lock(syncLockFd_);
      readWhole(dir_ + "/synchronization", s);
    }
    auto lines = splitLines(s);
    std::vector<SyncStatus> all;
    std::vector<bool> present;
    std::vector<long> pids;
    if (!readTable(all, present, pids, err))
      return out;
    for (unsigned i = 0; i < cfg_.count(); ++i) {
      bool arrived = std::find(lines.begin() + std::min<size_t>(2, lines.size()), lines.end(),
                               idLine(i)) != lines.end();
      if (!arrived && !(present[i] && all[i].state == SyncState::Done))
        out.push_back({i, pids[i]});
    }
    return out;
  }

  bool waitRelease(const std::string &cycleStr, uint64_t &next, std::string &err) {
    // Liveness, not silence: every half timeout the missing chiplets' processes are sampled;
    // one that is gone, stopped, or used no CPU time since the last sample fails the barrier.
    auto half = std::chrono::milliseconds(std::max<int64_t>(1, (int64_t)(cfg_.timeoutSec * 500)));
    auto checkAt = std::chrono::steady_clock::now() + half;
    std::map<unsigned, ProcessSample> before;
    for (;;) {
      std::string s;
      if (readWhole(dir_ + "/abort", s)) {
        while (!s.empty() && s.back() == '\n')
          s.pop_back();
        err = "run aborted: " + s;
        return false;
      }
      if (readWhole(dir_ + "/synchronization", s)) {
        size_t nl = s.find('\n');
        if (nl != std::string::npos && s.compare(0, nl, cycleStr) != 0) {
          next = std::strtoull(s.c_str(), nullptr, 10);
          return true;
        }
      }
      auto now = std::chrono::steady_clock::now();
      if (now >= checkAt) {
        std::string problems;
        std::map<unsigned, ProcessSample> samples;
        for (auto [i, pid] : missing()) {
          samples[i] = sampleProcess(pid);
          auto b = before.find(i);
          std::string why =
              livenessProblem(pid, b == before.end() ? ProcessSample() : b->second, samples[i],
                              cfg_.timeoutSec / 2);
          // gone or stopped: at once; idle: only with a sample from the previous check
          if (!why.empty())
            problems += (problems.empty() ? "chiplet " : "; chiplet ") + std::string("(") +
                        std::to_string(i % cfg_.width) + "," + std::to_string(i / cfg_.width) +
                        "): " + why;
        }
        if (!problems.empty()) {
          err = "at the barrier at cycle " + cycleStr + ", waiting for " + problems;
          return false;
        }
        before = std::move(samples);
        checkAt = now + half;
      }
      struct pollfd pfd = {inotify_, POLLIN, 0};
      int ms = (int)std::chrono::duration_cast<std::chrono::milliseconds>(checkAt - now).count();
      ::poll(&pfd, 1, std::max(0, std::min(ms + 1, 1000)));
      char buf[4096];
      while (::read(inotify_, buf, sizeof buf) > 0) {
      }
    }
  }

  bool newRecords(uint64_t before, std::vector<TraceRecord> &out, std::string &err) override {
    // One read of the shared log from this chiplet's offset, complete lines only.
    std::string data;
    char buf[65536];
    ssize_t n;
    while ((n = ::pread(traceFd_, buf, sizeof buf, (off_t)(traceOffset_ + data.size()))) > 0)
      data.append(buf, (size_t)n);
    size_t end = data.rfind('\n');
    if (end != std::string::npos) {
      const char *p = data.c_str(), *stop = p + end + 1;
      while (p < stop) {
        const char *eol = (const char *)std::memchr(p, '\n', (size_t)(stop - p));
        unsigned long long v[8];
        char *q = (char *)p;
        int k = 0;
        for (; k < 8 && q < eol; ++k) {
          char *e;
          v[k] = std::strtoull(q, &e, 10);
          if (e == q)
            break;
          q = e;
        }
        if (k != 8) {
          err = dir_ + "/.trace: malformed line '" + std::string(p, eol) + "'";
          return false;
        }
        TraceRecord r;
        r.time = v[0];
        r.sx = (unsigned)v[1];
        r.sy = (unsigned)v[2];
        r.dx = (unsigned)v[3];
        r.dy = (unsigned)v[4];
        r.bytes = (uint32_t)v[5];
        r.channel = (uint32_t)v[6];
        r.site = (uint32_t)v[7];
        unsigned src = r.sy * cfg_.width + r.sx;
        if (r.sx >= cfg_.width || r.sy >= cfg_.height) {
          err = dir_ + "/.trace: a record names a chiplet outside the grid: '" +
                std::string(p, eol) + "'";
          return false;
        }
        pending_.push_back({r, src, seqs_[src]++});
        p = eol + 1;
      }
      traceOffset_ += end + 1;
    }
    releaseRecords(pending_, before, out);
    return true;
  }

  bool take(unsigned srcIndex, uint32_t *words, size_t n, std::string &err) override {
    std::string name = bufferName(cfg_.x, cfg_.y, srcIndex % cfg_.width, srcIndex / cfg_.width);
    int lfd = lockFd(name, err);
    if (lfd < 0)
      return false;
    int fd = cachedFd(inFds_, srcIndex, name, O_RDWR | O_CREAT, err);
    if (fd < 0)
      return false;
    uint64_t &off = inOffsets_[srcIndex];
    Locked lock(lfd);
    std::string data;
    size_t i = 0, pos = 0;
    char buf[8192];
    while (i < n) {
      size_t nl = data.find('\n', pos);
      if (nl == std::string::npos) {
        ssize_t got = ::pread(fd, buf, std::min(sizeof buf, (n - i) * 12 + 16),
                              (off_t)(off + data.size()));
        if (got <= 0) {
          err = dir_ + "/" + name + " holds " + std::to_string(i) + " words, the trace promises " +
                std::to_string(n);
          return false;
        }
        data.append(buf, (size_t)got);
        continue;
      }
      words[i++] = (uint32_t)(int32_t)std::strtoll(data.c_str() + pos, nullptr, 10);
      pos = nl + 1;
    }
    off += pos;
    struct stat st;
    if (::fstat(fd, &st) == 0 && (uint64_t)st.st_size == off) {
      // everything in it is read: empty it, as the document's reader leaves it
      if (::ftruncate(fd, 0) != 0) {
        err = dir_ + "/" + name + ": cannot empty: " + std::strerror(errno);
        return false;
      }
      off = 0;
    }
    return true;
  }

  void close(const std::string &statsJson) override {
    std::string err;
    writeAtomic(dir_, "stats." + std::to_string(cfg_.x) + "." + std::to_string(cfg_.y) + ".json",
                statsJson + "\n", err);
  }

private:
  EndpointConfig cfg_;
  std::string dir_;
  uint64_t window_ = 1;
  int inotify_ = -1, benchFd_ = -1, traceFd_ = -1, syncLockFd_ = -1, tableFd_ = -1,
      sitesFd_ = -1;
  uint64_t traceOffset_ = 0;
  std::vector<uint64_t> seqs_;
  std::vector<PendingRecord> pending_;
  /// Only the chiplets this one talks to: data files by peer, their locks by name.
  std::unordered_map<unsigned, int> outFds_, inFds_;
  std::unordered_map<unsigned, uint64_t> inOffsets_;
  std::unordered_map<std::string, int> lockFds_;
};

} // namespace

std::unique_ptr<Transport> makeFilesTransport() { return std::make_unique<FilesTransport>(); }

} // namespace ptxsim::chiplet

// The `files` transport: the reference document's file formats in one run directory.
//   buffer_<dx>_<dy>_<sx>_<sy>  words sent by (sx,sy) to (dx,dy) and not yet read, one decimal
//                               per line; the reader removes what it reads
//   bench.<x>.<y>               the sends of (x,y), one `T sx sy dx dy n` line each (n in bytes)
//   synchronization             line 1: the cycle of the barrier being gathered; line 2: the
//                               window (the least distance to the next barrier); then one
//                               `x, y` line per chiplet that has arrived
// and, beyond the document: .status/<x>.<y> (state at its last arrival), stats.<x>.<y>.json,
// `abort` (written by the launcher or by the chiplet that finds a deadlock), and .tmp/.
//
// Contract: data and synchronization files are replaced by write-to-temporary + rename under
// flock, so a reader never sees half of them; a trace line is one O_APPEND write and readers use
// complete lines only. Waiting is inotify on the directory, never a spin.

#include "isa_ext/chiplet/tools/runtime/Endpoint.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sstream>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ptxsim::chiplet {
namespace {

class FileLock {
public:
  FileLock(const std::string &path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ >= 0)
      while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
      }
  }
  ~FileLock() {
    if (fd_ >= 0)
      ::close(fd_); // releases the lock
  }
  bool ok() const { return fd_ >= 0; }

private:
  int fd_ = -1;
};

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

class FilesTransport : public Transport {
public:
  ~FilesTransport() override {
    if (inotify_ >= 0)
      ::close(inotify_);
    if (benchFd_ >= 0)
      ::close(benchFd_);
  }

  bool start(const EndpointConfig &cfg, uint64_t window, std::string &err) override {
    cfg_ = cfg;
    dir_ = cfg.dir;
    window_ = window;
    offsets_.assign(cfg.count(), 0);
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
    FileLock lock(dir_ + "/.synchronization.lock");
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
    return true;
  }

  bool leavesWhenDone() const override { return true; }

  bool send(const TraceRecord &rec, unsigned, const uint32_t *words, size_t n,
            std::string &err) override {
    std::string name = "buffer_" + std::to_string(rec.dx) + "_" + std::to_string(rec.dy) + "_" +
                       std::to_string(rec.sx) + "_" + std::to_string(rec.sy);
    {
      FileLock lock(dir_ + "/." + name + ".lock");
      std::string content;
      readWhole(dir_ + "/" + name, content);
      char buf[16];
      for (size_t i = 0; i < n; ++i) {
        int len = std::snprintf(buf, sizeof buf, "%d\n", (int32_t)words[i]);
        content.append(buf, (size_t)len);
      }
      if (!writeAtomic(dir_, name, content, err))
        return false;
    }
    if (benchFd_ < 0) {
      std::string bench = dir_ + "/bench." + std::to_string(cfg_.x) + "." + std::to_string(cfg_.y);
      benchFd_ = ::open(bench.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (benchFd_ < 0) {
        err = "cannot open " + bench + ": " + std::strerror(errno);
        return false;
      }
    }
    std::string line = formatTraceLine(rec);
    if (::write(benchFd_, line.data(), line.size()) != (ssize_t)line.size()) {
      err = std::string("cannot append to the trace: ") + std::strerror(errno);
      return false;
    }
    return true;
  }

  std::string idLine(unsigned idx) const {
    return std::to_string(idx % cfg_.width) + ", " + std::to_string(idx / cfg_.width);
  }

  bool readStatus(unsigned idx, SyncStatus &st, bool &present) const {
    std::string s;
    present = readWhole(dir_ + "/.status/" + std::to_string(idx % cfg_.width) + "." +
                            std::to_string(idx / cfg_.width),
                        s);
    if (!present)
      return true;
    std::istringstream in(s);
    unsigned state;
    if (!(in >> state >> st.clock >> st.waitFrom >> st.needEnd) || state > 2)
      return false;
    st.state = (SyncState)state;
    return true;
  }

  bool barrier(uint64_t cycle, const SyncStatus &mine, const DecideFn &decide, uint64_t &next,
               std::string &err) override {
    std::string me = std::to_string(cfg_.x) + "." + std::to_string(cfg_.y);
    if (!writeAtomic(dir_, ".status/" + me,
                     std::to_string((unsigned)mine.state) + " " + std::to_string(mine.clock) + " " +
                         std::to_string(mine.waitFrom) + " " + std::to_string(mine.needEnd) + "\n",
                     err))
      return false;
    std::string cycleStr = std::to_string(cycle);
    {
      FileLock lock(dir_ + "/.synchronization.lock");
      std::string s;
      if (!readWhole(dir_ + "/synchronization", s)) {
        err = dir_ + "/synchronization disappeared";
        return false;
      }
      auto lines = splitLines(s);
      if (mine.state == SyncState::Done && !lines.empty() && lines[0] != cycleStr) {
        // The status file said Done before this chiplet took the lock, and the barrier it was
        // heading for completed counting it as finished: nothing left to do.
        next = kAllDone;
        return true;
      }
      if (lines.size() < 2 || lines[0] != cycleStr) {
        err = dir_ + "/synchronization is at cycle '" + (lines.empty() ? "" : lines[0]) +
              "', this chiplet is at the barrier at cycle " + cycleStr;
        return false;
      }
      std::vector<bool> arrived(cfg_.count(), false);
      for (size_t i = 2; i < lines.size(); ++i) {
        unsigned x, y;
        if (std::sscanf(lines[i].c_str(), "%u, %u", &x, &y) == 2 && x < cfg_.width &&
            y < cfg_.height)
          arrived[y * cfg_.width + x] = true;
      }
      if (mine.state != SyncState::Done)
        arrived[cfg_.index()] = true;
      std::vector<SyncStatus> all(cfg_.count());
      unsigned count = 0;
      for (unsigned i = 0; i < cfg_.count(); ++i) {
        bool present = false;
        if (!readStatus(i, all[i], present)) {
          err = "malformed status file of chiplet " + idLine(i);
          return false;
        }
        if (i == cfg_.index())
          all[i] = mine;
        if (arrived[i] || (present && all[i].state == SyncState::Done) || i == cfg_.index())
          ++count;
      }
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

  bool waitRelease(const std::string &cycleStr, uint64_t &next, std::string &err) {
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::milliseconds((int64_t)(cfg_.timeoutSec * 1000));
    for (;;) {
      std::string s;
      if (readWhole(dir_ + "/abort", s)) {
        while (!s.empty() && s.back() == '\n')
          s.pop_back();
        err = "run aborted: " + s;
        return false;
      }
      if (readWhole(dir_ + "/synchronization", s)) {
        auto lines = splitLines(s);
        if (!lines.empty() && lines[0] != cycleStr) {
          next = std::strtoull(lines[0].c_str(), nullptr, 10);
          return true;
        }
      }
      auto now = std::chrono::steady_clock::now();
      if (now >= deadline) {
        err = "timed out after " + std::to_string((int)cfg_.timeoutSec) +
              " s at the barrier at cycle " + cycleStr + " waiting for " + missing();
        return false;
      }
      struct pollfd pfd = {inotify_, POLLIN, 0};
      int ms = (int)std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
      ::poll(&pfd, 1, std::min(ms + 1, 1000));
      char buf[4096];
      while (::read(inotify_, buf, sizeof buf) > 0) {
      }
    }
  }

  /// The chiplets that have neither arrived at the current barrier nor finished.
  std::string missing() {
    std::string s;
    readWhole(dir_ + "/synchronization", s);
    auto lines = splitLines(s);
    std::string out;
    for (unsigned i = 0; i < cfg_.count(); ++i) {
      bool arrived = std::find(lines.begin() + std::min<size_t>(2, lines.size()), lines.end(),
                               idLine(i)) != lines.end();
      SyncStatus st;
      bool present = false;
      readStatus(i, st, present);
      if (!arrived && !(present && st.state == SyncState::Done))
        out += (out.empty() ? "chiplet (" : ", (") + std::to_string(i % cfg_.width) + "," +
               std::to_string(i / cfg_.width) + ")";
    }
    return (out.empty() ? std::string("nobody") : out) +
           " (never arrived: exited without finishing, crashed or stuck)";
  }

  bool newRecords(uint64_t before, std::vector<TraceRecord> &out, std::string &err) override {
    for (unsigned i = 0; i < cfg_.count(); ++i) {
      std::string path = dir_ + "/bench." + std::to_string(i % cfg_.width) + "." +
                         std::to_string(i / cfg_.width);
      int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        continue;
      std::string data;
      char buf[65536];
      ssize_t n;
      while ((n = ::pread(fd, buf, sizeof buf, (off_t)(offsets_[i] + data.size()))) > 0)
        data.append(buf, (size_t)n);
      ::close(fd);
      size_t end = data.rfind('\n');
      if (end == std::string::npos)
        continue;
      std::istringstream in(data.substr(0, end + 1));
      std::string line;
      while (std::getline(in, line)) {
        noc::Packet p;
        if (!noc::parseTraceLine(line, 2, p)) {
          err = path + ": malformed trace line '" + line + "'";
          return false;
        }
        TraceRecord r;
        r.time = p.time;
        r.sx = p.src[0];
        r.sy = p.src[1];
        r.dx = p.dst[0];
        r.dy = p.dst[1];
        r.bytes = p.bytes;
        pending_.push_back({r, i, seqs_[i]++});
      }
      offsets_[i] += end + 1;
    }
    releaseRecords(pending_, before, out);
    return true;
  }

  bool take(unsigned srcIndex, uint32_t *words, size_t n, std::string &err) override {
    std::string name = "buffer_" + std::to_string(cfg_.x) + "_" + std::to_string(cfg_.y) + "_" +
                       std::to_string(srcIndex % cfg_.width) + "_" +
                       std::to_string(srcIndex / cfg_.width);
    FileLock lock(dir_ + "/." + name + ".lock");
    std::string content;
    readWhole(dir_ + "/" + name, content);
    size_t pos = 0;
    for (size_t i = 0; i < n; ++i) {
      size_t nl = content.find('\n', pos);
      if (nl == std::string::npos) {
        err = dir_ + "/" + name + " holds " + std::to_string(i) + " words, the trace promises " +
              std::to_string(n);
        return false;
      }
      words[i] = (uint32_t)(int32_t)std::strtoll(content.c_str() + pos, nullptr, 10);
      pos = nl + 1;
    }
    return writeAtomic(dir_, name, content.substr(pos), err);
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
  int inotify_ = -1;
  int benchFd_ = -1;
  std::vector<uint64_t> offsets_, seqs_;
  std::vector<PendingRecord> pending_;
};

} // namespace

std::unique_ptr<Transport> makeFilesTransport() { return std::make_unique<FilesTransport>(); }

} // namespace ptxsim::chiplet

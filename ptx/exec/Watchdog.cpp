#include "ptx/exec/Watchdog.h"

#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace ptxsim::ptx::exec {

struct Watchdog::State {
  struct Entry {
    Clock::time_point deadline;
    std::function<void()> fire;
  };
  std::mutex mu;
  std::condition_variable cv;
  std::map<uint64_t, Entry> entries;
  uint64_t next = 1;
  uint64_t firing = 0; ///< the token whose fire() runs now, 0 when none
  pid_t threadPid = 0; ///< the process whose watchdog thread runs (a forked child has none)
};

Watchdog &Watchdog::instance() {
  // never destroyed: its thread may still wait when the process exits
  static Watchdog *w = [] {
    auto *d = new Watchdog();
    d->s_ = new State();
    return d;
  }();
  return *w;
}

uint64_t Watchdog::arm(Clock::time_point deadline, std::function<void()> fire) {
  State &s = *s_;
  std::lock_guard<std::mutex> lock(s.mu);
  uint64_t token = s.next++;
  s.entries[token] = {deadline, std::move(fire)};
  if (s.threadPid != getpid()) {
    s.threadPid = getpid();
    std::thread([this] { loop(); }).detach();
  }
  s.cv.notify_all();
  return token;
}

void Watchdog::disarm(uint64_t token) {
  State &s = *s_;
  std::unique_lock<std::mutex> lock(s.mu);
  s.entries.erase(token);
  s.cv.wait(lock, [&] { return s.firing != token; });
  s.cv.notify_all();
}

void Watchdog::loop() {
  State &s = *s_;
  std::unique_lock<std::mutex> lock(s.mu);
  for (;;) {
    if (s.entries.empty()) {
      s.cv.wait(lock);
      continue;
    }
    auto due = s.entries.begin();
    for (auto it = s.entries.begin(); it != s.entries.end(); ++it)
      if (it->second.deadline < due->second.deadline)
        due = it;
    if (Clock::now() < due->second.deadline) {
      s.cv.wait_until(lock, due->second.deadline);
      continue;
    }
    uint64_t token = due->first;
    std::function<void()> fire = std::move(due->second.fire);
    s.entries.erase(due);
    s.firing = token;
    lock.unlock();
    fire();
    lock.lock();
    s.firing = 0;
    s.cv.notify_all();
  }
}

std::string parseKernelTimeout(std::string_view text, double &seconds) {
  std::string t(text);
  char *end = nullptr;
  errno = 0;
  double v = t.empty() ? NAN : std::strtod(t.c_str(), &end);
  if (t.empty() || *end || errno || !std::isfinite(v))
    return "needs a number of seconds, not '" + t + "'";
  if (!(v > 0) || v > 1e6)
    return "must be more than 0 and at most 1000000 seconds, not '" + t + "'";
  seconds = v;
  return {};
}

} // namespace ptxsim::ptx::exec

#pragma once
// Host threads for the parallel timing engine: a fork-join over an index range, once or twice
// per simulated cycle, so it must cost little (no allocation, no system call while the threads
// are busy, no cache line every thread fights over) and must not wait for a thread the host has
// descheduled (a loaded machine).
//
// Contract: run(count, fn, ctx) calls fn(ctx, i) exactly once for each i in [0, count), on the
// calling thread and the pool's threads (which i runs where is not fixed), and returns when
// every call has returned. Calls for different i must not depend on each other. The caller
// takes indices too, so run() never waits for a thread that has not started on the job; it
// waits only for calls in progress. Between runs the threads spin briefly, then yield, then
// sleep on a condition variable (an idle pool costs no CPU after a few milliseconds); after
// rest() they sleep at once, until the next run().
//
// How: the range is cut into one contiguous share per thread, each with its own claim cursor
// on its own cache line. A thread takes its share's indices one by one (its cursor stays in
// its cache), then takes indices from the other shares' cursors (work stealing; shares marked
// used up in a per-job bit mask are skipped, so a thief rarely reads every cursor), so a slow or
// descheduled thread delays the job by at most the one call it is in. Each thread reports its
// finished calls once per job. Cursors and the job's description carry the job's epoch, so a
// thread that wakes up late for a finished job claims nothing.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ptxsim::timing {

class WorkerPool {
public:
  using Fn = void (*)(void *ctx, size_t i);
  /// `threads` host threads in all, the caller's included (threads - 1 are started).
  explicit WorkerPool(unsigned threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool &operator=(const WorkerPool &) = delete;

  unsigned threads() const { return (unsigned)workers_.size() + 1; }
  /// Runs the job. While profiling (setProfiling), returns the host seconds all threads
  /// together spent claiming and running its calls, else 0 (no clock is read).
  double run(size_t count, Fn fn, void *ctx);
  /// No job is expected soon (the caller's guess; the next run() works as ever): the threads
  /// sleep as soon as they see it instead of spinning and yielding first. A thread that spins
  /// or yields between jobs costs a core (its yields are system calls), and on the development
  /// machine it also slowed the calling thread (Gpu::runLocalPhase). Cheap when repeated.
  void rest() {
    if (!resting_.load(std::memory_order_relaxed))
      resting_.store(true, std::memory_order_relaxed);
  }
  /// A job is expected soon after rest(): the threads wake up now (a sleeping thread takes
  /// tens of microseconds), to spin until it comes. Cheap when not resting.
  void wake() {
    if (resting_.load(std::memory_order_relaxed))
      wakeSlow();
  }
  /// Profiling (TimingProfile): with `on`, run() times the threads' calls and sums the calling
  /// thread's wait for the others after its own share (clock reads; none when off).
  void setProfiling(bool on) { profiling_ = on; }
  /// (tests) The pool's threads asleep now, and the times a sleeping thread was woken by
  /// wake() rather than by a job.
  unsigned sleepingThreads() const { return sleeping_.load(); }
  uint64_t sleeps() const { return sleeps_.load(std::memory_order_relaxed); } ///< begun so far
  uint64_t earlyWakeups() const { return earlyWakeups_.load(std::memory_order_relaxed); }
  /// The waits summed since the last call (seconds), and resets the sum.
  double takeWaitSeconds() {
    double s = double(waitNs_) * 1e-9;
    waitNs_ = 0;
    return s;
  }

private:
  void workerLoop(unsigned self);
  void wakeSlow();
  /// Claims and runs indices of job `epoch` as thread `self` until none is left (or a newer
  /// job started).
  void work(uint32_t epoch, unsigned self);

  struct alignas(64) Cursor {
    std::atomic<uint64_t> v{0}; ///< epoch << 32 | next index of the share to hand out
  };
  std::vector<std::thread> workers_;
  std::unique_ptr<Cursor[]> cursors_; ///< one per thread (share), each on its own line
  // The current job, written by run() under a sequence tag (jobTag_: 0 while written, then the
  // job's epoch), so a late thread never acts on a half-written description.
  alignas(64) std::atomic<uint32_t> jobTag_{0};
  std::atomic<Fn> fn_{nullptr};
  std::atomic<void *> ctx_{nullptr};
  std::atomic<size_t> count_{0};
  std::atomic<bool> timed_{false}; ///< the job's calls are timed (profiling)
  /// epoch << 32 | a bit per share whose indices are all claimed (a hint for thieves; set
  /// only after a claim found the share's cursor at its end in that epoch)
  alignas(64) std::atomic<uint64_t> exhausted_{0};
  alignas(64) std::atomic<size_t> finished_{0}; ///< calls of the current job done
  std::atomic<uint64_t> workNs_{0};             ///< nanoseconds the threads spent in them
  alignas(64) std::atomic<uint32_t> epoch_{0};  ///< bumped per job (and to stop)
  std::atomic<unsigned> sleeping_{0};
  /// rest() was called after the last run() (a hint: the waiting threads go to sleep)
  alignas(64) std::atomic<bool> resting_{false};
  std::atomic<bool> stop_{false};
  std::mutex m_;
  std::condition_variable cv_;
  uint64_t wakeTag_ = 0; ///< (under m_) bumped by wake() to end the sleepers' wait
  std::atomic<uint64_t> earlyWakeups_{0}, sleeps_{0};
  bool profiling_ = false; ///< (the calling thread's only)
  uint64_t waitNs_ = 0;
};

} // namespace ptxsim::timing

#pragma once
// Host threads for the parallel timing engine: a fork-join over an index range, once or twice
// per simulated cycle, so it must cost little (no allocation, no system call while the threads
// are busy) and must not wait for a thread the host has descheduled (a loaded machine).
//
// Contract: run(count, fn, ctx) calls fn(ctx, i) exactly once for each i in [0, count), on the
// calling thread and the pool's threads (which i runs where is not fixed), and returns when
// every call has returned. Calls for different i must not depend on each other. The caller
// takes indices too, so run() never waits for a thread that has not started on the job; it
// waits only for calls in progress. Between runs the threads spin briefly, then yield, then
// sleep on a condition variable (an idle pool costs no CPU after a few milliseconds).

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
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
  void run(size_t count, Fn fn, void *ctx);

private:
  void workerLoop();
  /// Takes chunks of job `epoch` until none is left (or a newer job started).
  void work(uint32_t epoch);

  std::vector<std::thread> workers_;
  // the current job (atomics: a late thread may read them while the next job is set up; it
  // then fails to claim anything, since the ticket's epoch changed)
  std::atomic<Fn> fn_{nullptr};
  std::atomic<void *> ctx_{nullptr};
  std::atomic<size_t> count_{0};
  std::atomic<size_t> chunk_{1};
  /// epoch << 32 | next index to hand out: a claim succeeds only in the current epoch
  alignas(64) std::atomic<uint64_t> ticket_{0};
  alignas(64) std::atomic<size_t> finished_{0}; ///< indices of the current job done
  alignas(64) std::atomic<uint32_t> epoch_{0};  ///< bumped per job (and to stop)
  std::atomic<unsigned> sleeping_{0};
  std::atomic<bool> stop_{false};
  std::mutex m_;
  std::condition_variable cv_;
};

} // namespace ptxsim::timing

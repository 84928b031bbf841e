#pragma once
// Host threads that stay alive between kernel launches. Creating and joining a thread per
// worker per launch cost 60-170 us a launch (2-4 threads) on a loaded machine, which dominated
// programs made of many small launches; a pool's threads only wake up.

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ptxsim::ptx::exec {

class WorkerPool {
public:
  /// The process's pool (built on first use, never destroyed: its threads sleep until exit).
  static WorkerPool &instance();

  /// Runs fn(0), ..., fn(n - 1) at once: fn(0) on the calling thread, the others on pool
  /// threads (started the first time they are needed). Contract: returns when every call has
  /// returned. Runs from several host threads, or from inside fn, do not wait for each other:
  /// one that finds the pool busy starts threads of its own for that run, as before the pool.
  void run(unsigned n, const std::function<void(unsigned)> &fn);

private:
  WorkerPool() = default;
  void loop(unsigned index);

  std::mutex runMu_; ///< held for the whole of a run that uses the pool
  std::mutex mu_;    ///< guards the fields below
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_; ///< threads_[i] runs fn(i + 1)
  const std::function<void(unsigned)> *job_ = nullptr;
  uint64_t generation_ = 0; ///< counts runs; a thread works once per new generation
  unsigned wanted_ = 0;     ///< pool threads taking part in the current run
  unsigned remaining_ = 0;  ///< of those, still running
};

} // namespace ptxsim::ptx::exec

#pragma once
// Host threads that stay alive between kernel launches. Creating and joining a thread per
// worker per launch cost 60-170 us a launch (2-4 threads) on a loaded machine, which dominated
// programs made of many small launches; a pool's threads only wake up.

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ptxsim::ptx::exec {

class WorkerPool {
public:
  /// The process's pool (built on first use, never destroyed: its threads sleep until exit).
  static WorkerPool &instance();

  /// Runs fn(0), ..., fn(n - 1) at once on pool threads (started the first time they are
  /// needed), or with `callerWorks` fn(0) on the calling thread. Contract: returns when every
  /// call has returned. Runs from several host threads, or from inside fn, do not wait for
  /// each other: one that finds the pool busy starts threads of its own for that run.
  ///
  /// Why not always on the caller: glibc gives each thread its own malloc arena, so memory
  /// that ptxsim allocates and frees on pool threads never lands in the main thread's arena,
  /// where the application's next small malloc would find it (with our data in it) instead of
  /// fresh zero-filled memory, as it does without ptxsim.
  void run(unsigned n, const std::function<void(unsigned)> &fn, bool callerWorks = false);

  /// Runs fn on ptxsim's service thread and waits (runs it at once when called from the
  /// service thread or a pool thread): for ptxsim's own allocation-heavy work on the
  /// application's threads (parsing fat binaries and PTX, running launches; see run). A
  /// thread of its own rather than a pool thread, so that a launch run there can use the
  /// whole pool.
  void runOffCaller(const std::function<void()> &fn);

  /// Marks the calling thread as one of ptxsim's own (the runtime's device executor): its
  /// runOffCaller calls run at once, as on the service thread.
  static void adoptCurrentThread();

private:
  WorkerPool() = default;
  void loop(unsigned slot);

  std::mutex runMu_; ///< held for the whole of a run that uses the pool
  std::mutex mu_;    ///< guards the fields below
  std::condition_variable done_;
  std::vector<std::thread> threads_; ///< threads_[i] runs fn(i + first_)
  /// threads_[i] sleeps on slotWake_[i]: a run wakes only the threads it uses (one condition
  /// variable for all made every launch wake every pool thread, a cost that grew with the
  /// host's cores for programs made of many one-CTA launches)
  std::vector<std::unique_ptr<std::condition_variable>> slotWake_;
  const std::function<void(unsigned)> *job_ = nullptr;
  unsigned first_ = 0; ///< 1 when the caller runs fn(0)
  uint64_t generation_ = 0; ///< counts runs; a thread works once per new generation
  unsigned wanted_ = 0;     ///< pool threads taking part in the current run
  unsigned remaining_ = 0;  ///< of those, still running

  std::mutex serviceRunMu_; ///< one runOffCaller at a time
  std::mutex serviceMu_;    ///< guards the fields below
  std::condition_variable serviceWake_, serviceDone_;
  std::thread service_;
  const std::function<void()> *serviceJob_ = nullptr; ///< null when idle
};

} // namespace ptxsim::ptx::exec

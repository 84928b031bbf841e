#pragma once
// Asynchronous streams: the queue of stream work and the device executor that runs it
// (Streams.cpp says how it orders work). The Context owns one WorkQueue.
//
// Contract: newWork() and submit() are called with the context mutex held (the one handed in);
// submit() queues the item and returns its sequence number, and the executor thread runs the
// items in that order through `run`, then `flush` writes the device's buffered printf output at
// synchronising points. Work items are recycled, never freed: their memory stays ptxsim's, so it
// never becomes the application's next malloc with our data in it.

#include "ptx/exec/Engine.h"

#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

namespace ptxsim::runtime {

/// What cudaStreamSetAttribute stored (cudaStreamGetAttribute reads it back). Functionally
/// these change nothing: an access-policy window is a cache hint, the synchronisation policy
/// how a host thread waits, the memory-sync domain a fence-scope hint.
struct StreamAttrs {
  cudaAccessPolicyWindow accessPolicyWindow{};
  cudaSynchronizationPolicy syncPolicy = cudaSyncPolicyAuto;
  cudaLaunchMemSyncDomainMap memSyncDomainMap{0, 1};
  cudaLaunchMemSyncDomain memSyncDomain = cudaLaunchMemSyncDomainDefault;
};

struct StreamObj {
  unsigned flags = 0;
  int priority = 0;
  unsigned long long id = 0; ///< cudaStreamGetId: unique over the process's lifetime
  StreamAttrs attrs;
  uint64_t tail = 0; ///< sequence number of the stream's last queued work (0: none)
};

struct EventObj {
  unsigned flags = 0;
  bool recorded = false;
  uint64_t recordSeq = 0; ///< the queued record that completes the event (0: none)
  std::chrono::steady_clock::time_point when; ///< written by the executor at the record
  double simSeconds = 0;                      ///< simulated time at the record (timing mode)
};

/// One piece of queued stream work (Streams.cpp). Recycled, never freed: its memory stays
/// ptxsim's, so it never becomes the application's next malloc with our data in it.
struct Work {
  enum class Kind : uint8_t { Launch, Copy, Memset, EventRecord, HostFn, Callback };
  Kind kind = Kind::Launch;
  uint64_t seq = 0;
  Work *next = nullptr;
  // Launch
  ptx::exec::LaunchParams lp;
  std::vector<uint8_t> params;
  // Copy, Memset
  void *dst = nullptr;
  const void *src = nullptr;
  size_t count = 0;
  cudaMemcpyKind copyKind = cudaMemcpyDefault;
  int value = 0;
  // EventRecord
  EventObj *event = nullptr;
  // HostFn, Callback
  cudaHostFn_t hostFn = nullptr;
  cudaStreamCallback_t callback = nullptr;
  void *userData = nullptr;
  cudaStream_t stream = nullptr;
};

class WorkQueue {
public:
  WorkQueue(std::mutex &contextMutex, std::function<void(Work &)> run, std::function<void()> flush);

  /// A recycled work item for submit (call under the mutex).
  Work *newWork();
  /// Queues `w` on stream `s` (a valid, non-capturing stream) and returns its sequence number;
  /// with the queue full (kMaxQueued items), waits for room first. Call under the mutex.
  uint64_t submit(Work *w, cudaStream_t s);
  /// The sequence number of the last work queued on `s` (0: none). Call under the mutex.
  uint64_t streamTail(cudaStream_t s) const;
  /// True once work `seq` (and everything queued before it) has run.
  bool done(uint64_t seq) const { return completed_.load(std::memory_order_acquire) >= seq; }
  /// Waits until work `seq` has run, without the mutex (the executor may need it for a host
  /// function that calls the runtime); then writes the device's buffered printf output.
  /// Returns at once on the executor thread (a host function cannot wait for itself).
  void waitFor(uint64_t seq);
  /// With `lock` (the mutex) held: waits until the queue is empty and the executor idle,
  /// releasing the mutex while it waits. On return nothing runs on the device and nothing can
  /// be queued until the caller unlocks: the caller may touch device state directly.
  void drain(std::unique_lock<std::mutex> &lock);
  /// drain() for a caller that holds the mutex without a unique_lock of its own.
  void drainHeld();
  /// Waits for every queued work (the program's exit: no mutex held).
  void drainAtExit();
  /// True on the device executor thread (and in host functions it runs).
  static bool onExecutor();

  /// Queued items above which a host thread's submit waits (CUDA's launch queue also fills).
  static constexpr uint64_t kMaxQueued = 1024;

private:
  void executorLoop();

  std::mutex &contextMu_;
  std::function<void(Work &)> run_;
  std::function<void()> flush_;
  // qmu_ guards head_/tailItem_/free_/the thread; completed_ is the last run
  std::mutex qmu_;
  std::condition_variable workCv_, doneCv_, roomCv_;
  Work *head_ = nullptr, *tailItem_ = nullptr, *free_ = nullptr;
  uint64_t submitted_ = 0;
  uint64_t wakeAt_ = UINT64_MAX; ///< the lowest sequence number a waiter waits for
  std::atomic<uint64_t> completed_{0};
  bool executorStarted_ = false;
  int synchronous_ = -1; ///< PTXSIM_ASYNC=0 or a forked child: work runs at the call
  uint64_t legacyTail_ = 0;
};

} // namespace ptxsim::runtime

#include "timing/gpu/WorkerPool.h"

#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define PTXSIM_CPU_RELAX() _mm_pause()
#else
#define PTXSIM_CPU_RELAX() std::atomic_signal_fence(std::memory_order_seq_cst)
#endif

namespace ptxsim::timing {

namespace {
// Waiting: spin this many times (a cycle of the model takes microseconds), then yield the core
// (a loaded machine runs someone else), then sleep.
constexpr unsigned kSpins = 2000;
constexpr unsigned kYields = 2000;

uint64_t nowNs() {
  return (uint64_t)std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
} // namespace

WorkerPool::WorkerPool(unsigned threads) {
  if (threads < 1)
    threads = 1;
  cursors_ = std::make_unique<Cursor[]>(threads);
  for (unsigned i = 1; i < threads; ++i)
    workers_.emplace_back([this, i] { workerLoop(i); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lk(m_);
    stop_.store(true);
    epoch_.fetch_add(1);
  }
  cv_.notify_all();
  for (std::thread &t : workers_)
    t.join();
}

void WorkerPool::work(uint32_t epoch, unsigned self) {
  // the job's description, read under its sequence tag (a torn read means a newer job)
  if (jobTag_.load(std::memory_order_acquire) != epoch)
    return;
  Fn fn = fn_.load(std::memory_order_relaxed);
  void *ctx = ctx_.load(std::memory_order_relaxed);
  const size_t count = count_.load(std::memory_order_relaxed);
  const bool timed = timed_.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (jobTag_.load(std::memory_order_relaxed) != epoch)
    return;
  const unsigned n = threads();
  const uint64_t tag = uint64_t(epoch) << 32;
  size_t done = 0;
  uint64_t start = 0;
  // Shares known to be used up in this job (a hint: a thief then skips their cursors, each on
  // another core's cache line; with many threads, reading them all one after the other was
  // much of the fork-join's cost). Up to 32 threads; more just read every cursor.
  const bool hints = n <= 32;
  auto exhausted = [&](unsigned share) {
    uint64_t m = exhausted_.load(std::memory_order_relaxed);
    return uint32_t(m >> 32) == epoch && (m >> share & 1);
  };
  auto markExhausted = [&](unsigned share) {
    uint64_t m = exhausted_.load(std::memory_order_relaxed);
    while (
        uint32_t(m >> 32) == epoch && !(m >> share & 1) &&
        !exhausted_.compare_exchange_weak(m, m | uint64_t(1) << share, std::memory_order_relaxed)) {
    }
  };
  // own share first, then the others' (stealing)
  for (unsigned k = 0; k < n; ++k) {
    const unsigned share = (self + k) % n;
    const size_t begin = count * share / n, end = count * (share + 1) / n;
    if (begin == end || (hints && k > 0 && exhausted(share)))
      continue;
    std::atomic<uint64_t> &cur = cursors_[share].v;
    uint64_t v = cur.load(std::memory_order_acquire);
    for (;;) {
      size_t i;
      if (uint32_t(v >> 32) == epoch) {
        i = size_t(uint32_t(v));
      } else {
        // untouched in this job, or already claimed in a newer one (then this thread is late)
        if (epoch_.load(std::memory_order_acquire) != epoch)
          return;
        i = begin;
      }
      if (i >= end) {
        if (hints)
          markExhausted(share);
        break;
      }
      uint64_t want = tag | uint64_t(i + 1);
      if (!cur.compare_exchange_weak(v, want, std::memory_order_acq_rel,
                                     std::memory_order_acquire))
        continue; // v reloaded
      if (!done && timed)
        start = nowNs();
      fn(ctx, i);
      ++done;
      v = want; // a thief may have moved on: the next exchange fails and reloads
    }
  }
  if (done) {
    if (timed)
      workNs_.fetch_add(nowNs() - start, std::memory_order_relaxed);
    finished_.fetch_add(done, std::memory_order_release);
  }
}

void WorkerPool::workerLoop(unsigned self) {
  uint32_t seen = 0;
  for (;;) {
    unsigned n = 0;
    uint32_t e;
    while ((e = epoch_.load(std::memory_order_acquire)) == seen) {
      if (n < kSpins + kYields && resting_.load(std::memory_order_relaxed))
        n = kSpins + kYields; // (sleep now: rest())
      if (n < kSpins) {
        PTXSIM_CPU_RELAX();
      } else if (n < kSpins + kYields) {
        std::this_thread::yield();
      } else {
        std::unique_lock<std::mutex> lk(m_);
        sleeping_.fetch_add(1);
        sleeps_.fetch_add(1, std::memory_order_relaxed);
        const uint64_t woken = wakeTag_;
        cv_.wait(lk, [&] { return epoch_.load() != seen || wakeTag_ != woken; });
        sleeping_.fetch_sub(1);
        if (epoch_.load() == seen) { // woken ahead of a job (wake()): wait for it afresh
          earlyWakeups_.fetch_add(1, std::memory_order_relaxed);
          n = 0;
          continue;
        }
      }
      ++n;
    }
    seen = e;
    if (stop_.load())
      return;
    work(e, self);
  }
}

void WorkerPool::wakeSlow() {
  resting_.store(false, std::memory_order_seq_cst);
  if (sleeping_.load()) {
    std::lock_guard<std::mutex> lk(m_);
    ++wakeTag_; // (the sleepers' wait ends without a job: they spin, yield, sleep again)
    cv_.notify_all();
  }
}

double WorkerPool::run(size_t count, Fn fn, void *ctx) {
  if (workers_.empty() || count < 2) {
    uint64_t t0 = profiling_ ? nowNs() : 0;
    for (size_t i = 0; i < count; ++i)
      fn(ctx, i);
    return profiling_ ? double(nowNs() - t0) * 1e-9 : 0.0;
  }
  uint32_t e = epoch_.load(std::memory_order_relaxed) + 1;
  if (e == 0) // (0 tags a description being written)
    e = 1;
  jobTag_.store(0, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  fn_.store(fn, std::memory_order_relaxed);
  ctx_.store(ctx, std::memory_order_relaxed);
  count_.store(count, std::memory_order_relaxed);
  timed_.store(profiling_, std::memory_order_relaxed);
  finished_.store(0, std::memory_order_relaxed);
  workNs_.store(0, std::memory_order_relaxed);
  exhausted_.store(uint64_t(e) << 32, std::memory_order_relaxed);
  jobTag_.store(e, std::memory_order_release);
  if (resting_.load(std::memory_order_relaxed))
    resting_.store(false, std::memory_order_relaxed); // (before the epoch: the threads see both)
  epoch_.store(e); // seq_cst: publishes the job; ordered before the sleepers check
  if (sleeping_.load()) {
    std::lock_guard<std::mutex> lk(m_);
    cv_.notify_all();
  }
  work(e, 0);
  const uint64_t waitStart = profiling_ ? nowNs() : 0;
  unsigned n = 0;
  while (finished_.load(std::memory_order_acquire) != count) {
    if (++n < kSpins)
      PTXSIM_CPU_RELAX();
    else
      std::this_thread::yield();
  }
  if (profiling_)
    waitNs_ += nowNs() - waitStart;
  return profiling_ ? double(workNs_.load(std::memory_order_relaxed)) * 1e-9 : 0.0;
}

} // namespace ptxsim::timing

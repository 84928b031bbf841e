#include "timing/gpu/WorkerPool.h"

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
} // namespace

WorkerPool::WorkerPool(unsigned threads) {
  for (unsigned i = 1; i < threads; ++i)
    workers_.emplace_back([this] { workerLoop(); });
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

void WorkerPool::work(uint32_t epoch) {
  Fn fn = fn_.load(std::memory_order_relaxed);
  void *ctx = ctx_.load(std::memory_order_relaxed);
  const size_t count = count_.load(std::memory_order_relaxed);
  const size_t chunk = chunk_.load(std::memory_order_relaxed);
  uint64_t t = ticket_.load(std::memory_order_acquire);
  for (;;) {
    if (uint32_t(t >> 32) != epoch)
      return; // a newer job: what was read above may belong to another
    size_t i = size_t(uint32_t(t));
    if (i >= count)
      return;
    size_t end = i + chunk < count ? i + chunk : count;
    if (!ticket_.compare_exchange_weak(t, (t & ~uint64_t(0xffffffffu)) | end,
                                       std::memory_order_acq_rel, std::memory_order_acquire))
      continue; // t reloaded
    for (size_t k = i; k < end; ++k)
      fn(ctx, k);
    finished_.fetch_add(end - i, std::memory_order_acq_rel);
    t = ticket_.load(std::memory_order_acquire);
  }
}

void WorkerPool::workerLoop() {
  uint32_t seen = 0;
  for (;;) {
    unsigned n = 0;
    uint32_t e;
    while ((e = epoch_.load(std::memory_order_acquire)) == seen) {
      if (n < kSpins) {
        PTXSIM_CPU_RELAX();
      } else if (n < kSpins + kYields) {
        std::this_thread::yield();
      } else {
        std::unique_lock<std::mutex> lk(m_);
        sleeping_.fetch_add(1);
        cv_.wait(lk, [&] { return epoch_.load() != seen; });
        sleeping_.fetch_sub(1);
      }
      ++n;
    }
    seen = e;
    if (stop_.load())
      return;
    work(e);
  }
}

void WorkerPool::run(size_t count, Fn fn, void *ctx) {
  if (workers_.empty() || count < 2) {
    for (size_t i = 0; i < count; ++i)
      fn(ctx, i);
    return;
  }
  // small chunks balance the load (SMs differ in work) and bound what a descheduled thread
  // holds up; a few per thread keep the claims cheap
  size_t per = count / (threads() * 4);
  fn_.store(fn, std::memory_order_relaxed);
  ctx_.store(ctx, std::memory_order_relaxed);
  count_.store(count, std::memory_order_relaxed);
  chunk_.store(per ? per : 1, std::memory_order_relaxed);
  finished_.store(0, std::memory_order_relaxed);
  uint32_t e = epoch_.load(std::memory_order_relaxed) + 1;
  ticket_.store(uint64_t(e) << 32, std::memory_order_release);
  epoch_.store(e); // seq_cst: publishes the job; ordered before the sleepers check
  if (sleeping_.load()) {
    std::lock_guard<std::mutex> lk(m_);
    cv_.notify_all();
  }
  work(e);
  unsigned n = 0;
  while (finished_.load(std::memory_order_acquire) != count) {
    if (++n < kSpins)
      PTXSIM_CPU_RELAX();
    else
      std::this_thread::yield();
  }
}

} // namespace ptxsim::timing

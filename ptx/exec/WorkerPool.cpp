#include "ptx/exec/WorkerPool.h"

#include <pthread.h>

namespace ptxsim::ptx::exec {

namespace {
thread_local bool tOnPoolThread = false;
/// Set in the child of a fork(): the pool's threads did not survive it, so every run starts
/// threads of its own there and runOffCaller runs on the caller.
bool gForked = false;
} // namespace

WorkerPool &WorkerPool::instance() {
  static auto *pool = [] {
    pthread_atfork(nullptr, nullptr, [] { gForked = true; });
    return new WorkerPool(); // never destroyed: no joins at exit
  }();
  return *pool;
}

void WorkerPool::adoptCurrentThread() { tOnPoolThread = true; }

void WorkerPool::runOffCaller(const std::function<void()> &fn) {
  if (tOnPoolThread || gForked) {
    fn();
    return;
  }
  std::lock_guard<std::mutex> one(serviceRunMu_);
  std::unique_lock<std::mutex> lock(serviceMu_);
  if (!service_.joinable())
    service_ = std::thread([this] {
      tOnPoolThread = true;
      std::unique_lock<std::mutex> l(serviceMu_);
      for (;;) {
        serviceWake_.wait(l, [this] { return serviceJob_ != nullptr; });
        const std::function<void()> *job = serviceJob_;
        l.unlock();
        (*job)();
        l.lock();
        serviceJob_ = nullptr;
        serviceDone_.notify_one();
      }
    });
  serviceJob_ = &fn;
  serviceWake_.notify_one();
  serviceDone_.wait(lock, [this] { return serviceJob_ == nullptr; });
}

void WorkerPool::run(unsigned n, const std::function<void(unsigned)> &fn, bool callerWorks) {
  if (n == 0)
    return;
  if (n == 1 && (callerWorks || tOnPoolThread)) {
    fn(0);
    return;
  }
  unsigned first = callerWorks ? 1 : 0;
  std::unique_lock<std::mutex> busy(runMu_, std::defer_lock);
  if (gForked || !busy.try_lock()) {
    std::vector<std::thread> own;
    for (unsigned t = first; t < n; ++t)
      own.emplace_back([&fn, t] {
        tOnPoolThread = true;
        fn(t);
      });
    if (callerWorks)
      fn(0);
    for (auto &t : own)
      t.join();
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    while (threads_.size() < n - first) {
      unsigned slot = unsigned(threads_.size());
      slotWake_.push_back(std::make_unique<std::condition_variable>());
      threads_.emplace_back([this, slot] { loop(slot); });
    }
    job_ = &fn;
    first_ = first;
    wanted_ = n - first;
    remaining_ = n - first;
    ++generation_;
  }
  // the pool grows only under runMu_, which this run holds: slotWake_ is stable here
  for (unsigned t = 0; t < n - first; ++t)
    slotWake_[t]->notify_one();
  if (callerWorks)
    fn(0);
  std::unique_lock<std::mutex> lock(mu_);
  done_.wait(lock, [this] { return remaining_ == 0; });
  job_ = nullptr;
}

void WorkerPool::loop(unsigned slot) {
  tOnPoolThread = true;
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mu_);
  std::condition_variable &wake = *slotWake_[slot];
  for (;;) {
    // a run that needs fewer threads neither wakes this one nor needs it to catch up
    wake.wait(lock, [&] { return generation_ != seen && slot < wanted_; });
    seen = generation_;
    const std::function<void(unsigned)> *job = job_;
    unsigned index = slot + first_;
    lock.unlock();
    (*job)(index);
    lock.lock();
    if (--remaining_ == 0)
      done_.notify_one();
  }
}

} // namespace ptxsim::ptx::exec

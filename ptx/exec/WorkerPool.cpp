#include "ptx/exec/WorkerPool.h"

namespace ptxsim::ptx::exec {

WorkerPool &WorkerPool::instance() {
  static auto *pool = new WorkerPool(); // never destroyed: no joins at exit
  return *pool;
}

void WorkerPool::run(unsigned n, const std::function<void(unsigned)> &fn) {
  if (n <= 1) {
    if (n)
      fn(0);
    return;
  }
  std::unique_lock<std::mutex> busy(runMu_, std::try_to_lock);
  if (!busy.owns_lock()) {
    std::vector<std::thread> own;
    for (unsigned t = 1; t < n; ++t)
      own.emplace_back(fn, t);
    fn(0);
    for (auto &t : own)
      t.join();
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    while (threads_.size() < n - 1) {
      unsigned index = unsigned(threads_.size()) + 1;
      threads_.emplace_back([this, index] { loop(index); });
    }
    job_ = &fn;
    wanted_ = n - 1;
    remaining_ = n - 1;
    ++generation_;
  }
  wake_.notify_all();
  fn(0);
  std::unique_lock<std::mutex> lock(mu_);
  done_.wait(lock, [this] { return remaining_ == 0; });
  job_ = nullptr;
}

void WorkerPool::loop(unsigned index) {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    wake_.wait(lock, [&] { return generation_ != seen; });
    seen = generation_;
    if (index > wanted_)
      continue; // this run needs fewer threads
    const std::function<void(unsigned)> *job = job_;
    lock.unlock();
    (*job)(index);
    lock.lock();
    if (--remaining_ == 0)
      done_.notify_one();
  }
}

} // namespace ptxsim::ptx::exec

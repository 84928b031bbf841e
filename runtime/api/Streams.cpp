// Asynchronous streams: the queue of stream work and the device executor that runs it.
//
// Contract: every launch, asynchronous copy or memset, event record and host function is queued
// with a sequence number, under the context mutex, and one executor thread runs the queue in
// that order. Submission order respects every ordering CUDA promises (a stream's own order, the
// legacy stream's implicit synchronisation with blocking streams, event waits, which can only
// name a record queued earlier), so one FIFO is a valid schedule for all of them and makes the
// device's work, and timing mode's cycles, independent of host timing. A stream, an event, the
// legacy and the per-thread default streams remember the sequence number of their last work:
// querying is one comparison with the executor's completed count, synchronising waits for it.

#include "runtime/api/Streams.h"
#include "ptx/exec/WorkerPool.h"

#include <pthread.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ptxsim::runtime {

namespace {
thread_local bool tOnExecutor = false;
/// Work this thread queued on its per-thread default stream (cudaStreamPerThread).
thread_local uint64_t tPerThreadTail = 0;
/// Set in a forked child: it has no executor thread, so its work runs at the call.
bool gForkedChild = false;
constexpr size_t kParamReserve = 4096; ///< parameter bytes a work item holds without growing
constexpr int kWorkBatch = 32;         ///< work items made at a time
} // namespace

bool WorkQueue::onExecutor() { return tOnExecutor; }

WorkQueue::WorkQueue(std::mutex &contextMutex, std::function<void(Work &)> run,
                     std::function<void()> flush)
    : contextMu_(contextMutex), run_(std::move(run)), flush_(std::move(flush)) {}

Work *WorkQueue::newWork() {
  {
    std::lock_guard<std::mutex> l(qmu_);
    if (free_) {
      Work *w = free_;
      free_ = w->next;
      w->next = nullptr;
      return w;
    }
  }
  // made off the application's thread (WorkerPool::run says why) and never freed
  Work *batch[kWorkBatch];
  ptx::exec::WorkerPool::instance().runOffCaller([&] {
    for (Work *&w : batch) {
      w = new Work();
      w->params.reserve(kParamReserve);
    }
  });
  std::lock_guard<std::mutex> l(qmu_);
  for (int i = 1; i < kWorkBatch; ++i) {
    batch[i]->next = free_;
    free_ = batch[i];
  }
  return batch[0];
}

uint64_t WorkQueue::submit(Work *w, cudaStream_t s) {
  if (synchronous_ < 0) {
    const char *v = std::getenv("PTXSIM_ASYNC");
    synchronous_ = v && std::strcmp(v, "0") == 0;
    static bool once = [] {
      pthread_atfork(nullptr, nullptr, [] { gForkedChild = true; });
      return true;
    }();
    (void)once;
  }
  uint64_t seq;
  if (synchronous_ || gForkedChild) {
    // PTXSIM_ASYNC=0 or a forked child: the work runs here and now (the caller holds the
    // mutex, which a host function that calls the runtime needs)
    {
      std::lock_guard<std::mutex> l(qmu_);
      seq = w->seq = ++submitted_;
    }
    bool host = w->kind == Work::Kind::HostFn || w->kind == Work::Kind::Callback;
    if (host)
      contextMu_.unlock();
    run_(*w);
    if (host)
      contextMu_.lock();
    flush_();
    std::lock_guard<std::mutex> l(qmu_);
    completed_.store(seq, std::memory_order_release);
    w->next = free_;
    free_ = w;
    wakeAt_ = UINT64_MAX;
    doneCv_.notify_all(); // another thread may wait for this item
  } else {
    std::unique_lock<std::mutex> l(qmu_);
    // a full queue holds the host back, as CUDA's launch queue does (never the executor: a
    // host function that queues work cannot wait for itself)
    if (!tOnExecutor)
      roomCv_.wait(l, [&] {
        return submitted_ - completed_.load(std::memory_order_relaxed) < kMaxQueued;
      });
    seq = w->seq = ++submitted_;
    w->next = nullptr;
    if (tailItem_)
      tailItem_->next = w;
    else
      head_ = w;
    tailItem_ = w;
    if (!executorStarted_) {
      executorStarted_ = true;
      // started from the service thread: its bookkeeping stays out of the application's arena
      ptx::exec::WorkerPool::instance().runOffCaller(
          [this] { std::thread([this] { executorLoop(); }).detach(); });
    }
    workCv_.notify_one();
  }
  if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread) {
    // a `--default-stream per-thread` program's work reaches here as stream 0 too: count it
    // on both default streams, so that synchronising either waits for it
    legacyTail_ = seq;
    tPerThreadTail = seq;
  } else {
    reinterpret_cast<StreamObj *>(s)->tail = seq;
  }
  return seq;
}

uint64_t WorkQueue::streamTail(cudaStream_t s) const {
  if (s == nullptr || s == cudaStreamLegacy)
    return legacyTail_;
  if (s == cudaStreamPerThread)
    return tPerThreadTail;
  return reinterpret_cast<const StreamObj *>(s)->tail;
}

void WorkQueue::waitFor(uint64_t seq) {
  if (!done(seq)) {
    if (tOnExecutor)
      return;
    std::unique_lock<std::mutex> l(qmu_);
    // the executor wakes waiters only when it reaches the lowest sequence number one waits for
    // (a wake-up per finished item would cost a context switch per launch)
    while (!done(seq)) {
      wakeAt_ = std::min(wakeAt_, seq);
      doneCv_.wait(l);
    }
  }
  flush_();
}

void WorkQueue::drain(std::unique_lock<std::mutex> &lock) {
  if (tOnExecutor)
    return;
  while (!done(submitted_)) {
    uint64_t target = submitted_;
    lock.unlock();
    waitFor(target);
    lock.lock();
  }
  flush_();
}

void WorkQueue::drainHeld() {
  if (tOnExecutor || done(submitted_))
    return;
  std::unique_lock<std::mutex> relock(contextMu_, std::adopt_lock);
  drain(relock);
  relock.release(); // the caller's lock owns the mutex again
}

void WorkQueue::drainAtExit() {
  uint64_t target;
  {
    std::lock_guard<std::mutex> l(contextMu_);
    target = submitted_;
  }
  waitFor(target);
  flush_();
}

void WorkQueue::executorLoop() {
  tOnExecutor = true;
  ptx::exec::WorkerPool::adoptCurrentThread(); // already off the application's threads
  std::unique_lock<std::mutex> l(qmu_);
  for (;;) {
    workCv_.wait(l, [this] { return head_ != nullptr; });
    Work *w = head_;
    l.unlock();
    run_(*w);
    l.lock();
    head_ = w->next;
    if (!head_)
      tailItem_ = nullptr;
    completed_.store(w->seq, std::memory_order_release);
    w->next = free_; // recycled with its parameter buffer
    free_ = w;
    if (w->seq >= wakeAt_) {
      wakeAt_ = UINT64_MAX; // each waiter not yet satisfied sets it again
      doneCv_.notify_all();
    }
    if (w->seq + kMaxQueued / 2 >= submitted_)
      roomCv_.notify_all(); // (a host thread waits for room only with kMaxQueued queued)
  }
}

} // namespace ptxsim::runtime

// The parallel engine's choice between the threads and one thread (timing/gpu/ThreadTuner.h),
// fed with made-up phase times, so every decision is deterministic: a probe alternates the two
// ways in sub-windows and compares time per cycle; the winner runs until the next probe;
// slow cycles on the threads start a probe at once; cycles whose SMs are expected to tick a lot
// go to the threads without the tuner (ThreadTuner::clearGain). Results never depend on any of
// it (TimingParallel.TunerSwitchingKeepsResultsIdentical); only host time does.

#include "timing/gpu/ThreadTuner.h"

#include <gtest/gtest.h>

#include <functional>

using ptxsim::timing::ThreadTuner;

namespace {

/// Feeds `cycles` eligible cycles: each takes `cost(threads)` seconds, threads or one thread as
/// the tuner says. Returns the cycles it ran on one thread.
uint32_t feed(ThreadTuner &t, uint32_t cycles, const std::function<double(bool threads)> &cost) {
  uint32_t serial = 0;
  for (uint32_t c = 0; c < cycles; ++c) {
    const bool threads = t.useThreads();
    serial += !threads;
    t.record(cost(threads), true);
  }
  return serial;
}

/// The cycles of a whole probe, as many pairs as a clear outcome needs.
constexpr uint32_t kClearProbe = ThreadTuner::kMinPairs * 2 * ThreadTuner::kSub;

/// A new tuner's first window: on the threads, then its first probe starts.
void firstWindow(ThreadTuner &t) {
  EXPECT_FALSE(t.probing());
  EXPECT_EQ(feed(t, ThreadTuner::kWindow, [](bool) { return 1e-3; }), 0u); // (times unread)
  EXPECT_TRUE(t.probing());
  EXPECT_EQ(t.probes(), 0u);
}

} // namespace

// A small kernel: the fork-join costs more than the SMs' few ticks. The probe runs both ways,
// then one thread stays, without another probe for many windows.
TEST(ThreadTuner, KeepsOneThreadWhereTheThreadsCostMore) {
  ThreadTuner t;
  firstWindow(t);
  auto cost = [](bool threads) { return threads ? 3e-6 : 1e-6; };
  const uint32_t serial = feed(t, kClearProbe, cost);
  EXPECT_EQ(serial, ThreadTuner::kMinPairs * ThreadTuner::kSub); // half the probe
  EXPECT_EQ(t.probes(), 1u);
  EXPECT_FALSE(t.probing());
  EXPECT_FALSE(t.useThreads());
  // a clear outcome: the next probe waits four times the first gap
  const uint32_t gap = 4 * ThreadTuner::kFirstGap * ThreadTuner::kWindow;
  EXPECT_EQ(feed(t, gap - 1, cost), gap - 1);
  EXPECT_FALSE(t.probing());
  feed(t, 1, cost);
  EXPECT_TRUE(t.probing()); // and the next probe starts on the threads
  EXPECT_TRUE(t.useThreads());
  feed(t, kClearProbe, cost);
  EXPECT_EQ(t.probes(), 2u);
  EXPECT_FALSE(t.useThreads());
}

TEST(ThreadTuner, KeepsTheThreadsWhereTheyPay) {
  ThreadTuner t;
  firstWindow(t);
  auto cost = [](bool threads) { return threads ? 40e-6 : 75e-6; };
  feed(t, kClearProbe, cost);
  EXPECT_EQ(t.probes(), 1u);
  EXPECT_TRUE(t.useThreads());
  // (until the next probe, after kFirstGap windows)
  EXPECT_EQ(feed(t, ThreadTuner::kFirstGap * ThreadTuner::kWindow, cost), 0u);
  EXPECT_TRUE(t.probing());
}

// A close outcome gets more pairs, up to kMaxPairs; the threads must win by the margin.
TEST(ThreadTuner, ACloseOutcomeProbesLongerAndFavoursOneThread) {
  ThreadTuner t;
  firstWindow(t);
  auto cost = [](bool threads) {
    return threads ? 0.85e-6 : 1e-6; // 0.85: not under kMargin, not clearly over it
  };
  feed(t, kClearProbe, cost);
  EXPECT_TRUE(t.probing());
  EXPECT_EQ(t.probes(), 0u);
  feed(t, (ThreadTuner::kMaxPairs - ThreadTuner::kMinPairs) * 2 * ThreadTuner::kSub, cost);
  EXPECT_EQ(t.probes(), 1u);
  EXPECT_FALSE(t.useThreads());
}

// On the threads, a few cycles much slower than one thread was in the probe (a thread
// descheduled on a loaded host) end the window and start a probe at once.
TEST(ThreadTuner, SlowCyclesOnTheThreadsProbeAgain) {
  ThreadTuner t;
  firstWindow(t);
  bool loaded = false;
  auto cost = [&](bool threads) { return !threads ? 75e-6 : loaded ? 2e-3 : 40e-6; };
  feed(t, kClearProbe, cost);
  ASSERT_TRUE(t.useThreads());
  ASSERT_FALSE(t.probing());
  loaded = true;
  feed(t, ThreadTuner::kStrikes - 1, cost);
  EXPECT_FALSE(t.probing());
  feed(t, 1, cost);
  EXPECT_TRUE(t.probing());
  feed(t, kClearProbe, cost); // still loaded: one thread wins
  EXPECT_FALSE(t.useThreads());
  EXPECT_EQ(t.probes(), 2u);
  // a few slow cycles scattered over windows are no reason to probe
  ThreadTuner u;
  firstWindow(u);
  uint32_t n = 0;
  bool scatter = false;
  auto scattered = [&](bool threads) {
    if (!threads)
      return 75e-6;
    return scatter && n++ % ThreadTuner::kWindow < ThreadTuner::kStrikes - 1 ? 2e-3 : 40e-6;
  };
  feed(u, kClearProbe, scattered);
  ASSERT_TRUE(u.useThreads());
  scatter = true;
  feed(u, ThreadTuner::kFirstGap * ThreadTuner::kWindow - 1, scattered);
  EXPECT_FALSE(u.probing());
}

// Where clearGain()'s cycles run on the threads often, one thread in the tuner's cycles would move
// the SMs' state out of the threads' caches between them: the threads need only not be slower.
TEST(ThreadTuner, FrequentClearGainCyclesTipACloseCallToTheThreads) {
  // a new tuner's first window and its probe, the threads 10 % faster, one clearGain() cycle
  // on the threads after every `every` of the tuner's (0: none); the choice once it has decided
  auto choice = [](uint32_t every) {
    ThreadTuner t;
    uint32_t n = 0;
    while (t.probes() == 0 && n < 4 * ThreadTuner::kWindow) {
      if (every && n % every == 0)
        t.noteClear();
      ++n;
      const bool threads = t.useThreads();
      t.record(threads ? 0.9e-6 : 1e-6, true);
    }
    EXPECT_EQ(t.probes(), 1u);
    return t.useThreads();
  };
  EXPECT_FALSE(choice(0)); // the threads must beat the margin
  EXPECT_TRUE(choice(ThreadTuner::kClearShare));
  EXPECT_TRUE(choice(ThreadTuner::kClearShare / 2));
  EXPECT_FALSE(choice(4 * ThreadTuner::kClearShare)); // too few of them: as without
}

// Cycles with CTAs dispatched (the phase fills in their state) are left out of the comparison
// while enough others are counted.
TEST(ThreadTuner, CyclesWithDispatchAreSetApart) {
  ThreadTuner t;
  firstWindow(t);
  for (uint32_t c = 0; c < kClearProbe; ++c) {
    const bool threads = t.useThreads();
    const bool dispatch = c % 8 == 3;
    // dispatch cycles: the threads look slow (they are not what the kernel runs on)
    const double secs = dispatch ? (threads ? 500e-6 : 100e-6) : (threads ? 40e-6 : 75e-6);
    t.record(secs, !dispatch);
  }
  EXPECT_EQ(t.probes(), 1u);
  EXPECT_TRUE(t.useThreads());
}

// Without the tuner: a cycle whose SMs are expected to tick enough that the threads save many
// ticks of one thread's time. One SM's ticks are one item: work on one SM cannot be shared.
TEST(ThreadTuner, ClearGainNeedsWorkTheThreadsCanShare) {
  const uint64_t g = ThreadTuner::kClearGainTicks;
  EXPECT_FALSE(ThreadTuner::clearGain(0, 0, 2));
  EXPECT_FALSE(ThreadTuner::clearGain(1000, 1000, 16)); // one SM's window: nothing to share
  EXPECT_FALSE(ThreadTuner::clearGain(10000, 100, 1));  // one thread
  EXPECT_FALSE(ThreadTuner::clearGain(9, 1, 16));       // nine SMs ticking once each
  // 132 SMs each running a window of 63 cycles ahead, on 16 threads
  EXPECT_TRUE(ThreadTuner::clearGain(132 * 64, 64, 16));
  // nine SMs running windows of 64 on 16 threads: nine items of 65 ticks
  EXPECT_TRUE(ThreadTuner::clearGain(9 * 65, 65, 16));
  // two threads: the gain is half the work, once it is even
  EXPECT_TRUE(ThreadTuner::clearGain(2 * g, 1, 2));
  EXPECT_FALSE(ThreadTuner::clearGain(2 * g - 2, 1, 2));
  // the largest item decides when it is more than an even share
  EXPECT_TRUE(ThreadTuner::clearGain(g + 100, 100, 2));
  EXPECT_FALSE(ThreadTuner::clearGain(g + 99, 100, 2));
}

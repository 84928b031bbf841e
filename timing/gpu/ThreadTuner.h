#pragma once
// Whether a cycle's SM+partition phase runs on the worker pool's threads or on the calling
// thread (timing/gpu/Gpu.cpp, docs/timing.md "Parallel engine"). Results never depend on it:
// only host time does.
//
// Contract: two parts.
//  - clearGain(): a cycle whose SMs are expected to tick many times in all (SM windows: an SM
//    due in the cycle may run up to a window's cycles ahead, one indivisible item of the
//    threads' job) runs on the threads without asking the tuner when the threads would save at
//    least kClearGainTicks SM ticks of the one thread's time, far more than a fork-join costs.
//    Such cycles are few and carry most of a full GPU's work; per-cycle times cannot compare
//    them with the others, and running one on one thread to measure it would cost most where
//    the threads pay most. On a loaded host a thread descheduled in such a cycle holds it up
//    until it runs again (the fork-join's work stealing leaves it only the one item it took):
//    that is not measured.
//  - ThreadTuner: the other eligible cycles (enough SMs or partitions with work to do, each SM
//    ticking about once, so that per-cycle times compare). A new tuner runs its first kWindow
//    cycles on the threads (a kernel's first cycles, its CTAs starting, are not what it runs
//    on), then times both ways: a probe alternates sub-windows of kSub such cycles on the
//    threads and on one thread (the first cycle of each not counted: threads waking up, caches
//    moving) and compares the phase's wall time per cycle; the threads must take under kMargin
//    of one thread's time (only not be slower where clearGain() cycles are frequent:
//    kClearShare). kMinPairs pairs of sub-windows suffice for a clear outcome (kClear), a close
//    one gets up to kMaxPairs. The winner then runs for kFirstGap windows of kWindow cycles
//    before the next probe, twice as long each time the probe agrees (four times for a clear
//    winner: a ratio under kMargin / 2 or over 2 / kMargin), up to kMaxGap windows. On the
//    threads, kStrikes cycles in a window slower than twice the probe's one-thread cycle (a
//    thread descheduled on a loaded host, or the kernel's work changed) start a probe at once.
//    The caller keeps one tuner per kernel and grid shape across launches, so a small kernel
//    launched 500 times is probed a few times in all. Deterministic given the times it is fed
//    (unit test ThreadTuner.*).

#include <cstdint>

namespace ptxsim::timing {

class ThreadTuner {
public:
  static constexpr uint32_t kSub = 8;      ///< eligible cycles per probe sub-window
  static constexpr uint32_t kMinPairs = 2; ///< probe pairs (threads, one thread) at least
  static constexpr uint32_t kMaxPairs = 8; ///< ... and at most, while the outcome is close
  static constexpr uint32_t kWindow = 256; ///< eligible cycles per window between probes
  static constexpr uint32_t kFirstGap = 8; ///< windows between probes after a change of mind
  static constexpr uint32_t kMaxGap = 64;  ///< ... doubling while the probes agree (four
                                           ///< times for a clear winner), up to this
  /// The threads must take less than this share of one thread's time per cycle.
  static constexpr double kMargin = 0.8;
  /// A probe's outcome is clear, and ends the probe, when the ratio is under kClear * kMargin
  /// or over kMargin / kClear (two threads take 0.55 to 0.75 of one thread's time in cycles
  /// they pay in: a narrower band would probe such kernels on one thread for eight pairs).
  static constexpr double kClear = 0.9;
  /// Where clearGain() cycles are at least 1 / kClearShare of the eligible cycles (noteClear;
  /// both counts halve at each decision), the threads need only not be slower (margin 1): one
  /// thread in the tuner's cycles would move the SMs' state out of the threads' caches between
  /// the clearGain() cycles on them.
  static constexpr uint32_t kClearShare = 16;
  /// Cycles on the threads slower than twice the last probe's one-thread cycle that end a
  /// window and probe again.
  static constexpr uint32_t kStrikes = 4;
  /// SM ticks the threads must save in a cycle for clearGain() (an SM tick takes 0.25 to 0.7
  /// host microseconds, a fork-join 2 to 8).
  static constexpr uint64_t kClearGainTicks = 64;

  /// A cycle whose SMs are expected to tick `work` times in all, at most `most` of them on one
  /// SM (one item), on `threads` threads: do the threads save at least kClearGainTicks ticks of
  /// the one thread's time (work less the larger of `most` and an even share)?
  static bool clearGain(uint64_t work, uint64_t most, unsigned threads) {
    if (threads < 2 || work == 0)
      return false;
    const uint64_t share = (work + threads - 1) / threads;
    return work - (most > share ? most : share) >= kClearGainTicks;
  }

  /// A clearGain() cycle ran on the threads (kClearShare).
  void noteClear() { ++clearSince_; }
  /// For an eligible cycle: use the threads? (record() must follow with the phase's time.)
  bool useThreads() const { return threads_; }
  /// The wall time of the phase useThreads() chose for; `typical`: no CTA was dispatched in the
  /// cycle (the phase then also fills in the new CTAs' state).
  void record(double seconds, bool typical);
  /// Does record() read the time it is given? (Not while one thread runs between probes:
  /// record() then only counts the cycle.)
  bool wantsTimes() const { return probing_ || threads_; }
  /// Probes decided so far (the profile's).
  uint32_t probes() const { return probes_; }
  /// A probe is under way (its sub-windows alternate the two ways).
  bool probing() const { return probing_; }

private:
  /// (a new tuner runs its first window on the threads, then probes: a kernel's first cycles,
  /// its CTAs starting, are not what it runs on)
  bool probing_ = false;
  bool threads_ = true;  ///< the current choice (while probing: the current sub-window's)
  bool decided_ = false; ///< a probe has decided (decision_ is valid)
  bool decision_ = true;
  uint32_t cycles_ = 0; ///< in the current sub-window or window
  uint32_t pairs_ = 0, windowsLeft_ = 1, gap_ = kFirstGap, strikes_ = 0, probes_ = 0;
  double secs_[2] = {0, 0}; ///< probe: [one thread, threads] summed phase seconds
  uint32_t counted_[2] = {0, 0};
  double typicalSecs_[2] = {0, 0}; ///< ... of the cycles without a CTA dispatched
  uint32_t typicalCounted_[2] = {0, 0};
  double serialCycle_ = 0; ///< the last probe's one-thread seconds per cycle
  uint32_t clearSince_ = 0, tunedSince_ = 0; ///< clearGain() and tuned cycles (decaying)
};

} // namespace ptxsim::timing

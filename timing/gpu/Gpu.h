#pragma once
// The cycle-level GPU: SMs, CTA dispatch, the memory system and the clock.
//
// Contract: runKernel() drives one launch through the functional executor's stepped interface
// (ptx::exec::SteppedGrid): CTAs are dispatched to SMs as their resources allow, each SM's
// schedulers issue one warp instruction per cycle when one is ready, and the functional core
// executes the instruction at issue, so results are exactly those of functional mode. When no
// SM can issue and the memory system is only waiting, the clock jumps to the next event (same
// cycle counts, fewer host cycles). The memory system (caches, DRAM rows) persists across
// kernels, as on hardware. Statistics come back per kernel as named values.
//
// Parallel engine (setHostThreads): each cycle, every SM's tickLocal() (everything that touches
// only the SM, including filling in the state of the CTAs dispatched to it) and every memory
// partition's tick run on a pool of host threads; then, on one thread and in SM order, each
// SM's tickShared() executes what reaches beyond the SM (global memory, atomics, runtime calls)
// and retires CTAs. The interconnect, CTA dispatch and the clock stay serial. One thread runs
// the same phases, so results and every statistic are identical for any thread count; a tuner
// per kernel times the threads against one thread and uses whichever is faster, except in the
// cycles whose SMs are expected to run many cycles ahead in SM windows, which the threads take
// (ThreadTuner.h).

#include "base/Stats.h"
#include "ptx/exec/Engine.h"
#include "timing/TimingConfig.h"
#include "timing/gpu/ThreadTuner.h"
#include "timing/gpu/TimingProfile.h"
#include "timing/Types.h"
#include "timing/sm/Sm.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ptxsim::timing {

class MemorySystem;
class WorkerPool;

/// Named statistics of one kernel (base/Stats.h: every name is registered in the catalog by the
/// component that reports it; registerTimingStatistics() registers the timing model's).
struct KernelTimingStats : stats::Snapshot {
  std::string kernel;
  Cycle cycles = 0;
  double seconds = 0; ///< simulated time from the core clock
  uint64_t warpInsts = 0, threadInsts = 0;
};

/// Registers every statistic the timing model reports (gpu.*, sm.*, l1d.*, l2.*, dram.*, ...,
/// and those of registered schedulers and extension units) in stats::Catalog::global(). Safe to
/// call more than once; the Gpu calls it, and so should anything that checks counter names
/// before a Gpu exists (the power model's loader).
void registerTimingStatistics();

class Gpu {
public:
  Gpu(const TimingConfig &cfg, ptx::exec::Engine &engine);
  ~Gpu();
  Gpu(const Gpu &) = delete;
  Gpu &operator=(const Gpu &) = delete;

  const TimingConfig &config() const { return cfg_; }
  /// Runs one launch to completion in timing mode. `stats` receives the kernel's statistics.
  ptx::exec::LaunchResult runKernel(const ptx::exec::LaunchParams &p, KernelTimingStats &stats);
  /// Calls `fn` with the kernel's statistics so far (cumulative since the kernel started)
  /// about every `everyCycles` core cycles during runKernel (0: never). Power traces use it.
  void setSampler(uint64_t everyCycles, std::function<void(const KernelTimingStats &)> fn) {
    sampleEvery_ = everyCycles;
    sampler_ = std::move(fn);
  }
  /// Host threads for the SMs' parallel phase (0: one per host core, at most one per 4 SMs;
  /// 1: serial). Results do not depend on it. The default is the engine's
  /// EngineConfig::hostThreads (PTXSIM_THREADS).
  void setHostThreads(unsigned n) { hostThreads_ = n; }
  /// The threads runKernel uses (after 0 is resolved and capped at the SM count).
  unsigned hostThreads() const;
  /// The SMs' phases run on the threads only in cycles with at least `n` SMs holding CTAs
  /// (with SM windows: SMs due in the cycle with a tick that is no idle one, and memory
  /// partitions awake), or whose SMs are expected to run many cycles ahead
  /// (ThreadTuner::clearGain). Default: half the threads, at least 2; the tuner then decides
  /// whether they pay. Results do not depend on it; 0 makes every cycle use the threads (tests
  /// of the parallel engine).
  void setParallelMinBusySms(uint32_t n) { minBusy_ = n; }
  /// CTA sampling (docs/sampling.md): once the IPC of two successive waves of CTAs differs by
  /// at most kSteadyChange, CTAs are no longer dispatched; those left run functionally after
  /// the simulated ones, and their cycles are their warp instructions at that IPC. Statistics
  /// are scaled to the whole kernel; sample.* report what was estimated.
  void setCtaSampling(bool on) { ctaSampling_ = on; }
  /// The no-progress detector: a launch in which no warp issues an instruction for this many
  /// cycles fails, naming the waiting warps (a deadlock, docs/executor.md "No progress").
  void setNoProgressCycles(Cycle n) { noProgressCycles_ = n; }
  /// SM windows: an SM with no memory traffic in flight runs up to `cycles` of its next cycles
  /// in a row, ahead of the rest of the GPU, while it keeps to itself (it stops before an
  /// instruction that is not Sm::windowSafe(), at a CTA's end, a dispatch it could take or an
  /// idle tick), so that its state stays in the host's caches. Results and statistics do not
  /// depend on it (0: off; PTXSIM_SM_WINDOW). Unset, the length is kDefaultSmWindow on one host
  /// thread and kDefaultSmWindow / threads, at least kMinAutoSmWindow, on more: an SM's window is
  /// one item of the threads' job, and shorter items balance better over more threads, whose
  /// caches each hold fewer SMs. A launch that faults or stops making progress reports the same
  /// error, but SMs that ran ahead may have counted up to a window's cycles more by then.
  void setSmWindow(uint32_t cycles) {
    smWindow_ = cycles;
    smWindowSet_ = true;
  }
  static constexpr uint32_t kDefaultSmWindow = 1024, kMinAutoSmWindow = 64;
  /// The window length a launch on `threads` host threads uses (setSmWindow's, or the default).
  uint32_t smWindowFor(unsigned threads) const {
    return smWindowSet_ ? smWindow_
                        : std::max(kMinAutoSmWindow, kDefaultSmWindow / std::max(1u, threads));
  }
  static constexpr double kSteadyChange = 0.03;
  /// Advances the clock over a launch that ran functionally (kernel sampling).
  void skipKernel(Cycle cycles);
  /// Simulated seconds for a host<->device copy of `bytes` (PCIe-style bandwidth + latency).
  double copySeconds(uint64_t bytes) const;
  /// A host-to-device copy or a memset wrote `bytes` at host address `dst` in device memory:
  /// with -gpgpu_perf_sim_memcpy the written data is left in the L2 (MemorySystem::hostWrite).
  void noteDeviceWrite(const void *dst, uint64_t bytes);

private:
  TimingConfig cfg_;
  ptx::exec::Engine &engine_;
  std::unique_ptr<MemorySystem> mem_;
  std::vector<std::unique_ptr<Sm>> sms_;
  /// The adaptive L1/shared carve-out of launch `p` (-gpgpu_adaptive_cache_config), set on every SM.
  void applyCarveout(const ptx::exec::LaunchParams &p, uint64_t ctas);
  uint32_t carveoutBytes_ = 0; ///< the current kernel's shared memory per SM (adaptive carve-out)

  // runKernel() in steps: one launch's state (KernelRun, Gpu.cpp) passes from one to the next.
  struct KernelRun;
  struct CycleOutcome;
  /// Setup: the SMs begin the kernel (statistics baseline, carve-out, cache flushes).
  void beginKernelOnSms(KernelRun &r);
  /// The split tick or the whole one, the worker pool and this kernel's thread tuner.
  void chooseEngine(KernelRun &r);
  /// The launch latency, the dispatch state and the SMs' summaries before the first cycle.
  void beginCycleLoop(KernelRun &r);
  /// One core cycle; false when the kernel ended (done, faulted, no progress, extension error).
  bool stepCycle(KernelRun &r);
  /// A launch extension's placement: its next group's CTAs, each on its SM; false on its error.
  bool dispatchGroup(KernelRun &r);
  /// At most one CTA per SM per cycle, round robin over the SMs.
  void dispatchRoundRobin(KernelRun &r);
  /// The partitions' and the SMs' own phase, on the pool's threads or this one.
  void runLocalPhase(KernelRun &r, bool noDispatch);
  double tickLocalOnThreads(const KernelRun &r);
  void tickLocalSerial(const KernelRun &r);
  /// SM `i`'s own phase of the split tick (awake SMs): tickLocal, or idleTick before its wake cycle.
  void tickSmLocal(size_t i, const KernelRun &r);
  /// The SMs' ordered phase (tickShared in SM order) and the cycle's summary.
  CycleOutcome runOrderedPhase(KernelRun &r);
  /// Statistics sampler, CTA sampling, the end of the kernel; true when the loop ends.
  bool kernelDone(KernelRun &r, const CycleOutcome &o);
  /// True when nothing has issued for too long (the launch then fails as a deadlock).
  bool noProgress(KernelRun &r, uint64_t insts);
  /// After a cycle without an issue: jumps the clock to the next event of memory, dispatch or SMs.
  void skipIdleCycles(KernelRun &r);
  /// The awake SMs' next event (kNever: none), or an earlier cycle than now_ + 2 once one is.
  Cycle nextSmEvent() const;
  /// SM `i`'s nextEventCycle(now), from smWakeAt_ where that is known.
  Cycle smNextEvent(size_t i, Cycle now) const;
  /// After the last cycle: sampled CTAs, drain latency, the launch's result and statistics.
  ptx::exec::LaunchResult finishKernel(KernelRun &r, KernelTimingStats &st);
  void addSamplingStats(const KernelRun &r, KernelTimingStats &st, uint64_t extraWarp,
                        uint64_t extraThread, Cycle simulatedCycles);
  uint32_t residentCtas() const;
  void collect(KernelTimingStats &st, const std::string &kernel, Cycle start,
               const ptx::exec::SteppedGrid *grid) const;
  /// collect()'s per-SM LD/ST, scheduler and extension-unit counters, summed by statistic (the
  /// schedulers' cumulative ones less smBefore_, their values when the kernel began).
  void addSmCounters(stats::Snapshot &v) const;

  Cycle now_ = 0; ///< core cycles since the GPU was created (kernels run back to back)
  uint64_t sampleEvery_ = 0;
  Cycle noProgressCycles_ = 50'000'000;
  std::function<void(const KernelTimingStats &)> sampler_;
  uint64_t nextRequestId_ = 1;
  unsigned hostThreads_ = 0;
  uint32_t minBusy_ = ~0u; ///< ~0u: 2 per thread
  /// Every SM can run the parallel engine (single issue; every core kind splits its tick).
  bool parallelOk_ = true;
  std::unique_ptr<WorkerPool> pool_;
  /// Tuners by kernel and grid shape (a launch takes its own by reference): one tuner per
  /// kernel and grid shape, kept across launches, so a small kernel launched many times is
  /// probed rarely (ThreadTuner.h).
  struct TunerKey {
    const void *kernel;
    uint32_t grid[3], block[3];
    bool operator==(const TunerKey &o) const {
      return kernel == o.kernel && grid[0] == o.grid[0] && grid[1] == o.grid[1] &&
             grid[2] == o.grid[2] && block[0] == o.block[0] && block[1] == o.block[1] &&
             block[2] == o.block[2];
    }
  };
  std::vector<std::pair<TunerKey, ThreadTuner>> tuners_;
  std::vector<Sm::TickSummary> smSum_; ///< per SM: its last tick's summary (Sm::summarize)
  /// Per SM: not asleep (runKernel: an idle SM is skipped until it gets a CTA). Bytes, written
  /// by the SM's own job (to sleep) and by dispatch (to wake).
  std::vector<uint8_t> smAwake_;
  /// Per SM (split tick): its own next event after a tick that issued nothing and left nothing
  /// to the ordered phase (Sm::ownNextEvent; 0: tick it). Until then its ticks are
  /// Sm::idleTick()s unless a reply arrives; dispatch to it and the ordered phase's issues
  /// (which may release warps on other SMs) clear it. Written by the SM's own job.
  std::vector<Cycle> smWakeAt_;
  /// Per SM: it may have counted statistics or filled its L1 since beginKernelOnSms last
  /// reset and flushed it (it was given a CTA, or was busy when a launch began). An SM without
  /// it has zero statistics and clean caches: the launch's set-up and collect() pass over it.
  std::vector<uint8_t> smUsed_;
  std::vector<uint64_t> smResident_; ///< per SM: resident warps its last scan counted
  /// Per SM: idle ticks not yet accounted (Sm::idleTicks; flushIdleTicks before the SM ticks,
  /// takes a CTA or its statistics are read).
  std::vector<uint64_t> smIdleTicks_;
  void flushIdleTicks(size_t i) {
    if (smIdleTicks_[i]) {
      sms_[i]->idleTicks(smIdleTicks_[i], smResident_[i]);
      smIdleTicks_[i] = 0;
    }
  }
  /// SM i's tick in cycle `now` (by default the current one) is an idle one (tickSmLocal).
  bool idleTickDue(size_t i, Cycle now) const;
  /// tickSmLocal()'s two cases: an idle tick (counted, or Sm::idleTick), and a real one.
  void countIdleTick(size_t i, Cycle now);
  void tickSmBusy(size_t i, Cycle now, bool dispatching);
  /// SM windows (setSmWindow): SM i's busy tick of this cycle, then its next ones while
  /// windowCanGo; or the rest of a tick that stopped ahead before an instruction that is not
  /// window-safe (resumeSm), at that tick's cycle.
  void tickSmWindow(size_t i, const KernelRun &r);
  bool windowCanGo(size_t i, const KernelRun &r, Cycle next) const {
    return windowEndOf(i, r, next) == TimingProfile::kWindowEnds;
  }
  /// The soonest later cycle SMs that ran ahead are due in (their windows' ends), and the ticks
  /// they are expected to make then (all of them, and the most of one), as smsDue() counts them.
  struct DueLater {
    Cycle at = kNever;
    uint64_t work = 0, most = 0;
  };
  /// The awake SMs whose own phase runs in this cycle (not ahead, or a resumption due) and is
  /// no idle tick: how many (`ticking`), the SM ticks they are expected to make (`work`: each
  /// one, and as many ahead as its last window ran, smLastAhead_), and the most of them one SM
  /// is expected to make (`most`); and `later`, those of the SMs ahead (DueLater).
  void smsDue(uint32_t &ticking, uint64_t &work, uint64_t &most, DueLater &later) const;
  DueLater dueLater_; ///< this cycle's (runLocalPhase)
  /// Cycles before a likely ThreadTuner::clearGain cycle at which the resting pool's threads
  /// are woken (WorkerPool::wake) while the tuner keeps one thread.
  static constexpr Cycle kWakeAhead = 64;
  void resumeSm(size_t i, Cycle now, bool dispatching);
  /// SM i's own phase of cycle `now` ran ahead in a window: all of it, or, with `resumeDue`,
  /// up to the resumption due now (resumeSm).
  bool ranAhead(size_t i, Cycle now, bool &resumeDue) const {
    resumeDue = smResumeDue_[i] && smDoneTo_[i] == now;
    return windows_ && smDoneTo_[i] + smResumeDue_[i] > now;
  }
  /// SM i ran ahead: its summary is of a later cycle than `now` (its ordered part comes then).
  bool smAhead(size_t i, Cycle now) const {
    return smDoneTo_[i] + smResumeDue_[i] > now + 1;
  }
  /// A faulted lane's fault is in the past (not in the cycles its SM ran ahead).
  bool faultDue(const KernelRun &r) const;
  uint32_t smWindow_ = kDefaultSmWindow;
  bool smWindowSet_ = false;
  uint32_t windowLen_ = kDefaultSmWindow; ///< this launch's window length (smWindowFor)
  /// Windows begun in this cycle end by the next multiple of this: windowLen_, or on the threads
  /// a sixteenth of it in a cycle with too few SMs ticking to share (runLocalPhase).
  uint32_t windowAlign_ = kDefaultSmWindow;
  bool windows_ = false; ///< this launch uses SM windows
  /// Per SM: its own phase has run for every cycle before this one (windows; stale, at most
  /// the current cycle, when it did not run ahead); smResumeDue_: and part of this one's.
  std::vector<Cycle> smDoneTo_;
  std::vector<uint8_t> smResumeDue_;
  /// Per SM: the ticks its last window ran ahead (0: it ran none; written by its own job).
  std::vector<uint32_t> smLastAhead_;
  /// Per SM, this launch: ticks that were not idle ones, and those run ahead (the profile's).
  std::vector<uint64_t> smBusyTicks_, smAheadTicks_;
  /// With the profile on: per SM, what ended its last window (TimingProfile::WindowEnd), and
  /// its ticks on the GPU's clock by that (sms x kWindowEnds).
  std::vector<uint8_t> smWindowEnd_;
  std::vector<uint64_t> smClockTicksBy_;
  /// What ends SM i's window before cycle `next` (the profile's reasons), or kWindowEnds when
  /// nothing does and the SM may run that cycle ahead (windowCanGo).
  TimingProfile::WindowEnd windowEndOf(size_t i, const KernelRun &r, Cycle next) const;
  std::vector<uint64_t> profTicks_; ///< smBusyTicks_ before a cycle on the threads (the profile's)
  std::vector<uint32_t> busyScratch_; ///< tickLocalSerial: the awake SMs whose tick is no idle one
  void flushIdleTicks() {
    for (size_t i = 0; i < smIdleTicks_.size(); ++i)
      flushIdleTicks(i);
  }
  std::vector<uint8_t> smStopped_;   ///< per SM: its last tickLocal stopped for the ordered phase
  /// Per SM used in the launch (smUsed_): its schedulers' counters when the launch began.
  /// Scheduler counters are cumulative, so the launch's share is the difference (the SM's other
  /// counters start from zero: resetStats). Taken when the SM is first used (useSm): an idle
  /// SM's schedulers count nothing.
  std::vector<Sm::StatValues> smBefore_;
  /// Per SM: 0 not yet known, 1 reports the first SM's statistics in the same order, 2 not
  /// (collect(); fixed per SM, so learned once).
  mutable std::vector<uint8_t> smLayout_;
  /// collect()'s per-partition and per-SM statistics' names (`l2[3].misses`, `sm[5].ctas`),
  /// built at the first collection, and its scratch for their values.
  mutable std::vector<stats::StatName> instanceNames_;
  mutable std::vector<double> instanceValues_;
  /// Puts idle SM `i` to sleep. (The cycle loop clears its summary's `issued` once the cycle
  /// has counted it: its last tick may have issued the instruction that ended its last CTA,
  /// and its skipped ticks would issue nothing.)
  void sleepSm(size_t i) { smAwake_[i] = 0; }
  /// SM `i` gets a CTA or is busy in this launch (before its first tick in it): smUsed_ and
  /// smBefore_.
  void useSm(size_t i);
  /// Dispatch gave SM `i` a CTA: it is awake, and looks at its warps in its next tick.
  void wakeSm(size_t i);
  /// The awake SMs in SM order, as of the cycle's start (the SMs falling asleep in a cycle
  /// leave it in that cycle's ordered phase; those dispatch wakes join before the next phase).
  std::vector<uint32_t> awake_;
  bool awakeDirty_ = false;
  uint64_t asleepInsts_ = 0; ///< the asleep SMs' summaries' instruction counts, summed
  bool ctaSampling_ = false;
  /// Wave-by-wave IPC of one launch for CTA sampling.
  struct CtaSampler {
    bool on = false;
    uint64_t wave = 0, nextMark = 0, marks = 0, lastInsts = 0;
    Cycle lastCycle = 0;
    double lastIpc = 0, steadyIpc = 1, ipcChange = 0;
    /// After each cycle: sets `limit` (the first CTA not to dispatch) once the IPC is steady.
    void observe(const Gpu &gpu, uint64_t nextCta, uint64_t total, uint64_t &limit);
  };
};

/// Sampling: scales `s` to a whole kernel: counts (bytes, joules) by `insts`, cycle- and
/// second-valued statistics by `cycles`; ratios stay.
void scaleStats(stats::Snapshot &s, double insts, double cycles);
/// scaleStats() in two steps, for many snapshots of one layout (the estimated launches of a
/// kernel scale the same detailed launch's statistics): each entry's kind by its unit, looked
/// up once (0: stays, 1: scales by the instructions, 2: by the cycles) ...
void statScaleKinds(const stats::Snapshot &s, std::vector<uint8_t> &kinds);
/// ... and the scaling by position, with the kinds of a snapshot of the same layout.
void scaleStats(stats::Snapshot &s, const std::vector<uint8_t> &kinds, double insts,
                double cycles);

/// Text report of one kernel's statistics (the names the reference documents use appear as
/// aliases: gpu_tot_sim_cycle, gpu_tot_sim_insn, NUM_STALL_CYCLES, MISSES_PER_1000_INSTR).
std::string formatKernelStats(const KernelTimingStats &s);
/// The same as a JSON object.
std::string kernelStatsJson(const KernelTimingStats &s);

} // namespace ptxsim::timing

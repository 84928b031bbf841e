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
// only the SM) runs on a pool of host threads; then, on one thread and in SM order, each SM's
// tickShared() executes what reaches beyond the SM (global memory, atomics, runtime calls) and
// retires CTAs. The memory system, CTA dispatch and the clock stay serial. One thread runs the
// same two phases, so results and every statistic are identical for any thread count.

#include "base/Stats.h"
#include "ptx/exec/Engine.h"
#include "timing/TimingConfig.h"
#include "timing/Types.h"
#include "timing/sm/Sm.h"

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
  /// (default: half the threads, at least 2; the tuner then decides whether they pay). Results
  /// do not depend on it; 0 makes every cycle use the threads (tests of the parallel engine).
  void setParallelMinBusySms(uint32_t n) { minBusy_ = n; }
  /// CTA sampling (docs/sampling.md): once the IPC of two successive waves of CTAs differs by
  /// at most kSteadyChange, CTAs are no longer dispatched; those left run functionally after
  /// the simulated ones, and their cycles are their warp instructions at that IPC. Statistics
  /// are scaled to the whole kernel; sample.* report what was estimated.
  void setCtaSampling(bool on) { ctaSampling_ = on; }
  static constexpr double kSteadyChange = 0.03;
  /// Advances the clock over a launch that ran functionally (kernel sampling).
  void skipKernel(Cycle cycles);
  /// Simulated seconds for a host<->device copy of `bytes` (PCIe-style bandwidth + latency).
  double copySeconds(uint64_t bytes) const;

private:
  TimingConfig cfg_;
  ptx::exec::Engine &engine_;
  std::unique_ptr<MemorySystem> mem_;
  std::vector<std::unique_ptr<Sm>> sms_;
  void collect(KernelTimingStats &st, const std::string &kernel, Cycle start,
               const std::vector<std::pair<std::string, double>> &before,
               const ptx::exec::SteppedGrid *grid) const;

  Cycle now_ = 0; ///< core cycles since the GPU was created (kernels run back to back)
  uint64_t sampleEvery_ = 0;
  std::function<void(const KernelTimingStats &)> sampler_;
  uint64_t nextRequestId_ = 1;
  unsigned hostThreads_ = 0;
  uint32_t minBusy_ = ~0u; ///< ~0u: 2 per thread
  /// Every SM can run the parallel engine (no DMA engine or reduced core, single issue).
  bool parallelOk_ = true;
  std::unique_ptr<WorkerPool> pool_;
  /// Chooses, window by window, whether a cycle's phase runs on the threads or on this one.
  /// Results never depend on the choice.
  class ThreadTuner {
  public:
    static constexpr uint32_t kWindow = 256;   ///< eligible cycles per measurement
    static constexpr uint32_t kProbeEvery = 8; ///< windows on one thread before trying the threads again
    static constexpr uint32_t kMaxGap = 32;    ///< ... doubling after each failed try, up to this
    /// The threads must take less than this share of their summed call time.
    static constexpr double kMargin = 0.75;
    /// Cycles on the threads slower than their summed call time that end a window early.
    static constexpr uint32_t kStrikes = 4;
    /// A new kernel: its phases may differ from the last one's, try the threads first.
    void reset() { *this = ThreadTuner{}; }
    /// For an eligible cycle with `busy` SMs holding CTAs: use the threads?
    bool useThreads(uint32_t busy);
    /// True between useThreads() and record(): the cycle's phase is being timed.
    bool active() const { return pending_; }
    /// The phase's wall time and, on the threads, their summed time in it (what one thread
    /// would have needed, about).
    void record(double seconds, double serialEstimate);

  private:
    bool pending_ = false, threads_ = true;
    uint32_t busy_ = 0, cycles_ = 0, strikes_ = 0;
    uint32_t wait_ = 0, gap_ = kProbeEvery; ///< windows left on one thread; the next back-off
    double seconds_ = 0, estimate_ = 0;
  } tuner_;
  std::vector<Cycle> smNext_; ///< per SM: nextEventCycle (the parallel engine's scratch)
  std::vector<Sm::TickSummary> smSum_; ///< per SM: its last tick's summary (Sm::summarize)
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

/// Text report of one kernel's statistics (the names the reference documents use appear as
/// aliases: gpu_tot_sim_cycle, gpu_tot_sim_insn, NUM_STALL_CYCLES, MISSES_PER_1000_INSTR).
std::string formatKernelStats(const KernelTimingStats &s);
/// The same as a JSON object.
std::string kernelStatsJson(const KernelTimingStats &s);

} // namespace ptxsim::timing

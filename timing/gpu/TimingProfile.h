#pragma once
// Opt-in host-time profile of the timing engine's cycle loop (PTXSIM_TIMING_PROFILE=1): where
// the host seconds go (the serial steps of a cycle, the SMs' and partitions' phase on the
// threads or on one thread, the idle-skip search), how many cycles ran on the threads, on one
// thread by the tuner's choice or on one thread for too few busy SMs, and the fork-join's
// waits. Printed to stderr at exit, summed over every launch of the process, with an Amdahl
// estimate of the speed-up on more threads (docs/timing.md, "Profile").
//
// Contract: Gpu::runKernel fills one TimingProfile per launch only when enabled() (one branch
// per step otherwise: no clock is read) and hands it to accumulate(); the report is printed
// once, at exit, when anything was accumulated. Thread-safe (Gpus on several host threads).

#include <cstdint>
#include <cstdio>

namespace ptxsim::timing {

struct TimingProfile {
  /// Steps of runKernel, in the order a cycle runs them.
  enum Step : unsigned {
    Setup,        ///< before the first cycle (grid, SMs' kernel state, statistics baseline)
    Dispatch,     ///< CTA dispatch (one thread)
    Icnt,         ///< the interconnect's clock domain (one thread)
    PhaseThreads, ///< SMs' local phase + partitions, on the threads (wall time)
    PhaseSerial,  ///< the same phase on one thread, eligible (the tuner's choice, or no pool)
    PhaseFewSms,  ///< the same phase on one thread (too few SMs held CTAs for the threads)
    EndTick,      ///< the memory system's end of cycle (one thread)
    Ordered,      ///< ordered phase (tickShared in SM order) and the summaries (one thread)
    Bookkeeping,  ///< end test, progress, samplers (one thread)
    IdleSkip,     ///< idle skipping: the memory system's and the awake SMs' next events (one
                  ///< thread)
    Finish,       ///< after the last cycle (grid finish, statistics)
    kSteps
  };
  static const char *stepName(unsigned s);

  /// What ended an SM's window (or kept one from starting) before the ticks it then ran on the
  /// GPU's clock (Gpu::tickSmWindow; docs/timing.md, "SM windows").
  enum WindowEnd : unsigned {
    EndBeyond,   ///< an instruction that reaches beyond the SM (global or local access, atomic,
                 ///< fence, call, ...: not windowSafe)
    EndOrdered,  ///< work for the ordered phase (a held store, a CTA to retire, a stopped tick)
    EndLdst,     ///< the LD/ST unit has something to send (coalescer busy, miss queue)
    EndResponse, ///< a response the SM waits for may arrive
    EndDispatch, ///< a CTA left to dispatch may go to the SM
    EndIdle,     ///< the SM's next tick is an idle one (idle ticks stay with the loop, which
                 ///< skips cycles in which every SM is idle)
    EndLength,   ///< the window ran its length (or to the sampler's next cycle)
    EndOther,    ///< the launch's first tick, another core kind, ordered issue, a fault
    kWindowEnds
  };
  static const char *windowEndName(unsigned e);

  double seconds[kSteps] = {};
  uint64_t launches = 0;
  uint64_t cycles = 0;            ///< simulated core cycles (ticked + skipped)
  uint64_t ticked = 0;            ///< cycles the loop ran
  uint64_t threadCycles = 0;      ///< ... with the phase on the threads
  uint64_t clearGainCycles = 0;   ///< ... of them without the tuner (ThreadTuner::clearGain)
  uint64_t tunerSerialCycles = 0; ///< ... eligible, but the tuner chose one thread (or no pool)
  uint64_t fewSmsCycles = 0;      ///< ... on one thread: too few SMs held CTAs (SM windows: too
                                  ///< few SMs ticking, not ahead or idle, and partitions awake)
  uint64_t probes = 0;            ///< the tuner's probes (threads against one thread)
  uint64_t aheadTicks = 0;        ///< SM ticks run ahead of the GPU's clock (SM windows)
  uint64_t smTicks = 0;           ///< SM ticks that were not idle ones, ahead or not
  /// With SM windows: the ticks (not idle) on the GPU's clock, by what ended the SM's window
  /// before them (they sum to smTicks - aheadTicks).
  uint64_t clockTicksBy[kWindowEnds] = {};
  /// SM ticks (not idle) in the cycles whose phase ran on the threads, and their critical path:
  /// per cycle the larger of an even share per thread and the most one SM ticked (an SM's
  /// ticks in a cycle, its window's included, are one item of the job).
  uint64_t threadTicks = 0, criticalTicks = 0;
  uint64_t jobs = 0;              ///< fork-joins run (the phases on the threads)
  double threadWork = 0;          ///< the threads' summed time inside the jobs' calls
  double callerWait = 0;          ///< the calling thread's wait for the others after its share
  unsigned threads = 1;           ///< host threads of the pool (the largest seen)

  /// PTXSIM_TIMING_PROFILE set to anything but "" or "0" (read once), unless setEnabled()
  /// said otherwise.
  static bool enabled();
  /// Turns profiling on or off from now on (tests; the environment decides by default).
  static void setEnabled(bool on);
  /// Adds one launch's profile to the process's; the first call arranges the report at exit.
  static void accumulate(const TimingProfile &p);
  /// The process's profile so far; reset() empties it (tests).
  static TimingProfile total();
  static void reset();
  /// The report (what is printed at exit).
  void print(std::FILE *out) const;
};

} // namespace ptxsim::timing

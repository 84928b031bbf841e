#pragma once
// The run recorder: what every grid and host-device copy of the program did, for the end-of-run
// summary on stderr (PTXSIM_SUMMARY=0 turns it off) and the statistics file (PTXSIM_STATS_JSON).
//
// Contract: the Context records under its mutex (or on the executor while the mutex-holding
// host waits); report() runs once, at the program's exit, after the stream queue drained. It
// reads the run's set-up from RunInfo and the results the kernel simulator handed back
// (timing::KernelTimingStats, power::KernelPower); it never sees the GPU model or the power model.

#include "ptx/exec/Engine.h"
#include "sim/FunctionalStats.h"
#include "sim/KernelSimulator.h"

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ptxsim::runtime {

class RunRecorder {
public:
  RunRecorder() { sim::registerFunctionalStatistics(); }
  /// Per-kernel totals (by kernel name, over its launches): the functional statistics
  /// (sim/FunctionalStats.h) and what the summary adds.
  struct KernelStats : sim::KernelTotals {
    uint64_t cycles = 0; ///< timing mode
    double simSeconds = 0;
    std::string lastConfig;         ///< "(gx,gy,gz)x(bx,by,bz)" of the last launch
    std::vector<uint64_t> counters; ///< extension counters (ptx/exec/Counters.h), by id
  };
  /// What the report says about the run's set-up.
  struct RunInfo {
    bool timing = false;
    const timing::TimingConfig *config = nullptr; ///< timing mode
    unsigned hostThreads = 0;                     ///< 0: all
    const sim::PowerSetup *power = nullptr;       ///< timing mode with PTXSIM_POWER
    double simSeconds = 0;                        ///< kernels plus copies (timing mode)
    sim::SampleMode sampling = sim::SampleMode::Off; ///< timing mode
    /// Without sampling: what `--sample kernels` would have estimated (timing mode).
    sim::KernelSimulator::WouldEstimate wouldEstimate;
  };

  /// One grid that ran (the host's or one launched from the device); `timing`: its cycle-level
  /// statistics (timing mode), started at simulated time `startSeconds`.
  void recordGrid(const ptx::exec::LaunchParams &q, const ptx::exec::LaunchResult &r,
                  timing::KernelTimingStats *timing, double startSeconds);
  void recordPower(power::KernelPower p) { powerStats_.push_back(std::move(p)); }
  /// A host-device copy of `bytes` that took `seconds` of simulated time.
  void recordCopy(uint64_t bytes, double seconds);
  /// Prints the summary and writes the statistics file (the program's exit).
  void report(const RunInfo &info) const;

private:
  /// Grid, block and simulated start time of each launchStats_ entry (for reports' timelines).
  struct LaunchShape {
    uint32_t grid[3], block[3];
    double startSeconds;
  };
  /// The summary's steps: per-kernel table, simulated totals, power, per-kernel timing table.
  void printKernels(const RunInfo &info, double wall, double &kernelSeconds) const;
  void printSimulated(const RunInfo &info, double kernelSeconds) const;
  void printPower(const sim::PowerSetup &power) const;
  void printKernelTiming(const RunInfo &info) const;
  /// Sampled runs: how many launches were estimated and the bound on the error of the total
  /// and of each kernel; runs without sampling that repeat kernels: what sampling would save.
  void printSampling(const RunInfo &info, double kernelSeconds) const;
  void printWouldSave(const RunInfo &info, double kernelSeconds) const;
  /// The statistics file's steps: the per-kernel totals, then (timing mode) the configuration,
  /// copies, every launch and every launch's power.
  void writeJson(std::ostream &os, const RunInfo &info, double wall) const;
  void writeKernelsJson(std::ostream &os) const;
  void writeTimingJson(std::ostream &os, const RunInfo &info) const;

  std::vector<std::pair<std::string, KernelStats>> stats_; ///< in order of first launch
  std::unordered_map<std::string, size_t> statsIndex_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  double copySeconds_ = 0;
  uint64_t copies_ = 0, copyBytes_ = 0;
  std::vector<timing::KernelTimingStats> launchStats_; ///< per launch, timing mode
  std::vector<LaunchShape> launchShapes_;
  std::vector<power::KernelPower> powerStats_; ///< per launch, with power
};

} // namespace ptxsim::runtime

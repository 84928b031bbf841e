// The CPU chiplet's core model (docs/chiplets.md, "CPU chiplets: the core model").
//
// Contract: the host code a CPU chiplet runs between two chiplet operations (an interval) is
// measured under Valgrind's callgrind (instructions, data reads and writes, I1/D1/LL misses of its
// simulated caches, conditional and indirect branches and their mispredictions); CpuCoreModel
// turns each interval's counts into cycles with an interval/CPI model and into energy with
// McPAT-style per-event energies plus leakage. All arithmetic on cycles is integer (thousandths
// of a cycle), so the same counts give the same cycles everywhere.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ptxsim::chiplet::cpu {

/// One cache level of the preset: size in bytes, associativity, line size in bytes.
struct CacheGeometry {
  uint64_t size = 0;
  unsigned assoc = 0, line = 0;
};

/// A CPU preset (configs/*.cpu.config). Costs in thousandths of a cycle (`...M`), energies in pJ.
struct CpuConfig {
  std::string name;
  double freqGhz = 0;
  CacheGeometry l1i, l1d, llc;
  uint64_t cpiOtherM = 0, cpiLoadM = 0, cpiStoreM = 0, cpiBranchM = 0;
  uint64_t l1MissPenaltyM = 0;  ///< an I1 or D1 miss that hits the LLC
  uint64_t llcMissPenaltyM = 0; ///< an LLC miss (memory latency over the overlap of misses)
  uint64_t mispredictPenaltyM = 0;
  double eOtherPj = 0, eLoadPj = 0, eStorePj = 0, eBranchPj = 0;
  double eL1AccessPj = 0, eLlcAccessPj = 0, eDramAccessPj = 0, eMispredictPj = 0;
  double leakageW = 0;
};

/// The built-in presets: "gainestown" (sniper's Nehalem default) and "modern".
bool builtinPreset(const std::string &name, CpuConfig &cfg);
/// Parses a preset file's text (`-cpu_option value` lines, `#` comments): every option must be
/// given once; an unknown or malformed one is an error naming `where` and its line.
bool parseCpuConfig(const std::string &text, const std::string &where, CpuConfig &cfg,
                    std::string &err);
/// A preset by name (builtin) or by file path.
bool loadCpuConfig(const std::string &nameOrPath, CpuConfig &cfg, std::string &err);
/// The valgrind options that make callgrind simulate the preset's caches.
std::vector<std::string> valgrindCacheArgs(const CpuConfig &cfg);

/// Callgrind's events for one interval.
struct CpuCounts {
  uint64_t ir = 0, dr = 0, dw = 0;       ///< instructions, data reads, data writes
  uint64_t i1mr = 0, d1mr = 0, d1mw = 0; ///< first-level misses
  uint64_t ilmr = 0, dlmr = 0, dlmw = 0; ///< last-level misses
  uint64_t bc = 0, bcm = 0, bi = 0, bim = 0; ///< conditional/indirect branches, mispredicted
  CpuCounts &operator+=(const CpuCounts &o);
};

/// Reads the `events:` and `totals:` lines of a callgrind dump.
bool parseCallgrindTotals(const std::string &text, CpuCounts &c, std::string &err);

/// Per-class breakdown of one interval's cycles (thousandths of a cycle).
struct CpuCycles {
  uint64_t baseM = 0, l1MissM = 0, llcMissM = 0, mispredictM = 0;
  uint64_t totalM() const { return baseM + l1MissM + llcMissM + mispredictM; }
};

class CpuCoreModel {
public:
  explicit CpuCoreModel(const CpuConfig &cfg) : cfg_(cfg) {}
  /// Cycles of one interval, in thousandths (no rounding).
  CpuCycles intervalCycles(const CpuCounts &c) const;
  /// Adds an interval and returns the whole cycles to advance the clock by; fractions carry over
  /// to the next interval, so the sum over intervals is floor(total).
  uint64_t addInterval(const CpuCounts &c);
  /// Dynamic energy in joules of the counts so far, and leakage over the modelled time.
  double dynamicEnergyJ() const;
  double leakageEnergyJ() const { return cfg_.leakageW * seconds(); }
  double seconds() const { return (double)cycles_ / (cfg_.freqGhz * 1e9); }
  uint64_t cycles() const { return cycles_; }
  uint64_t intervals() const { return intervals_; }
  const CpuCounts &totals() const { return total_; }
  const CpuCycles &breakdown() const { return parts_; }
  const CpuConfig &config() const { return cfg_; }
  /// Instructions other threads ran inside measured intervals (they share callgrind's caches and
  /// branch predictor: non-zero means the cycles may differ run to run); in the JSON.
  void setOtherThreadInstructions(uint64_t n) { otherThreadInstructions_ = n; }
  /// The statistics as one JSON object (the launcher reads it).
  std::string json() const;

private:
  CpuConfig cfg_;
  CpuCounts total_;
  CpuCycles parts_;
  uint64_t carryM_ = 0, cycles_ = 0, intervals_ = 0, otherThreadInstructions_ = 0;
};

} // namespace ptxsim::chiplet::cpu

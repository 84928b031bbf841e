#pragma once
// The functional statistics: what every run reports per kernel whatever the mode (launches,
// CTAs, instructions, host seconds), declared once, in the statistics catalog (base/Stats.h)
// beside the timing statistics, and written from that one declaration.
//
// Contract: functionalStatistics() is the table (catalog name, unit, meaning, value);
// registerFunctionalStatistics() adds it to the catalog (again is harmless), so `ptxsim stats`
// lists these with the others; functionalStatsJson() writes a kernel's values as JSON members
// in the table's order, named as in the catalog (the `kernels` entries of PTXSIM_STATS_JSON).

#include "base/Stats.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ptxsim::sim {

/// A kernel's functional totals over its launches.
struct KernelTotals {
  uint64_t launches = 0, ctas = 0, threadInsts = 0, warpInsts = 0;
  double seconds = 0; ///< host seconds spent running it
};

struct FunctionalStat {
  const char *name;
  stats::Unit unit;
  const char *help;
  double (*value)(const KernelTotals &);
};

const std::vector<FunctionalStat> &functionalStatistics();
void registerFunctionalStatistics();
/// `"launches": 3, "ctas": 96, ...` (no braces).
std::string functionalStatsJson(const KernelTotals &t);

} // namespace ptxsim::sim

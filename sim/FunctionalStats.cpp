#include "sim/FunctionalStats.h"

#include "base/Config.h"

namespace ptxsim::sim {

const std::vector<FunctionalStat> &functionalStatistics() {
  using stats::Unit;
  // never destroyed: the runtime library registers no static destructors
  static const std::vector<FunctionalStat> &kStats = *new std::vector<FunctionalStat>{
      {"launches", Unit::Count, "launches of the kernel (per kernel, over the run)",
       [](const KernelTotals &t) { return double(t.launches); }},
      {"ctas", Unit::Count, "CTAs the kernel's launches ran (per kernel, over the run)",
       [](const KernelTotals &t) { return double(t.ctas); }},
      {"thread_insts", Unit::Count,
       "thread instructions the kernel executed (per kernel, over the run)",
       [](const KernelTotals &t) { return double(t.threadInsts); }},
      {"warp_insts", Unit::Count,
       "warp instructions the kernel executed (per kernel, over the run)",
       [](const KernelTotals &t) { return double(t.warpInsts); }},
      {"seconds", Unit::Seconds,
       "host (wall-clock) seconds the simulator spent running the kernel (per kernel)",
       [](const KernelTotals &t) { return t.seconds; }},
  };
  return kStats;
}

void registerFunctionalStatistics() {
  for (const FunctionalStat &s : functionalStatistics())
    stats::Catalog::global().add(s.name, s.unit, s.help);
}

std::string functionalStatsJson(const KernelTotals &t) {
  std::string out;
  for (const FunctionalStat &s : functionalStatistics()) {
    if (!out.empty())
      out += ", ";
    out += jsonQuote(s.name) + ": " + stats::formatValue(s.value(t), false); // as before: 6 digits
  }
  return out;
}

} // namespace ptxsim::sim

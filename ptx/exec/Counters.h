#pragma once
// Extension point: per-launch event counters that instruction handlers increment.
//
// Contract: an extension registers each counter once at start-up (registerExecCounter: a
// statistic name, a unit and a description, declared in stats::Catalog as the stats::Counter
// handle the timing model reports the totals through) and its handlers
// add to it with ExecCtx::count(id, n) — one add to a per-host-thread array, nothing else on the
// execute path. A launch's totals come back in LaunchResult::counters (functional mode, summed
// over host threads) and, in timing mode, in the kernel's statistics under the counter's name.

#include "base/Stats.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptxsim::ptx::exec {

constexpr unsigned kMaxExecCounters = 32;

struct ExecCounterInfo {
  std::string name;
  stats::Counter stat; ///< the statistic the totals are reported as
};
/// Registers a counter (or returns the id of the one with that name).
uint16_t registerExecCounter(std::string_view name, stats::Unit unit, std::string_view help);
/// Registered counters, indexed by id.
const std::vector<ExecCounterInfo> &execCounters();

} // namespace ptxsim::ptx::exec

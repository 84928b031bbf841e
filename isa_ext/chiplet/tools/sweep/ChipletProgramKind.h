#pragma once
// `kind = "chiplets"` in a sweep spec (docs/sweep.md, "Chiplet points"): a point is one
// `ptxsim chiplets` run, one simulator process per chiplet (docs/chiplets.md). Registered with
// the sweep's program kinds (runtime/sweep/ProgramKind.h) by ChipletProgramKind.cpp's static
// object, linked into the `ptxsim` command as an object library.

#include "runtime/report/Json.h"

#include <string>
#include <vector>

namespace ptxsim::chiplet {

/// Parses a chiplet grid "WxH" (1..64 each); false when it is not one.
bool parseSweepGrid(const std::string &s, unsigned &w, unsigned &h);

/// The chosen statistics of a chiplet point: the `ptxsim chiplets --stats-json` file:
/// `cycles` (the synchronized simulation's cycles), `energy_j` (the chiplets' kernels and the
/// network), `avg_watts` (total power), a key of `totals`, `chiplet.X.Y.FIELD` (one chiplet's
/// counter), `chiplets.FIELD` (summed over the chiplets) or a dotted path to a number
/// (`network.avg_delay`). NaN when the file does not have it.
std::vector<double> chipletStatistics(const report::JsonValue &json,
                                      const std::vector<std::string> &names);

} // namespace ptxsim::chiplet

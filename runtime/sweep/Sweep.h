#pragma once
// `ptxsim sweep SPEC`: runs the grid of a sweep spec (runtime/sweep/Spec.h) with the local
// backend (N simulations at a time on this machine) or the Slurm backend (one array job, one
// task per point, and a dependent job that merges), and merges every point into one table
// (CSV, JSON) and one HTML comparison page (docs/sweep.md).
//
// Contract: each point runs what its program's kind plans (runtime/sweep/ProgramKind.h: `ptxsim
// run`, or a registered kind's subcommand, possibly several processes) in its own directory
// (OUTPUT/points/ID) and leaves
// there stdout.txt, stderr.txt, stats.json (renamed into place after the program exited) and
// result.json (exit status, wall time, peak memory, why it failed), written last through a
// temporary file and rename(2), so a point is complete exactly when its result.json exists.
// A point's key is the SHA-256 of its inputs: the program binary's bytes (and its `inputs`), its
// arguments, working directory and environment, the inherited PTXSIM_* variables, each
// configuration file's bytes (and its .power.xml in power mode), the option overrides, the
// mode, the ptxsim version and the bytes of libcudart.so.13 (the simulator). A point
// whose result.json has the current key is not run again (a failed one only with
// --retry-failed); a point whose inputs changed runs again. Killing a sweep loses only the
// points that were running.

#include "runtime/report/Json.h"
#include "runtime/report/Report.h"
#include "runtime/sweep/Spec.h"

#include <ostream>
#include <string>
#include <vector>

namespace ptxsim::sweep {

/// What OUTPUT/points/ID/result.json records.
struct PointResult {
  std::string id, key;
  bool ok = false;
  int exitCode = 0; ///< the program's exit status, 128 + signal when a signal ended it
  double wallSeconds = 0;
  double peakRssMiB = 0;  ///< getrusage of the child (ru_maxrss)
  std::string reason;     ///< why it failed; empty when ok
  std::string stderrTail; ///< the last lines of stderr.txt (failed points)
  std::string host, backend;
};

/// The chosen statistics of one stats file (docs/sweep.md lists the names): derived ones
/// computed the way `ptxsim report` computes them (runtime/report's RunModel), or any per-launch
/// counter summed over launches; `NAME@KERNEL` restricts to kernels whose name contains KERNEL.
/// A statistic the file does not have is NaN.
std::vector<double> pointStatistics(const report::JsonValue &json, const report::RunModel &run,
                                    const std::vector<std::string> &names);

/// One row of the merged table.
struct Row {
  const Point *point = nullptr;
  std::string state; ///< "ok", "failed", "missing" (never ran or inputs changed)
  PointResult result;
  std::vector<double> stats; ///< by Table::statNames; NaN when unknown
};

struct Table {
  std::string name, title, specPath, output;
  std::vector<std::string> axes; ///< "program" first, then the spec's axes
  std::vector<std::vector<std::string>> axisValues;
  std::vector<std::string> baseline; ///< per axis, the baseline value
  std::vector<std::string> statNames;
  std::vector<Row> rows; ///< in grid order
  /// coordinates of a row: value name per axis
  std::vector<std::string> coords(const Row &r) const;
  const Spec *spec = nullptr;
};

/// The HTML comparison page of a sweep (runtime/sweep/SweepPage.cpp): built on `ptxsim
/// report`'s stylesheet and script: a summary, failed points with their stderr, every point
/// (sortable), a table per axis with ratios against the baseline value, and a heat map per
/// statistic of each configuration relative to the baseline configuration, per program.
std::string renderSweepPage(const Table &t);

/// `ptxsim sweep SPEC [options]`.
int sweepCommand(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);

} // namespace ptxsim::sweep

#pragma once
// The sweep spec (docs/sweep.md): a TOML file naming programs, configurations and named axes
// whose cross product is the grid of simulations `ptxsim sweep` runs.
//
// Contract: loadSpec() reads and checks the whole file before anything runs: an unknown key, a
// value of the wrong type, a duplicate or unsafe name, an empty axis or an unknown mode is an
// error naming the file, line and column and the key's path (`spec.toml:12:3: axis[2].values[0]:
// ...`). `${NAME}` in any string is replaced by a [vars] entry (or a --set NAME=VALUE, which
// wins, or the predefined `spec_dir`); an undefined variable is an error; `$$` is a '$'. Relative
// paths (config files, a command's program when it contains '/', a working directory) are resolved
// against the spec's directory. expandGrid() is deterministic: programs outermost, then the
// axes in file order, each in its values' order.

#include "runtime/sweep/Program.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ptxsim::sweep {

/// One value of an axis: a name (part of point ids and table headers) and what it changes.
struct AxisValue {
  std::string name;
  std::vector<std::string> configs;                         ///< absolute paths, after the base
  std::vector<std::pair<std::string, std::string>> options; ///< GPGPU-Sim option, value
  std::vector<std::string> runArgs;                         ///< extra `ptxsim run` options
  std::vector<std::string> args;                            ///< appended to the program's args
  /// ${NAME} values for the programs' command, run_args and env at this coordinate
  std::vector<std::pair<std::string, std::string>> vars;
  bool hasMode = false;
  ModeKind mode = ModeKind::Timing;
};

struct Axis {
  std::string name;
  std::vector<AxisValue> values;
};

/// Per-point resources: the local backend's parallelism and the Slurm array's requests.
struct Resources {
  unsigned cpus = 1;            ///< host threads per simulation (ptxsim run --threads)
  uint64_t memoryMiB = 2048;    ///< expected peak memory per simulation
  std::string time = "1:00:00"; ///< Slurm --time per point
  std::string partition;
  std::vector<std::string> sbatch; ///< extra sbatch options, one per element
  unsigned maxParallel = 0;        ///< Slurm array throttle (%N); 0: none
};

struct Spec {
  std::string path;    ///< the spec file as given
  std::string absPath; ///< the spec file, absolute (Slurm jobs read it again)
  std::string dir;     ///< its directory, absolute
  std::string name, title;
  std::string output;               ///< absolute output directory
  std::vector<std::string> configs; ///< base configuration files (absolute)
  std::vector<std::pair<std::string, std::string>> options;
  std::vector<std::string> runArgs;
  ModeKind mode = ModeKind::Timing; ///< when no axis sets one
  std::vector<Program> programs;
  std::vector<Axis> axes; ///< includes "mode" and "repeat" when the spec lists several
  std::vector<std::string> stats;
  std::map<std::string, std::string> baseline; ///< axis name -> value name ("program" too)
  Resources resources;
  std::string csvName = "results.csv", jsonName = "results.json", reportName = "report.html";
  std::vector<std::pair<std::string, std::string>> vars; ///< effective, for the record
  /// Points left out of the grid: each names axes ("program" too) and values; a point whose
  /// coordinates are among them on every named axis is not part of the grid.
  using Exclusion = std::vector<std::pair<std::string, std::vector<std::string>>>;
  std::vector<Exclusion> excludes;
};

/// Reads `path`. `sets` are --set NAME=VALUE overrides of [vars]; `outputOverride` (from -o)
/// replaces the spec's output directory. Returns false with `error` (file:line:col: ...).
bool loadSpec(const std::string &path, const std::vector<std::pair<std::string, std::string>> &sets,
              const std::string &outputOverride, Spec &out, std::string &error);

std::vector<Point> expandGrid(const Spec &spec);

/// The effective mode of a point (the last axis value that sets one, else the spec's).
ModeKind pointMode(const Spec &spec, const Point &p);

} // namespace ptxsim::sweep

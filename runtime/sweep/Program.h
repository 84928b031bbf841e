#pragma once
// The parts of a sweep spec (runtime/sweep/Spec.h) that a program's kind sees
// (runtime/sweep/ProgramKind.h): a point's mode, the program and the point.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ptxsim::sweep {

/// How a point runs: the simulator's mode and what `ptxsim run` gets for it.
enum class ModeKind : uint8_t { Functional, Timing, Power, SampleKernels, SampleCtas };

const char *modeName(ModeKind m);

class ProgramKind; // runtime/sweep/ProgramKind.h

struct Program {
  std::string name;
  /// what runs its points: `run` (one `ptxsim run`) or a registered kind (never null once loaded)
  const ProgramKind *kind = nullptr;
  /// the kind's own keys (ProgramKind::keys), as it read them; filled per point
  std::map<std::string, std::string> settings;
  std::vector<std::string> command; ///< command[0] resolved when it names a path
  std::string cwd;                  ///< absolute; empty: the point's own directory
  std::string expect;               ///< stdout must contain it (empty: no check)
  std::vector<std::string> inputs;  ///< more files whose bytes the key covers (absolute)
  /// extra options for the kind's subcommand (`ptxsim run` for run)
  std::vector<std::string> runArgs;
  std::vector<std::pair<std::string, std::string>> env;
};

/// One simulation of the grid.
struct Point {
  size_t index = 0;
  std::string id;             ///< program__value__value (a directory name)
  size_t program = 0;         ///< into Spec::programs
  std::vector<size_t> values; ///< per axis, into Axis::values
};

} // namespace ptxsim::sweep

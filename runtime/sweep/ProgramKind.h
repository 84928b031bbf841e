#pragma once
// What runs a point of a sweep program (`kind = "..."` in a [[program]] table; docs/sweep.md):
// the built-in `run` (one `ptxsim run`) and the kinds extensions register (isa_ext/*/tools/sweep).
//
// Contract: a kind names the spec keys it adds to [[program]] and checks them when the spec is
// loaded (errors name the file, line and column through ProgramKeys); it plans a point (the
// `ptxsim` subcommand and its options, the number of simulator processes, the key material of
// what it runs besides the program); it says whether a point needs its own Slurm job (several
// processes) and that job's shape; and it reads a point's statistics file into the spec's
// columns (NaN for a statistic the file does not have). Kinds register at start-up, before
// main() (ProgramKindRegistration); `run` is always the first. Lookups need no lock.

#include "base/NamedRegistry.h"
#include "runtime/report/Json.h"
#include "runtime/sweep/Program.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ptxsim::sweep {

/// The [[program]] table as a kind reads its own keys from it (Spec.cpp implements it).
class ProgramKeys {
public:
  virtual ~ProgramKeys() = default;
  virtual bool has(const std::string &key) const = 0;
  /// The string at `key`; with `perPoint`, the ${NAME}s that axis values set (and "$$") are
  /// kept for each point to fill in. False (the error recorded) when it is not a string.
  virtual bool string(const std::string &key, std::string &out, bool perPoint) = 0;
  /// Records an error at `key`'s value, or at the program's table when `key` is empty; false.
  virtual bool fail(const std::string &key, const std::string &message) = 0;
};

/// The sweep's file hashes (each file read once), for a kind's key material.
class PointHashes {
public:
  virtual ~PointHashes() = default;
  /// The SHA-256 of `path`; empty after an error, which names `what`.
  virtual std::string hashOf(const std::string &path, const std::string &what) = 0;
};

/// A point of a program, as its kind plans it.
struct KindPoint {
  const Point *point = nullptr;
  const Program *program = nullptr;
  std::map<std::string, std::string> settings; ///< the program's kind keys, filled for the point
  ModeKind mode = ModeKind::Timing;
  std::string dir;      ///< the point's directory
  unsigned threads = 1; ///< host threads per simulation
};

struct KindPlan {
  /// the `ptxsim` subcommand and its options, before the configurations and mode options
  std::vector<std::string> args;
  /// the options that select timing mode (empty: it is the subcommand's default)
  std::vector<std::string> timingMode;
  unsigned processes = 1; ///< simulator processes the point runs
  std::string key;        ///< key material ("NAME VALUE" lines) beyond the program
  std::string error;      ///< why planning failed (empty: PointHashes::hashOf said it)
};

/// A point's own Slurm job (a kind whose points run several processes).
struct KindJob {
  std::string file;  ///< the script's file name in the submission's directory
  std::string what;  ///< the script's comment line: what the point is
  std::string tasks; ///< its task requests ("#SBATCH --ntasks=..." lines, each ending in \n)
};

class ProgramKind {
public:
  virtual ~ProgramKind() = default;
  /// The `kind = "..."` value.
  virtual const char *name() const = 0;
  /// The [[program]] keys only this kind accepts.
  virtual std::vector<std::string> keys() const { return {}; }
  /// Reads and checks those keys into `settings` (they are filled per point before plan()).
  virtual bool readSpec(ProgramKeys &, std::map<std::string, std::string> &) const { return true; }
  virtual bool plan(const KindPoint &p, PointHashes &hashes, KindPlan &out) const = 0;
  /// Whether each point is a Slurm job of its own (else: a task of the sweep's array job).
  virtual bool ownJob() const { return false; }
  /// What the sweep's messages call such a point ("... point", "... job").
  virtual std::string noun() const { return name(); }
  /// The point's own job: `processes` is what plan() said.
  virtual KindJob job(const Program &, const Point &, unsigned /*processes*/) const { return {}; }
  /// The spec's `names` from a point's statistics file: false (with `error`, possibly empty)
  /// when the file is not this kind's statistics.
  virtual bool statistics(const report::JsonValue &json, const std::vector<std::string> &names,
                          std::vector<double> &out, std::string &error) const = 0;
};

/// Every registered kind, `run` first.
NamedRegistry<const ProgramKind *> &programKinds();

/// "run or chiplets": the registered kinds' names, for messages.
std::string programKindList();

/// Registers a kind from a static object's constructor (before main()).
struct ProgramKindRegistration {
  explicit ProgramKindRegistration(const ProgramKind &k) { programKinds().add(k.name(), &k); }
};

} // namespace ptxsim::sweep

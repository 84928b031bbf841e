#pragma once
// The `ptxsim` subcommands: a name -> command table (base/NamedRegistry.h), filled at start-up by
// the built-in commands (Subcommands.cpp) and by the extensions that bring a tool of their own
// (isa_ext/ExtensionCommands.h), so the command line names no extension.
//
// Contract: a name is one word (`run`) or two (`ptx check`); find() takes the command line's
// words and prefers a two-word name to a one-word one. A command gets the words after its name
// and returns the process's exit status (0 ok, 1 the input failed its check, 2 a usage error).
// printUsage() lists the commands in registration order with their synopsis and help.

#include "base/NamedRegistry.h"

#include <deque>
#include <iosfwd>
#include <string>
#include <vector>

namespace ptxsim::cli {

using SubcommandFn = int (*)(const std::vector<std::string> &args, std::ostream &out,
                             std::ostream &err);

struct Subcommand {
  std::string synopsis; ///< the name and its arguments, e.g. "run [options] -- PROGRAM [ARGS]"
  std::string help;     ///< what it does; lines after the first separated by '\n'
  SubcommandFn run = nullptr;
};

class SubcommandRegistry {
public:
  /// Adds (or replaces) the command `name` ("run", "ptx check").
  void add(const std::string &name, Subcommand command);
  /// The command the first words of `words` name, and how many words its name has; null when
  /// none does.
  const Subcommand *find(const std::vector<std::string> &words, size_t &nameWords) const;
  void printUsage(std::ostream &os) const;

private:
  NamedRegistry<const Subcommand *> byName_;
  std::deque<Subcommand> commands_; ///< owns what byName_ points to (a deque never moves them)
};

/// run, ptx check/extract/resources, report, sweep, stats.
void registerBuiltinSubcommands(SubcommandRegistry &r);

} // namespace ptxsim::cli

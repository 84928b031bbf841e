#pragma once
// `ptxsim chiplets --grid WxH [--cpu X,Y] [--transport files|mpi] [--config F]... -- ./app args`:
// starts one simulator process per chiplet, watches them, then runs the network model on their
// traces and prints the totals and a per-chiplet table (docs/chiplets.md).

#include <iosfwd>
#include <string>
#include <vector>

namespace ptxsim::chiplet {

/// Runs the subcommand; `args` are the words after `chiplets`. Returns the exit status.
int chipletsCommand(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);

} // namespace ptxsim::chiplet

#pragma once
// `ptxsim ptx ...` subcommands.

#include <iosfwd>
#include <string>
#include <vector>

namespace ptxsim::cli {

/// `ptxsim ptx check [--summary] [--json] FILE...`: parse and check each file, print every
/// diagnostic to `err`, the summary (if asked) to `out`. Returns 0 when all files are clean,
/// 1 when any has errors, 2 on a usage error.
int ptxCheck(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);

} // namespace ptxsim::cli

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

/// `ptxsim ptx extract BINARY [-o DIR]`: writes the PTX entries of an nvcc-built executable or
/// library to DIR (default: the current directory), one file per entry, and lists them on `out`.
/// Returns 0 on success, 1 when the binary has no PTX or cannot be read, 2 on a usage error.
int ptxExtract(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);

/// `ptxsim ptx resources BINARY|FILE.ptx...`: per-kernel registers (SASS and estimate),
/// shared, local and thread limits, like `cuobjdump -res-usage`.
int ptxResources(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);

} // namespace ptxsim::cli

#pragma once
// `ptxsim run [options] -- ./app args`: runs an unmodified CUDA program under ptxsim's runtime.

#include <iosfwd>
#include <string>
#include <vector>

namespace ptxsim::cli {

/// Sets the PTXSIM_* variables from the options, puts ptxsim's libcudart.so.13 first on the
/// library path and replaces this process with the program. Returns only on errors.
int runCommand(const std::vector<std::string> &args, std::ostream &err);

} // namespace ptxsim::cli

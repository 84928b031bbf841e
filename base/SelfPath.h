#pragma once
// Where the running ptxsim executable and its libraries are (for launchers that start programs
// against build/lib/libcudart.so.13 or start ptxsim again).

#include <string>

namespace ptxsim {

/// The running executable's path (from /proc/self/exe), or empty when it cannot be read.
std::string selfExecutable();
/// `<dir of this executable>/../lib`, where the build puts libcudart.so.13; empty when unknown.
std::string libraryDir();
/// The file execvp would run for `prog`: itself when it names a path, else the first executable
/// regular file of that name on PATH; empty when there is none (execvp then reports it).
std::string findOnPath(const std::string &prog);

} // namespace ptxsim

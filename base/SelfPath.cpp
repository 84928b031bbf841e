#include "base/SelfPath.h"

#include <climits>
#include <unistd.h>

namespace ptxsim {

std::string selfExecutable() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0)
    return {};
  buf[n] = 0;
  return buf;
}

std::string libraryDir() {
  std::string exe = selfExecutable();
  if (exe.empty())
    return {};
  std::string bin = exe.substr(0, exe.find_last_of('/'));
  return bin.substr(0, bin.find_last_of('/')) + "/lib";
}

} // namespace ptxsim

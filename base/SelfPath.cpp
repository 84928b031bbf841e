#include "base/SelfPath.h"

#include <climits>
#include <cstdlib>
#include <sys/stat.h>
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

std::string findOnPath(const std::string &prog) {
  if (prog.find('/') != std::string::npos)
    return prog;
  const char *path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos)
      end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string cand = (dir.empty() ? "." : dir) + "/" + prog;
    struct stat st;
    if (access(cand.c_str(), X_OK) == 0 && stat(cand.c_str(), &st) == 0 && S_ISREG(st.st_mode))
      return cand;
    start = end + 1;
  }
  return {};
}

} // namespace ptxsim

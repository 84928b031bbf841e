#include "base/HostCores.h"

#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace ptxsim::base {

unsigned usableCores() {
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0)
      return unsigned(n);
  }
#endif
  const unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

} // namespace ptxsim::base

// base::usableCores(): the default host thread count follows the process's CPU affinity (what
// taskset, Slurm's cpusets and containers allow), not every core the machine has.
#include "base/HostCores.h"

#include <gtest/gtest.h>

#include <sched.h>
#include <thread>

using namespace ptxsim;

TEST(HostCores, CountsTheAffinityMask) {
  cpu_set_t mine;
  CPU_ZERO(&mine);
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  EXPECT_EQ(base::usableCores(), unsigned(CPU_COUNT(&mine)));
  EXPECT_GE(base::usableCores(), 1u);
  EXPECT_LE(base::usableCores(), std::max(1u, std::thread::hardware_concurrency()));
}

TEST(HostCores, OneAllowedCoreIsOne) {
  // on a thread of its own, so the test's own mask is left alone
  unsigned seen = 0, before = 0;
  bool ok = false;
  std::thread t([&] {
    cpu_set_t all, one;
    CPU_ZERO(&all);
    if (sched_getaffinity(0, sizeof all, &all) != 0)
      return;
    before = base::usableCores();
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &all)) {
        CPU_SET(c, &one);
        break;
      }
    if (sched_setaffinity(0, sizeof one, &one) != 0)
      return;
    seen = base::usableCores();
    ok = true;
  });
  t.join();
  ASSERT_TRUE(ok);
  EXPECT_EQ(seen, 1u);
  EXPECT_GE(before, 1u);
}

#pragma once
// Two timing runs' statistics compared value by value, by name and in order: the timing tests'
// "identical" checks (any number of host threads, SM windows or none).

#include "timing/gpu/Gpu.h"

#include <gtest/gtest.h>

#include <string>

namespace ptxsim::test {

inline void expectSameStats(const timing::KernelTimingStats &r,
                            const timing::KernelTimingStats &base, const std::string &what) {
  EXPECT_EQ(r.cycles, base.cycles) << what;
  ASSERT_EQ(r.values().size(), base.values().size()) << what;
  for (size_t i = 0; i < base.values().size(); ++i) {
    EXPECT_EQ(r.values()[i].first, base.values()[i].first) << what;
    EXPECT_EQ(r.values()[i].second, base.values()[i].second) << base.values()[i].first << ", " << what;
  }
}

} // namespace ptxsim::test

// timing/sm/FreeRing.h: the operand collectors' busy-until cycles, against the plain model it
// replaced (an array in which the first unit with the least free cycle takes each issue).

#include "timing/sm/FreeRing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace ptxsim::timing {
namespace {

/// The plain model: the first unit with the least free cycle takes the issue.
struct PlainUnits {
  std::vector<Cycle> at;
  Cycle take(Cycle now, Cycle busy) {
    size_t u = size_t(std::min_element(at.begin(), at.end()) - at.begin());
    at[u] = std::max(at[u], now) + busy;
    return *std::min_element(at.begin(), at.end());
  }
  std::vector<Cycle> sorted() const {
    std::vector<Cycle> v = at;
    std::sort(v.begin(), v.end());
    return v;
  }
};

TEST(FreeRing, StartsFreeAndTakesTheSoonestFree) {
  FreeRing r;
  r.reset(3);
  EXPECT_EQ(r.units(), 3u);
  EXPECT_EQ(r.least(), 0u);
  EXPECT_EQ(r.take(10, 2), 0u);  // 12, 0, 0
  EXPECT_EQ(r.take(10, 1), 0u);  // 12, 11, 0
  EXPECT_EQ(r.take(10, 5), 11u); // 12, 11, 15
  EXPECT_EQ(r.cycles(), (std::vector<Cycle>{11, 12, 15}));
  // a shorter busy time than the others': the new cycle goes in before them, not at the back
  EXPECT_EQ(r.take(11, 1), 12u); // 12, 12, 15
  EXPECT_EQ(r.cycles(), (std::vector<Cycle>{12, 12, 15}));
  // none free yet: the soonest free takes it from its own free cycle, not from `now`
  EXPECT_EQ(r.take(5, 4), 12u); // 16, 12, 15
  EXPECT_EQ(r.cycles(), (std::vector<Cycle>{12, 15, 16}));
}

TEST(FreeRing, ZeroUnitsIsOne) {
  FreeRing r;
  r.reset(0);
  EXPECT_EQ(r.units(), 1u);
  EXPECT_EQ(r.take(7, 3), 10u);
  EXPECT_EQ(r.take(8, 1), 11u);
}

TEST(FreeRing, SameCyclesAsTheFirstLeastUnitModel) {
  // Random issue streams (now non-decreasing, as in the SM; busy 1-4 cycles, the busiest
  // bank's reads) on 1-9 units: after every issue the ring holds the same free cycles as the
  // plain model, and says the same least (the only things the SM reads).
  std::mt19937 rng(12345);
  for (uint32_t units = 1; units <= 9; ++units) {
    FreeRing r;
    r.reset(units);
    PlainUnits p{std::vector<Cycle>(units, 0)};
    Cycle now = 0;
    for (int i = 0; i < 20000; ++i) {
      now += rng() % 3; // (several issues in a cycle, and gaps)
      const Cycle busy = 1 + rng() % 4;
      ASSERT_EQ(r.take(now, busy), p.take(now, busy)) << units << " units, issue " << i;
      ASSERT_EQ(r.cycles(), p.sorted()) << units << " units, issue " << i;
    }
  }
}

} // namespace
} // namespace ptxsim::timing

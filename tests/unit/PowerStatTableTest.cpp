// The power model's statistics: names resolved to catalog handles once when bound, values read
// through them from any snapshot (power/StatTable.h).
#include "power/StatTable.h"

#include <gtest/gtest.h>

namespace ptxsim::power {
namespace {

const stats::Counter &hits() {
  static const stats::Counter &c =
      *new stats::Counter("powerstattest.hits", stats::Unit::Count, "test counter");
  return c;
}
const stats::Counter &perUnit() {
  static const stats::Counter &c =
      *new stats::Counter("powerstattest.unit[].ops", stats::Unit::Count, "test family");
  return c;
}

TEST(PowerStatTable, RegisteredNamesResolveToTheirHandlesWhenBound) {
  StatTable t;
  StatRef h = t.stat(hits().name());
  StatRef inst = t.stat(perUnit().instance(2)); // an instance: read by its name
  StatRef none = t.stat("powerstattest.not_registered");
  EXPECT_EQ(t.handle(h.slot), hits());
  EXPECT_FALSE(t.handle(inst.slot).valid());
  EXPECT_FALSE(t.handle(none.slot).valid());
  EXPECT_EQ(t.stat(hits().name()).slot, h.slot); // one slot per name
}

TEST(PowerStatTable, ReaderReadsHandlesInAnySnapshotLayout) {
  StatTable t;
  StatRef h = t.stat(hits().name());
  StatRef inst = t.stat(perUnit().instance(1));
  StatRef none = t.stat("powerstattest.not_registered");
  StatReader r(t);

  stats::Snapshot a;
  a.set(perUnit().instance(0), 5);
  a.set(perUnit().instance(1), 7);
  a.set(hits(), 3);
  StatValues v = r.read(a);
  EXPECT_EQ(v[h], 3);
  EXPECT_EQ(v[inst], 7);
  EXPECT_EQ(v[none], 0);

  // another layout, and values edited in place (positions by id rebuilt): still by handle
  stats::Snapshot b;
  b.set(hits(), 11);
  for (auto &[name, value] : b.values())
    value *= 2;
  StatValues w = r.read(b);
  EXPECT_EQ(w[h], 22);
  EXPECT_EQ(w[inst], 0); // no value in this snapshot: 0, as Snapshot::get
}

} // namespace
} // namespace ptxsim::power

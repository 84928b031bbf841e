// The SPU machine driven directly: CB visibility across time steps, block synchronization with
// units that leave early, and VIU spill/restore between passes.

#include "isa_ext/spu/Machine.h"

#include <cstring>
#include <gtest/gtest.h>

namespace ptxsim::spu {
namespace {

uint32_t readU32(Machine &m, int32_t cb, uint32_t off) {
  const uint8_t *p = m.cbRead(cb, off, 4);
  EXPECT_NE(p, nullptr);
  uint32_t v = 0;
  if (p)
    std::memcpy(&v, p, 4);
  return v;
}
void writeU32(Machine &m, int32_t cb, uint32_t off, uint32_t v) {
  uint8_t *p = m.cbWrite(cb, off, 4);
  ASSERT_NE(p, nullptr);
  std::memcpy(p, &v, 4);
}

/// Every non-VIU unit of the pass arrives once: one block synchronization.
void syncAll(Machine &m) {
  const Pass &p = m.pass();
  bool released = false;
  for (uint32_t u = 0; u < p.units.size(); ++u)
    if (p.units[u].role != Role::Viu)
      released = m.arrive(u);
  EXPECT_TRUE(released);
}
void exitAll(Machine &m) {
  const Pass &p = m.pass();
  for (uint32_t u = 0; u < p.units.size(); ++u)
    if (p.units[u].role != Role::Viu)
      m.exited(u);
  EXPECT_TRUE(m.passDone());
  m.endPass();
}

TEST(SpuMachine, WrittenAtStepTIsReadAtTPlusOneNeverEarlier) {
  Options o;
  o.shape = {2, 2};
  o.cbBytes = 64;
  Machine m(o, 2, 2);
  m.beginPass(0);
  const Pass &p = m.pass();
  const Unit &nw = p.units[0], &ne = p.units[1];
  writeU32(m, nw.cbEast, 8, 7);
  EXPECT_EQ(readU32(m, ne.cbWest, 8), 0u); // same step: the other half
  syncAll(m);
  EXPECT_EQ(m.step(), 1u);
  EXPECT_EQ(readU32(m, ne.cbWest, 8), 7u);
  writeU32(m, nw.cbEast, 8, 9); // the writer now fills the other half
  EXPECT_EQ(readU32(m, ne.cbWest, 8), 7u);
  syncAll(m);
  EXPECT_EQ(readU32(m, ne.cbWest, 8), 9u);
  EXPECT_EQ(m.cbRead(ne.cbWest, 61, 4), nullptr); // past the CB
  EXPECT_EQ(m.cbWrite(ne.cbNorth, 0, 4) != nullptr, true);
}

TEST(SpuMachine, SyncWaitsForLiveUnitsOnly) {
  Options o;
  o.shape = {1, 2};
  Machine m(o, 2, 1);
  m.beginPass(0);
  const Pass &p = m.pass();
  ASSERT_EQ(p.units.size(), 2u + 6u);
  for (uint32_t u = 1; u < p.units.size(); ++u)
    EXPECT_FALSE(m.arrive(u));
  EXPECT_EQ(m.step(), 0u);
  EXPECT_TRUE(m.exited(0)); // the last one leaves instead of arriving: the others go on
  EXPECT_EQ(m.step(), 1u);
  EXPECT_FALSE(m.last()); // the other SM is still running
}

/// A column of blocks, one SM: each pass's block writes (pass, step) tokens south for `steps`
/// steps and checks the tokens it receives from the block above, which ran in the pass before.
void runColumn(bool regstart, uint32_t steps, uint32_t silentSteps) {
  Options o;
  o.shape = {1, 1};
  o.cbBytes = 16;
  o.regstart = regstart;
  const uint32_t passes = 3;
  Machine m(o, 1, passes);
  ASSERT_EQ(m.passes().size(), passes);
  for (uint32_t k = 0; k < passes; ++k) {
    m.beginPass(k);
    const Unit &sm = m.pass().units[0];
    EXPECT_EQ(sm.blockY, k);
    for (uint32_t s = 0; s < steps; ++s) {
      if (k > 0 && s > silentSteps) {
        uint32_t expect = (k - 1) * 1000 + (s - 1);
        EXPECT_EQ(readU32(m, sm.cbNorth, 4), expect) << "pass " << k << " step " << s;
        EXPECT_EQ(readU32(m, sm.cbNorth, 12), ~expect);
      }
      if (s >= silentSteps) {
        writeU32(m, sm.cbSouth, 4, k * 1000 + s);
        writeU32(m, sm.cbSouth, 12, ~(k * 1000 + s));
      }
      syncAll(m);
    }
    exitAll(m);
  }
  PassStats t = m.totals();
  if (regstart) {
    // nothing written in the silent steps: no spill or restore for them
    EXPECT_GT(t.skippedSpills, 0u);
    EXPECT_EQ(t.spills, (uint64_t)(passes - 1) * (steps - silentSteps));
  } else {
    EXPECT_EQ(t.skippedSpills, 0u);
    EXPECT_EQ(t.spills, (uint64_t)(passes - 1) * (steps + 1));
  }
  EXPECT_EQ(t.spillBytes, t.spills * 16);
  // the slots hold exactly what the producer wrote
  SpillKey k{true, 1, 0};
  const auto *slots = m.spillSlots(k);
  ASSERT_NE(slots, nullptr);
  for (uint32_t s = silentSteps; s < steps; ++s) {
    ASSERT_EQ((*slots)[s].size(), 16u);
    uint32_t v;
    std::memcpy(&v, (*slots)[s].data() + 4, 4);
    EXPECT_EQ(v, s);
  }
}

TEST(SpuMachine, SpillRestoreRoundTripsWithRegstart) { runColumn(true, 6, 2); }
TEST(SpuMachine, SpillRestoreRoundTripsWithoutRegstart) { runColumn(false, 6, 2); }
TEST(SpuMachine, SpillRestoreRoundTripsNoSilence) { runColumn(true, 5, 0); }

TEST(SpuMachine, RegstartFlagRisesAfterFirstData) {
  Options o;
  o.shape = {1, 1};
  Machine m(o, 1, 1);
  m.beginPass(0);
  syncAll(m);
  EXPECT_FALSE(m.regstartFlag());
  EXPECT_TRUE(m.lastTransitionDummy());
  writeU32(m, m.pass().units[0].cbSouth, 0, 1);
  EXPECT_FALSE(m.regstartFlag()); // changes only at a synchronization
  syncAll(m);
  EXPECT_TRUE(m.regstartFlag());
  EXPECT_FALSE(m.lastTransitionDummy());
}

} // namespace
} // namespace ptxsim::spu

// Warp-scheduler policies (timing/sm/scheduler): each policy's picks on hand-made ready sets
// over several cycles, CCWS's victim tag arrays and lost-locality scores with the expected
// numbers worked out by hand in the comments, and the registry.

#include "timing/sm/scheduler/CcwsScheduler.h"
#include "timing/sm/scheduler/IWarpScheduler.h"

#include <gtest/gtest.h>

namespace ptxsim::timing {
namespace {

using Slots = std::vector<uint32_t>;

SchedulerParams params(uint32_t activeWarps = 8, uint32_t base = 100, uint32_t k = 8,
                       uint32_t vta = 16) {
  return SchedulerParams{activeWarps, base, k, vta};
}

std::unique_ptr<IWarpScheduler> make(const std::string &name, const SchedulerParams &p) {
  auto s = builtinSchedulers().create(name, p);
  EXPECT_TRUE(s != nullptr) << name;
  return s;
}

/// One cycle as the SM drives it: tick, pick, and report the issue (short latency).
int cycle(IWarpScheduler &s, const Slots &ready, Cycle now, bool longLatency = false) {
  s.tick(now);
  int w = s.pick(ready, now);
  if (w >= 0)
    s.issued(uint32_t(w), longLatency, now);
  return w;
}

uint64_t stat(const IWarpScheduler &s, const std::string &name) {
  std::vector<std::pair<std::string, uint64_t>> out;
  s.stats(out);
  for (auto &[n, v] : out)
    if (n == name)
      return v;
  ADD_FAILURE() << "no stat " << name;
  return 0;
}

// ---------------------------------------------------------------------------------------------
TEST(WarpSchedulerRegistry, BuiltinsInOrder) {
  // a fresh registry holds exactly the built-ins (the process-wide one may also hold policies
  // that tests or extensions added after them)
  SchedulerRegistry fresh;
  registerBuiltinWarpSchedulers(fresh);
  EXPECT_EQ(fresh.names(), (std::vector<std::string>{"lrr", "gto", "two_level", "ccws"}));
  std::vector<std::string> global = builtinSchedulers().names();
  ASSERT_GE(global.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(global.begin(), global.begin() + 4), fresh.names());
  for (const std::string &n : fresh.names()) {
    auto s = make(n, params());
    ASSERT_TRUE(s != nullptr);
    EXPECT_EQ(std::string(s->name()), n);
  }
}

TEST(WarpSchedulerRegistry, UnknownNameIsNull) {
  EXPECT_FALSE(builtinSchedulers().create("fifo", params()));
  EXPECT_FALSE(builtinSchedulers().create("", params()));
  EXPECT_FALSE(builtinSchedulers().create("GTO", params()));
}

TEST(WarpSchedulerRegistry, AddAndReplace) {
  SchedulerRegistry r;
  EXPECT_TRUE(r.names().empty());
  EXPECT_FALSE(r.create("lrr", params()));
  r.add("mine", createLrrScheduler);
  r.add("other", createCcwsScheduler);
  r.add("mine", createGtoScheduler); // the later registration wins, order kept
  EXPECT_EQ(r.names(), (std::vector<std::string>{"mine", "other"}));
  EXPECT_STREQ(r.create("mine", params())->name(), "gto");
  EXPECT_STREQ(r.create("other", params())->name(), "ccws");
}

// ---------------------------------------------------------------------------------------------
TEST(WarpSchedulerLrr, RotatesInSlotOrder) {
  auto s = make("lrr", params());
  for (uint32_t w = 0; w < 4; ++w)
    s->addWarp(w, w);
  Slots all{0, 1, 2, 3};
  EXPECT_EQ(cycle(*s, all, 0), 0);
  EXPECT_EQ(cycle(*s, all, 1), 1);
  EXPECT_EQ(cycle(*s, all, 2), 2);
  EXPECT_EQ(cycle(*s, all, 3), 3);
  EXPECT_EQ(cycle(*s, all, 4), 0); // wraps
}

TEST(WarpSchedulerLrr, SkipsUnreadyAndWraps) {
  auto s = make("lrr", params());
  for (uint32_t w = 0; w < 6; ++w)
    s->addWarp(w, w);
  EXPECT_EQ(cycle(*s, {2, 4}, 0), 2);
  EXPECT_EQ(cycle(*s, {1, 2, 5}, 1), 5); // first ready after 2
  EXPECT_EQ(cycle(*s, {1, 2, 5}, 2), 1); // nothing after 5: wrap to the first
  EXPECT_EQ(cycle(*s, {}, 3), -1);       // nothing ready: position kept
  EXPECT_EQ(cycle(*s, {0, 1, 3}, 4), 3);
  s->removeWarp(3);
  EXPECT_EQ(cycle(*s, {0, 4}, 5), 4); // rotation goes on past a finished warp
  EXPECT_EQ(cycle(*s, {0, 4}, 6), 0);
}

// ---------------------------------------------------------------------------------------------
TEST(WarpSchedulerGto, GreedyThenOldest) {
  auto s = make("gto", params());
  s->addWarp(0, 5);
  s->addWarp(1, 2);
  s->addWarp(2, 9);
  s->addWarp(3, 2); // same age as warp 1: the lower slot counts as older
  Slots all{0, 1, 2, 3};
  EXPECT_EQ(cycle(*s, all, 0), 1); // oldest
  EXPECT_EQ(cycle(*s, all, 1), 1); // greedy
  EXPECT_EQ(cycle(*s, all, 2), 1);
  EXPECT_EQ(cycle(*s, {0, 2, 3}, 3), 3); // warp 1 stalls: oldest ready is 3 (age 2)
  EXPECT_EQ(cycle(*s, all, 4), 3);       // greedy on 3 even though 1 is ready again
  EXPECT_EQ(cycle(*s, {0, 2}, 5), 0);    // age 5 < 9
  EXPECT_EQ(cycle(*s, {}, 6), -1);
  EXPECT_EQ(cycle(*s, {0, 2}, 7), 0); // still greedy after an empty cycle
  s->removeWarp(0);
  EXPECT_EQ(cycle(*s, {1, 2}, 8), 1);
  EXPECT_EQ(cycle(*s, {2}, 9), 2);
  EXPECT_EQ(cycle(*s, {1, 2}, 10), 2);
}

TEST(WarpSchedulerGto, AgeNotSlotDecides) {
  auto s = make("gto", params());
  s->addWarp(7, 100);
  s->addWarp(2, 300);
  s->addWarp(5, 200);
  EXPECT_EQ(cycle(*s, {2, 5, 7}, 0), 7);
  EXPECT_EQ(cycle(*s, {2, 5}, 1), 5);
  EXPECT_EQ(cycle(*s, {2}, 2), 2);
  EXPECT_EQ(cycle(*s, {2, 5, 7}, 3), 2);
}

// ---------------------------------------------------------------------------------------------
TEST(WarpSchedulerTwoLevel, DemotionAndRefill) {
  auto s = make("two_level", params(/*activeWarps=*/2));
  for (uint32_t w = 0; w < 5; ++w)
    s->addWarp(w, w); // active {0,1}, pending [2,3,4]
  Slots all{0, 1, 2, 3, 4};
  EXPECT_EQ(cycle(*s, all, 0), 0);
  EXPECT_EQ(cycle(*s, all, 1), 1);
  EXPECT_EQ(cycle(*s, {2, 3, 4}, 2), -1); // pending warps cannot issue
  EXPECT_EQ(cycle(*s, all, 3), 0);
  s->issued(0, /*longLatency=*/true, 3); // 0 out, oldest pending (2) in: active {1,2},
                                         // pending [0,3,4]
  EXPECT_EQ(cycle(*s, all, 4), 1);
  EXPECT_EQ(cycle(*s, all, 5), 2);
  s->issued(2, true, 5);           // 2 out, 0 (oldest pending) back: active {0,1}, pending [2,3,4]
  EXPECT_EQ(cycle(*s, all, 6), 0); // nothing active after 2: wrap
  EXPECT_EQ(cycle(*s, {1, 3}, 7, /*longLatency=*/true), 1); // active {0,2}, pending [1,3,4]
  EXPECT_EQ(cycle(*s, all, 8), 2);
  EXPECT_EQ(cycle(*s, all, 9), 0);
  EXPECT_EQ(stat(*s, "demotions"), 3u);
  s->removeWarp(0); // refill: active {1,2}, pending [3,4]
  EXPECT_EQ(cycle(*s, all, 10), 1);
  EXPECT_EQ(cycle(*s, all, 11), 2);
  s->removeWarp(1); // active {2,3}, pending [4]
  s->removeWarp(2); // active {3,4}
  EXPECT_EQ(cycle(*s, all, 12), 3);
  EXPECT_EQ(cycle(*s, all, 13), 4);
}

// An active set whose warps cannot issue (say, at a barrier waiting for pending warps) gives way
// after 32 cycles: the oldest ready pending warp takes a stalled warp's place.
TEST(WarpSchedulerTwoLevel, StalledActiveSetGivesWayToReadyWarps) {
  auto s = make("two_level", params(/*activeWarps=*/2));
  for (uint32_t w = 0; w < 4; ++w)
    s->addWarp(w, w); // active {0,1}, pending [2,3]
  for (int c = 0; c < 32; ++c)
    ASSERT_EQ(s->pick({2, 3}, c), -1) << c;
  EXPECT_EQ(s->pick({2, 3}, 32), 2); // 0 out, 2 in: active {1,2}, pending [0,3]
  EXPECT_EQ(s->pick({2, 3}, 33), 2);
  EXPECT_EQ(s->pick({0, 1, 3}, 34), 1);
  EXPECT_EQ(stat(*s, "stall_swaps"), 1u);
}

TEST(WarpSchedulerTwoLevel, RefillFollowsAgeNotSlot) {
  auto s = make("two_level", params(/*activeWarps=*/1));
  s->addWarp(0, 30);
  s->addWarp(1, 10);
  s->addWarp(2, 20);
  // Warp 0 arrived first and took the empty active set; the rest wait oldest first: [1,2].
  Slots all{0, 1, 2};
  EXPECT_EQ(cycle(*s, all, 0, true), 0); // active {1}, pending [2,0]
  EXPECT_EQ(cycle(*s, all, 1, true), 1); // active {2}, pending [1,0]
  EXPECT_EQ(cycle(*s, all, 2, true), 2); // active {1}, pending [2,0]
  EXPECT_EQ(cycle(*s, all, 3), 1);
}

TEST(WarpSchedulerTwoLevel, FewWarpsIsRoundRobin) {
  auto s = make("two_level", params(/*activeWarps=*/4));
  s->addWarp(0, 0);
  s->addWarp(1, 1);
  Slots all{0, 1};
  // A demoted warp comes straight back when no other warp waits.
  EXPECT_EQ(cycle(*s, all, 0, true), 0);
  EXPECT_EQ(cycle(*s, all, 1, true), 1);
  EXPECT_EQ(cycle(*s, all, 2, true), 0);
  EXPECT_EQ(cycle(*s, {1}, 3), 1);
  EXPECT_EQ(stat(*s, "demotions"), 3u);
}

// ---------------------------------------------------------------------------------------------
// CCWS with Base_Locality_Score 100 and K_Throttle 8 unless a test says otherwise.

std::unique_ptr<CcwsScheduler> makeCcws(uint32_t warps, uint32_t vtaEntries = 16,
                                        uint32_t base = 100, uint32_t k = 8) {
  auto s = std::make_unique<CcwsScheduler>(params(8, base, k, vtaEntries));
  for (uint32_t w = 0; w < warps; ++w)
    s->addWarp(w, w);
  return s;
}

void issueN(IWarpScheduler &s, uint32_t slot, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    s.issued(slot, false, 0);
}

TEST(WarpSchedulerCcws, VtaInsertOnEvictHitOnMiss) {
  auto s = makeCcws(2);
  s->l1Evict(0, 0x1000, 0);
  EXPECT_TRUE(s->vtaContains(0, 0x1000));
  EXPECT_FALSE(s->vtaContains(1, 0x1000)); // the owner's VTA only
  s->l1Miss(1, 0x1000, 1);                 // another warp's miss on that line: no hit
  EXPECT_EQ(stat(*s, "vta_hits"), 0u);
  s->l1Miss(0, 0x2000, 1); // not in the VTA
  EXPECT_EQ(stat(*s, "vta_hits"), 0u);
  s->l1Miss(0, 0x1000, 2);
  EXPECT_EQ(stat(*s, "vta_hits"), 1u);
  EXPECT_TRUE(s->vtaContains(0, 0x1000)); // a hit keeps the tag
  EXPECT_EQ(stat(*s, "vta_inserts"), 1u);
  EXPECT_EQ(stat(*s, "l1_misses"), 3u);
  s->l1Evict(7, 0x3000, 3); // owner not on this scheduler (finished): ignored
  EXPECT_EQ(stat(*s, "vta_inserts"), 1u);
}

TEST(WarpSchedulerCcws, VtaIsLru) {
  auto s = makeCcws(1, /*vtaEntries=*/2);
  s->l1Evict(0, 0xA, 0);
  s->l1Evict(0, 0xB, 0);
  s->l1Evict(0, 0xC, 0); // full: A (least recently used) goes
  EXPECT_FALSE(s->vtaContains(0, 0xA));
  EXPECT_TRUE(s->vtaContains(0, 0xB));
  EXPECT_TRUE(s->vtaContains(0, 0xC));
  s->l1Miss(0, 0xB, 1);  // hit makes B most recently used
  s->l1Evict(0, 0xD, 2); // so C goes
  EXPECT_TRUE(s->vtaContains(0, 0xB));
  EXPECT_FALSE(s->vtaContains(0, 0xC));
  EXPECT_TRUE(s->vtaContains(0, 0xD));
  s->l1Evict(0, 0xB, 3); // re-inserting a present tag refreshes it, no duplicate
  s->l1Evict(0, 0xE, 3); // D goes
  EXPECT_TRUE(s->vtaContains(0, 0xB));
  EXPECT_FALSE(s->vtaContains(0, 0xD));
  s->removeWarp(0);
  s->addWarp(0, 9); // a new warp in the slot starts with an empty VTA
  EXPECT_FALSE(s->vtaContains(0, 0xB));
}

TEST(WarpSchedulerCcws, LostLocalityScoreFormula) {
  auto s = makeCcws(4); // Cum_LLS_Cutoff = 4 * 100 = 400
  EXPECT_EQ(s->cumulativeCutoff(), 400u);
  for (uint32_t w = 0; w < 4; ++w)
    EXPECT_EQ(s->lostLocalityScore(w), 100u); // base at dispatch
  issueN(*s, 0, 10);
  s->l1Evict(1, 0x80, 0);
  s->l1Miss(1, 0x80, 0);
  EXPECT_EQ(s->lostLocalityScore(1), 320u); // 1 hit * 8 * 400 / 10 instructions
  EXPECT_EQ(s->lostLocalityScore(0), 100u);
  issueN(*s, 2, 6);
  s->l1Evict(2, 0x100, 0);
  s->l1Miss(2, 0x100, 0);
  EXPECT_EQ(s->lostLocalityScore(2), 400u); // VTA_Hits_Total 2 * 8 * 400 / 16
  EXPECT_EQ(s->lostLocalityScore(1), 320u); // other warps keep theirs
  issueN(*s, 0, 5);
  s->l1Miss(2, 0x100, 0);
  EXPECT_EQ(s->lostLocalityScore(2), 457u); // 3 * 8 * 400 / 21 = 9600 / 21 = 457.1
  EXPECT_EQ(stat(*s, "instructions"), 21u);
}

TEST(WarpSchedulerCcws, ScoreNeverBelowBase) {
  auto s = makeCcws(4);
  issueN(*s, 0, 1000);
  s->l1Evict(3, 0x80, 0);
  s->l1Miss(3, 0x80, 0);
  EXPECT_EQ(s->lostLocalityScore(3), 100u); // 1 * 8 * 400 / 1000 = 3, raised to the base
}

TEST(WarpSchedulerCcws, NoInstructionsYetCountsAsOne) {
  auto s = makeCcws(2); // cutoff 200
  s->l1Evict(0, 0x80, 0);
  s->l1Miss(0, 0x80, 0);
  EXPECT_EQ(s->lostLocalityScore(0), 1600u); // 1 * 8 * 200 / max(0, 1)
}

TEST(WarpSchedulerCcws, ScoresDecayToBase) {
  auto s = makeCcws(4);
  issueN(*s, 0, 10);
  s->l1Evict(1, 0x80, 0);
  s->l1Miss(1, 0x80, 0); // 320
  s->tick(1);
  EXPECT_EQ(s->lostLocalityScore(1), 319u);
  for (Cycle c = 2; c <= 219; ++c)
    s->tick(c);
  EXPECT_EQ(s->lostLocalityScore(1), 101u); // 320 - 219
  s->tick(220);
  EXPECT_EQ(s->lostLocalityScore(1), 100u);
  s->tick(221);
  EXPECT_EQ(s->lostLocalityScore(1), 100u); // stays at the base
  EXPECT_EQ(s->lostLocalityScore(0), 100u);
}

TEST(WarpSchedulerCcws, CutoffThrottlesThenReleases) {
  auto s = makeCcws(4); // cutoff 400
  Slots all{0, 1, 2, 3};
  EXPECT_EQ(s->schedulableWarps(), all); // 4 * 100 = 400 fits exactly
  issueN(*s, 0, 10);
  s->l1Evict(1, 0x80, 0);
  s->l1Miss(1, 0x80, 0); // warp 1: 320; 320 + 100 > 400, so warp 1 alone
  EXPECT_EQ(s->schedulableWarps(), Slots{1});
  EXPECT_EQ(s->pick(all, 0), 1);
  EXPECT_EQ(s->pick({0, 2, 3}, 0), -1); // ready but throttled
  EXPECT_EQ(stat(*s, "throttled_cycles"), 1u);

  // Warp 1 fits with one more warp once 1's score is <= 300 (20 ticks), with two at <= 200
  // (120 ticks), with all three at 100 (220 ticks). Ties go to the lower slot.
  Cycle now = 0;
  auto tickTo = [&](Cycle until) {
    while (now < until)
      s->tick(++now);
  };
  tickTo(19); // 301
  EXPECT_EQ(s->schedulableWarps(), Slots{1});
  tickTo(20); // 300
  EXPECT_EQ(s->schedulableWarps(), (Slots{0, 1}));
  EXPECT_EQ(s->pick({2, 3}, now), -1);
  EXPECT_EQ(s->pick({0, 2, 3}, now), 0);
  tickTo(119); // 201
  EXPECT_EQ(s->schedulableWarps(), (Slots{0, 1}));
  tickTo(120); // 200
  EXPECT_EQ(s->schedulableWarps(), (Slots{0, 1, 2}));
  tickTo(219); // 101
  EXPECT_EQ(s->schedulableWarps(), (Slots{0, 1, 2}));
  tickTo(220); // 100
  EXPECT_EQ(s->schedulableWarps(), all);
  EXPECT_EQ(s->pick({3}, now), 3);
}

TEST(WarpSchedulerCcws, HighestScoresFirstAndAtLeastOne) {
  auto s = makeCcws(3); // cutoff 300
  issueN(*s, 0, 4);
  s->l1Evict(2, 0x80, 0);
  s->l1Miss(2, 0x80, 0); // warp 2: 1 * 8 * 300 / 4 = 600, over the cutoff on its own
  EXPECT_EQ(s->lostLocalityScore(2), 600u);
  EXPECT_EQ(s->schedulableWarps(), Slots{2}); // still one warp may issue
  // 400 more instructions: the next hit gives 2 * 8 * 300 / 404 = 4800 / 404 = 11 -> base.
  issueN(*s, 0, 400);
  s->l1Evict(0, 0x100, 0);
  s->l1Miss(0, 0x100, 0);
  EXPECT_EQ(s->lostLocalityScore(0), 100u);
  // 150 ticks: warp 2 at 450; sorted 2 (450), 0 (100), 1 (100): 450 alone.
  for (Cycle c = 1; c <= 150; ++c)
    s->tick(c);
  EXPECT_EQ(s->schedulableWarps(), Slots{2});
  // 250 more: warp 2 at 200; 200 + 100 = 300 fits, then the cut: warp 0 (lower slot) joins.
  for (Cycle c = 151; c <= 400; ++c)
    s->tick(c);
  EXPECT_EQ(s->lostLocalityScore(2), 200u);
  EXPECT_EQ(s->schedulableWarps(), (Slots{0, 2}));
}

TEST(WarpSchedulerCcws, RoundRobinAmongSchedulable) {
  auto s = make("ccws", params());
  for (uint32_t w = 0; w < 3; ++w)
    s->addWarp(w, w);
  Slots all{0, 1, 2};
  EXPECT_EQ(cycle(*s, all, 0), 0);
  EXPECT_EQ(cycle(*s, all, 1), 1);
  EXPECT_EQ(cycle(*s, all, 2), 2);
  EXPECT_EQ(cycle(*s, {0, 2}, 3), 0);
  EXPECT_EQ(cycle(*s, {}, 4), -1);
  EXPECT_EQ(stat(*s, "throttled_cycles"), 0u); // nothing ready is not throttling
}

TEST(WarpSchedulerCcws, CutoffFollowsWarpCount) {
  auto s = makeCcws(2); // cutoff 200
  issueN(*s, 0, 8);
  s->l1Evict(0, 0x80, 0);
  s->l1Miss(0, 0x80, 0); // 1 * 8 * 200 / 8 = 200
  EXPECT_EQ(s->lostLocalityScore(0), 200u);
  EXPECT_EQ(s->schedulableWarps(), Slots{0});
  s->addWarp(2, 2); // cutoff 300: 200 + 100 fits, then 100 more does not
  EXPECT_EQ(s->cumulativeCutoff(), 300u);
  EXPECT_EQ(s->schedulableWarps(), (Slots{0, 1}));
  s->removeWarp(1); // cutoff 200: warp 0 alone again
  EXPECT_EQ(s->schedulableWarps(), Slots{0});
  EXPECT_EQ(s->lostLocalityScore(1), 0u);
}

} // namespace
} // namespace ptxsim::timing

// The set-associative cache model (timing/mem/Cache.h): exact hit/miss/MSHR-merge/reservation
// behaviour, LRU order with owner reporting, sectored misses and the write policies.

#include "timing/mem/Cache.h"

#include <gtest/gtest.h>

#include <vector>

namespace ptxsim::timing {
namespace {

CacheConfig small(uint32_t sets, uint32_t ways, uint32_t sector, uint32_t mshrs, uint32_t merge) {
  CacheConfig c;
  c.sets = sets;
  c.ways = ways;
  c.lineBytes = 128;
  c.sectorBytes = sector;
  c.mshrEntries = mshrs;
  c.mshrMaxMerge = merge;
  return c;
}

// Brings a line in with a read miss and its fill.
void bringIn(Cache &c, uint64_t addr, uint32_t owner) {
  std::vector<uint64_t> rel;
  CacheAccessResult r = c.access(addr, c.fullMask(), false, owner, 99, 0);
  ASSERT_EQ(r.outcome, CacheOutcome::Miss);
  c.fill(addr, r.fetchMask, 0, rel);
}

TEST(CacheBasic, MissMergeReservationFailAndHit) {
  Cache c(small(4, 2, 32, 2, 2), "t");
  std::vector<uint64_t> rel;
  CacheAccessResult r = c.access(0x1000, 0x1, false, 0, 1, 0);
  EXPECT_EQ(r.outcome, CacheOutcome::Miss);
  EXPECT_EQ(r.fetchMask, 0x1u);
  EXPECT_EQ(c.access(0x1004, 0x1, false, 0, 2, 1).outcome, CacheOutcome::HitPending);
  // merge limit (2 requests per MSHR) reached
  EXPECT_EQ(c.access(0x1008, 0x1, false, 0, 3, 2).outcome, CacheOutcome::ReservationFail);
  EXPECT_EQ(c.access(0x2000, 0x1, false, 0, 4, 2).outcome, CacheOutcome::Miss);
  // both MSHRs busy
  EXPECT_EQ(c.access(0x3000, 0x1, false, 0, 5, 2).outcome, CacheOutcome::ReservationFail);
  EXPECT_FALSE(c.mshrAvailable());
  CacheFillResult f = c.fill(0x1000, 0x1, 10, rel);
  EXPECT_TRUE(f.mshrFreed);
  EXPECT_EQ(rel, (std::vector<uint64_t>{1, 2}));
  EXPECT_TRUE(c.mshrAvailable());
  EXPECT_EQ(c.access(0x1010, 0x1, false, 0, 6, 11).outcome, CacheOutcome::Hit);
  // another sector of a present line: a sector miss
  r = c.access(0x1020, 0x2, false, 0, 7, 12);
  EXPECT_EQ(r.outcome, CacheOutcome::Miss);
  EXPECT_EQ(r.fetchMask, 0x2u);
  const CacheStats &s = c.stats();
  EXPECT_EQ(s.accesses, 7u);
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.hitPending, 1u);
  EXPECT_EQ(s.misses, 3u);
  EXPECT_EQ(s.sectorMisses, 1u);
  EXPECT_EQ(s.reservationFails, 2u);
}

TEST(CacheSectored, MergeRequestsOnlyNewSectorsAndReleasesInOrder) {
  Cache c(small(4, 2, 32, 4, 8), "t");
  std::vector<uint64_t> rel;
  EXPECT_EQ(c.access(0x0, 0x1, false, 0, 1, 0).fetchMask, 0x1u);
  CacheAccessResult r = c.access(0x0, 0x3, false, 0, 2, 0);
  EXPECT_EQ(r.outcome, CacheOutcome::Miss); // merged, but sector 1 must be fetched too
  EXPECT_EQ(r.fetchMask, 0x2u);
  EXPECT_EQ(c.access(0x20, 0x2, false, 0, 3, 0).outcome, CacheOutcome::HitPending);
  c.fill(0x0, 0x1, 5, rel);
  EXPECT_EQ(rel, (std::vector<uint64_t>{1}));
  rel.clear();
  CacheFillResult f = c.fill(0x0, 0x2, 6, rel);
  EXPECT_EQ(rel, (std::vector<uint64_t>{2, 3}));
  EXPECT_TRUE(f.mshrFreed);
  EXPECT_TRUE(c.probe(0x0, 0x3));
  EXPECT_FALSE(c.probe(0x0, 0x4));
  EXPECT_EQ(c.sectorsOf(0x3c, 8), 0x6u); // bytes 60..67 straddle sectors 1 and 2
}

TEST(CacheLru, EvictsLeastRecentlyUsedAndReportsOwner) {
  Cache c(small(1, 2, 128, 4, 4), "t");
  std::vector<uint64_t> rel;
  bringIn(c, 0x000, 7); // A, owner 7
  bringIn(c, 0x080, 9); // B, owner 9
  EXPECT_EQ(c.access(0x000, 1, false, 3, 0, 0).outcome, CacheOutcome::Hit); // A most recent
  CacheAccessResult r = c.access(0x100, 1, false, 4, 1, 0);                 // C
  CacheFillResult f = c.fill(0x100, r.fetchMask, 0, rel);
  ASSERT_TRUE(f.evicted.valid);
  EXPECT_EQ(f.evicted.lineAddr, 0x080u);
  EXPECT_EQ(f.evicted.owner, 9u);
  EXPECT_FALSE(f.evicted.dirty);
  r = c.access(0x180, 1, false, 5, 2, 0); // D evicts A (owner 7, not the later hitter 3)
  f = c.fill(0x180, r.fetchMask, 0, rel);
  EXPECT_EQ(f.evicted.lineAddr, 0x000u);
  EXPECT_EQ(f.evicted.owner, 7u);
  EXPECT_EQ(c.stats().evictions, 2u);
  EXPECT_TRUE(c.probe(0x100, 1));
  EXPECT_FALSE(c.probe(0x000, 1));
}

TEST(CacheWrite, WriteThroughNoAllocate) {
  CacheConfig cfg = small(4, 2, 128, 4, 4);
  cfg.writeBack = false;
  cfg.writeAllocate = false;
  Cache c(cfg, "t");
  CacheAccessResult r = c.access(0x400, 1, true, 0, 0, 0);
  EXPECT_EQ(r.outcome, CacheOutcome::Miss);
  EXPECT_TRUE(r.sendWrite);
  EXPECT_EQ(r.fetchMask, 0u);
  EXPECT_FALSE(c.probe(0x400, 1));
  bringIn(c, 0x400, 1);
  r = c.access(0x400, 1, true, 0, 0, 0);
  EXPECT_EQ(r.outcome, CacheOutcome::Hit);
  EXPECT_TRUE(r.sendWrite);
  EXPECT_EQ(c.stats().writebacks, 0u);
}

TEST(CacheWrite, WriteBackWriteAllocateValidatesSectorsAndWritesBackDirtyVictims) {
  CacheConfig cfg = small(1, 1, 32, 4, 4);
  cfg.writeBack = true;
  cfg.writeAllocate = true;
  Cache c(cfg, "t");
  std::vector<uint64_t> rel;
  CacheAccessResult r = c.access(0x40, 0x4, true, 5, 0, 0);
  EXPECT_EQ(r.outcome, CacheOutcome::Miss);
  EXPECT_FALSE(r.sendWrite);
  EXPECT_EQ(r.fetchMask, 0u); // write-validate: nothing fetched
  EXPECT_EQ(c.access(0x40, 0x4, false, 0, 1, 0).outcome, CacheOutcome::Hit);
  r = c.access(0x00, 0x1, false, 0, 2, 0);
  EXPECT_EQ(r.outcome, CacheOutcome::Miss); // other sector of the line
  EXPECT_EQ(c.stats().sectorMisses, 1u);
  c.fill(0x00, 0x1, 0, rel);
  // a write to another line in the only way evicts the dirty line
  r = c.access(0x80, 0x1, true, 6, 0, 0);
  ASSERT_TRUE(r.evicted.valid);
  EXPECT_TRUE(r.evicted.dirty);
  EXPECT_EQ(r.evicted.dirtyMask, 0x4u);
  EXPECT_EQ(r.evicted.owner, 5u);
  EXPECT_EQ(c.stats().writebacks, 1u);
}

// Set index functions: linear and XOR-folded spread a contiguous aligned region evenly, so a
// region of the cache's size fits exactly; the mixed hash (M) spreads it unevenly, so some sets
// overflow at that size and some stay within their ways just above it.
TEST(CacheSetIndex, LinearAndXorSpreadEvenlyMixedUnevenly) {
  const uint32_t sets = 16, ways = 16, lines = sets * ways;
  for (char fn : {'L', 'X', 'M'}) {
    CacheConfig cfg = small(sets, ways, 128, 4, 4);
    cfg.setIndex = fn;
    Cache c(cfg, "t");
    for (uint32_t i = 0; i < lines; ++i)
      bringIn(c, 0x400000 + uint64_t(i) * 128, 0);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < lines; ++i)
      kept += c.probe(0x400000 + uint64_t(i) * 128, c.fullMask());
    if (fn == 'M') {
      EXPECT_LT(kept, lines) << "the mixed hash leaves no set over its ways";
      EXPECT_GT(kept, lines * 3 / 4);
    } else {
      EXPECT_EQ(kept, lines) << fn;
    }
    EXPECT_EQ(c.stats().evictions, lines - kept) << fn;
  }
  // XOR folding moves lines of the same linear set apart: a stride of sets x 128 bytes
  CacheConfig cfg = small(sets, 2, 128, 4, 4);
  cfg.setIndex = 'X';
  Cache x(cfg, "t");
  for (uint32_t i = 0; i < sets; ++i)
    bringIn(x, uint64_t(i) * sets * 128, 0);
  EXPECT_EQ(x.stats().evictions, 0u);
  cfg.setIndex = 'L';
  Cache l(cfg, "t");
  for (uint32_t i = 0; i < sets; ++i)
    bringIn(l, uint64_t(i) * sets * 128, 0);
  EXPECT_EQ(l.stats().evictions, sets - 2);
}

// setWays (the adaptive carve-out): the cache grows to its built maximum, keeps its size when
// asked for the same, and drops its lines when resized.
TEST(CacheResize, SetWaysGrowsToTheBuiltMaximumAndDropsLines) {
  CacheConfig cfg = small(2, 2, 128, 4, 4);
  cfg.maxWays = 8;
  Cache c(cfg, "t");
  EXPECT_EQ(c.maxWays(), 8u);
  for (uint32_t i = 0; i < 8; ++i) // 4 lines per set in 2 ways
    bringIn(c, uint64_t(i) * 128, 0);
  EXPECT_EQ(c.stats().evictions, 4u);
  c.setWays(2); // unchanged: lines stay
  EXPECT_TRUE(c.probe(7 * 128, c.fullMask()));
  c.setWays(8);
  EXPECT_EQ(c.config().ways, 8u);
  EXPECT_FALSE(c.probe(7 * 128, c.fullMask()));
  for (uint32_t i = 0; i < 16; ++i)
    bringIn(c, uint64_t(i) * 128, 0);
  EXPECT_EQ(c.stats().evictions, 4u); // 16 lines in 2 x 8 ways: none replaced
  c.setWays(9); // beyond what it was built with: ignored
  EXPECT_EQ(c.config().ways, 8u);
  c.setWays(1);
  bringIn(c, 0, 0);
  bringIn(c, 256, 0);
  EXPECT_EQ(c.stats().evictions, 5u);
}

// findLine's per-way fingerprints (a byte each, 16 compared at a time) only filter: in sets of
// 64, 40 and 20 ways of a cache built for 64 (ways beyond the set's count hold stale lines),
// every resident line is found and no other line is, among thousands whose fingerprints
// collide with a resident one's by chance (1 in 256 per way).
TEST(CacheLookup, WideSetsFindExactlyTheirLinesThroughFingerprints) {
  for (uint32_t ways : {64u, 40u, 20u}) {
    CacheConfig cfg = small(2, 64, 128, 4, 4);
    Cache c(cfg, "t");
    for (uint32_t i = 0; i < 64; ++i) // set 0 full of lines 0, 2, 4, ... (x 128 bytes)
      bringIn(c, uint64_t(2 * i) * 128, 0);
    c.setWays(ways); // (drops them; 64 -> 64 keeps them)
    for (uint32_t i = 0; i < ways; ++i)
      if (!c.probe(uint64_t(2 * i) * 128, c.fullMask()))
        bringIn(c, uint64_t(2 * i) * 128, 0);
    EXPECT_EQ(c.stats().evictions, 0u) << ways;
    for (uint32_t i = 0; i < ways; ++i)
      EXPECT_TRUE(c.probe(uint64_t(2 * i) * 128, c.fullMask())) << ways << " ways, line " << i;
    uint32_t found = 0;
    for (uint64_t i = ways; i < 20000; ++i)
      found += c.probe(i * 2 * 128, c.fullMask()) || c.probe((i * 2 + 1) * 128, c.fullMask());
    EXPECT_EQ(found, 0u) << ways;
  }
}

// findLine looks only at the ways a set has allocated since the last flush (every other way
// is invalid): a 64-way set filled to 1, 15, 16, 17, 33 and 64 lines, with flushes between,
// finds each of its lines (the highest way's too) and no line of an earlier round.
TEST(CacheLookup, FindsEveryLineOfTheWaysUsedSinceTheFlush) {
  CacheConfig cfg = small(2, 64, 128, 4, 4);
  Cache c(cfg, "t");
  uint64_t next = 0;
  std::vector<uint64_t> earlier;
  for (uint32_t n : {1u, 15u, 16u, 17u, 33u, 64u, 3u}) {
    c.invalidateAll();
    std::vector<uint64_t> lines;
    for (uint32_t i = 0; i < n; ++i, ++next) { // set 0: even lines (x 128 bytes)
      lines.push_back(next * 2 * 128);
      bringIn(c, lines.back(), 0);
    }
    for (uint64_t a : lines)
      EXPECT_TRUE(c.probe(a, c.fullMask())) << n << " lines, line " << a;
    for (uint64_t a : earlier)
      EXPECT_FALSE(c.probe(a, c.fullMask())) << n << " lines, earlier line " << a;
    earlier.insert(earlier.end(), lines.begin(), lines.end());
  }
  EXPECT_EQ(c.stats().evictions, 0u);
}

// invalidateAll() clears only the ways each set allocated since the last one: after rounds of
// lines brought in and written (sets filled to different depths, some past their ways), no line
// is left, and refilling a set up to its ways evicts nothing (no stale line hides in a way).
TEST(CacheFarCopy, FlagBelongsToTheLineThatHoldsItWhateverWasLastTouched) {
  // The far-copy flag lives with a present line: set on one line, it is not seen on another
  // (even the one that replaced it in the same way, or the one last accessed), a line brought
  // back after an eviction starts without it, and a flush drops it with the lines.
  Cache c(small(1, 2, 32, 4, 4), "t"); // one set of two ways
  bringIn(c, 0x0000, 0);
  bringIn(c, 0x1000, 0);
  EXPECT_TRUE(c.farCopy(0x1000));  // set now (it was clear)
  EXPECT_FALSE(c.farCopy(0x1000)); // already set
  EXPECT_TRUE(c.farCopy(0x0000));  // its own flag, clear until now
  EXPECT_EQ(c.access(0x1000, 0x1, false, 0, 1, 1).outcome, CacheOutcome::Hit);
  c.setFarCopy(0x1000, false);
  EXPECT_FALSE(c.farCopy(0x0000)); // (still set: the access and the clear were on 0x1000)
  EXPECT_TRUE(c.farCopy(0x1000));
  // 0x2000 replaces the LRU line, 0x0000 (0x1000 was used last), in its way
  bringIn(c, 0x2000, 0);
  EXPECT_FALSE(c.farCopy(0x0000)); // absent
  EXPECT_TRUE(c.farCopy(0x2000));  // the way's new line starts clear
  EXPECT_FALSE(c.farCopy(0x1000)); // kept its flag
  bringIn(c, 0x0000, 0);           // back in, replacing 0x1000
  c.setFarCopy(0x1000, true);      // absent: changes nothing
  EXPECT_TRUE(c.farCopy(0x0000));
  EXPECT_FALSE(c.farCopy(0x1000));
  c.invalidateAll();
  EXPECT_FALSE(c.farCopy(0x0000));
  EXPECT_FALSE(c.farCopy(0x2000));
  bringIn(c, 0x2000, 0);
  EXPECT_TRUE(c.farCopy(0x2000)); // a new line after the flush
}

TEST(CacheFlush, InvalidateAllLeavesNoLineInAnyWay) {
  CacheConfig cfg = small(8, 16, 32, 64, 4);
  cfg.writeBack = true;
  cfg.writeAllocate = true;
  Cache c(cfg, "t");
  uint64_t x = 88172645463325252ull;
  auto rnd = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  for (int round = 0; round < 50; ++round) {
    std::vector<uint64_t> used;
    for (uint32_t set = 0; set < 8; ++set) {
      const uint32_t n = uint32_t(rnd() % 24); // (past 16: evictions within the round)
      for (uint32_t k = 0; k < n; ++k) {
        const uint64_t addr = (uint64_t(round) * 1000 + k) * 8 * 128 + set * 128;
        if (rnd() % 3)
          bringIn(c, addr, k);
        else
          c.access(addr, 1u << (rnd() % 4), true, k, 0, 0); // a write allocates dirty sectors
        used.push_back(addr);
      }
    }
    c.invalidateAll();
    for (uint64_t addr : used)
      ASSERT_FALSE(c.probe(addr, 1)) << "round " << round << ", line " << addr;
    const uint64_t evictions = c.stats().evictions;
    for (uint32_t set = 0; set < 8; ++set)
      for (uint32_t k = 0; k < 16; ++k)
        bringIn(c, (uint64_t(round) * 1000 + 500 + k) * 8 * 128 + set * 128, 0);
    ASSERT_EQ(c.stats().evictions, evictions) << "round " << round;
    c.invalidateAll();
  }
}

} // namespace
} // namespace ptxsim::timing

// The LDST unit and the memory system below it (timing/mem/LdstUnit.h, MemorySystem.h,
// timing/icnt/Interconnect.h): coalescing, shared-memory bank conflicts, unloaded latencies of
// an L1 hit, an L2 hit and a DRAM access, streaming bandwidth against the DRAM peak, idle
// skipping and determinism.

#include "timing/mem/LdstUnit.h"
#include "timing/mem/MemorySystem.h"
#include "timing/mem/Ring.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <queue>
#include <set>
#include <vector>

namespace ptxsim::timing {
namespace {

// SMs' LDST units over one memory system, ticked like the GPU top level: every LDST unit, then
// the memory system, once per core cycle.
struct Rig {
  explicit Rig(const TimingConfig &c) : cfg(c), mem(c) {
    for (uint32_t s = 0; s < c.numSms(); ++s)
      ldst.push_back(std::make_unique<LdstUnit>(c, s));
  }
  void step() {
    for (auto &u : ldst) {
      u->tick(now, mem);
      while (u->hasCompletion())
        done.push_back({u->popCompletion().second, now});
    }
    mem.tick(now);
    ++now;
  }
  // Issues `a` on SM `sm` (waiting for the unit to accept) and runs until it completes;
  // returns its latency in cycles.
  Cycle run(uint32_t sm, const WarpMemAccess &a, uint64_t tag = 1) {
    while (!ldst[sm]->canIssue(now))
      step();
    Cycle t0 = now;
    ldst[sm]->issue(a, 0, tag, now);
    size_t before = done.size();
    for (int i = 0; i < 100000 && done.size() == before; ++i)
      step();
    EXPECT_EQ(done.size(), before + 1);
    return done.back().second - t0;
  }
  bool idle() const {
    for (auto &u : ldst)
      if (!u->idle())
        return false;
    return mem.idle();
  }
  TimingConfig cfg;
  MemorySystem mem;
  std::vector<std::unique_ptr<LdstUnit>> ldst;
  std::vector<std::pair<uint64_t, Cycle>> done; ///< (tag, completion cycle)
  Cycle now = 0;
};

TimingConfig smallGpu() {
  TimingConfig c;
  c.core.numClusters = 4;
  return c;
}

WarpMemAccess strided(MemSpaceKind space, uint64_t base, uint64_t stride, uint32_t bytes = 4) {
  WarpMemAccess a;
  a.space = space;
  a.bytesPerLane = bytes;
  a.mask = 0xffffffffu;
  for (uint32_t l = 0; l < 32; ++l)
    a.addr[l] = base + l * stride;
  return a;
}

uint64_t stat(const std::vector<std::pair<std::string, uint64_t>> &v, const std::string &n) {
  for (auto &p : v)
    if (p.first == n)
      return p.second;
  ADD_FAILURE() << "no statistic " << n;
  return 0;
}

TEST(LdstCoalesce, ConsecutiveWordsAreOneLineOfFourSectors) {
  Rig r(smallGpu());
  r.run(0, strided(MemSpaceKind::Global, 0x10000, 4));
  auto s = r.ldst[0]->statPairs();
  EXPECT_EQ(stat(s, "ldst.coalesced_transactions"), 1u);
  EXPECT_EQ(stat(s, "ldst.sectors_touched"), 4u);
  EXPECT_EQ(stat(s, "l1d.misses"), 1u);
}

TEST(LdstCoalesce, Stride128IsThirtyTwoLines) {
  Rig r(smallGpu());
  r.run(0, strided(MemSpaceKind::Global, 0x10000, 128));
  auto s = r.ldst[0]->statPairs();
  EXPECT_EQ(stat(s, "ldst.coalesced_transactions"), 32u);
  EXPECT_EQ(stat(s, "ldst.sectors_touched"), 32u);
  EXPECT_EQ(stat(s, "l1d.misses"), 32u);
  EXPECT_EQ(stat(s, "ldst.requests_sent"), 32u);
}

TEST(LdstCoalesce, MisalignedAndLocalAccesses) {
  Rig r(smallGpu());
  // 8-byte elements starting 16 bytes into a line: 256 bytes over 3 lines
  r.run(0, strided(MemSpaceKind::Global, 0x20010, 8, 8));
  EXPECT_EQ(r.ldst[0]->stats().coalescedTransactions, 3u);
  // every lane at the same local offset: one line (lane-interleaved words)
  r.run(0, strided(MemSpaceKind::Local, 0x40, 0));
  EXPECT_EQ(r.ldst[0]->stats().coalescedTransactions, 4u);
  EXPECT_EQ(LdstUnit::localAddress(0, 0, 1, 0x40) - LdstUnit::localAddress(0, 0, 0, 0x40), 4u);
  EXPECT_EQ(LdstUnit::localAddress(0, 0, 0, 0x44) - LdstUnit::localAddress(0, 0, 0, 0x40), 128u);
}

// An access whose lanes are read through laneAddr with addrBias (how the SM passes its record)
// coalesces, hits and times exactly as the same addresses in addr: global lines and sectors
// (misaligned 8-byte lanes), local memory, a constant broadcast and a global atomic.
TEST(LdstCoalesce, LaneAddressesReadInPlaceWithABias) {
  const uint64_t bias = 0x1230000000ull;
  const WarpMemAccess accesses[] = {
      strided(MemSpaceKind::Global, 0x20010, 8, 8), strided(MemSpaceKind::Global, 0x30000, 132),
      strided(MemSpaceKind::Local, 0x44, 4), strided(MemSpaceKind::Const, 0x9000, 0)};
  Rig copied(smallGpu()), inPlace(smallGpu());
  uint64_t tag = 1;
  for (WarpMemAccess a : accesses) {
    for (bool atomic : {false, true}) {
      if (atomic && a.space != MemSpaceKind::Global)
        continue;
      a.atomic = atomic;
      WarpMemAccess b = a;
      uint64_t lanes[32];
      for (uint32_t l = 0; l < 32; ++l) {
        lanes[l] = a.addr[l] - bias;
        b.addr[l] = 0; // not read
      }
      b.laneAddr = lanes;
      b.addrBias = bias;
      for (int twice = 0; twice < 2; ++twice, ++tag) // (a miss, then a hit)
        EXPECT_EQ(inPlace.run(0, b, tag), copied.run(0, a, tag)) << tag;
    }
  }
  EXPECT_EQ(inPlace.ldst[0]->statPairs(), copied.ldst[0]->statPairs());
  EXPECT_GT(copied.ldst[0]->stats().coalescedTransactions, 40u);
}

// A full warp's lanes at consecutive addresses (lane l at base + l x bytes), or in two runs of
// 16 (a 16-wide tile's two rows: lane 16 + l at a second base + l x bytes), coalesce into the
// lines the bytes cover, each with the 32-byte sectors it covers: the same as the lanes with two
// neighbours swapped (not consecutive; their lines come first in the same order), in latency and
// in every statistic, for lane sizes 1 to 32 bytes, offsets in a line that leave a run in one
// line or spread it over several, and second runs after, right after, before (sharing a line)
// and on the first.
TEST(LdstCoalesce, ConsecutiveLanesCoalesceAsLaneByLane) {
  Rig consecutive(smallGpu()), swapped(smallGpu());
  uint64_t base = 0x100000, tag = 1;
  for (uint32_t bytes : {1u, 2u, 4u, 8u, 16u, 32u}) {
    for (uint64_t off : {0u, 1u, 36u, 96u, 124u}) {
      for (int64_t second : {int64_t(16 * bytes), int64_t(800), int64_t(-64), int64_t(0)}) {
        base += 0x10000;
        WarpMemAccess a = strided(MemSpaceKind::Global, base + off, bytes, bytes);
        for (uint32_t l = 16; l < 32; ++l)
          a.addr[l] = base + off + uint64_t(second) + (l - 16) * bytes;
        a.write = bytes == 8;
        WarpMemAccess b = a;
        std::swap(b.addr[1], b.addr[2]);
        // the lines and sectors the lanes' bytes cover, byte by byte
        std::set<uint64_t> lines, sectors;
        for (uint32_t l = 0; l < 32; ++l)
          for (uint64_t x = a.addr[l]; x < a.addr[l] + bytes; ++x) {
            lines.insert(x / 128);
            sectors.insert(x / 32);
          }
        const LdstUnit::Stats s0 = consecutive.ldst[0]->stats();
        EXPECT_EQ(consecutive.run(0, a, tag), swapped.run(0, b, tag))
            << bytes << " " << off << " " << second;
        ++tag;
        const LdstUnit::Stats &s1 = consecutive.ldst[0]->stats();
        EXPECT_EQ(s1.coalescedTransactions - s0.coalescedTransactions, lines.size())
            << bytes << " " << off << " " << second;
        EXPECT_EQ(s1.sectorsTouched - s0.sectorsTouched, sectors.size())
            << bytes << " " << off << " " << second;
      }
    }
  }
  EXPECT_EQ(consecutive.ldst[0]->statPairs(), swapped.ldst[0]->statPairs());
  EXPECT_EQ(consecutive.mem.stats(), swapped.mem.stats());
}

// Ring::pushSorted (the LD/ST unit's data arrivals): pops the same sequence as a min-heap of
// (cycle, slot) pairs under interleaved pushes and pops, mostly in order as the unit pushes
// (now + a latency) and sometimes far out of order, through the ring's growth.
TEST(LdstRing, PushSortedPopsAsAPriorityQueue) {
  using Event = std::pair<Cycle, uint32_t>;
  Ring<Event> ring(4);
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> heap;
  uint64_t x = 12345;
  auto rnd = [&x] {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(x >> 33);
  };
  Cycle now = 0;
  size_t popped = 0;
  for (int step = 0; step < 20000; ++step) {
    for (uint32_t k = rnd() % 4; k-- > 0;) {
      Event e{now + (rnd() % 8 == 0 ? rnd() % 500 : 20 + rnd() % 3), rnd() % 256};
      ring.pushSorted(e);
      heap.push(e);
    }
    ASSERT_EQ(ring.size(), heap.size());
    while (!heap.empty() && heap.top().first <= now) {
      ASSERT_EQ(ring.front(), heap.top());
      ASSERT_EQ(ring.pop(), heap.top());
      heap.pop();
      ++popped;
    }
    now += 1 + rnd() % 2;
  }
  EXPECT_GT(popped, 20000u);
}

TEST(LdstShared, BankConflictDegrees) {
  TimingConfig c = smallGpu();
  Rig r(c);
  uint32_t base = c.core.sharedLatency;
  EXPECT_EQ(r.run(0, strided(MemSpaceKind::Shared, 0, 4)), base);        // stride 1 word
  EXPECT_EQ(r.run(0, strided(MemSpaceKind::Shared, 0, 8)), base + 1);    // stride 2: 2-way
  EXPECT_EQ(r.run(0, strided(MemSpaceKind::Shared, 0, 128)), base + 31); // stride 32: 32-way
  EXPECT_EQ(r.run(0, strided(MemSpaceKind::Shared, 64, 0)), base);       // broadcast
  EXPECT_EQ(r.ldst[0]->stats().sharedBankConflictCycles, 1u + 31u);
  // a store is accepted once its wavefronts are through the banks
  WarpMemAccess st = strided(MemSpaceKind::Shared, 0, 8);
  st.write = true;
  EXPECT_EQ(r.run(0, st), 1u);
}

// bankConflictDegree against its definition (the most distinct words any bank holds) on
// accesses with and without conflicts: strides, broadcasts, partial masks, wide lanes,
// misaligned lanes that straddle words, and pseudo-random addresses.
TEST(LdstShared, BankConflictDegreeIsTheMostDistinctWordsInABank) {
  auto reference = [](const WarpMemAccess &a, uint32_t banks) {
    std::vector<std::vector<uint64_t>> perBank(banks);
    for (uint32_t l = 0; l < 32; ++l)
      if (a.mask >> l & 1)
        for (uint64_t w = a.addr[l] / 4; w <= (a.addr[l] + a.bytesPerLane - 1) / 4; ++w) {
          std::vector<uint64_t> &v = perBank[w % banks];
          if (std::find(v.begin(), v.end(), w) == v.end())
            v.push_back(w);
        }
    uint32_t d = 0;
    for (auto &v : perBank)
      d = std::max(d, uint32_t(v.size()));
    return d;
  };
  uint64_t x = 0x9e3779b97f4a7c15ull;
  auto rnd = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  uint32_t cases = 0, conflicted = 0, single = 0;
  // the same access read through laneAddr (the SM's record, not copied) with a bias must give
  // the same degree
  auto viaLanes = [](const WarpMemAccess &a, uint32_t banks) {
    WarpMemAccess b = a;
    uint64_t lanes[32];
    const uint64_t bias = 0x7000000000001000ull;
    for (uint32_t l = 0; l < 32; ++l) {
      lanes[l] = a.addr[l] - bias;
      b.addr[l] = ~uint64_t(0); // not read
    }
    b.laneAddr = lanes;
    b.addrBias = bias;
    return bankConflictDegree(b, banks);
  };
  // (24 and 1: bank counts that are not a power of two or trivial take the division)
  // (base 6: misaligned lanes; base 0 with strides of whole lanes: the aligned LDS/LDS.64/
  // LDS.128 shortcut, including a broadcast within each half-warp as a tiled multiply reads)
  for (uint32_t banks : {32u, 16u, 24u, 1u}) {
    for (uint32_t bytes : {1u, 4u, 8u, 16u}) {
      for (uint32_t stride : {0u, 1u, 2u, 4u, 8u, 12u, 16u, 33u, 128u, 132u, 4000u, 4001u}) {
        for (uint64_t base : {6u, 0u, 64u}) {
          for (uint32_t mask : {0xffffffffu, 0x0000ffffu, 0x80000001u, 0x00000001u, 0u}) {
            WarpMemAccess a = strided(MemSpaceKind::Shared, base, stride);
            if (stride >= 4000) // lanes 0-15 on one address, 16-31 on another
              for (uint32_t l = 0; l < 32; ++l)
                a.addr[l] = base + (l / 16) * (stride - 4000 + 1) * bytes * (banks == 24 ? 3 : 8);
            a.bytesPerLane = bytes;
            a.mask = mask;
            uint32_t d = bankConflictDegree(a, banks);
            EXPECT_EQ(d, reference(a, banks)) << banks << " banks, " << bytes << " bytes, stride "
                                              << stride << ", base " << base << ", mask " << mask;
            EXPECT_EQ(viaLanes(a, banks), d);
            ++cases;
            conflicted += d > 1;
            single += d == 1;
          }
        }
      }
      for (int k = 0; k < 200; ++k) {
        WarpMemAccess a = strided(MemSpaceKind::Shared, 0, 4);
        a.bytesPerLane = bytes;
        a.mask = uint32_t(rnd());
        uint64_t span = (k % 2) ? 256 : 4096;
        for (uint32_t l = 0; l < 32; ++l) // (half of them aligned to the lane's size)
          a.addr[l] = rnd() % span & (k % 4 < 2 ? ~uint64_t(bytes - 1) : ~uint64_t(0));
        uint32_t d = bankConflictDegree(a, banks);
        EXPECT_EQ(d, reference(a, banks)) << banks << " banks, " << bytes << " bytes, random";
        EXPECT_EQ(viaLanes(a, banks), d);
        ++cases;
        conflicted += d > 1;
        single += d == 1;
      }
      // lanes within one aligned row of the banks (banks x 4 bytes: degree 1 when aligned), in
      // a row away from 0, some with one lane moved to the next row (a conflict unless that
      // lane's words are alone in their banks) or misaligned
      for (int k = 0; k < 200; ++k) {
        WarpMemAccess a = strided(MemSpaceKind::Shared, 0, 4);
        a.bytesPerLane = bytes;
        a.mask = k % 3 ? 0xffffffffu : uint32_t(rnd()) | 1u;
        const uint64_t row = uint64_t(banks) * 4, base = (rnd() % 64) * row;
        for (uint32_t l = 0; l < 32; ++l)
          a.addr[l] = base + (rnd() % row & ~uint64_t(bytes - 1));
        if (k % 4 == 1)
          a.addr[rnd() % 32] += row;
        if (k % 8 == 3)
          a.addr[rnd() % 32] += 2;
        uint32_t d = bankConflictDegree(a, banks);
        EXPECT_EQ(d, reference(a, banks)) << banks << " banks, " << bytes << " bytes, one row";
        EXPECT_EQ(viaLanes(a, banks), d);
        ++cases;
        conflicted += d > 1;
        single += d == 1;
      }
    }
  }
  // both outcomes were exercised
  EXPECT_GT(conflicted, cases / 10);
  EXPECT_GT(single, 20u);
}

// -ptxsim_shared_queue_entries: shared instructions queue for the banks without holding the issue
// stage; each starts when the previous one's wavefronts are through, in issue order, and the
// queue refuses more than its entries that have not started.
TEST(LdstShared, QueuedInstructionsTakeTurnsAtTheBanks) {
  TimingConfig c = smallGpu();
  c.core.sharedQueueEntries = 2;
  Rig r(c);
  WarpMemAccess conflict = strided(MemSpaceKind::Shared, 0, 128); // 32-way: 32 bank cycles
  Cycle t0 = r.now;
  ASSERT_TRUE(r.ldst[0]->canIssueShared(r.now));
  r.ldst[0]->issue(conflict, 0, 1, r.now);
  r.step();
  for (uint64_t tag = 2; tag <= 3; ++tag) { // two more wait in the queue
    ASSERT_TRUE(r.ldst[0]->canIssueShared(r.now)) << tag;
    r.ldst[0]->issue(conflict, uint32_t(tag), tag, r.now);
    r.step();
  }
  EXPECT_FALSE(r.ldst[0]->canIssueShared(r.now)) << "a full queue took another instruction";
  while (r.done.size() < 3 && r.now < t0 + 1000)
    r.step();
  ASSERT_EQ(r.done.size(), 3u);
  for (uint64_t k = 0; k < 3; ++k) { // completions 32 bank cycles apart, in order
    EXPECT_EQ(r.done[k].first, k + 1);
    EXPECT_EQ(r.done[k].second, t0 + 32 * k + c.core.sharedLatency + 31);
  }
  EXPECT_TRUE(r.ldst[0]->canIssueShared(r.now));
  EXPECT_EQ(r.ldst[0]->stats().sharedInsts, 3u);
  // without the queue, the coalescer holds one instruction at a time
  c.core.sharedQueueEntries = 0;
  Rig one(c);
  one.ldst[0]->issue(conflict, 0, 1, one.now);
  one.step();
  EXPECT_FALSE(one.ldst[0]->canIssueShared(one.now));
}

// Queued shared loads and stores of every conflict degree, issued as soon as the queue takes
// them, complete where the header's rule puts them: each starts when the banks are through the
// one before (start = max(issue, previous start + previous degree)); a load completes at
// start + sharedLatency + (degree - 1) x sharedConflictLatency, a store at start + degree - 1.
// A stride of s words puts gcd(s, 32) distinct words in a bank; lanes of 8 or 16 bytes in one
// aligned row of the banks (given through laneAddr, as the SM gives them) are degree 1, 16-byte
// lanes over four rows degree 4, 8-byte lanes over two rows degree 2.
TEST(LdstShared, QueuedAccessesOfEveryDegreeCompleteByTheRule) {
  TimingConfig c = smallGpu();
  c.core.sharedQueueEntries = 4;
  c.core.sharedConflictLatency = 2;
  Rig r(c);
  struct Case {
    WarpMemAccess a;
    uint32_t degree;
  };
  std::vector<Case> cases;
  for (uint32_t s = 0; s <= 33; ++s)
    for (bool write : {false, true}) {
      WarpMemAccess a = strided(MemSpaceKind::Shared, 256 * s, 4 * s);
      a.write = write;
      cases.push_back({a, s ? std::gcd(s, 32u) : 1});
    }
  static uint64_t lanes[4][32]; // (read by issue() through laneAddr)
  for (uint32_t l = 0; l < 32; ++l) {
    lanes[0][l] = 1024 + (l / 16) * 64;      // two 16-byte chunks in one row: degree 1
    lanes[1][l] = 2048 + (l % 16) * 8;       // 8-byte lanes, one row (a broadcast pair)
    lanes[2][l] = 4096 + l * 16;             // 16-byte lanes over four rows
    lanes[3][l] = 8192 + l * 8;              // 8-byte lanes over two rows
  }
  const uint32_t bytes[4] = {16, 8, 16, 8}, degrees[4] = {1, 1, 4, 2};
  for (uint32_t k = 0; k < 4; ++k)
    for (bool write : {false, true}) {
      WarpMemAccess a(lanes[k], 0);
      a.space = MemSpaceKind::Shared;
      a.bytesPerLane = bytes[k];
      a.mask = 0xffffffffu;
      a.write = write;
      cases.push_back({a, degrees[k]});
    }
  std::vector<Cycle> expect;
  Cycle banksFree = 0;
  uint64_t conflictCycles = 0;
  for (uint64_t tag = 0; tag < cases.size(); ++tag) {
    const Case &k = cases[tag];
    while (!r.ldst[0]->canIssueShared(r.now))
      r.step();
    const Cycle start = std::max(r.now, banksFree);
    banksFree = start + k.degree;
    conflictCycles += k.degree - 1;
    expect.push_back(k.a.write ? start + k.degree - 1
                               : start + c.core.sharedLatency + (k.degree - 1) * 2);
    r.ldst[0]->issue(k.a, uint32_t(tag % 48), tag, r.now);
    r.step();
  }
  while (r.done.size() < cases.size() && r.now < 100000)
    r.step();
  ASSERT_EQ(r.done.size(), cases.size());
  for (const auto &[tag, at] : r.done)
    EXPECT_EQ(at, expect[tag]) << "access " << tag << " (degree " << cases[tag].degree << ")";
  EXPECT_EQ(r.ldst[0]->stats().sharedBankConflictCycles, conflictCycles);
  EXPECT_TRUE(r.idle());
}

// Full warps of queued shared accesses, each issued alone on an idle unit: the banks take
// `degree` cycles, the most distinct 4-byte words any of the 32 banks must deliver (lanes on one
// word share it), so a load completes sharedLatency + (degree - 1) x sharedConflictLatency after
// its issue. Lane addresses come through laneAddr (as the SM gives them, with and without a
// bias added to each) and through addr: a row of the banks in lane order, reversed and as a
// broadcast (degree 1); 4-byte lanes two bytes past their words (each lane two words, the last
// lane's second in bank 0 again: degree 2), and the same lanes with a bias of 2 that aligns them
// to a row starting a word in (degree 1, the row wrapping into the next), a row the bias moves
// two bytes on (degree 2); 8-byte lanes in one
// row (degree 1), a word off (32 words, one a bank: degree 1) and two bytes off (33 words:
// degree 2), and 4-byte lanes two rows apart by halves (degree 2).
TEST(LdstShared, QueuedFullWarpsTakeTheirBankDegree) {
  TimingConfig c = smallGpu();
  c.core.sharedQueueEntries = 4;
  c.core.sharedConflictLatency = 3;
  ASSERT_EQ(c.core.sharedBanks, 32u);
  struct Case {
    uint64_t lane[32];
    uint64_t bias;
    uint32_t bytes, degree;
  };
  std::vector<Case> cases;
  auto add = [&cases](auto addrOf, uint64_t bias, uint32_t bytes, uint32_t degree) {
    Case k{};
    for (uint32_t l = 0; l < 32; ++l)
      k.lane[l] = addrOf(l);
    k.bias = bias;
    k.bytes = bytes;
    k.degree = degree;
    cases.push_back(k);
  };
  add([](uint32_t l) { return 512 + 4 * l; }, 0, 4, 1);         // one row in lane order
  add([](uint32_t l) { return 512 + 4 * (31 - l); }, 0, 4, 1);  // the same row reversed
  add([](uint32_t) { return uint64_t(1028); }, 0, 4, 1);         // a broadcast
  add([](uint32_t l) { return 514 + 4 * l; }, 0, 4, 2);         // two bytes past the words
  add([](uint32_t l) { return 514 + 4 * l; }, 2, 4, 1);         // aligned by the bias
  add([](uint32_t l) { return 512 + 4 * l; }, 2, 4, 2);         // a row the bias misaligns
  add([](uint32_t l) { return 1024 + 8 * (l % 16); }, 0, 8, 1); // 8-byte lanes in one row
  add([](uint32_t l) { return 1028 + 8 * (l % 16); }, 0, 8, 1); // a word off: 32 words
  add([](uint32_t l) { return 1026 + 8 * (l % 16); }, 0, 8, 2); // two bytes off: 33 words
  add([](uint32_t l) { return 2048 + 4 * (l % 16) + 128 * (l / 16); }, 0, 4, 2); // two rows
  for (size_t i = 0; i < cases.size(); ++i)
    for (int through : {0, 1}) { // laneAddr, addr (no bias)
      if (through == 1 && cases[i].bias)
        continue;
      Rig r(c);
      WarpMemAccess a;
      if (through == 0) {
        a = WarpMemAccess(cases[i].lane, cases[i].bias);
      } else {
        for (uint32_t l = 0; l < 32; ++l)
          a.addr[l] = cases[i].lane[l];
      }
      a.space = MemSpaceKind::Shared;
      a.bytesPerLane = cases[i].bytes;
      a.mask = 0xffffffffu;
      ASSERT_TRUE(r.ldst[0]->canIssueShared(r.now));
      const Cycle t0 = r.now;
      r.ldst[0]->issue(a, 0, 7, r.now);
      while (r.done.empty() && r.now < 1000)
        r.step();
      ASSERT_EQ(r.done.size(), 1u) << "case " << i;
      EXPECT_EQ(r.done[0].second - t0, c.core.sharedLatency + (cases[i].degree - 1) * 3)
          << "case " << i << (through ? " through addr" : " through laneAddr");
      EXPECT_EQ(r.ldst[0]->stats().sharedBankConflictCycles, cases[i].degree - 1) << "case " << i;
      EXPECT_EQ(r.ldst[0]->nextEventCycle(r.now), kNever) << "case " << i;
      EXPECT_TRUE(r.idle());
    }
}

// LdstUnit::nextEventCycle: kNever while the unit holds nothing (fresh, and again once its
// instructions are done and their completions taken), now + 1 while a completion waits, and
// the cycle a queued shared load's data arrives while only that is due.
TEST(LdstShared, NextEventIsTheArrivalOrNever) {
  TimingConfig c = smallGpu();
  c.core.sharedQueueEntries = 4;
  LdstUnit u(c, 0);
  MemorySystem mem(c);
  EXPECT_EQ(u.nextEventCycle(0), kNever);
  WarpMemAccess a = strided(MemSpaceKind::Shared, 0, 4);
  u.issue(a, 3, 9, 10);
  const Cycle due = 10 + c.core.sharedLatency;
  EXPECT_EQ(u.nextEventCycle(10), due);
  Cycle now = 10;
  for (; !u.hasCompletion() && now < 1000; ++now) {
    EXPECT_EQ(u.nextEventCycle(now), std::max(now + 1, due));
    u.tick(now, mem);
  }
  EXPECT_EQ(now, due + 1); // (completed in the tick of cycle `due`)
  EXPECT_EQ(u.nextEventCycle(now), now + 1); // the completion waits
  EXPECT_EQ(u.popCompletion(), std::make_pair(3u, uint64_t(9)));
  EXPECT_EQ(u.nextEventCycle(now), kNever);
  EXPECT_TRUE(u.idle());
}

// sectorCount: the number of set bits, for every 4-sector mask and for wider ones.
TEST(LdstSectors, SectorCountIsTheSetBits) {
  for (uint32_t m = 0; m < 16; ++m)
    EXPECT_EQ(sectorCount(m), uint32_t((m & 1) + (m >> 1 & 1) + (m >> 2 & 1) + (m >> 3 & 1)));
  EXPECT_EQ(sectorCount(0xffffffffu), 32u);
  EXPECT_EQ(sectorCount(0x80000001u), 2u);
  EXPECT_EQ(sectorCount(0x00ff00f0u), 12u);
}

// LdstUnit::issueVersion/issueStateUntil (what lets a scheduler whose warps wait for the LD/ST
// slot keep its scan): while the version stays the same, canIssue() and canIssueShared() answer
// as they did until issueStateUntil(); global and shared traffic, with and without the shared
// queue and with an issue interval, so that every way the answers change is exercised.
TEST(LdstIssueState, AnswersStandWhileTheVersionAndTimeDo) {
  for (uint32_t queue : {0u, 2u}) {
    for (uint32_t interval : {1u, 3u}) {
      TimingConfig c = smallGpu();
      c.core.sharedQueueEntries = queue;
      c.core.ldstInterval = interval;
      Rig r(c);
      LdstUnit &u = *r.ldst[0];
      uint64_t x = 0x2545f4914f6cdd1dull + queue * 7 + interval;
      auto rnd = [&x] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return x;
      };
      struct Snap {
        bool valid = false, global = false, shared = false;
        uint64_t version = 0;
        Cycle until = 0;
      } snap;
      uint32_t stood = 0, changed = 0, refusedGlobal = 0, refusedShared = 0, tag = 0;
      for (int cycle = 0; cycle < 20000; ++cycle) {
        const bool global = u.canIssue(r.now), shared = u.canIssueShared(r.now);
        refusedGlobal += !global;
        refusedShared += !shared;
        if (snap.valid && u.issueVersion() == snap.version && r.now < snap.until) {
          ASSERT_EQ(global, snap.global) << "cycle " << r.now << ", queue " << queue;
          ASSERT_EQ(shared, snap.shared) << "cycle " << r.now << ", queue " << queue;
          ++stood;
        } else {
          changed += snap.valid && (global != snap.global || shared != snap.shared);
          snap = {true, global, shared, u.issueVersion(), u.issueStateUntil(r.now)};
          ASSERT_GT(snap.until, r.now);
        }
        // issue about every third cycle it may: strided global loads and stores, conflicting
        // shared accesses (up to 32 bank cycles)
        if (rnd() % 3 == 0) {
          if (rnd() % 2 && shared) {
            WarpMemAccess a = strided(MemSpaceKind::Shared, 0, 4 << (rnd() % 6));
            a.write = rnd() % 2;
            u.issue(a, uint32_t(rnd() % 48), ++tag, r.now);
          } else if (global) {
            WarpMemAccess a = strided(MemSpaceKind::Global, 0x100000 + (rnd() % 4096) * 128,
                                      4u << (rnd() % 6));
            a.write = rnd() % 4 == 0;
            u.issue(a, uint32_t(rnd() % 48), ++tag, r.now);
          }
        }
        r.step();
      }
      EXPECT_GT(stood, 1000u) << queue << " " << interval;
      EXPECT_GT(changed, 100u) << queue << " " << interval;
      EXPECT_GT(refusedGlobal, 1000u) << queue << " " << interval;
      EXPECT_GT(refusedShared, 1000u) << queue << " " << interval;
    }
  }
}

TEST(LdstConst, BroadcastAndDistinctAddresses) {
  Rig r(smallGpu());
  WarpMemAccess a = strided(MemSpaceKind::Const, 0x9000, 0);
  Cycle miss = r.run(0, a);
  EXPECT_GT(miss, Cycle(r.cfg.mem.l2Latency));
  EXPECT_EQ(r.run(0, a), r.cfg.mem.l1Latency); // broadcast hit: one access
  // 4 distinct addresses in the same (now cached) line: one access per cycle
  a = strided(MemSpaceKind::Const, 0x9000, 0);
  for (uint32_t l = 0; l < 32; ++l)
    a.addr[l] = 0x9000 + (l % 4) * 4;
  EXPECT_EQ(r.run(0, a), r.cfg.mem.l1Latency + 3);
  EXPECT_EQ(r.ldst[0]->stats().constAccesses, 1u + 1u + 4u);
}

// The unloaded latencies documented in MemorySystem.h.
TEST(LdstLatency, L1HitL2HitAndDram) {
  TimingConfig c = smallGpu();
  Rig r(c);
  WarpMemAccess a = strided(MemSpaceKind::Global, 0x100000, 0); // one word, all lanes
  Cycle dram = r.run(0, a);
  Cycle l1 = r.run(0, a);
  Cycle l2 = r.run(1, a); // another SM: misses its L1, hits the L2
  EXPECT_EQ(l1, c.mem.l1Latency);
  // the default L1D is unsectored: the fill is a 128-byte response, 4 flits of 32 bytes
  EXPECT_EQ(l2, c.mem.l2Latency + 3);
  EXPECT_EQ(r.mem.ropCycles(), c.mem.l2Latency - 2 * c.mem.icntLatency - c.mem.l2.hitLatency - 1);
  // DRAM (MemorySystem.h): icnt 8 + ROP 93 -> L2 miss at core/L2 cycle 101; DRAM push at DRAM
  // cycle ceil(101 * 924 / 700) = 134, ACT, RD at +tRCD 12, data done at +tCL 12 + 2 bursts of
  // 4 cycles (128 bytes) = DRAM cycle 166, which runs in core cycle 126; the L2 takes the fill in
  // cycle 127, the response leaves at 128, icnt 8 + 3 flits of serialisation, popped at 140.
  EXPECT_EQ(dram, 140u);
  EXPECT_TRUE(r.idle());
}

// -ptxsim_l2_far_latency: the first read of a line from the far half of the GPU pays the
// crossing once; a write leaves the line on the writer's side only. -gpgpu_perf_sim_memcpy: a
// host-to-device copy leaves its data in the L2.
TEST(LdstLatency, FarL2PartitionAndCopiesIntoTheL2) {
  TimingConfig c = smallGpu();
  c.mem.l2FarLatency = 100;
  c.mem.copiesFillL2 = true;
  c.mem.l2ClockMHz = c.core.clockMHz; // one clock: the extra is exactly 100 cycles
  Rig r(c);
  const uint32_t n = c.numSms(), parts = r.mem.numPartitions();
  ASSERT_GE(n, 2u);
  ASSERT_GE(parts, 2u);
  const uint64_t addr = 0x200000;
  const uint32_t p = r.mem.partitionOf(addr);
  uint32_t nearSm = n, farSm = n;
  for (uint32_t s = 0; s < n; ++s)
    ((uint64_t(s) * 2 / n == uint64_t(p) * 2 / parts) ? nearSm : farSm) = s;
  ASSERT_LT(nearSm, n);
  ASSERT_LT(farSm, n);
  WarpMemAccess rd = strided(MemSpaceKind::Global, addr, 0);
  rd.bypassL1 = true; // every read reaches the L2
  Cycle dram = r.run(nearSm, rd);
  Cycle nearHit = r.run(nearSm, rd);
  EXPECT_LT(nearHit, dram);
  EXPECT_EQ(r.run(farSm, rd), nearHit + 100); // the first read from the far side
  EXPECT_EQ(r.run(farSm, rd), nearHit);       // then a copy is near it
  EXPECT_EQ(r.run(nearSm, rd), nearHit);
  WarpMemAccess wr = rd;
  wr.write = true;
  r.run(nearSm, wr); // the near side writes: the far copy is gone
  EXPECT_EQ(r.run(farSm, rd), nearHit + 100);
  // a copy from the host puts the bytes in the L2: the first read of another line hits there
  const uint64_t other = addr + (1u << 20);
  const uint32_t po = r.mem.partitionOf(other);
  uint32_t home = n;
  for (uint32_t s = 0; s < n && home == n; ++s)
    if (uint64_t(s) * 2 / n == uint64_t(po) * 2 / parts)
      home = s;
  r.mem.hostWrite(other, 4096);
  WarpMemAccess rd2 = strided(MemSpaceKind::Global, other, 0);
  rd2.bypassL1 = true;
  EXPECT_EQ(r.run(home, rd2), nearHit);
  EXPECT_TRUE(r.idle());
}

TEST(LdstLatency, SectoredL1FetchesOneSector) {
  TimingConfig c = smallGpu();
  c.mem.l1d.sectorBytes = 32;
  Rig r(c);
  WarpMemAccess a = strided(MemSpaceKind::Global, 0x100000, 0);
  r.run(0, a);
  EXPECT_EQ(r.run(1, a), c.mem.l2Latency); // one-flit response: exactly l2Latency
  WarpMemAccess b = strided(MemSpaceKind::Global, 0x100020, 0); // another sector: sector miss
  r.run(1, b);
  EXPECT_EQ(r.ldst[1]->l1d().stats().sectorMisses, 1u);
}

// -ptxsim_l1_tag_lines: the tag stage resolves that many lines of one access per cycle, so a
// warp load hitting 32 distinct L1 lines returns its last line after 32 / N cycles, not 32.
TEST(LdstLatency, TagStageResolvesSeveralLinesPerCycle) {
  for (uint32_t lines : {1u, 4u}) {
    TimingConfig c = smallGpu();
    c.mem.l1TagLines = lines;
    Rig r(c);
    WarpMemAccess a = strided(MemSpaceKind::Global, 0x300000, 128); // 32 lines, one per set
    r.run(0, a);                                                    // misses: fills the L1
    EXPECT_EQ(r.run(0, a), c.mem.l1Latency + 32 / lines - 1) << lines << " lines per cycle";
    EXPECT_EQ(r.ldst[0]->l1d().stats().hits, 32u);
    EXPECT_TRUE(r.idle());
  }
}

TEST(LdstStore, WriteThroughCompletesWhenAcceptedAndReachesL2) {
  Rig r(smallGpu());
  WarpMemAccess a = strided(MemSpaceKind::Global, 0x200000, 4);
  a.write = true;
  EXPECT_EQ(r.run(0, a), 0u); // accepted into the miss queue in its issue cycle
  for (int i = 0; i < 400; ++i)
    r.step();
  auto s = r.mem.stats();
  EXPECT_EQ(stat(s, "l2.writes"), 1u);
  EXPECT_EQ(stat(r.ldst[0]->statPairs(), "l1d.hits"), 0u); // no allocation on a write miss
  // the L2 holds the written sectors: a load of them is an L2 hit
  a.write = false;
  EXPECT_EQ(r.run(1, a), r.cfg.mem.l2Latency + 3);
  EXPECT_TRUE(r.idle());
}

TEST(LdstAtomic, BypassesL1AndCompletesOnL2Response) {
  Rig r(smallGpu());
  WarpMemAccess a = strided(MemSpaceKind::Global, 0x300000, 0);
  a.atomic = true;
  Cycle first = r.run(0, a);
  Cycle second = r.run(0, a);
  EXPECT_GT(first, second);
  EXPECT_EQ(second, r.cfg.mem.l2Latency); // one-sector atomic response: one flit
  EXPECT_EQ(r.ldst[0]->l1d().stats().accesses, 0u);
}

TEST(LdstBackpressure, MshrFullStallsAndCounts) {
  TimingConfig c = smallGpu();
  c.mem.l1d.mshrEntries = 4;
  Rig r(c);
  r.run(0, strided(MemSpaceKind::Global, 0x400000, 128));
  EXPECT_GT(r.ldst[0]->stats().stallCycles, 0u);
  EXPECT_GT(r.ldst[0]->l1d().stats().reservationFails, 0u);
  EXPECT_EQ(r.ldst[0]->l1d().stats().misses, 32u);
}

TEST(LdstCcws, MissAndEvictionHooksReportOwner) {
  TimingConfig c = smallGpu();
  c.mem.l1d.sets = 1;
  c.mem.l1d.ways = 1;
  Rig r(c);
  std::vector<std::pair<uint32_t, uint64_t>> misses, evicts;
  r.ldst[0]->onL1Miss = [&](uint32_t w, uint64_t l, Cycle) { misses.push_back({w, l}); };
  r.ldst[0]->onL1Evict = [&](uint32_t w, uint64_t l, Cycle) { evicts.push_back({w, l}); };
  WarpMemAccess a = strided(MemSpaceKind::Global, 0x500000, 0);
  while (!r.ldst[0]->canIssue(r.now))
    r.step();
  r.ldst[0]->issue(a, 5, 1, r.now);
  for (int i = 0; i < 1000; ++i)
    r.step();
  a = strided(MemSpaceKind::Global, 0x500080, 0);
  r.ldst[0]->issue(a, 6, 2, r.now);
  for (int i = 0; i < 1000; ++i)
    r.step();
  ASSERT_EQ(misses.size(), 2u);
  EXPECT_EQ(misses[1], (std::pair<uint32_t, uint64_t>{6, 0x500080}));
  ASSERT_EQ(evicts.size(), 1u);
  EXPECT_EQ(evicts[0], (std::pair<uint32_t, uint64_t>{5, 0x500000}));
}

// Streams distinct lines from every SM straight into the memory system and compares the data
// returned per core cycle with the DRAM peak.
double streamFraction(const TimingConfig &c, Cycle cycles, Cycle *usedCycles = nullptr) {
  MemorySystem mem(c);
  uint64_t next = 0, bytes = 0;
  for (Cycle now = 0; now < cycles; ++now) {
    for (uint32_t s = 0; s < c.numSms(); ++s) {
      while (mem.hasResponse(s))
        bytes += mem.popResponse(s).bytes;
      if (mem.canAccept(s)) {
        MemRequest q;
        q.id = next;
        q.addr = next * 128;
        q.bytes = 128;
        q.sectorMask = 0xf;
        mem.push(s, q, now);
        ++next;
      }
    }
    mem.tick(now);
  }
  if (usedCycles)
    *usedCycles = cycles;
  DramChannel probe(c.dram, 0);
  double peakPerCore = probe.peakBytesPerCycle() * c.dram.clockMHz / c.core.clockMHz *
                       c.mem.numPartitions * c.dram.channelsPerPartition;
  return double(bytes) / double(cycles) / peakPerCore;
}

TEST(MemSystemBandwidth, StreamingApproachesDramPeak) {
  TimingConfig c; // 15 SMs, 6 partitions
  double f = streamFraction(c, 20000);
  EXPECT_GT(f, 0.85) << "fraction of DRAM peak " << f;
  EXPECT_LE(f, 1.0);
}

TEST(MemSystemIcnt, MeshLatencyGrowsWithDistance) {
  MemoryConfig m;
  m.topology = "mesh";
  Interconnect net(m, 4, 5); // 9 nodes on a 3x3 grid
  EXPECT_EQ(net.latency(0, 1), m.icntLatency);
  EXPECT_EQ(net.latency(0, 8), 4 * m.icntLatency);
  MemoryConfig x;
  Interconnect xbar(x, 4, 5);
  MemRequest w;
  w.write = true;
  w.bytes = 128;
  EXPECT_EQ(xbar.flitsFor(w), 4u);
  xbar.send(0, 5, w, 0);
  xbar.send(1, 5, w, 0); // same destination port: serialised behind the first packet
  EXPECT_FALSE(xbar.hasArrival(5, x.icntLatency + 2));
  EXPECT_TRUE(xbar.hasArrival(5, x.icntLatency + 3));
  xbar.pop(5);
  EXPECT_FALSE(xbar.hasArrival(5, x.icntLatency + 6));
  EXPECT_TRUE(xbar.hasArrival(5, x.icntLatency + 7));
}

// -ptxsim_icnt_write_min_flits: a one-sector store holds the SM's port for the minimum, a full
// line keeps its own flits, and loads, atomics and responses are not held longer.
TEST(MemSystemIcnt, WriteRequestsHoldThePortAMinimum) {
  MemoryConfig m;
  m.icntFlitBytes = 64;
  m.icntWriteMinFlits = 2;
  Interconnect net(m, 2, 2);
  MemRequest w;
  w.write = true;
  w.bytes = 32; // one sector of a scattered store
  EXPECT_EQ(net.flitsFor(w), 2u);
  MemRequest line = w;
  line.bytes = 192;
  EXPECT_EQ(net.flitsFor(line), 3u);
  MemRequest atom = w;
  atom.atomic = true;
  EXPECT_EQ(net.flitsFor(atom), 1u);
  MemRequest load;
  EXPECT_EQ(net.flitsFor(load), 1u);
  MemRequest reply = w;
  reply.isResponse = true; // a store's acknowledgement carries no data
  EXPECT_EQ(net.flitsFor(reply), 1u);
  // two one-sector stores from one SM to different slices: the second leaves 2 cycles later
  EXPECT_TRUE(net.canSend(0, 0));
  net.send(0, 2, w, 0);
  EXPECT_FALSE(net.canSend(0, 1));
  EXPECT_TRUE(net.canSend(0, 2));
  net.send(0, 3, w, 2);
  EXPECT_FALSE(net.hasArrival(3, 2 + m.icntLatency));
  EXPECT_TRUE(net.hasArrival(3, 2 + m.icntLatency + 1));
  MemoryConfig one = m;
  one.icntWriteMinFlits = 1; // the default: flits of the payload alone
  EXPECT_EQ(Interconnect(one, 2, 2).flitsFor(w), 1u);
}

// A mixed workload, run with every cycle ticked and with idle skipping: same completion cycles
// and statistics. Run twice: identical.
std::vector<std::pair<uint64_t, Cycle>> mixed(bool skip,
                                              std::vector<std::pair<std::string, uint64_t>> *st) {
  TimingConfig c = smallGpu();
  Rig r(c);
  uint64_t tag = 0;
  for (int round = 0; round < 6; ++round) {
    for (uint32_t s = 0; s < c.numSms(); ++s) {
      WarpMemAccess a = strided(round % 3 == 2 ? MemSpaceKind::Shared : MemSpaceKind::Global,
                                0x1000000 + round * 4096 + s * 256, round % 2 ? 132 : 4);
      a.write = round == 3;
      while (!r.ldst[s]->canIssue(r.now))
        r.step();
      r.ldst[s]->issue(a, round, ++tag, r.now);
    }
    for (int i = 0; i < 50; ++i)
      r.step();
  }
  while (!r.idle()) {
    if (skip) {
      Cycle next = r.mem.nextEventCycle(r.now - 1);
      for (auto &u : r.ldst)
        next = std::min(next, u->nextEventCycle(r.now - 1));
      if (next != kNever && next > r.now)
        r.now = next;
    }
    r.step();
  }
  if (st) {
    *st = r.mem.stats();
    for (auto &u : r.ldst)
      for (auto &p : u->statPairs())
        st->push_back(p);
  }
  return r.done;
}

TEST(MemSystemDeterminism, RepeatableAndIdleSkippingIsExact) {
  std::vector<std::pair<std::string, uint64_t>> s1, s2, s3;
  auto a = mixed(false, &s1);
  auto b = mixed(false, &s2);
  auto c = mixed(true, &s3);
  EXPECT_EQ(a, b);
  EXPECT_EQ(s1, s2);
  EXPECT_EQ(a, c);
  EXPECT_EQ(s1, s3);
  EXPECT_EQ(a.size(), 6u * 4u);
}

// The partitions ticked together (tick(): tickPartitions, which keeps a summary of the waiting
// partitions and in most cycles ticks only the busy ones) and apart (tickIcnt, tickPartition of
// every partition, endTick: the parallel engine's way, no summary): the same responses in the
// same cycles, the same next event every cycle (the summary's minima against the loop over
// every partition) and the same statistics. Reads and writes in bursts over many lines (L2
// hits and misses, DRAM rows opened and closed) with quiet stretches in which partitions fall
// asleep and wait.
TEST(MemSystemSummary, PartitionsTickedTogetherOrApartAgree) {
  TimingConfig c; // 15 SMs
  c.mem.numPartitions = 12;
  MemorySystem together(c), apart(c);
  uint64_t x = 99, id = 0;
  std::vector<std::pair<uint64_t, Cycle>> got[2];
  for (Cycle now = 0; now < 12000; ++now) {
    const bool burst = (now / 700) % 3 != 2;
    for (uint32_t s = 0; s < c.numSms(); ++s) {
      for (int k = 0; k < 2; ++k) {
        MemorySystem &m = k ? apart : together;
        while (m.hasResponse(s))
          got[k].push_back({m.popResponse(s).id, now});
      }
      ASSERT_EQ(together.canAccept(s), apart.canAccept(s)) << "cycle " << now;
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      if (burst && (x >> 60) < 5 && together.canAccept(s)) {
        MemRequest q;
        q.id = ++id;
        q.addr = ((x >> 20) % 4096) * 128 + ((x >> 40) % 4) * 32;
        q.bytes = (x >> 45) % 2 ? 128 : 32;
        q.write = (x >> 50) % 4 == 0;
        together.push(s, q, now);
        apart.push(s, q, now);
      }
    }
    together.tick(now);
    apart.tickIcnt(now);
    apart.partitionsTickedApart();
    for (uint32_t p = 0; p < apart.numPartitions(); ++p)
      apart.tickPartition(p, now);
    apart.endTick(now);
    ASSERT_EQ(together.nextEventCycle(now), apart.nextEventCycle(now)) << "cycle " << now;
    ASSERT_EQ(together.idle(), apart.idle()) << "cycle " << now;
  }
  EXPECT_EQ(got[0], got[1]);
  EXPECT_GT(got[0].size(), 3000u);
  EXPECT_EQ(together.stats(), apart.stats());
}

// -gpgpu_memory_partition_indexing 1: the mapping stays a bijection (no two addresses share a
// partition and partition-local address) and a fixed warp offset in a grid-stride loop whose
// stride is a multiple of 16 chunks reaches every partition, not 2 of each 16 as linear does.
TEST(MemSystemMapping, HashedPartitionIndexingIsABijectionAndSpreadsStrides) {
  TimingConfig c;
  c.mem.numPartitions = 80;
  c.mem.partitionInterleaveBytes = 256;
  for (uint32_t hashed = 0; hashed < 2; ++hashed) {
    c.mem.partitionIndexing = hashed;
    MemorySystem mem(c);
    std::vector<std::vector<uint8_t>> seen(80, std::vector<uint8_t>(2048, 0));
    for (uint64_t chunk = 0; chunk < 80 * 2048; ++chunk) {
      uint64_t addr = chunk * 256;
      uint32_t p = mem.partitionOf(addr);
      uint64_t local = mem.partitionLocal(addr) / 256;
      ASSERT_LT(p, 80u);
      ASSERT_LT(local, 2048u);
      ASSERT_EQ(seen[p][local], 0) << "chunk " << chunk;
      seen[p][local] = 1;
    }
    // warp 0 of every CTA: chunks 16 * i (a 4 KiB CTA footprint and stride)
    std::vector<uint8_t> reached(80, 0);
    for (uint64_t i = 0; i < 4096; ++i)
      reached[mem.partitionOf(16 * i * 256)] = 1;
    uint32_t n = 0;
    for (uint8_t r : reached)
      n += r;
    if (hashed)
      EXPECT_EQ(n, 80u);
    else
      EXPECT_EQ(n, 5u);
  }
  // GPGPU-Sim's other scheme numbers (2-5) select the same hash
  c.mem.partitionIndexing = 1;
  MemorySystem one(c);
  c.mem.partitionIndexing = 2;
  MemorySystem two(c);
  for (uint64_t chunk = 0; chunk < 80 * 64; ++chunk)
    ASSERT_EQ(one.partitionOf(chunk * 256), two.partitionOf(chunk * 256)) << "chunk " << chunk;
}

} // namespace
} // namespace ptxsim::timing

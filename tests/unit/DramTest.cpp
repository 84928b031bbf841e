// DramChannel: exact latencies from the timing formulas (hit, miss, conflict, turnarounds),
// peak streaming bandwidth, scheduling order (FR-FCFS vs FCFS), bank parallelism, backpressure,
// refresh, determinism and idle skipping.

#include "timing/dram/DramChannel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ptxsim::timing {
namespace {

DramConfig baseConfig(const std::string &scheduler = "frfcfs") {
  DramConfig c; // GDDR5-like defaults: 16 banks, 2 KiB rows, 8-byte bus, BL8, DDR
  c.scheduler = scheduler;
  return c;
}

uint32_t burstOf(const DramConfig &c) { return (c.burstLength + c.dataRate - 1) / c.dataRate; }

uint64_t addrOf(const DramConfig &c, uint32_t bank, uint64_t row, uint32_t col = 0) {
  return (row * c.banks + bank) * c.rowBytes + col;
}

MemRequest req(uint64_t id, uint64_t addr, uint32_t bytes = 64, bool write = false) {
  MemRequest r;
  r.id = id;
  r.addr = addr;
  r.bytes = bytes;
  r.write = write;
  return r;
}

/// Ticks a channel every cycle (or, with `skip`, from event to event) and records when each
/// request id came out.
struct Harness {
  DramChannel ch;
  Cycle now = 0;
  bool skip = false;
  std::map<uint64_t, Cycle> done;
  std::vector<uint64_t> order;

  explicit Harness(const DramConfig &c, bool skipIdle = false) : ch(c, 0), skip(skipIdle) {}

  void push(const MemRequest &r) {
    ASSERT_TRUE(ch.canAccept());
    ch.push(r, now);
  }
  /// Ticks the current cycle and moves to the next one (or the next event).
  void step() {
    ch.tick(now);
    while (ch.hasResponse()) {
      MemRequest r = ch.popResponse();
      EXPECT_TRUE(r.isResponse);
      done[r.id] = now;
      order.push_back(r.id);
    }
    Cycle next = now + 1;
    if (skip) {
      Cycle ev = ch.nextEventCycle(now);
      if (ev != kNever)
        next = std::max(next, ev);
    }
    now = next;
  }
  void runUntilIdle() {
    for (int guard = 0; !ch.idle(); ++guard) {
      ASSERT_LT(guard, 1000000) << "channel never drained";
      step();
    }
  }
  void runTo(Cycle t) {
    while (now < t)
      step();
    now = t;
  }
};

TEST(DramLatency, RowMissOnPrechargedBank) {
  DramConfig c = baseConfig();
  Harness h(c);
  h.push(req(1, addrOf(c, 3, 7), 64));
  h.runUntilIdle();
  EXPECT_EQ(h.done[1], c.tRCD + c.tCL + burstOf(c));
  EXPECT_EQ(h.ch.stats().rowMisses, 1u);
  EXPECT_EQ(h.ch.stats().activates, 1u);
}

TEST(DramLatency, MultiBurstRequestUsesBackToBackColumnCommands) {
  DramConfig c = baseConfig();
  Harness h(c);
  h.push(req(1, addrOf(c, 0, 0), 128)); // two 64-byte bursts
  h.runUntilIdle();
  uint32_t spacing = std::max(c.tCCD, burstOf(c));
  EXPECT_EQ(h.done[1], c.tRCD + spacing + c.tCL + burstOf(c));
  EXPECT_EQ(h.ch.stats().busBusyCycles, 2u * burstOf(c));
}

TEST(DramLatency, RowHit) {
  DramConfig c = baseConfig();
  Harness h(c);
  h.push(req(1, addrOf(c, 2, 5, 0)));
  h.runUntilIdle();
  h.runTo(1000);
  h.push(req(2, addrOf(c, 2, 5, 512)));
  h.runUntilIdle();
  EXPECT_EQ(h.done[2] - 1000, c.tCL + burstOf(c));
  EXPECT_EQ(h.ch.stats().rowHits, 1u);
  EXPECT_EQ(h.ch.stats().rowMisses, 1u);
}

TEST(DramLatency, RowConflictAfterTrasAndTrc) {
  DramConfig c = baseConfig();
  Harness h(c);
  h.push(req(1, addrOf(c, 4, 1)));
  h.runUntilIdle();
  h.runTo(1000);
  h.push(req(2, addrOf(c, 4, 2)));
  h.runUntilIdle();
  EXPECT_EQ(h.done[2] - 1000, c.tRP + c.tRCD + c.tCL + burstOf(c));
  EXPECT_EQ(h.ch.stats().rowConflicts, 1u);
  EXPECT_EQ(h.ch.stats().precharges, 1u);
}

TEST(DramLatency, RowConflictWaitsForTrasAndTrc) {
  DramConfig c = baseConfig();
  Harness h(c);
  h.push(req(1, addrOf(c, 4, 1)));
  h.push(req(2, addrOf(c, 4, 2)));
  h.runUntilIdle();
  // ACT at 0, RD at tRCD, PRE once tRAS has passed and the read burst is out, ACT again once
  // both tRP and tRC allow it.
  Cycle pre = std::max<Cycle>(c.tRAS, c.tRCD + burstOf(c));
  Cycle act = std::max<Cycle>(pre + c.tRP, c.tRC);
  EXPECT_EQ(h.done[1], c.tRCD + c.tCL + burstOf(c));
  EXPECT_EQ(h.done[2], act + c.tRCD + c.tCL + burstOf(c));
}

TEST(DramThroughput, SequentialReadsReachPeakBandwidth) {
  DramConfig c = baseConfig();
  Harness h(c);
  const uint32_t n = 1024, bytes = 128; // 128 KiB: every bank, several rows each
  uint32_t next = 0;
  while (next < n || !h.ch.idle()) {
    while (next < n && h.ch.canAccept()) {
      h.push(req(next, uint64_t(next) * bytes, bytes));
      ++next;
    }
    h.step();
  }
  double peak = double(c.busWidthBytes) * c.dataRate; // tCCD <= burst for these defaults
  EXPECT_DOUBLE_EQ(h.ch.peakBytesPerCycle(), peak);
  double achieved = double(n) * bytes / double(h.done[n - 1]);
  EXPECT_GT(achieved, 0.97 * peak) << "achieved " << achieved << " B/cycle";
  EXPECT_LE(achieved, peak);
  EXPECT_EQ(h.ch.stats().busBusyCycles, uint64_t(n) * bytes / c.busWidthBytes / c.dataRate);
  // Each row is opened once: 2 KiB rows hold 16 lines.
  EXPECT_EQ(h.ch.stats().activates, uint64_t(n) * bytes / c.rowBytes);
  EXPECT_EQ(h.ch.stats().rowHits, n - h.ch.stats().activates);
  EXPECT_EQ(h.ch.stats().readBytes, uint64_t(n) * bytes);
}

TEST(DramThroughput, TccdLimitsColumnRate) {
  DramConfig c = baseConfig();
  c.tCCD = 6; // slower than the 4-cycle burst: the bus idles 2 of every 6 cycles
  Harness h(c);
  h.push(req(1, addrOf(c, 0, 0, 0)));
  h.push(req(2, addrOf(c, 0, 0, 64)));
  h.runUntilIdle();
  EXPECT_EQ(h.done[2] - h.done[1], c.tCCD);
  EXPECT_DOUBLE_EQ(h.ch.peakBytesPerCycle(), 64.0 / 6);
}

void pushHitBehindConflict(Harness &h, const DramConfig &c) {
  h.push(req(1, addrOf(c, 0, 10)));
  h.runUntilIdle();
  h.runTo(1000);
  h.push(req(2, addrOf(c, 0, 11)));     // older: conflicts with the open row 10
  h.push(req(3, addrOf(c, 0, 10, 64))); // younger: hits row 10
  h.runUntilIdle();
}

TEST(DramScheduling, FrFcfsServesYoungerRowHitFirst) {
  DramConfig c = baseConfig("frfcfs");
  Harness h(c);
  pushHitBehindConflict(h, c);
  ASSERT_EQ(h.order.size(), 3u);
  EXPECT_EQ(h.order[1], 3u);
  EXPECT_EQ(h.order[2], 2u);
  EXPECT_EQ(h.done[3] - 1000, c.tCL + burstOf(c));
  EXPECT_EQ(h.ch.stats().rowHits, 1u);
  EXPECT_EQ(h.ch.stats().rowConflicts, 1u);
}

TEST(DramScheduling, FrFcfsServesAnOpenRowsHitsOldestFirstPastOtherRows) {
  // Bank 0 has row 10 open. Queued oldest first: 2 (row 11), 3 (row 10), 4 (row 12), 5 (a
  // write to row 10), 6 and 7 (row 10). FR-FCFS serves the open row's reads in arrival order,
  // each a column spacing after the last (the write waits for the read-to-write turnaround,
  // the other rows for the hits to be gone), then the other rows oldest first.
  DramConfig c = baseConfig("frfcfs");
  Harness h(c);
  h.push(req(1, addrOf(c, 0, 10)));
  h.runUntilIdle();
  h.runTo(1000);
  h.push(req(2, addrOf(c, 0, 11)));
  h.push(req(3, addrOf(c, 0, 10, 64)));
  h.push(req(4, addrOf(c, 0, 12)));
  h.push(req(5, addrOf(c, 0, 10, 128), 64, true));
  h.push(req(6, addrOf(c, 0, 10, 192)));
  h.push(req(7, addrOf(c, 0, 10, 256)));
  h.runUntilIdle();
  std::vector<uint64_t> reads;
  for (uint64_t id : h.order)
    if (id != 1 && id != 5)
      reads.push_back(id);
  EXPECT_EQ(reads, (std::vector<uint64_t>{3, 6, 7, 2, 4}));
  const Cycle spacing = h.ch.colSpacing();
  EXPECT_EQ(h.done[3], 1000 + c.tCL + burstOf(c));
  EXPECT_EQ(h.done[6], h.done[3] + spacing);
  EXPECT_EQ(h.done[7], h.done[3] + 2 * spacing);
  EXPECT_EQ(h.ch.stats().rowHits, 4u);      // 3, 5, 6, 7
  EXPECT_EQ(h.ch.stats().rowConflicts, 2u); // 2 (row 10 open), 4 (row 11 open)
  EXPECT_EQ(h.ch.stats().rowMisses, 1u);    // 1
}

TEST(DramScheduling, FcfsKeepsArrivalOrderWithinABank) {
  DramConfig c = baseConfig("fcfs");
  Harness h(c);
  pushHitBehindConflict(h, c);
  ASSERT_EQ(h.order.size(), 3u);
  EXPECT_EQ(h.order[1], 2u);
  EXPECT_EQ(h.order[2], 3u);
  EXPECT_EQ(h.done[2] - 1000, c.tRP + c.tRCD + c.tCL + burstOf(c));
  // Row 10 was closed for request 2, so request 3 conflicts too.
  EXPECT_EQ(h.ch.stats().rowConflicts, 2u);
}

TEST(DramScheduling, WriteDrainServesReadsBeforeOlderWrites) {
  // Writes and reads to one open row, oldest first W0 R1 W2 R3: frfcfs starts with the oldest
  // (a write); frfcfs_wd holds the writes (fewer than the high watermark, half the queue) until
  // no read is left, then drains them.
  DramConfig c = baseConfig("frfcfs_wd");
  c.queueEntries = 16;
  DramConfig plain = c;
  plain.scheduler = "frfcfs";
  Harness wd(c), ff(plain);
  for (Harness *h : {&wd, &ff}) {
    h->push(req(100, addrOf(c, 1, 3)));
    h->runUntilIdle();
    h->runTo(1000);
    for (uint64_t i = 0; i < 4; ++i)
      h->push(req(i, addrOf(c, 1, 3, 64 * (1 + i)), 64, i % 2 == 0));
    h->runUntilIdle();
  }
  ASSERT_EQ(wd.order.size(), 5u);
  EXPECT_EQ((std::vector<uint64_t>(wd.order.begin() + 1, wd.order.end())),
            (std::vector<uint64_t>{1, 3, 0, 2}));
  ASSERT_EQ(ff.order.size(), 5u);
  EXPECT_EQ(ff.order[1], 0u);
}

TEST(DramScheduling, WriteDrainStartsAtTheHighWatermark) {
  // With half the queue (4 of 8) holding writes the channel drains them before younger reads.
  DramConfig c = baseConfig("frfcfs_wd");
  c.queueEntries = 8;
  Harness h(c);
  h.push(req(100, addrOf(c, 1, 3)));
  h.runUntilIdle();
  h.runTo(1000);
  for (uint64_t i = 0; i < 4; ++i)
    h.push(req(i, addrOf(c, 1, 3, 64 * (1 + i)), 64, true));
  h.push(req(10, addrOf(c, 1, 3, 512)));
  h.runUntilIdle();
  ASSERT_EQ(h.order.size(), 6u);
  // the drain stops at the low watermark (2 writes left), the read goes, then the rest
  EXPECT_EQ((std::vector<uint64_t>(h.order.begin() + 1, h.order.end())),
            (std::vector<uint64_t>{0, 1, 10, 2, 3}));
}

TEST(DramScheduling, BanksWorkInParallel) {
  for (const char *policy : {"frfcfs", "fcfs"}) {
    DramConfig c = baseConfig(policy);
    Harness par(c), ser(c);
    for (uint32_t i = 0; i < 4; ++i) {
      par.push(req(i, addrOf(c, i, 1)));
      ser.push(req(i, addrOf(c, 0, 1 + i))); // same bank, different rows
    }
    par.runUntilIdle();
    ser.runUntilIdle();
    Cycle miss = c.tRCD + c.tCL + burstOf(c);
    EXPECT_EQ(par.done[0], miss) << policy;
    // ACTs are tRRD apart (one command per cycle may push one by a cycle or two).
    EXPECT_GE(par.done[3], 3 * c.tRRD + miss) << policy;
    EXPECT_LE(par.done[3], 3 * c.tRRD + miss + 3) << policy;
    EXPECT_LT(par.done[3], 2 * miss) << policy;
    EXPECT_GE(ser.done[3], 3 * Cycle(c.tRC) + miss) << policy;
    EXPECT_EQ(par.ch.stats().rowMisses, 4u);
  }
}

TEST(DramTurnaround, WriteToRead) {
  DramConfig c = baseConfig();
  Harness h(c);
  h.push(req(1, addrOf(c, 1, 3)));
  h.runUntilIdle();
  h.runTo(1000);
  h.push(req(2, addrOf(c, 1, 3, 64), 64, true));
  h.push(req(3, addrOf(c, 1, 3, 128), 64, false));
  h.runUntilIdle();
  Cycle writeEnd = 1000 + c.tCL + burstOf(c);
  EXPECT_EQ(h.done[2], writeEnd);
  EXPECT_EQ(h.done[3], writeEnd + c.tWTR + c.tCL + burstOf(c));
  EXPECT_EQ(h.ch.stats().writes, 1u);
  EXPECT_EQ(h.ch.stats().reads, 2u);
}

TEST(DramTurnaround, ReadToWrite) {
  DramConfig c = baseConfig();
  c.tRTW = 5;
  Harness h(c);
  h.push(req(1, addrOf(c, 1, 3)));
  h.runUntilIdle();
  h.runTo(1000);
  h.push(req(2, addrOf(c, 1, 3, 64)));
  h.push(req(3, addrOf(c, 1, 3, 128), 64, true));
  h.runUntilIdle();
  // The write's data may start tRTW after the read's data ends.
  Cycle wr = 1000 + std::max<Cycle>(std::max(c.tCCD, burstOf(c)), burstOf(c) + c.tRTW);
  EXPECT_EQ(h.done[3], wr + c.tCL + burstOf(c));
}

TEST(DramTurnaround, WriteRecoveryDelaysPrecharge) {
  DramConfig c = baseConfig();
  Harness h(c);
  h.push(req(1, addrOf(c, 1, 3), 64, true));
  h.push(req(2, addrOf(c, 1, 4)));
  h.runUntilIdle();
  Cycle writeEnd = c.tRCD + c.tCL + burstOf(c);
  Cycle pre = std::max<Cycle>(writeEnd + c.tWR, c.tRAS);
  Cycle act = std::max<Cycle>(pre + c.tRP, c.tRC);
  EXPECT_EQ(h.done[1], writeEnd);
  EXPECT_EQ(h.done[2], act + c.tRCD + c.tCL + burstOf(c));
}

TEST(DramBackpressure, FullQueueRefusesRequests) {
  DramConfig c = baseConfig();
  c.queueEntries = 4;
  Harness h(c);
  for (uint32_t i = 0; i < 4; ++i)
    h.push(req(i, addrOf(c, 0, i)));
  EXPECT_FALSE(h.ch.canAccept());
  h.step();
  EXPECT_EQ(h.ch.stats().queueFullCycles, 1u);
  EXPECT_FALSE(h.ch.canAccept()); // an ACT does not free an entry; the column command does
  while (!h.ch.canAccept())
    h.step();
  EXPECT_EQ(h.ch.queued(), 3u);
  EXPECT_EQ(h.now, c.tRCD + 1);
  h.runUntilIdle();
  EXPECT_EQ(h.order, (std::vector<uint64_t>{0, 1, 2, 3}));
}

/// A fixed pseudo-random mix of reads and writes over a few banks and rows.
std::vector<std::pair<Cycle, MemRequest>> mixedTrace(const DramConfig &c) {
  std::vector<std::pair<Cycle, MemRequest>> t;
  uint64_t x = 12345;
  Cycle at = 0;
  for (uint64_t id = 0; id < 400; ++id) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    at += (x >> 60) % 8 == 0 ? 200 : (x >> 40) % 4; // bursts with idle gaps
    uint32_t bank = (x >> 20) % 6, row = (x >> 30) % 3, col = ((x >> 10) % 16) * 128;
    t.push_back(
        {at, req(id, addrOf(c, bank, row, col), (x >> 50) % 2 ? 128 : 32, (x >> 55) % 3 == 0)});
  }
  return t;
}

std::map<uint64_t, Cycle> runTrace(const DramConfig &c, bool skip,
                                   DramChannel::Stats *stats = nullptr) {
  Harness h(c, skip);
  auto trace = mixedTrace(c);
  size_t i = 0;
  while (i < trace.size() || !h.ch.idle()) {
    if (skip && i < trace.size() && h.ch.idle())
      h.now = std::max(h.now, trace[i].first); // nothing to do until the next arrival
    while (i < trace.size() && trace[i].first <= h.now && h.ch.canAccept())
      h.push(trace[i++].second);
    Cycle before = h.now;
    h.step();
    if (skip && i < trace.size()) // do not skip past an arrival (or a blocked one's retry)
      h.now = std::min(h.now, std::max(before + 1, trace[i].first));
  }
  if (stats)
    *stats = h.ch.stats();
  return h.done;
}

TEST(DramDeterminism, SameTraceSameCompletionCycles) {
  for (const char *policy : {"frfcfs", "fcfs", "frfcfs_wd"}) {
    DramConfig c = baseConfig(policy);
    auto a = runTrace(c, false), b = runTrace(c, false);
    EXPECT_EQ(a.size(), 400u);
    EXPECT_EQ(a, b) << policy;
  }
}

TEST(DramDeterminism, SkippingIdleCyclesChangesNothing) {
  for (const char *policy : {"frfcfs", "fcfs", "frfcfs_wd"}) {
    for (uint32_t refi : {0u, 300u}) {
      DramConfig c = baseConfig(policy);
      c.tREFI = refi;
      c.tRFC = refi ? 40 : 0;
      DramChannel::Stats sd, ss;
      auto dense = runTrace(c, false, &sd), skipped = runTrace(c, true, &ss);
      EXPECT_EQ(dense, skipped) << policy << " tREFI " << refi;
      EXPECT_EQ(sd.refreshes, ss.refreshes);
      EXPECT_EQ(sd.activates, ss.activates);
      EXPECT_EQ(sd.precharges, ss.precharges);
      if (refi) {
        EXPECT_GT(sd.refreshes, 0u);
      }
    }
  }
}

/// A scheduler that hides its policy's per-bank pick: the channel then builds the full candidate
/// list for every pick (the reference the per-bank view must match exactly).
class ListOnlyScheduler : public IDramScheduler {
public:
  explicit ListOnlyScheduler(std::unique_ptr<IDramScheduler> inner) : inner_(std::move(inner)) {}
  int pick(const std::vector<DramCandidate> &q, uint32_t numBanks, Cycle now,
           Cycle &soonest) override {
    return inner_->pick(q, numBanks, now, soonest);
  }
  void setQueueEntries(uint32_t entries) override { inner_->setQueueEntries(entries); }

private:
  std::unique_ptr<IDramScheduler> inner_;
};

/// Ticks two channels (the policy through its per-bank view, and through the candidate list) on
/// the same random trace, every cycle, and checks every observable result after every tick.
void expectViewMatchesList(const std::string &policy, uint64_t seed, uint32_t queueEntries,
                           uint32_t refi) {
  static const bool registered = [] {
    dramSchedulerRegistry().add("frfcfs_list", [] {
      return std::unique_ptr<IDramScheduler>(
          new ListOnlyScheduler(dramSchedulerRegistry().create("frfcfs")));
    });
    dramSchedulerRegistry().add("fcfs_list", [] {
      return std::unique_ptr<IDramScheduler>(
          new ListOnlyScheduler(dramSchedulerRegistry().create("fcfs")));
    });
    dramSchedulerRegistry().add("frfcfs_wd_list", [] {
      return std::unique_ptr<IDramScheduler>(
          new ListOnlyScheduler(dramSchedulerRegistry().create("frfcfs_wd")));
    });
    return true;
  }();
  (void)registered;
  DramConfig c = baseConfig(policy);
  c.queueEntries = queueEntries;
  c.banks = 8;
  c.tREFI = refi;
  c.tRFC = refi ? 40 : 0;
  DramConfig lc = c;
  lc.scheduler = policy + "_list";
  DramChannel view(c, 0), list(lc, 0);
  uint64_t x = seed;
  auto rnd = [&x] {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x >> 33;
  };
  uint64_t id = 0;
  for (Cycle now = 0; now < 20000; ++now) {
    // Bursts of arrivals over few rows per bank (hits, misses and conflicts), reads and writes
    // in phases (the write drain's watermarks), and quiet stretches.
    bool burst = (now / 500) % 3 != 2;
    bool writePhase = (now / 1500) % 2 == 1;
    while (burst && rnd() % 3 == 0 && view.canAccept()) {
      ASSERT_TRUE(list.canAccept());
      uint32_t bank = uint32_t(rnd() % c.banks), row = uint32_t(rnd() % 3);
      uint32_t col = uint32_t(rnd() % 16) * 128;
      bool write = rnd() % 4 < (writePhase ? 3u : 1u);
      MemRequest r = req(id++, addrOf(c, bank, row, col), rnd() % 2 ? 128 : 32, write);
      view.push(r, now);
      list.push(r, now);
    }
    ASSERT_EQ(view.canAccept(), list.canAccept());
    view.tick(now);
    list.tick(now);
    ASSERT_EQ(view.nextEventCycle(now), list.nextEventCycle(now)) << "cycle " << now;
    ASSERT_EQ(view.queued(), list.queued());
    while (view.hasResponse()) {
      ASSERT_TRUE(list.hasResponse()) << "cycle " << now;
      MemRequest a = view.popResponse(), b = list.popResponse();
      ASSERT_EQ(a.id, b.id) << "cycle " << now;
    }
    ASSERT_FALSE(list.hasResponse()) << "cycle " << now;
  }
  const DramChannel::Stats &a = view.stats(), &b = list.stats();
  EXPECT_GT(a.reads + a.writes, 1000u);
  EXPECT_GT(a.rowConflicts, 100u);
  EXPECT_EQ(a.reads, b.reads);
  EXPECT_EQ(a.writes, b.writes);
  EXPECT_EQ(a.rowHits, b.rowHits);
  EXPECT_EQ(a.rowMisses, b.rowMisses);
  EXPECT_EQ(a.rowConflicts, b.rowConflicts);
  EXPECT_EQ(a.activates, b.activates);
  EXPECT_EQ(a.precharges, b.precharges);
  EXPECT_EQ(a.refreshes, b.refreshes);
  EXPECT_EQ(a.queueFullCycles, b.queueFullCycles);
  EXPECT_EQ(a.totalLatency, b.totalLatency);
  EXPECT_EQ(a.maxLatency, b.maxLatency);
}

TEST(DramScheduling, PerBankViewDecidesAsTheFullCandidateList) {
  for (const char *policy : {"frfcfs", "fcfs", "frfcfs_wd"})
    for (uint64_t seed : {1ull, 7ull, 1234567ull})
      for (uint32_t entries : {8u, 32u, 128u})
        for (uint32_t refi : {0u, 700u}) {
          SCOPED_TRACE(std::string(policy) + " seed " + std::to_string(seed) + " entries " +
                       std::to_string(entries) + " tREFI " + std::to_string(refi));
          expectViewMatchesList(policy, seed, entries, refi);
          if (HasFatalFailure())
            return;
        }
}

TEST(DramDeterminism, NextEventNeverAfterNextCompletion) {
  DramConfig c = baseConfig();
  c.tREFI = 300;
  c.tRFC = 40;
  Harness h(c);
  auto trace = mixedTrace(c);
  std::vector<std::pair<Cycle, Cycle>> events; // (cycle, nextEventCycle after its tick)
  std::map<uint64_t, Cycle> pushed;
  size_t i = 0;
  while (i < trace.size() || !h.ch.idle()) {
    while (i < trace.size() && trace[i].first <= h.now && h.ch.canAccept()) {
      pushed[trace[i].second.id] = h.now;
      h.push(trace[i++].second);
    }
    Cycle now = h.now;
    h.step();
    events.push_back({now, h.ch.nextEventCycle(now)});
  }
  ASSERT_EQ(h.done.size(), trace.size());
  size_t checked = 0;
  for (auto [now, ev] : events) {
    // The next completion among requests already pushed at `now`.
    Cycle next = kNever;
    for (auto &[id, cyc] : h.done)
      if (pushed[id] <= now && cyc > now)
        next = std::min(next, cyc);
    if (next == kNever)
      continue;
    ++checked;
    EXPECT_GT(ev, now);
    EXPECT_LE(ev, next) << "at cycle " << now;
  }
  EXPECT_GT(checked, 1000u);
}

TEST(DramDeterminism, NextEventIsTheEarliestQueuedCommand) {
  // Two closed banks: after the first ACT the other bank's ACT waits for tRRD, the first
  // bank's column command for tRCD; the earlier of the two is the next event.
  DramConfig c = baseConfig();
  ASSERT_LT(c.tRRD, c.tRCD);
  DramChannel ch(c, 0);
  ch.push(req(1, addrOf(c, 0, 0)), 0);
  ch.push(req(2, addrOf(c, 1, 0)), 0);
  ch.tick(0); // ACT bank 0
  EXPECT_EQ(ch.nextEventCycle(0), Cycle(c.tRRD));
  ch.tick(c.tRRD); // ACT bank 1
  // bank 0's column command (tRCD) before bank 1's (tRRD + tRCD)
  EXPECT_EQ(ch.nextEventCycle(c.tRRD), Cycle(c.tRCD));

  // An open bank's other request needs a PRE, which tRRD does not delay: with tRRD after
  // tRAS, the PRE's cycle (tRAS after the ACT) is the next event, before the read's completion.
  DramConfig o = baseConfig();
  o.tRAS = 20;
  o.tRRD = 30;
  DramChannel ch2(o, 0);
  ch2.push(req(1, addrOf(o, 3, 0)), 0);
  ch2.tick(0);                                  // ACT
  ASSERT_EQ(ch2.nextEventCycle(0), Cycle(o.tRCD));
  ch2.tick(o.tRCD);                             // RD (its data ends tRCD + burst < tRAS)
  ch2.push(req(2, addrOf(o, 3, 1)), o.tRCD + 1); // another row of the same bank
  ch2.tick(o.tRCD + 1);                         // nothing can issue yet
  ASSERT_LT(o.tRAS, o.tRCD + o.tCL + burstOf(o));
  EXPECT_EQ(ch2.nextEventCycle(o.tRCD + 1), Cycle(o.tRAS));
}

TEST(DramDeterminism, NextEventWaitsForTheCommandsTheSchedulerServes) {
  // frfcfs_wd drains writes to bank 1's open row while a read waits for an ACT on closed bank
  // 2, which the drain does not serve: that ACT could go at once, but after a tick that found
  // nothing to issue the channel's next event is the next write's column command (the bus
  // spacing after the last), not the next cycle; ticking only at its events changes nothing.
  DramConfig c = baseConfig("frfcfs_wd");
  c.queueEntries = 8; // drains from 4 writes down to 2
  auto scenario = [&](Harness &h) {
    h.push(req(100, addrOf(c, 1, 3)));
    h.runUntilIdle();
    h.runTo(1000);
    for (uint64_t i = 0; i < 4; ++i)
      h.push(req(i, addrOf(c, 1, 3, 64 * (1 + i)), 64, true));
    h.push(req(10, addrOf(c, 2, 0)));
  };
  Harness h(c);
  scenario(h);
  h.step(); // 1000: the first write's column command
  ASSERT_EQ(h.ch.queued(), 4u);
  h.step(); // 1001: nothing the drain serves can go
  EXPECT_EQ(h.ch.queued(), 4u);
  EXPECT_EQ(h.ch.nextEventCycle(1001), 1000 + h.ch.colSpacing());
  EXPECT_EQ(h.ch.stats().activates, 1u); // (the read's ACT waits)
  h.runUntilIdle();
  Harness s(c, true);
  scenario(s);
  s.runUntilIdle();
  EXPECT_EQ(h.done, s.done);
  EXPECT_EQ(h.order, s.order);
  // (the read goes once the drain ends at 2 writes left, then the last writes)
  EXPECT_EQ(s.order, (std::vector<uint64_t>{100, 0, 1, 10, 2, 3}));
  EXPECT_EQ(h.ch.stats().activates, s.ch.stats().activates);
  EXPECT_EQ(h.ch.stats().rowHits, s.ch.stats().rowHits);
}

TEST(DramDeterminism, ManyRequestsInTheReturnPipeline) {
  // A long read return pipeline keeps many requests in flight while new ones issue and old
  // ones retire: each completes once, no earlier than its push + tCL + burst + the pipeline,
  // and ticking from event to event gives the same cycles.
  DramConfig c = baseConfig();
  c.extraLatency = 200;
  std::map<uint64_t, Cycle> runs[2];
  for (int skip = 0; skip < 2; ++skip) {
    Harness h(c, skip != 0);
    std::map<uint64_t, Cycle> pushed;
    uint64_t id = 0;
    for (int guard = 0; id < 3000 || !h.ch.idle(); ++guard) {
      ASSERT_LT(guard, 1000000);
      // (arrivals in stretches of 1500 cycles with pauses as long, in which the queue and the
      // pipeline drain)
      while (id < 3000 && (h.now / 1500) % 2 == 0 && h.ch.canAccept()) {
        pushed[id] = h.now;
        h.push(req(id, id * 64)); // sequential: each row opened once
        ++id;
      }
      const Cycle before = h.now;
      h.step();
      if (skip && id < 3000) // (no skipping past an arrival: only the last drain skips)
        h.now = before + 1;
    }
    ASSERT_EQ(h.done.size(), pushed.size());
    for (auto &[rid, at] : pushed)
      EXPECT_GE(h.done[rid], at + c.tCL + burstOf(c) + c.extraLatency) << "request " << rid;
    runs[skip] = h.done;
  }
  EXPECT_EQ(runs[0], runs[1]);
}

TEST(DramRefresh, RefreshBlocksTheChannelForTrfc) {
  DramConfig c = baseConfig();
  c.tREFI = 500;
  c.tRFC = 60;
  Harness h(c);
  h.runTo(c.tREFI);
  h.push(req(1, addrOf(c, 0, 0)));
  h.runUntilIdle();
  // All banks are closed, so REF issues at tREFI and the ACT waits tRFC.
  EXPECT_EQ(h.done[1], c.tREFI + c.tRFC + c.tRCD + c.tCL + burstOf(c));
  EXPECT_EQ(h.ch.stats().refreshes, 1u);
}

TEST(DramRefresh, RefreshClosesOpenRows) {
  DramConfig c = baseConfig();
  c.tREFI = 500;
  c.tRFC = 60;
  Harness h(c, true);
  h.push(req(1, addrOf(c, 0, 0)));
  h.runUntilIdle();
  h.now = 1800; // skipped idle time covers the refreshes due at 500, 1000 and 1500
  h.push(req(2, addrOf(c, 0, 0, 64)));
  h.runUntilIdle();
  EXPECT_EQ(h.ch.stats().refreshes, 3u);
  EXPECT_EQ(h.ch.stats().rowMisses, 2u);
  EXPECT_EQ(h.ch.stats().precharges, 1u);
  EXPECT_EQ(h.done[2] - 1800, c.tRCD + c.tCL + burstOf(c));
}

TEST(DramAddressMap, RowBankColumn) {
  DramConfig c = baseConfig();
  DramChannel ch(c, 0);
  DramAddress a = ch.decode(addrOf(c, 5, 9, 300));
  EXPECT_EQ(a.bank, 5u);
  EXPECT_EQ(a.row, 9u);
  EXPECT_EQ(a.column, 300u);
  EXPECT_EQ(ch.decode(c.rowBytes - 1).bank, 0u);
  EXPECT_EQ(ch.decode(c.rowBytes).bank, 1u);
}

TEST(DramAddressMap, BankXorSpreadsRowStrides) {
  DramConfig c = baseConfig();
  DramChannel ch(c, 0, DramAddressMapKind::BankXor);
  std::vector<bool> seen(c.banks, false);
  for (uint64_t row = 0; row < c.banks; ++row) {
    DramAddress a = ch.decode(addrOf(c, 0, row)); // same plain bank, successive rows
    EXPECT_EQ(a.row, row);
    EXPECT_EQ(a.bank, row % c.banks);
    seen[a.bank] = true;
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), true), int(c.banks));
}

TEST(DramConfigCheck, NamesTheField) {
  DramConfig c = baseConfig("lifo");
  EXPECT_NE(DramChannel::checkConfig(c).find("scheduler"), std::string::npos);
  c = baseConfig();
  c.banks = 12;
  EXPECT_TRUE(DramChannel::checkConfig(c).empty());
  EXPECT_NE(DramChannel::checkConfig(c, DramAddressMapKind::BankXor).find("banks"),
            std::string::npos);
  c.rowBytes = 0;
  EXPECT_NE(DramChannel::checkConfig(c).find("rowBytes"), std::string::npos);
}

} // namespace
} // namespace ptxsim::timing

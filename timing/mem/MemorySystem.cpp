#include "timing/mem/MemorySystem.h"

#include "base/Stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ptxsim::timing {

namespace {
using Timed = std::pair<MemRequest, Cycle>;

[[noreturn]] void fatalConfig(const char *what) {
  std::fprintf(stderr, "ptxsim: internal error: memory system: %s\n", what);
  std::abort();
}

uint64_t toKHz(double mhz) { return std::max<uint64_t>(1, uint64_t(std::llround(mhz * 1000.0))); }
} // namespace

struct MemorySystem::Partition : base::HugeAllocated {
  Partition(uint32_t id, const TimingConfig &cfg, uint32_t channels)
      : id(id), l2(cfg.mem.l2, "l2[" + std::to_string(id) + "]"), toDram(channels) {
    chans.reserve(channels);
    for (uint32_t c = 0; c < channels; ++c)
      chans.push_back(std::make_unique<DramChannel>(cfg.dram, id * channels + c));
    chanNext.assign(channels, 0);
    released.reserve(cfg.mem.l2.mshrMaxMerge * 2);
    poolSlots = cfg.mem.l2.mshrEntries * cfg.mem.l2.mshrMaxMerge;
    // (the pool grows as slots are first used, lowest first: a GPU's 80 partitions of
    // thousands of slots each, written out in full, were most of building the memory system;
    // so are the free slots: those never used are the ones from `fresh` up)
    freeSlots.reserve(poolSlots);
  }
  /// The slot the next request to wait in an MSHR takes: the last freed, else the lowest never
  /// used (a stack of every slot, lowest on top, gives the same).
  bool slotFree() const { return !freeSlots.empty() || fresh < poolSlots; }
  uint32_t nextSlot() const { return freeSlots.empty() ? fresh : freeSlots.back(); }
  void takeSlot() {
    if (freeSlots.empty())
      ++fresh;
    else
      freeSlots.pop_back();
  }
  uint32_t id;
  Cache l2;
  std::vector<std::unique_ptr<DramChannel>> chans;
  std::vector<Cycle> chanNext; ///< DRAM cycle at which each busy channel next needs a tick
  Ring<Timed> in;              ///< requests, with the L2 cycle they may be served
  Ring<Timed> out;             ///< responses, with the icnt cycle they may leave
  std::vector<Ring<Timed>> toDram; ///< per channel, with the first DRAM cycle it may be pushed
  uint32_t toDramCount = 0;
  uint32_t incoming = 0; ///< packets in flight to this partition plus `in`
  std::vector<MemRequest> pool; ///< requests waiting in L2 MSHRs (token = slot; grows on use)
  uint32_t poolSlots = 0;       ///< slots in all (the L2's MSHR entries times their merges)
  std::vector<uint32_t> freeSlots; ///< freed slots (slots from `fresh` up are free too)
  uint32_t fresh = 0;               ///< slots below it have been used
  PartitionStats stats;
  Cycle atomicFree = 0; ///< L2 cycle the slice's atomic unit is free again
  /// With shared atomic units: the atomics this tick took, for endTick: the L2 cycle each was
  /// ready, whether its line came from DRAM, and its response's place in `out` (counted from
  /// the front: nothing leaves `out` between the partitions' phase and endTick), which waits
  /// there with no time yet so that the responses keep the order they were made in.
  struct PendingAtomic {
    Cycle c;
    bool fill;
    uint32_t slot;
  };
  std::vector<PendingAtomic> atomicWait;
  std::vector<uint64_t> released; ///< fill scratch (per partition: partitions tick in parallel)
};

MemorySystem::MemorySystem(const TimingConfig &cfg)
    : cfg_(cfg), numSms_(cfg.numSms()), numPartitions_(cfg.mem.numPartitions),
      interleave_(cfg.mem.partitionInterleaveBytes), channels_(cfg.dram.channelsPerPartition),
      hashPartitions_(cfg.mem.partitionIndexing != 0),
      icnt_(cfg.mem, cfg.numSms(), cfg.mem.numPartitions) {
  if (!numPartitions_ || !channels_ || !numSms_)
    fatalConfig("numPartitions, channelsPerPartition and the SM count must be non-zero");
  if (interleave_ % cfg.mem.l2.lineBytes || cfg.mem.l2.lineBytes < 128)
    fatalConfig("partitionInterleaveBytes must be a multiple of the L2 line (>= 128 bytes)");
  if (cfg.mem.l2.sectorBytes < 32 && cfg.mem.l2.sectorBytes != cfg.mem.l2.lineBytes)
    fatalConfig("L2 sectors must be at least 32 bytes");
  core_.khz = toKHz(cfg.core.clockMHz);
  icntD_.khz = toKHz(cfg.mem.icntClockMHz);
  l2D_.khz = toKHz(cfg.mem.l2ClockMHz);
  dramD_.khz = toKHz(cfg.dram.clockMHz);
  // The ROP delay makes an unloaded L2 hit take l2Latency core cycles (see the header).
  double coreToIcnt = double(core_.khz) / double(icntD_.khz);
  double rest = double(cfg.mem.l2Latency) - 2.0 * cfg.mem.icntLatency * coreToIcnt - 1.0;
  double restL2 = rest * double(l2D_.khz) / double(core_.khz) - cfg.mem.l2.hitLatency;
  rop_ = restL2 > 0 ? uint32_t(std::llround(restL2)) : 0;
  farL2_ = uint32_t(std::llround(double(cfg.mem.l2FarLatency) * double(l2D_.khz) / double(core_.khz)));
  if (cfg.mem.l2FarLatency && !farL2_)
    farL2_ = 1;
  ports_.resize(numSms_);
  minReplyLatency_.assign(numSms_, kNever);
  for (uint32_t sm = 0; sm < numSms_; ++sm)
    for (uint32_t p = 0; p < numPartitions_; ++p)
      minReplyLatency_[sm] = std::min<Cycle>(
          minReplyLatency_[sm], icnt_.latency(icnt_.partitionNode(p), icnt_.smNode(sm)));
  smInFlag_.assign((numSms_ + 7) / 8 * 8, 0); // (padded: anyByteSet reads 8 bytes at a time)
  outFlag_.assign((numPartitions_ + 7) / 8 * 8, 0);
  partAwake_.assign((numPartitions_ + 7) / 8 * 8, 0); // (padded, as above)
  std::fill(partAwake_.begin(), partAwake_.begin() + numPartitions_, 1);
  partWake_.assign(numPartitions_, PartitionWake{});
  for (uint32_t p = 0; p < numPartitions_; ++p)
    parts_.push_back(std::make_unique<Partition>(p, cfg_, channels_));
  atomicUnits_ = std::min(cfg.mem.l2AtomicUnits, numPartitions_);
  if (atomicUnits_) {
    unitFree_.assign(atomicUnits_, 0);
    atomicWaitFlag_.assign((numPartitions_ + 7) / 8 * 8, 0); // (padded: forEachByteSet)
  }
}

MemorySystem::~MemorySystem() = default;

const Cache &MemorySystem::l2(uint32_t p) const { return parts_[p]->l2; }
void MemorySystem::hostWrite(uint64_t addr, uint64_t bytes) {
  const CacheConfig &lc = cfg_.mem.l2;
  uint64_t capacity = uint64_t(lc.sets) * lc.ways * lc.lineBytes * numPartitions_;
  uint64_t end = addr + bytes, from = bytes > capacity ? end - capacity : addr;
  uint64_t line = lc.lineBytes;
  for (uint64_t a = from & ~(line - 1); a < end; a += line) {
    uint64_t lo = std::max(a, from), hi = std::min(a + line, end);
    Partition &p = *parts_[partitionOf(a)];
    uint64_t local = partitionLocal(a);
    p.l2.install(local, p.l2.sectorsOf(lo - a, uint32_t(hi - lo)), true);
  }
}

void MemorySystem::flushL2() {
  for (auto &p : parts_)
    p->l2.invalidateAll();
}
const DramChannel &MemorySystem::dram(uint32_t p, uint32_t ch) const {
  return *parts_[p]->chans[ch];
}

Cycle MemorySystem::domainTarget(const Domain &d, Cycle coreNow) const {
  // (every partition asks for the same two targets each cycle: no division where the clocks
  // are equal, a 64-bit one while the product fits)
  if (d.khz == core_.khz)
    return coreNow + 1;
  if (coreNow < (uint64_t(1) << 40) && d.khz < (uint64_t(1) << 23))
    return (coreNow + 1) * d.khz / core_.khz;
  return Cycle((unsigned __int128)(coreNow + 1) * d.khz / core_.khz);
}

Cycle MemorySystem::toCore(const Domain &d, Cycle x) const {
  if (x == kNever)
    return kNever;
  if (d.khz == core_.khz)
    return x;
  // (a 64-bit division while the product fits, as in domainTarget)
  if (x < (uint64_t(1) << 40) && core_.khz < (uint64_t(1) << 23) && d.khz < (uint64_t(1) << 23))
    return ((x + 1) * core_.khz + d.khz - 1) / d.khz - 1;
  unsigned __int128 num = (unsigned __int128)(x + 1) * core_.khz;
  return Cycle((num + d.khz - 1) / d.khz) - 1;
}

Cycle MemorySystem::convert(Cycle c, const Domain &from, const Domain &to) {
  if (from.khz == to.khz)
    return c;
  if (c < (uint64_t(1) << 40) && to.khz < (uint64_t(1) << 23) && from.khz < (uint64_t(1) << 23))
    return (c * to.khz + from.khz - 1) / from.khz;
  unsigned __int128 num = (unsigned __int128)c * to.khz;
  return Cycle((num + from.khz - 1) / from.khz);
}

void MemorySystem::push(uint32_t sm, const MemRequest &r, Cycle coreNow) {
  MemRequest q = r;
  q.sm = sm;
  q.isResponse = false;
  q.partition = partitionOf(r.addr);
  if (!q.sectorMask) {
    uint64_t off = r.addr & 127;
    uint64_t last = std::min<uint64_t>(127, off + std::max(1u, r.bytes) - 1);
    for (uint64_t s = off / 32; s <= last / 32; ++s)
      q.sectorMask |= 1u << s;
  }
  // Injection no earlier than the first icnt cycle of this core cycle (domains that were skipped
  // over may be behind).
  ports_[sm].in.push({q, convert(coreNow, core_, icntD_)});
  if (!smInFlag_[sm])
    smInFlag_[sm] = 1;
}

MemRequest MemorySystem::popResponse(uint32_t sm) { return icnt_.pop(icnt_.smNode(sm)); }

bool MemorySystem::anySmInput() const { return anyByteSet(smInFlag_); }

bool MemorySystem::farSide(const Partition &p, uint32_t sm) const {
  return (uint64_t(p.id) * 2 / numPartitions_) != (uint64_t(sm) * 2 / numSms_);
}

uint32_t MemorySystem::toL2Mask(const MemRequest &r, uint64_t local) const {
  const Cache &c = parts_[0]->l2;
  uint64_t base = (local & ~uint64_t(127)) - c.lineAddr(local); // 128-byte block within the line
  if (cfg_.mem.l2.sectorBytes == 32) // (sector s of the block is sector base / 32 + s of the line)
    return (r.sectorMask & 0xFu) << (base >> 5);
  uint32_t m = 0;
  for (uint32_t s = 0; s < 4; ++s)
    if (r.sectorMask & (1u << s))
      m |= c.sectorsOf(base + 32 * s, 32);
  return m;
}

void MemorySystem::sendToDram(Partition &p, uint64_t localLine, uint32_t l2Mask, bool write,
                              Cycle l2Now) {
  if (!l2Mask)
    return;
  uint32_t sb = cfg_.mem.l2.sectorBytes;
  uint32_t ch = uint32_t((localLine / interleave_) % channels_);
  uint64_t chanLine =
      localLine / (uint64_t(interleave_) * channels_) * interleave_ + localLine % interleave_;
  MemRequest d;
  d.id = localLine;
  d.addr = chanLine + uint64_t(__builtin_ctz(l2Mask)) * sb;
  d.bytes = uint32_t(sectorCount(l2Mask)) * sb;
  d.sectorMask = l2Mask;
  d.write = write;
  d.partition = p.id;
  p.toDram[ch].push({d, convert(l2Now, l2D_, dramD_)});
  ++p.toDramCount;
  if (write)
    ++p.stats.dramWrites;
  else
    ++p.stats.dramReads;
}

void MemorySystem::icntCycle(Cycle c, bool smInput) {
  if (smInput) {
    // Round-robin priority among SMs for partition input credits: from rrSm_ to the last SM,
    // then from the first, visiting only the SMs whose queue holds a request (their byte).
    uint32_t start = rrSm_;
    rrSm_ = rrSm_ + 1 == numSms_ ? 0 : rrSm_ + 1;
    auto serve = [&](size_t s) {
      Ring<Timed> &q = ports_[s].in;
      if (q.front().second > c || !icnt_.canSend(icnt_.smNode(uint32_t(s)), c))
        return;
      Partition &p = *parts_[q.front().first.partition];
      // The ROP delay is a pipeline taking a request per L2 cycle: its stages add to the input
      // credits, else a long L2 latency caps each slice at kPartitionInputEntries requests per
      // latency (on the H100 preset: 32 per 276 cycles, a third of the DRAM bandwidth)
      if (p.incoming >= kPartitionInputEntries + rop_)
        return;
      icnt_.send(icnt_.smNode(uint32_t(s)), icnt_.partitionNode(p.id), q.front().first, c);
      partAwake_[p.id] = 1;
      q.pop();
      if (q.empty())
        smInFlag_[s] = 0;
      ++p.incoming;
    };
    forEachByteSet(smInFlag_, start, numSms_, serve);
    forEachByteSet(smInFlag_, 0, start, serve);
  }
  // Replies, in partition order, from the partitions with one waiting (their byte: this
  // one-thread step does not visit every partition).
  forEachByteSet(outFlag_, 0, numPartitions_, [&](size_t pi) {
    Partition &p = *parts_[pi];
    uint32_t node = icnt_.partitionNode(p.id);
    if (p.out.front().second <= c && icnt_.canSend(node, c)) {
      const MemRequest &r = p.out.front().first;
      icnt_.send(node, icnt_.smNode(r.sm), r, c);
      p.out.pop();
      if (p.out.empty()) {
        outFlag_[pi] = 0;
        // Its last reply gone, a partition left with nothing to do falls asleep here, as its
        // next tick would put it (a waiting partition with nothing queued is not ticked again
        // until a packet comes): idle() and the passes over awake partitions skip it. Its wakes
        // are kNever since that tick (nothing queued, no DRAM work), so the summary stands.
        if (partitionIdle(p) && !icnt_.pendingAt(node))
          partAwake_[pi] = 0;
      }
    }
  });
  // (packets that arrived at a partition or an SM wait in its node's queue: the node pops them
  // itself in its own phase, tickPartition or the SM's LD/ST unit, on its host thread)
}

void MemorySystem::takeArrivals(Partition &p) {
  // Every icnt cycle runs while a packet is in flight to a partition, so the packet would have
  // been popped in the icnt cycle it arrived: that cycle gives its L2 cycle.
  uint32_t node = icnt_.partitionNode(p.id);
  if (!icntD_.next)
    return;
  while (icnt_.hasArrival(node, icntD_.next - 1)) {
    Cycle a = icnt_.frontArrival(node);
    p.in.push({icnt_.pop(node), convert(a, icntD_, l2D_) + rop_});
  }
}

/// L2 cycle at which atomic `r`, ready at `c`, is done: requests queue for the slice's atomic
/// unit, which spends the configured cycles per lane (same-address lanes serialize); a
/// compare-and-swap's response may wait longer than the unit is held (l2AtomicCasLaneLatency).
Cycle MemorySystem::atomicDone(Cycle &unitFree, const MemRequest &r, Cycle c) const {
  const MemoryConfig &m = cfg_.mem;
  double same = r.atomicCas && m.l2AtomicCasSameAddrCycles > 0       ? m.l2AtomicCasSameAddrCycles
                : r.atomicFloat && m.l2AtomicFloatSameAddrCycles > 0 ? m.l2AtomicFloatSameAddrCycles
                                                                     : m.l2AtomicSameAddrCycles;
  // CAS lanes on one word: the first with the current value swaps, the rest only compare; other
  // atomics: the unit takes the request's first lane, further ones on that word wait for it
  double sameCost = r.atomicCas && m.l2AtomicCasLaneCycles > 0 && r.atomicSameAddr
                        ? same + m.l2AtomicCasLaneCycles * (r.atomicSameAddr - 1)
                    : !r.atomicCas && m.l2AtomicFirstLaneCycles > 0 && r.atomicSameAddr
                        ? m.l2AtomicFirstLaneCycles + same * (r.atomicSameAddr - 1)
                        : same * r.atomicSameAddr;
  double cost = sameCost +
                m.l2AtomicLaneCycles * (r.atomicLanes - std::min(r.atomicLanes, r.atomicSameAddr));
  Cycle start = std::max(c, unitFree);
  unitFree = start + Cycle(std::ceil(cost));
  if (r.atomicCas && m.l2AtomicCasLaneLatency > 0 && r.atomicSameAddr > 1)
    return unitFree + Cycle(std::ceil(m.l2AtomicCasLaneLatency * (r.atomicSameAddr - 1)));
  return unitFree;
}

void MemorySystem::queueAtomic(Partition &p, const MemRequest &r, Cycle c, bool fill) {
  MemRequest resp = r;
  resp.isResponse = true;
  if (atomicUnits_) {
    p.atomicWait.push_back({c, fill, uint32_t(p.out.size())});
    atomicWaitFlag_[p.id] = 1;
    p.out.push({resp, kNever}); // (its time comes at endTick)
  } else {
    Cycle done = atomicDone(p.atomicFree, r, c);
    p.out.push({resp, convert(fill ? done + 1 : done + cfg_.mem.l2.hitLatency, l2D_, icntD_)});
  }
  outFlag_[p.id] = 1;
}

void MemorySystem::serveSharedAtomics() {
  // Slice p uses unit p * units / partitions: a unit's slices are consecutive, so the flagged
  // partitions come in runs per unit.
  auto unitOf = [&](size_t pi) { return uint32_t(uint64_t(pi) * atomicUnits_ / numPartitions_); };
  auto serve = [&](uint32_t unit) {
    std::stable_sort(unitScratch_.begin(), unitScratch_.end(),
                     [](const WaitingAtomic &a, const WaitingAtomic &b) { return a.c < b.c; });
    for (const WaitingAtomic &w : unitScratch_) {
      Partition &p = *parts_[w.partition];
      const Partition::PendingAtomic &a = p.atomicWait[w.index];
      Timed &resp = p.out[a.slot];
      Cycle done = atomicDone(unitFree_[unit], resp.first, a.c);
      resp.second = convert(a.fill ? done + 1 : done + cfg_.mem.l2.hitLatency, l2D_, icntD_);
    }
    unitScratch_.clear();
  };
  uint32_t current = 0;
  forEachByteSet(atomicWaitFlag_, 0, numPartitions_, [&](size_t pi) {
    if (!unitScratch_.empty() && unitOf(pi) != current)
      serve(current);
    current = unitOf(pi);
    const Partition &p = *parts_[pi];
    for (uint32_t k = 0; k < p.atomicWait.size(); ++k)
      unitScratch_.push_back({p.atomicWait[k].c, uint32_t(pi), k});
  });
  if (!unitScratch_.empty())
    serve(current);
  forEachByteSet(atomicWaitFlag_, 0, numPartitions_, [&](size_t pi) {
    parts_[pi]->atomicWait.clear();
    atomicWaitFlag_[pi] = 0;
  });
}

void MemorySystem::l2Cycle(Partition &p, Cycle c) {
  const CacheConfig &lc = cfg_.mem.l2;
  for (auto &ch : p.chans) {
    while (ch->hasResponse()) {
      MemRequest d = ch->popResponse();
      if (d.write)
        continue; // a writeback finished
      p.released.clear();
      CacheFillResult fr = p.l2.fill(d.id, d.sectorMask, c, p.released);
      if (fr.evicted.valid && fr.evicted.dirty)
        sendToDram(p, fr.evicted.lineAddr, fr.evicted.dirtyMask, true, c);
      Cycle leave = convert(c + 1, l2D_, icntD_);
      for (uint64_t tok : p.released) {
        MemRequest r = p.pool[size_t(tok)];
        p.freeSlots.push_back(uint32_t(tok));
        if (farL2_ && !r.atomic && farSide(p, r.sm)) // the fill also leaves a copy on its side
          p.l2.setFarCopy(partitionLocal(r.addr), true);
        if (r.atomic) {
          p.l2.markDirty(partitionLocal(r.addr), toL2Mask(r, partitionLocal(r.addr)));
          queueAtomic(p, r, c, true);
          continue;
        }
        r.isResponse = true;
        p.out.push({r, leave});
        outFlag_[p.id] = 1;
      }
    }
  }
  if (p.in.empty() || p.in.front().second > c)
    return;
  const MemRequest &r = p.in.front().first;
  bool plainWrite = r.write && !r.atomic;
  // A request that may send to DRAM needs room there (a miss plus a writeback).
  if (p.toDramCount + 2 > kDramPendingEntries || (!plainWrite && !p.slotFree())) {
    ++p.stats.stallCycles;
    return;
  }
  uint64_t local = partitionLocal(r.addr);
  uint32_t mask = toL2Mask(r, local);
  if (plainWrite) {
    CacheAccessResult res = p.l2.access(local, mask, true, r.sm, 0, c);
    if (res.evicted.valid && res.evicted.dirty)
      sendToDram(p, res.evicted.lineAddr, res.evicted.dirtyMask, true, c);
    if (res.sendWrite)
      sendToDram(p, p.l2.lineAddr(local), mask, true, c);
    if (farL2_) // a write leaves the line on the writer's side only
      p.l2.setFarCopy(local, farSide(p, r.sm));
    ++p.stats.writes;
  } else {
    uint32_t tok = p.nextSlot();
    CacheAccessResult res = p.l2.access(local, mask, false, r.sm, tok, c);
    switch (res.outcome) {
    case CacheOutcome::ReservationFail:
      ++p.stats.stallCycles;
      return;
    case CacheOutcome::Hit: {
      Cycle done = c;
      if (r.atomic) {
        p.l2.markDirty(local, mask);
        queueAtomic(p, r, c, false);
        break;
      }
      if (farL2_ && farSide(p, r.sm) && p.l2.farCopy(local))
        done += farL2_; // the first read from the far side crosses between the partitions
      MemRequest resp = r;
      resp.isResponse = true;
      p.out.push({resp, convert(done + lc.hitLatency, l2D_, icntD_)});
      outFlag_[p.id] = 1;
      break;
    }
    case CacheOutcome::Miss:
      sendToDram(p, p.l2.lineAddr(local), res.fetchMask, false, c);
      [[fallthrough]];
    case CacheOutcome::HitPending:
      if (tok >= p.pool.size())
        p.pool.resize(size_t(tok) + 1);
      p.pool[tok] = r;
      p.takeSlot();
      break;
    }
    ++(r.atomic ? p.stats.atomics : p.stats.reads);
  }
  ++p.stats.requests;
  p.in.pop();
  --p.incoming;
}

void MemorySystem::dramCycle(Partition &p, Cycle d) {
  for (uint32_t ch = 0; ch < channels_; ++ch) {
    DramChannel &dc = *p.chans[ch];
    bool pushed = false;
    if (!p.toDram[ch].empty() && p.toDram[ch].front().second <= d && dc.canAccept()) {
      dc.push(p.toDram[ch].pop().first, d);
      --p.toDramCount;
      pushed = true;
    }
    if (pushed || (d >= p.chanNext[ch] && !dc.idle())) {
      dc.tick(d);
      p.chanNext[ch] = dc.nextEventCycle(d);
    }
  }
}

bool MemorySystem::partitionIdle(const Partition &p) const {
  if (!p.in.empty() || !p.out.empty() || p.toDramCount || p.freeSlots.size() != p.fresh ||
      !p.atomicWait.empty())
    return false;
  for (auto &ch : p.chans)
    if (!ch->idle())
      return false;
  return true;
}

void MemorySystem::tick(Cycle coreNow) {
  tickIcnt(coreNow);
  tickPartitions(coreNow);
  endTick(coreNow);
}

void MemorySystem::tickIcnt(Cycle coreNow) {
  Cycle target = domainTarget(icntD_, coreNow);
  for (; icntD_.next < target; ++icntD_.next) {
    // (packets to SMs do not keep the interconnect busy: its cycles move nothing for them)
    const bool smInput = anySmInput();
    bool busy = smInput || !icnt_.partitionsIdle() || anyByteSet(outFlag_);
    if (!busy) {
      icntD_.next = target;
      break;
    }
    icntCycle(icntD_.next, smInput);
  }
}

void MemorySystem::tickPartition(uint32_t pi, Cycle coreNow) {
  // A partition with nothing queued, in flight or in its DRAM channels sleeps until the
  // interconnect sends it a packet: its tick would run no L2 or DRAM cycle (the loops below
  // stop at the first cycle without work), so skipping it changes nothing.
  if (partAwake_[pi])
    tickAwakePartition(pi, domainTarget(l2D_, coreNow), domainTarget(dramD_, coreNow));
}

inline bool MemorySystem::waitsThrough(uint32_t pi, Cycle l2Target, Cycle dramTarget) const {
  const PartitionWake &w = partWake_[pi];
  return w.waiting && l2Target <= w.wakeL2 && dramTarget <= w.wakeDram &&
         !(icntD_.next && icnt_.pendingAt(icnt_.partitionNode(pi)) &&
           icnt_.hasArrival(icnt_.partitionNode(pi), icntD_.next - 1));
}

void MemorySystem::tickPartitions(Cycle coreNow) {
  const Cycle l2Target = domainTarget(l2D_, coreNow), dramTarget = domainTarget(dramD_, coreNow);
  if (wakeSummaryOk_ && l2Target <= minWakeL2_ && dramTarget <= minWakeDram_) {
    // Every waiting partition's tick would return at once (tickAwakePartition's first test,
    // true for each of them: their wakes are at least these minima) unless a packet arrived at
    // it: only the busy ones and those tick (partitions share nothing: the order changes no
    // result). One that waits after its tick joins the minima.
    size_t keep = 0;
    for (size_t k = 0; k < busyParts_.size(); ++k) {
      const uint32_t pi = busyParts_[k];
      if (!partAwake_[pi])
        continue; // (fell asleep in an earlier cycle of the summary)
      tickAwakePartition(pi, l2Target, dramTarget);
      const PartitionWake &w = partWake_[pi];
      if (!partAwake_[pi])
        continue;
      if (w.waiting) {
        minWakeL2_ = std::min(minWakeL2_, w.wakeL2);
        minWakeDram_ = std::min(minWakeDram_, w.wakeDram);
        continue;
      }
      busyParts_[keep++] = pi;
    }
    busyParts_.resize(keep);
    tickArrivals(l2Target, dramTarget);
    return;
  }
  // Every awake partition ticks, and the summary is rebuilt as they go (summarizeWakes() in the
  // same pass: a partition's tick changes only its own flags and wakes, so each is final once
  // its tick is done).
  busyParts_.clear();
  minWakeL2_ = minWakeDram_ = kNever;
  forEachByteSet(partAwake_, 0, numPartitions_, [&](size_t i) {
    const uint32_t pi = uint32_t(i);
    const PartitionWake &w = partWake_[pi];
    if (!waitsThrough(pi, l2Target, dramTarget)) { // (most wait: no call for them)
      tickAwakePartition(pi, l2Target, dramTarget);
      if (!partAwake_[pi])
        return;
    }
    if (w.waiting) {
      minWakeL2_ = std::min(minWakeL2_, w.wakeL2);
      minWakeDram_ = std::min(minWakeDram_, w.wakeDram);
    } else {
      busyParts_.push_back(pi);
    }
  });
  wakeSummaryOk_ = true;
}

void MemorySystem::tickArrivals(Cycle l2Target, Cycle dramTarget) {
  if (!icntD_.next || icnt_.partitionsIdle())
    return;
  // A partition with a packet at its node is awake (the interconnect woke it as it sent). The
  // busy ones ticked already and took theirs (takeArrivals), so those with one due now are
  // waiting (or were asleep: then their wakes are kNever), each counted in the minima.
  bool rebuild = false;
  forEachByteSet(icnt_.partitionPendingFlags(), 0, numPartitions_, [&](size_t i) {
    const uint32_t pi = uint32_t(i);
    if (!icnt_.hasArrival(icnt_.partitionNode(pi), icntD_.next - 1))
      return;
    const PartitionWake before = partWake_[pi];
    tickAwakePartition(pi, l2Target, dramTarget);
    // (its old wakes leave the minima: exact still unless one of them was a minimum)
    rebuild = rebuild || (before.wakeL2 != kNever && before.wakeL2 == minWakeL2_) ||
              (before.wakeDram != kNever && before.wakeDram == minWakeDram_);
    if (!partAwake_[pi])
      return;
    const PartitionWake &w = partWake_[pi];
    if (w.waiting) {
      minWakeL2_ = std::min(minWakeL2_, w.wakeL2);
      minWakeDram_ = std::min(minWakeDram_, w.wakeDram);
    } else {
      busyParts_.push_back(pi);
    }
  });
  if (rebuild)
    summarizeWakes();
}

void MemorySystem::summarizeWakes() {
  busyParts_.clear();
  minWakeL2_ = minWakeDram_ = kNever;
  forEachByteSet(partAwake_, 0, numPartitions_, [&](size_t pi) {
    const PartitionWake &w = partWake_[pi];
    if (w.waiting) {
      minWakeL2_ = std::min(minWakeL2_, w.wakeL2);
      minWakeDram_ = std::min(minWakeDram_, w.wakeDram);
    } else {
      busyParts_.push_back(uint32_t(pi));
    }
  });
  wakeSummaryOk_ = true;
}

void MemorySystem::tickAwakePartition(uint32_t pi, Cycle l2Target, Cycle dramTarget) {
  // (the summary in a flat array: a waiting partition's tick touches nothing else of it)
  PartitionWake &w = partWake_[pi];
  if (waitsThrough(pi, l2Target, dramTarget))
    return;
  Partition &p = *parts_[pi];
  takeArrivals(p);
  // L2 domain. Nothing arrives at an L2 slice during its domain's cycles except from the icnt
  // and DRAM domains, which run separately: once the slice has nothing to do, it stays so until
  // the end of this tick (the same cycles run as when every slice is stepped cycle by cycle).
  // A cycle with no reply from a channel and the input head not yet due does nothing: the
  // loop goes on at the head's cycle.
  for (Cycle c = l2D_.next; c < l2Target; ++c) {
    bool reply = false;
    for (auto &ch : p.chans)
      reply = reply || ch->hasResponse();
    if (!reply) {
      if (p.in.empty())
        break;
      if (p.in.front().second > c) {
        c = std::min(p.in.front().second, l2Target) - 1;
        continue;
      }
    }
    l2Cycle(p, c);
  }
  // DRAM domain (requests reach it only from the L2 slice, which ran above). A channel acts
  // at its next event or when a request for it is due and it has room (room comes only at its
  // own events): the cycles before the first of those do nothing.
  for (Cycle d = dramD_.next; d < dramTarget; ++d) {
    bool active = p.toDramCount != 0;
    Cycle next = kNever;
    for (uint32_t ch = 0; ch < channels_; ++ch) {
      const DramChannel &dc = *p.chans[ch];
      if (!dc.idle()) {
        active = true;
        next = std::min(next, p.chanNext[ch]);
      }
      if (!p.toDram[ch].empty() && dc.canAccept())
        next = std::min(next, p.toDram[ch].front().second);
    }
    if (!active)
      break;
    if (next > d) {
      d = std::min(next, dramTarget) - 1;
      continue;
    }
    dramCycle(p, d);
  }
  if (partitionIdle(p) && !icnt_.pendingAt(icnt_.partitionNode(pi)))
    partAwake_[pi] = 0;
  w.waiting = p.toDramCount == 0;
  w.wakeL2 = p.in.empty() ? kNever : p.in.front().second;
  w.wakeDram = kNever;
  for (uint32_t ch = 0; ch < channels_ && w.waiting; ++ch) {
    const DramChannel &dc = *p.chans[ch];
    w.waiting = !dc.hasResponse();
    if (!dc.idle())
      w.wakeDram = std::min(w.wakeDram, p.chanNext[ch]);
  }
}

void MemorySystem::endTick(Cycle coreNow) {
  if (atomicUnits_ && anyByteSet(atomicWaitFlag_))
    serveSharedAtomics();
  l2D_.next = std::max(l2D_.next, domainTarget(l2D_, coreNow));
  dramD_.next = std::max(dramD_.next, domainTarget(dramD_, coreNow));
}

bool MemorySystem::idle() const {
  if (!icnt_.idle() || anySmInput())
    return false;
  // (a sleeping partition is idle)
  return !forEachByteSet(partAwake_, 0, numPartitions_,
                         [&](size_t pi) { return !partitionIdle(*parts_[pi]); });
}

Cycle MemorySystem::nextEventCycle(Cycle coreNow) const {
  Cycle soon = coreNow + 1;
  if (anySmInput())
    return soon;
  // (a reply that arrived and waits for its SM maps to a cycle <= coreNow: `soon`, below)
  Cycle best = toCore(icntD_, icnt_.nextArrival());
  if (wakeSummaryOk_) {
    // (the waiting partitions through their minima, the replies through the flags, and only
    // the busy partitions one by one: the same minimum as the loop below)
    if (minWakeL2_ != kNever)
      best = std::min(best, toCore(l2D_, minWakeL2_));
    if (minWakeDram_ != kNever)
      best = std::min(best, toCore(dramD_, std::max(minWakeDram_, dramD_.next)));
    forEachByteSet(outFlag_, 0, numPartitions_, [&](size_t pi) {
      best = std::min(best, toCore(icntD_, parts_[pi]->out.front().second));
    });
    for (uint32_t pi : busyParts_) {
      if (!partAwake_[pi])
        continue;
      const Cycle e = busyPartitionEvent(*parts_[pi]);
      if (e == 0)
        return soon;
      best = std::min(best, e);
    }
    return best == kNever ? kNever : std::max(best, soon);
  }
  // (a sleeping partition is idle: nothing queued, in flight or in its channels)
  const bool now = forEachByteSet(partAwake_, 0, numPartitions_, [&](size_t pi) {
    const PartitionWake &w = partWake_[pi];
    if (w.waiting) { // (its last tick's summary: nothing for DRAM to take, no channel reply)
      if (w.wakeL2 != kNever)
        best = std::min(best, toCore(l2D_, w.wakeL2));
      if (outFlag_[pi]) // (the partition's reply queue is not empty)
        best = std::min(best, toCore(icntD_, parts_[pi]->out.front().second));
      if (w.wakeDram != kNever)
        best = std::min(best, toCore(dramD_, std::max(w.wakeDram, dramD_.next)));
      return false;
    }
    const Partition &p = *parts_[pi];
    const Cycle e = busyPartitionEvent(p);
    if (e == 0)
      return true;
    best = std::min(best, e);
    if (!p.out.empty())
      best = std::min(best, toCore(icntD_, p.out.front().second));
    return false;
  });
  if (now)
    return soon;
  return best == kNever ? kNever : std::max(best, soon);
}

// The core cycle of a busy partition's next event in its L2 queue or DRAM channels (not its reply
// queue), kNever if none, or 0 when DRAM has work to take or a reply now (nextEventCycle's `soon`).
Cycle MemorySystem::busyPartitionEvent(const Partition &p) const {
  if (p.toDramCount)
    return 0;
  Cycle best = kNever;
  if (!p.in.empty())
    best = toCore(l2D_, p.in.front().second);
  for (uint32_t ch = 0; ch < channels_; ++ch) {
    const DramChannel &dc = *p.chans[ch];
    if (dc.hasResponse())
      return 0;
    if (!dc.idle())
      best = std::min(best, toCore(dramD_, std::max(p.chanNext[ch], dramD_.next)));
  }
  return best;
}

namespace {
using stats::Unit;
using PartStats = MemorySystem::PartitionStats;
using DramStats = DramChannel::Stats;
using IcntStats = Interconnect::Stats;
constexpr stats::FieldStat<PartStats> kL2Fields[] = {
    {"requests", Unit::Count, "requests the L2 slices received", &PartStats::requests},
    {"atomics", Unit::Count, "atomic requests executed at L2", &PartStats::atomics},
    {"stall_cycles", Unit::Cycles, "cycles an L2 slice could not take a request (sum over slices)", &PartStats::stallCycles},
    {"dram_read_requests", Unit::Count, "read requests L2 sent to DRAM", &PartStats::dramReads},
    {"dram_write_requests", Unit::Count, "write requests L2 sent to DRAM", &PartStats::dramWrites},
};
constexpr stats::FieldStat<DramStats> kDramFields[] = {
    {"reads", Unit::Count, "DRAM read bursts", &DramStats::reads},
    {"writes", Unit::Count, "DRAM write bursts", &DramStats::writes},
    {"read_bytes", Unit::Bytes, "bytes read from DRAM", &DramStats::readBytes},
    {"write_bytes", Unit::Bytes, "bytes written to DRAM", &DramStats::writeBytes},
    {"row_hits", Unit::Count, "accesses to an open row", &DramStats::rowHits},
    {"row_misses", Unit::Count, "accesses to a closed bank", &DramStats::rowMisses},
    {"row_conflicts", Unit::Count, "accesses that closed another open row", &DramStats::rowConflicts},
    {"activates", Unit::Count, "ACT commands", &DramStats::activates},
    {"precharges", Unit::Count, "PRE commands", &DramStats::precharges},
    {"refreshes", Unit::Count, "REF commands", &DramStats::refreshes},
    {"bus_busy_cycles", Unit::Cycles, "DRAM data-bus busy cycles (DRAM clock, sum over channels)", &DramStats::busBusyCycles},
    {"queue_full_cycles", Unit::Cycles, "cycles a DRAM request queue was full", &DramStats::queueFullCycles},
    {"total_latency", Unit::Cycles, "sum of DRAM request latencies (DRAM clock)", &DramStats::totalLatency},
    {"max_latency", Unit::Cycles, "longest DRAM request latency (DRAM clock)", &DramStats::maxLatency},
};
constexpr stats::FieldStat<IcntStats> kIcntFields[] = {
    {"packets", Unit::Count, "interconnect packets", &IcntStats::packets},
    {"request_packets", Unit::Count, "SM-to-L2 packets", &IcntStats::requestPackets},
    {"reply_packets", Unit::Count, "L2-to-SM packets", &IcntStats::replyPackets},
    {"flits", Unit::Count, "interconnect flits", &IcntStats::flits},
    {"bytes", Unit::Bytes, "bytes through the interconnect", &IcntStats::bytes},
};

/// The memory system's statistics, declared once (stats()' order: per slice, then totals).
struct MemStatDecls {
  stats::FieldStats<CacheStats> l2 = describeCacheStats("l2.", "L2 cache (all slices)");
  stats::FieldStats<CacheStats> l2Slice =
      describeCacheStats("l2[].", "L2 slice of this memory partition");
  stats::DistributionStat dramLatency{
      "dram.latency", Unit::Cycles, "DRAM request latency, queue entry to completion (DRAM clock)"};
  stats::FieldStats<PartStats> partitions{kL2Fields, "l2."};
  stats::Counter sliceStall{"l2[].stall_cycles", Unit::Cycles,
                            "cycles this L2 slice could not take a request"};
  stats::FieldStats<DramStats> dram{kDramFields, "dram."};
  stats::FieldStats<IcntStats> icnt{kIcntFields, "icnt."};
};
const MemStatDecls &memStats() {
  static const MemStatDecls &d = *new MemStatDecls; // never destroyed (no static destructors)
  return d;
}
} // namespace

void MemorySystem::describeStats() { memStats(); }

const stats::DistributionStat &MemorySystem::dramLatencyStat() { return memStats().dramLatency; }

stats::Distribution MemorySystem::dramLatency() const {
  stats::Distribution d;
  for (auto &pp : parts_)
    for (auto &ch : pp->chans)
      d.merge(ch->stats().latency);
  return d;
}

void MemorySystem::appendInstances(std::vector<std::pair<std::string, uint64_t>> &out) const {
  const MemStatDecls &d = memStats();
  for (auto &pp : parts_) {
    const Partition &p = *pp;
    d.l2Slice.appendInstance(p.l2.stats(), p.id, out);
    out.emplace_back(d.sliceStall.instance(p.id), p.stats.stallCycles);
  }
}

std::vector<std::string> MemorySystem::instanceNames() const {
  std::vector<std::pair<std::string, uint64_t>> named;
  appendInstances(named);
  std::vector<std::string> out;
  out.reserve(named.size());
  for (auto &kv : named)
    out.push_back(std::move(kv.first));
  return out;
}

void MemorySystem::appendInstanceValues(std::vector<double> &out) const {
  // (appendInstances' order)
  const stats::FieldStats<CacheStats> &slice = memStats().l2Slice;
  for (auto &pp : parts_) {
    const Partition &p = *pp;
    const CacheStats &cs = p.l2.stats();
    for (size_t i = 0; i < slice.size(); ++i)
      out.push_back((double)slice.value(cs, i));
    out.push_back((double)p.stats.stallCycles);
  }
}

void MemorySystem::appendTotals(std::vector<std::pair<stats::Stat, double>> &out) const {
  const MemStatDecls &d = memStats();
  CacheStats sum; // over the slices, partitions and channels
  PartitionStats psum;
  DramChannel::Stats ds;
  for (auto &pp : parts_) {
    const Partition &p = *pp;
    const CacheStats &s = p.l2.stats();
    sum.accesses += s.accesses, sum.reads += s.reads, sum.writes += s.writes;
    sum.hits += s.hits, sum.hitPending += s.hitPending, sum.misses += s.misses;
    sum.sectorMisses += s.sectorMisses, sum.reservationFails += s.reservationFails;
    sum.fills += s.fills, sum.evictions += s.evictions, sum.writebacks += s.writebacks;
    psum.requests += p.stats.requests, psum.reads += p.stats.reads;
    psum.writes += p.stats.writes, psum.atomics += p.stats.atomics;
    psum.dramReads += p.stats.dramReads, psum.dramWrites += p.stats.dramWrites;
    psum.stallCycles += p.stats.stallCycles;
    for (auto &ch : p.chans) {
      const DramChannel::Stats &c = ch->stats();
      ds.reads += c.reads, ds.writes += c.writes, ds.readBytes += c.readBytes;
      ds.writeBytes += c.writeBytes, ds.rowHits += c.rowHits, ds.rowMisses += c.rowMisses;
      ds.rowConflicts += c.rowConflicts, ds.activates += c.activates;
      ds.precharges += c.precharges, ds.refreshes += c.refreshes;
      ds.busBusyCycles += c.busBusyCycles, ds.queueFullCycles += c.queueFullCycles;
      ds.totalLatency += c.totalLatency, ds.maxLatency = std::max(ds.maxLatency, c.maxLatency);
    }
  }
  d.l2.append(sum, out);
  d.partitions.append(psum, out);
  d.dram.append(ds, out);
  d.icnt.append(icnt_.stats(), out);
}

std::vector<std::pair<std::string, uint64_t>> MemorySystem::stats() const {
  std::vector<std::pair<std::string, uint64_t>> out;
  appendInstances(out);
  std::vector<std::pair<stats::Stat, double>> totals;
  appendTotals(totals);
  for (auto &kv : totals)
    out.emplace_back(kv.first.name(), (uint64_t)kv.second);
  return out;
}

void MemorySystem::resetStats() {
  for (auto &p : parts_) {
    p->l2.resetStats();
    p->stats = PartitionStats{};
    for (auto &ch : p->chans)
      ch->resetStats();
  }
  icnt_.resetStats();
}

} // namespace ptxsim::timing

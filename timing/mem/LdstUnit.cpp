#include "timing/mem/LdstUnit.h"

#include "base/Stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ptxsim::timing {

namespace {
// bankConflictDegree past its shortcut: the distinct words among the first 32 x 5 in lane
// order, counted per bank. Each bank keeps a list of its distinct words (indices into
// `words`), so a word is compared only with its bank's others (a sort of the words, as this
// was, made a padded tile's two-row access, degree 2, 2.8 % of a stencil program).
uint32_t conflictDegree(const WarpMemAccess &a, uint32_t bytes, uint32_t banks) {
  constexpr uint8_t kNone = 0xff;
  uint64_t words[32 * 5];
  uint8_t next[32 * 5], head[64], count[64];
  std::memset(head, kNone, banks);
  std::memset(count, 0, banks);
  const bool pow2 = (banks & (banks - 1)) == 0;
  uint32_t n = 0, distinct = 0, degree = 0;
  for (uint32_t m = a.mask; m; m &= m - 1) {
    const uint64_t x = a.lane(uint32_t(__builtin_ctz(m)));
    for (uint64_t w = x / 4; w <= (x + bytes - 1) / 4 && n < 32 * 5; ++w, ++n) {
      const uint32_t b = uint32_t(pow2 ? w & (banks - 1) : w % banks);
      uint8_t k = head[b];
      while (k != kNone && words[k] != w)
        k = next[k];
      if (k != kNone)
        continue; // (a word another lane reads too)
      words[distinct] = w;
      next[distinct] = head[b];
      head[b] = uint8_t(distinct++);
      degree = std::max(degree, uint32_t(++count[b]));
    }
  }
  return degree;
}

#if defined(__x86_64__) && defined(__GNUC__)
// The OR of each of a full warp's 32 addresses XOR r0, compiled for AVX2 (four lanes to an
// instruction where the baseline's SSE2 takes two), when the host has it.
__attribute__((target("avx2"))) uint64_t laneDiffAvx2(const uint64_t *p, uint64_t r0) {
  uint64_t diff = 0;
  for (uint32_t l = 0; l < 32; ++l)
    diff |= p[l] ^ r0;
  return diff;
}
bool hostAvx2() {
  static const bool v = __builtin_cpu_supports("avx2");
  return v;
}
// alignedLanesInOneRow of a full warp whose addresses are read as they are (no bias: shared
// memory), compiled for AVX2 whole: the queued shared path's one call where the test and its
// lane pass were two.
__attribute__((target("avx2"))) bool fullWarpInOneRowAvx2(const uint64_t *p, uint32_t bytes,
                                                          uint32_t banks) {
  const uint64_t r0 = p[0];
  uint64_t diff = 0;
  for (uint32_t l = 0; l < 32; ++l)
    diff |= p[l] ^ r0;
  return diff < uint64_t(banks) * 4 && !((r0 | diff) & (bytes - 1));
}
#endif

// Lanes of 1, 2 or 4 words (`bytes`), a power-of-two bank count of at least bytes / 4: true when
// every active lane is aligned to its size and all of them lie in one aligned row of the banks
// (banks x 4 bytes, each of its words in a bank of its own), so that no bank holds two distinct
// words. A tiled multiply's rows and broadcasts are such rows; an XOR and an OR per lane, no
// branch, where alignedLanesOneWordPerBank takes a table per lane (it was 5 % of samples/matmul).
// False says nothing (the others decide).
bool alignedLanesInOneRow(const WarpMemAccess &a, uint32_t bytes, uint32_t banks) {
  // (the bits in which some lane differs from the first: none at or above the row's size; the
  // first aligned and no lane differing from it below the lane's size: every lane aligned)
  const uint64_t *p = a.laneAddr ? a.laneAddr : a.addr;
  const uint64_t bias = a.laneAddr ? a.addrBias : 0;
  const uint64_t r0 = p[__builtin_ctz(a.mask)];
  uint64_t diff = 0;
  if (a.mask == 0xffffffffu && bias == 0) { // (shared memory: no bias; a loop the compiler widens)
#if defined(__x86_64__) && defined(__GNUC__)
    if (hostAvx2())
      diff = laneDiffAvx2(p, r0);
    else
#endif
      for (uint32_t l = 0; l < 32; ++l)
        diff |= p[l] ^ r0;
  } else {
    for (uint32_t m = a.mask; m; m &= m - 1)
      diff |= (p[__builtin_ctz(m)] + bias) ^ (r0 + bias);
  }
  return diff < uint64_t(banks) * 4 && !(((r0 + bias) | diff) & (bytes - 1));
}

// Lanes of 1, 2 or 4 words (`bytes`) with a power-of-two bank count of at least bytes / 4
// (LDS, LDS.64, LDS.128): true when every active lane is aligned to its size and no two of them
// put distinct words in one bank. An aligned lane covers the banks of one group of bytes / 4
// (its chunk, the address / bytes, modulo the groups), so that is: no group sees two chunks;
// one test per lane instead of one per word. False says nothing (conflictDegree decides).
bool alignedLanesOneWordPerBank(const WarpMemAccess &a, uint32_t bytes, uint32_t banks) {
  const uint32_t shift = uint32_t(__builtin_ctz(bytes)), groups = banks >> (shift - 2);
  uint64_t chunkOf[64], seen = 0, bits = 0;
  for (uint32_t m = a.mask; m; m &= m - 1) {
    const uint64_t x = a.lane(uint32_t(__builtin_ctz(m))), chunk = x >> shift;
    const uint32_t g = uint32_t(chunk & (groups - 1));
    bits |= x;
    if (!(seen >> g & 1)) {
      seen |= uint64_t(1) << g;
      chunkOf[g] = chunk;
    } else if (chunkOf[g] != chunk) {
      return false;
    }
  }
  return !(bits & (bytes - 1));
}
} // namespace

uint32_t bankConflictDegree(const WarpMemAccess &a, uint32_t numBanks) {
  const uint32_t bytes = std::max(1u, a.bytesPerLane);
  const uint32_t banks = std::min(std::max(1u, numBanks), 64u);
  // (a power-of-two bank count, the usual case, takes a mask instead of a 64-bit division)
  const bool pow2 = (banks & (banks - 1)) == 0;
  if (pow2 && (bytes == 4 || bytes == 8 || bytes == 16) && banks >= bytes / 4 && a.mask &&
      (alignedLanesInOneRow(a, bytes, banks) || alignedLanesOneWordPerBank(a, bytes, banks)))
    return 1;
  // (one pass over the words, each bank's distinct words in a list: a conflicting access, a
  // padded tile's two rows, took three passes when a pass for degree 1 came first)
  return conflictDegree(a, bytes, banks);
}

// With the adaptive carve-out the L1D is built for the whole unified array (setL1Ways picks
// the ways of each launch).
static CacheConfig l1dConfig(const TimingConfig &cfg) {
  CacheConfig c = cfg.mem.l1d;
  if (cfg.core.adaptiveL1 && c.sets && c.lineBytes)
    c.maxWays = uint32_t(uint64_t(cfg.core.unifiedL1Kib) * 1024 / (uint64_t(c.sets) * c.lineBytes));
  return c;
}

LdstUnit::LdstUnit(const TimingConfig &cfg, uint32_t smId)
    : cfg_(cfg), smId_(smId), l1d_(l1dConfig(cfg), "sm[" + std::to_string(smId) + "].l1d"),
      const_(cfg.mem.constCache, "sm[" + std::to_string(smId) + "].const"), missQ_(16),
      completions_(64) {
  if (cfg.mem.l1d.lineBytes != 128 || cfg.mem.l1d.sectorBytes < 32 ||
      cfg.mem.constCache.lineBytes > 128 || cfg.mem.constCache.lineBytes < 32) {
    std::fprintf(stderr, "ptxsim: internal error: ldst: the L1D line must be 128 bytes with "
                         "sectors of at least 32 bytes, constant-cache lines 32..128 bytes\n");
    std::abort();
  }
  for (uint32_t m = 0; m < 16; ++m)
    l1Masks_[m] = l1MaskOf(m);
  if (const uint32_t b = cfg.core.sharedBanks; b && b <= 64 && !(b & (b - 1)))
    sharedPow2Banks_ = b;
#if defined(__x86_64__) && defined(__GNUC__)
  avx2_ = hostAvx2();
#endif
  insts_.resize(kMaxInflight);
  for (uint32_t s = kMaxInflight; s-- > 0;)
    freeSlots_.push_back(s);
  events_ = Ring<Event>(kMaxInflight * 4);
  released_.reserve(64);
}

bool LdstUnit::canIssueQueued(Cycle now) const {
  while (!sharedStarts_.empty() && sharedStarts_.front() <= now)
    sharedStarts_.pop(); // in the banks or done: no longer waiting in the queue
  return now >= nextIssue_ && !freeSlots_.empty() &&
         sharedStarts_.size() < cfg_.core.sharedQueueEntries;
}

uint32_t LdstUnit::l1MaskOf(uint32_t mask32) const {
  uint32_t m = 0;
  for (uint32_t i = 0; i < 4; ++i)
    if (mask32 & (1u << i))
      m |= l1d_.sectorsOf(32 * i, 32);
  return m;
}

uint32_t LdstUnit::mask32Of(uint32_t l1mask) const {
  uint32_t per = cfg_.mem.l1d.sectorBytes / 32, m = 0;
  if (per == 1) // (32-byte L1 sectors: the same bits)
    return l1mask & 0xf;
  for (uint32_t k = 0; k < 32; ++k)
    if (l1mask & (1u << k))
      m |= ((1u << per) - 1) << (k * per);
  return m & 0xf;
}

void LdstUnit::addPiece(uint64_t line, uint32_t mask32) {
  // (lanes in order mostly touch the line the previous lane did; lines are distinct in
  // pieces_, so looking at the last first finds the same one)
  if (curN_ && pieces_[curN_ - 1].addr == line) {
    pieces_[curN_ - 1].mask32 |= mask32;
    return;
  }
  for (uint32_t i = 0; i < curN_; ++i)
    if (pieces_[i].addr == line) {
      pieces_[i].mask32 |= mask32;
      return;
    }
  pieces_[curN_++] = {line, mask32};
}

bool LdstUnit::coalescedPieces(const WarpMemAccess &a, uint32_t bytes) {
  const uint64_t *p = a.laneAddr ? a.laneAddr : a.addr;
  const uint64_t bias = a.laneAddr ? a.addrBias : 0;
  // (one pass the compiler widens: each lane's address against its place in its half's run)
  uint64_t diff = 0, next0 = p[0], next1 = p[16];
  for (uint32_t l = 0; l < 16; ++l, next0 += bytes, next1 += bytes)
    diff |= (p[l] ^ next0) | (p[l + 16] ^ next1);
  if (diff)
    return false;
  // One run over the whole warp (the second half right after the first): its lines in order,
  // each with the sectors the run covers there (as the two halves give them).
  const bool one = p[16] == p[0] + 16 * uint64_t(bytes);
  const uint64_t span = (one ? 32 : 16) * uint64_t(bytes) - 1;
  const uint64_t first0 = p[0] + bias, last0 = first0 + span;
  const uint64_t first1 = p[16] + bias, last1 = first1 + span;
  if (last0 < first0 || (!one && last1 < first1)) // (a run wrapping around the address space)
    return false;
  // Each half covers [first, last] without a gap, in ascending lines: lane by lane, the first
  // half gives those lines in order, each with the sectors its range overlaps there, then the
  // second half its own, a line the first half had taking its sectors too (addPiece).
  for (uint64_t line = first0 & ~uint64_t(127);; line += 128) {
    const uint32_t lo = line < first0 ? uint32_t(first0 & 127) / 32 : 0;
    const uint32_t hi = last0 - line < 127 ? uint32_t(last0 & 127) / 32 : 3;
    pieces_[curN_++] = {line, (2u << hi) - (1u << lo)};
    if (last0 - line < 128)
      break;
  }
  if (one)
    return true;
  for (uint64_t line = first1 & ~uint64_t(127);; line += 128) {
    const uint32_t lo = line < first1 ? uint32_t(first1 & 127) / 32 : 0;
    const uint32_t hi = last1 - line < 127 ? uint32_t(last1 & 127) / 32 : 3;
    addPiece(line, (2u << hi) - (1u << lo));
    if (last1 - line < 128)
      return true;
  }
}

/// Bank cycles of a shared-memory instruction: conflicts, and lanes of an atomic on one word.
uint32_t LdstUnit::sharedDegree(const WarpMemAccess &a) const {
  uint32_t degree = bankConflictDegree(a, cfg_.core.sharedBanks);
  if (!a.atomic || a.countingAtomic) // (ATOMS.POPC.INC adds a word's lanes at once)
    return degree;
  // lanes updating one word serialize in the atomic unit (a warp on one counter)
  uint32_t same = 0;
  for (uint32_t l = 0; l < 32; ++l) {
    uint32_t c = 0;
    for (uint32_t k = 0; k < 32 && (a.mask & (1u << l)); ++k)
      c += (a.mask & (1u << k)) && a.lane(k) / 4 == a.lane(l) / 4;
    same = std::max(same, c);
  }
  if (cfg_.mem.sharedAtomicSameAddrCycles && same > 1)
    degree = std::max(degree, 1 + (same - 1) * cfg_.mem.sharedAtomicSameAddrCycles);
  if (a.floatAtomic && cfg_.mem.sharedFloatAtomicCycles && same)
    degree = std::max(degree, 1 + cfg_.mem.sharedFloatAtomicCycles +
                                  (same - 1) * cfg_.mem.sharedFloatAtomicLaneCycles);
  return degree;
}

void LdstUnit::issueQueuedShared(const WarpMemAccess &a, uint32_t warpSlot, uint64_t tag,
                                 Cycle now) {
  uint32_t slot = freeSlots_.back();
  freeSlots_.pop_back();
  ++issueVersion_;
  // queued for the banks, the issue stage stays free (see the header)
  insts_[slot] = Inst{warpSlot, tag, 1, false, true};
  if (!a.mergedLoad) // a load merged into an earlier LDS.128 rides on its issue and wavefronts
    nextIssue_ = now + std::max(1u, cfg_.core.ldstInterval);
  ++stats_.instructions;
  ++(a.atomic ? stats_.atomics : a.write ? stats_.stores : stats_.loads);
  // (a load or store of a warp in one aligned row of the banks, most of a tiled kernel's
  // accesses, is degree 1 without the calls: bankConflictDegree's first test, asked here)
  const uint32_t bytes = a.bytesPerLane;
  uint32_t degree = 0;
  if (!a.mergedLoad) {
    bool row = false;
    if (!a.atomic && (bytes == 4 || bytes == 8 || bytes == 16) && sharedPow2Banks_ >= bytes / 4 &&
        a.mask) {
#if defined(__x86_64__) && defined(__GNUC__)
      // (a full warp without a bias, a tiled kernel's every shared access: the AVX2 test whole)
      if (avx2_ && a.mask == 0xffffffffu && !(a.laneAddr && a.addrBias))
        row = fullWarpInOneRowAvx2(a.laneAddr ? a.laneAddr : a.addr, bytes, sharedPow2Banks_);
      else
#endif
        row = alignedLanesInOneRow(a, bytes, sharedPow2Banks_);
    }
    degree = row ? 1 : std::max(1u, sharedDegree(a));
  }
  ++stats_.sharedInsts;
  stats_.sharedBankConflictCycles += degree ? degree - 1 : 0;
  Cycle start = std::max(now, sharedFreeAt_);
  sharedFreeAt_ = start + degree;
  if (start > now)
    sharedStarts_.push(start);
  schedule(a.write && !a.atomic ? start + degree - 1
                                : start + cfg_.core.sharedLatency + sharedExtraLatency(degree, a.atomic),
           slot);
}

void LdstUnit::issueToCoalescer(const WarpMemAccess &a, uint32_t warpSlot, uint64_t tag,
                                Cycle now) {
  uint32_t slot = freeSlots_.back();
  freeSlots_.pop_back();
  ++issueVersion_;
  curCas_ = a.casAtomic;
  curFloat_ = a.floatAtomic;
  insts_[slot] = Inst{warpSlot, tag, 0, true, true};
  curActive_ = true;
  curSlot_ = slot;
  curWarp_ = warpSlot;
  curIssue_ = now;
  curN_ = curNext_ = 0;
  curBypassL1_ = a.bypassL1;
  curLocal_ = a.space == MemSpaceKind::Local;
  nextIssue_ = now + std::max(1u, cfg_.core.ldstInterval);
  ++stats_.instructions;
  if (a.atomic)
    ++stats_.atomics;
  else if (a.write)
    ++stats_.stores;
  else
    ++stats_.loads;
  uint32_t bytes = std::max(1u, a.bytesPerLane);

  switch (a.space) {
  case MemSpaceKind::Shared: {
    curKind_ = PieceKind::Shared;
    ++stats_.sharedInsts;
    uint32_t degree = sharedDegree(a);
    sharedDegree_ = degree;
    sharedStore_ = a.write && !a.atomic;
    curAtomic_ = a.atomic;
    stats_.sharedBankConflictCycles += degree ? degree - 1 : 0;
    curN_ = degree;
    break;
  }
  case MemSpaceKind::Const:
  case MemSpaceKind::Param: {
    curKind_ = PieceKind::Const;
    ++stats_.constInsts;
    if (a.mask == 0xffffffffu) { // (a full warp on one address, a parameter's load: one piece)
      const uint64_t *p = a.laneAddr ? a.laneAddr : a.addr;
      uint64_t same = 0;
      for (uint32_t l = 0; l < 32; ++l)
        same |= p[l] ^ p[0];
      if (!same) {
        pieces_[curN_++] = {p[0] + (a.laneAddr ? a.addrBias : 0), 0};
        stats_.constAccesses += curN_;
        break;
      }
    }
    for (uint32_t m = a.mask; m; m &= m - 1) {
      const uint64_t x = a.lane(uint32_t(__builtin_ctz(m)));
      // (lanes mostly read the address the lane before did: the last piece first)
      bool seen = curN_ && pieces_[curN_ - 1].addr == x;
      for (uint32_t i = 0; i < curN_ && !seen; ++i)
        seen = pieces_[i].addr == x;
      if (!seen)
        pieces_[curN_++] = {x, 0};
    }
    stats_.constAccesses += curN_;
    break;
  }
  default: {
    curKind_ = a.atomic ? PieceKind::Atomic : a.write ? PieceKind::Write : PieceKind::Cached;
    ++stats_.globalInsts;
    if (a.space == MemSpaceKind::Local) {
      for (uint32_t lanes = a.mask; lanes; lanes &= lanes - 1) {
        const uint32_t l = uint32_t(__builtin_ctz(lanes));
        // Each 4-byte word of the lane maps separately (words of one lane are 128 bytes apart).
        for (uint64_t off = a.lane(l) & ~uint64_t(3); off < a.lane(l) + bytes; off += 4) {
          uint64_t x = localAddress(smId_, warpSlot, l, off);
          addPiece(x & ~uint64_t(127), 1u << ((x & 127) / 32));
        }
      }
    } else if (!(a.mask == 0xffffffffu && coalescedPieces(a, bytes))) {
      // Lanes in order mostly stay in the line the lane before touched: such a run of lanes
      // collects its sectors in registers and goes to addPiece once (the same pieces, in the
      // same order, as lane by lane).
      const uint64_t *p = a.laneAddr ? a.laneAddr : a.addr;
      const uint64_t bias = a.laneAddr ? a.addrBias : 0;
      constexpr uint64_t kNoLine = 1; // (no line address is odd)
      uint64_t runLine = kNoLine;
      uint32_t runMask = 0;
      for (uint32_t lanes = a.mask; lanes; lanes &= lanes - 1) {
        const uint64_t first = p[__builtin_ctz(lanes)] + bias, last = first + bytes - 1;
        if (!((first ^ last) >> 7)) { // (within one line, the usual case: its sectors at once)
          const uint32_t lo = uint32_t(first & 127) / 32, hi = uint32_t(last & 127) / 32;
          const uint64_t line = first & ~uint64_t(127);
          if (line != runLine) {
            if (runLine != kNoLine)
              addPiece(runLine, runMask);
            runLine = line;
            runMask = 0;
          }
          runMask |= (2u << hi) - (1u << lo);
          continue;
        }
        if (runLine != kNoLine)
          addPiece(runLine, runMask);
        runLine = kNoLine;
        for (uint64_t line = first & ~uint64_t(127); line <= last; line += 128) {
          uint64_t lo = std::max(first, line), hi = std::min(last, line + 127);
          uint32_t m = 0;
          for (uint64_t s = (lo & 127) / 32; s <= (hi & 127) / 32; ++s)
            m |= 1u << s;
          addPiece(line, m);
        }
      }
      if (runLine != kNoLine)
        addPiece(runLine, runMask);
    }
    if (a.atomic) // lanes per line and the most on one address: the L2 serializes those
      for (uint32_t i = 0; i < curN_; ++i) {
        uint32_t lanes = 0, same = 0;
        for (uint32_t l = 0; l < 32; ++l) {
          if (!(a.mask & (1u << l)) || (a.lane(l) & ~uint64_t(127)) != pieces_[i].addr)
            continue;
          ++lanes;
          uint32_t n = 0;
          for (uint32_t k = 0; k < 32; ++k)
            n += (a.mask & (1u << k)) && a.lane(k) == a.lane(l);
          same = std::max(same, n);
        }
        pieceLanes_[i] = uint8_t(lanes);
        pieceSame_[i] = uint8_t(same);
      }
    stats_.coalescedTransactions += curN_;
    for (uint32_t i = 0; i < curN_; ++i)
      stats_.sectorsTouched += uint32_t(sectorCount(pieces_[i].mask32));
    break;
  }
  }
  if (curN_ == 0) { // no active lanes
    curActive_ = false;
    insts_[slot].issuing = false;
    schedule(now, slot);
    insts_[slot].outstanding = 1;
  }
}


// Runs the coalescer's next piece; false if it must be retried next cycle.
MemRequest LdstUnit::newRequest(uint32_t warp, uint64_t addr) const {
  MemRequest q;
  q.sm = smId_;
  q.warp = warp;
  q.issued = curIssue_;
  q.addr = addr;
  return q;
}

bool LdstUnit::runPiece(Cycle now) {
  Inst &in = insts_[curSlot_];
  const Piece &p = pieces_[curNext_];
  bool last = curNext_ + 1 == curN_;
  switch (curKind_) {
  case PieceKind::Shared: // one bank wavefront per cycle
    break;
  case PieceKind::Const: {
    if (missQ_.size() >= kMissQueueEntries)
      return false;
    CacheAccessResult r =
        const_.access(p.addr, const_.sectorsOf(p.addr, 1), false, in.warp, curSlot_, now);
    if (r.outcome == CacheOutcome::ReservationFail)
      return false;
    ++in.outstanding;
    if (r.outcome == CacheOutcome::Hit) {
      schedule(now + cfg_.mem.l1Latency, curSlot_);
    } else if (r.outcome == CacheOutcome::Miss) {
      MemRequest q = newRequest(in.warp, const_.lineAddr(p.addr));
      uint32_t lb = cfg_.mem.constCache.lineBytes;
      q.bytes = lb;
      q.sectorMask = (((1u << (lb / 32)) - 1) << ((q.addr & 127) / 32)) & 0xf;
      q.space = MemSpaceKind::Const;
      q.id = makeId(kReqConst, curSlot_);
      missQ_.push(q);
    }
    break;
  }
  case PieceKind::Cached: {
    if (missQ_.size() >= kMissQueueEntries)
      return false;
    MemRequest q = newRequest(in.warp, p.addr);
    if (!cfg_.mem.l1d.enabled || curBypassL1_) {
      q.sectorMask = p.mask32;
      q.bytes = 32 * uint32_t(sectorCount(p.mask32));
      q.id = makeId(kReqDirect, curSlot_);
      ++in.outstanding;
      missQ_.push(q);
      break;
    }
    CacheAccessResult r = l1d_.access(p.addr, l1Mask(p.mask32), false, in.warp, curSlot_, now);
    if (r.outcome == CacheOutcome::ReservationFail)
      return false;
    ++in.outstanding;
    if (r.outcome == CacheOutcome::Hit) {
      schedule(now + cfg_.mem.l1Latency, curSlot_);
    } else if (r.outcome == CacheOutcome::Miss) {
      q.sectorMask = mask32Of(r.fetchMask);
      q.bytes = 32 * uint32_t(sectorCount(q.sectorMask));
      q.id = makeId(kReqL1, curSlot_);
      missQ_.push(q);
      if (onL1Miss)
        onL1Miss(in.warp, p.addr, now);
    }
    break;
  }
  case PieceKind::Write: {
    if (missQ_.size() + 2 > kMissQueueEntries)
      return false;
    MemRequest q = newRequest(in.warp, p.addr);
    q.write = true;
    q.sectorMask = p.mask32;
    q.bytes = 32 * uint32_t(sectorCount(p.mask32));
    q.id = makeId(kReqDirect, curSlot_);
    bool send = true;
    if (cfg_.mem.l1d.enabled) {
      CacheAccessResult r =
          l1d_.access(p.addr, l1Mask(p.mask32), true, in.warp, curSlot_, now, curLocal_);
      send = r.sendWrite;
      if (r.evicted.valid) {
        if (onL1Evict)
          onL1Evict(r.evicted.owner, r.evicted.lineAddr, now);
        if (r.evicted.dirty) {
          MemRequest wb = q;
          wb.addr = r.evicted.lineAddr;
          wb.sectorMask = mask32Of(r.evicted.dirtyMask);
          wb.bytes = 32 * uint32_t(sectorCount(wb.sectorMask));
          missQ_.push(wb);
        }
      }
    }
    if (send)
      missQ_.push(q);
    break;
  }
  case PieceKind::Atomic: {
    if (missQ_.size() >= kMissQueueEntries || now < atomicIssueFree_)
      return false;
    MemRequest q = newRequest(in.warp, p.addr);
    q.atomic = true;
    q.atomicLanes = pieceLanes_[curNext_];
    q.atomicSameAddr = pieceSame_[curNext_];
    q.atomicCas = curCas_;
    q.atomicFloat = curFloat_;
    q.sectorMask = p.mask32;
    q.bytes = 32 * uint32_t(sectorCount(p.mask32));
    q.id = makeId(kReqDirect, curSlot_);
    ++in.outstanding;
    missQ_.push(q);
    // same-address lanes leave one at a time, the others a few per cycle
    if (double issue = cfg_.mem.atomicSameAddrIssueCycles * q.atomicSameAddr +
                       cfg_.mem.atomicLaneIssueCycles *
                           (q.atomicLanes - std::min(q.atomicLanes, q.atomicSameAddr));
        issue > 0)
      atomicIssueFree_ = now + Cycle(std::ceil(issue));
    break;
  }
  }
  if (last) {
    in.issuing = false;
    if (curKind_ == PieceKind::Shared) {
      // Stores are accepted once the last wavefront is through the banks; loads and atomics
      // return their data after the shared-memory pipeline.
      ++in.outstanding;
      schedule(sharedStore_ ? now
                            : curIssue_ + cfg_.core.sharedLatency + sharedExtraLatency(sharedDegree_, curAtomic_),
               curSlot_);
    } else if (curKind_ == PieceKind::Write) {
      ++in.outstanding;
      schedule(now, curSlot_);
    }
  }
  return true;
}

void LdstUnit::takeResponse(const MemRequest &r, Cycle now) {
  ++stats_.responses;
  uint32_t kind = uint32_t(r.id >> 14) & 3, slot = uint32_t(r.id & 0x3fff);
  if (kind == kReqDirect) {
    if (!r.write || r.atomic)
      dataArrived(slot);
    return;
  }
  released_.clear();
  CacheFillResult fr;
  if (kind == kReqL1) {
    fr = l1d_.fill(r.addr, l1Mask(r.sectorMask), now, released_);
    if (fr.evicted.valid) {
      if (onL1Evict)
        onL1Evict(fr.evicted.owner, fr.evicted.lineAddr, now);
      if (fr.evicted.dirty) {
        MemRequest wb;
        wb.sm = smId_;
        wb.warp = fr.evicted.owner;
        wb.addr = fr.evicted.lineAddr;
        wb.write = true;
        wb.sectorMask = mask32Of(fr.evicted.dirtyMask);
        wb.bytes = 32 * uint32_t(sectorCount(wb.sectorMask));
        wb.id = makeId(kReqDirect, 0);
        missQ_.push(wb);
      }
    }
  } else {
    fr = const_.fill(r.addr, const_.fullMask(), now, released_);
  }
  for (uint64_t s : released_)
    dataArrived(uint32_t(s));
}

void LdstUnit::tickBusy(Cycle now, MemorySystem &mem) {
  if (mem.hasResponse(smId_)) {
    --awaiting_;
    takeResponse(mem.popResponse(smId_), now);
  }
  if (curActive_) {
    // The tag stage resolves up to mem.l1TagLines lines of a global/local access per cycle.
    uint32_t lines = curKind_ == PieceKind::Cached || curKind_ == PieceKind::Write
                         ? cfg_.mem.l1TagLines
                         : 1;
    for (uint32_t k = 0; k < lines && curActive_; ++k) {
      if (!runPiece(now)) {
        if (k == 0)
          ++stats_.stallCycles;
        break;
      }
      if (++curNext_ == curN_) {
        curActive_ = false;
        ++issueVersion_;
        maybeComplete(curSlot_);
      }
    }
  }
  if (!missQ_.empty()) {
    if (mem.canAccept(smId_)) {
      const MemRequest &q = missQ_.front();
      awaiting_ += !q.write || q.atomic;
      mem.push(smId_, missQ_.pop(), now);
      ++stats_.requestsSent;
    } else {
      ++stats_.memStallCycles;
    }
  }
  retireArrivals(now);
}

void LdstUnit::retireArrivals(Cycle now) {
  while (!events_.empty() && eventCycle(events_.front()) <= now)
    dataArrived(eventSlot(events_.pop()));
}

bool LdstUnit::idle() const {
  return !curActive_ && missQ_.empty() && events_.empty() && completions_.empty() &&
         freeSlots_.size() == kMaxInflight;
}

namespace {
using stats::Unit;
using LdstStats = LdstUnit::Stats;
constexpr stats::FieldStat<LdstStats> kLdstFields[] = {
    {"instructions", Unit::Count, "warp memory instructions the LD/ST units took", &LdstStats::instructions},
    {"loads", Unit::Count, "warp load instructions", &LdstStats::loads},
    {"stores", Unit::Count, "warp store instructions", &LdstStats::stores},
    {"atomics", Unit::Count, "warp atomic/reduction instructions", &LdstStats::atomics},
    {"global_insts", Unit::Count, "warp instructions to global or local memory", &LdstStats::globalInsts},
    {"coalesced_transactions", Unit::Count, "memory transactions after coalescing (one per line touched)", &LdstStats::coalescedTransactions},
    {"sectors_touched", Unit::Count, "32-byte sectors the coalesced transactions cover", &LdstStats::sectorsTouched},
    {"shared_insts", Unit::Count, "warp shared-memory instructions", &LdstStats::sharedInsts},
    {"shared_bank_conflict_cycles", Unit::Cycles, "extra cycles shared-memory bank conflicts cost", &LdstStats::sharedBankConflictCycles},
    {"const_insts", Unit::Count, "warp constant/parameter-space instructions", &LdstStats::constInsts},
    {"const_accesses", Unit::Count, "distinct constant-cache addresses accessed", &LdstStats::constAccesses},
    {"stall_cycles", Unit::Cycles, "cycles the LD/ST unit could not accept an instruction", &LdstStats::stallCycles},
    {"mem_stall_cycles", Unit::Cycles, "cycles the miss queue to the memory system was full", &LdstStats::memStallCycles},
    {"requests_sent", Unit::Count, "requests sent to the memory system", &LdstStats::requestsSent},
    {"responses", Unit::Count, "responses received from the memory system", &LdstStats::responses},
};

/// The LD/ST unit's statistics and its caches', declared once (statPairs' order).
struct LdstStatDecls {
  stats::FieldStats<LdstStats> ldst{kLdstFields, "ldst."};
  stats::FieldStats<CacheStats> l1d = describeCacheStats("l1d.", "L1 data cache (all SMs)");
  stats::FieldStats<CacheStats> constCache = describeCacheStats("const.", "constant cache (all SMs)");
};
const LdstStatDecls &ldstStats() {
  static const LdstStatDecls &d = *new LdstStatDecls; // never destroyed (no static destructors)
  return d;
}
} // namespace

void LdstUnit::describeStats() { ldstStats(); }

std::vector<std::pair<std::string, uint64_t>> LdstUnit::statPairs() const {
  std::vector<std::pair<std::string, uint64_t>> out;
  const LdstStatDecls &d = ldstStats();
  d.ldst.append(stats_, out);
  d.l1d.append(l1d_.stats(), out);
  d.constCache.append(const_.stats(), out);
  return out;
}

void LdstUnit::appendStats(std::vector<std::pair<stats::Stat, double>> &out) const {
  const LdstStatDecls &d = ldstStats();
  d.ldst.append(stats_, out);
  d.l1d.append(l1d_.stats(), out);
  d.constCache.append(const_.stats(), out);
}

void LdstUnit::resetStats() {
  stats_ = Stats{};
  l1d_.resetStats();
  const_.resetStats();
}

} // namespace ptxsim::timing

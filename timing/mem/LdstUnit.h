#pragma once
// The load/store unit of one SM: coalescer, L1 data cache, constant cache and shared memory.
//
// Contract:
//  - canIssue(now)/issue(): one warp memory instruction enters the coalescer at a time. The SM
//    calls issue() before tick() in the same cycle; the first L1 lookup or shared-memory
//    wavefront happens in that tick, one more per cycle (an instruction of n pieces holds the
//    coalescer n cycles; ldstInterval is the minimum spacing between issues).
//  - tick(now, mem) once per core cycle, before mem.tick(now): takes at most one response from
//    the memory system (one L1/constant fill per cycle), runs one coalescer piece, sends at most
//    one request to the memory system, then retires data arrivals due by `now`.
//  - A completion (warpSlot, tag) is available after the tick of the cycle in which a load's last
//    data arrives or a store's last piece is accepted (into the queue towards L2, or by the
//    shared-memory banks). Instructions may complete out of order.
//
// Pieces and latencies (cycles from issue when unloaded; T = issue cycle):
//  - Global/local/tex: the coalescer groups active lanes by 128-byte line (a 32-byte sector mask
//    per line), one L1D access per line in order of the first lane touching it, mem.l1TagLines
//    lines per cycle (the tag stage). Load hit: data at T + k + mem.l1Latency for a piece
//    resolved in the k-th cycle. Load miss: an MSHR and one request for the missing
//    sectors (L1 sectors converted to 32-byte sectors); data when the fill arrives
//    (MemorySystem.h: an L2 hit takes mem.l2Latency plus reply serialisation). A piece that finds
//    the MSHRs or the miss queue full stalls the coalescer and retries next cycle
//    (`ldst.stall_cycles`). Stores follow the L1D's policy (write-through: forwarded below; the
//    store completes when its last piece entered the miss queue). Atomics bypass the L1: one
//    request per line, complete when every response is back.
//  - Local memory: a per-thread offset `off` of lane `l` in warp slot `w` maps to
//      localAddress = kLocalBase + sm * 2^32 + w * 2^24 + (off / 4) * 128 + l * 4 + off % 4
//    (4-byte words of the 32 lanes interleaved), so a warp accessing one local offset touches one
//    line; offsets up to 512 KiB per thread stay within the warp's region.
//  - Const/param: one constant-cache access per distinct address (a broadcast when all lanes
//    agree); hit data at T + k + mem.l1Latency; misses fetch the constant-cache line from L2.
//  - Shared: 32 banks (core.sharedBanks) of 4-byte words; the conflict degree is the largest
//    number of distinct words any bank must deliver (lanes reading the same word share it);
//    the banks take `degree` cycles. Loads complete at
//    T + core.sharedLatency + (degree - 1) x core.sharedConflictLatency, shared atomics at
//    T + core.sharedLatency + degree - 1, stores at T + degree - 1. With
//    core.sharedQueueEntries, shared instructions skip the coalescer: each waits in a FIFO until
//    the banks are free (T = its start there) and the warp scheduler may issue further LD/ST
//    instructions meanwhile, as the GPU's MIO queue does: warps contending for one word in a CAS
//    loop then take turns at the banks instead of the oldest warp issuing all the time.
// Simplified: atomics are one L2 request per line regardless of lanes; L1 is not invalidated by
// atomics; constant-cache hits use mem.l1Latency (TimingConfig has no constant-cache latency).

#include "timing/TimingConfig.h"
#include "timing/Types.h"
#include "timing/mem/Cache.h"
#include "timing/mem/MemorySystem.h"
#include "timing/mem/Ring.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ptxsim::timing {

/// One warp memory instruction, from the functional executor.
struct WarpMemAccess {
  WarpMemAccess() : addr{} {}
  /// An access whose lanes' addresses are read from `lanes` (laneAddr): `addr` is left
  /// unwritten (zeroing its 256 bytes, a `rep stos`, was most of the SM's work per memory
  /// instruction outside the LD/ST unit).
  WarpMemAccess(const uint64_t *lanes, uint64_t bias) : laneAddr(lanes), addrBias(bias) {}
  MemSpaceKind space = MemSpaceKind::Global;
  bool write = false;
  bool atomic = false;
  uint32_t bytesPerLane = 4; ///< element size x vector width
  uint32_t mask = 0;         ///< lanes that access memory
  bool bypassL1 = false;     ///< ld.cg / ld.cv: global loads go to L2, not through the L1
  bool floatAtomic = false;  ///< atom/red on f32/f64 (shared: a compare-and-swap loop)
  bool casAtomic = false;    ///< atom.cas
  /// A shared add of 1 whose result is unused (ATOMS.POPC.INC): lanes on one word are one add.
  bool countingAtomic = false;
  /// A shared load merged into an earlier one's LDS.64/LDS.128 (-ptxsim_merge_shared_loads):
  /// no bank or LD/ST issue cycle of its own (the first load carries the vector's bytes).
  bool mergedLoad = false;
  uint64_t addr[32];         ///< per-lane byte addresses (shared: CTA offsets; local: per-thread offsets)
  /// When set, the lanes' addresses are read from here instead of `addr` (the issuing SM's
  /// record, not copied: a copy of 256 bytes per warp memory instruction was ~5 % of a tiled
  /// matrix multiply); it must outlive the LdstUnit::issue() call. `addrBias` is added to each
  /// (modulo 2^64: the host arena's base to the device's).
  const uint64_t *laneAddr = nullptr;
  uint64_t addrBias = 0;
  /// Lane `l`'s address (the two above, or `addr`).
  uint64_t lane(uint32_t l) const { return laneAddr ? laneAddr[l] + addrBias : addr[l]; }
};

/// Cycles a banked scratchpad (shared memory, or an extension's buffer) needs for access `a`:
/// the most distinct 4-byte words any one of `numBanks` banks must deliver (0 for no lanes).
/// Lanes reading the same word are served together (broadcast).
uint32_t bankConflictDegree(const WarpMemAccess &a, uint32_t numBanks);

class LdstUnit : public base::HugeAllocated {
public:
  static constexpr uint32_t kMaxInflight = 256;  ///< warp instructions in flight
  static constexpr uint32_t kMissQueueEntries = 8; ///< requests waiting for the memory system
  static constexpr uint64_t kLocalBase = uint64_t(0x7e) << 40;

  LdstUnit(const TimingConfig &cfg, uint32_t smId);

  bool canIssue(Cycle now) const { return !curActive_ && now >= nextIssue_ && !freeSlots_.empty(); }
  /// For a shared-memory instruction: with core.sharedQueueEntries, whether the shared-memory
  /// queue has room (it does not wait for the coalescer); otherwise canIssue(now).
  bool canIssueShared(Cycle now) const {
    if (!cfg_.core.sharedQueueEntries)
      return canIssue(now);
    if (!sharedStarts_.empty()) // (instructions waiting for the banks: those due leave first)
      return canIssueQueued(now);
    return now >= nextIssue_ && !freeSlots_.empty();
  }
  /// Counts the changes of what canIssue()/canIssueShared() read (an issue, the coalescer
  /// freeing, an instruction slot freeing). While it stays the same, their answers change only
  /// at issueStateUntil(now): a scheduler whose warps wait only for this unit need not look at
  /// them again before either (Sm::QuietScan).
  uint64_t issueVersion() const { return issueVersion_; }
  /// The earliest cycle > now at which canIssue()/canIssueShared() may answer differently with
  /// issueVersion() unchanged (the issue interval, a queued shared instruction reaching the
  /// banks); kNever when only a change of issueVersion() can.
  Cycle issueStateUntil(Cycle now) const {
    Cycle at = nextIssue_ > now ? nextIssue_ : kNever;
    if (!sharedStarts_.empty()) // (those due are popped by canIssueShared)
      at = std::min(at, std::max(sharedStarts_.front(), now + 1));
    return at;
  }
  void issue(const WarpMemAccess &a, uint32_t warpSlot, uint64_t tag, Cycle now) {
    if (a.space == MemSpaceKind::Shared && cfg_.core.sharedQueueEntries)
      issueQueuedShared(a, warpSlot, tag, now);
    else
      issueToCoalescer(a, warpSlot, tag, now);
  }
  void tick(Cycle now, MemorySystem &mem) {
    // (inline: with nothing in the coalescer, nothing queued for the memory system, no data due
    // and no response waiting, a tick does nothing, as most of a tiled kernel's SMs' cycles
    // do while their loads are in flight)
    if (!curActive_ && missQ_.empty() && !mem.hasResponse(smId_)) {
      // (only data arrivals to retire, if any: a tick of a unit whose shared loads arrive
      // need not enter tickBusy's frame, which holds the coalescer and the responses)
      if (!events_.empty() && eventCycle(events_.front()) <= now)
        retireArrivals(now);
      return;
    }
    tickBusy(now, mem);
  }
  bool hasCompletion() const { return !completions_.empty(); }
  /// (warpSlot, tag) of a finished instruction.
  std::pair<uint32_t, uint64_t> popCompletion() { return completions_.pop(); }
  /// Earliest cycle > now at which tick() has work of its own (responses waiting in the memory
  /// system are the memory system's events); kNever when idle, and while all it waits for is
  /// in the memory system.
  /// (inline: the SM asks it whenever it looks for its next event)
  Cycle nextEventCycle(Cycle now) const {
    if (curActive_ || !missQ_.empty() || !completions_.empty())
      return now + 1;
    if (!events_.empty())
      return std::max(now + 1, eventCycle(events_.front()));
    return kNever;
  }
  bool idle() const;
  /// Nothing goes to the memory system: no instruction in the coalescer, no request waiting to
  /// be sent (shared-memory work in flight is the unit's own); awaiting(): reads and atomics
  /// sent whose responses have not come back.
  bool quiet() const { return !curActive_ && missQ_.empty(); }
  uint32_t awaiting() const { return awaiting_; }

  /// CCWS hooks: (warp slot, line address, cycle) of an L1D miss, and of an L1D eviction (the
  /// slot is the one whose miss brought the line in).
  std::function<void(uint32_t, uint64_t, Cycle)> onL1Miss, onL1Evict;

  static uint64_t localAddress(uint32_t sm, uint32_t warpSlot, uint32_t lane, uint64_t offset) {
    return kLocalBase + (uint64_t(sm) << 32) + (uint64_t(warpSlot) << 24) + (offset / 4) * 128 +
           lane * 4 + offset % 4;
  }

  struct Stats {
    uint64_t instructions = 0, loads = 0, stores = 0, atomics = 0;
    uint64_t globalInsts = 0;       ///< global/local/tex instructions
    uint64_t coalescedTransactions = 0; ///< lines they touched
    uint64_t sectorsTouched = 0;
    uint64_t sharedInsts = 0, sharedBankConflictCycles = 0;
    uint64_t constInsts = 0, constAccesses = 0;
    uint64_t stallCycles = 0;       ///< pieces retried (MSHRs, merge limit or miss queue full)
    uint64_t memStallCycles = 0;    ///< cycles the miss queue head waited for the memory system
    uint64_t requestsSent = 0, responses = 0;
  };
  const Stats &stats() const { return stats_; }
  const Cache &l1d() const { return l1d_; }
  const Cache &constCache() const { return const_; }
  /// The constant cache holds the line of `addr` (a device address) with its data.
  bool constHolds(uint64_t addr) const { return const_.probe(addr, const_.sectorsOf(addr, 1)); }
  /// (name, value) pairs: ldst.*, l1d.*, const.*.
  std::vector<std::pair<std::string, uint64_t>> statPairs() const;
  /// The same values by statistic (the GPU sums them over SMs).
  void appendStats(std::vector<std::pair<stats::Stat, double>> &out) const;
  /// Registers the names statPairs() reports (stats::Catalog).
  static void describeStats();
  void resetStats();
  /// Invalidates the L1 data and constant caches (between kernels, -gpgpu_flush_l1_cache).
  void flushL1() {
    l1d_.invalidateAll();
    const_.invalidateAll();
  }
  /// The L1D's ways under the adaptive carve-out (Cache::setWays; its lines go when it changes).
  void setL1Ways(uint32_t ways) { l1d_.setWays(ways); }

private:
  enum class PieceKind : uint8_t { Cached, Write, Atomic, Const, Shared };
  enum RequestKind : uint32_t { kReqL1 = 0, kReqConst = 1, kReqDirect = 2 };
  struct Piece {
    uint64_t addr;   ///< line (global) or byte address (const)
    uint32_t mask32; ///< 32-byte sectors of the 128-byte line
  };
  struct Inst {
    uint32_t warp = 0;
    uint64_t tag = 0;
    uint32_t outstanding = 0; ///< data pieces not yet arrived
    bool issuing = false;     ///< pieces still in the coalescer
    bool busy = false;
  };
  /// A data arrival due: (cycle << kEventSlotBits) | slot, so that one 64-bit comparison orders
  /// by cycle, then slot, as a (cycle, slot) pair did (cycles stay below 2^56).
  using Event = uint64_t;
  static constexpr uint32_t kEventSlotBits = 8; ///< kMaxInflight slots
  static_assert(kMaxInflight <= (1u << kEventSlotBits));
  static Cycle eventCycle(Event e) { return e >> kEventSlotBits; }
  static uint32_t eventSlot(Event e) { return uint32_t(e & ((1u << kEventSlotBits) - 1)); }

  bool canIssueQueued(Cycle now) const;
  /// issue() of a shared-memory instruction with core.sharedQueueEntries (the banks' queue),
  /// and of every other instruction (the coalescer): two functions, so the first, most of a
  /// tiled kernel's, does not pay the second's register saves and stack frame.
  void issueQueuedShared(const WarpMemAccess &a, uint32_t warpSlot, uint64_t tag, Cycle now);
  void issueToCoalescer(const WarpMemAccess &a, uint32_t warpSlot, uint64_t tag, Cycle now);
  /// A request from this SM for warp slot `warp` at `addr`, stamped with the current issue cycle.
  MemRequest newRequest(uint32_t warp, uint64_t addr) const;
  bool runPiece(Cycle now);
  /// tick() of a unit with something to do.
  void tickBusy(Cycle now, MemorySystem &mem);
  /// Retires the data arrivals due by `now` (the end of every tick).
  void retireArrivals(Cycle now);
  uint32_t sharedDegree(const WarpMemAccess &a) const;
  // (inline: the tick retires every data arrival through these)
  void dataArrived(uint32_t slot) {
    --insts_[slot].outstanding;
    maybeComplete(slot);
  }
  void maybeComplete(uint32_t slot) {
    Inst &in = insts_[slot];
    if (in.outstanding || in.issuing || !in.busy)
      return;
    completions_.push({in.warp, in.tag});
    in.busy = false;
    freeSlots_.push_back(slot);
    ++issueVersion_;
  }
  void takeResponse(const MemRequest &r, Cycle now);
  uint64_t makeId(RequestKind k, uint32_t slot) {
    return (uint64_t(smId_) << 48) | ((seq_++ & 0xffffffffull) << 16) | (uint64_t(k) << 14) | slot;
  }
  /// The L1D sectors of the 32-byte sectors `mask32` of a line (a table built from l1MaskOf).
  uint32_t l1Mask(uint32_t mask32) const { return l1Masks_[mask32 & 0xf]; }
  uint32_t l1MaskOf(uint32_t mask32) const;
  uint32_t l1Masks_[16] = {};
  uint32_t mask32Of(uint32_t l1mask) const;
  void addPiece(uint64_t line, uint32_t mask32);
  /// A full warp whose two halves each have their lanes of `bytes` at consecutive addresses
  /// (lane l at lane 0's plus l x bytes, lane 16 + l at lane 16's plus l x bytes; the whole
  /// warp consecutive, or two rows of a 16-wide tile): sets the pieces (each half's lines in
  /// order, with the sectors it covers), as lane-by-lane coalescing would, and returns true;
  /// false (nothing set) for any other warp.
  bool coalescedPieces(const WarpMemAccess &a, uint32_t bytes);
  void schedule(Cycle when, uint32_t slot) { events_.pushSorted((when << kEventSlotBits) | slot); }

  TimingConfig cfg_;
  uint32_t smId_;
  Cache l1d_, const_;
  // coalescer stage
  bool curActive_ = false;
  PieceKind curKind_ = PieceKind::Cached;
  bool curCas_ = false; ///< the current instruction is atom.cas
  bool curFloat_ = false; ///< the current instruction is a floating-point atomic
  uint32_t curSlot_ = 0, curN_ = 0, curNext_ = 0, curWarp_ = 0;
  Cycle curIssue_ = 0, nextIssue_ = 0;
  Cycle atomicIssueFree_ = 0; ///< cycle the unit sends the next global atomic request
  Piece pieces_[160];
  uint8_t pieceLanes_[160] = {}, pieceSame_[160] = {}; ///< atomics: lanes, most on one address
  uint32_t sharedDegree_ = 0;
  /// Latency a load's bank conflicts add: each wavefront after the first adds
  /// core.sharedConflictLatency cycles (an atomic's `degree` cycles are its lanes' own).
  /// (inline: every shared load asks, nearly all of them with degree 1)
  uint32_t sharedExtraLatency(uint32_t degree, bool atomic) const {
    if (degree <= 1)
      return 0;
    return (degree - 1) * (atomic ? 1 : std::max(1u, cfg_.core.sharedConflictLatency));
  }
  /// core.sharedBanks when a power of two of at most 64, else 0: bankConflictDegree's first
  /// test (a warp in one aligned row of the banks, degree 1) can then be asked directly.
  uint32_t sharedPow2Banks_ = 0;
  bool avx2_ = false; ///< the host has AVX2 (the shared path's row test, fullWarpInOneRowAvx2)
  Cycle sharedFreeAt_ = 0;            ///< queue mode: the banks finish the queued wavefronts
  mutable Ring<Cycle> sharedStarts_; ///< queue mode: bank start cycles of queued instructions
  bool curBypassL1_ = false;
  bool curLocal_ = false; ///< the instruction in the coalescer accesses local memory
  bool sharedStore_ = false;
  bool curAtomic_ = false; ///< the shared instruction in the coalescer is an atomic

  base::HugeVector<Inst> insts_;
  /// The free instruction slots, a stack (the last freed is taken first) of at most
  /// kMaxInflight: a fixed array, so that freeing one in the tick has no capacity test and no
  /// reallocation path.
  struct SlotStack {
    uint32_t slot[kMaxInflight];
    uint32_t n = 0;
    bool empty() const { return n == 0; }
    uint32_t size() const { return n; }
    uint32_t back() const { return slot[n - 1]; }
    void pop_back() { --n; }
    void push_back(uint32_t s) { slot[n++] = s; }
  };
  SlotStack freeSlots_;
  Ring<MemRequest> missQ_;
  uint32_t awaiting_ = 0; ///< requests sent that get a response (reads, atomics), not yet back
  Ring<std::pair<uint32_t, uint64_t>> completions_;
  Ring<Event> events_; ///< data arrivals due, ascending (cycle, then slot): Ring::pushSorted
  std::vector<uint64_t> released_;
  uint64_t seq_ = 0;
  uint64_t issueVersion_ = 0; ///< issueVersion()
  Stats stats_;
};

} // namespace ptxsim::timing

#pragma once
// Everything below the SMs' L1s: the interconnect, one L2 slice per memory partition and
// dram.channelsPerPartition DRAM channels per partition, each in its own clock domain.
//
// Contract (all cycles given to the API are core cycles):
//  - An SM sends with canAccept(sm)/push(sm, r, now) into its injection queue (kSmQueueEntries
//    requests). Reads and atomics come back once, as the same MemRequest with isResponse set,
//    through hasResponse(sm)/popResponse(sm); plain writes get no acknowledgement (the SM counts
//    a store as done once push() accepted it).
//  - `addr` is a global byte address; `sectorMask` gives the 32-byte sectors of the 128-byte line
//    holding `addr` that the request covers (0: derived from addr and bytes).
//  - Partition of an address: (addr / partitionInterleaveBytes) % numPartitions. Within a
//    partition the interleave bits are removed (local = addr / (I * P) * I + addr % I) before the
//    L2 set index is taken, and removed again the same way for the channel within the partition,
//    so the DRAM channel sees dense channel addresses.
//  - tick(now) once per core cycle, after the SMs' LDST units ticked (they push and pop first).
//    It runs the interconnect, L2 and DRAM clock domains up to the end of core cycle `now`:
//    domain D has run floor((now + 1) * fD / fCore) cycles (frequencies in kHz, integer
//    arithmetic), so the ratios are exact over any run length. A domain with nothing in flight
//    is not ticked; its cycle count jumps. `now` may jump forward (idle skipping) to at most
//    nextEventCycle().
//
// Unloaded latency of a read (one-flit response, equal core/icnt/L2 clocks), from the core cycle
// T in which the LDST unit pushes it to the cycle the LDST unit pops the response:
//    icntLatency (request)  + rop + l2.hitLatency (L2 hit)  + icntLatency (reply)  + 1
// where the ROP delay rop = l2Latency - 2 * icntLatency - l2.hitLatency - 1 (clamped at 0) is
// chosen so an L2 hit seen by the LDST unit takes l2Latency cycles (TimingConfig says l2Latency
// is the whole round trip). The final +1 is the core cycle boundary: responses delivered during
// mem.tick(c) are popped in cycle c + 1. A response of n flits adds n - 1 cycles of reply
// serialisation. An L2 miss replaces l2.hitLatency with: the DRAM request pushed at the first
// DRAM cycle not before the L2 miss, the DRAM service (tRCD + tCL + bursts on an idle closed
// bank), the fill taken by the L2 in the core cycle after the DRAM cycle that completed it, and
// one L2 cycle before the response leaves (defaults: 140 core cycles for a 128-byte fill;
// MemSystemTest spells out the arithmetic). Cross-domain hand-offs carry the receiving domain's
// cycle, so idle skipping gives the same cycle counts as ticking every cycle.
// Simplified: no reply-path backpressure (SMs always take responses); an atomic is one L2
// read-modify-write per request regardless of lanes; writes allocate in L2 without fetching
// (write-validate per 32-byte sector).

#include "timing/TimingConfig.h"
#include "timing/Types.h"
#include "timing/dram/DramChannel.h"
#include "timing/icnt/Interconnect.h"
#include "timing/mem/Cache.h"
#include "timing/mem/Ring.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ptxsim::timing {

class MemorySystem {
public:
  static constexpr uint32_t kSmQueueEntries = 8;        ///< per-SM injection queue
  static constexpr uint32_t kPartitionInputEntries = 32; ///< packets in flight to / queued at an L2 (plus the ROP pipeline's stages)
  static constexpr uint32_t kDramPendingEntries = 16;    ///< L2 -> DRAM requests waiting per partition

  struct PartitionStats {
    uint64_t requests = 0, reads = 0, writes = 0, atomics = 0;
    uint64_t dramReads = 0, dramWrites = 0; ///< requests sent to DRAM (fills, writebacks)
    uint64_t stallCycles = 0;               ///< L2 cycles the input head could not be served
  };

  explicit MemorySystem(const TimingConfig &cfg);
  ~MemorySystem();

  bool canAccept(uint32_t sm) const { return ports_[sm].in.size() < kSmQueueEntries; }
  void push(uint32_t sm, const MemRequest &r, Cycle coreNow);
  void tick(Cycle coreNow);
  /// tick() in three parts, for the GPU's parallel engine: tickIcnt() (the interconnect domain:
  /// it sends from the SMs' injection queues and the partitions' output queues; one thread),
  /// then tickPartition(p) for every partition (it takes the packets that arrived at its node,
  /// then runs its L2 slice and DRAM channels; partitions share nothing, so they may run on
  /// different host threads at once, and at the same time as the SMs' tickLocal, which touch
  /// only their own injection queue and the replies at their own node), then endTick().
  /// tick() = tickIcnt + tickPartition(0..P-1) + endTick, so the split changes no result.
  void tickIcnt(Cycle coreNow);
  void tickPartition(uint32_t p, Cycle coreNow);
  /// tickPartition() of every partition, in order (on one thread). It keeps a summary of the
  /// waiting partitions (their earliest wakes), so that a cycle in which none of them can act
  /// ticks only the others; tickPartition() on the threads does not: call
  /// partitionsTickedApart() before such a phase.
  void tickPartitions(Cycle coreNow);
  void partitionsTickedApart() { wakeSummaryOk_ = false; }
  void endTick(Cycle coreNow);
  /// A response for `sm` arrived by the last interconnect cycle run. The SM pops its own
  /// responses straight from the interconnect (on its own host thread in the parallel engine).
  bool hasResponse(uint32_t sm) const {
    return icntD_.next && icnt_.hasArrival(icnt_.smNode(sm), icntD_.next - 1);
  }
  MemRequest popResponse(uint32_t sm);
  /// A response for `sm` may be there at its tick in core cycle `core` (>= the current one),
  /// whatever the memory system does meanwhile: one in flight arrives by then, or one the
  /// partitions send from the next interconnect cycle on could (the interconnect's shortest
  /// reply path to the SM). False means no response can reach the SM before that tick.
  bool responseMayArrive(uint32_t sm, Cycle core) const {
    const Cycle first = std::min(icnt_.firstArrival(icnt_.smNode(sm)), icntD_.next + minReplyLatency_[sm]);
    return domainTarget(icntD_, core) > first;
  }
  bool idle() const;
  /// The earliest core cycle >= coreNow + 1 at which tick() can change anything; kNever if idle.
  Cycle nextEventCycle(Cycle coreNow) const;

  uint32_t numPartitions() const { return numPartitions_; }
  /// The partitions not asleep (each has something queued, in flight or in its channels).
  uint32_t awakePartitions() const {
    uint32_t n = 0;
    forEachByteSet(partAwake_, 0, numPartitions_, [&](size_t) { ++n; });
    return n;
  }
  uint32_t partitionOf(uint64_t addr) const {
    uint64_t chunk = addr / interleave_;
    if (!hashPartitions_)
      return uint32_t(chunk % numPartitions_);
    // Rotating each row of numPartitions chunks keeps partitionLocal() unchanged and the mapping
    // a bijection. Without it a grid-stride loop whose CTA footprint and stride are multiples of
    // 16 chunks sends warp k of every CTA to the same 2 of each 16 slices; the oldest warps
    // (GTO) then overload those slices and head-of-line block every SM (H100 write-only
    // stream: 1.43 TB/s linear, 2.87 hashed; tools/correlate/README.md)
    uint64_t row = chunk / numPartitions_;
    return uint32_t((chunk + ((row * 0x9E3779B97F4A7C15ull) >> 40)) % numPartitions_);
  }
  /// `addr` with the partition interleave bits removed.
  uint64_t partitionLocal(uint64_t addr) const {
    return addr / (uint64_t(interleave_) * numPartitions_) * interleave_ + addr % interleave_;
  }
  /// The ROP delay in L2 cycles (see the latency composition above).
  uint32_t ropCycles() const { return rop_; }
  const Cache &l2(uint32_t p) const;
  const DramChannel &dram(uint32_t p, uint32_t ch) const;
  const Interconnect &icnt() const { return icnt_; }

  /// (name, value) pairs: l2[p].* per partition, l2.* summed, dram.* summed, icnt.*.
  std::vector<std::pair<std::string, uint64_t>> stats() const;
  /// The totals of stats() (l2.*, partition, dram.*, icnt.*), by statistic, in its order.
  void appendTotals(std::vector<std::pair<stats::Stat, double>> &out) const;
  /// The per-partition part of stats() (`l2[3].misses`), in its order.
  void appendInstances(std::vector<std::pair<std::string, uint64_t>> &out) const;
  /// appendInstances() in two parts: the names, fixed for the system's life (a caller keeps
  /// them), and the values in the same order (no name built: a launch's collection).
  std::vector<std::string> instanceNames() const;
  void appendInstanceValues(std::vector<double> &out) const;
  /// Registers the names stats() reports (stats::Catalog).
  static void describeStats();
  /// `dram.latency` (dramLatency()'s summary in a snapshot).
  static const stats::DistributionStat &dramLatencyStat();
  /// DRAM request latencies (DRAM cycles) over every channel since the last resetStats().
  stats::Distribution dramLatency() const;
  void resetStats();
  /// Invalidates every L2 slice (between kernels, -gpgpu_flush_l2_cache). Timing state only:
  /// data lives in the functional memory, so dropping dirty lines loses nothing.
  void flushL2();
  /// A host-to-device copy wrote device bytes [addr, addr + bytes) (device addresses as the SMs
  /// send them): its last bytes, up to the L2's capacity, are put in the L2 dirty
  /// (-gpgpu_perf_sim_memcpy).
  void hostWrite(uint64_t addr, uint64_t bytes);

private:
  struct Partition;
  struct Domain {
    uint64_t khz = 1;
    Cycle next = 0; ///< first cycle of this domain not yet run
  };

  Cycle domainTarget(const Domain &d, Cycle coreNow) const;
  Cycle toCore(const Domain &d, Cycle domainCycle) const;
  Cycle busyPartitionEvent(const Partition &p) const;
  static Cycle convert(Cycle c, const Domain &from, const Domain &to);
  /// One interconnect cycle; `smInput`: anySmInput() (what the caller just read).
  void icntCycle(Cycle c, bool smInput);
  void l2Cycle(Partition &p, Cycle c);
  void dramCycle(Partition &p, Cycle c);
  bool partitionIdle(const Partition &p) const;
  /// tickPartition() of an awake partition, given this tick's L2 and DRAM domain targets.
  void tickAwakePartition(uint32_t pi, Cycle l2Target, Cycle dramTarget);
  /// Partition pi waited after its last tick and neither its wakes nor a packet come within
  /// these targets: every L2 and DRAM cycle of this tick comes before its next event, and
  /// its tick would change nothing (tickAwakePartition's first test).
  bool waitsThrough(uint32_t pi, Cycle l2Target, Cycle dramTarget) const;
  /// L2 cycle at which atomic `r`, ready at `c`, is done at an atomic unit free from `unitFree`
  /// (which it advances).
  Cycle atomicDone(Cycle &unitFree, const MemRequest &r, Cycle c) const;
  /// An atomic at partition p ready at L2 cycle c (`fill`: its line just came from DRAM): with
  /// shared units (-ptxsim_l2_atomic_units) it waits for endTick, else its response is queued.
  void queueAtomic(Partition &p, const MemRequest &r, Cycle c, bool fill);
  /// endTick's part with shared atomic units: the atomics the partitions took this tick, per
  /// unit in the order of their L2 cycle and partition, get their unit's time and responses.
  void serveSharedAtomics();
  void sendToDram(Partition &p, uint64_t localLine, uint32_t l2Mask, bool write, Cycle l2Now);
  uint32_t toL2Mask(const MemRequest &r, uint64_t local) const;
  /// Whether SM `sm` sits in the other half of the GPU than partition p's slice.
  bool farSide(const Partition &p, uint32_t sm) const;

  TimingConfig cfg_;
  uint32_t numSms_, numPartitions_, interleave_, channels_, rop_ = 0;
  uint32_t farL2_ = 0; ///< -ptxsim_l2_far_latency in L2 cycles
  bool hashPartitions_ = false; ///< MemoryConfig::partitionIndexing != 0
  Domain core_, icntD_, l2D_, dramD_;
  std::vector<Cycle> minReplyLatency_; ///< per SM: the least interconnect latency from a partition
  Interconnect icnt_;
  /// An SM's injection queue (requests with their first icnt cycle), on cache lines of its
  /// own: SMs on different host threads push at once. (Replies wait in the interconnect's
  /// queue for the SM's node until the SM pops them.)
  struct alignas(64) SmPort {
    Ring<std::pair<MemRequest, Cycle>> in;
  };
  std::vector<SmPort> ports_;
  /// Per SM: its injection queue is not empty. SMs set their byte as they push (from several
  /// host threads in the parallel engine's phase: no shared counter to fight over), the
  /// interconnect clears it as it empties the queue, and finds the SMs to serve by reading
  /// these bytes instead of every queue.
  std::vector<uint8_t> smInFlag_;
  bool anySmInput() const;
  /// Per partition: its reply queue (`out`) is not empty. Set by the partition as it pushes
  /// (tickPartition, on the threads), cleared by the interconnect as it empties the queue.
  std::vector<uint8_t> outFlag_;
  /// Per partition: not asleep (tickPartition). Cleared by the partition's own tick when it is
  /// idle, set by the interconnect when it sends the partition a packet. (Padded to a multiple
  /// of 8 bytes: forEachByteSet.)
  std::vector<uint8_t> partAwake_;
  /// Per partition, after a tick that left nothing due at once (nothing for DRAM to take, no
  /// reply from a channel): `waiting`, the L2 cycle its input head may be served and the DRAM
  /// cycle a busy channel next needs a tick (kNever: none). Until either, or until a packet
  /// arrives, its ticks would run no L2 or DRAM cycle that does anything. (Beside the flags:
  /// the cycle's checks read no partition.)
  struct PartitionWake {
    Cycle wakeL2 = 0, wakeDram = 0;
    bool waiting = false;
  };
  std::vector<PartitionWake> partWake_;
  /// The summary of partWake_ that tickPartitions() keeps (valid while wakeSummaryOk_): the
  /// awake partitions that were not waiting after their last tick (in no set order: the
  /// partitions share nothing, and only minima are taken over the list), and the earliest
  /// wakeL2 and wakeDram of the awake waiting ones (exact minima: nextEventCycle reads them).
  bool wakeSummaryOk_ = false;
  std::vector<uint32_t> busyParts_;
  Cycle minWakeL2_ = kNever, minWakeDram_ = kNever;
  /// tickPartitions() with a valid summary, after the busy partitions: ticks those a packet
  /// has arrived at (by the last icnt cycle run), and adds them to the summary.
  void tickArrivals(Cycle l2Target, Cycle dramTarget);
  /// Rebuilds the summary from every partition's state.
  void summarizeWakes();
  /// Moves the packets that arrived at partition p by the last icnt cycle run into its input
  /// queue (its own phase: tickPartition).
  void takeArrivals(Partition &p);
  uint32_t rrSm_ = 0; ///< SM with injection priority this icnt cycle
  /// -ptxsim_l2_atomic_units (0: each slice's own unit, Partition::atomicFree). Shared units
  /// are served in the serial endTick: partitions tick on several host threads.
  uint32_t atomicUnits_ = 0;
  std::vector<Cycle> unitFree_;         ///< per shared unit: the L2 cycle it is free again
  std::vector<uint8_t> atomicWaitFlag_; ///< per partition: atomics wait for endTick (padded)
  struct WaitingAtomic {
    Cycle c;
    uint32_t partition, index;
  };
  std::vector<WaitingAtomic> unitScratch_; ///< serveSharedAtomics' merge of one unit's atomics
  std::vector<std::unique_ptr<Partition>> parts_;
};

} // namespace ptxsim::timing

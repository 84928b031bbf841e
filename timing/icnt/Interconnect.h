#pragma once
// The SM <-> memory-partition network: a registered topology (topology/ITopology.h: a crossbar,
// one hop between any nodes; a 2D mesh, Manhattan distance; or a study's own) with a latency per
// hop and per-port flit serialisation.
//
// Contract: nodes 0..numSms-1 are SMs, numSms..numSms+numPartitions-1 are memory partitions.
// send() takes a packet when canSend(src, now) (the source port is free this cycle) and
// reserves its path at once: the source port is busy for `flits` cycles from injection, the
// head reaches the destination `latency` cycles after injection, and the destination port ejects
// one flit per cycle in reservation order. The packet can be popped at the destination from the
// cycle its last flit is ejected:
//   arrival = max(inject + latency, dstPortFree) + flits - 1
// so an unloaded one-flit packet sent at cycle t arrives at t + latency (crossbar) or
// t + hops * latency (mesh). Flits per packet: ceil(payload / flitBytes), at least 1; a read
// request's payload is 0 (one header flit), a write or atomic request and a read response carry
// `bytes`. Link contention inside the mesh is not modelled, only port serialisation.
// All cycles are cycles of the interconnect clock.

#include "timing/TimingConfig.h"
#include "timing/Types.h"
#include "timing/icnt/topology/ITopology.h"
#include "timing/mem/Ring.h"

#include <memory>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ptxsim::timing {

class Interconnect {
public:
  struct Stats {
    uint64_t packets = 0, flits = 0, bytes = 0; ///< bytes: payload bytes carried
    uint64_t requestPackets = 0, replyPackets = 0;
  };

  Interconnect(const MemoryConfig &cfg, uint32_t numSms, uint32_t numPartitions);
  ~Interconnect();

  uint32_t numNodes() const { return uint32_t(dstQ_.size()); }
  uint32_t smNode(uint32_t sm) const { return sm; }
  uint32_t partitionNode(uint32_t p) const { return numSms_ + p; }
  /// Flits `r` takes on the wire (a request if !r.isResponse); a store's write request takes
  /// at least MemoryConfig::icntWriteMinFlits.
  uint32_t flitsFor(const MemRequest &r) const;
  /// Traversal latency from `src` to `dst` in cycles.
  uint32_t latency(uint32_t src, uint32_t dst) const;

  bool canSend(uint32_t src, Cycle now) const { return srcFree_[src] <= now; }
  void send(uint32_t src, uint32_t dst, const MemRequest &r, Cycle now);
  /// A packet whose last flit has arrived at `node` by cycle `now`.
  bool hasArrival(uint32_t node, Cycle now) const {
    const auto &q = dstQ_[node].q;
    return !q.empty() && q.front().second <= now;
  }
  /// The cycle the packet at the head of `node`'s queue arrives (hasArrival or not).
  Cycle frontArrival(uint32_t node) const { return dstQ_[node].q.front().second; }
  /// The earliest arrival of a packet sent to `node` (kNever: none in flight or waiting).
  Cycle firstArrival(uint32_t node) const {
    const auto &q = dstQ_[node].q;
    return q.empty() ? kNever : q.front().second;
  }
  /// Pops the packet at the head of `node`'s queue. Each node's packets are popped by that node
  /// (the parallel engine: an SM or partition on its own host thread, at the same time as
  /// other nodes; only send() pushes, and never during that phase).
  MemRequest pop(uint32_t node);
  /// A packet to `node` is in flight or waits to be popped.
  bool pendingAt(uint32_t node) const {
    return node < numSms_ ? smPending_[node] != 0 : partPending_[node - numSms_] != 0;
  }
  /// No packet in flight or waiting to be popped anywhere.
  bool idle() const { return !anyByteSet(smPending_) && !anyByteSet(partPending_); }
  /// No packet in flight to (or waiting at) a partition.
  bool partitionsIdle() const { return !anyByteSet(partPending_); }
  /// The earliest arrival cycle of a packet in flight; kNever when idle.
  Cycle nextArrival() const;
  /// Per partition (padded to a multiple of 8 bytes): pendingAt(partitionNode(p)), for a scan
  /// of the partitions with packets to them (forEachByteSet).
  const std::vector<uint8_t> &partitionPendingFlags() const { return partPending_; }

  const Stats &stats() const { return stats_; }
  void resetStats() { stats_ = Stats{}; }

private:
  std::unique_ptr<ITopology> topo_; ///< registered topology (topology/ITopology.h)
  uint32_t numSms_, lat_, flitBytes_, writeMinFlits_;
  std::vector<Cycle> srcFree_, dstFree_;
  /// Each destination's queue on cache lines of its own: SMs pop theirs on different threads.
  struct alignas(64) NodeQueue {
    Ring<std::pair<MemRequest, Cycle>> q;
  };
  std::vector<NodeQueue> dstQ_;
  /// Per SM node and per partition node: packets to it not yet popped. Set by send(), cleared
  /// by the node's pop that empties its queue (a byte per node rather than a shared counter:
  /// nodes pop on several threads). Padded to a multiple of 8 bytes.
  std::vector<uint8_t> smPending_, partPending_;
  Stats stats_;
};

} // namespace ptxsim::timing

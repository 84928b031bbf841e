#pragma once
// The network delay the synchronized chiplet simulation applies while it runs: a causal,
// first-come-first-served reservation of every router output port on a packet's
// dimension-order path.
//
// Contract: packets are added in nondecreasing (time, source, sequence) order, and a packet's
// arrival depends only on packets added before it, so every chiplet (or MPI rank) that adds the
// same packets in the same order computes the same arrival cycles, whichever window of the
// synchronization it learns them in. Zero-load delay equals noc::zeroLoadDelay(); a packet that
// finds an output port busy waits for it (contention), so delays grow with load. The cycle-level
// VC model (Network.h) replays the traces afterwards for the popnet-style report.

#include "isa_ext/chiplet/noc/Network.h"

#include <vector>

namespace ptxsim::chiplet::noc {

class PathModel {
public:
  explicit PathModel(const NetworkConfig &cfg);
  /// Arrival cycle (tail flit out of the destination router) of `p`.
  uint64_t add(const Packet &p);
  /// Smallest delay any packet between two different nodes can have: the lookahead of the
  /// conservative synchronization.
  uint64_t minDelay() const;

private:
  NetworkConfig cfg_;
  std::vector<uint64_t> portFree_; ///< node * ports + port -> first cycle the port is free
  unsigned ports_;
};

} // namespace ptxsim::chiplet::noc

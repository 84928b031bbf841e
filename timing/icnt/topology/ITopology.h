#pragma once
// Interconnect topologies: how many router hops separate two nodes of the SM <-> memory-partition
// network (timing/icnt/Interconnect.h turns hops into latency: hops x per-hop latency).
//
// Contract: built once per GPU for `numNodes` nodes (SMs first, then memory partitions);
// hops(src, dst) is at least 1 for any pair (a crossbar is one hop), deterministic and cheap
// (called once per packet).

#include "base/NamedRegistry.h"
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ptxsim::timing {

class ITopology {
public:
  virtual ~ITopology() = default;
  virtual uint32_t hops(uint32_t src, uint32_t dst) const = 0;
};

using TopologyFactory = std::unique_ptr<ITopology> (*)(uint32_t numNodes);

/// Name -> factory: `crossbar` and `mesh` built in; `-network_mode` accepts every registered
/// name (studies add theirs from a registration function listed in isa_ext/Extensions.def).
class TopologyRegistry : public NamedRegistry<TopologyFactory> {
public:
  std::unique_ptr<ITopology> create(const std::string &name, uint32_t numNodes) const {
    TopologyFactory f = find(name);
    return f ? f(numNodes) : nullptr;
  }
};

TopologyRegistry &topologyRegistry();

std::unique_ptr<ITopology> createCrossbarTopology(uint32_t numNodes);
std::unique_ptr<ITopology> createMeshTopology(uint32_t numNodes);

} // namespace ptxsim::timing

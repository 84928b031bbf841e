#include "timing/icnt/topology/ITopology.h"

namespace ptxsim::timing {

void TopologyRegistry::add(std::string name, TopologyFactory f) {
  for (auto &e : entries_)
    if (e.first == name) {
      e.second = f;
      return;
    }
  entries_.emplace_back(std::move(name), f);
}

std::unique_ptr<ITopology> TopologyRegistry::create(const std::string &name,
                                                    uint32_t numNodes) const {
  for (const auto &e : entries_)
    if (e.first == name)
      return e.second(numNodes);
  return nullptr;
}

std::vector<std::string> TopologyRegistry::names() const {
  std::vector<std::string> out;
  for (const auto &e : entries_)
    out.push_back(e.first);
  return out;
}

TopologyRegistry &topologyRegistry() {
  static TopologyRegistry *r = [] {
    auto *reg = new TopologyRegistry();
    reg->add("crossbar", createCrossbarTopology);
    reg->add("mesh", createMeshTopology);
    return reg;
  }();
  return *r;
}

} // namespace ptxsim::timing

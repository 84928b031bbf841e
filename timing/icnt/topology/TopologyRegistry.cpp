#include "timing/icnt/topology/ITopology.h"

namespace ptxsim::timing {

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

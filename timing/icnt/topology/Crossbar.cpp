// A crossbar: every node one hop from every other. The simplest topology: copy this file.
#include "timing/icnt/topology/ITopology.h"

namespace ptxsim::timing {
namespace {
class Crossbar : public ITopology {
public:
  uint32_t hops(uint32_t, uint32_t) const override { return 1; }
};
} // namespace

std::unique_ptr<ITopology> createCrossbarTopology(uint32_t) { return std::make_unique<Crossbar>(); }

} // namespace ptxsim::timing

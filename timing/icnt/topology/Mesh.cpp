// A 2D mesh: nodes row-major on the smallest square grid that holds them (SMs first, then
// partitions); hops = Manhattan distance, at least 1.
#include "timing/icnt/topology/ITopology.h"

#include <algorithm>
#include <cstdlib>

namespace ptxsim::timing {
namespace {
class Mesh : public ITopology {
public:
  explicit Mesh(uint32_t n) {
    while (side_ * side_ < n)
      ++side_;
  }
  uint32_t hops(uint32_t src, uint32_t dst) const override {
    int sx = int(src % side_), sy = int(src / side_), dx = int(dst % side_), dy = int(dst / side_);
    return std::max(1u, uint32_t(std::abs(sx - dx) + std::abs(sy - dy)));
  }

private:
  uint32_t side_ = 1;
};
} // namespace

std::unique_ptr<ITopology> createMeshTopology(uint32_t numNodes) {
  return std::make_unique<Mesh>(numNodes);
}

} // namespace ptxsim::timing

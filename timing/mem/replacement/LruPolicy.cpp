// LRU replacement (GPGPU-Sim's `L`): the way used longest ago (the lowest way on a tie).
#include "base/HugeAlloc.h"
#include "timing/mem/replacement/IReplacementPolicy.h"

namespace ptxsim::timing {
namespace {

class LruPolicy : public IReplacementPolicy {
public:
  LruPolicy(uint32_t sets, uint32_t ways) : ways_(ways), used_(size_t(sets) * ways, 0) {}
  void touch(uint32_t set, uint32_t way, uint64_t stamp, bool) override {
    used_[size_t(set) * ways_ + way] = stamp;
  }
  uint32_t victim(uint32_t set) const override {
    const uint64_t *u = &used_[size_t(set) * ways_];
    uint32_t v = 0;
    for (uint32_t w = 1; w < ways_; ++w)
      if (u[w] < u[v])
        v = w;
    return v;
  }

private:
  uint32_t ways_;
  base::HugeVector<uint64_t> used_; ///< sets x ways: stamp of the last use
};

} // namespace

std::unique_ptr<IReplacementPolicy> createLruPolicy(uint32_t sets, uint32_t ways) {
  return std::make_unique<LruPolicy>(sets, ways);
}

} // namespace ptxsim::timing

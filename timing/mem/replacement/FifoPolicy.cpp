// FIFO replacement (GPGPU-Sim's `F`): the way filled longest ago; hits do not matter. The
// simplest policy: copy this file to write your own.
#include "base/HugeAlloc.h"
#include "timing/mem/replacement/IReplacementPolicy.h"

namespace ptxsim::timing {
namespace {

class FifoPolicy : public IReplacementPolicy {
public:
  FifoPolicy(uint32_t sets, uint32_t ways) : ways_(ways), filled_(size_t(sets) * ways, 0) {}
  void touch(uint32_t set, uint32_t way, uint64_t stamp, bool fill) override {
    if (fill)
      filled_[size_t(set) * ways_ + way] = stamp;
  }
  uint32_t victim(uint32_t set) const override {
    const uint64_t *f = &filled_[size_t(set) * ways_];
    uint32_t v = 0;
    for (uint32_t w = 1; w < ways_; ++w)
      if (f[w] < f[v])
        v = w;
    return v;
  }

private:
  uint32_t ways_;
  base::HugeVector<uint64_t> filled_; ///< sets x ways: stamp of the fill
};

} // namespace

std::unique_ptr<IReplacementPolicy> createFifoPolicy(uint32_t sets, uint32_t ways) {
  return std::make_unique<FifoPolicy>(sets, ways);
}

} // namespace ptxsim::timing

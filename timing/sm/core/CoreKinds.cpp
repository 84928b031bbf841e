#include "timing/sm/core/CoreKinds.h"

namespace ptxsim::timing {

std::unique_ptr<Sm> createFullSm(const TimingConfig &cfg, uint32_t smId,
                                 const SchedulerRegistry &schedulers) {
  return std::make_unique<Sm>(cfg, smId, schedulers);
}

void registerBuiltinCoreKinds(CoreKindRegistry &r) {
  r.add("sm", createFullSm);
  r.add("reduced", createReducedCore);
  r.add("dma", createDmaEngine);
}

CoreKindRegistry &coreKindRegistry() {
  // built on first use and never destroyed (no static destructor runs at exit)
  static CoreKindRegistry *registry = [] {
    auto *r = new CoreKindRegistry();
    registerBuiltinCoreKinds(*r);
    return r;
  }();
  return *registry;
}

} // namespace ptxsim::timing

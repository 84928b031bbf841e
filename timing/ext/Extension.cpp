#include "timing/ext/Extension.h"

namespace ptxsim::timing {
namespace {
std::vector<MemSpaceModelFactory> &spaceModels() {
  static auto *v = new std::vector<MemSpaceModelFactory>(ptx::ir::kMaxMemSpaces, nullptr);
  return *v;
}
std::vector<StatsSource> &sources() {
  static auto *v = new std::vector<StatsSource>();
  return *v;
}
} // namespace

void registerPipe(ptx::ir::OpClass cls, std::string_view name, PipeSpecFn spec) {
  pipeRegistry().add(name, {cls}, spec);
}

void registerMemSpaceModel(ptx::ir::MemSpace space, MemSpaceModelFactory factory) {
  spaceModels()[size_t(space)] = factory;
}
MemSpaceModelFactory memSpaceModelFactory(ptx::ir::MemSpace space) {
  return size_t(space) < spaceModels().size() ? spaceModels()[size_t(space)] : nullptr;
}

void registerStatsSource(StatsDescribeFn describe, StatsCollectFn collect) {
  sources().push_back(StatsSource{describe, collect});
  if (describe)
    describe();
}
const std::vector<StatsSource> &statsSources() { return sources(); }

namespace {
std::vector<SmConfigFn> &smConfigs() {
  static auto *v = new std::vector<SmConfigFn>();
  return *v;
}
} // namespace
void registerSmConfig(SmConfigFn adjust) { smConfigs().push_back(adjust); }
const std::vector<SmConfigFn> &smConfigFns() { return smConfigs(); }

} // namespace ptxsim::timing

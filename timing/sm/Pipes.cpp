#include "timing/sm/Pipes.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace ptxsim::timing {

using ptx::ir::OpClass;

void PipeRegistry::add(std::string_view name, std::vector<OpClass> classes, PipeSpecFn spec,
                       std::string_view fallback) {
  for (PipeDesc &d : pipes_)
    for (OpClass c : classes)
      d.classes.erase(std::remove(d.classes.begin(), d.classes.end(), c), d.classes.end());
  int i = find(name);
  if (i < 0) {
    if (pipes_.size() >= kMaxPipes) {
      std::fprintf(stderr, "ptxsim: pipe '%.*s': more than %zu pipes registered\n",
                   int(name.size()), name.data(), kMaxPipes);
      std::exit(1);
    }
    stats::Counter issued("sm.issued." + std::string(name), stats::Unit::Count,
                          "warp instructions issued to the " + std::string(name) + " pipeline");
    pipes_.push_back(PipeDesc{std::string(name), {}, nullptr, {}, issued});
    i = int(pipes_.size()) - 1;
  }
  PipeDesc &d = pipes_[size_t(i)];
  d.classes.insert(d.classes.end(), classes.begin(), classes.end());
  d.spec = spec;
  d.fallback = std::string(fallback);
}

int PipeRegistry::find(std::string_view name) const {
  for (size_t i = 0; i < pipes_.size(); ++i)
    if (pipes_[i].name == name)
      return int(i);
  return -1;
}

void registerBuiltinPipes(PipeRegistry &r) {
  using C = OpClass;
  r.add("sp", {C::Alu, C::Mul, C::Fp32, C::Half, C::Warp}, [](const TimingConfig &c) {
    return PipeSpec{c.core.spUnits, c.core.spLatency, c.core.spInterval};
  });
  r.add("dp", {C::Fp64}, [](const TimingConfig &c) {
    return PipeSpec{c.core.dpUnits, c.core.dpLatency, c.core.dpInterval};
  }, "sfu");
  r.add("sfu", {C::Sfu}, [](const TimingConfig &c) {
    return PipeSpec{c.core.sfuUnits, c.core.sfuLatency, c.core.sfuInterval};
  });
  r.add("tensor", {C::Tensor}, [](const TimingConfig &c) {
    return PipeSpec{c.core.tensorUnits, c.core.tensorLatency, c.core.tensorInterval};
  }, "sp");
  r.add("ldst", {C::Mem, C::Atomic}, [](const TimingConfig &c) {
    return PipeSpec{c.core.ldstUnits, 1, c.core.ldstInterval};
  });
  r.add("branch", {C::Control}, [](const TimingConfig &c) {
    return PipeSpec{1, c.core.branchLatency, 1};
  });
  r.add("sync", {C::Sync}, [](const TimingConfig &) { return PipeSpec{1, 1, 1}; });
  r.add("misc", {C::Misc}, [](const TimingConfig &) { return PipeSpec{1, 1, 1}; });
  // (after the others, so that their indices stay; it claims C::Warp from sp when it has units)
  r.add("warp", {C::Warp}, [](const TimingConfig &c) {
    return PipeSpec{c.core.warpUnits, c.core.warpLatency, c.core.warpInterval};
  }, "sp");
}

PipeRegistry &pipeRegistry() {
  // built on first use and never destroyed (no static destructor runs at exit)
  static PipeRegistry *registry = [] {
    auto *r = new PipeRegistry();
    registerBuiltinPipes(*r);
    return r;
  }();
  return *registry;
}

} // namespace ptxsim::timing

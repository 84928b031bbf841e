#pragma once
// Extension points of the timing model: execution pipelines for new instruction classes,
// models for new memory spaces, and statistics of extension units.
//
// Contract: everything here is registered at start-up (before the first Gpu is built) from an
// extension's registration function (isa_ext/Extensions.def) and never changes afterwards.
// - registerPipe(cls, name, spec): instructions of class `cls` (ir::registerOpClass) issue to
//   a pipeline of their own (the registry of timing/sm/Pipes.h) with `units` units, each taking one instruction every `interval`
//   cycles, results ready `latency` cycles after issue; its issues are counted as
//   `sm.issued.<name>`. `spec` is read when each SM is built, so it may depend on the config.
// - registerMemSpaceModel(space, factory): every SM gets its own model object for the space
//   (ir::registerMemSpace); a warp access to the space calls access() at issue with the lanes'
//   addresses in the space's own offsets, and the destination registers become ready at the
//   returned cycle. The model keeps its own counters and reports them through stats().
// - registerStatsSource(describe, collect): `describe` registers the extension's statistics in
//   the catalog; `collect` adds their values to each kernel's snapshot (it may read the kernel's
//   LaunchExtension through the grid it is given).
// The core never names an extension; an extension never edits the core.

#include "base/Stats.h"
#include "ptx/ir/Ir.h"
#include "timing/TimingConfig.h"
#include "timing/Types.h"
#include "timing/sm/Pipes.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptxsim::ptx::exec {
class SteppedGrid;
}

namespace ptxsim::timing {

struct WarpMemAccess;

/// pipeRegistry().add(name, {cls}, spec) (timing/sm/Pipes.h, where the built-in pipes are
/// registered the same way).
void registerPipe(ptx::ir::OpClass cls, std::string_view name, PipeSpecFn spec);

class IMemSpaceModel {
public:
  virtual ~IMemSpaceModel() = default;
  /// Called at issue of warp access `a` (its space is this model's) by warp slot `slot` at
  /// cycle `now`; returns the cycle the access completes (loads: data in registers).
  virtual Cycle access(const WarpMemAccess &a, uint32_t slot, Cycle now) = 0;
  /// Cumulative counters of this SM's model as (registered name, value); the GPU sums them
  /// over SMs.
  virtual void stats(std::vector<std::pair<std::string, double>> &out) const = 0;
  virtual void resetStats() = 0;
};
using MemSpaceModelFactory = std::unique_ptr<IMemSpaceModel> (*)(const TimingConfig &cfg,
                                                                 uint32_t smId);
void registerMemSpaceModel(ptx::ir::MemSpace space, MemSpaceModelFactory factory);
/// The factory for `space`, or null.
MemSpaceModelFactory memSpaceModelFactory(ptx::ir::MemSpace space);

using StatsDescribeFn = void (*)();
using StatsCollectFn = void (*)(const ptx::exec::SteppedGrid &grid, stats::Snapshot &out);
void registerStatsSource(StatsDescribeFn describe, StatsCollectFn collect);
struct StatsSource {
  StatsDescribeFn describe;
  StatsCollectFn collect;
};
const std::vector<StatsSource> &statsSources();

/// Heterogeneous cores: `adjust` may change the configuration SM `smId` is built with (an
/// extension's units that are reduced SMs, e.g. without an L1 data cache). Called for every SM
/// when a Gpu is built, in registration order; a function that changes nothing for a
/// configuration leaves every SM as configured.
using SmConfigFn = void (*)(TimingConfig &cfg, uint32_t smId);
void registerSmConfig(SmConfigFn adjust);
const std::vector<SmConfigFn> &smConfigFns();

} // namespace ptxsim::timing

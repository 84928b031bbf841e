#pragma once
// Core kinds: what each core of the GPU is (a full SM, a reduced core, a DMA engine, or a kind
// an extension adds), and the registry that builds every core by its kind's name.
//
// Contract: CoreConfig::kind names the kind of the core a configuration builds ("sm" unless an
// extension's heterogeneous-core function, timing::registerSmConfig, says otherwise for that
// core). A kind is a factory that builds the core (timing::Sm or a class derived from it that
// overrides Sm::issue, and Sm::beginKernel where CTAs are charged differently) from the core's
// own configuration. Every kind runs in the GPU's parallel engine: a kind whose issue may step
// instructions that reach beyond the core before it can tell (a DMA engine's run-ahead) says so
// with Sm::orderedIssue_, and the engine then issues its instructions in the ordered phase.
// Built-ins (registerBuiltinCoreKinds) and extensions register the same way, at start-up only;
// a name registered again keeps the later factory.

#include "base/NamedRegistry.h"
#include "timing/TimingConfig.h"
#include "timing/sm/Sm.h"
#include "timing/sm/scheduler/IWarpScheduler.h"

#include <cstdint>
#include <memory>
#include <string>

namespace ptxsim::timing {

using CoreFactory = std::unique_ptr<Sm> (*)(const TimingConfig &cfg, uint32_t smId,
                                            const SchedulerRegistry &schedulers);

class CoreKindRegistry : public NamedRegistry<CoreFactory> {
public:
  /// Core `smId` of kind `cfg.core.kind`; null when no kind of that name is registered.
  std::unique_ptr<Sm> create(const TimingConfig &cfg, uint32_t smId,
                             const SchedulerRegistry &schedulers) const {
    CoreFactory f = find(cfg.core.kind);
    return f ? f(cfg, smId, schedulers) : nullptr;
  }
};

// Factories of the built-in kinds, each defined in the kind's own .cpp.
/// "sm": the full SM (timing/sm/Sm.h).
std::unique_ptr<Sm> createFullSm(const TimingConfig &cfg, uint32_t smId,
                                 const SchedulerRegistry &schedulers);
/// "reduced": an SM without the units of CoreConfig::missingOpClasses, or without shared memory
/// (CoreConfig::noSharedMemory); issuing an instruction it has no unit for faults (ReducedCore.h).
std::unique_ptr<Sm> createReducedCore(const TimingConfig &cfg, uint32_t smId,
                                      const SchedulerRegistry &schedulers);
/// "dma": a DMA engine that walks its CTAs' instructions (DmaEngine.cpp); reduced like "reduced".
std::unique_ptr<Sm> createDmaEngine(const TimingConfig &cfg, uint32_t smId,
                                    const SchedulerRegistry &schedulers);

/// Registers sm, reduced, dma (one line each).
void registerBuiltinCoreKinds(CoreKindRegistry &r);
/// The process-wide registry: the built-ins, then what extensions add at start-up.
CoreKindRegistry &coreKindRegistry();

} // namespace ptxsim::timing

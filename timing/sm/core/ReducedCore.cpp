#include "timing/sm/core/ReducedCore.h"

#include "ptx/sema/OpcodeTable.h"
#include "timing/sm/core/CoreKinds.h"

namespace ptxsim::timing {

using ptx::ir::Inst;
using ptx::ir::OpClass;

std::unique_ptr<Sm> createReducedCore(const TimingConfig &cfg, uint32_t smId,
                                      const SchedulerRegistry &schedulers) {
  return std::make_unique<ReducedCore>(cfg, smId, schedulers);
}

ReducedCore::ReducedCore(const TimingConfig &cfg, uint32_t id, const SchedulerRegistry &schedulers)
    : Sm(cfg, id, schedulers), divOpcode_(ptx::lookupOpcode("div")),
      remOpcode_(ptx::lookupOpcode("rem")) {
  greedyScan_ = false; // (its own issue(): the shortcut's reasoning is the full SM's)
}

void ReducedCore::beginKernel(ptx::exec::SteppedGrid *grid, const ptx::exec::Kernel *kernel,
                              uint32_t threadsPerCta, uint32_t sharedPerCta, uint64_t arenaBase) {
  Sm::beginKernel(grid, kernel, threadsPerCta, sharedPerCta, arenaBase);
  if (cfg_.core.noSharedMemory)
    sharedPerCta_ = 0; // the CTA's declaration is not held (an access faults)
}

bool ReducedCore::issue(Slot &s, const Inst &in, uint32_t slotIndex, Cycle now) {
  if (lacksUnitFor(in)) {
    lastIssueFused_ = false;
    faultMissingUnit(*s.w, in);
    return true;
  }
  return Sm::issue(s, in, slotIndex, now);
}

bool ReducedCore::lacksUnitFor(const Inst &in) const {
  const CoreConfig &c = cfg_.core;
  if ((c.missingOpClasses >> (unsigned(in.cls) & 31)) & 1) {
    // div and rem issue to the SFU pipe in this model (integer division is a reciprocal
    // sequence on the hardware too), but a core without an SFU still divides integers to
    // compute addresses: it runs them with the SFU pipe's timing (docs/timing.md).
    if (in.cls == OpClass::Sfu && (in.opcode == divOpcode_ || in.opcode == remOpcode_))
      return false;
    return true;
  }
  return c.noSharedMemory && (in.cls == OpClass::Mem || in.cls == OpClass::Atomic) &&
         in.space == ptx::ir::MemSpace::Shared;
}

void ReducedCore::faultMissingUnit(ptx::exec::Warp &w, const Inst &in) {
  const CoreConfig &c = cfg_.core;
  std::string what;
  if ((c.missingOpClasses >> (unsigned(in.cls) & 31)) & 1)
    what = "SM " + std::to_string(id_) + " is a reduced core without a unit for '" +
           std::string(ptx::ir::opClassName(in.cls)) + "' instructions";
  else
    what = "SM " + std::to_string(id_) + " is a reduced core without shared memory";
  grid_->fault(w, in, what, id_);
}

} // namespace ptxsim::timing

#pragma once
// The reduced core: an SM that lacks whole units (CoreConfig::missingOpClasses, a bit per
// ir::OpClass) or shared memory (CoreConfig::noSharedMemory), the SPU's interface units.
//
// Contract: an instruction of a class it has no unit for, or a shared-memory access without
// shared memory, faults when a scheduler issues it (naming the SM, block, thread and PTX line);
// div and rem, which the model issues to the SFU pipe, still run on a core without an SFU (they
// compute addresses: the hardware's integer division is a reciprocal sequence, docs/timing.md).
// A CTA on a core without shared memory is not charged its shared-memory declaration. Anything
// it runs is timed as on the full SM.

#include "timing/sm/Sm.h"

#include <cstdint>

namespace ptxsim::timing {

class ReducedCore : public Sm {
public:
  ReducedCore(const TimingConfig &cfg, uint32_t id, const SchedulerRegistry &schedulers);
  void beginKernel(ptx::exec::SteppedGrid *grid, const ptx::exec::Kernel *kernel,
                   uint32_t threadsPerCta, uint32_t sharedPerCta, uint64_t arenaBase) override;

protected:
  bool issue(Slot &s, const ptx::ir::Inst &in, uint32_t slotIndex, Cycle now) override;
  /// True when this core cannot run `in`.
  bool lacksUnitFor(const ptx::ir::Inst &in) const;
  /// Faults the warp at `in`, which lacksUnitFor (the launch then fails with the message).
  void faultMissingUnit(ptx::exec::Warp &w, const ptx::ir::Inst &in);

private:
  uint16_t divOpcode_ = 0, remOpcode_ = 0; ///< opcode ids of div / rem
};

} // namespace ptxsim::timing

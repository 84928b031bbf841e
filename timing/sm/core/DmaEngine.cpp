#include "timing/sm/core/CoreKinds.h"
#include "timing/sm/core/ReducedCore.h"

namespace ptxsim::timing {

using ptx::ir::Inst;
using ptx::ir::OpClass;

namespace {
/// A DMA engine, not a core: it walks its CTAs' instruction stream without an issue pipeline.
/// Non-memory instructions are its descriptor logic and cost nothing (up to kOpsPerCycle per
/// warp and cycle, results ready at once, no fetch, no pipe, no register file); memory accesses
/// are timed by the memory system as usual. It has no core clock and counts no instructions
/// (sm.* statistics; SmStats::dmaOps counts its steps), so power charges it nothing of a core.
/// It lacks units like a reduced core (CoreConfig::missingOpClasses, noSharedMemory).
class DmaEngine final : public ReducedCore {
public:
  DmaEngine(const TimingConfig &cfg, uint32_t id, const SchedulerRegistry &schedulers)
      : ReducedCore(cfg, id, schedulers) {
    coreClock_ = 0;
    l1iTag_.clear(); // fetches no instructions
    // its run-ahead may step any instruction (an exit, an extension's): the parallel engine
    // issues for it in the ordered phase
    orderedIssue_ = true;
  }

protected:
  bool issue(Slot &s, const ptx::ir::Inst &in, uint32_t slotIndex, Cycle now) override;

private:
  static constexpr uint32_t kOpsPerCycle = 64; ///< bounds the walk (a loop without memory accesses)
  /// After a non-memory instruction, walk the warp's following non-memory instructions in the
  /// same cycle, up to the next memory access, wait, call, barrier or an operand not yet back.
  void runAhead(Slot &s, Cycle now);
};

bool DmaEngine::issue(Slot &s, const Inst &in, uint32_t slotIndex, Cycle now) {
  if (lacksUnitFor(in)) {
    lastIssueFused_ = false;
    faultMissingUnit(*s.w, in);
    return true;
  }
  const StepOutcome o = stepWarp(s, in, now);
  if (o != StepOutcome::Stepped)
    return o == StepOutcome::Skipped;
  ++stats_.dmaOps; // no instruction, register file or pipe statistics
  const int mem = timeMemoryAccess(s, in, slotIndex, now);
  if (mem < 0) {
    for (unsigned i = 0; i < in.nrd; ++i)
      s.ready(in.rd[i]) = now;
    runAhead(s, now);
  }
  noteIssued(s, slotIndex, mem > 0, now);
  return true;
}

void DmaEngine::runAhead(Slot &s, Cycle now) {
  for (uint32_t k = 0; k < kOpsPerCycle && grid_->ready(*s.w); ++k) {
    const Inst *in = grid_->peek(*s.w);
    if (!in || in->ctl == ptx::ir::Ctl::Wait || in->ctl == ptx::ir::Ctl::Call ||
        in->cls == OpClass::Mem || in->cls == OpClass::Atomic || in->cls == OpClass::Sync)
      return;
    StallReason why = StallReason::None;
    if (!operandsReady(s, *in, now, why) || lacksUnitFor(*in))
      return; // (a missing unit faults when the scheduler issues it)
    grid_->setCycle(now, id_);
    s.nextCache = nullptr;
    s.operandsWereReady = false;
    const bool stepped = grid_->step(*s.w, rec_, id_);
    if (grid_->done(*s.w))
      retireCheck_ = true;
    if (!stepped)
      return;
    ++stats_.dmaOps;
    if (rec_.isMemory) // (an extension's instruction that accessed memory: stop here)
      return;
    for (unsigned i = 0; i < in->nrd; ++i)
      s.ready(in->rd[i]) = now;
  }
}
} // namespace

std::unique_ptr<Sm> createDmaEngine(const TimingConfig &cfg, uint32_t smId,
                                    const SchedulerRegistry &schedulers) {
  return std::make_unique<DmaEngine>(cfg, smId, schedulers);
}

} // namespace ptxsim::timing

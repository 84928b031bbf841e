#pragma once
// Extension point: how a launch's CTAs are grouped, ordered and placed.
//
// Contract: policies are registered at start-up (registerLaunchPolicy) and asked, in the order
// registered, for every launch (functional and timing mode alike); the first one that returns a
// LaunchExtension takes the launch, the others are not asked. A launch no policy takes runs as
// always (so a program that uses no extension is unaffected, cycle for cycle).
//
// The LaunchExtension lists the CTAs in groups: the CTAs of one group are resident at once (in
// functional mode they run interleaved on the host threads, like a cooperative launch, so a
// blocking instruction (ir::Ctl::Wait) may wait for another CTA of its group; in the timing
// model they occupy their SMs together), and group g + 1 starts only when every CTA of group g
// has finished. Every CTA id in [0, numCtas) must appear in exactly one group. `smOf`, when not
// empty, names the SM each CTA runs on in the timing model (and is what %smid reads); the
// policy must not put more CTAs of one group on an SM than fit (the model reports a launch
// that cannot be placed as a fault). beginGroup/endGroup run on one host thread between
// groups (spilling or restoring extension state through device memory, counting passes).
// Instruction handlers and special-register readers reach the object through
// `ctx.grid->ext` (or `w.cta->grid->ext`) and downcast it to their own type.

#include "ptx/exec/LaunchTypes.h"
#include "ptx/exec/Warp.h"

#include <memory>
#include <string>
#include <vector>

namespace ptxsim::ptx::exec {

class LaunchExtension {
public:
  virtual ~LaunchExtension() = default;
  /// CTA linear ids, group by group in execution order.
  std::vector<std::vector<uint64_t>> groups;
  /// Timing-model SM of each CTA (indexed by linear id); empty: the GPU's own dispatch.
  std::vector<uint32_t> smOf;
  /// Helper CTAs the extension adds beyond the grid (ids numCtas .. numCtas + helperCtas - 1):
  /// they run the same kernel with the same block shape, appear in `groups` and `smOf` like the
  /// grid's CTAs, and are how an extension runs units of its own (an SPU's interface units). Their
  /// %ctaid lies outside the grid, so the kernel must tell them apart through the extension's
  /// special registers.
  uint64_t helperCtas = 0;
  /// Called before the first CTA of group `g` starts and after its last CTA ends. A non-empty
  /// return value is an error that stops the launch (reported as a fault with that text).
  virtual std::string beginGroup(size_t g, DeviceMemory &mem) {
    (void)g, (void)mem;
    return {};
  }
  virtual std::string endGroup(size_t g, DeviceMemory &mem) {
    (void)g, (void)mem;
    return {};
  }
  /// Called when CTA `c` (of the current group) has finished, on the host thread that ran it,
  /// before the group's next CTA may start on that thread; `ctx` is that thread's context (for
  /// ExecCtx::count). Several host threads may call it at once.
  virtual void ctaFinished(ExecCtx &ctx, Cta &c) {
    (void)ctx, (void)c;
  }
  /// The policy's name, for messages.
  virtual const char *name() const = 0;
};

/// Returns a LaunchExtension to take over launch `p`, or null to leave it alone. `numSms` is
/// the SM count of the simulated GPU (the timing model's, or the functional engine's %nsmid).
using LaunchPolicyFn = std::unique_ptr<LaunchExtension> (*)(const LaunchParams &p, uint32_t numSms);
void registerLaunchPolicy(LaunchPolicyFn fn);
/// Asks the registered policies about `p` (the first non-null answer wins). Checks that the
/// groups cover every CTA exactly once; a policy that breaks that rule is a simulator bug.
std::unique_ptr<LaunchExtension> applyLaunchPolicies(const LaunchParams &p, uint32_t numSms,
                                                     uint64_t numCtas, std::string &error);

} // namespace ptxsim::ptx::exec

// The warp schedulers' options: how many per SM, the policy (any registered one, in its own
// spelling: timing::SchedulerSyntax) and CCWS's parameters (timing/ConfigParts.h).
#include "timing/ConfigParts.h"

#include "timing/sm/scheduler/IWarpScheduler.h"

namespace ptxsim::timing {
namespace {

void describeSchedulers(OptionContext &ctx) {
  OptionSet &opts = ctx.opts;
  CoreConfig &c = ctx.cfg.core;
  opts.add("-gpgpu_num_sched_per_core", &c.schedulersPerSm, "warp schedulers per SM").range(1, 64);
  opts.addCustom(
      "-gpgpu_scheduler", "lrr|gto|two_level_active:N|ccws",
      [&c](const std::string &v, std::string &err) {
        // the policies' own spellings (two_level_active:N) are theirs: the registry's
        SchedulerParams sp = schedulerParams(c);
        if (!schedulerRegistry().parseOption(v, c.scheduler, sp, err))
          return false;
        setSchedulerParams(c, sp);
        return true;
      },
      [&c] { return schedulerRegistry().formatOption(c.scheduler, schedulerParams(c)); },
      "warp scheduler policy: loose round robin, greedy-then-oldest, two-level with N active "
      "warps, or cache-conscious wavefront scheduling");
  opts.add("-ptxsim_ccws_base_score", &c.ccwsBaseScore, "CCWS Base_Locality_Score").min(1);
  opts.add("-ptxsim_ccws_k_throttle", &c.ccwsKThrottle, "CCWS K_Throttle").min(1);
  opts.add("-ptxsim_ccws_vta_entries", &c.ccwsVtaEntries, "CCWS victim tag array entries per warp")
      .min(1);
}

void checkSchedulers(const TimingConfig &cfg, const ConfigFail &fail) {
  const CoreConfig &c = cfg.core;
  if (std::string e = schedulerRegistry().check(c.scheduler, schedulerParams(c)); !e.empty())
    fail("-gpgpu_scheduler", e);
  config::checkAtLeastOne({{"-gpgpu_num_sched_per_core", c.schedulersPerSm},
                           {"-ptxsim_ccws_base_score", c.ccwsBaseScore},
                           {"-ptxsim_ccws_k_throttle", c.ccwsKThrottle},
                           {"-ptxsim_ccws_vta_entries", c.ccwsVtaEntries}},
                          fail);
}

} // namespace

extern const ConfigPart kWarpSchedulers = {describeSchedulers, checkSchedulers, nullptr};

} // namespace ptxsim::timing

#include "timing/sm/scheduler/IWarpScheduler.h"

#include "base/Stats.h"

namespace ptxsim::timing {

void SchedulerRegistry::add(std::string name, SchedulerFactory f) {
  // its counters are statistics (`sched.<counter>`): registered now, from an instance
  if (std::unique_ptr<IWarpScheduler> s = f(SchedulerParams{8, 100, 8, 16})) {
    std::vector<std::pair<std::string, uint64_t>> v;
    s->stats(v);
    for (auto &kv : v)
      stats::Catalog::global().add("sched." + kv.first, stats::Unit::Count,
                                   name + " scheduler: " + kv.first);
  }
  NamedRegistry<SchedulerFactory>::add(std::move(name), f);
}

void registerBuiltinWarpSchedulers(SchedulerRegistry &r) {
  r.add("lrr", createLrrScheduler);
  r.add("gto", createGtoScheduler);
  r.add("two_level", createTwoLevelScheduler);
  r.add("ccws", createCcwsScheduler);
}

SchedulerRegistry &schedulerRegistry() {
  // built on first use and never destroyed (no static destructor runs at exit)
  static SchedulerRegistry *registry = [] {
    auto *r = new SchedulerRegistry();
    registerBuiltinWarpSchedulers(*r);
    return r;
  }();
  return *registry;
}

const SchedulerRegistry &builtinSchedulers() { return schedulerRegistry(); }

} // namespace ptxsim::timing

#include "timing/sm/scheduler/IWarpScheduler.h"

namespace ptxsim::timing {

void SchedulerRegistry::add(std::string name, SchedulerFactory f) {
  for (auto &e : entries_) {
    if (e.first == name) {
      e.second = f;
      return;
    }
  }
  entries_.emplace_back(std::move(name), f);
}

std::unique_ptr<IWarpScheduler> SchedulerRegistry::create(const std::string &name,
                                                          const SchedulerParams &p) const {
  for (const auto &e : entries_)
    if (e.first == name)
      return e.second(p);
  return nullptr;
}

std::vector<std::string> SchedulerRegistry::names() const {
  std::vector<std::string> out;
  for (const auto &e : entries_)
    out.push_back(e.first);
  return out;
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

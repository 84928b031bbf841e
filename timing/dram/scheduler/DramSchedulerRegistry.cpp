#include "timing/dram/scheduler/IDramScheduler.h"

namespace ptxsim::timing {

void DramSchedulerRegistry::add(std::string name, DramSchedulerFactory f) {
  for (auto &e : entries_)
    if (e.first == name) {
      e.second = f;
      return;
    }
  entries_.emplace_back(std::move(name), f);
}

std::unique_ptr<IDramScheduler> DramSchedulerRegistry::create(const std::string &name) const {
  for (const auto &e : entries_)
    if (e.first == name)
      return e.second();
  return nullptr;
}

std::vector<std::string> DramSchedulerRegistry::names() const {
  std::vector<std::string> out;
  for (const auto &e : entries_)
    out.push_back(e.first);
  return out;
}

DramSchedulerRegistry &dramSchedulerRegistry() {
  static DramSchedulerRegistry *r = [] {
    auto *reg = new DramSchedulerRegistry();
    reg->add("frfcfs", createFrFcfsDramScheduler);
    reg->add("fcfs", createFcfsDramScheduler);
    return reg;
  }();
  return *r;
}

} // namespace ptxsim::timing

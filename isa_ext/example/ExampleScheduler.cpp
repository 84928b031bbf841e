// The example warp scheduler: the smallest complete scheduling study, meant to be copied. One
// file and its line in isa_ext/Extensions.def; nothing in timing/ names it.
//
// `-gpgpu_scheduler example_oldest` (isa_ext/example/example_scheduler.config) issues, every
// cycle, from the oldest warp that can issue (the lowest dispatch age): greedy-then-oldest
// without the greedy part. How often its pick moves from one warp to another is the statistic
// `sched.example_warp_switches` (a counter the policy reports from stats(); the registry
// registers it when the policy is added).

#include "timing/sm/scheduler/IWarpScheduler.h"

#include <vector>

namespace ptxsim::ext::example {
namespace {

class OldestFirstScheduler final : public timing::IWarpScheduler {
public:
  const char *name() const override { return "example_oldest"; }
  void addWarp(uint32_t slot, uint64_t age) override {
    if (slot >= age_.size())
      age_.resize(slot + 1, 0);
    age_[slot] = age;
  }
  void removeWarp(uint32_t) override {}

  int pick(const std::vector<uint32_t> &ready, timing::Cycle) override {
    if (ready.empty())
      return -1;
    uint32_t chosen = ready.front();
    for (uint32_t slot : ready) // ascending slots: a tie keeps the lower slot
      if (age_[slot] < age_[chosen])
        chosen = slot;
    if (int(chosen) != last_ && last_ >= 0)
      ++switches_;
    last_ = int(chosen);
    return last_;
  }

  void stats(std::vector<std::pair<std::string, uint64_t>> &out) const override {
    out.emplace_back("example_warp_switches", switches_);
  }

private:
  std::vector<uint64_t> age_; ///< dispatch age by slot (lower = older)
  int last_ = -1;             ///< the slot picked last
  uint64_t switches_ = 0;     ///< picks of another warp than the one picked before
};

std::unique_ptr<timing::IWarpScheduler> createOldestFirst(const timing::SchedulerParams &) {
  return std::make_unique<OldestFirstScheduler>();
}

} // namespace

void registerExampleScheduler() {
  timing::schedulerRegistry().add("example_oldest", createOldestFirst);
}

} // namespace ptxsim::ext::example

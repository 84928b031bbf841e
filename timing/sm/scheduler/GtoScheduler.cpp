// Greedy then oldest: keep issuing from the last picked warp while it is ready; when it is not,
// pick the oldest ready warp (lowest dispatch age, ties by slot).

#include "timing/sm/scheduler/IWarpScheduler.h"

#include <cassert>

namespace ptxsim::timing {
namespace {

class GtoScheduler final : public IWarpScheduler {
public:
  const char *name() const override { return "gto"; }

  void addWarp(uint32_t slot, uint64_t age) override {
    if (slot >= age_.size()) {
      age_.resize(slot + 1, 0);
      present_.resize(slot + 1, false);
    }
    age_[slot] = age;
    present_[slot] = true;
  }

  void removeWarp(uint32_t slot) override {
    if (slot < present_.size())
      present_[slot] = false;
    if (last_ == int(slot))
      last_ = -1;
  }

  bool keepsLastWhileReady() const override { return true; }
  bool hearsIssues() const override { return false; }

  int pick(const std::vector<uint32_t> &ready, Cycle) override {
    // (the ages, the last pick and the oldest's age in locals: the loop stores nothing; the
    // first ready warp is the oldest so far, the others replace it only when strictly older)
    const uint32_t *p = ready.data(), *end = p + ready.size();
    if (p == end)
      return -1;
    const uint64_t *age = age_.data();
    const uint32_t last = uint32_t(last_); // (-1: no slot matches)
    uint32_t oldest = *p;
    uint64_t oldestAge = age[oldest];
    for (; p != end; ++p) {
      const uint32_t slot = *p;
      assert(slot < present_.size() && present_[slot] && "gto: ready warp was never added");
      if (slot == last)
        return int(last);
      if (age[slot] < oldestAge) {
        oldest = slot;
        oldestAge = age[slot];
      }
    }
    last_ = int(oldest);
    return last_;
  }

private:
  std::vector<uint64_t> age_; ///< by slot
  std::vector<bool> present_;
  int last_ = -1;
};

} // namespace

std::unique_ptr<IWarpScheduler> createGtoScheduler(const SchedulerParams &) {
  return std::make_unique<GtoScheduler>();
}

} // namespace ptxsim::timing

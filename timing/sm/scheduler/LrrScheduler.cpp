// Loose round robin: the first ready warp after the last picked one, in slot order, wrapping.
// The simplest policy; copy this file to start a new one (see README.md).

#include "timing/sm/scheduler/IWarpScheduler.h"

namespace ptxsim::timing {
namespace {

class LrrScheduler final : public IWarpScheduler {
public:
  const char *name() const override { return "lrr"; }
  void addWarp(uint32_t, uint64_t) override {}
  void removeWarp(uint32_t) override {}

  int pick(const std::vector<uint32_t> &ready, Cycle) override {
    if (ready.empty())
      return -1;
    uint32_t chosen = ready.front(); // wraps around when nothing follows the last pick
    for (uint32_t slot : ready) {
      if (last_ < 0 || slot > uint32_t(last_)) {
        chosen = slot;
        break;
      }
    }
    last_ = int(chosen);
    return last_;
  }

private:
  int last_ = -1; ///< last picked slot; it may have finished since, the rotation goes on
};

} // namespace

std::unique_ptr<IWarpScheduler> createLrrScheduler(const SchedulerParams &) {
  return std::make_unique<LrrScheduler>();
}

} // namespace ptxsim::timing

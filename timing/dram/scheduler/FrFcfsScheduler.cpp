// FR-FCFS: row hits first (the oldest column command that can issue), then the oldest other
// command that can, never precharging a bank that a queued request still hits.
#include "timing/dram/scheduler/IDramScheduler.h"

#include <algorithm>

namespace ptxsim::timing {
namespace {

class FrFcfsScheduler : public IDramScheduler {
public:
  int pick(const std::vector<DramCandidate> &q, uint32_t numBanks, Cycle now,
           Cycle &soonest) override {
    soonest = kNever;
    pendingHit_.assign(numBanks, 0);
    for (size_t i = 0; i < q.size(); ++i) {
      if (q[i].cmd != DramCmd::Col)
        continue;
      if (q[i].earliest <= now)
        return int(i);
      soonest = std::min(soonest, q[i].earliest);
      pendingHit_[q[i].bank] = 1;
    }
    for (size_t i = 0; i < q.size(); ++i) {
      if (q[i].cmd == DramCmd::Col || (q[i].cmd == DramCmd::Pre && pendingHit_[q[i].bank]))
        continue;
      if (q[i].earliest <= now)
        return int(i);
      soonest = std::min(soonest, q[i].earliest);
    }
    return -1;
  }

private:
  std::vector<uint8_t> pendingHit_;
};

} // namespace

std::unique_ptr<IDramScheduler> createFrFcfsDramScheduler() {
  return std::make_unique<FrFcfsScheduler>();
}

} // namespace ptxsim::timing

// FCFS: in each bank, only its oldest request may issue; the oldest such request that can go
// now does. The simplest policy: copy this file to write your own.
#include "timing/dram/scheduler/IDramScheduler.h"

#include <algorithm>

namespace ptxsim::timing {
namespace {

class FcfsScheduler : public IDramScheduler {
public:
  int pick(const std::vector<DramCandidate> &q, uint32_t numBanks, Cycle now,
           Cycle &soonest) override {
    seen_.assign(numBanks, 0);
    soonest = kNever;
    for (size_t i = 0; i < q.size(); ++i) {
      if (seen_[q[i].bank])
        continue;
      seen_[q[i].bank] = 1;
      if (q[i].earliest <= now)
        return int(i);
      soonest = std::min(soonest, q[i].earliest);
    }
    return -1;
  }

private:
  std::vector<uint8_t> seen_;
};

} // namespace

std::unique_ptr<IDramScheduler> createFcfsDramScheduler() { return std::make_unique<FcfsScheduler>(); }

} // namespace ptxsim::timing

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

  bool picksByBank() const override { return true; }
  bool pickByBank(const DramQueueView &q, Cycle now, DramChoice &choice,
                  Cycle &soonest) override {
    // (each bank's oldest request is the oldest of its representatives)
    constexpr uint64_t kNone = DramBankView::kNone;
    soonest = kNever;
    uint64_t best = kNone;
    for (uint32_t k = 0; k < q.maskWords; ++k) {
      uint64_t any = q.hitBanks[0][k] | q.hitBanks[1][k] | q.otherBanks[0][k] | q.otherBanks[1][k];
      for (; any; any &= any - 1) {
        const uint32_t b = k * 64 + uint32_t(__builtin_ctzll(any));
        const DramBankView &v = q.banks[b];
        uint64_t oldest = kNone;
        DramChoice c{b, false, false};
        for (unsigned w = 0; w < 2; ++w) {
          if (v.hit[w] < oldest)
            oldest = v.hit[w], c = {b, w != 0, true};
          if (v.other[w] < oldest)
            oldest = v.other[w], c = {b, w != 0, false};
        }
        const Cycle e = c.hit ? q.hitEarliest(v, c.write) : q.otherEarliest(v);
        if (e > now)
          soonest = std::min(soonest, e);
        else if (oldest < best)
          best = oldest, choice = c;
      }
    }
    return best != kNone;
  }

private:
  std::vector<uint8_t> seen_;
};

} // namespace

std::unique_ptr<IDramScheduler> createFcfsDramScheduler() { return std::make_unique<FcfsScheduler>(); }

} // namespace ptxsim::timing

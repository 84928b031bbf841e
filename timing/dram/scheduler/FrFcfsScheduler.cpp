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

  bool picksByBank() const override { return true; }
  bool pickByBank(const DramQueueView &q, Cycle now, DramChoice &choice,
                  Cycle &soonest) override {
    return frFcfsPickByBank(q, now, 3, choice, soonest);
  }

private:
  std::vector<uint8_t> pendingHit_;
};

} // namespace

bool frFcfsPickByBank(const DramQueueView &q, Cycle now, unsigned dirs, DramChoice &choice,
                      Cycle &soonest) {
  // (all requests of one bank, direction and kind share their command's earliest cycle, so
  // the oldest of them stands for the rest: pick()'s first issuable request is a
  // representative, its `soonest` a minimum over the same values; the banks are visited
  // through their masks, in any order, as only minima are taken)
  constexpr uint64_t kNone = DramBankView::kNone;
  soonest = kNever;
  uint64_t best = kNone;
  for (unsigned w = 0; w < 2; ++w) {
    if (!(dirs >> w & 1))
      continue;
    for (uint32_t k = 0; k < q.maskWords; ++k)
      for (uint64_t m = q.hitBanks[w][k]; m; m &= m - 1) {
        const uint32_t b = k * 64 + uint32_t(__builtin_ctzll(m));
        const DramBankView &v = q.banks[b];
        const Cycle e = q.hitEarliest(v, w);
        if (e > now)
          soonest = std::min(soonest, e);
        else if (v.hit[w] < best)
          best = v.hit[w], choice = {b, w != 0, true};
      }
  }
  if (best != kNone)
    return true;
  for (unsigned w = 0; w < 2; ++w) {
    if (!(dirs >> w & 1))
      continue;
    for (uint32_t k = 0; k < q.maskWords; ++k) {
      // (a queued hit of these directions keeps its bank open; closed banks have no hits)
      uint64_t hits = 0;
      for (unsigned h = 0; h < 2; ++h)
        if (dirs >> h & 1)
          hits |= q.hitBanks[h][k];
      for (uint64_t m = q.otherBanks[w][k] & ~hits; m; m &= m - 1) {
        const uint32_t b = k * 64 + uint32_t(__builtin_ctzll(m));
        const DramBankView &v = q.banks[b];
        const Cycle e = q.otherEarliest(v);
        if (e > now)
          soonest = std::min(soonest, e);
        else if (v.other[w] < best)
          best = v.other[w], choice = {b, w != 0, false};
      }
    }
  }
  return best != kNone;
}

std::unique_ptr<IDramScheduler> createFrFcfsDramScheduler() {
  return std::make_unique<FrFcfsScheduler>();
}

} // namespace ptxsim::timing

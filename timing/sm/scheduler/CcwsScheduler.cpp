#include "timing/sm/scheduler/CcwsScheduler.h"

#include <algorithm>

namespace ptxsim::timing {

CcwsScheduler::CcwsScheduler(const SchedulerParams &p)
    : baseScore_(p.ccwsBaseScore), kThrottle_(p.ccwsKThrottle), vtaEntries_(p.ccwsVtaEntries) {}

void CcwsScheduler::addWarp(uint32_t slot, uint64_t) {
  if (slot >= warps_.size())
    warps_.resize(slot + 1);
  Warp &w = warps_[slot];
  if (!w.present)
    ++numWarps_;
  w.present = true;
  w.lls = baseScore_;
  w.vta.clear();
}

void CcwsScheduler::removeWarp(uint32_t slot) {
  if (!has(slot))
    return;
  warps_[slot] = Warp{};
  --numWarps_;
}

void CcwsScheduler::tick(Cycle) {
  for (Warp &w : warps_)
    if (w.present && w.lls > baseScore_)
      --w.lls;
}

std::vector<uint32_t> CcwsScheduler::schedulableWarps() const {
  std::vector<uint32_t> order;
  for (uint32_t s = 0; s < warps_.size(); ++s)
    if (warps_[s].present)
      order.push_back(s);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return warps_[a].lls > warps_[b].lls; });
  const uint64_t cutoff = cumulativeCutoff();
  uint64_t sum = 0;
  size_t n = 0;
  for (; n < order.size(); ++n) {
    uint64_t next = sum + warps_[order[n]].lls;
    if (n > 0 && next > cutoff)
      break;
    sum = next;
  }
  order.resize(n);
  std::sort(order.begin(), order.end());
  return order;
}

int CcwsScheduler::pick(const std::vector<uint32_t> &ready, Cycle) {
  if (ready.empty())
    return -1;
  std::vector<uint32_t> allowed = schedulableWarps();
  int first = -1, after = -1;
  for (uint32_t slot : ready) {
    if (!std::binary_search(allowed.begin(), allowed.end(), slot))
      continue;
    if (first < 0)
      first = int(slot);
    if (last_ < 0 || slot > uint32_t(last_)) {
      after = int(slot);
      break;
    }
  }
  int chosen = after >= 0 ? after : first;
  if (chosen < 0)
    ++throttledCycles_;
  else
    last_ = chosen;
  return chosen;
}

void CcwsScheduler::issued(uint32_t, bool, Cycle) { ++numInstr_; }

void CcwsScheduler::l1Miss(uint32_t slot, uint64_t lineAddr, Cycle) {
  ++l1Misses_;
  if (!has(slot))
    return;
  Warp &w = warps_[slot];
  auto it = std::find(w.vta.begin(), w.vta.end(), lineAddr);
  if (it == w.vta.end())
    return;
  std::rotate(w.vta.begin(), it, it + 1); // hit: becomes most recently used
  ++vtaHits_;
  uint64_t score = vtaHits_ * kThrottle_ * cumulativeCutoff() / std::max<uint64_t>(numInstr_, 1);
  w.lls = std::max(score, baseScore_);
}

void CcwsScheduler::l1Evict(uint32_t ownerSlot, uint64_t lineAddr, Cycle) {
  if (!has(ownerSlot) || vtaEntries_ == 0)
    return; // the owner has finished: nobody can lose that locality any more
  std::vector<uint64_t> &vta = warps_[ownerSlot].vta;
  ++vtaInserts_;
  auto it = std::find(vta.begin(), vta.end(), lineAddr);
  if (it != vta.end()) {
    std::rotate(vta.begin(), it, it + 1);
    return;
  }
  if (vta.size() == vtaEntries_)
    vta.pop_back(); // least recently used
  vta.insert(vta.begin(), lineAddr);
}

void CcwsScheduler::stats(std::vector<std::pair<std::string, uint64_t>> &out) const {
  out.emplace_back("vta_hits", vtaHits_);
  out.emplace_back("vta_inserts", vtaInserts_);
  out.emplace_back("l1_misses", l1Misses_);
  out.emplace_back("instructions", numInstr_);
  out.emplace_back("throttled_cycles", throttledCycles_);
}

uint64_t CcwsScheduler::lostLocalityScore(uint32_t slot) const {
  return has(slot) ? warps_[slot].lls : 0;
}

bool CcwsScheduler::vtaContains(uint32_t slot, uint64_t tag) const {
  if (!has(slot))
    return false;
  const auto &vta = warps_[slot].vta;
  return std::find(vta.begin(), vta.end(), tag) != vta.end();
}

std::unique_ptr<IWarpScheduler> createCcwsScheduler(const SchedulerParams &p) {
  return std::make_unique<CcwsScheduler>(p);
}

} // namespace ptxsim::timing

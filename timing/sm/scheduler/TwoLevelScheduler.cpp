// Two-level scheduling (Narasiman et al., MICRO 2011): at most N warps form the active set and
// are scheduled loose round robin (slot order, wrapping); the others wait in the pending set.
// A warp that issues a long-latency operation leaves the active set for the pending set, and
// the active set is refilled from the pending set, oldest first. The active set is always as
// full as it can be, so with N or fewer warps this is plain LRR. Warps that wait at a barrier
// count as long-latency (the SM says so), and exited warps leave at once. The refill can still
// promote warps that cannot issue (at a barrier, waiting for a load) while ready ones pend: after
// kSwapAfter cycles in a row in which only pending warps could issue, the oldest ready pending
// warp takes the place of a stalled active one, so the active set never blocks for good.

#include "timing/sm/scheduler/IWarpScheduler.h"

#include <algorithm>
#include <cassert>
#include <string>
#include <vector>

namespace ptxsim::timing {
namespace {

class TwoLevelScheduler final : public IWarpScheduler {
public:
  explicit TwoLevelScheduler(uint32_t activeWarps) : capacity_(activeWarps) {}

  const char *name() const override { return "two_level"; }

  void addWarp(uint32_t slot, uint64_t age) override {
    if (slot >= active_.size()) {
      active_.resize(slot + 1, false);
      age_.resize(slot + 1, 0);
    }
    age_[slot] = age;
    insertPending(slot);
    refill();
  }

  void removeWarp(uint32_t slot) override {
    if (slot < active_.size() && active_[slot]) {
      active_[slot] = false;
      --numActive_;
    }
    pending_.erase(std::remove(pending_.begin(), pending_.end(), slot), pending_.end());
    refill();
  }

  int pick(const std::vector<uint32_t> &ready, Cycle) override {
    int first = -1, after = -1;
    for (uint32_t slot : ready) {
      if (slot >= active_.size() || !active_[slot])
        continue;
      if (first < 0)
        first = int(slot);
      if (last_ < 0 || slot > uint32_t(last_)) {
        after = int(slot);
        break;
      }
    }
    int chosen = after >= 0 ? after : first;
    if (chosen < 0 && !ready.empty() && ++stalledPicks_ > kSwapAfter)
      chosen = swapInReady(ready);
    if (chosen >= 0) {
      last_ = chosen;
      stalledPicks_ = 0;
    }
    return chosen;
  }

  void issued(uint32_t slot, bool longLatency, Cycle) override {
    if (!longLatency || slot >= active_.size() || !active_[slot])
      return;
    active_[slot] = false;
    --numActive_;
    ++demotions_;
    // Fill the freed place before the demoted warp joins the pending set, so that it comes back
    // at once only when no other warp is waiting.
    refill();
    insertPending(slot);
    refill();
  }

  void stats(std::vector<std::pair<std::string, uint64_t>> &out) const override {
    out.emplace_back("demotions", demotions_);
    out.emplace_back("stall_swaps", swaps_);
  }

private:
  /// Pending warps stay sorted by age (ties by slot), oldest first.
  void insertPending(uint32_t slot) {
    auto older = [&](uint32_t a, uint32_t b) {
      return age_[a] != age_[b] ? age_[a] < age_[b] : a < b;
    };
    pending_.insert(std::upper_bound(pending_.begin(), pending_.end(), slot, older), slot);
  }

  /// Demotes a stalled active warp (the first in slot order) and promotes the oldest ready
  /// pending warp in its place; returns that warp.
  int swapInReady(const std::vector<uint32_t> &ready) {
    for (uint32_t p : pending_) {
      if (std::find(ready.begin(), ready.end(), p) == ready.end())
        continue;
      pending_.erase(std::find(pending_.begin(), pending_.end(), p));
      if (numActive_ >= capacity_)
        for (uint32_t s = 0; s < active_.size(); ++s)
          if (active_[s]) {
            active_[s] = false;
            --numActive_;
            ++demotions_;
            insertPending(s);
            break;
          }
      active_[p] = true;
      ++numActive_;
      ++swaps_;
      return int(p);
    }
    return -1;
  }

  void refill() {
    while (numActive_ < capacity_ && !pending_.empty()) {
      active_[pending_.front()] = true;
      pending_.erase(pending_.begin());
      ++numActive_;
    }
  }

  uint32_t capacity_;
  uint32_t numActive_ = 0;
  std::vector<bool> active_;  ///< by slot
  std::vector<uint64_t> age_; ///< by slot
  std::vector<uint32_t> pending_;
  int last_ = -1;
  uint64_t demotions_ = 0;
  uint64_t swaps_ = 0;         ///< stalled active sets unblocked by swapInReady
  uint32_t stalledPicks_ = 0;  ///< consecutive picks with only pending warps ready
  static constexpr uint32_t kSwapAfter = 32;
};

} // namespace

namespace {
/// An unsigned decimal that fits 32 bits.
bool readU32(const std::string &s, uint32_t &out) {
  if (s.empty() || s.size() > 10 || s.find_first_not_of("0123456789") != std::string::npos)
    return false;
  unsigned long long v = std::stoull(s);
  if (v > UINT32_MAX)
    return false;
  out = uint32_t(v);
  return true;
}

/// GPGPU-Sim's two_level_active:<active warps>[:<inner prio>:<outer prio>] (also `two_level`,
/// `two_level:<N>`); the priorities are read but not modelled.
int parseTwoLevel(const std::string &value, SchedulerParams &p, std::string &err) {
  std::vector<std::string> f;
  for (size_t b = 0;;) {
    size_t e = value.find(':', b);
    f.push_back(value.substr(b, e == std::string::npos ? e : e - b));
    if (e == std::string::npos)
      break;
    b = e + 1;
  }
  if (f[0] != "two_level_active" && f[0] != "two_level")
    return 0;
  uint32_t n = p.twoLevelActiveWarps, prio;
  bool ok = f.size() <= 4 && (f.size() < 2 || (readU32(f[1], n) && n > 0));
  for (size_t i = 2; ok && i < f.size(); ++i)
    ok = readU32(f[i], prio);
  if (!ok) {
    err = "expected two_level_active:<active_warps>[:<inner>:<outer>]";
    return -1;
  }
  p.twoLevelActiveWarps = n;
  return 1;
}
} // namespace

SchedulerSyntax twoLevelSchedulerSyntax() {
  SchedulerSyntax s;
  s.spelling = "two_level_active:<active_warps>";
  s.parse = parseTwoLevel;
  s.format = [](const SchedulerParams &p) {
    return "two_level_active:" + std::to_string(p.twoLevelActiveWarps);
  };
  s.check = [](const SchedulerParams &p) {
    return p.twoLevelActiveWarps == 0 ? std::string("two_level_active needs at least one active warp")
                                      : std::string();
  };
  return s;
}

std::unique_ptr<IWarpScheduler> createTwoLevelScheduler(const SchedulerParams &p) {
  assert(p.twoLevelActiveWarps > 0 && "two_level: twoLevelActiveWarps must be at least 1");
  return std::make_unique<TwoLevelScheduler>(std::max<uint32_t>(p.twoLevelActiveWarps, 1));
}

} // namespace ptxsim::timing

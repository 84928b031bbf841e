#pragma once
// Cache-conscious wavefront scheduling, simplified as in the CS8803 warp-scheduling assignment
// (Task 2; Rogers et al., MICRO 2012, section 3.3), on top of loose round robin.
//
// Each warp has a victim tag array (VTA: fully associative, LRU, `ccwsVtaEntries` tags) that
// receives the tags of L1 lines the warp brought in and that were evicted. An L1 miss that hits
// in the missing warp's own VTA is lost intra-warp locality: the scheduler's VTA hit count goes
// up and the warp's lost-locality score becomes
//     LLS = VTA_Hits_Total * K_Throttle * Cum_LLS_Cutoff / Num_Instr
// (integer arithmetic, never below the base score), where Cum_LLS_Cutoff = Num_Active_Warps *
// Base_Locality_Score, Num_Active_Warps is the number of warps assigned to this scheduler and
// Num_Instr the instructions it issued so far. Every tick lowers each score by 1 down to the
// base. Only the warps with the highest scores whose cumulative score stays within the cutoff
// may issue (at least one warp); among them, ready warps are picked round robin. With every
// score at the base all warps fit, so throttling lasts only while scores are raised.
//
// The class is visible (unlike the other policies) so tests can read the scores.

#include "timing/sm/scheduler/IWarpScheduler.h"

namespace ptxsim::timing {

class CcwsScheduler final : public IWarpScheduler {
public:
  explicit CcwsScheduler(const SchedulerParams &p);

  const char *name() const override { return "ccws"; }
  void addWarp(uint32_t slot, uint64_t age) override;
  void removeWarp(uint32_t slot) override;
  void tick(Cycle now) override;
  bool ticks() const override { return true; }
  int pick(const std::vector<uint32_t> &ready, Cycle now) override;
  void issued(uint32_t slot, bool longLatency, Cycle now) override;
  void l1Miss(uint32_t slot, uint64_t lineAddr, Cycle now) override;
  void l1Evict(uint32_t ownerSlot, uint64_t lineAddr, Cycle now) override;
  void stats(std::vector<std::pair<std::string, uint64_t>> &out) const override;

  /// The warp's lost-locality score (0 for a slot with no warp).
  uint64_t lostLocalityScore(uint32_t slot) const;
  /// Num_Active_Warps * Base_Locality_Score.
  uint64_t cumulativeCutoff() const { return uint64_t(numWarps_) * baseScore_; }
  /// Slots allowed to issue now, ascending.
  std::vector<uint32_t> schedulableWarps() const;
  /// Whether `tag` is in the warp's VTA (no LRU update).
  bool vtaContains(uint32_t slot, uint64_t tag) const;

private:
  struct Warp {
    bool present = false;
    uint64_t lls = 0;
    std::vector<uint64_t> vta; ///< most recently used first
  };

  bool has(uint32_t slot) const { return slot < warps_.size() && warps_[slot].present; }

  uint64_t baseScore_;
  uint64_t kThrottle_;
  uint32_t vtaEntries_;
  std::vector<Warp> warps_; ///< by slot
  uint32_t numWarps_ = 0;
  int last_ = -1;
  uint64_t numInstr_ = 0;
  uint64_t vtaHits_ = 0;
  uint64_t vtaInserts_ = 0;
  uint64_t l1Misses_ = 0;
  uint64_t throttledCycles_ = 0;
};

} // namespace ptxsim::timing

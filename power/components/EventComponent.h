#pragma once
// The shape of every built-in power component (and the simplest one to copy): dynamic energy is
// the sum over its events of (activity count x energy per event), leakage comes from the die area
// of the structures it models.
//
// Contract: a subclass declares its events in its constructor (event(): XML key, joules, help, and
// the statistics whose count it charges) and its area (setArea()); the model binds the statistics
// once at load, then dynamicJ() is Σ max(0, count) x joules in declaration order. `<energy>`
// overrides an event's joules, `<leakage>` the leakage, reduced cores (registerCoreAccounting)
// the area of a per-SM component.

#include "power/IPowerComponent.h"

#include <string>
#include <vector>

namespace ptxsim::power {

class EventComponent : public IPowerComponent {
public:
  /// How an event's count follows from the statistics.
  struct Count {
    /// The sum of `stats` (one statistic is the common case).
    static Count sum(std::vector<std::string> stats);
    /// Lane operations of a pipe: warp instructions `issued` x active lanes per instruction
    /// (`sm.active_lane_insts / (gpu.warp_insts x warpSize)`, 1 when either is 0) x warpSize.
    static Count laneOps(const std::string &issued, double warpSize);

    std::vector<std::string> stats;
    double warpSize = 0; ///< 0: a sum; else lane operations of stats[0]
  };

  EventComponent(std::string name, const Technology &tech, bool perSm);

  std::string name() const override { return name_; }
  void bind(StatBinder &b) override;
  double dynamicJ(const StatValues &v) const override;
  double leakageW() const override { return leakW_; }
  std::vector<EventEnergy> *events() override { return &events_; }
  double areaMm2() const override { return areaMm2_; }
  bool perSm() const override { return perSm_; }
  bool setAreaMm2(double mm2) override;
  bool setLeakageW(double w) override;

protected:
  /// Declares an event (`<name>.<what>`) charged `joules` per count.
  void event(const std::string &key, double joules, const std::string &help, Count count);
  /// The modelled die area; the leakage is the technology's density over it.
  void setArea(double mm2) { setAreaMm2(mm2); }

private:
  struct Term {
    Count count;
    std::vector<StatRef> refs; ///< stats (lane operations: issued, warp insts, active lanes)
  };
  double countOf(const Term &t, const StatValues &v) const;

  std::string name_;
  Technology tech_;
  bool perSm_ = false;
  double areaMm2_ = 0, leakW_ = 0;
  std::vector<EventEnergy> events_;
  std::vector<Term> terms_; ///< one per event, same order
};

} // namespace ptxsim::power

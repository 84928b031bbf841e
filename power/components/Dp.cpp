// FP64 lanes: 8 per DP unit, charged per active lane operation.
#include "power/components/EventComponent.h"

namespace ptxsim::power::builtin {

namespace {
class Dp : public EventComponent {
public:
  explicit Dp(const PowerContext &c) : EventComponent("dp", c.tech, true) {
    const auto &core = c.cfg.core;
    event("dp.lane_op", c.tech.logicJ(c.logic.dpGates), "FP64 lane operation",
          Count::laneOps("sm.issued.dp", core.warpSize));
    double lanes = core.dpUnits * 8.0;
    setArea(double(c.cfg.numSms()) * lanes * c.tech.logicAreaMm2(c.logic.dpGates));
  }
};
} // namespace

std::shared_ptr<IPowerComponent> dp(const PowerContext &c) { return std::make_shared<Dp>(c); }

} // namespace ptxsim::power::builtin

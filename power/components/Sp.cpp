// FP32/INT lanes: 16 per SP unit, charged per active lane operation.
#include "power/components/EventComponent.h"

namespace ptxsim::power::builtin {

namespace {
class Sp : public EventComponent {
public:
  explicit Sp(const PowerContext &c) : EventComponent("sp", c.tech, true) {
    const auto &core = c.cfg.core;
    event("sp.lane_op", c.tech.logicJ(c.logic.spGates), "FP32/INT lane operation",
          Count::laneOps("sm.issued.sp", core.warpSize));
    double lanes = core.spUnits * 16.0;
    setArea(double(c.cfg.numSms()) * lanes * c.tech.logicAreaMm2(c.logic.spGates));
  }
};
} // namespace

std::shared_ptr<IPowerComponent> sp(const PowerContext &c) { return std::make_shared<Sp>(c); }

} // namespace ptxsim::power::builtin

// special-function lanes: 4 per SFU, charged per active lane operation.
#include "power/components/EventComponent.h"

namespace ptxsim::power::builtin {

namespace {
class Sfu : public EventComponent {
public:
  explicit Sfu(const PowerContext &c) : EventComponent("sfu", c.tech, true) {
    const auto &core = c.cfg.core;
    event("sfu.lane_op", c.tech.logicJ(c.logic.sfuGates), "SFU lane operation",
          Count::laneOps("sm.issued.sfu", core.warpSize));
    double lanes = core.sfuUnits * 4.0;
    setArea(double(c.cfg.numSms()) * lanes * c.tech.logicAreaMm2(c.logic.sfuGates));
  }
};
} // namespace

std::shared_ptr<IPowerComponent> sfu(const PowerContext &c) { return std::make_shared<Sfu>(c); }

} // namespace ptxsim::power::builtin

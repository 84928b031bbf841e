// tensor cores: a warp MMA instruction is all its FP16 FMAs; 64 FMAs per unit.
#include "power/components/EventComponent.h"

namespace ptxsim::power::builtin {

namespace {
class Tensor : public EventComponent {
public:
  explicit Tensor(const PowerContext &c) : EventComponent("tensor", c.tech, true) {
    const LogicParams &lp = c.logic;
    event("tensor.warp_mma", c.tech.logicJ(lp.tensorFmaGates * lp.tensorFmasPerInst),
          "warp MMA instruction (all its FMAs)", Count::sum({"sm.issued.tensor"}));
    setArea(double(c.cfg.numSms()) * c.cfg.core.tensorUnits * 64 *
            c.tech.logicAreaMm2(lp.tensorFmaGates));
  }
};
} // namespace

std::shared_ptr<IPowerComponent> tensor(const PowerContext &c) {
  return std::make_shared<Tensor>(c);
}

} // namespace ptxsim::power::builtin

// LD/ST unit: address generation per lane + coalescer, per instruction.
#include "power/components/EventComponent.h"

namespace ptxsim::power::builtin {

namespace {
class Ldst : public EventComponent {
public:
  explicit Ldst(const PowerContext &c) : EventComponent("ldst", c.tech, true) {
    const auto &core = c.cfg.core;
    double gates = c.logic.ldstGatesPerLane * double(core.warpSize) + c.logic.coalescerGates;
    event("ldst.inst", c.tech.logicJ(gates), "address generation and coalescing per instruction",
          Count::sum({"sm.issued.ldst"}));
    setArea(double(c.cfg.numSms()) * c.tech.logicAreaMm2(gates) * core.ldstUnits);
  }
};
} // namespace

std::shared_ptr<IPowerComponent> ldst(const PowerContext &c) { return std::make_shared<Ldst>(c); }

} // namespace ptxsim::power::builtin

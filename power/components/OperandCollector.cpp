// operand collectors: bank -> collector crossbar and the wires to the lanes (half an SM side).
#include "power/components/EventComponent.h"

#include <algorithm>
#include <cmath>

namespace ptxsim::power::builtin {

namespace {
class OperandCollector : public EventComponent {
public:
  explicit OperandCollector(const PowerContext &c)
      : EventComponent("operand_collector", c.tech, true) {
    const auto &core = c.cfg.core;
    const double warpBits = double(core.warpSize) * 32;
    double xbarGates = warpBits * 2 * std::log2(std::max(2.0, double(core.regBanks)));
    event("operand_collector.read",
          c.tech.wireJ(warpBits, 0.5 * c.smSideMm()) + c.tech.logicJ(xbarGates),
          "crossbar + operand wires per warp operand", Count::sum({"sm.regfile_reads"}));
    setArea(double(c.cfg.numSms()) *
            c.tech.logicAreaMm2(core.operandCollectors * 3 * warpBits * 8 + xbarGates));
  }
};
} // namespace

std::shared_ptr<IPowerComponent> operandCollector(const PowerContext &c) {
  return std::make_shared<OperandCollector>(c);
}

} // namespace ptxsim::power::builtin

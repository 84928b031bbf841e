// shared memory: one access = one word per bank (a bank conflict replays the access).
#include "power/components/EventComponent.h"

#include <algorithm>
#include <cmath>

namespace ptxsim::power::builtin {

namespace {
class Shared : public EventComponent {
public:
  explicit Shared(const PowerContext &c) : EventComponent("shared", c.tech, true) {
    const auto &core = c.cfg.core;
    const Technology &t = c.tech;
    double bits = double(core.sharedBytesPerSm) * 8;
    double banks = std::max(1u, core.sharedBanks);
    double xbarGates = banks * 32 * std::log2(std::max(2.0, banks)) * 4;
    event("shared.access", t.sramReadJ(bits / banks, banks * 32) + t.logicJ(xbarGates),
          "all banks, one word each, and the lane crossbar",
          Count::sum({"ldst.shared_insts", "ldst.shared_bank_conflict_cycles"}));
    setArea(double(c.cfg.numSms()) * (t.sramAreaMm2(bits) + t.logicAreaMm2(xbarGates)));
  }
};
} // namespace

std::shared_ptr<IPowerComponent> shared(const PowerContext &c) {
  return std::make_shared<Shared>(c);
}

} // namespace ptxsim::power::builtin

// register file: a warp operand is warpSize lanes x 32 bits from one bank.
#include "power/components/EventComponent.h"

#include <algorithm>

namespace ptxsim::power::builtin {

namespace {
class RegFile : public EventComponent {
public:
  explicit RegFile(const PowerContext &c) : EventComponent("regfile", c.tech, true) {
    const auto &core = c.cfg.core;
    const double warpBits = double(core.warpSize) * 32;
    double rfBits = double(core.registersPerSm) * 32;
    double bankBits = rfBits / std::max(1u, core.regBanks);
    event("regfile.read", c.tech.sramReadJ(bankBits, warpBits), "warp operand read from one bank",
          Count::sum({"sm.regfile_reads"}));
    event("regfile.write", c.tech.sramWriteJ(bankBits, warpBits), "warp result write to one bank",
          Count::sum({"sm.regfile_writes"}));
    setArea(double(c.cfg.numSms()) * c.tech.sramAreaMm2(rfBits));
  }
};
} // namespace

std::shared_ptr<IPowerComponent> regfile(const PowerContext &c) {
  return std::make_shared<RegFile>(c);
}

} // namespace ptxsim::power::builtin

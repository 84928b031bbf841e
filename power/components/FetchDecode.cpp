// fetch / decode / issue: decode, scoreboard and scheduler logic per warp instruction.
#include "power/components/EventComponent.h"

#include <algorithm>

namespace ptxsim::power::builtin {

namespace {
class FetchDecode : public EventComponent {
public:
  explicit FetchDecode(const PowerContext &c) : EventComponent("fetch_decode", c.tech, true) {
    const auto &core = c.cfg.core;
    const double maxWarps = double(core.maxThreadsPerSm) / std::max(1u, core.warpSize);
    double gates = c.logic.decodeGates + c.logic.decodeGatesPerWarp * maxWarps;
    event("fetch_decode.warp_inst", c.tech.logicJ(gates),
          "decode, scoreboard and scheduler per warp instruction", Count::sum({"gpu.warp_insts"}));
    double ibufBits = maxWarps * core.ibufferEntries * 64;
    setArea(double(c.cfg.numSms()) * (c.tech.logicAreaMm2(gates) + c.tech.sramAreaMm2(ibufBits)));
  }
};
} // namespace

std::shared_ptr<IPowerComponent> fetchDecode(const PowerContext &c) {
  return std::make_shared<FetchDecode>(c);
}

} // namespace ptxsim::power::builtin

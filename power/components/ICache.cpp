// instruction cache: a fetch reads one line.
#include "power/components/EventComponent.h"
#include "power/components/Sram.h"

namespace ptxsim::power::builtin {

namespace {
class ICache : public EventComponent {
public:
  explicit ICache(const PowerContext &c) : EventComponent("icache", c.tech, true) {
    const auto &l1i = c.cfg.mem.l1i;
    event("icache.access", cacheAccessJ(c.tech, l1i, l1i.lineBytes), "L1I line read incl. tags",
          Count::sum({"l1i.hits", "l1i.misses"}));
    event("icache.fill", cacheFillJ(c.tech, l1i, l1i.lineBytes),
          "L1I line fill", Count::sum({"l1i.misses"}));
    setArea(double(c.cfg.numSms()) * cacheAreaMm2(c.tech, l1i));
  }
};
} // namespace

std::shared_ptr<IPowerComponent> icache(const PowerContext &c) {
  return std::make_shared<ICache>(c);
}

} // namespace ptxsim::power::builtin

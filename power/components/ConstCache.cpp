// constant cache: a warp reads one broadcast word per access.
#include "power/components/EventComponent.h"
#include "power/components/Sram.h"

namespace ptxsim::power::builtin {

namespace {
class ConstCache : public EventComponent {
public:
  explicit ConstCache(const PowerContext &c) : EventComponent("const_cache", c.tech, true) {
    const auto &cc = c.cfg.mem.constCache;
    event("const_cache.access", cacheAccessJ(c.tech, cc, 4), "constant word read incl. tags",
          Count::sum({"const.accesses"}));
    event("const_cache.fill", cacheFillJ(c.tech, cc, cc.lineBytes), "line fill",
          Count::sum({"const.fills"}));
    setArea(double(c.cfg.numSms()) * cacheAreaMm2(c.tech, cc));
  }
};
} // namespace

std::shared_ptr<IPowerComponent> constCache(const PowerContext &c) {
  return std::make_shared<ConstCache>(c);
}

} // namespace ptxsim::power::builtin

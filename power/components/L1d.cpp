// L1 data cache: sectored caches move a sector, others a line.
#include "power/components/EventComponent.h"
#include "power/components/Sram.h"

namespace ptxsim::power::builtin {

namespace {
class L1d : public EventComponent {
public:
  explicit L1d(const PowerContext &c) : EventComponent("l1d", c.tech, true) {
    const auto &l1d = c.cfg.mem.l1d;
    const Technology &t = c.tech;
    event("l1d.access", cacheAccessJ(t, l1d, l1d.sectorBytes), "L1D read/write incl. tags",
          Count::sum({"l1d.accesses"}));
    event("l1d.fill", cacheFillJ(t, l1d, l1d.sectorBytes), "L1D fill",
          Count::sum({"l1d.fills"}));
    event("l1d.writeback", cacheWritebackJ(t, l1d, l1d.sectorBytes), "L1D writeback",
          Count::sum({"l1d.writebacks"}));
    setArea(double(c.cfg.numSms()) * cacheAreaMm2(t, l1d));
  }
};
} // namespace

std::shared_ptr<IPowerComponent> l1d(const PowerContext &c) { return std::make_shared<L1d>(c); }

} // namespace ptxsim::power::builtin

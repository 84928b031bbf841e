// L2: one slice per memory partition, a sector per access.
#include "power/components/EventComponent.h"
#include "power/components/Sram.h"

namespace ptxsim::power::builtin {

namespace {
class L2 : public EventComponent {
public:
  explicit L2(const PowerContext &c) : EventComponent("l2", c.tech, false) {
    const auto &l2 = c.cfg.mem.l2;
    const Technology &t = c.tech;
    event("l2.access", cacheAccessJ(t, l2, l2.sectorBytes), "L2 slice read/write incl. tags",
          Count::sum({"l2.accesses"}));
    event("l2.fill", cacheFillJ(t, l2, l2.sectorBytes), "L2 fill from DRAM",
          Count::sum({"l2.fills"}));
    event("l2.writeback", cacheWritebackJ(t, l2, l2.sectorBytes), "L2 writeback",
          Count::sum({"l2.writebacks"}));
    setArea(c.cfg.mem.numPartitions * cacheAreaMm2(t, l2));
  }
};
} // namespace

std::shared_ptr<IPowerComponent> l2(const PowerContext &c) { return std::make_shared<L2>(c); }

} // namespace ptxsim::power::builtin

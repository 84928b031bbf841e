// clock tree and pipeline latches of every SM that has work, per active cycle.
#include "power/components/EventComponent.h"

namespace ptxsim::power::builtin {

namespace {
class SmClock : public EventComponent {
public:
  explicit SmClock(const PowerContext &c) : EventComponent("sm_clock", c.tech, true) {
    event("sm_clock.active_cycle", c.tech.logicJ(c.logic.clockGates),
          "one SM clocked for one cycle", Count::sum({"sm.active_cycles"}));
  }
};
} // namespace

std::shared_ptr<IPowerComponent> smClock(const PowerContext &c) {
  return std::make_shared<SmClock>(c);
}

} // namespace ptxsim::power::builtin

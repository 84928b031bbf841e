// interconnect: flit bits over the distance an average flit travels, plus switch logic
// (crossbar: half the die side through one switch; mesh: 2k/3 hops of die side / k).
#include "power/components/EventComponent.h"

#include <algorithm>
#include <cmath>

namespace ptxsim::power::builtin {

namespace {
class Icnt : public EventComponent {
public:
  explicit Icnt(const PowerContext &c) : EventComponent("icnt", c.tech, false) {
    const auto &mem = c.cfg.mem;
    const Technology &t = c.tech;
    const bool mesh = mem.topology == "mesh";
    double flitBits = double(mem.icntFlitBytes) * 8;
    double nodes = double(c.cfg.numSms()) + mem.numPartitions;
    double hops = 1, mmPerHop = 0.5 * c.dieSideMm(), routerGates;
    if (mesh) {
      double k = std::ceil(std::sqrt(nodes));
      hops = std::max(1.0, 2.0 * k / 3.0);
      mmPerHop = c.dieSideMm() / k;
      routerGates = flitBits * 30;
    } else {
      routerGates = flitBits * 4 * std::log2(std::max(2.0, nodes));
    }
    event("icnt.flit", hops * (t.wireJ(flitBits, mmPerHop) + t.logicJ(routerGates)),
          "one flit over the average path (wires + switches)", Count::sum({"icnt.flits"}));
    setArea(nodes * t.logicAreaMm2(routerGates * (mesh ? 5 : 1)));
  }
};
} // namespace

std::shared_ptr<IPowerComponent> icnt(const PowerContext &c) { return std::make_shared<Icnt>(c); }

} // namespace ptxsim::power::builtin

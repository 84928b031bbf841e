// DRAM: its own process and voltages (DramTechnology); background power per channel byte.
#include "power/components/EventComponent.h"

namespace ptxsim::power::builtin {

namespace {
class Dram : public EventComponent {
public:
  explicit Dram(const PowerContext &c) : EventComponent("dram", c.tech, false) {
    const DramTechnology &d = c.dram;
    const auto &dram = c.cfg.dram;
    double rowBits = double(dram.rowBytes) * 8;
    double actJ = rowBits * d.rowCapF * d.vdd * d.vdd;
    event("dram.activate", actJ, "open a row", Count::sum({"dram.activates"}));
    event("dram.precharge", 0.4 * actJ, "close a row", Count::sum({"dram.precharges"}));
    event("dram.read_byte", 8 * d.coreCapF * d.vdd * d.vdd, "array/column path per byte read",
          Count::sum({"dram.read_bytes"}));
    event("dram.write_byte", 8 * d.coreCapF * d.vdd * d.vdd, "array/column path per byte written",
          Count::sum({"dram.write_bytes"}));
    event("dram.io_byte", 8 * d.ioCapF * d.vddq * d.vddq, "channel I/O per byte moved",
          Count::sum({"dram.read_bytes", "dram.write_bytes"}));
    event("dram.refresh", d.refreshRows * dram.banks * actJ, "refresh command (all banks)",
          Count::sum({"dram.refreshes"}));
    // off the die: no area; its leakage is the devices' background power
    double channels = double(c.cfg.mem.numPartitions) * dram.channelsPerPartition;
    setLeakageW(channels * dram.busWidthBytes * d.backgroundWPerByte);
  }
};
} // namespace

std::shared_ptr<IPowerComponent> dram(const PowerContext &c) { return std::make_shared<Dram>(c); }

} // namespace ptxsim::power::builtin

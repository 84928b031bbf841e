#pragma once
// A power component an extension adds (SPU buffers, chiplet network).
//
// Contract: the component reads its own counters from the kernel's named statistics (which are
// cumulative: the same object is called with snapshots taken during the kernel and with the final
// values), and its dynamic energy must be a non-decreasing function of those counters, zero when
// they are zero. counters() lists every statistic it reads; the model checks at load that each
// is registered (base/Stats.h), so a renamed counter is an error, not a zero. Leakage is a
// constant power in watts, charged for the kernel's simulated time. The model lists extension
// components after the built-ins, in the order they were registered (registerPowerComponent,
// applied by every PowerModel::load) or added (PowerModel::addComponent).

#include "base/Stats.h"
#include "power/Technology.h"
#include "timing/TimingConfig.h"

#include <memory>
#include <string>
#include <vector>

namespace ptxsim::power {

class IPowerComponent {
public:
  virtual ~IPowerComponent() = default;
  virtual std::string name() const = 0;
  /// Dynamic energy (J) for the counters in `s` (cumulative).
  virtual double dynamicJ(const stats::Snapshot &s) const = 0;
  /// Leakage power (W).
  virtual double leakageW() const = 0;
  /// The statistics dynamicJ() reads.
  virtual std::vector<std::string> counters() const { return {}; }
};

/// Builds an extension's component for a GPU configuration and the model's technology (so its
/// per-access energies scale with the node and Vdd like the built-ins'); null to add nothing.
using PowerComponentFactory = std::shared_ptr<IPowerComponent> (*)(const timing::TimingConfig &cfg,
                                                                   const Technology &tech);
/// Extension point: every PowerModel loaded afterwards gets the component. Call at start-up.
void registerPowerComponent(PowerComponentFactory f);
const std::vector<PowerComponentFactory> &powerComponentFactories();

} // namespace ptxsim::power

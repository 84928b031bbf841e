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

/// Heterogeneous cores: `count` of the GPU's cores (cfg.numSms()) lack the per-SM built-in
/// components named in `absent` ("shared", "l1d", "sfu", "sp", "dp", "tensor", ...; docs/power.md
/// lists the per-SM ones). Their area leaves the die, so those components' leakage (and the
/// die area it is computed from) drops by count/numSms of the per-SM part; dynamic energy still
/// follows the counters (a core without a unit has no activity on it).
struct ReducedCores {
  std::string kind; ///< what the cores are, for describe() and the report ("IU")
  uint32_t count = 0;
  std::vector<std::string> absent;
  /// The cores are not SMs at all (DMA engines): besides the components in `absent`, the rest of
  /// an SM's share of the die (control and wiring, which the uncore's leakage covers) leaves too.
  bool wholeCore = false;
};
/// What an extension declares about the cores of a GPU configuration.
struct CoreAccounting {
  std::vector<ReducedCores> reduced;
  /// One line the power report prints (text and JSON "notes") saying how cores were charged;
  /// empty: nothing to say.
  std::string note;
};
/// Contract: a pure function of the configuration (no timing internals); called by every
/// PowerModel::load. A count or name the model does not know is a load error naming the kind.
using CoreAccountingFn = CoreAccounting (*)(const timing::TimingConfig &cfg);
/// Extension point: call at start-up.
void registerCoreAccounting(CoreAccountingFn f);
const std::vector<CoreAccountingFn> &coreAccountingFns();

} // namespace ptxsim::power

#pragma once
// The McPAT/GPUWattch-style power model: activity counts from the timing model's named statistics
// times per-event energies, plus leakage, reported per kernel.
//
// Contract: PowerModel reads only named statistics (stats::Snapshot, base/Stats.h) and the
// structure sizes in timing::TimingConfig; it never sees timing internals. load() fails when a
// statistic it needs is not registered in stats::Catalog::global() (the caller registers the
// timing model's first: timing::registerTimingStatistics()). load() derives every per-event
// energy from the XML's technology (node, Vdd) and the structure sizes with the formulas in
// power/Technology.h; `<energy>` and `<leakage>` elements override single values. kernel() is a
// pure function of the statistics: dynamic energy is linear in the counters (a component with no
// activity has zero dynamic energy), static energy is leakage power times the kernel's simulated
// seconds. Components come from one registry (IPowerComponent.h) and appear in a fixed order: the
// built-ins (power/components/, docs/power.md), the extensions' in registration order, then those
// added with addComponent() in the order added, then `uncore` (leakage of the die area no
// component claims, plus the board-level constant power). Every statistic is resolved to a
// handle at load; kernel() looks no name up per component.

#include "base/Diagnostics.h"
#include "power/IPowerComponent.h"
#include "power/StatTable.h"
#include "power/Technology.h"
#include "base/Stats.h"
#include "timing/TimingConfig.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ptxsim::power {

struct ComponentEnergy {
  std::string name;
  double dynamicJ = 0, staticJ = 0;
};

struct KernelPower {
  std::string kernel;
  double seconds = 0;
  double energyJ = 0;
  double avgW = 0, peakW = 0;
  std::vector<ComponentEnergy> components; ///< fixed order, every component listed (zero when idle)
  std::vector<std::pair<double, double>> trace; ///< (simulated time s, average W in that interval)
  /// How the model charged the cores when an extension declared it (CoreAccounting::note).
  std::vector<std::string> notes;
};

class PowerModel {
public:
  PowerModel() : seconds_(stats_.stat("gpu.sim_seconds")) {}
  /// Reads the XML power configuration (technology node nm, Vdd, leakage density, die area,
  /// constant power; DRAM device parameters; optional per-event overrides). Structure sizes
  /// come from `cfg`. Errors name the XML element and its file:line:col.
  static bool load(const std::string &xmlPath, const timing::TimingConfig &cfg, PowerModel &out,
                   DiagEngine &diags);
  /// Like load() with the XML text given (`file` names it in diagnostics).
  static bool loadText(const std::string &file, const std::string &xml,
                       const timing::TimingConfig &cfg, PowerModel &out, DiagEngine &diags);
  /// Like loadText(), checking the counters it needs against `catalog` instead of the global one.
  static bool loadText(const std::string &file, const std::string &xml,
                       const timing::TimingConfig &cfg, PowerModel &out, DiagEngine &diags,
                       const stats::Catalog &catalog);

  /// Energy and power of one kernel from its final statistics and the cumulative snapshots taken
  /// during it (may be empty: then the trace has one point).
  KernelPower kernel(const std::string &kernelName, const stats::Snapshot &s,
                     const std::vector<stats::Snapshot> &samples) const;
  /// Adds a component after the registry's and binds its statistics (unlike load(), without
  /// checking them against the catalog: a statistic a snapshot has no value for reads as 0).
  void addComponent(std::shared_ptr<IPowerComponent> c);
  /// Core cycles between trace samples (XML `<trace interval_cycles>`, default 10000).
  uint64_t traceInterval() const { return traceInterval_; }

  /// Every derived per-event energy (after overrides), in component order.
  const std::vector<EventEnergy> &events() const { return events_; }
  /// Per-event energy by key ("regfile.read"); 0 when unknown.
  double eventJ(const std::string &key) const;
  /// Leakage power of a component by name (W); 0 when unknown.
  double leakageW(const std::string &component) const;
  /// Total leakage + constant power (W): the floor under every kernel.
  double staticW() const;
  /// Board power with no kernel running (W), when the XML has `<idle vdd=...>`: the GPU drops
  /// to its idle voltage, which scales the power on its rail (leakage of every component but the
  /// DRAM, and the constant power) by (idle vdd / vdd)^3; the DRAM's background power stays (the
  /// memory clock does not drop at idle). Without `<idle>`: staticW(), the floor at full clock.
  double idleW() const;
  /// True when the XML described the idle state (`<idle>`).
  bool hasIdle() const { return idleVdd_ > 0; }
  const std::string &name() const { return name_; }
  /// Human-readable dump: technology, every per-event energy and every leakage.
  std::string describe() const;

private:
  std::string name_;
  Technology tech_;
  DramTechnology dram_;
  double dieAreaMm2_ = 0, constantW_ = 0;
  double idleVdd_ = 0, idleClockMHz_ = 0; ///< `<idle>`; 0: not given
  uint64_t traceInterval_ = 10000;
  std::vector<EventEnergy> events_; ///< every component's, in component order
  /// The registry's components for this configuration, then those added (addComponent).
  std::vector<std::shared_ptr<IPowerComponent>> components_;
  StatTable stats_; ///< every statistic the model and its components read, bound once
  StatRef seconds_; ///< gpu.sim_seconds
  double uncoreLeakW_ = 0;
  std::vector<std::string> notes_;           ///< CoreAccounting notes, printed with each kernel
  std::vector<std::string> reductionLines_;  ///< for describe(): what reduced cores lack

  /// Dynamic energy of every component (then 0 for the uncore) for the cumulative values `v`.
  std::vector<double> dynamicJ(const StatValues &v) const;
  std::vector<double> leakagesW() const;
  std::vector<std::string> componentNames() const;
  friend class PowerModelBuilder;
};

/// Text report: totals and a per-component table (dynamic, static, total, share).
std::string formatKernelPower(const KernelPower &p);
/// The same as a JSON object: {"kernel", "seconds", "energy_j", "avg_w", "peak_w",
/// "components": [{"name", "dynamic_j", "static_j"}...], "trace": [[t, w]...]}.
std::string kernelPowerJson(const KernelPower &p);

} // namespace ptxsim::power

#pragma once
// A power component: a built-in (power/components/, one file each) or an extension's (SPU buffers,
// a hash unit).
//
// Contract: every component comes from a factory in one registry: the built-ins are its first
// entries (registerBuiltinPowerComponents, power/components/Builtins.cpp), extensions follow in
// the order they call registerPowerComponent() at start-up, and every PowerModel::load calls each
// factory once with the configuration, the technology and the XML's chip parameters
// (PowerContext); a factory returns null to add nothing. The model lists the components in
// registry order, then those added with PowerModel::addComponent(), then `uncore`.
// A component names the statistics it reads once, in bind(): StatBinder::stat() returns a handle,
// and a name no component registers (base/Stats.h) fails the load, so a renamed counter is an
// error, not a zero. dynamicJ() reads the values by handle (no name lookups per kernel); they are
// cumulative (the model calls it with snapshots taken during the kernel and with the final
// values), and the dynamic energy must be a non-decreasing function of them, zero when they are
// zero. Leakage is a constant power in watts, charged for the kernel's simulated time.

#include "base/Stats.h"
#include "power/Technology.h"
#include "timing/TimingConfig.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ptxsim::power {

/// A statistic a component reads, resolved once at load (StatBinder::stat).
struct StatRef {
  uint32_t slot = UINT32_MAX;
};

/// The values of every statistic the model's components bound, for one snapshot.
class StatValues {
public:
  explicit StatValues(const std::vector<double> &v) : v_(v) {}
  double operator[](StatRef r) const { return v_[r.slot]; }

private:
  const std::vector<double> &v_;
};

/// Resolves statistic names to handles when the model takes a component.
class StatBinder {
public:
  virtual ~StatBinder() = default;
  /// The handle of `name` (`l1d.accesses`); a name no component registers fails the load.
  virtual StatRef stat(const std::string &name) = 0;
};

/// One per-event energy after derivation and overrides ("regfile.read" -> joules).
struct EventEnergy {
  std::string key;
  double joules = 0;
  std::string help;
};

/// Gate-equivalent counts of the logic blocks (XML `<logic>`; defaults in docs/power.md).
struct LogicParams {
  double decodeGates = 150000;      ///< fetch + decode + issue per warp instruction, fixed part
  double decodeGatesPerWarp = 2000; ///< scoreboard / scheduler arbitration per resident warp
  double spGates = 30000;           ///< one FP32/INT lane operation incl. pipeline latches
  double dpGates = 150000;          ///< one FP64 lane operation ((53/24)^2 x the FP32 multiplier)
  double sfuGates = 60000;          ///< one SFU lane operation (table lookup + quadratic interp.)
  double tensorFmaGates = 8000;     ///< one FP16 fused multiply-add inside a tensor core
  double tensorFmasPerInst = 2048;  ///< FMAs per warp MMA instruction (m16n8k16)
  double ldstGatesPerLane = 2000;   ///< address generation per lane
  double coalescerGates = 20000;    ///< coalescer + bank-conflict check per LD/ST instruction
  double clockGates = 400000;       ///< clock tree + pipeline latches per SM per active cycle
};

/// What a component's factory is given: the GPU configuration (structure sizes), the technology
/// (so per-access energies scale with the node and Vdd) and the XML's chip description.
struct PowerContext {
  const timing::TimingConfig &cfg;
  const Technology &tech;
  const DramTechnology &dram;
  const LogicParams &logic;
  double dieAreaMm2 = 0;     ///< this configuration's die (after `<chip die_sms>` scaling)
  double smAreaFraction = 0; ///< share of the die the SMs occupy

  /// Side of one SM's square share of the die (for SM-internal wire lengths).
  double smSideMm() const;
  double dieSideMm() const;
};

class IPowerComponent {
public:
  virtual ~IPowerComponent() = default;
  virtual std::string name() const = 0;
  /// Resolves the statistics dynamicJ() reads (keep the handles b.stat() returns). Called once.
  virtual void bind(StatBinder &b) = 0;
  /// Dynamic energy (J) for the cumulative values `v`.
  virtual double dynamicJ(const StatValues &v) const = 0;
  /// Leakage power (W).
  virtual double leakageW() const = 0;

  // Optional, for components built from modelled structures (the built-ins: EventComponent).
  /// The per-event energies it charges: describe() lists them, `<energy event>` overrides them.
  virtual std::vector<EventEnergy> *events() { return nullptr; }
  /// Die area it models (mm^2); the uncore leaks for the die area no component models.
  virtual double areaMm2() const { return 0; }
  /// Every SM has one (reduced cores may lack it: registerCoreAccounting).
  virtual bool perSm() const { return false; }
  /// Reduced cores took part of its area away; its leakage follows. False: not supported.
  virtual bool setAreaMm2(double) { return false; }
  /// `<leakage component w>`; false: its leakage cannot be overridden.
  virtual bool setLeakageW(double) { return false; }
};

/// Builds a component for a GPU configuration (PowerContext); null to add nothing.
using PowerComponentFactory = std::shared_ptr<IPowerComponent> (*)(const PowerContext &ctx);

/// The factories every PowerModel::load calls, in order.
class PowerComponentRegistry {
public:
  void add(PowerComponentFactory f) { factories_.push_back(f); }
  const std::vector<PowerComponentFactory> &factories() const { return factories_; }

private:
  std::vector<PowerComponentFactory> factories_;
};

/// The built-in components (power/components/Builtins.def), added to the registry first.
void registerBuiltinPowerComponents(PowerComponentRegistry &r);
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

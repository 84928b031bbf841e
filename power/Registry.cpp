// The component and core-accounting registries (IPowerComponent.h).
#include "power/IPowerComponent.h"

#include <algorithm>
#include <cmath>

namespace ptxsim::power {

double PowerContext::smSideMm() const {
  return std::sqrt(dieAreaMm2 * smAreaFraction / std::max(1.0, double(cfg.numSms())));
}

double PowerContext::dieSideMm() const { return std::sqrt(dieAreaMm2); }

namespace {
PowerComponentRegistry &registry() {
  // the built-ins first, so extensions registered at start-up follow them
  static auto *r = [] {
    auto *reg = new PowerComponentRegistry();
    registerBuiltinPowerComponents(*reg);
    return reg;
  }();
  return *r;
}

std::vector<CoreAccountingFn> &accountingFns() {
  static auto *v = new std::vector<CoreAccountingFn>();
  return *v;
}
} // namespace

void registerPowerComponent(PowerComponentFactory f) { registry().add(f); }
const std::vector<PowerComponentFactory> &powerComponentFactories() {
  return registry().factories();
}

void registerCoreAccounting(CoreAccountingFn f) { accountingFns().push_back(f); }
const std::vector<CoreAccountingFn> &coreAccountingFns() { return accountingFns(); }

} // namespace ptxsim::power

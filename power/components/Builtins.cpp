// The built-in components enter the same registry as extensions' (IPowerComponent.h), first.
#include "power/IPowerComponent.h"

namespace ptxsim::power {

namespace builtin {
#define PTXSIM_POWER_COMPONENT(factory)                                                            \
  std::shared_ptr<IPowerComponent> factory(const PowerContext &);
#include "power/components/Builtins.def"
#undef PTXSIM_POWER_COMPONENT
} // namespace builtin

void registerBuiltinPowerComponents(PowerComponentRegistry &r) {
#define PTXSIM_POWER_COMPONENT(factory) r.add(builtin::factory);
#include "power/components/Builtins.def"
#undef PTXSIM_POWER_COMPONENT
}

} // namespace ptxsim::power

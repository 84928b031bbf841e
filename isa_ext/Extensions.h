#pragma once
// The one place the product learns which extensions exist.
//
// Contract: registerExtensions() registers every extension and study in isa_ext/ with the core's
// registries (opcodes, modifiers, lowerings, special registers, launch policies, op classes and
// pipes, memory-space models, counters, statistics, power components, schedulers, cache
// replacement policies, topologies, DRAM schedulers, configuration options). The runtime and the
// CLI call it once at start-up, before any configuration is read or module parsed; it is safe to
// call again. Adding an extension is one folder plus one line in Extensions.def.

namespace ptxsim::ext {

void registerExtensions();

} // namespace ptxsim::ext

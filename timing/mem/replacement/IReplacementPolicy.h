#pragma once
// Cache replacement policies: which way of a full set a cache replaces.
//
// Contract: one policy object per cache (per cache instance: each SM's L1D, each L2 slice),
// built for its geometry. The cache calls touch() whenever a way is used: a hit (fill = false)
// or a new line placed in it (fill = true), with a stamp that never decreases; it calls
// victim() only for a set whose ways are all valid (an invalid way is always used first) and
// replaces the way returned. Deterministic: no randomness that is not seeded from the
// arguments. GPGPU-Sim's cache specs name the policy with one letter (`L` = LRU, `F` = FIFO);
// any registered name is accepted in that position.

#include "base/NamedRegistry.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ptxsim::timing {

class IReplacementPolicy {
public:
  virtual ~IReplacementPolicy() = default;
  virtual void touch(uint32_t set, uint32_t way, uint64_t stamp, bool fill) = 0;
  virtual uint32_t victim(uint32_t set) const = 0;
};

using ReplacementFactory = std::unique_ptr<IReplacementPolicy> (*)(uint32_t sets, uint32_t ways);

/// Name -> factory. The process-wide registry holds the built-ins (`L`, `F`) and what extensions
/// and studies add at start-up (`timing::replacementRegistry().add("R", createMine)` in a
/// registration function listed in isa_ext/Extensions.def).
class ReplacementRegistry : public NamedRegistry<ReplacementFactory> {
public:
  std::unique_ptr<IReplacementPolicy> create(const std::string &name, uint32_t sets, uint32_t ways) const {
    ReplacementFactory f = find(name);
    return f ? f(sets, ways) : nullptr;
  }
};

ReplacementRegistry &replacementRegistry();

std::unique_ptr<IReplacementPolicy> createLruPolicy(uint32_t sets, uint32_t ways);
std::unique_ptr<IReplacementPolicy> createFifoPolicy(uint32_t sets, uint32_t ways);

} // namespace ptxsim::timing

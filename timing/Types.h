#pragma once
// Basic types the timing model's components share: cycles, memory requests, and the port
// contract between components.
//
// Contract: every component is ticked by its owner once per cycle of its own clock domain with
// the current cycle number of that domain. Components exchange MemRequest values through
// ports with a "can I send?" check (canAccept) before push; a component never drops a request it
// accepted. Responses travel back as the same MemRequest (with `isResponse` set), so the sender
// can match them by `id`. Everything is deterministic: no host time, no unordered iteration.

#include <cstdint>
#include <cstring>
#include <vector>

namespace ptxsim::timing {

/// A count of cycles of one clock domain.
using Cycle = uint64_t;
constexpr Cycle kNever = ~Cycle(0);

/// Whether any byte of `flags` is set, 8 bytes at a time (its size a multiple of 8). Per-node
/// "has work" bytes, each written by its own node on its own host thread, instead of a shared
/// counter every node would fight over (MemorySystem, Interconnect).
inline bool anyByteSet(const std::vector<uint8_t> &flags) {
  uint64_t any = 0;
  for (size_t i = 0; i + 8 <= flags.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, &flags[i], 8);
    any |= w;
  }
  return any != 0;
}

enum class MemSpaceKind : uint8_t { Global, Local, Const, Param, Shared, Tex, Inst };

struct MemRequest {
  uint64_t id = 0;         ///< unique per GPU (assigned by the issuing SM)
  uint64_t addr = 0;       ///< byte address (line- or sector-aligned for cache traffic)
  uint32_t bytes = 0;      ///< bytes moved (a sector is 32, a line 128)
  uint32_t sectorMask = 0; ///< sectors of the line this request covers (bit i = bytes 32i..32i+31)
  bool write = false;
  bool atomic = false;
  bool isResponse = false;
  uint8_t atomicLanes = 0;    ///< atomics: lanes this request updates
  uint8_t atomicSameAddr = 0; ///< atomics: the most lanes on one address (serialized at the L2)
  bool atomicCas = false;     ///< atomics: a compare-and-swap
  bool atomicFloat = false;   ///< atomics: a floating-point add, min or max
  MemSpaceKind space = MemSpaceKind::Global;
  uint32_t sm = 0;         ///< issuing SM
  uint32_t warp = 0;       ///< issuing warp slot within the SM (for CCWS and statistics)
  uint32_t partition = 0;  ///< memory partition (L2 slice / DRAM channel) it maps to
  Cycle issued = 0;        ///< core cycle the warp issued the instruction
};

} // namespace ptxsim::timing

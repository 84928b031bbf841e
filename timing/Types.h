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
#include <type_traits>
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

/// Calls f(i) for every index i in [from, to) whose byte of `flags` is set, in increasing
/// order, reading 8 bytes at a time (its size a multiple of 8): a scan of per-node flags that
/// skips the empty words. f may clear flags[i] (each word is read before its bytes are visited)
/// but must not set another byte of the range. An f that returns bool stops the scan by
/// returning true; the scan then returns true.
template <class F>
inline bool forEachByteSet(const std::vector<uint8_t> &flags, size_t from, size_t to, F &&f) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "byte k of a word at bits 8k..8k+7");
  constexpr uint64_t kLow7 = 0x7f7f7f7f7f7f7f7full, kHigh = 0x8080808080808080ull;
  for (size_t w = from & ~size_t(7); w < to; w += 8) {
    uint64_t word;
    std::memcpy(&word, &flags[w], 8);
    if (!word)
      continue;
    uint64_t set = (((word & kLow7) + kLow7) | word) & kHigh; // bit 8k+7: byte k is not zero
    while (set) {
      const size_t i = w + size_t(__builtin_ctzll(set) >> 3);
      set &= set - 1;
      if (i < from || i >= to)
        continue;
      if constexpr (std::is_same_v<decltype(f(i)), bool>) {
        if (f(i))
          return true;
      } else {
        f(i);
      }
    }
  }
  return false;
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

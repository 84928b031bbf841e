#pragma once
// Device memory: one reserved host range that holds every global allocation.
//
// Contract: the arena reserves a large virtual range once (PROT_NONE, no swap reservation) and
// commits pages as allocations need them. A device address *is* the host address of the byte
// inside the arena, so translating costs nothing and host code may dereference managed memory
// directly. The first two 4 GiB windows of the reservation are never committed: they are the
// generic-address windows of shared and local memory, so a generic address classifies by one
// compare each. Every live allocation is in a sorted table; accesses are checked exactly against
// it (the executor caches the last allocation hit per thread, so the common case is one range
// compare per warp instruction). The table changes only between kernel launches, except the
// device-side malloc heap, which is one fixed allocation carved up by its own allocator.

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace ptxsim::ptx::exec {

/// Mapped: a cuMemMap mapping of a physical allocation (cuMemCreate) into a reserved range.
enum class AllocKind : uint8_t { Device, Host, Managed, Global, Const, Param, Heap, Mapped };
std::string_view allocKindName(AllocKind k);

struct Allocation {
  uint64_t base = 0;
  uint64_t size = 0;     ///< bytes requested (accesses beyond are out of bounds)
  uint64_t reserved = 0; ///< bytes reserved in the arena (size rounded up)
  AllocKind kind = AllocKind::Device;
};

class DeviceMemory {
public:
  static constexpr uint64_t kWindowBytes = 1ull << 32;

  /// Reserves `arenaBytes` of address space (plus the two windows). Aborts when the host refuses.
  explicit DeviceMemory(uint64_t arenaBytes = 64ull << 30);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;

  /// Allocates `bytes` (0 allowed: returns a unique address of a 0-byte allocation) aligned to
  /// 256 bytes, zero-filled. Returns 0 when the arena is exhausted.
  uint64_t allocate(uint64_t bytes, AllocKind kind);
  /// Frees the allocation starting exactly at `addr`. False if there is none.
  bool release(uint64_t addr);

  /// Virtual memory management (cuMemAddressReserve/cuMemMap): reserves `bytes` of address
  /// space aligned to `align` (a power of two), committed but not a live allocation, so accesses
  /// fault until mapRange makes part of it one. Returns 0 when the arena is exhausted.
  uint64_t reserveRange(uint64_t bytes, uint64_t align);
  /// Gives a reserveRange range back (its contents are dropped; the addresses may be reused).
  void releaseRange(uint64_t addr, uint64_t bytes);
  /// Makes [addr, addr+bytes) of a reserved range a live allocation of kind Mapped (an
  /// accessible mapping). False if it overlaps a live allocation.
  bool mapRange(uint64_t addr, uint64_t bytes);
  /// Ends a mapRange mapping starting exactly at `addr` (the range stays reserved).
  bool unmapRange(uint64_t addr);
  /// The allocation containing `addr`, or null. The pointer stays valid until that allocation
  /// is released; the lookup itself is safe while other host threads allocate and free.
  const Allocation *find(uint64_t addr) const;
  /// Copies the allocation containing `addr` into `out` (false when none): what kernels use, so
  /// a concurrent release never leaves them a dangling pointer.
  bool lookup(uint64_t addr, Allocation &out) const;
  /// The live allocation with the highest base <= addr (for messages), or null.
  const Allocation *nearestBelow(uint64_t addr) const;
  /// True when [addr, addr+n) lies inside one live allocation, or in adjacent cuMemMap
  /// mappings (a reserved range backed by several physical allocations is one buffer).
  bool valid(uint64_t addr, uint64_t n) const {
    const Allocation *a = find(addr);
    if (a && a->kind == AllocKind::Mapped && addr + n > a->base + a->size)
      return validMapped(addr, n);
    return a && addr + n <= a->base + a->size && addr + n >= addr;
  }
  uint64_t bytesInUse() const { return inUse_; }
  uint64_t capacity() const { return arenaBytes_; }

  uint64_t sharedWindow() const { return base_; }
  uint64_t localWindow() const { return base_ + kWindowBytes; }
  uint64_t arenaBegin() const { return arenaBegin_; }
  uint64_t arenaEnd() const { return arenaBegin_ + arenaBytes_; }
  bool inArena(uint64_t a) const { return a - arenaBegin_ < arenaBytes_; }
  bool inSharedWindow(uint64_t a) const { return a - base_ < kWindowBytes; }
  bool inLocalWindow(uint64_t a) const { return a - (base_ + kWindowBytes) < kWindowBytes; }

  static void *host(uint64_t addr) { return reinterpret_cast<void *>(addr); }

private:
  bool validMapped(uint64_t addr, uint64_t n) const;
  void commit(uint64_t upTo);
  const Allocation *findLocked(uint64_t addr) const; ///< with mu_ held

  uint64_t base_ = 0, arenaBegin_ = 0, arenaBytes_ = 0;
  uint64_t bump_ = 0;      ///< next never-used address
  uint64_t committed_ = 0; ///< arena addresses below this are readable and writable
  uint64_t inUse_ = 0;
  std::map<uint64_t, Allocation> live_;         ///< by base
  std::multimap<uint64_t, uint64_t> freeList_;  ///< reserved size -> base of freed blocks
  mutable std::mutex mu_;
};

} // namespace ptxsim::ptx::exec

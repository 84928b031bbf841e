#pragma once
// Device memory: one reserved host range that holds every global allocation.
//
// Contract: the arena reserves a large virtual range once (PROT_NONE, no swap reservation) and
// commits pages as allocations need them. A device address *is* the host address of the byte
// inside the arena, so translating costs nothing and host code may dereference managed memory
// directly. The device's memory (`capacity()`, what cudaMemGetInfo calls total) is a budget on
// live bytes; the address range is twice as large, so fragmentation never refuses a request that
// fits the budget. Free space is kept address-ordered and coalesced; a request takes the smallest
// free block that holds it (lowest address among equal sizes: deterministic), else the space
// above everything ever used. Every byte that is not live reads as zero: a free returns the
// freed whole pages to the host (madvise(MADV_DONTNEED): host memory follows what the program
// touches) and clears the partial pages at its ends, so a reuse never writes a byte
// (docs/executor.md, "Memory"). The first two 4 GiB windows of the reservation are never committed: they are the
// generic-address windows of shared and local memory, so a generic address classifies by one
// compare each. Every live allocation is in a sorted table; accesses are checked exactly against
// it (the executor caches the last allocation hit per thread, so the common case is one range
// compare per warp instruction). The table changes only between kernel launches, except the
// device-side malloc heap, which is one fixed allocation carved up by its own allocator.

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace ptxsim::ptx::exec {

/// Mapped: a cuMemMap mapping of a physical allocation (cuMemCreate) into a reserved range.
/// Ipc: another process's allocation opened with cudaIpcOpenMemHandle (a shared mapping).
enum class AllocKind : uint8_t { Device, Host, Managed, Global, Const, Param, Heap, Mapped, Ipc };
std::string_view allocKindName(AllocKind k);

struct Allocation {
  uint64_t base = 0;
  uint64_t size = 0;     ///< bytes requested (accesses beyond are out of bounds)
  uint64_t reserved = 0; ///< bytes reserved in the arena (size rounded up)
  AllocKind kind = AllocKind::Device;
};

/// Zero-initialised host bytes (a CTA's local memory) that cost host memory only where written:
/// up to 1 MiB a heap buffer cleared with memset, above that an anonymous mapping reserved
/// without swap whose written pages are handed back (madvise) instead of cleared. A large stack
/// limit (cudaLimitStackSize) times 1,024 threads is gigabytes nobody touches.
class LocalBytes {
public:
  LocalBytes() = default;
  ~LocalBytes();
  LocalBytes(const LocalBytes &) = delete;
  LocalBytes &operator=(const LocalBytes &) = delete;
  uint8_t *data() { return n_ > kHeapMax ? map_ : heap_.data(); }
  size_t size() const { return n_; }
  /// Makes it `n` zero bytes; `dirty`: some of the current bytes may have been written. False
  /// (and empty) when the host refuses the address space.
  bool reset(size_t n, bool dirty);

private:
  static constexpr size_t kHeapMax = 1 << 20;
  std::vector<uint8_t> heap_;
  uint8_t *map_ = nullptr;
  size_t n_ = 0, mapBytes_ = 0;
};

class DeviceMemory {
public:
  static constexpr uint64_t kWindowBytes = 1ull << 32;

  /// A device of `arenaBytes` of memory: reserves twice that of address space (plus the two
  /// windows). Aborts when the host refuses.
  explicit DeviceMemory(uint64_t arenaBytes = 64ull << 30);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;

  /// Allocates `bytes` (0 allowed: returns a unique address of a 0-byte allocation) aligned to
  /// 256 bytes, zero-filled. Returns 0 when the device's memory cannot hold it (a size near
  /// 2^64 included: never an address that aliases another allocation).
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
  /// Shares the live allocation that starts exactly at `addr` with other processes: its pages
  /// move (contents kept) to a memfd, whose descriptor (kept open until the allocation is
  /// freed) is returned with the offset of the allocation in it; -1 if there is no such
  /// allocation or the host refuses. Idempotent.
  int exportShared(uint64_t addr, uint64_t &offsetInFd, uint64_t &fdBytes);
  /// Maps `fdBytes` of the shared memory `fd` (another process's exportShared) at a fresh
  /// address and makes [offset, offset + bytes) of it a live allocation of kind Ipc. Returns
  /// its address, or 0 when the range is bad, the budget is exhausted or the host refuses.
  uint64_t importShared(int fd, uint64_t fdBytes, uint64_t offset, uint64_t bytes);
  /// Unmaps an importShared allocation starting exactly at `addr`. False if there is none.
  bool closeShared(uint64_t addr);

  /// Every live allocation, by address (the JIT's differential mode copies them).
  std::vector<Allocation> allocations() const;
  uint64_t bytesInUse() const { return inUse_; }
  uint64_t capacity() const { return capacity_; }
  /// Bytes of address space in free blocks below the high-water mark (for tests).
  uint64_t freeListBytes() const;

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
  /// Takes `bytes` (a multiple of 256) aligned to `align` from the free blocks (unless
  /// `fromTop`) or the top; 0 when the address range is exhausted. With mu_ held.
  uint64_t takeLocked(uint64_t bytes, uint64_t align, bool fromTop = false);
  /// Returns [addr, addr+bytes) to the free space: coalesces, lowers the top when it can, and
  /// restores the all-zero invariant (pages dropped, partial pages cleared). With mu_ held.
  void giveBackLocked(uint64_t addr, uint64_t bytes);
  /// Replaces an exportShared allocation's shared pages by private zero pages, keeping the bytes
  /// of its neighbours that share its first and last page. With mu_ held.
  void unshareLocked(uint64_t addr);

  uint64_t base_ = 0, arenaBegin_ = 0, arenaBytes_ = 0; ///< arenaBytes_: address range
  uint64_t capacity_ = 0;  ///< the device's memory: the budget on live bytes
  uint64_t bump_ = 0;      ///< the top: addresses at and above it were never used or are free
  uint64_t committed_ = 0; ///< arena addresses below this are readable and writable
  uint64_t inUse_ = 0;
  std::map<uint64_t, Allocation> live_;              ///< by base
  std::map<uint64_t, uint64_t> freeByAddr_;          ///< free blocks below the top: base -> size
  std::set<std::pair<uint64_t, uint64_t>> freeBySize_; ///< the same blocks as (size, base)
  struct Shared { int fd; uint64_t spanBase, spanBytes; };
  std::map<uint64_t, Shared> shared_;                ///< exported or imported allocations by base
  mutable std::mutex mu_;
};

} // namespace ptxsim::ptx::exec

#include "ptx/exec/Memory.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>

namespace ptxsim::ptx::exec {

std::string_view allocKindName(AllocKind k) {
  switch (k) {
  case AllocKind::Device: return "cudaMalloc";
  case AllocKind::Host: return "host-pinned";
  case AllocKind::Managed: return "managed";
  case AllocKind::Global: return "__device__ variable";
  case AllocKind::Const: return "__constant__ variable";
  case AllocKind::Param: return "kernel parameters";
  case AllocKind::Heap: return "device malloc heap";
  case AllocKind::Mapped: return "cuMemMap mapping";
  }
  return "?";
}

namespace {
constexpr uint64_t kAlign = 256;
constexpr uint64_t kCommitChunk = 2ull << 20;
uint64_t roundUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
} // namespace

DeviceMemory::DeviceMemory(uint64_t arenaBytes) : arenaBytes_(roundUp(arenaBytes, kCommitChunk)) {
  uint64_t total = 2 * kWindowBytes + arenaBytes_;
  void *p = mmap(nullptr, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    std::fprintf(stderr, "ptxsim: cannot reserve %llu bytes of address space for device memory\n",
                 (unsigned long long)total);
    std::abort();
  }
  base_ = reinterpret_cast<uint64_t>(p);
  arenaBegin_ = base_ + 2 * kWindowBytes;
  bump_ = arenaBegin_;
  committed_ = arenaBegin_;
}

DeviceMemory::~DeviceMemory() { munmap(reinterpret_cast<void *>(base_), 2 * kWindowBytes + arenaBytes_); }

void DeviceMemory::commit(uint64_t upTo) {
  if (upTo <= committed_)
    return;
  uint64_t end = roundUp(upTo, kCommitChunk);
  if (mprotect(reinterpret_cast<void *>(committed_), end - committed_, PROT_READ | PROT_WRITE) != 0) {
    std::fprintf(stderr, "ptxsim: cannot commit device memory\n");
    std::abort();
  }
  committed_ = end;
}

uint64_t DeviceMemory::allocate(uint64_t bytes, AllocKind kind) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t reserved = roundUp(bytes ? bytes : 1, kAlign);
  uint64_t addr = 0;
  auto it = freeList_.lower_bound(reserved);
  if (it != freeList_.end()) {
    addr = it->second;
    uint64_t have = it->first;
    freeList_.erase(it);
    if (have > reserved)
      freeList_.emplace(have - reserved, addr + reserved);
    std::memset(reinterpret_cast<void *>(addr), 0, reserved);
  } else {
    if (reserved > arenaEnd() - bump_)
      return 0;
    addr = bump_;
    bump_ += reserved;
    commit(bump_); // fresh pages are zero
  }
  live_[addr] = Allocation{addr, bytes, reserved, kind};
  inUse_ += reserved;
  return addr;
}

bool DeviceMemory::release(uint64_t addr) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(addr);
  if (it == live_.end())
    return false;
  inUse_ -= it->second.reserved;
  freeList_.emplace(it->second.reserved, addr);
  live_.erase(it);
  return true;
}

uint64_t DeviceMemory::reserveRange(uint64_t bytes, uint64_t align) {
  std::lock_guard<std::mutex> lock(mu_);
  align = std::max(align, kAlign);
  bytes = roundUp(bytes ? bytes : 1, kAlign);
  uint64_t addr = roundUp(bump_, align);
  if (addr < bump_ || addr > arenaEnd() || bytes > arenaEnd() - addr)
    return 0;
  if (addr > bump_)
    freeList_.emplace(addr - bump_, bump_); // the alignment gap serves ordinary allocations
  bump_ = addr + bytes;
  commit(bump_);
  return addr;
}

void DeviceMemory::releaseRange(uint64_t addr, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  bytes = roundUp(bytes ? bytes : 1, kAlign);
  // drop the pages (they read as zero again) and let ordinary allocations reuse the addresses
  uint64_t pageBegin = roundUp(addr, 4096), pageEnd = (addr + bytes) & ~uint64_t(4095);
  if (pageEnd > pageBegin)
    madvise(reinterpret_cast<void *>(pageBegin), pageEnd - pageBegin, MADV_DONTNEED);
  freeList_.emplace(bytes, addr);
}

bool DeviceMemory::mapRange(uint64_t addr, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  auto next = live_.lower_bound(addr);
  if (next != live_.end() && next->first < addr + bytes)
    return false;
  if (next != live_.begin() && std::prev(next)->second.base + std::prev(next)->second.reserved > addr)
    return false;
  live_[addr] = Allocation{addr, bytes, bytes, AllocKind::Mapped};
  inUse_ += bytes;
  return true;
}

bool DeviceMemory::validMapped(uint64_t addr, uint64_t n) const {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t end = addr + n;
  if (end < addr)
    return false;
  auto it = live_.upper_bound(addr);
  if (it == live_.begin())
    return false;
  --it;
  // walk the chain of mappings, each starting where the previous one ends
  for (uint64_t at = addr; it != live_.end() && it->second.kind == AllocKind::Mapped &&
                           it->first <= at && at < it->first + it->second.size;
       ++it) {
    at = it->first + it->second.size;
    if (at >= end)
      return true;
  }
  return false;
}

bool DeviceMemory::unmapRange(uint64_t addr) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(addr);
  if (it == live_.end())
    return false;
  inUse_ -= it->second.reserved;
  live_.erase(it);
  return true;
}

bool DeviceMemory::lookup(uint64_t addr, Allocation &out) const {
  std::lock_guard<std::mutex> lock(mu_);
  const Allocation *a = findLocked(addr);
  if (a)
    out = *a;
  return a != nullptr;
}

const Allocation *DeviceMemory::find(uint64_t addr) const {
  std::lock_guard<std::mutex> lock(mu_);
  return findLocked(addr);
}

const Allocation *DeviceMemory::findLocked(uint64_t addr) const {
  auto it = live_.upper_bound(addr);
  if (it == live_.begin())
    return nullptr;
  --it;
  const Allocation &a = it->second;
  // A 0-byte allocation still owns its address for identification, but no byte is valid.
  return addr - a.base < (a.size ? a.size : 1) ? &a : nullptr;
}

const Allocation *DeviceMemory::nearestBelow(uint64_t addr) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.upper_bound(addr);
  if (it == live_.begin())
    return nullptr;
  return &std::prev(it)->second;
}

} // namespace ptxsim::ptx::exec

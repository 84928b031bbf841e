#include "ptx/exec/Memory.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

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
  case AllocKind::Ipc: return "cudaIpcOpenMemHandle mapping";
  }
  return "?";
}

namespace {
constexpr uint64_t kAlign = 256;
constexpr uint64_t kCommitChunk = 2ull << 20;
uint64_t roundUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
uint64_t pageBytes() {
  static const uint64_t n = uint64_t(sysconf(_SC_PAGESIZE));
  return n;
}
uint64_t pageDown(uint64_t v) { return v & ~(pageBytes() - 1); }
uint64_t pageUp(uint64_t v) { return pageDown(v + pageBytes() - 1); }
} // namespace

DeviceMemory::DeviceMemory(uint64_t arenaBytes)
    : arenaBytes_(2 * roundUp(arenaBytes, kCommitChunk)),
      capacity_(roundUp(arenaBytes, kCommitChunk)) {
  uint64_t total = 2 * kWindowBytes + arenaBytes_;
  // The n-th arena of the process asks for the same address in every run (a hint: the kernel
  // picks another range when it is taken), so device addresses, and the JIT's code that holds
  // the addresses of module variables, repeat from run to run (its disk cache, ptx/jit/JitCache.h).
  static std::atomic<uint64_t> arenas{0};
  const uint64_t n = arenas++, stride = roundUp(total, 1ull << 40);
  void *hint = n < 32 ? reinterpret_cast<void *>((16ull << 40) + n * stride) : nullptr;
  void *p = mmap(hint, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
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

DeviceMemory::~DeviceMemory() {
  for (auto &[addr, s] : shared_)
    if (s.fd >= 0)
      close(s.fd);
  munmap(reinterpret_cast<void *>(base_), 2 * kWindowBytes + arenaBytes_);
}

void DeviceMemory::commit(uint64_t upTo) {
  if (upTo <= committed_)
    return;
  uint64_t end = std::min(roundUp(upTo, kCommitChunk), arenaEnd());
  if (mprotect(reinterpret_cast<void *>(committed_), end - committed_, PROT_READ | PROT_WRITE) != 0) {
    std::fprintf(stderr, "ptxsim: cannot commit device memory\n");
    std::abort();
  }
  committed_ = end;
}

LocalBytes::~LocalBytes() {
  if (map_)
    munmap(map_, mapBytes_);
}

bool LocalBytes::reset(size_t n, bool dirty) {
  if (dirty) { // the bytes in use so far may have been written: clear them
    if (n_ <= kHeapMax)
      std::memset(heap_.data(), 0, n_);
    else
      madvise(map_, pageUp(n_), MADV_DONTNEED); // written pages read as zero again
  }
  n_ = 0;
  if (n <= kHeapMax) {
    if (heap_.size() < n)
      heap_.resize(n); // new bytes are zero
  } else if (n > mapBytes_) {
    if (map_)
      munmap(map_, mapBytes_);
    map_ = nullptr;
    mapBytes_ = 0;
    uint64_t bytes = pageUp(n);
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      return false;
    map_ = static_cast<uint8_t *>(p);
    mapBytes_ = bytes;
  }
  n_ = n;
  return true;
}

uint64_t DeviceMemory::takeLocked(uint64_t bytes, uint64_t align, bool fromTop) {
  // best fit: the smallest free block that holds the request once aligned, lowest address first
  for (auto it = freeBySize_.lower_bound({bytes, 0}); !fromTop && it != freeBySize_.end(); ++it) {
    auto [size, base] = *it;
    uint64_t addr = roundUp(base, align);
    if (addr - base > size - bytes || size < bytes)
      continue;
    freeBySize_.erase(it);
    freeByAddr_.erase(base);
    if (addr > base) {
      freeByAddr_.emplace(base, addr - base);
      freeBySize_.emplace(addr - base, base);
    }
    uint64_t end = addr + bytes, blockEnd = base + size;
    if (blockEnd > end) {
      freeByAddr_.emplace(end, blockEnd - end);
      freeBySize_.emplace(blockEnd - end, end);
    }
    return addr;
  }
  uint64_t addr = roundUp(bump_, align);
  if (addr < bump_ || addr > arenaEnd() || bytes > arenaEnd() - addr)
    return 0;
  if (addr > bump_) { // the alignment gap serves later requests
    freeByAddr_.emplace(bump_, addr - bump_);
    freeBySize_.emplace(addr - bump_, bump_);
  }
  bump_ = addr + bytes;
  commit(bump_); // never-used pages are zero
  return addr;
}

void DeviceMemory::giveBackLocked(uint64_t addr, uint64_t bytes) {
  uint64_t lo = addr, hi = addr + bytes, end = hi;
  auto next = freeByAddr_.lower_bound(addr);
  if (next != freeByAddr_.end() && next->first == hi) {
    hi += next->second;
    freeBySize_.erase({next->second, next->first});
    next = freeByAddr_.erase(next);
  }
  if (next != freeByAddr_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == lo) {
      lo = prev->first;
      freeBySize_.erase({prev->second, prev->first});
      freeByAddr_.erase(prev);
    }
  }
  bool top = hi == bump_;
  // Drop every whole free page the freed bytes touch (the host gets them back; they read as
  // zero) and clear the freed bytes in pages that are still partly in use.
  uint64_t dropLo = std::max(pageUp(lo), pageDown(addr));
  uint64_t dropHi = std::min(top ? pageUp(hi) : pageDown(hi), pageUp(end));
  if (dropHi > dropLo) {
    madvise(host(dropLo), dropHi - dropLo, MADV_DONTNEED);
    if (dropLo > addr)
      std::memset(host(addr), 0, dropLo - addr);
    if (end > dropHi)
      std::memset(host(dropHi), 0, end - dropHi);
  } else {
    std::memset(host(addr), 0, bytes);
  }
  if (top) {
    bump_ = lo;
  } else {
    freeByAddr_.emplace(lo, hi - lo);
    freeBySize_.emplace(hi - lo, lo);
  }
}

uint64_t DeviceMemory::freeListBytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t n = 0;
  for (auto &[base, size] : freeByAddr_)
    n += size;
  return n;
}

uint64_t DeviceMemory::allocate(uint64_t bytes, AllocKind kind) {
  std::lock_guard<std::mutex> lock(mu_);
  if (bytes > capacity_) // also keeps the rounding below from wrapping
    return 0;
  uint64_t reserved = roundUp(bytes ? bytes : 1, kAlign);
  if (reserved > capacity_ - inUse_)
    return 0;
  // A launch's parameter buffer (freed when the launch ends) comes from the top, so the space a
  // program freed stays free, and a kernel given a dangling pointer faults, until the program
  // allocates again.
  uint64_t addr = kind == AllocKind::Param ? takeLocked(reserved, kAlign, true) : 0;
  if (!addr)
    addr = takeLocked(reserved, kAlign);
  if (!addr)
    return 0;
  live_[addr] = Allocation{addr, bytes, reserved, kind};
  inUse_ += reserved;
  return addr;
}

bool DeviceMemory::release(uint64_t addr) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(addr);
  if (it == live_.end() || it->second.kind == AllocKind::Ipc)
    return false;
  uint64_t reserved = it->second.reserved;
  if (shared_.count(addr))
    unshareLocked(addr);
  inUse_ -= reserved;
  live_.erase(it);
  giveBackLocked(addr, reserved);
  return true;
}

uint64_t DeviceMemory::reserveRange(uint64_t bytes, uint64_t align) {
  std::lock_guard<std::mutex> lock(mu_);
  align = std::max(align, kAlign);
  if (bytes > arenaBytes_ || align > arenaBytes_)
    return 0;
  return takeLocked(roundUp(bytes ? bytes : 1, kAlign), align);
}

void DeviceMemory::releaseRange(uint64_t addr, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  // its contents are dropped (they read as zero again); ordinary allocations may reuse it
  giveBackLocked(addr, roundUp(bytes ? bytes : 1, kAlign));
}

int DeviceMemory::exportShared(uint64_t addr, uint64_t &offsetInFd, uint64_t &fdBytes) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(addr);
  if (it == live_.end() || it->second.kind != AllocKind::Device)
    return -1;
  uint64_t spanBase = pageDown(addr), spanEnd = pageUp(addr + it->second.reserved);
  if (auto s = shared_.find(addr); s != shared_.end()) {
    offsetInFd = addr - s->second.spanBase;
    fdBytes = s->second.spanBytes;
    return s->second.fd;
  }
  // Two shared allocations cannot share a host page (each page lives in one memfd).
  for (auto &[a, s] : shared_)
    if (s.spanBase < spanEnd && spanBase < s.spanBase + s.spanBytes)
      return -1;
  uint64_t n = spanEnd - spanBase;
  int fd = int(syscall(SYS_memfd_create, "ptxsim-ipc", 1u /* MFD_CLOEXEC */));
  if (fd < 0)
    return -1;
  void *tmp = MAP_FAILED;
  if (ftruncate(fd, off_t(n)) == 0)
    tmp = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (tmp == MAP_FAILED) {
    close(fd);
    return -1;
  }
  std::memcpy(tmp, host(spanBase), n);
  munmap(tmp, n);
  if (mmap(host(spanBase), n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
    std::fprintf(stderr, "ptxsim: cannot remap device memory for sharing\n");
    std::abort(); // the range is in an unknown state
  }
  shared_[addr] = Shared{fd, spanBase, n};
  offsetInFd = addr - spanBase;
  fdBytes = n;
  return fd;
}

void DeviceMemory::unshareLocked(uint64_t addr) {
  Shared s = shared_[addr];
  shared_.erase(addr);
  const Allocation &a = live_[addr];
  uint64_t spanEnd = s.spanBase + s.spanBytes;
  // neighbours' bytes in the first and last page (the allocation's own bytes become zero)
  std::string head(reinterpret_cast<const char *>(host(s.spanBase)), addr - s.spanBase);
  uint64_t tailAt = a.base + a.reserved;
  std::string tail(reinterpret_cast<const char *>(host(tailAt)), spanEnd - tailAt);
  if (mmap(host(s.spanBase), s.spanBytes, PROT_READ | PROT_WRITE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED) {
    std::fprintf(stderr, "ptxsim: cannot remap device memory after sharing\n");
    std::abort();
  }
  std::memcpy(host(s.spanBase), head.data(), head.size());
  std::memcpy(host(tailAt), tail.data(), tail.size());
  if (s.fd >= 0)
    close(s.fd);
}

uint64_t DeviceMemory::importShared(int fd, uint64_t fdBytes, uint64_t offset, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!fdBytes || fdBytes % pageBytes() || fdBytes > capacity_ || offset > fdBytes ||
      bytes > fdBytes - offset)
    return 0;
  uint64_t span = takeLocked(fdBytes, pageBytes());
  if (!span)
    return 0;
  if (mmap(host(span), fdBytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
      MAP_FAILED) {
    mmap(host(span), fdBytes, PROT_READ | PROT_WRITE,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    giveBackLocked(span, fdBytes);
    return 0;
  }
  uint64_t addr = span + offset;
  live_[addr] = Allocation{addr, bytes, bytes, AllocKind::Ipc};
  shared_[addr] = Shared{-1, span, fdBytes};
  return addr;
}

bool DeviceMemory::closeShared(uint64_t addr) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = live_.find(addr);
  if (it == live_.end() || it->second.kind != AllocKind::Ipc)
    return false;
  Shared s = shared_[addr];
  shared_.erase(addr);
  live_.erase(it);
  // private zero pages again (the other process's memory is not ours to clear)
  if (mmap(host(s.spanBase), s.spanBytes, PROT_READ | PROT_WRITE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED) {
    std::fprintf(stderr, "ptxsim: cannot unmap shared device memory\n");
    std::abort();
  }
  giveBackLocked(s.spanBase, s.spanBytes);
  return true;
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

std::vector<Allocation> DeviceMemory::allocations() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Allocation> v;
  v.reserve(live_.size());
  for (const auto &kv : live_)
    v.push_back(kv.second);
  return v;
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

// The driver's virtual memory management: physical allocations (cuMemCreate) mapped into
// reserved address ranges (cuMemAddressReserve, cuMemMap) and made accessible (cuMemSetAccess).
// PyTorch's expandable segments, NCCL and growable arrays use it to grow a buffer in place.
//
// Design: a device address is the host address of its byte in the arena (ptx/exec/Memory.h), so
// a mapping cannot alias physical pages. Instead each mapping holds its bytes at its virtual
// address while mapped, and the physical allocation keeps a copy while it is unmapped: a
// handle's contents follow it from one mapping to the next, as on the GPU. What this cannot
// express is the same handle mapped at two addresses at once; that is refused with
// CUDA_ERROR_NOT_SUPPORTED and a message. A mapping becomes a live allocation (kind Mapped, so
// kernels and copies may touch it) only when cuMemSetAccess grants read-write access, as on an
// H200, where a memset of a mapped range before cuMemSetAccess is an invalid value.
//
// The granularity is 2 MiB, what an H200 reports for both the minimum and the recommended
// granularity (tools/hw/data/h200-2026-11-26b).

#include "runtime/api/Context.h"
#include "runtime/driver/DriverApi.h"

#include <cstring>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

using ptxsim::ptx::exec::DeviceMemory;

namespace {

constexpr uint64_t kGranularity = 2ull << 20;

struct Physical {
  uint64_t size = 0;
  std::vector<uint8_t> bytes; ///< contents while unmapped (empty: all zero)
  int refs = 1;               ///< cuMemCreate + cuMemRetainAllocationHandle - cuMemRelease
  int mappings = 0;
};

struct Mapping {
  CUmemGenericAllocationHandle handle = 0;
  uint64_t size = 0;
  uint64_t offset = 0; ///< into the physical allocation
  CUmemAccess_flags access = CU_MEM_ACCESS_FLAGS_PROT_NONE;
};

struct Vmm {
  std::unordered_map<CUmemGenericAllocationHandle, std::unique_ptr<Physical>> handles;
  std::map<uint64_t, uint64_t> reservations; ///< base -> bytes
  std::map<uint64_t, Mapping> mappings;      ///< virtual address -> mapping
  CUmemGenericAllocationHandle next = 0x1000;
};

// Guarded by the context's mutex (PTXSIM_LOCK) like every other runtime object. Never destroyed:
// NVIDIA's static runtime calls the driver from exit handlers.
Vmm &vmm() {
  static Vmm &v = *new Vmm;
  return v;
}

bool deviceLocation(const CUmemLocation &l) { return l.type == CU_MEM_LOCATION_TYPE_DEVICE && l.id == 0; }

/// What cuMemCreate and cuMemGetAllocationGranularity accept: pinned device memory of device 0.
CUresult checkProp(const CUmemAllocationProp *p) {
  if (!p || p->type != CU_MEM_ALLOCATION_TYPE_PINNED)
    return CUDA_ERROR_INVALID_VALUE;
  if (p->location.type == CU_MEM_LOCATION_TYPE_DEVICE)
    return p->location.id == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
  if (p->location.type == CU_MEM_LOCATION_TYPE_HOST || p->location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA)
    return CUresult(ptxsim::driver::unsupportedCall("cuMemCreate of host (CU_MEM_LOCATION_TYPE_HOST*) memory"));
  return CUDA_ERROR_INVALID_VALUE;
}

Physical *physical(CUmemGenericAllocationHandle h) {
  auto it = vmm().handles.find(h);
  return it == vmm().handles.end() ? nullptr : it->second.get();
}

void dropIfUnused(CUmemGenericAllocationHandle h) {
  Physical *p = physical(h);
  if (p && p->refs <= 0 && p->mappings == 0)
    vmm().handles.erase(h);
}

/// The mapping that contains `va`, or null.
const Mapping *mappingAt(uint64_t va) {
  auto &m = vmm().mappings;
  auto it = m.upper_bound(va);
  if (it == m.begin())
    return nullptr;
  --it;
  return va - it->first < it->second.size ? &it->second : nullptr;
}

/// The reservation that contains [va, va+size), or end().
std::map<uint64_t, uint64_t>::iterator reservationOf(uint64_t va, uint64_t size) {
  auto &r = vmm().reservations;
  auto it = r.upper_bound(va);
  if (it == r.begin())
    return r.end();
  --it;
  return va >= it->first && va + size <= it->first + it->second && va + size > va ? it : r.end();
}

/// The mappings that exactly tile [va, va+size) (first, last+1); first == last when they do not.
std::pair<std::map<uint64_t, Mapping>::iterator, std::map<uint64_t, Mapping>::iterator>
tiling(uint64_t va, uint64_t size) {
  auto &m = vmm().mappings;
  auto first = m.find(va), end = m.end();
  if (first == end || !size)
    return {end, end};
  uint64_t at = va;
  auto it = first;
  while (it != end && it->first == at && at < va + size) {
    at += it->second.size;
    ++it;
  }
  return at == va + size ? std::make_pair(first, it) : std::make_pair(end, end);
}

/// Ends one mapping: its bytes go back to the physical allocation.
void unmapOne(DeviceMemory &mem, std::map<uint64_t, Mapping>::iterator it) {
  const Mapping &m = it->second;
  Physical *p = physical(m.handle);
  if (p) {
    if (p->bytes.empty())
      p->bytes.assign(p->size, 0);
    std::memcpy(p->bytes.data() + m.offset, DeviceMemory::host(it->first), m.size);
    --p->mappings;
  }
  if (m.access != CU_MEM_ACCESS_FLAGS_PROT_NONE)
    mem.unmapRange(it->first);
  std::memset(DeviceMemory::host(it->first), 0, m.size);
  CUmemGenericAllocationHandle h = m.handle;
  vmm().mappings.erase(it);
  dropIfUnused(h);
}

} // namespace

DRIVER_API CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
                                                  CUmemAllocationGranularity_flags option) {
  DRIVER_TRACE();
  if (CUresult e = ptxsim::driver::checkInit())
    return e;
  if (!granularity || (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
                       option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult e = checkProp(prop))
    return e;
  *granularity = kGranularity;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                                const CUmemAllocationProp *prop, unsigned long long flags) {
  DRIVER_TRACE();
  if (CUresult e = ptxsim::driver::checkInit())
    return e;
  if (!handle || flags)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult e = checkProp(prop))
    return e;
  if (!size || size % kGranularity) // an H200 refuses 1 byte: sizes are whole granules
    return CUDA_ERROR_INVALID_VALUE;
  PTXSIM_LOCK;
  DeviceMemory &mem = ctx.engine().memory();
  if (size > mem.capacity() - mem.bytesInUse())
    return CUDA_ERROR_OUT_OF_MEMORY;
  auto p = std::make_unique<Physical>();
  p->size = size;
  CUmemGenericAllocationHandle h = vmm().next++;
  vmm().handles[h] = std::move(p);
  *handle = h;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuMemRelease(CUmemGenericAllocationHandle handle) {
  DRIVER_TRACE();
  PTXSIM_LOCK;
  Physical *p = physical(handle);
  if (!p || p->refs <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  --p->refs; // a mapped allocation lives on until its last mapping ends (an H200 allows this)
  dropIfUnused(handle);
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr) {
  DRIVER_TRACE();
  if (!handle)
    return CUDA_ERROR_INVALID_VALUE;
  PTXSIM_LOCK;
  const Mapping *m = mappingAt(uint64_t(addr));
  if (!m)
    return CUDA_ERROR_INVALID_VALUE;
  ++physical(m->handle)->refs;
  *handle = m->handle;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                                           CUmemGenericAllocationHandle handle) {
  DRIVER_TRACE();
  if (!prop)
    return CUDA_ERROR_INVALID_VALUE;
  PTXSIM_LOCK;
  if (!physical(handle))
    return CUDA_ERROR_INVALID_VALUE;
  std::memset(prop, 0, sizeof *prop);
  prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop->location.id = 0;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                                        CUdeviceptr addr, unsigned long long flags) {
  DRIVER_TRACE();
  if (CUresult e = ptxsim::driver::checkInit())
    return e;
  (void)addr; // a hint the driver may ignore
  if (!ptr || !size || size % kGranularity || (alignment & (alignment - 1)) || flags > 1)
    return CUDA_ERROR_INVALID_VALUE;
  PTXSIM_LOCK;
  uint64_t va = ctx.engine().memory().reserveRange(size, std::max<uint64_t>(alignment, kGranularity));
  if (!va)
    return CUDA_ERROR_OUT_OF_MEMORY;
  vmm().reservations[va] = size;
  *ptr = CUdeviceptr(va);
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size) {
  DRIVER_TRACE();
  PTXSIM_LOCK;
  auto it = vmm().reservations.find(uint64_t(ptr));
  if (it == vmm().reservations.end() || it->second != size)
    return CUDA_ERROR_INVALID_VALUE;
  DeviceMemory &mem = ctx.engine().memory();
  auto &m = vmm().mappings; // mappings still inside end with the range
  for (auto mi = m.lower_bound(it->first); mi != m.end() && mi->first < it->first + size;)
    unmapOne(mem, mi++);
  mem.releaseRange(it->first, size);
  vmm().reservations.erase(it);
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                             CUmemGenericAllocationHandle handle, unsigned long long flags) {
  DRIVER_TRACE();
  PTXSIM_LOCK;
  uint64_t va = uint64_t(ptr);
  Physical *p = physical(handle);
  if (!p || p->refs <= 0 || flags || !size || size % kGranularity || va % kGranularity ||
      offset % kGranularity || offset > p->size || size > p->size - offset)
    return CUDA_ERROR_INVALID_VALUE;
  if (reservationOf(va, size) == vmm().reservations.end())
    return CUDA_ERROR_INVALID_VALUE;
  auto &m = vmm().mappings;
  auto next = m.lower_bound(va);
  if ((next != m.end() && next->first < va + size) ||
      (next != m.begin() && std::prev(next)->first + std::prev(next)->second.size > va))
    return CUDA_ERROR_INVALID_VALUE; // already mapped
  if (p->mappings)
    return CUresult(ptxsim::driver::unsupportedCall(
        "cuMemMap of a physical allocation that is already mapped (aliased mappings)"));
  if (p->bytes.empty())
    std::memset(DeviceMemory::host(va), 0, size);
  else
    std::memcpy(DeviceMemory::host(va), p->bytes.data() + offset, size);
  ++p->mappings;
  m[va] = Mapping{handle, size, offset, CU_MEM_ACCESS_FLAGS_PROT_NONE};
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuMemUnmap(CUdeviceptr ptr, size_t size) {
  DRIVER_TRACE();
  PTXSIM_LOCK;
  auto [first, last] = tiling(uint64_t(ptr), size);
  if (first == last)
    return CUDA_ERROR_INVALID_VALUE;
  DeviceMemory &mem = ctx.engine().memory();
  while (first != last)
    unmapOne(mem, first++);
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
                                   size_t count) {
  DRIVER_TRACE();
  if (!desc || !count)
    return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < count; ++i) {
    if (!deviceLocation(desc[i].location))
      return desc[i].location.type == CU_MEM_LOCATION_TYPE_DEVICE ? CUDA_ERROR_INVALID_DEVICE
                                                                   : CUDA_ERROR_INVALID_VALUE;
    if (desc[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READ) // writes would have to fault
      return CUresult(ptxsim::driver::unsupportedCall("cuMemSetAccess with read-only access"));
    if (desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
        desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
      return CUDA_ERROR_INVALID_VALUE;
  }
  CUmemAccess_flags access = desc[count - 1].flags; // the last one for the device wins
  PTXSIM_LOCK;
  auto [first, last] = tiling(uint64_t(ptr), size);
  if (first == last)
    return CUDA_ERROR_INVALID_VALUE;
  DeviceMemory &mem = ctx.engine().memory();
  for (auto it = first; it != last; ++it) {
    Mapping &m = it->second;
    bool was = m.access != CU_MEM_ACCESS_FLAGS_PROT_NONE, now = access != CU_MEM_ACCESS_FLAGS_PROT_NONE;
    if (now && !was && !mem.mapRange(it->first, m.size))
      return CUDA_ERROR_INVALID_VALUE;
    if (was && !now)
      mem.unmapRange(it->first);
    m.access = access;
  }
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuMemGetAccess(unsigned long long *flags, const CUmemLocation *location,
                                   CUdeviceptr ptr) {
  DRIVER_TRACE();
  if (!flags || !location)
    return CUDA_ERROR_INVALID_VALUE;
  if (!deviceLocation(*location))
    return CUDA_ERROR_INVALID_DEVICE;
  PTXSIM_LOCK;
  const Mapping *m = mappingAt(uint64_t(ptr));
  if (!m)
    return CUDA_ERROR_INVALID_VALUE;
  *flags = m->access;
  return CUDA_SUCCESS;
}

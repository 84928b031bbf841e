// The documented CUDA runtime API: device queries, memory, copies, symbols, launches, streams,
// events and errors. Stream work is queued for the device executor (Streams.cpp); the other
// calls run at the call, after the queued work (PTXSIM_LOCK drains it).

#include "runtime/api/Api.h"
#include "runtime/api/DeviceProps.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>
#include <cuda_profiler_api.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/api/Unsupported.h"

using namespace ptxsim::runtime;
using ptxsim::ptx::exec::AllocKind;
using ptxsim::ptx::exec::Allocation;
using ptxsim::ptx::exec::DeviceMemory;

namespace {


uint64_t addr(const void *p) { return reinterpret_cast<uint64_t>(p); }

/// True when [p, p+n) lies in one live device-arena allocation.
bool deviceRange(Context &ctx, const void *p, size_t n) {
  return ctx.engine().memory().valid(addr(p), n);
}

/// A pointer the copy may treat as host memory: anything outside the arena, or a valid range
/// inside it (pinned and managed memory are host-accessible, as with UVA).
bool hostRange(Context &ctx, const void *p, size_t n) {
  DeviceMemory &mem = ctx.engine().memory();
  return !mem.inArena(addr(p)) || mem.valid(addr(p), n);
}

/// Each side of a copy of direction `kind` in one valid range of its kind (`dspan`/`sspan`
/// bytes): device memory for a device side, host-accessible memory otherwise (Default, HostToHost).
bool copyRangesOk(Context &ctx, cudaMemcpyKind kind, const void *dst, size_t dspan,
                  const void *src, size_t sspan) {
  bool dDev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  bool sDev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  return (dDev ? deviceRange(ctx, dst, dspan) : hostRange(ctx, dst, dspan)) &&
         (sDev ? deviceRange(ctx, src, sspan) : hostRange(ctx, src, sspan));
}

cudaError_t checkCopy(Context &ctx, void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
  if (count == 0)
    return cudaSuccess;
  if (!dst || !src)
    return cudaErrorInvalidValue;
  switch (kind) {
  case cudaMemcpyHostToHost:
  case cudaMemcpyHostToDevice:
  case cudaMemcpyDeviceToHost:
  case cudaMemcpyDeviceToDevice:
  case cudaMemcpyDefault:
    break;
  default:
    return cudaErrorInvalidMemcpyDirection;
  }
  return copyRangesOk(ctx, kind, dst, count, src, count) ? cudaSuccess : cudaErrorInvalidValue;
}

/// The bytes a pitched region of `height` rows of `width` bytes spans from its first byte, or
/// false when that overflows.
bool pitchedSpan(size_t width, size_t pitch, size_t height, size_t &span) {
  return !__builtin_mul_overflow(height - 1, pitch, &span) &&
         !__builtin_add_overflow(span, width, &span);
}

} // namespace

namespace ptxsim::runtime {

/// Checks a whole 2D copy before a byte of it is written (rows one by one would write those
/// that fit and then fail): each side's span, first row to last, in one valid range of its kind.
cudaError_t checkCopy2D(Context &ctx, void *dst, size_t dpitch, const void *src, size_t spitch,
                        size_t width, size_t height, cudaMemcpyKind kind) {
  if (!width || !height)
    return cudaSuccess;
  size_t dspan, sspan;
  if (!pitchedSpan(width, dpitch, height, dspan) || !pitchedSpan(width, spitch, height, sspan))
    return cudaErrorInvalidValue;
  if (cudaError_t e = checkCopy(ctx, dst, src, 1, kind)) // (the direction and null pointers)
    return e;
  return copyRangesOk(ctx, kind, dst, dspan, src, sspan) ? cudaSuccess : cudaErrorInvalidValue;
}

/// The same for a 2D memset of device memory.
cudaError_t checkMemset2D(Context &ctx, void *p, size_t pitch, size_t width, size_t height) {
  size_t span;
  if (!width || !height)
    return cudaSuccess;
  if (!pitchedSpan(width, pitch, height, span) || !deviceRange(ctx, p, span))
    return cudaErrorInvalidValue;
  return cudaSuccess;
}

} // namespace ptxsim::runtime

namespace {

cudaError_t doCopy(Context &ctx, void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
  cudaError_t e = checkCopy(ctx, dst, src, count, kind);
  if (e == cudaSuccess && count) {
    std::memmove(dst, src, count);
    if (kind == cudaMemcpyDefault) { // the direction from the pointers (the static runtime's
      // cudaMemcpyToSymbol reaches here through cuMemcpy, the shared one with HostToDevice)
      const auto &m = ctx.engine().memory();
      bool d = m.inArena(uint64_t(dst)), s = m.inArena(uint64_t(src));
      kind = d == s ? (d ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToHost)
                    : (d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
    }
    if (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToHost)
      ctx.noteCopy(count, kind == cudaMemcpyHostToDevice ? dst : nullptr);
  }
  return e;
}

/// Queues a checked copy between arena pointers on stream `s`.
cudaError_t queueCopy(Context &ctx, void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                      cudaStream_t s) {
  if (kind == cudaMemcpyDefault) { // the direction from the pointers' kinds
    const auto &m = ctx.engine().memory();
    auto isDevice = [&](const void *p) {
      const Allocation *a = m.find(addr(p));
      return a && a->kind == AllocKind::Device;
    };
    bool d = isDevice(dst), sd = isDevice(src);
    kind = d == sd ? (d ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToHost)
                   : (d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
  }
  Work *w = ctx.newWork();
  w->kind = Work::Kind::Copy;
  w->dst = dst;
  w->src = src;
  w->count = count;
  w->copyKind = kind;
  ctx.submit(w, s);
  return cudaSuccess;
}

/// Queues a checked memset of device memory on stream `s`.
cudaError_t queueMemset(Context &ctx, void *p, int value, size_t count, cudaStream_t s) {
  if (count == 0)
    return cudaSuccess;
  if (!deviceRange(ctx, p, count))
    return cudaErrorInvalidValue;
  Work *w = ctx.newWork();
  w->kind = Work::Kind::Memset;
  w->dst = p;
  w->count = count;
  w->value = value;
  ctx.submit(w, s);
  return cudaSuccess;
}

cudaError_t symbolRange(Context &ctx, const void *symbol, size_t count, size_t offset,
                        char **where) {
  VarEntry *v = symbol ? ctx.findVar(symbol) : nullptr;
  if (!v || !v->symbol)
    return cudaErrorInvalidSymbol;
  if (offset > v->symbol->size || count > v->symbol->size - offset)
    return cudaErrorInvalidValue;
  *where = static_cast<char *>(DeviceMemory::host(v->symbol->addr)) + offset;
  return cudaSuccess;
}

cudaError_t allocate(Context &ctx, void **ptr, size_t size, AllocKind kind) {
  if (!ptr)
    return cudaErrorInvalidValue;
  if (size == 0) {
    *ptr = nullptr;
    return cudaSuccess;
  }
  uint64_t a = ctx.engine().memory().allocate(size, kind);
  if (!a) {
    *ptr = nullptr;
    return cudaErrorMemoryAllocation;
  }
  *ptr = DeviceMemory::host(a);
  return cudaSuccess;
}

cudaError_t release(Context &ctx, void *ptr, bool host) {
  if (!ptr)
    return cudaSuccess;
  DeviceMemory &mem = ctx.engine().memory();
  const Allocation *a = mem.find(addr(ptr));
  if (!a || a->base != addr(ptr))
    return cudaErrorInvalidValue;
  bool isHost = a->kind == AllocKind::Host;
  bool isDevice = a->kind == AllocKind::Device || a->kind == AllocKind::Managed;
  if (host ? !isHost : !isDevice)
    return cudaErrorInvalidValue;
  mem.release(addr(ptr));
  return cudaSuccess;
}

StreamObj *stream(cudaStream_t s) { return reinterpret_cast<StreamObj *>(s); }



EventObj *event(cudaEvent_t e) { return reinterpret_cast<EventObj *>(e); }


} // namespace

bool ptxsim::runtime::validAccessPolicyWindow(const cudaAccessPolicyWindow &w) {
  auto known = [](cudaAccessProperty a) {
    return a == cudaAccessPropertyNormal || a == cudaAccessPropertyStreaming ||
           a == cudaAccessPropertyPersisting;
  };
  // the hit property is not checked: an H200 takes an unknown one (7)
  return w.num_bytes <= size_t(kMaxAccessPolicyWindowBytes) && w.hitRatio >= 0.0f &&
         w.hitRatio <= 1.0f && known(w.missProp) && w.missProp != cudaAccessPropertyPersisting;
}

// --- device -----------------------------------------------------------------------------------

PTXSIM_API cudaError_t cudaGetDeviceCount(int *count) {
  if (!count)
    return ret(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : ret(cudaErrorInvalidDevice);
}

PTXSIM_API cudaError_t cudaGetDevice(int *device) {
  if (!device)
    return ret(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaInitDevice(int device, unsigned int, unsigned int) {
  return device == 0 ? cudaSuccess : ret(cudaErrorInvalidDevice);
}

PTXSIM_API cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  constexpr unsigned known = cudaDeviceScheduleMask | cudaDeviceMapHost |
                             cudaDeviceLmemResizeToMax | cudaDeviceSyncMemops;
  unsigned sched = flags & cudaDeviceScheduleMask;
  if ((flags & ~known) || (sched != cudaDeviceScheduleAuto && sched != cudaDeviceScheduleSpin &&
                           sched != cudaDeviceScheduleYield &&
                           sched != cudaDeviceScheduleBlockingSync))
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_CHECKED;
  ctx.deviceFlags = flags; // recorded only: how a host thread waits changes no result
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGetDeviceFlags(unsigned int *flags) {
  if (!flags)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_ASYNC_CHECKED;
  *flags = ctx.deviceFlags | cudaDeviceMapHost; // host memory is always mappable
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device) {
  if (!prop)
    return ret(cudaErrorInvalidValue);
  if (device != 0)
    return ret(cudaErrorInvalidDevice);
  PTXSIM_LOCK_ASYNC;
  fillProps(ctx.deviceView(), *prop);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device) {
  if (!value)
    return ret(cudaErrorInvalidValue);
  if (device != 0)
    return ret(cudaErrorInvalidDevice);
  PTXSIM_LOCK_ASYNC;
  *value = deviceAttribute(ctx.deviceView(), attr);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaDeviceSynchronize() {
  PTXSIM_LOCK; // waits for every queued work
  return ret(ctx.syncError());
}

// The thread's last error survives the reset, as NVIDIA's runtime keeps it (its static build,
// which runs its own cudaDeviceReset over ptxsim's libcuda.so.1, returns a failure recorded before
// the reset from the first cudaGetLastError after it; so does an H100). After a kernel fault the
// device stays unusable (Context::reset).
PTXSIM_API cudaError_t cudaDeviceReset() {
  PTXSIM_LOCK;
  ctx.reset();
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaRuntimeGetVersion(int *v) {
  if (!v)
    return ret(cudaErrorInvalidValue);
  *v = CUDART_VERSION;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaDriverGetVersion(int *v) {
  if (!v)
    return ret(cudaErrorInvalidValue);
  *v = CUDART_VERSION;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
  PTXSIM_LOCK_CHECKED;
  switch (limit) {
  case cudaLimitStackSize: {
    // CUDA reserves the stack of every thread that can be resident at once: a limit whose
    // reservation does not fit in the device's free memory is refused with cudaErrorInvalidValue
    // and the old limit stays (an H200 with CUDA 13 refuses 1 MiB and more so:
    // tools/hw/data/h200-2026-11-28/probe_s28.txt).
    cudaDeviceProp p;
    fillProps(ctx.deviceView(), p);
    DeviceMemory &mem = ctx.engine().memory();
    uint64_t threads = uint64_t(p.multiProcessorCount) * uint64_t(p.maxThreadsPerMultiProcessor);
    uint64_t freeBytes = mem.capacity() - std::min(mem.capacity(), mem.bytesInUse());
    if (value > freeBytes || (threads && value > freeBytes / threads))
      return ret(cudaErrorInvalidValue);
    ctx.engine().setStackBytes(value);
    return cudaSuccess;
  }
  case cudaLimitMallocHeapSize:
    ctx.engine().setHeapBytes(value);
    return cudaSuccess;
  case cudaLimitPrintfFifoSize:
    ctx.printfFifoBytes = value;
    return cudaSuccess;
  case cudaLimitDevRuntimePendingLaunchCount:
    ctx.engine().setPendingLaunchLimit(value);
    return cudaSuccess;
  case cudaLimitPersistingL2CacheSize: {
    // A set-aside larger than the device allows is refused (an H100 answers
    // cudaErrorInvalidValue) and the old one stays; it is a cache hint, which the functional
    // model ignores.
    cudaDeviceProp p;
    fillProps(ctx.deviceView(), p);
    if (value > size_t(p.persistingL2CacheMaxSize))
      return ret(cudaErrorInvalidValue);
    // the set-aside is whole sixteenths of the L2, rounded up (an H200 reads back 3932160 bytes,
    // 1/16 of its 60 MiB L2, after a set of 1)
    size_t step = std::max<size_t>(size_t(p.l2CacheSize) / 16, 1);
    ctx.persistingL2Bytes = std::min((value + step - 1) / step * step,
                                     size_t(p.persistingL2CacheMaxSize));
    return cudaSuccess;
  }
  case cudaLimitDevRuntimeSyncDepth:
  case cudaLimitMaxL2FetchGranularity:
    return cudaSuccess;
  default:
    // an enumerator the runtime does not know (an H200 with CUDA 13 answers InvalidValue, not
    // UnsupportedLimit: tools/hw/data/h200-2026-11-26b)
    return ret(cudaErrorInvalidValue);
  }
}

PTXSIM_API cudaError_t cudaDeviceGetLimit(size_t *value, cudaLimit limit) {
  if (!value)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_CHECKED;
  const auto &cfg = ctx.engine().config();
  switch (limit) {
  case cudaLimitStackSize: *value = cfg.stackBytes; return cudaSuccess;
  case cudaLimitMallocHeapSize: *value = cfg.heapBytes; return cudaSuccess;
  case cudaLimitPrintfFifoSize: *value = ctx.printfFifoBytes; return cudaSuccess;
  case cudaLimitDevRuntimeSyncDepth: *value = 2; return cudaSuccess;
  case cudaLimitDevRuntimePendingLaunchCount:
    *value = ctx.engine().pendingLaunchLimit();
    return cudaSuccess;
  case cudaLimitMaxL2FetchGranularity: *value = 64; return cudaSuccess;
  case cudaLimitPersistingL2CacheSize:
    *value = ctx.persistingL2Bytes != Context::kDefaultPersistingL2 ? ctx.persistingL2Bytes
                                                                     : defaultPersistingL2(ctx.deviceView());
    return cudaSuccess;
  default: return ret(cudaErrorInvalidValue); // as for an unknown limit in the set
  }
}

PTXSIM_API cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
PTXSIM_API cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache *c) {
  if (!c)
    return ret(cudaErrorInvalidValue);
  *c = cudaFuncCachePreferNone;
  return cudaSuccess;
}
PTXSIM_API cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) { return cudaSuccess; }

// --- errors -----------------------------------------------------------------------------------

// The last error is the thread's record of the last failed call, nothing more: a sticky kernel
// fault reaches it only through a call that returned the fault, and reading it clears it although
// the context stays faulted (on an H100, tools/hw/data/h100-2026-11-26/sticky_probe.txt: the first
// cudaGetLastError after the fault returns it, the second cudaSuccess, the next synchronising call
// the fault again). Right after the launch of a kernel that faults it is cudaSuccess, as on a GPU,
// where the fault happens after the launch call returned.
PTXSIM_API cudaError_t cudaGetLastError() {
  cudaError_t e = lastError();
  lastError() = cudaSuccess;
  return e;
}

PTXSIM_API cudaError_t cudaPeekAtLastError() { return lastError(); }

// --- memory -----------------------------------------------------------------------------------

// Allocations wait for queued work: a launch reserves its local memory and parameters in the
// same arena when it runs, so allocating between queued launches would move their addresses
// (and timing mode's cycles) with host timing.
PTXSIM_API cudaError_t cudaMalloc(void **devPtr, size_t size) {
  PTXSIM_LOCK_CHECKED;
  return ret(allocate(ctx, devPtr, size, AllocKind::Device));
}

PTXSIM_API cudaError_t cudaFree(void *devPtr) {
  PTXSIM_LOCK_CHECKED;
  if (auto r =
          graphHooks().graphMemRelease(devPtr)) // memory of a graph allocation node (GraphHooks.h)
    return ret(*r);
  return ret(release(ctx, devPtr, false));
}

PTXSIM_API cudaError_t cudaMallocHost(void **ptr, size_t size) {
  PTXSIM_LOCK_CHECKED;
  return ret(allocate(ctx, ptr, size, AllocKind::Host));
}

PTXSIM_API cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags) {
  if (flags & ~(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_CHECKED;
  return ret(allocate(ctx, ptr, size, AllocKind::Host));
}

PTXSIM_API cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags) {
  if (!pDevice || flags)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_ASYNC_CHECKED;
  const Allocation *a = ctx.engine().memory().find(addr(pHost));
  if (!a || a->kind != AllocKind::Host)
    return ret(cudaErrorInvalidValue);
  *pDevice = pHost;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaFreeHost(void *ptr) {
  PTXSIM_LOCK_CHECKED;
  return ret(release(ctx, ptr, true));
}

PTXSIM_API cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags) {
  if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_CHECKED;
  if (size == 0)
    return ret(cudaErrorInvalidValue);
  return ret(allocate(ctx, devPtr, size, AllocKind::Managed));
}

PTXSIM_API cudaError_t cudaMemGetInfo(size_t *free, size_t *total) {
  PTXSIM_LOCK_CHECKED;
  DeviceMemory &mem = ctx.engine().memory();
  if (free)
    *free = mem.capacity() - std::min(mem.capacity(), mem.bytesInUse());
  if (total)
    *total = mem.capacity();
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
  PTXSIM_LOCK_CHECKED;
  return ret(doCopy(ctx, dst, src, count, kind));
}

PTXSIM_API cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                       cudaMemcpyKind kind, cudaStream_t s) {
  PTXSIM_LOCK_ASYNC_CHECKED;
  if (!ctx.validStream(s))
    return ret(cudaErrorInvalidResourceHandle);
  if (auto captured =
          graphHooks().captureMemcpy(s, dst, src, count, kind)) // stream capture (GraphHooks.h)
    return ret(*captured);
  // Pageable host memory (anything outside the arena) is copied at the call, as CUDA does:
  // after the work queued before it (host-to-device: staged before the call returns;
  // device-to-host: the call returns once the copy is done). Between device, pinned and
  // managed memory the copy is queued on the stream.
  const DeviceMemory &mem = ctx.engine().memory();
  if (!count || !dst || !src || !mem.inArena(addr(dst)) || !mem.inArena(addr(src))) {
    ctx.drain(lock_);
    if (ctx.sticky())
      return ret(ctx.sticky());
    return ret(doCopy(ctx, dst, src, count, kind));
  }
  if (cudaError_t e = checkCopy(ctx, dst, src, count, kind))
    return ret(e);
  return ret(queueCopy(ctx, dst, src, count, kind, s));
}

PTXSIM_API cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                    size_t width, size_t height, cudaMemcpyKind kind) {
  PTXSIM_LOCK_CHECKED;
  // a row wider than a pitch: cudaErrorInvalidValue for one row, cudaErrorInvalidPitchValue for
  // more (as an H200 answers)
  if (width > dpitch || width > spitch)
    return ret(height > 1 ? cudaErrorInvalidPitchValue : cudaErrorInvalidValue);
  if (cudaError_t e = checkCopy2D(ctx, dst, dpitch, src, spitch, width, height, kind))
    return ret(e);
  for (size_t r = 0; r < height; ++r) {
    cudaError_t e = doCopy(ctx, static_cast<char *>(dst) + r * dpitch,
                           static_cast<const char *>(src) + r * spitch, width, kind);
    if (e)
      return ret(e);
  }
  return cudaSuccess;
}

// cudaMemset of device memory is asynchronous with respect to the host (on the legacy stream)
PTXSIM_API cudaError_t cudaMemset(void *devPtr, int value, size_t count) {
  PTXSIM_LOCK_ASYNC_CHECKED;
  return ret(queueMemset(ctx, devPtr, value, count, nullptr));
}

PTXSIM_API cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t s) {
  PTXSIM_LOCK_ASYNC_CHECKED;
  if (!ctx.validStream(s))
    return ret(cudaErrorInvalidResourceHandle);
  if (auto captured =
          graphHooks().captureMemset(s, devPtr, value, count)) // stream capture (GraphHooks.h)
    return ret(*captured);
  return ret(queueMemset(ctx, devPtr, value, count, s));
}

PTXSIM_API cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, cudaMemLocation,
                                            unsigned int, cudaStream_t s) {
  PTXSIM_LOCK_ASYNC_CHECKED;
  if (!ctx.validStream(s))
    return ret(cudaErrorInvalidResourceHandle);
  const Allocation *a = ctx.engine().memory().find(addr(devPtr));
  if (!a || a->kind != AllocKind::Managed || !deviceRange(ctx, devPtr, count))
    return ret(cudaErrorInvalidValue);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaMemAdvise(const void *, size_t, cudaMemoryAdvise, cudaMemLocation) {
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *attr, const void *ptr) {
  if (!attr)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_CHECKED;
  std::memset(attr, 0, sizeof *attr);
  attr->device = 0;
  const Allocation *a = ctx.engine().memory().find(addr(ptr));
  if (!a) {
    attr->type = cudaMemoryTypeUnregistered;
    attr->device = -2;
    return cudaSuccess;
  }
  void *p = const_cast<void *>(ptr);
  switch (a->kind) {
  case AllocKind::Host:
    attr->type = cudaMemoryTypeHost;
    attr->devicePointer = attr->hostPointer = p;
    break;
  case AllocKind::Managed:
    attr->type = cudaMemoryTypeManaged;
    attr->devicePointer = attr->hostPointer = p;
    break;
  default:
    attr->type = cudaMemoryTypeDevice;
    attr->devicePointer = p;
    break;
  }
  return cudaSuccess;
}

// --- symbols ----------------------------------------------------------------------------------

PTXSIM_API cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                                          size_t offset, cudaMemcpyKind kind) {
  PTXSIM_LOCK_CHECKED;
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault)
    return ret(cudaErrorInvalidMemcpyDirection);
  char *where;
  if (cudaError_t e = symbolRange(ctx, symbol, count, offset, &where))
    return ret(e);
  return ret(doCopy(ctx, where, src, count, cudaMemcpyDefault));
}

PTXSIM_API cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
                                            size_t offset, cudaMemcpyKind kind) {
  PTXSIM_LOCK_CHECKED;
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault)
    return ret(cudaErrorInvalidMemcpyDirection);
  char *where;
  if (cudaError_t e = symbolRange(ctx, symbol, count, offset, &where))
    return ret(e);
  return ret(doCopy(ctx, dst, where, count, cudaMemcpyDefault));
}

PTXSIM_API cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                               size_t offset, cudaMemcpyKind kind,
                                               cudaStream_t s) {
  if (auto captured =
          graphHooks().captureSymbolCopy(s, symbol, const_cast<void *>(src), count, offset, kind,
                                         true)) // stream capture (GraphHooks.h)
    return ret(*captured);
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}

PTXSIM_API cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                                 size_t offset, cudaMemcpyKind kind,
                                                 cudaStream_t s) {
  if (auto captured = graphHooks().captureSymbolCopy(s, symbol, dst, count, offset, kind, false))
    return ret(*captured); // stream capture (GraphHooks.h)
  return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}

PTXSIM_API cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol) {
  if (!devPtr)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_CHECKED;
  char *where;
  if (cudaError_t e = symbolRange(ctx, symbol, 0, 0, &where))
    return ret(e);
  *devPtr = where;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol) {
  if (!size)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_CHECKED;
  VarEntry *v = symbol ? ctx.findVar(symbol) : nullptr;
  if (!v || !v->symbol)
    return ret(cudaErrorInvalidSymbol);
  *size = v->symbol->size;
  return cudaSuccess;
}

// --- kernels ----------------------------------------------------------------------------------

PTXSIM_API cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
                                        size_t sharedMem, cudaStream_t s) {
  PTXSIM_LOCK_ASYNC;
  KernelEntry *k = ctx.findKernel(func);
  if (!k && !ctx.sticky())
    return ret(Context::unknownFunction(func));
  return ret(ctx.launch(k, grid, block, args, sharedMem, s, false));
}

PTXSIM_API cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block,
                                                   void **args, size_t sharedMem,
                                                   cudaStream_t s) {
  PTXSIM_LOCK_ASYNC;
  KernelEntry *k = ctx.findKernel(func);
  if (!k && !ctx.sticky())
    return ret(Context::unknownFunction(func));
  return ret(ctx.launch(k, grid, block, args, sharedMem, s, true));
}

PTXSIM_API cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                           void **args) {
  if (!config || (config->numAttrs && !config->attrs))
    return ret(cudaErrorInvalidValue);
  bool cooperative = false;
  std::vector<cudaEvent_t> recordAfter; // programmatic and completion events
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const cudaLaunchAttribute &a = config->attrs[i];
    switch (a.id) {
    case cudaLaunchAttributeAccessPolicyWindow:
      if (!validAccessPolicyWindow(a.val.accessPolicyWindow))
        return ret(cudaErrorInvalidValue);
      break;
    case cudaLaunchAttributeIgnore:
    case cudaLaunchAttributeSynchronizationPolicy:
    case cudaLaunchAttributeClusterSchedulingPolicyPreference:
    case cudaLaunchAttributePriority:
    case cudaLaunchAttributeMemSyncDomainMap:
    case cudaLaunchAttributeMemSyncDomain:
    case cudaLaunchAttributePreferredClusterDimension:
    // a kernel runs to completion before the next stream work starts, which satisfies a
    // programmatic dependency (griddepcontrol.wait returns at once)
    case cudaLaunchAttributeProgrammaticStreamSerialization:
      break;
    case cudaLaunchAttributeCooperative:
      cooperative = a.val.cooperative != 0;
      break;
    case cudaLaunchAttributeClusterDimension:
      if (a.val.clusterDim.x * a.val.clusterDim.y * a.val.clusterDim.z != 1) {
        std::fprintf(stderr, "ptxsim: thread block clusters of more than one block are not "
                             "supported (cudaLaunchAttributeClusterDimension)\n");
        return ret(cudaErrorNotSupported);
      }
      break;
    case cudaLaunchAttributeProgrammaticEvent:
      recordAfter.push_back(a.val.programmaticEvent.event);
      break;
    case cudaLaunchAttributeLaunchCompletionEvent:
      recordAfter.push_back(a.val.launchCompletionEvent.event);
      break;
    default:
      return ret(cudaErrorInvalidValue);
    }
  }
  {
    PTXSIM_LOCK_ASYNC;
    KernelEntry *k = ctx.findKernel(func);
    if (!k && !ctx.sticky())
      return ret(Context::unknownFunction(func));
    if (cudaError_t e = ctx.launch(k, config->gridDim, config->blockDim, args,
                                   config->dynamicSmemBytes, config->stream, cooperative))
      return ret(e);
  }
  for (cudaEvent_t e : recordAfter)
    if (cudaError_t r = cudaEventRecord(e, config->stream))
      return r;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func,
                                                void **args) {
  if (!config)
    return ret(cudaErrorInvalidValue);
  cudaLaunchConfig_t c = *config;
  if (!c.stream)
    c.stream = cudaStreamPerThread;
  return cudaLaunchKernelExC(&c, func, args);
}

PTXSIM_API cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, const void *func) {
  PTXSIM_LOCK_ASYNC;
  if (!kernelPtr)
    return ret(cudaErrorInvalidValue);
  KernelEntry *k = ctx.findKernel(func);
  *kernelPtr = reinterpret_cast<cudaKernel_t>(k);
  return k ? cudaSuccess : ret(cudaErrorInvalidDeviceFunction);
}

/// The kernel registered for host function `func`, with its compiled code: the error CUDA
/// returns otherwise (an unknown function as Context::unknownFunction says, one without code
/// cudaErrorInvalidDeviceFunction). With the context locked.
static cudaError_t compiledKernel(Context &ctx, const void *func, KernelEntry *&k) {
  k = ctx.findKernel(func);
  if (!k)
    return Context::unknownFunction(func);
  return k->kernel ? cudaSuccess : cudaErrorInvalidDeviceFunction;
}

PTXSIM_API cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func) {
  if (!attr)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_ASYNC_CHECKED;
  KernelEntry *k = nullptr;
  if (cudaError_t e = compiledKernel(ctx, func, k))
    return ret(e);
  const auto &kern = *k->kernel;
  const auto &cfg = ctx.engine().config();
  std::memset(attr, 0, sizeof *attr);
  attr->sharedSizeBytes = kern.staticShared;
  // the SASS's frame when the program carries SASS (ptxas may keep a .local array in registers,
  // or spill), else the PTX's local declarations
  attr->localSizeBytes = kern.hwLocalBytes >= 0 ? size_t(kern.hwLocalBytes) : kern.localBytes;
  attr->constSizeBytes = kern.constBytes;
  attr->maxThreadsPerBlock = int(kern.maxThreads ? kern.maxThreads : cfg.maxThreadsPerBlock);
  attr->numRegs = int(kern.hwRegs); // ptxas's count from the SASS, else a PTX estimate
  // Like a GPU JIT-compiling the program's PTX: the PTX's virtual architecture (CUB picks its
  // tuning policy by it and refuses architectures the program was not compiled for), and the
  // device's own architecture for the binary it runs.
  attr->binaryVersion = kComputeMajor * 10 + kComputeMinor;
  attr->ptxVersion = k->fatbin && k->fatbin->ptxArch ? int(k->fatbin->ptxArch) : attr->binaryVersion;
  attr->maxDynamicSharedSizeBytes =
      k->maxDynamicShared >= 0 ? k->maxDynamicShared
                               : int(cfg.maxSharedPerBlock - std::min<uint64_t>(
                                                                 kern.staticShared,
                                                                 cfg.maxSharedPerBlock));
  attr->preferredShmemCarveout = k->carveout;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value) {
  PTXSIM_LOCK_ASYNC_CHECKED;
  KernelEntry *k = nullptr;
  if (cudaError_t e = compiledKernel(ctx, func, k))
    return ret(e);
  switch (attr) {
  case cudaFuncAttributeMaxDynamicSharedMemorySize: {
    const auto &cfg = ctx.engine().config();
    if (value < 0 || uint64_t(value) + k->kernel->staticShared > cfg.maxSharedPerBlockOptin)
      return ret(cudaErrorInvalidValue);
    k->maxDynamicShared = value;
    return cudaSuccess;
  }
  case cudaFuncAttributePreferredSharedMemoryCarveout:
    if (value < -1 || value > 100)
      return ret(cudaErrorInvalidValue);
    k->carveout = value; // a hint: reported back, and the timing model's adaptive carve-out takes it
    return cudaSuccess;
  case cudaFuncAttributeClusterDimMustBeSet:
  case cudaFuncAttributeRequiredClusterWidth:
  case cudaFuncAttributeRequiredClusterHeight:
  case cudaFuncAttributeRequiredClusterDepth:
  case cudaFuncAttributeNonPortableClusterSizeAllowed:
  case cudaFuncAttributeClusterSchedulingPolicyPreference:
    return cudaSuccess;
  default:
    return ret(cudaErrorInvalidValue);
  }
}

PTXSIM_API cudaError_t cudaFuncSetCacheConfig(const void *func, cudaFuncCache) {
  PTXSIM_LOCK_ASYNC_CHECKED;
  return ctx.findKernel(func) ? cudaSuccess : ret(Context::unknownFunction(func));
}

PTXSIM_API cudaError_t cudaFuncSetSharedMemConfig(const void *func, cudaSharedMemConfig config) {
  PTXSIM_LOCK_ASYNC_CHECKED;
  if (!ctx.findKernel(func))
    return ret(Context::unknownFunction(func));
  // a hint without effect since Volta; only the three named settings are accepted (an H200)
  if (unsigned(config) > unsigned(cudaSharedMemBankSizeEightByte))
    return ret(cudaErrorInvalidValue);
  return cudaSuccess;
}

/// The size the hardware gives a shared-memory carve-out of `percent` of `perSm` bytes: rounded
/// up to the next size an sm_90 SM offers (0, 8, 16, 32, 64, 100, 132, 164, 196 or 228 KiB).
static size_t carveoutBytes(int percent, size_t perSm) {
  size_t want = size_t(percent) * perSm / 100;
  for (size_t kib : {0, 8, 16, 32, 64, 100, 132, 164, 196, 228})
    if (want <= kib * 1024)
      return kib * 1024;
  return perSm;
}

PTXSIM_API cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                                 const void *func, int numBlocks,
                                                                 int blockSize) {
  PTXSIM_LOCK_ASYNC_CHECKED;
  KernelEntry *k = nullptr;
  if (cudaError_t e = compiledKernel(ctx, func, k))
    return ret(e);
  if (!dynamicSmemSize)
    return ret(cudaErrorInvalidValue);
  // CUDA's occupancy calculator (cuda_occupancy.h, cudaOccAvailableDynamicSMemPerBlock), whose
  // answers an H200 gives (tools/hw/probes/occupancy_pitch_limits.cu): numBlocks blocks of
  // blockSize threads must fit on an SM without dynamic shared memory; one block may use the
  // per-block limit (the opt-in one once the kernel's dynamic limit was raised past the default),
  // more share the carve-out (all of the SM's shared memory by default), in 128-byte units,
  // less the static shared memory, at most the kernel's dynamic limit. The 1 KiB the driver
  // reserves per block is part of the limit, not taken off.
  const auto &kern = *k->kernel;
  const auto &cfg = ctx.engine().config();
  const uint32_t maxThreads = kern.maxThreads ? kern.maxThreads : cfg.maxThreadsPerBlock;
  if (numBlocks <= 0 || blockSize <= 0 || uint32_t(blockSize) > maxThreads ||
      ctx.maxBlocksPerSm(*k, blockSize, 0) < numBlocks)
    return ret(cudaErrorInvalidValue);
  cudaDeviceProp p;
  fillProps(ctx.deviceView(), p);
  const size_t staticShared = kern.staticShared;
  const size_t maxDyn = k->maxDynamicShared >= 0
                            ? size_t(k->maxDynamicShared)
                            : p.sharedMemPerBlock - std::min(staticShared, p.sharedMemPerBlock);
  const bool optin = staticShared + maxDyn > p.sharedMemPerBlock;
  const size_t limit =
      (optin ? p.sharedMemPerBlockOptin : p.sharedMemPerBlock) + p.reservedSharedMemPerBlock;
  size_t perSm = limit;
  if (numBlocks > 1) {
    perSm = k->carveout >= 0 ? carveoutBytes(k->carveout, p.sharedMemPerMultiprocessor)
                             : p.sharedMemPerMultiprocessor;
    if (!perSm)
      perSm = 8 * 1024; // no preference at all is the smallest carve-out
  }
  size_t avail = std::min(perSm / size_t(numBlocks) / 128 * 128, limit);
  avail = avail > staticShared ? avail - staticShared : 0;
  *dynamicSmemSize = std::min(avail, maxDyn);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags) {
  if (!numBlocks || blockSize <= 0)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_ASYNC_CHECKED;
  KernelEntry *k = nullptr;
  if (cudaError_t e = compiledKernel(ctx, func, k))
    return ret(e);
  *numBlocks = ctx.maxBlocksPerSm(*k, blockSize, dynamicSMemSize);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
                                                                     const void *func,
                                                                     int blockSize,
                                                                     size_t dynamicSMemSize) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize,
                                                                dynamicSMemSize, 0);
}

// --- streams ----------------------------------------------------------------------------------

// Stream priorities: 0 is the least urgent, kGreatestPriority the most (as on NVIDIA GPUs).
constexpr int kLeastPriority = 0, kGreatestPriority = -5;
// Stream ids: the legacy stream is 1, the per-thread stream 2, created streams count from 3.
constexpr unsigned long long kLegacyStreamId = 1, kPerThreadStreamId = 2;
static std::atomic<unsigned long long> g_nextStreamId{3};

PTXSIM_API cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned int flags,
                                                    int priority) {
  if (!s || (flags & ~cudaStreamNonBlocking))
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_ASYNC_CHECKED;
  // out-of-range priorities are clamped to the nearest valid one, as in CUDA
  priority = std::min(kLeastPriority, std::max(kGreatestPriority, priority));
  auto *obj = new StreamObj{flags, priority, g_nextStreamId++, StreamAttrs()};
  ctx.streams.insert(obj);
  *s = reinterpret_cast<cudaStream_t>(obj);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags) {
  return cudaStreamCreateWithPriority(s, flags, 0);
}

PTXSIM_API cudaError_t cudaStreamCreate(cudaStream_t *s) {
  return cudaStreamCreateWithPriority(s, cudaStreamDefault, 0);
}

PTXSIM_API cudaError_t cudaStreamDestroy(cudaStream_t s) {
  PTXSIM_LOCK_ASYNC_CHECKED;
  if (!ctx.streams.erase(stream(s)))
    return ret(cudaErrorInvalidResourceHandle);
  graphHooks().captureStreamDestroyed(s); // stream capture (GraphHooks.h)
  delete stream(s);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  uint64_t tail;
  Context *c;
  {
    PTXSIM_LOCK_ASYNC_CHECKED;
    if (auto captured =
            graphHooks().captureSyncCall(s)) // a capturing stream cannot synchronize (GraphHooks.h)
      return ret(*captured);
    if (!ctx.validStream(s))
      return ret(cudaErrorInvalidResourceHandle);
    tail = ctx.streamTail(s);
    c = &ctx;
  }
  c->waitFor(tail); // without the lock: other threads go on using the runtime
  return ret(c->syncError());
}

// cudaErrorNotReady is an answer, not a failure: it is not recorded as the last error
PTXSIM_API cudaError_t cudaStreamQuery(cudaStream_t s) {
  PTXSIM_LOCK_ASYNC_CHECKED;
  if (auto captured =
          graphHooks().captureSyncCall(s)) // a capturing stream cannot synchronize (GraphHooks.h)
    return ret(*captured);
  if (!ctx.validStream(s))
    return ret(cudaErrorInvalidResourceHandle);
  return ctx.done(ctx.streamTail(s)) ? cudaSuccess : cudaErrorNotReady;
}

PTXSIM_API cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int flags) {
  PTXSIM_LOCK_ASYNC_CHECKED;
  if (!ctx.validStream(s) || !ctx.events.count(event(e)))
    return ret(cudaErrorInvalidResourceHandle);
  if (flags & ~unsigned(cudaEventWaitExternal))
    return ret(cudaErrorInvalidValue);
  if (flags & cudaEventWaitExternal)
    if (auto captured =
            graphHooks().captureEventNode(s, e, false)) // an event wait node (GraphHooks.h)
      return ret(*captured);
  if (auto captured =
          graphHooks().captureStreamWaitEvent(s, e)) // stream capture fork/join (GraphHooks.h)
    return ret(*captured);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned int *flags) {
  if (!flags)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_ASYNC_CHECKED;
  if (!ctx.validStream(s))
    return ret(cudaErrorInvalidResourceHandle);
  *flags = ctx.streams.count(stream(s)) ? stream(s)->flags : 0;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaStreamGetPriority(cudaStream_t s, int *priority) {
  if (!priority)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_ASYNC_CHECKED;
  if (!ctx.validStream(s))
    return ret(cudaErrorInvalidResourceHandle);
  *priority = ctx.streams.count(stream(s)) ? stream(s)->priority : 0;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest) {
  if (least)
    *least = kLeastPriority;
  if (greatest)
    *greatest = kGreatestPriority;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaStreamGetId(cudaStream_t s, unsigned long long *streamId) {
  if (!streamId)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_ASYNC_CHECKED;
  if (!ctx.validStream(s))
    return ret(cudaErrorInvalidResourceHandle);
  *streamId = s == nullptr || s == cudaStreamLegacy ? kLegacyStreamId
              : s == cudaStreamPerThread           ? kPerThreadStreamId
                                                   : stream(s)->id;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaStreamGetId_ptsz(cudaStream_t s, unsigned long long *streamId) {
  return cudaStreamGetId(s ? s : cudaStreamPerThread, streamId);
}

PTXSIM_API cudaError_t cudaStreamGetDevice(cudaStream_t s, int *device) {
  if (!device)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_ASYNC_CHECKED;
  if (!ctx.validStream(s))
    return ret(cudaErrorInvalidResourceHandle);
  *device = 0; // the one simulated device
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t s, int *device) {
  return cudaStreamGetDevice(s, device);
}

namespace {
/// The attributes of `s` (a valid stream); the default streams share one set.
StreamAttrs &streamAttrs(Context &ctx, cudaStream_t s) {
  return ctx.streams.count(stream(s)) ? stream(s)->attrs : ctx.defaultStreamAttrs;
}
} // namespace

PTXSIM_API cudaError_t cudaStreamSetAttribute(cudaStream_t s, cudaStreamAttrID attr,
                                              const cudaStreamAttrValue *value) {
  if (!value)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_ASYNC_CHECKED;
  if (!ctx.validStream(s))
    return ret(cudaErrorInvalidResourceHandle);
  StreamAttrs &a = streamAttrs(ctx, s);
  switch (attr) {
  case cudaStreamAttributeAccessPolicyWindow:
    if (!validAccessPolicyWindow(value->accessPolicyWindow))
      return ret(cudaErrorInvalidValue);
    a.accessPolicyWindow = value->accessPolicyWindow;
    return cudaSuccess;
  case cudaStreamAttributeSynchronizationPolicy:
    if (value->syncPolicy < cudaSyncPolicyAuto || value->syncPolicy > cudaSyncPolicyBlockingSync)
      return ret(cudaErrorInvalidValue);
    a.syncPolicy = value->syncPolicy;
    return cudaSuccess;
  case cudaStreamAttributeMemSyncDomainMap: {
    int domains = deviceAttribute(ctx.deviceView(), cudaDevAttrMemSyncDomainCount);
    if (value->memSyncDomainMap.default_ >= domains || value->memSyncDomainMap.remote >= domains)
      return ret(cudaErrorInvalidValue);
    a.memSyncDomainMap = value->memSyncDomainMap;
    return cudaSuccess;
  }
  case cudaStreamAttributeMemSyncDomain:
    if (value->memSyncDomain != cudaLaunchMemSyncDomainDefault &&
        value->memSyncDomain != cudaLaunchMemSyncDomainRemote)
      return ret(cudaErrorInvalidValue);
    a.memSyncDomain = value->memSyncDomain;
    return cudaSuccess;
  case cudaStreamAttributePriority:
    // as at creation, out-of-range priorities are clamped (the default streams keep 0)
    if (ctx.streams.count(stream(s)))
      stream(s)->priority = std::min(kLeastPriority, std::max(kGreatestPriority, value->priority));
    return cudaSuccess;
  default:
    return ret(cudaErrorInvalidValue);
  }
}

PTXSIM_API cudaError_t cudaStreamGetAttribute(cudaStream_t s, cudaStreamAttrID attr,
                                              cudaStreamAttrValue *value) {
  if (!value)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_ASYNC_CHECKED;
  if (!ctx.validStream(s))
    return ret(cudaErrorInvalidResourceHandle);
  const StreamAttrs &a = streamAttrs(ctx, s);
  switch (attr) {
  case cudaStreamAttributeAccessPolicyWindow:
    value->accessPolicyWindow = a.accessPolicyWindow;
    return cudaSuccess;
  case cudaStreamAttributeSynchronizationPolicy:
    value->syncPolicy = a.syncPolicy;
    return cudaSuccess;
  case cudaStreamAttributeMemSyncDomainMap:
    value->memSyncDomainMap = a.memSyncDomainMap;
    return cudaSuccess;
  case cudaStreamAttributeMemSyncDomain:
    value->memSyncDomain = a.memSyncDomain;
    return cudaSuccess;
  case cudaStreamAttributePriority:
    value->priority = ctx.streams.count(stream(s)) ? stream(s)->priority : 0;
    return cudaSuccess;
  default:
    return ret(cudaErrorInvalidValue);
  }
}

PTXSIM_API cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src) {
  PTXSIM_LOCK_ASYNC_CHECKED;
  if (!ctx.validStream(dst) || !ctx.validStream(src))
    return ret(cudaErrorInvalidResourceHandle);
  streamAttrs(ctx, dst) = streamAttrs(ctx, src);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t s, cudaStreamAttrID attr,
                                                   const cudaStreamAttrValue *value) {
  return cudaStreamSetAttribute(s ? s : cudaStreamPerThread, attr, value);
}
PTXSIM_API cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t s, cudaStreamAttrID attr,
                                                   cudaStreamAttrValue *value) {
  return cudaStreamGetAttribute(s ? s : cudaStreamPerThread, attr, value);
}
PTXSIM_API cudaError_t cudaStreamCopyAttributes_ptsz(cudaStream_t dst, cudaStream_t src) {
  return cudaStreamCopyAttributes(dst ? dst : cudaStreamPerThread, src ? src : cudaStreamPerThread);
}

/// Persisting lines return to normal: a cache-state reset, nothing to do functionally.
PTXSIM_API cudaError_t cudaCtxResetPersistingL2Cache() { return cudaSuccess; }

PTXSIM_API cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *userData) {
  {
    PTXSIM_LOCK_ASYNC_CHECKED;
    if (!ctx.validStream(s) || !fn)
      return ret(cudaErrorInvalidValue);
    if (auto captured =
            graphHooks().captureHostFunc(s, fn, userData)) // stream capture (GraphHooks.h)
      return ret(*captured);
    // run by the device executor when the stream reaches it, never on the caller's thread
    Work *w = ctx.newWork();
    w->kind = Work::Kind::HostFn;
    w->hostFn = fn;
    w->userData = userData;
    ctx.submit(w, s);
  }
  return cudaSuccess;
}

// --- events -----------------------------------------------------------------------------------

PTXSIM_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int flags) {
  if (!e || (flags & ~(cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess)))
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_ASYNC_CHECKED;
  auto *obj = new EventObj{};
  obj->flags = flags;
  ctx.events.insert(obj);
  *e = reinterpret_cast<cudaEvent_t>(obj);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaEventCreate(cudaEvent_t *e) {
  return cudaEventCreateWithFlags(e, cudaEventDefault);
}

PTXSIM_API cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  PTXSIM_LOCK_ASYNC_CHECKED;
  if (!ctx.events.count(event(e)) || !ctx.validStream(s))
    return ret(cudaErrorInvalidResourceHandle);
  if (auto captured = graphHooks().captureEventRecord(e, s)) // stream capture (GraphHooks.h)
    return ret(*captured);
  // the executor stamps the time (wall and simulated) when the stream reaches the record
  Work *w = ctx.newWork();
  w->kind = Work::Kind::EventRecord;
  w->event = event(e);
  event(e)->recorded = true;
  event(e)->recordSeq = ctx.submit(w, s);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned int flags) {
  if (flags & ~unsigned(cudaEventRecordExternal))
    return ret(cudaErrorInvalidValue);
  if (flags & cudaEventRecordExternal) {
    PTXSIM_LOCK_ASYNC_CHECKED;
    if (!ctx.events.count(event(e)) || !ctx.validStream(s))
      return ret(cudaErrorInvalidResourceHandle);
    if (auto captured =
            graphHooks().captureEventNode(s, e, true)) // an event record node (GraphHooks.h)
      return ret(*captured);
  }
  return cudaEventRecord(e, s);
}

PTXSIM_API cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  uint64_t seq;
  Context *c;
  {
    PTXSIM_LOCK_ASYNC_CHECKED;
    if (!ctx.events.count(event(e)))
      return ret(cudaErrorInvalidResourceHandle);
    seq = event(e)->recordSeq;
    c = &ctx;
  }
  c->waitFor(seq); // without the lock: other threads go on using the runtime
  return ret(c->syncError());
}

PTXSIM_API cudaError_t cudaEventQuery(cudaEvent_t e) {
  PTXSIM_LOCK_ASYNC_CHECKED;
  if (!ctx.events.count(event(e)))
    return ret(cudaErrorInvalidResourceHandle);
  return ctx.done(event(e)->recordSeq) ? cudaSuccess : cudaErrorNotReady;
}

PTXSIM_API cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
  if (!ms)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_ASYNC_CHECKED;
  if (!ctx.events.count(event(start)) || !ctx.events.count(event(end)))
    return ret(cudaErrorInvalidResourceHandle);
  EventObj *a = event(start), *b = event(end);
  if ((a->flags | b->flags) & cudaEventDisableTiming)
    return ret(cudaErrorInvalidResourceHandle);
  if (!a->recorded || !b->recorded)
    return ret(cudaErrorInvalidResourceHandle);
  if (!ctx.done(a->recordSeq) || !ctx.done(b->recordSeq))
    return cudaErrorNotReady; // a record the device has not reached yet: an answer, not
                              // recorded as the last error (as an H200 does)
  // timing mode: simulated time between the records (kernels and copies in between)
  *ms = ctx.timingMode() ? float((b->simSeconds - a->simSeconds) * 1e3)
                         : std::chrono::duration<float, std::milli>(b->when - a->when).count();
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaEventDestroy(cudaEvent_t e) {
  PTXSIM_LOCK_ASYNC_CHECKED;
  if (!ctx.events.count(event(e)))
    return ret(cudaErrorInvalidResourceHandle);
  if (!ctx.done(event(e)->recordSeq)) // a queued record still writes it
    ctx.drain(lock_);
  if (!ctx.events.erase(event(e)))
    return ret(cudaErrorInvalidResourceHandle);
  graphHooks().captureEventDestroyed(e); // stream capture (GraphHooks.h)
  delete event(e);
  return cudaSuccess;
}

// --- per-thread default stream variants (nvcc --default-stream per-thread) ---------------------

PTXSIM_API cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t n, cudaMemcpyKind k) {
  return cudaMemcpy(dst, src, n, k);
}
PTXSIM_API cudaError_t cudaMemset_ptds(void *p, int v, size_t n) { return cudaMemset(p, v, n); }
PTXSIM_API cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t n,
                                            cudaMemcpyKind k, cudaStream_t s) {
  return cudaMemcpyAsync(dst, src, n, k, s);
}
PTXSIM_API cudaError_t cudaMemsetAsync_ptsz(void *p, int v, size_t n, cudaStream_t s) {
  return cudaMemsetAsync(p, v, n, s);
}
PTXSIM_API cudaError_t cudaMemcpyToSymbol_ptds(const void *sym, const void *src, size_t n,
                                               size_t off, cudaMemcpyKind k) {
  return cudaMemcpyToSymbol(sym, src, n, off, k);
}
PTXSIM_API cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *sym, size_t n, size_t off,
                                                 cudaMemcpyKind k) {
  return cudaMemcpyFromSymbol(dst, sym, n, off, k);
}
PTXSIM_API cudaError_t cudaLaunchKernel_ptsz(const void *f, dim3 g, dim3 b, void **a, size_t sh,
                                             cudaStream_t s) {
  return cudaLaunchKernel(f, g, b, a, sh, s);
}
PTXSIM_API cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *f, dim3 g, dim3 b, void **a,
                                                        size_t sh, cudaStream_t s) {
  return cudaLaunchCooperativeKernel(f, g, b, a, sh, s);
}
PTXSIM_API cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t s) {
  return cudaStreamSynchronize(s ? s : cudaStreamPerThread);
}
PTXSIM_API cudaError_t cudaStreamQuery_ptsz(cudaStream_t s) {
  return cudaStreamQuery(s ? s : cudaStreamPerThread);
}
PTXSIM_API cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t s, cudaEvent_t e, unsigned int f) {
  return cudaStreamWaitEvent(s, e, f);
}
PTXSIM_API cudaError_t cudaEventRecord_ptsz(cudaEvent_t e, cudaStream_t s) {
  return cudaEventRecord(e, s);
}

// --- calls ptxsim does not implement (stubs in Unsupported.cpp) ------------------------------

namespace ptxsim::runtime {
int unsupportedCall(const char *name) {
  static auto *mu = new std::mutex();                        // never destroyed: calls may
  static auto *told = new std::unordered_set<std::string>(); // come from atexit handlers
  {
    std::lock_guard<std::mutex> lock(*mu);
    if (told->insert(name).second)
      std::fprintf(stderr, "ptxsim: %s is not supported by ptxsim; it returns cudaErrorNotSupported\n",
                   name);
  }
  lastError() = cudaErrorNotSupported;
  return cudaErrorNotSupported;
}
} // namespace ptxsim::runtime

extern "C" {
PTXSIM_API cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                       cudaChannelFormatKind f) {
  return cudaChannelFormatDesc{x, y, z, w, f};
}
// Profiler ranges have no meaning in a simulator; accepting them keeps profiled programs running.
PTXSIM_API cudaError_t cudaProfilerStart() { return cudaSuccess; }
PTXSIM_API cudaError_t cudaProfilerStop() { return cudaSuccess; }
}

// --- pitched and 2D memory, stream-ordered allocation, host callbacks ---------------------------

extern "C" {
PTXSIM_API cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height) {
  if (!devPtr || !pitch)
    return ret(cudaErrorInvalidValue);
  // As an H200 answers (tools/hw/probes/occupancy_pitch_limits.cu): an empty allocation succeeds
  // with pitch 0 and no memory; otherwise rows are aligned like the hardware's texture pitch
  // (512 bytes), the pitch is written before anything is allocated, and both the rounding and
  // pitch * height wrap around in 64 bits: a product that wraps to 0 (a width near SIZE_MAX,
  // 2^40 x 2^40) is cudaErrorInvalidValue, one that wraps to anything else is more memory than
  // the device has.
  *devPtr = nullptr; // what a failure leaves (NVIDIA's static runtime builds on that)
  if (!width || !height) {
    *pitch = 0;
    return cudaSuccess;
  }
  size_t p = (width + 511) / 512 * 512;
  if (width > SIZE_MAX - 511)
    p = 0; // (width + 511) wrapped
  *pitch = p;
  if (p * height == 0)
    return ret(cudaErrorInvalidValue);
  return cudaMalloc(devPtr, p * height);
}

PTXSIM_API cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height) {
  // one row may be wider than the pitch (it is all that is set); rows that would overlap are
  // cudaErrorInvalidValue (as an H200 answers)
  if (width > pitch && height > 1)
    return ret(cudaErrorInvalidValue);
  {
    PTXSIM_LOCK_CHECKED;
    if (cudaError_t e = checkMemset2D(ctx, devPtr, pitch, width, height))
      return ret(e);
  }
  for (size_t r = 0; r < height; ++r) {
    cudaError_t e = cudaMemset(static_cast<char *>(devPtr) + r * pitch, value, width);
    if (e)
      return e;
  }
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                                         size_t height, cudaStream_t s) {
  {
    PTXSIM_LOCK_ASYNC_CHECKED;
    if (!ctx.validStream(s))
      return ret(cudaErrorInvalidResourceHandle);
    if (auto captured =
            graphHooks().captureMemset2D(s, devPtr, pitch, value, width, height)) // GraphHooks.h
      return ret(*captured);
  }
  return cudaMemset2D(devPtr, pitch, value, width, height);
}

PTXSIM_API cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                         size_t width, size_t height, cudaMemcpyKind kind,
                                         cudaStream_t s) {
  {
    PTXSIM_LOCK_ASYNC_CHECKED;
    if (!ctx.validStream(s))
      return ret(cudaErrorInvalidResourceHandle);
    if (auto captured =
            graphHooks().captureMemcpy2D(s, dst, dpitch, src, spitch, width, height, kind))
      return ret(*captured); // stream capture (GraphHooks.h)
  }
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}

// Stream-ordered allocation: an allocation is usable at once (the device memory of a kernel still
// queued is not reused: cudaFree waits for queued work first).
PTXSIM_API cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t s) {
  {
    PTXSIM_LOCK_CHECKED;
    if (!ctx.validStream(s))
      return ret(cudaErrorInvalidResourceHandle);
    if (auto captured = graphHooks().captureMalloc(s, devPtr, size, nullptr)) // GraphHooks.h
      return ret(*captured);
  }
  return cudaMalloc(devPtr, size);
}

PTXSIM_API cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t s) {
  {
    PTXSIM_LOCK_CHECKED;
    if (!ctx.validStream(s))
      return ret(cudaErrorInvalidResourceHandle);
    if (auto captured = graphHooks().captureFree(s, devPtr)) // GraphHooks.h
      return ret(*captured);
  }
  return cudaFree(devPtr);
}

PTXSIM_API cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
                                      size_t count) {
  if (dstDevice != 0 || srcDevice != 0)
    return ret(cudaErrorInvalidDevice);
  return cudaMemcpy(dst, src, count, cudaMemcpyDeviceToDevice);
}

PTXSIM_API cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src,
                                           int srcDevice, size_t count, cudaStream_t stream) {
  if (dstDevice != 0 || srcDevice != 0)
    return ret(cudaErrorInvalidDevice);
  return cudaMemcpyAsync(dst, src, count, cudaMemcpyDeviceToDevice, stream);
}

// Peer access needs a second device; the one simulated device is not its own peer (an H200
// answers PeerAccessUnsupported for the current device itself, InvalidDevice for one that
// does not exist).
PTXSIM_API cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags) {
  if (flags)
    return ret(cudaErrorInvalidValue);
  return ret(peerDevice == 0 ? cudaErrorPeerAccessUnsupported : cudaErrorInvalidDevice);
}

PTXSIM_API cudaError_t cudaDeviceDisablePeerAccess(int peerDevice) {
  // never enabled for the device itself (an H200: PeerAccessNotEnabled)
  return ret(peerDevice == 0 ? cudaErrorPeerAccessNotEnabled : cudaErrorInvalidDevice);
}

PTXSIM_API cudaError_t cudaDeviceGetP2PAttribute(int *value, cudaDeviceP2PAttr attr, int srcDevice,
                                                 int dstDevice) {
  if (!value)
    return ret(cudaErrorInvalidValue);
  (void)attr, (void)srcDevice, (void)dstDevice;
  return ret(cudaErrorInvalidDevice);
}

// PCI location "dddd:bb:dd.f" (hex) from the device's PCI attributes.
PTXSIM_API cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device) {
  if (!pciBusId || len <= 0)
    return ret(cudaErrorInvalidValue);
  if (device != 0)
    return ret(cudaErrorInvalidDevice);
  PTXSIM_LOCK_CHECKED;
  std::snprintf(pciBusId, size_t(len), "%04x:%02x:%02x.0",
                unsigned(deviceAttribute(ctx.deviceView(), cudaDevAttrPciDomainId)),
                unsigned(deviceAttribute(ctx.deviceView(), cudaDevAttrPciBusId)),
                unsigned(deviceAttribute(ctx.deviceView(), cudaDevAttrPciDeviceId)));
  return cudaSuccess;
}

// Accepts "domain:bus:device.function", "domain:bus:device" and "bus:device.function" (hex).
PTXSIM_API cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId) {
  if (!device || !pciBusId)
    return ret(cudaErrorInvalidValue);
  unsigned domain = 0, bus = 0, dev = 0, fn = 0;
  char tail = 0;
  if (std::sscanf(pciBusId, "%x:%x:%x.%x%c", &domain, &bus, &dev, &fn, &tail) != 4) {
    fn = 0;
    if (std::strchr(pciBusId, '.') ||
        std::sscanf(pciBusId, "%x:%x:%x%c", &domain, &bus, &dev, &tail) != 3) {
      domain = 0;
      if (std::sscanf(pciBusId, "%x:%x.%x%c", &bus, &dev, &fn, &tail) != 3)
        return ret(cudaErrorInvalidValue);
    }
  }
  PTXSIM_LOCK_CHECKED;
  if (domain != unsigned(deviceAttribute(ctx.deviceView(), cudaDevAttrPciDomainId)) ||
      bus != unsigned(deviceAttribute(ctx.deviceView(), cudaDevAttrPciBusId)) ||
      dev != unsigned(deviceAttribute(ctx.deviceView(), cudaDevAttrPciDeviceId)) || fn != 0)
    return ret(cudaErrorInvalidDevice);
  *device = 0;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaDeviceCanAccessPeer(int *canAccess, int device, int peerDevice) {
  if (!canAccess)
    return ret(cudaErrorInvalidValue);
  if (device != 0 || peerDevice != 0)
    return ret(cudaErrorInvalidDevice);
  *canAccess = 0; // one simulated device
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaChooseDevice(int *device, const cudaDeviceProp *prop) {
  if (!device || !prop)
    return ret(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}

// Page-locking has no meaning here; registered host memory is not visible to kernels (a kernel
// that dereferences it faults with the address), but copies and async copies work.
PTXSIM_API cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int) {
  if (!ptr || !size)
    return ret(cudaErrorInvalidValue);
  return cudaSuccess;
}
PTXSIM_API cudaError_t cudaHostUnregister(void *ptr) {
  if (!ptr)
    return ret(cudaErrorInvalidValue);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaStreamAttachMemAsync(cudaStream_t s, void *, size_t, unsigned int) {
  PTXSIM_LOCK_ASYNC_CHECKED;
  if (!ctx.validStream(s))
    return ret(cudaErrorInvalidResourceHandle);
  return cudaSuccess;
}

// Stream callbacks run on the device executor when the stream reaches them, with the device's
// status then (a fault's error after a fault).
PTXSIM_API cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void *userData,
                                             unsigned int flags) {
  if (!cb || flags != 0)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_ASYNC;
  if (!ctx.validStream(s))
    return ret(cudaErrorInvalidResourceHandle);
  if (auto captured = graphHooks().captureSyncCall(s)) // not capturable, as in CUDA (GraphHooks.h)
    return ret(*captured);
  Work *w = ctx.newWork();
  w->kind = Work::Kind::Callback;
  w->callback = cb;
  w->userData = userData;
  w->stream = s;
  ctx.submit(w, s);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaFuncGetName(const char **name, const void *func) {
  if (!name)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_ASYNC_CHECKED;
  KernelEntry *k = ctx.findKernel(func);
  if (!k)
    return ret(Context::unknownFunction(func));
  *name = k->deviceName.c_str();
  return cudaSuccess;
}
}

// --- interprocess memory handles ----------------------------------------------------------------
// A device allocation is shared by moving its pages into a memfd (DeviceMemory::exportShared); the
// handle names the exporting process and the descriptor, and the opening process maps it through
// /proc/<pid>/fd/<fd> (which needs only the same user, not ptrace rights) at an address of its
// own. The exporter keeps the descriptor until it frees the allocation.
namespace {
constexpr uint32_t kIpcMagic = 0x43504950; // "PIPC"
struct IpcMemHandle {
  uint32_t magic;
  int32_t pid;
  int32_t fd;
  uint32_t reserved;
  uint64_t fdBytes, offset, bytes;
};
static_assert(sizeof(IpcMemHandle) <= sizeof(cudaIpcMemHandle_t), "IPC handle too large");
} // namespace

extern "C" {
PTXSIM_API cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr) {
  if (!handle || !devPtr)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_CHECKED;
  DeviceMemory &mem = ctx.engine().memory();
  Allocation a;
  if (!mem.lookup(addr(devPtr), a) || a.kind != AllocKind::Device)
    return ret(cudaErrorInvalidValue);
  IpcMemHandle h{};
  h.magic = kIpcMagic;
  h.pid = int32_t(getpid());
  h.bytes = a.size;
  h.fd = mem.exportShared(a.base, h.offset, h.fdBytes);
  if (h.fd < 0) {
    std::fprintf(stderr, "ptxsim: cudaIpcGetMemHandle: cannot share the allocation at %p (ptxsim "
                         "shares whole host pages: two shared allocations may not share a page, "
                         "so make shared buffers at least 4 KiB apart)\n",
                 DeviceMemory::host(a.base));
    return ret(cudaErrorMemoryAllocation);
  }
  std::memset(handle, 0, sizeof *handle);
  std::memcpy(handle, &h, sizeof h);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle,
                                            unsigned int flags) {
  if (!devPtr || (flags & ~unsigned(cudaIpcMemLazyEnablePeerAccess)))
    return ret(cudaErrorInvalidValue);
  IpcMemHandle h;
  std::memcpy(&h, &handle, sizeof h);
  if (h.magic != kIpcMagic || h.pid <= 0 || h.fd < 0)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_CHECKED;
  if (h.pid == int32_t(getpid()))
    return ret(cudaErrorDeviceUninitialized); // "invalid device context": not its own handles
  std::string path = "/proc/" + std::to_string(h.pid) + "/fd/" + std::to_string(h.fd);
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || uint64_t(st.st_size) != h.fdBytes) {
    std::fprintf(stderr, "ptxsim: cudaIpcOpenMemHandle: cannot open the shared memory of process "
                         "%d (%s): has it exited or freed the allocation?\n",
                 int(h.pid), fd < 0 ? std::strerror(errno) : "size differs");
    if (fd >= 0)
      ::close(fd);
    return ret(cudaErrorMapBufferObjectFailed);
  }
  uint64_t a = ctx.engine().memory().importShared(fd, h.fdBytes, h.offset, h.bytes);
  ::close(fd); // the mapping keeps the memory
  if (!a)
    return ret(cudaErrorMapBufferObjectFailed);
  *devPtr = DeviceMemory::host(a);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaIpcCloseMemHandle(void *devPtr) {
  PTXSIM_LOCK_CHECKED;
  if (!devPtr || !ctx.engine().memory().closeShared(addr(devPtr)))
    return ret(cudaErrorInvalidValue);
  return cudaSuccess;
}
}

// The driver API's core: initialisation, cuGetProcAddress, the private export tables NVIDIA's
// static runtime asks for, errors, devices and contexts. Driver calls are a thin layer over the
// runtime: most forward to the runtime's implementation of the same operation in this library
// (one Context), keeping the runtime's per-thread last error untouched.

#include "runtime/driver/DriverApi.h"

#include <cudaProfiler.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

using namespace ptxsim::runtime;
using namespace ptxsim::driver;

namespace ptxsim::driver {

bool traceOn() {
  static const bool on = [] {
    const char *v = std::getenv("PTXSIM_DRIVER_TRACE");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  return on;
}

int unsupportedCall(const char *name) {
  static std::mutex mu;
  // never destroyed: NVIDIA's static runtime calls the driver from its exit handlers
  static auto &said = *new std::unordered_set<std::string>;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (said.insert(name).second)
      std::fprintf(stderr, "ptxsim: %s is not supported (CUDA_ERROR_NOT_SUPPORTED)\n", name);
  }
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult toCu(cudaError_t e) {
  switch (e) {
  case cudaSuccess:
    return CUDA_SUCCESS;
  case cudaErrorInvalidValue:
  case cudaErrorInvalidConfiguration:
  case cudaErrorInvalidDevicePointer:
  case cudaErrorInvalidMemcpyDirection:
  case cudaErrorInvalidChannelDescriptor:
  case cudaErrorInvalidFilterSetting:
  case cudaErrorInvalidNormSetting:
    return CUDA_ERROR_INVALID_VALUE;
  case cudaErrorMemoryAllocation:
    return CUDA_ERROR_OUT_OF_MEMORY;
  case cudaErrorInitializationError:
    return CUDA_ERROR_NOT_INITIALIZED;
  case cudaErrorCudartUnloading:
    return CUDA_ERROR_DEINITIALIZED;
  case cudaErrorInvalidDeviceFunction:
    return CUresult(98); // the runtime's code, passed through unchanged (the driver has none)
  case cudaErrorInvalidPitchValue:
    return kInvalidPitch;
  case cudaErrorInvalidResourceHandle:
  case cudaErrorInvalidTexture:
  case cudaErrorInvalidTextureBinding:
  case cudaErrorInvalidSurface:
    return CUDA_ERROR_INVALID_HANDLE;
  case cudaErrorInvalidSymbol:
  case cudaErrorSymbolNotFound:
    return CUDA_ERROR_NOT_FOUND;
  case cudaErrorMissingConfiguration:
    return CUDA_ERROR_INVALID_VALUE;
  case cudaErrorNoDevice:
    return CUDA_ERROR_NO_DEVICE;
  case cudaErrorInsufficientDriver:
    return CUDA_ERROR_SYSTEM_DRIVER_MISMATCH;
  default:
    // From cudaErrorInvalidDevice (101) on the runtime's codes are the driver's.
    return CUresult(int(e));
  }
}

// --- contexts -------------------------------------------------------------------------------

namespace {
/// A driver context. There is one device and one engine, so every context shares them; an
/// explicit context differs from the primary one only in its handle, flags and lifetime.
struct CtxObj {
  unsigned flags = 0;
  bool primary = false;
  unsigned long long id = 0;
  /// The export-table context-local storage NVIDIA's static runtime keeps per context:
  /// (manager key, state, destroy callback).
  struct Slot {
    void *key, *state;
    void (*dtor)(CUcontext, void *, void *);
  };
  std::vector<Slot> local;
};

// The contexts and the export tables are never destroyed (built on the heap, never freed):
// NVIDIA's static runtime uses them from its exit handlers (__cudaUnregisterBinaryUtil), which
// run after the static destructors of objects constructed later than they were registered; a
// destroyed table was reused by the runtime's own calloc and the program crashed at exit.
std::mutex gCtxMu;
CtxObj &gPrimary = *new CtxObj{0, true, 1, {}};
int gPrimaryRefs = 0;
bool gPrimaryActive = false;
std::unordered_set<CtxObj *> &gContexts = *new std::unordered_set<CtxObj *>{&gPrimary};
unsigned long long gNextCtxId = 2;
bool gInitDone = false;

thread_local std::vector<CtxObj *> tStack;

/// The thread's current context: the top of its stack or, on a thread that has none, the
/// primary context once the runtime (which works in the primary context) or anyone retained it.
CtxObj *current() {
  if (!tStack.empty())
    return tStack.back();
  return gPrimaryActive || Context::get().started() ? &gPrimary : nullptr;
}
CUcontext handle(CtxObj *c) { return reinterpret_cast<CUcontext>(c); }
CtxObj *object(CUcontext c) { return reinterpret_cast<CtxObj *>(c); }
bool validCtx(CUcontext c) {
  std::lock_guard<std::mutex> lock(gCtxMu);
  return c && gContexts.count(object(c));
}
} // namespace

// The runtime initialises the driver for the program: once a runtime call needed the device,
// driver calls work without the program's own cuInit (an H200 answers cuMemCreate after a
// cudaMalloc with CUDA_SUCCESS, tools/hw/probes/errcodes_s5.cu).
CUresult checkInit() {
  return gInitDone || Context::get().started() ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

} // namespace ptxsim::driver

// --- initialisation, versions, errors --------------------------------------------------------

DRIVER_API CUresult cuInit(unsigned int flags) {
  DRIVER_TRACE();
  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  gInitDone = true;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuDriverGetVersion(int *version) {
  DRIVER_TRACE();
  if (!version)
    return CUDA_ERROR_INVALID_VALUE;
  *version = CUDA_VERSION;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuGetErrorName(CUresult error, const char **str) {
  if (!str)
    return CUDA_ERROR_INVALID_VALUE;
  *str = errorName(error);
  return *str ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

DRIVER_API CUresult cuGetErrorString(CUresult error, const char **str) {
  if (!str)
    return CUDA_ERROR_INVALID_VALUE;
  *str = errorString(error);
  return *str ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

namespace {
/// Looks `symbol` up in the generated table: the newest variant not newer than `version`.
CUresult procAddress(const char *symbol, void **pfn, int version, cuuint64_t flags,
                     CUdriverProcAddressQueryResult *status) {
  // a version newer than the driver's is refused, leaving the outputs alone (an H200 with driver
  // 580 answers 13010 so; CUDA documents it)
  if (!symbol || !pfn || version > CUDA_VERSION)
    return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  const ProcEntry *best = nullptr;
  bool known = false;
  // The table is sorted by name: binary search for the first row of `symbol`.
  size_t lo = 0, hi = kProcTableSize;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (std::strcmp(kProcTable[mid].name, symbol) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (size_t i = lo; i < kProcTableSize && std::strcmp(kProcTable[i].name, symbol) == 0; ++i) {
    known = true;
    if (kProcTable[i].version <= version)
      best = &kProcTable[i];
  }
  // A symbol the driver does not have, or not at that version, is no error: CUDA_SUCCESS with a
  // null pointer, and the status says why (CUDA's documentation; an H100 with driver 580 answers
  // so, tools/hw/data/h100-2026-11-26).
  CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SUCCESS;
  CUresult r = CUDA_SUCCESS;
  if (!known) {
    st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  } else if (!best) {
    st = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
  } else {
    bool perThread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    *pfn = perThread && best->perThreadFn ? best->perThreadFn : best->fn;
  }
  if (status)
    *status = st;
  if (traceOn())
    std::fprintf(stderr, "ptxsim-driver: cuGetProcAddress(%s, v%d, flags %llu) -> %s\n", symbol,
                 version, (unsigned long long)flags, *pfn ? "found" : "not found");
  return r;
}
} // namespace

DRIVER_API CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                        cuuint64_t flags, CUdriverProcAddressQueryResult *status) {
  return procAddress(symbol, pfn, cudaVersion, flags, status);
}

// The CUDA 11.3-12.x signature, without the status (cuda.h no longer declares it).
#undef cuGetProcAddress // the original entry point, which cuda.h maps to its newest version
DRIVER_API CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
                                     cuuint64_t flags) {
  return procAddress(symbol, pfn, cudaVersion, flags, nullptr);
}

// --- devices ---------------------------------------------------------------------------------

DRIVER_API CUresult cuDeviceGetCount(int *count) {
  DRIVER_TRACE();
  if (!count)
    return CUDA_ERROR_INVALID_VALUE;
  *count = 1;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  DRIVER_TRACE();
  if (!device)
    return CUDA_ERROR_INVALID_VALUE;
  if (ordinal != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) {
  DRIVER_TRACE();
  if (!pi)
    return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  // CUdevice_attribute and cudaDeviceAttr number the attributes alike.
  return viaRuntime([&] { return cudaDeviceGetAttribute(pi, cudaDeviceAttr(attrib), 0); });
}

namespace {
CUresult properties(CUdevice dev, cudaDeviceProp &p) {
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  return viaRuntime([&] { return cudaGetDeviceProperties(&p, 0); });
}
} // namespace

DRIVER_API CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
  DRIVER_TRACE();
  if (!name || len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp p;
  if (CUresult r = properties(dev, p))
    return r;
  std::snprintf(name, size_t(len), "%s", p.name);
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev) {
  DRIVER_TRACE();
  if (!uuid)
    return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp p;
  if (CUresult r = properties(dev, p))
    return r;
  std::memcpy(uuid->bytes, p.uuid.bytes, sizeof uuid->bytes);
  return CUDA_SUCCESS;
}

#undef cuDeviceGetUuid // the original entry point, which cuda.h maps to its newest version
DRIVER_API CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev) { return cuDeviceGetUuid_v2(uuid, dev); }

DRIVER_API CUresult cuDeviceGetLuid(char *luid, unsigned int *mask, CUdevice dev) {
  DRIVER_TRACE();
  if (!luid || !mask)
    return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp p;
  if (CUresult r = properties(dev, p))
    return r;
  std::memcpy(luid, p.luid, 8);
  *mask = p.luidDeviceNodeMask;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
  DRIVER_TRACE();
  if (!bytes)
    return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp p;
  if (CUresult r = properties(dev, p))
    return r;
  *bytes = p.totalGlobalMem;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev) {
  DRIVER_TRACE();
  if (!major || !minor)
    return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp p;
  if (CUresult r = properties(dev, p))
    return r;
  *major = p.major;
  *minor = p.minor;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuDeviceGetPCIBusId(char *id, int len, CUdevice dev) {
  DRIVER_TRACE();
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  return viaRuntime([&] { return cudaDeviceGetPCIBusId(id, len, 0); });
}

DRIVER_API CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *id) {
  DRIVER_TRACE();
  int d = 0;
  CUresult r = viaRuntime([&] { return cudaDeviceGetByPCIBusId(&d, id); });
  if (r == CUDA_SUCCESS && dev)
    *dev = d;
  return r;
}

DRIVER_API CUresult cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaDeviceCanAccessPeer(can, dev, peer); });
}

DRIVER_API CUresult cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attr, CUdevice src,
                                            CUdevice dst) {
  DRIVER_TRACE();
  return viaRuntime(
      [&] { return cudaDeviceGetP2PAttribute(value, cudaDeviceP2PAttr(attr), src, dst); });
}

DRIVER_API CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice dev) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaDeviceGetDefaultMemPool(reinterpret_cast<cudaMemPool_t *>(pool), dev);
  });
}

DRIVER_API CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev) {
  DRIVER_TRACE();
  return viaRuntime(
      [&] { return cudaDeviceGetMemPool(reinterpret_cast<cudaMemPool_t *>(pool), dev); });
}

DRIVER_API CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool) {
  DRIVER_TRACE();
  return viaRuntime(
      [&] { return cudaDeviceSetMemPool(dev, reinterpret_cast<cudaMemPool_t>(pool)); });
}

DRIVER_API CUresult cuDeviceGetTexture1DLinearMaxWidth(size_t *maxWidth, CUarray_format,
                                                       unsigned, CUdevice dev) {
  DRIVER_TRACE();
  if (!maxWidth)
    return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *maxWidth = size_t(1) << 27;
  return CUDA_SUCCESS;
}

// --- primary and explicit contexts -----------------------------------------------------------

DRIVER_API CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  DRIVER_TRACE();
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard<std::mutex> lock(gCtxMu);
  ++gPrimaryRefs;
  gPrimaryActive = true;
  *pctx = handle(&gPrimary);
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  DRIVER_TRACE();
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard<std::mutex> lock(gCtxMu);
  if (gPrimaryRefs > 0 && --gPrimaryRefs == 0)
    gPrimaryActive = false; // the device's memory and modules stay: one engine per process
  return CUDA_SUCCESS;
}

#undef cuDevicePrimaryCtxRelease // the original entry point, which cuda.h maps to its newest version
DRIVER_API CUresult cuDevicePrimaryCtxRelease(CUdevice dev) { return cuDevicePrimaryCtxRelease_v2(dev); }

DRIVER_API CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active) {
  DRIVER_TRACE();
  if (!flags || !active)
    return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard<std::mutex> lock(gCtxMu);
  *flags = gPrimary.flags;
  *active = gPrimaryActive ? 1 : 0;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags) {
  DRIVER_TRACE();
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard<std::mutex> lock(gCtxMu);
  gPrimary.flags = flags;
  return CUDA_SUCCESS;
}

#undef cuDevicePrimaryCtxSetFlags // the original entry point, which cuda.h maps to its newest version
DRIVER_API CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags) {
  return cuDevicePrimaryCtxSetFlags_v2(dev, flags);
}

namespace {
/// Runs the destroy callbacks the static runtime registered for `c` (it frees its per-context
/// state there) and forgets them.
void destroyLocal(CtxObj *c) {
  std::vector<CtxObj::Slot> slots;
  {
    std::lock_guard<std::mutex> lock(gCtxMu);
    slots.swap(c->local);
  }
  for (const CtxObj::Slot &s : slots)
    if (s.dtor)
      s.dtor(handle(c), s.key, s.state);
}
} // namespace

DRIVER_API CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) {
  DRIVER_TRACE();
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  destroyLocal(&gPrimary);
  {
    std::lock_guard<std::mutex> lock(gCtxMu);
    gPrimaryRefs = 0;
    gPrimaryActive = false;
  }
  return viaRuntime([] { return cudaDeviceReset(); });
}

#undef cuDevicePrimaryCtxReset // the original entry point, which cuda.h maps to its newest version
DRIVER_API CUresult cuDevicePrimaryCtxReset(CUdevice dev) { return cuDevicePrimaryCtxReset_v2(dev); }

namespace {
CUresult createContext(CUcontext *pctx, unsigned flags, CUdevice dev) {
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  auto *c = new CtxObj;
  c->flags = flags;
  {
    std::lock_guard<std::mutex> lock(gCtxMu);
    c->id = gNextCtxId++;
    gContexts.insert(c);
  }
  tStack.push_back(c);
  *pctx = handle(c);
  return CUDA_SUCCESS;
}
} // namespace

DRIVER_API CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev) {
  DRIVER_TRACE();
  return createContext(pctx, flags, dev);
}

DRIVER_API CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *, int, unsigned int flags,
                                   CUdevice dev) {
  DRIVER_TRACE();
  return createContext(pctx, flags, dev);
}

DRIVER_API CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *, unsigned int flags,
                                   CUdevice dev) {
  DRIVER_TRACE();
  return createContext(pctx, flags, dev);
}

DRIVER_API CUresult cuCtxDestroy_v2(CUcontext ctx) {
  DRIVER_TRACE();
  CtxObj *c = object(ctx);
  if (!validCtx(ctx) || c->primary)
    return CUDA_ERROR_INVALID_CONTEXT;
  destroyLocal(c);
  {
    std::lock_guard<std::mutex> lock(gCtxMu);
    gContexts.erase(c);
  }
  for (size_t i = tStack.size(); i-- > 0;)
    if (tStack[i] == c)
      tStack.erase(tStack.begin() + long(i));
  delete c;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuCtxGetCurrent(CUcontext *pctx) {
  DRIVER_TRACE();
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  *pctx = handle(current());
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuCtxSetCurrent(CUcontext ctx) {
  DRIVER_TRACE();
  if (ctx && !validCtx(ctx))
    return CUDA_ERROR_INVALID_CONTEXT;
  if (!ctx) {
    if (!tStack.empty())
      tStack.pop_back();
    return CUDA_SUCCESS;
  }
  if (tStack.empty())
    tStack.push_back(object(ctx));
  else
    tStack.back() = object(ctx);
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
  DRIVER_TRACE();
  if (!validCtx(ctx))
    return CUDA_ERROR_INVALID_CONTEXT;
  tStack.push_back(object(ctx));
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuCtxPopCurrent_v2(CUcontext *pctx) {
  DRIVER_TRACE();
  if (tStack.empty())
    return CUDA_ERROR_INVALID_CONTEXT;
  if (pctx)
    *pctx = handle(tStack.back());
  tStack.pop_back();
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuCtxGetDevice(CUdevice *dev) {
  DRIVER_TRACE();
  if (!dev)
    return CUDA_ERROR_INVALID_VALUE;
  if (!current())
    return CUDA_ERROR_INVALID_CONTEXT;
  *dev = 0;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuCtxGetDevice_v2(CUdevice *dev, CUcontext ctx) {
  DRIVER_TRACE();
  if (!dev)
    return CUDA_ERROR_INVALID_VALUE;
  if (ctx ? !validCtx(ctx) : !current())
    return CUDA_ERROR_INVALID_CONTEXT;
  *dev = 0;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuCtxGetFlags(unsigned int *flags) {
  DRIVER_TRACE();
  if (!flags)
    return CUDA_ERROR_INVALID_VALUE;
  CtxObj *c = current();
  if (!c)
    return CUDA_ERROR_INVALID_CONTEXT;
  *flags = c->flags | CU_CTX_MAP_HOST; // host memory is always mapped (one address space)
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuCtxSetFlags(unsigned int flags) {
  DRIVER_TRACE();
  CtxObj *c = current();
  if (!c)
    return CUDA_ERROR_INVALID_CONTEXT;
  c->flags = flags;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuCtxGetId(CUcontext ctx, unsigned long long *id) {
  DRIVER_TRACE();
  if (!id)
    return CUDA_ERROR_INVALID_VALUE;
  CtxObj *c = ctx ? object(ctx) : current();
  if (!c || !validCtx(handle(c)))
    return CUDA_ERROR_INVALID_CONTEXT;
  *id = c->id;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version) {
  DRIVER_TRACE();
  if (!version)
    return CUDA_ERROR_INVALID_VALUE;
  if (ctx && !validCtx(ctx))
    return CUDA_ERROR_INVALID_CONTEXT;
  *version = 3020;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuCtxSynchronize() {
  DRIVER_TRACE();
  return viaRuntime([] { return cudaDeviceSynchronize(); });
}

DRIVER_API CUresult cuCtxSynchronize_v2(CUcontext) { return cuCtxSynchronize(); }

DRIVER_API CUresult cuCtxSetLimit(CUlimit limit, size_t value) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaDeviceSetLimit(cudaLimit(limit), value); });
}

DRIVER_API CUresult cuCtxGetLimit(size_t *value, CUlimit limit) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaDeviceGetLimit(value, cudaLimit(limit)); });
}

DRIVER_API CUresult cuCtxGetCacheConfig(CUfunc_cache *config) {
  DRIVER_TRACE();
  return viaRuntime(
      [&] { return cudaDeviceGetCacheConfig(reinterpret_cast<cudaFuncCache *>(config)); });
}

DRIVER_API CUresult cuCtxSetCacheConfig(CUfunc_cache config) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaDeviceSetCacheConfig(cudaFuncCache(config)); });
}

DRIVER_API CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaDeviceGetStreamPriorityRange(least, greatest); });
}

DRIVER_API CUresult cuCtxResetPersistingL2Cache() {
  DRIVER_TRACE();
  return viaRuntime([] { return cudaCtxResetPersistingL2Cache(); });
}

DRIVER_API CUresult cuCtxGetSharedMemConfig(CUsharedconfig *config) {
  DRIVER_TRACE();
  if (!config)
    return CUDA_ERROR_INVALID_VALUE;
  *config = CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuCtxSetSharedMemConfig(CUsharedconfig) {
  DRIVER_TRACE();
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuCtxEnablePeerAccess(CUcontext, unsigned int flags) {
  DRIVER_TRACE();
  if (flags)
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED; // one device: the only context is its own
}

DRIVER_API CUresult cuCtxDisablePeerAccess(CUcontext) {
  DRIVER_TRACE();
  return CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
}

// --- the private export tables ---------------------------------------------------------------
//
// NVIDIA's runtime asks cuGetExportTable for tables of functions by UUID; the first entry of
// most is the table's size in bytes. docs/driver.md lists what CUDA 13's static runtime asks for
// and calls; every slot we do not know prints its table and index when called.

namespace {

template <int Table, int Slot> CUresult unknownSlot() {
  std::fprintf(stderr, "ptxsim: the CUDA runtime called slot %d of private driver table %d, "
                       "which ptxsim does not provide (CUDA_ERROR_NOT_SUPPORTED)\n",
               Slot, Table);
  return CUDA_ERROR_NOT_SUPPORTED;
}

template <int Table, size_t... I>
void fillUnknown(void **table, std::index_sequence<I...>) {
  ((table[I] = reinterpret_cast<void *>(&unknownSlot<Table, int(I)>)), ...);
}

constexpr size_t kSlots = 32;
struct ExportTable {
  const char *name;
  CUuuid uuid;
  void *slots[kSlots];
};

// Table 0: the runtime's interface (modules from fat binaries, the primary context).
CUresult cudartGetModule(CUmodule *module, const void *wrapper) {
  DRIVER_TRACE();
  return loadModuleImage(module, wrapper);
}
CUresult cudartPrimaryContext(CUcontext *pctx, CUdevice dev) {
  DRIVER_TRACE();
  return cuDevicePrimaryCtxRetain(pctx, dev);
}
CUresult cudartGetModuleExt1(CUmodule *module, const void *wrapper, void *, void *, unsigned) {
  DRIVER_TRACE();
  return loadModuleImage(module, wrapper);
}
CUresult cudartFn7(size_t) {
  DRIVER_TRACE();
  return CUDA_SUCCESS;
}
CUresult cudartGetModuleExt2(const void *fatbin, CUmodule *module, void *, void *, unsigned) {
  DRIVER_TRACE();
  return loadModuleImage(module, fatbin);
}

// Table 2: tools callback hooks: two buffers the runtime fills with its hooks for profilers.
alignas(16) unsigned char gHookSpace2[4096], gHookSpace6[4096];
void hooksFn2(void **ptr, size_t *size) {
  DRIVER_TRACE();
  *ptr = gHookSpace2;
  *size = sizeof gHookSpace2;
}
void hooksFn6(void **ptr, size_t *size) {
  DRIVER_TRACE();
  *ptr = gHookSpace6;
  *size = sizeof gHookSpace6;
}

// Table 3: context-local storage (the runtime's per-context state).
CUresult localStorageCtor(CUcontext ctx, void *key, void *state,
                          void (*dtor)(CUcontext, void *, void *)) {
  DRIVER_TRACE();
  CtxObj *c = ctx ? object(ctx) : current();
  if (!c || !validCtx(handle(c)))
    return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard<std::mutex> lock(gCtxMu);
  for (CtxObj::Slot &s : c->local)
    if (s.key == key) {
      s.state = state;
      s.dtor = dtor;
      return CUDA_SUCCESS;
    }
  c->local.push_back({key, state, dtor});
  return CUDA_SUCCESS;
}
CUresult localStorageDtor(void *ctx, void *key) {
  DRIVER_TRACE();
  CtxObj *c = ctx ? static_cast<CtxObj *>(ctx) : current();
  if (!c || !validCtx(handle(c)))
    return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard<std::mutex> lock(gCtxMu);
  for (size_t i = 0; i < c->local.size(); ++i)
    if (c->local[i].key == key) {
      c->local.erase(c->local.begin() + long(i));
      break;
    }
  return CUDA_SUCCESS;
}
CUresult localStorageGet(void **state, CUcontext ctx, void *key) {
  DRIVER_TRACE();
  if (!state)
    return CUDA_ERROR_INVALID_VALUE;
  CtxObj *c = ctx ? object(ctx) : current();
  if (!c || !validCtx(handle(c)))
    return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard<std::mutex> lock(gCtxMu);
  for (const CtxObj::Slot &s : c->local)
    if (s.key == key) {
      *state = s.state;
      return CUDA_SUCCESS;
    }
  return CUDA_ERROR_INVALID_HANDLE;
}

// Table 4: context creation bypassing tools callbacks.
CUresult ctxCreateBypass(CUcontext *pctx, unsigned flags, CUdevice dev) {
  DRIVER_TRACE();
  return createContext(pctx, flags, dev);
}

// Table 5: heap access.
CUresult heapAlloc(const void **record, size_t, size_t) {
  DRIVER_TRACE();
  if (record)
    *record = nullptr;
  return CUDA_ERROR_NOT_SUPPORTED;
}

// Table 6: extended device attributes.
CUresult deviceAttributeExt(CUdevice dev, unsigned attribute, int, size_t result[2]) {
  DRIVER_TRACE();
  int v = 0;
  CUresult r = cuDeviceGetAttribute(&v, CUdevice_attribute(attribute), dev);
  result[0] = size_t(v);
  result[1] = 0;
  return r;
}
CUresult deviceSomething(unsigned char *result, CUdevice) {
  DRIVER_TRACE();
  *result = 0;
  return CUDA_SUCCESS;
}

// Table 7: context checks: the runtime asks about a context before using it; nothing to flag.
CUresult contextCheck(CUcontext, unsigned *result1, const void **) {
  DRIVER_TRACE();
  if (result1)
    *result1 = 0;
  return CUDA_SUCCESS;
}
unsigned contextCheck3() {
  DRIVER_TRACE();
  return 0;
}

// Table 8: the runtime's integrity check of the driver (Integrity.cpp).
CUresult integrity(unsigned version, uint64_t unixSeconds, uint64_t result[2]);

template <class F> void *fn(F f) { return reinterpret_cast<void *>(f); }
void *sizeOf(size_t slots) { return reinterpret_cast<void *>(slots * sizeof(void *)); }

std::vector<ExportTable> &tables() {
  static std::vector<ExportTable> &t = *new std::vector<ExportTable>([] {
    std::vector<ExportTable> v(9);
    auto uuid = [](std::initializer_list<int> b) {
      CUuuid u{};
      int i = 0;
      for (int x : b)
        u.bytes[i++] = char(x);
      return u;
    };
    v[0].name = "runtime interface";
    v[0].uuid = uuid({0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12,
                      0xfd, 0x9d, 0xf9});
    fillUnknown<0>(v[0].slots, std::make_index_sequence<kSlots>());
    v[0].slots[0] = sizeOf(10);
    v[0].slots[1] = fn(&cudartGetModule);
    v[0].slots[2] = fn(&cudartPrimaryContext);
    v[0].slots[6] = fn(&cudartGetModuleExt1);
    v[0].slots[7] = fn(&cudartFn7);
    v[0].slots[8] = fn(&cudartGetModuleExt2);
    v[1].name = "tools thread-local storage";
    v[1].uuid = uuid({0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a,
                      0x3a, 0xec, 0xdc});
    fillUnknown<1>(v[1].slots, std::make_index_sequence<kSlots>());
    v[1].slots[0] = sizeOf(4);
    v[2].name = "tools runtime callback hooks";
    v[2].uuid = uuid({0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20,
                      0x0c, 0x0a, 0x66});
    fillUnknown<2>(v[2].slots, std::make_index_sequence<kSlots>());
    v[2].slots[0] = sizeOf(7);
    v[2].slots[2] = fn(&hooksFn2);
    v[2].slots[6] = fn(&hooksFn6);
    v[3].name = "context-local storage";
    v[3].uuid = uuid({0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55,
                      0xd8, 0x95, 0x93});
    fillUnknown<3>(v[3].slots, std::make_index_sequence<kSlots>());
    v[3].slots[0] = fn(&localStorageCtor);
    v[3].slots[1] = fn(&localStorageDtor);
    v[3].slots[2] = fn(&localStorageGet);
    v[4].name = "context creation bypass";
    v[4].uuid = uuid({0x0c, 0xa5, 0x0b, 0x8c, 0x10, 0x04, 0x92, 0x9a, 0x89, 0xa7, 0xd0, 0xdf, 0x10,
                      0xe7, 0x72, 0x86});
    fillUnknown<4>(v[4].slots, std::make_index_sequence<kSlots>());
    v[4].slots[0] = sizeOf(2);
    v[4].slots[1] = fn(&ctxCreateBypass);
    v[5].name = "heap access";
    v[5].uuid = uuid({0x19, 0x5b, 0xcb, 0xf4, 0xd6, 0x7d, 0x02, 0x4a, 0xac, 0xc5, 0x1d, 0x29, 0xce,
                      0xa6, 0x31, 0xae});
    fillUnknown<5>(v[5].slots, std::make_index_sequence<kSlots>());
    v[5].slots[0] = sizeOf(3);
    v[5].slots[1] = fn(&heapAlloc);
    v[6].name = "extended device attributes";
    v[6].uuid = uuid({0xb1, 0x05, 0x41, 0xe1, 0xf7, 0xc7, 0xc7, 0x4a, 0x9f, 0x64, 0xf2, 0x23, 0xbe,
                      0x99, 0xf1, 0xe2});
    fillUnknown<6>(v[6].slots, std::make_index_sequence<kSlots>());
    v[6].slots[0] = sizeOf(26);
    v[6].slots[5] = fn(&deviceAttributeExt);
    v[6].slots[13] = fn(&deviceSomething);
    v[7].name = "context checks";
    v[7].uuid = uuid({0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00,
                      0x6d, 0xfa, 0x7e});
    fillUnknown<7>(v[7].slots, std::make_index_sequence<kSlots>());
    v[7].slots[0] = sizeOf(4);
    v[7].slots[2] = fn(&contextCheck);
    v[7].slots[3] = fn(&contextCheck3);
    v[8].name = "integrity check";
    v[8].uuid = uuid({0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c,
                      0x66, 0xe1, 0xf2});
    fillUnknown<8>(v[8].slots, std::make_index_sequence<kSlots>());
    v[8].slots[0] = sizeOf(3);
    v[8].slots[1] = fn(&integrity);
    return v;
  }());
  return t;
}
} // namespace

namespace {
CUresult integrity(unsigned version, uint64_t unixSeconds, uint64_t result[2]) {
  DRIVER_TRACE();
  if (!result)
    return CUDA_ERROR_INVALID_VALUE;
  std::vector<ExportTable> &t = tables();
  return integrityCheck(t[0].slots, t[8].slots, t[8].slots[1], version, unixSeconds, result);
}
} // namespace

DRIVER_API CUresult cuGetExportTable(const void **table, const CUuuid *id) {
  if (!table || !id)
    return CUDA_ERROR_INVALID_VALUE;
  for (ExportTable &t : tables())
    if (std::memcmp(t.uuid.bytes, id->bytes, sizeof id->bytes) == 0) {
      if (traceOn())
        std::fprintf(stderr, "ptxsim-driver: cuGetExportTable(%s)\n", t.name);
      *table = t.slots;
      return CUDA_SUCCESS;
    }
  if (traceOn()) {
    std::fprintf(stderr, "ptxsim-driver: cuGetExportTable(unknown ");
    for (int i = 0; i < 16; ++i)
      std::fprintf(stderr, "%02x", unsigned(static_cast<unsigned char>(id->bytes[i])));
    std::fprintf(stderr, ")\n");
  }
  *table = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

const char *ptxsim::driver::errorName(CUresult e) {
  for (size_t i = 0; i < kErrorNamesSize; ++i)
    if (kErrorNames[i].code == int(e))
      return kErrorNames[i].name;
  return nullptr;
}

const char *ptxsim::driver::errorString(CUresult e) {
  if (!errorName(e))
    return nullptr;
  // The runtime's description of the same condition (the codes agree from 100 on; below, the
  // driver's few codes have runtime twins of the same meaning).
  switch (e) {
  case CUDA_ERROR_INVALID_VALUE: return "invalid argument";
  case CUDA_ERROR_OUT_OF_MEMORY: return "out of memory";
  case CUDA_ERROR_NOT_INITIALIZED: return "initialization error";
  case CUDA_ERROR_DEINITIALIZED: return "driver shutting down";
  case CUDA_ERROR_PROFILER_DISABLED: return "profiler disabled while using external profiling tool";
  case CUDA_ERROR_STUB_LIBRARY: return "CUDA driver is a stub library";
  case CUDA_ERROR_DEVICE_UNAVAILABLE: return "CUDA-capable device(s) is/are busy or unavailable";
  default: return cudaGetErrorString(cudaError_t(int(e)));
  }
}

// --- profiler control: no external profiler attaches to ptxsim, so these do nothing ----------

DRIVER_API CUresult cuProfilerInitialize(const char *, const char *, CUoutput_mode) {
  DRIVER_TRACE();
  return CUDA_SUCCESS;
}
DRIVER_API CUresult cuProfilerStart() {
  DRIVER_TRACE();
  return CUDA_SUCCESS;
}
DRIVER_API CUresult cuProfilerStop() {
  DRIVER_TRACE();
  return CUDA_SUCCESS;
}

// --- the runtime's doors into the driver (same library, same Context) ----------------------

DRIVER_API cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
                                                        unsigned int cudaVersion,
                                                        unsigned long long flags,
                                                        cudaDriverEntryPointQueryResult *status) {
  CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  CUresult r = procAddress(symbol, funcPtr, int(cudaVersion), flags, &st);
  if (status)
    *status = cudaDriverEntryPointQueryResult(st);
  if (r == CUDA_ERROR_INVALID_VALUE)
    return ptxsim::runtime::ret(cudaErrorInvalidValue);
  return cudaSuccess; // a symbol that is not found is reported in `status`, as CUDA does
}

DRIVER_API cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
                                               unsigned long long flags,
                                               cudaDriverEntryPointQueryResult *status) {
  return cudaGetDriverEntryPointByVersion(symbol, funcPtr, CUDART_VERSION, flags, status);
}

DRIVER_API cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr,
                                                    unsigned long long flags,
                                                    cudaDriverEntryPointQueryResult *status) {
  return cudaGetDriverEntryPointByVersion(symbol, funcPtr, CUDART_VERSION, flags, status);
}

DRIVER_API cudaError_t cudaGetDriverEntryPointByVersion_ptsz(
    const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
    cudaDriverEntryPointQueryResult *status) {
  return cudaGetDriverEntryPointByVersion(symbol, funcPtr, cudaVersion, flags, status);
}

/// The CUfunction of a kernel registered by the program (a runtime KernelEntry: the driver
/// launches it like any other).
DRIVER_API cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr) {
  if (!functionPtr)
    return ptxsim::runtime::ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_ASYNC;
  KernelEntry *k = symbolPtr ? ctx.findKernel(symbolPtr) : nullptr;
  if (!k)
    return ptxsim::runtime::ret(cudaErrorInvalidDeviceFunction);
  *functionPtr = reinterpret_cast<cudaFunction_t>(k);
  return cudaSuccess;
}

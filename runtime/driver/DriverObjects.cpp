// Driver-API modules, functions, launches, memory, streams, events and occupancy: each call is
// the runtime's operation on the same Context (see DriverTables.h for how handles map).

#include "runtime/driver/DriverApi.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace ptxsim::runtime;
using namespace ptxsim::driver;

namespace {
FatbinModule *mod(CUmodule m) { return reinterpret_cast<FatbinModule *>(m); }
FatbinModule *mod(CUlibrary l) { return reinterpret_cast<FatbinModule *>(l); }
void *ptr(CUdeviceptr p) { return reinterpret_cast<void *>(p); }
cudaStream_t stream(CUstream s) { return reinterpret_cast<cudaStream_t>(s); }
cudaEvent_t event(CUevent e) { return reinterpret_cast<cudaEvent_t>(e); }

/// Reads a whole file, NUL-terminated (PTX text needs the terminator).
bool readFile(const char *path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::stringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  out.push_back('\0');
  return true;
}

/// The live driver kernel behind a handle (loading registered modules if needed), or null.
KernelEntry *liveKernel(Context &ctx, const void *f) {
  KernelEntry *k = f ? ctx.findKernel(f) : nullptr;
  return k && k->kernel ? k : nullptr;
}
} // namespace

CUresult ptxsim::driver::loadModuleImage(CUmodule *module, const void *image, bool lazy) {
  if (!module || !image)
    return CUDA_ERROR_INVALID_VALUE;
  PTXSIM_LOCK;
  cudaError_t err;
  FatbinModule *fb = ctx.loadImage(image, err, lazy);
  if (!fb)
    return err == cudaErrorInvalidPtx ? CUDA_ERROR_INVALID_PTX : toCu(err);
  *module = reinterpret_cast<CUmodule>(fb);
  return CUDA_SUCCESS;
}

// --- modules and libraries -------------------------------------------------------------------

DRIVER_API CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  DRIVER_TRACE();
  return loadModuleImage(module, image);
}

DRIVER_API CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                                       CUjit_option *options, void **values) {
  DRIVER_TRACE();
  // JIT options tune NVIDIA's PTX compiler; ptxsim runs the PTX itself. Logs come back empty.
  for (unsigned i = 0; options && values && i < numOptions; ++i)
    if ((options[i] == CU_JIT_INFO_LOG_BUFFER || options[i] == CU_JIT_ERROR_LOG_BUFFER) &&
        values[i])
      static_cast<char *>(values[i])[0] = '\0';
  return loadModuleImage(module, image);
}

DRIVER_API CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin) {
  DRIVER_TRACE();
  return loadModuleImage(module, fatCubin);
}

DRIVER_API CUresult cuModuleLoad(CUmodule *module, const char *fname) {
  DRIVER_TRACE();
  if (!module || !fname)
    return CUDA_ERROR_INVALID_VALUE;
  std::string image;
  if (!readFile(fname, image)) {
    std::fprintf(stderr, "ptxsim: cuModuleLoad: cannot open '%s'\n", fname);
    return CUDA_ERROR_FILE_NOT_FOUND;
  }
  return loadModuleImage(module, image.data()); // the module keeps its own copy of the PTX
}

DRIVER_API CUresult cuModuleUnload(CUmodule module) {
  DRIVER_TRACE();
  PTXSIM_LOCK;
  if (!ctx.validModule(mod(module)))
    return CUDA_ERROR_INVALID_HANDLE;
  mod(module)->unregistered = true; // the engine keeps its code: handles may outlive the module
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuModuleGetFunction(CUfunction *f, CUmodule module, const char *name) {
  DRIVER_TRACE();
  if (!f || !name)
    return CUDA_ERROR_INVALID_VALUE;
  PTXSIM_LOCK_ASYNC;
  if (!ctx.validModule(mod(module)))
    return CUDA_ERROR_INVALID_HANDLE;
  if (cudaError_t e = ctx.ensureModule(mod(module)))
    return e == cudaErrorInvalidPtx ? CUDA_ERROR_INVALID_PTX : toCu(e);
  KernelEntry *k = ctx.moduleFunction(mod(module), name);
  if (!k)
    return CUDA_ERROR_NOT_FOUND;
  *f = reinterpret_cast<CUfunction>(k);
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule module,
                                         const char *name) {
  DRIVER_TRACE();
  if (!name)
    return CUDA_ERROR_INVALID_VALUE;
  PTXSIM_LOCK_ASYNC;
  if (!ctx.validModule(mod(module)))
    return CUDA_ERROR_INVALID_HANDLE;
  if (cudaError_t e = ctx.ensureModule(mod(module)))
    return e == cudaErrorInvalidPtx ? CUDA_ERROR_INVALID_PTX : toCu(e);
  const ptxsim::ptx::exec::GlobalSymbol *g = ctx.moduleGlobal(mod(module), name);
  if (!g)
    return CUDA_ERROR_NOT_FOUND;
  if (dptr)
    *dptr = CUdeviceptr(g->addr);
  if (bytes)
    *bytes = size_t(g->size);
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode *mode) {
  DRIVER_TRACE();
  if (!mode)
    return CUDA_ERROR_INVALID_VALUE;
  *mode = CU_MODULE_EAGER_LOADING;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *,
                                      void **, unsigned int, CUlibraryOption *, void **,
                                      unsigned int) {
  DRIVER_TRACE();
  return loadModuleImage(reinterpret_cast<CUmodule *>(library), code, /*lazy=*/true);
}

DRIVER_API CUresult cuLibraryLoadFromFile(CUlibrary *library, const char *fileName,
                                          CUjit_option *, void **, unsigned int,
                                          CUlibraryOption *, void **, unsigned int) {
  DRIVER_TRACE();
  return cuModuleLoad(reinterpret_cast<CUmodule *>(library), fileName);
}

DRIVER_API CUresult cuLibraryUnload(CUlibrary library) {
  DRIVER_TRACE();
  return cuModuleUnload(reinterpret_cast<CUmodule>(library));
}

DRIVER_API CUresult cuLibraryGetModule(CUmodule *module, CUlibrary library) {
  DRIVER_TRACE();
  if (!module)
    return CUDA_ERROR_INVALID_VALUE;
  PTXSIM_LOCK_ASYNC;
  if (!ctx.validModule(mod(library)))
    return CUDA_ERROR_INVALID_HANDLE;
  *module = reinterpret_cast<CUmodule>(library);
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuLibraryGetKernel(CUkernel *kernel, CUlibrary library, const char *name) {
  DRIVER_TRACE();
  return cuModuleGetFunction(reinterpret_cast<CUfunction *>(kernel),
                             reinterpret_cast<CUmodule>(library), name);
}

DRIVER_API CUresult cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library,
                                       const char *name) {
  DRIVER_TRACE();
  return cuModuleGetGlobal_v2(dptr, bytes, reinterpret_cast<CUmodule>(library), name);
}

DRIVER_API CUresult cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, CUlibrary library,
                                        const char *name) {
  DRIVER_TRACE();
  return cuModuleGetGlobal_v2(dptr, bytes, reinterpret_cast<CUmodule>(library), name);
}

DRIVER_API CUresult cuKernelGetFunction(CUfunction *f, CUkernel kernel) {
  DRIVER_TRACE();
  if (!f)
    return CUDA_ERROR_INVALID_VALUE;
  PTXSIM_LOCK_ASYNC;
  if (!ctx.findKernel(kernel))
    return kNotAFunction;
  *f = reinterpret_cast<CUfunction>(kernel); // one device, one context: the same object
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuKernelGetLibrary(CUlibrary *library, CUkernel kernel) {
  DRIVER_TRACE();
  if (!library)
    return CUDA_ERROR_INVALID_VALUE;
  PTXSIM_LOCK_ASYNC;
  KernelEntry *k = ctx.findKernel(kernel);
  if (!k)
    return kNotAFunction;
  *library = reinterpret_cast<CUlibrary>(k->fatbin);
  return CUDA_SUCCESS;
}

// --- functions -------------------------------------------------------------------------------

DRIVER_API CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction f) {
  DRIVER_TRACE();
  if (!pi)
    return CUDA_ERROR_INVALID_VALUE;
  cudaFuncAttributes a;
  if (CUresult r = viaRuntime([&] { return cudaFuncGetAttributes(&a, f); }))
    return r;
  switch (attrib) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = a.maxThreadsPerBlock; break;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = int(a.sharedSizeBytes); break;
  case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *pi = int(a.constSizeBytes); break;
  case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *pi = int(a.localSizeBytes); break;
  case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = a.numRegs; break;
  case CU_FUNC_ATTRIBUTE_PTX_VERSION: *pi = a.ptxVersion; break;
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = a.binaryVersion; break;
  case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *pi = a.cacheModeCA; break;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = a.maxDynamicSharedSizeBytes; break;
  case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *pi = a.preferredShmemCarveout; break;
  case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: *pi = a.clusterDimMustBeSet; break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: *pi = a.requiredClusterWidth; break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT: *pi = a.requiredClusterHeight; break;
  case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: *pi = a.requiredClusterDepth; break;
  case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    *pi = a.nonPortableClusterSizeAllowed;
    break;
  case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
    *pi = a.clusterSchedulingPolicyPreference;
    break;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute attrib, int value) {
  DRIVER_TRACE();
  // The settable CUfunction_attribute values number like cudaFuncAttribute.
  return viaRuntime([&] { return cudaFuncSetAttribute(f, cudaFuncAttribute(attrib), value); });
}

DRIVER_API CUresult cuFuncSetCacheConfig(CUfunction f, CUfunc_cache config) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaFuncSetCacheConfig(f, cudaFuncCache(config)); });
}

DRIVER_API CUresult cuFuncSetSharedMemConfig(CUfunction f, CUsharedconfig config) {
  DRIVER_TRACE();
  PTXSIM_LOCK_ASYNC;
  if (!ctx.findKernel(f))
    return kNotAFunction;
  // only the three named settings (an H200, through the runtime's cudaFuncSetSharedMemConfig)
  return unsigned(config) > unsigned(CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE)
             ? CUDA_ERROR_INVALID_VALUE
             : CUDA_SUCCESS;
}

DRIVER_API CUresult cuKernelGetAttribute(int *pi, CUfunction_attribute attrib, CUkernel kernel,
                                         CUdevice dev) {
  DRIVER_TRACE();
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  return cuFuncGetAttribute(pi, attrib, reinterpret_cast<CUfunction>(kernel));
}

DRIVER_API CUresult cuKernelSetAttribute(CUfunction_attribute attrib, int value, CUkernel kernel,
                                         CUdevice dev) {
  DRIVER_TRACE();
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  return cuFuncSetAttribute(reinterpret_cast<CUfunction>(kernel), attrib, value);
}

DRIVER_API CUresult cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice dev) {
  DRIVER_TRACE();
  if (dev != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  return cuFuncSetCacheConfig(reinterpret_cast<CUfunction>(kernel), config);
}

namespace {
CUresult functionName(const char **name, const void *f) {
  if (!name)
    return CUDA_ERROR_INVALID_VALUE;
  PTXSIM_LOCK_ASYNC;
  KernelEntry *k = ctx.findKernel(f);
  if (!k)
    return kNotAFunction;
  *name = k->deviceName.c_str();
  return CUDA_SUCCESS;
}

CUresult paramInfo(const void *f, size_t index, size_t *offset, size_t *size) {
  PTXSIM_LOCK_ASYNC;
  KernelEntry *k = liveKernel(ctx, f);
  if (!k)
    return kNotAFunction;
  if (index >= k->kernel->paramOffsets.size())
    return CUDA_ERROR_INVALID_VALUE;
  if (offset)
    *offset = k->kernel->paramOffsets[index];
  if (size)
    *size = k->kernel->paramSizes[index];
  return CUDA_SUCCESS;
}
} // namespace

DRIVER_API CUresult cuFuncGetName(const char **name, CUfunction f) {
  DRIVER_TRACE();
  return functionName(name, f);
}

DRIVER_API CUresult cuKernelGetName(const char **name, CUkernel k) {
  DRIVER_TRACE();
  return functionName(name, k);
}

DRIVER_API CUresult cuFuncGetParamInfo(CUfunction f, size_t index, size_t *offset, size_t *size) {
  DRIVER_TRACE();
  return paramInfo(f, index, offset, size);
}

DRIVER_API CUresult cuKernelGetParamInfo(CUkernel k, size_t index, size_t *offset, size_t *size) {
  DRIVER_TRACE();
  return paramInfo(k, index, offset, size);
}

DRIVER_API CUresult cuFuncGetModule(CUmodule *module, CUfunction f) {
  DRIVER_TRACE();
  return cuKernelGetLibrary(reinterpret_cast<CUlibrary *>(module), reinterpret_cast<CUkernel>(f));
}

DRIVER_API CUresult cuFuncIsLoaded(CUfunctionLoadingState *state, CUfunction f) {
  DRIVER_TRACE();
  if (!state)
    return CUDA_ERROR_INVALID_VALUE;
  PTXSIM_LOCK_ASYNC;
  if (!ctx.findKernel(f))
    return kNotAFunction;
  *state = CU_FUNCTION_LOADING_STATE_LOADED;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuFuncLoad(CUfunction f) {
  DRIVER_TRACE();
  PTXSIM_LOCK_ASYNC;
  return ctx.findKernel(f) ? CUDA_SUCCESS : kNotAFunction;
}

// --- launches --------------------------------------------------------------------------------

namespace {
/// The kernel's arguments as one pointer per parameter: `params` as given, or pointers into the
/// CU_LAUNCH_PARAM_BUFFER_POINTER buffer of `extra` at the kernel's parameter offsets.
CUresult launchArgs(Context &ctx, KernelEntry *k, void **params, void **extra,
                    std::vector<void *> &args, void **&out) {
  out = params;
  if (params || !extra)
    return params && extra ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
  char *buffer = nullptr;
  size_t size = 0;
  for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
      buffer = static_cast<char *>(extra[i + 1]);
    else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
      size = *static_cast<size_t *>(extra[i + 1]);
    else
      return CUDA_ERROR_INVALID_VALUE;
  }
  if (!k->kernel) {
    ctx.ensureLoaded();
    if (!k->kernel)
      return CUDA_ERROR_INVALID_HANDLE;
  }
  const auto &offsets = k->kernel->paramOffsets;
  if (!buffer || size < k->kernel->paramBytes)
    return offsets.empty() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  args.resize(offsets.size());
  for (size_t i = 0; i < offsets.size(); ++i)
    args[i] = buffer + offsets[i];
  out = args.data();
  return CUDA_SUCCESS;
}

CUresult launch(CUfunction f, dim3 grid, dim3 block, unsigned shmem, CUstream s, void **params,
                void **extra, bool cooperative) {
  PTXSIM_LOCK_ASYNC;
  KernelEntry *k = f ? ctx.findKernel(f) : nullptr;
  if (!k)
    return kNotAFunction;
  std::vector<void *> storage;
  void **args;
  if (CUresult r = launchArgs(ctx, k, params, extra, storage, args))
    return r;
  return toCu(ctx.launch(k, grid, block, args, shmem, stream(s), cooperative));
}
} // namespace

DRIVER_API CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                   unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                                   CUstream s, void **params, void **extra) {
  DRIVER_TRACE();
  return launch(f, dim3(gx, gy, gz), dim3(bx, by, bz), shmem, s, params, extra, false);
}

DRIVER_API CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                              unsigned bx, unsigned by, unsigned bz,
                                              unsigned shmem, CUstream s, void **params) {
  DRIVER_TRACE();
  return launch(f, dim3(gx, gy, gz), dim3(bx, by, bz), shmem, s, params, nullptr, true);
}

DRIVER_API CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **params,
                                     void **extra) {
  DRIVER_TRACE();
  if (!config)
    return CUDA_ERROR_INVALID_VALUE;
  std::vector<void *> storage;
  void **args;
  {
    PTXSIM_LOCK_ASYNC;
    KernelEntry *k = f ? ctx.findKernel(f) : nullptr;
    if (!k)
      return kNotAFunction;
    if (CUresult r = launchArgs(ctx, k, params, extra, storage, args))
      return r;
  }
  // CUlaunchAttribute and cudaLaunchAttribute share layout and numbering; the runtime checks
  // and applies them (cooperative, clusters, events, access policy windows).
  cudaLaunchConfig_t c{};
  c.gridDim = dim3(config->gridDimX, config->gridDimY, config->gridDimZ);
  c.blockDim = dim3(config->blockDimX, config->blockDimY, config->blockDimZ);
  c.dynamicSmemBytes = config->sharedMemBytes;
  c.stream = stream(config->hStream);
  c.attrs = reinterpret_cast<cudaLaunchAttribute *>(config->attrs);
  c.numAttrs = config->numAttrs;
  return viaRuntime([&] { return cudaLaunchKernelExC(&c, f, args); });
}

DRIVER_API CUresult cuLaunchHostFunc(CUstream s, CUhostFn fn, void *userData) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaLaunchHostFunc(stream(s), fn, userData); });
}

// --- memory ----------------------------------------------------------------------------------

DRIVER_API CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes) {
  DRIVER_TRACE();
  if (!dptr)
    return CUDA_ERROR_INVALID_VALUE;
  if (bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  return viaRuntime([&] { return cudaMalloc(reinterpret_cast<void **>(dptr), bytes); });
}

DRIVER_API CUresult cuMemFree_v2(CUdeviceptr dptr) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaFree(ptr(dptr)); });
}

DRIVER_API CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width,
                                       size_t height, unsigned int elementSize) {
  DRIVER_TRACE();
  if (elementSize != 4 && elementSize != 8 && elementSize != 16)
    return CUDA_ERROR_INVALID_VALUE;
  return viaRuntime(
      [&] { return cudaMallocPitch(reinterpret_cast<void **>(dptr), pitch, width, height); });
}

DRIVER_API CUresult cuMemAllocHost_v2(void **pp, size_t bytes) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaMallocHost(pp, bytes); });
}

DRIVER_API CUresult cuMemHostAlloc(void **pp, size_t bytes, unsigned int flags) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaHostAlloc(pp, bytes, flags); });
}

DRIVER_API CUresult cuMemFreeHost(void *p) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaFreeHost(p); });
}

DRIVER_API CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *dptr, void *p, unsigned int flags) {
  DRIVER_TRACE();
  return viaRuntime(
      [&] { return cudaHostGetDevicePointer(reinterpret_cast<void **>(dptr), p, flags); });
}

DRIVER_API CUresult cuMemHostGetFlags(unsigned int *flags, void *p) {
  DRIVER_TRACE();
  if (!flags)
    return CUDA_ERROR_INVALID_VALUE;
  cudaPointerAttributes a;
  if (CUresult r = viaRuntime([&] { return cudaPointerGetAttributes(&a, p); }))
    return r;
  if (a.type != cudaMemoryTypeHost)
    return CUDA_ERROR_INVALID_VALUE;
  *flags = CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuMemHostRegister_v2(void *p, size_t bytes, unsigned int flags) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaHostRegister(p, bytes, flags); });
}

DRIVER_API CUresult cuMemHostUnregister(void *p) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaHostUnregister(p); });
}

DRIVER_API CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytes, unsigned int flags) {
  DRIVER_TRACE();
  return viaRuntime(
      [&] { return cudaMallocManaged(reinterpret_cast<void **>(dptr), bytes, flags); });
}

DRIVER_API CUresult cuMemGetInfo_v2(size_t *freeBytes, size_t *total) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaMemGetInfo(freeBytes, total); });
}

DRIVER_API CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr dptr) {
  DRIVER_TRACE();
  PTXSIM_LOCK_ASYNC;
  ptxsim::ptx::exec::Allocation a;
  if (!ctx.engine().memory().lookup(uint64_t(dptr), a))
    return CUDA_ERROR_NOT_FOUND;
  if (base)
    *base = CUdeviceptr(a.base);
  if (size)
    *size = size_t(a.size);
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuIpcGetMemHandle(CUipcMemHandle *handle, CUdeviceptr dptr) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaIpcGetMemHandle(reinterpret_cast<cudaIpcMemHandle_t *>(handle), ptr(dptr));
  });
}

DRIVER_API CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *dptr, CUipcMemHandle handle,
                                          unsigned int flags) {
  DRIVER_TRACE();
  cudaIpcMemHandle_t h;
  static_assert(sizeof h == sizeof handle, "IPC handle sizes differ");
  std::memcpy(&h, &handle, sizeof h);
  return viaRuntime(
      [&] { return cudaIpcOpenMemHandle(reinterpret_cast<void **>(dptr), h, flags); });
}

DRIVER_API CUresult cuIpcCloseMemHandle(CUdeviceptr dptr) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaIpcCloseMemHandle(ptr(dptr)); });
}

DRIVER_API CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytes, CUstream s) {
  DRIVER_TRACE();
  return viaRuntime(
      [&] { return cudaMallocAsync(reinterpret_cast<void **>(dptr), bytes, stream(s)); });
}

DRIVER_API CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool,
                                            CUstream s) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaMallocFromPoolAsync(reinterpret_cast<void **>(dptr), bytes,
                                   reinterpret_cast<cudaMemPool_t>(pool), stream(s));
  });
}

DRIVER_API CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream s) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaFreeAsync(ptr(dptr), stream(s)); });
}

DRIVER_API CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaMemPoolCreate(reinterpret_cast<cudaMemPool_t *>(pool),
                             reinterpret_cast<const cudaMemPoolProps *>(props));
  });
}

DRIVER_API CUresult cuMemPoolDestroy(CUmemoryPool pool) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaMemPoolDestroy(reinterpret_cast<cudaMemPool_t>(pool)); });
}

DRIVER_API CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t keep) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaMemPoolTrimTo(reinterpret_cast<cudaMemPool_t>(pool), keep); });
}

DRIVER_API CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *v) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaMemPoolSetAttribute(reinterpret_cast<cudaMemPool_t>(pool), cudaMemPoolAttr(attr), v);
  });
}

DRIVER_API CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *v) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaMemPoolGetAttribute(reinterpret_cast<cudaMemPool_t>(pool), cudaMemPoolAttr(attr), v);
  });
}

DRIVER_API CUresult cuMemPrefetchAsync_v2(CUdeviceptr, size_t, CUmemLocation, unsigned int,
                                          CUstream s) {
  DRIVER_TRACE();
  PTXSIM_LOCK_ASYNC;
  return ctx.validStream(stream(s)) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

DRIVER_API CUresult cuMemAdvise_v2(CUdeviceptr, size_t, CUmem_advise, CUmemLocation) {
  DRIVER_TRACE();
  return CUDA_SUCCESS; // placement hints: one memory
}

// Copies. Device memory is host-addressable (one arena), so every form is a checked memmove;
// the runtime's copies check the ranges and account host<->device traffic in timing mode.
namespace {
CUresult copy(void *dst, const void *src, size_t n, cudaMemcpyKind kind, CUstream s,
              bool async) {
  return viaRuntime([&] {
    return async ? cudaMemcpyAsync(dst, src, n, kind, stream(s)) : cudaMemcpy(dst, src, n, kind);
  });
}
} // namespace

DRIVER_API CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  DRIVER_TRACE();
  return copy(ptr(dst), ptr(src), n, cudaMemcpyDefault, nullptr, false);
}
DRIVER_API CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  DRIVER_TRACE();
  return copy(ptr(dst), ptr(src), n, cudaMemcpyDefault, s, true);
}
DRIVER_API CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
  DRIVER_TRACE();
  return copy(ptr(dst), src, n, cudaMemcpyHostToDevice, nullptr, false);
}
DRIVER_API CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
  DRIVER_TRACE();
  return copy(dst, ptr(src), n, cudaMemcpyDeviceToHost, nullptr, false);
}
DRIVER_API CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  DRIVER_TRACE();
  return copy(ptr(dst), ptr(src), n, cudaMemcpyDeviceToDevice, nullptr, false);
}
DRIVER_API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s) {
  DRIVER_TRACE();
  return copy(ptr(dst), src, n, cudaMemcpyHostToDevice, s, true);
}
DRIVER_API CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s) {
  DRIVER_TRACE();
  return copy(dst, ptr(src), n, cudaMemcpyDeviceToHost, s, true);
}
DRIVER_API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  DRIVER_TRACE();
  return copy(ptr(dst), ptr(src), n, cudaMemcpyDeviceToDevice, s, true);
}
DRIVER_API CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext, CUdeviceptr src, CUcontext, size_t n) {
  DRIVER_TRACE();
  return copy(ptr(dst), ptr(src), n, cudaMemcpyDeviceToDevice, nullptr, false);
}
DRIVER_API CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext, CUdeviceptr src, CUcontext,
                                      size_t n, CUstream s) {
  DRIVER_TRACE();
  return copy(ptr(dst), ptr(src), n, cudaMemcpyDeviceToDevice, s, true);
}

namespace {
/// The address a 2D/3D copy description names on one side (copies with arrays go to
/// copyWithArrays).
bool side(CUmemorytype type, const void *host, CUdeviceptr dev, size_t x, size_t y, size_t z,
          size_t pitch, size_t height, char *&out, cudaMemcpyKind &kind) {
  switch (type) {
  case CU_MEMORYTYPE_HOST:
    out = static_cast<char *>(const_cast<void *>(host));
    kind = cudaMemcpyHostToHost;
    break;
  case CU_MEMORYTYPE_DEVICE:
    out = reinterpret_cast<char *>(dev);
    kind = cudaMemcpyDeviceToDevice;
    break;
  case CU_MEMORYTYPE_UNIFIED:
    out = reinterpret_cast<char *>(dev);
    kind = cudaMemcpyDefault;
    break;
  default:
    return false;
  }
  if (out)
    out += x + pitch * (y + height * z);
  return true;
}

cudaMemcpyKind combine(cudaMemcpyKind src, cudaMemcpyKind dst) {
  if (src == cudaMemcpyDefault || dst == cudaMemcpyDefault)
    return cudaMemcpyDefault;
  bool srcDev = src == cudaMemcpyDeviceToDevice, dstDev = dst == cudaMemcpyDeviceToDevice;
  if (srcDev && dstDev)
    return cudaMemcpyDeviceToDevice;
  if (srcDev)
    return cudaMemcpyDeviceToHost;
  if (dstDev)
    return cudaMemcpyHostToDevice;
  return cudaMemcpyHostToHost;
}

CUresult copy3D(const CUDA_MEMCPY3D &p, CUstream s, bool async, bool twoD = false) {
  if (p.srcMemoryType == CU_MEMORYTYPE_ARRAY || p.dstMemoryType == CU_MEMORYTYPE_ARRAY)
    return copyWithArrays(p, s, async, twoD);
  char *src, *dst;
  cudaMemcpyKind sk, dk;
  if (!side(p.srcMemoryType, p.srcHost, p.srcDevice, p.srcXInBytes, p.srcY, p.srcZ, p.srcPitch,
            p.srcHeight, src, sk) ||
      !side(p.dstMemoryType, p.dstHost, p.dstDevice, p.dstXInBytes, p.dstY, p.dstZ, p.dstPitch,
            p.dstHeight, dst, dk))
    return CUDA_ERROR_INVALID_VALUE;
  cudaMemcpyKind kind = combine(sk, dk);
  if (p.Depth > 1) { // every slice before any is written (each 2D copy checks its own)
    CUresult r = viaRuntime([&]() -> cudaError_t {
      PTXSIM_LOCK;
      for (size_t z = 0; z < p.Depth; ++z)
        if (cudaError_t e = checkCopy2D(ctx, dst + z * p.dstPitch * p.dstHeight, p.dstPitch,
                                        src + z * p.srcPitch * p.srcHeight, p.srcPitch,
                                        p.WidthInBytes, p.Height, kind))
          return e;
      return cudaSuccess;
    });
    if (r)
      return r;
  }
  for (size_t z = 0; z < std::max<size_t>(p.Depth, 1); ++z) {
    char *d = dst + z * p.dstPitch * p.dstHeight, *sp = src + z * p.srcPitch * p.srcHeight;
    CUresult r = viaRuntime([&] {
      return async ? cudaMemcpy2DAsync(d, p.dstPitch, sp, p.srcPitch, p.WidthInBytes, p.Height,
                                       kind, stream(s))
                   : cudaMemcpy2D(d, p.dstPitch, sp, p.srcPitch, p.WidthInBytes, p.Height, kind);
    });
    if (r)
      return r;
  }
  return CUDA_SUCCESS;
}

CUDA_MEMCPY3D from2D(const CUDA_MEMCPY2D &p) {
  CUDA_MEMCPY3D q{};
  q.srcXInBytes = p.srcXInBytes;
  q.srcY = p.srcY;
  q.srcMemoryType = p.srcMemoryType;
  q.srcHost = p.srcHost;
  q.srcDevice = p.srcDevice;
  q.srcArray = p.srcArray;
  q.srcPitch = p.srcPitch;
  q.dstXInBytes = p.dstXInBytes;
  q.dstY = p.dstY;
  q.dstMemoryType = p.dstMemoryType;
  q.dstHost = p.dstHost;
  q.dstDevice = p.dstDevice;
  q.dstArray = p.dstArray;
  q.dstPitch = p.dstPitch;
  q.WidthInBytes = p.WidthInBytes;
  q.Height = p.Height;
  q.Depth = 1;
  return q;
}
} // namespace

DRIVER_API CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *p) {
  DRIVER_TRACE();
  return p ? copy3D(from2D(*p), nullptr, false, true) : CUDA_ERROR_INVALID_VALUE;
}
DRIVER_API CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *p) {
  DRIVER_TRACE();
  return p ? copy3D(from2D(*p), nullptr, false, true) : CUDA_ERROR_INVALID_VALUE;
}
DRIVER_API CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *p, CUstream s) {
  DRIVER_TRACE();
  return p ? copy3D(from2D(*p), s, true, true) : CUDA_ERROR_INVALID_VALUE;
}
DRIVER_API CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *p) {
  DRIVER_TRACE();
  return p ? copy3D(*p, nullptr, false) : CUDA_ERROR_INVALID_VALUE;
}
DRIVER_API CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *p, CUstream s) {
  DRIVER_TRACE();
  return p ? copy3D(*p, s, true) : CUDA_ERROR_INVALID_VALUE;
}

namespace {
CUDA_MEMCPY3D fromPeer(const CUDA_MEMCPY3D_PEER &p) {
  CUDA_MEMCPY3D q{};
  q.srcXInBytes = p.srcXInBytes;
  q.srcY = p.srcY;
  q.srcZ = p.srcZ;
  q.srcLOD = p.srcLOD;
  q.srcMemoryType = p.srcMemoryType;
  q.srcHost = p.srcHost;
  q.srcDevice = p.srcDevice;
  q.srcArray = p.srcArray;
  q.srcPitch = p.srcPitch;
  q.srcHeight = p.srcHeight;
  q.dstXInBytes = p.dstXInBytes;
  q.dstY = p.dstY;
  q.dstZ = p.dstZ;
  q.dstLOD = p.dstLOD;
  q.dstMemoryType = p.dstMemoryType;
  q.dstHost = p.dstHost;
  q.dstDevice = p.dstDevice;
  q.dstArray = p.dstArray;
  q.dstPitch = p.dstPitch;
  q.dstHeight = p.dstHeight;
  q.WidthInBytes = p.WidthInBytes;
  q.Height = p.Height;
  q.Depth = p.Depth;
  return q;
}
} // namespace

// One device: a peer copy is a copy (the contexts name the same device).
DRIVER_API CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *p) {
  DRIVER_TRACE();
  return p ? copy3D(fromPeer(*p), nullptr, false) : CUDA_ERROR_INVALID_VALUE;
}
DRIVER_API CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *p, CUstream s) {
  DRIVER_TRACE();
  return p ? copy3D(fromPeer(*p), s, true) : CUDA_ERROR_INVALID_VALUE;
}

// Sets. 8-bit sets are the runtime's; 16- and 32-bit patterns are written here after the same
// range check, after the queued work (PTXSIM_LOCK drains it), so the async forms are the same.
namespace {
template <class T>
CUresult fill2D(CUdeviceptr dst, size_t pitch, T value, size_t width, size_t height, CUstream s) {
  // A capturing stream records the set as the runtime's byte-wise cudaMemset2DAsync, which can
  // hold a 16- or 32-bit pattern only when all its bytes are equal (0, ~0, ...).
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  bool byteWise = std::all_of(bytes, bytes + sizeof(T), [&](unsigned char b) { return b == bytes[0]; });
  if (!byteWise) {
    cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
    viaRuntime([&] { return cudaStreamIsCapturing(stream(s), &cs); });
    if (cs != cudaStreamCaptureStatusNone)
      return CUresult(unsupportedCall("a 16- or 32-bit memset of a non-repeating byte pattern "
                                      "during stream capture"));
  }
  PTXSIM_LOCK;
  if (ctx.sticky())
    return toCu(ctx.sticky());
  if (!ctx.validStream(stream(s)))
    return CUDA_ERROR_INVALID_HANDLE;
  if (width * sizeof(T) > pitch && height > 1)
    return CUDA_ERROR_INVALID_VALUE; // rows would overlap (one row may be wider, as on an H200)
  if (byteWise)
    if (auto c = graphHooks().captureMemset2D(stream(s), reinterpret_cast<void *>(dst), pitch,
                                              int(bytes[0]), width * sizeof(T), height))
      return toCu(*c);
  if (width == 0 || height == 0)
    return CUDA_SUCCESS;
  if (dst % sizeof(T) || pitch % sizeof(T))
    return CUDA_ERROR_INVALID_VALUE;
  size_t span, rowBytes;
  if (__builtin_mul_overflow(pitch, height - 1, &span) ||
      __builtin_mul_overflow(width, sizeof(T), &rowBytes) ||
      __builtin_add_overflow(span, rowBytes, &span) ||
      !ctx.engine().memory().valid(uint64_t(dst), span))
    return CUDA_ERROR_INVALID_VALUE;
  for (size_t y = 0; y < height; ++y) {
    T *row = reinterpret_cast<T *>(dst + y * pitch);
    std::fill(row, row + width, value);
    ctx.noteDeviceFill(row, width * sizeof(T)); // row by row, as the runtime's cudaMemset2D
  }
  return CUDA_SUCCESS;
}
} // namespace

DRIVER_API CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char v, size_t n) {
  DRIVER_TRACE();
  return fill2D<unsigned char>(dst, n, v, n, 1, nullptr);
}
DRIVER_API CUresult cuMemsetD16_v2(CUdeviceptr dst, unsigned short v, size_t n) {
  DRIVER_TRACE();
  return fill2D<unsigned short>(dst, n * 2, v, n, 1, nullptr);
}
DRIVER_API CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int v, size_t n) {
  DRIVER_TRACE();
  return fill2D<unsigned int>(dst, n * 4, v, n, 1, nullptr);
}
DRIVER_API CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream s) {
  DRIVER_TRACE();
  return fill2D<unsigned char>(dst, n, v, n, 1, s);
}
DRIVER_API CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n, CUstream s) {
  DRIVER_TRACE();
  return fill2D<unsigned short>(dst, n * 2, v, n, 1, s);
}
DRIVER_API CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, CUstream s) {
  DRIVER_TRACE();
  return fill2D<unsigned int>(dst, n * 4, v, n, 1, s);
}
DRIVER_API CUresult cuMemsetD2D8_v2(CUdeviceptr dst, size_t pitch, unsigned char v, size_t w,
                                    size_t h) {
  DRIVER_TRACE();
  return fill2D<unsigned char>(dst, pitch, v, w, h, nullptr);
}
DRIVER_API CUresult cuMemsetD2D16_v2(CUdeviceptr dst, size_t pitch, unsigned short v, size_t w,
                                     size_t h) {
  DRIVER_TRACE();
  return fill2D<unsigned short>(dst, pitch, v, w, h, nullptr);
}
DRIVER_API CUresult cuMemsetD2D32_v2(CUdeviceptr dst, size_t pitch, unsigned int v, size_t w,
                                     size_t h) {
  DRIVER_TRACE();
  return fill2D<unsigned int>(dst, pitch, v, w, h, nullptr);
}
DRIVER_API CUresult cuMemsetD2D8Async(CUdeviceptr dst, size_t pitch, unsigned char v, size_t w,
                                      size_t h, CUstream s) {
  DRIVER_TRACE();
  return fill2D<unsigned char>(dst, pitch, v, w, h, s);
}
DRIVER_API CUresult cuMemsetD2D16Async(CUdeviceptr dst, size_t pitch, unsigned short v, size_t w,
                                       size_t h, CUstream s) {
  DRIVER_TRACE();
  return fill2D<unsigned short>(dst, pitch, v, w, h, s);
}
DRIVER_API CUresult cuMemsetD2D32Async(CUdeviceptr dst, size_t pitch, unsigned int v, size_t w,
                                       size_t h, CUstream s) {
  DRIVER_TRACE();
  return fill2D<unsigned int>(dst, pitch, v, w, h, s);
}

namespace {
CUresult pointerAttribute(void *data, CUpointer_attribute attr, CUdeviceptr p) {
  if (!data)
    return CUDA_ERROR_INVALID_VALUE;
  cudaPointerAttributes a;
  if (CUresult r = viaRuntime([&] { return cudaPointerGetAttributes(&a, ptr(p)); }))
    return r;
  bool known = a.type != cudaMemoryTypeUnregistered;
  switch (attr) {
  case CU_POINTER_ATTRIBUTE_CONTEXT: {
    if (!known)
      return CUDA_ERROR_INVALID_VALUE;
    CUcontext c;
    cuCtxGetCurrent(&c);
    if (!c)
      cuDevicePrimaryCtxRetain(&c, 0);
    *static_cast<CUcontext *>(data) = c;
    return CUDA_SUCCESS;
  }
  case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
    if (!known)
      return CUDA_ERROR_INVALID_VALUE;
    *static_cast<unsigned *>(data) =
        a.type == cudaMemoryTypeHost ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
    if (!known)
      return CUDA_ERROR_INVALID_VALUE;
    *static_cast<CUdeviceptr *>(data) = CUdeviceptr(a.devicePointer);
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_HOST_POINTER:
    if (!known)
      return CUDA_ERROR_INVALID_VALUE;
    *static_cast<void **>(data) = a.hostPointer;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_IS_MANAGED:
    *static_cast<unsigned *>(data) = a.type == cudaMemoryTypeManaged;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
    if (!known)
      return CUDA_ERROR_INVALID_VALUE;
    *static_cast<int *>(data) = 0;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_MAPPED:
    *static_cast<unsigned *>(data) = known;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
  case CU_POINTER_ATTRIBUTE_RANGE_SIZE: {
    CUdeviceptr base;
    size_t size;
    if (CUresult r = cuMemGetAddressRange_v2(&base, &size, p))
      return r == CUDA_ERROR_NOT_FOUND ? CUDA_ERROR_INVALID_VALUE : r;
    if (attr == CU_POINTER_ATTRIBUTE_RANGE_START_ADDR)
      *static_cast<CUdeviceptr *>(data) = base;
    else
      *static_cast<size_t *>(data) = size;
    return CUDA_SUCCESS;
  }
  case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
    *static_cast<unsigned *>(data) = 1;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_BUFFER_ID:
    *static_cast<unsigned long long *>(data) = known ? (unsigned long long)a.devicePointer : 0;
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}
} // namespace

DRIVER_API CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attr, CUdeviceptr p) {
  DRIVER_TRACE();
  return pointerAttribute(data, attr, p);
}

DRIVER_API CUresult cuPointerGetAttributes(unsigned int n, CUpointer_attribute *attrs, void **data,
                                           CUdeviceptr p) {
  DRIVER_TRACE();
  if (!attrs || !data)
    return CUDA_ERROR_INVALID_VALUE;
  for (unsigned i = 0; i < n; ++i)
    if (pointerAttribute(data[i], attrs[i], p) != CUDA_SUCCESS && data[i])
      std::memset(data[i], 0, sizeof(void *)); // CUDA: an attribute that does not apply is zero
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuPointerSetAttribute(const void *, CUpointer_attribute attr, CUdeviceptr) {
  DRIVER_TRACE();
  return attr == CU_POINTER_ATTRIBUTE_SYNC_MEMOPS ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// --- streams ---------------------------------------------------------------------------------

DRIVER_API CUresult cuStreamCreate(CUstream *s, unsigned int flags) {
  DRIVER_TRACE();
  return viaRuntime(
      [&] { return cudaStreamCreateWithFlags(reinterpret_cast<cudaStream_t *>(s), flags); });
}
DRIVER_API CUresult cuStreamCreateWithPriority(CUstream *s, unsigned int flags, int priority) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaStreamCreateWithPriority(reinterpret_cast<cudaStream_t *>(s), flags, priority);
  });
}
DRIVER_API CUresult cuStreamDestroy_v2(CUstream s) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaStreamDestroy(stream(s)); });
}
DRIVER_API CUresult cuStreamSynchronize(CUstream s) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaStreamSynchronize(stream(s)); });
}
DRIVER_API CUresult cuStreamQuery(CUstream s) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaStreamQuery(stream(s)); });
}
DRIVER_API CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaStreamWaitEvent(stream(s), event(e), flags); });
}
DRIVER_API CUresult cuStreamGetFlags(CUstream s, unsigned int *flags) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaStreamGetFlags(stream(s), flags); });
}
DRIVER_API CUresult cuStreamGetPriority(CUstream s, int *priority) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaStreamGetPriority(stream(s), priority); });
}
DRIVER_API CUresult cuStreamGetId(CUstream s, unsigned long long *id) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaStreamGetId(stream(s), id); });
}
DRIVER_API CUresult cuStreamGetDevice(CUstream s, CUdevice *dev) {
  DRIVER_TRACE();
  int d = 0;
  CUresult r = viaRuntime([&] { return cudaStreamGetDevice(stream(s), &d); });
  if (r == CUDA_SUCCESS && dev)
    *dev = d;
  return r;
}
DRIVER_API CUresult cuStreamGetCtx(CUstream s, CUcontext *pctx) {
  DRIVER_TRACE();
  if (!pctx)
    return CUDA_ERROR_INVALID_VALUE;
  {
    PTXSIM_LOCK_ASYNC;
    if (!ctx.validStream(stream(s)))
      return CUDA_ERROR_INVALID_HANDLE;
  }
  cuCtxGetCurrent(pctx);
  if (!*pctx)
    return cuDevicePrimaryCtxRetain(pctx, 0);
  return CUDA_SUCCESS;
}
DRIVER_API CUresult cuStreamGetCtx_v2(CUstream s, CUcontext *pctx, CUgreenCtx *green) {
  DRIVER_TRACE();
  if (green)
    *green = nullptr;
  return cuStreamGetCtx(s, pctx);
}
DRIVER_API CUresult cuStreamAddCallback(CUstream s, CUstreamCallback cb, void *data,
                                        unsigned int flags) {
  DRIVER_TRACE();
  // CUstreamCallback and cudaStreamCallback_t differ only in their handle and error types.
  return viaRuntime([&] {
    return cudaStreamAddCallback(stream(s), reinterpret_cast<cudaStreamCallback_t>(cb), data,
                                 flags);
  });
}
DRIVER_API CUresult cuStreamAttachMemAsync(CUstream s, CUdeviceptr p, size_t n, unsigned int f) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaStreamAttachMemAsync(stream(s), ptr(p), n, f); });
}
DRIVER_API CUresult cuStreamSetAttribute(CUstream s, CUstreamAttrID id,
                                         const CUstreamAttrValue *v) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaStreamSetAttribute(stream(s), cudaStreamAttrID(id),
                                  reinterpret_cast<const cudaStreamAttrValue *>(v));
  });
}
DRIVER_API CUresult cuStreamGetAttribute(CUstream s, CUstreamAttrID id, CUstreamAttrValue *v) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaStreamGetAttribute(stream(s), cudaStreamAttrID(id),
                                  reinterpret_cast<cudaStreamAttrValue *>(v));
  });
}
DRIVER_API CUresult cuStreamCopyAttributes(CUstream dst, CUstream src) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaStreamCopyAttributes(stream(dst), stream(src)); });
}
DRIVER_API CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode mode) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaStreamBeginCapture(stream(s), cudaStreamCaptureMode(mode)); });
}
DRIVER_API CUresult cuStreamEndCapture(CUstream s, CUgraph *graph) {
  DRIVER_TRACE();
  return viaRuntime(
      [&] { return cudaStreamEndCapture(stream(s), reinterpret_cast<cudaGraph_t *>(graph)); });
}
DRIVER_API CUresult cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus *status) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaStreamIsCapturing(stream(s), reinterpret_cast<cudaStreamCaptureStatus *>(status));
  });
}
DRIVER_API CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaThreadExchangeStreamCaptureMode(reinterpret_cast<cudaStreamCaptureMode *>(mode));
  });
}

// --- events ----------------------------------------------------------------------------------

DRIVER_API CUresult cuEventCreate(CUevent *e, unsigned int flags) {
  DRIVER_TRACE();
  return viaRuntime(
      [&] { return cudaEventCreateWithFlags(reinterpret_cast<cudaEvent_t *>(e), flags); });
}
DRIVER_API CUresult cuEventRecord(CUevent e, CUstream s) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaEventRecord(event(e), stream(s)); });
}
DRIVER_API CUresult cuEventRecordWithFlags(CUevent e, CUstream s, unsigned int flags) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaEventRecordWithFlags(event(e), stream(s), flags); });
}
DRIVER_API CUresult cuEventSynchronize(CUevent e) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaEventSynchronize(event(e)); });
}
DRIVER_API CUresult cuEventQuery(CUevent e) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaEventQuery(event(e)); });
}
DRIVER_API CUresult cuEventElapsedTime_v2(float *ms, CUevent start, CUevent end) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaEventElapsedTime(ms, event(start), event(end)); });
}
#undef cuEventElapsedTime // the original entry point, which cuda.h maps to its _v2
DRIVER_API CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
  return cuEventElapsedTime_v2(ms, start, end);
}
DRIVER_API CUresult cuEventDestroy_v2(CUevent e) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaEventDestroy(event(e)); });
}

// --- occupancy -------------------------------------------------------------------------------

DRIVER_API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n, CUfunction f,
                                                                         int blockSize,
                                                                         size_t shmem,
                                                                         unsigned int flags) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, f, blockSize, shmem, flags);
  });
}
DRIVER_API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction f,
                                                                int blockSize, size_t shmem) {
  return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, f, blockSize, shmem, 0);
}

DRIVER_API CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *minGrid, int *blockSize,
                                                              CUfunction f,
                                                              CUoccupancyB2DSize smemOf,
                                                              size_t smem, int limit,
                                                              unsigned int flags) {
  DRIVER_TRACE();
  if (!minGrid || !blockSize)
    return CUDA_ERROR_INVALID_VALUE;
  int maxThreads = 0, sms = 0;
  if (CUresult r = cuFuncGetAttribute(&maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f))
    return r;
  cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0);
  if (limit > 0)
    maxThreads = std::min(maxThreads, limit);
  // The block size (a multiple of the warp size) with the most resident threads per SM.
  int bestThreads = 0, bestSize = 0, bestBlocks = 0;
  for (int b = maxThreads - maxThreads % 32; b > 0; b -= 32) {
    int blocks = 0;
    size_t dyn = smemOf ? smemOf(b) : smem;
    if (cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, f, b, dyn, flags))
      continue;
    if (blocks * b > bestThreads) {
      bestThreads = blocks * b;
      bestSize = b;
      bestBlocks = blocks;
    }
  }
  *blockSize = bestSize;
  *minGrid = bestBlocks * sms;
  return CUDA_SUCCESS;
}
DRIVER_API CUresult cuOccupancyMaxPotentialBlockSize(int *minGrid, int *blockSize, CUfunction f,
                                                     CUoccupancyB2DSize smemOf, size_t smem,
                                                     int limit) {
  return cuOccupancyMaxPotentialBlockSizeWithFlags(minGrid, blockSize, f, smemOf, smem, limit, 0);
}

DRIVER_API CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *bytes, CUfunction f,
                                                            int numBlocks, int blockSize) {
  DRIVER_TRACE();
  // the runtime's occupancy calculator (the answers of an H200)
  return viaRuntime([&] {
    return cudaOccupancyAvailableDynamicSMemPerBlock(bytes, reinterpret_cast<const void *>(f),
                                                     numBlocks, blockSize);
  });
}

// The CUDA runtime calls of the e2e suite's programs, implemented on the driver API only, so that
// those programs, built with `nvcc -cudart none ... cudart_on_driver.o -lcuda`, are genuine
// driver-API programs: no libcudart at all, the fat binary nvcc embedded loaded with
// cuModuleLoadData, every kernel launched with cuLaunchKernel (docs/driver.md, "Three builds").
//
// It is a test library, not a runtime: it covers what tests/kernels and the e2e programs it
// serves call (tests/CMakeLists.txt lists those it cannot serve and why), in the way NVIDIA's
// runtime maps them onto the driver:
//   - nvcc's registration entry points record each fat binary, kernel and variable by the host
//     address nvcc gives it; the fat binary is loaded with cuModuleLoadData on first use (a kernel
//     looked up, a symbol copied), as CUDA's lazy loading does;
//   - `<<<...>>>` pushes a configuration per host thread; the kernel's host stub pops it, asks for
//     the kernel (__cudaGetKernel: cuModuleGetFunction) and launches it (cuLaunchKernel);
//   - every call works in the device's primary context, made current on each host thread;
//   - driver result codes are runtime error codes of the same number (CUDA keeps them aligned);
//     the latest failing call's code is the thread's last error until cudaGetLastError reads it.
// Objects live on the heap and are never freed: nvcc's exit handler unregisters fat binaries
// after static destructors of this library may have run.

#include <cuda.h>
#include <cudaProfiler.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace {

/// A fat binary nvcc registered: its wrapper (magic, version, the fat binary, ...) and the
/// module loaded from it on first use.
struct Image {
  const void *fatbin = nullptr; ///< the fat binary itself (what cuModuleLoadData takes)
  CUmodule module = nullptr;
  bool tried = false;
  CUresult loadResult = CUDA_SUCCESS;
};

/// A kernel nvcc registered under its host stub's address.
struct Function {
  Image *image;
  std::string name;
  const void *hostFun; ///< the host stub (what the runtime's kernel node parameters name)
  CUfunction handle = nullptr;
};

/// A __device__, __constant__ or __managed__ variable nvcc registered under its host shadow.
struct Variable {
  Image *image;
  std::string name;
  void **managedHostPtr; ///< __managed__: where the host code reads the variable's address
};

/// nvcc's fat binary wrapper (section .nvFatBinSegment).
struct FatbinWrapper {
  int magic;
  int version;
  const void *data;
  void *filenameOrFatbins;
};

struct State {
  std::mutex mu;
  std::vector<Image *> images;
  std::unordered_map<const void *, Function *> functions; ///< by host stub
  std::unordered_map<const void *, Function *> byHandle;  ///< by CUfunction
  std::unordered_set<const void *> kernels;               ///< every Function (kernel handles)
  std::unordered_map<const void *, Variable *> variables; ///< by host shadow
  CUcontext primary = nullptr;
  CUresult initResult = CUDA_SUCCESS;
};

State &state() {
  static State *s = new State; // never destroyed (see the file comment)
  return *s;
}

thread_local cudaError_t tLastError = cudaSuccess;
thread_local bool tCurrent = false;

/// Records a failure as the thread's last error (the latest failure, as the runtime does).
cudaError_t ret(cudaError_t e) {
  if (e != cudaSuccess)
    tLastError = e;
  return e;
}
cudaError_t ret(CUresult r) { return ret(static_cast<cudaError_t>(r)); }

CUresult load(Image &im);

/// cuInit, the primary context of device 0, current on this thread; the images registered so
/// far loaded.
CUresult ensureContext() {
  State &s = state();
  static std::once_flag once;
  std::call_once(once, [&] {
    CUdevice dev;
    s.initResult = cuInit(0);
    if (s.initResult == CUDA_SUCCESS)
      s.initResult = cuDeviceGet(&dev, 0);
    if (s.initResult == CUDA_SUCCESS)
      s.initResult = cuDevicePrimaryCtxRetain(&s.primary, dev);
  });
  if (s.initResult != CUDA_SUCCESS)
    return s.initResult;
  if (!tCurrent) {
    if (CUresult r = cuCtxSetCurrent(s.primary))
      return r;
    tCurrent = true;
  }
  // Images with __managed__ variables are loaded when the context first starts, before the
  // program's first allocation, as the CUDA runtime (and ptxsim's) does; others on first use:
  // module variables and the program's allocations then lie at the same addresses as under the
  // runtime, and timing runs give the same cycles (e2e_same_cycles_41_managed). A load error
  // is reported at first use.
  static std::once_flag loadOnce;
  std::call_once(loadOnce, [&] {
    std::lock_guard<std::mutex> lock(s.mu);
    for (auto &[host, v] : s.variables)
      if (v->managedHostPtr)
        load(*v->image);
  });
  return CUDA_SUCCESS;
}

#define CTX                                                                                        \
  do {                                                                                             \
    if (CUresult r_ = ensureContext())                                                             \
      return ret(r_);                                                                              \
  } while (0)
#define CU(call)                                                                                   \
  do {                                                                                             \
    if (CUresult r_ = (call))                                                                      \
      return ret(r_);                                                                              \
  } while (0)

/// Loads an image's module (once). Caller holds the lock and a current context.
CUresult load(Image &im) {
  if (!im.tried) {
    im.tried = true;
    im.loadResult = cuModuleLoadData(&im.module, im.fatbin);
  }
  return im.loadResult;
}

/// The driver function of a kernel: by host stub (or by the handle __cudaGetKernel returned).
///
/// `key` is a host stub, a handle __cudaGetKernel returned (the Function itself: nvcc's launch
/// stub keeps it for the whole run, so it must outlive a cudaDeviceReset, which unloads the
/// modules), or a CUfunction this library looked up.
CUresult function(const void *key, CUfunction *out) {
  if (CUresult r = ensureContext())
    return r;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  Function *fn = nullptr;
  auto it = s.functions.find(key);
  if (it != s.functions.end())
    fn = it->second;
  else if (s.kernels.count(key))
    fn = const_cast<Function *>(static_cast<const Function *>(key));
  else if (auto h = s.byHandle.find(key); h != s.byHandle.end())
    fn = h->second;
  if (!fn) // CUDA 13 takes a pointer it has no kernel for as a kernel handle, which is invalid
    return key ? CUDA_ERROR_INVALID_HANDLE : CUresult(cudaErrorInvalidDeviceFunction);
  Function &f = *fn;
  if (!f.handle) {
    if (CUresult r = load(*f.image))
      return r;
    if (CUresult r = cuModuleGetFunction(&f.handle, f.image->module, f.name.c_str()))
      return r;
    s.byHandle[f.handle] = &f;
  }
  *out = f.handle;
  return CUDA_SUCCESS;
}

/// The device address and size of a registered variable.
CUresult symbol(const void *hostVar, CUdeviceptr *dptr, size_t *bytes) {
  if (CUresult r = ensureContext())
    return r;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.variables.find(hostVar);
  if (it == s.variables.end())
    return CUresult(cudaErrorInvalidSymbol);
  Variable &v = *it->second;
  if (CUresult r = load(*v.image))
    return r;
  return cuModuleGetGlobal(dptr, bytes, v.image->module, v.name.c_str());
}

/// Loads an image and points its __managed__ variables' host pointers at them.
CUresult initManaged(Image *im) {
  if (CUresult r = ensureContext())
    return r;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (CUresult r = load(*im))
    return r;
  for (auto &[host, v] : s.variables) {
    if (v->image != im || !v->managedHostPtr)
      continue;
    CUdeviceptr p;
    size_t n;
    if (CUresult r = cuModuleGetGlobal(&p, &n, im->module, v->name.c_str()))
      return r;
    *v->managedHostPtr = reinterpret_cast<void *>(p);
  }
  return CUDA_SUCCESS;
}

CUstream cu(cudaStream_t s) { return reinterpret_cast<CUstream>(s); }
CUevent cu(cudaEvent_t e) { return reinterpret_cast<CUevent>(e); }
CUdeviceptr dp(const void *p) { return reinterpret_cast<CUdeviceptr>(p); }

/// cudaMemcpy's kinds on the driver's copies (pointers are unified: any kind can be cuMemcpy).
CUresult copy(void *dst, const void *src, size_t n, cudaMemcpyKind kind, cudaStream_t s,
              bool async) {
  switch (kind) {
  case cudaMemcpyHostToDevice:
    return async ? cuMemcpyHtoDAsync(dp(dst), src, n, cu(s)) : cuMemcpyHtoD(dp(dst), src, n);
  case cudaMemcpyDeviceToHost:
    return async ? cuMemcpyDtoHAsync(dst, dp(src), n, cu(s)) : cuMemcpyDtoH(dst, dp(src), n);
  case cudaMemcpyDeviceToDevice:
    return async ? cuMemcpyDtoDAsync(dp(dst), dp(src), n, cu(s))
                 : cuMemcpyDtoD(dp(dst), dp(src), n);
  case cudaMemcpyHostToHost:
  case cudaMemcpyDefault:
    return async ? cuMemcpyAsync(dp(dst), dp(src), n, cu(s)) : cuMemcpy(dp(dst), dp(src), n);
  }
  return CUresult(cudaErrorInvalidMemcpyDirection);
}

/// `<<<...>>>` configurations pushed and not yet popped, per host thread.
struct PendingLaunch {
  dim3 grid, block;
  size_t shared;
  cudaStream_t stream;
};
constexpr unsigned kMaxPending = 32;
thread_local PendingLaunch tPending[kMaxPending];
thread_local unsigned tPendingCount = 0;

} // namespace

// --- nvcc's registration and launch entry points (crt/host_runtime.h) ----------------------------

EXPORT void **__cudaRegisterFatBinary(void *fatCubin) {
  auto *w = static_cast<const FatbinWrapper *>(fatCubin);
  auto *im = new Image;
  im->fatbin = w->data;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.images.push_back(im);
  return reinterpret_cast<void **>(im);
}

EXPORT void __cudaRegisterFatBinaryEnd(void **) {}

EXPORT void __cudaUnregisterFatBinary(void **handle) {
  auto *im = reinterpret_cast<Image *>(handle);
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (im->module)
    cuModuleUnload(im->module);
  im->module = nullptr;
}

EXPORT void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun,
                                   const char *deviceName, int, uint3 *, uint3 *, dim3 *, dim3 *,
                                   int *) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  auto *f =
      new Function{reinterpret_cast<Image *>(handle), deviceFun ? deviceFun : deviceName, hostFun};
  s.functions[hostFun] = f;
  s.kernels.insert(f);
}

EXPORT void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress,
                              const char *deviceName, int, size_t, int, int) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.variables[hostVar] = new Variable{reinterpret_cast<Image *>(handle),
                                      deviceAddress ? deviceAddress : deviceName, nullptr};
}

EXPORT void __cudaRegisterManagedVar(void **handle, void **hostVarPtrAddress, char *deviceAddress,
                                     const char *deviceName, int, size_t, int, int) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.variables[hostVarPtrAddress] =
      new Variable{reinterpret_cast<Image *>(handle), deviceAddress ? deviceAddress : deviceName,
                   hostVarPtrAddress};
}

// Called before the host first touches a __managed__ variable of the image.
EXPORT char __cudaInitModule(void **handle) {
  return initManaged(reinterpret_cast<Image *>(handle)) == CUDA_SUCCESS;
}

EXPORT unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared,
                                            struct CUstream_st *stream) {
  if (tPendingCount == kMaxPending)
    return 1; // the launch stub then skips the launch
  tPending[tPendingCount++] = PendingLaunch{grid, block, shared, stream};
  return 0;
}

EXPORT cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shared,
                                              void *stream) {
  if (tPendingCount == 0)
    return ret(cudaErrorMissingConfiguration);
  const PendingLaunch &p = tPending[--tPendingCount];
  *grid = p.grid;
  *block = p.block;
  *shared = p.shared;
  *static_cast<cudaStream_t *>(stream) = p.stream;
  return cudaSuccess;
}

// The kernel handle is this library's record of the kernel (see function()); the module is
// loaded and the CUfunction looked up here, at the first launch, as CUDA's lazy loading does.
EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun) {
  CUfunction f = nullptr;
  CUresult r = function(hostFun, &f);
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.functions.find(hostFun);
  *kernel = reinterpret_cast<cudaKernel_t>(r == CUDA_SUCCESS ? it->second : nullptr);
  return ret(r);
}

EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                                      size_t shared, cudaStream_t stream) {
  CUfunction f;
  CU(function(kernel, &f));
  return ret(cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, unsigned(shared),
                            cu(stream), args, nullptr));
}

EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                                           size_t shared, cudaStream_t stream) {
  return __cudaLaunchKernel(kernel, grid, block, args, shared, stream);
}

// --- launches ---------------------------------------------------------------------------------

EXPORT cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
                                    size_t shared, cudaStream_t stream) {
  CUfunction f;
  CU(function(func, &f));
  return ret(cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, unsigned(shared),
                            cu(stream), args, nullptr));
}

EXPORT cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block, void **args,
                                               size_t shared, cudaStream_t stream) {
  CUfunction f;
  CU(function(func, &f));
  return ret(cuLaunchCooperativeKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                       unsigned(shared), cu(stream), args));
}

// The runtime's launch attributes are the driver's (same ids, same value layout).
static_assert(sizeof(cudaLaunchAttribute) == sizeof(CUlaunchAttribute), "launch attribute layout");
static_assert(int(cudaLaunchAttributeCooperative) == int(CU_LAUNCH_ATTRIBUTE_COOPERATIVE),
              "launch attribute ids");

EXPORT cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                       void **args) {
  if (!config)
    return ret(cudaErrorInvalidValue);
  CUfunction f;
  CU(function(func, &f));
  CUlaunchConfig c{};
  c.gridDimX = config->gridDim.x;
  c.gridDimY = config->gridDim.y;
  c.gridDimZ = config->gridDim.z;
  c.blockDimX = config->blockDim.x;
  c.blockDimY = config->blockDim.y;
  c.blockDimZ = config->blockDim.z;
  c.sharedMemBytes = unsigned(config->dynamicSmemBytes);
  c.hStream = cu(config->stream);
  c.attrs = reinterpret_cast<CUlaunchAttribute *>(config->attrs);
  c.numAttrs = config->numAttrs;
  return ret(cuLaunchKernelEx(&c, f, args, nullptr));
}

EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData) {
  CTX;
  return ret(cuLaunchHostFunc(cu(stream), fn, userData));
}

EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                         void *userData, unsigned int flags) {
  CTX;
  // the driver's callback takes a CUstream and a CUresult: the same values
  return ret(cuStreamAddCallback(cu(stream), reinterpret_cast<CUstreamCallback>(callback), userData,
                                 flags));
}

// --- functions and occupancy --------------------------------------------------------------------

EXPORT cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func) {
  if (!attr)
    return ret(cudaErrorInvalidValue);
  CUfunction f;
  CU(function(func, &f));
  int v;
  std::memset(attr, 0, sizeof *attr);
#define ATTR(field, which)                                                                         \
  CU(cuFuncGetAttribute(&v, which, f));                                                            \
  attr->field = decltype(attr->field)(v)
  ATTR(sharedSizeBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
  ATTR(constSizeBytes, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES);
  ATTR(localSizeBytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
  ATTR(maxThreadsPerBlock, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  ATTR(numRegs, CU_FUNC_ATTRIBUTE_NUM_REGS);
  ATTR(ptxVersion, CU_FUNC_ATTRIBUTE_PTX_VERSION);
  ATTR(binaryVersion, CU_FUNC_ATTRIBUTE_BINARY_VERSION);
  ATTR(cacheModeCA, CU_FUNC_ATTRIBUTE_CACHE_MODE_CA);
  ATTR(maxDynamicSharedSizeBytes, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
  ATTR(preferredShmemCarveout, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT);
#undef ATTR
  return cudaSuccess;
}

EXPORT cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value) {
  CUfunction f;
  CU(function(func, &f));
  // cudaFuncAttributeMaxDynamicSharedMemorySize = 8 and PreferredSharedMemoryCarveout = 9 are
  // the driver's attributes of the same numbers
  return ret(cuFuncSetAttribute(f, CUfunction_attribute(attr), value));
}

EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                                 int blockSize, size_t dynShared) {
  CUfunction f;
  CU(function(func, &f));
  return ret(cuOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, f, blockSize, dynShared));
}

EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynShared, unsigned int flags) {
  CUfunction f;
  CU(function(func, &f));
  return ret(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, f, blockSize,
                                                                  dynShared, flags));
}

// --- device and context --------------------------------------------------------------------------

EXPORT cudaError_t cudaGetDevice(int *device) {
  CTX;
  if (!device)
    return ret(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}

EXPORT cudaError_t cudaSetDevice(int device) {
  CTX;
  int count = 0;
  CU(cuDeviceGetCount(&count));
  return device >= 0 && device < count ? cudaSuccess : ret(cudaErrorInvalidDevice);
}

EXPORT cudaError_t cudaGetDeviceCount(int *count) {
  CTX;
  return ret(cuDeviceGetCount(count));
}

EXPORT cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device) {
  CTX;
  // the runtime's attribute numbers are the driver's
  return ret(cuDeviceGetAttribute(value, CUdevice_attribute(attr), CUdevice(device)));
}

EXPORT cudaError_t cudaDeviceSynchronize() {
  CTX;
  return ret(cuCtxSynchronize());
}

EXPORT cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
  CTX;
  return ret(cuCtxSetLimit(CUlimit(limit), value)); // same numbers
}

EXPORT cudaError_t cudaDeviceGetLimit(size_t *value, cudaLimit limit) {
  CTX;
  return ret(cuCtxGetLimit(value, CUlimit(limit)));
}

EXPORT cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest) {
  CTX;
  return ret(cuCtxGetStreamPriorityRange(least, greatest));
}

EXPORT cudaError_t cudaDeviceReset() {
  CTX;
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0)); // not the context's device: a faulted context may refuse to say
  State &s = state();
  {
    // the primary context starts afresh: modules are loaded again on first use
    std::lock_guard<std::mutex> lock(s.mu);
    for (Image *im : s.images) {
      im->tried = false;
      im->module = nullptr;
    }
    for (auto &[host, f] : s.functions) {
      s.byHandle.erase(f->handle);
      f->handle = nullptr;
    }
  }
  CU(cuDevicePrimaryCtxReset(dev));
  // a fresh primary context, retained and current as at start-up
  CU(cuDevicePrimaryCtxRetain(&s.primary, dev));
  CU(cuCtxSetCurrent(s.primary));
  return cudaSuccess; // the thread's last error stays, as with NVIDIA's runtime
}

EXPORT cudaError_t cudaRuntimeGetVersion(int *version) {
  if (!version)
    return ret(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return cudaSuccess;
}

EXPORT cudaError_t cudaDriverGetVersion(int *version) { return ret(cuDriverGetVersion(version)); }

EXPORT cudaError_t cudaMemGetInfo(size_t *free, size_t *total) {
  CTX;
  return ret(cuMemGetInfo(free, total));
}

// --- errors -------------------------------------------------------------------------------------

EXPORT cudaError_t cudaGetLastError() {
  cudaError_t e = tLastError;
  tLastError = cudaSuccess;
  return e;
}

EXPORT cudaError_t cudaPeekAtLastError() { return tLastError; }

namespace {
struct ErrorName {
  cudaError_t code;
  const char *name;
};
// The runtime names of the codes these programs can meet (the driver names them CUDA_ERROR_*).
const ErrorName kErrorNames[] = {
    {cudaSuccess, "cudaSuccess"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation"},
    {cudaErrorInitializationError, "cudaErrorInitializationError"},
    {cudaErrorCudartUnloading, "cudaErrorCudartUnloading"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration"},
    {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue"},
    {cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol"},
    {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection"},
    {cudaErrorMissingConfiguration, "cudaErrorMissingConfiguration"},
    {cudaErrorNoDevice, "cudaErrorNoDevice"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction"},
    {cudaErrorNoKernelImageForDevice, "cudaErrorNoKernelImageForDevice"},
    {cudaErrorInvalidKernelImage, "cudaErrorInvalidKernelImage"},
    {cudaErrorDeviceUninitialized, "cudaErrorDeviceUninitialized"},
    {cudaErrorInvalidPtx, "cudaErrorInvalidPtx"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle"},
    {cudaErrorSymbolNotFound, "cudaErrorSymbolNotFound"},
    {cudaErrorNotReady, "cudaErrorNotReady"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress"},
    {cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources"},
    {cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout"},
    {cudaErrorAssert, "cudaErrorAssert"},
    {cudaErrorHostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered"},
    {cudaErrorHostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered"},
    {cudaErrorHardwareStackError, "cudaErrorHardwareStackError"},
    {cudaErrorIllegalInstruction, "cudaErrorIllegalInstruction"},
    {cudaErrorMisalignedAddress, "cudaErrorMisalignedAddress"},
    {cudaErrorInvalidAddressSpace, "cudaErrorInvalidAddressSpace"},
    {cudaErrorInvalidPc, "cudaErrorInvalidPc"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure"},
    {cudaErrorCooperativeLaunchTooLarge, "cudaErrorCooperativeLaunchTooLarge"},
    {cudaErrorNotSupported, "cudaErrorNotSupported"},
    {cudaErrorStreamCaptureUnsupported, "cudaErrorStreamCaptureUnsupported"},
    {cudaErrorUnknown, "cudaErrorUnknown"},
};
} // namespace

EXPORT const char *cudaGetErrorName(cudaError_t error) {
  for (const ErrorName &e : kErrorNames)
    if (e.code == error)
      return e.name;
  return "cudaErrorUnknown";
}

EXPORT const char *cudaGetErrorString(cudaError_t error) {
  const char *s = nullptr;
  if (cuGetErrorString(CUresult(error), &s) == CUDA_SUCCESS && s)
    return s;
  return "unrecognized error code";
}

// --- memory --------------------------------------------------------------------------------------

EXPORT cudaError_t cudaMalloc(void **p, size_t n) {
  CTX;
  if (!p)
    return ret(cudaErrorInvalidValue);
  CUdeviceptr d = 0;
  CUresult r = cuMemAlloc(&d, n);
  *p = reinterpret_cast<void *>(d);
  return ret(r);
}

EXPORT cudaError_t cudaFree(void *p) {
  CTX;
  if (!p)
    return cudaSuccess; // cudaFree(nullptr) is a no-op (and initialises the runtime)
  return ret(cuMemFree(dp(p)));
}

EXPORT cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *h, void *p) {
  CTX;
  static_assert(sizeof(cudaIpcMemHandle_t) == sizeof(CUipcMemHandle), "IPC handle sizes differ");
  return ret(cuIpcGetMemHandle(reinterpret_cast<CUipcMemHandle *>(h), dp(p)));
}

EXPORT cudaError_t cudaIpcOpenMemHandle(void **p, cudaIpcMemHandle_t h, unsigned int flags) {
  CTX;
  if (!p)
    return ret(cudaErrorInvalidValue);
  CUipcMemHandle ch;
  std::memcpy(&ch, &h, sizeof ch);
  CUdeviceptr d = 0;
  CUresult r = cuIpcOpenMemHandle(&d, ch, flags);
  *p = reinterpret_cast<void *>(d);
  return ret(r);
}

EXPORT cudaError_t cudaIpcCloseMemHandle(void *p) {
  CTX;
  return ret(cuIpcCloseMemHandle(dp(p)));
}

EXPORT cudaError_t cudaMallocManaged(void **p, size_t n, unsigned int flags) {
  CTX;
  if (!p)
    return ret(cudaErrorInvalidValue);
  CUdeviceptr d = 0;
  CUresult r = cuMemAllocManaged(&d, n, flags); // cudaMemAttachGlobal/Host are the driver's flags
  *p = reinterpret_cast<void *>(d);
  return ret(r);
}

EXPORT cudaError_t cudaMallocHost(void **p, size_t n) {
  CTX;
  return ret(cuMemAllocHost(p, n));
}

EXPORT cudaError_t cudaHostAlloc(void **p, size_t n, unsigned int flags) {
  CTX;
  return ret(cuMemHostAlloc(p, n, flags));
}

EXPORT cudaError_t cudaFreeHost(void *p) {
  CTX;
  return ret(cuMemFreeHost(p));
}

EXPORT cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height) {
  CTX;
  if (!p)
    return ret(cudaErrorInvalidValue);
  CUdeviceptr d = 0;
  // the widest element size the driver takes (4, 8 or 16 bytes) suits any element type
  CUresult r = cuMemAllocPitch(&d, pitch, width, height, 16);
  *p = reinterpret_cast<void *>(d);
  return ret(r);
}

EXPORT cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s) {
  CTX;
  if (!p)
    return ret(cudaErrorInvalidValue);
  CUdeviceptr d = 0;
  CUresult r = cuMemAllocAsync(&d, n, cu(s));
  *p = reinterpret_cast<void *>(d);
  return ret(r);
}

EXPORT cudaError_t cudaFreeAsync(void *p, cudaStream_t s) {
  CTX;
  return ret(cuMemFreeAsync(dp(p), cu(s)));
}

EXPORT cudaError_t cudaMemPrefetchAsync(const void *p, size_t n, cudaMemLocation location,
                                        unsigned int flags, cudaStream_t s) {
  CTX;
  CUmemLocation l{};
  l.type = CUmemLocationType(location.type); // same numbers
  l.id = location.id;
  return ret(cuMemPrefetchAsync(dp(p), n, l, flags, cu(s)));
}

EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind kind) {
  CTX;
  return ret(copy(dst, src, n, kind, nullptr, false));
}

EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind kind,
                                   cudaStream_t s) {
  CTX;
  return ret(copy(dst, src, n, kind, s, true));
}

namespace {
/// A 2D copy between linear memory (host or device: unified addresses).
CUDA_MEMCPY2D linear2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                       size_t height, cudaMemcpyKind kind) {
  CUDA_MEMCPY2D c{};
  bool srcDevice = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  bool dstDevice = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  c.srcMemoryType = kind == cudaMemcpyDefault ? CU_MEMORYTYPE_UNIFIED
                    : srcDevice               ? CU_MEMORYTYPE_DEVICE
                                              : CU_MEMORYTYPE_HOST;
  c.dstMemoryType = kind == cudaMemcpyDefault ? CU_MEMORYTYPE_UNIFIED
                    : dstDevice               ? CU_MEMORYTYPE_DEVICE
                                              : CU_MEMORYTYPE_HOST;
  c.srcHost = src;
  c.srcDevice = dp(src);
  c.srcPitch = spitch;
  c.dstHost = dst;
  c.dstDevice = dp(dst);
  c.dstPitch = dpitch;
  c.WidthInBytes = width;
  c.Height = height;
  return c;
}
} // namespace

EXPORT cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                size_t width, size_t height, cudaMemcpyKind kind) {
  CTX;
  CUDA_MEMCPY2D c = linear2D(dst, dpitch, src, spitch, width, height, kind);
  return ret(cuMemcpy2DUnaligned(&c));
}

EXPORT cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                     size_t width, size_t height, cudaMemcpyKind kind,
                                     cudaStream_t s) {
  CTX;
  CUDA_MEMCPY2D c = linear2D(dst, dpitch, src, spitch, width, height, kind);
  return ret(cuMemcpy2DAsync(&c, cu(s)));
}

EXPORT cudaError_t cudaMemset(void *p, int value, size_t n) {
  CTX;
  return ret(cuMemsetD8(dp(p), (unsigned char)value, n));
}

EXPORT cudaError_t cudaMemsetAsync(void *p, int value, size_t n, cudaStream_t s) {
  CTX;
  return ret(cuMemsetD8Async(dp(p), (unsigned char)value, n, cu(s)));
}

EXPORT cudaError_t cudaMemset2D(void *p, size_t pitch, int value, size_t width, size_t height) {
  CTX;
  return ret(cuMemsetD2D8(dp(p), pitch, (unsigned char)value, width, height));
}

EXPORT cudaError_t cudaMemset2DAsync(void *p, size_t pitch, int value, size_t width, size_t height,
                                     cudaStream_t s) {
  CTX;
  return ret(cuMemsetD2D8Async(dp(p), pitch, (unsigned char)value, width, height, cu(s)));
}

EXPORT cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *attr, const void *p) {
  CTX;
  if (!attr)
    return ret(cudaErrorInvalidValue);
  CUmemorytype type = CUmemorytype(0);
  CUdeviceptr dev = 0;
  void *host = nullptr;
  int ordinal = 0;
  unsigned managed = 0;
  CUpointer_attribute which[] = {
      CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
      CU_POINTER_ATTRIBUTE_HOST_POINTER, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
      CU_POINTER_ATTRIBUTE_IS_MANAGED};
  void *values[] = {&type, &dev, &host, &ordinal, &managed};
  CU(cuPointerGetAttributes(5, which, values, dp(p)));
  std::memset(attr, 0, sizeof *attr);
  attr->type = managed                        ? cudaMemoryTypeManaged
               : type == CU_MEMORYTYPE_DEVICE ? cudaMemoryTypeDevice
               : type == CU_MEMORYTYPE_HOST   ? cudaMemoryTypeHost
                                              : cudaMemoryTypeUnregistered;
  attr->device = attr->type == cudaMemoryTypeUnregistered ? -2 : ordinal;
  attr->devicePointer = reinterpret_cast<void *>(dev);
  attr->hostPointer = host;
  return cudaSuccess;
}

// --- symbols -------------------------------------------------------------------------------------

EXPORT cudaError_t cudaGetSymbolAddress(void **p, const void *sym) {
  CUdeviceptr d;
  CU(symbol(sym, &d, nullptr));
  *p = reinterpret_cast<void *>(d);
  return cudaSuccess;
}

EXPORT cudaError_t cudaGetSymbolSize(size_t *n, const void *sym) {
  CUdeviceptr d;
  CU(symbol(sym, &d, n));
  return cudaSuccess;
}

namespace {
/// The direction of a copy to (`to`) or from a symbol: the symbol's side is the device.
bool symbolKind(cudaMemcpyKind kind, bool to, cudaMemcpyKind &out) {
  if (kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDefault) {
    out = kind;
    return true;
  }
  out = to ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
  return kind == out;
}

cudaError_t symbolCopy(const void *sym, size_t count, size_t offset, CUdeviceptr *at) {
  size_t size;
  CU(symbol(sym, at, &size));
  if (offset > size || count > size - offset)
    return ret(cudaErrorInvalidValue);
  *at += offset;
  return cudaSuccess;
}
} // namespace

EXPORT cudaError_t cudaMemcpyToSymbol(const void *sym, const void *src, size_t count, size_t offset,
                                      cudaMemcpyKind kind) {
  cudaMemcpyKind toKind;
  if (!symbolKind(kind, true, toKind))
    return ret(cudaErrorInvalidMemcpyDirection);
  CUdeviceptr at;
  if (cudaError_t e = symbolCopy(sym, count, offset, &at))
    return e;
  return ret(copy(reinterpret_cast<void *>(at), src, count, toKind, nullptr, false));
}

EXPORT cudaError_t cudaMemcpyFromSymbol(void *dst, const void *sym, size_t count, size_t offset,
                                        cudaMemcpyKind kind) {
  cudaMemcpyKind fromKind;
  if (!symbolKind(kind, false, fromKind))
    return ret(cudaErrorInvalidMemcpyDirection);
  CUdeviceptr at;
  if (cudaError_t e = symbolCopy(sym, count, offset, &at))
    return e;
  return ret(copy(dst, reinterpret_cast<void *>(at), count, fromKind, nullptr, false));
}

EXPORT cudaError_t cudaMemcpyToSymbolAsync(const void *sym, const void *src, size_t count,
                                           size_t offset, cudaMemcpyKind kind, cudaStream_t s) {
  cudaMemcpyKind toKind;
  if (!symbolKind(kind, true, toKind))
    return ret(cudaErrorInvalidMemcpyDirection);
  CUdeviceptr at;
  if (cudaError_t e = symbolCopy(sym, count, offset, &at))
    return e;
  return ret(copy(reinterpret_cast<void *>(at), src, count, toKind, s, true));
}

EXPORT cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *sym, size_t count,
                                             size_t offset, cudaMemcpyKind kind, cudaStream_t s) {
  cudaMemcpyKind fromKind;
  if (!symbolKind(kind, false, fromKind))
    return ret(cudaErrorInvalidMemcpyDirection);
  CUdeviceptr at;
  if (cudaError_t e = symbolCopy(sym, count, offset, &at))
    return e;
  return ret(copy(dst, reinterpret_cast<void *>(at), count, fromKind, s, true));
}

// --- streams and events --------------------------------------------------------------------------

EXPORT cudaError_t cudaStreamCreate(cudaStream_t *s) {
  CTX;
  return ret(cuStreamCreate(reinterpret_cast<CUstream *>(s), CU_STREAM_DEFAULT));
}

EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags) {
  CTX;
  return ret(cuStreamCreate(reinterpret_cast<CUstream *>(s), flags)); // same flag values
}

EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned int flags, int priority) {
  CTX;
  return ret(cuStreamCreateWithPriority(reinterpret_cast<CUstream *>(s), flags, priority));
}

EXPORT cudaError_t cudaStreamDestroy(cudaStream_t s) {
  CTX;
  return ret(cuStreamDestroy(cu(s)));
}

EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  CTX;
  return ret(cuStreamSynchronize(cu(s)));
}

EXPORT cudaError_t cudaStreamQuery(cudaStream_t s) {
  CTX;
  CUresult r = cuStreamQuery(cu(s));
  return r == CUDA_ERROR_NOT_READY ? cudaErrorNotReady : ret(r); // not an error to remember
}

EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int flags) {
  CTX;
  return ret(cuStreamWaitEvent(cu(s), cu(e), flags));
}

EXPORT cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned int *flags) {
  CTX;
  return ret(cuStreamGetFlags(cu(s), flags));
}

EXPORT cudaError_t cudaStreamGetPriority(cudaStream_t s, int *priority) {
  CTX;
  return ret(cuStreamGetPriority(cu(s), priority));
}

EXPORT cudaError_t cudaStreamGetId(cudaStream_t s, unsigned long long *id) {
  CTX;
  return ret(cuStreamGetId(cu(s), id));
}

EXPORT cudaError_t cudaStreamGetDevice(cudaStream_t s, int *device) {
  CTX;
  CUdevice d;
  CU(cuStreamGetDevice(cu(s), &d));
  *device = int(d);
  return cudaSuccess;
}

EXPORT cudaError_t cudaEventCreate(cudaEvent_t *e) {
  CTX;
  return ret(cuEventCreate(reinterpret_cast<CUevent *>(e), CU_EVENT_DEFAULT));
}

EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int flags) {
  CTX;
  return ret(cuEventCreate(reinterpret_cast<CUevent *>(e), flags)); // same flag values
}

EXPORT cudaError_t cudaEventDestroy(cudaEvent_t e) {
  CTX;
  return ret(cuEventDestroy(cu(e)));
}

EXPORT cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  CTX;
  return ret(cuEventRecord(cu(e), cu(s)));
}

EXPORT cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned int flags) {
  CTX;
  return ret(cuEventRecordWithFlags(cu(e), cu(s), flags));
}

EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  CTX;
  return ret(cuEventSynchronize(cu(e)));
}

EXPORT cudaError_t cudaEventQuery(cudaEvent_t e) {
  CTX;
  CUresult r = cuEventQuery(cu(e));
  return r == CUDA_ERROR_NOT_READY ? cudaErrorNotReady : ret(r);
}

EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
  CTX;
  return ret(cuEventElapsedTime(ms, cu(start), cu(end)));
}

// --- arrays and texture objects (1D, 2D and 3D arrays, linear and pitched memory) ---------------

EXPORT cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                   cudaChannelFormatKind f) {
  return cudaChannelFormatDesc{x, y, z, w, f};
}

namespace {
cudaArray_t rt(CUarray a) { return reinterpret_cast<cudaArray_t>(a); }
CUarray cu(cudaArray_const_t a) { return reinterpret_cast<CUarray>(const_cast<cudaArray_t>(a)); }

/// The driver's (format, channel count) of a channel descriptor; false for kinds and sizes the
/// driver's arrays do not have.
bool driverFormat(const cudaChannelFormatDesc &d, CUarray_format &format, unsigned &channels) {
  channels = (d.x > 0) + (d.y > 0) + (d.z > 0) + (d.w > 0);
  if (channels == 0)
    return false;
  switch (d.f) {
  case cudaChannelFormatKindUnsigned:
  case cudaChannelFormatKindSigned: {
    bool u = d.f == cudaChannelFormatKindUnsigned;
    switch (d.x) {
    case 8:
      format = u ? CU_AD_FORMAT_UNSIGNED_INT8 : CU_AD_FORMAT_SIGNED_INT8;
      return true;
    case 16:
      format = u ? CU_AD_FORMAT_UNSIGNED_INT16 : CU_AD_FORMAT_SIGNED_INT16;
      return true;
    case 32:
      format = u ? CU_AD_FORMAT_UNSIGNED_INT32 : CU_AD_FORMAT_SIGNED_INT32;
      return true;
    }
    return false;
  }
  case cudaChannelFormatKindFloat:
    if (d.x == 16 || d.x == 32) {
      format = d.x == 16 ? CU_AD_FORMAT_HALF : CU_AD_FORMAT_FLOAT;
      return true;
    }
    return false;
  default:
    return false;
  }
}

/// The channel descriptor of `channels` channels of `format`.
bool runtimeFormat(CUarray_format format, unsigned channels, cudaChannelFormatDesc &d) {
  int bits;
  cudaChannelFormatKind kind;
  switch (format) {
  case CU_AD_FORMAT_UNSIGNED_INT8:
    bits = 8;
    kind = cudaChannelFormatKindUnsigned;
    break;
  case CU_AD_FORMAT_UNSIGNED_INT16:
    bits = 16;
    kind = cudaChannelFormatKindUnsigned;
    break;
  case CU_AD_FORMAT_UNSIGNED_INT32:
    bits = 32;
    kind = cudaChannelFormatKindUnsigned;
    break;
  case CU_AD_FORMAT_SIGNED_INT8:
    bits = 8;
    kind = cudaChannelFormatKindSigned;
    break;
  case CU_AD_FORMAT_SIGNED_INT16:
    bits = 16;
    kind = cudaChannelFormatKindSigned;
    break;
  case CU_AD_FORMAT_SIGNED_INT32:
    bits = 32;
    kind = cudaChannelFormatKindSigned;
    break;
  case CU_AD_FORMAT_HALF:
    bits = 16;
    kind = cudaChannelFormatKindFloat;
    break;
  case CU_AD_FORMAT_FLOAT:
    bits = 32;
    kind = cudaChannelFormatKindFloat;
    break;
  default:
    return false;
  }
  d = cudaChannelFormatDesc{bits, channels > 1 ? bits : 0, channels > 2 ? bits : 0,
                            channels > 3 ? bits : 0, kind};
  return true;
}

/// An array's descriptor and bytes per element.
CUresult describe(cudaArray_const_t a, CUDA_ARRAY3D_DESCRIPTOR &d, size_t &elementBytes) {
  if (CUresult r = cuArray3DGetDescriptor(&d, cu(a)))
    return r;
  cudaChannelFormatDesc c;
  if (!runtimeFormat(d.Format, d.NumChannels, c))
    return CUDA_ERROR_INVALID_VALUE;
  elementBytes = size_t(c.x + c.y + c.z + c.w) / 8;
  return CUDA_SUCCESS;
}

CUmemorytype memoryType(bool device, cudaMemcpyKind kind) {
  if (kind == cudaMemcpyDefault)
    return CU_MEMORYTYPE_UNIFIED;
  return device ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
}
bool srcIsDevice(cudaMemcpyKind k) {
  return k == cudaMemcpyDeviceToHost || k == cudaMemcpyDeviceToDevice;
}
bool dstIsDevice(cudaMemcpyKind k) {
  return k == cudaMemcpyHostToDevice || k == cudaMemcpyDeviceToDevice;
}
} // namespace

EXPORT cudaError_t cudaMalloc3DArray(cudaArray_t *a, const cudaChannelFormatDesc *desc,
                                     cudaExtent extent, unsigned int flags) {
  CTX;
  if (!a || !desc)
    return ret(cudaErrorInvalidValue);
  CUDA_ARRAY3D_DESCRIPTOR d{};
  if (!driverFormat(*desc, d.Format, d.NumChannels))
    return ret(cudaErrorInvalidChannelDescriptor);
  d.Width = extent.width;
  d.Height = extent.height;
  d.Depth = extent.depth;
  d.Flags = flags; // cudaArray* flags are the CUDA_ARRAY3D_* values
  return ret(cuArray3DCreate(reinterpret_cast<CUarray *>(a), &d));
}

EXPORT cudaError_t cudaMallocArray(cudaArray_t *a, const cudaChannelFormatDesc *desc, size_t width,
                                   size_t height, unsigned int flags) {
  return cudaMalloc3DArray(a, desc, cudaExtent{width, height, 0}, flags);
}

EXPORT cudaError_t cudaFreeArray(cudaArray_t a) {
  CTX;
  if (!a)
    return cudaSuccess;
  return ret(cuArrayDestroy(cu(a)));
}

EXPORT cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc *desc, cudaArray_const_t a) {
  CTX;
  CUDA_ARRAY3D_DESCRIPTOR d;
  CU(cuArray3DGetDescriptor(&d, cu(a)));
  if (!desc || !runtimeFormat(d.Format, d.NumChannels, *desc))
    return ret(cudaErrorInvalidValue);
  return cudaSuccess;
}

EXPORT cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc *desc, cudaExtent *extent,
                                    unsigned int *flags, cudaArray_t a) {
  CTX;
  CUDA_ARRAY3D_DESCRIPTOR d;
  CU(cuArray3DGetDescriptor(&d, cu(a)));
  if (desc && !runtimeFormat(d.Format, d.NumChannels, *desc))
    return ret(cudaErrorInvalidValue);
  if (extent)
    *extent = cudaExtent{d.Width, d.Height, d.Depth};
  if (flags)
    *flags = d.Flags;
  return cudaSuccess;
}

namespace {
/// A 2D copy between linear memory and an array (`toArray`: into it).
cudaError_t copy2DArray(cudaArray_const_t a, size_t wOffset, size_t hOffset, void *mem,
                        size_t pitch, size_t width, size_t height, cudaMemcpyKind kind,
                        bool toArray, bool async, cudaStream_t s) {
  CTX;
  CUDA_MEMCPY2D c{};
  if (toArray) {
    c.srcMemoryType = memoryType(srcIsDevice(kind), kind);
    c.srcHost = mem;
    c.srcDevice = dp(mem);
    c.srcPitch = pitch;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = cu(a);
    c.dstXInBytes = wOffset;
    c.dstY = hOffset;
  } else {
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = cu(a);
    c.srcXInBytes = wOffset;
    c.srcY = hOffset;
    c.dstMemoryType = memoryType(dstIsDevice(kind), kind);
    c.dstHost = mem;
    c.dstDevice = dp(mem);
    c.dstPitch = pitch;
  }
  c.WidthInBytes = width;
  c.Height = height;
  return ret(async ? cuMemcpy2DAsync(&c, cu(s)) : cuMemcpy2D(&c));
}

/// The deprecated row-major copies of `count` bytes starting at (wOffset bytes, row hOffset) of a
/// 1D or 2D array: a first partial row, whole rows, a last partial row.
cudaError_t copy1DArray(cudaArray_const_t a, size_t wOffset, size_t hOffset, void *mem,
                        size_t count, cudaMemcpyKind kind, bool toArray, bool async,
                        cudaStream_t s) {
  CTX;
  CUDA_ARRAY3D_DESCRIPTOR d;
  size_t elem;
  CU(describe(a, d, elem));
  size_t row = d.Width * elem, rows = d.Height ? d.Height : 1;
  if (d.Depth > 0 || wOffset >= row || hOffset >= rows ||
      hOffset * row + wOffset + count > row * rows)
    return ret(cudaErrorInvalidValue); // as the runtime: these copies do not reach into 3D arrays
  char *m = static_cast<char *>(mem);
  while (count) {
    size_t n = wOffset == 0 && count >= row ? count / row * row : std::min(count, row - wOffset);
    size_t h = wOffset == 0 && n >= row ? n / row : 1;
    size_t w = h > 1 ? row : n;
    if (cudaError_t e = copy2DArray(a, wOffset, hOffset, m, w, w, h, kind, toArray, async, s))
      return e;
    m += n;
    count -= n;
    hOffset += h;
    wOffset = 0;
  }
  return cudaSuccess;
}
} // namespace

EXPORT cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                       const void *src, size_t spitch, size_t width, size_t height,
                                       cudaMemcpyKind kind) {
  return copy2DArray(dst, wOffset, hOffset, const_cast<void *>(src), spitch, width, height, kind,
                     true, false, nullptr);
}

EXPORT cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                            const void *src, size_t spitch, size_t width,
                                            size_t height, cudaMemcpyKind kind, cudaStream_t s) {
  return copy2DArray(dst, wOffset, hOffset, const_cast<void *>(src), spitch, width, height, kind,
                     true, true, s);
}

EXPORT cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src,
                                         size_t wOffset, size_t hOffset, size_t width,
                                         size_t height, cudaMemcpyKind kind) {
  return copy2DArray(src, wOffset, hOffset, dst, dpitch, width, height, kind, false, false,
                     nullptr);
}

EXPORT cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                     const void *src, size_t count, cudaMemcpyKind kind) {
  return copy1DArray(dst, wOffset, hOffset, const_cast<void *>(src), count, kind, true, false,
                     nullptr);
}

EXPORT cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset,
                                       size_t hOffset, size_t count, cudaMemcpyKind kind) {
  return copy1DArray(src, wOffset, hOffset, dst, count, kind, false, false, nullptr);
}

namespace {
/// cudaMemcpy3DParms as CUDA_MEMCPY3D: positions and widths are in elements where an array is
/// involved and in bytes otherwise.
CUresult driver3D(const cudaMemcpy3DParms *p, CUDA_MEMCPY3D &c) {
  // one source and one destination each, a known direction (the driver's descriptor cannot say)
  if (!p->srcArray == !p->srcPtr.ptr || !p->dstArray == !p->dstPtr.ptr)
    return CUDA_ERROR_INVALID_VALUE;
  if (unsigned(p->kind) > unsigned(cudaMemcpyDefault))
    return CUresult(cudaErrorInvalidMemcpyDirection);
  size_t elem = 1;
  CUDA_ARRAY3D_DESCRIPTOR d;
  if (p->srcArray || p->dstArray)
    if (CUresult r = describe(p->srcArray ? p->srcArray : p->dstArray, d, elem))
      return r;
  c = CUDA_MEMCPY3D{};
  if (p->srcArray) {
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = cu(p->srcArray);
    c.srcXInBytes = p->srcPos.x * elem;
  } else {
    c.srcMemoryType = memoryType(srcIsDevice(p->kind), p->kind);
    c.srcHost = p->srcPtr.ptr;
    c.srcDevice = dp(p->srcPtr.ptr);
    c.srcPitch = p->srcPtr.pitch;
    c.srcHeight = p->srcPtr.ysize;
    c.srcXInBytes = p->srcPos.x;
  }
  c.srcY = p->srcPos.y;
  c.srcZ = p->srcPos.z;
  if (p->dstArray) {
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = cu(p->dstArray);
    c.dstXInBytes = p->dstPos.x * elem;
  } else {
    c.dstMemoryType = memoryType(dstIsDevice(p->kind), p->kind);
    c.dstHost = p->dstPtr.ptr;
    c.dstDevice = dp(p->dstPtr.ptr);
    c.dstPitch = p->dstPtr.pitch;
    c.dstHeight = p->dstPtr.ysize;
    c.dstXInBytes = p->dstPos.x;
  }
  c.dstY = p->dstPos.y;
  c.dstZ = p->dstPos.z;
  bool anyArray = p->srcArray || p->dstArray;
  c.WidthInBytes = p->extent.width * (anyArray ? elem : 1);
  c.Height = p->extent.height;
  c.Depth = p->extent.depth;
  return CUDA_SUCCESS;
}

cudaError_t memcpy3D(const cudaMemcpy3DParms *p, bool async, cudaStream_t s) {
  CTX;
  if (!p)
    return ret(cudaErrorInvalidValue);
  CUDA_MEMCPY3D c;
  CU(driver3D(p, c));
  return ret(async ? cuMemcpy3DAsync(&c, cu(s)) : cuMemcpy3D(&c));
}
} // namespace

EXPORT cudaError_t cudaMemcpy3DPeer(const cudaMemcpy3DPeerParms *p) {
  CTX;
  if (!p)
    return ret(cudaErrorInvalidValue);
  int count = 0;
  CU(cuDeviceGetCount(&count));
  if (p->srcDevice < 0 || p->srcDevice >= count || p->dstDevice < 0 || p->dstDevice >= count)
    return ret(cudaErrorInvalidDevice);
  cudaMemcpy3DParms q{};
  q.srcArray = p->srcArray;
  q.srcPos = p->srcPos;
  q.srcPtr = p->srcPtr;
  q.dstArray = p->dstArray;
  q.dstPos = p->dstPos;
  q.dstPtr = p->dstPtr;
  q.extent = p->extent;
  q.kind = cudaMemcpyDeviceToDevice; // peer copies are between device memories
  CUDA_MEMCPY3D c;
  CU(driver3D(&q, c));
  // the peer form is the 3D copy with a context on each side (one device: the primary context)
  CUDA_MEMCPY3D_PEER pc{};
  pc.srcXInBytes = c.srcXInBytes;
  pc.srcY = c.srcY;
  pc.srcZ = c.srcZ;
  pc.srcMemoryType = c.srcMemoryType;
  pc.srcDevice = c.srcDevice;
  pc.srcArray = c.srcArray;
  pc.srcContext = state().primary;
  pc.srcPitch = c.srcPitch;
  pc.srcHeight = c.srcHeight;
  pc.dstXInBytes = c.dstXInBytes;
  pc.dstY = c.dstY;
  pc.dstZ = c.dstZ;
  pc.dstMemoryType = c.dstMemoryType;
  pc.dstDevice = c.dstDevice;
  pc.dstArray = c.dstArray;
  pc.dstContext = state().primary;
  pc.dstPitch = c.dstPitch;
  pc.dstHeight = c.dstHeight;
  pc.WidthInBytes = c.WidthInBytes;
  pc.Height = c.Height;
  pc.Depth = c.Depth;
  return ret(cuMemcpy3DPeer(&pc));
}

EXPORT cudaError_t cudaMalloc3D(cudaPitchedPtr *pp, cudaExtent extent) {
  CTX;
  if (!pp)
    return ret(cudaErrorInvalidValue);
  void *p = nullptr;
  size_t pitch = 0;
  if (cudaError_t e = cudaMallocPitch(&p, &pitch, extent.width, extent.height * extent.depth))
    return e;
  *pp = cudaPitchedPtr{p, pitch, extent.width, extent.height};
  return cudaSuccess;
}

EXPORT cudaError_t cudaMemset3D(cudaPitchedPtr pp, int value, cudaExtent extent) {
  CTX;
  // one 2D set per slice: slices are ysize rows of `pitch` bytes apart
  for (size_t z = 0; z < extent.depth; ++z)
    CU(cuMemsetD2D8(dp(pp.ptr) + z * pp.pitch * pp.ysize, pp.pitch, (unsigned char)value,
                    extent.width, extent.height));
  return cudaSuccess;
}

EXPORT cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p) { return memcpy3D(p, false, nullptr); }

EXPORT cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms *p, cudaStream_t s) {
  return memcpy3D(p, true, s);
}

namespace {
CUresult resourceToDriver(const cudaResourceDesc &r, CUDA_RESOURCE_DESC &out) {
  std::memset(&out, 0, sizeof out);
  out.resType = CUresourcetype(r.resType); // same numbers
  switch (r.resType) {
  case cudaResourceTypeArray:
    out.res.array.hArray = cu(r.res.array.array);
    return CUDA_SUCCESS;
  case cudaResourceTypeMipmappedArray:
    out.res.mipmap.hMipmappedArray = reinterpret_cast<CUmipmappedArray>(r.res.mipmap.mipmap);
    return CUDA_SUCCESS;
  case cudaResourceTypeLinear:
    out.res.linear.devPtr = dp(r.res.linear.devPtr);
    out.res.linear.sizeInBytes = r.res.linear.sizeInBytes;
    return driverFormat(r.res.linear.desc, out.res.linear.format, out.res.linear.numChannels)
               ? CUDA_SUCCESS
               : CUresult(cudaErrorInvalidChannelDescriptor);
  case cudaResourceTypePitch2D:
    out.res.pitch2D.devPtr = dp(r.res.pitch2D.devPtr);
    out.res.pitch2D.width = r.res.pitch2D.width;
    out.res.pitch2D.height = r.res.pitch2D.height;
    out.res.pitch2D.pitchInBytes = r.res.pitch2D.pitchInBytes;
    return driverFormat(r.res.pitch2D.desc, out.res.pitch2D.format, out.res.pitch2D.numChannels)
               ? CUDA_SUCCESS
               : CUresult(cudaErrorInvalidChannelDescriptor);
  }
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult resourceFromDriver(const CUDA_RESOURCE_DESC &r, cudaResourceDesc &out) {
  std::memset(&out, 0, sizeof out);
  out.resType = cudaResourceType(r.resType);
  switch (r.resType) {
  case CU_RESOURCE_TYPE_ARRAY:
    out.res.array.array = rt(r.res.array.hArray);
    return CUDA_SUCCESS;
  case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
    out.res.mipmap.mipmap = reinterpret_cast<cudaMipmappedArray_t>(r.res.mipmap.hMipmappedArray);
    return CUDA_SUCCESS;
  case CU_RESOURCE_TYPE_LINEAR:
    out.res.linear.devPtr = reinterpret_cast<void *>(r.res.linear.devPtr);
    out.res.linear.sizeInBytes = r.res.linear.sizeInBytes;
    return runtimeFormat(r.res.linear.format, r.res.linear.numChannels, out.res.linear.desc)
               ? CUDA_SUCCESS
               : CUDA_ERROR_INVALID_VALUE;
  case CU_RESOURCE_TYPE_PITCH2D:
    out.res.pitch2D.devPtr = reinterpret_cast<void *>(r.res.pitch2D.devPtr);
    out.res.pitch2D.width = r.res.pitch2D.width;
    out.res.pitch2D.height = r.res.pitch2D.height;
    out.res.pitch2D.pitchInBytes = r.res.pitch2D.pitchInBytes;
    return runtimeFormat(r.res.pitch2D.format, r.res.pitch2D.numChannels, out.res.pitch2D.desc)
               ? CUDA_SUCCESS
               : CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_ERROR_INVALID_VALUE;
}
} // namespace

EXPORT cudaError_t cudaCreateTextureObject(cudaTextureObject_t *tex, const cudaResourceDesc *res,
                                           const cudaTextureDesc *td,
                                           const cudaResourceViewDesc *view) {
  CTX;
  if (!tex || !res || !td)
    return ret(cudaErrorInvalidValue);
  CUDA_RESOURCE_DESC r;
  CU(resourceToDriver(*res, r));
  CUDA_TEXTURE_DESC t{};
  // address and filter modes number alike; the read mode and the booleans become flags
  for (int k = 0; k < 3; ++k)
    t.addressMode[k] = CUaddress_mode(td->addressMode[k]);
  t.filterMode = CUfilter_mode(td->filterMode);
  t.flags = (td->readMode == cudaReadModeElementType ? CU_TRSF_READ_AS_INTEGER : 0) |
            (td->normalizedCoords ? CU_TRSF_NORMALIZED_COORDINATES : 0) |
            (td->sRGB ? CU_TRSF_SRGB : 0) |
            (td->disableTrilinearOptimization ? CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION : 0) |
            (td->seamlessCubemap ? CU_TRSF_SEAMLESS_CUBEMAP : 0);
  t.maxAnisotropy = td->maxAnisotropy;
  t.mipmapFilterMode = CUfilter_mode(td->mipmapFilterMode);
  t.mipmapLevelBias = td->mipmapLevelBias;
  t.minMipmapLevelClamp = td->minMipmapLevelClamp;
  t.maxMipmapLevelClamp = td->maxMipmapLevelClamp;
  for (int k = 0; k < 4; ++k)
    t.borderColor[k] = td->borderColor[k];
  // cudaResourceViewDesc and CUDA_RESOURCE_VIEW_DESC share layout and format numbering
  CUtexObject obj = 0;
  CUresult e =
      cuTexObjectCreate(&obj, &r, &t, reinterpret_cast<const CUDA_RESOURCE_VIEW_DESC *>(view));
  *tex = cudaTextureObject_t(obj);
  return ret(e);
}

EXPORT cudaError_t cudaDestroyTextureObject(cudaTextureObject_t tex) {
  CTX;
  return ret(cuTexObjectDestroy(CUtexObject(tex)));
}

EXPORT cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc *res,
                                                    cudaTextureObject_t tex) {
  CTX;
  if (!res)
    return ret(cudaErrorInvalidValue);
  CUDA_RESOURCE_DESC r;
  CU(cuTexObjectGetResourceDesc(&r, CUtexObject(tex)));
  return ret(resourceFromDriver(r, *res));
}

EXPORT cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc *td, cudaTextureObject_t tex) {
  CTX;
  if (!td)
    return ret(cudaErrorInvalidValue);
  CUDA_TEXTURE_DESC t;
  CU(cuTexObjectGetTextureDesc(&t, CUtexObject(tex)));
  cudaResourceDesc r;
  {
    CUDA_RESOURCE_DESC cr;
    CU(cuTexObjectGetResourceDesc(&cr, CUtexObject(tex)));
    CU(resourceFromDriver(cr, r));
  }
  // float channels read as themselves: the runtime reports cudaReadModeElementType for them
  cudaChannelFormatDesc c{};
  if (r.resType == cudaResourceTypeArray)
    CU(cudaGetChannelDesc(&c, r.res.array.array) == cudaSuccess ? CUDA_SUCCESS
                                                                : CUDA_ERROR_INVALID_VALUE);
  else if (r.resType == cudaResourceTypeLinear)
    c = r.res.linear.desc;
  else if (r.resType == cudaResourceTypePitch2D)
    c = r.res.pitch2D.desc;
  std::memset(td, 0, sizeof *td);
  for (int k = 0; k < 3; ++k)
    td->addressMode[k] = cudaTextureAddressMode(t.addressMode[k]);
  td->filterMode = cudaTextureFilterMode(t.filterMode);
  td->readMode = (t.flags & CU_TRSF_READ_AS_INTEGER) || c.f == cudaChannelFormatKindFloat
                     ? cudaReadModeElementType
                     : cudaReadModeNormalizedFloat;
  td->normalizedCoords = (t.flags & CU_TRSF_NORMALIZED_COORDINATES) ? 1 : 0;
  td->sRGB = (t.flags & CU_TRSF_SRGB) ? 1 : 0;
  td->disableTrilinearOptimization = (t.flags & CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION) ? 1 : 0;
  td->seamlessCubemap = (t.flags & CU_TRSF_SEAMLESS_CUBEMAP) ? 1 : 0;
  td->maxAnisotropy = t.maxAnisotropy;
  td->mipmapFilterMode = cudaTextureFilterMode(t.mipmapFilterMode);
  td->mipmapLevelBias = t.mipmapLevelBias;
  td->minMipmapLevelClamp = t.minMipmapLevelClamp;
  td->maxMipmapLevelClamp = t.maxMipmapLevelClamp;
  for (int k = 0; k < 4; ++k)
    td->borderColor[k] = t.borderColor[k];
  return cudaSuccess;
}

EXPORT cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *surf, const cudaResourceDesc *res) {
  CTX;
  if (!surf || !res)
    return ret(cudaErrorInvalidValue);
  CUDA_RESOURCE_DESC r;
  CU(resourceToDriver(*res, r));
  CUsurfObject obj = 0;
  CUresult e = cuSurfObjectCreate(&obj, &r);
  *surf = cudaSurfaceObject_t(obj);
  return ret(e);
}

EXPORT cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surf) {
  CTX;
  return ret(cuSurfObjectDestroy(CUsurfObject(surf)));
}

EXPORT cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc *res,
                                                    cudaSurfaceObject_t surf) {
  CTX;
  if (!res)
    return ret(cudaErrorInvalidValue);
  CUDA_RESOURCE_DESC r;
  CU(cuSurfObjectGetResourceDesc(&r, CUsurfObject(surf)));
  return ret(resourceFromDriver(r, *res));
}

EXPORT cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *m,
                                            const cudaChannelFormatDesc *desc, cudaExtent extent,
                                            unsigned int levels, unsigned int flags) {
  CTX;
  if (!m || !desc)
    return ret(cudaErrorInvalidValue);
  CUDA_ARRAY3D_DESCRIPTOR d{};
  if (!driverFormat(*desc, d.Format, d.NumChannels))
    return ret(cudaErrorInvalidChannelDescriptor);
  d.Width = extent.width;
  d.Height = extent.height;
  d.Depth = extent.depth;
  d.Flags = flags;
  return ret(cuMipmappedArrayCreate(reinterpret_cast<CUmipmappedArray *>(m), &d, levels));
}

EXPORT cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t *level, cudaMipmappedArray_const_t m,
                                              unsigned int which) {
  CTX;
  return ret(cuMipmappedArrayGetLevel(
      reinterpret_cast<CUarray *>(level),
      reinterpret_cast<CUmipmappedArray>(const_cast<cudaMipmappedArray_t>(m)), which));
}

EXPORT cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t m) {
  CTX;
  if (!m)
    return cudaSuccess;
  return ret(cuMipmappedArrayDestroy(reinterpret_cast<CUmipmappedArray>(m)));
}

// --- device properties: the name, UUID, memory size and every attribute-backed field ------------

EXPORT cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int device) {
  CTX;
  if (!p)
    return ret(cudaErrorInvalidValue);
  CUdevice dev;
  CU(cuDeviceGet(&dev, device));
  std::memset(p, 0, sizeof *p);
  CU(cuDeviceGetName(p->name, sizeof p->name, dev));
  CU(cuDeviceGetUuid(reinterpret_cast<CUuuid *>(&p->uuid), dev));
  CU(cuDeviceTotalMem(&p->totalGlobalMem, dev));
  int v;
#define A(field, attr)                                                                             \
  CU(cuDeviceGetAttribute(&v, attr, dev));                                                         \
  p->field = decltype(p->field)(v)
  A(sharedMemPerBlock, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  A(regsPerBlock, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  A(warpSize, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  A(memPitch, CU_DEVICE_ATTRIBUTE_MAX_PITCH);
  A(maxThreadsPerBlock, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  A(maxThreadsDim[0], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  A(maxThreadsDim[1], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  A(maxThreadsDim[2], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  A(maxGridSize[0], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
  A(maxGridSize[1], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
  A(maxGridSize[2], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
  A(totalConstMem, CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
  A(major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  A(minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  A(textureAlignment, CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT);
  A(texturePitchAlignment, CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT);
  A(multiProcessorCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  A(integrated, CU_DEVICE_ATTRIBUTE_INTEGRATED);
  A(canMapHostMemory, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY);
  A(maxTexture1D, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH);
  A(maxTexture1DMipmap, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH);
  A(maxTexture2D[0], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH);
  A(maxTexture2D[1], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT);
  A(maxTexture2DMipmap[0], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH);
  A(maxTexture2DMipmap[1], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT);
  A(maxTexture2DLinear[0], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH);
  A(maxTexture2DLinear[1], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT);
  A(maxTexture2DLinear[2], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH);
  A(maxTexture2DGather[0], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH);
  A(maxTexture2DGather[1], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT);
  A(maxTexture3D[0], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH);
  A(maxTexture3D[1], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT);
  A(maxTexture3D[2], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH);
  A(maxTexture3DAlt[0], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE);
  A(maxTexture3DAlt[1], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE);
  A(maxTexture3DAlt[2], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE);
  A(maxTextureCubemap, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH);
  A(maxTexture1DLayered[0], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH);
  A(maxTexture1DLayered[1], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS);
  A(maxTexture2DLayered[0], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH);
  A(maxTexture2DLayered[1], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT);
  A(maxTexture2DLayered[2], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS);
  A(maxTextureCubemapLayered[0], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH);
  A(maxTextureCubemapLayered[1], CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS);
  A(maxSurface1D, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH);
  A(maxSurface2D[0], CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH);
  A(maxSurface2D[1], CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT);
  A(maxSurface3D[0], CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH);
  A(maxSurface3D[1], CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT);
  A(maxSurface3D[2], CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH);
  A(maxSurface1DLayered[0], CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH);
  A(maxSurface1DLayered[1], CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS);
  A(maxSurface2DLayered[0], CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH);
  A(maxSurface2DLayered[1], CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT);
  A(maxSurface2DLayered[2], CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS);
  A(maxSurfaceCubemap, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH);
  A(maxSurfaceCubemapLayered[0], CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH);
  A(maxSurfaceCubemapLayered[1], CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS);
  A(surfaceAlignment, CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT);
  A(concurrentKernels, CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS);
  A(ECCEnabled, CU_DEVICE_ATTRIBUTE_ECC_ENABLED);
  A(pciBusID, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
  A(pciDeviceID, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
  A(pciDomainID, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
  A(tccDriver, CU_DEVICE_ATTRIBUTE_TCC_DRIVER);
  A(asyncEngineCount, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
  A(unifiedAddressing, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
  A(memoryBusWidth, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  A(l2CacheSize, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  A(persistingL2CacheMaxSize, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE);
  A(maxThreadsPerMultiProcessor, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  A(streamPrioritiesSupported, CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED);
  A(globalL1CacheSupported, CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED);
  A(localL1CacheSupported, CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED);
  A(sharedMemPerMultiprocessor, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  A(regsPerMultiprocessor, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  A(managedMemory, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY);
  A(isMultiGpuBoard, CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD);
  A(multiGpuBoardGroupID, CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID);
  A(hostNativeAtomicSupported, CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED);
  A(pageableMemoryAccess, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS);
  A(concurrentManagedAccess, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS);
  A(computePreemptionSupported, CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED);
  A(canUseHostPointerForRegisteredMem, CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM);
  A(cooperativeLaunch, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH);
  A(sharedMemPerBlockOptin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  A(pageableMemoryAccessUsesHostPageTables,
    CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES);
  A(directManagedMemAccessFromHost, CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST);
  A(maxBlocksPerMultiProcessor, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  A(accessPolicyMaxWindowSize, CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE);
  A(reservedSharedMemPerBlock, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
  A(hostRegisterSupported, CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED);
  A(sparseCudaArraySupported, CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED);
  A(hostRegisterReadOnlySupported, CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED);
  A(timelineSemaphoreInteropSupported, CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED);
  A(memoryPoolsSupported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
  A(gpuDirectRDMASupported, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED);
  A(gpuDirectRDMAFlushWritesOptions, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS);
  A(gpuDirectRDMAWritesOrdering, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING);
  A(memoryPoolSupportedHandleTypes, CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES);
  A(deferredMappingCudaArraySupported, CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED);
  A(ipcEventSupported, CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED);
  A(clusterLaunch, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH);
  A(unifiedFunctionPointers, CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS);
#undef A
  return cudaSuccess;
}

// --- memory pools (cudaMemPool_t is CUmemoryPool; properties and attributes share layout and
// numbering with the driver's) -------------------------------------------------------------------

static_assert(sizeof(cudaMemPoolProps) == sizeof(CUmemPoolProps), "pool properties layout");
static_assert(int(cudaMemPoolAttrReleaseThreshold) == int(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD),
              "pool attribute numbering");

namespace {
CUmemoryPool cu(cudaMemPool_t p) { return reinterpret_cast<CUmemoryPool>(p); }
} // namespace

EXPORT cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int device) {
  CTX;
  return ret(cuDeviceGetDefaultMemPool(reinterpret_cast<CUmemoryPool *>(pool), CUdevice(device)));
}

EXPORT cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int device) {
  CTX;
  return ret(cuDeviceGetMemPool(reinterpret_cast<CUmemoryPool *>(pool), CUdevice(device)));
}

EXPORT cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool) {
  CTX;
  return ret(cuDeviceSetMemPool(CUdevice(device), cu(pool)));
}

EXPORT cudaError_t cudaMemPoolCreate(cudaMemPool_t *pool, const cudaMemPoolProps *props) {
  CTX;
  return ret(cuMemPoolCreate(reinterpret_cast<CUmemoryPool *>(pool),
                             reinterpret_cast<const CUmemPoolProps *>(props)));
}

EXPORT cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) {
  CTX;
  return ret(cuMemPoolDestroy(cu(pool)));
}

EXPORT cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t minBytesToKeep) {
  CTX;
  return ret(cuMemPoolTrimTo(cu(pool), minBytesToKeep));
}

EXPORT cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void *value) {
  CTX;
  return ret(cuMemPoolSetAttribute(cu(pool), CUmemPool_attribute(attr), value));
}

EXPORT cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void *value) {
  CTX;
  return ret(cuMemPoolGetAttribute(cu(pool), CUmemPool_attribute(attr), value));
}

EXPORT cudaError_t cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s) {
  CTX;
  if (!p)
    return ret(cudaErrorInvalidValue);
  CUdeviceptr d = 0;
  CUresult r = cuMemAllocFromPoolAsync(&d, n, cu(pool), cu(s));
  *p = reinterpret_cast<void *>(d);
  return ret(r);
}

// --- device flags, PCI ids, peers, profiler ------------------------------------------------------

namespace {
/// cudaErrorInvalidDevice unless `device` exists.
cudaError_t checkDevice(int device) {
  int count = 0;
  CU(cuDeviceGetCount(&count));
  return device >= 0 && device < count ? cudaSuccess : ret(cudaErrorInvalidDevice);
}
} // namespace

EXPORT cudaError_t cudaGetDeviceFlags(unsigned int *flags) {
  CTX;
  if (!flags)
    return ret(cudaErrorInvalidValue);
  unsigned f = 0;
  int active = 0;
  CU(cuDevicePrimaryCtxGetState(0, &f, &active));
  *flags = f | cudaDeviceMapHost; // mapped pinned memory is always on
  return cudaSuccess;
}

EXPORT cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  CTX;
  if (flags & ~unsigned(cudaDeviceMask))
    return ret(cudaErrorInvalidValue);
  // the scheduling and local-memory flags are the primary context's
  return ret(cuDevicePrimaryCtxSetFlags(0, flags & ~unsigned(cudaDeviceMapHost)));
}

EXPORT cudaError_t cudaDeviceGetPCIBusId(char *id, int len, int device) {
  CTX;
  if (cudaError_t e = checkDevice(device))
    return e;
  return ret(cuDeviceGetPCIBusId(id, len, CUdevice(device)));
}

EXPORT cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *id) {
  CTX;
  CUdevice d;
  CU(cuDeviceGetByPCIBusId(&d, id));
  *device = int(d);
  return cudaSuccess;
}

EXPORT cudaError_t cudaDeviceCanAccessPeer(int *can, int device, int peer) {
  CTX;
  return ret(cuDeviceCanAccessPeer(can, CUdevice(device), CUdevice(peer)));
}

EXPORT cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags) {
  CTX;
  if (cudaError_t e = checkDevice(peer))
    return e;
  CUcontext peerCtx;
  CU(cuDevicePrimaryCtxRetain(&peerCtx, CUdevice(peer)));
  CUresult r = cuCtxEnablePeerAccess(peerCtx, flags);
  cuDevicePrimaryCtxRelease(CUdevice(peer));
  return ret(r);
}

EXPORT cudaError_t cudaDeviceDisablePeerAccess(int peer) {
  CTX;
  if (cudaError_t e = checkDevice(peer))
    return e;
  CUcontext peerCtx;
  CU(cuDevicePrimaryCtxRetain(&peerCtx, CUdevice(peer)));
  CUresult r = cuCtxDisablePeerAccess(peerCtx);
  cuDevicePrimaryCtxRelease(CUdevice(peer));
  return ret(r);
}

EXPORT cudaError_t cudaDeviceGetP2PAttribute(int *value, cudaDeviceP2PAttr attr, int src, int dst) {
  CTX;
  return ret(
      cuDeviceGetP2PAttribute(value, CUdevice_P2PAttribute(attr), CUdevice(src), CUdevice(dst)));
}

namespace {
cudaError_t copyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t n, bool async,
                     cudaStream_t s) {
  CTX;
  if (cudaError_t e = checkDevice(dstDevice))
    return e;
  if (cudaError_t e = checkDevice(srcDevice))
    return e;
  CUcontext c = state().primary; // one device: both sides are its primary context
  return ret(async ? cuMemcpyPeerAsync(dp(dst), c, dp(src), c, n, cu(s))
                   : cuMemcpyPeer(dp(dst), c, dp(src), c, n));
}
} // namespace

EXPORT cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
                                  size_t n) {
  return copyPeer(dst, dstDevice, src, srcDevice, n, false, nullptr);
}

EXPORT cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
                                       size_t n, cudaStream_t s) {
  return copyPeer(dst, dstDevice, src, srcDevice, n, true, s);
}

EXPORT cudaError_t cudaFuncGetName(const char **name, const void *func) {
  CUfunction f;
  CU(function(func, &f));
  return ret(cuFuncGetName(name, f));
}

EXPORT cudaError_t cudaFuncSetCacheConfig(const void *func, cudaFuncCache config) {
  CUfunction f;
  CU(function(func, &f));
  return ret(cuFuncSetCacheConfig(f, CUfunc_cache(config))); // same numbers
}

EXPORT cudaError_t cudaProfilerStart() {
  CTX;
  return ret(cuProfilerStart());
}

EXPORT cudaError_t cudaProfilerStop() {
  CTX;
  return ret(cuProfilerStop());
}

// --- stream capture and the graphs it makes (graph handles, node types, capture modes and
// statuses are the driver's) ----------------------------------------------------------------------

namespace {
CUgraph cu(cudaGraph_t g) { return reinterpret_cast<CUgraph>(g); }
CUgraphExec cu(cudaGraphExec_t g) { return reinterpret_cast<CUgraphExec>(g); }
CUgraphNode cu(cudaGraphNode_t n) { return reinterpret_cast<CUgraphNode>(n); }
static_assert(sizeof(cudaGraphEdgeData) == sizeof(CUgraphEdgeData), "edge data layout");
} // namespace

EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode mode) {
  CTX;
  return ret(cuStreamBeginCapture(cu(s), CUstreamCaptureMode(mode)));
}

EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *graph) {
  CTX;
  return ret(cuStreamEndCapture(cu(s), reinterpret_cast<CUgraph *>(graph)));
}

EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t s, cudaStreamCaptureStatus *status) {
  CTX;
  return ret(cuStreamIsCapturing(cu(s), reinterpret_cast<CUstreamCaptureStatus *>(status)));
}

EXPORT cudaError_t cudaStreamGetCaptureInfo(cudaStream_t s, cudaStreamCaptureStatus *status,
                                            unsigned long long *id, cudaGraph_t *graph,
                                            const cudaGraphNode_t **deps,
                                            const cudaGraphEdgeData **edges, size_t *numDeps) {
  CTX;
  return ret(cuStreamGetCaptureInfo(
      cu(s), reinterpret_cast<CUstreamCaptureStatus *>(status), reinterpret_cast<cuuint64_t *>(id),
      reinterpret_cast<CUgraph *>(graph), reinterpret_cast<const CUgraphNode **>(deps),
      reinterpret_cast<const CUgraphEdgeData **>(edges), numDeps));
}

EXPORT cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *mode) {
  CTX;
  return ret(cuThreadExchangeStreamCaptureMode(reinterpret_cast<CUstreamCaptureMode *>(mode)));
}

EXPORT cudaError_t cudaGraphCreate(cudaGraph_t *graph, unsigned int flags) {
  CTX;
  return ret(cuGraphCreate(reinterpret_cast<CUgraph *>(graph), flags));
}

EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  CTX;
  return ret(cuGraphDestroy(cu(graph)));
}

EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph,
                                        unsigned long long flags) {
  CTX;
  return ret(cuGraphInstantiate(reinterpret_cast<CUgraphExec *>(exec), cu(graph), flags));
}

EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *exec, cudaGraph_t graph,
                                                 unsigned long long flags) {
  return cudaGraphInstantiate(exec, graph, flags);
}

EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t s) {
  CTX;
  return ret(cuGraphLaunch(cu(exec), cu(s)));
}

EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  CTX;
  return ret(cuGraphExecDestroy(cu(exec)));
}

EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *n) {
  CTX;
  return ret(cuGraphGetNodes(cu(graph), reinterpret_cast<CUgraphNode *>(nodes), n));
}

EXPORT cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *n) {
  CTX;
  return ret(cuGraphGetRootNodes(cu(graph), reinterpret_cast<CUgraphNode *>(nodes), n));
}

EXPORT cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType *type) {
  CTX;
  return ret(cuGraphNodeGetType(cu(node), reinterpret_cast<CUgraphNodeType *>(type)));
}

EXPORT cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *deps,
                                                cudaGraphEdgeData *edges, size_t *n) {
  CTX;
  return ret(cuGraphNodeGetDependencies(cu(node), reinterpret_cast<CUgraphNode *>(deps),
                                        reinterpret_cast<CUgraphEdgeData *>(edges), n));
}

EXPORT cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t *deps,
                                                  cudaGraphEdgeData *edges, size_t *n) {
  CTX;
  return ret(cuGraphNodeGetDependentNodes(cu(node), reinterpret_cast<CUgraphNode *>(deps),
                                          reinterpret_cast<CUgraphEdgeData *>(edges), n));
}

EXPORT cudaError_t cudaDeviceGetGraphMemAttribute(int device, cudaGraphMemAttributeType attr,
                                                  void *value) {
  CTX;
  return ret(cuDeviceGetGraphMemAttribute(CUdevice(device), CUgraphMem_attribute(attr), value));
}

// --- graphs built node by node: the runtime's node parameters as the driver's --------------------

namespace {
CUresult kernelToDriver(const cudaKernelNodeParams *p, CUDA_KERNEL_NODE_PARAMS &k) {
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  k = CUDA_KERNEL_NODE_PARAMS{};
  if (CUresult r = function(p->func, &k.func)) // the runtime names the kernel by its host stub
    return r;
  k.gridDimX = p->gridDim.x;
  k.gridDimY = p->gridDim.y;
  k.gridDimZ = p->gridDim.z;
  k.blockDimX = p->blockDim.x;
  k.blockDimY = p->blockDim.y;
  k.blockDimZ = p->blockDim.z;
  k.sharedMemBytes = p->sharedMemBytes;
  k.kernelParams = p->kernelParams;
  k.extra = p->extra;
  return CUDA_SUCCESS;
}

CUresult kernelFromDriver(const CUDA_KERNEL_NODE_PARAMS &k, cudaKernelNodeParams *p) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.byHandle.find(k.func);
  p->func = it == s.byHandle.end() ? reinterpret_cast<void *>(k.func)
                                   : const_cast<void *>(it->second->hostFun);
  p->gridDim = dim3(k.gridDimX, k.gridDimY, k.gridDimZ);
  p->blockDim = dim3(k.blockDimX, k.blockDimY, k.blockDimZ);
  p->sharedMemBytes = k.sharedMemBytes;
  p->kernelParams = k.kernelParams;
  p->extra = k.extra;
  return CUDA_SUCCESS;
}

CUDA_MEMSET_NODE_PARAMS memsetToDriver(const cudaMemsetParams &p) {
  CUDA_MEMSET_NODE_PARAMS m{};
  m.dst = dp(p.dst);
  m.pitch = p.pitch;
  m.value = p.value;
  m.elementSize = p.elementSize;
  m.width = p.width;
  m.height = p.height;
  return m;
}

/// A 1D copy as the driver's 3D copy description.
CUDA_MEMCPY3D copy1D(void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
  CUDA_MEMCPY3D c{};
  c.srcMemoryType = memoryType(srcIsDevice(kind), kind);
  c.srcHost = src;
  c.srcDevice = dp(src);
  c.srcPitch = count;
  c.srcHeight = 1;
  c.dstMemoryType = memoryType(dstIsDevice(kind), kind);
  c.dstHost = dst;
  c.dstDevice = dp(dst);
  c.dstPitch = count;
  c.dstHeight = 1;
  c.WidthInBytes = count;
  c.Height = 1;
  c.Depth = 1;
  return c;
}

const CUgraphNode *cu(const cudaGraphNode_t *n) { return reinterpret_cast<const CUgraphNode *>(n); }
CUgraphNode *out(cudaGraphNode_t *n) { return reinterpret_cast<CUgraphNode *>(n); }
} // namespace

EXPORT cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                          const cudaGraphNode_t *deps, size_t n,
                                          const cudaKernelNodeParams *p) {
  CTX;
  CUDA_KERNEL_NODE_PARAMS k;
  CU(kernelToDriver(p, k));
  return ret(cuGraphAddKernelNode(out(node), cu(graph), cu(deps), n, &k));
}

EXPORT cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams *p) {
  CTX;
  if (!p)
    return ret(cudaErrorInvalidValue);
  CUDA_KERNEL_NODE_PARAMS k;
  CU(cuGraphKernelNodeGetParams(cu(node), &k));
  return ret(kernelFromDriver(k, p));
}

EXPORT cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
                                                const cudaKernelNodeParams *p) {
  CTX;
  CUDA_KERNEL_NODE_PARAMS k;
  CU(kernelToDriver(p, k));
  return ret(cuGraphKernelNodeSetParams(cu(node), &k));
}

EXPORT cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                    const cudaKernelNodeParams *p) {
  CTX;
  CUDA_KERNEL_NODE_PARAMS k;
  CU(kernelToDriver(p, k));
  return ret(cuGraphExecKernelNodeSetParams(cu(exec), cu(node), &k));
}

EXPORT cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                          const cudaGraphNode_t *deps, size_t n,
                                          const cudaMemsetParams *p) {
  CTX;
  if (!p)
    return ret(cudaErrorInvalidValue);
  CUDA_MEMSET_NODE_PARAMS m = memsetToDriver(*p);
  return ret(cuGraphAddMemsetNode(out(node), cu(graph), cu(deps), n, &m, state().primary));
}

EXPORT cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, cudaMemsetParams *p) {
  CTX;
  if (!p)
    return ret(cudaErrorInvalidValue);
  CUDA_MEMSET_NODE_PARAMS m;
  CU(cuGraphMemsetNodeGetParams(cu(node), &m));
  p->dst = reinterpret_cast<void *>(m.dst);
  p->pitch = m.pitch;
  p->value = m.value;
  p->elementSize = m.elementSize;
  p->width = m.width;
  p->height = m.height;
  return cudaSuccess;
}

EXPORT cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const cudaMemsetParams *p) {
  CTX;
  if (!p)
    return ret(cudaErrorInvalidValue);
  CUDA_MEMSET_NODE_PARAMS m = memsetToDriver(*p);
  return ret(cuGraphMemsetNodeSetParams(cu(node), &m));
}

EXPORT cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                    const cudaMemsetParams *p) {
  CTX;
  if (!p)
    return ret(cudaErrorInvalidValue);
  CUDA_MEMSET_NODE_PARAMS m = memsetToDriver(*p);
  return ret(cuGraphExecMemsetNodeSetParams(cu(exec), cu(node), &m, state().primary));
}

EXPORT cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                          const cudaGraphNode_t *deps, size_t n,
                                          const cudaMemcpy3DParms *p) {
  CTX;
  if (!p)
    return ret(cudaErrorInvalidValue);
  CUDA_MEMCPY3D c;
  CU(driver3D(p, c));
  return ret(cuGraphAddMemcpyNode(out(node), cu(graph), cu(deps), n, &c, state().primary));
}

EXPORT cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *node, cudaGraph_t graph,
                                            const cudaGraphNode_t *deps, size_t n, void *dst,
                                            const void *src, size_t count, cudaMemcpyKind kind) {
  CTX;
  CUDA_MEMCPY3D c = copy1D(dst, src, count, kind);
  return ret(cuGraphAddMemcpyNode(out(node), cu(graph), cu(deps), n, &c, state().primary));
}

EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                      void *dst, const void *src, size_t count,
                                                      cudaMemcpyKind kind) {
  CTX;
  CUDA_MEMCPY3D c = copy1D(dst, src, count, kind);
  return ret(cuGraphExecMemcpyNodeSetParams(cu(exec), cu(node), &c, state().primary));
}

EXPORT cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, cudaMemcpy3DParms *p) {
  CTX;
  if (!p)
    return ret(cudaErrorInvalidValue);
  CUDA_MEMCPY3D c;
  CU(cuGraphMemcpyNodeGetParams(cu(node), &c));
  // linear memory on both sides (array copies are not translated back)
  if (c.srcMemoryType == CU_MEMORYTYPE_ARRAY || c.dstMemoryType == CU_MEMORYTYPE_ARRAY)
    return ret(cudaErrorNotSupported);
  std::memset(p, 0, sizeof *p);
  bool srcHost = c.srcMemoryType == CU_MEMORYTYPE_HOST;
  bool dstHost = c.dstMemoryType == CU_MEMORYTYPE_HOST;
  void *src = srcHost ? const_cast<void *>(c.srcHost) : reinterpret_cast<void *>(c.srcDevice);
  void *dst = dstHost ? c.dstHost : reinterpret_cast<void *>(c.dstDevice);
  p->srcPtr = cudaPitchedPtr{src, c.srcPitch, c.WidthInBytes, c.srcHeight};
  p->dstPtr = cudaPitchedPtr{dst, c.dstPitch, c.WidthInBytes, c.dstHeight};
  p->srcPos = cudaPos{c.srcXInBytes, c.srcY, c.srcZ};
  p->dstPos = cudaPos{c.dstXInBytes, c.dstY, c.dstZ};
  p->extent = cudaExtent{c.WidthInBytes, c.Height, c.Depth};
  p->kind = c.srcMemoryType == CU_MEMORYTYPE_UNIFIED || c.dstMemoryType == CU_MEMORYTYPE_UNIFIED
                ? cudaMemcpyDefault
            : srcHost ? (dstHost ? cudaMemcpyHostToHost : cudaMemcpyHostToDevice)
                      : (dstHost ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice);
  return cudaSuccess;
}

// cudaHostNodeParams and CUDA_HOST_NODE_PARAMS are both {function, user data}
static_assert(sizeof(cudaHostNodeParams) == sizeof(CUDA_HOST_NODE_PARAMS), "host node layout");

EXPORT cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                        const cudaGraphNode_t *deps, size_t n,
                                        const cudaHostNodeParams *p) {
  CTX;
  return ret(cuGraphAddHostNode(out(node), cu(graph), cu(deps), n,
                                reinterpret_cast<const CUDA_HOST_NODE_PARAMS *>(p)));
}

EXPORT cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, cudaHostNodeParams *p) {
  CTX;
  return ret(cuGraphHostNodeGetParams(cu(node), reinterpret_cast<CUDA_HOST_NODE_PARAMS *>(p)));
}

EXPORT cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                  const cudaHostNodeParams *p) {
  CTX;
  return ret(cuGraphExecHostNodeSetParams(cu(exec), cu(node),
                                          reinterpret_cast<const CUDA_HOST_NODE_PARAMS *>(p)));
}

EXPORT cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                         const cudaGraphNode_t *deps, size_t n) {
  CTX;
  return ret(cuGraphAddEmptyNode(out(node), cu(graph), cu(deps), n));
}

EXPORT cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                              const cudaGraphNode_t *deps, size_t n,
                                              cudaGraph_t child) {
  CTX;
  return ret(cuGraphAddChildGraphNode(out(node), cu(graph), cu(deps), n, cu(child)));
}

EXPORT cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                        cudaGraph_t child) {
  CTX;
  return ret(cuGraphExecChildGraphNodeSetParams(cu(exec), cu(node), cu(child)));
}

EXPORT cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                               const cudaGraphNode_t *deps, size_t n,
                                               cudaEvent_t e) {
  CTX;
  return ret(cuGraphAddEventRecordNode(out(node), cu(graph), cu(deps), n, cu(e)));
}

EXPORT cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                             const cudaGraphNode_t *deps, size_t n, cudaEvent_t e) {
  CTX;
  return ret(cuGraphAddEventWaitNode(out(node), cu(graph), cu(deps), n, cu(e)));
}

EXPORT cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *e) {
  CTX;
  return ret(cuGraphEventRecordNodeGetEvent(cu(node), reinterpret_cast<CUevent *>(e)));
}

EXPORT cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *e) {
  CTX;
  return ret(cuGraphEventWaitNodeGetEvent(cu(node), reinterpret_cast<CUevent *>(e)));
}

EXPORT cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                            const cudaGraphNode_t *to,
                                            const cudaGraphEdgeData *edges, size_t n) {
  CTX;
  return ret(cuGraphAddDependencies(cu(graph), cu(from), cu(to),
                                    reinterpret_cast<const CUgraphEdgeData *>(edges), n));
}

EXPORT cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                               const cudaGraphNode_t *to,
                                               const cudaGraphEdgeData *edges, size_t n) {
  CTX;
  return ret(cuGraphRemoveDependencies(cu(graph), cu(from), cu(to),
                                       reinterpret_cast<const CUgraphEdgeData *>(edges), n));
}

EXPORT cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
                                     cudaGraphEdgeData *edges, size_t *n) {
  CTX;
  return ret(cuGraphGetEdges(cu(graph), out(from), out(to),
                             reinterpret_cast<CUgraphEdgeData *>(edges), n));
}

EXPORT cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) {
  CTX;
  return ret(cuGraphDestroyNode(cu(node)));
}

EXPORT cudaError_t cudaGraphClone(cudaGraph_t *clone, cudaGraph_t graph) {
  CTX;
  return ret(cuGraphClone(reinterpret_cast<CUgraph *>(clone), cu(graph)));
}

EXPORT cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *node, cudaGraphNode_t original,
                                            cudaGraph_t clone) {
  CTX;
  return ret(cuGraphNodeFindInClone(out(node), cu(original), cu(clone)));
}

EXPORT cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node,
                                           unsigned int *enabled) {
  CTX;
  return ret(cuGraphNodeGetEnabled(cu(exec), cu(node), enabled));
}

EXPORT cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node,
                                           unsigned int enabled) {
  CTX;
  return ret(cuGraphNodeSetEnabled(cu(exec), cu(node), enabled));
}

EXPORT cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t exec, unsigned long long *flags) {
  CTX;
  return ret(cuGraphExecGetFlags(cu(exec), reinterpret_cast<cuuint64_t *>(flags)));
}

// cudaGraphExecUpdateResultInfo and CUgraphExecUpdateResultInfo are {result, error node, from node}
static_assert(sizeof(cudaGraphExecUpdateResultInfo) == sizeof(CUgraphExecUpdateResultInfo),
              "update result layout");

EXPORT cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                       cudaGraphExecUpdateResultInfo *info) {
  CTX;
  return ret(cuGraphExecUpdate(cu(exec), cu(graph),
                               reinterpret_cast<CUgraphExecUpdateResultInfo *>(info)));
}

// kernel-node and stream attributes are launch attributes: the driver's ids and value layout
EXPORT cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t dst, cudaGraphNode_t src) {
  CTX;
  return ret(cuGraphKernelNodeCopyAttributes(cu(dst), cu(src)));
}

EXPORT cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t node, cudaKernelNodeAttrID attr,
                                                   cudaKernelNodeAttrValue *value) {
  CTX;
  return ret(cuGraphKernelNodeGetAttribute(cu(node), CUkernelNodeAttrID(attr),
                                           reinterpret_cast<CUkernelNodeAttrValue *>(value)));
}

EXPORT cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t node, cudaKernelNodeAttrID attr,
                                                   const cudaKernelNodeAttrValue *value) {
  CTX;
  return ret(cuGraphKernelNodeSetAttribute(cu(node), CUkernelNodeAttrID(attr),
                                           reinterpret_cast<const CUkernelNodeAttrValue *>(value)));
}

EXPORT cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src) {
  CTX;
  return ret(cuStreamCopyAttributes(cu(dst), cu(src)));
}

EXPORT cudaError_t cudaStreamGetAttribute(cudaStream_t s, cudaStreamAttrID attr,
                                          cudaStreamAttrValue *value) {
  CTX;
  return ret(cuStreamGetAttribute(cu(s), CUstreamAttrID(attr),
                                  reinterpret_cast<CUstreamAttrValue *>(value)));
}

EXPORT cudaError_t cudaStreamSetAttribute(cudaStream_t s, cudaStreamAttrID attr,
                                          const cudaStreamAttrValue *value) {
  CTX;
  return ret(cuStreamSetAttribute(cu(s), CUstreamAttrID(attr),
                                  reinterpret_cast<const CUstreamAttrValue *>(value)));
}

EXPORT cudaError_t cudaCtxResetPersistingL2Cache() {
  CTX;
  return ret(cuCtxResetPersistingL2Cache());
}

// copy nodes with a symbol: the symbol's address, then a 1D copy node
EXPORT cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t *node, cudaGraph_t graph,
                                                  const cudaGraphNode_t *deps, size_t n,
                                                  const void *sym, const void *src, size_t count,
                                                  size_t offset, cudaMemcpyKind kind) {
  cudaMemcpyKind toKind;
  if (!symbolKind(kind, true, toKind))
    return ret(cudaErrorInvalidMemcpyDirection);
  CUdeviceptr at;
  if (cudaError_t e = symbolCopy(sym, count, offset, &at))
    return e;
  return cudaGraphAddMemcpyNode1D(node, graph, deps, n, reinterpret_cast<void *>(at), src, count,
                                  toKind);
}

EXPORT cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t *node, cudaGraph_t graph,
                                                    const cudaGraphNode_t *deps, size_t n,
                                                    void *dst, const void *sym, size_t count,
                                                    size_t offset, cudaMemcpyKind kind) {
  cudaMemcpyKind fromKind;
  if (!symbolKind(kind, false, fromKind))
    return ret(cudaErrorInvalidMemcpyDirection);
  CUdeviceptr at;
  if (cudaError_t e = symbolCopy(sym, count, offset, &at))
    return e;
  return cudaGraphAddMemcpyNode1D(node, graph, deps, n, dst, reinterpret_cast<void *>(at), count,
                                  fromKind);
}

EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t exec,
                                                              cudaGraphNode_t node, void *dst,
                                                              const void *sym, size_t count,
                                                              size_t offset, cudaMemcpyKind kind) {
  cudaMemcpyKind fromKind;
  if (!symbolKind(kind, false, fromKind))
    return ret(cudaErrorInvalidMemcpyDirection);
  CUdeviceptr at;
  if (cudaError_t e = symbolCopy(sym, count, offset, &at))
    return e;
  return cudaGraphExecMemcpyNodeSetParams1D(exec, node, dst, reinterpret_cast<void *>(at), count,
                                            fromKind);
}

EXPORT cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path, unsigned int flags) {
  CTX;
  return ret(cuGraphDebugDotPrint(cu(graph), path, flags)); // same flag values
}

EXPORT cudaError_t cudaUserObjectCreate(cudaUserObject_t *obj, void *ptr, cudaHostFn_t destroy,
                                        unsigned int initialRefcount, unsigned int flags) {
  CTX;
  return ret(cuUserObjectCreate(reinterpret_cast<CUuserObject *>(obj), ptr, destroy,
                                initialRefcount, flags));
}

EXPORT cudaError_t cudaUserObjectRelease(cudaUserObject_t obj, unsigned int count) {
  CTX;
  return ret(cuUserObjectRelease(reinterpret_cast<CUuserObject>(obj), count));
}

EXPORT cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t obj,
                                             unsigned int count, unsigned int flags) {
  CTX;
  return ret(cuGraphRetainUserObject(cu(graph), reinterpret_cast<CUuserObject>(obj), count, flags));
}

EXPORT cudaError_t cudaGraphReleaseUserObject(cudaGraph_t graph, cudaUserObject_t obj,
                                              unsigned int count) {
  CTX;
  return ret(cuGraphReleaseUserObject(cu(graph), reinterpret_cast<CUuserObject>(obj), count));
}

// --- generic node parameters, conditional and memory nodes ---------------------------------------

static_assert(sizeof(cudaGraphNodeParams) == sizeof(CUgraphNodeParams), "node parameter layout");
static_assert(sizeof(cudaMemAllocNodeParams) == sizeof(CUDA_MEM_ALLOC_NODE_PARAMS),
              "allocation node layout");

namespace {
/// The driver's form of generic node parameters: kernel, copy, set and conditional nodes are
/// converted (host stubs, the runtime's 3D copy parameters, contexts); the other types share
/// the runtime's layout.
CUresult nodeToDriver(const cudaGraphNodeParams *p, CUgraphNodeParams &d) {
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(&d, p, sizeof d);
  switch (p->type) {
  case cudaGraphNodeTypeKernel: {
    std::memset(&d.kernel, 0, sizeof d.kernel);
    const cudaKernelNodeParamsV2 &k = p->kernel;
    if (CUresult r = function(k.func, &d.kernel.func))
      return r;
    d.kernel.gridDimX = k.gridDim.x;
    d.kernel.gridDimY = k.gridDim.y;
    d.kernel.gridDimZ = k.gridDim.z;
    d.kernel.blockDimX = k.blockDim.x;
    d.kernel.blockDimY = k.blockDim.y;
    d.kernel.blockDimZ = k.blockDim.z;
    d.kernel.sharedMemBytes = k.sharedMemBytes;
    d.kernel.kernelParams = k.kernelParams;
    d.kernel.extra = k.extra;
    return CUDA_SUCCESS;
  }
  case cudaGraphNodeTypeMemcpy:
    std::memset(&d.memcpy, 0, sizeof d.memcpy);
    d.memcpy.flags = p->memcpy.flags;
    d.memcpy.copyCtx = state().primary;
    return driver3D(&p->memcpy.copyParams, d.memcpy.copyParams);
  case cudaGraphNodeTypeMemset: {
    const cudaMemsetParamsV2 &m = p->memset;
    std::memset(&d.memset, 0, sizeof d.memset);
    d.memset.dst = dp(m.dst);
    d.memset.pitch = m.pitch;
    d.memset.value = m.value;
    d.memset.elementSize = m.elementSize;
    d.memset.width = m.width;
    d.memset.height = m.height;
    d.memset.ctx = state().primary;
    return CUDA_SUCCESS;
  }
  case cudaGraphNodeTypeConditional: {
    const cudaConditionalNodeParams &c = p->conditional;
    std::memset(&d.conditional, 0, sizeof d.conditional);
    d.conditional.handle = c.handle;
    d.conditional.type = CUgraphConditionalNodeType(c.type);
    d.conditional.size = c.size;
    d.conditional.ctx = state().primary;
    return CUDA_SUCCESS;
  }
  default:
    return CUDA_SUCCESS;
  }
}

/// What the driver returns in node parameters: the allocation's address, the conditional's
/// body graphs.
void nodeOutputs(const CUgraphNodeParams &d, cudaGraphNodeParams *p) {
  if (p->type == cudaGraphNodeTypeMemAlloc)
    p->alloc.dptr = reinterpret_cast<void *>(d.alloc.dptr);
  else if (p->type == cudaGraphNodeTypeConditional)
    p->conditional.phGraph_out = reinterpret_cast<cudaGraph_t *>(d.conditional.phGraph_out);
}
} // namespace

EXPORT cudaError_t cudaGraphAddNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                    const cudaGraphNode_t *deps, const cudaGraphEdgeData *edges,
                                    size_t n, cudaGraphNodeParams *p) {
  CTX;
  CUgraphNodeParams d;
  CU(nodeToDriver(p, d));
  CU(cuGraphAddNode(out(node), cu(graph), cu(deps),
                    reinterpret_cast<const CUgraphEdgeData *>(edges), n, &d));
  nodeOutputs(d, p);
  return cudaSuccess;
}

EXPORT cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, cudaGraphNodeParams *p) {
  CTX;
  CUgraphNodeParams d;
  CU(nodeToDriver(p, d));
  return ret(cuGraphNodeSetParams(cu(node), &d));
}

EXPORT cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                              cudaGraphNodeParams *p) {
  CTX;
  CUgraphNodeParams d;
  CU(nodeToDriver(p, d));
  return ret(cuGraphExecNodeSetParams(cu(exec), cu(node), &d));
}

EXPORT cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *handle,
                                                    cudaGraph_t graph,
                                                    unsigned int defaultLaunchValue,
                                                    unsigned int flags) {
  CTX;
  return ret(cuGraphConditionalHandleCreate(reinterpret_cast<CUgraphConditionalHandle *>(handle),
                                            cu(graph), state().primary, defaultLaunchValue, flags));
}

EXPORT cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t s, cudaGraph_t graph,
                                                 const cudaGraphNode_t *deps,
                                                 const cudaGraphEdgeData *edges, size_t n,
                                                 cudaStreamCaptureMode mode) {
  CTX;
  return ret(cuStreamBeginCaptureToGraph(cu(s), cu(graph), cu(deps),
                                         reinterpret_cast<const CUgraphEdgeData *>(edges), n,
                                         CUstreamCaptureMode(mode)));
}

EXPORT cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t s, cudaGraphNode_t *deps,
                                                       const cudaGraphEdgeData *edges, size_t n,
                                                       unsigned int flags) {
  CTX;
  return ret(cuStreamUpdateCaptureDependencies(
      cu(s), out(deps), reinterpret_cast<const CUgraphEdgeData *>(edges), n, flags));
}

EXPORT cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                            const cudaGraphNode_t *deps, size_t n,
                                            cudaMemAllocNodeParams *p) {
  CTX;
  return ret(cuGraphAddMemAllocNode(out(node), cu(graph), cu(deps), n,
                                    reinterpret_cast<CUDA_MEM_ALLOC_NODE_PARAMS *>(p)));
}

EXPORT cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, cudaMemAllocNodeParams *p) {
  CTX;
  return ret(
      cuGraphMemAllocNodeGetParams(cu(node), reinterpret_cast<CUDA_MEM_ALLOC_NODE_PARAMS *>(p)));
}

EXPORT cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                           const cudaGraphNode_t *deps, size_t n, void *dptr) {
  CTX;
  return ret(cuGraphAddMemFreeNode(out(node), cu(graph), cu(deps), n, dp(dptr)));
}

EXPORT cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr) {
  CTX;
  return ret(cuGraphMemFreeNodeGetParams(cu(node), static_cast<CUdeviceptr *>(dptr)));
}

EXPORT cudaError_t cudaDeviceSetGraphMemAttribute(int device, cudaGraphMemAttributeType attr,
                                                  void *value) {
  CTX;
  return ret(cuDeviceSetGraphMemAttribute(CUdevice(device), CUgraphMem_attribute(attr), value));
}

EXPORT cudaError_t cudaDeviceGraphMemTrim(int device) {
  CTX;
  return ret(cuDeviceGraphMemTrim(CUdevice(device)));
}

// The undocumented entry points nvcc's generated host code calls: fat binary, kernel and
// variable registration at start-up, and the <<<...>>> launch sequence
// (__cudaPushCallConfiguration in the caller, then __cudaPopCallConfiguration, __cudaGetKernel
// and __cudaLaunchKernel in the kernel's host stub). Signatures follow crt/host_runtime.h and
// crt/device_functions.h of CUDA 13.

#include "runtime/api/Api.h"
#include "ptx/exec/WorkerPool.h"

using namespace ptxsim::runtime;

namespace {
FatbinModule *module(void **handle) { return reinterpret_cast<FatbinModule *>(handle); }
} // namespace

PTXSIM_API void **__cudaRegisterFatBinary(void *fatCubin) {
  PTXSIM_LOCK;
  // on a pool thread: the temporary memory of reading the fat binary stays out of the
  // application's malloc arena (WorkerPool::run says why)
  FatbinModule *m = nullptr;
  ptxsim::ptx::exec::WorkerPool::instance().runOffCaller([&] { m = ctx.registerFatbin(fatCubin); });
  return reinterpret_cast<void **>(m);
}

PTXSIM_API void __cudaRegisterFatBinaryEnd(void **fatCubinHandle) {}

PTXSIM_API void __cudaUnregisterFatBinary(void **fatCubinHandle) {
  PTXSIM_LOCK;
  if (fatCubinHandle)
    module(fatCubinHandle)->unregistered = true;
}

PTXSIM_API void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                                       const char *deviceName, int threadLimit, uint3 *tid,
                                       uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize) {
  PTXSIM_LOCK;
  ctx.registerFunction(module(fatCubinHandle), hostFun, deviceFun ? deviceFun : deviceName);
}

PTXSIM_API void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                                  const char *deviceName, int ext, size_t size, int constant,
                                  int global) {
  PTXSIM_LOCK;
  ctx.registerVar(module(fatCubinHandle), hostVar, deviceAddress ? deviceAddress : deviceName,
                  size, constant != 0, nullptr);
}

PTXSIM_API void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                                         char *deviceAddress, const char *deviceName, int ext,
                                         size_t size, int constant, int global) {
  PTXSIM_LOCK;
  ctx.registerVar(module(fatCubinHandle), hostVarPtrAddress,
                  deviceAddress ? deviceAddress : deviceName, size, constant != 0,
                  hostVarPtrAddress);
}

// Called before the host first touches a __managed__ variable: the module must be loaded so the
// variable's host pointer is set.
PTXSIM_API char __cudaInitModule(void **fatCubinHandle) {
  PTXSIM_LOCK;
  ctx.ensureLoaded();
  return module(fatCubinHandle)->module >= 0;
}

PTXSIM_API void __cudaRegisterTexture(void **, const struct textureReference *, const void **,
                                      const char *, int, int, int) {}
PTXSIM_API void __cudaRegisterSurface(void **, const struct surfaceReference *, const void **,
                                      const char *, int, int) {}

namespace {
/// `<<<...>>>` configurations pushed and not yet popped, per host thread as in CUDA: two threads
/// launching at once must not pop each other's (one shared stack made a launch of one thread
/// fail with cudaErrorMissingConfiguration now and then). Nesting is shallow (a launch whose
/// arguments launch), so a small fixed array does; it needs no destructor.
constexpr unsigned kMaxPendingConfigs = 32;
thread_local LaunchConfig tPending[kMaxPendingConfigs];
thread_local unsigned tPendingCount = 0;
} // namespace

PTXSIM_API unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                                struct CUstream_st *stream) {
  if (tPendingCount == kMaxPendingConfigs)
    return 1; // nvcc's launch stub then skips the launch
  tPending[tPendingCount++] = LaunchConfig{gridDim, blockDim, sharedMem, stream};
  return 0;
}

PTXSIM_API cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
                                                  size_t *sharedMem, void *stream) {
  if (tPendingCount == 0)
    return ret(cudaErrorMissingConfiguration);
  LaunchConfig c = tPending[--tPendingCount];
  *gridDim = c.grid;
  *blockDim = c.block;
  *sharedMem = c.sharedMem;
  *static_cast<cudaStream_t *>(stream) = c.stream;
  return cudaSuccess;
}

PTXSIM_API cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *func) {
  PTXSIM_LOCK_ASYNC;
  if (!kernel)
    return ret(cudaErrorInvalidValue);
  KernelEntry *k = ctx.findKernel(func);
  *kernel = reinterpret_cast<cudaKernel_t>(k);
  return k ? cudaSuccess : ret(cudaErrorInvalidDeviceFunction);
}

PTXSIM_API cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                          void **args, size_t sharedMem, cudaStream_t stream) {
  PTXSIM_LOCK_ASYNC;
  KernelEntry *k = kernel ? ctx.findKernel(kernel) : nullptr;
  return ret(ctx.launch(k, gridDim, blockDim, args, sharedMem, stream, false));
}

PTXSIM_API cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                               void **args, size_t sharedMem,
                                               cudaStream_t stream) {
  return __cudaLaunchKernel(kernel, gridDim, blockDim, args, sharedMem, stream);
}

// Both libraries in one process: a `-cudart shared` program that also calls the driver API. The
// runtime and the driver see one context, one device memory and one set of modules: memory from
// either API is used by kernels of the other, a runtime kernel is launched through the driver
// (cudaGetFuncBySymbol), runtime streams and events are driver streams and events, and driver
// entry points come from cudaGetDriverEntryPoint.
static const char *kName = "drv_mixed";
#include "drv_common.h"
#include <cuda_runtime.h>
#include <vector>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    printf("runtime error '%s' at line %d: %s\nFAIL %s\n", #call, __LINE__, cudaGetErrorString(e_), kName); exit(1); } } while (0)

__global__ void addOne(int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] += 1;
}

int main() {
  const int n = 512;
  int *rt = nullptr;
  CK(cudaMalloc(&rt, n * sizeof(int)));
  CK(cudaMemset(rt, 0, n * sizeof(int)));
  addOne<<<n / 128, 128>>>(rt, n);
  CK(cudaGetLastError());

  // The runtime's context is the driver's current (primary) context.
  CU(cuInit(0));
  CUcontext cur = nullptr, primary = nullptr;
  CU(cuCtxGetCurrent(&cur));
  CU(cuDevicePrimaryCtxRetain(&primary, 0));
  EXPECT(cur == primary, "runtime context is not the primary context");

  // Runtime memory in driver calls and a driver-loaded kernel.
  unsigned memType = 0;
  CU(cuPointerGetAttribute(&memType, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CUdeviceptr(rt)));
  EXPECT(memType == CU_MEMORYTYPE_DEVICE, "cudaMalloc memory type %u", memType);
  std::string ptx = readAll(besideMe("drv_kernels.ptx"));
  CUmodule m;
  CU(cuModuleLoadData(&m, ptx.data()));
  CUfunction saxpy;
  CU(cuModuleGetFunction(&saxpy, m, "saxpy"));
  std::vector<float> hx(n, 2.0f), hy(n, 1.0f), out(n);
  CUdeviceptr dx;
  CU(cuMemAlloc(&dx, n * sizeof(float)));
  float *ry = nullptr;
  CK(cudaMalloc(&ry, n * sizeof(float)));
  CK(cudaMemcpy(reinterpret_cast<void *>(dx), hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(ry, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  cudaPointerAttributes pa;
  CK(cudaPointerGetAttributes(&pa, reinterpret_cast<void *>(dx)));
  EXPECT(pa.type == cudaMemoryTypeDevice, "cuMemAlloc memory seen by the runtime as %d", int(pa.type));

  // A runtime stream and event used as driver handles.
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  cudaEvent_t done;
  CK(cudaEventCreate(&done));
  float a = 4.0f;
  int nn = n;
  CUdeviceptr dy = CUdeviceptr(ry);
  void *args[] = {&a, &dx, &dy, &nn};
  CU(cuLaunchKernel(saxpy, n / 128, 1, 1, 128, 1, 1, 0, reinterpret_cast<CUstream>(s), args, nullptr));
  CU(cuEventRecord(reinterpret_cast<CUevent>(done), reinterpret_cast<CUstream>(s)));
  CK(cudaEventSynchronize(done));
  CK(cudaMemcpyAsync(out.data(), ry, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  CK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i)
    EXPECT(out[i] == 9.0f, "saxpy on runtime memory [%d] = %f", i, out[i]);

  // The runtime's kernel through the driver.
  cudaFunction_t f;
  CK(cudaGetFuncBySymbol(&f, reinterpret_cast<const void *>(&addOne)));
  void *args2[] = {&rt, &nn};
  CU(cuLaunchKernel(reinterpret_cast<CUfunction>(f), n / 64, 1, 1, 64, 1, 1, 0, nullptr, args2, nullptr));
  int numRegs = 0;
  CU(cuFuncGetAttribute(&numRegs, CU_FUNC_ATTRIBUTE_NUM_REGS, reinterpret_cast<CUfunction>(f)));
  EXPECT(numRegs > 0, "runtime kernel registers %d", numRegs);
  std::vector<int> hv(n);
  CK(cudaMemcpy(hv.data(), rt, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    EXPECT(hv[i] == 2, "addOne twice [%d] = %d", i, hv[i]);

  // A driver entry point through the runtime; its memory freed by the runtime.
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, 13000, cudaEnableDefault, &q));
  EXPECT(q == cudaDriverEntryPointSuccess && fn, "no cuMemAlloc entry point");
  CUdeviceptr viaEntry = 0;
  CU(reinterpret_cast<CUresult (*)(CUdeviceptr *, size_t)>(fn)(&viaEntry, 256));
  CK(cudaFree(reinterpret_cast<void *>(viaEntry)));
  CK(cudaGetDriverEntryPointByVersion("cuNoSuchCall", &fn, 13000, cudaEnableDefault, &q));
  EXPECT(q == cudaDriverEntryPointSymbolNotFound, "unknown entry point found");

  // One device memory: what the runtime reports free shrinks with a driver allocation.
  size_t free0 = 0, free1 = 0, total = 0;
  CK(cudaMemGetInfo(&free0, &total));
  CUdeviceptr big;
  CU(cuMemAlloc(&big, 64 << 20));
  CK(cudaMemGetInfo(&free1, &total));
  EXPECT(free0 - free1 >= (64u << 20), "driver allocation not seen by the runtime");
  CU(cuMemFree(big));

  CU(cuModuleUnload(m));
  CU(cuMemFree(dx));
  CK(cudaFree(ry));
  CK(cudaFree(rt));
  CK(cudaStreamDestroy(s));
  CK(cudaEventDestroy(done));
  return finish();
}

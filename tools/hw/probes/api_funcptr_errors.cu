// hwapi probe: what each runtime call taking a function pointer returns for a host function
// (main) and for a null pointer, and what cudaGetLastError holds afterwards; also the driver's
// cuGetProcAddress for unknown symbols (reached through cudaGetDriverEntryPointByVersion).
#include <cstdio>
#include <dlfcn.h>
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void k(int *p) { if (p) p[threadIdx.x] = 1; }

#define SHOW(call) do { cudaError_t e_ = (call); cudaError_t l_ = cudaGetLastError(); \
  printf("%-70s -> %s; lastError %s\n", #call, cudaGetErrorName(e_), cudaGetErrorName(l_)); } while (0)

typedef CUresult (*GetProc)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  cudaFree(0);
  const void *fns[2] = {(const void *)main, nullptr};
  const char *names[2] = {"main", "nullptr"};
  for (int w = 0; w < 2; ++w) {
    const void *f = fns[w];
    printf("== function pointer: %s\n", names[w]);
    cudaFuncAttributes fa;
    SHOW(cudaFuncGetAttributes(&fa, f));
    int *d = nullptr;
    void *args[] = {&d};
    SHOW(cudaLaunchKernel(f, dim3(1), dim3(1), args, 0, 0));
    SHOW(cudaLaunchCooperativeKernel(f, dim3(1), dim3(1), args, 0, 0));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1); cfg.blockDim = dim3(1);
    SHOW(cudaLaunchKernelExC(&cfg, f, args));
    SHOW(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024));
    SHOW(cudaFuncSetCacheConfig(f, cudaFuncCachePreferL1));
    const char *nm = nullptr;
    SHOW(cudaFuncGetName(&nm, f));
    int nb = -1;
    SHOW(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, f, 128, 0));
    size_t dyn = 0;
    SHOW(cudaOccupancyAvailableDynamicSMemPerBlock(&dyn, f, 1, 128));
    cudaKernel_t kk = nullptr;
    SHOW(cudaGetKernel(&kk, f));
    SHOW(cudaFuncSetSharedMemConfig(f, cudaSharedMemBankSizeFourByte));
    cudaFunction_t cf = nullptr;
    SHOW(cudaGetFuncBySymbol(&cf, f));
    cudaGraph_t g;
    cudaGraphCreate(&g, 0);
    cudaKernelNodeParams kp = {};
    kp.func = const_cast<void *>(f);
    kp.gridDim = dim3(1); kp.blockDim = dim3(1); kp.kernelParams = args;
    cudaGraphNode_t node = nullptr;
    SHOW(cudaGraphAddKernelNode(&node, g, nullptr, 0, &kp));
    cudaGraphNodeParams np = {};
    np.type = cudaGraphNodeTypeKernel;
    np.kernel.func = const_cast<void *>(f);
    np.kernel.gridDim = dim3(1); np.kernel.blockDim = dim3(1); np.kernel.kernelParams = args;
    SHOW(cudaGraphAddNode(&node, g, nullptr, nullptr, 0, &np));
    cudaGraphDestroy(g);
  }
  // a good kernel still launches
  k<<<1, 1>>>(nullptr);
  SHOW(cudaDeviceSynchronize());

  // driver: cuGetProcAddress for unknown and too-new symbols
  void *gp = nullptr;
  cudaDriverEntryPointQueryResult st;
  cudaError_t e = cudaGetDriverEntryPointByVersion("cuGetProcAddress", &gp, 13000, cudaEnableDefault, &st);
  printf("cudaGetDriverEntryPointByVersion(cuGetProcAddress, 13000) -> %s, status %d, fn %s\n",
         cudaGetErrorName(e), int(st), gp ? "set" : "null");
  if (gp) {
    GetProc getProc = (GetProc)gp;
    struct Q { const char *sym; int ver; cuuint64_t flags; } qs[] = {
        {"cuNoSuchCall", 13000, 0}, {"cuNoSuchCall", 12000, 0}, {"cuNoSuchCall", 13000, CU_GET_PROC_ADDRESS_DEFAULT},
        {"cuLaunchKernelEx", 11000, 0}, {"cuLaunchKernelEx", 12000, 0}, {"cuMemAlloc", 13000, 0},
        {"cuMemAlloc", 3000, 0}, {"cuLaunchKernel", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM},
        {"", 13000, 0}, {"cuMemAlloc", 99000, 0}, {"cuNoSuchCall", 99000, 0}, {"cuMemAlloc", 13010, 0}};
    for (auto &q : qs) {
      void *fn = (void *)0x1;
      CUdriverProcAddressQueryResult r = (CUdriverProcAddressQueryResult)77;
      CUresult c = getProc(q.sym, &fn, q.ver, q.flags, &r);
      printf("cuGetProcAddress(\"%s\", v%d, flags %llu) -> %d, queryResult %d, fn %s\n", q.sym, q.ver,
             (unsigned long long)q.flags, int(c), int(r), fn == (void *)0x1 ? "untouched" : fn ? "set" : "null");
    }
    // do the pointers it returns equal the library's exported symbols?
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib) lib = dlopen("libcuda.so.1", RTLD_NOW);
    struct S { const char *sym; int ver; cuuint64_t flags; const char *exported; } ss[] = {
        {"cuMemAlloc", 13000, 0, "cuMemAlloc_v2"}, {"cuMemAlloc", 3000, 0, "cuMemAlloc"},
        {"cuLaunchKernel", 13000, 0, "cuLaunchKernel"},
        {"cuLaunchKernel", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuLaunchKernel_ptsz"},
        {"cuGetProcAddress", 13000, 0, "cuGetProcAddress_v2"}, {"cuCtxSynchronize", 13000, 0, "cuCtxSynchronize"}};
    for (auto &x : ss) {
      void *fn = nullptr;
      CUdriverProcAddressQueryResult r;
      CUresult c = getProc(x.sym, &fn, x.ver, x.flags, &r);
      void *ex = lib ? dlsym(lib, x.exported) : nullptr;
      printf("cuGetProcAddress(\"%s\", v%d, flags %llu) -> %d: %s dlsym(%s) (%s)\n", x.sym, x.ver,
             (unsigned long long)x.flags, int(c), fn == ex ? "equals" : "differs from", x.exported, ex ? "found" : "not exported");
    }
    void *fn = nullptr;
    CUresult c = getProc("cuNoSuchCall", &fn, 13000, 0, nullptr);
    printf("cuGetProcAddress(\"cuNoSuchCall\", v13000, 0, null status) -> %d\n", int(c));
  }
  printf("CUresult codes: NOT_FOUND=%d INVALID_VALUE=%d; query results: SUCCESS=%d SYMBOL_NOT_FOUND=%d VERSION_NOT_SUFFICIENT=%d\n",
         int(CUDA_ERROR_NOT_FOUND), int(CUDA_ERROR_INVALID_VALUE), int(CU_GET_PROC_ADDRESS_SUCCESS),
         int(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND), int(CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT));
  printf("DONE\n");
  return 0;
}

// hwapi probe: what cudaDeviceGetGraphMemAttribute reports (used/reserved, current/high) at each
// step of graph memory node use: alloc->kernel->free graphs (explicit and captured with
// cudaMallocAsync/cudaFreeAsync), an allocation that outlives its graph, cudaDeviceGraphMemTrim,
// exec/graph destruction, and what cudaFree of graph memory returns.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void fill(int *p, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = i;
}

static void show(const char *when) {
  unsigned long long v[4] = {~0ull, ~0ull, ~0ull, ~0ull};
  cudaGraphMemAttributeType a[4] = {cudaGraphMemAttrUsedMemCurrent, cudaGraphMemAttrUsedMemHigh,
                                    cudaGraphMemAttrReservedMemCurrent, cudaGraphMemAttrReservedMemHigh};
  for (int i = 0; i < 4; ++i) {
    cudaError_t e = cudaDeviceGetGraphMemAttribute(0, a[i], &v[i]);
    if (e != cudaSuccess) printf("  attr %d -> %s\n", int(a[i]), cudaGetErrorName(e));
  }
  printf("%-58s usedCur %llu usedHigh %llu resCur %llu resHigh %llu\n", when, v[0], v[1], v[2], v[3]);
}
#define R(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) printf("  %s -> %s\n", #call, cudaGetErrorName(e_)); } while (0)

static cudaGraph_t allocFillFree(size_t bytes, bool withFree, void **out) {
  cudaGraph_t g;
  R(cudaGraphCreate(&g, 0));
  cudaMemAllocNodeParams ap = {};
  ap.poolProps.allocType = cudaMemAllocationTypePinned;
  ap.poolProps.location.type = cudaMemLocationTypeDevice;
  ap.poolProps.location.id = 0;
  ap.bytesize = bytes;
  cudaGraphNode_t alloc, k, fr;
  R(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
  int *buf = (int *)ap.dptr;
  int n = int(bytes / 4);
  void *args[] = {&buf, &n};
  cudaKernelNodeParams kp = {};
  kp.func = (void *)fill; kp.gridDim = dim3(8); kp.blockDim = dim3(128); kp.kernelParams = args;
  R(cudaGraphAddKernelNode(&k, g, &alloc, 1, &kp));
  if (withFree) R(cudaGraphAddMemFreeNode(&fr, g, &k, 1, buf));
  *out = buf;
  return g;
}

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  cudaStream_t s;
  R(cudaStreamCreate(&s));
  show("start");
  // 1. alloc -> fill -> free, 400000 bytes
  {
    void *buf;
    cudaGraph_t g = allocFillFree(400000, true, &buf);
    show("1: graph built (400000 bytes, with free node)");
    cudaGraphExec_t x;
    R(cudaGraphInstantiate(&x, g, 0));
    show("1: instantiated");
    for (int it = 0; it < 3; ++it) {
      R(cudaGraphLaunch(x, s));
      R(cudaStreamSynchronize(s));
      char w[80];
      snprintf(w, sizeof w, "1: after launch %d + sync", it);
      show(w);
    }
    cudaError_t e = cudaFree(buf);
    printf("1: cudaFree(graph-freed buf) -> %s\n", cudaGetErrorName(e));
    cudaGetLastError();
    R(cudaDeviceGraphMemTrim(0));
    show("1: after trim (exec alive)");
    R(cudaGraphExecDestroy(x));
    show("1: after exec destroy");
    R(cudaDeviceGraphMemTrim(0));
    show("1: after exec destroy + trim");
    R(cudaGraphDestroy(g));
    show("1: after graph destroy");
  }
  // 2. allocation outliving its graph
  {
    void *buf;
    cudaGraph_t g = allocFillFree(400000, false, &buf);
    cudaGraphExec_t x;
    R(cudaGraphInstantiate(&x, g, 0));
    show("2: instantiated (no free node)");
    R(cudaGraphLaunch(x, s));
    R(cudaStreamSynchronize(s));
    show("2: after launch + sync (allocation live)");
    cudaError_t e = cudaGraphLaunch(x, s);
    printf("2: relaunch with live allocation -> %s; lastError %s\n", cudaGetErrorName(e), cudaGetErrorName(cudaGetLastError()));
    R(cudaStreamSynchronize(s));
    R(cudaFree(buf));
    show("2: after cudaFree");
    e = cudaFree(buf);
    printf("2: second cudaFree -> %s\n", cudaGetErrorName(e));
    cudaGetLastError();
    R(cudaGraphLaunch(x, s));
    R(cudaFreeAsync(buf, s));
    R(cudaStreamSynchronize(s));
    show("2: after launch + cudaFreeAsync + sync");
    R(cudaDeviceGraphMemTrim(0));
    show("2: after trim (exec alive)");
    R(cudaGraphExecDestroy(x));
    R(cudaGraphDestroy(g));
    R(cudaDeviceGraphMemTrim(0));
    show("2: after destroy + trim");
  }
  // 3. captured cudaMallocAsync / cudaFreeAsync, 32 MiB + 1 MiB
  {
    cudaGraph_t g;
    R(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    void *a = nullptr, *b = nullptr;
    R(cudaMallocAsync(&a, 1 << 20, s));
    R(cudaMallocAsync(&b, 3 << 20, s));
    R(cudaMemsetAsync(a, 1, 1 << 20, s));
    R(cudaMemsetAsync(b, 2, 3 << 20, s));
    R(cudaFreeAsync(a, s));
    R(cudaFreeAsync(b, s));
    R(cudaStreamEndCapture(s, &g));
    show("3: captured (1 MiB + 3 MiB, both freed)");
    cudaGraphExec_t x;
    R(cudaGraphInstantiate(&x, g, 0));
    show("3: instantiated");
    R(cudaGraphLaunch(x, s));
    R(cudaStreamSynchronize(s));
    show("3: after launch + sync");
    R(cudaGraphLaunch(x, s));
    R(cudaStreamSynchronize(s));
    show("3: after 2nd launch + sync");
    R(cudaGraphExecDestroy(x));
    R(cudaGraphDestroy(g));
    show("3: after destroy");
    R(cudaDeviceGraphMemTrim(0));
    show("3: after trim");
  }
  // 4. a small allocation (1 KiB) left live by a captured graph
  {
    cudaGraph_t g;
    void *a = nullptr;
    R(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    R(cudaMallocAsync(&a, 1024, s));
    R(cudaMemsetAsync(a, 0, 1024, s));
    R(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t x;
    R(cudaGraphInstantiate(&x, g, 0));
    R(cudaGraphLaunch(x, s));
    R(cudaStreamSynchronize(s));
    show("4: 1 KiB live after launch");
    R(cudaFreeAsync(a, s));
    R(cudaStreamSynchronize(s));
    show("4: after cudaFreeAsync");
    R(cudaGraphExecDestroy(x));
    R(cudaGraphDestroy(g));
    R(cudaDeviceGraphMemTrim(0));
    show("4: after destroy + trim");
  }
  // 5. a 40 MiB alloc/free graph, and two executable graphs of a 400000-byte one alive together
  {
    void *buf;
    cudaGraph_t g = allocFillFree(40 << 20, true, &buf);
    cudaGraphExec_t x;
    R(cudaGraphInstantiate(&x, g, 0));
    R(cudaGraphLaunch(x, s));
    R(cudaStreamSynchronize(s));
    show("5: 40 MiB alloc/free graph after launch");
    void *b2;
    cudaGraph_t g2 = allocFillFree(400000, true, &b2);
    cudaGraphExec_t x2 = nullptr, x3 = nullptr, x4 = nullptr;
    R(cudaGraphInstantiate(&x2, g2, 0));
    cudaError_t e2 = cudaGraphInstantiate(&x4, g2, 0);
    printf("5: second instantiation of a graph with memory nodes -> %s\n", cudaGetErrorName(e2));
    cudaGetLastError();
    if (e2 == cudaSuccess) R(cudaGraphExecDestroy(x4));
    void *b3;
    cudaGraph_t g3 = allocFillFree(400000, true, &b3);
    R(cudaGraphInstantiate(&x3, g3, 0));
    R(cudaGraphLaunch(x2, s));
    R(cudaStreamSynchronize(s));
    show("5: + a 400000-byte graph launched");
    R(cudaGraphLaunch(x3, s));
    R(cudaStreamSynchronize(s));
    show("5: + another 400000-byte graph launched");
    R(cudaGraphExecDestroy(x));
    show("5: 40 MiB exec destroyed");
    R(cudaGraphExecDestroy(x2));
    R(cudaGraphExecDestroy(x3));
    R(cudaGraphDestroy(g3));
    show("5: all destroyed");
    R(cudaDeviceGraphMemTrim(0));
    show("5: trimmed");
    R(cudaGraphDestroy(g));
    R(cudaGraphDestroy(g2));
  }
  // 6. two 20 MiB allocations live at the same time, then 33 MiB
  {
    void *p1 = nullptr, *p2 = nullptr;
    cudaGraph_t g;
    R(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    R(cudaMallocAsync(&p1, 20 << 20, s));
    R(cudaMallocAsync(&p2, 20 << 20, s));
    R(cudaMemsetAsync(p1, 1, 20 << 20, s));
    R(cudaMemsetAsync(p2, 1, 20 << 20, s));
    R(cudaFreeAsync(p1, s));
    R(cudaFreeAsync(p2, s));
    R(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t x;
    R(cudaGraphInstantiate(&x, g, 0));
    R(cudaGraphLaunch(x, s));
    R(cudaStreamSynchronize(s));
    show("6: two 20 MiB allocations (both freed) after launch");
    R(cudaGraphExecDestroy(x));
    R(cudaGraphDestroy(g));
    R(cudaDeviceGraphMemTrim(0));
    R(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    R(cudaMallocAsync(&p1, 33 << 20, s));
    R(cudaMemsetAsync(p1, 1, 33 << 20, s));
    R(cudaFreeAsync(p1, s));
    R(cudaStreamEndCapture(s, &g));
    R(cudaGraphInstantiate(&x, g, 0));
    R(cudaGraphLaunch(x, s));
    R(cudaStreamSynchronize(s));
    show("6: one 33 MiB allocation (freed) after launch");
    R(cudaGraphExecDestroy(x));
    R(cudaGraphDestroy(g));
    R(cudaDeviceGraphMemTrim(0));
    show("6: destroyed + trimmed");
  }
  unsigned long long zero = 0, one = 1;
  printf("set usedHigh 0 -> %s\n", cudaGetErrorName(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero)));
  printf("set resHigh 0 -> %s\n", cudaGetErrorName(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &zero)));
  show("after high resets");
  printf("set usedHigh 1 -> %s\n", cudaGetErrorName(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &one)));
  printf("set usedCur 0 -> %s\n", cudaGetErrorName(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &zero)));
  printf("get dev 1 -> %s\n", cudaGetErrorName(cudaDeviceGetGraphMemAttribute(1, cudaGraphMemAttrUsedMemCurrent, &one)));
  printf("trim dev 1 -> %s\n", cudaGetErrorName(cudaDeviceGraphMemTrim(1)));
  printf("DONE\n");
  return 0;
}

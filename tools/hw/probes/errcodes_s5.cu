// Session 5 probes: error codes the native run left unknown.
#include <cstdio>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>
__global__ void k(float *x) { x[threadIdx.x] += 1.0f; }
#define P(name, expr) do { auto _e = (expr); printf("%-40s %d %s\n", name, (int)_e, cudaGetErrorName((cudaError_t)_e)); } while (0)
int main() {
  float *x; cudaMalloc(&x, 4096);
  size_t v;
  P("getlimit_unknown", cudaDeviceGetLimit(&v, (cudaLimit)0x77)); cudaGetLastError();
  P("disablepeer_self", cudaDeviceDisablePeerAccess(0)); cudaGetLastError();
  P("enablepeer_1", cudaDeviceEnablePeerAccess(1, 0)); cudaGetLastError();
  for (int variant = 0; variant < 3; ++variant) {
    cudaStream_t s, s2;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    cudaEvent_t fork, join;
    cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
    P("begin", cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cudaEventRecord(fork, s);
    cudaStreamWaitEvent(s2, fork, 0);
    k<<<1, 32, 0, s2>>>(x);
    cudaEventRecord(join, s2);
    k<<<1, 32, 0, s>>>(x);
    cudaStreamWaitEvent(s, join, 0);
    if (variant == 1) { float h[4]; P("v1 sync memcpy during capture", cudaMemcpy(h, x, 16, cudaMemcpyDeviceToHost)); }
    cudaGraph_t g = nullptr;
    if (variant == 0) P("v0 end on s2", cudaStreamEndCapture(s2, &g));
    if (variant == 2) { cudaStreamCaptureStatus st; P("v2 iscapturing s", cudaStreamIsCapturing(s, &st)); printf("status %d\n", (int)st); }
    P("end on s", cudaStreamEndCapture(s, &g));
    printf("graph %p\n", (void *)g);
    P("lasterror", cudaGetLastError());
    cudaStreamCaptureStatus st2; P("iscapturing s2 after", cudaStreamIsCapturing(s2, &st2)); printf("status %d\n", (int)st2);
    if (g) cudaGraphDestroy(g);
    cudaStreamDestroy(s); cudaStreamDestroy(s2);
  }
  CUmemGenericAllocationHandle h;
  CUmemAllocationProp prop; memset(&prop, 0, sizeof prop);
  P("cuMemCreate zero prop", cuMemCreate(&h, 1 << 21, &prop, 0));
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED; prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE; prop.location.id = 0;
  size_t gran = 0;
  P("granularity min", cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM)); printf("gran %zu\n", gran);
  P("granularity rec", cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)); printf("gran %zu\n", gran);
  P("cuMemCreate 1 byte", cuMemCreate(&h, 1, &prop, 0));
  P("cuMemCreate 2MiB", cuMemCreate(&h, 1 << 21, &prop, 0));
  CUdeviceptr va = 0;
  P("reserve 4MiB", cuMemAddressReserve(&va, 4 << 20, 0, 0, 0)); printf("va %llx\n", (unsigned long long)va);
  P("map", cuMemMap(va, 1 << 21, 0, h, 0));
  P("access before setaccess (memset)", cuMemsetD8(va, 1, 16));
  CUmemAccessDesc ad; memset(&ad, 0, sizeof ad); ad.location = prop.location; ad.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  P("setaccess", cuMemSetAccess(va, 1 << 21, &ad, 1));
  P("memset", cuMemsetD8(va, 1, 16));
  P("release while mapped", cuMemRelease(h));
  P("unmap", cuMemUnmap(va, 1 << 21));
  P("addressfree", cuMemAddressFree(va, 4 << 20));
  return 0;
}

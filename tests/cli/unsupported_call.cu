// An API call ptxsim does not implement returns cudaErrorNotSupported (and says so on stderr);
// built with --default-stream per-thread, so the _ptds/_ptsz entry points are used too.
#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(int *a) { a[threadIdx.x] = threadIdx.x; }
int main() {
  int *d, h[32]; cudaMalloc(&d, 128);
  cudaEvent_t ev;
  cudaEventCreateWithFlags(&ev, cudaEventInterprocess | cudaEventDisableTiming);
  cudaIpcEventHandle_t ipc;
  cudaError_t e = cudaIpcGetEventHandle(&ipc, ev);
  printf("ipc: %s last=%s\n", cudaGetErrorName(e), cudaGetErrorName(cudaGetLastError()));
  k<<<1, 32, 0, cudaStreamPerThread>>>(d);
  cudaMemcpy2D(h, 128, d, 128, 128, 1, cudaMemcpyDeviceToHost);
  printf("h[31]=%d\n", h[31]);
}

// An API call ptxsim does not implement returns cudaErrorNotSupported (and says so on stderr);
// built with --default-stream per-thread, so the _ptds/_ptsz entry points are used too.
#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(int *a) { a[threadIdx.x] = threadIdx.x; }
int main() {
  cudaGraph_t g;
  cudaError_t e = cudaGraphCreate(&g, 0);
  printf("graph: %s last=%s\n", cudaGetErrorName(e), cudaGetErrorName(cudaGetLastError()));
  int *d, h[32]; cudaMalloc(&d, 128);
  k<<<1, 32, 0, cudaStreamPerThread>>>(d);
  cudaMemcpy2D(h, 128, d, 128, 128, 1, cudaMemcpyDeviceToHost);
  printf("h[31]=%d\n", h[31]);
}

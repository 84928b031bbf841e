// hwapi probe: how much of a never-written malloc'd host array is non-zero, before any CUDA call,
// after the runtime initialises, and after launches / a stream / a graph (the driver's own heap
// use), for arrays of 1 KB to 120 KB.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void accumulate(float *a, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += v;
}
static void count(const char *when) {
  for (int n : {256, 1000, 4096, 16384, 30000}) {
    unsigned char *p = (unsigned char *)malloc(n * sizeof(float));
    size_t nz = 0;
    for (size_t i = 0; i < n * sizeof(float); ++i) nz += p[i] != 0;
    printf("%-26s %6zu-byte array: %zu non-zero bytes\n", when, n * sizeof(float), nz);
  }
}
int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  count("before CUDA");
  cudaFree(0);
  count("after cudaFree(0)");
  float *scratch;
  cudaMalloc(&scratch, 1 << 20);
  accumulate<<<1024, 256>>>(scratch, 1 << 18, 1.0f);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaMemsetAsync(scratch, 0, 1 << 20, s);
  cudaGraph_t g;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  accumulate<<<64, 256, 0, s>>>(scratch, 1 << 14, 2.0f);
  cudaStreamEndCapture(s, &g);
  cudaGraphExec_t x;
  cudaGraphInstantiate(&x, g, 0);
  cudaGraphLaunch(x, s);
  cudaStreamSynchronize(s);
  count("after launches and graph");
  printf("DONE\n");
  return 0;
}

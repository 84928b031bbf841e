// Used by the PTXSIM_PTX_OVERRIDE tests: prints a[i] after `scale` ran (x2 in this source; the
// override files in this folder multiply by 3 or have a different signature).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] *= 2;
}

int main() {
  const int n = 8;
  int h[n], *d;
  for (int i = 0; i < n; ++i)
    h[i] = i;
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  scale<<<1, 32>>>(d, n);
  cudaError_t e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("status %s a[5]=%d\n", cudaGetErrorName(e), h[5]);
  return e == cudaSuccess ? 0 : 1;
}

// Many small launches of two kernels, for `ptxsim report` tests: a kernel table that aggregates
// launches, launches that expand, a power trace spanning many kernels.
//
// usage: launches [N]   (N launches of `accumulate`, then one of `scaleAll`; default 8)
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void accumulate(float *acc, const float *x, int n, float w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    acc[i] += w * x[i];
}

__global__ void scaleAll(float *acc, int n, float s) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc[i] *= s;
}

int main(int argc, char **argv) {
  int launches = argc > 1 ? std::atoi(argv[1]) : 8;
  const int n = 256;
  float hx[n], hacc[n];
  for (int i = 0; i < n; ++i)
    hx[i] = float(i % 7);
  float *x, *acc;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&acc, n * sizeof(float));
  cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice);
  cudaMemset(acc, 0, n * sizeof(float));
  // the grid alternates between two shapes, so a kernel's launches differ
  for (int k = 0; k < launches; ++k) {
    int block = k % 2 ? 128 : 64;
    accumulate<<<(n + block - 1) / block, block>>>(acc, x, n, 1.0f);
  }
  scaleAll<<<1, 32>>>(acc, n, 0.5f);
  cudaMemcpy(hacc, acc, sizeof hacc, cudaMemcpyDeviceToHost);
  cudaError_t e = cudaGetLastError();
  int bad = 0;
  for (int i = 0; i < n; ++i)
    bad += hacc[i] != 0.5f * launches * float(i % 7);
  std::printf("launches: %d launches of accumulate + 1 of scaleAll, %d wrong, %s\n", launches, bad,
              cudaGetErrorString(e));
  std::printf(bad || e ? "FAIL launches\n" : "PASS launches\n");
  cudaFree(x);
  cudaFree(acc);
  return bad || e ? 1 : 0;
}

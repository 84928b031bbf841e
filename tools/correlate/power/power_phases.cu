// The phases of the H100 board-power measurement (../shared/hw/h100/power.cu: FP32 FMA on all SMs,
// a DRAM copy, one warp spinning on one SM), sized for a simulator: the same kernels and launch
// shapes, fewer iterations and a smaller copy, one launch each. Under
//   ptxsim run --power --config configs/h100.config --stats-json s.json -- ./power_phases
// each launch's average power is the model's figure for that phase
// (tools/correlate/power_compare.py prints them beside the measured board power).
#include <cstdio>
#include <cstdlib>

__global__ void fma_loop(float *o, int iters) {
  float a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3;
  for (int i = 0; i < iters; ++i) {
    a0 = fmaf(a0, .999f, 1.f); a1 = fmaf(a1, .999f, 1.f); a2 = fmaf(a2, .999f, 1.f); a3 = fmaf(a3, .999f, 1.f);
  }
  o[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3;
}
__global__ void copy4(const float4 *a, float4 *b, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    b[i] = a[i];
}
__global__ void idle_spin(long long cycles) {
  long long t = clock64();
  while (clock64() - t < cycles) {
  }
}

int main(int argc, char **argv) {
  int fmaIters = argc > 1 ? atoi(argv[1]) : 200;
  size_t bytes = (argc > 2 ? atoi(argv[2]) : 32) * (1ull << 20);
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  float *o;
  cudaMalloc(&o, (size_t)p.multiProcessorCount * 8 * 1024 * 4);
  float4 *a, *b;
  cudaMalloc(&a, bytes);
  cudaMalloc(&b, bytes);
  cudaMemset(a, 1, bytes);
  fma_loop<<<p.multiProcessorCount * 8, 1024>>>(o, fmaIters);
  copy4<<<p.multiProcessorCount * 8, 256>>>(a, b, bytes / 16);
  idle_spin<<<1, 32>>>(200000);
  cudaError_t e = cudaDeviceSynchronize();
  printf("%s power phases: fma (%d iterations), copy (%zu MiB), spin1sm\n", e ? "FAIL" : "PASS", fmaIters, bytes >> 20);
  return e ? 1 : 0;
}

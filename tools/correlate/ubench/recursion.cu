// Cost of device-function calls on the GPU: one warp runs a recursive fib (a non-leaf
// function: the ABI saves its return address and callee-saved registers on the stack) and
// times the call with %clock64, per lane:
//   div_t%12     lane l computes fib(l % 12): divergent call trees
//   uniform11    every lane computes fib(11): one tree of 287 calls, no divergence
//   lanes11only  only the lanes with l % 12 == 11 run fib(11) (the others return at once)
//   lanes10_11   the lanes with l % 12 of 10 or 11
// Each mode launches twice (the first warms the instruction cache) and prints the second
// launch's cycles per lane (0 for lanes that do not call). uniform11 / 287 is the cost of one
// call and return; configs/h100.config -ptxsim_call_frame_cycles comes from it.
//   nvcc -cudart shared -O2 -arch=sm_90 recursion.cu -o recursion && ./recursion
// Results on the GH100 (an H200, the H100's SM): tools/correlate/data/gh100_probes.txt.
#include <cstdio>
#include <cuda_runtime.h>

__device__ __noinline__ int fib(int n) {
  if (n < 2)
    return n;
  return fib(n - 1) + fib(n - 2);
}

__global__ void fibKernel(int *out, long long *cycles, int mode) {
  int l = threadIdx.x;
  int n = mode == 1 ? 11 : l % 12;
  if ((mode == 2 && n != 11) || (mode == 3 && n < 10))
    return;
  long long c0, c1;
  // volatile with a memory clobber: the reads stay around the call and the store
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c0)::"memory");
  int r = fib(n);
  out[l] = r;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c1)::"memory");
  cycles[l] = c1 - c0;
}

int main() {
  int *out;
  long long *cycles;
  if (cudaMalloc(&out, 32 * sizeof(int)) || cudaMalloc(&cycles, 32 * sizeof(long long)))
    return 2;
  const char *names[4] = {"div_t%12", "uniform11", "lanes11only", "lanes10_11"};
  for (int mode = 0; mode < 4; ++mode) {
    for (int rep = 0; rep < 2; ++rep)
      fibKernel<<<1, 32>>>(out, cycles, mode);
    if (cudaDeviceSynchronize() != cudaSuccess)
      return 1;
    long long h[32];
    int r[32];
    cudaMemcpy(h, cycles, sizeof h, cudaMemcpyDeviceToHost);
    cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
    printf("%s:", names[mode]);
    for (int l = 0; l < 32; ++l) {
      bool ran = !((mode == 2 && l % 12 != 11) || (mode == 3 && l % 12 < 10));
      printf(" %lld", ran ? h[l] : 0);
    }
    printf("\n");
    if (mode == 1)
      printf("METRIC call_cycles %.1f cycles\n", h[0] / 287.0); // fib(11) makes 287 calls
  }
  return 0;
}

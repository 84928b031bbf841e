// Contention of a compare-and-swap loop on one shared-memory word: 256 threads of one block,
// each adds (tid + 1) with the usual atomicCAS retry loop; prints the lane iterations (CASes),
// the warp iterations (the most iterations of any lane, summed over the 8 warps) and the most
// cycles any thread spent in its loop (%clock64), for the second of two launches.
//   nvcc -cudart shared -O2 -arch=sm_90 shared_cas_contention.cu -o shared_cas && ./shared_cas
// GH100 (an H200): 31,216 lane and 1,406 warp iterations, 83,102 cycles (data/gh100_probes.txt).
// configs/h100.config -ptxsim_shared_queue_entries comes from it.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void casLoop(int *iters, long long *cycles) {
  __shared__ int v;
  int tid = threadIdx.x;
  if (tid == 0)
    v = 0;
  __syncthreads();
  long long t0 = clock64();
  int old = v, assumed, n = 0;
  do {
    assumed = old;
    old = atomicCAS(&v, assumed, assumed + tid + 1);
    ++n;
  } while (old != assumed);
  long long t1 = clock64();
  iters[tid] = n;
  cycles[tid] = t1 - t0;
}

int main() {
  int *iters;
  long long *cycles;
  if (cudaMalloc(&iters, 256 * sizeof(int)) || cudaMalloc(&cycles, 256 * sizeof(long long)))
    return 2;
  for (int rep = 0; rep < 2; ++rep) {
    casLoop<<<1, 256>>>(iters, cycles);
    if (cudaDeviceSynchronize() != cudaSuccess)
      return 1;
    int h[256];
    long long c[256];
    cudaMemcpy(h, iters, sizeof h, cudaMemcpyDeviceToHost);
    cudaMemcpy(c, cycles, sizeof c, cudaMemcpyDeviceToHost);
    long lane = 0;
    int warp = 0;
    long long most = 0;
    for (int i = 0; i < 256; ++i) {
      lane += h[i];
      most = c[i] > most ? c[i] : most;
    }
    for (int w = 0; w < 8; ++w) {
      int m = 0;
      for (int l = 0; l < 32; ++l)
        m = h[w * 32 + l] > m ? h[w * 32 + l] : m;
      warp += m;
    }
    if (rep == 1)
      printf("lane-iters %ld warp-iters %d maxcycles %lld\n", lane, warp, most);
  }
  return 0;
}

// Contended compare-and-swap loops: 4 blocks x 128 threads each add to one global word with
// a CAS loop (old = atomicCAS(v, old, old + tid + 1) until it succeeds). Every round one lane
// of the GPU succeeds and the others retry, so the loop makes ~512 x 513 / 2 lane CASes on
// one address, which the L2 slice's atomic unit serializes: cycles / lane CASes is its cost
// per same-address CAS. Mode 1 adds eight atomicAdds to other words of the same 128-byte line
// after each thread's loop, mode 2 to another line (both cost little on the hardware).
//   nvcc -cudart shared -O2 -arch=sm_90 cas_contention.cu -o cas_contention && ./cas_contention
// Results on the GH100 (an H200): tools/correlate/data/gh100_probes.txt; configs/h100.config
// -ptxsim_l2_atomic_cas_same_addr_cycles comes from mode 0.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

__global__ void casLoop(int *v, int *iters, long long *cycles, int mode) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  long long t0 = clock64();
  int old = v[0], assumed, n = 0;
  do {
    assumed = old;
    old = atomicCAS(v, assumed, assumed + tid + 1);
    ++n;
  } while (old != assumed);
  long long t1 = clock64();
  if (mode) {
    int *w = mode == 1 ? v + 1 : v + 64;
    for (int k = 0; k < 8; ++k)
      atomicAdd(w + k, tid);
  }
  iters[tid] = n;
  cycles[tid] = t1 - t0;
}

int main(int argc, char **argv) {
  // an argument: that many blocks of 128 threads, mode 0 only (how the cost per successful CAS
  // grows with the warps contending)
  const int blocks = argc > 1 ? atoi(argv[1]) : 4, n = blocks * 128, modes = argc > 1 ? 1 : 3;
  if (blocks < 1 || blocks > 1024) {
    fprintf(stderr, "cas_contention: blocks must be 1..1024\n");
    return 2;
  }
  int *iters, *v;
  long long *cycles;
  if (cudaMalloc(&iters, n * sizeof(int)) || cudaMalloc(&cycles, n * sizeof(long long)) ||
      cudaMalloc(&v, 1024) || cudaMemset(v, 0, 1024))
    return 2;
  std::vector<int> h(n);
  std::vector<long long> c(n);
  for (int mode = 0; mode < modes; ++mode) {
    casLoop<<<blocks, 128>>>(v, iters, cycles, mode);
    if (cudaDeviceSynchronize() != cudaSuccess)
      return 1;
    cudaMemcpy(h.data(), iters, n * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(c.data(), cycles, n * sizeof(long long), cudaMemcpyDeviceToHost);
    long lane = 0;
    int warp = 0;
    long long most = 0;
    for (int i = 0; i < n; ++i) {
      lane += h[i];
      most = c[i] > most ? c[i] : most;
    }
    for (int w = 0; w < n / 32; ++w) {
      int m = 0;
      for (int l = 0; l < 32; ++l)
        m = h[w * 32 + l] > m ? h[w * 32 + l] : m;
      warp += m;
    }
    printf("mode %d lane-iters %ld warp-iters %d maxcycles %lld\n", mode, lane, warp, most);
    if (mode == 0 && argc > 1)
      printf("blocks %d successes %d cycles_per_success %.1f\n", blocks, n, double(most) / n);
    else if (mode == 0)
      printf("METRIC cas_same_addr_cycles %.2f cycles\n", double(most) / double(lane));
  }
  return 0;
}

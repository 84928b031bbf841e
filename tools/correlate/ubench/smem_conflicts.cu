// Shared-memory bank conflicts of loads and stores, per SM: 8 warps of one CTA each issue
// volatile 32-bit shared loads (lds) or stores (sts) in which lane l touches word l * S of a
// 1,024-word region (S = 1: no conflict, 2: 2-way, 4: 4-way, 8, 16, 32: every lane in one bank,
// distinct words), 8 per iteration. Prints the CTA's cycles (%clock64 of thread 0 between two
// barriers) per warp instruction: the banks' throughput for an N-way access (micro/smem.cu
// measures it for loads only: tput_ld_Nway_cyc ~N). Question it answers (issue 31,
// tools/correlate/kernels/smem_tiled.cu's wavefront, whose H[i][j] accesses are N-way conflicts:
// 3 loads and a store per anti-diagonal; the H200 takes 85,300 cycles per CTA, 27 % above what
// 1 bank cycle per way gives): does an N-way conflicting store take the banks longer than a load?
// Also `wave` runs 8 warps of 3 conflicting loads and 1 conflicting store per step, as the
// wavefront does, to compare with the sum of the separate figures.
//   nvcc -cudart shared -O2 -arch=sm_90 smem_conflicts.cu -o smem_conflicts && ./smem_conflicts
// One CTA per SM (all SMs busy, as in the correlation kernels); the figures are per SM.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x)                                                                  \
  do {                                                                            \
    cudaError_t e_ = (x);                                                         \
    if (e_ != cudaSuccess) {                                                      \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)

__device__ long long g_cyc[1024];

__device__ __forceinline__ long long clk() {
  long long c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}

constexpr int kWarps = 8, kUnroll = 8;

// MODE 0: loads, 1: stores, 2: 3 loads and a store (the wavefront's mix).
template <int S, int MODE>
__global__ void conflicts(int iters, float *out) {
  __shared__ float sm[1024 * 4];
  for (int i = threadIdx.x; i < 1024 * 4; i += blockDim.x) sm[i] = i * 0.5f;
  __syncthreads();
  volatile float *v = sm;
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int o = (lane * S) & 1023;
  const float acc = float(lane);
  __syncthreads();
  long long t0 = clk();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      // each warp and step its own 1,024-word region (the banks are the same for all of them)
      const int at = o + ((k + w + i) & 3) * 1024;
      // a loaded value is only kept alive (no arithmetic waits for it): the banks, not the
      // load's latency, set the pace
      if (MODE == 1 || (MODE == 2 && (k & 3) == 3)) {
        v[at] = acc + k;
      } else {
        float x = v[at];
        asm volatile("" ::"f"(x));
      }
    }
  }
  __syncthreads();
  long long t1 = clk();
  if (threadIdx.x == 0)
    g_cyc[blockIdx.x] = t1 - t0;
  out[blockIdx.x * blockDim.x + threadIdx.x] = v[o];
}

template <int S, int MODE>
static void run(const char *name, int sms, int iters, float *out) {
  conflicts<S, MODE><<<sms, kWarps * 32>>>(iters, out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  static long long c[1024];
  CHECK(cudaMemcpyFromSymbol(c, g_cyc, sms * sizeof(long long)));
  double avg = 0;
  for (int i = 0; i < sms; ++i)
    avg += double(c[i]);
  avg /= sms;
  printf("KERNEL %-12s ways %2d cycles_per_warp_inst %.3f\n", name, S, avg / (double(iters) * kUnroll * kWarps));
}

int main(int argc, char **argv) {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  if (sms > 1024)
    sms = 1024;
  const int iters = argc > 1 ? atoi(argv[1]) : 256;
  if (iters <= 0) {
    fprintf(stderr, "usage: %s [ITERATIONS > 0]\n", argv[0]);
    return 2;
  }
  float *out;
  CHECK(cudaMalloc(&out, sms * kWarps * 32 * sizeof(float)));
  run<1, 0>("lds", sms, iters, out);
  run<2, 0>("lds", sms, iters, out);
  run<4, 0>("lds", sms, iters, out);
  run<8, 0>("lds", sms, iters, out);
  run<16, 0>("lds", sms, iters, out);
  run<32, 0>("lds", sms, iters, out);
  run<1, 1>("sts", sms, iters, out);
  run<2, 1>("sts", sms, iters, out);
  run<4, 1>("sts", sms, iters, out);
  run<8, 1>("sts", sms, iters, out);
  run<16, 1>("sts", sms, iters, out);
  run<32, 1>("sts", sms, iters, out);
  run<32, 2>("wave_mix", sms, iters, out);
  CHECK(cudaFree(out));
  printf("PASS smem_conflicts\n");
  return 0;
}

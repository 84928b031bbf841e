// Probe (issue 31): three figures the H100 preset assumes without a measurement
// (docs/timing.md "L1 tag stage" and "Memory details"):
//   l1_lines N     cycles per dependent warp load whose lanes hit N distinct L1 lines (N = 1..32;
//                  the model: 32 + N / 4 with -ptxsim_l1_tag_lines 4, 32 + N with 1)
//   acquire_gpu    cycles per dependent ld.acquire.gpu of one word (the model: an L2 round trip,
//                  ~280; a plain load of the same word: an L1 hit, ~32)
//   const_lines K  cycles of one warp ld.const whose lanes read K distinct 64-byte lines that no
//                  SM has read yet (the constant cache's misses in flight: K / M round trips)
//   grid_sync      cycles per cooperative-groups grid.sync() of 4 CTAs x 128 threads
// Every figure is one warp timing itself with clock64 (a warm-up pass first where the figure is a
// hit), on one SM; all lines of output are `METRIC name value unit`.
//   nvcc -cudart shared -O2 -arch=sm_90 l1_lines_const_misses.cu -o l1_lines_const_misses
//   ./l1_lines_const_misses
#include <cooperative_groups.h>
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

namespace cg = cooperative_groups;

constexpr int kHops = 512;
constexpr int kConstWords = 16384; // 64 KiB: 1,024 lines of 64 bytes
__constant__ unsigned c_words[kConstWords];

__device__ __forceinline__ unsigned ldCa(const unsigned *p) {
  unsigned v;
  asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned ldAcquire(const unsigned *p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// buf[i] == i for every word: each lane chases its own word (a dependent chain of loads), lane l
// at line l % lines of a 32-line block, so every load of the warp touches `lines` lines.
__global__ void l1Lines(const unsigned *buf, int lines, long long *cycles, unsigned *sink) {
  unsigned lane = threadIdx.x;
  unsigned idx = (lane % lines) * 32 + lane / lines % 32;
  for (int k = 0; k < 8; ++k) // warm the lines
    idx = ldCa(buf + idx);
  __syncwarp();
  long long t0 = clock64();
  for (int k = 0; k < kHops; ++k)
    idx = ldCa(buf + idx);
  long long t1 = clock64();
  sink[lane] = idx;
  if (lane == 0)
    *cycles = t1 - t0;
}

__global__ void acquireChase(const unsigned *buf, int acquire, long long *cycles, unsigned *sink) {
  unsigned idx = 0;
  idx = ldCa(buf + idx); // the line in the L1 for the plain loads
  long long t0 = clock64();
  for (int k = 0; k < kHops; ++k)
    idx = acquire ? ldAcquire(buf + idx) : ldCa(buf + idx);
  long long t1 = clock64();
  sink[0] = idx;
  *cycles = t1 - t0;
}

// One ld.const per lane at word base + (lane % k) * 16: k distinct 64-byte lines, none read
// before (each call gets a fresh base). The loaded values feed the stop time.
__global__ void constLines(int base, int k, long long *cycles, unsigned *sink) {
  unsigned lane = threadIdx.x;
  long long t0 = clock64();
  unsigned v = c_words[base + (lane % k) * 16];
  unsigned all = __reduce_add_sync(0xffffffffu, v);
  long long t1 = clock64();
  sink[lane] = all;
  if (lane == 0)
    *cycles = t1 - t0;
}

__global__ void gridSyncs(int n, long long *cycles) {
  cg::grid_group grid = cg::this_grid();
  grid.sync();
  long long t0 = clock64();
  for (int k = 0; k < n; ++k)
    grid.sync();
  long long t1 = clock64();
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *cycles = t1 - t0;
}

int main() {
  unsigned *buf, *sink;
  long long *cyc;
  const int words = 32 * 32;
  CHECK(cudaMalloc(&buf, words * sizeof(unsigned)));
  CHECK(cudaMalloc(&sink, 32 * sizeof(unsigned)));
  CHECK(cudaMalloc(&cyc, sizeof(long long)));
  unsigned host[words];
  for (int i = 0; i < words; ++i)
    host[i] = i;
  CHECK(cudaMemcpy(buf, host, sizeof(host), cudaMemcpyHostToDevice));
  static unsigned hc[kConstWords];
  for (int i = 0; i < kConstWords; ++i)
    hc[i] = i;
  CHECK(cudaMemcpyToSymbol(c_words, hc, sizeof(hc)));
  long long c = 0;
  int bad = 0;

  for (int lines : {1, 2, 4, 8, 16, 32}) {
    l1Lines<<<1, 32>>>(buf, lines, cyc, sink);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&c, cyc, sizeof(c), cudaMemcpyDeviceToHost));
    printf("METRIC l1_lines_%d %.2f cycles\n", lines, double(c) / kHops);
    unsigned s[32];
    CHECK(cudaMemcpy(s, sink, sizeof(s), cudaMemcpyDeviceToHost));
    for (unsigned l = 0; l < 32; ++l)
      bad += s[l] != (l % lines) * 32 + l / lines % 32;
  }
  for (int acquire : {0, 1}) {
    acquireChase<<<1, 1>>>(buf, acquire, cyc, sink);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&c, cyc, sizeof(c), cudaMemcpyDeviceToHost));
    printf("METRIC %s %.2f cycles\n", acquire ? "acquire_gpu" : "plain_ca", double(c) / kHops);
  }
  int base = 0;
  for (int k : {1, 2, 4, 8, 16, 32}) {
    constLines<<<1, 32>>>(base, k, cyc, sink);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&c, cyc, sizeof(c), cudaMemcpyDeviceToHost));
    printf("METRIC const_lines_%d %lld cycles\n", k, c);
    unsigned s[32], want = 0;
    CHECK(cudaMemcpy(s, sink, sizeof(s), cudaMemcpyDeviceToHost));
    for (unsigned l = 0; l < 32; ++l)
      want += base + (l % k) * 16;
    bad += s[0] != want;
    base += 32 * 16 + 16; // fresh lines for the next call
  }
  int dev = 0, coop = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
  if (coop) {
    int n = 64;
    void *args[] = {&n, &cyc};
    CHECK(cudaLaunchCooperativeKernel((void *)gridSyncs, dim3(4), dim3(128), args, 0, nullptr));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(&c, cyc, sizeof(c), cudaMemcpyDeviceToHost));
    printf("METRIC grid_sync %.1f cycles\n", double(c) / n);
  } else {
    printf("# no cooperative launch: grid_sync not measured\n");
  }
  cudaFree(buf);
  cudaFree(sink);
  cudaFree(cyc);
  printf(bad ? "FAIL l1_lines_const_misses (%d wrong values)\n" : "PASS l1_lines_const_misses\n", bad);
  return bad ? 1 : 0;
}

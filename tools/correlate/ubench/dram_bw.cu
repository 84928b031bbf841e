// DRAM bandwidth in steady state, shaped like the H100 measurement (../shared/hw/h100/micro/bw.cu:
// float4 grid-stride kernels, 8 blocks x 256 threads per SM, CUDA events, caches warm): a copy
// (read + write counted), a read (a reduction the compiler cannot drop) and a write (a fill).
// Each kernel runs once to reach the steady state (an L2 full of the stream's dirty lines, as
// after the hardware's first of three rounds), then once timed. One buffer of 2 x MiB: the copy
// goes from its first half to its second, the read and the write cover all of it, so every
// kernel streams 2 x MiB of distinct lines, which must be well over the L2 (50 MiB on the H100)
// for the LRU L2 to miss on the timed round and for the writes to reach DRAM:
//   dram_bw [MiB, default 48] [kernels: 1 copy | 2 read | 4 write, default 7]
// Every launch also pays a fixed cost (launch, CTA dispatch, drain, the front end's gap between
// kernels: ~4 us on the H100). bw.cu moves 1 GiB per kernel (2 GiB for the copy), where that cost
// is ~1 %; at 96 MiB it would be ~12 %. So the program also times an empty kernel of the same
// grid and reports each bandwidth twice: *_raw_GBps over this run's bytes, and *_GBps projected
// to bw.cu's bytes (fixed cost + the measured streaming time scaled to them), which is what
// tools/correlate/ubench_compare.py --dram compares with the hardware.
// tools/correlate/ubench_compare.py --dram runs it under a preset beside the hardware's figures.
#include <cstdio>
#include <cstdlib>

__global__ void bwCopy(const float4 *__restrict__ src, float4 *__restrict__ dst, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
    dst[i] = src[i];
}

__global__ void bwRead(const float4 *__restrict__ src, float *sink, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  float acc = 0.f;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) {
    float4 v = src[i];
    acc += (v.x + v.y) + (v.z + v.w);
  }
  if (acc == -1.f) // never true for the zero-filled source: keeps the loads
    *sink = acc;
}

__global__ void bwEmpty() {}

__global__ void bwWrite(float4 *__restrict__ dst, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
    dst[i] = make_float4(i, 1.f, 2.f, 3.f);
}

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? strtoul(argv[1], nullptr, 10) : 48;
  int which = argc > 2 ? atoi(argv[2]) : 7;
  size_t bytes = mib << 20, n = bytes / sizeof(float4); // the copy's half; read/write: 2 n
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess)
    return 2;
  float4 *a;
  float *sink;
  if (cudaMalloc(&a, 2 * bytes) || cudaMalloc(&sink, 4) || cudaMemset(a, 0, 2 * bytes))
    return 2;
  float4 *b = a + n;
  int blocks = prop.multiProcessorCount * 8;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  const char *names[3] = {"dram_copy", "dram_read", "dram_write"};
  // the fixed cost of one launch of this grid, timed like the kernels below
  float fixedMs = 0;
  for (int round = 0; round < 2; ++round) {
    cudaEventRecord(e0);
    bwEmpty<<<blocks, 256>>>();
    cudaEventRecord(e1);
    if (cudaEventSynchronize(e1) != cudaSuccess)
      return 1;
    cudaEventElapsedTime(&fixedMs, e0, e1);
  }
  printf("METRIC launch_fixed_us %.2f us\n", fixedMs * 1e3);
  for (int k = 0; k < 3; ++k) {
    if (!(which & (1 << k)))
      continue;
    float ms = 0;
    for (int round = 0; round < 2; ++round) { // round 0 reaches the steady state
      cudaEventRecord(e0);
      if (k == 0)
        bwCopy<<<blocks, 256>>>(a, b, n);
      else if (k == 1)
        bwRead<<<blocks, 256>>>(a, sink, 2 * n);
      else
        bwWrite<<<blocks, 256>>>(a, 2 * n);
      cudaEventRecord(e1);
      if (cudaEventSynchronize(e1) != cudaSuccess)
        return 1;
      cudaEventElapsedTime(&ms, e0, e1);
    }
    double moved = 2.0 * bytes; // copy: read + write; read, write: 2 x MiB
    double hwMoved = (k == 0 ? 2.0 : 1.0) * (1ull << 30); // bw.cu: 1 GiB buffers
    double hwMs = fixedMs + (ms - fixedMs) * hwMoved / moved;
    printf("METRIC %s_raw_GBps %.1f GB/s\n", names[k], moved / (ms * 1e-3) / 1e9);
    printf("METRIC %s_GBps %.1f GB/s\n", names[k], hwMoved / (hwMs * 1e-3) / 1e9);
  }
  printf("PASS dram_bw\n");
  return 0;
}

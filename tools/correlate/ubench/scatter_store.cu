// Global store throughput of one SM by the number of lines a warp store touches: each thread
// makes ITERS x 16 stores whose lanes are STRIDE bytes apart (256: as
// tests/kernels/16_float_intrinsics.cu writes 64 floats per thread 256 bytes apart), one CTA per
// SM on two SMs, WARPS warps per CTA. Prints, per case, cycles per warp store instruction and per
// 128-byte line it touches, from each CTA's %clock64 span (the slower CTA). The question it
// settles (docs/timing.md "Scattered stores"): does an H100 SM send a store that touches 32
// lines, one sector each, at one line per cycle, per 2 cycles (the preset's
// -ptxsim_icnt_write_min_flits 2, fitted to 16_float_intrinsics), or at its sectors' byte rate;
// and does a full line (stride 4) cost the same per line.
//   nvcc -cudart shared -O2 -arch=sm_90 scatter_store.cu -o scatter_store && ./scatter_store [ITERS]
#include <algorithm>
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

__device__ __forceinline__ long long clk() {
  long long c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}

// Store k of thread t writes word (k * threads + t) * stride/4: the lanes of a warp store are
// `stride` bytes apart (4: coalesced, one line; 256: 32 lines, one sector each) and the stores
// of one thread never share a line with another store's.
__global__ void stores(long long *span, float *out, int iters, int strideBytes, float v) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x, threads = gridDim.x * blockDim.x;
  const size_t rowWords = size_t(strideBytes) / 4;
  __syncthreads();
  long long t0 = clk();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      size_t k = size_t(i) * 16 + j;
      size_t w = (k * threads + t) * rowWords;
      out[w] = v + float(j);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) span[blockIdx.x] = clk() - t0;
}

int main(int argc, char **argv) {
  const int iters = argc > 1 ? atoi(argv[1]) : 4;
  if (iters < 1) {
    fprintf(stderr, "scatter_store: ITERS must be at least 1\n");
    return 2;
  }
  const int ctas = 2, maxWarps = 16;
  const int strides[] = {4, 32, 64, 128, 256};
  const int warpCounts[] = {1, 4, 16};
  const size_t words = size_t(16) * iters;
  size_t maxBytes = size_t(ctas) * maxWarps * 32 * words * 256;
  float *out;
  long long *span;
  CHECK(cudaMalloc(&out, maxBytes));
  CHECK(cudaMalloc(&span, sizeof(long long) * ctas));
  printf("# scatter_store: %d CTAs (one per SM), %d words per thread\n", ctas, int(words));
  printf("# warps stride_B lines_per_inst cycles cycles_per_warp_store cycles_per_line\n");
  for (int warps : warpCounts)
    for (int stride : strides) {
      for (int rep = 0; rep < 2; ++rep) { // the second launch is reported (code and TLB warm)
        stores<<<ctas, warps * 32>>>(span, out, iters, stride, 1.0f);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
      }
      long long h[ctas];
      CHECK(cudaMemcpy(h, span, sizeof h, cudaMemcpyDeviceToHost));
      long long worst = *std::max_element(h, h + ctas);
      int lines = stride == 4 ? 1 : std::min(32, 32 * stride / 128);
      double insts = double(warps) * words; // warp store instructions per SM
      printf("%d %d %d %lld %.2f %.3f\n", warps, stride, lines, worst, worst / insts,
             worst / (insts * lines));
    }
  CHECK(cudaFree(out));
  CHECK(cudaFree(span));
  printf("PASS scatter_store\n");
  return 0;
}

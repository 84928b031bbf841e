// Global atomic throughput per SM in the patterns of the micro set's atomics.cu (../shared/hw/
// h100/micro: 4 CTAs of 256 threads per SM, unrolled blocks of 8 atomics per thread): nocont (a
// warp's 32 lanes on 32 consecutive words, one 128-byte line), cont32 (a warp's lanes on one word,
// warps 128 bytes apart), with the result used (ATOM) or not (RED). Prints warp atomics per cycle
// per SM from each CTA's %clock64 span (the median CTA), to set beside the H100's
// tput_global_{red,atom}_{nocont,cont32}_warpinst_per_clk_sm (0.0681 / 0.0612 and 0.0083 /
// 0.0071). Fewer iterations than the micro set, so that the model runs it in about a minute.
//   nvcc -cudart shared -O2 -arch=sm_90 atomic_tput.cu -o atomic_tput && ./atomic_tput [ITERS]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
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

template <bool RET>
__global__ void tput(long long *span, unsigned *buf, unsigned *sink, int iters, bool cont32) {
  unsigned gtid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned *p = buf + (cont32 ? (gtid / 32) * 32 : gtid);
  unsigned acc = 0;
  __syncthreads();
  long long t0 = clk();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      if (RET) {
        unsigned r;
        asm volatile("atom.global.add.u32 %0, [%1], 1;" : "=r"(r) : "l"(p) : "memory");
        acc += r;
      } else {
        asm volatile("red.global.add.u32 [%0], 1;" ::"l"(p) : "memory");
      }
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) span[blockIdx.x] = clk() - t0;
  if (acc == 0x12345678u) sink[0] = acc;
}

int main(int argc, char **argv) {
  const int iters = argc > 1 ? atoi(argv[1]) : 4;
  if (iters < 1) {
    fprintf(stderr, "atomic_tput: ITERS must be at least 1\n");
    return 2;
  }
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int threads = 256, blocks = sms * 4;
  long long *span;
  unsigned *buf, *sink;
  CHECK(cudaMalloc(&span, blocks * sizeof(long long)));
  CHECK(cudaMalloc(&buf, size_t(blocks) * threads * 4));
  CHECK(cudaMalloc(&sink, 4));
  int fails = 0;
  for (int ret = 0; ret < 2; ++ret)
    for (int cont = 0; cont < 2; ++cont) {
      CHECK(cudaMemset(buf, 0, size_t(blocks) * threads * 4));
      if (ret) tput<true><<<blocks, threads>>>(span, buf, sink, iters, cont);
      else tput<false><<<blocks, threads>>>(span, buf, sink, iters, cont);
      CHECK(cudaDeviceSynchronize());
      std::vector<long long> s(blocks);
      CHECK(cudaMemcpy(s.data(), span, blocks * sizeof(long long), cudaMemcpyDeviceToHost));
      std::sort(s.begin(), s.end());
      // 4 CTAs share an SM over the span: its warp atomics over the median CTA's cycles
      double warpInsts = 4.0 * threads / 32 * iters * 8;
      printf("%s_%s warpinst_per_clk_sm %.5f (median CTA %lld cycles)\n", ret ? "atom" : "red",
             cont ? "cont32" : "nocont", warpInsts / double(s[blocks / 2]), s[blocks / 2]);
      std::vector<unsigned> h(size_t(blocks) * threads);
      CHECK(cudaMemcpy(h.data(), buf, h.size() * 4, cudaMemcpyDeviceToHost));
      unsigned long long sum = 0;
      for (unsigned v : h) sum += v;
      if (sum != (unsigned long long)blocks * threads * iters * 8) fails++;
    }
  printf("%s atomic_tput\n", fails ? "FAIL" : "PASS");
  return fails ? 1 : 0;
}

// Probe (issue 31): how far ahead an H100 SM fetches straight-line code, and where the code comes
// from when it is not cached (docs/timing.md "Instruction fetch"; configs/h100.config
// -ptxsim_l1i_stream_prefetch, -ptxsim_l1i_prefetch_lines 16, -ptxsim_l1i_cold_miss_latency).
// One warp runs kBlocks blocks of straight-line code, each kOps integer multiply-adds over 8
// interleaved chains (x[i] = x[i] * x[i + 3] + c, which ptxas cannot fold: kOps IMADs of 16
// bytes, so a block is kOps / 8 lines of 128 bytes), and reads %clock64 between blocks.
// Launches:
//   cold    after a 256 MiB memset that evicts the 50 MiB L2 (the code was last fetched by the
//           warm-up launch: whether the SM's instruction caches still hold it is one question)
//   warm    right after `cold`: the code is in the SM's caches if anything is
//   other   the same kernel on another SM right after `cold` (the code in the L2, not in the SM)
// Printed (`METRIC name value unit`): cycles of the first block (a cold miss and the stream's
// start), the median cycles per block after the first 4, and the same per 128-byte line. If the
// fetch streams N lines ahead at latency L, a block's cycles are max(issue, lines x L / N):
// warm gives the issue rate, other the L2-fed rate, cold the DRAM-fed rate (or the warm one if
// the SM kept the code). The model (H100 preset, 16 lines ahead, 276-cycle misses) predicts a
// first block of ~300 cycles more than warm, then the warm rate.
//   nvcc -cudart shared -O2 -arch=sm_90 ifetch_stream.cu -o ifetch_stream && ./ifetch_stream
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

constexpr int kBlocks = 48;
constexpr int kOps = 128; // per block: 16 lines of 128 bytes

// The clock read takes the 8 chains as operands it may change, so no multiply-add moves across
// it: each block's code lies between two reads.
__device__ __forceinline__ long long stamp(unsigned (&x)[8]) {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;"
               : "=l"(t), "+r"(x[0]), "+r"(x[1]), "+r"(x[2]), "+r"(x[3]), "+r"(x[4]),
                 "+r"(x[5]), "+r"(x[6]), "+r"(x[7])
               :
               : "memory");
  return t;
}

// The first CTA that finds itself on SM `sm` runs the code (*claim 0 before the launch); the
// others exit at once.
__global__ void straight(const unsigned *in, unsigned *out, long long *stamps, int sm,
                         int *claim) {
  unsigned smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  if (int(smid) != sm)
    return;
  int won = threadIdx.x == 0 ? atomicExch(claim, 1) == 0 : 0;
  if (!__shfl_sync(0xffffffffu, won, 0))
    return;
  unsigned x[8];
  for (int j = 0; j < 8; ++j)
    x[j] = in[threadIdx.x * 8 + j];
  // the first stamp after the loads have returned (a branch on all 8 values), so the first
  // block's cycles are its fetch and issue only
  if ((x[0] ^ x[1] ^ x[2] ^ x[3] ^ x[4] ^ x[5] ^ x[6] ^ x[7]) == 0x9e3779b9u)
    out[32] = 1;
  long long t[kBlocks + 1];
  t[0] = stamp(x);
#pragma unroll
  for (int b = 0; b < kBlocks; ++b) {
#pragma unroll
    for (int k = 0; k < kOps; ++k)
      x[k & 7] = x[k & 7] * x[(k + 3) & 7] + unsigned(b * kOps + k);
    t[b + 1] = stamp(x);
  }
  unsigned s = 0;
  for (int j = 0; j < 8; ++j)
    s ^= x[j];
  out[threadIdx.x] = s;
  if (threadIdx.x == 0)
    for (int b = 0; b <= kBlocks; ++b)
      stamps[b] = t[b];
}

static void report(const char *name, const std::vector<long long> &t) {
  std::vector<long long> d;
  for (int b = 5; b <= kBlocks; ++b)
    d.push_back(t[b] - t[b - 1]);
  std::sort(d.begin(), d.end());
  double med = double(d[d.size() / 2]);
  printf("METRIC ifetch_%s_first_block %lld cycles\n", name, t[1] - t[0]);
  printf("METRIC ifetch_%s_block_median %.0f cycles\n", name, med);
  printf("METRIC ifetch_%s_per_line %.1f cycles\n", name, med / (kOps / 8.0));
}

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  unsigned *in, *out;
  long long *stamps;
  int *claim;
  char *evict;
  const size_t evictBytes = size_t(256) << 20;
  CHECK(cudaMalloc(&in, 32 * 8 * sizeof(unsigned)));
  CHECK(cudaMalloc(&out, 33 * sizeof(unsigned)));
  CHECK(cudaMalloc(&stamps, (kBlocks + 1) * sizeof(long long)));
  CHECK(cudaMalloc(&claim, sizeof(int)));
  CHECK(cudaMalloc(&evict, evictBytes));
  CHECK(cudaMemset(in, 7, 32 * 8 * sizeof(unsigned)));
  std::vector<long long> t(kBlocks + 1);
  // two CTAs per SM on average: the first on `sm` runs the code
  auto run = [&](int sm, const char *name) {
    CHECK(cudaMemset(claim, 0, sizeof(int)));
    CHECK(cudaMemset(stamps, 0, t.size() * sizeof(long long)));
    straight<<<2 * sms, 32>>>(in, out, stamps, sm, claim);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(t.data(), stamps, t.size() * sizeof(long long), cudaMemcpyDeviceToHost));
    if (t[0] == 0) {
      fprintf(stderr, "ifetch_stream: no CTA ran on SM %d\n", sm);
      exit(1);
    }
    if (name)
      report(name, t);
  };
  run(0, nullptr); // warm-up: the module loaded, the code fetched once
  CHECK(cudaMemset(evict, 1, evictBytes));
  CHECK(cudaDeviceSynchronize());
  run(0, "cold");
  run(0, "warm");
  run(sms / 2, "other");
  return 0;
}

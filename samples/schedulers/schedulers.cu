// The warp-scheduling study (after the CCWS paper and the OMSCS warp-scheduling assignment):
// one cache-sensitive kernel, where each warp repeatedly walks its own small working set (the
// working sets of all resident warps together overflow the L1), and one compute-bound kernel.
// Run it in timing mode with different schedulers (samples/schedulers/compare.sh) and compare
// stall cycles and L1 misses per 1000 instructions. Functionally it checks its own results.
#include "../common/sample.h"

#include <vector>

// Warp w reads lines [w*linesPerWarp, (w+1)*linesPerWarp) of `data` `passes` times; each lane
// reads one word of each line, so a pass costs one L1 access per line.
__global__ void cacheSensitive(const int *data, int *out, int linesPerWarp, int passes) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  const int *mine = data + warp * linesPerWarp * 32;
  int acc = 0;
  for (int p = 0; p < passes; ++p)
    for (int l = 0; l < linesPerWarp; ++l)
      acc += mine[l * 32 + lane] * (p + 1);
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Arithmetic only.
__global__ void computeBound(int *out, int iters) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = x ^ 0x9e3779b9u;
  for (int i = 0; i < iters; ++i) {
    x = x * 1664525u + 1013904223u;
    y += x >> 3;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = (int)(x ^ y);
}

int main() {
  const int blocks = 30, threads = 256, linesPerWarp = 24, passes = 4;
  const int warps = blocks * threads / 32, n = warps * linesPerWarp * 32;
  std::vector<int> h(n);
  Rng rng(7);
  for (int &v : h)
    v = (int)(rng.next() % 100);
  int *d, *out;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMalloc(&out, blocks * threads * sizeof(int)));
  CHECK(cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  cacheSensitive<<<blocks, threads>>>(d, out, linesPerWarp, passes);
  CHECK(cudaGetLastError());
  std::vector<int> got(blocks * threads);
  CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int t = 0; t < blocks * threads; ++t) {
    int warp = t / 32, lane = t % 32, acc = 0;
    for (int p = 0; p < passes; ++p)
      for (int l = 0; l < linesPerWarp; ++l)
        acc += h[(warp * linesPerWarp + l) * 32 + lane] * (p + 1);
    bad += got[t] != acc;
  }
  computeBound<<<blocks, threads>>>(out, 200);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (int t = 0; t < blocks * threads; ++t) {
    unsigned x = t, y = x ^ 0x9e3779b9u;
    for (int i = 0; i < 200; ++i) {
      x = x * 1664525u + 1013904223u;
      y += x >> 3;
    }
    bad += got[t] != (int)(x ^ y);
  }
  std::printf("schedulers: %d warps x %d lines x %d passes (cache-sensitive), compute-bound: %s\n",
              warps, linesPerWarp, passes, bad ? "mismatch" : "results match the host");
  std::printf("%s\n", bad ? "FAIL" : "PASS schedulers");
  return bad ? 1 : 0;
}

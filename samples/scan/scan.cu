// ptxsim sample: work-efficient (Blelloch) exclusive prefix sum over any number of blocks.
// Each block scans 2 * 256 elements in shared memory with an up-sweep (reduce) and a
// down-sweep, and writes its total to a per-block array. That array is scanned the same way
// (recursively, if it needs more than one block), and a last kernel adds each block's scanned
// total to its elements.

#include "../common/sample.h"
#include <vector>

constexpr int kThreads = 256;
constexpr int kPerBlock = 2 * kThreads;

__global__ void scanBlocks(const int *in, int *out, int *blockSums, int n) {
  __shared__ int s[kPerBlock];
  int base = blockIdx.x * kPerBlock, t = threadIdx.x;
  s[t] = base + t < n ? in[base + t] : 0;
  s[t + kThreads] = base + t + kThreads < n ? in[base + t + kThreads] : 0;

  int offset = 1;
  for (int active = kPerBlock / 2; active > 0; active >>= 1, offset <<= 1) { // up-sweep
    __syncthreads();
    if (t < active) {
      int left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
      s[right] += s[left];
    }
  }
  if (t == 0) {
    if (blockSums)
      blockSums[blockIdx.x] = s[kPerBlock - 1];
    s[kPerBlock - 1] = 0;
  }
  for (int active = 1; active < kPerBlock; active <<= 1) { // down-sweep
    offset >>= 1;
    __syncthreads();
    if (t < active) {
      int left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
      int l = s[left];
      s[left] = s[right];
      s[right] += l;
    }
  }
  __syncthreads();
  if (base + t < n)
    out[base + t] = s[t];
  if (base + t + kThreads < n)
    out[base + t + kThreads] = s[t + kThreads];
}

__global__ void addBlockOffsets(int *data, const int *scannedSums, int n) {
  int i = blockIdx.x * kPerBlock + threadIdx.x;
  int add = scannedSums[blockIdx.x];
  if (i < n)
    data[i] += add;
  if (i + kThreads < n)
    data[i + kThreads] += add;
}

// Exclusive scan of n device ints from `in` to `out`; returns the number of launches.
static int exclusiveScan(const int *in, int *out, int n) {
  int blocks = (n + kPerBlock - 1) / kPerBlock;
  if (blocks == 1) {
    scanBlocks<<<1, kThreads>>>(in, out, nullptr, n);
    CHECK(cudaGetLastError());
    return 1;
  }
  int *sums;
  CHECK(cudaMalloc(&sums, blocks * sizeof(int)));
  scanBlocks<<<blocks, kThreads>>>(in, out, sums, n);
  CHECK(cudaGetLastError());
  int launches = 1 + exclusiveScan(sums, sums, blocks); // in place is fine: one block reads first
  addBlockOffsets<<<blocks, kThreads>>>(out, sums, n);
  CHECK(cudaGetLastError());
  CHECK(cudaFree(sums));
  return launches + 1;
}

int main() {
  const int n = 300000; // 586 blocks at the first level, 2 at the second, 1 at the third
  std::vector<int> in(n), out(n);
  Rng rng(31337);
  for (int &x : in)
    x = static_cast<int>(rng.next() % 10);

  int *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, n * sizeof(int)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  int launches = exclusiveScan(din, dout, n);
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));

  int mismatches = 0, running = 0, first = -1;
  for (int i = 0; i < n; ++i) {
    if (out[i] != running && mismatches++ == 0)
      first = i;
    running += in[i];
  }
  if (first >= 0)
    std::printf("first mismatch at %d: got %d\n", first, out[first]);
  std::printf("scan: exclusive prefix sum of %d ints in %d launches; out[%d] = %d, total %d, "
              "%d mismatches\n",
              n, launches, n - 1, out[n - 1], running, mismatches);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  return report("scan", mismatches == 0);
}

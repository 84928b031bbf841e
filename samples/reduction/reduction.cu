// ptxsim sample: parallel sum reduction in two launches. Each thread first accumulates a
// grid-stride slice of the input; each warp then reduces its 32 values with shuffles, warp
// leaders meet in shared memory, and the first warp reduces those. The first launch leaves one
// partial sum per block, the second (one block) reduces the partials.

#include "../common/sample.h"
#include <vector>

constexpr int kThreads = 256;

__device__ int warpSum(int v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void reduceSum(const int *in, int *out, int n) {
  __shared__ int warpSums[kThreads / 32];
  int sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    sum += in[i];
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  sum = warpSum(sum);
  if (lane == 0)
    warpSums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = lane < blockDim.x / 32 ? warpSums[lane] : 0;
    sum = warpSum(sum);
    if (lane == 0)
      out[blockIdx.x] = sum;
  }
}

int main() {
  const int n = 1 << 20, blocks = 128;
  std::vector<int> in(n);
  Rng rng(7);
  long long want = 0;
  for (int &x : in) {
    x = static_cast<int>(rng.next() % 201) - 100;
    want += x;
  }

  int *din, *dpartial, *dsum;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dpartial, blocks * sizeof(int)));
  CHECK(cudaMalloc(&dsum, sizeof(int)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  reduceSum<<<blocks, kThreads>>>(din, dpartial, n);
  CHECK(cudaGetLastError());
  reduceSum<<<1, kThreads>>>(dpartial, dsum, blocks);
  CHECK(cudaGetLastError());
  int got = 0;
  CHECK(cudaMemcpy(&got, dsum, sizeof(int), cudaMemcpyDeviceToHost));

  std::printf("reduction: sum of %d ints in [-100, 100] = %d (host: %lld), %d blocks x %d "
              "threads, then 1 block\n",
              n, got, want, blocks, kThreads);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dpartial));
  CHECK(cudaFree(dsum));
  return report("reduction", got == want);
}

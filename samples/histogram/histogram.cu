// ptxsim sample: 256-bin byte histogram. Each block counts its grid-stride slice of the input
// into a private histogram in shared memory with shared-memory atomics (cheap, and contended
// only within the block), then adds its 256 counts to the global histogram with global atomics.

#include "../common/sample.h"
#include <vector>

constexpr int kBins = 256;
constexpr int kThreads = 256;

__global__ void histogram256(const unsigned char *data, int n, unsigned *hist) {
  __shared__ unsigned local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    if (local[b])
      atomicAdd(&hist[b], local[b]);
}

int main() {
  const int n = 1 << 20, blocks = 64;
  // A skewed distribution (sum of two uniform bytes, halved) so the bins differ a lot.
  std::vector<unsigned char> data(n);
  Rng rng(99);
  for (auto &x : data)
    x = static_cast<unsigned char>(((rng.next() & 0xff) + (rng.next() & 0xff)) / 2);
  std::vector<unsigned> want(kBins, 0), got(kBins);
  for (unsigned char x : data)
    ++want[x];

  unsigned char *ddata;
  unsigned *dhist;
  CHECK(cudaMalloc(&ddata, n));
  CHECK(cudaMalloc(&dhist, kBins * sizeof(unsigned)));
  CHECK(cudaMemcpy(ddata, data.data(), n, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dhist, 0, kBins * sizeof(unsigned)));
  histogram256<<<blocks, kThreads>>>(ddata, n, dhist);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(got.data(), dhist, kBins * sizeof(unsigned), cudaMemcpyDeviceToHost));

  int mismatches = 0, peak = 0;
  unsigned long long total = 0;
  for (int b = 0; b < kBins; ++b) {
    mismatches += got[b] != want[b];
    total += got[b];
    if (got[b] > got[peak])
      peak = b;
  }
  std::printf("histogram: %d bytes into %d bins, %d blocks; total %llu, peak bin %d (%u), "
              "bins 0/64/255 = %u/%u/%u, %d mismatching bins\n",
              n, kBins, blocks, total, peak, got[peak], got[0], got[64], got[255], mismatches);
  CHECK(cudaFree(ddata));
  CHECK(cudaFree(dhist));
  return report("histogram", mismatches == 0);
}

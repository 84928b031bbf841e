// ptxsim sample: tiled matrix multiply C = A * B. Each 16x16 block computes a 16x16 tile of C,
// staging matching 16x16 tiles of A and B through shared memory so every element loaded from
// global memory is reused 16 times. The sizes are deliberately not multiples of the tile.

#include "../common/sample.h"
#include <cmath>
#include <vector>

constexpr int kTile = 16;

__global__ void matmulTiled(const float *a, const float *b, float *c, int m, int k, int n) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  int row = blockIdx.y * kTile + threadIdx.y;
  int col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < k; t += kTile) {
    int ac = t + threadIdx.x, br = t + threadIdx.y;
    as[threadIdx.y][threadIdx.x] = row < m && ac < k ? a[row * k + ac] : 0.0f;
    bs[threadIdx.y][threadIdx.x] = br < k && col < n ? b[br * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kTile; ++i)
      acc += as[threadIdx.y][i] * bs[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n)
    c[row * n + col] = acc;
}

int main() {
  const int m = 240, k = 200, n = 264;
  std::vector<float> a(m * k), b(k * n), c(m * n);
  Rng rng(2024);
  for (float &x : a)
    x = rng.uniform(-1.0f, 1.0f);
  for (float &x : b)
    x = rng.uniform(-1.0f, 1.0f);

  float *da, *db, *dc;
  CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
  CHECK(cudaMalloc(&db, b.size() * sizeof(float)));
  CHECK(cudaMalloc(&dc, c.size() * sizeof(float)));
  CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(kTile, kTile), grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
  matmulTiled<<<grid, block>>>(da, db, dc, m, k, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost));

  // Host reference in double; the GPU sums in float (with fused multiply-adds), so compare with
  // a tolerance scaled by the length of the dot products.
  double maxErr = 0, trace = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double want = 0;
      for (int p = 0; p < k; ++p)
        want += static_cast<double>(a[i * k + p]) * b[p * n + j];
      maxErr = std::fmax(maxErr, std::fabs(want - c[i * n + j]));
      if (i == j)
        trace += c[i * n + j];
    }
  bool ok = maxErr < 1e-4;
  std::printf("matmul: C[%dx%d] = A[%dx%d] * B[%dx%d], %dx%d blocks of %dx%d threads, "
              "trace(C) = %.4f, max |error| = %.2e\n",
              m, n, m, k, k, n, grid.x, grid.y, kTile, kTile, trace, maxErr);
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  return report("matmul", ok);
}

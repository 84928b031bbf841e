// ptxsim sample: Jacobi iterations of the 2D 5-point Laplace stencil on a square plate whose top
// edge is held at 1 and other edges at 0. Each 16x16 block loads its tile plus a one-cell halo
// into shared memory, and every interior point becomes the mean of its four neighbours. Two
// buffers alternate between iterations.

#include "../common/sample.h"
#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

constexpr int kBlock = 16;

__global__ void jacobiStep(const float *in, float *out, int n) {
  __shared__ float tile[kBlock + 2][kBlock + 2];
  int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y * kBlock + threadIdx.y;
  int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
  bool inside = x < n && y < n;
  if (inside) {
    tile[ty][tx] = in[y * n + x];
    if (threadIdx.x == 0 && x > 0)
      tile[ty][0] = in[y * n + x - 1];
    if (threadIdx.x == kBlock - 1 && x + 1 < n)
      tile[ty][kBlock + 1] = in[y * n + x + 1];
    if (threadIdx.y == 0 && y > 0)
      tile[0][tx] = in[(y - 1) * n + x];
    if (threadIdx.y == kBlock - 1 && y + 1 < n)
      tile[kBlock + 1][tx] = in[(y + 1) * n + x];
  }
  __syncthreads();
  if (!inside)
    return;
  if (x == 0 || y == 0 || x == n - 1 || y == n - 1)
    out[y * n + x] = tile[ty][tx]; // fixed boundary
  else
    out[y * n + x] =
        0.25f * ((tile[ty][tx - 1] + tile[ty][tx + 1]) + (tile[ty - 1][tx] + tile[ty + 1][tx]));
}

int main() {
  // STENCIL_ITERATIONS: fewer launches (tools/correlate compares the first 20 with an H100's)
  const char *itersEnv = std::getenv("STENCIL_ITERATIONS");
  const int n = 40, iterations = itersEnv ? std::atoi(itersEnv) : 500;
  if (iterations < 1) {
    std::fprintf(stderr, "stencil: STENCIL_ITERATIONS='%s' is not a positive count\n", itersEnv);
    return 2;
  }
  std::vector<float> grid(n * n, 0.0f), got(n * n);
  for (int x = 0; x < n; ++x)
    grid[x] = 1.0f; // row 0 is the hot edge

  float *da, *db;
  CHECK(cudaMalloc(&da, n * n * sizeof(float)));
  CHECK(cudaMalloc(&db, n * n * sizeof(float)));
  CHECK(cudaMemcpy(da, grid.data(), n * n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, grid.data(), n * n * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(kBlock, kBlock), blocks((n + kBlock - 1) / kBlock, (n + kBlock - 1) / kBlock);
  for (int it = 0; it < iterations; ++it) {
    jacobiStep<<<blocks, block>>>(da, db, n);
    std::swap(da, db);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(got.data(), da, n * n * sizeof(float), cudaMemcpyDeviceToHost));

  // Host reference with the same float operations in the same order.
  std::vector<float> next(grid);
  for (int it = 0; it < iterations; ++it) {
    for (int y = 1; y < n - 1; ++y)
      for (int x = 1; x < n - 1; ++x)
        next[y * n + x] = 0.25f * ((grid[y * n + x - 1] + grid[y * n + x + 1]) +
                                   (grid[(y - 1) * n + x] + grid[(y + 1) * n + x]));
    std::swap(grid, next);
  }
  double maxErr = 0;
  for (int i = 0; i < n * n; ++i)
    maxErr = std::fmax(maxErr, std::fabs(static_cast<double>(got[i]) - grid[i]));
  std::printf("stencil: %d Jacobi iterations on a %dx%d plate, %dx%d blocks; u(centre) = %.6f, "
              "u(row 5, centre) = %.6f, max |error| = %.1e\n",
              iterations, n, n, blocks.x, blocks.y, got[(n / 2) * n + n / 2], got[5 * n + n / 2],
              maxErr);
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  return report("stencil", maxErr <= 1e-6);
}

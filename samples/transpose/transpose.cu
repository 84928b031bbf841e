// ptxsim sample: matrix transpose through a shared-memory tile. A 32x8 block moves a 32x32 tile:
// it reads rows of the input (coalesced), and writes rows of the output (coalesced) by reading
// the tile column-wise. The tile has 33 columns so that a column of it spans 32 different
// shared-memory banks.

#include "../common/sample.h"
#include <vector>

constexpr int kTile = 32;
constexpr int kRows = 8;

__global__ void transpose(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows)
    if (x < cols && y + j < rows)
      tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x; // output column = input row
  y = blockIdx.x * kTile + threadIdx.y; // output row = input column
  for (int j = 0; j < kTile; j += kRows)
    if (x < rows && y + j < cols)
      out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
  const int rows = 300, cols = 520;
  std::vector<float> in(rows * cols), out(rows * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      in[r * cols + c] = static_cast<float>(r * 1000 + c);

  float *din, *dout;
  CHECK(cudaMalloc(&din, in.size() * sizeof(float)));
  CHECK(cudaMalloc(&dout, out.size() * sizeof(float)));
  CHECK(cudaMemcpy(din, in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(kTile, kRows), grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  transpose<<<grid, block>>>(din, dout, rows, cols);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost));

  int mismatches = 0;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      mismatches += out[c * rows + r] != in[r * cols + c];
  std::printf("transpose: %dx%d -> %dx%d, %dx%d blocks of %dx%d threads; out[1][2] = %.0f "
              "(in[2][1]), %d mismatches\n",
              rows, cols, cols, rows, grid.x, grid.y, kTile, kRows, out[1 * rows + 2], mismatches);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  return report("transpose", mismatches == 0);
}

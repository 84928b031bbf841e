// ptxsim SPU sample (c): Jacobi iterations of the 2D heat (5-point Laplace) stencil on an n x n
// plate whose top edge is held at 1 and whose other edges are held at 0, on the SPU and, with
// --gpu, as the usual one-launch-per-step GPU code. Both are checked bit for bit against the CPU.
//
// The SPU lets data flow only north-west to south-east, but a Jacobi step needs all four
// neighbours. Skewing time into space fixes that: cell (y, x) at step t lives at (y + t, x + t),
// so every value a cell needs from step t - 1 lies north or west of it (or is itself). Each
// 16 x 16 block owns a fixed tile of the skewed plane and computes all its steps; per time step:
//  - even SPU step 2t: compute step t of the tile, send its two southmost rows south and its
//    two eastmost columns east;
//  - odd SPU step 2t+1: take the two rows from the north and the two columns from the west
//    (step t of the neighbours) and forward the 2 x 2 corner of the north rows east, because
//    the block to the south-east needs that corner of its north-west diagonal neighbour and the
//    CBs only link side neighbours.
// Global memory is read once (the initial plate) and written once (the result).
//
//   heat2d_spu [--gpu] [n [iterations]]   (defaults 48 40)

#include "../common/sample.h"
#include "spu.h"
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

constexpr int H = 16, W = 16;
constexpr unsigned kEastCorner = 2 * H * 4; ///< byte offset of the corner in the east CB

__global__ void jacobiSpu(const float *in, float *out, int n, int steps) {
  if (spu_role() == SPU_IU)
    return; // nothing enters from outside the skewed plane: edge cells never need it
  __shared__ float old[H + 2][W + 2]; // rows/columns 0..1 are the north/west halo
  int tx = threadIdx.x, ty = threadIdx.y;
  for (int i = ty * W + tx; i < (H + 2) * (W + 2); i += H * W)
    (&old[0][0])[i] = 0.0f;
  __syncthreads();
  int yp = blockIdx.y * H + ty, xp = blockIdx.x * W + tx; // skewed coordinates of my cell
  int ly = ty + 2, lx = tx + 2;
  for (int t = 0; t < steps; ++t) {
    int y = yp - t, x = xp - t;
    bool inside = y >= 0 && x >= 0 && y < n && x < n;
    float val;
    if (t == 0) {
      val = inside ? in[y * n + x] : 0.0f;
    } else {
      if (ty < 2 && tx < 2)
        old[ty][tx] = spu_cb_load_west<float>(kEastCorner + (ty * 2 + tx) * 4);
      __syncthreads();
      if (!inside)
        val = 0.0f;
      else if (y == 0 || x == 0 || y == n - 1 || x == n - 1)
        val = old[ly - 1][lx - 1]; // fixed edge: the same point one step earlier
      else
        val = 0.25f * ((old[ly - 1][lx - 2] + old[ly - 1][lx]) + (old[ly - 2][lx - 1] + old[ly][lx - 1]));
      __syncthreads();
    }
    old[ly][lx] = val;
    if (ty >= H - 2)
      spu_cb_store_south(((ty - (H - 2)) * W + tx) * 4, val);
    if (tx >= W - 2)
      spu_cb_store_east((ty * 2 + tx - (W - 2)) * 4, val);
    if (t == steps - 1) {
      if (inside)
        out[y * n + x] = val;
      break;
    }
    spu_block_sync();
    if (ty < 2) {
      float v = spu_cb_load_north<float>((ty * W + tx) * 4);
      old[ty][lx] = v;
      if (tx >= W - 2)
        spu_cb_store_east(kEastCorner + (ty * 2 + tx - (W - 2)) * 4, v);
    }
    if (tx < 2)
      old[ly][tx] = spu_cb_load_west<float>((ty * 2 + tx) * 4);
    spu_block_sync();
  }
}

/// One Jacobi step on the GPU: a 16 x 16 tile plus halo in shared memory.
__global__ void jacobiGpu(const float *in, float *out, int n) {
  __shared__ float tile[H + 2][W + 2];
  int x = blockIdx.x * W + threadIdx.x, y = blockIdx.y * H + threadIdx.y;
  int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
  bool inside = x < n && y < n;
  if (inside) {
    tile[ty][tx] = in[y * n + x];
    if (threadIdx.x == 0 && x > 0)
      tile[ty][0] = in[y * n + x - 1];
    if (threadIdx.x == W - 1 && x + 1 < n)
      tile[ty][W + 1] = in[y * n + x + 1];
    if (threadIdx.y == 0 && y > 0)
      tile[0][tx] = in[(y - 1) * n + x];
    if (threadIdx.y == H - 1 && y + 1 < n)
      tile[H + 1][tx] = in[(y + 1) * n + x];
  }
  __syncthreads();
  if (!inside)
    return;
  if (x == 0 || y == 0 || x == n - 1 || y == n - 1)
    out[y * n + x] = tile[ty][tx];
  else
    out[y * n + x] = 0.25f * ((tile[ty][tx - 1] + tile[ty][tx + 1]) + (tile[ty - 1][tx] + tile[ty + 1][tx]));
}

int main(int argc, char **argv) {
  bool gpu = argc > 1 && std::strcmp(argv[1], "--gpu") == 0;
  int a0 = gpu ? 2 : 1;
  int n = argc > a0 ? std::atoi(argv[a0]) : 48;
  int iters = argc > a0 + 1 ? std::atoi(argv[a0 + 1]) : 40;
  if (n < 3 || iters < 1) {
    std::printf("usage: heat2d_spu [--gpu] [n >= 3 [iterations >= 1]]\nFAIL\n");
    return 1;
  }
  std::vector<float> u(n * n, 0.0f), got(n * n);
  for (int x = 0; x < n; ++x)
    u[x] = 1.0f;
  float *da, *db;
  size_t bytes = sizeof(float) * n * n;
  CHECK(cudaMalloc(&da, bytes));
  CHECK(cudaMalloc(&db, bytes));
  CHECK(cudaMemcpy(da, u.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, u.data(), bytes, cudaMemcpyHostToDevice));
  if (gpu) {
    dim3 blocks((n + W - 1) / W, (n + H - 1) / H);
    for (int it = 0; it < iters; ++it) {
      jacobiGpu<<<blocks, dim3(W, H)>>>(da, db, n);
      std::swap(da, db);
    }
  } else {
    int steps = iters + 1; // time 0 is the initial plate
    int span = n + steps - 1;
    jacobiSpu<<<dim3((span + W - 1) / W, (span + H - 1) / H), dim3(W, H)>>>(da, db, n, steps);
    std::swap(da, db);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(got.data(), da, bytes, cudaMemcpyDeviceToHost));
  std::vector<float> next(u);
  for (int it = 0; it < iters; ++it) {
    for (int y = 1; y < n - 1; ++y)
      for (int x = 1; x < n - 1; ++x)
        next[y * n + x] = 0.25f * ((u[y * n + x - 1] + u[y * n + x + 1]) +
                                   (u[(y - 1) * n + x] + u[(y + 1) * n + x]));
    std::swap(u, next);
  }
  int bad = 0;
  for (int i = 0; i < n * n; ++i)
    bad += got[i] != u[i];
  std::printf("heat2d (%s) %dx%d, %d iterations: centre %.6f, %d cells differ from the CPU\n",
              gpu ? "GPU" : "SPU", n, n, iters, got[(n / 2) * n + n / 2], bad);
  return report("heat2d_spu", bad == 0);
}

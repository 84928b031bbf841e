// ptxsim SPU sample (c): explicit heat equation on a rod of n points (3-point stencil, both ends
// held fixed), many time steps, on the SPU and, with --gpu, one launch per step on the GPU.
// Checked bit for bit against the CPU.
//
// Cell x at step t lives at x + t in the skewed line, so what it needs from step t - 1 (x - 1,
// x, x + 1) lies at x + t - 2 .. x + t: all west of it or itself. Block b owns a fixed stretch of
// 128 skewed cells and sends its two eastmost values east each step; one SPU time step per
// time step. A 1D grid of blocks: with the option -spu_1d 1 the chain snakes through every SM of
// the grid (section 5); without it, each pass uses one row of SMs.
//
//   heat1d_spu [--gpu] [n [iterations]]   (defaults 2000 300)

#include "../common/sample.h"
#include "spu.h"
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

constexpr int W = 128;

__device__ __forceinline__ float heatPoint(float w, float c, float e) {
  // no FMA contraction, so the CPU gets the same bits
  return __fadd_rn(c, __fmul_rn(0.25f, __fsub_rn(__fadd_rn(w, e), __fmul_rn(2.0f, c))));
}

__global__ void heatSpu(const float *in, float *out, int n, int steps) {
  if (spu_role() == SPU_IU)
    return;
  __shared__ float old[W + 2]; // 0..1: the west halo
  int tx = threadIdx.x, lx = tx + 2;
  int xp = blockIdx.x * W + tx;
  if (tx < 2)
    old[tx] = 0.0f;
  for (int t = 0; t < steps; ++t) {
    int x = xp - t;
    bool inside = x >= 0 && x < n;
    float val;
    if (t == 0) {
      val = inside ? in[x] : 0.0f;
    } else {
      if (tx < 2)
        old[tx] = spu_cb_load_west<float>(tx * 4);
      __syncthreads();
      if (!inside)
        val = 0.0f;
      else if (x == 0 || x == n - 1)
        val = old[lx - 1];
      else
        val = heatPoint(old[lx - 2], old[lx - 1], old[lx]);
      __syncthreads();
    }
    old[lx] = val;
    if (tx >= W - 2)
      spu_cb_store_east((tx - (W - 2)) * 4, val);
    if (t == steps - 1) {
      if (inside)
        out[x] = val;
      break;
    }
    spu_block_sync();
  }
}

__global__ void heatGpu(const float *in, float *out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= n)
    return;
  out[x] = x == 0 || x == n - 1 ? in[x] : heatPoint(in[x - 1], in[x], in[x + 1]);
}

int main(int argc, char **argv) {
  bool gpu = argc > 1 && std::strcmp(argv[1], "--gpu") == 0;
  int a0 = gpu ? 2 : 1;
  int n = argc > a0 ? std::atoi(argv[a0]) : 2000;
  int iters = argc > a0 + 1 ? std::atoi(argv[a0 + 1]) : 300;
  if (n < 3 || iters < 1) {
    std::printf("usage: heat1d_spu [--gpu] [n >= 3 [iterations >= 1]]\nFAIL\n");
    return 1;
  }
  std::vector<float> u(n), got(n);
  for (int x = 0; x < n; ++x)
    u[x] = x < n / 4 ? 1.0f : 0.0f;
  u[n - 1] = 0.5f;
  float *da, *db;
  CHECK(cudaMalloc(&da, n * sizeof(float)));
  CHECK(cudaMalloc(&db, n * sizeof(float)));
  CHECK(cudaMemcpy(da, u.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, u.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  if (gpu) {
    for (int it = 0; it < iters; ++it) {
      heatGpu<<<(n + W - 1) / W, W>>>(da, db, n);
      std::swap(da, db);
    }
  } else {
    int steps = iters + 1;
    heatSpu<<<(n + steps - 1 + W - 1) / W, W>>>(da, db, n, steps);
    std::swap(da, db);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(got.data(), da, n * sizeof(float), cudaMemcpyDeviceToHost));
  std::vector<float> next(u);
  for (int it = 0; it < iters; ++it) {
    for (int x = 1; x < n - 1; ++x)
      next[x] = u[x] + 0.25f * ((u[x - 1] + u[x + 1]) - 2.0f * u[x]);
    std::swap(u, next);
  }
  int bad = 0;
  for (int i = 0; i < n; ++i)
    bad += got[i] != u[i];
  std::printf("heat1d (%s) %d points, %d iterations: u[n/4] %.6f, %d points differ from the CPU\n",
              gpu ? "GPU" : "SPU", n, iters, got[n / 4], bad);
  return report("heat1d_spu", bad == 0);
}

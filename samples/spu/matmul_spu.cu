// ptxsim SPU sample (b): the report's tiled matrix multiply written in CUDA with spu.h, built
// with PTX only (the SPU instructions are unknown to ptxas) and run with no hand editing.
//
// Block (bi, bj) computes tile (bi, bj) of C. A's tiles flow west to east and B's tiles north to
// south through the CBs: the west IU of block row i feeds A(i, k) at time step i + k, the north
// IU of block column j feeds B(k, j) at step j + k, so block (bi, bj) finds A(bi, k) in its west
// CB and B(k, bj) in its north CB at step bi + bj + 1 + k, multiplies them, and passes both on
// (east and south) for its neighbours' next step. South and east IUs have nothing to do.
//
//   matmul_spu [--gpu] [n [tile]]   (--gpu: the shared-memory kernel of matmul.cu instead)

#include "../common/sample.h"
#include "spu.h"
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void matmulSpu(const float *A, const float *B, float *C, int n, int T) {
  int tx = threadIdx.x, ty = threadIdx.y;
  int kt = (n + T - 1) / T;
  unsigned off = (ty * T + tx) * 4;
  if (spu_role() == SPU_IU) {
    int id = (int)spu_id();
    unsigned dir = spu_dir();
    if (dir == SPU_NORTH || dir == SPU_WEST) {
      for (int s = 0; s < id + kt; ++s) {
        int k = s - id;
        if (k >= 0) {
          if (dir == SPU_NORTH) {
            int r = k * T + ty, c = id * T + tx;
            spu_cb_store_south(off, r < n && c < n ? B[r * n + c] : 0.0f);
          } else {
            int r = id * T + ty, c = k * T + tx;
            spu_cb_store_east(off, r < n && c < n ? A[r * n + c] : 0.0f);
          }
        }
        spu_block_sync();
      }
    }
    return;
  }
  int bi = blockIdx.y, bj = blockIdx.x;
  int first = bi + bj + 1, steps = first + kt;
  float acc = 0.0f;
  for (int s = 0; s < steps; ++s) {
    if (s >= first) {
      for (int kk = 0; kk < T; ++kk)
        acc += __fmul_rn(spu_cb_load_west<float>((ty * T + kk) * 4),
                         spu_cb_load_north<float>((kk * T + tx) * 4));
      spu_cb_store_east(off, spu_cb_load_west<float>(off));
      spu_cb_store_south(off, spu_cb_load_north<float>(off));
    }
    if (s + 1 < steps)
      spu_block_sync();
  }
  int row = bi * T + ty, col = bj * T + tx;
  if (row < n && col < n)
    C[row * n + col] = acc;
}

/// The GPU version (as in matmul.cu), for the baselines.
__global__ void matmulGpu(const float *A, const float *B, float *C, int n, int T) {
  extern __shared__ float sh[];
  float *as = sh, *bs = sh + T * T;
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  int kt = (n + T - 1) / T;
  float acc = 0.0f;
  for (int k = 0; k < kt; ++k) {
    int ac = k * T + tx, br = k * T + ty;
    as[ty * T + tx] = row < n && ac < n ? A[row * n + ac] : 0.0f;
    bs[ty * T + tx] = br < n && col < n ? B[br * n + col] : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < T; ++kk)
      acc += __fmul_rn(as[ty * T + kk], bs[kk * T + tx]);
    __syncthreads();
  }
  if (row < n && col < n)
    C[row * n + col] = acc;
}

int main(int argc, char **argv) {
  bool gpu = argc > 1 && std::strcmp(argv[1], "--gpu") == 0;
  int a0 = gpu ? 2 : 1;
  int n = argc > a0 ? std::atoi(argv[a0]) : 192;
  int T = argc > a0 + 1 ? std::atoi(argv[a0 + 1]) : 16;
  if (n <= 0 || T <= 0 || T * T > 1024) {
    std::printf("usage: matmul_spu [--gpu] [n [tile]] with tile*tile <= 1024\nFAIL\n");
    return 1;
  }
  std::vector<float> a(n * n), b(n * n), c(n * n), ref(n * n);
  Rng rng(7);
  for (auto &v : a)
    v = rng.uniform(-1, 1);
  for (auto &v : b)
    v = rng.uniform(-1, 1);
  float *da, *db, *dc;
  size_t bytes = sizeof(float) * n * n;
  CHECK(cudaMalloc(&da, bytes));
  CHECK(cudaMalloc(&db, bytes));
  CHECK(cudaMalloc(&dc, bytes));
  CHECK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dc, 0, bytes));
  int tiles = (n + T - 1) / T;
  if (gpu)
    matmulGpu<<<dim3(tiles, tiles), dim3(T, T), 2 * T * T * sizeof(float)>>>(da, db, dc, n, T);
  else
    matmulSpu<<<dim3(tiles, tiles), dim3(T, T)>>>(da, db, dc, n, T);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < n; ++k)
        acc += a[i * n + k] * b[k * n + j];
      ref[i * n + j] = acc;
    }
  int bad = 0;
  for (int i = 0; i < n * n; ++i)
    bad += c[i] != ref[i];
  std::printf("matmul_spu (%s) %dx%d tile %d: %d of %d elements differ from the CPU\n",
              gpu ? "GPU" : "SPU", n, n, T, bad, n * n);
  return report("matmul_spu", bad == 0);
}

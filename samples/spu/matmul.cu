// ptxsim SPU sample (a): a normal CUDA program with a tiled matrix multiply C = A x B, as the
// SPU report's users started from. Run as is, it is the GPU baseline. Run with
// PTXSIM_PTX_OVERRIDE=samples/spu/matmul_spu.ptx (or `ptxsim run --ptx-override ...`) on a GPU
// with an SPU, the kernel is replaced by the hand-edited SPU version with the same name and
// parameters, and the program checks that version's result against the CPU in the same way.
//
//   matmul [n [tile]]   (defaults 192 16: the report's experiment)

#include "../common/sample.h"
#include <cmath>
#include <cstdlib>
#include <vector>

/// One T x T block per tile of C; A and B tiles staged in shared memory (2 * T * T floats of
/// dynamic shared memory). Edges beyond n read as zero.
__global__ void matmulTiled(const float *A, const float *B, float *C, int n, int T) {
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
      acc += __fmul_rn(as[ty * T + kk], bs[kk * T + tx]); // no FMA: bit-equal to the CPU
    __syncthreads();
  }
  if (row < n && col < n)
    C[row * n + col] = acc;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 192;
  int T = argc > 2 ? std::atoi(argv[2]) : 16;
  if (n <= 0 || T <= 0 || T * T > 1024) {
    std::printf("usage: matmul [n [tile]] with tile*tile <= 1024\nFAIL\n");
    return 1;
  }
  std::vector<float> a(n * n), b(n * n), c(n * n), ref(n * n);
  Rng rng(42);
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
  matmulTiled<<<dim3(tiles, tiles), dim3(T, T), 2 * T * T * sizeof(float)>>>(da, db, dc, n, T);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost));
  // CPU reference in the kernels' order: tile by tile, k ascending within a tile
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < n; ++k)
        acc += a[i * n + k] * b[k * n + j];
      ref[i * n + j] = acc;
    }
  double maxErr = 0;
  for (int i = 0; i < n * n; ++i)
    maxErr = std::fmax(maxErr, std::fabs(c[i] - ref[i]));
  std::printf("matmul %dx%d tile %d: max |C - CPU| = %.3g\n", n, n, T, maxErr);
  return report("matmul", maxErr == 0.0);
}

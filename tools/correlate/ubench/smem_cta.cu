// Per-CTA cycles of the shared-memory kernel classes of tools/correlate/kernels/smem_tiled.cu on
// a few CTAs: the same kernels, each CTA working as CTA `first + blockIdx` of the full grid of
// the correlation program (same loop counts, same data), so that one SM of a model runs what an
// SM of the GPU ran in a fraction of the time the full program takes to simulate. Compare
// cta_cycles_avg with the per-CTA figures of tools/hw/data/h200-2026-11-28-fidelity/log.txt.
//   nvcc -cudart shared -O2 -arch=sm_90 smem_cta.cu -o smem_cta
//   ./smem_cta KERNEL [CTAS]   (KERNEL: sgemm32 sgemm64 conv5 reduce256 wavefront hist64
//                               lds_ffma bar_loop_256 bar_loop_1024; CTAS: CTAs to launch, at
//                               most 4096, default the number an H100 SM holds at once in the
//                               full run; the full run's grid gives its kernel alone)
// Under ptxsim, give the model one SM so the CTAs share it as on the GPU (a config file with
// `-gpgpu_n_clusters 1` and `-gpgpu_n_cores_per_cluster 1` after the preset):
//   ptxsim run --config configs/h100.config --config configs/cold_caches.config
//     --config one_sm.config -- ./smem_cta sgemm64
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x)                                                                  \
  do {                                                                            \
    cudaError_t e_ = (x);                                                         \
    if (e_ != cudaSuccess) {                                                      \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)

__device__ long long g_cyc[4096];

__device__ __forceinline__ long long clk() {
  long long c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}
#define T0 long long t0_ = clk();
#define T1 if (threadIdx.x == 0 && threadIdx.y == 0) g_cyc[blockIdx.x] = clk() - t0_;

// The full run's CTA this one stands for: linear id first + blockIdx.x of a gx-wide grid.
struct VBlock {
  int x, y;
};
__device__ __forceinline__ VBlock vblock(int first, int gx) {
  int id = first + (int)blockIdx.x;
  return {id % gx, id / gx};
}

__global__ void sgemm32(const float *A, const float *B, float *C, int n, int first) {
  T0
  __shared__ float As[32][32], Bs[32][32];
  VBlock b = vblock(first, n / 32);
  int tx = threadIdx.x, ty = threadIdx.y, row = b.y * 32 + ty, col = b.x * 32 + tx;
  float acc = 0.f;
  for (int t = 0; t < n; t += 32) {
    As[ty][tx] = A[row * n + t + tx];
    Bs[ty][tx] = B[(t + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 32; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
  T1
}

__global__ void sgemm64(const float *A, const float *B, float *C, int n, int first) {
  T0
  __shared__ float As[16][64], Bs[16][64];
  VBlock b = vblock(first, n / 64);
  int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  int r0 = b.y * 64, c0 = b.x * 64;
  float acc[4][4] = {};
  for (int t = 0; t < n; t += 16) {
    for (int i = tid; i < 16 * 64; i += 256) {
      int k = i / 64, m = i % 64;
      As[k][m] = A[(r0 + m) * n + t + k];
      Bs[k][m] = B[(t + k) * n + c0 + m];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; ++k) {
      float a[4], bb[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) { a[i] = As[k][ty * 4 + i]; bb[i] = Bs[k][tx * 4 + i]; }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * bb[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) C[(r0 + ty * 4 + i) * n + c0 + tx * 4 + j] = acc[i][j];
  T1
}

__global__ void conv5(const float *in, const float *w, float *out, int n, int first) {
  T0
  __shared__ float tile[20][21];
  __shared__ float fw[25];
  VBlock b = vblock(first, n / 16);
  int tx = threadIdx.x, ty = threadIdx.y, x0 = b.x * 16 - 2, y0 = b.y * 16 - 2;
  if (ty * 16 + tx < 25) fw[ty * 16 + tx] = w[ty * 16 + tx];
  for (int i = ty * 16 + tx; i < 400; i += 256) {
    int yy = y0 + i / 20, xx = x0 + i % 20;
    tile[i / 20][i % 20] = (yy >= 0 && yy < n && xx >= 0 && xx < n) ? in[yy * n + xx] : 0.f;
  }
  __syncthreads();
  float s = 0.f;
#pragma unroll
  for (int dy = 0; dy < 5; ++dy)
#pragma unroll
    for (int dx = 0; dx < 5; ++dx) s += fw[dy * 5 + dx] * tile[ty + dy][tx + dx];
  out[(b.y * 16 + ty) * n + b.x * 16 + tx] = s;
  T1
}

__global__ void reduce256(const float *in, float *out, int n, int first, int grid) {
  T0
  const int BS = 256;
  __shared__ float sd[BS];
  int tid = threadIdx.x, blk = first + (int)blockIdx.x;
  float s = 0.f;
  // not unrolled, as in smem_tiled.cu: nvcc unrolls this loop by 4 when the stride comes from a
  // parameter (its PTX then has 8 loads per iteration) but not with smem_tiled's gridDim.x
#pragma unroll 1
  for (int i = blk * BS * 2 + tid; i < n; i += BS * 2 * grid) {
    s += in[i];
    if (i + BS < n) s += in[i + BS];
  }
  sd[tid] = s;
  __syncthreads();
  if (tid < 128) sd[tid] = s = s + sd[tid + 128];
  __syncthreads();
  if (tid < 64) sd[tid] = s = s + sd[tid + 64];
  __syncthreads();
  if (tid < 32) {
    volatile float *v = sd;
    v[tid] = s = s + v[tid + 32];
    v[tid] = s = s + v[tid + 16];
    v[tid] = s = s + v[tid + 8];
    v[tid] = s = s + v[tid + 4];
    v[tid] = s = s + v[tid + 2];
    v[tid] = s = s + v[tid + 1];
  }
  if (tid == 0) out[blk] = sd[0];
  T1
}

__global__ void wavefront(const int *seqA, const int *seqB, int *score, int first) {
  T0
  __shared__ int H[65][65];
  __shared__ int a[64], b[64];
  int tid = threadIdx.x, blk = first + (int)blockIdx.x, base = blk * 64;
  a[tid] = seqA[base + tid];
  b[tid] = seqB[base + tid];
  H[0][tid + 1] = -(tid + 1);
  H[tid + 1][0] = -(tid + 1);
  if (tid == 0) H[0][0] = 0;
  __syncthreads();
  for (int d = 0; d < 127; ++d) {
    int i = tid + 1, j = d - tid + 1;
    if (j >= 1 && j <= 64) {
      int m = H[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 1 : -1);
      int u = H[i - 1][j] - 1, l = H[i][j - 1] - 1;
      H[i][j] = max(m, max(u, l));
    }
    __syncthreads();
  }
  if (tid == 0) score[blk] = H[64][64];
  T1
}

__global__ void hist64(const unsigned *in, int n, unsigned *bins, int first, int grid) {
  T0
  __shared__ unsigned h[64];
  if (threadIdx.x < 64) h[threadIdx.x] = 0;
  __syncthreads();
  for (int i = (first + (int)blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += blockDim.x * grid)
    atomicAdd(&h[(in[i] >> 7) & 63], 1u);
  __syncthreads();
  if (threadIdx.x < 64) atomicAdd(&bins[threadIdx.x], h[threadIdx.x]);
  T1
}

__global__ void lds_ffma(int iters, float *out) {
  __shared__ float As[32][32], Bs[32][32];
  int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
  As[ty][tx] = tx * 0.25f;
  Bs[ty][tx] = ty * 0.5f;
  __syncthreads();
  T0
  float acc = 0.f;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < 32; ++k) acc += As[ty][k] * Bs[k][tx];
    acc *= 0.5f;
  }
  T1
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void bar_loop(int iters, float *out) {
  __shared__ float sm[1024];
  T0
  float v = threadIdx.x;
  for (int i = 0; i < iters; ++i) {
    sm[threadIdx.x] = v;
    __syncthreads();
    v += sm[(threadIdx.x + 33) % blockDim.x];
    __syncthreads();
  }
  T1
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s KERNEL [CTAS]\n", argv[0]);
    return 2;
  }
  const char *k = argv[1];
  int ctas = argc > 2 ? atoi(argv[2]) : 0;
  auto want = [&](const char *name, int resident, int full) {
    if (strcmp(k, name))
      return false;
    if (ctas <= 0)
      ctas = resident;
    if (ctas > full) {
      fprintf(stderr, "%s: at most %d CTAs (its full grid)\n", name, full);
      exit(2);
    }
    return true;
  };
  const int n = 512, m = 1024, rn = 1 << 22, rb = 264, wb = 528, hn = 1 << 21;
  float *A, *B, *C;
  CHECK(cudaMalloc(&A, n * n * 4));
  CHECK(cudaMalloc(&B, n * n * 4));
  CHECK(cudaMalloc(&C, m * m * 4));
  std::vector<float> h(m * m);
  for (int i = 0; i < n * n; ++i) h[i] = ((i * 7) % 13 - 6) * 0.125f;
  CHECK(cudaMemcpy(A, h.data(), n * n * 4, cudaMemcpyHostToDevice));
  for (int i = 0; i < n * n; ++i) h[i] = ((i * 5) % 11 - 5) * 0.25f;
  CHECK(cudaMemcpy(B, h.data(), n * n * 4, cudaMemcpyHostToDevice));
  float *big, *out;
  CHECK(cudaMalloc(&big, rn * 4));
  CHECK(cudaMalloc(&out, 64 * 1024 * 4));
  const int iters = 2048;
  if (want("sgemm32", 2, 256)) {
    sgemm32<<<ctas, dim3(32, 32)>>>(A, B, C, n, 0);
  } else if (want("sgemm64", 1, 64)) {
    sgemm64<<<ctas, 256>>>(A, B, C, n, 0);
  } else if (want("conv5", 8, 4096)) {
    for (int i = 0; i < m * m; ++i) h[i] = (i % 17) * 0.0625f;
    CHECK(cudaMemcpy(big, h.data(), m * m * 4, cudaMemcpyHostToDevice));
    conv5<<<ctas, dim3(16, 16)>>>(big, A, C, m, ctas + 327 <= 4096 ? 327 : 4096 - ctas); // (inner CTAs)
  } else if (want("reduce256", 2, 264)) {
    std::vector<float> r(rn);
    for (int i = 0; i < rn; ++i) r[i] = (i % 8) * 0.125f;
    CHECK(cudaMemcpy(big, r.data(), rn * 4, cudaMemcpyHostToDevice));
    reduce256<<<ctas, 256>>>(big, out, rn, 0, rb);
  } else if (want("wavefront", 4, 528)) {
    std::vector<int> s(wb * 64);
    for (int i = 0; i < wb * 64; ++i) s[i] = (i * 31 + 7) % 4;
    CHECK(cudaMemcpy(big, s.data(), wb * 64 * 4, cudaMemcpyHostToDevice));
    for (int i = 0; i < wb * 64; ++i) s[i] = (i * 17 + 3) % 4;
    CHECK(cudaMemcpy(C, s.data(), wb * 64 * 4, cudaMemcpyHostToDevice));
    wavefront<<<ctas, 64>>>((const int *)big, (const int *)C, (int *)out, 0);
  } else if (want("hist64", 2, 264)) {
    std::vector<unsigned> u(hn);
    for (int i = 0; i < hn; ++i) u[i] = (unsigned)i * 2654435761u;
    CHECK(cudaMemcpy(big, u.data(), hn * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(out, 0, 64 * 4));
    hist64<<<ctas, 512>>>((const unsigned *)big, hn, (unsigned *)out, 0, rb);
  } else if (want("lds_ffma", 1, 64)) {
    lds_ffma<<<ctas, 1024>>>(64, out);
  } else if (want("bar_loop_256", 1, 64)) {
    bar_loop<<<ctas, 256>>>(iters, out);
  } else if (want("bar_loop_1024", 1, 64)) {
    bar_loop<<<ctas, 1024>>>(iters / 2, out);
  } else {
    fprintf(stderr, "unknown kernel %s\n", k);
    return 2;
  }
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  static long long c[4096];
  CHECK(cudaMemcpyFromSymbol(c, g_cyc, sizeof c));
  double avg = 0;
  long long mx = 0;
  for (int i = 0; i < ctas; ++i) {
    avg += c[i];
    mx = c[i] > mx ? c[i] : mx;
  }
  printf("KERNEL %-14s ctas %4d cta_cycles_avg %10.1f max %8lld\n", k, ctas, avg / ctas, mx);
  return 0;
}

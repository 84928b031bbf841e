// Shared-memory tiled kernel classes for the correlation set (issue 31, item 1): a 32x32-tiled
// SGEMM, a register-blocked 64x64 SGEMM, a 5x5 convolution through a shared tile with halo, a
// 256-thread tree reduction with several elements per thread and a warp-unrolled tail, a
// Needleman-Wunsch-style anti-diagonal wavefront, a 64-bin shared histogram merged with global
// atomics, and microbenchmarks of shared-memory loads (latency, throughput with 1-, 2-, 4- and
// 32-way bank conflicts, loads feeding FMAs) and bar.sync with 256 and 1024 threads. Each kernel
// runs once (launch order below = the correlation data's launch index) and reports its cycles per
// CTA (%clock64) besides its result check. Build: nvcc -cudart shared -O2 -arch=sm_90.
#include <cstdio>
#include <cstdlib>
#include <cmath>
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
#define T1 if (threadIdx.x == 0 && threadIdx.y == 0) g_cyc[blockIdx.y * gridDim.x + blockIdx.x] = clk() - t0_;

// 1. 32x32 tiles, one output per thread (1024 threads).
__global__ void sgemm32(const float *A, const float *B, float *C, int n) {
  T0
  __shared__ float As[32][32], Bs[32][32];
  int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * 32 + ty, col = blockIdx.x * 32 + tx;
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

// 2. 64x64 tiles, 256 threads, 4x4 outputs per thread.
__global__ void sgemm64(const float *A, const float *B, float *C, int n) {
  T0
  __shared__ float As[16][64], Bs[16][64];
  int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  int r0 = blockIdx.y * 64, c0 = blockIdx.x * 64;
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
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) { a[i] = As[k][ty * 4 + i]; b[i] = Bs[k][tx * 4 + i]; }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) C[(r0 + ty * 4 + i) * n + c0 + tx * 4 + j] = acc[i][j];
  T1
}

// 3. 5x5 convolution, 16x16 outputs per CTA through a 20x20 shared tile.
__global__ void conv5(const float *in, const float *w, float *out, int n) {
  T0
  __shared__ float tile[20][21];
  __shared__ float fw[25];
  int tx = threadIdx.x, ty = threadIdx.y, x0 = blockIdx.x * 16 - 2, y0 = blockIdx.y * 16 - 2;
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
  out[(blockIdx.y * 16 + ty) * n + blockIdx.x * 16 + tx] = s;
  T1
}

// 4. Tree reduction: 256 threads, grid-stride loads, shared tree, warp-unrolled tail.
template <int BS>
__global__ void reduce(const float *in, float *out, int n) {
  T0
  __shared__ float sd[BS];
  int tid = threadIdx.x;
  float s = 0.f;
  for (int i = blockIdx.x * BS * 2 + tid; i < n; i += BS * 2 * gridDim.x) {
    s += in[i];
    if (i + BS < n) s += in[i + BS];
  }
  sd[tid] = s;
  __syncthreads();
  if (BS >= 256) { if (tid < 128) sd[tid] = s = s + sd[tid + 128]; __syncthreads(); }
  if (BS >= 128) { if (tid < 64) sd[tid] = s = s + sd[tid + 64]; __syncthreads(); }
  if (tid < 32) {
    volatile float *v = sd;
    v[tid] = s = s + v[tid + 32];
    v[tid] = s = s + v[tid + 16];
    v[tid] = s = s + v[tid + 8];
    v[tid] = s = s + v[tid + 4];
    v[tid] = s = s + v[tid + 2];
    v[tid] = s = s + v[tid + 1];
  }
  if (tid == 0) out[blockIdx.x] = sd[0];
  T1
}

// 5. Wavefront: each CTA scores a 64x64 block along anti-diagonals in shared memory.
__global__ void wavefront(const int *seqA, const int *seqB, int *score) {
  T0
  __shared__ int H[65][65];
  __shared__ int a[64], b[64];
  int tid = threadIdx.x, base = blockIdx.x * 64;
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
  if (tid == 0) score[blockIdx.x] = H[64][64];
  T1
}

// 6. 64-bin histogram: shared atomics per CTA, then merged with global atomics.
__global__ void hist64(const unsigned *in, int n, unsigned *bins) {
  T0
  __shared__ unsigned h[64];
  if (threadIdx.x < 64) h[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&h[(in[i] >> 7) & 63], 1u);
  __syncthreads();
  if (threadIdx.x < 64) atomicAdd(&bins[threadIdx.x], h[threadIdx.x]);
  T1
}

// 7-12. Microbenchmarks (one CTA per SM; per-CTA cycles / iterations in the output).
// lds_lat: one lane chases a pointer through shared memory.
__global__ void lds_lat(int iters, int *out) {
  __shared__ int nxt[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) nxt[i] = (i * 97 + 13) % 1024;
  __syncthreads();
  T0
  int p = 0;
  if (threadIdx.x == 0)
    for (int i = 0; i < iters; ++i) p = nxt[p];
  T1
  if (p == -1) out[0] = p;
}
// lds_tput<S>: 8 warps, each lane loads word lane*S (S=1: no conflict, 2: 2-way, 4: 4-way,
// 32: 32-way), 4 independent loads per iteration.
template <int S>
__global__ void lds_tput(int iters, float *out) {
  __shared__ float sm[32 * 32 * 4];
  for (int i = threadIdx.x; i < 32 * 32 * 4; i += blockDim.x) sm[i] = i * 0.5f;
  __syncthreads();
  T0
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int off = (lane * S) & 1023;
  for (int i = 0; i < iters; ++i) {
    int o = (off + ((i + w) & 3) * 1024);
    s0 += sm[o];
    s1 += sm[(o + 1024 * 1) & 4095];
    s2 += sm[(o + 1024 * 2) & 4095];
    s3 += sm[(o + 1024 * 3) & 4095];
  }
  T1
  out[blockIdx.x * blockDim.x + threadIdx.x] = s0 + s1 + s2 + s3;
}
// lds_ffma: a tile of 32x32 in shared, each thread does a dot product (loads feeding FMAs), like
// sgemm32's inner loop without the global loads.
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
// bar_loop: a store, bar.sync, a load of a neighbour's word, bar.sync, per iteration.
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

static std::vector<long long> cycles(int nb) {
  std::vector<long long> c(nb);
  CHECK(cudaMemcpyFromSymbol(c.data(), g_cyc, nb * sizeof(long long)));
  return c;
}
static void report(const char *name, int nb, double per, const char *unit) {
  std::vector<long long> c = cycles(nb);
  long long mx = 0;
  double avg = 0;
  for (long long v : c) { avg += v; mx = v > mx ? v : mx; }
  avg /= nb;
  printf("KERNEL %-14s ctas %4d cta_cycles_avg %10.1f max %8lld", name, nb, avg, mx);
  if (per > 0) printf("  %s %.3f", unit, avg / per);
  printf("\n");
}

int main() {
  int fails = 0;
  const int n = 512;
  std::vector<float> hA(n * n), hB(n * n);
  for (int i = 0; i < n * n; ++i) { hA[i] = ((i * 7) % 13 - 6) * 0.125f; hB[i] = ((i * 5) % 11 - 5) * 0.25f; }
  float *A, *B, *C;
  CHECK(cudaMalloc(&A, n * n * 4));
  CHECK(cudaMalloc(&B, n * n * 4));
  CHECK(cudaMalloc(&C, 1024 * 1024 * 4));
  CHECK(cudaMemcpy(A, hA.data(), n * n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(B, hB.data(), n * n * 4, cudaMemcpyHostToDevice));
  std::vector<float> hC(n * n);
  auto ref = [&](int r, int c) { double s = 0; for (int k = 0; k < n; ++k) s += (double)hA[r * n + k] * hB[k * n + c]; return s; };
  // 1
  sgemm32<<<dim3(n / 32, n / 32), dim3(32, 32)>>>(A, B, C, n);
  CHECK(cudaDeviceSynchronize());
  report("sgemm32", (n / 32) * (n / 32), 0, "");
  CHECK(cudaMemcpy(hC.data(), C, n * n * 4, cudaMemcpyDeviceToHost));
  for (int r = 0; r < n; r += 37) for (int c = 0; c < n; c += 41) if (fabs(hC[r * n + c] - ref(r, c)) > 1e-3) fails++;
  // 2
  sgemm64<<<dim3(n / 64, n / 64), 256>>>(A, B, C, n);
  CHECK(cudaDeviceSynchronize());
  report("sgemm64", (n / 64) * (n / 64), 0, "");
  CHECK(cudaMemcpy(hC.data(), C, n * n * 4, cudaMemcpyDeviceToHost));
  for (int r = 0; r < n; r += 37) for (int c = 0; c < n; c += 41) if (fabs(hC[r * n + c] - ref(r, c)) > 1e-3) fails++;
  // 3
  const int m = 1024;
  float *img, *w, *o;
  std::vector<float> himg(m * m), hw(25);
  for (int i = 0; i < m * m; ++i) himg[i] = (i % 17) * 0.0625f;
  for (int i = 0; i < 25; ++i) hw[i] = (i % 5 - 2) * 0.5f;
  CHECK(cudaMalloc(&img, m * m * 4));
  CHECK(cudaMalloc(&w, 25 * 4));
  CHECK(cudaMalloc(&o, m * m * 4));
  CHECK(cudaMemcpy(img, himg.data(), m * m * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(w, hw.data(), 25 * 4, cudaMemcpyHostToDevice));
  conv5<<<dim3(m / 16, m / 16), dim3(16, 16)>>>(img, w, o, m);
  CHECK(cudaDeviceSynchronize());
  report("conv5", (m / 16) * (m / 16) > 4096 ? 4096 : (m / 16) * (m / 16), 0, "");
  {
    std::vector<float> ho(m * m);
    CHECK(cudaMemcpy(ho.data(), o, m * m * 4, cudaMemcpyDeviceToHost));
    for (int y = 2; y < m - 2; y += 97) for (int x = 2; x < m - 2; x += 89) {
      double s = 0;
      for (int dy = 0; dy < 5; ++dy) for (int dx = 0; dx < 5; ++dx) s += hw[dy * 5 + dx] * himg[(y + dy - 2) * m + x + dx - 2];
      if (fabs(ho[y * m + x] - s) > 1e-3) fails++;
    }
  }
  // 4
  const int rn = 1 << 22, rb = 264;
  float *rin, *rout;
  CHECK(cudaMalloc(&rin, rn * 4));
  CHECK(cudaMalloc(&rout, rb * 4));
  std::vector<float> hr(rn);
  for (int i = 0; i < rn; ++i) hr[i] = (i % 8) * 0.125f;
  CHECK(cudaMemcpy(rin, hr.data(), rn * 4, cudaMemcpyHostToDevice));
  reduce<256><<<rb, 256>>>(rin, rout, rn);
  CHECK(cudaDeviceSynchronize());
  report("reduce256", rb, 0, "");
  {
    std::vector<float> ho(rb);
    CHECK(cudaMemcpy(ho.data(), rout, rb * 4, cudaMemcpyDeviceToHost));
    double s = 0;
    for (float v : ho) s += v;
    if (fabs(s - rn / 8 * 3.5) > 1.0) fails++;
  }
  // 5
  const int wb = 528;
  int *sa, *sb, *sc;
  std::vector<int> hs(wb * 64);
  for (int i = 0; i < wb * 64; ++i) hs[i] = (i * 31 + 7) % 4;
  CHECK(cudaMalloc(&sa, wb * 64 * 4));
  CHECK(cudaMalloc(&sb, wb * 64 * 4));
  CHECK(cudaMalloc(&sc, wb * 4));
  CHECK(cudaMemcpy(sa, hs.data(), wb * 64 * 4, cudaMemcpyHostToDevice));
  for (int i = 0; i < wb * 64; ++i) hs[i] = (i * 17 + 3) % 4;
  CHECK(cudaMemcpy(sb, hs.data(), wb * 64 * 4, cudaMemcpyHostToDevice));
  wavefront<<<wb, 64>>>(sa, sb, sc);
  CHECK(cudaDeviceSynchronize());
  report("wavefront", wb, 127, "cycles_per_diagonal");
  {
    std::vector<int> ho(wb), ha(wb * 64), hb(wb * 64);
    CHECK(cudaMemcpy(ho.data(), sc, wb * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ha.data(), sa, wb * 64 * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hb.data(), sb, wb * 64 * 4, cudaMemcpyDeviceToHost));
    for (int blk = 0; blk < wb; blk += 53) {
      static int H[65][65];
      for (int i = 0; i <= 64; ++i) { H[i][0] = -i; H[0][i] = -i; }
      for (int i = 1; i <= 64; ++i) for (int j = 1; j <= 64; ++j) {
        int mm = H[i - 1][j - 1] + (ha[blk * 64 + i - 1] == hb[blk * 64 + j - 1] ? 1 : -1);
        H[i][j] = std::max(mm, std::max(H[i - 1][j] - 1, H[i][j - 1] - 1));
      }
      if (H[64][64] != ho[blk]) fails++;
    }
  }
  // 6
  const int hn = 1 << 21;
  unsigned *hin, *bins;
  std::vector<unsigned> hh(hn);
  for (int i = 0; i < hn; ++i) hh[i] = (unsigned)i * 2654435761u;
  CHECK(cudaMalloc(&hin, hn * 4));
  CHECK(cudaMalloc(&bins, 64 * 4));
  CHECK(cudaMemcpy(hin, hh.data(), hn * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(bins, 0, 64 * 4));
  hist64<<<264, 512>>>(hin, hn, bins);
  CHECK(cudaDeviceSynchronize());
  report("hist64", 264, 0, "");
  {
    std::vector<unsigned> hb(64), want(64, 0);
    CHECK(cudaMemcpy(hb.data(), bins, 64 * 4, cudaMemcpyDeviceToHost));
    for (unsigned v : hh) want[(v >> 7) & 63]++;
    for (int i = 0; i < 64; ++i) if (hb[i] != want[i]) fails++;
  }
  // 7-12: microbenchmarks, one CTA per SM
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  float *mo;
  int *io;
  CHECK(cudaMalloc(&mo, sms * 1024 * 4));
  CHECK(cudaMalloc(&io, 4));
  const int it = 2048;
  lds_lat<<<sms, 32>>>(it, io);
  CHECK(cudaDeviceSynchronize());
  report("lds_lat", sms, it, "cycles_per_load");
  lds_tput<1><<<sms, 256>>>(it, mo);
  CHECK(cudaDeviceSynchronize());
  report("lds_tput_1way", sms, it * 4.0 * 8, "cycles_per_warp_load");
  lds_tput<2><<<sms, 256>>>(it, mo);
  CHECK(cudaDeviceSynchronize());
  report("lds_tput_2way", sms, it * 4.0 * 8, "cycles_per_warp_load");
  lds_tput<4><<<sms, 256>>>(it, mo);
  CHECK(cudaDeviceSynchronize());
  report("lds_tput_4way", sms, it * 4.0 * 8, "cycles_per_warp_load");
  lds_tput<32><<<sms, 256>>>(it / 4, mo);
  CHECK(cudaDeviceSynchronize());
  report("lds_tput_32way", sms, it / 4 * 4.0 * 8, "cycles_per_warp_load");
  lds_ffma<<<sms, 1024>>>(64, mo);
  CHECK(cudaDeviceSynchronize());
  report("lds_ffma", sms, 64 * 32.0 * 32, "cycles_per_warp_lds_pair_ffma");
  bar_loop<<<sms, 256>>>(it, mo);
  CHECK(cudaDeviceSynchronize());
  report("bar_loop_256", sms, it * 2.0, "cycles_per_barrier");
  bar_loop<<<sms, 1024>>>(it / 2, mo);
  CHECK(cudaDeviceSynchronize());
  report("bar_loop_1024", sms, it, "cycles_per_barrier");
  if (fails) { printf("FAIL smem_tiled (%d checks)\n", fails); return 1; }
  printf("PASS smem_tiled\n");
  return 0;
}

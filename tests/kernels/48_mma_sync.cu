// ptxsim test kernel: mma_sync
// Self-checking: prints PASS mma_sync / FAIL mma_sync.
//
// Warp-level matrix instructions through inline PTX, with fragments built by each lane from
// the layouts the PTX ISA manual gives per shape (groupID = lane >> 2, tig = lane % 4):
//   - a 32x16x32 f16 GEMM: ldmatrix.x4 (A), ldmatrix.x2.trans (B, stored K x N), m16n8k16 f32
//   - m16n8k8 f16 with f16 accumulators, m16n8k16 bf16, m16n8k8 tf32, m8n8k4 f64
//   - m16n8k32 s8 .satfinite (saturating) and m16n8k16 u8 x s8
//   - movmatrix, ldmatrix.x1/.x2.trans, and stmatrix.x2(.trans) (sm_90)
// Every value is a small integer, so all results are exact whatever the summation order.
// Guarded by __CUDA_ARCH__ >= 800 (stmatrix: >= 900) with scalar fallbacks.
#include <cstdint>
#include <cstring>
static const char* kName = "mma_sync";
#include <cstdio>
#include <cstdlib>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "test_common.h"

typedef unsigned short u16;

__device__ __host__ inline unsigned pack2(u16 lo, u16 hi) { return lo | ((unsigned)hi << 16); }
__device__ inline float h2f(u16 b) { return __half2float(__ushort_as_half(b)); }
__device__ inline u16 f2h(float f) { return __half_as_ushort(__float2half_rn(f)); }
__device__ __host__ inline float bf2f(u16 b) {
    unsigned u = (unsigned)b << 16; float f; memcpy(&f, &u, 4); return f;
}
__device__ inline unsigned pack4(const unsigned char* p0, int stride) {
    return p0[0] | (p0[stride] << 8) | (p0[2 * stride] << 16) | ((unsigned)p0[3 * stride] << 24);
}

// ---- 32x16x32 f16 GEMM with ldmatrix + mma.m16n8k16: D = A (32x32) * B (32x16) + C ----------
#define GM 32
#define GN 16
#define GK 32
__global__ void gemm_ldmatrix(const u16* A, const u16* B, const float* C, float* D) {
    int warp = threadIdx.x / 32, l = threadIdx.x & 31;
    int tm = warp / 2, tn = warp % 2;  // 2 x 2 tiles of 16 x 8
#if __CUDA_ARCH__ >= 800
    int g = l >> 2, t = l & 3;
    __shared__ __align__(16) u16 sA[4][16 * 16];
    __shared__ __align__(16) u16 sB[4][16 * 8];
    float c[4];
    for (int i = 0; i < 4; ++i) c[i] = C[(tm * 16 + g + 8 * (i >> 1)) * GN + tn * 8 + 2 * t + (i & 1)];
    for (int k0 = 0; k0 < GK; k0 += 16) {
        for (int e = l; e < 256; e += 32) sA[warp][e] = A[(tm * 16 + e / 16) * GK + k0 + e % 16];
        for (int e = l; e < 128; e += 32) sB[warp][e] = B[(k0 + e / 8) * GN + tn * 8 + e % 8];
        __syncwarp();
        // A: matrix q = l / 8 covers rows 8 * (q % 2).., columns 8 * (q / 2)..
        int q = l / 8;
        unsigned aAddr = (unsigned)__cvta_generic_to_shared(&sA[warp][(l % 8 + 8 * (q % 2)) * 16 + 8 * (q / 2)]);
        // B (K x N rows of 8): lanes 0-15 give k-rows 0-15; .trans turns them into columns
        unsigned bAddr = (unsigned)__cvta_generic_to_shared(&sB[warp][(l % 16) * 8]);
        unsigned a0, a1, a2, a3, b0, b1;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(aAddr));
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                     : "=r"(b0), "=r"(b1) : "r"(bAddr));
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                     "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        __syncwarp();
    }
    for (int i = 0; i < 4; ++i) D[(tm * 16 + g + 8 * (i >> 1)) * GN + tn * 8 + 2 * t + (i & 1)] = c[i];
#else
    for (int e = l; e < 128; e += 32) {
        int r = tm * 16 + e / 8, col = tn * 8 + e % 8;
        float s = C[r * GN + col];
        for (int k = 0; k < GK; ++k) s += h2f(A[r * GK + k]) * h2f(B[k * GN + col]);
        D[r * GN + col] = s;
    }
#endif
}

// ---- m16n8k8 f16 x f16 + f16 -> f16 (A 16x8, B 8x8, C/D 16x8, raw f16 bits) --------------------
__global__ void mma_f16acc(const u16* A, const u16* B, const u16* C, u16* D) {
    int l = threadIdx.x & 31;
#if __CUDA_ARCH__ >= 800
    int g = l >> 2, t = l & 3;
    unsigned a0 = pack2(A[g * 8 + 2 * t], A[g * 8 + 2 * t + 1]);
    unsigned a1 = pack2(A[(g + 8) * 8 + 2 * t], A[(g + 8) * 8 + 2 * t + 1]);
    unsigned b0 = pack2(B[(2 * t) * 8 + g], B[(2 * t + 1) * 8 + g]);
    unsigned c0 = pack2(C[g * 8 + 2 * t], C[g * 8 + 2 * t + 1]);
    unsigned c1 = pack2(C[(g + 8) * 8 + 2 * t], C[(g + 8) * 8 + 2 * t + 1]);
    unsigned d0, d1;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3}, {%4}, {%5, %6};"
                 : "=r"(d0), "=r"(d1) : "r"(a0), "r"(a1), "r"(b0), "r"(c0), "r"(c1));
    D[g * 8 + 2 * t] = (u16)d0; D[g * 8 + 2 * t + 1] = (u16)(d0 >> 16);
    D[(g + 8) * 8 + 2 * t] = (u16)d1; D[(g + 8) * 8 + 2 * t + 1] = (u16)(d1 >> 16);
#else
    for (int e = l; e < 128; e += 32) {
        int i = e / 8, j = e % 8;
        float s = h2f(C[e]);
        for (int k = 0; k < 8; ++k) s += h2f(A[i * 8 + k]) * h2f(B[k * 8 + j]);
        D[e] = f2h(s);
    }
#endif
}

// ---- m16n8k16 bf16 -> f32 (A 16x16, B 16x8, C/D 16x8) ------------------------------------------
__global__ void mma_bf16(const u16* A, const u16* B, const float* C, float* D) {
    int l = threadIdx.x & 31;
#if __CUDA_ARCH__ >= 800
    int g = l >> 2, t = l & 3;
    unsigned a[4], b[2];
    for (int r = 0; r < 4; ++r) {  // a[r] holds a(2r), a(2r+1)
        int row = g + 8 * (r & 1), col = 2 * t + 8 * (r >> 1);
        a[r] = pack2(A[row * 16 + col], A[row * 16 + col + 1]);
    }
    for (int r = 0; r < 2; ++r) b[r] = pack2(B[(2 * t + 8 * r) * 8 + g], B[(2 * t + 8 * r + 1) * 8 + g]);
    float c[4];
    for (int i = 0; i < 4; ++i) c[i] = C[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    for (int i = 0; i < 4; ++i) D[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = c[i];
#else
    for (int e = l; e < 128; e += 32) {
        int i = e / 8, j = e % 8;
        float s = C[e];
        for (int k = 0; k < 16; ++k) s += bf2f(A[i * 16 + k]) * bf2f(B[k * 8 + j]);
        D[e] = s;
    }
#endif
}

// ---- m16n8k8 tf32 -> f32 (A 16x8, B 8x8, C/D 16x8) ---------------------------------------------
__global__ void mma_tf32(const float* A, const float* B, const float* C, float* D) {
    int l = threadIdx.x & 31;
#if __CUDA_ARCH__ >= 800
    int g = l >> 2, t = l & 3;
    unsigned a0 = __float_as_uint(A[g * 8 + t]), a1 = __float_as_uint(A[(g + 8) * 8 + t]);
    unsigned a2 = __float_as_uint(A[g * 8 + t + 4]), a3 = __float_as_uint(A[(g + 8) * 8 + t + 4]);
    unsigned b0 = __float_as_uint(B[t * 8 + g]), b1 = __float_as_uint(B[(t + 4) * 8 + g]);
    float c[4];
    for (int i = 0; i < 4; ++i) c[i] = C[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    for (int i = 0; i < 4; ++i) D[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = c[i];
#else
    for (int e = l; e < 128; e += 32) {
        int i = e / 8, j = e % 8;
        float s = C[e];
        for (int k = 0; k < 8; ++k) s += A[i * 8 + k] * B[k * 8 + j];
        D[e] = s;
    }
#endif
}

// ---- m8n8k4 f64 (A 8x4, B 4x8, C/D 8x8) ---------------------------------------------------------
__global__ void mma_f64(const double* A, const double* B, const double* C, double* D) {
    int l = threadIdx.x & 31;
#if __CUDA_ARCH__ >= 800
    int g = l >> 2, t = l & 3;
    double a0 = A[g * 4 + t], b0 = B[t * 8 + g], c0 = C[g * 8 + 2 * t], c1 = C[g * 8 + 2 * t + 1];
    double d0, d1;
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%4, %5};"
                 : "=d"(d0), "=d"(d1) : "d"(a0), "d"(b0), "d"(c0), "d"(c1));
    D[g * 8 + 2 * t] = d0; D[g * 8 + 2 * t + 1] = d1;
#else
    for (int e = l; e < 64; e += 32) {
        int i = e / 8, j = e % 8;
        double s = C[e];
        for (int k = 0; k < 4; ++k) s += A[i * 4 + k] * B[k * 8 + j];
        D[e] = s;
    }
#endif
}

// ---- m16n8k32 s8 x s8 .satfinite, m16n8k16 u8 x s8 (wrapping cannot happen with these values) ---
__global__ void mma_int8(const signed char* A, const signed char* B, const int* C, int* D,
                         const unsigned char* A2, const signed char* B2, int* D2) {
    int l = threadIdx.x & 31;
#if __CUDA_ARCH__ >= 800
    int g = l >> 2, t = l & 3;
    const unsigned char* ua = (const unsigned char*)A;
    const unsigned char* ub = (const unsigned char*)B;
    unsigned a[4], b[2];
    for (int r = 0; r < 4; ++r) a[r] = pack4(ua + (g + 8 * (r & 1)) * 32 + 4 * t + 16 * (r >> 1), 1);
    for (int r = 0; r < 2; ++r) b[r] = pack4(ub + (4 * t + 16 * r) * 8 + g, 8);
    int c[4];
    for (int i = 0; i < 4; ++i) c[i] = C[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)];
    asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    for (int i = 0; i < 4; ++i) D[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = c[i];
    const unsigned char* ub2 = (const unsigned char*)B2;
    unsigned e0 = pack4(A2 + g * 16 + 4 * t, 1), e1 = pack4(A2 + (g + 8) * 16 + 4 * t, 1);
    unsigned f0 = pack4(ub2 + (4 * t) * 8 + g, 8);
    int d[4] = {0, 0, 0, 0};
    asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
                 "{%0, %1, %2, %3};"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]) : "r"(e0), "r"(e1), "r"(f0));
    for (int i = 0; i < 4; ++i) D2[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = d[i];
#else
    for (int e = l; e < 128; e += 32) {
        int i = e / 8, j = e % 8;
        int p = 0;  // |p| < 2^20; C is added in 64 bits (nvcc turns this loop into dp4a)
        for (int k = 0; k < 32; ++k) p += A[i * 32 + k] * B[k * 8 + j];
        long long s = (long long)C[e] + p;
        D[e] = s > 2147483647LL ? 2147483647 : s < -2147483647LL - 1 ? (int)(-2147483647LL - 1) : (int)s;
        long long s2 = 0;
        for (int k = 0; k < 16; ++k) s2 += A2[i * 16 + k] * B2[k * 8 + j];
        D2[e] = (int)s2;
    }
#endif
}

// ---- movmatrix, ldmatrix.x1 / .x2.trans, stmatrix.x2 / .x2.trans on 8x8 b16 matrices ------------
// X is two 8x8 matrices (128 values). out: [0,64) movmatrix(X0), [64,192) ldmatrix.x2.trans of
// X0, X1 (row-major each), [192,256) ldmatrix.x1 of X1, [256,512) stmatrix.x2 then .x2.trans of
// the fragments of X0, X1 as stored to shared memory.
__global__ void matrix_moves(const u16* X, u16* out) {
    __shared__ __align__(16) u16 st[2][128];
    int l = threadIdx.x & 31;
#if __CUDA_ARCH__ >= 800
    __shared__ __align__(16) u16 s[128];
    int g = l >> 2, t = l & 3;
    for (int e = l; e < 128; e += 32) s[e] = X[e];
    __syncwarp();
    unsigned x0 = pack2(X[g * 8 + 2 * t], X[g * 8 + 2 * t + 1]);
    unsigned x1 = pack2(X[64 + g * 8 + 2 * t], X[64 + g * 8 + 2 * t + 1]);
    unsigned y;
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(y) : "r"(x0));
    out[g * 8 + 2 * t] = (u16)y; out[g * 8 + 2 * t + 1] = (u16)(y >> 16);
    unsigned r0, r1, r2;
    unsigned addr = (unsigned)__cvta_generic_to_shared(&s[(l % 16) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(addr));
    out[64 + g * 8 + 2 * t] = (u16)r0; out[64 + g * 8 + 2 * t + 1] = (u16)(r0 >> 16);
    out[128 + g * 8 + 2 * t] = (u16)r1; out[128 + g * 8 + 2 * t + 1] = (u16)(r1 >> 16);
    unsigned addr1 = (unsigned)__cvta_generic_to_shared(&s[64 + (l % 8) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r2) : "r"(addr1));
    out[192 + g * 8 + 2 * t] = (u16)r2; out[192 + g * 8 + 2 * t + 1] = (u16)(r2 >> 16);
#if __CUDA_ARCH__ >= 900
    unsigned sa = (unsigned)__cvta_generic_to_shared(&st[0][(l % 16) * 8]);
    unsigned sb = (unsigned)__cvta_generic_to_shared(&st[1][(l % 16) * 8]);
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" :: "r"(sa), "r"(x0), "r"(x1) : "memory");
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" :: "r"(sb), "r"(x0), "r"(x1) : "memory");
#else
    for (int e = l; e < 128; e += 32) {
        int m = e / 64, i = (e / 8) % 8, j = e % 8;
        st[0][e] = X[e];
        st[1][e] = X[m * 64 + j * 8 + i];
    }
#endif
    __syncwarp();
    for (int e = l; e < 256; e += 32) out[256 + e] = st[e / 128][e % 128];
#else
    for (int e = l; e < 64; e += 32) out[e] = X[(e % 8) * 8 + e / 8];
    for (int e = l; e < 128; e += 32) out[64 + e] = X[(e / 64) * 64 + (e % 8) * 8 + (e / 8) % 8];
    for (int e = l; e < 64; e += 32) out[192 + e] = X[64 + e];
    for (int e = l; e < 128; e += 32) {
        int m = e / 64, i = (e / 8) % 8, j = e % 8;
        st[0][e] = X[e];
        st[1][e] = X[m * 64 + j * 8 + i];
    }
    __syncwarp();
    for (int e = l; e < 256; e += 32) out[256 + e] = st[e / 128][e % 128];
#endif
}

// ---- host -----------------------------------------------------------------------------------
static u16 hf(float f) { __half h = __float2half(f); u16 b; memcpy(&b, &h, 2); return b; }
static float fh(u16 b) { __half h; memcpy(&h, &b, 2); return __half2float(h); }
static u16 bf(float f) { unsigned u; memcpy(&u, &f, 4); return (u16)(u >> 16); }  // exact values only

template <class T> static T* dev(const T* h, size_t n) {
    T* d; CK(cudaMalloc(&d, n * sizeof(T)));
    if (h) CK(cudaMemcpy(d, h, n * sizeof(T), cudaMemcpyHostToDevice));
    else CK(cudaMemset(d, 0, n * sizeof(T)));
    return d;
}
template <class T> static void get(T* h, const T* d, size_t n) {
    CK(cudaMemcpy(h, d, n * sizeof(T), cudaMemcpyDeviceToHost));
}
static int v(int i, int a, int m) { return (i * a) % m - m / 2; }  // small signed integers

int main() {
    // GEMM
    {
        static u16 A[GM * GK], B[GK * GN]; static float C[GM * GN], D[GM * GN];
        for (int i = 0; i < GM * GK; ++i) A[i] = hf((float)v(i, 7, 9));
        for (int i = 0; i < GK * GN; ++i) B[i] = hf((float)v(i, 5, 7));
        for (int i = 0; i < GM * GN; ++i) C[i] = (float)v(i, 3, 13) * 0.5f;
        u16 *dA = dev(A, GM * GK), *dB = dev(B, GK * GN); float *dC = dev(C, GM * GN), *dD = dev<float>(nullptr, GM * GN);
        gemm_ldmatrix<<<1, 128>>>(dA, dB, dC, dD);
        CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
        get(D, dD, GM * GN);
        for (int i = 0; i < GM; ++i)
            for (int j = 0; j < GN; ++j) {
                double s = C[i * GN + j];
                for (int k = 0; k < GK; ++k) s += (double)fh(A[i * GK + k]) * fh(B[k * GN + j]);
                EXPECT(D[i * GN + j] == (float)s, "gemm D[%d][%d]=%f expected %f", i, j, D[i * GN + j], s);
            }
        cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dD);
    }
    // f16 accumulators
    {
        u16 A[128], B[64], C[128], D[128];
        for (int i = 0; i < 128; ++i) { A[i] = hf((float)v(i, 5, 9)); C[i] = hf((float)v(i, 11, 17) * 0.25f); }
        for (int i = 0; i < 64; ++i) B[i] = hf((float)v(i, 3, 7));
        u16 *dA = dev(A, 128), *dB = dev(B, 64), *dC = dev(C, 128), *dD = dev<u16>(nullptr, 128);
        mma_f16acc<<<1, 32>>>(dA, dB, dC, dD);
        CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
        get(D, dD, 128);
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 8; ++j) {
                double s = fh(C[i * 8 + j]);
                for (int k = 0; k < 8; ++k) s += (double)fh(A[i * 8 + k]) * fh(B[k * 8 + j]);
                EXPECT(fh(D[i * 8 + j]) == (float)s, "f16acc D[%d][%d]=%f expected %f", i, j, fh(D[i * 8 + j]), s);
            }
        cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dD);
    }
    // bf16
    {
        u16 A[256], B[128]; float C[128], D[128];
        for (int i = 0; i < 256; ++i) A[i] = bf((float)v(i, 7, 11));
        for (int i = 0; i < 128; ++i) { B[i] = bf((float)v(i, 5, 9)); C[i] = (float)v(i, 3, 19); }
        u16 *dA = dev(A, 256), *dB = dev(B, 128); float *dC = dev(C, 128), *dD = dev<float>(nullptr, 128);
        mma_bf16<<<1, 32>>>(dA, dB, dC, dD);
        CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
        get(D, dD, 128);
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 8; ++j) {
                double s = C[i * 8 + j];
                for (int k = 0; k < 16; ++k) s += (double)bf2f(A[i * 16 + k]) * bf2f(B[k * 8 + j]);
                EXPECT(D[i * 8 + j] == (float)s, "bf16 D[%d][%d]=%f expected %f", i, j, D[i * 8 + j], s);
            }
        cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dD);
    }
    // tf32
    {
        float A[128], B[64], C[128], D[128];
        for (int i = 0; i < 128; ++i) { A[i] = (float)v(i, 5, 13) * 0.5f; C[i] = (float)v(i, 7, 23); }
        for (int i = 0; i < 64; ++i) B[i] = (float)v(i, 3, 11);
        float *dA = dev(A, 128), *dB = dev(B, 64), *dC = dev(C, 128), *dD = dev<float>(nullptr, 128);
        mma_tf32<<<1, 32>>>(dA, dB, dC, dD);
        CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
        get(D, dD, 128);
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 8; ++j) {
                double s = C[i * 8 + j];
                for (int k = 0; k < 8; ++k) s += (double)A[i * 8 + k] * B[k * 8 + j];
                EXPECT(D[i * 8 + j] == (float)s, "tf32 D[%d][%d]=%f expected %f", i, j, D[i * 8 + j], s);
            }
        cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dD);
    }
    // f64
    {
        double A[32], B[32], C[64], D[64];
        for (int i = 0; i < 32; ++i) { A[i] = v(i, 5, 9) * 0.125; B[i] = v(i, 3, 7) * 1024.0; }
        for (int i = 0; i < 64; ++i) C[i] = v(i, 7, 15) + 0.5;
        double *dA = dev(A, 32), *dB = dev(B, 32), *dC = dev(C, 64), *dD = dev<double>(nullptr, 64);
        mma_f64<<<1, 32>>>(dA, dB, dC, dD);
        CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
        get(D, dD, 64);
        for (int i = 0; i < 8; ++i)
            for (int j = 0; j < 8; ++j) {
                double s = C[i * 8 + j];
                for (int k = 0; k < 4; ++k) s += A[i * 4 + k] * B[k * 8 + j];
                EXPECT(D[i * 8 + j] == s, "f64 D[%d][%d]=%f expected %f", i, j, D[i * 8 + j], s);
            }
        cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dD);
    }
    // int8
    {
        signed char A[512], B[256], B2[128]; unsigned char A2[256]; int C[128], D[128], D2[128];
        for (int i = 0; i < 512; ++i) A[i] = (signed char)((i * 37) % 255 - 127);
        for (int i = 0; i < 256; ++i) { B[i] = (signed char)((i * 53) % 251 - 125); A2[i] = (unsigned char)((i * 29) % 256); }
        for (int i = 0; i < 128; ++i) {
            B2[i] = (signed char)((i * 13) % 200 - 100);
            C[i] = i % 3 == 0 ? 2147483647 - 1000 : i % 3 == 1 ? -2147483647 + 1000 : i * 1000;
        }
        signed char *dA = dev(A, 512), *dB = dev(B, 256), *dB2 = dev(B2, 128);
        unsigned char* dA2 = dev(A2, 256);
        int *dC = dev(C, 128), *dD = dev<int>(nullptr, 128), *dD2 = dev<int>(nullptr, 128);
        mma_int8<<<1, 32>>>(dA, dB, dC, dD, dA2, dB2, dD2);
        CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
        get(D, dD, 128); get(D2, dD2, 128);
        int saturated = 0;
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 8; ++j) {
                long long s = C[i * 8 + j], s2 = 0;
                for (int k = 0; k < 32; ++k) s += A[i * 32 + k] * B[k * 8 + j];
                for (int k = 0; k < 16; ++k) s2 += A2[i * 16 + k] * B2[k * 8 + j];
                long long want = s > 2147483647LL ? 2147483647LL : s < -2147483648LL ? -2147483648LL : s;
                saturated += want != s;
                EXPECT(D[i * 8 + j] == want, "s8 satfinite D[%d][%d]=%d expected %lld", i, j, D[i * 8 + j], want);
                EXPECT(D2[i * 8 + j] == s2, "u8.s8 D[%d][%d]=%d expected %lld", i, j, D2[i * 8 + j], s2);
            }
        EXPECT(saturated > 0, "no element saturated: the test data does not exercise .satfinite");
        cudaFree(dA); cudaFree(dB); cudaFree(dB2); cudaFree(dA2); cudaFree(dC); cudaFree(dD); cudaFree(dD2);
    }
    // movmatrix / ldmatrix / stmatrix
    {
        u16 X[128], out[512];
        for (int i = 0; i < 128; ++i) X[i] = (u16)(0x100 + i * 3);
        u16 *dX = dev(X, 128), *dO = dev<u16>(nullptr, 512);
        matrix_moves<<<1, 32>>>(dX, dO);
        CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
        get(out, dO, 512);
        for (int m = 0; m < 2; ++m)
            for (int i = 0; i < 8; ++i)
                for (int j = 0; j < 8; ++j) {
                    u16 x = X[m * 64 + i * 8 + j], xt = X[m * 64 + j * 8 + i];
                    if (m == 0) EXPECT(out[i * 8 + j] == xt, "movmatrix (%d,%d)=%x expected %x", i, j, out[i * 8 + j], xt);
                    EXPECT(out[64 + m * 64 + i * 8 + j] == xt, "ldmatrix.x2.trans m%d (%d,%d)", m, i, j);
                    if (m == 1) EXPECT(out[192 + i * 8 + j] == x, "ldmatrix.x1 (%d,%d)", i, j);
                    EXPECT(out[256 + m * 64 + i * 8 + j] == x, "stmatrix m%d (%d,%d)", m, i, j);
                    EXPECT(out[384 + m * 64 + i * 8 + j] == xt, "stmatrix.trans m%d (%d,%d)", m, i, j);
                }
        cudaFree(dX); cudaFree(dO);
    }
    return finish();
}

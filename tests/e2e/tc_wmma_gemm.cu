// ptxsim e2e: tiled GEMMs with nvcuda::wmma in every element type nvcc offers, against a CPU
// reference: D = A x B + C for matrices several tiles large, one warp per output tile looping
// over K.
//   - f16 inputs with f32 and f16 accumulators, shapes 16x16x16, 32x8x16 and 8x32x16
//   - bf16 (16x16x16, 32x8x16), tf32 (16x16x8, inputs rounded with __float_to_tf32) and f64
//     (8x8x4) on sm_80+
//   - s8 and u8 with int accumulators (16x16x16, 32x8x16, 8x32x16), with and without saturation
//   - the experimental sub-byte API: u4/s4 (8x8x32) and b1 (8x8x128, xor and and with popc)
//   - A and B row- and column-major, C loaded and D stored row- or column-major, every matrix
//     with a padded leading dimension (ldm) whose padding holds garbage
//   - tiles staged through shared memory (wmma.load/store on .shared), fill_fragment and an
//     elementwise op on an accumulator
// Small-integer inputs make every result exact whatever the summation order; random inputs
// are checked against a bound on the rounding error of a K-term f32 sum. Kernels whose types
// the target lacks run a scalar fallback with the same results.
#include <cstdint>
#include <cstring>
#include <cmath>
#include <type_traits>
#include <vector>
static const char *kName = "tc_wmma_gemm";
#include "../kernels/test_common.h"
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

#ifdef __CUDA_ARCH__
#define ARCH __CUDA_ARCH__
#else
#define ARCH 0
#endif

// ---- element conversions shared by host and device ------------------------------------------
// Fragment element types by tag: wmma::precision::tf32 only exists when compiling for sm_80+.
struct Tf32 {};  // tf32 fragments over float memory
template <class T> struct FragType { using type = T; };
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
template <> struct FragType<Tf32> { using type = wmma::precision::tf32; };
#endif
__device__ inline float toTf32(float x) {
#if __CUDA_ARCH__ >= 800
    return wmma::__float_to_tf32(x);
#else
    return x;
#endif
}

template <class T> __host__ __device__ double toD(T v) { return (double)v; }
template <> __host__ __device__ double toD(__half v) { return (double)__half2float(v); }
template <> __host__ __device__ double toD(__nv_bfloat16 v) { return (double)__bfloat162float(v); }
template <class T> __host__ __device__ T fromD(double v) { return (T)v; }
template <> __host__ __device__ __half fromD(double v) { return __float2half_rn((float)v); }
template <> __host__ __device__ __nv_bfloat16 fromD(double v) { return __float2bfloat16_rn((float)v); }

// tf32 rounding as cvt.rna.tf32.f32 does it: to nearest, ties away from zero, 10 mantissa bits.
__host__ __device__ float roundTf32(float f) {
    unsigned u;
    memcpy(&u, &f, 4);
    if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;
    memcpy(&f, &u, 4);
    return f;
}

// ---- the generic tiled GEMM -----------------------------------------------------------------
// A is M x K, B is K x N, C and D are M x N; a row-major matrix X has X(r, c) at X[r * ld + c],
// a column-major one at X[c * ld + r].
struct GemmArgs {
    int M, N, K, lda, ldb, ldc, ldd;
    bool cCol, dCol, scale;  // scale: D = 2 * (A x B + C), an elementwise op on the fragment
    bool satf;               // integer mma with saturation to the int range
};

template <class Lay> __host__ __device__ constexpr bool isRow() { return std::is_same<Lay, wmma::row_major>::value; }

template <class FragIn, class MemIn, class Acc, int TM, int TN, int TK, class LA, class LB, int MinArch>
__global__ void wmmaGemm(const MemIn *A, const MemIn *B, const Acc *C, Acc *D, GemmArgs g) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
    int tilesN = g.N / TN, tm = warp / tilesN, tn = warp % tilesN;
    if (tm >= g.M / TM) return;  // whole warps leave together
    const Acc *cp = g.cCol ? C + (size_t)tn * TN * g.ldc + tm * TM : C + (size_t)tm * TM * g.ldc + tn * TN;
    Acc *dp = g.dCol ? D + (size_t)tn * TN * g.ldd + tm * TM : D + (size_t)tm * TM * g.ldd + tn * TN;
    if constexpr (ARCH >= MinArch) {
        using F = typename FragType<FragIn>::type;
        wmma::fragment<wmma::matrix_a, TM, TN, TK, F, LA> fa;
        wmma::fragment<wmma::matrix_b, TM, TN, TK, F, LB> fb;
        wmma::fragment<wmma::accumulator, TM, TN, TK, Acc> acc;
        wmma::load_matrix_sync(acc, cp, g.ldc, g.cCol ? wmma::mem_col_major : wmma::mem_row_major);
        for (int k0 = 0; k0 < g.K; k0 += TK) {
            const MemIn *ap = isRow<LA>() ? A + (size_t)tm * TM * g.lda + k0 : A + (size_t)k0 * g.lda + tm * TM;
            const MemIn *bp = isRow<LB>() ? B + (size_t)k0 * g.ldb + tn * TN : B + (size_t)tn * TN * g.ldb + k0;
            wmma::load_matrix_sync(fa, ap, g.lda);
            wmma::load_matrix_sync(fb, bp, g.ldb);
            if constexpr (std::is_same<FragIn, Tf32>::value) {
                for (int e = 0; e < fa.num_elements; ++e) fa.x[e] = toTf32(fa.x[e]);
                for (int e = 0; e < fb.num_elements; ++e) fb.x[e] = toTf32(fb.x[e]);
            }
            if constexpr (std::is_integral<Acc>::value) wmma::mma_sync(acc, fa, fb, acc, g.satf);
            else wmma::mma_sync(acc, fa, fb, acc);
        }
        if (g.scale)
            for (int e = 0; e < acc.num_elements; ++e) acc.x[e] = acc.x[e] + acc.x[e];
        wmma::store_matrix_sync(dp, acc, g.ldd, g.dCol ? wmma::mem_col_major : wmma::mem_row_major);
    } else {
        // scalar fallback: the same sums in f32 (f64 for double, exact for integers)
        const bool tf32 = std::is_same<FragIn, Tf32>::value;
        for (int e = lane; e < TM * TN; e += 32) {
            int r = e / TN, c = e % TN, gr = tm * TM + r, gc = tn * TN + c;
            using S = typename std::conditional<std::is_integral<Acc>::value, long long,
                      typename std::conditional<std::is_same<Acc, double>::value, double, float>::type>::type;
            S s = (S)toD(g.cCol ? cp[(size_t)c * g.ldc + r] : cp[(size_t)r * g.ldc + c]);
            for (int k = 0; k < g.K; ++k) {
                double a = toD(isRow<LA>() ? A[(size_t)gr * g.lda + k] : A[(size_t)k * g.lda + gr]);
                double b = toD(isRow<LB>() ? B[(size_t)k * g.ldb + gc] : B[(size_t)gc * g.ldb + k]);
                if (tf32) { a = roundTf32((float)a); b = roundTf32((float)b); }
                s += (S)a * (S)b;
            }
            if (g.scale) s = s + s;
            if (g.satf) s = s > (S)2147483647 ? (S)2147483647 : s < -(S)2147483648.0 ? -(S)2147483648.0 : s;
            Acc v = fromD<Acc>((double)s);
            if (g.dCol) dp[(size_t)c * g.ldd + r] = v; else dp[(size_t)r * g.ldd + c] = v;
        }
    }
}

// ---- host side -------------------------------------------------------------------------------
static uint32_t g_seed = 12345;
static uint32_t rnd() { g_seed = g_seed * 1664525u + 1013904223u; return g_seed >> 8; }
static int rint_(int lo, int hi) { return lo + (int)(rnd() % (uint32_t)(hi - lo + 1)); }
static double runit() { return (rnd() & 0xffffff) / 16777216.0 * 2.0 - 1.0; }

enum class Gen { SmallInt, HalfSteps, Unsigned, Random };

// Values for element kind: exact ones are small, so every sum of products stays exact even in
// an f16 accumulator.
static double genValue(Gen g) {
    switch (g) {
    case Gen::SmallInt: return rint_(-3, 3);
    case Gen::HalfSteps: return rint_(-4, 4) * 0.5;
    case Gen::Unsigned: return rint_(0, 9);
    default: return runit();
    }
}

template <class T> static T garbage() {
    if constexpr (std::is_integral<T>::value) return (T)0x5a;
    else return fromD<T>(12345.0);
}

// Lays out logical matrix X (rows x cols, row-major doubles) in memory with leading dimension
// ld; the padding holds garbage.
template <class T>
static std::vector<T> layout(const std::vector<double> &x, int rows, int cols, bool colMajor, int ld) {
    std::vector<T> m((size_t)ld * (colMajor ? cols : rows), garbage<T>());
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) m[colMajor ? (size_t)c * ld + r : (size_t)r * ld + c] = fromD<T>(x[(size_t)r * cols + c]);
    return m;
}

template <class T> static T *toDevice(const std::vector<T> &v) {
    T *d;
    CK(cudaMalloc(&d, v.size() * sizeof(T)));
    CK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

struct Case {
    const char *label;
    int M, N, K, pad;       // pad: extra elements in every leading dimension
    bool cCol, dCol, scale;
    Gen gen;
    bool satf = false;  // C near the int limits, saturating mma (one k step: each mma saturates)
};

template <class FragIn, class MemIn, class Acc, int TM, int TN, int TK, class LA, class LB, int MinArch>
static void runGemm(const Case &cs) {
    const int M = cs.M, N = cs.N, K = cs.K;
    const bool aCol = !isRow<LA>(), bCol = !isRow<LB>();
    const bool tf32 = std::is_same<FragIn, Tf32>::value;
    std::vector<double> a((size_t)M * K), b((size_t)K * N), c((size_t)M * N);
    for (auto &v : a) v = genValue(cs.gen);
    for (auto &v : b) v = genValue(cs.gen);
    for (auto &v : c) v = cs.gen == Gen::Random ? runit() : genValue(cs.gen) * 4;
    if (cs.satf)
        for (size_t i = 0; i < c.size(); ++i) c[i] = i % 3 == 0 ? 2147483647.0 - fabs(c[i]) : i % 3 == 1 ? -2147483648.0 + fabs(c[i]) : c[i];
    // what the device sees after conversion to the memory types
    for (auto &v : a) v = toD(fromD<MemIn>(v));
    for (auto &v : b) v = toD(fromD<MemIn>(v));
    for (auto &v : c) v = toD(fromD<Acc>(v));
    GemmArgs g{M, N, K, (aCol ? M : K) + cs.pad, (bCol ? K : N) + cs.pad, N + cs.pad, N + 2 * cs.pad,
               cs.cCol, cs.dCol, cs.scale, cs.satf};
    if (cs.cCol) g.ldc = M + cs.pad;
    if (cs.dCol) g.ldd = M + 2 * cs.pad;
    auto hA = layout<MemIn>(a, M, K, aCol, g.lda);
    auto hB = layout<MemIn>(b, K, N, bCol, g.ldb);
    auto hC = layout<Acc>(c, M, N, cs.cCol, g.ldc);
    std::vector<Acc> hD((size_t)g.ldd * (cs.dCol ? N : M), garbage<Acc>());
    MemIn *dA = toDevice(hA), *dB = toDevice(hB);
    Acc *dC = toDevice(hC), *dD = toDevice(hD);
    int tiles = (M / TM) * (N / TN), warpsPerBlock = 4;
    wmmaGemm<FragIn, MemIn, Acc, TM, TN, TK, LA, LB, MinArch>
        <<<(tiles + warpsPerBlock - 1) / warpsPerBlock, 32 * warpsPerBlock>>>(dA, dB, dC, dD, g);
    CK(cudaGetLastError());
    CK(cudaMemcpy(hD.data(), dD, hD.size() * sizeof(Acc), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double ref = c[(size_t)i * N + j], mag = fabs(ref);
            for (int k = 0; k < K; ++k) {
                double x = a[(size_t)i * K + k], y = b[(size_t)k * N + j];
                if (tf32) { x = roundTf32((float)x); y = roundTf32((float)y); }
                ref += x * y;
                mag += fabs(x * y);
            }
            double scale = cs.scale ? 2 : 1;
            ref *= scale;
            mag *= scale;
            if (cs.satf) ref = ref > 2147483647.0 ? 2147483647.0 : ref < -2147483648.0 ? -2147483648.0 : ref;
            size_t at = cs.dCol ? (size_t)j * g.ldd + i : (size_t)i * g.ldd + j;
            double got = toD(hD[at]);
            double tol = 0;
            if (cs.gen == Gen::Random) {
                // f32 sums: K roundings of at most an ulp (2^-23: tensor cores need not round to
                // nearest); an f16 result adds one rounding of 2^-11
                tol = mag * (K + 2) * ldexp(1.0, -23);
                if (std::is_same<Acc, __half>::value) tol += fabs(ref) * ldexp(1.0, -11) + mag * (K + 2) * ldexp(1.0, -11);
                if (std::is_same<Acc, double>::value) tol = mag * (K + 2) * ldexp(1.0, -53);
            }
            if (!(fabs(got - ref) <= tol) && bad++ == 0)
                EXPECT(false, "%s: D(%d,%d) = %.10g, expected %.10g (tolerance %.3g)", cs.label, i, j, got, ref, tol);
        }
    // the padding of D is untouched
    for (int o = 0; o < (cs.dCol ? N : M); ++o)
        for (int p = cs.dCol ? M : N; p < g.ldd; ++p)
            if (toD(hD[(size_t)o * g.ldd + p]) != toD(garbage<Acc>()) && bad++ == 0)
                EXPECT(false, "%s: padding of D at %d,%d was written", cs.label, o, p);
    if (bad) printf("  %s: %d wrong elements\n", cs.label, bad);
    CK(cudaFree(dA)); CK(cudaFree(dB)); CK(cudaFree(dC)); CK(cudaFree(dD));
}

using RM = wmma::row_major;
using CM = wmma::col_major;

// ---- staged through shared memory, fill_fragment, f16 accumulator ------------------------------
// 32x32 output, K = 64; each of 4 warps owns a 16x16 tile; A (row-major) and B (col-major) tiles
// of the block are copied to shared memory per k step and loaded from there; the accumulator
// starts from fill_fragment(1.5) and D goes through a shared staging tile before the store.
__global__ void wmmaShared(const __half *A, const __half *B, __half *D) {
    const int M = 32, N = 32, K = 64;
    __shared__ __align__(32) __half sA[32 * 16];
    __shared__ __align__(32) __half sB[32 * 16];
    __shared__ __align__(32) __half sD[4][16 * 24];  // ldm 24 in shared memory
    int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    int tm = warp / 2, tn = warp % 2;
#if __CUDA_ARCH__ >= 700
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, __half> acc;
    wmma::fill_fragment(acc, __float2half(1.5f));
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int e = threadIdx.x; e < 32 * 16; e += blockDim.x) {
            sA[e] = A[(e / 16) * K + k0 + e % 16];  // rows 0..31, cols k0..k0+15
            sB[e] = B[(e / 16) * K + k0 + e % 16];  // B col-major: column e/16
        }
        __syncthreads();
        wmma::load_matrix_sync(fa, sA + tm * 16 * 16, 16);
        wmma::load_matrix_sync(fb, sB + tn * 16 * 16, 16);
        wmma::mma_sync(acc, fa, fb, acc);
        __syncthreads();
    }
    wmma::store_matrix_sync(sD[warp], acc, 24, wmma::mem_row_major);
    __syncwarp();
    for (int e = lane; e < 256; e += 32) D[(tm * 16 + e / 16) * N + tn * 16 + e % 16] = sD[warp][(e / 16) * 24 + e % 16];
#else
    (void)sA; (void)sB; (void)sD;
    for (int e = lane; e < 256; e += 32) {
        int r = tm * 16 + e / 16, c = tn * 16 + e % 16;
        float s = 1.5f;
        for (int k = 0; k < K; ++k) s += __half2float(A[r * K + k]) * __half2float(B[c * K + k]);
        D[r * N + c] = __float2half(s);
    }
#endif
    (void)M;
}

static void runShared() {
    const int M = 32, N = 32, K = 64;
    std::vector<__half> hA(M * K), hB(N * K), hD(M * N);
    std::vector<double> a(M * K), b(N * K);
    for (int i = 0; i < M * K; ++i) { a[i] = rint_(-2, 2); hA[i] = __float2half((float)a[i]); }
    for (int i = 0; i < N * K; ++i) { b[i] = rint_(-2, 2) * 0.5; hB[i] = __float2half((float)b[i]); }
    __half *dA = toDevice(hA), *dB = toDevice(hB), *dD = toDevice(hD);
    wmmaShared<<<1, 128>>>(dA, dB, dD);
    CK(cudaGetLastError());
    CK(cudaMemcpy(hD.data(), dD, M * N * 2, cudaMemcpyDeviceToHost));
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double ref = 1.5;
            for (int k = 0; k < K; ++k) ref += a[i * K + k] * b[j * K + k];
            double got = __half2float(hD[i * N + j]);
            EXPECT(got == ref, "shared f16: D(%d,%d) = %g, expected %g", i, j, got, ref);
        }
    CK(cudaFree(dA)); CK(cudaFree(dB)); CK(cudaFree(dD));
}

// ---- sub-byte: u4/s4 (m8n8k32) and b1 (m8n8k128) ------------------------------------------------
// A is M x K row-major, B is K x N column-major (the only layouts the sub-byte API has), packed
// eight 4-bit (or 32 1-bit) elements per 32-bit word, element 0 in the lowest bits. ld is in
// elements. C and D are int, row-major.
template <bool Signed>
__global__ void wmmaInt4(const unsigned *A, const unsigned *B, const int *C, int *D, int M, int N, int K, int lda, int ldb, int ldc) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
    (void)lane;
    int tilesN = N / 8, tm = warp / tilesN, tn = warp % tilesN;
    if (tm >= M / 8) return;
#if __CUDA_ARCH__ >= 750
    using P = typename std::conditional<Signed, wmma::experimental::precision::s4, wmma::experimental::precision::u4>::type;
    wmma::fragment<wmma::matrix_a, 8, 8, 32, P, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 32, P, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 32, int> acc;
    wmma::load_matrix_sync(acc, C + tm * 8 * ldc + tn * 8, ldc, wmma::mem_row_major);
    for (int k0 = 0; k0 < K; k0 += 32) {
        wmma::load_matrix_sync(fa, A + (tm * 8 * lda + k0) / 8, lda);
        wmma::load_matrix_sync(fb, B + (tn * 8 * ldb + k0) / 8, ldb);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(D + tm * 8 * ldc + tn * 8, acc, ldc, wmma::mem_row_major);
#else
    for (int e = lane; e < 64; e += 32) {
        int r = tm * 8 + e / 8, c = tn * 8 + e % 8;
        int s = C[r * ldc + c];
        for (int k = 0; k < K; ++k) {
            int av = (A[(r * lda + k) / 8] >> (4 * (k % 8))) & 15, bv = (B[(c * ldb + k) / 8] >> (4 * (k % 8))) & 15;
            if (Signed) { av = av >= 8 ? av - 16 : av; bv = bv >= 8 ? bv - 16 : bv; }
            s += av * bv;
        }
        D[r * ldc + c] = s;
    }
#endif
}

// the scalar form of one 8x8 b1 tile, for targets without the bit operation
template <bool And>
__device__ void b1Scalar(const unsigned *A, const unsigned *B, const int *C, int *D, int tm, int tn, int K, int lda, int ldb, int ldc) {
    for (int e = threadIdx.x & 31; e < 64; e += 32) {
        int r = tm * 8 + e / 8, c = tn * 8 + e % 8;
        int s = C[r * ldc + c];
        for (int w = 0; w < K / 32; ++w) {
            unsigned x = A[r * lda / 32 + w], y = B[c * ldb / 32 + w];
            s += __popc(And ? (x & y) : (x ^ y));
        }
        D[r * ldc + c] = s;
    }
}

template <bool And>
__global__ void wmmaB1(const unsigned *A, const unsigned *B, const int *C, int *D, int M, int N, int K, int lda, int ldb, int ldc) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tilesN = N / 8, tm = warp / tilesN, tn = warp % tilesN;
    if (tm >= M / 8) return;
    if constexpr (ARCH >= (And ? 800 : 750)) {
#if __CUDA_ARCH__ >= 750
        wmma::fragment<wmma::matrix_a, 8, 8, 128, wmma::experimental::precision::b1, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 8, 8, 128, wmma::experimental::precision::b1, wmma::col_major> fb;
        wmma::fragment<wmma::accumulator, 8, 8, 128, int> acc;
        wmma::load_matrix_sync(acc, C + tm * 8 * ldc + tn * 8, ldc, wmma::mem_row_major);
        for (int k0 = 0; k0 < K; k0 += 128) {
            wmma::load_matrix_sync(fa, A + (tm * 8 * lda + k0) / 32, lda);
            wmma::load_matrix_sync(fb, B + (tn * 8 * ldb + k0) / 32, ldb);
#if __CUDA_ARCH__ >= 800
            if (And) wmma::bmma_sync(acc, fa, fb, acc, wmma::experimental::bmmaBitOpAND);
            else
#endif
            wmma::bmma_sync(acc, fa, fb, acc, wmma::experimental::bmmaBitOpXOR);
        }
        wmma::store_matrix_sync(D + tm * 8 * ldc + tn * 8, acc, ldc, wmma::mem_row_major);
#endif
    } else {
        b1Scalar<And>(A, B, C, D, tm, tn, K, lda, ldb, ldc);
    }
}

static void runSubByte() {
    const int M = 16, N = 24, K = 128;
    // u4 / s4: ld in elements (a multiple of 32), padded by one 32-element group
    for (int sgn = 0; sgn < 2; ++sgn) {
        const int lda = K + 32, ldb = K + 32, ldc = N + 4;
        std::vector<int> a(M * K), b(N * K);
        std::vector<unsigned> hA(M * lda / 8, 0xdeadbeefu), hB(N * ldb / 8, 0xdeadbeefu);
        std::vector<int> hC(M * ldc, -7), hD(M * ldc, 0x11111111);
        for (int r = 0; r < M; ++r)
            for (int k = 0; k < K; ++k) {
                int v = sgn ? rint_(-8, 7) : rint_(0, 15);
                a[r * K + k] = v;
                unsigned &w = hA[(r * lda + k) / 8];
                int sh = 4 * (k % 8);
                w = (w & ~(15u << sh)) | ((unsigned)(v & 15) << sh);
            }
        for (int c = 0; c < N; ++c)
            for (int k = 0; k < K; ++k) {
                int v = sgn ? rint_(-8, 7) : rint_(0, 15);
                b[c * K + k] = v;
                unsigned &w = hB[(c * ldb + k) / 8];
                int sh = 4 * (k % 8);
                w = (w & ~(15u << sh)) | ((unsigned)(v & 15) << sh);
            }
        for (int i = 0; i < M; ++i) for (int j = 0; j < N; ++j) hC[i * ldc + j] = rint_(-1000, 1000);
        unsigned *dA = toDevice(hA), *dB = toDevice(hB);
        int *dC = toDevice(hC), *dD = toDevice(hD);
        int tiles = (M / 8) * (N / 8);
        if (sgn) wmmaInt4<true><<<(tiles + 3) / 4, 128>>>(dA, dB, dC, dD, M, N, K, lda, ldb, ldc);
        else wmmaInt4<false><<<(tiles + 3) / 4, 128>>>(dA, dB, dC, dD, M, N, K, lda, ldb, ldc);
        CK(cudaGetLastError());
        CK(cudaMemcpy(hD.data(), dD, hD.size() * 4, cudaMemcpyDeviceToHost));
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) {
                int ref = hC[i * ldc + j];
                for (int k = 0; k < K; ++k) ref += a[i * K + k] * b[j * K + k];
                EXPECT(hD[i * ldc + j] == ref, "%s: D(%d,%d) = %d, expected %d", sgn ? "s4" : "u4", i, j, hD[i * ldc + j], ref);
            }
        for (int i = 0; i < M; ++i)
            for (int j = N; j < ldc; ++j) EXPECT(hD[i * ldc + j] == 0x11111111, "%s: padding of D written", sgn ? "s4" : "u4");
        CK(cudaFree(dA)); CK(cudaFree(dB)); CK(cudaFree(dC)); CK(cudaFree(dD));
    }
    // b1: K = 256 bits, ld 384 bits
    for (int op = 0; op < 2; ++op) {
        const int KB = 256, lda = KB + 128, ldb = KB + 128, ldc = N;
        std::vector<unsigned> hA(M * lda / 32), hB(N * ldb / 32);
        for (auto &w : hA) w = rnd() ^ (rnd() << 16);
        for (auto &w : hB) w = rnd() ^ (rnd() << 16);
        std::vector<int> hC(M * ldc), hD(M * ldc);
        for (auto &v : hC) v = rint_(0, 50);
        unsigned *dA = toDevice(hA), *dB = toDevice(hB);
        int *dC = toDevice(hC), *dD = toDevice(hD);
        int tiles = (M / 8) * (N / 8);
        if (op) wmmaB1<true><<<(tiles + 3) / 4, 128>>>(dA, dB, dC, dD, M, N, KB, lda, ldb, ldc);
        else wmmaB1<false><<<(tiles + 3) / 4, 128>>>(dA, dB, dC, dD, M, N, KB, lda, ldb, ldc);
        CK(cudaGetLastError());
        CK(cudaMemcpy(hD.data(), dD, hD.size() * 4, cudaMemcpyDeviceToHost));
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) {
                int ref = hC[i * ldc + j];
                for (int w = 0; w < KB / 32; ++w) {
                    unsigned x = hA[i * lda / 32 + w], y = hB[j * ldb / 32 + w];
                    ref += __builtin_popcount(op ? (x & y) : (x ^ y));
                }
                EXPECT(hD[i * ldc + j] == ref, "b1 %s: D(%d,%d) = %d, expected %d", op ? "and" : "xor", i, j, hD[i * ldc + j], ref);
            }
        CK(cudaFree(dA)); CK(cudaFree(dB)); CK(cudaFree(dC)); CK(cudaFree(dD));
    }
}

int main() {
    // f16 -> f32, every A/B layout combination, C/D layouts, ldm padding
    runGemm<__half, __half, float, 16, 16, 16, RM, CM, 700>({"f16 16x16x16 row.col f32", 48, 32, 64, 8, false, false, false, Gen::HalfSteps});
    runGemm<__half, __half, float, 16, 16, 16, RM, RM, 700>({"f16 16x16x16 row.row f32", 32, 48, 48, 16, true, false, true, Gen::HalfSteps});
    runGemm<__half, __half, float, 16, 16, 16, CM, CM, 700>({"f16 16x16x16 col.col f32", 32, 32, 32, 8, false, true, false, Gen::SmallInt});
    runGemm<__half, __half, float, 16, 16, 16, CM, RM, 700>({"f16 16x16x16 col.row f32", 16, 64, 32, 0, true, true, false, Gen::HalfSteps});
    runGemm<__half, __half, float, 32, 8, 16, RM, CM, 700>({"f16 32x8x16 row.col f32", 64, 32, 48, 8, true, true, false, Gen::HalfSteps});
    runGemm<__half, __half, float, 8, 32, 16, RM, RM, 700>({"f16 8x32x16 row.row f32", 24, 64, 32, 8, false, false, true, Gen::SmallInt});
    runGemm<__half, __half, float, 16, 16, 16, RM, CM, 700>({"f16 16x16x16 f32 random", 32, 32, 128, 8, false, false, false, Gen::Random});
    // f16 -> f16
    runGemm<__half, __half, __half, 16, 16, 16, RM, CM, 700>({"f16 16x16x16 f16 acc", 32, 32, 48, 8, false, false, false, Gen::HalfSteps});
    runGemm<__half, __half, __half, 32, 8, 16, CM, CM, 700>({"f16 32x8x16 f16 acc", 64, 16, 32, 16, true, true, true, Gen::SmallInt});
    runGemm<__half, __half, __half, 8, 32, 16, RM, RM, 700>({"f16 8x32x16 f16 acc", 16, 64, 32, 8, false, true, false, Gen::HalfSteps});
    runGemm<__half, __half, __half, 16, 16, 16, RM, CM, 700>({"f16 16x16x16 f16 acc random", 16, 32, 64, 8, false, false, false, Gen::Random});
    // bf16 -> f32 (sm_80+)
    runGemm<__nv_bfloat16, __nv_bfloat16, float, 16, 16, 16, RM, CM, 800>({"bf16 16x16x16 row.col", 32, 48, 64, 8, false, false, false, Gen::HalfSteps});
    runGemm<__nv_bfloat16, __nv_bfloat16, float, 32, 8, 16, CM, CM, 800>({"bf16 32x8x16 col.col", 64, 16, 32, 8, true, true, false, Gen::SmallInt});
    runGemm<__nv_bfloat16, __nv_bfloat16, float, 8, 32, 16, RM, RM, 800>({"bf16 8x32x16 row.row", 16, 64, 32, 16, false, false, true, Gen::HalfSteps});
    runGemm<__nv_bfloat16, __nv_bfloat16, float, 16, 16, 16, RM, RM, 800>({"bf16 16x16x16 random", 32, 32, 64, 8, false, false, false, Gen::Random});
    // tf32 -> f32 (sm_80+)
    runGemm<Tf32, float, float, 16, 16, 8, RM, CM, 800>({"tf32 16x16x8 row.col", 32, 32, 40, 4, false, false, false, Gen::HalfSteps});
    runGemm<Tf32, float, float, 16, 16, 8, CM, RM, 800>({"tf32 16x16x8 col.row", 48, 16, 32, 8, true, true, true, Gen::SmallInt});
    runGemm<Tf32, float, float, 16, 16, 8, RM, RM, 800>({"tf32 16x16x8 random", 32, 32, 64, 4, false, false, false, Gen::Random});
    // f64 (sm_80+)
    runGemm<double, double, double, 8, 8, 4, RM, CM, 800>({"f64 8x8x4 row.col", 24, 16, 20, 2, false, false, false, Gen::HalfSteps});
    runGemm<double, double, double, 8, 8, 4, CM, RM, 800>({"f64 8x8x4 col.row", 16, 32, 16, 4, true, true, true, Gen::Random});
    // s8 / u8 -> int
    runGemm<signed char, signed char, int, 16, 16, 16, RM, CM, 720>({"s8 16x16x16 row.col", 32, 32, 64, 16, false, false, false, Gen::SmallInt});
    runGemm<signed char, signed char, int, 32, 8, 16, RM, CM, 720>({"s8 32x8x16 row.col", 64, 16, 32, 16, true, true, false, Gen::SmallInt});
    runGemm<unsigned char, unsigned char, int, 8, 32, 16, RM, CM, 720>({"u8 8x32x16 row.col", 16, 64, 48, 16, false, true, true, Gen::Unsigned});
    runGemm<unsigned char, unsigned char, int, 16, 16, 16, RM, RM, 720>({"u8 16x16x16 row.row", 32, 16, 32, 0, false, false, false, Gen::Unsigned});
    runGemm<signed char, signed char, int, 16, 16, 16, RM, CM, 720>({"s8 16x16x16 satfinite", 32, 16, 16, 16, false, false, false, Gen::SmallInt, true});
    runGemm<unsigned char, unsigned char, int, 32, 8, 16, RM, CM, 720>({"u8 32x8x16 satfinite", 32, 16, 16, 16, true, false, false, Gen::Unsigned, true});
    runShared();
    runSubByte();
    return finish();
}

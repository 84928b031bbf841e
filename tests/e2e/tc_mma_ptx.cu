// ptxsim e2e: GEMMs with inline-PTX mma.sync, each lane building its fragments from the per-lane
// layouts of the PTX ISA manual, against a CPU reference.
//   - one generic tiled GEMM (one warp per M x 8 output tile, looping over K, fragments loaded
//     straight from global memory) instantiated for m16n8k16 / m16n8k8 f16 (f32 and f16
//     accumulators), bf16, m16n8k8 / m16n8k4 tf32, m16n8k32 / m16n8k16 / m8n8k16 s8 and u8
//     (.satfinite too), m16n8k64 / m16n8k32 / m8n8k32 s4 and u4, m16n8k256 / m16n8k128 b1 .and.popc
//     and m8n8k128 b1 .xor.popc, m8n8k4 f64, m16n8k4 / k8 / k16 f64 (sm_90) and m16n8k32 e4m3 x
//     e5m2 (sm_89+)
//   - an f16 GEMM through shared memory: ldmatrix.x4 for A, ldmatrix.x4.trans for a row-major
//     B, the f32 result packed to f16 with cvt.rn.f16x2.f32 and written back with stmatrix.x4
//     and stmatrix.x4.trans (sm_90; plain stores below), and A read column-major with
//     ldmatrix.x4.trans for a bf16 GEMM
// Inputs are small integers (or halves), so every result is exact whatever the summation order.
// A kernel whose instruction the target lacks records that it skipped; the host says so.
#include <cstdint>
#include <cstring>
#include <cmath>
#include <vector>
static const char *kName = "tc_mma_ptx";
#include "../kernels/test_common.h"
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#ifdef __CUDA_ARCH__
#define ARCH __CUDA_ARCH__
#else
#define ARCH 0
#endif

__device__ int g_skipped;  // set by kernels built for a target without their instruction

enum class K { F16, BF16, F32, F64, S8, U8, S4, U4, B1, E4M3, E5M2, S32 };

__host__ __device__ constexpr int bitsOf(K k) {
    return k == K::F16 || k == K::BF16 ? 16
         : k == K::F64 ? 64
         : k == K::S8 || k == K::U8 || k == K::E4M3 || k == K::E5M2 ? 8
         : k == K::S4 || k == K::U4 ? 4
         : k == K::B1 ? 1 : 32;
}

// ---- the mma instructions ------------------------------------------------------------------
// Operand lists by register counts (A, B, C/D); C is a separate input, D an output.
#define ASM_4_2_4(I, T) asm volatile(I " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" \
    : "=" T(d[0]), "=" T(d[1]), "=" T(d[2]), "=" T(d[3]) \
    : T(a[0]), T(a[1]), T(a[2]), T(a[3]), T(b[0]), T(b[1]), T(c[0]), T(c[1]), T(c[2]), T(c[3]))
#define ASM_2_1_4(I, T) asm volatile(I " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};" \
    : "=" T(d[0]), "=" T(d[1]), "=" T(d[2]), "=" T(d[3]) \
    : T(a[0]), T(a[1]), T(b[0]), T(c[0]), T(c[1]), T(c[2]), T(c[3]))
#define ASM_4_2_2(I) asm volatile(I " {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};" \
    : "=r"(d[0]), "=r"(d[1]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]))
#define ASM_2_1_2(I) asm volatile(I " {%0,%1}, {%2,%3}, {%4}, {%5,%6};" \
    : "=r"(d[0]), "=r"(d[1]) : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]))
#define ASM_1_1_2(I, T) asm volatile(I " {%0,%1}, {%2}, {%3}, {%4,%5};" \
    : "=" T(d[0]), "=" T(d[1]) : T(a[0]), T(b[0]), T(c[0]), T(c[1]))
#define ASM_8_4_4(I) asm volatile(I " {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%16,%17,%18,%19};" \
    : "=d"(d[0]), "=d"(d[1]), "=d"(d[2]), "=d"(d[3]) \
    : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), \
      "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]), "d"(c[0]), "d"(c[1]), "d"(c[2]), "d"(c[3]))

// One struct per instruction: shape, element kinds, register counts, the target it needs.
#define MMA_OP(NAME, ARCH_, M_, KK_, KA, KB, KC, KD, R_, NA_, NB_, NC_, SAT_, BODY) \
    struct NAME { \
        static constexpr int arch = ARCH_, m = M_, k = KK_, na = NA_, nb = NB_, nc = NC_; \
        static constexpr K ka = K::KA, kb = K::KB, kc = K::KC, kd = K::KD; \
        static constexpr int sat = SAT_;  /* 1 .satfinite, 2 b1 .and, 3 b1 .xor */ \
        using R = R_; \
        static __device__ void mma(R *d, const R *a, const R *b, const R *c) { \
            (void)d; (void)a; (void)b; (void)c; \
            if constexpr (ARCH >= ARCH_) { BODY; } \
        } \
    };

#define MMA(s) "mma.sync.aligned." s
MMA_OP(F16x16_F32, 800, 16, 16, F16, F16, F32, F32, unsigned, 4, 2, 4, 0, ASM_4_2_4(MMA("m16n8k16.row.col.f32.f16.f16.f32"), "r"))
MMA_OP(F16x16_F16, 800, 16, 16, F16, F16, F16, F16, unsigned, 4, 2, 2, 0, ASM_4_2_2(MMA("m16n8k16.row.col.f16.f16.f16.f16")))
MMA_OP(F16x8_F32, 750, 16, 8, F16, F16, F32, F32, unsigned, 2, 1, 4, 0, ASM_2_1_4(MMA("m16n8k8.row.col.f32.f16.f16.f32"), "r"))
MMA_OP(F16x8_F16, 750, 16, 8, F16, F16, F16, F16, unsigned, 2, 1, 2, 0, ASM_2_1_2(MMA("m16n8k8.row.col.f16.f16.f16.f16")))
MMA_OP(BF16x16, 800, 16, 16, BF16, BF16, F32, F32, unsigned, 4, 2, 4, 0, ASM_4_2_4(MMA("m16n8k16.row.col.f32.bf16.bf16.f32"), "r"))
MMA_OP(BF16x8, 800, 16, 8, BF16, BF16, F32, F32, unsigned, 2, 1, 4, 0, ASM_2_1_4(MMA("m16n8k8.row.col.f32.bf16.bf16.f32"), "r"))
MMA_OP(TF32x8, 800, 16, 8, F32, F32, F32, F32, unsigned, 4, 2, 4, 0, ASM_4_2_4(MMA("m16n8k8.row.col.f32.tf32.tf32.f32"), "r"))
MMA_OP(TF32x4, 800, 16, 4, F32, F32, F32, F32, unsigned, 2, 1, 4, 0, ASM_2_1_4(MMA("m16n8k4.row.col.f32.tf32.tf32.f32"), "r"))
MMA_OP(S8x32, 800, 16, 32, S8, S8, S32, S32, unsigned, 4, 2, 4, 0, ASM_4_2_4(MMA("m16n8k32.row.col.s32.s8.s8.s32"), "r"))
MMA_OP(S8x32Sat, 800, 16, 32, S8, U8, S32, S32, unsigned, 4, 2, 4, 1, ASM_4_2_4(MMA("m16n8k32.row.col.satfinite.s32.s8.u8.s32"), "r"))
MMA_OP(U8S8x16, 800, 16, 16, U8, S8, S32, S32, unsigned, 2, 1, 4, 0, ASM_2_1_4(MMA("m16n8k16.row.col.s32.u8.s8.s32"), "r"))
MMA_OP(S8m8, 750, 8, 16, S8, S8, S32, S32, unsigned, 1, 1, 2, 0, ASM_1_1_2(MMA("m8n8k16.row.col.s32.s8.s8.s32"), "r"))
MMA_OP(S4x64, 800, 16, 64, S4, S4, S32, S32, unsigned, 4, 2, 4, 0, ASM_4_2_4(MMA("m16n8k64.row.col.s32.s4.s4.s32"), "r"))
MMA_OP(U4x32, 800, 16, 32, U4, U4, S32, S32, unsigned, 2, 1, 4, 0, ASM_2_1_4(MMA("m16n8k32.row.col.s32.u4.u4.s32"), "r"))
MMA_OP(S4m8Sat, 750, 8, 32, S4, U4, S32, S32, unsigned, 1, 1, 2, 1, ASM_1_1_2(MMA("m8n8k32.row.col.satfinite.s32.s4.u4.s32"), "r"))
MMA_OP(B1x256And, 800, 16, 256, B1, B1, S32, S32, unsigned, 4, 2, 4, 2, ASM_4_2_4(MMA("m16n8k256.row.col.s32.b1.b1.s32.and.popc"), "r"))
MMA_OP(B1x128And, 800, 16, 128, B1, B1, S32, S32, unsigned, 2, 1, 4, 2, ASM_2_1_4(MMA("m16n8k128.row.col.s32.b1.b1.s32.and.popc"), "r"))
MMA_OP(B1m8Xor, 750, 8, 128, B1, B1, S32, S32, unsigned, 1, 1, 2, 3, ASM_1_1_2(MMA("m8n8k128.row.col.s32.b1.b1.s32.xor.popc"), "r"))
MMA_OP(F64m8, 800, 8, 4, F64, F64, F64, F64, double, 1, 1, 2, 0, ASM_1_1_2(MMA("m8n8k4.row.col.f64.f64.f64.f64"), "d"))
MMA_OP(F64x4, 900, 16, 4, F64, F64, F64, F64, double, 2, 1, 4, 0, ASM_2_1_4(MMA("m16n8k4.row.col.f64.f64.f64.f64"), "d"))
MMA_OP(F64x8, 900, 16, 8, F64, F64, F64, F64, double, 4, 2, 4, 0, ASM_4_2_4(MMA("m16n8k8.row.col.f64.f64.f64.f64"), "d"))
MMA_OP(F64x16, 900, 16, 16, F64, F64, F64, F64, double, 8, 4, 4, 0, ASM_8_4_4(MMA("m16n8k16.row.col.f64.f64.f64.f64")))
MMA_OP(E4M3xE5M2, 890, 16, 32, E4M3, E5M2, F32, F32, unsigned, 4, 2, 4, 0, ASM_4_2_4(MMA("m16n8k32.row.col.f32.e4m3.e5m2.f32"), "r"))

// ---- the generic GEMM ------------------------------------------------------------------------
// A is M x K row-major, Bt is N x K row-major (B column-major), C and D are M x N row-major;
// leading dimensions count elements (sub-byte elements pack from the low bits). With
// groupID g = lane / 4, t = lane % 4 and p elements per register, register j of A holds the p
// consecutive elements at row g + 8 * (j % 2), column t * p + 4p * (j / 2); register j of B
// the p at row (k) t * p + 4p * j, column g; element e of C/D is at row g + 8 * (e / 2),
// column 2t + e % 2 (two f16 elements per register).
template <class R> __device__ R loadWord(const char *base, long long elem, int bits) {
    return *reinterpret_cast<const R *>(base + elem * bits / 8);
}

template <class Op>
__global__ void mmaGemm(const char *A, const char *Bt, const char *C, char *D, int M, int N, int Kd, int lda, int ldb, int ldc) {
    using R = typename Op::R;
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
    int tm = warp / (N / 8), tn = warp % (N / 8);
    if (tm >= M / Op::m) return;
    if constexpr (ARCH < Op::arch) {
        if (lane == 0) g_skipped = 1;
    } else {
    const int g = lane >> 2, t = lane & 3;
    constexpr int pa = bitsOf(Op::ka) >= 32 ? 1 : 32 / bitsOf(Op::ka);
    constexpr int pb = bitsOf(Op::kb) >= 32 ? 1 : 32 / bitsOf(Op::kb);
    constexpr int cbits = bitsOf(Op::kc), pc = cbits >= 32 ? 1 : 2;
    R c[Op::nc], d[Op::nc];
    for (int r = 0; r < Op::nc; ++r) {
        int e = r * pc, row = tm * Op::m + g + 8 * (e / 2), col = tn * 8 + 2 * t + e % 2;
        c[r] = loadWord<R>(C, (long long)row * ldc + col, cbits);
    }
    for (int k0 = 0; k0 < Kd; k0 += Op::k) {
        R a[Op::na], b[Op::nb];
        for (int j = 0; j < Op::na; ++j) {
            int row = tm * Op::m + g + 8 * (j % 2), col = k0 + t * pa + 4 * pa * (j / 2);
            a[j] = loadWord<R>(A, (long long)row * lda + col, bitsOf(Op::ka));
        }
        for (int j = 0; j < Op::nb; ++j) {
            int n = tn * 8 + g, k = k0 + t * pb + 4 * pb * j;
            b[j] = loadWord<R>(Bt, (long long)n * ldb + k, bitsOf(Op::kb));
        }
        if constexpr (Op::ka == K::F32) {  // tf32 inputs: round as cvt.rna.tf32.f32 does
            for (int j = 0; j < Op::na; ++j) asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(a[j]) : "f"(__uint_as_float(a[j])));
            for (int j = 0; j < Op::nb; ++j) asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(b[j]) : "f"(__uint_as_float(b[j])));
        }
        Op::mma(d, a, b, c);
        for (int r = 0; r < Op::nc; ++r) c[r] = d[r];
    }
    for (int r = 0; r < Op::nc; ++r) {
        int e = r * pc, row = tm * Op::m + g + 8 * (e / 2), col = tn * 8 + 2 * t + e % 2;
        *reinterpret_cast<R *>(D + ((long long)row * ldc + col) * cbits / 8) = c[r];
    }
    }
}

// ---- host: element encodings ------------------------------------------------------------------
static uint32_t g_seed = 777;
static uint32_t rnd() { g_seed = g_seed * 1664525u + 1013904223u; return g_seed >> 8; }
static int rint_(int lo, int hi) { return lo + (int)(rnd() % (uint32_t)(hi - lo + 1)); }

static double randomValue(K k) {
    switch (k) {
    case K::F16: case K::BF16: case K::F32: case K::F64: return rint_(-6, 6) * 0.5;
    case K::E4M3: case K::E5M2: return rint_(-4, 4) * 0.5;
    case K::S8: return rint_(-128, 127);
    case K::U8: return rint_(0, 255);
    case K::S4: return rint_(-8, 7);
    case K::U4: return rint_(0, 15);
    case K::B1: return rint_(0, 1);
    default: return rint_(-1000, 1000);
    }
}

static uint64_t encode(K k, double v) {
    switch (k) {
    case K::F16: { __half h = __float2half((float)v); uint16_t u; memcpy(&u, &h, 2); return u; }
    case K::BF16: { __nv_bfloat16 h = __float2bfloat16((float)v); uint16_t u; memcpy(&u, &h, 2); return u; }
    case K::F32: { float f = (float)v; uint32_t u; memcpy(&u, &f, 4); return u; }
    case K::F64: { uint64_t u; memcpy(&u, &v, 8); return u; }
    case K::E4M3: { __nv_fp8_e4m3 f((float)v); uint8_t u; memcpy(&u, &f, 1); return u; }
    case K::E5M2: { __nv_fp8_e5m2 f((float)v); uint8_t u; memcpy(&u, &f, 1); return u; }
    default: return (uint64_t)(int64_t)v & (bitsOf(k) == 64 ? ~0ull : (1ull << bitsOf(k)) - 1);
    }
}

static double decode(K k, uint64_t u) {
    switch (k) {
    case K::F16: { uint16_t x = (uint16_t)u; __half h; memcpy(&h, &x, 2); return __half2float(h); }
    case K::F32: { uint32_t x = (uint32_t)u; float f; memcpy(&f, &x, 4); return f; }
    case K::F64: { double d; memcpy(&d, &u, 8); return d; }
    default: return (double)(int32_t)(uint32_t)u;
    }
}

// A rows x cols row-major matrix of kind k with leading dimension ld (elements), packed.
static std::vector<uint8_t> packMatrix(K k, const std::vector<double> &v, int rows, int cols, int ld) {
    int bits = bitsOf(k);
    std::vector<uint8_t> m((size_t)rows * ld * bits / 8 + 16, 0xa5);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            uint64_t e = encode(k, v[(size_t)r * cols + c]);
            size_t bit = ((size_t)r * ld + c) * bits;
            if (bits >= 8) memcpy(&m[bit / 8], &e, bits / 8);
            else {
                uint8_t mask = (uint8_t)(((1u << bits) - 1) << (bit % 8));
                m[bit / 8] = (uint8_t)((m[bit / 8] & ~mask) | ((e << (bit % 8)) & mask));
            }
        }
    return m;
}

template <class T> static T *upload(const std::vector<T> &v) {
    T *d;
    CK(cudaMalloc(&d, v.size() * sizeof(T)));
    CK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

static bool skipped() {
    int s = 0;
    CK(cudaMemcpyFromSymbol(&s, g_skipped, sizeof s));
    int zero = 0;
    CK(cudaMemcpyToSymbol(g_skipped, &zero, sizeof zero));
    return s != 0;
}

template <class Op>
static void runGemm(const char *label, int M, int N, int Kd, int pad, bool nearLimits = false) {
    int lda = Kd + pad, ldb = Kd + pad, ldc = N + 8;
    if (bitsOf(Op::ka) < 8) lda = ldb = Kd + 256;  // whole words of padding for packed types
    std::vector<double> a((size_t)M * Kd), b((size_t)N * Kd), c((size_t)M * N);
    for (auto &v : a) v = randomValue(Op::ka);
    for (auto &v : b) v = randomValue(Op::kb);
    for (size_t i = 0; i < c.size(); ++i) {
        c[i] = Op::kc == K::S32 ? rint_(-100000, 100000) : rint_(-8, 8);
        if (nearLimits) c[i] = i % 2 ? 2147483647.0 - rint_(0, 3000) : -2147483648.0 + rint_(0, 3000);
    }
    auto hA = packMatrix(Op::ka, a, M, Kd, lda), hB = packMatrix(Op::kb, b, N, Kd, ldb);
    auto hC = packMatrix(Op::kc, c, M, N, ldc);
    std::vector<uint8_t> hD(hC.size(), 0x5a);
    uint8_t *dA = upload(hA), *dB = upload(hB), *dC = upload(hC), *dD = upload(hD);
    int tiles = (M / Op::m) * (N / 8);
    mmaGemm<Op><<<(tiles + 3) / 4, 128>>>((const char *)dA, (const char *)dB, (const char *)dC, (char *)dD, M, N, Kd, lda, ldb, ldc);
    CK(cudaGetLastError());
    CK(cudaMemcpy(hD.data(), dD, hD.size(), cudaMemcpyDeviceToHost));
    if (skipped()) {
        printf("  %s: skipped (needs sm_%d)\n", label, Op::arch / 10);
    } else {
        int bad = 0, cb = bitsOf(Op::kd) / 8;
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) {
                // the reference goes one mma (k step) at a time: .satfinite clamps each result
                double ref = c[(size_t)i * N + j];
                for (int k0 = 0; k0 < Kd; k0 += Op::k) {
                    double s = 0;
                    for (int k = k0; k < k0 + Op::k; ++k) {
                        double x = a[(size_t)i * Kd + k], y = b[(size_t)j * Kd + k];
                        s += Op::sat == 2 ? (double)((int)x & (int)y) : Op::sat == 3 ? (double)((int)x ^ (int)y) : x * y;
                    }
                    ref += s;
                    if (Op::sat == 1) ref = ref > 2147483647.0 ? 2147483647.0 : ref < -2147483648.0 ? -2147483648.0 : ref;
                    else if (Op::kd == K::S32) ref = (double)(int32_t)(uint32_t)(int64_t)ref;  // wraps
                }
                uint64_t u = 0;
                memcpy(&u, &hD[((size_t)i * ldc + j) * cb], cb);
                double got = decode(Op::kd, u);
                if (got != ref && bad++ == 0)
                    EXPECT(false, "%s: D(%d,%d) = %.17g, expected %.17g", label, i, j, got, ref);
            }
        // the padding columns of D stay untouched
        for (int i = 0; i < M; ++i)
            for (size_t x = ((size_t)i * ldc + N) * cb; x < ((size_t)i * ldc + ldc) * cb; ++x)
                if (hD[x] != 0x5a && bad++ == 0) EXPECT(false, "%s: padding of D row %d written", label, i);
        if (bad) printf("  %s: %d wrong\n", label, bad);
    }
    CK(cudaFree(dA)); CK(cudaFree(dB)); CK(cudaFree(dC)); CK(cudaFree(dD));
}

// ---- ldmatrix / stmatrix GEMM ------------------------------------------------------------------
// D = A (64 x 64, row-major) x B (64 x 32, row-major K x N) + C in f32; each of 4 warps owns a
// 32 x 16 block (2 x 2 mma tiles of 16 x 8). Per 16-wide k step the block copies its A and B
// slices to shared memory; A fragments come from ldmatrix.x4, B fragments (two n-tiles) from one
// ldmatrix.x4.trans. D is written as f32 to D32 and, packed to f16, through stmatrix to D16
// (row-major) and D16T (transposed, with stmatrix.trans).
#define LM 64
#define LN 32
#define LK 64
__global__ void ldmatrixGemm(const __half *A, const __half *B, const float *C, float *D32, __half *D16, __half *D16T) {
#if __CUDA_ARCH__ >= 800
    __shared__ __align__(16) __half sA[LM][16 + 8];   // +8: 16-byte aligned rows, no bank pattern
    __shared__ __align__(16) __half sB[16][LN + 8];
    __shared__ __align__(16) __half sD[LM][LN + 8];
    __shared__ __align__(16) __half sDT[LN][LM + 8];
    int warp = threadIdx.x / 32, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    int wm = (warp / 2) * 32, wn = (warp % 2) * 16;
    float acc[2][2][4];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            for (int e = 0; e < 4; ++e)
                acc[i][j][e] = C[(wm + 16 * i + g + 8 * (e / 2)) * LN + wn + 8 * j + 2 * t + e % 2];
    for (int k0 = 0; k0 < LK; k0 += 16) {
        for (int e = threadIdx.x; e < LM * 16; e += blockDim.x) sA[e / 16][e % 16] = A[(e / 16) * LK + k0 + e % 16];
        for (int e = threadIdx.x; e < 16 * LN; e += blockDim.x) sB[e / LN][e % LN] = B[(k0 + e / LN) * LN + e % LN];
        __syncthreads();
        unsigned b[4];
        {
            int q = lane / 8, r = lane % 8;  // matrix q: k rows 8 * (q % 2).., n columns 8 * (q / 2)..
            unsigned addr = (unsigned)__cvta_generic_to_shared(&sB[r + 8 * (q % 2)][wn + 8 * (q / 2)]);
            asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                         : "=r"(b[0]), "=r"(b[1]), "=r"(b[2]), "=r"(b[3]) : "r"(addr));
        }
        for (int i = 0; i < 2; ++i) {
            unsigned a[4];
            int q = lane / 8, r = lane % 8;  // matrix q: rows 8 * (q % 2).., k columns 8 * (q / 2)..
            unsigned addr = (unsigned)__cvta_generic_to_shared(&sA[wm + 16 * i + r + 8 * (q % 2)][8 * (q / 2)]);
            asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                         : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(addr));
            for (int j = 0; j < 2; ++j) {
                float *c = acc[i][j];
                asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                             : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[2 * j]), "r"(b[2 * j + 1]));
            }
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            for (int e = 0; e < 4; ++e)
                D32[(wm + 16 * i + g + 8 * (e / 2)) * LN + wn + 8 * j + 2 * t + e % 2] = acc[i][j][e];
    for (int i = 0; i < 2; ++i) {
        // registers of the 16 x 16 block (i): matrix 2j + h = rows 8h.., columns 8j..
        unsigned h[4];
        for (int j = 0; j < 2; ++j)
            for (int hh = 0; hh < 2; ++hh)
                asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(h[2 * j + hh]) : "f"(acc[i][j][2 * hh + 1]), "f"(acc[i][j][2 * hh]));
#if __CUDA_ARCH__ >= 900
        int q = lane / 8, r = lane % 8;
        unsigned addr = (unsigned)__cvta_generic_to_shared(&sD[wm + 16 * i + 8 * (q % 2) + r][wn + 8 * (q / 2)]);
        asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" :: "r"(addr), "r"(h[0]), "r"(h[1]), "r"(h[2]), "r"(h[3]));
        // transposed: matrix q's row r is column r of the block, stored as row wn + 8(q/2) + r of sDT
        unsigned taddr = (unsigned)__cvta_generic_to_shared(&sDT[wn + 8 * (q / 2) + r][wm + 16 * i + 8 * (q % 2)]);
        asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};" :: "r"(taddr), "r"(h[0]), "r"(h[1]), "r"(h[2]), "r"(h[3]));
#else
        for (int mtx = 0; mtx < 4; ++mtx) {
            int row = wm + 16 * i + 8 * (mtx % 2) + g, col = wn + 8 * (mtx / 2) + 2 * t;
            __half lo = __ushort_as_half((unsigned short)(h[mtx] & 0xffff)), hi = __ushort_as_half((unsigned short)(h[mtx] >> 16));
            sD[row][col] = lo; sD[row][col + 1] = hi;
            sDT[col][row] = lo; sDT[col + 1][row] = hi;
        }
#endif
    }
    __syncthreads();
    for (int e = threadIdx.x; e < LM * LN; e += blockDim.x) {
        D16[e] = sD[e / LN][e % LN];
        D16T[e] = sDT[e / LM][e % LM];
    }
#else
    if (threadIdx.x == 0) g_skipped = 1;
#endif
}

// bf16 GEMM with A stored column-major (K x M rows in memory) read through ldmatrix.x4.trans;
// one warp, D (16 x 8) = A (16 x 32) x B (32 x 8), B given as Bt (8 x 32) row-major.
__global__ void ldmatrixTransA(const __nv_bfloat16 *At, const __nv_bfloat16 *Bt, float *D) {
#if __CUDA_ARCH__ >= 800
    __shared__ __align__(16) __nv_bfloat16 sAt[32][16 + 8];
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    for (int e = lane; e < 32 * 16; e += 32) sAt[e / 16][e % 16] = At[e];
    __syncwarp();
    float c[4] = {0, 0, 0, 0};
    for (int k0 = 0; k0 < 32; k0 += 16) {
        // A fragment register q covers rows 8 * (q % 2).., k 8 * (q / 2)..: in At that is the 8 x 8
        // block at k-rows k0 + 8 * (q / 2).., m-columns 8 * (q % 2).., transposed
        int q = lane / 8, r = lane % 8;
        unsigned addr = (unsigned)__cvta_generic_to_shared(&sAt[k0 + 8 * (q / 2) + r][8 * (q % 2)]);
        unsigned a[4], b[2];
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(addr));
        for (int j = 0; j < 2; ++j) {
            unsigned short lo, hi;
            memcpy(&lo, &Bt[g * 32 + k0 + 2 * t + 8 * j], 2);
            memcpy(&hi, &Bt[g * 32 + k0 + 2 * t + 8 * j + 1], 2);
            b[j] = lo | ((unsigned)hi << 16);
        }
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    for (int e = 0; e < 4; ++e) D[(g + 8 * (e / 2)) * 8 + 2 * t + e % 2] = c[e];
#else
    if (threadIdx.x == 0) g_skipped = 1;
#endif
}

static void runLdmatrix() {
    std::vector<__half> hA(LM * LK), hB(LK * LN);
    std::vector<float> a(LM * LK), b(LK * LN), hC(LM * LN), d32(LM * LN);
    for (int i = 0; i < LM * LK; ++i) { a[i] = rint_(-4, 4) * 0.5f; hA[i] = __float2half(a[i]); }
    for (int i = 0; i < LK * LN; ++i) { b[i] = rint_(-3, 3); hB[i] = __float2half(b[i]); }
    for (auto &v : hC) v = (float)rint_(-20, 20);
    __half *dA = upload(hA), *dB = upload(hB);
    float *dC = upload(hC), *dD32;
    __half *dD16, *dD16T;
    CK(cudaMalloc(&dD32, LM * LN * 4)); CK(cudaMalloc(&dD16, LM * LN * 2)); CK(cudaMalloc(&dD16T, LM * LN * 2));
    ldmatrixGemm<<<1, 128>>>(dA, dB, dC, dD32, dD16, dD16T);
    CK(cudaGetLastError());
    std::vector<__half> d16(LM * LN), d16t(LM * LN);
    CK(cudaMemcpy(d32.data(), dD32, LM * LN * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(d16.data(), dD16, LM * LN * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(d16t.data(), dD16T, LM * LN * 2, cudaMemcpyDeviceToHost));
    if (skipped()) printf("  ldmatrix gemm: skipped (needs sm_80)\n");
    else
        for (int i = 0; i < LM; ++i)
            for (int j = 0; j < LN; ++j) {
                double ref = hC[i * LN + j];
                for (int k = 0; k < LK; ++k) ref += (double)a[i * LK + k] * b[k * LN + j];
                EXPECT(d32[i * LN + j] == ref, "ldmatrix gemm: D(%d,%d) = %g, expected %g", i, j, d32[i * LN + j], ref);
                EXPECT(__half2float(d16[i * LN + j]) == (float)ref, "stmatrix: D16(%d,%d) = %g, expected %g", i, j, __half2float(d16[i * LN + j]), ref);
                EXPECT(__half2float(d16t[j * LM + i]) == (float)ref, "stmatrix.trans: D16T(%d,%d) = %g, expected %g", j, i, __half2float(d16t[j * LM + i]), ref);
            }
    CK(cudaFree(dA)); CK(cudaFree(dB)); CK(cudaFree(dC)); CK(cudaFree(dD32)); CK(cudaFree(dD16)); CK(cudaFree(dD16T));

    // bf16 with a column-major A
    std::vector<__nv_bfloat16> hAt(32 * 16), hBt(8 * 32);
    std::vector<float> at(32 * 16), bt(8 * 32), d(16 * 8);
    for (int i = 0; i < 32 * 16; ++i) { at[i] = rint_(-8, 8); hAt[i] = __float2bfloat16(at[i]); }
    for (int i = 0; i < 8 * 32; ++i) { bt[i] = rint_(-8, 8) * 0.25f; hBt[i] = __float2bfloat16(bt[i]); }
    __nv_bfloat16 *dAt = upload(hAt), *dBt = upload(hBt);
    float *dD;
    CK(cudaMalloc(&dD, 16 * 8 * 4));
    ldmatrixTransA<<<1, 32>>>(dAt, dBt, dD);
    CK(cudaGetLastError());
    CK(cudaMemcpy(d.data(), dD, 16 * 8 * 4, cudaMemcpyDeviceToHost));
    if (skipped()) printf("  ldmatrix.trans A: skipped (needs sm_80)\n");
    else
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 8; ++j) {
                double ref = 0;
                for (int k = 0; k < 32; ++k) ref += (double)at[k * 16 + i] * bt[j * 32 + k];
                EXPECT(d[i * 8 + j] == ref, "ldmatrix.trans A: D(%d,%d) = %g, expected %g", i, j, d[i * 8 + j], ref);
            }
    CK(cudaFree(dAt)); CK(cudaFree(dBt)); CK(cudaFree(dD));
}

int main() {
    runGemm<F16x16_F32>("m16n8k16 f16 -> f32", 48, 32, 64, 8);
    runGemm<F16x16_F16>("m16n8k16 f16 -> f16", 32, 24, 32, 8);
    runGemm<F16x8_F32>("m16n8k8 f16 -> f32", 32, 16, 40, 0);
    runGemm<F16x8_F16>("m16n8k8 f16 -> f16", 16, 32, 24, 8);
    runGemm<BF16x16>("m16n8k16 bf16", 32, 32, 48, 8);
    runGemm<BF16x8>("m16n8k8 bf16", 16, 16, 32, 0);
    runGemm<TF32x8>("m16n8k8 tf32", 32, 16, 32, 4);
    runGemm<TF32x4>("m16n8k4 tf32", 16, 24, 20, 4);
    runGemm<S8x32>("m16n8k32 s8", 32, 16, 96, 16);
    runGemm<S8x32Sat>("m16n8k32 s8 x u8 satfinite", 16, 16, 64, 16, true);
    runGemm<U8S8x16>("m16n8k16 u8 x s8", 32, 16, 48, 16);
    runGemm<S8m8>("m8n8k16 s8", 24, 16, 32, 16);
    runGemm<S4x64>("m16n8k64 s4", 32, 16, 128, 0);
    runGemm<U4x32>("m16n8k32 u4", 16, 16, 96, 0);
    runGemm<S4m8Sat>("m8n8k32 s4 x u4 satfinite", 16, 16, 64, 0, true);
    runGemm<B1x256And>("m16n8k256 b1 and", 16, 16, 512, 0);
    runGemm<B1x128And>("m16n8k128 b1 and", 32, 8, 256, 0);
    runGemm<B1m8Xor>("m8n8k128 b1 xor", 16, 16, 256, 0);
    runGemm<F64m8>("m8n8k4 f64", 16, 16, 24, 2);
    runGemm<F64x4>("m16n8k4 f64", 32, 16, 16, 2);
    runGemm<F64x8>("m16n8k8 f64", 16, 16, 32, 0);
    runGemm<F64x16>("m16n8k16 f64", 16, 16, 48, 2);
    runGemm<E4M3xE5M2>("m16n8k32 e4m3 x e5m2", 32, 16, 64, 16);
    runLdmatrix();
    return finish();
}

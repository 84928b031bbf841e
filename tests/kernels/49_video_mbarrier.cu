// ptxsim test kernel: video_mbarrier
// Self-checking: prints PASS video_mbarrier / FAIL video_mbarrier.
static const char* kName = "video_mbarrier";
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Inline PTX video instructions (scalar with byte/halfword selectors, .sat, secondary
// operations and merges, vshl/vshr, vmad; SIMD vadd4/vsub4/vabsdiff4/vavrg2/vmin2/vmax4/vset2/
// vset4 with masks and accumulation) checked against host references; and mbarrier
// (sm_80+: init, arrive, test_wait with tokens, pending_count, over 8 phases of a
// 4-warp exchange; sm_90+: arrive.expect_tx, complete_tx, try_wait.parity). Below those
// architectures the kernel falls back to __syncthreads and computes the same values.

#define NV 16

__device__ __forceinline__ unsigned v1(unsigned a, unsigned b, unsigned c, int k) {
    unsigned d = 0;
    switch (k) {
    case 0: asm("vadd4.u32.u32.u32.sat %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); break;
    case 1: asm("vsub4.s32.s32.s32.sat %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); break;
    case 2: asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); break;
    case 3: asm("vavrg2.u32.u32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); break;
    case 4: asm("vmin2.s32.s32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); break;
    case 5: asm("vmax4.u32.u32.u32 %0.b20, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); break;
    case 6: asm("vset4.u32.u32.lt %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); break;
    case 7: asm("vset2.s32.s32.ge.add %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); break;
    case 8: asm("vadd.s32.u32.s32.sat %0, %1.b0, %2.h1;" : "=r"(d) : "r"(a), "r"(b)); break;
    case 9: asm("vsub.u32.u32.u32.sat %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); break;
    case 10: asm("vabsdiff.s32.s32.s32.max %0, %1.h0, %2.h1, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); break;
    case 11: asm("vmin.u32.u32.u32 %0.h1, %1.b2, %2.b3, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); break;
    case 12: asm("vshl.u32.u32.u32.wrap.add %0, %1.b1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); break;
    case 13: asm("vshr.s32.s32.u32.clamp %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); break;
    case 14: asm("vmad.u32.u32.u32.shr15 %0, %1.h0, %2.h0, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); break;
    default: asm("vset.s32.s32.gt.add %0, %1.b3, %2.b0, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); break;
    }
    return d;
}

__global__ void video_kernel(const unsigned* A, const unsigned* B, const unsigned* C, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned a = A[i], b = B[i], c = C[i];
#pragma unroll
    for (int k = 0; k < NV; ++k) out[i * NV + k] = v1(a, b, c, k);
}

// --- host references (PTX ISA video semantics) ---
static unsigned byteOf(unsigned x, int i) { return (x >> (8 * i)) & 0xff; }
static unsigned halfOf(unsigned x, int i) { return (x >> (16 * i)) & 0xffff; }
static int sbyte(unsigned x, int i) { return (signed char)byteOf(x, i); }
static int shalf(unsigned x, int i) { return (short)halfOf(x, i); }
static long long clampll(long long v, long long lo, long long hi) { return v < lo ? lo : v > hi ? hi : v; }

static unsigned ref(unsigned a, unsigned b, unsigned c, int k) {
    unsigned d = 0;
    switch (k) {
    case 0: for (int i = 0; i < 4; ++i) d |= (unsigned)clampll(byteOf(a, i) + byteOf(b, i), 0, 255) << (8 * i); return d;
    case 1: for (int i = 0; i < 4; ++i) d |= ((unsigned)clampll(sbyte(a, i) - sbyte(b, i), -128, 127) & 0xff) << (8 * i); return d;
    case 2: d = c; for (int i = 0; i < 4; ++i) d += (unsigned)abs((int)byteOf(a, i) - (int)byteOf(b, i)); return d;
    case 3: for (int i = 0; i < 2; ++i) d |= (((halfOf(a, i) + halfOf(b, i) + 1) >> 1) & 0xffff) << (16 * i); return d;
    case 4: for (int i = 0; i < 2; ++i) { int m = shalf(a, i) < shalf(b, i) ? shalf(a, i) : shalf(b, i); d |= ((unsigned)m & 0xffff) << (16 * i); } return d;
    case 5: for (int i = 0; i < 4; ++i) { unsigned m = byteOf(a, i) > byteOf(b, i) ? byteOf(a, i) : byteOf(b, i); d |= ((i == 0 || i == 2) ? m : byteOf(c, i)) << (8 * i); } return d;
    case 6: for (int i = 0; i < 4; ++i) d |= (unsigned)(byteOf(a, i) < byteOf(b, i)) << (8 * i); return d;
    case 7: d = c; for (int i = 0; i < 2; ++i) d += shalf(a, i) >= shalf(b, i); return d;
    case 8: return (unsigned)(int)clampll((long long)byteOf(a, 0) + shalf(b, 1), INT32_MIN, INT32_MAX);
    case 9: return (unsigned)clampll((long long)a - (long long)b, 0, 0xffffffffll);
    case 10: { long long t = llabs((long long)shalf(a, 0) - shalf(b, 1)); long long cv = (int)c; return (unsigned)(t > cv ? t : cv); }
    // d.h1 merge: the H100 keeps the result's own bits 31:16 (in place; the PTX ISA text
    // shifts the low half up): a byte-sized minimum leaves zeros there
    case 11: { unsigned m = byteOf(a, 2) < byteOf(b, 3) ? byteOf(a, 2) : byteOf(b, 3); return (m & 0xffff0000u) | (c & 0xffff); }
    case 12: return (byteOf(a, 1) << (b & 31)) + c;
    case 13: { int s = b > 32 ? 32 : (int)b; return (unsigned)(int)((long long)(int)a >> s); }
    // vmad: the H100 sign-extends c even with unsigned types (the PTX ISA text zero-extends it)
    case 14: return (unsigned)(((long long)halfOf(a, 0) * halfOf(b, 0) + (int)c) >> 15);
    default: return (unsigned)(sbyte(a, 3) > sbyte(b, 0)) + c;
    }
}

// --- mbarrier ---
#define MB_THREADS 128
#define MB_OUT 6

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
__device__ __forceinline__ unsigned long long mbArrive(unsigned bar) {
    unsigned long long st;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(st) : "r"(bar) : "memory");
    return st;
}
__device__ __forceinline__ void mbWait(unsigned bar, unsigned long long st) {
    unsigned done = 0;
    while (!done)
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.test_wait.shared.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}" : "=r"(done) : "r"(bar), "l"(st) : "memory");
}
#endif

__global__ void mbarrier_kernel(unsigned* out) {
    __shared__ unsigned buf[MB_THREADS], buf2[MB_THREADS];
    unsigned t = threadIdx.x, blk = blockIdx.x;
    unsigned* o = out + (blk * MB_THREADS + t) * MB_OUT;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    __shared__ unsigned long long bar, bar2;
    unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
    unsigned b2 = (unsigned)__cvta_generic_to_shared(&bar2);
    if (t == 0) {
        asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(b), "r"(MB_THREADS) : "memory");
        asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(b2), "r"(1) : "memory");
    }
    __syncthreads();
    unsigned pendingOk = 1;
    for (unsigned p = 0; p < 4; ++p) {
        buf[t] = t * (p + 1) + blk;
        unsigned long long st = mbArrive(b);
        if (p == 0) {
            unsigned pc;
            asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pc) : "l"(st));
            pendingOk = pc >= 1 && pc <= MB_THREADS;
        }
        mbWait(b, st);
        o[p] = buf[(t + 32 * (p + 1)) % MB_THREADS];
        mbWait(b, mbArrive(b)); // every read is done before the next round writes
    }
    o[5] = pendingOk;
#else
    for (unsigned p = 0; p < 4; ++p) {
        buf[t] = t * (p + 1) + blk;
        __syncthreads();
        o[p] = buf[(t + 32 * (p + 1)) % MB_THREADS];
        __syncthreads();
    }
    o[5] = 1;
#endif
    buf2[t] = t * 7 + 3 + blk;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    // one arrival that expects 4 bytes per thread; each thread completes its 4 bytes
    if (t == 0) {
        unsigned long long st;
        asm volatile("mbarrier.arrive.expect_tx.shared.b64 %0, [%1], %2;"
                     : "=l"(st) : "r"(b2), "r"(MB_THREADS * 4) : "memory");
        unsigned pc; // the token is the state before the arrival: one arrival pending
        asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pc) : "l"(st));
        if (pc != 1) o[5] = 2;
    }
    __threadfence_block();
    asm volatile("mbarrier.complete_tx.shared::cta.b64 [%0], 4;" :: "r"(b2) : "memory");
    unsigned done = 0;
    while (!done)
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared.b64 p, [%1], 0;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}" : "=r"(done) : "r"(b2) : "memory");
#else
    __syncthreads();
#endif
    o[4] = buf2[(t + 64) % MB_THREADS];
}

int main() {
    const int n = 1000;
    unsigned *hA = (unsigned*)malloc(n * 4), *hB = (unsigned*)malloc(n * 4), *hC = (unsigned*)malloc(n * 4);
    unsigned x = 12345;
    auto rnd = [&]() { x = x * 1664525u + 1013904223u; return x ^ (x >> 13); };
    for (int i = 0; i < n; ++i) { hA[i] = rnd(); hB[i] = rnd(); hC[i] = rnd(); }
    // a few edge values
    hA[0] = 0xffffffff; hB[0] = 0x00000001; hC[0] = 0x7fffffff;
    hA[1] = 0x80808080; hB[1] = 0x7f7f7f7f; hC[1] = 0;
    hA[2] = 0; hB[2] = 40; hC[2] = 0xffffffff;
    unsigned *dA, *dB, *dC, *dOut;
    CK(cudaMalloc(&dA, n * 4)); CK(cudaMalloc(&dB, n * 4)); CK(cudaMalloc(&dC, n * 4));
    CK(cudaMalloc(&dOut, n * NV * 4));
    CK(cudaMemcpy(dA, hA, n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, hB, n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dC, hC, n * 4, cudaMemcpyHostToDevice));
    video_kernel<<<(n + 127) / 128, 128>>>(dA, dB, dC, dOut, n);
    CK(cudaGetLastError());
    unsigned* hOut = (unsigned*)malloc(n * NV * 4);
    CK(cudaMemcpy(hOut, dOut, n * NV * 4, cudaMemcpyDeviceToHost));
    int badPerOp[NV] = {}, firstBad[NV];
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < NV; ++k) {
            unsigned want = ref(hA[i], hB[i], hC[i], k);
            if (hOut[i * NV + k] != want && badPerOp[k]++ == 0) firstBad[k] = i;
            EXPECT(hOut[i * NV + k] == want, "video op %d, element %d (a=%08x b=%08x c=%08x): got %08x, want %08x",
                   k, i, hA[i], hB[i], hC[i], hOut[i * NV + k], want);
        }
    // one line per failing op, so a run on a GPU tells which semantics differ
    for (int k = 0; k < NV; ++k)
        if (badPerOp[k]) {
            int i = firstBad[k];
            printf("video op %d: %d mismatches, first element %d (a=%08x b=%08x c=%08x): got %08x, want %08x\n", k,
                   badPerOp[k], i, hA[i], hB[i], hC[i], hOut[i * NV + k], ref(hA[i], hB[i], hC[i], k));
        }

    const int blocks = 3, total = blocks * MB_THREADS * MB_OUT;
    unsigned* dMb;
    CK(cudaMalloc(&dMb, total * 4));
    CK(cudaMemset(dMb, 0xff, total * 4));
    mbarrier_kernel<<<blocks, MB_THREADS>>>(dMb);
    CK(cudaGetLastError());
    unsigned* hMb = (unsigned*)malloc(total * 4);
    CK(cudaMemcpy(hMb, dMb, total * 4, cudaMemcpyDeviceToHost));
    for (unsigned blk = 0; blk < blocks; ++blk)
        for (unsigned t = 0; t < MB_THREADS; ++t) {
            const unsigned* o = hMb + (blk * MB_THREADS + t) * MB_OUT;
            for (unsigned p = 0; p < 4; ++p) {
                unsigned idx = (t + 32 * (p + 1)) % MB_THREADS;
                EXPECT(o[p] == idx * (p + 1) + blk, "mbarrier round %u block %u thread %u: got %u, want %u",
                       p, blk, t, o[p], idx * (p + 1) + blk);
            }
            unsigned want4 = ((t + 64) % MB_THREADS) * 7 + 3 + blk;
            EXPECT(o[4] == want4, "tx exchange block %u thread %u: got %u, want %u", blk, t, o[4], want4);
            EXPECT(o[5] == 1, "pending_count out of range, block %u thread %u", blk, t);
        }
    CK(cudaFree(dA)); CK(cudaFree(dB)); CK(cudaFree(dC)); CK(cudaFree(dOut)); CK(cudaFree(dMb));
    free(hA); free(hB); free(hC); free(hOut); free(hMb);
    return finish();
}

// ptxsim e2e: scoped and narrow atomics and libcu++ atomics, against host expectations.
//   - atomicAdd/Max/Min/And/Or/Xor/Exch/CAS in the _block and _system forms on shared, global
//     and managed memory (int, unsigned long long, float, double)
//   - 16-bit atomicCAS (sm_70+): two counters packed in one word updated by CAS loops without
//     disturbing each other, in global and shared memory
//   - atomicAdd on __half, __half2, __nv_bfloat16 and __nv_bfloat162 (bf16 on sm_80+)
//   - sm_90: vector atomicAdd on float2/float4 and 128-bit atomicCAS/atomicExch
//   - libcu++: cuda::atomic_ref with memory orders and scopes (fetch_add, fetch_min/max,
//     compare_exchange, load acquire / store release message passing), cuda::atomic in shared
//     memory at block scope, cuda::std::atomic objects constructed in device memory,
//     cuda::std::atomic_flag spin locks guarding plain data, atomic_thread_fence, wait/notify
// Values are chosen so that every sum is exact whatever the order of the additions.
#include <cstdint>
#include <cstring>
#include <new>
#include <vector>
static const char *kName = "atomics_scopes";
#include "../kernels/test_common.h"
#include <cuda/atomic>
#include <cuda/std/atomic>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__device__ int g_skipped;

// ---- scoped atomics ------------------------------------------------------------------------------
struct Scoped {
    int blockSum;            // per-block shared totals folded in with atomicAdd
    int sysMax, sysMin;
    unsigned sysAnd, sysOr, sysXor;
    unsigned long long u64;
    float f;
    double d;
    int exch;
    int casCount;
};

__global__ void scopedAtomics(Scoped *s, int *perBlock) {
    __shared__ int sh;
    __shared__ float shf;
    __shared__ double shd;
    __shared__ unsigned long long shu;
    int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
    if (t == 0) { sh = 0; shf = 0; shd = 0; shu = 0; }
    __syncthreads();
    atomicAdd_block(&sh, t + 1);
    atomicAdd_block(&shf, 0.5f);
    atomicAdd_block(&shd, 0.25);
    atomicMax_block(&shu, (unsigned long long)g * 3);
    __syncthreads();
    if (t == 0) {
        perBlock[blockIdx.x * 4 + 0] = sh;
        perBlock[blockIdx.x * 4 + 1] = (int)(shf * 2);
        perBlock[blockIdx.x * 4 + 2] = (int)(shd * 4);
        perBlock[blockIdx.x * 4 + 3] = (int)shu;
        atomicAdd_system(&s->blockSum, sh);
    }
    atomicMax_system(&s->sysMax, g * 7 - 500);
    atomicMin_system(&s->sysMin, 1000 - g * 3);
    atomicAnd_system(&s->sysAnd, ~(1u << (g % 32)) | (g >= 32 ? 0xffffffffu : 0u));
    atomicOr_system(&s->sysOr, 1u << (g % 29));
    atomicXor_system(&s->sysXor, (unsigned)g * 0x9e3779b9u);
    atomicAdd_system(&s->u64, (unsigned long long)g << 33);
    atomicAdd_system(&s->f, 0.125f);
    atomicAdd_system(&s->d, 1.0 / 1024);
    atomicExch_system(&s->exch, g);
    int cur = atomicAdd_block(&s->casCount, 0), seen;  // a CAS loop at system scope
    while ((seen = atomicCAS_system(&s->casCount, cur, cur + 1)) != cur) cur = seen;
}

static void checkScoped() {
    const int blocks = 6, threads = 96, n = blocks * threads;
    Scoped *s;
    int *pb;
    CK(cudaMallocManaged(&s, sizeof(Scoped)));
    CK(cudaMallocManaged(&pb, blocks * 4 * sizeof(int)));
    memset(s, 0, sizeof *s);
    s->sysMax = -100000;
    s->sysMin = 100000;
    s->sysAnd = 0xffffffffu;
    s->exch = -1;
    scopedAtomics<<<blocks, threads>>>(s, pb);
    CK(cudaDeviceSynchronize());
    unsigned x = 0;
    for (int g = 0; g < n; ++g) x ^= (unsigned)g * 0x9e3779b9u;
    unsigned orMask = 0;
    for (int g = 0; g < n; ++g) orMask |= 1u << (g % 29);
    for (int b = 0; b < blocks; ++b) {
        int want[4] = {threads * (threads + 1) / 2, threads, threads, (b * threads + threads - 1) * 3};
        for (int k = 0; k < 4; ++k) EXPECT(pb[b * 4 + k] == want[k], "block %d shared atomic %d = %d, expected %d", b, k, pb[b * 4 + k], want[k]);
    }
    unsigned long long u = 0;
    for (int g = 0; g < n; ++g) u += (unsigned long long)g << 33;
    EXPECT(s->blockSum == blocks * threads * (threads + 1) / 2, "blockSum %d", s->blockSum);
    EXPECT(s->sysMax == (n - 1) * 7 - 500 && s->sysMin == 1000 - (n - 1) * 3, "max %d min %d", s->sysMax, s->sysMin);
    EXPECT(s->sysAnd == 0 && s->sysOr == orMask && s->sysXor == x, "and 0x%x or 0x%x xor 0x%x", s->sysAnd, s->sysOr, s->sysXor);
    EXPECT(s->u64 == u, "u64 0x%llx", s->u64);
    EXPECT(s->f == n * 0.125f && s->d == n / 1024.0, "float %g double %g", s->f, s->d);
    EXPECT(s->exch >= 0 && s->exch < n && s->casCount == n, "exch %d cas count %d", s->exch, s->casCount);
    CK(cudaFree(s));
    CK(cudaFree(pb));
}

// ---- 16-bit CAS -----------------------------------------------------------------------------------
// Each thread increments counter (t % 2) of a pair of 16-bit counters in one 32-bit word, in
// global and in shared memory, by CAS loops on the 16-bit halves.
__device__ void inc16(unsigned short *p) {
#if __CUDA_ARCH__ >= 700
    unsigned short cur = *(volatile unsigned short *)p, seen;
    while ((seen = atomicCAS(p, cur, (unsigned short)(cur + 1))) != cur) cur = seen;
#else
    (void)p;
#endif
}

__global__ void cas16(unsigned short *global, unsigned *out) {
    __shared__ unsigned short pair[2];
#if __CUDA_ARCH__ >= 700
    int t = threadIdx.x;
    if (t < 2) pair[t] = (unsigned short)(100 * t);
    __syncthreads();
    inc16(&pair[t % 2]);
    inc16(&global[t % 2]);
    if (t % 3 == 0) inc16(&global[2 + t % 2]);
    __syncthreads();
    if (t == 0) out[blockIdx.x] = pair[0] | ((unsigned)pair[1] << 16);
#else
    if (threadIdx.x == 0) g_skipped = 1;
    (void)global; (void)out; (void)pair;
#endif
}

static void checkCas16() {
    unsigned short *g;
    unsigned *out;
    CK(cudaMallocManaged(&g, 4 * sizeof(unsigned short)));
    CK(cudaMallocManaged(&out, 3 * sizeof(unsigned)));
    g[0] = 1; g[1] = 65530; g[2] = 7; g[3] = 0;
    cas16<<<3, 200>>>(g, out);
    CK(cudaDeviceSynchronize());
    int skipped = 0;
    CK(cudaMemcpyFromSymbol(&skipped, g_skipped, 4));
    if (skipped) {
        printf("  16-bit atomicCAS: skipped (needs sm_70)\n");
    } else {
        // per block: 100 increments of each shared counter; globally 300 of each, 201 in all
        // to the third/fourth (t % 3 == 0: 67 per block, 34 even t and 33 odd t)
        for (int b = 0; b < 3; ++b) EXPECT(out[b] == (100u | (200u << 16)), "block %d shared pair 0x%08x", b, out[b]);
        EXPECT(g[0] == 301 && g[1] == (unsigned short)(65530 + 300), "global pair %u %u", g[0], g[1]);
        EXPECT(g[2] == 7 + 3 * 34 && g[3] == 3 * 33, "second global pair %u %u", g[2], g[3]);
    }
    int zero = 0;
    CK(cudaMemcpyToSymbol(g_skipped, &zero, 4));
    CK(cudaFree(g));
    CK(cudaFree(out));
}

// ---- half and bfloat16 atomics ---------------------------------------------------------------------
__global__ void halfAtomics(__half *h, __half2 *h2, __nv_bfloat16 *b, __nv_bfloat162 *b2) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (float)(t % 4) * 0.25f;  // 0, 0.25, 0.5, 0.75: partial sums stay exact
#if __CUDA_ARCH__ >= 700
    atomicAdd(h, __float2half(v));
#endif
    atomicAdd(h2, __floats2half2_rn(v, -2 * v));
#if __CUDA_ARCH__ >= 800
    atomicAdd(b, __float2bfloat16(1.0f));  // bf16 holds every integer up to 256
    atomicAdd(b2, __floats2bfloat162_rn(1.0f, (float)(t % 2)));
#else
    if (t == 0) g_skipped = 1;
    (void)b; (void)b2;
#endif
}

static void checkHalf() {
    __half *h;
    __half2 *h2;
    __nv_bfloat16 *b;
    __nv_bfloat162 *b2;
    CK(cudaMallocManaged(&h, sizeof *h));
    CK(cudaMallocManaged(&h2, sizeof *h2));
    CK(cudaMallocManaged(&b, sizeof *b));
    CK(cudaMallocManaged(&b2, sizeof *b2));
    *h = __float2half(0.0f);
    *h2 = __floats2half2_rn(0.0f, 0.0f);
    *b = __float2bfloat16(0.0f);
    *b2 = __floats2bfloat162_rn(0.0f, 0.0f);
    const int n = 256;  // 64 of each residue
    halfAtomics<<<2, n / 2>>>(h, h2, b, b2);
    CK(cudaDeviceSynchronize());
    float sum = 64 * (0 + 0.25f + 0.5f + 0.75f);  // 96
    EXPECT(__half2float(*h) == sum, "__half atomicAdd %g, expected %g", __half2float(*h), sum);
    EXPECT(__low2float(*h2) == sum && __high2float(*h2) == -2 * sum, "__half2 atomicAdd %g %g", __low2float(*h2), __high2float(*h2));
    int skipped = 0;
    CK(cudaMemcpyFromSymbol(&skipped, g_skipped, 4));
    if (skipped) {
        printf("  bf16 atomicAdd: skipped (needs sm_80)\n");
        int zero = 0;
        CK(cudaMemcpyToSymbol(g_skipped, &zero, 4));
    } else {
        EXPECT(__bfloat162float(*b) == n, "bf16 atomicAdd %g, expected %d", __bfloat162float(*b), n);
        EXPECT(__low2float(*b2) == n && __high2float(*b2) == n / 2, "bf162 atomicAdd %g %g", __low2float(*b2), __high2float(*b2));
    }
    CK(cudaFree(h)); CK(cudaFree(h2)); CK(cudaFree(b)); CK(cudaFree(b2));
}

// ---- sm_90: vector and 128-bit atomics -------------------------------------------------------------
struct alignas(16) Quad { unsigned long long lo, hi; };

__global__ void wideAtomics(float2 *v2, float4 *v4, Quad *q, Quad *xq, int *wins) {
#if __CUDA_ARCH__ >= 900
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float2 a = atomicAdd(v2, make_float2(1.0f, 0.5f));
    float4 c = atomicAdd_block(v4, make_float4(1.0f, 2.0f, -1.0f, 0.25f));
    (void)a; (void)c;
    // a 128-bit CAS loop: lo counts the increments, hi accumulates the thread ids
    Quad cur = *q;
    while (true) {
        Quad want{cur.lo + 1, cur.hi + (unsigned long long)t};
        Quad seen = atomicCAS(q, cur, want);
        if (seen.lo == cur.lo && seen.hi == cur.hi) break;
        cur = seen;
    }
    Quad mine{(unsigned long long)t, ~(unsigned long long)t};
    Quad old = atomicExch(xq, mine);
    if (old.hi == ~old.lo) atomicAdd(wins, 1);  // every value exchanged out is a whole pair
#else
    if (blockIdx.x == 0 && threadIdx.x == 0) g_skipped = 1;
    (void)v2; (void)v4; (void)q; (void)xq; (void)wins;
#endif
}

static void checkWide() {
    float2 *v2;
    float4 *v4;
    Quad *q, *xq;
    int *wins;
    CK(cudaMallocManaged(&v2, sizeof *v2));
    CK(cudaMallocManaged(&v4, sizeof *v4));
    CK(cudaMallocManaged(&q, sizeof *q));
    CK(cudaMallocManaged(&xq, sizeof *xq));
    CK(cudaMallocManaged(&wins, sizeof *wins));
    *v2 = make_float2(0, 0);
    *v4 = make_float4(0, 0, 0, 0);
    *q = Quad{0, 0};
    *xq = Quad{5, ~5ull};
    *wins = 0;
    const int blocks = 1, threads = 128;  // one block: atomicAdd_block on v4 is enough
    wideAtomics<<<blocks, threads>>>(v2, v4, q, xq, wins);
    CK(cudaDeviceSynchronize());
    int skipped = 0;
    CK(cudaMemcpyFromSymbol(&skipped, g_skipped, 4));
    if (skipped) {
        printf("  vector and 128-bit atomics: skipped (needs sm_90)\n");
        int zero = 0;
        CK(cudaMemcpyToSymbol(g_skipped, &zero, 4));
    } else {
        const int n = blocks * threads;
        EXPECT(v2->x == n && v2->y == n * 0.5f, "float2 atomicAdd %g %g", v2->x, v2->y);
        EXPECT(v4->x == n && v4->y == 2 * n && v4->z == -n && v4->w == n * 0.25f, "float4 atomicAdd %g %g %g %g", v4->x, v4->y, v4->z, v4->w);
        EXPECT(q->lo == (unsigned long long)n && q->hi == (unsigned long long)n * (n - 1) / 2, "128-bit CAS lo %llu hi %llu", q->lo, q->hi);
        EXPECT(*wins == n && xq->hi == ~xq->lo && xq->lo < (unsigned long long)n, "128-bit exchange: %d whole pairs, last %llu", *wins, xq->lo);
    }
    CK(cudaFree(v2)); CK(cudaFree(v4)); CK(cudaFree(q)); CK(cudaFree(xq)); CK(cudaFree(wins));
}

// ---- libcu++ --------------------------------------------------------------------------------------
struct LibState {
    int counter;
    unsigned long long maxv, minv;
    float fsum;
    int payload[32];
    int flag;
    int cas;
    int guarded;        // plain int protected by the spin lock
    int lockWord;
    int waitValue;
    int results[64];
};

__device__ cuda::std::atomic<int> g_atomicCounter(0);  // a statically initialised device atomic

// Constructs the atomic in device memory before libcuxx runs: constructing it inside libcuxx (in
// one block) would race with the other blocks' fetch_sub, as the blocks run in no set order.
__global__ void constructAtomic(cuda::std::atomic<long long> *constructed) {
    new (constructed) cuda::std::atomic<long long>(1000);
}

__global__ void libcuxx(LibState *s, cuda::std::atomic<long long> *constructed) {
    using cuda::std::memory_order_relaxed;
    using cuda::std::memory_order_acquire;
    using cuda::std::memory_order_release;
    using cuda::std::memory_order_acq_rel;
    int t = threadIdx.x, g = blockIdx.x * blockDim.x + t, lane = t % 32, warp = t / 32;
    __shared__ cuda::atomic<int, cuda::thread_scope_block> blockCount;
    if (t == 0) new (&blockCount) cuda::atomic<int, cuda::thread_scope_block>(0);
    __syncthreads();
    blockCount.fetch_add(2, memory_order_relaxed);

    cuda::atomic_ref<int, cuda::thread_scope_device> counter(s->counter);
    counter.fetch_add(1, memory_order_relaxed);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_system> mx(s->maxv), mn(s->minv);
    mx.fetch_max((unsigned long long)g * 11, memory_order_relaxed);
    mn.fetch_min(5000ull - g, memory_order_relaxed);
    cuda::atomic_ref<float, cuda::thread_scope_device> fs(s->fsum);
    fs.fetch_add(0.5f, memory_order_relaxed);
    g_atomicCounter.fetch_add(3);
    cuda::atomic_ref<int, cuda::thread_scope_device> cas(s->cas);
    int expected = cas.load(memory_order_relaxed);
    while (!cas.compare_exchange_strong(expected, expected + 2, memory_order_acq_rel, memory_order_relaxed)) {
    }
    // message passing in block 0: warp 0 publishes, warp 1 consumes
    if (blockIdx.x == 0) {
        cuda::atomic_ref<int, cuda::thread_scope_device> flag(s->flag);
        if (warp == 0) {
            s->payload[lane] = lane * 3 + 1;
            __syncwarp();
            if (lane == 0) flag.store(1, memory_order_release);
        } else if (warp == 1) {
            while (flag.load(memory_order_acquire) == 0) {
            }
            s->results[lane] = s->payload[lane];
        }
    }
    // a spin lock (atomic_flag over an int word) guarding a non-atomic read-modify-write
    {
        cuda::atomic_ref<int, cuda::thread_scope_device> lock(s->lockWord);
        if (lane == 0) {  // one thread per warp takes the lock (no intra-warp deadlock)
            int zero = 0;
            while (!lock.compare_exchange_weak(zero, 1, memory_order_acquire, memory_order_relaxed)) zero = 0;
            volatile int *gp = &s->guarded;
            int v = *gp;
            *gp = v + warp + 1;
            lock.store(0, memory_order_release);
        }
    }
    cuda::atomic_thread_fence(memory_order_acq_rel, cuda::thread_scope_device);
    constructed->fetch_sub(1, memory_order_relaxed);
    // wait / notify within block 1: thread 0 waits until thread 32 changes the value
    if (blockIdx.x == 1) {
        cuda::atomic_ref<int, cuda::thread_scope_device> w(s->waitValue);
        if (t == 0) {
            w.wait(0, memory_order_acquire);
            s->results[32] = w.load(memory_order_relaxed);
        } else if (t == 32) {
            w.store(42, memory_order_release);
            w.notify_all();
        }
    }
    __syncthreads();
    if (t == 0) s->results[40 + blockIdx.x] = blockCount.load();
}

static void checkLibcuxx() {
    LibState *s;
    cuda::std::atomic<long long> *constructed;
    CK(cudaMallocManaged(&s, sizeof *s));
    CK(cudaMalloc(&constructed, sizeof *constructed));
    memset(s, 0, sizeof *s);
    s->minv = ~0ull;
    const int blocks = 3, threads = 128, n = blocks * threads;
    constructAtomic<<<1, 1>>>(constructed);
    libcuxx<<<blocks, threads>>>(s, constructed);
    CK(cudaDeviceSynchronize());
    long long left = 0;
    CK(cudaMemcpy(&left, constructed, sizeof left, cudaMemcpyDeviceToHost));
    int gc = 0;
    CK(cudaMemcpyFromSymbol(&gc, g_atomicCounter, sizeof gc));
    EXPECT(s->counter == n && s->cas == 2 * n, "atomic_ref counter %d cas %d", s->counter, s->cas);
    EXPECT(s->maxv == (unsigned long long)(n - 1) * 11 && s->minv == 5000ull - (n - 1), "fetch_max %llu fetch_min %llu", s->maxv, s->minv);
    EXPECT(s->fsum == n * 0.5f, "float fetch_add %g", s->fsum);
    EXPECT(gc == 3 * n, "device cuda::std::atomic %d", gc);
    EXPECT(left == 1000 - n, "atomic constructed in device memory: %lld", left);
    for (int l = 0; l < 32; ++l) EXPECT(s->results[l] == l * 3 + 1, "message passing lane %d: %d", l, s->results[l]);
    EXPECT(s->results[32] == 42, "wait/notify saw %d", s->results[32]);
    int guarded = blocks * (1 + 2 + 3 + 4);
    EXPECT(s->guarded == guarded && s->lockWord == 0, "spin-locked sum %d (expected %d), lock %d", s->guarded, guarded, s->lockWord);
    for (int b = 0; b < blocks; ++b) EXPECT(s->results[40 + b] == 2 * threads, "block-scope atomic in block %d: %d", b, s->results[40 + b]);
    CK(cudaFree(s));
    CK(cudaFree(constructed));
}

int main() {
    checkScoped();
    checkCas16();
    checkHalf();
    checkWide();
    checkLibcuxx();
    return finish();
}

// ptxsim e2e: inline PTX for less common instructions, each checked against a host model.
//   - bit operations on edge and random values: bfind(.shiftamt) .u32/.s32/.u64/.s64,
//     bmsk.clamp/.wrap, szext.clamp/.wrap .u32/.s32, fns, prmt in the default and every named
//     mode, dp4a/dp2a in every signedness, copysign .f32/.f64
//   - special registers: every %lanemask_*, %globaltimer (monotonic), in divergent code
//   - memory-model forms: ld/st .relaxed/.acquire/.release with .cta/.gpu/.sys scopes, atom and
//     red with .relaxed/.acquire/.release/.acq_rel and scopes, fence.sc/.acq_rel, a message
//     passed between warps through a release store and an acquire load
//   - cp.async.ca/.cg with src-size zero fill (every partial size) and ignore-src (sm_80+)
//   - alloca (dynamic stack allocation, stacksave/stackrestore): per-thread sizes in a kernel,
//     in a device function called 200 times (freed at each return) and in a loop
//   - elect.sync, griddepcontrol.wait/launch_dependents with programmatic dependent launch
//     (cudaLaunchKernelEx), cp.async.bulk global->shared with mbarrier complete_tx and
//     shared->global with bulk groups, fence.proxy.async (sm_90+)
// setmaxnreg needs sm_90a and is not built here.
#include <cstdint>
#include <cstring>
#include <cmath>
#include <vector>
static const char *kName = "ptx_misc";
#include "../kernels/test_common.h"

__device__ int g_skipped;

// ---- host models ---------------------------------------------------------------------------------
static uint32_t hBfind(uint64_t a, bool sgn, bool wide, bool shiftamt) {
    int msb = wide ? 63 : 31;
    if (!wide) a &= 0xffffffffu;
    if (sgn && ((a >> msb) & 1)) a = ~a & (wide ? ~0ull : 0xffffffffull);
    uint32_t d = 0xffffffffu;
    for (int i = msb; i >= 0; --i)
        if ((a >> i) & 1) { d = i; break; }
    if (shiftamt && d != 0xffffffffu) d = msb - d;
    return d;
}
static uint32_t hBmsk(uint32_t a, uint32_t b, bool clamp) {
    uint32_t a1 = a & 31, b1 = b & 31, sum = a1 + b1;
    uint32_t mask0 = ~0u << a1, mask1 = sum >= 32 ? 0 : ~0u << sum;
    bool posOver = false, widthOver = false;
    if (clamp) {
        if (a >= 32) { posOver = true; mask0 = 0; }
        if (b >= 32) widthOver = true;
    }
    if (sum >= 32 || posOver || widthOver) mask1 = 0;
    else if (b1 == 0) mask1 = ~0u;
    return mask0 & ~mask1;
}
static uint32_t hSzext(uint32_t a, uint32_t b, bool clamp, bool sgn) {
    uint32_t b1 = b & 31;
    bool tooLarge = b >= 32 && clamp;
    uint32_t mask = tooLarge ? 0 : ~0u << b1;
    uint32_t signPos = (b1 - 1) & 31;
    bool signBit = !(b1 == 0 || tooLarge || !sgn) && ((a >> signPos) & 1);
    return (a & ~mask) | (signBit ? mask : 0);
}
static uint32_t hFns(uint32_t mask, uint32_t base, int offset) {
    if (offset == 0) return (mask >> base) & 1 ? base : 0xffffffffu;
    int pos = base, count = (offset < 0 ? -offset : offset) - 1, inc = offset > 0 ? 1 : -1;
    while (pos >= 0 && pos < 32) {
        if ((mask >> pos) & 1) {
            if (count == 0) return pos;
            --count;
        }
        pos += inc;
    }
    return 0xffffffffu;
}
static uint32_t hPrmt(uint32_t a, uint32_t b, uint32_t c, int mode) {
    // mode 0: default; 1..6: f4e, b4e, rc8, ecl, ecr, rc16 (result byte 3 in the top nibble)
    static const uint16_t sel[6][4] = {{0x3210, 0x4321, 0x5432, 0x6543}, {0x5670, 0x6701, 0x7012, 0x0123},
                                       {0x0000, 0x1111, 0x2222, 0x3333}, {0x3210, 0x3211, 0x3222, 0x3333},
                                       {0x0000, 0x1110, 0x2210, 0x3210}, {0x1010, 0x3232, 0x1010, 0x3232}};
    uint64_t src = ((uint64_t)b << 32) | a;
    uint32_t s = mode ? sel[mode - 1][c & 3] : c, r = 0;
    for (int k = 0; k < 4; ++k) {
        uint32_t nib = (s >> (4 * k)) & 15, byte = (uint32_t)(src >> (8 * (nib & 7))) & 255;
        if (!mode && (nib & 8)) byte = byte & 0x80 ? 255 : 0;
        r |= byte << (8 * k);
    }
    return r;
}
static int32_t byteOf(uint32_t v, int i, bool s) { uint32_t x = (v >> (8 * i)) & 255; return s ? (int8_t)x : (int32_t)x; }
static int32_t halfOf(uint32_t v, int i, bool s) { uint32_t x = (v >> (16 * i)) & 0xffff; return s ? (int16_t)x : (int32_t)x; }
static uint32_t hDp4a(uint32_t a, uint32_t b, uint32_t c, bool as, bool bs) {
    uint32_t r = c;
    for (int i = 0; i < 4; ++i) r += (uint32_t)(byteOf(a, i, as) * byteOf(b, i, bs));
    return r;
}
static uint32_t hDp2a(uint32_t a, uint32_t b, uint32_t c, bool as, bool bs, bool hi) {
    uint32_t r = c;
    for (int i = 0; i < 2; ++i) r += (uint32_t)(halfOf(a, i, as) * byteOf(b, i + (hi ? 2 : 0), bs));
    return r;
}

// ---- bit operations ----------------------------------------------------------------------------------
constexpr int kOps = 32;
__global__ void bitOps(const uint32_t *in, uint32_t *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t a = in[i], b = in[(i + 1) % n], c = in[(i + 7) % n];
    uint64_t w = ((uint64_t)b << 32) | a;
    uint32_t *o = out + i * kOps, r;
    asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(a)); o[0] = r;
    asm("bfind.shiftamt.u32 %0, %1;" : "=r"(r) : "r"(a)); o[1] = r;
    asm("bfind.s32 %0, %1;" : "=r"(r) : "r"(a)); o[2] = r;
    asm("bfind.shiftamt.s32 %0, %1;" : "=r"(r) : "r"(a)); o[3] = r;
    asm("bfind.u64 %0, %1;" : "=r"(r) : "l"(w)); o[4] = r;
    asm("bfind.shiftamt.s64 %0, %1;" : "=r"(r) : "l"(w)); o[5] = r;
    uint32_t pa = b & 63, pb = (b >> 8) & 63;  // positions and widths up to 63
    asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(r) : "r"(pa), "r"(pb)); o[6] = r;
    asm("bmsk.wrap.b32 %0, %1, %2;" : "=r"(r) : "r"(pa), "r"(pb)); o[7] = r;
    asm("szext.clamp.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(pb)); o[8] = r;
    asm("szext.wrap.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(pb)); o[9] = r;
    asm("szext.clamp.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(pa)); o[10] = r;
    asm("szext.wrap.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(pa)); o[11] = r;
    int off = (int)((c >> 10) & 15) - 7;
    uint32_t base = (c >> 5) & 31;
    asm("fns.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(base), "r"(off)); o[12] = r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[13] = r;
    asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[14] = r;
    asm("prmt.b32.b4e %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[15] = r;
    asm("prmt.b32.rc8 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[16] = r;
    asm("prmt.b32.ecl %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[17] = r;
    asm("prmt.b32.ecr %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[18] = r;
    asm("prmt.b32.rc16 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[19] = r;
    asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[20] = r;
    asm("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[21] = r;
    asm("dp4a.s32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[22] = r;
    asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[23] = r;
    asm("dp2a.lo.s32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[24] = r;
    asm("dp2a.hi.u32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[25] = r;
    asm("dp2a.lo.u32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[26] = r;
    asm("dp2a.hi.s32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[27] = r;
    float fa = __uint_as_float(a), fb = __uint_as_float(b), fr;
    asm("copysign.f32 %0, %1, %2;" : "=f"(fr) : "f"(fa), "f"(fb)); o[28] = __float_as_uint(fr);
    double da = __longlong_as_double((long long)w), db = __longlong_as_double(((long long)c << 32) | a), dr;
    asm("copysign.f64 %0, %1, %2;" : "=d"(dr) : "d"(da), "d"(db));
    o[29] = (uint32_t)__double_as_longlong(dr);
    o[30] = (uint32_t)(__double_as_longlong(dr) >> 32);
    asm("bfind.s64 %0, %1;" : "=r"(r) : "l"(w)); o[31] = r;
}

static void checkBitOps() {
    const int n = 96;
    std::vector<uint32_t> in(n);
    const uint32_t edge[] = {0, 1, 0xffffffffu, 0x80000000u, 0x7fffffffu, 31, 32, 33, 0x00ff00ffu, 0x12345678u,
                             0xdeadbeefu, 0x80808080u, 0x7f7f7f7fu, 0xffff0000u, 0x0000ffffu, 63, 0x3f3f3f3fu,
                             0x2020u, 0x1f1fu, 0x4000u};
    uint32_t seed = 99;
    for (int i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        in[i] = i < (int)(sizeof edge / sizeof edge[0]) ? edge[i] : seed ^ (seed >> 13);
    }
    uint32_t *dIn, *dOut;
    CK(cudaMalloc(&dIn, n * 4));
    CK(cudaMalloc(&dOut, n * kOps * 4));
    CK(cudaMemcpy(dIn, in.data(), n * 4, cudaMemcpyHostToDevice));
    bitOps<<<2, 64>>>(dIn, dOut, n);
    CK(cudaGetLastError());
    std::vector<uint32_t> out(n * kOps);
    CK(cudaMemcpy(out.data(), dOut, n * kOps * 4, cudaMemcpyDeviceToHost));
    const char *names[kOps] = {"bfind.u32", "bfind.shiftamt.u32", "bfind.s32", "bfind.shiftamt.s32", "bfind.u64",
                               "bfind.shiftamt.s64", "bmsk.clamp", "bmsk.wrap", "szext.clamp.s32", "szext.wrap.s32",
                               "szext.clamp.u32", "szext.wrap.u32", "fns", "prmt", "prmt.f4e", "prmt.b4e", "prmt.rc8",
                               "prmt.ecl", "prmt.ecr", "prmt.rc16", "dp4a.u32.u32", "dp4a.s32.s32", "dp4a.s32.u32",
                               "dp4a.u32.s32", "dp2a.lo.s32.s32", "dp2a.hi.u32.u32", "dp2a.lo.u32.s32",
                               "dp2a.hi.s32.u32", "copysign.f32", "copysign.f64 lo", "copysign.f64 hi", "bfind.s64"};
    for (int i = 0; i < n; ++i) {
        uint32_t a = in[i], b = in[(i + 1) % n], c = in[(i + 7) % n];
        uint64_t w = ((uint64_t)b << 32) | a;
        uint32_t pa = b & 63, pb = (b >> 8) & 63, base = (c >> 5) & 31;
        int off = (int)((c >> 10) & 15) - 7;
        uint32_t want[kOps] = {
            hBfind(a, false, false, false), hBfind(a, false, false, true), hBfind(a, true, false, false),
            hBfind(a, true, false, true), hBfind(w, false, true, false), hBfind(w, true, true, true),
            hBmsk(pa, pb, true), hBmsk(pa, pb, false), hSzext(a, pb, true, true), hSzext(a, pb, false, true),
            hSzext(a, pa, true, false), hSzext(a, pa, false, false), hFns(a, base, off), hPrmt(a, b, c, 0),
            hPrmt(a, b, c, 1), hPrmt(a, b, c, 2), hPrmt(a, b, c, 3), hPrmt(a, b, c, 4), hPrmt(a, b, c, 5),
            hPrmt(a, b, c, 6), hDp4a(a, b, c, false, false), hDp4a(a, b, c, true, true), hDp4a(a, b, c, true, false),
            hDp4a(a, b, c, false, true), hDp2a(a, b, c, true, true, false), hDp2a(a, b, c, false, false, true),
            hDp2a(a, b, c, false, true, false), hDp2a(a, b, c, true, false, true),
            0, 0, 0, hBfind(w, true, true, false)};  // copysign below
        // copysign d = b's magnitude with a's sign (NaN inputs keep their payload bits)
        want[28] = (a & 0x80000000u) | (b & 0x7fffffffu);
        uint64_t db = ((uint64_t)c << 32) | a, dr = (w & 0x8000000000000000ull) | (db & 0x7fffffffffffffffull);
        want[29] = (uint32_t)dr;
        want[30] = (uint32_t)(dr >> 32);
        for (int k = 0; k < kOps; ++k)
            EXPECT(out[i * kOps + k] == want[k], "%s(a=0x%08x, b=0x%08x, c=0x%08x) = 0x%08x, expected 0x%08x", names[k], a, b, c,
                   out[i * kOps + k], want[k]);
    }
    CK(cudaFree(dIn));
    CK(cudaFree(dOut));
}

// ---- special registers -------------------------------------------------------------------------
__global__ void specialRegs(uint32_t *masks, unsigned long long *times, int *ok) {
    int t = threadIdx.x;
    uint32_t eq, lt, le, gt, ge;
    unsigned long long t0, t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    if (t % 3 == 0) {  // divergent: the masks do not depend on which lanes are active
        asm("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
        asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
        asm("mov.u32 %0, %%lanemask_le;" : "=r"(le));
        asm("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
        asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
    } else {
        asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
        asm("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
        asm("mov.u32 %0, %%lanemask_le;" : "=r"(le));
        asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
        asm("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
    }
    masks[t * 5 + 0] = eq; masks[t * 5 + 1] = lt; masks[t * 5 + 2] = le; masks[t * 5 + 3] = gt; masks[t * 5 + 4] = ge;
    int v = 0;
    for (int k = 0; k < 100 + t; ++k) v += k * t;  // some work between the reads
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    times[t * 2] = t0;
    times[t * 2 + 1] = t1;
    ok[t] = v;
}

static void checkSpecialRegs() {
    const int n = 64;
    uint32_t *masks;
    unsigned long long *times;
    int *ok;
    CK(cudaMallocManaged(&masks, n * 5 * 4));
    CK(cudaMallocManaged(&times, n * 2 * 8));
    CK(cudaMallocManaged(&ok, n * 4));
    specialRegs<<<1, n>>>(masks, times, ok);
    CK(cudaDeviceSynchronize());
    for (int t = 0; t < n; ++t) {
        int l = t % 32;
        uint32_t eq = 1u << l, lt = eq - 1, le = lt | eq;
        uint32_t want[5] = {eq, lt, le, ~le, ~lt};
        for (int k = 0; k < 5; ++k) EXPECT(masks[t * 5 + k] == want[k], "lane %d mask %d = 0x%08x, expected 0x%08x", l, k, masks[t * 5 + k], want[k]);
        EXPECT(times[t * 2 + 1] >= times[t * 2], "thread %d: %%globaltimer went back (%llu -> %llu)", t, times[t * 2], times[t * 2 + 1]);
    }
    // a later launch does not see an earlier time
    unsigned long long last = times[1];
    specialRegs<<<1, n>>>(masks, times, ok);
    CK(cudaDeviceSynchronize());
    EXPECT(times[0] >= last, "%%globaltimer in a later launch %llu < %llu", times[0], last);
    CK(cudaFree(masks)); CK(cudaFree(times)); CK(cudaFree(ok));
}

// ---- memory-model forms ------------------------------------------------------------------------
// Warp 0 writes a payload with relaxed stores and publishes it with a release store; warp 1
// spins on an acquire load of the flag and then reads the payload. Every thread also runs
// scoped atomics and reductions on shared counters.
__global__ void memoryOrders(int *payload, int *flag, int *sums, unsigned *counters, unsigned long long *c64) {
    __shared__ int sflag, sdata[32];
    int t = threadIdx.x, lane = t & 31;
    if (t == 0) sflag = 0;
    __syncthreads();
#if __CUDA_ARCH__ >= 700
    if (t < 32) {
        int v = lane * lane + 1;
        asm volatile("st.relaxed.gpu.global.s32 [%0], %1;" :: "l"(payload + lane), "r"(v) : "memory");
        asm volatile("st.relaxed.cta.shared.s32 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(&sdata[lane])), "r"(2 * v) : "memory");
        __syncwarp();
        if (lane == 0) {
            asm volatile("fence.acq_rel.gpu;" ::: "memory");
            asm volatile("st.release.gpu.global.s32 [%0], %1;" :: "l"(flag), "r"(1) : "memory");
            asm volatile("st.release.cta.shared.s32 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(&sflag)), "r"(1) : "memory");
        }
    } else if (t < 64) {
        int f = 0, sf = 0;
        do asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(f) : "l"(flag) : "memory"); while (f == 0);
        do asm volatile("ld.acquire.cta.shared.s32 %0, [%1];" : "=r"(sf) : "r"((unsigned)__cvta_generic_to_shared(&sflag)) : "memory"); while (sf == 0);
        int v, sv;
        asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(payload + lane) : "memory");
        asm volatile("ld.relaxed.cta.shared.s32 %0, [%1];" : "=r"(sv) : "r"((unsigned)__cvta_generic_to_shared(&sdata[lane])) : "memory");
        int sysv;
        asm volatile("ld.acquire.sys.global.s32 %0, [%1];" : "=r"(sysv) : "l"(payload + lane) : "memory");
        sums[lane] = v + sv + sysv;
    }
    unsigned old, oldSum = 0;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(counters + 0) : "memory");
    oldSum += old;
    asm volatile("atom.relaxed.sys.global.add.u32 %0, [%1], 2;" : "=r"(old) : "l"(counters + 1) : "memory");
    oldSum += old;
    asm volatile("atom.acquire.cta.global.max.u32 %0, [%1], %2;" : "=r"(old) : "l"(counters + 2), "r"((unsigned)t) : "memory");
    oldSum += old;
    asm volatile("red.release.gpu.global.add.u32 [%0], %1;" :: "l"(counters + 3), "r"((unsigned)t) : "memory");
    asm volatile("red.relaxed.sys.global.or.b32 [%0], %1;" :: "l"(counters + 4), "r"(1u << (t % 32)) : "memory");
    asm volatile("red.relaxed.cta.global.xor.b32 [%0], %1;" :: "l"(counters + 5), "r"((unsigned)t * 2654435761u) : "memory");
    unsigned long long o64;
    asm volatile("atom.acq_rel.sys.global.add.u64 %0, [%1], %2;" : "=l"(o64) : "l"(c64), "l"((unsigned long long)t << 32) : "memory");
    if (oldSum == 0xffffffffu && o64 == 1) sums[0] = -1;  // never: keeps the old values used
    // a CAS loop at .gpu scope: counters[6] becomes the number of successful increments
    unsigned cur, seen;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(cur) : "l"(counters + 6) : "memory");
    while (true) {
        asm volatile("atom.acq_rel.gpu.global.cas.b32 %0, [%1], %2, %3;" : "=r"(seen) : "l"(counters + 6), "r"(cur), "r"(cur + 1) : "memory");
        if (seen == cur) break;
        cur = seen;
    }
    asm volatile("fence.sc.gpu;" ::: "memory");
    asm volatile("fence.acq_rel.sys;" ::: "memory");
    asm volatile("fence.sc.cta;" ::: "memory");
    asm volatile("membar.gl;" ::: "memory");
#else
    if (t == 0) g_skipped = 1;
    (void)payload; (void)flag; (void)sums; (void)counters; (void)c64; (void)lane; (void)sdata;
#endif
}

static void checkMemoryOrders() {
    int *payload, *flag, *sums;
    unsigned *counters;
    unsigned long long *c64;
    const int threads = 96;
    CK(cudaMallocManaged(&payload, 32 * 4));
    CK(cudaMallocManaged(&flag, 4));
    CK(cudaMallocManaged(&sums, 32 * 4));
    CK(cudaMallocManaged(&counters, 8 * 4));
    CK(cudaMallocManaged(&c64, 8));
    *flag = 0;
    memset(counters, 0, 32);
    *c64 = 0;
    memoryOrders<<<1, threads>>>(payload, flag, sums, counters, c64);
    CK(cudaDeviceSynchronize());
    int skipped = 0;
    CK(cudaMemcpyFromSymbol(&skipped, g_skipped, 4));
    if (skipped) { printf("  memory orders: skipped (needs sm_70)\n"); return; }
    for (int l = 0; l < 32; ++l) EXPECT(sums[l] == 4 * (l * l + 1), "message passing: lane %d read %d, expected %d", l, sums[l], 4 * (l * l + 1));
    unsigned x = 0, sumT = 0;
    for (int t = 0; t < threads; ++t) { sumT += t; x ^= (unsigned)t * 2654435761u; }
    EXPECT(counters[0] == threads && counters[1] == 2 * threads && counters[2] == threads - 1 && counters[3] == sumT &&
           counters[4] == 0xffffffffu && counters[5] == x && counters[6] == threads,
           "scoped atomics: %u %u %u %u 0x%x 0x%x %u", counters[0], counters[1], counters[2], counters[3], counters[4], counters[5], counters[6]);
    EXPECT(*c64 == (unsigned long long)sumT << 32, "64-bit atom.acq_rel.sys: 0x%llx", *c64);
    CK(cudaFree(payload)); CK(cudaFree(flag)); CK(cudaFree(sums)); CK(cudaFree(counters)); CK(cudaFree(c64));
}

// ---- cp.async with zero fill ---------------------------------------------------------------------
// Thread t copies 16 bytes from src + 16 t with src-size t % 17 (0..16), or with ignore-src set
// for t % 5 == 4; 4- and 8-byte .ca copies follow. The shared tile is then written out.
__global__ void cpAsyncZfill(const unsigned char *src, unsigned char *out) {
    __shared__ __align__(16) unsigned char tile[64 * 16 + 64 * 8 + 64 * 4];
    int t = threadIdx.x;
    for (int i = t; i < (int)sizeof tile; i += blockDim.x) tile[i] = 0xee;
    __syncthreads();
#if __CUDA_ARCH__ >= 800
    unsigned d16 = (unsigned)__cvta_generic_to_shared(tile + 16 * t);
    unsigned d8 = (unsigned)__cvta_generic_to_shared(tile + 64 * 16 + 8 * t);
    unsigned d4 = (unsigned)__cvta_generic_to_shared(tile + 64 * 24 + 4 * t);
    const unsigned char *s16 = src + 16 * t;
    unsigned srcSize = t % 17;
    if (t % 5 == 4) {
        int ignore = t % 10 == 4;  // ignore-src true for half of these threads
        asm volatile("{ .reg .pred p; setp.ne.s32 p, %2, 0;\n"
                     "  cp.async.cg.shared.global [%0], [%1], 16, p; }" :: "r"(d16), "l"(s16), "r"(ignore) : "memory");
    } else if (t % 2) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(d16), "l"(s16), "r"(srcSize) : "memory");
    } else {
        asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" :: "r"(d16), "l"(s16), "r"(srcSize) : "memory");
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" :: "r"(d8), "l"(src + 1024 + 8 * t), "r"(t % 9) : "memory");
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(d4), "l"(src + 1536 + 4 * t) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    asm volatile("cp.async.wait_all;" ::: "memory");
#else
    if (t == 0) g_skipped = 1;
#endif
    __syncthreads();
    for (int i = t; i < (int)sizeof tile; i += blockDim.x) out[i] = tile[i];
}

static void checkCpAsync() {
    std::vector<unsigned char> src(2048), out(64 * 28);
    for (int i = 0; i < 2048; ++i) src[i] = (unsigned char)(i * 7 + 3);
    unsigned char *dSrc, *dOut;
    CK(cudaMalloc(&dSrc, 2048));
    CK(cudaMalloc(&dOut, out.size()));
    CK(cudaMemcpy(dSrc, src.data(), 2048, cudaMemcpyHostToDevice));
    cpAsyncZfill<<<1, 64>>>(dSrc, dOut);
    CK(cudaGetLastError());
    CK(cudaMemcpy(out.data(), dOut, out.size(), cudaMemcpyDeviceToHost));
    int skipped = 0;
    CK(cudaMemcpyFromSymbol(&skipped, g_skipped, 4));
    if (skipped) {
        printf("  cp.async: skipped (needs sm_80)\n");
        int zero = 0;
        CK(cudaMemcpyToSymbol(g_skipped, &zero, 4));
    } else {
        for (int t = 0; t < 64; ++t) {
            int keep = t % 5 == 4 ? (t % 10 == 4 ? 0 : 16) : t % 17;
            for (int b = 0; b < 16; ++b) {
                unsigned char want = b < keep ? src[16 * t + b] : 0;
                EXPECT(out[16 * t + b] == want, "cp.async 16 thread %d byte %d (src-size %d) = %d, expected %d", t, b, keep, out[16 * t + b], want);
            }
            for (int b = 0; b < 8; ++b) {
                unsigned char want = b < t % 9 ? src[1024 + 8 * t + b] : 0;
                EXPECT(out[1024 + 8 * t + b] == want, "cp.async 8 thread %d byte %d = %d, expected %d", t, b, out[1024 + 8 * t + b], want);
            }
            for (int b = 0; b < 4; ++b)
                EXPECT(out[1536 + 4 * t + b] == src[1536 + 4 * t + b], "cp.async 4 thread %d byte %d", t, b);
        }
    }
    CK(cudaFree(dSrc));
    CK(cudaFree(dOut));
}

// ---- alloca ----------------------------------------------------------------------------------------
__device__ __noinline__ int sumOfSquares(int n) {
    int *p = (int *)alloca(n * sizeof(int));
    for (int i = 0; i < n; ++i) p[i] = i * i;
    int s = 0;
    for (int i = 0; i < n; ++i) s += p[n - 1 - i];
    return s;
}

__global__ void allocaKernel(int *out) {
    int t = threadIdx.x, n = 1 + t % 13;
    char *buf = (char *)alloca(n * 3 + 1);  // a different size in every lane
    for (int i = 0; i < n * 3 + 1; ++i) buf[i] = (char)(i + t);
    int acc = 0;
    for (int r = 0; r < 200; ++r) acc += sumOfSquares(n + r % 5);
    for (int r = 0; r < 50; ++r) {  // a block per iteration: stacksave/stackrestore
        volatile short *v = (volatile short *)alloca((r % 7 + 1) * sizeof(short));
        v[r % 7] = (short)r;
        acc += v[r % 7];
    }
    for (int i = 0; i < n * 3 + 1; ++i) acc += buf[i];
    out[blockIdx.x * blockDim.x + t] = acc;
}

static void checkAlloca() {
    int *out;
    CK(cudaMallocManaged(&out, 64 * sizeof(int)));
    allocaKernel<<<2, 32>>>(out);
    CK(cudaDeviceSynchronize());
    for (int t = 0; t < 32; ++t) {
        int n = 1 + t % 13, acc = 0;
        for (int r = 0; r < 200; ++r)
            for (int i = 0; i < n + r % 5; ++i) acc += i * i;
        for (int r = 0; r < 50; ++r) acc += r;
        for (int i = 0; i < n * 3 + 1; ++i) acc += (char)(i + t);
        EXPECT(out[t] == acc && out[32 + t] == acc, "alloca thread %d: %d, expected %d", t, out[t], acc);
    }
    CK(cudaFree(out));
}

// ---- sm_90: elect.sync, programmatic dependent launch, bulk copies ------------------------------
__global__ void electKernel(int *leaders, int *electedCount) {
    int t = threadIdx.x;
#if __CUDA_ARCH__ >= 900
    int lane = t & 31;
    unsigned leader;
    int isLeader;
    unsigned member = 0xffffffffu;
    if (lane % 4 == 1) {  // divergent: lanes 1, 5, 9, ... are active
        asm volatile("{ .reg .pred p; elect.sync %0|p, %2; selp.s32 %1, 1, 0, p; }" : "=r"(leader), "=r"(isLeader) : "r"(__activemask()));
    } else {
        member = 0xfffffff0u;  // lanes 0 - 3 (of which 0, 2, 3 are here) sit out
        if (lane >= 4)
            asm volatile("{ .reg .pred p; elect.sync %0|p, %2; selp.s32 %1, 1, 0, p; }" : "=r"(leader), "=r"(isLeader) : "r"(member & __activemask()));
        else
            leader = 99, isLeader = 0;
    }
    leaders[t] = (int)leader;
    if (isLeader) atomicAdd(electedCount + t / 32, 1);
#else
    if (t == 0) g_skipped = 1;
    (void)leaders; (void)electedCount;
#endif
}

__global__ void primary(int *buf, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) buf[i] = i * 3;
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__global__ void secondary(const int *buf, int *out, int n) {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");  // the primary's writes are visible after this
#endif
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = buf[n - 1 - i] + 1;
}

// Bulk copies: 1 KiB global -> shared completing an mbarrier transaction, transformed in shared
// memory, then shared -> global as a bulk group.
__global__ void bulkCopy(const int *src, int *dst) {
#if __CUDA_ARCH__ >= 900
    __shared__ __align__(128) int tile[256];
    __shared__ __align__(8) unsigned long long bar;
    int t = threadIdx.x;
    unsigned sBar = (unsigned)__cvta_generic_to_shared(&bar), sTile = (unsigned)__cvta_generic_to_shared(tile);
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(sBar) : "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncthreads();
    if (t == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;" :: "r"(sBar) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];"
                     :: "r"(sTile), "l"(src), "r"(sBar) : "memory");
    }
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(sBar) : "memory");
    tile[t] = tile[t] * 2 + t;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // generic writes -> async proxy
    __syncthreads();
    if (t == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;" :: "l"(dst), "r"(sTile) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
#else
    if (threadIdx.x == 0) g_skipped = 1;
    (void)src; (void)dst;
#endif
}

static void checkSm90() {
    int *leaders, *count;
    CK(cudaMallocManaged(&leaders, 64 * 4));
    CK(cudaMallocManaged(&count, 2 * 4));
    count[0] = count[1] = 0;
    electKernel<<<1, 64>>>(leaders, count);
    CK(cudaDeviceSynchronize());
    int skipped = 0;
    CK(cudaMemcpyFromSymbol(&skipped, g_skipped, 4));
    if (skipped) {
        printf("  elect/griddepcontrol/bulk copies: skipped (needs sm_90)\n");
    } else {
        // PTX does not say which thread is elected: every member agrees on one leader, which is
        // a member of its own group (ptxsim elects the lowest lane)
        for (int w = 0; w < 2; ++w)
            for (int grp = 0; grp < 2; ++grp) {
                int first = -1;
                for (int lane = 0; lane < 32; ++lane) {
                    bool member = grp == 0 ? lane % 4 == 1 : (lane % 4 != 1 && lane >= 4);
                    if (!member) continue;
                    int leader = leaders[w * 32 + lane];
                    if (first < 0) first = leader;
                    bool leaderIsMember = grp == 0 ? leader % 4 == 1 : (leader % 4 != 1 && leader >= 4);
                    EXPECT(leader == first && leader >= 0 && leader < 32 && leaderIsMember,
                           "elect.sync warp %d lane %d: leader %d (group leader %d)", w, lane, leader, first);
                }
            }
        for (int lane = 0; lane < 4; ++lane)
            if (lane != 1) EXPECT(leaders[lane] == 99, "lane %d sat out but got %d", lane, leaders[lane]);
        EXPECT(count[0] == 2 && count[1] == 2, "elect.sync elected %d and %d leaders, expected 2 per warp", count[0], count[1]);
    }
    // programmatic dependent launch through cudaLaunchKernelEx
    const int n = 500;
    int *buf, *out;
    CK(cudaMallocManaged(&buf, n * 4));
    CK(cudaMallocManaged(&out, n * 4));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    primary<<<(n + 127) / 128, 128, 0, s>>>(buf, n);
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3((n + 127) / 128);
    cfg.blockDim = dim3(128);
    cfg.stream = s;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    CK(cudaLaunchKernelEx(&cfg, secondary, (const int *)buf, out, n));
    CK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) EXPECT(out[i] == (n - 1 - i) * 3 + 1, "dependent launch: out[%d] = %d", i, out[i]);
    CK(cudaStreamDestroy(s));
    // bulk copies
    int *src, *dst;
    CK(cudaMallocManaged(&src, 1024));
    CK(cudaMallocManaged(&dst, 1024));
    for (int i = 0; i < 256; ++i) { src[i] = i * 11 - 700; dst[i] = 0; }
    bulkCopy<<<1, 256>>>(src, dst);
    CK(cudaDeviceSynchronize());
    if (!skipped)
        for (int i = 0; i < 256; ++i) EXPECT(dst[i] == (i * 11 - 700) * 2 + i, "bulk copy: dst[%d] = %d", i, dst[i]);
    CK(cudaFree(leaders)); CK(cudaFree(count)); CK(cudaFree(buf)); CK(cudaFree(out)); CK(cudaFree(src)); CK(cudaFree(dst));
}

int main() {
    checkBitOps();
    checkSpecialRegs();
    checkMemoryOrders();
    checkCpAsync();
    checkAlloca();
    checkSm90();
    return finish();
}

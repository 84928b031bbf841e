// ptxsim test kernel: int_bitops
// Self-checking: prints PASS int_bitops / FAIL int_bitops.
#include <cstdint>
static const char* kName = "int_bitops";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Integer arithmetic and bit intrinsics: __popc, __clz, __ffs, __brev, __byte_perm,
// __funnelshift_*, __mul24, __umul24, __mulhi, __umulhi, __mul64hi, __umul64hi,
// __sad, __usad, __hadd, __rhadd, 64-bit mul/div/rem, signed/unsigned div and mod
// by runtime variables, variable shifts and rotates, min/max/abs.
#define NOUT 48
__global__ void intops(const unsigned* X, const unsigned* Y, const unsigned long long* L, unsigned long long* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = X[i], y = Y[i];
    int sx = (int)x, sy = (int)y;
    unsigned long long l = L[i], m = L[(i + 1) % n];
    long long sl = (long long)l, sm = (long long)m;
    unsigned long long* o = out + i * NOUT;
    unsigned sh = y & 31;
    o[0] = __popc(x); o[1] = __popcll(l); o[2] = __clz(x); o[3] = __clzll(l);
    o[4] = __ffs(sx); o[5] = __ffsll(sl); o[6] = __brev(x); o[7] = __brevll(l);
    o[8] = __byte_perm(x, y, 0x3210 + (i % 5) * 0x0111);  // selector nibbles stay in 0..7
    o[9] = __byte_perm(x, y, 0x7531);
    o[10] = __funnelshift_l(x, y, i);  o[11] = __funnelshift_lc(x, y, i);
    o[12] = __funnelshift_r(x, y, i);  o[13] = __funnelshift_rc(x, y, i);
    o[14] = (unsigned)__mul24(sx, sy); o[15] = __umul24(x, y);
    o[16] = (unsigned)__mulhi(sx, sy); o[17] = __umulhi(x, y);
    o[18] = (unsigned long long)__mul64hi(sl, sm); o[19] = __umul64hi(l, m);
    o[20] = __sad(sx, sy, 17u); o[21] = __usad(x, y, 5u);
    o[22] = (unsigned)__hadd(sx, sy); o[23] = (unsigned)__rhadd(sx, sy);
    o[24] = __uhadd(x, y); o[25] = __urhadd(x, y);
    o[26] = l * m; o[27] = (unsigned long long)((long long)(int)x * (long long)sy);  // mul.wide.s32
    unsigned long long md = (m >> (i % 40)) | 1ull;   // nonzero divisor, various magnitudes
    long long smd = (long long)md * ((i & 1) ? -1 : 1);
    o[28] = l / md; o[29] = l % md;
    o[30] = (unsigned long long)(sl / smd); o[31] = (unsigned long long)(sl % smd);
    unsigned yd = (y >> (i % 24)) | 1u;
    int syd = (int)yd * ((i & 2) ? -1 : 1);
    o[32] = x / yd; o[33] = x % yd; o[34] = (unsigned)(sx / syd); o[35] = (unsigned)(sx % syd);
    o[36] = x << sh; o[37] = x >> sh; o[38] = (unsigned)(sx >> sh);
    o[39] = (x << sh) | (x >> ((32 - sh) & 31));  // rotate left
    o[40] = l << (i % 64); o[41] = (unsigned long long)(sl >> (i % 64));
    o[42] = (unsigned)min(sx, sy); o[43] = max(x, y); o[44] = (unsigned)abs(sx | 1);
    o[45] = (unsigned long long)llabs(sl | 1); o[46] = (unsigned long long)min(sl, sm);
    o[47] = (unsigned)((short)x * (signed char)y) + (unsigned)(unsigned short)(x >> 7) * (unsigned char)(y >> 3);
}

static unsigned h_popc(unsigned long long v) { unsigned c = 0; while (v) { c += v & 1; v >>= 1; } return c; }
static unsigned h_clz(unsigned long long v, int bits) { int c = 0; for (int b = bits - 1; b >= 0 && !((v >> b) & 1); --b) c++; return c; }
static unsigned h_ffs(unsigned long long v) { if (!v) return 0; unsigned p = 1; while (!(v & 1)) { v >>= 1; p++; } return p; }
static unsigned long long h_brev(unsigned long long v, int bits) { unsigned long long r = 0; for (int b = 0; b < bits; ++b) if ((v >> b) & 1) r |= 1ull << (bits - 1 - b); return r; }
static unsigned h_perm(unsigned x, unsigned y, unsigned s) {
    unsigned long long in = ((unsigned long long)y << 32) | x; unsigned r = 0;
    for (int k = 0; k < 4; ++k) { unsigned sel = (s >> (4 * k)) & 7; r |= (unsigned)((in >> (8 * sel)) & 0xff) << (8 * k); }
    return r;
}
static unsigned h_fsl(unsigned lo, unsigned hi, unsigned s) { unsigned long long v = ((unsigned long long)hi << 32) | lo; return (unsigned)((v << s) >> 32); }
static unsigned h_fsr(unsigned lo, unsigned hi, unsigned s) { unsigned long long v = ((unsigned long long)hi << 32) | lo; return (unsigned)(v >> s); }
static int sext24(unsigned v) { v &= 0xffffff; return (v & 0x800000) ? (int)(v | 0xff000000u) : (int)v; }

int main() {
    const int n = 200;
    unsigned hx[n], hy[n]; unsigned long long hl[n];
    for (int i = 0; i < n; ++i) {
        hx[i] = (unsigned)i * 2654435761u ^ (i << 3);
        hy[i] = (unsigned)(i * i) * 40503u + 12345u;
        hl[i] = ((unsigned long long)hx[i] << 32 | hy[i]) * 0x9E3779B97F4A7C15ull >> (i % 13);
    }
    hx[0] = 0; hl[1] = 0; hx[2] = 0x80000000u; hy[3] = 0xffffffffu; hl[4] = 0x8000000000000000ull;
    unsigned *dx, *dy; unsigned long long *dl, *dout;
    CK(cudaMalloc(&dx, sizeof(hx))); CK(cudaMalloc(&dy, sizeof(hy))); CK(cudaMalloc(&dl, sizeof(hl)));
    CK(cudaMalloc(&dout, n * NOUT * 8));
    CK(cudaMemcpy(dx, hx, sizeof(hx), cudaMemcpyHostToDevice)); CK(cudaMemcpy(dy, hy, sizeof(hy), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dl, hl, sizeof(hl), cudaMemcpyHostToDevice));
    intops<<<(n + 63) / 64, 64>>>(dx, dy, dl, dout, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    unsigned long long* out = new unsigned long long[n * NOUT];
    CK(cudaMemcpy(out, dout, n * NOUT * 8, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        unsigned x = hx[i], y = hy[i]; int sx = (int)x, sy = (int)y;
        unsigned long long l = hl[i], m = hl[(i + 1) % n]; long long sl = (long long)l, sm = (long long)m;
        unsigned sh = y & 31;
        unsigned long long e[NOUT];
        e[0] = h_popc(x); e[1] = h_popc(l); e[2] = h_clz(x, 32); e[3] = h_clz(l, 64);
        e[4] = h_ffs(x); e[5] = h_ffs(l); e[6] = h_brev(x, 32); e[7] = h_brev(l, 64);
        e[8] = h_perm(x, y, 0x3210 + (i % 5) * 0x0111); e[9] = h_perm(x, y, 0x7531);
        e[10] = h_fsl(x, y, i & 31); e[11] = h_fsl(x, y, i < 32 ? i : 32);
        e[12] = h_fsr(x, y, i & 31); e[13] = h_fsr(x, y, i < 32 ? i : 32);
        e[14] = (unsigned)((long long)sext24(x) * sext24(y)); e[15] = (unsigned)((unsigned long long)(x & 0xffffff) * (y & 0xffffff));
        e[16] = (unsigned)(((long long)sx * sy) >> 32); e[17] = (unsigned)(((unsigned long long)x * y) >> 32);
        e[18] = (unsigned long long)(long long)(((__int128)sl * sm) >> 64);
        e[19] = (unsigned long long)(((unsigned __int128)l * m) >> 64);
        e[20] = (unsigned)(((long long)sx > sy ? (long long)sx - sy : (long long)sy - sx) + 17);
        e[21] = (x > y ? x - y : y - x) + 5u;
        e[22] = (unsigned)(int)(((long long)sx + sy) >> 1); e[23] = (unsigned)(int)(((long long)sx + sy + 1) >> 1);
        e[24] = (unsigned)(((unsigned long long)x + y) >> 1); e[25] = (unsigned)(((unsigned long long)x + y + 1) >> 1);
        e[26] = l * m; e[27] = (unsigned long long)((long long)(int)x * (long long)sy);
        unsigned long long md = (m >> (i % 40)) | 1ull;
        long long smd = (long long)md * ((i & 1) ? -1 : 1);
        e[28] = l / md; e[29] = l % md;
        e[30] = (unsigned long long)(sl / smd); e[31] = (unsigned long long)(sl % smd);
        unsigned yd = (y >> (i % 24)) | 1u; int syd = (int)yd * ((i & 2) ? -1 : 1);
        e[32] = x / yd; e[33] = x % yd; e[34] = (unsigned)(sx / syd); e[35] = (unsigned)(sx % syd);
        e[36] = x << sh; e[37] = x >> sh; e[38] = (unsigned)(sx >> sh);
        e[39] = (x << sh) | (x >> ((32 - sh) & 31));
        e[40] = l << (i % 64); e[41] = (unsigned long long)(sl >> (i % 64));
        e[42] = (unsigned)(sx < sy ? sx : sy); e[43] = x > y ? x : y; e[44] = (unsigned)((sx | 1) < 0 ? -(long long)(sx | 1) : (sx | 1));
        e[45] = ((sl | 1) < 0 ? 0ull - (unsigned long long)(sl | 1) : (unsigned long long)(sl | 1)); e[46] = (unsigned long long)(sl < sm ? sl : sm);
        e[47] = (unsigned)((short)x * (signed char)y) + (unsigned)(unsigned short)(x >> 7) * (unsigned char)(y >> 3);
        const unsigned long long* o = out + i * NOUT;
        for (int k = 0; k < NOUT; ++k)
            EXPECT(o[k] == e[k], "op %d i=%d x=%08x y=%08x l=%016llx: got %016llx expected %016llx", k, i, x, y, l, o[k], e[k]);
    }
    cudaFree(dx); cudaFree(dy); cudaFree(dl); cudaFree(dout); delete[] out;
    return finish();
}

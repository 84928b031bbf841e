// ptxsim test kernel: inline_ptx
// Self-checking: prints PASS inline_ptx / FAIL inline_ptx.
static const char* kName = "inline_ptx";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Inline PTX: lop3.b32, prmt.b32 (incl. sign-replicating selectors), 128-bit add
// and subtract with carry chains (add.cc/addc/sub.cc/subc), bfe.u32/bfe.s32,
// bfi.b32, shf, mul.wide, mad.hi, setp/selp with a scoped predicate, special
// registers %laneid, %warpid, %smid, %nsmid, %clock64, %globaltimer.

__device__ __forceinline__ unsigned lop3_96(unsigned a, unsigned b, unsigned c) {
    unsigned d; asm volatile("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); return d;
}
__device__ __forceinline__ unsigned lop3_e8(unsigned a, unsigned b, unsigned c) {
    unsigned d; asm volatile("lop3.b32 %0, %1, %2, %3, 0xE8;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); return d;
}
__device__ __forceinline__ unsigned lop3_1e(unsigned a, unsigned b, unsigned c) {
    unsigned d; asm volatile("lop3.b32 %0, %1, %2, %3, 0x1E;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); return d;
}

__global__ void ptx_kernel(const unsigned* X, unsigned* out, unsigned long long* t64, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned a = X[i], b = X[(i + 1) % n], c = X[(i + 2) % n], d = X[(i + 3) % n];
    unsigned* o = out + i * 32;
    o[0] = lop3_96(a, b, c); o[1] = lop3_e8(a, b, c); o[2] = lop3_1e(a, b, c);
    unsigned r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(0x5140u)); o[3] = r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(0x8B9Au | ((unsigned)i & 0x7777u) << 16)); o[4] = r;
    // 128-bit add: (a,b,c,d) + (d,c,b,a), limbs little-endian
    unsigned s0, s1, s2, s3;
    asm("add.cc.u32 %0, %4, %8;\n\t"
        "addc.cc.u32 %1, %5, %9;\n\t"
        "addc.cc.u32 %2, %6, %10;\n\t"
        "addc.u32 %3, %7, %11;"
        : "=r"(s0), "=r"(s1), "=r"(s2), "=r"(s3)
        : "r"(a), "r"(b), "r"(c), "r"(d), "r"(d), "r"(c), "r"(b), "r"(a));
    o[5] = s0; o[6] = s1; o[7] = s2; o[8] = s3;
    asm("sub.cc.u32 %0, %4, %8;\n\t"
        "subc.cc.u32 %1, %5, %9;\n\t"
        "subc.cc.u32 %2, %6, %10;\n\t"
        "subc.u32 %3, %7, %11;"
        : "=r"(s0), "=r"(s1), "=r"(s2), "=r"(s3)
        : "r"(a), "r"(b), "r"(c), "r"(d), "r"(d), "r"(c), "r"(b), "r"(a));
    o[9] = s0; o[10] = s1; o[11] = s2; o[12] = s3;
    unsigned pos = i % 24, len = 1 + i % 8;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(pos), "r"(len)); o[13] = r;
    int sr;
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(sr) : "r"((int)a), "r"(pos), "r"(len)); o[14] = (unsigned)sr;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(b), "r"(a), "r"(pos), "r"(len)); o[15] = r;
    asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"((unsigned)i)); o[16] = r;
    asm("shf.r.clamp.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"((unsigned)i)); o[17] = r;
    unsigned long long w;
    asm("mul.wide.u32 %0, %1, %2;" : "=l"(w) : "r"(a), "r"(b)); o[18] = (unsigned)w; o[19] = (unsigned)(w >> 32);
    asm("mad.hi.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); o[20] = r;
    asm("{\n\t.reg .pred p;\n\tsetp.lt.s32 p, %1, %2;\n\tselp.b32 %0, %1, %2, p;\n\t}" : "=r"(r) : "r"((int)a), "r"((int)b)); o[21] = r;
    unsigned lane, warpid, smid, nsmid;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(warpid));
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    asm volatile("mov.u32 %0, %%nsmid;" : "=r"(nsmid));
    o[22] = lane; o[23] = warpid; o[24] = smid; o[25] = nsmid;
    unsigned long long c0, c1, g0;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c0));
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    unsigned x = a;
    for (int k = 0; k < 8; ++k) x = x * 1664525u + 1013904223u;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c1));
    o[26] = x;
    t64[i * 3 + 0] = c0; t64[i * 3 + 1] = c1; t64[i * 3 + 2] = g0;
    for (int k = 27; k < 32; ++k) o[k] = 0;
}

static unsigned h_lop3(unsigned a, unsigned b, unsigned c, unsigned lut) {
    unsigned r = 0;
    for (int k = 0; k < 32; ++k) {
        unsigned idx = (((a >> k) & 1) << 2) | (((b >> k) & 1) << 1) | ((c >> k) & 1);
        r |= ((lut >> idx) & 1) << k;
    }
    return r;
}
static unsigned h_prmt(unsigned a, unsigned b, unsigned s) {
    unsigned long long in = ((unsigned long long)b << 32) | a; unsigned r = 0;
    for (int k = 0; k < 4; ++k) {
        unsigned sel = (s >> (4 * k)) & 0xf;
        unsigned byte = (unsigned)(in >> (8 * (sel & 7))) & 0xff;
        if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
        r |= byte << (8 * k);
    }
    return r;
}
static unsigned h_bfe_u(unsigned a, unsigned pos, unsigned len) { return (a >> pos) & ((1u << len) - 1); }
static int h_bfe_s(unsigned a, unsigned pos, unsigned len) {
    unsigned v = h_bfe_u(a, pos, len);
    if (v & (1u << (len - 1))) v |= ~((1u << len) - 1);
    return (int)v;
}
static unsigned h_bfi(unsigned ins, unsigned base, unsigned pos, unsigned len) {
    unsigned m = ((1u << len) - 1) << pos;
    return (base & ~m) | ((ins << pos) & m);
}

int main() {
    const int n = 128;
    unsigned h[n];
    for (int i = 0; i < n; ++i) h[i] = (unsigned)i * 2246822519u ^ 0xA5A5A5A5u ^ ((unsigned)i << 27);
    h[5] = 0xffffffffu; h[6] = 0xffffffffu; h[7] = 0;
    unsigned *dx, *dout; unsigned long long* dt;
    CK(cudaMalloc(&dx, sizeof(h))); CK(cudaMalloc(&dout, n * 32 * 4)); CK(cudaMalloc(&dt, n * 3 * 8));
    CK(cudaMemcpy(dx, h, sizeof(h), cudaMemcpyHostToDevice));
    ptx_kernel<<<2, 64>>>(dx, dout, dt, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    unsigned* out = new unsigned[n * 32]; unsigned long long* t = new unsigned long long[n * 3];
    CK(cudaMemcpy(out, dout, n * 32 * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(t, dt, n * 3 * 8, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        unsigned a = h[i], b = h[(i + 1) % n], c = h[(i + 2) % n], d = h[(i + 3) % n];
        const unsigned* o = out + i * 32;
        unsigned e[27];
        e[0] = a ^ b ^ c; e[1] = h_lop3(a, b, c, 0xE8); e[2] = h_lop3(a, b, c, 0x1E);
        e[3] = h_prmt(a, b, 0x5140u); e[4] = h_prmt(a, b, 0x8B9Au | ((unsigned)i & 0x7777u) << 16);
        unsigned __int128 A = ((unsigned __int128)d << 96) | ((unsigned __int128)c << 64) | ((unsigned __int128)b << 32) | a;
        unsigned __int128 Bv = ((unsigned __int128)a << 96) | ((unsigned __int128)b << 64) | ((unsigned __int128)c << 32) | d;
        unsigned __int128 S = A + Bv, D = A - Bv;
        for (int k = 0; k < 4; ++k) { e[5 + k] = (unsigned)(S >> (32 * k)); e[9 + k] = (unsigned)(D >> (32 * k)); }
        unsigned pos = i % 24, len = 1 + i % 8;
        e[13] = h_bfe_u(a, pos, len); e[14] = (unsigned)h_bfe_s(a, pos, len); e[15] = h_bfi(b, a, pos, len);
        unsigned long long v = ((unsigned long long)b << 32) | a;
        e[16] = (unsigned)((v << (i & 31)) >> 32);
        e[17] = (unsigned)(v >> (i < 32 ? i : 32));
        unsigned long long w = (unsigned long long)a * b;
        e[18] = (unsigned)w; e[19] = (unsigned)(w >> 32); e[20] = (unsigned)(w >> 32) + c;
        e[21] = (int)a < (int)b ? a : b;
        e[22] = (unsigned)(i % 64) % 32;
        unsigned x = a; for (int k = 0; k < 8; ++k) x = x * 1664525u + 1013904223u;
        for (int k = 0; k < 22; ++k) EXPECT(o[k] == e[k], "op %d i=%d got %08x expected %08x", k, i, o[k], e[k]);
        EXPECT(o[22] == e[22], "laneid i=%d got %u expected %u", i, o[22], e[22]);
        EXPECT(o[23] < 64, "warpid i=%d got %u", i, o[23]);
        EXPECT(o[24] < 4096 && o[25] >= 1, "smid %u nsmid %u", o[24], o[25]);
        EXPECT(o[26] == x, "lcg i=%d", i);
        EXPECT(t[i * 3 + 1] >= t[i * 3 + 0], "clock64 not monotonic i=%d: %llu then %llu", i, t[i * 3], t[i * 3 + 1]);
    }
    cudaFree(dx); cudaFree(dout); cudaFree(dt); delete[] out; delete[] t;
    return finish();
}

// ptxsim test kernel: divergence
// Self-checking: prints PASS divergence / FAIL divergence.
static const char* kName = "divergence";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// SIMT divergence and reconvergence: nested if/else, loops with break and
// continue, early return, a dense switch, an explicit brx.idx jump table, a while loop
// with data-dependent trip count (Collatz), and a warp-level op after reconvergence.

__device__ __noinline__ int classify(int v) {
    switch (v & 15) {
        case 0: return 7;
        case 1: return v * 2;
        case 2: return v - 100;
        case 3: return v ^ 0x55;
        case 4: return -v;
        case 5: return v / 3;
        case 6: return v % 7;
        case 7: return v << 2;
        case 8: return v >> 1;
        case 9: return v + 1000;
        case 10: return v & 0xf0;
        case 11: return v | 0x100;
        case 12: return 12345;
        case 13: return v * v;
        default: return -1;
    }
}

// an explicit jump table through inline PTX (brx.idx + .branchtargets); noinline so
// the labels appear exactly once in the module
__device__ __noinline__ int jump_table(unsigned k) {
    int r;
    asm volatile("{\n\t"
                 "jt_targets: .branchtargets JT_L0, JT_L1, JT_L2, JT_L3;\n\t"
                 "brx.idx %1, jt_targets;\n\t"
                 "JT_L0: mov.u32 %0, 10;\n\t"
                 "bra.uni JT_END;\n\t"
                 "JT_L1: mov.u32 %0, 21;\n\t"
                 "bra.uni JT_END;\n\t"
                 "JT_L2: mov.u32 %0, 32;\n\t"
                 "bra.uni JT_END;\n\t"
                 "JT_L3: mov.u32 %0, 43;\n\t"
                 "JT_END:\n\t"
                 "}"
                 : "=r"(r) : "r"(k & 3u));
    return r;
}

__global__ void diverge(const int* in, int* out, int* steps, int* warpsum, int* jumps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int r = 0;
    // nested if/else
    if (v % 2 == 0) {
        if (v % 4 == 0) r = v / 4;
        else r = v * 3;
    } else {
        if (v > 50) { r = v - 50; if (v > 80) r += 1000; }
        else r = -v;
    }
    // loop with continue and break
    int acc = 0;
    for (int k = 0; k < 64; ++k) {
        if ((k + v) % 3 == 0) continue;
        acc += k;
        if (acc > v * 4) break;
    }
    r += acc * 10000;
    // Collatz: data-dependent trip count
    unsigned c = (unsigned)v + 1; int s = 0;
    while (c != 1) { c = (c & 1) ? 3 * c + 1 : c / 2; ++s; }
    // all lanes reconverge here: full-warp shuffle reduction must see everyone
    int t = s;
    for (int off = 16; off > 0; off >>= 1) t += __shfl_xor_sync(0xffffffffu, t, off);
    if ((threadIdx.x & 31) == 0) warpsum[i / 32] = t;
    int jt = jump_table((unsigned)v);  // divergent indirect branch
    if (i >= n) return;  // early return for the tail
    jumps[i] = jt;
    if (v % 5 == 0) { out[i * 2] = r; out[i * 2 + 1] = classify(v); steps[i] = s; return; }  // early return in the middle
    out[i * 2] = r + 1;
    out[i * 2 + 1] = classify(v + 1);
    steps[i] = s;
}

static int h_classify(int v) {
    switch (v & 15) {
        case 0: return 7; case 1: return v * 2; case 2: return v - 100; case 3: return v ^ 0x55; case 4: return -v;
        case 5: return v / 3; case 6: return v % 7; case 7: return v << 2; case 8: return v >> 1; case 9: return v + 1000;
        case 10: return v & 0xf0; case 11: return v | 0x100; case 12: return 12345; case 13: return v * v; default: return -1;
    }
}

int main() {
    const int n = 200, B = 64, G = (n + B - 1) / B, nw = G * B / 32;
    int h[n];
    for (int i = 0; i < n; ++i) h[i] = (i * 37 + 11) % 100;
    int *din, *dout, *dsteps, *dws, *djt;
    CK(cudaMalloc(&din, sizeof(h))); CK(cudaMalloc(&dout, 2 * sizeof(h))); CK(cudaMalloc(&dsteps, sizeof(h))); CK(cudaMalloc(&dws, nw * 4)); CK(cudaMalloc(&djt, sizeof(h)));
    CK(cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice));
    diverge<<<G, B>>>(din, dout, dsteps, dws, djt, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int out[2 * n], steps[n], ws[nw], jts[n];
    CK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(steps, dsteps, sizeof(steps), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ws, dws, sizeof(ws), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(jts, djt, sizeof(jts), cudaMemcpyDeviceToHost));
    int ews[nw] = {0};
    for (int i = 0; i < G * B; ++i) {
        int v = i < n ? h[i] : 0;
        int r;
        if (v % 2 == 0) r = (v % 4 == 0) ? v / 4 : v * 3;
        else { if (v > 50) { r = v - 50; if (v > 80) r += 1000; } else r = -v; }
        int acc = 0;
        for (int k = 0; k < 64; ++k) { if ((k + v) % 3 == 0) continue; acc += k; if (acc > v * 4) break; }
        r += acc * 10000;
        unsigned c = (unsigned)v + 1; int s = 0;
        while (c != 1) { c = (c & 1) ? 3 * c + 1 : c / 2; ++s; }
        ews[i / 32] += s;
        if (i >= n) continue;
        int e0 = (v % 5 == 0) ? r : r + 1, e1 = (v % 5 == 0) ? h_classify(v) : h_classify(v + 1);
        EXPECT(out[i * 2] == e0, "r[%d]=%d expected %d", i, out[i * 2], e0);
        EXPECT(out[i * 2 + 1] == e1, "switch[%d]=%d expected %d", i, out[i * 2 + 1], e1);
        EXPECT(steps[i] == s, "collatz[%d]=%d expected %d", i, steps[i], s);
        int ejt = 10 + 11 * (v & 3);
        EXPECT(jts[i] == ejt, "jump table[%d]=%d expected %d", i, jts[i], ejt);
    }
    for (int w = 0; w < nw; ++w) EXPECT(ws[w] == ews[w], "warpsum[%d]=%d expected %d", w, ws[w], ews[w]);
    cudaFree(din); cudaFree(dout); cudaFree(dsteps); cudaFree(dws); cudaFree(djt);
    return finish();
}

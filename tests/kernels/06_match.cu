// ptxsim test kernel: match
// Self-checking: prints PASS match / FAIL match.
static const char* kName = "match";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// __match_any_sync / __match_all_sync (sm_70+) on 32-bit and 64-bit values.
#define FULL 0xffffffffu

__global__ void match_kernel(const int* in, const unsigned long long* in64, unsigned* any32, unsigned* all32,
                             int* allpred32, unsigned* any64, unsigned* all64, int* allpred64) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[gid];
    any32[gid] = __match_any_sync(FULL, v);
    int pred = -1;
    // warp-uniform value in some warps, not in others
    int u = (gid / 32) % 2 == 0 ? (gid / 32) * 10 : v;
    all32[gid] = __match_all_sync(FULL, u, &pred);
    allpred32[gid] = pred;
    unsigned long long w = in64[gid];
    any64[gid] = __match_any_sync(FULL, w);
    int pred64 = -1;
    unsigned long long uw = (gid / 32) == 1 ? 0x123456789abcdefULL : w;
    all64[gid] = __match_all_sync(FULL, uw, &pred64);
    allpred64[gid] = pred64;
}

int main() {
    const int n = 128;
    int h[n]; unsigned long long h64[n];
    for (int i = 0; i < n; ++i) {
        h[i] = (i * 7) % 5;                                   // 5 distinct values per warp
        h64[i] = ((unsigned long long)(i % 3) << 40) | (unsigned)((i / 4) % 2);  // 6 groups, differ in high word
    }
    int* din; unsigned long long* din64;
    unsigned *o_any, *o_all, *o_any64, *o_all64; int *o_p, *o_p64;
    CK(cudaMalloc(&din, sizeof(h))); CK(cudaMalloc(&din64, sizeof(h64)));
    CK(cudaMalloc(&o_any, n * 4)); CK(cudaMalloc(&o_all, n * 4)); CK(cudaMalloc(&o_p, n * 4));
    CK(cudaMalloc(&o_any64, n * 4)); CK(cudaMalloc(&o_all64, n * 4)); CK(cudaMalloc(&o_p64, n * 4));
    CK(cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(din64, h64, sizeof(h64), cudaMemcpyHostToDevice));
    match_kernel<<<2, 64>>>(din, din64, o_any, o_all, o_p, o_any64, o_all64, o_p64);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    unsigned any[n], all[n], any64[n], all64[n]; int p[n], p64[n];
    CK(cudaMemcpy(any, o_any, sizeof(any), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(all, o_all, sizeof(all), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(p, o_p, sizeof(p), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(any64, o_any64, sizeof(any64), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(all64, o_all64, sizeof(all64), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(p64, o_p64, sizeof(p64), cudaMemcpyDeviceToHost));
    for (int w = 0; w < n / 32; ++w) {
        int base = w * 32;
        bool uniform32 = (w % 2 == 0);
        if (!uniform32) { uniform32 = true; for (int l = 1; l < 32; ++l) if (h[base + l] != h[base]) uniform32 = false; }
        bool uniform64 = (w == 1);
        if (!uniform64) { uniform64 = true; for (int l = 1; l < 32; ++l) if (h64[base + l] != h64[base]) uniform64 = false; }
        for (int l = 0; l < 32; ++l) {
            int g = base + l;
            unsigned e = 0, e64 = 0;
            for (int k = 0; k < 32; ++k) {
                if (h[base + k] == h[g]) e |= 1u << k;
                if (h64[base + k] == h64[g]) e64 |= 1u << k;
            }
            EXPECT(any[g] == e, "match_any32 [%d]=%08x expected %08x", g, any[g], e);
            EXPECT(any64[g] == e64, "match_any64 [%d]=%08x expected %08x", g, any64[g], e64);
            EXPECT(all[g] == (uniform32 ? 0xffffffffu : 0u), "match_all32 [%d]=%08x", g, all[g]);
            EXPECT(p[g] == (uniform32 ? 1 : 0), "match_all32 pred [%d]=%d", g, p[g]);
            EXPECT(all64[g] == (uniform64 ? 0xffffffffu : 0u), "match_all64 [%d]=%08x", g, all64[g]);
            EXPECT(p64[g] == (uniform64 ? 1 : 0), "match_all64 pred [%d]=%d", g, p64[g]);
        }
    }
    cudaFree(din); cudaFree(din64); cudaFree(o_any); cudaFree(o_all); cudaFree(o_p);
    cudaFree(o_any64); cudaFree(o_all64); cudaFree(o_p64);
    return finish();
}

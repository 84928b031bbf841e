// ptxsim test kernel: vote
// Self-checking: prints PASS vote / FAIL vote.
static const char* kName = "vote";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Warp vote: __ballot_sync, __any_sync, __all_sync, __activemask, including a
// partial last warp (block of 48 threads) and votes inside divergent branches.

__global__ void votes(const int* in, unsigned* ballot, int* anyv, int* allv, unsigned* amask_entry,
                      unsigned* amask_branch, unsigned* ballot_branch) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int warp_in_block = threadIdx.x / 32;
    int nthreads_in_warp = min(32, (int)blockDim.x - warp_in_block * 32);
    unsigned mask = (nthreads_in_warp == 32) ? 0xffffffffu : ((1u << nthreads_in_warp) - 1u);

    amask_entry[gid] = __activemask();
    int v = in[gid];
    ballot[gid] = __ballot_sync(mask, v % 3 == 0);
    anyv[gid] = __any_sync(mask, v > 90);
    allv[gid] = __all_sync(mask, v >= 0) * 2 + __all_sync(mask, v < 100);

    if (lane < 10) {
        unsigned am = __activemask();
        // lanes [0,10) of this warp are active here (restricted to lanes that exist)
        amask_branch[gid] = am;
        ballot_branch[gid] = __ballot_sync(mask & 0x3ffu, v & 1);
    } else {
        amask_branch[gid] = 0xdeadu;
        ballot_branch[gid] = __ballot_sync(mask & ~0x3ffu, v & 1);
    }
}

int main() {
    const int B = 48, G = 3, n = B * G;
    int h[n];
    for (int i = 0; i < n; ++i) h[i] = (i * 53 + 7) % 101;  // values 0..100
    // make warp 1 of block 0 have no value > 90 and warp 0 of block 2 all < 100 wise mixed
    int* din; unsigned *o_bal, *o_ame, *o_amb, *o_bb; int *o_any, *o_all;
    CK(cudaMalloc(&din, n * sizeof(int)));
    CK(cudaMalloc(&o_bal, n * sizeof(unsigned))); CK(cudaMalloc(&o_ame, n * sizeof(unsigned)));
    CK(cudaMalloc(&o_amb, n * sizeof(unsigned))); CK(cudaMalloc(&o_bb, n * sizeof(unsigned)));
    CK(cudaMalloc(&o_any, n * sizeof(int))); CK(cudaMalloc(&o_all, n * sizeof(int)));
    CK(cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice));
    votes<<<G, B>>>(din, o_bal, o_any, o_all, o_ame, o_amb, o_bb);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    unsigned bal[n], ame[n], amb[n], bb[n]; int anyv[n], allv[n];
    CK(cudaMemcpy(bal, o_bal, sizeof(bal), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ame, o_ame, sizeof(ame), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(amb, o_amb, sizeof(amb), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(bb, o_bb, sizeof(bb), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(anyv, o_any, sizeof(anyv), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(allv, o_all, sizeof(allv), cudaMemcpyDeviceToHost));
    for (int b = 0; b < G; ++b) {
        for (int w = 0; w * 32 < B; ++w) {
            int cnt = (B - w * 32) < 32 ? (B - w * 32) : 32;
            unsigned mask = cnt == 32 ? 0xffffffffu : ((1u << cnt) - 1u);
            int base = b * B + w * 32;
            unsigned eb = 0, eodd = 0; int eany = 0, eall_ge0 = 1, eall_lt100 = 1;
            for (int l = 0; l < cnt; ++l) {
                int v = h[base + l];
                if (v % 3 == 0) eb |= 1u << l;
                if (v & 1) eodd |= 1u << l;
                if (v > 90) eany = 1;
                if (!(v >= 0)) eall_ge0 = 0;
                if (!(v < 100)) eall_lt100 = 0;
            }
            for (int l = 0; l < cnt; ++l) {
                int g = base + l;
                EXPECT(ame[g] == mask, "activemask at entry [%d]=%08x expected %08x", g, ame[g], mask);
                EXPECT(bal[g] == eb, "ballot [%d]=%08x expected %08x", g, bal[g], eb);
                EXPECT(anyv[g] == eany, "any [%d]=%d expected %d", g, anyv[g], eany);
                EXPECT(allv[g] == eall_ge0 * 2 + eall_lt100, "all [%d]=%d expected %d", g, allv[g], eall_ge0 * 2 + eall_lt100);
                if (l < 10) {
                    unsigned am = amb[g];
                    EXPECT((am & (1u << l)) && (am & ~(mask & 0x3ffu)) == 0, "activemask in branch [%d]=%08x", g, am);
                    EXPECT(bb[g] == (eodd & 0x3ffu), "ballot in branch [%d]=%08x expected %08x", g, bb[g], eodd & 0x3ffu);
                } else {
                    EXPECT(bb[g] == (eodd & mask & ~0x3ffu), "ballot in else [%d]=%08x expected %08x", g, bb[g], eodd & mask & ~0x3ffu);
                }
            }
        }
    }
    cudaFree(din); cudaFree(o_bal); cudaFree(o_ame); cudaFree(o_amb); cudaFree(o_bb); cudaFree(o_any); cudaFree(o_all);
    return finish();
}

// ptxsim test kernel: coop_groups
// Self-checking: prints PASS coop_groups / FAIL coop_groups.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
static const char* kName = "coop_groups";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Cooperative groups: thread_block, tiled_partition<32> and <8>, dynamic
// tiled_partition(block, 16), tile.shfl_down / shfl / shfl_xor, tile.sync,
// tile.any/all/ballot, cg::reduce with plus/greater/bit_xor, coalesced_threads()
// inside a divergent branch (stream compaction).
namespace cg = cooperative_groups;

__global__ void cg_kernel(const int* in, int* out32, int* out8, int* outred, int* outdyn, int* compact, int* ccount) {
    cg::thread_block block = cg::this_thread_block();
    int g = blockIdx.x * blockDim.x + block.thread_rank();
    int v = in[g];

    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int s = v;
    for (int off = warp.size() / 2; off > 0; off /= 2) s += warp.shfl_down(s, off);
    if (warp.thread_rank() == 0) out32[g / 32] = s;

    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
    int m = v;
    for (int off = 1; off < 8; off *= 2) m = max(m, t8.shfl_xor(m, off));
    int first = t8.shfl(v, 0);
    t8.sync();
    unsigned bal = t8.ballot(v % 2 == 0);
    out8[g * 4 + 0] = m;
    out8[g * 4 + 1] = first;
    out8[g * 4 + 2] = (int)bal;
    out8[g * 4 + 3] = t8.any(v > 95) * 10 + t8.all(v >= 0) + (int)t8.meta_group_rank() * 100;

    outred[g * 3 + 0] = cg::reduce(warp, v, cg::plus<int>());
    outred[g * 3 + 1] = cg::reduce(t8, v, cg::greater<int>());
    outred[g * 3 + 2] = cg::reduce(warp, (unsigned)v * 2654435761u, cg::bit_xor<unsigned>());

    cg::thread_group t16 = cg::tiled_partition(block, 16);
    __shared__ int sh[256];
    sh[block.thread_rank()] = v;
    t16.sync();
    int base = (block.thread_rank() / 16) * 16;
    outdyn[g] = sh[base + (t16.thread_rank() + 1) % 16] + (int)t16.size();
    block.sync();

    // stream compaction of values divisible by 3 with coalesced groups
    if (v % 3 == 0) {
        cg::coalesced_group active = cg::coalesced_threads();
        int slot0 = 0;
        if (active.thread_rank() == 0) slot0 = atomicAdd(ccount, (int)active.size());
        slot0 = active.shfl(slot0, 0);
        compact[slot0 + active.thread_rank()] = v;
    }
}

int main() {
    const int B = 256, G = 2, n = B * G;
    int h[n];
    for (int i = 0; i < n; ++i) h[i] = (i * 41 + 13) % 100;
    int *din, *d32, *d8, *dred, *ddyn, *dcomp, *dcnt;
    CK(cudaMalloc(&din, sizeof(h))); CK(cudaMalloc(&d32, n / 32 * 4)); CK(cudaMalloc(&d8, n * 16));
    CK(cudaMalloc(&dred, n * 12)); CK(cudaMalloc(&ddyn, n * 4)); CK(cudaMalloc(&dcomp, n * 4)); CK(cudaMalloc(&dcnt, 4));
    CK(cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice));
    CK(cudaMemset(dcnt, 0, 4));
    cg_kernel<<<G, B>>>(din, d32, d8, dred, ddyn, dcomp, dcnt);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int o32[n / 32], o8[n * 4], ored[n * 3], odyn[n], comp[n], cnt;
    CK(cudaMemcpy(o32, d32, sizeof(o32), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(o8, d8, sizeof(o8), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ored, dred, sizeof(ored), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(odyn, ddyn, sizeof(odyn), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&cnt, dcnt, 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(comp, dcomp, sizeof(comp), cudaMemcpyDeviceToHost));
    for (int w = 0; w < n / 32; ++w) {
        int s = 0; unsigned x = 0;
        for (int l = 0; l < 32; ++l) { s += h[w * 32 + l]; x ^= (unsigned)h[w * 32 + l] * 2654435761u; }
        EXPECT(o32[w] == s, "warp sum %d = %d expected %d", w, o32[w], s);
        for (int l = 0; l < 32; ++l) {
            int g = w * 32 + l;
            EXPECT(ored[g * 3] == s, "reduce plus [%d]=%d expected %d", g, ored[g * 3], s);
            EXPECT((unsigned)ored[g * 3 + 2] == x, "reduce xor [%d]", g);
        }
    }
    for (int t = 0; t < n / 8; ++t) {
        int m = -1, any = 0, all = 1; unsigned bal = 0;
        for (int l = 0; l < 8; ++l) {
            int v = h[t * 8 + l];
            m = v > m ? v : m; any |= v > 95; all &= v >= 0; if (v % 2 == 0) bal |= 1u << l;
        }
        int meta = t % (B / 8);
        for (int l = 0; l < 8; ++l) {
            int g = t * 8 + l;
            EXPECT(o8[g * 4] == m, "tile8 max [%d]=%d expected %d", g, o8[g * 4], m);
            EXPECT(o8[g * 4 + 1] == h[t * 8], "tile8 shfl [%d]", g);
            EXPECT((unsigned)o8[g * 4 + 2] == bal, "tile8 ballot [%d]=%x expected %x", g, o8[g * 4 + 2], bal);
            EXPECT(o8[g * 4 + 3] == any * 10 + all + meta * 100, "tile8 any/all/meta [%d]=%d", g, o8[g * 4 + 3]);
            EXPECT(ored[g * 3 + 1] == m, "reduce greater [%d]=%d expected %d", g, ored[g * 3 + 1], m);
        }
    }
    for (int g = 0; g < n; ++g) {
        int base = (g / 16) * 16;
        int e = h[base + (g % 16 + 1) % 16] + 16;
        EXPECT(odyn[g] == e, "tile16 [%d]=%d expected %d", g, odyn[g], e);
    }
    // compaction: the multiset of values must match
    int ecnt = 0, hist[100] = {0}, ghist[100] = {0};
    for (int g = 0; g < n; ++g) if (h[g] % 3 == 0) { ecnt++; hist[h[g]]++; }
    EXPECT(cnt == ecnt, "compact count %d expected %d", cnt, ecnt);
    if (cnt == ecnt) {
        for (int k = 0; k < cnt; ++k) if (comp[k] >= 0 && comp[k] < 100) ghist[comp[k]]++;
        for (int k = 0; k < 100; ++k) EXPECT(ghist[k] == hist[k], "compact value %d count %d expected %d", k, ghist[k], hist[k]);
    }
    cudaFree(din); cudaFree(d32); cudaFree(d8); cudaFree(dred); cudaFree(ddyn); cudaFree(dcomp); cudaFree(dcnt);
    return finish();
}

// ptxsim test kernel: grid_sync
// Self-checking: prints PASS grid_sync / FAIL grid_sync.
#include <cooperative_groups.h>
static const char* kName = "grid_sync";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Grid-wide synchronisation: a cooperative kernel launched with
// cudaLaunchCooperativeKernel uses grid.sync() between phases that read data
// written by other blocks.
namespace cg = cooperative_groups;

__global__ void grid_phases(int* a, int* b, int* blocksum, int* total, int n) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    int g = (int)grid.thread_rank();
    int stride = (int)grid.size();
    // phase 1: every thread writes its part
    for (int i = g; i < n; i += stride) a[i] = i * 3 + 1;
    grid.sync();
    // phase 2: read an element written by a different block
    for (int i = g; i < n; i += stride) b[i] = a[(i + 200) % n] - a[i];
    grid.sync();
    // phase 3: per-block sums of b
    __shared__ int s[128];
    int acc = 0;
    for (int i = g; i < n; i += stride) acc += b[i] * (i % 7);
    s[block.thread_rank()] = acc;
    block.sync();
    for (int off = block.size() / 2; off > 0; off /= 2) {
        if (block.thread_rank() < off) s[block.thread_rank()] += s[block.thread_rank() + off];
        block.sync();
    }
    if (block.thread_rank() == 0) blocksum[blockIdx.x] = s[0];
    grid.sync();
    // phase 4: one thread combines all block sums
    if (g == 0) {
        int t = 0;
        for (int k = 0; k < (int)gridDim.x; ++k) t += blocksum[k];
        *total = t;
    }
}

int main() {
    int dev = 0, coop = 0, sms = 0, perSm = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const int B = 128, G = 4, n = 1000;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, grid_phases, B, 0));
    if (!coop || perSm * sms < G) {
        printf("cooperative launch unsupported (coop=%d, %d blocks/SM x %d SMs)\n", coop, perSm, sms);
        printf("FAIL %s\n", kName);
        return 1;
    }
    int *a, *b, *bs, *tot;
    CK(cudaMalloc(&a, n * 4)); CK(cudaMalloc(&b, n * 4)); CK(cudaMalloc(&bs, G * 4)); CK(cudaMalloc(&tot, 4));
    int nn = n;
    void* args[] = {&a, &b, &bs, &tot, &nn};
    CK(cudaLaunchCooperativeKernel((void*)grid_phases, dim3(G), dim3(B), args, 0, 0));
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int hb[n], hbs[G], ht;
    CK(cudaMemcpy(hb, b, sizeof(hb), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hbs, bs, sizeof(hbs), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&ht, tot, 4, cudaMemcpyDeviceToHost));
    int eb[n], ebs[G] = {0}, et = 0;
    for (int i = 0; i < n; ++i) eb[i] = (((i + 200) % n) * 3 + 1) - (i * 3 + 1);
    for (int i = 0; i < n; ++i) EXPECT(hb[i] == eb[i], "b[%d]=%d expected %d", i, hb[i], eb[i]);
    for (int i = 0; i < n; ++i) ebs[(i % (G * B)) / B] += eb[i] * (i % 7);
    for (int k = 0; k < G; ++k) { EXPECT(hbs[k] == ebs[k], "blocksum[%d]=%d expected %d", k, hbs[k], ebs[k]); et += ebs[k]; }
    EXPECT(ht == et, "total=%d expected %d", ht, et);
    cudaFree(a); cudaFree(b); cudaFree(bs); cudaFree(tot);
    return finish();
}

// ptxsim e2e: cooperative groups across the whole grid, against a CPU model.
//   - a cooperative launch sized from cudaOccupancyMaxActiveBlocksPerMultiprocessor and the SM
//     count; this_grid() thread_rank/size/block_rank/num_blocks/dim_blocks/is_valid checked
//     for every thread
//   - iterative 1D Jacobi relaxation: each of 40 sweeps reads the previous sweep's array and
//     is separated from the next by grid.sync(); a grid-wide residual reduction each 8 sweeps
//     (block partials with cg::reduce over warp tiles, combined after grid.sync())
//   - a multi-phase histogram -> exclusive scan -> scatter (counting sort) in one kernel
//   - grid-stride loops with more elements than threads, dynamic shared memory, a launch
//     through cudaLaunchKernel with the cooperative attribute (cudaLaunchKernelEx)
//   - a grid larger than can be resident fails with cudaErrorCooperativeLaunchTooLarge and the
//     device keeps working
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
static const char *kName = "coop_grid";
#include "../kernels/test_common.h"
namespace cg = cooperative_groups;

// ---- grid identity --------------------------------------------------------------------------------
__global__ void gridIdentity(unsigned long long *rank, unsigned long long *size, unsigned *block, unsigned *nblocks, int *valid) {
    cg::grid_group g = cg::this_grid();
    unsigned long long r = g.thread_rank();
    rank[blockIdx.x * blockDim.x + threadIdx.x] = r;
    if (r == 0) {
        *size = g.size();
        *nblocks = g.num_blocks();
        *valid = g.is_valid() ? 1 : 0;
    }
    if (threadIdx.x == 0) block[blockIdx.x] = g.block_rank();
    g.sync();
}

// ---- Jacobi with grid-wide residuals ----------------------------------------------------------
// u_new[i] = (u[i-1] + u[i+1] + h2 * f[i]) / 2 on 0 < i < n-1, u fixed at both ends.
__global__ void jacobi(float *u, float *v, const float *f, int n, int sweeps, float *residuals, float *partials) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    extern __shared__ float warpSums[];
    const float h2 = 1.0f / 64.0f;
    for (int s = 0; s < sweeps; ++s) {
        const float *src = s % 2 ? v : u;
        float *dst = s % 2 ? u : v;
        for (int i = grid.thread_rank(); i < n; i += grid.size())
            dst[i] = (i == 0 || i == n - 1) ? src[i] : 0.5f * (src[i - 1] + src[i + 1] + h2 * f[i]);
        grid.sync();
        if (s % 8 == 7) {  // residual of dst: sum of |dst[i] - src[i]|
            float local = 0;
            for (int i = grid.thread_rank(); i < n; i += grid.size()) local += fabsf(dst[i] - src[i]);
            float w = cg::reduce(warp, local, cg::plus<float>());
            if (warp.thread_rank() == 0) warpSums[warp.meta_group_rank()] = w;
            block.sync();
            if (threadIdx.x == 0) {
                float b = 0;
                for (unsigned k = 0; k < warp.meta_group_size(); ++k) b += warpSums[k];
                partials[blockIdx.x] = b;
            }
            grid.sync();
            if (grid.thread_rank() == 0) {
                float t = 0;
                for (unsigned k = 0; k < grid.num_blocks(); ++k) t += partials[k];
                residuals[s / 8] = t;
            }
            grid.sync();  // partials are reused by the next residual
        }
    }
}

static void hostJacobi(std::vector<float> &u, const std::vector<float> &f, int sweeps, std::vector<float> &res, int nblocks,
                       int threads) {
    int n = (int)u.size();
    std::vector<float> v(u);
    const float h2 = 1.0f / 64.0f;
    for (int s = 0; s < sweeps; ++s) {
        std::vector<float> &src = s % 2 ? v : u, &dst = s % 2 ? u : v;
        for (int i = 0; i < n; ++i) dst[i] = (i == 0 || i == n - 1) ? src[i] : 0.5f * (src[i - 1] + src[i + 1] + h2 * f[i]);
        if (s % 8 == 7) {
            // the device sums per thread (grid-stride), per warp, per block, then over blocks
            long long size = (long long)nblocks * threads;
            std::vector<float> perThread(size, 0.0f);
            for (long long t = 0; t < size; ++t)
                for (long long i = t; i < n; i += size) perThread[t] += fabsf(dst[i] - src[i]);
            double total = 0;
            for (float x : perThread) total += x;
            res.push_back((float)total);
        }
    }
    if (sweeps % 2) u.swap(v);
}

// ---- counting sort in one cooperative kernel ---------------------------------------------------
constexpr int kBins = 64;
__global__ void countingSort(const unsigned *keys, unsigned *out, int n, unsigned *hist, unsigned *offsets) {
    cg::grid_group grid = cg::this_grid();
    // phase 1: histogram
    for (int i = grid.thread_rank(); i < kBins; i += grid.size()) hist[i] = 0;
    grid.sync();
    for (int i = grid.thread_rank(); i < n; i += grid.size()) atomicAdd(&hist[keys[i] % kBins], 1u);
    grid.sync();
    // phase 2: exclusive scan by the first warp of block 0
    if (blockIdx.x == 0 && threadIdx.x < 32) {
        cg::thread_block_tile<32> w = cg::tiled_partition<32>(cg::this_thread_block());
        unsigned carry = 0;
        for (int base = 0; base < kBins; base += 32) {
            unsigned x = hist[base + w.thread_rank()], incl = x;
            for (int d = 1; d < 32; d *= 2) {
                unsigned y = w.shfl_up(incl, d);
                if ((int)w.thread_rank() >= d) incl += y;
            }
            offsets[base + w.thread_rank()] = carry + incl - x;
            carry += w.shfl(incl, 31);
        }
    }
    grid.sync();
    // phase 3: scatter (stable within a bin is not needed: the output is compared as a multiset
    // per bin and the bins must be in order)
    for (int i = grid.thread_rank(); i < n; i += grid.size()) {
        unsigned pos = atomicAdd(&offsets[keys[i] % kBins], 1u);
        out[pos] = keys[i];
    }
}

// ---- a kernel for the too-large launch -----------------------------------------------------------
__global__ void touch(int *p) {
    cg::this_grid().sync();
    if (threadIdx.x == 0) atomicAdd(p, 1);
}

int main() {
    int dev = 0, coop = 0, sms = 0;
    CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    EXPECT(coop == 1, "cooperative launch supported");
    const int threads = 128;

    // grid identity with a 3-dimensional block layout flattened by thread_rank
    {
        int perSm = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, gridIdentity, threads, 0));
        EXPECT(perSm >= 1, "occupancy %d blocks per SM", perSm);
        int blocks = sms * perSm < 24 ? sms * perSm : 24;
        unsigned long long *rank, *size;
        unsigned *block, *nb;
        int *valid;
        CK(cudaMallocManaged(&rank, blocks * threads * sizeof(unsigned long long)));
        CK(cudaMallocManaged(&size, sizeof(unsigned long long)));
        CK(cudaMallocManaged(&block, blocks * sizeof(unsigned)));
        CK(cudaMallocManaged(&nb, sizeof(unsigned)));
        CK(cudaMallocManaged(&valid, sizeof(int)));
        void *args[] = {&rank, &size, &block, &nb, &valid};
        CK(cudaLaunchCooperativeKernel((void *)gridIdentity, dim3(blocks), dim3(threads), args, 0, 0));
        CK(cudaDeviceSynchronize());
        for (int i = 0; i < blocks * threads; ++i) EXPECT(rank[i] == (unsigned long long)i, "thread_rank of %d is %llu", i, rank[i]);
        for (int b = 0; b < blocks; ++b) EXPECT(block[b] == (unsigned)b, "block_rank of %d is %u", b, block[b]);
        EXPECT(*size == (unsigned long long)blocks * threads && *nb == (unsigned)blocks && *valid == 1,
               "grid size %llu, blocks %u, valid %d", *size, *nb, *valid);
        CK(cudaFree(rank)); CK(cudaFree(size)); CK(cudaFree(block)); CK(cudaFree(nb)); CK(cudaFree(valid));
    }

    // Jacobi: occupancy-sized grid, dynamic shared memory for the warp sums
    {
        const int n = 3000, sweeps = 40;
        size_t shm = (threads / 32) * sizeof(float);
        int perSm = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, jacobi, threads, shm));
        int blocks = sms * perSm;
        if (blocks > 12) blocks = 12;  // keep the run short; fewer threads than elements
        std::vector<float> hu(n), hf(n);
        for (int i = 0; i < n; ++i) {
            hu[i] = (i == 0) ? 1.0f : (i == n - 1) ? -1.0f : (float)((i * 37) % 11) * 0.125f;
            hf[i] = (float)((i * 13) % 7 - 3);
        }
        float *u, *v, *f, *res, *partials;
        CK(cudaMalloc(&u, n * 4));
        CK(cudaMalloc(&v, n * 4));
        CK(cudaMalloc(&f, n * 4));
        CK(cudaMalloc(&res, 8 * 4));
        CK(cudaMalloc(&partials, blocks * 4));
        CK(cudaMemcpy(u, hu.data(), n * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(v, hu.data(), n * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(f, hf.data(), n * 4, cudaMemcpyHostToDevice));
        int nn = n, sw = sweeps;
        void *args[] = {&u, &v, &f, &nn, &sw, &res, &partials};
        CK(cudaLaunchCooperativeKernel((void *)jacobi, dim3(blocks), dim3(threads), args, shm, 0));
        CK(cudaDeviceSynchronize());
        std::vector<float> got(n), gotRes(sweeps / 8);
        CK(cudaMemcpy(got.data(), sweeps % 2 ? v : u, n * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(gotRes.data(), res, gotRes.size() * 4, cudaMemcpyDeviceToHost));
        std::vector<float> ref = hu, refRes;
        hostJacobi(ref, hf, sweeps, refRes, blocks, threads);
        for (int i = 0; i < n; ++i) EXPECT(got[i] == ref[i], "jacobi u[%d] = %.9g, expected %.9g", i, got[i], ref[i]);
        for (size_t k = 0; k < gotRes.size(); ++k)
            EXPECT(fabsf(gotRes[k] - refRes[k]) <= 1e-4f * fabsf(refRes[k]) + 1e-6f, "residual %zu = %.9g, expected %.9g", k, gotRes[k], refRes[k]);
        EXPECT(refRes.back() < refRes.front(), "the residual decreases");
        CK(cudaFree(u)); CK(cudaFree(v)); CK(cudaFree(f)); CK(cudaFree(res)); CK(cudaFree(partials));
    }

    // counting sort, launched through cudaLaunchKernelEx with the cooperative attribute
    {
        const int n = 5000;
        std::vector<unsigned> hk(n);
        uint32_t s = 7;
        for (auto &k : hk) { s = s * 1103515245u + 12345u; k = s >> 7; }
        unsigned *keys, *out, *hist, *offsets;
        CK(cudaMalloc(&keys, n * 4));
        CK(cudaMalloc(&out, n * 4));
        CK(cudaMalloc(&hist, kBins * 4));
        CK(cudaMalloc(&offsets, kBins * 4));
        CK(cudaMemcpy(keys, hk.data(), n * 4, cudaMemcpyHostToDevice));
        cudaLaunchConfig_t cfg{};
        cfg.gridDim = dim3(sms < 8 ? sms : 8);
        cfg.blockDim = dim3(256);
        cudaLaunchAttribute attr;
        attr.id = cudaLaunchAttributeCooperative;
        attr.val.cooperative = 1;
        cfg.attrs = &attr;
        cfg.numAttrs = 1;
        CK(cudaLaunchKernelEx(&cfg, countingSort, (const unsigned *)keys, out, n, hist, offsets));
        CK(cudaDeviceSynchronize());
        std::vector<unsigned> ho(n);
        CK(cudaMemcpy(ho.data(), out, n * 4, cudaMemcpyDeviceToHost));
        std::vector<unsigned> count(kBins, 0), seenCount(kBins, 0);
        for (unsigned k : hk) ++count[k % kBins];
        unsigned bin = 0, pos = 0;
        for (int i = 0; i < n; ++i) {
            while (bin < kBins && pos == count[bin]) { ++bin; pos = 0; }
            EXPECT(bin < kBins && ho[i] % kBins == bin, "sorted[%d] = %u is in bin %u, expected bin %u", i, ho[i], ho[i] % kBins, bin);
            ++pos;
        }
        std::vector<unsigned> a = hk, b = ho;
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        EXPECT(a == b, "the sort output is a permutation of the input");
        CK(cudaFree(keys)); CK(cudaFree(out)); CK(cudaFree(hist)); CK(cudaFree(offsets));
    }

    // a grid that cannot be resident at once
    {
        int perSm = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, touch, 1024, 0));
        int *p;
        CK(cudaMallocManaged(&p, sizeof(int)));
        *p = 0;
        void *args[] = {&p};
        cudaError_t e = cudaLaunchCooperativeKernel((void *)touch, dim3(sms * perSm + 1), dim3(1024), args, 0, 0);
        EXPECT(e == cudaErrorCooperativeLaunchTooLarge, "too-large cooperative launch returned %s", cudaGetErrorName(e));
        EXPECT(cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge, "the error is also the last error");
        EXPECT(cudaGetLastError() == cudaSuccess, "and is not sticky");
        CK(cudaLaunchCooperativeKernel((void *)touch, dim3(2), dim3(64), args, 0, 0));
        CK(cudaDeviceSynchronize());
        EXPECT(*p == 2, "the device works after the refused launch (%d)", *p);
        CK(cudaFree(p));
    }
    return finish();
}

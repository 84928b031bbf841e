// Reductions written against warpSize (nvcc emits the PTX constant WARP_SZ for it): a
// shuffle-tree block sum with per-warp partials in shared memory, a grid-stride max with lane and
// warp indices from warpSize, a warp-count query, and inline PTX reading WARP_SZ and the shared
// memory size registers. Checked against the host.
static const char *kName = "warpsize_reduce";
#include "../kernels/test_common.h"

#include <vector>

// Sum of a warp's values: a shuffle tree whose width comes from warpSize.
__device__ long long warpSum(long long v) {
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// Block sums of `in` into `out[blockIdx.x]`; the per-warp partials live in dynamic shared memory
// sized by the host as blockDim.x / warpSize entries.
__global__ void blockSum(const int *in, long long *out, int n) {
    extern __shared__ long long partial[];
    int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    int warps = (blockDim.x + warpSize - 1) / warpSize;
    long long v = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += in[i];
    v = warpSum(v);
    if (lane == 0)
        partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < warps ? partial[lane] : 0;
        v = warpSum(v);
        if (lane == 0)
            out[blockIdx.x] = v;
    }
}

// Maximum and its first index, one warp per row: lanes stride the row by warpSize.
__global__ void rowArgmax(const int *in, int rows, int cols, int *maxOut, int *idxOut) {
    int warpsPerBlock = blockDim.x / warpSize;
    int row = blockIdx.x * warpsPerBlock + threadIdx.x / warpSize;
    int lane = threadIdx.x & (warpSize - 1);
    if (row >= rows)
        return;
    int best = -2147483647 - 1, bestIdx = cols;
    for (int c = lane; c < cols; c += warpSize) {
        int x = in[row * cols + c];
        if (x > best) { best = x; bestIdx = c; }
    }
    for (int offset = warpSize / 2; offset > 0; offset >>= 1) {
        int ob = __shfl_xor_sync(0xffffffffu, best, offset);
        int oi = __shfl_xor_sync(0xffffffffu, bestIdx, offset);
        if (ob > best || (ob == best && oi < bestIdx)) { best = ob; bestIdx = oi; }
    }
    if (lane == 0) { maxOut[row] = best; idxOut[row] = bestIdx; }
}

// What the device says about its warps and shared memory, via C++ and inline PTX.
__global__ void queries(unsigned *out) {
    __shared__ int staticArr[64];
    if (threadIdx.x < 64)
        staticArr[threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (threadIdx.x != 0 || blockIdx.x != 0)
        return;
    unsigned w, dyn, total, laneMask;
    asm volatile("mov.u32 %0, WARP_SZ;" : "=r"(w));
    asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dyn));
    asm volatile("mov.u32 %0, %%total_smem_size;" : "=r"(total));
    asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(laneMask));
    out[0] = warpSize;
    out[1] = w;
    out[2] = dyn;
    out[3] = total;
    out[4] = laneMask;
    out[5] = (blockDim.x + warpSize - 1) / warpSize;
    out[6] = staticArr[5];
}

int main() {
    // block sums
    const int n = 300000, blocks = 40, threads = 256;
    std::vector<int> h(n);
    unsigned s = 12345;
    for (int &x : h) { s = s * 1664525u + 1013904223u; x = int(s >> 8) % 2001 - 1000; }
    int *din;
    long long *dsum;
    CK(cudaMalloc(&din, n * sizeof(int)));
    CK(cudaMalloc(&dsum, blocks * sizeof(long long)));
    CK(cudaMemcpy(din, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    int warpSizeHost = 0;
    CK(cudaDeviceGetAttribute(&warpSizeHost, cudaDevAttrWarpSize, 0));
    EXPECT(warpSizeHost == 32, "cudaDevAttrWarpSize %d", warpSizeHost);
    blockSum<<<blocks, threads, threads / warpSizeHost * sizeof(long long)>>>(din, dsum, n);
    CK(cudaGetLastError());
    std::vector<long long> sums(blocks);
    CK(cudaMemcpy(sums.data(), dsum, blocks * sizeof(long long), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; ++b) {
        long long want = 0;
        for (int i = b * threads; i < n; i += blocks * threads)
            for (int t = 0; t < threads && i + t < n; ++t)
                want += h[i + t];
        EXPECT(sums[b] == want, "block %d sum %lld, want %lld", b, sums[b], want);
    }

    // one block of three warps striding over 1000 elements
    blockSum<<<1, 96, 3 * sizeof(long long)>>>(din, dsum, 1000);
    CK(cudaGetLastError());
    long long one = 0, want1 = 0;
    CK(cudaMemcpy(&one, dsum, sizeof one, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 1000; ++i) want1 += h[i];
    EXPECT(one == want1, "three-warp block sum %lld, want %lld", one, want1);

    // row argmax
    const int rows = 77, cols = 333;
    int *dmax, *didx;
    CK(cudaMalloc(&dmax, rows * sizeof(int)));
    CK(cudaMalloc(&didx, rows * sizeof(int)));
    rowArgmax<<<(rows + 3) / 4, 128>>>(din, rows, cols, dmax, didx);
    CK(cudaGetLastError());
    std::vector<int> mx(rows), ix(rows);
    CK(cudaMemcpy(mx.data(), dmax, rows * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ix.data(), didx, rows * sizeof(int), cudaMemcpyDeviceToHost));
    for (int r = 0; r < rows; ++r) {
        int best = h[r * cols], bi = 0;
        for (int c = 1; c < cols; ++c)
            if (h[r * cols + c] > best) { best = h[r * cols + c]; bi = c; }
        EXPECT(mx[r] == best && ix[r] == bi, "row %d: max %d at %d, want %d at %d", r, mx[r], ix[r], best, bi);
    }

    // queries
    unsigned *dq;
    CK(cudaMalloc(&dq, 8 * sizeof(unsigned)));
    queries<<<2, 70, 48>>>(dq);
    CK(cudaGetLastError());
    unsigned q[8];
    CK(cudaMemcpy(q, dq, 7 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    EXPECT(q[0] == 32 && q[1] == 32, "warpSize %u, WARP_SZ %u", q[0], q[1]);
    EXPECT(q[2] == 48, "%%dynamic_smem_size %u", q[2]);
    EXPECT(q[3] >= 64 * sizeof(int) + 48, "%%total_smem_size %u", q[3]);
    EXPECT(q[4] == 0, "%%lanemask_lt of lane 0: %u", q[4]);
    EXPECT(q[5] == 3, "warps of a 70-thread block: %u", q[5]);
    EXPECT(q[6] == 5, "shared value %u", q[6]);

    CK(cudaFree(din));
    CK(cudaFree(dsum));
    CK(cudaFree(dmax));
    CK(cudaFree(didx));
    CK(cudaFree(dq));
    return finish();
}

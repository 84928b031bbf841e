// Dynamic parallelism with kernels written against warpSize (WARP_SZ in the PTX): a parent
// thread per segment launches a child grid sized in warps; a child whose segment is long splits
// it and launches two grandchildren (recursively, to a fixed depth), and the leaves sum their
// part with warp shuffles and one atomicAdd per warp into the segment's total. Warp-aggregated
// counting (ballot/popc over warpSize lanes) records how many leaves ran. Checked on the host.
static const char *kName = "cdp_warpsize";
#include "../../kernels/test_common.h"

#include <vector>

__device__ long long warpSum(long long v) {
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// Sums in[begin, end) into *total: every thread strides by the grid size, each warp adds once.
__global__ void leafSum(const int *in, int begin, int end, long long *total, unsigned *leafWarps) {
    long long v = 0;
    for (int i = begin + blockIdx.x * blockDim.x + threadIdx.x; i < end; i += gridDim.x * blockDim.x)
        v += in[i];
    v = warpSum(v);
    int lane = threadIdx.x % warpSize;
    unsigned voters = __ballot_sync(0xffffffffu, true);
    if (lane == 0) {
        atomicAdd(reinterpret_cast<unsigned long long *>(total), (unsigned long long)v);
        // warp-aggregated: one atomic per warp adds the number of warps (one per leader)
        atomicAdd(leafWarps, __popc(voters) / warpSize);
    }
}

// Splits [begin, end) until it is short, then launches a leaf grid of `warps` warps.
__global__ void split(const int *in, int begin, int end, int depth, long long *total, unsigned *leafWarps) {
    if (threadIdx.x != 0)
        return;
    int len = end - begin;
    if (len > 4096 && depth < 3) {
        int mid = begin + len / 2;
        split<<<1, warpSize>>>(in, begin, mid, depth + 1, total, leafWarps);
        split<<<1, warpSize>>>(in, mid, end, depth + 1, total, leafWarps);
    } else {
        int warps = (len + 32 * warpSize - 1) / (32 * warpSize); // ~32 elements per lane
        if (warps < 1) warps = 1;
        if (warps > 8) warps = 8;
        leafSum<<<2, warps * warpSize>>>(in, begin, end, total, leafWarps);
    }
}

// One thread per segment.
__global__ void parent(const int *in, const int *bounds, int segments, long long *totals, unsigned *leafWarps) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= segments)
        return;
    split<<<1, warpSize>>>(in, bounds[s], bounds[s + 1], 0, &totals[s], leafWarps);
}

int main() {
    const int segments = 12;
    std::vector<int> bounds(segments + 1, 0);
    for (int s = 0; s < segments; ++s)
        bounds[s + 1] = bounds[s] + 500 + s * s * 211; // from 500 to ~26k elements
    int n = bounds[segments];
    std::vector<int> in(n);
    unsigned r = 99;
    for (int &x : in) { r = r * 1664525u + 1013904223u; x = int(r >> 9) % 20001 - 10000; }
    int *din, *dbounds;
    long long *dtotals;
    unsigned *dwarps;
    CK(cudaMalloc(&din, n * sizeof(int)));
    CK(cudaMalloc(&dbounds, (segments + 1) * sizeof(int)));
    CK(cudaMalloc(&dtotals, segments * sizeof(long long)));
    CK(cudaMalloc(&dwarps, sizeof(unsigned)));
    CK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dbounds, bounds.data(), (segments + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemset(dtotals, 0, segments * sizeof(long long)));
    CK(cudaMemset(dwarps, 0, sizeof(unsigned)));
    parent<<<2, 8>>>(din, dbounds, segments, dtotals, dwarps);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<long long> totals(segments);
    unsigned warps = 0;
    CK(cudaMemcpy(totals.data(), dtotals, segments * sizeof(long long), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&warps, dwarps, sizeof warps, cudaMemcpyDeviceToHost));

    // the same splitting on the host: expected sums and leaf warps
    unsigned wantWarps = 0;
    auto leaves = [&](auto &&self, int begin, int end, int depth) -> void {
        int len = end - begin;
        if (len > 4096 && depth < 3) {
            int mid = begin + len / 2;
            self(self, begin, mid, depth + 1);
            self(self, mid, end, depth + 1);
        } else {
            int w = (len + 32 * 32 - 1) / (32 * 32);
            w = w < 1 ? 1 : w > 8 ? 8 : w;
            wantWarps += 2 * w; // two blocks of w warps
        }
    };
    for (int s = 0; s < segments; ++s) {
        long long want = 0;
        for (int i = bounds[s]; i < bounds[s + 1]; ++i) want += in[i];
        EXPECT(totals[s] == want, "segment %d: %lld, want %lld", s, totals[s], want);
        leaves(leaves, bounds[s], bounds[s + 1], 0);
    }
    EXPECT(warps == wantWarps, "leaf warps %u, want %u", warps, wantWarps);
    printf("%d segments, %d elements, %u leaf warps\n", segments, n, warps);
    CK(cudaFree(din));
    CK(cudaFree(dbounds));
    CK(cudaFree(dtotals));
    CK(cudaFree(dwarps));
    return finish();
}

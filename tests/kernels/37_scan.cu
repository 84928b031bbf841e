// ptxsim test kernel: scan
// Self-checking: prints PASS scan / FAIL scan.
static const char* kName = "scan";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Prefix sums: work-efficient (Blelloch up-sweep/down-sweep) exclusive scan per
// block of 512 elements, a scan of the block totals, and a uniform add pass; plus
// a Hillis-Steele inclusive scan with double buffering.
#define SB 256           // threads per block
#define SE (2 * SB)      // elements per block

__global__ void blelloch(const int* in, int* out, int* sums, int n) {
    __shared__ int s[SE];
    int t = threadIdx.x, base = blockIdx.x * SE;
    s[2 * t] = base + 2 * t < n ? in[base + 2 * t] : 0;
    s[2 * t + 1] = base + 2 * t + 1 < n ? in[base + 2 * t + 1] : 0;
    int off = 1;
    for (int d = SE >> 1; d > 0; d >>= 1) {   // up-sweep
        __syncthreads();
        if (t < d) { int ai = off * (2 * t + 1) - 1, bi = off * (2 * t + 2) - 1; s[bi] += s[ai]; }
        off *= 2;
    }
    if (t == 0) { if (sums) sums[blockIdx.x] = s[SE - 1]; s[SE - 1] = 0; }
    for (int d = 1; d < SE; d *= 2) {          // down-sweep
        off >>= 1;
        __syncthreads();
        if (t < d) {
            int ai = off * (2 * t + 1) - 1, bi = off * (2 * t + 2) - 1;
            int x = s[ai]; s[ai] = s[bi]; s[bi] += x;
        }
    }
    __syncthreads();
    if (base + 2 * t < n) out[base + 2 * t] = s[2 * t];
    if (base + 2 * t + 1 < n) out[base + 2 * t + 1] = s[2 * t + 1];
}

__global__ void add_block_offsets(int* out, const int* offs, int n) {
    int i = blockIdx.x * SE + threadIdx.x;
    int o = offs[blockIdx.x];
    if (i < n) out[i] += o;
    if (i + SB < n) out[i + SB] += o;
}

__global__ void hillis_steele(const int* in, int* out, int n) {
    __shared__ int buf[2][SB];
    int t = threadIdx.x;
    int cur = 0;
    buf[0][t] = t < n ? in[t] : 0;
    __syncthreads();
    for (int off = 1; off < SB; off *= 2) {
        buf[cur ^ 1][t] = buf[cur][t] + (t >= off ? buf[cur][t - off] : 0);
        cur ^= 1;
        __syncthreads();
    }
    if (t < n) out[t] = buf[cur][t];
}

int main() {
    const int n = 2000, nb = (n + SE - 1) / SE;
    int* h = new int[n];
    for (int i = 0; i < n; ++i) h[i] = (i * 17) % 23 - 7;
    int *din, *dout, *dsums, *dsumscan, *dhs;
    CK(cudaMalloc(&din, n * 4)); CK(cudaMalloc(&dout, n * 4)); CK(cudaMalloc(&dsums, nb * 4));
    CK(cudaMalloc(&dsumscan, nb * 4)); CK(cudaMalloc(&dhs, SB * 4));
    CK(cudaMemcpy(din, h, n * 4, cudaMemcpyHostToDevice));
    blelloch<<<nb, SB>>>(din, dout, dsums, n);
    CK(cudaGetLastError());
    blelloch<<<1, SB>>>(dsums, dsumscan, nullptr, nb);   // nb <= SE
    CK(cudaGetLastError());
    add_block_offsets<<<nb, SB>>>(dout, dsumscan, n);
    CK(cudaGetLastError());
    hillis_steele<<<1, SB>>>(din, dhs, 200);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int* out = new int[n]; int hs[SB];
    CK(cudaMemcpy(out, dout, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hs, dhs, 200 * 4, cudaMemcpyDeviceToHost));
    int acc = 0;
    for (int i = 0; i < n; ++i) {
        EXPECT(out[i] == acc, "exclusive scan [%d]=%d expected %d", i, out[i], acc);
        acc += h[i];
        if (i < 200) EXPECT(hs[i] == acc, "inclusive scan [%d]=%d expected %d", i, hs[i], acc);
    }
    cudaFree(din); cudaFree(dout); cudaFree(dsums); cudaFree(dsumscan); cudaFree(dhs);
    delete[] h; delete[] out;
    return finish();
}

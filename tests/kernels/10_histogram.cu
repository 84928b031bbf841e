// ptxsim test kernel: histogram
// Self-checking: prints PASS histogram / FAIL histogram.
static const char* kName = "histogram";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// 256-bin histogram: per-block shared-memory atomics, then merge into global with atomicAdd.
#define NBINS 256

__global__ void histo(const unsigned char* data, int n, unsigned* bins) {
    __shared__ unsigned sh[NBINS];
    for (int i = threadIdx.x; i < NBINS; i += blockDim.x) sh[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&sh[data[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < NBINS; i += blockDim.x)
        if (sh[i]) atomicAdd(&bins[i], sh[i]);
}

// 16-bin histogram of 32-bit words, using a per-warp private copy in shared memory
__global__ void histo_warp_private(const unsigned* data, int n, unsigned* bins) {
    extern __shared__ unsigned wsh[];  // (blockDim.x/32) * 16
    int warp = threadIdx.x / 32;
    for (int i = threadIdx.x; i < (int)(blockDim.x / 32) * 16; i += blockDim.x) wsh[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&wsh[warp * 16 + (data[i] >> 28)], 1u);
    __syncthreads();
    if (threadIdx.x < 16) {
        unsigned s = 0;
        for (int w = 0; w < (int)blockDim.x / 32; ++w) s += wsh[w * 16 + threadIdx.x];
        atomicAdd(&bins[threadIdx.x], s);
    }
}

int main() {
    const int n = 5000;
    unsigned char* h = new unsigned char[n];
    unsigned* hw = new unsigned[n];
    for (int i = 0; i < n; ++i) { h[i] = (unsigned char)((i * i * 7 + i * 13) & 255); hw[i] = (unsigned)i * 2654435761u; }
    unsigned char* dd; unsigned *dbins, *dw, *dbins2;
    CK(cudaMalloc(&dd, n)); CK(cudaMalloc(&dbins, NBINS * sizeof(unsigned)));
    CK(cudaMalloc(&dw, n * sizeof(unsigned))); CK(cudaMalloc(&dbins2, 16 * sizeof(unsigned)));
    CK(cudaMemcpy(dd, h, n, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dw, hw, n * sizeof(unsigned), cudaMemcpyHostToDevice));
    CK(cudaMemset(dbins, 0, NBINS * sizeof(unsigned)));
    CK(cudaMemset(dbins2, 0, 16 * sizeof(unsigned)));
    histo<<<4, 256>>>(dd, n, dbins);
    CK(cudaGetLastError());
    histo_warp_private<<<3, 128, (128 / 32) * 16 * sizeof(unsigned)>>>(dw, n, dbins2);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    unsigned bins[NBINS], bins2[16];
    CK(cudaMemcpy(bins, dbins, sizeof(bins), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(bins2, dbins2, sizeof(bins2), cudaMemcpyDeviceToHost));
    unsigned e[NBINS] = {0}, e2[16] = {0};
    for (int i = 0; i < n; ++i) { e[h[i]]++; e2[hw[i] >> 28]++; }
    for (int b = 0; b < NBINS; ++b) EXPECT(bins[b] == e[b], "bin %d = %u expected %u", b, bins[b], e[b]);
    for (int b = 0; b < 16; ++b) EXPECT(bins2[b] == e2[b], "bin2 %d = %u expected %u", b, bins2[b], e2[b]);
    cudaFree(dd); cudaFree(dbins); cudaFree(dw); cudaFree(dbins2);
    delete[] h; delete[] hw;
    return finish();
}

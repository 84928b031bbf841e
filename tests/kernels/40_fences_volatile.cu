// ptxsim test kernel: fences_volatile
// Self-checking: prints PASS fences_volatile / FAIL fences_volatile.
static const char* kName = "fences_volatile";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Memory fences and volatile: the "last block finishes the reduction" pattern
// with __threadfence + atomicInc, a volatile shared-memory warp reduction,
// __threadfence_block, __threadfence_system, and volatile global accesses.

__device__ unsigned int g_done = 0;

__device__ void warp_reduce_volatile(volatile int* s, int t) {
    // relies on volatile to force re-reads; __syncwarp keeps it legal on Volta+
    s[t] += s[t + 32]; __syncwarp();
    s[t] += s[t + 16]; __syncwarp();
    s[t] += s[t + 8];  __syncwarp();
    s[t] += s[t + 4];  __syncwarp();
    s[t] += s[t + 2];  __syncwarp();
    s[t] += s[t + 1];  __syncwarp();
}

__global__ void sum_last_block(const int* in, volatile int* partial, int* result, int n) {
    __shared__ int s[128];
    __shared__ bool am_last;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (int off = 64; off > 32; off >>= 1) {
        if (t < off) s[t] += s[t + off];
        __syncthreads();
    }
    if (t < 32) warp_reduce_volatile(s, t);
    if (t == 0) {
        partial[blockIdx.x] = s[0];
        __threadfence();  // make the partial visible device-wide before signalling
        unsigned ticket = atomicInc(&g_done, gridDim.x);
        am_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (am_last) {
        int acc = 0;
        for (int k = t; k < (int)gridDim.x; k += blockDim.x) acc += partial[k];  // volatile reads
        s[t] = acc;
        __syncthreads();
        for (int off = 64; off > 0; off >>= 1) {
            if (t < off) s[t] += s[t + off];
            __syncthreads();
        }
        if (t == 0) { *result = s[0]; g_done = 0; }
    }
}

__global__ void fence_block(int* out) {
    __shared__ int data[64];
    __shared__ volatile int flag;
    int t = threadIdx.x;
    if (t == 0) flag = 0;
    __syncthreads();
    data[t] = t * t;
    __threadfence_block();
    __syncthreads();
    if (t == 0) { flag = 1; __threadfence_system(); }
    __syncthreads();
    out[t] = data[63 - t] + flag;
}

int main() {
    const int n = 3000, B = 128, G = (n + B - 1) / B;
    int* h = new int[n]; long long e = 0;
    for (int i = 0; i < n; ++i) { h[i] = (i * 13) % 200 - 100; e += h[i]; }
    int *din, *dpart, *dres, *dout;
    CK(cudaMalloc(&din, n * 4)); CK(cudaMalloc(&dpart, G * 4)); CK(cudaMalloc(&dres, 4)); CK(cudaMalloc(&dout, 64 * 4));
    CK(cudaMemcpy(din, h, n * 4, cudaMemcpyHostToDevice));
    int res[2];
    for (int rep = 0; rep < 2; ++rep) {  // second run checks the counter was reset
        CK(cudaMemset(dres, 0, 4));
        sum_last_block<<<G, B>>>(din, dpart, dres, n);
        CK(cudaGetLastError());
        CK(cudaMemcpy(&res[rep], dres, 4, cudaMemcpyDeviceToHost));
        EXPECT(res[rep] == (int)e, "run %d sum=%d expected %lld", rep, res[rep], e);
    }
    int part[G];
    CK(cudaMemcpy(part, dpart, sizeof(part), cudaMemcpyDeviceToHost));
    for (int b = 0; b < G; ++b) {
        int s = 0; for (int i = b * B; i < n && i < (b + 1) * B; ++i) s += h[i];
        EXPECT(part[b] == s, "partial[%d]=%d expected %d", b, part[b], s);
    }
    fence_block<<<1, 64>>>(dout);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int out[64];
    CK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
    for (int t = 0; t < 64; ++t) EXPECT(out[t] == (63 - t) * (63 - t) + 1, "fence_block[%d]=%d", t, out[t]);
    cudaFree(din); cudaFree(dpart); cudaFree(dres); cudaFree(dout); delete[] h;
    return finish();
}

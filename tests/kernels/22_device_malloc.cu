// ptxsim test kernel: device_malloc
// Self-checking: prints PASS device_malloc / FAIL device_malloc.
static const char* kName = "device_malloc";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Device-side heap: per-thread malloc/free, new[]/delete[], a block-shared
// allocation published through shared memory, and memory allocated in one kernel
// and freed in a later kernel.

__global__ void per_thread(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int cnt = 1 + i % 13;
    int* p = (int*)malloc(cnt * sizeof(int));
    if (!p) { out[i] = -1; return; }
    for (int k = 0; k < cnt; ++k) p[k] = i * k;
    int s = 0;
    for (int k = 0; k < cnt; ++k) s += p[k];
    free(p);
    double* q = new double[4];
    for (int k = 0; k < 4; ++k) q[k] = 0.5 * (i + k);
    double ds = q[0] + q[1] + q[2] + q[3];
    delete[] q;
    out[i] = s + (int)(ds * 2.0);
}

__global__ void block_shared(int* out) {
    __shared__ int* buf;
    if (threadIdx.x == 0) buf = (int*)malloc(blockDim.x * sizeof(int));
    __syncthreads();
    if (buf == nullptr) { out[blockIdx.x * blockDim.x + threadIdx.x] = -1; return; }
    buf[threadIdx.x] = threadIdx.x * 3 + blockIdx.x;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) free(buf);
}

__device__ int* g_persist[4];

__global__ void alloc_persist() {
    int b = threadIdx.x;
    g_persist[b] = (int*)malloc(16 * sizeof(int));
    if (g_persist[b]) for (int k = 0; k < 16; ++k) g_persist[b][k] = b * 100 + k;
}
__global__ void use_and_free_persist(int* out) {
    int b = threadIdx.x;
    int s = -1;
    if (g_persist[b]) { s = 0; for (int k = 0; k < 16; ++k) s += g_persist[b][k]; free(g_persist[b]); g_persist[b] = nullptr; }
    out[b] = s;
}

int main() {
    CK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 8 << 20));
    const int n = 128, B = 64, G = 3;
    int *d1, *d2, *d3;
    CK(cudaMalloc(&d1, n * sizeof(int))); CK(cudaMalloc(&d2, B * G * sizeof(int))); CK(cudaMalloc(&d3, 4 * sizeof(int)));
    per_thread<<<2, 64>>>(d1, n);
    CK(cudaGetLastError());
    block_shared<<<G, B>>>(d2);
    CK(cudaGetLastError());
    alloc_persist<<<1, 4>>>();
    CK(cudaGetLastError());
    use_and_free_persist<<<1, 4>>>(d3);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int o1[n], o2[B * G], o3[4];
    CK(cudaMemcpy(o1, d1, sizeof(o1), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(o2, d2, sizeof(o2), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(o3, d3, sizeof(o3), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        int cnt = 1 + i % 13, s = 0;
        for (int k = 0; k < cnt; ++k) s += i * k;
        int e = s + (int)((0.5 * (4 * i + 6)) * 2.0);
        EXPECT(o1[i] == e, "per_thread[%d]=%d expected %d", i, o1[i], e);
    }
    for (int b = 0; b < G; ++b)
        for (int t = 0; t < B; ++t) {
            int e = (B - 1 - t) * 3 + b;
            EXPECT(o2[b * B + t] == e, "block_shared[%d,%d]=%d expected %d", b, t, o2[b * B + t], e);
        }
    for (int b = 0; b < 4; ++b) EXPECT(o3[b] == b * 1600 + 120, "persist[%d]=%d expected %d", b, o3[b], b * 1600 + 120);
    cudaFree(d1); cudaFree(d2); cudaFree(d3);
    return finish();
}

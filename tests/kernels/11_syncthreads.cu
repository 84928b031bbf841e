// ptxsim test kernel: syncthreads
// Self-checking: prints PASS syncthreads / FAIL syncthreads.
static const char* kName = "syncthreads";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// __syncthreads, __syncthreads_count, __syncthreads_and, __syncthreads_or.

__global__ void sync_kernel(const int* in, int* rev, int* counts, int* ands, int* ors) {
    __shared__ int s[256];
    int tid = threadIdx.x;
    int g = blockIdx.x * blockDim.x + tid;
    int v = in[g];
    s[tid] = v;
    __syncthreads();
    rev[g] = s[blockDim.x - 1 - tid];   // reverse within block
    __syncthreads();
    s[tid] = rev[g] * 2;                 // overwrite after everyone has read
    __syncthreads();
    rev[g] += s[(tid + 1) % blockDim.x];

    int c = __syncthreads_count(v > 10);
    int a1 = __syncthreads_and(v >= 0);
    int a2 = __syncthreads_and(v > 5);
    int o1 = __syncthreads_or(v == 42);
    int o2 = __syncthreads_or(v < 0);
    if (tid == 0) {
        counts[blockIdx.x] = c;
        ands[blockIdx.x * 2] = a1 != 0; ands[blockIdx.x * 2 + 1] = a2 != 0;
        ors[blockIdx.x * 2] = o1 != 0; ors[blockIdx.x * 2 + 1] = o2 != 0;
    }
}

int main() {
    const int B = 192, G = 3, n = B * G;
    int h[n];
    for (int i = 0; i < n; ++i) h[i] = (i * 17) % 50;  // 0..49
    h[B + 5] = -3;      // block 1 contains a negative value
    for (int i = 2 * B; i < 3 * B; ++i) h[i] = 6 + (i % 30);  // block 2: all > 5
    h[2 * B + 100] = 42;
    int *din, *drev, *dc, *da, *dor;
    CK(cudaMalloc(&din, sizeof(h))); CK(cudaMalloc(&drev, sizeof(h)));
    CK(cudaMalloc(&dc, G * sizeof(int))); CK(cudaMalloc(&da, 2 * G * sizeof(int))); CK(cudaMalloc(&dor, 2 * G * sizeof(int)));
    CK(cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice));
    sync_kernel<<<G, B>>>(din, drev, dc, da, dor);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int rev[n], c[G], a[2 * G], o[2 * G];
    CK(cudaMemcpy(rev, drev, sizeof(rev), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(c, dc, sizeof(c), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(a, da, sizeof(a), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(o, dor, sizeof(o), cudaMemcpyDeviceToHost));
    for (int b = 0; b < G; ++b) {
        int ec = 0, ea1 = 1, ea2 = 1, eo1 = 0, eo2 = 0;
        for (int t = 0; t < B; ++t) {
            int g = b * B + t;
            int r1 = h[b * B + (B - 1 - t)];
            int tn = (t + 1) % B;
            int r2 = h[b * B + (B - 1 - tn)] * 2;
            EXPECT(rev[g] == r1 + r2, "rev[%d]=%d expected %d", g, rev[g], r1 + r2);
            int v = h[g];
            ec += v > 10; ea1 &= v >= 0; ea2 &= v > 5; eo1 |= v == 42; eo2 |= v < 0;
        }
        EXPECT(c[b] == ec, "count block %d = %d expected %d", b, c[b], ec);
        EXPECT(a[2 * b] == ea1 && a[2 * b + 1] == ea2, "and block %d = %d,%d expected %d,%d", b, a[2 * b], a[2 * b + 1], ea1, ea2);
        EXPECT(o[2 * b] == eo1 && o[2 * b + 1] == eo2, "or block %d = %d,%d expected %d,%d", b, o[2 * b], o[2 * b + 1], eo1, eo2);
    }
    cudaFree(din); cudaFree(drev); cudaFree(dc); cudaFree(da); cudaFree(dor);
    return finish();
}

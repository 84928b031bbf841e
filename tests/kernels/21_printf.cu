// ptxsim test kernel: printf
// Self-checking: prints PASS printf / FAIL printf.
static const char* kName = "printf";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Device printf with several format specifiers from a few threads. The check is on
// the computed results; the printed lines just have to appear.

__global__ void printer(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i] * in[i] - 3;
    out[i] = v;
    if (i % 16 == 0)
        printf("thread %d (block %d, tid %u): v=%d hex=0x%x f=%.3f d=%g str=%s c=%c ll=%lld\n", i, blockIdx.x, threadIdx.x,
               v, (unsigned)v, v * 0.5f, (double)v / 3.0, "ok", 'A' + (i / 16) % 26, (long long)v << 20);
    if (i == 0) printf("single line without arguments\n");
}

int main() {
    const int n = 64;
    int h[n];
    for (int i = 0; i < n; ++i) h[i] = i - 20;
    int *din, *dout;
    CK(cudaMalloc(&din, sizeof(h))); CK(cudaMalloc(&dout, sizeof(h)));
    CK(cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice));
    printer<<<2, 32>>>(din, dout, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());  // flushes the device printf buffer
    int out[n];
    CK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT(out[i] == h[i] * h[i] - 3, "out[%d]=%d expected %d", i, out[i], h[i] * h[i] - 3);
    cudaFree(din); cudaFree(dout);
    return finish();
}

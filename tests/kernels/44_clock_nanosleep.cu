// ptxsim test kernel: clock_nanosleep
// Self-checking: prints PASS clock_nanosleep / FAIL clock_nanosleep.
static const char* kName = "clock_nanosleep";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Timers and sleeping: clock(), clock64(), %globaltimer, __nanosleep (sm_70+)
// with constant and variable durations. Timing values are only checked for
// monotonicity; the computed results are checked exactly.

__device__ __forceinline__ unsigned long long globaltimer() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void timed(const int* in, int* out, long long* times, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long c0 = clock64();
    clock_t k0 = clock();
    unsigned long long g0 = globaltimer();
    __nanosleep(100);
    __nanosleep(50u * (unsigned)(i % 4));   // variable duration
    int v = in[i];
    for (int k = 0; k < 16; ++k) v = v * 3 + k;
    long long c1 = clock64();
    clock_t k1 = clock();
    unsigned long long g1 = globaltimer();
    out[i] = v;
    times[i * 3 + 0] = c1 - c0;
    times[i * 3 + 1] = (long long)(k1 - k0);
    times[i * 3 + 2] = (long long)(g1 - g0);
}

// exponential-backoff polling loop using __nanosleep; thread 0 sets the flag before the
// barrier, so every thread sees it and the loop always terminates (spins == 0)
__global__ void backoff(int* flag, int* out) {
    int t = threadIdx.x;
    if (t == 0) { atomicExch(flag, 1); }
    __syncthreads();
    unsigned ns = 8;
    int spins = 0;
    while (atomicAdd(flag, 0) == 0) { __nanosleep(ns); if (ns < 256) ns *= 2; spins++; }
    out[t] = spins == 0 ? t : -1;
}

int main() {
    const int n = 64;
    int h[n];
    for (int i = 0; i < n; ++i) h[i] = i - 30;
    int *din, *dout, *dflag, *dout2; long long* dt;
    CK(cudaMalloc(&din, sizeof(h))); CK(cudaMalloc(&dout, sizeof(h))); CK(cudaMalloc(&dt, n * 3 * 8));
    CK(cudaMalloc(&dflag, 4)); CK(cudaMalloc(&dout2, 32 * 4));
    CK(cudaMemset(dflag, 0, 4));
    CK(cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice));
    timed<<<2, 32>>>(din, dout, dt, n);
    CK(cudaGetLastError());
    backoff<<<1, 32>>>(dflag, dout2);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int out[n], out2[32]; long long t[n * 3];
    CK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(t, dt, sizeof(t), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(out2, dout2, sizeof(out2), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        int v = h[i];
        for (int k = 0; k < 16; ++k) v = v * 3 + k;
        EXPECT(out[i] == v, "out[%d]=%d expected %d", i, out[i], v);
        EXPECT(t[i * 3] >= 0, "clock64 delta negative at %d: %lld", i, t[i * 3]);
        EXPECT(t[i * 3 + 2] >= 0, "globaltimer delta negative at %d: %lld", i, t[i * 3 + 2]);
    }
    for (int k = 0; k < 32; ++k) EXPECT(out2[k] == k, "backoff [%d]=%d", k, out2[k]);
    cudaFree(din); cudaFree(dout); cudaFree(dt); cudaFree(dflag); cudaFree(dout2);
    return finish();
}

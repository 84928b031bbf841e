// ptxsim test kernel: cp_async
// Self-checking: prints PASS cp_async / FAIL cp_async.
#include <cuda_pipeline.h>
static const char* kName = "cp_async";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Asynchronous global->shared copies with the pipeline primitives
// (__pipeline_memcpy_async with 4/8/16-byte chunks, __pipeline_commit,
// __pipeline_wait_prior), double-buffered over several tiles. On sm_80+ this
// becomes cp.async; on sm_75 the header falls back to ordinary copies.
#define TILE 128   // floats per tile
#define NT 6       // tiles

__global__ void pipelined_sum(const float* in, float* out) {
    __shared__ __align__(16) float buf[2][TILE];
    int t = threadIdx.x;  // blockDim.x == TILE / 4: each thread copies 16 bytes per tile
    const float* base = in + blockIdx.x * NT * TILE;
    float acc = 0.0f;
    // prologue: stage 0
    __pipeline_memcpy_async(&buf[0][t * 4], base + t * 4, 16);
    __pipeline_commit();
    for (int k = 0; k < NT; ++k) {
        int cur = k & 1;
        if (k + 1 < NT)
            __pipeline_memcpy_async(&buf[cur ^ 1][t * 4], base + (k + 1) * TILE + t * 4, 16);
        __pipeline_commit();          // always commit (possibly empty) to keep group counting uniform
        __pipeline_wait_prior(1);     // tile k has arrived
        __syncthreads();
        // each thread reads data copied by other threads
        for (int j = 0; j < 4; ++j) acc += buf[cur][(t * 4 + j * 32 + 7) % TILE] * (float)(k + 1);
        __syncthreads();              // done reading before it is overwritten
    }
    __pipeline_wait_prior(0);
    out[blockIdx.x * blockDim.x + t] = acc;
}

// 4- and 8-byte chunks into dynamically indexed positions
__global__ void small_chunks(const int* in, const double* din, int* out, double* dout) {
    __shared__ __align__(8) int si[64];
    __shared__ __align__(8) double sd[64];
    int t = threadIdx.x;  // 64 threads
    __pipeline_memcpy_async(&si[63 - t], in + blockIdx.x * 64 + t, 4);
    __pipeline_memcpy_async(&sd[(t * 5) % 64], din + blockIdx.x * 64 + t, 8);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[blockIdx.x * 64 + t] = si[t] + si[(t + 1) % 64];
    dout[blockIdx.x * 64 + t] = sd[t] * 2.0;
}

int main() {
    const int G = 2, n = G * NT * TILE;
    float* h = new float[n];
    for (int i = 0; i < n; ++i) h[i] = (i % 97) * 0.125f - 3.0f;
    float *din, *dout;
    CK(cudaMalloc(&din, n * sizeof(float))); CK(cudaMalloc(&dout, G * 32 * sizeof(float)));
    CK(cudaMemcpy(din, h, n * sizeof(float), cudaMemcpyHostToDevice));
    pipelined_sum<<<G, TILE / 4>>>(din, dout);
    CK(cudaGetLastError());
    const int m = 128;
    int hi[m]; double hd[m];
    for (int i = 0; i < m; ++i) { hi[i] = i * i - 50; hd[i] = i / 3.0; }
    int *dhi, *dhio; double *dhd, *dhdo;
    CK(cudaMalloc(&dhi, sizeof(hi))); CK(cudaMalloc(&dhio, sizeof(hi))); CK(cudaMalloc(&dhd, sizeof(hd))); CK(cudaMalloc(&dhdo, sizeof(hd)));
    CK(cudaMemcpy(dhi, hi, sizeof(hi), cudaMemcpyHostToDevice)); CK(cudaMemcpy(dhd, hd, sizeof(hd), cudaMemcpyHostToDevice));
    small_chunks<<<2, 64>>>(dhi, dhd, dhio, dhdo);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    float out[G * 32]; int io[m]; double dd[m];
    CK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(io, dhio, sizeof(io), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(dd, dhdo, sizeof(dd), cudaMemcpyDeviceToHost));
    for (int b = 0; b < G; ++b)
        for (int t = 0; t < 32; ++t) {
            float acc = 0.0f;
            for (int k = 0; k < NT; ++k)
                for (int j = 0; j < 4; ++j) acc += h[b * NT * TILE + k * TILE + (t * 4 + j * 32 + 7) % TILE] * (float)(k + 1);
            EXPECT(out[b * 32 + t] == acc, "pipelined[%d,%d]=%f expected %f", b, t, out[b * 32 + t], acc);
        }
    for (int b = 0; b < 2; ++b)
        for (int t = 0; t < 64; ++t) {
            int ei = hi[b * 64 + 63 - t] + hi[b * 64 + 63 - (t + 1) % 64];
            EXPECT(io[b * 64 + t] == ei, "chunk4[%d]=%d expected %d", b * 64 + t, io[b * 64 + t], ei);
            // sd[(t*5)%64] = din[t]; 5 is invertible mod 64 (inverse 13)
            double ed = hd[b * 64 + (t * 13) % 64] * 2.0;
            EXPECT(dd[b * 64 + t] == ed, "chunk8[%d]=%f expected %f", b * 64 + t, dd[b * 64 + t], ed);
        }
    cudaFree(din); cudaFree(dout); cudaFree(dhi); cudaFree(dhio); cudaFree(dhd); cudaFree(dhdo); delete[] h;
    return finish();
}

// ptxsim test kernel: reduce_shared
// Self-checking: prints PASS reduce_shared / FAIL reduce_shared.
#include <cmath>
static const char* kName = "reduce_shared";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Tree reductions in shared memory: interleaved (divergent, modulo) and
// sequential addressing; two-pass (per-block partials then a final block).
#define BS 256

__global__ void reduce_interleaved(const int* in, int* partial, int n) {
    __shared__ int s[BS];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    s[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = s[0];
}

__global__ void reduce_sequential(const float* in, float* partial, int n) {
    __shared__ float s[BS];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    float v = 0.0f;
    if (i < n) v = in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    s[tid] = v;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = s[0];
}

// final pass: one block sums an int array of arbitrary length
__global__ void reduce_final(const int* partial, int* out, int m) {
    __shared__ int s[BS];
    int acc = 0;
    for (int i = threadIdx.x; i < m; i += blockDim.x) acc += partial[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) *out = s[0];
}

int main() {
    const int n = 4000;
    int* h = new int[n];
    float* hf = new float[n];
    long long esum = 0;
    for (int i = 0; i < n; ++i) { h[i] = (i * 37) % 101 - 50; esum += h[i]; hf[i] = (i % 13) * 0.25f; }
    int nb = (n + BS - 1) / BS;
    int nbf = (n + 2 * BS - 1) / (2 * BS);
    int *din, *dpart, *dout; float *dfin, *dfpart;
    CK(cudaMalloc(&din, n * sizeof(int))); CK(cudaMalloc(&dpart, nb * sizeof(int))); CK(cudaMalloc(&dout, sizeof(int)));
    CK(cudaMalloc(&dfin, n * sizeof(float))); CK(cudaMalloc(&dfpart, nbf * sizeof(float)));
    CK(cudaMemcpy(din, h, n * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dfin, hf, n * sizeof(float), cudaMemcpyHostToDevice));
    reduce_interleaved<<<nb, BS>>>(din, dpart, n);
    CK(cudaGetLastError());
    reduce_final<<<1, BS>>>(dpart, dout, nb);
    CK(cudaGetLastError());
    reduce_sequential<<<nbf, BS>>>(dfin, dfpart, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int* hpart = new int[nb]; int hout; float* hfpart = new float[nbf];
    CK(cudaMemcpy(hpart, dpart, nb * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&hout, dout, sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hfpart, dfpart, nbf * sizeof(float), cudaMemcpyDeviceToHost));
    for (int b = 0; b < nb; ++b) {
        int e = 0;
        for (int i = b * BS; i < n && i < (b + 1) * BS; ++i) e += h[i];
        EXPECT(hpart[b] == e, "int partial[%d]=%d expected %d", b, hpart[b], e);
    }
    EXPECT(hout == (int)esum, "int total=%d expected %lld", hout, esum);
    for (int b = 0; b < nbf; ++b) {
        double e = 0;
        for (int i = b * 2 * BS; i < n && i < (b + 1) * 2 * BS; ++i) e += hf[i];
        EXPECT(fabs(hfpart[b] - e) <= 1e-3, "float partial[%d]=%f expected %f", b, hfpart[b], e);
    }
    CK(cudaFree(din)); CK(cudaFree(dpart)); CK(cudaFree(dout)); CK(cudaFree(dfin)); CK(cudaFree(dfpart));
    return finish();
}

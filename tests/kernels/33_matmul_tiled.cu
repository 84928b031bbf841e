// ptxsim test kernel: matmul_tiled
// Self-checking: prints PASS matmul_tiled / FAIL matmul_tiled.
#include <cmath>
static const char* kName = "matmul_tiled";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Tiled matrix multiply C = A * B with 16x16 shared-memory tiles, non-multiple
// sizes, plus a naive version. Small integer-valued floats keep results exact.
#define T 16

__global__ void matmul_naive(const float* A, const float* B, float* C, int M, int N, int K) {
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}

__global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (col < N && k0 + ty < K) ? B[(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

int main() {
    const int M = 40, N = 36, K = 50;
    float *hA = new float[M * K], *hB = new float[K * N], *hC = new float[M * N], *hC2 = new float[M * N];
    for (int i = 0; i < M * K; ++i) hA[i] = (float)((i * 7) % 11 - 5);
    for (int i = 0; i < K * N; ++i) hB[i] = (float)((i * 5) % 9 - 4);
    float *dA, *dB, *dC, *dC2;
    CK(cudaMalloc(&dA, M * K * 4)); CK(cudaMalloc(&dB, K * N * 4)); CK(cudaMalloc(&dC, M * N * 4)); CK(cudaMalloc(&dC2, M * N * 4));
    CK(cudaMemcpy(dA, hA, M * K * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, hB, K * N * 4, cudaMemcpyHostToDevice));
    dim3 block(T, T), grid((N + T - 1) / T, (M + T - 1) / T);
    matmul_tiled<<<grid, block>>>(dA, dB, dC, M, N, K);
    CK(cudaGetLastError());
    matmul_naive<<<grid, block>>>(dA, dB, dC2, M, N, K);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(hC, dC, M * N * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hC2, dC2, M * N * 4, cudaMemcpyDeviceToHost));
    for (int r = 0; r < M; ++r)
        for (int c = 0; c < N; ++c) {
            double e = 0;
            for (int k = 0; k < K; ++k) e += (double)hA[r * K + k] * hB[k * N + c];
            EXPECT(hC[r * N + c] == (float)e, "tiled C[%d][%d]=%f expected %f", r, c, hC[r * N + c], e);
            EXPECT(hC2[r * N + c] == (float)e, "naive C[%d][%d]=%f expected %f", r, c, hC2[r * N + c], e);
        }
    cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dC2);
    delete[] hA; delete[] hB; delete[] hC; delete[] hC2;
    return finish();
}

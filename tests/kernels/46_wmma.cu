// ptxsim test kernel: wmma
// Self-checking: prints PASS wmma / FAIL wmma.
#include <mma.h>
#include <cmath>
static const char* kName = "wmma";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Warp-level matrix multiply-accumulate with nvcuda::wmma: 16x16x16 tiles,
// half inputs, float accumulators, C = A*B + C for 32x48 (M x N) with K = 32.
// A is row-major, B is column-major; C is loaded and stored row-major. Guarded by
// __CUDA_ARCH__ >= 700 with a scalar fallback so every architecture compiles.
#include <cuda_fp16.h>
using namespace nvcuda;
#define M 32
#define N 48
#define K 32

__global__ void wmma_gemm(const __half* A, const __half* B, const float* C, float* D) {
    // one warp per 16x16 output tile; blockDim.x = 32 * number of tiles in the block
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tm = warp / (N / 16), tn = warp % (N / 16);
    if (tm >= M / 16) return;
#if __CUDA_ARCH__ >= 700
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, C + tm * 16 * N + tn * 16, N, wmma::mem_row_major);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, A + tm * 16 * K + k, K);
        wmma::load_matrix_sync(fb, B + tn * 16 * K + k, K);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    for (int e = 0; e < acc.num_elements; ++e) acc.x[e] *= 2.0f;   // elementwise op on the fragment
    wmma::store_matrix_sync(D + tm * 16 * N + tn * 16, acc, N, wmma::mem_row_major);
#else
    int lane = threadIdx.x & 31;
    for (int e = lane; e < 256; e += 32) {
        int r = tm * 16 + e / 16, c = tn * 16 + e % 16;
        float s = C[r * N + c];
        for (int k = 0; k < K; ++k) s += __half2float(A[r * K + k]) * __half2float(B[c * K + k]);
        D[r * N + c] = s * 2.0f;
    }
#endif
}

// second kernel: accumulator filled with a constant, result stored column-major
__global__ void wmma_fill_colmajor(const __half* A, const __half* B, float* D) {
#if __CUDA_ARCH__ >= 700
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.5f);
    wmma::load_matrix_sync(fa, A, K);
    wmma::load_matrix_sync(fb, B, K);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(D, acc, 16, wmma::mem_col_major);
#else
    int lane = threadIdx.x & 31;
    for (int e = lane; e < 256; e += 32) {
        int r = e % 16, c = e / 16;  // column-major position e
        float s = 0.5f;
        for (int k = 0; k < 16; ++k) s += __half2float(A[r * K + k]) * __half2float(B[c * K + k]);
        D[e] = s;
    }
#endif
}

int main() {
    __half* hA = new __half[M * K]; __half* hB = new __half[N * K];
    float* fA = new float[M * K]; float* fB = new float[N * K];
    float* hC = new float[M * N]; float* hD = new float[M * N];
    for (int i = 0; i < M * K; ++i) { fA[i] = (float)((i * 7) % 9 - 4) * 0.5f; hA[i] = __float2half(fA[i]); }
    for (int i = 0; i < N * K; ++i) { fB[i] = (float)((i * 5) % 7 - 3) * 0.25f; hB[i] = __float2half(fB[i]); }
    for (int i = 0; i < M * N; ++i) hC[i] = (float)(i % 13) - 6.0f;
    __half *dA, *dB; float *dC, *dD, *dE;
    CK(cudaMalloc(&dA, M * K * 2)); CK(cudaMalloc(&dB, N * K * 2)); CK(cudaMalloc(&dC, M * N * 4));
    CK(cudaMalloc(&dD, M * N * 4)); CK(cudaMalloc(&dE, 256 * 4));
    CK(cudaMemcpy(dA, hA, M * K * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, hB, N * K * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dC, hC, M * N * 4, cudaMemcpyHostToDevice));
    int tiles = (M / 16) * (N / 16);  // 6 warps
    wmma_gemm<<<2, 32 * tiles / 2>>>(dA, dB, dC, dD);
    CK(cudaGetLastError());
    wmma_fill_colmajor<<<1, 32>>>(dA, dB, dE);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    float hE[256];
    CK(cudaMemcpy(hD, dD, M * N * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hE, dE, sizeof(hE), cudaMemcpyDeviceToHost));
    for (int r = 0; r < M; ++r)
        for (int c = 0; c < N; ++c) {
            double s = hC[r * N + c];
            for (int k = 0; k < K; ++k) s += (double)fA[r * K + k] * fB[c * K + k];
            s *= 2.0;
            EXPECT(std::fabs(hD[r * N + c] - s) <= 1e-3, "D[%d][%d]=%f expected %f", r, c, hD[r * N + c], s);
        }
    for (int e = 0; e < 256; ++e) {
        int r = e % 16, c = e / 16;
        double s = 0.5;
        for (int k = 0; k < 16; ++k) s += (double)fA[r * K + k] * fB[c * K + k];
        EXPECT(std::fabs(hE[e] - s) <= 1e-3, "E colmajor[%d]=%f expected %f", e, hE[e], s);
    }
    cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dD); cudaFree(dE);
    delete[] hA; delete[] hB; delete[] fA; delete[] fB; delete[] hC; delete[] hD;
    return finish();
}

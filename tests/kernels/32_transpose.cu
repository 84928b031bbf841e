// ptxsim test kernel: transpose
// Self-checking: prints PASS transpose / FAIL transpose.
static const char* kName = "transpose";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Matrix transpose of a non-square matrix with 2D grid / 2D blocks: naive
// version and shared-memory tiled version (32x33 padded tile, 32x8 threads, each
// thread moves 4 elements).
#define TD 32
#define BR 8

__global__ void transpose_naive(const float* in, float* out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[x * h + y] = in[y * w + x];
}

__global__ void transpose_tiled(const float* in, float* out, int w, int h) {
    __shared__ float tile[TD][TD + 1];  // +1 avoids bank conflicts
    int x = blockIdx.x * TD + threadIdx.x;
    int y = blockIdx.y * TD + threadIdx.y;
    for (int j = 0; j < TD; j += BR)
        if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * TD + threadIdx.x;  // transposed block offset
    y = blockIdx.x * TD + threadIdx.y;
    for (int j = 0; j < TD; j += BR)
        if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
    const int W = 96, H = 70;  // H not a multiple of the tile: exercises bounds checks
    float* hin = new float[W * H];
    for (int i = 0; i < W * H; ++i) hin[i] = (float)(i % 1000) + 0.5f * (i / 1000);
    float *din, *d1, *d2;
    CK(cudaMalloc(&din, W * H * 4)); CK(cudaMalloc(&d1, W * H * 4)); CK(cudaMalloc(&d2, W * H * 4));
    CK(cudaMemcpy(din, hin, W * H * 4, cudaMemcpyHostToDevice));
    transpose_naive<<<dim3((W + 15) / 16, (H + 15) / 16), dim3(16, 16)>>>(din, d1, W, H);
    CK(cudaGetLastError());
    transpose_tiled<<<dim3((W + TD - 1) / TD, (H + TD - 1) / TD), dim3(TD, BR)>>>(din, d2, W, H);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    float* o1 = new float[W * H]; float* o2 = new float[W * H];
    CK(cudaMemcpy(o1, d1, W * H * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(o2, d2, W * H * 4, cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            float e = hin[y * W + x];
            EXPECT(o1[x * H + y] == e, "naive out[%d][%d]=%f expected %f", x, y, o1[x * H + y], e);
            EXPECT(o2[x * H + y] == e, "tiled out[%d][%d]=%f expected %f", x, y, o2[x * H + y], e);
        }
    cudaFree(din); cudaFree(d1); cudaFree(d2); delete[] hin; delete[] o1; delete[] o2;
    return finish();
}

// ptxsim test kernel: stencil
// Self-checking: prints PASS stencil / FAIL stencil.
#include <cmath>
static const char* kName = "stencil";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Stencils with halos in shared memory: 1D radius-3 integer stencil with weights
// in constant memory, and a 2D 5-point float stencil on 16x16 tiles with a 1-cell
// halo (clamped boundaries).
#define R 3
#define B1 128
__constant__ int c_w[2 * R + 1];

__global__ void stencil1d(const int* in, int* out, int n) {
    __shared__ int s[B1 + 2 * R];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + R;
    s[l] = g < n ? in[g] : 0;
    if (threadIdx.x < R) {
        int left = g - R, right = g + B1;
        s[l - R] = left >= 0 ? in[left] : 0;
        s[l + B1] = right < n ? in[right] : 0;
    }
    __syncthreads();
    if (g < n) {
        int acc = 0;
        for (int k = -R; k <= R; ++k) acc += c_w[k + R] * s[l + k];
        out[g] = acc;
    }
}

#define TB 16
__global__ void stencil2d(const float* in, float* out, int w, int h) {
    __shared__ float s[TB + 2][TB + 2];
    int x = blockIdx.x * TB + threadIdx.x, y = blockIdx.y * TB + threadIdx.y;
    int cx = min(x, w - 1), cy = min(y, h - 1);
    int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
    s[ty][tx] = in[cy * w + cx];
    if (threadIdx.x == 0) s[ty][0] = in[cy * w + max(cx - 1, 0)];
    if (threadIdx.x == TB - 1) s[ty][TB + 1] = in[cy * w + min(cx + 1, w - 1)];
    if (threadIdx.y == 0) s[0][tx] = in[max(cy - 1, 0) * w + cx];
    if (threadIdx.y == TB - 1) s[TB + 1][tx] = in[min(cy + 1, h - 1) * w + cx];
    __syncthreads();
    if (x < w && y < h)
        out[y * w + x] = 0.5f * s[ty][tx] + 0.125f * (s[ty - 1][tx] + s[ty + 1][tx] + s[ty][tx - 1] + s[ty][tx + 1]);
}

int main() {
    const int n = 1000;
    int w[2 * R + 1] = {1, -2, 3, 10, 3, -2, 1};
    CK(cudaMemcpyToSymbol(c_w, w, sizeof(w)));
    int h[n], o[n];
    for (int i = 0; i < n; ++i) h[i] = (i * 31) % 101 - 50;
    int *din, *dout;
    CK(cudaMalloc(&din, sizeof(h))); CK(cudaMalloc(&dout, sizeof(h)));
    CK(cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice));
    stencil1d<<<(n + B1 - 1) / B1, B1>>>(din, dout, n);
    CK(cudaGetLastError());
    const int W = 40, H = 36;
    float hf[W * H], of[W * H];
    for (int i = 0; i < W * H; ++i) hf[i] = (float)((i * 13) % 29) - 10.0f;
    float *dfin, *dfout;
    CK(cudaMalloc(&dfin, sizeof(hf))); CK(cudaMalloc(&dfout, sizeof(hf)));
    CK(cudaMemcpy(dfin, hf, sizeof(hf), cudaMemcpyHostToDevice));
    stencil2d<<<dim3((W + TB - 1) / TB, (H + TB - 1) / TB), dim3(TB, TB)>>>(dfin, dfout, W, H);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(o, dout, sizeof(o), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(of, dfout, sizeof(of), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        int acc = 0;
        for (int k = -R; k <= R; ++k) { int j = i + k; acc += w[k + R] * ((j >= 0 && j < n) ? h[j] : 0); }
        EXPECT(o[i] == acc, "1d out[%d]=%d expected %d", i, o[i], acc);
    }
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            auto at = [&](int xx, int yy) { xx = xx < 0 ? 0 : (xx >= W ? W - 1 : xx); yy = yy < 0 ? 0 : (yy >= H ? H - 1 : yy); return hf[yy * W + xx]; };
            float e = 0.5f * at(x, y) + 0.125f * (at(x, y - 1) + at(x, y + 1) + at(x - 1, y) + at(x + 1, y));
            EXPECT(std::fabs(of[y * W + x] - e) <= 1e-5f, "2d out[%d][%d]=%f expected %f", y, x, of[y * W + x], e);
        }
    cudaFree(din); cudaFree(dout); cudaFree(dfin); cudaFree(dfout);
    return finish();
}

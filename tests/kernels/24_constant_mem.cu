// ptxsim test kernel: constant_mem
// Self-checking: prints PASS constant_mem / FAIL constant_mem.
static const char* kName = "constant_mem";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// __constant__ memory: arrays and a struct written with cudaMemcpyToSymbol
// (including an offset write), read with uniform and divergent indices, and read
// back with cudaMemcpyFromSymbol. Also a constant with a static initializer.

struct Coeffs { float scale; int shift; double bias; short tbl[6]; };

__constant__ float c_weights[32];
__constant__ int c_lut[256];
__constant__ Coeffs c_co;
__constant__ int c_init[4] = {11, 22, 33, 44};

__global__ void use_const(const int* in, float* fout, int* iout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    float acc = 0.0f;
    for (int k = 0; k < 32; ++k) acc += c_weights[k] * (float)((v + k) & 7);   // uniform index
    fout[i] = acc * c_co.scale + (float)c_co.bias;
    int lut = c_lut[v & 255];                                               // divergent index
    iout[i] = (lut << c_co.shift) + c_co.tbl[i % 6] + c_init[i & 3];
}

int main() {
    const int n = 512;
    float w[32]; int lut[256]; Coeffs co;
    for (int k = 0; k < 32; ++k) w[k] = (k % 5) * 0.25f - 0.5f;
    for (int k = 0; k < 256; ++k) lut[k] = (k * 73) % 256 - 100;
    co.scale = 1.5f; co.shift = 3; co.bias = -2.0;
    for (int k = 0; k < 6; ++k) co.tbl[k] = (short)(k * 1000 - 2500);
    CK(cudaMemcpyToSymbol(c_weights, w, sizeof(w)));
    CK(cudaMemcpyToSymbol(c_lut, lut, 128 * sizeof(int)));                       // first half
    CK(cudaMemcpyToSymbol(c_lut, lut + 128, 128 * sizeof(int), 128 * sizeof(int)));  // second half at an offset
    CK(cudaMemcpyToSymbol(c_co, &co, sizeof(co)));
    int h[n];
    for (int i = 0; i < n; ++i) h[i] = (i * 97) % 1000;
    int *din, *diout; float* dfout;
    CK(cudaMalloc(&din, sizeof(h))); CK(cudaMalloc(&diout, sizeof(h))); CK(cudaMalloc(&dfout, n * sizeof(float)));
    CK(cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice));
    use_const<<<(n + 127) / 128, 128>>>(din, dfout, diout, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    float fo[n]; int io[n];
    CK(cudaMemcpy(fo, dfout, sizeof(fo), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(io, diout, sizeof(io), cudaMemcpyDeviceToHost));
    const int init[4] = {11, 22, 33, 44};
    for (int i = 0; i < n; ++i) {
        int v = h[i];
        float acc = 0.0f;
        for (int k = 0; k < 32; ++k) acc += w[k] * (float)((v + k) & 7);  // exact (multiples of 1/4)
        float ef = acc * 1.5f + (float)-2.0;
        EXPECT(fo[i] == ef, "fout[%d]=%f expected %f", i, fo[i], ef);
        int ei = (lut[v & 255] * 8) + co.tbl[i % 6] + init[i & 3];
        EXPECT(io[i] == ei, "iout[%d]=%d expected %d", i, io[i], ei);
    }
    int back[256]; Coeffs cb; int ib[4];
    CK(cudaMemcpyFromSymbol(back, c_lut, sizeof(back)));
    CK(cudaMemcpyFromSymbol(&cb, c_co, sizeof(cb)));
    CK(cudaMemcpyFromSymbol(ib, c_init, sizeof(ib)));
    for (int k = 0; k < 256; ++k) EXPECT(back[k] == lut[k], "readback lut[%d]=%d", k, back[k]);
    EXPECT(cb.shift == 3 && cb.scale == 1.5f && cb.bias == -2.0 && cb.tbl[5] == 2500, "readback struct");
    for (int k = 0; k < 4; ++k) EXPECT(ib[k] == init[k], "readback c_init[%d]=%d", k, ib[k]);
    cudaFree(din); cudaFree(diout); cudaFree(dfout);
    return finish();
}

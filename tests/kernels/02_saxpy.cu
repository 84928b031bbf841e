// ptxsim test kernel: saxpy
// Self-checking: prints PASS saxpy / FAIL saxpy.
#include <cmath>
static const char* kName = "saxpy";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void daxpy(int n, double a, const double* x, double* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
    const int n = 2500;
    const float a = 2.5f;
    const double ad = -1.75;
    float *hx = new float[n], *hy = new float[n], *hr = new float[n];
    double *dx_h = new double[n], *dy_h = new double[n], *dr_h = new double[n];
    for (int i = 0; i < n; ++i) {
        hx[i] = 0.001f * i - 1.0f; hy[i] = 0.5f + (i % 17) * 0.125f;
        dx_h[i] = 1.0 / (i + 1); dy_h[i] = 0.3 * (i % 11);
    }
    float *dx, *dy; double *ddx, *ddy;
    CK(cudaMalloc(&dx, n * sizeof(float))); CK(cudaMalloc(&dy, n * sizeof(float)));
    CK(cudaMalloc(&ddx, n * sizeof(double))); CK(cudaMalloc(&ddy, n * sizeof(double)));
    CK(cudaMemcpy(dx, hx, n * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dy, hy, n * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(ddx, dx_h, n * sizeof(double), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(ddy, dy_h, n * sizeof(double), cudaMemcpyHostToDevice));
    saxpy<<<(n + 255) / 256, 256>>>(n, a, dx, dy);
    CK(cudaGetLastError());
    daxpy<<<(n + 127) / 128, 128>>>(n, ad, ddx, ddy);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(hr, dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(dr_h, ddy, n * sizeof(double), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        // device may contract to fma: allow a couple of ulps
        float e = a * hx[i] + hy[i];
        EXPECT(fabsf(hr[i] - e) <= 1e-6f * (fabsf(e) + 1.0f), "saxpy y[%d]=%.9g expected %.9g", i, hr[i], e);
        double ed = ad * dx_h[i] + dy_h[i];
        EXPECT(fabs(dr_h[i] - ed) <= 1e-15 * (fabs(ed) + 1.0), "daxpy y[%d]=%.17g expected %.17g", i, dr_h[i], ed);
    }
    CK(cudaFree(dx)); CK(cudaFree(dy)); CK(cudaFree(ddx)); CK(cudaFree(ddy));
    return finish();
}

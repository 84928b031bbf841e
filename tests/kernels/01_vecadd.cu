// ptxsim test kernel: vecadd
// Self-checking: prints PASS vecadd / FAIL vecadd.
static const char* kName = "vecadd";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

__global__ void vecadd_f32(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

// grid-stride loop version on ints
__global__ void vecadd_i32_gridstride(const int* a, const int* b, int* c, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        c[i] = a[i] + b[i];
}

int main() {
    const int n = 3000;  // deliberately not a multiple of the block size
    float *ha = new float[n], *hb = new float[n], *hc = new float[n];
    int *ia = new int[n], *ib = new int[n], *ic = new int[n];
    for (int i = 0; i < n; ++i) {
        ha[i] = i * 0.5f; hb[i] = 1000.0f - i * 0.25f;
        ia[i] = i * 3 - 700; ib[i] = -(i * i) % 1013;
    }
    float *da, *db, *dc; int *dia, *dib, *dic;
    CK(cudaMalloc(&da, n * sizeof(float))); CK(cudaMalloc(&db, n * sizeof(float))); CK(cudaMalloc(&dc, n * sizeof(float)));
    CK(cudaMalloc(&dia, n * sizeof(int))); CK(cudaMalloc(&dib, n * sizeof(int))); CK(cudaMalloc(&dic, n * sizeof(int)));
    CK(cudaMemcpy(da, ha, n * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, hb, n * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dia, ia, n * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dib, ib, n * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemset(dc, 0, n * sizeof(float)));
    int block = 128, grid = (n + block - 1) / block;
    vecadd_f32<<<grid, block>>>(da, db, dc, n);
    CK(cudaGetLastError());
    vecadd_i32_gridstride<<<5, 96>>>(dia, dib, dic, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(hc, dc, n * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ic, dic, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        float e = ha[i] + hb[i];
        EXPECT(hc[i] == e, "f32 c[%d]=%f expected %f", i, hc[i], e);
        int ei = ia[i] + ib[i];
        EXPECT(ic[i] == ei, "i32 c[%d]=%d expected %d", i, ic[i], ei);
    }
    CK(cudaFree(da)); CK(cudaFree(db)); CK(cudaFree(dc));
    CK(cudaFree(dia)); CK(cudaFree(dib)); CK(cudaFree(dic));
    delete[] ha; delete[] hb; delete[] hc; delete[] ia; delete[] ib; delete[] ic;
    return finish();
}

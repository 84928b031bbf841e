// ptxsim test kernel: ldg_restrict
// Self-checking: prints PASS ldg_restrict / FAIL ldg_restrict.
static const char* kName = "ldg_restrict";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Read-only data path and cache hints: const __restrict__ pointers, __ldg on
// scalar and vector types, __ldcg/__ldca/__ldcs/__ldlu/__ldcv loads and
// __stcg/__stcs/__stwb/__stwt stores.

__global__ void restrict_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] * 2.0f - b[(i * 3) % n];
}

__global__ void ldg_kernel(const float* f, const float4* f4, const int2* i2, const double* d, const unsigned char* u8,
                           float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = __ldg(&f[i]);
    float4 v = __ldg(&f4[i / 4]);
    int2 p = __ldg(&i2[i % 64]);
    double dd = __ldg(&d[(i * 7) % n]);
    unsigned char c = __ldg(&u8[i]);
    out[i] = x + v.x + v.y * 2.0f + v.z * 3.0f + v.w * 4.0f + (float)(p.x - p.y) + (float)dd + (float)c;
}

__global__ void cache_hints(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int a = __ldcg(&in[i]);
    int b = __ldca(&in[(i + 1) % n]);
    int c = __ldcs(&in[(i + 2) % n]);
    int d = __ldlu(&in[(i + 3) % n]);
    int e = __ldcv(&in[(i + 4) % n]);
    __stcg(&out[i * 4 + 0], a + b);
    __stcs(&out[i * 4 + 1], b * c);
    __stwb(&out[i * 4 + 2], d - e);
    __stwt(&out[i * 4 + 3], a ^ e);
}

int main() {
    const int n = 512;
    float hf[n], hb[n]; float h4[n]; int hi2[128]; double hd[n]; unsigned char hu[n]; int hin[n];
    for (int i = 0; i < n; ++i) {
        hf[i] = i * 0.25f; hb[i] = 100.0f - i; h4[i] = (i % 16) * 0.5f; hd[i] = i * 0.125; hu[i] = (unsigned char)(i * 7);
        hin[i] = i * i - 1000;
    }
    for (int i = 0; i < 128; ++i) hi2[i] = i * 3 - 50;
    float *df, *db, *dc, *d4, *dout; int *di2, *din, *dio; double* dd; unsigned char* du;
    CK(cudaMalloc(&df, sizeof(hf))); CK(cudaMalloc(&db, sizeof(hb))); CK(cudaMalloc(&dc, sizeof(hf)));
    CK(cudaMalloc(&d4, sizeof(h4))); CK(cudaMalloc(&dout, sizeof(hf))); CK(cudaMalloc(&di2, sizeof(hi2)));
    CK(cudaMalloc(&dd, sizeof(hd))); CK(cudaMalloc(&du, sizeof(hu))); CK(cudaMalloc(&din, sizeof(hin))); CK(cudaMalloc(&dio, 4 * sizeof(hin)));
    CK(cudaMemcpy(df, hf, sizeof(hf), cudaMemcpyHostToDevice)); CK(cudaMemcpy(db, hb, sizeof(hb), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d4, h4, sizeof(h4), cudaMemcpyHostToDevice)); CK(cudaMemcpy(di2, hi2, sizeof(hi2), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dd, hd, sizeof(hd), cudaMemcpyHostToDevice)); CK(cudaMemcpy(du, hu, sizeof(hu), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(din, hin, sizeof(hin), cudaMemcpyHostToDevice));
    restrict_kernel<<<n / 128, 128>>>(df, db, dc, n);
    ldg_kernel<<<n / 128, 128>>>(df, (const float4*)d4, (const int2*)di2, dd, du, dout, n);
    cache_hints<<<n / 128, 128>>>(din, dio, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    float oc[n], oo[n]; int oi[4 * n];
    CK(cudaMemcpy(oc, dc, sizeof(oc), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(oo, dout, sizeof(oo), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(oi, dio, sizeof(oi), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        float e = hf[i] * 2.0f - hb[(i * 3) % n];
        EXPECT(oc[i] == e, "restrict [%d]=%f expected %f", i, oc[i], e);
        const float* v = &h4[(i / 4) * 4];
        float eo = hf[i] + v[0] + v[1] * 2.0f + v[2] * 3.0f + v[3] * 4.0f + (float)(hi2[2 * (i % 64)] - hi2[2 * (i % 64) + 1]) +
                   (float)hd[(i * 7) % n] + (float)hu[i];
        EXPECT(oo[i] == eo, "ldg [%d]=%f expected %f", i, oo[i], eo);
        int a = hin[i], b = hin[(i + 1) % n], c = hin[(i + 2) % n], d = hin[(i + 3) % n], e2 = hin[(i + 4) % n];
        EXPECT(oi[i * 4] == a + b && oi[i * 4 + 1] == b * c && oi[i * 4 + 2] == d - e2 && oi[i * 4 + 3] == (a ^ e2), "hints [%d]", i);
    }
    cudaFree(df); cudaFree(db); cudaFree(dc); cudaFree(d4); cudaFree(dout); cudaFree(di2); cudaFree(dd); cudaFree(du);
    cudaFree(din); cudaFree(dio);
    return finish();
}

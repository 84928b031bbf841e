// ptxsim test kernel: vector_types
// Self-checking: prints PASS vector_types / FAIL vector_types.
static const char* kName = "vector_types";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Vector types: float4/float2, int2/int4, double2, uchar4, short2, longlong2
// loads and stores (vectorised memory ops), make_* constructors, and
// reinterpret_cast vectorisation of a scalar array.

__global__ void vec_kernel(const float4* f4, const int2* i2, const double2* d2, const uchar4* u4, const short2* s2,
                           const longlong2* l2, float4* of4, int4* oi4, double2* od2, uchar4* ou4, float2* of2,
                           longlong2* ol2, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 a = f4[i];
    int2 b = i2[i];
    double2 c = d2[i];
    uchar4 u = u4[i];
    short2 s = s2[i];
    longlong2 l = l2[i];
    of4[i] = make_float4(a.w, a.z * 2.0f, a.y + a.x, (float)b.x);
    oi4[i] = make_int4(b.x + b.y, b.x - b.y, s.x * s.y, u.x + u.y + u.z + u.w);
    od2[i] = make_double2(c.x * c.y, c.x - c.y);
    ou4[i] = make_uchar4(u.w, u.z, (unsigned char)(u.y + 1), (unsigned char)(u.x ^ 0xff));
    of2[i] = make_float2(a.x * (float)s.x, a.w - (float)s.y);
    ol2[i] = make_longlong2(l.x + l.y, l.x ^ l.y);
}

// vectorised copy+scale of a float array via reinterpret_cast to float4
__global__ void scale_vec4(const float* in, float* out, int n4, float k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = reinterpret_cast<const float4*>(in)[i];
        v.x *= k; v.y *= k; v.z *= k; v.w *= k;
        reinterpret_cast<float4*>(out)[i] = v;
    }
}

int main() {
    const int n = 256;
    float4 hf4[n]; int2 hi2[n]; double2 hd2[n]; uchar4 hu4[n]; short2 hs2[n]; longlong2 hl2[n];
    for (int i = 0; i < n; ++i) {
        hf4[i] = make_float4(i * 0.5f, i * 0.25f, -i * 1.0f, 3.0f + i);
        hi2[i] = make_int2(i * 7, 100 - i);
        hd2[i] = make_double2(i / 4.0, 1.0 + i / 8.0);
        hu4[i] = make_uchar4((unsigned char)i, (unsigned char)(i * 3), (unsigned char)(255 - i), (unsigned char)(i * 11));
        hs2[i] = make_short2((short)(i - 128), (short)(i * 50));
        hl2[i] = make_longlong2((long long)i << 40, -(long long)i * 12345678901LL);
    }
    float4 *df4, *of4; int2* di2; int4* oi4; double2 *dd2, *od2; uchar4 *du4, *ou4; short2* ds2; float2* of2;
    longlong2 *dl2, *ol2;
    CK(cudaMalloc(&df4, sizeof(hf4))); CK(cudaMalloc(&of4, sizeof(hf4))); CK(cudaMalloc(&di2, sizeof(hi2)));
    CK(cudaMalloc(&oi4, n * sizeof(int4))); CK(cudaMalloc(&dd2, sizeof(hd2))); CK(cudaMalloc(&od2, sizeof(hd2)));
    CK(cudaMalloc(&du4, sizeof(hu4))); CK(cudaMalloc(&ou4, sizeof(hu4))); CK(cudaMalloc(&ds2, sizeof(hs2)));
    CK(cudaMalloc(&of2, n * sizeof(float2))); CK(cudaMalloc(&dl2, sizeof(hl2))); CK(cudaMalloc(&ol2, sizeof(hl2)));
    CK(cudaMemcpy(df4, hf4, sizeof(hf4), cudaMemcpyHostToDevice)); CK(cudaMemcpy(di2, hi2, sizeof(hi2), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dd2, hd2, sizeof(hd2), cudaMemcpyHostToDevice)); CK(cudaMemcpy(du4, hu4, sizeof(hu4), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(ds2, hs2, sizeof(hs2), cudaMemcpyHostToDevice)); CK(cudaMemcpy(dl2, hl2, sizeof(hl2), cudaMemcpyHostToDevice));
    vec_kernel<<<n / 64, 64>>>(df4, di2, dd2, du4, ds2, dl2, of4, oi4, od2, ou4, of2, ol2, n);
    CK(cudaGetLastError());
    const int m = 1024;
    float hin[m], hout[m];
    for (int i = 0; i < m; ++i) hin[i] = i * 0.75f - 100.0f;
    float *din, *dout;
    CK(cudaMalloc(&din, sizeof(hin))); CK(cudaMalloc(&dout, sizeof(hin)));
    CK(cudaMemcpy(din, hin, sizeof(hin), cudaMemcpyHostToDevice));
    scale_vec4<<<(m / 4 + 127) / 128, 128>>>(din, dout, m / 4, -1.5f);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    float4 rf4[n]; int4 ri4[n]; double2 rd2[n]; uchar4 ru4[n]; float2 rf2[n]; longlong2 rl2[n];
    CK(cudaMemcpy(rf4, of4, sizeof(rf4), cudaMemcpyDeviceToHost)); CK(cudaMemcpy(ri4, oi4, sizeof(ri4), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(rd2, od2, sizeof(rd2), cudaMemcpyDeviceToHost)); CK(cudaMemcpy(ru4, ou4, sizeof(ru4), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(rf2, of2, sizeof(rf2), cudaMemcpyDeviceToHost)); CK(cudaMemcpy(rl2, ol2, sizeof(rl2), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hout, dout, sizeof(hout), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        float4 a = hf4[i]; int2 b = hi2[i]; double2 c = hd2[i]; uchar4 u = hu4[i]; short2 s = hs2[i]; longlong2 l = hl2[i];
        EXPECT(rf4[i].x == a.w && rf4[i].y == a.z * 2.0f && rf4[i].z == a.y + a.x && rf4[i].w == (float)b.x, "float4 [%d]", i);
        EXPECT(ri4[i].x == b.x + b.y && ri4[i].y == b.x - b.y && ri4[i].z == s.x * s.y && ri4[i].w == u.x + u.y + u.z + u.w, "int4 [%d]", i);
        EXPECT(rd2[i].x == c.x * c.y && rd2[i].y == c.x - c.y, "double2 [%d]", i);
        EXPECT(ru4[i].x == u.w && ru4[i].y == u.z && ru4[i].z == (unsigned char)(u.y + 1) && ru4[i].w == (unsigned char)(u.x ^ 0xff), "uchar4 [%d]", i);
        EXPECT(rf2[i].x == a.x * (float)s.x && rf2[i].y == a.w - (float)s.y, "float2 [%d]", i);
        EXPECT(rl2[i].x == l.x + l.y && rl2[i].y == (l.x ^ l.y), "longlong2 [%d]", i);
    }
    for (int i = 0; i < m; ++i) EXPECT(hout[i] == hin[i] * -1.5f, "scale_vec4 [%d]=%f", i, hout[i]);
    cudaFree(df4); cudaFree(of4); cudaFree(di2); cudaFree(oi4); cudaFree(dd2); cudaFree(od2); cudaFree(du4); cudaFree(ou4);
    cudaFree(ds2); cudaFree(of2); cudaFree(dl2); cudaFree(ol2); cudaFree(din); cudaFree(dout);
    return finish();
}

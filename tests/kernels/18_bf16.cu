// ptxsim test kernel: bf16
// Self-checking: prints PASS bf16 / FAIL bf16.
#include <cuda_bf16.h>
#include <cmath>
static const char* kName = "bf16";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// bfloat16: __nv_bfloat16 scalar arithmetic, comparisons, conversions in all
// rounding modes, __nv_bfloat162 vector arithmetic and packing/unpacking.
#define NH 24
#define NF 12
// __hfma / __hfma2 for bf16 are only declared for sm_80+: fall back to fp32 fma
// (exact single rounding for these inputs) on older architectures.
__device__ __forceinline__ __nv_bfloat16 bf_fma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
#if __CUDA_ARCH__ >= 800
    return __hfma(a, b, c);
#else
    return __float2bfloat16_rn(fmaf(__bfloat162float(a), __bfloat162float(b), __bfloat162float(c)));
#endif
}
__device__ __forceinline__ __nv_bfloat162 bf_fma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
#if __CUDA_ARCH__ >= 800
    return __hfma2(a, b, c);
#else
    return __halves2bfloat162(bf_fma(__low2bfloat16(a), __low2bfloat16(b), __low2bfloat16(c)),
                              bf_fma(__high2bfloat16(a), __high2bfloat16(b), __high2bfloat16(c)));
#endif
}

__global__ void bf16_kernel(const float* A, const float* B, const float* C, const float* X,
                            unsigned short* hout, float* fout, int* iout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __nv_bfloat16 a = __float2bfloat16(A[i]), b = __float2bfloat16(B[i]), c = __float2bfloat16(C[i]);
    float x = X[i];
    unsigned short* ho = hout + i * NH;
    float* fo = fout + i * NF;
    int* io = iout + i * 8;
    ho[0] = __bfloat16_as_ushort(__hadd(a, b));
    ho[1] = __bfloat16_as_ushort(__hsub(a, b));
    ho[2] = __bfloat16_as_ushort(__hmul(a, b));
    ho[3] = __bfloat16_as_ushort(bf_fma(a, b, c));
    ho[4] = __bfloat16_as_ushort(__hneg(a));
    ho[5] = __bfloat16_as_ushort(__habs(a));
    ho[6] = __bfloat16_as_ushort(__hmax(a, c));
    ho[7] = __bfloat16_as_ushort(__hmin(a, c));
    ho[8] = __bfloat16_as_ushort(__float2bfloat16_rn(x));
    ho[9] = __bfloat16_as_ushort(__float2bfloat16_rz(x));
    ho[10] = __bfloat16_as_ushort(__float2bfloat16_ru(x));
    ho[11] = __bfloat16_as_ushort(__float2bfloat16_rd(x));
    ho[12] = __bfloat16_as_ushort(__int2bfloat16_rn(i * 37 - 2000));
    ho[13] = __bfloat16_as_ushort(a + b * c);  // operator overloads (may fuse: checked with tolerance)
    __nv_bfloat162 p = __halves2bfloat162(a, b);
    __nv_bfloat162 q = __floats2bfloat162_rn(C[i], 0.5f);
    __nv_bfloat162 s = __hadd2(p, q);
    __nv_bfloat162 m = __hmul2(p, q);
    __nv_bfloat162 f = bf_fma2(p, q, s);
    ho[14] = __bfloat16_as_ushort(__low2bfloat16(s));  ho[15] = __bfloat16_as_ushort(__high2bfloat16(s));
    ho[16] = __bfloat16_as_ushort(__low2bfloat16(m));  ho[17] = __bfloat16_as_ushort(__high2bfloat16(m));
    ho[18] = __bfloat16_as_ushort(__low2bfloat16(f));  ho[19] = __bfloat16_as_ushort(__high2bfloat16(f));
    __nv_bfloat162 sw = __lowhigh2highlow(p);
    ho[20] = __bfloat16_as_ushort(__low2bfloat16(sw)); ho[21] = __bfloat16_as_ushort(__high2bfloat16(sw));
    ho[22] = __bfloat16_as_ushort(__hdiv(a, b));
    ho[23] = __bfloat16_as_ushort(hsqrt(__habs(a)));
    fo[0] = __bfloat162float(a); fo[1] = __low2float(q); fo[2] = __high2float(m);
    float2 ff = __bfloat1622float2(f); fo[3] = ff.x; fo[4] = ff.y;
    fo[5] = __bfloat162float(hexp(__hmul(c, __float2bfloat16(0.25f))));
    fo[6] = (float)__double2bfloat16((double)x * 0.5);  // double -> bf16 conversion
    for (int k = 7; k < NF; ++k) fo[k] = 0.0f;
    io[0] = __hlt(a, c); io[1] = __hgt(a, c); io[2] = __heq(a, b); io[3] = __hge(a, c);
    io[4] = __bfloat162int_rz(__float2bfloat16(x * 10.0f)); io[5] = __bfloat162int_rn(__float2bfloat16(x * 10.0f));
    io[6] = __bfloat162int_rd(__float2bfloat16(x * 10.0f)); io[7] = __bfloat162int_ru(__float2bfloat16(x * 10.0f));
}

static unsigned short hbits(float f) { return __bfloat16_as_ushort(__float2bfloat16_rn(f)); }
static float hf(unsigned short u) { return __bfloat162float(__ushort_as_bfloat16(u)); }
static unsigned short h_step(unsigned short h, int dir) {  // dir +1 increase value, -1 decrease, 0 toward zero
    unsigned short sign = h & 0x8000, mag = h & 0x7fff;
    if (dir == 0) return sign | (mag - 1);
    bool up_mag = (dir > 0) == (sign == 0);
    if (up_mag) return sign | (mag + 1);
    if (mag == 0) return (unsigned short)((sign ^ 0x8000) | 1);
    return sign | (mag - 1);
}
static unsigned short h_round(float x, int mode) {
    unsigned short h = hbits(x);
    float f = hf(h);
    if (f == x || mode == 0) return h;
    if (mode == 1) return std::fabs(f) > std::fabs(x) ? h_step(h, 0) : h;
    if (mode == 2) return f < x ? h_step(h, +1) : h;
    return f > x ? h_step(h, -1) : h;
}

int main() {
    const int n = 256;
    float ha[n], hb[n], hc[n], hx[n];
    for (int i = 0; i < n; ++i) {
        ha[i] = (i % 64 - 32) * 0.125f; hb[i] = (i % 37) * 0.0625f + 1.0f;
        hc[i] = (i % 11) * 0.5f - 2.0f; hx[i] = (i - 128) * 0.0371f + 0.001f;
    }
    float *da, *db, *dc, *dx, *dfo; unsigned short* dho; int* dio;
    CK(cudaMalloc(&da, sizeof(ha))); CK(cudaMalloc(&db, sizeof(hb))); CK(cudaMalloc(&dc, sizeof(hc))); CK(cudaMalloc(&dx, sizeof(hx)));
    CK(cudaMalloc(&dho, n * NH * 2)); CK(cudaMalloc(&dfo, n * NF * 4)); CK(cudaMalloc(&dio, n * 8 * 4));
    CK(cudaMemcpy(da, ha, sizeof(ha), cudaMemcpyHostToDevice)); CK(cudaMemcpy(db, hb, sizeof(hb), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dc, hc, sizeof(hc), cudaMemcpyHostToDevice)); CK(cudaMemcpy(dx, hx, sizeof(hx), cudaMemcpyHostToDevice));
    bf16_kernel<<<2, 128>>>(da, db, dc, dx, dho, dfo, dio, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    unsigned short* ho = new unsigned short[n * NH]; float* fo = new float[n * NF]; int* io = new int[n * 8];
    CK(cudaMemcpy(ho, dho, n * NH * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(fo, dfo, n * NF * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(io, dio, n * 8 * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        float a = ha[i], b = hb[i], c = hc[i], x = hx[i];  // a, b, c are exact halves
        const unsigned short* h = ho + i * NH; const float* f = fo + i * NF; const int* o = io + i * 8;
        unsigned short e[NH];
        e[0] = hbits(a + b); e[1] = hbits(a - b); e[2] = hbits(a * b); e[3] = hbits(a * b + c);  // all exact in float
        e[4] = hbits(-a); e[5] = hbits(std::fabs(a)); e[6] = hbits(a > c ? a : c); e[7] = hbits(a < c ? a : c);
        for (int m = 0; m < 4; ++m) e[8 + m] = h_round(x, m);
        e[12] = hbits((float)(i * 37 - 2000));
        float qlo = hf(hbits(c)), qhi = 0.5f;
        float slo = hf(hbits(a + qlo)), shi = hf(hbits(b + qhi));
        float mlo = hf(hbits(a * qlo)), mhi = hf(hbits(b * qhi));
        e[14] = hbits(slo); e[15] = hbits(shi); e[16] = hbits(mlo); e[17] = hbits(mhi);
        e[18] = hbits(a * qlo + slo); e[19] = hbits(b * qhi + shi);
        e[20] = hbits(b); e[21] = hbits(a);
        for (int k = 0; k < NH; ++k) {
            if (k == 13 || k == 22 || k == 23) continue;
            if (k == 5 && a == 0) continue;  // sign of zero
            EXPECT(h[k] == e[k], "bf16 op %d i=%d got 0x%04x (%g) expected 0x%04x (%g)", k, i, h[k], hf(h[k]), e[k], hf(e[k]));
        }
        float e13 = a + b * c;
        EXPECT(std::fabs(hf(h[13]) - e13) <= 1e-2f * (std::fabs(e13) + 1), "operator a+b*c i=%d got %g expected %g", i, hf(h[13]), e13);
        float e22 = a / b;
        EXPECT(std::fabs(hf(h[22]) - e22) <= 4e-3f * (std::fabs(e22) + 1e-3f), "hdiv i=%d got %g expected %g", i, hf(h[22]), e22);
        float e23 = std::sqrt(std::fabs(a));
        EXPECT(std::fabs(hf(h[23]) - e23) <= 8e-3f * (e23 + 1e-3f), "hsqrt i=%d got %g expected %g", i, hf(h[23]), e23);
        EXPECT(f[0] == a && f[1] == qlo && f[2] == mhi && f[3] == hf(e[18]) && f[4] == hf(e[19]), "bf16->float i=%d", i);
        float e5 = std::exp(c * 0.25f);
        EXPECT(std::fabs(f[5] - e5) <= 1e-2f * e5, "hexp i=%d got %g expected %g", i, f[5], e5);
        float e6 = hf(hbits((float)((double)x * 0.5)));
        EXPECT(std::fabs(f[6] - e6) <= 4e-3f * std::fabs(e6), "double2bf16 i=%d got %g expected %g", i, f[6], e6);
        EXPECT(o[0] == (a < c) && o[1] == (a > c) && o[2] == (a == b) && o[3] == (a >= c), "bf16 compare i=%d", i);
        float xh = hf(hbits(x * 10.0f));
        EXPECT(o[4] == (int)std::trunc(xh) && o[5] == (int)std::rint(xh) && o[6] == (int)std::floor(xh) && o[7] == (int)std::ceil(xh),
               "bf162int i=%d xh=%g got %d %d %d %d", i, xh, o[4], o[5], o[6], o[7]);
    }
    cudaFree(da); cudaFree(db); cudaFree(dc); cudaFree(dx); cudaFree(dho); cudaFree(dfo); cudaFree(dio);
    delete[] ho; delete[] fo; delete[] io;
    return finish();
}

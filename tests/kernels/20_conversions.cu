// ptxsim test kernel: conversions
// Self-checking: prints PASS conversions / FAIL conversions.
#include <cmath>
#include <limits>
#include <cstdint>
#include <cstring>
static const char* kName = "conversions";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Conversions between int/unsigned/long long/float/double with every rounding
// intrinsic (__float2int_rn/rz/ru/rd, __int2float_rz, __double2float_rd,
// __ll2double_ru, ...), saturation of out-of-range float->int, NaN->0 (64-bit targets: 0x8000000000000000, as the H100), plain C
// casts incl. narrow types, and bit reinterpretation intrinsics.
// Host reference: round an exactly-known value `x` (held in a wider type W) to
// type T with a directed rounding mode. 0 = rn, 1 = rz, 2 = ru, 3 = rd.
template <typename T, typename W>
static T round_to(W x, int mode) {
    T n = (T)x;  // round to nearest even
    if ((W)n == x || mode == 0) return n;
    T inf = std::numeric_limits<T>::infinity();
    if (mode == 1) { if (std::fabs((W)n) > std::fabs(x)) n = std::nextafter(n, (T)0); }
    else if (mode == 2) { if ((W)n < x) n = std::nextafter(n, inf); }
    else { if ((W)n > x) n = std::nextafter(n, -inf); }
    return n;
}

#define NI 40   // integer outputs (as 64-bit)
#define NF 24   // float outputs
#define ND 16   // double outputs
__global__ void conv(const float* F, const double* D, const int* I, const long long* L,
                     long long* oi, float* of, double* od, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    float f = F[t]; double d = D[t]; int i = I[t]; long long l = L[t];
    unsigned u = (unsigned)i; unsigned long long ul = (unsigned long long)l;
    long long* a = oi + t * NI; float* b = of + t * NF; double* c = od + t * ND;
    a[0] = __float2int_rn(f); a[1] = __float2int_rz(f); a[2] = __float2int_ru(f); a[3] = __float2int_rd(f);
    a[4] = __float2uint_rn(f); a[5] = __float2uint_rz(f); a[6] = __float2uint_ru(f); a[7] = __float2uint_rd(f);
    a[8] = __float2ll_rn(f); a[9] = __float2ll_rz(f); a[10] = __float2ll_ru(f); a[11] = __float2ll_rd(f);
    a[12] = (long long)__float2ull_rz(f);
    a[13] = __double2int_rn(d); a[14] = __double2int_rz(d); a[15] = __double2int_ru(d); a[16] = __double2int_rd(d);
    a[17] = __double2uint_rz(d); a[18] = __double2ll_rn(d); a[19] = __double2ll_rd(d); a[20] = (long long)__double2ull_ru(d);
    a[21] = (int)f; a[22] = (unsigned)f; a[23] = (long long)d; a[24] = (short)i; a[25] = (signed char)i;
    a[26] = (unsigned char)i; a[27] = (unsigned short)i; a[28] = (int)l; a[29] = (long long)i; a[30] = (long long)u;
    a[31] = __float_as_int(f); a[32] = __double_as_longlong(d); a[33] = __double2hiint(d); a[34] = __double2loint(d);
    a[35] = __float_as_uint(f); a[36] = (long long)(ul >> 7);
    a[37] = (long long)rintf(f); a[38] = lrintf(f); a[39] = llround(d);
    b[0] = __int2float_rn(i); b[1] = __int2float_rz(i); b[2] = __int2float_ru(i); b[3] = __int2float_rd(i);
    b[4] = __uint2float_rn(u); b[5] = __uint2float_rz(u); b[6] = __uint2float_ru(u); b[7] = __uint2float_rd(u);
    b[8] = __ll2float_rn(l); b[9] = __ll2float_rz(l); b[10] = __ll2float_ru(l); b[11] = __ll2float_rd(l);
    b[12] = __ull2float_rn(ul); b[13] = __ull2float_rz(ul);
    b[14] = __double2float_rn(d); b[15] = __double2float_rz(d); b[16] = __double2float_ru(d); b[17] = __double2float_rd(d);
    b[18] = (float)i; b[19] = (float)d; b[20] = (float)l; b[21] = __int_as_float(i); b[22] = __uint_as_float(u ^ 0x3f800000u);
    b[23] = (float)u;
    c[0] = __int2double_rn(i); c[1] = __uint2double_rn(u); c[2] = __ll2double_rn(l); c[3] = __ll2double_rz(l);
    c[4] = __ll2double_ru(l); c[5] = __ll2double_rd(l); c[6] = __ull2double_rn(ul); c[7] = __ull2double_rz(ul);
    c[8] = (double)f; c[9] = (double)l; c[10] = (double)ul; c[11] = __longlong_as_double(l);
    c[12] = __hiloint2double(i, (int)(l >> 3)); c[13] = (double)u; c[14] = __ull2double_ru(ul); c[15] = __ull2double_rd(ul);
}

// float->int as the H100 computes it: round per mode, saturate to the target range, NaN -> 0
// for 32-bit and narrower targets but 0x8000000000000000 for 64-bit ones (signed and unsigned;
// the PTX ISA says 0, the hardware's 64-bit converters disagree)
template <typename T>
static long long sat(double v) {
    if (std::isnan(v)) return sizeof(T) == 8 ? (long long)(1ull << 63) : 0;
    double lo = (double)std::numeric_limits<T>::min(), hi = (double)std::numeric_limits<T>::max();
    if (v <= lo) return (long long)std::numeric_limits<T>::min();
    if (v >= hi) return (long long)std::numeric_limits<T>::max();
    return (long long)(T)v;
}
static double rmode(double v, int m) { return m == 0 ? std::nearbyint(v) : m == 1 ? std::trunc(v) : m == 2 ? std::ceil(v) : std::floor(v); }

int main() {
    const int n = 192;
    float hf[n]; double hd[n]; int hi[n]; long long hl[n];
    for (int t = 0; t < n; ++t) {
        hf[t] = (t - 96) * 1.37f + ((t % 4) * 0.5f);  // includes exact .5 cases
        hd[t] = (t - 96) * 11.3125 - (t % 3) * 0.5 + 1.0 / (t + 1);
        hi[t] = (int)((unsigned)t * 2654435761u);     // large magnitudes: int->float rounds
        hl[t] = (long long)(((unsigned long long)t * 0x9E3779B97F4A7C15ull) >> (t % 20));
    }
    hf[0] = 3e9f; hf[1] = -3e9f; hf[2] = std::numeric_limits<float>::quiet_NaN(); hf[3] = 2.5f; hf[4] = -2.5f;
    hf[5] = 1e20f; hf[6] = -0.5f; hf[7] = 4294967040.0f; hf[8] = 2147483520.0f;
    hd[0] = 5e9; hd[1] = -5e9; hd[2] = 1e300; hd[3] = -1e-300; hd[4] = 3.4e38 * 10; hd[5] = -2.5; hd[6] = 1.0000000596046448;
    hd[7] = 2147483647.5; hd[8] = -2147483648.5;
    float *df; double *dd, *dod; int* di; long long *dl, *doi; float* dof;
    CK(cudaMalloc(&df, sizeof(hf))); CK(cudaMalloc(&dd, sizeof(hd))); CK(cudaMalloc(&di, sizeof(hi))); CK(cudaMalloc(&dl, sizeof(hl)));
    CK(cudaMalloc(&doi, n * NI * 8)); CK(cudaMalloc(&dof, n * NF * 4)); CK(cudaMalloc(&dod, n * ND * 8));
    CK(cudaMemcpy(df, hf, sizeof(hf), cudaMemcpyHostToDevice)); CK(cudaMemcpy(dd, hd, sizeof(hd), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(di, hi, sizeof(hi), cudaMemcpyHostToDevice)); CK(cudaMemcpy(dl, hl, sizeof(hl), cudaMemcpyHostToDevice));
    conv<<<(n + 63) / 64, 64>>>(df, dd, di, dl, doi, dof, dod, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    long long* oi = new long long[n * NI]; float* of = new float[n * NF]; double* od = new double[n * ND];
    CK(cudaMemcpy(oi, doi, n * NI * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(of, dof, n * NF * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(od, dod, n * ND * 8, cudaMemcpyDeviceToHost));
    for (int t = 0; t < n; ++t) {
        float f = hf[t]; double d = hd[t]; int i = hi[t]; long long l = hl[t];
        unsigned u = (unsigned)i; unsigned long long ul = (unsigned long long)l;
        long long ea[NI]; bool checka[NI];
        for (int k = 0; k < NI; ++k) checka[k] = true;
        for (int m = 0; m < 4; ++m) {
            ea[0 + m] = sat<int>(rmode(f, m)); ea[4 + m] = sat<unsigned>(rmode(f, m)); ea[8 + m] = sat<long long>(rmode(f, m));
        }
        {   // float -> ull, rz, saturating (NaN -> 0x8000000000000000 on the hardware)
            double v = std::trunc((double)f);
            unsigned long long r = std::isnan(f) ? (1ull << 63) : v <= 0 ? 0ull : v >= 18446744073709551615.0 ? ~0ull : (unsigned long long)v;
            ea[12] = (long long)r;
        }
        ea[13] = sat<int>(rmode(d, 0)); ea[14] = sat<int>(rmode(d, 1)); ea[15] = sat<int>(rmode(d, 2)); ea[16] = sat<int>(rmode(d, 3));
        ea[17] = sat<unsigned>(rmode(d, 1)); ea[18] = sat<long long>(rmode(d, 0)); ea[19] = sat<long long>(rmode(d, 3));
        {
            double v = std::ceil(d);
            unsigned long long r = v <= 0 ? 0ull : v >= 18446744073709551615.0 ? ~0ull : (unsigned long long)v;
            ea[20] = (long long)r;
        }
        // C casts of out-of-range values are undefined in C++: only check when in range
        ea[21] = sat<int>(std::trunc(f)); checka[21] = !std::isnan(f) && std::fabs(f) < 2147483647.0f;
        ea[22] = sat<unsigned>(std::trunc(f)); checka[22] = !std::isnan(f) && f > -1.0f && f < 4294967295.0f;
        ea[23] = sat<long long>(std::trunc(d)); checka[23] = std::fabs(d) < 9.2e18;
        ea[24] = (short)i; ea[25] = (signed char)i; ea[26] = (unsigned char)i; ea[27] = (unsigned short)i;
        ea[28] = (int)l; ea[29] = i; ea[30] = u;
        int fi; memcpy(&fi, &f, 4); long long dl_; memcpy(&dl_, &d, 8);
        ea[31] = fi; ea[32] = dl_; ea[33] = (int)(dl_ >> 32); ea[34] = (int)(unsigned)(dl_ & 0xffffffff);
        ea[35] = (unsigned)fi; ea[36] = (long long)(ul >> 7);
        ea[37] = (long long)std::rint(f); checka[37] = !std::isnan(f) && std::fabs(f) < 9e18f;
        ea[38] = std::lrint(f); checka[38] = checka[37];
        ea[39] = std::llround(d); checka[39] = std::fabs(d) < 9e18;
        for (int k = 0; k < NI; ++k)
            if (checka[k]) EXPECT(oi[t * NI + k] == ea[k], "int conv %d t=%d f=%.9g d=%.17g i=%d l=%lld: got %lld expected %lld",
                                  k, t, f, d, i, l, oi[t * NI + k], ea[k]);
        float eb[NF];
        for (int m = 0; m < 4; ++m) {
            eb[0 + m] = round_to<float>((double)i, m); eb[4 + m] = round_to<float>((double)u, m);
            eb[8 + m] = round_to<float>((long double)l, m);
            eb[14 + m] = round_to<float>(d, m);
        }
        eb[12] = round_to<float>((long double)ul, 0); eb[13] = round_to<float>((long double)ul, 1);
        eb[18] = (float)i; eb[19] = (float)d; eb[20] = (float)l;
        float fb; memcpy(&fb, &i, 4); eb[21] = fb; unsigned ux = u ^ 0x3f800000u; memcpy(&fb, &ux, 4); eb[22] = fb;
        eb[23] = (float)u;
        for (int k = 0; k < NF; ++k) {
            float g = of[t * NF + k];
            bool ok = (g == eb[k]) || (std::isnan(g) && std::isnan(eb[k]));
            if (k == 21 || k == 22) { unsigned gb, ebb; memcpy(&gb, &g, 4); memcpy(&ebb, &eb[k], 4); ok = gb == ebb || (std::isnan(g) && std::isnan(eb[k])); }
            EXPECT(ok, "float conv %d t=%d d=%.17g i=%d l=%lld: got %.9g expected %.9g", k, t, d, i, l, g, eb[k]);
        }
        double ec[ND];
        ec[0] = i; ec[1] = u;
        for (int m = 0; m < 4; ++m) ec[2 + m] = round_to<double>((long double)l, m);
        ec[6] = round_to<double>((long double)ul, 0); ec[7] = round_to<double>((long double)ul, 1);
        ec[8] = f; ec[9] = (double)l; ec[10] = (double)ul; double db_; memcpy(&db_, &l, 8); ec[11] = db_;
        unsigned long long hl2 = ((unsigned long long)(unsigned)i << 32) | (unsigned)(int)(l >> 3); memcpy(&db_, &hl2, 8); ec[12] = db_;
        ec[13] = u; ec[14] = round_to<double>((long double)ul, 2); ec[15] = round_to<double>((long double)ul, 3);
        for (int k = 0; k < ND; ++k) {
            double g = od[t * ND + k];
            unsigned long long gb, ebb; memcpy(&gb, &g, 8); memcpy(&ebb, &ec[k], 8);
            EXPECT(gb == ebb || (std::isnan(g) && std::isnan(ec[k])), "double conv %d t=%d l=%lld: got %.17g expected %.17g", k, t, l, g, ec[k]);
        }
    }
    cudaFree(df); cudaFree(dd); cudaFree(di); cudaFree(dl); cudaFree(doi); cudaFree(dof); cudaFree(dod);
    delete[] oi; delete[] of; delete[] od;
    return finish();
}

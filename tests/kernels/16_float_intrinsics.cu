// ptxsim test kernel: float_intrinsics
// Self-checking: prints PASS float_intrinsics / FAIL float_intrinsics.
#include <cmath>
#include <limits>
static const char* kName = "float_intrinsics";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Single precision: correctly rounded intrinsics in every rounding mode
// (__fadd_rz, __fmul_ru, __fmaf_rd, __fdiv_rz, __frcp_ru, __fsqrt_rd, ...) checked
// exactly, and fast approximate intrinsics (__sinf, __expf, __fdividef, rsqrtf...)
// and libm functions checked with tolerances.
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

#define NOUT 64
__global__ void fmath(const float* A, const float* B, const float* C, const float* X, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = A[i], b = B[i], c = C[i], x = X[i];
    float* o = out + i * NOUT;
    o[0] = __fadd_rn(a, c); o[1] = __fadd_rz(a, c); o[2] = __fadd_ru(a, c); o[3] = __fadd_rd(a, c);
    o[4] = __fsub_rn(a, c); o[5] = __fsub_rz(a, c); o[6] = __fsub_ru(a, c); o[7] = __fsub_rd(a, c);
    o[8] = __fmul_rn(a, b); o[9] = __fmul_rz(a, b); o[10] = __fmul_ru(a, b); o[11] = __fmul_rd(a, b);
    o[12] = __fmaf_rn(a, b, c); o[13] = __fmaf_rz(a, b, c); o[14] = __fmaf_ru(a, b, c); o[15] = __fmaf_rd(a, b, c);
    o[16] = __fdiv_rn(a, b); o[17] = __fdiv_rz(a, b); o[18] = __fdiv_ru(a, b); o[19] = __fdiv_rd(a, b);
    o[20] = __frcp_rn(b); o[21] = __frcp_rz(b); o[22] = __frcp_ru(b); o[23] = __frcp_rd(b);
    o[24] = __fsqrt_rn(a); o[25] = __fsqrt_rz(a); o[26] = __fsqrt_ru(a); o[27] = __fsqrt_rd(a);
    o[28] = a / b; o[29] = sqrtf(a); o[30] = fmaf(a, b, c); o[31] = 1.0f / b;
    // approximate
    o[32] = __sinf(x); o[33] = __cosf(x); o[34] = __expf(x); o[35] = __logf(a);
    o[36] = __fdividef(a, b); o[37] = rsqrtf(a); o[38] = __powf(a, 1.3f); o[39] = __exp10f(x * 0.25f);
    o[40] = sinf(x); o[41] = cosf(x); o[42] = expf(x); o[43] = logf(a);
    o[44] = exp2f(x); o[45] = log2f(a); o[46] = tanf(x * 0.4f); o[47] = atanf(x);
    float s, co; sincosf(x, &s, &co); o[48] = s; o[49] = co;
    __sincosf(x, &s, &co); o[50] = s; o[51] = co;
    // exact helpers
    o[52] = __saturatef(x * 0.5f); o[53] = fminf(a, b); o[54] = fmaxf(c, x); o[55] = floorf(x);
    o[56] = ceilf(x); o[57] = truncf(x); o[58] = rintf(x); o[59] = roundf(x);
    o[60] = copysignf(a, x); o[61] = fabsf(x); o[62] = fmodf(a, b); o[63] = ldexpf(a, (int)c * 0 + 3);
}

// expected quotient/reciprocal/sqrt in directed modes from the RN result and an exact residual test
static float dir_from_rn(float q, double exact_cmp /* sign of (q - true) */, int mode) {
    if (mode == 0 || exact_cmp == 0) return q;
    float inf = std::numeric_limits<float>::infinity();
    bool q_above = exact_cmp > 0;  // all values positive here
    if (mode == 1 || mode == 3) return q_above ? std::nextafter(q, 0.0f) : q;
    return q_above ? q : std::nextafter(q, inf);
}

int main() {
    const int n = 256;
    float ha[n], hb[n], hc[n], hx[n];
    for (int i = 0; i < n; ++i) {
        ha[i] = 1.0f + i * 0.0117f;                // [1, 4), full mantissas
        hb[i] = 0.75f + (i % 23) * 0.125f;         // few bits
        hc[i] = (i % 19 - 9) * 0.0625f + 0.03125f; // few bits, nonzero
        hx[i] = (i - 128) * 0.0245f;               // ~[-3.14, 3.1]
    }
    float *da, *db, *dc, *dx, *dout;
    CK(cudaMalloc(&da, sizeof(ha))); CK(cudaMalloc(&db, sizeof(hb))); CK(cudaMalloc(&dc, sizeof(hc)));
    CK(cudaMalloc(&dx, sizeof(hx))); CK(cudaMalloc(&dout, n * NOUT * sizeof(float)));
    CK(cudaMemcpy(da, ha, sizeof(ha), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, hb, sizeof(hb), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dc, hc, sizeof(hc), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dx, hx, sizeof(hx), cudaMemcpyHostToDevice));
    fmath<<<(n + 127) / 128, 128>>>(da, db, dc, dx, dout, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    float* out = new float[n * NOUT];
    CK(cudaMemcpy(out, dout, n * NOUT * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        float a = ha[i], b = hb[i], c = hc[i], x = hx[i];
        const float* o = out + i * NOUT;
        float ex[NOUT]; double tol[NOUT]; bool rel[NOUT];
        for (int k = 0; k < NOUT; ++k) { tol[k] = 0; rel[k] = false; }
        double sum = (double)a + c, dif = (double)a - c, prod = (double)a * b, f = prod + c;  // all exact
        float q = a / b, r = 1.0f / b, s = std::sqrt(a);
        double qc = (double)q * b - a, rc = (double)r * b - 1.0, sc = (double)s * s - a;  // exact residual signs
        for (int m = 0; m < 4; ++m) {
            ex[0 + m] = round_to<float>(sum, m); ex[4 + m] = round_to<float>(dif, m);
            ex[8 + m] = round_to<float>(prod, m); ex[12 + m] = round_to<float>(f, m);
            ex[16 + m] = dir_from_rn(q, qc, m); ex[20 + m] = dir_from_rn(r, rc, m); ex[24 + m] = dir_from_rn(s, sc, m);
        }
        ex[28] = q; ex[29] = s; ex[30] = std::fma(a, b, c); ex[31] = r;
        ex[32] = std::sin(x); tol[32] = 2e-6; ex[33] = std::cos(x); tol[33] = 2e-6;
        ex[34] = (float)std::exp((double)x); tol[34] = 2e-6; rel[34] = true;
        ex[35] = (float)std::log((double)a); tol[35] = 2e-6;
        ex[36] = (float)((double)a / b); tol[36] = 1e-6; rel[36] = true;
        ex[37] = (float)(1.0 / std::sqrt((double)a)); tol[37] = 1e-6; rel[37] = true;
        ex[38] = (float)std::pow((double)a, 1.3); tol[38] = 1e-5; rel[38] = true;
        ex[39] = (float)std::pow(10.0, (double)(x * 0.25f)); tol[39] = 1e-5; rel[39] = true;
        ex[40] = (float)std::sin((double)x); tol[40] = 1e-6; ex[41] = (float)std::cos((double)x); tol[41] = 1e-6;
        ex[42] = (float)std::exp((double)x); tol[42] = 1e-6; rel[42] = true;
        ex[43] = (float)std::log((double)a); tol[43] = 1e-6;
        ex[44] = (float)std::exp2((double)x); tol[44] = 1e-6; rel[44] = true;
        ex[45] = (float)std::log2((double)a); tol[45] = 1e-6;
        ex[46] = (float)std::tan((double)(x * 0.4f)); tol[46] = 2e-6; rel[46] = true;
        ex[47] = (float)std::atan((double)x); tol[47] = 1e-6;
        ex[48] = ex[40]; tol[48] = 1e-6; ex[49] = ex[41]; tol[49] = 1e-6;
        ex[50] = ex[40]; tol[50] = 2e-6; ex[51] = ex[41]; tol[51] = 2e-6;
        float hx5 = x * 0.5f; ex[52] = hx5 < 0 ? 0.0f : (hx5 > 1 ? 1.0f : hx5);
        ex[53] = std::fmin(a, b); ex[54] = std::fmax(c, x); ex[55] = std::floor(x); ex[56] = std::ceil(x);
        ex[57] = std::trunc(x); ex[58] = std::rint(x); ex[59] = std::round(x); ex[60] = std::copysign(a, x);
        ex[61] = std::fabs(x); ex[62] = std::fmod(a, b); ex[63] = std::ldexp(a, 3);
        for (int k = 0; k < NOUT; ++k) {
            bool ok;
            if (tol[k] == 0) ok = (o[k] == ex[k]);
            else if (rel[k]) ok = std::fabs((double)o[k] - ex[k]) <= tol[k] * std::fabs((double)ex[k]);
            else ok = std::fabs((double)o[k] - ex[k]) <= tol[k] * (1.0 + std::fabs((double)ex[k]));
            EXPECT(ok, "op %d i=%d a=%.9g b=%.9g c=%.9g x=%.9g: got %.9g expected %.9g", k, i, a, b, c, x, o[k], ex[k]);
        }
    }
    cudaFree(da); cudaFree(db); cudaFree(dc); cudaFree(dx); cudaFree(dout); delete[] out;
    return finish();
}

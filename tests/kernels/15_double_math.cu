// ptxsim test kernel: double_math
// Self-checking: prints PASS double_math / FAIL double_math.
#include <cmath>
#include <limits>
static const char* kName = "double_math";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Double precision: correctly rounded ops (add, mul, div, sqrt, fma, rcp) in all
// rounding modes via __dadd_rz etc, and libm functions (exp, log, sin, cos, pow,
// atan2, tanh, cbrt) checked with a tolerance.
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

#define NOUT 40
__global__ void dmath(const double* a, const double* b, const double* c, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = a[i], y = b[i], z = c[i];
    double* o = out + i * NOUT;
    o[0] = x + y; o[1] = x - y; o[2] = x * y; o[3] = x / y;
    o[4] = sqrt(fabs(x)); o[5] = fma(x, y, z);
    o[6] = __dadd_rn(x, z); o[7] = __dadd_rz(x, z); o[8] = __dadd_ru(x, z); o[9] = __dadd_rd(x, z);
    o[10] = __dmul_rn(x, y); o[11] = __dmul_rz(x, y); o[12] = __dmul_ru(x, y); o[13] = __dmul_rd(x, y);
    o[14] = __ddiv_rn(x, y); o[15] = __drcp_rn(y); o[16] = __dsqrt_rn(fabs(x));
    o[17] = __fma_rn(x, y, z); o[18] = __fma_rz(x, y, z); o[19] = __fma_ru(x, y, z); o[20] = __fma_rd(x, y, z);
    o[21] = exp(z); o[22] = log(fabs(x) + 0.5); o[23] = sin(x); o[24] = cos(y);
    o[25] = pow(fabs(y), 1.5); o[26] = atan2(x, y); o[27] = tanh(z); o[28] = cbrt(x);
    o[29] = floor(x); o[30] = ceil(x); o[31] = trunc(x); o[32] = round(x); o[33] = rint(x);
    o[34] = fmin(x, y); o[35] = fmax(x, z); o[36] = fabs(x); o[37] = copysign(y, x);
    o[38] = fmod(x, y); o[39] = (double)(x < y) + 2.0 * (double)(x == z) + 4.0 * (double)(x >= 0.0);
}

static bool ulp_diff_ok(double got, double exp, double rel) {
    if (got == exp) return true;
    return std::fabs(got - exp) <= rel * std::fabs(exp) + 1e-300;
}

int main() {
    const int n = 256;
    double ha[n], hb[n], hc[n];
    for (int i = 0; i < n; ++i) {
        ha[i] = (i - 128) / 3.0;                 // full 53-bit mantissas
        hb[i] = 0.5 + (i % 37) * 0.25;           // few mantissa bits: products exact in long double
        hc[i] = (i % 29 - 14) * 0.0625 + 0.03125; // few bits, never 0: sums/fma exact in long double
    }
    double *da, *db, *dc, *dout;
    CK(cudaMalloc(&da, sizeof(ha))); CK(cudaMalloc(&db, sizeof(hb))); CK(cudaMalloc(&dc, sizeof(hc)));
    CK(cudaMalloc(&dout, n * NOUT * sizeof(double)));
    CK(cudaMemcpy(da, ha, sizeof(ha), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, hb, sizeof(hb), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dc, hc, sizeof(hc), cudaMemcpyHostToDevice));
    dmath<<<(n + 63) / 64, 64>>>(da, db, dc, dout, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    double* out = new double[n * NOUT];
    CK(cudaMemcpy(out, dout, n * NOUT * sizeof(double), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        double x = ha[i], y = hb[i], z = hc[i];
        const double* o = out + i * NOUT;
        long double sum = (long double)x + (long double)z;   // exact (exponents close)
        long double prod = (long double)x * (long double)y;  // exact (y has <= 8 significant bits)
        double ex[NOUT];
        ex[0] = x + y; ex[1] = x - y; ex[2] = x * y; ex[3] = x / y; ex[4] = std::sqrt(std::fabs(x)); ex[5] = std::fma(x, y, z);
        for (int m = 0; m < 4; ++m) { ex[6 + m] = round_to<double>(sum, m); ex[10 + m] = round_to<double>(prod, m); }
        ex[14] = x / y; ex[15] = 1.0 / y; ex[16] = std::sqrt(std::fabs(x));
        // exact fma result: prod + z fits in long double's 64-bit mantissa for these inputs
        long double f = prod + (long double)z;
        for (int m = 0; m < 4; ++m) ex[17 + m] = round_to<double>(f, m);
        ex[21] = std::exp(z); ex[22] = std::log(std::fabs(x) + 0.5); ex[23] = std::sin(x); ex[24] = std::cos(y);
        ex[25] = std::pow(std::fabs(y), 1.5); ex[26] = std::atan2(x, y); ex[27] = std::tanh(z); ex[28] = std::cbrt(x);
        ex[29] = std::floor(x); ex[30] = std::ceil(x); ex[31] = std::trunc(x); ex[32] = std::round(x); ex[33] = std::rint(x);
        ex[34] = std::fmin(x, y); ex[35] = std::fmax(x, z); ex[36] = std::fabs(x); ex[37] = std::copysign(y, x);
        ex[38] = std::fmod(x, y); ex[39] = (double)(x < y) + 2.0 * (double)(x == z) + 4.0 * (double)(x >= 0.0);
        for (int k = 0; k < NOUT; ++k) {
            bool approx = (k >= 21 && k <= 28);
            bool ok;
            if (k == 23 || k == 24) ok = std::fabs(o[k] - ex[k]) <= 1e-15 + 1e-15 * std::fabs(ex[k]);
            else ok = approx ? ulp_diff_ok(o[k], ex[k], 1e-15) : (o[k] == ex[k]);
            EXPECT(ok, "op %d i=%d x=%.17g y=%.17g z=%.17g: got %.17g expected %.17g", k, i, x, y, z, o[k], ex[k]);
        }
    }
    cudaFree(da); cudaFree(db); cudaFree(dc); cudaFree(dout); delete[] out;
    return finish();
}

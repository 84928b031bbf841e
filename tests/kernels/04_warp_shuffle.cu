// ptxsim test kernel: warp_shuffle
// Self-checking: prints PASS warp_shuffle / FAIL warp_shuffle.
static const char* kName = "warp_shuffle";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Warp shuffles: down (reduction), xor (butterfly all-reduce), up (inclusive scan),
// idx (broadcast / permutation), sub-warp widths, float and double payloads.
#define FULL 0xffffffffu

__global__ void shuffles(const int* in, const double* din, int* red_down, int* allred_xor, int* scan_up,
                         int* bcast, int* perm, int* down_w8, int* idx_w16, int* up_w4,
                         float* fx, double* dd) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = in[gid];

    // 1. reduction with shfl_down: lane 0 holds warp sum
    int s = v;
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(FULL, s, off);
    if (lane == 0) red_down[gid / 32] = s;

    // 2. butterfly all-reduce with shfl_xor: every lane gets the max
    int m = v;
    for (int off = 1; off < 32; off <<= 1) m = max(m, __shfl_xor_sync(FULL, m, off));
    allred_xor[gid] = m;

    // 3. inclusive scan with shfl_up
    int sc = v;
    for (int off = 1; off < 32; off <<= 1) {
        int t = __shfl_up_sync(FULL, sc, off);
        if (lane >= off) sc += t;
    }
    scan_up[gid] = sc;

    // 4. broadcast from a lane chosen per warp, and an arbitrary permutation
    int warp = gid / 32;
    bcast[gid] = __shfl_sync(FULL, v, warp % 32);
    perm[gid] = __shfl_sync(FULL, v, (lane * 7 + 3) % 32);

    // 5. sub-warp widths
    down_w8[gid] = __shfl_down_sync(FULL, v, 3, 8);
    idx_w16[gid] = __shfl_sync(FULL, v, 5, 16);
    up_w4[gid] = __shfl_up_sync(FULL, v, 1, 4);

    // 6. float and double payloads
    float f = v * 0.5f;
    fx[gid] = __shfl_xor_sync(FULL, f, 5);
    double d = din[gid];
    dd[gid] = __shfl_down_sync(FULL, d, 2) + __shfl_up_sync(FULL, d, 1);
}

int main() {
    const int n = 128;  // 2 blocks of 64 = 4 warps
    int h[n]; double hd[n];
    for (int i = 0; i < n; ++i) { h[i] = (i * 29 + 11) % 97 - 40; hd[i] = 1.0 / (i + 3); }
    int *din; double *ddin;
    int *o_red, *o_xor, *o_scan, *o_bc, *o_perm, *o_dw8, *o_iw16, *o_uw4; float* o_fx; double* o_dd;
    CK(cudaMalloc(&din, n * sizeof(int))); CK(cudaMalloc(&ddin, n * sizeof(double)));
    CK(cudaMalloc(&o_red, n / 32 * sizeof(int)));
    CK(cudaMalloc(&o_xor, n * sizeof(int))); CK(cudaMalloc(&o_scan, n * sizeof(int)));
    CK(cudaMalloc(&o_bc, n * sizeof(int))); CK(cudaMalloc(&o_perm, n * sizeof(int)));
    CK(cudaMalloc(&o_dw8, n * sizeof(int))); CK(cudaMalloc(&o_iw16, n * sizeof(int)));
    CK(cudaMalloc(&o_uw4, n * sizeof(int))); CK(cudaMalloc(&o_fx, n * sizeof(float)));
    CK(cudaMalloc(&o_dd, n * sizeof(double)));
    CK(cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(ddin, hd, sizeof(hd), cudaMemcpyHostToDevice));
    shuffles<<<2, 64>>>(din, ddin, o_red, o_xor, o_scan, o_bc, o_perm, o_dw8, o_iw16, o_uw4, o_fx, o_dd);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int red[n / 32], xr[n], scan[n], bc[n], perm[n], dw8[n], iw16[n], uw4[n]; float fx[n]; double dd[n];
    CK(cudaMemcpy(red, o_red, sizeof(red), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(xr, o_xor, sizeof(xr), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(scan, o_scan, sizeof(scan), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(bc, o_bc, sizeof(bc), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(perm, o_perm, sizeof(perm), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(dw8, o_dw8, sizeof(dw8), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(iw16, o_iw16, sizeof(iw16), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(uw4, o_uw4, sizeof(uw4), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(fx, o_fx, sizeof(fx), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(dd, o_dd, sizeof(dd), cudaMemcpyDeviceToHost));
    for (int w = 0; w < n / 32; ++w) {
        int base = w * 32, s = 0, m = -1000000;
        for (int l = 0; l < 32; ++l) { s += h[base + l]; m = h[base + l] > m ? h[base + l] : m; }
        EXPECT(red[w] == s, "shfl_down sum warp %d = %d expected %d", w, red[w], s);
        int acc = 0;
        for (int l = 0; l < 32; ++l) {
            int g = base + l;
            acc += h[g];
            EXPECT(xr[g] == m, "shfl_xor max [%d]=%d expected %d", g, xr[g], m);
            EXPECT(scan[g] == acc, "shfl_up scan [%d]=%d expected %d", g, scan[g], acc);
            EXPECT(bc[g] == h[base + w % 32], "shfl bcast [%d]=%d", g, bc[g]);
            EXPECT(perm[g] == h[base + (l * 7 + 3) % 32], "shfl perm [%d]=%d", g, perm[g]);
            int e8 = (l % 8 + 3 < 8) ? h[g + 3] : h[g];
            EXPECT(dw8[g] == e8, "shfl_down w8 [%d]=%d expected %d", g, dw8[g], e8);
            int e16 = h[base + (l / 16) * 16 + 5];
            EXPECT(iw16[g] == e16, "shfl idx w16 [%d]=%d expected %d", g, iw16[g], e16);
            int e4 = (l % 4 >= 1) ? h[g - 1] : h[g];
            EXPECT(uw4[g] == e4, "shfl_up w4 [%d]=%d expected %d", g, uw4[g], e4);
            float ef = h[base + (l ^ 5)] * 0.5f;
            EXPECT(fx[g] == ef, "shfl_xor float [%d]=%f expected %f", g, fx[g], ef);
            double edn = (l + 2 < 32) ? hd[g + 2] : hd[g];
            double eup = (l >= 1) ? hd[g - 1] : hd[g];
            EXPECT(dd[g] == edn + eup, "shfl double [%d]=%.17g expected %.17g", g, dd[g], edn + eup);
        }
    }
    cudaFree(din); cudaFree(ddin); cudaFree(o_red); cudaFree(o_xor); cudaFree(o_scan); cudaFree(o_bc);
    cudaFree(o_perm); cudaFree(o_dw8); cudaFree(o_iw16); cudaFree(o_uw4); cudaFree(o_fx); cudaFree(o_dd);
    return finish();
}

// ptxsim test kernel: shared_cas
// Self-checking: prints PASS shared_cas / FAIL shared_cas.
static const char* kName = "shared_cas";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Custom atomic operations built from atomicCAS loops on shared memory: float max
// (via int CAS on the bit pattern), double min (via 64-bit CAS), and a product
// modulo a prime (commutative and associative, so the result is order-independent).
#define P 1000003u

__device__ float atomic_max_float(float* addr, float val) {
    int* ia = (int*)addr;
    int old = *ia, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= val) break;
        old = atomicCAS(ia, assumed, __float_as_int(val));
    } while (old != assumed);
    return __int_as_float(old);
}

__device__ double atomic_min_double(double* addr, double val) {
    unsigned long long* ua = (unsigned long long*)addr;
    unsigned long long old = *ua, assumed;
    do {
        assumed = old;
        if (__longlong_as_double((long long)assumed) <= val) break;
        old = atomicCAS(ua, assumed, (unsigned long long)__double_as_longlong(val));
    } while (old != assumed);
    return __longlong_as_double((long long)old);
}

__device__ unsigned atomic_mulmod(unsigned* addr, unsigned val) {
    unsigned old = *addr, assumed;
    do {
        assumed = old;
        unsigned nv = (unsigned)(((unsigned long long)assumed * val) % P);
        old = atomicCAS(addr, assumed, nv);
    } while (old != assumed);
    return old;
}

__global__ void cas_kernel(const float* f, const double* d, const unsigned* u, float* fmax_out, double* dmin_out,
                           unsigned* prod_out, int n) {
    __shared__ float smax;
    __shared__ double smin;
    __shared__ unsigned sprod;
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    if (t == 0) { smax = -1e30f; smin = 1e300; sprod = 1u; }
    __syncthreads();
    if (i < n) {
        atomic_max_float(&smax, f[i]);
        atomic_min_double(&smin, d[i]);
        atomic_mulmod(&sprod, u[i]);
    }
    __syncthreads();
    if (t == 0) {
        fmax_out[blockIdx.x] = smax;
        dmin_out[blockIdx.x] = smin;
        prod_out[blockIdx.x] = sprod;
        // combine across blocks in global memory with the same helpers
        atomic_max_float(&fmax_out[gridDim.x], smax);
        atomic_min_double(&dmin_out[gridDim.x], smin);
        atomic_mulmod(&prod_out[gridDim.x], sprod);
    }
}

int main() {
    const int n = 1000, B = 256, G = (n + B - 1) / B;
    float hf[n]; double hd[n]; unsigned hu[n];
    for (int i = 0; i < n; ++i) {
        hf[i] = ((i * 7919) % 1009) * 0.01f - 5.0f;
        hd[i] = ((i * 104729) % 997) / 7.0 - 30.0;
        hu[i] = (unsigned)(i * 31 + 7) % P;
    }
    float *df, *dfo; double *dd, *ddo; unsigned *du, *duo;
    CK(cudaMalloc(&df, sizeof(hf))); CK(cudaMalloc(&dd, sizeof(hd))); CK(cudaMalloc(&du, sizeof(hu)));
    CK(cudaMalloc(&dfo, (G + 1) * 4)); CK(cudaMalloc(&ddo, (G + 1) * 8)); CK(cudaMalloc(&duo, (G + 1) * 4));
    CK(cudaMemcpy(df, hf, sizeof(hf), cudaMemcpyHostToDevice)); CK(cudaMemcpy(dd, hd, sizeof(hd), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(du, hu, sizeof(hu), cudaMemcpyHostToDevice));
    float finit[G + 1]; double dinit[G + 1]; unsigned uinit[G + 1];
    for (int k = 0; k <= G; ++k) { finit[k] = -1e30f; dinit[k] = 1e300; uinit[k] = 1u; }
    CK(cudaMemcpy(dfo, finit, sizeof(finit), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(ddo, dinit, sizeof(dinit), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(duo, uinit, sizeof(uinit), cudaMemcpyHostToDevice));
    cas_kernel<<<G, B>>>(df, dd, du, dfo, ddo, duo, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    float fo[G + 1]; double dout[G + 1]; unsigned uo[G + 1];
    CK(cudaMemcpy(fo, dfo, sizeof(fo), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(dout, ddo, sizeof(dout), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(uo, duo, sizeof(uo), cudaMemcpyDeviceToHost));
    float gmax = -1e30f; double gmin = 1e300; unsigned long long gprod = 1;
    for (int b = 0; b < G; ++b) {
        float m = -1e30f; double mn = 1e300; unsigned long long p = 1;
        for (int i = b * B; i < n && i < (b + 1) * B; ++i) {
            m = hf[i] > m ? hf[i] : m; mn = hd[i] < mn ? hd[i] : mn; p = p * hu[i] % P;
        }
        EXPECT(fo[b] == m, "block %d fmax %f expected %f", b, fo[b], m);
        EXPECT(dout[b] == mn, "block %d dmin %f expected %f", b, dout[b], mn);
        EXPECT(uo[b] == (unsigned)p, "block %d prod %u expected %llu", b, uo[b], p);
        gmax = m > gmax ? m : gmax; gmin = mn < gmin ? mn : gmin; gprod = gprod * p % P;
    }
    EXPECT(fo[G] == gmax, "global fmax %f expected %f", fo[G], gmax);
    EXPECT(dout[G] == gmin, "global dmin %f expected %f", dout[G], gmin);
    EXPECT(uo[G] == (unsigned)gprod, "global prod %u expected %llu", uo[G], gprod);
    cudaFree(df); cudaFree(dd); cudaFree(du); cudaFree(dfo); cudaFree(ddo); cudaFree(duo);
    return finish();
}

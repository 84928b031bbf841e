// ptxsim test kernel: redux
// Self-checking: prints PASS redux / FAIL redux.
static const char* kName = "redux";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Warp reduce intrinsics (__reduce_*_sync, sm_80+: redux.sync) with a shuffle
// fallback for older architectures so the file compiles everywhere.
#define FULL 0xffffffffu

__device__ unsigned r_add_u(unsigned v) {
#if __CUDA_ARCH__ >= 800
    return __reduce_add_sync(FULL, v);
#else
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
    return v;
#endif
}
__device__ int r_add_i(int v) {
#if __CUDA_ARCH__ >= 800
    return __reduce_add_sync(FULL, v);
#else
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL, v, o);
    return v;
#endif
}
__device__ int r_min_i(int v) {
#if __CUDA_ARCH__ >= 800
    return __reduce_min_sync(FULL, v);
#else
    for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(FULL, v, o));
    return v;
#endif
}
__device__ int r_max_i(int v) {
#if __CUDA_ARCH__ >= 800
    return __reduce_max_sync(FULL, v);
#else
    for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(FULL, v, o));
    return v;
#endif
}
__device__ unsigned r_min_u(unsigned v) {
#if __CUDA_ARCH__ >= 800
    return __reduce_min_sync(FULL, v);
#else
    for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(FULL, v, o));
    return v;
#endif
}
__device__ unsigned r_max_u(unsigned v) {
#if __CUDA_ARCH__ >= 800
    return __reduce_max_sync(FULL, v);
#else
    for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(FULL, v, o));
    return v;
#endif
}
__device__ unsigned r_and(unsigned v) {
#if __CUDA_ARCH__ >= 800
    return __reduce_and_sync(FULL, v);
#else
    for (int o = 16; o > 0; o >>= 1) v &= __shfl_xor_sync(FULL, v, o);
    return v;
#endif
}
__device__ unsigned r_or(unsigned v) {
#if __CUDA_ARCH__ >= 800
    return __reduce_or_sync(FULL, v);
#else
    for (int o = 16; o > 0; o >>= 1) v |= __shfl_xor_sync(FULL, v, o);
    return v;
#endif
}
__device__ unsigned r_xor(unsigned v) {
#if __CUDA_ARCH__ >= 800
    return __reduce_xor_sync(FULL, v);
#else
    for (int o = 16; o > 0; o >>= 1) v ^= __shfl_xor_sync(FULL, v, o);
    return v;
#endif
}

// partial-mask reduction: only lanes < 12 participate
__device__ unsigned r_add_partial(unsigned v) {
#if __CUDA_ARCH__ >= 800
    return __reduce_add_sync(0xfffu, v);
#else
    unsigned s = 0;
    for (int l = 0; l < 12; ++l) s += __shfl_sync(0xfffu, v, l);
    return s;
#endif
}

__global__ void redux_kernel(const int* in, int* out) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[gid];
    unsigned u = (unsigned)v * 2654435761u;
    int* o = out + gid * 10;
    o[0] = (int)r_add_u(u);
    o[1] = r_add_i(v);
    o[2] = r_min_i(v);
    o[3] = r_max_i(v);
    o[4] = (int)r_min_u(u);
    o[5] = (int)r_max_u(u);
    o[6] = (int)r_and(u | 0x10000001u);
    o[7] = (int)r_or(u & 0x0f0f0f0fu);
    o[8] = (int)r_xor(u);
    o[9] = ((threadIdx.x & 31) < 12) ? (int)r_add_partial(u) : -7;
}

int main() {
    const int n = 96;
    int h[n];
    for (int i = 0; i < n; ++i) h[i] = (i * 131 + 17) % 257 - 128;
    int *din, *dout;
    CK(cudaMalloc(&din, sizeof(h))); CK(cudaMalloc(&dout, n * 10 * sizeof(int)));
    CK(cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice));
    redux_kernel<<<1, n>>>(din, dout);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int out[n * 10];
    CK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
    for (int w = 0; w < n / 32; ++w) {
        unsigned eadd = 0, eminu = 0xffffffffu, emaxu = 0, eand = 0xffffffffu, eor = 0, exor = 0, epart = 0;
        int eaddi = 0, emin = 0x7fffffff, emax = -0x7fffffff - 1;
        for (int l = 0; l < 32; ++l) {
            int v = h[w * 32 + l];
            unsigned u = (unsigned)v * 2654435761u;
            eadd += u; eaddi += v;
            emin = v < emin ? v : emin; emax = v > emax ? v : emax;
            eminu = u < eminu ? u : eminu; emaxu = u > emaxu ? u : emaxu;
            eand &= (u | 0x10000001u); eor |= (u & 0x0f0f0f0fu); exor ^= u;
            if (l < 12) epart += u;
        }
        unsigned e[10] = {eadd, (unsigned)eaddi, (unsigned)emin, (unsigned)emax, eminu, emaxu, eand, eor, exor, epart};
        for (int l = 0; l < 32; ++l) {
            int g = w * 32 + l;
            for (int k = 0; k < 10; ++k) {
                unsigned ek = (k == 9 && l >= 12) ? (unsigned)-7 : e[k];
                EXPECT((unsigned)out[g * 10 + k] == ek, "redux op %d thread %d = %08x expected %08x", k, g, (unsigned)out[g * 10 + k], ek);
            }
        }
    }
    cudaFree(din); cudaFree(dout);
    return finish();
}

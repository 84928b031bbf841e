// ptxsim test kernel: templates
// Self-checking: prints PASS templates / FAIL templates.
#include <cmath>
static const char* kName = "templates";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Templated kernels instantiated for int, float and double: an elementwise
// kernel with a functor template parameter, and a block reduction with the block
// size as a non-type template parameter.

template <typename T> struct AxpB {
    T a, b;
    __host__ __device__ T operator()(T x) const { return a * x + b; }
};
template <typename T> struct Square {
    __host__ __device__ T operator()(T x) const { return x * x; }
};

template <typename T, typename F>
__global__ void transform(const T* in, T* out, int n, F f) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = f(in[i]);
}

template <typename T, int BS>
__global__ void block_reduce(const T* in, T* out, int n) {
    __shared__ T s[BS];
    int i = blockIdx.x * BS + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : T(0);
    __syncthreads();
#pragma unroll
    for (int off = BS / 2; off > 0; off >>= 1) {
        if (threadIdx.x < off) s[threadIdx.x] += s[threadIdx.x + off];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

template <typename T>
static int run(const char* tname, T a, T b, double tol) {
    const int n = 700, BS = 128, nb = (n + BS - 1) / BS;
    T h[n], o1[n], o2[n], part[nb];
    for (int i = 0; i < n; ++i) h[i] = (T)((i % 23) - 11) / (T)2;  // exact in all types (int: integer division)
    T *din, *dout, *dpart;
    CK(cudaMalloc(&din, sizeof(h))); CK(cudaMalloc(&dout, sizeof(h))); CK(cudaMalloc(&dpart, sizeof(part)));
    CK(cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice));
    transform<<<(n + 127) / 128, 128>>>(din, dout, n, AxpB<T>{a, b});
    CK(cudaGetLastError());
    CK(cudaMemcpy(o1, dout, sizeof(o1), cudaMemcpyDeviceToHost));
    transform<<<(n + 63) / 64, 64>>>(din, dout, n, Square<T>());
    CK(cudaGetLastError());
    CK(cudaMemcpy(o2, dout, sizeof(o2), cudaMemcpyDeviceToHost));
    block_reduce<T, BS><<<nb, BS>>>(din, dpart, n);
    CK(cudaGetLastError());
    CK(cudaMemcpy(part, dpart, sizeof(part), cudaMemcpyDeviceToHost));
    int bad0 = g_bad;
    for (int i = 0; i < n; ++i) {
        T e1 = a * h[i] + b, e2 = h[i] * h[i];
        EXPECT(std::fabs((double)o1[i] - (double)e1) <= tol, "%s axpb[%d]=%g expected %g", tname, i, (double)o1[i], (double)e1);
        EXPECT(std::fabs((double)o2[i] - (double)e2) <= tol, "%s square[%d]=%g expected %g", tname, i, (double)o2[i], (double)e2);
    }
    for (int k = 0; k < nb; ++k) {
        T e = 0;
        for (int i = k * BS; i < n && i < (k + 1) * BS; ++i) e += h[i];
        EXPECT(std::fabs((double)part[k] - (double)e) <= tol, "%s reduce[%d]=%g expected %g", tname, k, (double)part[k], (double)e);
    }
    cudaFree(din); cudaFree(dout); cudaFree(dpart);
    return g_bad - bad0;
}

int main() {
    run<int>("int", 3, -7, 0.0);
    run<float>("float", 1.5f, 0.25f, 1e-5);
    run<double>("double", -2.5, 0.125, 1e-12);
    return finish();
}

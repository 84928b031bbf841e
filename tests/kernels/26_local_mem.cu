// ptxsim test kernel: local_mem
// Self-checking: prints PASS local_mem / FAIL local_mem.
static const char* kName = "local_mem";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Local memory: per-thread arrays indexed with data-dependent (dynamic) indices,
// an array of structs, and a local array passed by pointer to a noinline function.

struct Pair { int key; float val; };

__device__ __noinline__ int sum_local(const int* a, int n) {
    int s = 0;
    for (int k = 0; k < n; ++k) s += a[k] * (k + 1);
    return s;
}

__global__ void local_kernel(const int* in, int* out, float* fout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int buf[64];
    for (int k = 0; k < 64; ++k) buf[k] = (k * 13 + i) % 64;
    // pointer chasing through the local array: indices depend on data
    int idx = in[i] & 63, acc = 0;
    for (int step = 0; step < 20; ++step) { acc += buf[idx]; idx = buf[idx]; }
    // permute in place with data-dependent swaps
    for (int k = 0; k < 64; ++k) { int j = (buf[k] + in[i]) & 63; int t = buf[k]; buf[k] = buf[j]; buf[j] = t; }
    Pair pairs[16];
    for (int k = 0; k < 16; ++k) { pairs[k].key = buf[(k * 5 + i) & 63]; pairs[k].val = k * 0.5f; }
    int sel = in[i] % 16;
    float fv = pairs[sel].val + pairs[(sel * 3) & 15].val;
    out[i * 3 + 0] = acc;
    out[i * 3 + 1] = sum_local(buf, 10 + (in[i] & 31));
    out[i * 3 + 2] = pairs[sel].key;
    fout[i] = fv;
}

int main() {
    const int n = 96;
    int h[n];
    for (int i = 0; i < n; ++i) h[i] = (i * 29 + 3) % 200;
    int *din, *dout; float* dfout;
    CK(cudaMalloc(&din, sizeof(h))); CK(cudaMalloc(&dout, 3 * sizeof(h))); CK(cudaMalloc(&dfout, n * sizeof(float)));
    CK(cudaMemcpy(din, h, sizeof(h), cudaMemcpyHostToDevice));
    local_kernel<<<3, 32>>>(din, dout, dfout, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int out[3 * n]; float fo[n];
    CK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(fo, dfout, sizeof(fo), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        int buf[64];
        for (int k = 0; k < 64; ++k) buf[k] = (k * 13 + i) % 64;
        int idx = h[i] & 63, acc = 0;
        for (int step = 0; step < 20; ++step) { acc += buf[idx]; idx = buf[idx]; }
        for (int k = 0; k < 64; ++k) { int j = (buf[k] + h[i]) & 63; int t = buf[k]; buf[k] = buf[j]; buf[j] = t; }
        int keys[16]; float vals[16];
        for (int k = 0; k < 16; ++k) { keys[k] = buf[(k * 5 + i) & 63]; vals[k] = k * 0.5f; }
        int sel = h[i] % 16;
        int s = 0; for (int k = 0; k < 10 + (h[i] & 31); ++k) s += buf[k] * (k + 1);
        EXPECT(out[i * 3] == acc, "acc[%d]=%d expected %d", i, out[i * 3], acc);
        EXPECT(out[i * 3 + 1] == s, "sum_local[%d]=%d expected %d", i, out[i * 3 + 1], s);
        EXPECT(out[i * 3 + 2] == keys[sel], "key[%d]=%d expected %d", i, out[i * 3 + 2], keys[sel]);
        EXPECT(fo[i] == vals[sel] + vals[(sel * 3) & 15], "fval[%d]", i);
    }
    cudaFree(din); cudaFree(dout); cudaFree(dfout);
    return finish();
}

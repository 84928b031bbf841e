// ptxsim test kernel: device_globals
// Self-checking: prints PASS device_globals / FAIL device_globals.
static const char* kName = "device_globals";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// __device__ global variables with initializers: scalars, arrays, a struct, a
// string, pointers initialised to other __device__ objects (and a pointer to a
// pointer), cudaMemcpyFromSymbol / cudaMemcpyToSymbol / cudaGetSymbolAddress.

struct Cfg { int a; float b; const int* p; };

__device__ int g_arr[8] = {1, 2, 3, 5, 8, 13, 21, 34};
__device__ int* g_ptr = g_arr;
__device__ int* g_ptr3 = &g_arr[3];
__device__ int** g_pp = &g_ptr;
__device__ const char g_str[] = "ptxsim";
__device__ float g_f = 1.5f;
__device__ double g_d = -2.25;
__device__ long long g_ll = 0x123456789abcLL;
__device__ Cfg g_cfg = {7, 0.5f, g_arr + 6};
__device__ unsigned g_counter;  // zero-initialised
__device__ int g_out[8];
__device__ short g_shorts[5] = {-1, 2, -3, 4, -5};

__global__ void use_globals(int* res) {
    int t = threadIdx.x;
    if (t < 8) {
        g_out[t] = g_ptr[t] * 2 + (*g_pp)[7 - t] + g_shorts[t % 5];
        atomicAdd(&g_counter, (unsigned)g_arr[t]);
    }
    if (t == 0) {
        res[0] = *g_ptr3;
        res[1] = g_cfg.a + *g_cfg.p;
        res[2] = (int)(g_f * 4.0f);
        res[3] = (int)(g_d * 4.0);
        res[4] = (int)(g_ll >> 16);
        int len = 0; while (g_str[len]) len++;
        res[5] = len * 1000 + g_str[0] + g_str[len - 1];
        res[6] = (int)(g_cfg.b * 10.0f);
        res[7] = (int)(g_ptr3 - g_ptr);
    }
}

__global__ void modify_through_pointer(int* p, int n) {
    int t = threadIdx.x;
    if (t < n) p[t] += 100;  // p is the address of g_arr obtained on the host
}

__global__ void read_arr(int* out) { out[threadIdx.x] = g_arr[threadIdx.x] + (int)g_f; }

int main() {
    int* dres;
    CK(cudaMalloc(&dres, 8 * sizeof(int)));
    use_globals<<<1, 32>>>(dres);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int res[8], out[8]; unsigned cnt;
    CK(cudaMemcpy(res, dres, sizeof(res), cudaMemcpyDeviceToHost));
    CK(cudaMemcpyFromSymbol(out, g_out, sizeof(out)));
    CK(cudaMemcpyFromSymbol(&cnt, g_counter, sizeof(cnt)));
    const int arr[8] = {1, 2, 3, 5, 8, 13, 21, 34};
    const short sh[5] = {-1, 2, -3, 4, -5};
    for (int t = 0; t < 8; ++t) EXPECT(out[t] == arr[t] * 2 + arr[7 - t] + sh[t % 5], "g_out[%d]=%d", t, out[t]);
    EXPECT(cnt == 87u, "g_counter=%u expected 87", cnt);
    int eres[8] = {5, 7 + 21, 6, -9, (int)(0x123456789abcLL >> 16), 6 * 1000 + 'p' + 'm', 5, 3};
    for (int k = 0; k < 8; ++k) EXPECT(res[k] == eres[k], "res[%d]=%d expected %d", k, res[k], eres[k]);
    // host writes a new float, modifies g_arr through its symbol address
    float nf = 3.0f;
    CK(cudaMemcpyToSymbol(g_f, &nf, sizeof(nf)));
    int* parr;
    CK(cudaGetSymbolAddress((void**)&parr, g_arr));
    modify_through_pointer<<<1, 8>>>(parr, 8);
    CK(cudaGetLastError());
    int* dout2;
    CK(cudaMalloc(&dout2, 8 * sizeof(int)));
    read_arr<<<1, 8>>>(dout2);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int o2[8];
    CK(cudaMemcpy(o2, dout2, sizeof(o2), cudaMemcpyDeviceToHost));
    for (int t = 0; t < 8; ++t) EXPECT(o2[t] == arr[t] + 100 + 3, "after modify [%d]=%d", t, o2[t]);
    // the device pointer variable must hold the same address as cudaGetSymbolAddress reports
    int* gp;
    CK(cudaMemcpyFromSymbol(&gp, g_ptr, sizeof(gp)));
    EXPECT(gp == parr, "g_ptr %p != symbol address %p", (void*)gp, (void*)parr);
    cudaFree(dres); cudaFree(dout2);
    return finish();
}

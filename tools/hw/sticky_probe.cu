// Prints, call by call, what the CUDA runtime returns after a kernel fault (an illegal address):
// which calls report the sticky error, whether cudaGetLastError/cudaPeekAtLastError clear it, and
// whether cudaDeviceReset recovers. Built with -cudart shared and with the static runtime, run on a
// real GPU, it is the ground truth for ptxsim's tests/e2e/api_sticky_fault.cu.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void store(int *p, int v) { p[threadIdx.x] = v; }

static void show(const char *what, cudaError_t e) { std::printf("%-28s %s\n", what, cudaGetErrorName(e)); }

int main() {
    store<<<1, 32>>>((int *)0x10, 1);
    show("launch (GetLastError)", cudaGetLastError());
    show("cudaDeviceSynchronize", cudaDeviceSynchronize());
    int *d = nullptr;
    show("cudaMalloc", cudaMalloc(&d, 64));
    show("cudaPeekAtLastError", cudaPeekAtLastError());
    show("cudaGetLastError #1", cudaGetLastError());
    show("cudaGetLastError #2", cudaGetLastError());
    show("cudaPeekAtLastError", cudaPeekAtLastError());
    show("cudaDeviceSynchronize", cudaDeviceSynchronize());
    show("cudaGetLastError #3", cudaGetLastError());
    show("cudaMemset", cudaMemset(d, 0, 64));
    show("cudaGetLastError #4", cudaGetLastError());
    show("cudaDeviceReset", cudaDeviceReset());
    show("cudaGetLastError #5", cudaGetLastError());
    show("cudaMalloc", cudaMalloc(&d, 128));
    store<<<1, 32>>>(d, 42);
    show("launch (GetLastError)", cudaGetLastError());
    show("cudaDeviceSynchronize", cudaDeviceSynchronize());
    return 0;
}

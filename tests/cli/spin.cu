// ptxsim-specific (it never ends on a GPU): a kernel whose warps spin on a flag nobody sets.
// Run with a kernel timeout (`ptxsim run --kernel-timeout`, PTXSIM_KERNEL_TIMEOUT), the launch
// must fail with cudaErrorLaunchTimeout, a sticky error (the next calls return it too); the
// tests also read the timeout's report of where the warps were. Without a timeout it runs until
// a signal stops it (the launcher's signal tests).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void spin(volatile int *flag, int *out) {
    int n = 0;
    while (*flag == 0)  // the spin loop the timeout report names
        ++n;
    out[blockIdx.x * blockDim.x + threadIdx.x] = n;
}

int main() {
    int *flag, *out;
    if (cudaMalloc(&flag, sizeof(int)) || cudaMalloc(&out, 4 * 64 * sizeof(int)) ||
        cudaMemset(flag, 0, sizeof(int))) {
        printf("set-up failed\n");
        return 1;
    }
    printf("launching\n");
    fflush(stdout);
    spin<<<4, 64>>>(flag, out);
    cudaError_t launch = cudaGetLastError();
    cudaError_t sync = cudaDeviceSynchronize();
    void *p = nullptr;
    cudaError_t after = cudaMalloc(&p, 16);
    printf("launch %s sync %s after %s\n", cudaGetErrorName(launch), cudaGetErrorName(sync),
           cudaGetErrorName(after));
    return sync == cudaErrorLaunchTimeout && after == cudaErrorLaunchTimeout ? 0 : 1;
}

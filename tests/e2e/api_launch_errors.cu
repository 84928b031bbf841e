// ptxsim e2e: launch configuration errors are reported like CUDA 13 on an H100 (every invalid
// configuration is cudaErrorInvalidValue, not cudaErrorInvalidConfiguration; non-sticky, via
// cudaGetLastError after <<<>>>; a host function is an invalid handle), and a correct launch
// afterwards still works.
static const char *kName = "api_launch_errors";
#include "../kernels/test_common.h"

__global__ void fill(int *out, int n, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = v + i;
}

#define EXPECT_ERR(call, want) do { cudaError_t e_ = (call); \
    EXPECT(e_ == (want), "%s returned %s, expected %s", #call, cudaGetErrorName(e_), #want); } while (0)

int main() {
    const int n = 300;
    int *d = nullptr;
    CK(cudaMalloc(&d, n * sizeof(int)));
    EXPECT_ERR(cudaGetLastError(), cudaSuccess);

    fill<<<1, 2048>>>(d, n, 1); // more than 1024 threads per block
    EXPECT_ERR(cudaPeekAtLastError(), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess); // cleared by the read

    fill<<<1, dim3(1, 1, 65)>>>(d, n, 1); // block z limit is 64
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
    fill<<<dim3(1, 70000), 32>>>(d, n, 1); // grid y limit is 65535
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
    fill<<<0, 32>>>(d, n, 1);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
    fill<<<1, 32, 1 << 20>>>(d, n, 1); // 1 MiB of dynamic shared memory
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);

    void *args[] = {&d, (void *)&n, (void *)&n};
    EXPECT_ERR(cudaLaunchKernel((const void *)fill, dim3(1), dim3(33, 32), args, 0, 0),
               cudaErrorInvalidValue);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidValue);
    // CUDA 13 takes a pointer that is no registered kernel for a cudaKernel_t handle, which the
    // driver refuses (an H100 says cudaErrorInvalidResourceHandle)
    EXPECT_ERR(cudaLaunchKernel((const void *)main, dim3(1), dim3(1), args, 0, 0),
               cudaErrorInvalidResourceHandle);
    EXPECT_ERR(cudaGetLastError(), cudaErrorInvalidResourceHandle);

    // The errors above are not sticky: the device still works.
    fill<<<(n + 127) / 128, 128>>>(d, n, 7);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int h[n];
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT(h[i] == 7 + i, "h[%d]=%d", i, h[i]);
    CK(cudaFree(d));
    return finish();
}

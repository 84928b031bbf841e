// ptxsim e2e: a kernel fault is sticky like on hardware: the next synchronising call and every
// call after it return the error, until cudaDeviceReset gives a fresh, working context. The
// error-by-error sequence is what an H100 returns, with the shared and with the static runtime
// (tools/hw/sticky_probe.cu, tools/hw/data/h100-2026-11-26/sticky_probe.txt): the launch itself
// reports nothing, and cudaGetLastError returns the sticky error once and then clears it (the
// calls that fail afterwards set it again).
static const char *kName = "api_sticky_fault";
#include "../kernels/test_common.h"

__global__ void store(int *p, int v) { p[threadIdx.x] = v; }

#define EXPECT_ERR(call, want) do { cudaError_t e_ = (call); \
    EXPECT(e_ == (want), "%s returned %s, expected %s", #call, cudaGetErrorName(e_), #want); } while (0)

int main() {
    int *bogus = (int *)0x10; // no allocation there
    store<<<1, 32>>>(bogus, 1);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess); // the fault is asynchronous
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    int *d = nullptr;
    EXPECT_ERR(cudaMalloc(&d, 64), cudaErrorIllegalAddress); // sticky
    EXPECT_ERR(cudaPeekAtLastError(), cudaErrorIllegalAddress);
    EXPECT_ERR(cudaGetLastError(), cudaErrorIllegalAddress);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess); // reading it clears the last error ...
    EXPECT_ERR(cudaPeekAtLastError(), cudaSuccess);
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress); // ... not the context's fault
    EXPECT_ERR(cudaGetLastError(), cudaErrorIllegalAddress);
    EXPECT_ERR(cudaMemset(d, 0, 64), cudaErrorIllegalAddress);
    EXPECT_ERR(cudaGetLastError(), cudaErrorIllegalAddress);

    CK(cudaDeviceReset());
    CK(cudaMalloc(&d, 32 * sizeof(int)));
    store<<<1, 32>>>(d, 42);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int h[32];
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 32; ++i) EXPECT(h[i] == 42, "h[%d]=%d", i, h[i]);
    CK(cudaFree(d));
    return finish();
}

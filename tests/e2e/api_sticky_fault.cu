// ptxsim e2e: a kernel fault is sticky like on hardware: the next synchronising call and every
// call after it return the error. The last error only records failed calls: it is cudaSuccess
// right after the faulting launch (the fault comes later on a GPU), and cudaGetLastError clears it
// while the device stays faulted. cudaDeviceReset does not recover a faulted device: later calls
// return cudaErrorDevicesUnavailable (CUDA: "the process must be terminated and relaunched"). This
// is the sequence a real H100 and H200 give (tools/hw/data/h100-2026-11-26/sticky_probe.txt).
static const char *kName = "api_sticky_fault";
#include "../kernels/test_common.h"

__global__ void store(int *p, int v) { p[threadIdx.x] = v; }

#define EXPECT_ERR(call, want) do { cudaError_t e_ = (call); \
    EXPECT(e_ == (want), "%s returned %s, expected %s", #call, cudaGetErrorName(e_), #want); } while (0)

int main() {
    int *bogus = (int *)0x10; // no allocation there
    store<<<1, 32>>>(bogus, 1);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess); // the launch itself succeeded
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    int *d = nullptr;
    EXPECT_ERR(cudaMalloc(&d, 64), cudaErrorIllegalAddress); // sticky
    EXPECT_ERR(cudaPeekAtLastError(), cudaErrorIllegalAddress);
    EXPECT_ERR(cudaGetLastError(), cudaErrorIllegalAddress);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess); // reading it clears the last error...
    EXPECT_ERR(cudaPeekAtLastError(), cudaSuccess);
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress); // ...not the fault
    EXPECT_ERR(cudaGetLastError(), cudaErrorIllegalAddress);
    EXPECT_ERR(cudaMemset(d, 0, 64), cudaErrorIllegalAddress);

    CK(cudaDeviceReset());
    // The reset leaves the thread's last error (the failed memset)...
    EXPECT_ERR(cudaGetLastError(), cudaErrorIllegalAddress);
    EXPECT_ERR(cudaGetLastError(), cudaSuccess);
    // ...and does not bring the faulted device back: CUDA work needs a new process.
    EXPECT_ERR(cudaMalloc(&d, 32 * sizeof(int)), cudaErrorDevicesUnavailable);
    store<<<1, 32>>>(d, 42);
    EXPECT_ERR(cudaGetLastError(), cudaErrorDevicesUnavailable);
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorDevicesUnavailable);
    return finish();
}

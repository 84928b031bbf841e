// ptxsim e2e: device queries, function attributes, occupancy, limits, managed memory and
// cooperative launch checks agree with each other and with CUDA's documented limits.
static const char *kName = "api_device_queries";
#include "../kernels/test_common.h"

__global__ void __launch_bounds__(128) bump(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += i;
}

#define EXPECT_ERR(call, want) do { cudaError_t e_ = (call); \
    EXPECT(e_ == (want), "%s returned %s, expected %s", #call, cudaGetErrorName(e_), #want); } while (0)

int main() {
    int count = 0, dev = -1, v = 0;
    CK(cudaGetDeviceCount(&count));
    EXPECT(count == 1, "device count %d", count);
    CK(cudaSetDevice(0));
    EXPECT_ERR(cudaSetDevice(1), cudaErrorInvalidDevice);
    CK(cudaGetDevice(&dev));
    EXPECT(dev == 0, "device %d", dev);
    CK(cudaRuntimeGetVersion(&v));
    EXPECT(v == CUDART_VERSION, "runtime version %d", v);

    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    EXPECT(prop.warpSize == 32 && prop.maxThreadsPerBlock == 1024 && prop.maxThreadsDim[2] == 64,
           "props %d %d %d", prop.warpSize, prop.maxThreadsPerBlock, prop.maxThreadsDim[2]);
    CK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
    EXPECT(v == prop.multiProcessorCount && v > 0, "SMs %d vs %d", v, prop.multiProcessorCount);
    CK(cudaDeviceGetAttribute(&v, cudaDevAttrCooperativeLaunch, 0));
    EXPECT(v == 1, "cooperative launch %d", v);
    CK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0));
    EXPECT(v == prop.major, "major %d vs %d", v, prop.major);

    size_t freeB = 0, totalB = 0, lim = 0;
    CK(cudaMemGetInfo(&freeB, &totalB));
    EXPECT(freeB > 0 && freeB <= totalB, "mem info %zu %zu", freeB, totalB);
    CK(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
    CK(cudaDeviceGetLimit(&lim, cudaLimitStackSize));
    EXPECT(lim == 4096, "stack limit %zu", lim);

    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, bump));
    EXPECT(fa.maxThreadsPerBlock == 128, "launch bounds -> maxThreadsPerBlock %d", fa.maxThreadsPerBlock);
    int perSm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, bump, 128, 0));
    EXPECT(perSm >= 1 && perSm <= 32, "occupancy %d", perSm);
    EXPECT_ERR(cudaFuncGetAttributes(&fa, (const void *)main), cudaErrorInvalidResourceHandle); // as on an H100

    const int n = 1000;
    int *m = nullptr;
    CK(cudaMallocManaged(&m, n * sizeof(int)));
    cudaPointerAttributes pa;
    CK(cudaPointerGetAttributes(&pa, m));
    EXPECT(pa.type == cudaMemoryTypeManaged, "managed pointer type %d", (int)pa.type);
    for (int i = 0; i < n; ++i) m[i] = 3 * i;
    int nn = n;
    void *args[] = {&m, &nn};
    dim3 tooMany(perSm * prop.multiProcessorCount + 1);
    EXPECT_ERR(cudaLaunchCooperativeKernel((const void *)bump, tooMany, dim3(128), args, 0, 0),
               cudaErrorCooperativeLaunchTooLarge);
    CK(cudaLaunchCooperativeKernel((const void *)bump, dim3((n + 127) / 128), dim3(128), args, 0, 0));
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < n; ++i) EXPECT(m[i] == 4 * i, "m[%d]=%d", i, m[i]);
    CK(cudaFree(m));
    return finish();
}

// Runtime answers an H200 gave (CUDA 13.0, driver 580) where ptxsim answered otherwise until
// 2026-11-30 (tools/hw/probes: runtime_limits_s28, occupancy_pitch_limits, graph_userobj_refs,
// tex_mipmap_levels, api_funcptr_errors, errcodes_s5; the output of occupancy_pitch_limits is
// quoted in the commit that added this program):
//   - cudaEventElapsedTime of a record not yet reached: cudaErrorNotReady, not the last error
//   - cudaMallocPitch / cudaMalloc3D: an empty extent is cudaSuccess with pitch 0 and no memory;
//     pitch * height (* depth) wraps in 64 bits: to 0 is cudaErrorInvalidValue, to anything else
//     cudaErrorMemoryAllocation; the pitch is written even when the allocation fails
//   - cudaOccupancyAvailableDynamicSMemPerBlock (CUDA's occupancy calculator) and
//     cudaFuncSetSharedMemConfig
//   - cudaUserObjectRelease of an object already destroyed: cudaSuccess
//   - cudaFreeMipmappedArray of a freed array: cudaErrorContextIsDestroyed
//   - driver virtual-memory calls after the runtime started the device, without cuInit: work
//     (reached through cudaGetDriverEntryPointByVersion: the program does not link libcuda)
// Runtime-API only (the driver-API build's runtime is tests/driver/cudart_on_driver.cpp).
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <cuda.h>
static const char *kName = "h200_api_answers";
#include "../kernels/test_common.h"

__global__ void waitFlag(volatile int *flag) {
    while (*flag == 0) {
    }
}
__global__ void plain(float *p) {
    extern __shared__ float d[];
    d[threadIdx.x] = 1;
    p[threadIdx.x] = d[threadIdx.x ^ 1];
}
__global__ void withStatic(float *p) {
    __shared__ float s[1000]; // 4000 bytes
    extern __shared__ float d[];
    s[threadIdx.x % 1000] = 1;
    d[threadIdx.x] = 2;
    __syncthreads();
    p[threadIdx.x] = s[(threadIdx.x + 1) % 1000] + d[threadIdx.x ^ 1];
}

static std::atomic<int> g_destroyed{0};
static void onDestroy(void *p) { g_destroyed += *(int *)p; }

static size_t avail(const void *f, int numBlocks, int blockSize, cudaError_t want = cudaSuccess) {
    size_t dyn = 12345;
    cudaError_t e = cudaOccupancyAvailableDynamicSMemPerBlock(&dyn, f, numBlocks, blockSize);
    EXPECT(e == want, "cudaOccupancyAvailableDynamicSMemPerBlock(%d blocks of %d): %s, want %s", numBlocks,
           blockSize, cudaGetErrorName(e), cudaGetErrorName(want));
    cudaGetLastError();
    return e == cudaSuccess ? dyn : 0;
}

int main() {
    CK(cudaFree(0));

    // ---- cudaEventElapsedTime while the kernel before the second record waits ---------------
    {
        int *flag = nullptr;
        CK(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped));
        *flag = 0;
        cudaStream_t s;
        cudaEvent_t a, b;
        CK(cudaStreamCreate(&s));
        CK(cudaEventCreate(&a));
        CK(cudaEventCreate(&b));
        CK(cudaEventRecord(a, s));
        waitFlag<<<1, 1, 0, s>>>(flag);
        CK(cudaEventRecord(b, s));
        float ms = 0;
        cudaError_t e = cudaEventElapsedTime(&ms, a, b);
        EXPECT(e == cudaErrorNotReady, "cudaEventElapsedTime before the record: %s", cudaGetErrorName(e));
        cudaError_t last = cudaGetLastError();
        EXPECT(last == cudaSuccess, "last error after cudaErrorNotReady: %s, an H200 keeps cudaSuccess",
               cudaGetErrorName(last));
        __atomic_store_n(flag, 1, __ATOMIC_SEQ_CST);
        CK(cudaStreamSynchronize(s));
        CK(cudaEventElapsedTime(&ms, a, b));
        CK(cudaEventDestroy(a));
        CK(cudaEventDestroy(b));
        CK(cudaStreamDestroy(s));
        CK(cudaFreeHost(flag));
    }

    // ---- pitched allocations ---------------------------------------------------------------
    {
        struct Case { size_t w, h; cudaError_t e; size_t pitch; bool mem; } cases[] = {
            {0, 5, cudaSuccess, 0, false},
            {SIZE_MAX, 0, cudaSuccess, 0, false},
            {SIZE_MAX, 1, cudaErrorInvalidValue, 0, false},          // the rounding wraps to 0
            {(size_t)1 << 40, (size_t)1 << 40, cudaErrorInvalidValue, (size_t)1 << 40, false}, // 2^80 wraps to 0
            {1024, SIZE_MAX, cudaErrorMemoryAllocation, 1024, false}, // wraps to 2^64 - 1024
            {1024, (size_t)1 << 40, cudaErrorMemoryAllocation, 1024, false},
            {1000, 3, cudaSuccess, 1024, true},
        };
        for (const Case &c : cases) {
            void *p = (void *)0x1;
            size_t pitch = 777;
            cudaError_t e = cudaMallocPitch(&p, &pitch, c.w, c.h);
            EXPECT(e == c.e && pitch == c.pitch, "cudaMallocPitch(%zu, %zu): %s pitch %zu, want %s pitch %zu", c.w,
                   c.h, cudaGetErrorName(e), pitch, cudaGetErrorName(c.e), c.pitch);
            EXPECT(e != cudaSuccess || (p != nullptr) == c.mem, "cudaMallocPitch(%zu, %zu): pointer %p", c.w, c.h, p);
            cudaGetLastError();
            if (e == cudaSuccess && p)
                CK(cudaFree(p));
        }
        struct Case3 { size_t w, h, d; cudaError_t e; size_t pitch; } cases3[] = {
            {0, 4, 4, cudaSuccess, 0},
            {16, 4, 0, cudaSuccess, 0},
            {(size_t)1 << 30, (size_t)1 << 30, (size_t)1 << 30, cudaErrorInvalidValue, (size_t)1 << 30},
            {1024, (size_t)1 << 30, (size_t)1 << 30, cudaErrorInvalidValue, 1024},
            {1024, (size_t)1 << 20, (size_t)1 << 20, cudaErrorMemoryAllocation, 1024},
            {SIZE_MAX, 1, 1, cudaErrorInvalidValue, 0},
            {100, 2, 3, cudaSuccess, 512},
        };
        for (const Case3 &c : cases3) {
            cudaPitchedPtr pp = {(void *)0x1, 777, 777, 777};
            cudaError_t e = cudaMalloc3D(&pp, make_cudaExtent(c.w, c.h, c.d));
            EXPECT(e == c.e && pp.pitch == c.pitch, "cudaMalloc3D(%zu, %zu, %zu): %s pitch %zu, want %s pitch %zu", c.w,
                   c.h, c.d, cudaGetErrorName(e), pp.pitch, cudaGetErrorName(c.e), c.pitch);
            if (e != cudaSuccess)
                EXPECT(pp.ptr == nullptr && pp.xsize == 777 && pp.ysize == 777,
                       "failed cudaMalloc3D(%zu, %zu, %zu): ptr %p xsize %zu ysize %zu", c.w, c.h, c.d, pp.ptr,
                       pp.xsize, pp.ysize);
            else
                EXPECT((pp.ptr != nullptr) == (c.pitch != 0) && pp.xsize == c.w && pp.ysize == c.h,
                       "cudaMalloc3D(%zu, %zu, %zu): ptr %p xsize %zu ysize %zu", c.w, c.h, c.d, pp.ptr, pp.xsize,
                       pp.ysize);
            cudaGetLastError();
            if (e == cudaSuccess && pp.ptr)
                CK(cudaFree(pp.ptr));
        }
    }

    // ---- occupancy: dynamic shared memory available per block --------------------------------
    {
        const void *f = (const void *)plain, *g = (const void *)withStatic;
        // one or two blocks: the per-block limit (48 KiB less the static part)
        EXPECT(avail(f, 1, 128) == 49152 && avail(f, 2, 128) == 49152, "plain, 1-2 blocks");
        EXPECT(avail(g, 1, 128) == 45152, "static 4000, 1 block");
        // more: the SM's 228 KiB shared by the blocks, in 128-byte units, less the static part
        EXPECT(avail(f, 5, 128) == 46592 && avail(f, 8, 128) == 29184 && avail(f, 16, 128) == 14592,
               "plain, 5/8/16 blocks: %zu %zu %zu", avail(f, 5, 128), avail(f, 8, 128), avail(f, 16, 128));
        EXPECT(avail(g, 7, 32) == 29280 && avail(g, 32, 32) == 3296, "static 4000, 7/32 blocks: %zu %zu",
               avail(g, 7, 32), avail(g, 32, 32));
        // blocks that do not fit on an SM, no blocks, a block larger than a kernel may have
        avail(f, 17, 128, cudaErrorInvalidValue);
        avail(f, 3, 1024, cudaErrorInvalidValue);
        avail(f, 33, 32, cudaErrorInvalidValue);
        avail(f, 0, 128, cudaErrorInvalidValue);
        avail(f, 1, 0, cudaErrorInvalidValue);
        avail(f, 1, 2048, cudaErrorInvalidValue);
        // the opted-in limit: one block may use it all, more share the SM
        CK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000));
        EXPECT(avail(f, 1, 128) == 100000 && avail(f, 3, 128) == 77824 && avail(f, 4, 128) == 58368,
               "plain opted in to 100000: %zu %zu %zu", avail(f, 1, 128), avail(f, 3, 128), avail(f, 4, 128));
        CK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, 232448));
        EXPECT(avail(f, 1, 32) == 232448 && avail(f, 2, 32) == 116736, "plain opted in to 232448: %zu %zu",
               avail(f, 1, 32), avail(f, 2, 32));
        CK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, 1000));
        EXPECT(avail(f, 1, 32) == 1000 && avail(f, 16, 32) == 1000, "plain limited to 1000");
        // a 50 % carve-out is 132 KiB shared by several blocks
        CK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, 49152));
        CK(cudaFuncSetAttribute(f, cudaFuncAttributePreferredSharedMemoryCarveout, 50));
        EXPECT(avail(f, 1, 32) == 49152 && avail(f, 3, 32) == 45056 && avail(f, 5, 32) == 27008,
               "carve-out 50: %zu %zu %zu", avail(f, 1, 32), avail(f, 3, 32), avail(f, 5, 32));
        // the bank-size hint: the three settings are accepted, nothing else
        for (int c = 0; c <= 2; ++c)
            CK(cudaFuncSetSharedMemConfig(f, (cudaSharedMemConfig)c));
        EXPECT(cudaFuncSetSharedMemConfig(f, (cudaSharedMemConfig)3) == cudaErrorInvalidValue,
               "cudaFuncSetSharedMemConfig(3)");
        cudaGetLastError();
        EXPECT(cudaFuncSetSharedMemConfig(nullptr, cudaSharedMemBankSizeDefault) == cudaErrorInvalidDeviceFunction,
               "cudaFuncSetSharedMemConfig(nullptr)");
        cudaGetLastError();
    }

    // ---- a user object destroyed by a graph's release of references it never held -------------
    {
        static int w = 10000;
        cudaGraph_t g;
        CK(cudaGraphCreate(&g, 0));
        cudaUserObject_t c;
        CK(cudaUserObjectCreate(&c, &w, onDestroy, 1, cudaUserObjectNoDestructorSync));
        CK(cudaGraphReleaseUserObject(g, c, 1));
        for (int i = 0; i < 1000 && g_destroyed.load() != 10000; ++i)
            usleep(1000);
        EXPECT(g_destroyed.load() == 10000, "destroyed %d", g_destroyed.load());
        cudaError_t e = cudaUserObjectRelease(c, 1);
        EXPECT(e == cudaSuccess, "cudaUserObjectRelease of a destroyed object: %s, an H200 returns cudaSuccess",
               cudaGetErrorName(e));
        EXPECT(g_destroyed.load() == 10000, "destroyed %d after the release", g_destroyed.load());
        cudaGetLastError();
        CK(cudaGraphDestroy(g));
    }

    // ---- a mipmapped array freed twice -------------------------------------------------------
    {
        cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
        cudaMipmappedArray_t mm;
        CK(cudaMallocMipmappedArray(&mm, &cd, make_cudaExtent(16, 16, 0), 3));
        CK(cudaFreeMipmappedArray(mm));
        cudaError_t e = cudaFreeMipmappedArray(mm);
        EXPECT(e == cudaErrorContextIsDestroyed, "cudaFreeMipmappedArray again: %s, an H200 returns %s",
               cudaGetErrorName(e), cudaGetErrorName(cudaErrorContextIsDestroyed));
        cudaGetLastError();
    }

    // ---- driver virtual-memory calls after the runtime started the device, no cuInit ---------
    {
        CUmemAllocationProp prop;
        memset(&prop, 0, sizeof prop);
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = 0;
        // the driver's entry points, as the runtime hands them out
#define DRV(name, ...)                                                                                \
    CUresult (*name)(__VA_ARGS__) = nullptr;                                                          \
    {                                                                                                 \
        cudaDriverEntryPointQueryResult q_;                                                           \
        CK(cudaGetDriverEntryPointByVersion(#name, (void **)&name, 12000, cudaEnableDefault, &q_));  \
        EXPECT(name != nullptr, "no driver entry point %s", #name);                                  \
    }
        DRV(cuMemGetAllocationGranularity, size_t *, const CUmemAllocationProp *, CUmemAllocationGranularity_flags)
        DRV(cuMemCreate, CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long)
        DRV(cuMemAddressReserve, CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long)
        DRV(cuMemMap, CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long)
        DRV(cuMemSetAccess, CUdeviceptr, size_t, const CUmemAccessDesc *, size_t)
        DRV(cuMemsetD8, CUdeviceptr, unsigned char, size_t)
        DRV(cuMemUnmap, CUdeviceptr, size_t)
        DRV(cuMemRelease, CUmemGenericAllocationHandle)
        DRV(cuMemAddressFree, CUdeviceptr, size_t)
        if (!cuMemGetAllocationGranularity || !cuMemCreate || !cuMemAddressReserve || !cuMemMap || !cuMemSetAccess ||
            !cuMemsetD8 || !cuMemUnmap || !cuMemRelease || !cuMemAddressFree)
            return finish();
        size_t gran = 0;
        CUresult r = cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
        EXPECT(r == CUDA_SUCCESS && gran == 2 << 20, "cuMemGetAllocationGranularity: %d, granularity %zu", (int)r,
               gran);
        CUmemGenericAllocationHandle h;
        r = cuMemCreate(&h, 2 << 20, &prop, 0);
        EXPECT(r == CUDA_SUCCESS, "cuMemCreate without cuInit after cudaFree(0): %d", (int)r);
        CUdeviceptr va = 0;
        CUresult rv = cuMemAddressReserve(&va, 4 << 20, 0, 0, 0);
        EXPECT(rv == CUDA_SUCCESS && va, "cuMemAddressReserve: %d", (int)rv);
        if (r == CUDA_SUCCESS && rv == CUDA_SUCCESS) {
            CUmemAccessDesc ad;
            memset(&ad, 0, sizeof ad);
            ad.location = prop.location;
            ad.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            EXPECT(cuMemMap(va, 2 << 20, 0, h, 0) == CUDA_SUCCESS, "cuMemMap");
            EXPECT(cuMemSetAccess(va, 2 << 20, &ad, 1) == CUDA_SUCCESS, "cuMemSetAccess");
            EXPECT(cuMemsetD8(va, 1, 16) == CUDA_SUCCESS, "cuMemsetD8");
            EXPECT(cuMemUnmap(va, 2 << 20) == CUDA_SUCCESS, "cuMemUnmap");
            EXPECT(cuMemRelease(h) == CUDA_SUCCESS, "cuMemRelease");
            EXPECT(cuMemAddressFree(va, 4 << 20) == CUDA_SUCCESS, "cuMemAddressFree");
        }
    }
    return finish();
}

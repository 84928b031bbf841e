// ptxsim e2e: function attributes, limits, device flags, PCI bus ids and peer calls on the one
// simulated device (what api_all_attributes.cu does not cover).
//   - cudaFuncGetAttributes for kernels with known static shared, local and constant memory
//     use and __launch_bounds__; cudaFuncGetName
//   - cudaFuncSetAttribute: the opt-in dynamic shared memory limit (a launch above the default
//     48 KiB fails before the opt-in and works after it, values above the device limit are
//     refused), the preferred carveout (read back, out-of-range refused)
//   - cudaDeviceSetLimit/GetLimit round trips (stack, printf FIFO, malloc heap); with the heap
//     raised before any kernel allocates (as CUDA requires), a device malloc larger than the
//     default heap works and one larger than the new heap returns null
//   - cudaSetDeviceFlags/GetDeviceFlags (cudaDeviceMapHost always reported, bad flags refused)
//   - cudaProfilerStart/Stop, cudaDeviceGetPCIBusId and cudaDeviceGetByPCIBusId (both spellings,
//     malformed and unknown ids)
//   - peer calls with the device itself: cudaDeviceCanAccessPeer is 0, cudaDeviceEnablePeerAccess
//     and cudaDeviceGetP2PAttribute refuse it, cudaMemcpyPeer/cudaMemcpyPeerAsync copy, device 1
//     does not exist
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda_profiler_api.h>
static const char *kName = "device_attrs_funcattrs";
#include "../kernels/test_common.h"

__constant__ float c_table[300];  // 1200 bytes of user constant memory

__global__ void __launch_bounds__(256) staticUse(const int *idx, float *out) {
    __shared__ float tile[1000];   // 4000 bytes of static shared memory
    // loaded values read back at a run-time index: ptxas keeps the array in local memory (one
    // it can compute, like i * t, it folds away, and an H100 then reports no local memory)
    int local[256];
    int t = threadIdx.x;
    for (int i = 0; i < 256; ++i) local[i] = idx[(i * 5 + t) & 255] * t;
    tile[t] = c_table[t % 300];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = tile[(t + 1) % blockDim.x] + local[idx[t] & 255];
}

__global__ void dynamicUse(float *out, int n) {
    extern __shared__ float dyn[];
    int t = threadIdx.x;
    for (int i = t; i < n; i += blockDim.x) dyn[i] = (float)i;
    __syncthreads();
    float s = 0;
    for (int i = t; i < n; i += blockDim.x) s += dyn[n - 1 - i];
    out[t] = s;
}

__global__ void plain(int *p) { p[threadIdx.x] = threadIdx.x; }

__global__ void bigMalloc(size_t bytes, int *ok) {
    char *p = (char *)malloc(bytes);
    if (p) {
        p[0] = 1;
        p[bytes - 1] = 2;
        *ok = p[0] + p[bytes - 1];
        free(p);
    } else {
        *ok = -1;
    }
}

int main() {
    // ---- function attributes ---------------------------------------------------------------
    cudaFuncAttributes a;
    CK(cudaFuncGetAttributes(&a, staticUse));
    EXPECT(a.sharedSizeBytes == 4000, "static shared %zu, expected 4000", a.sharedSizeBytes);
    EXPECT(a.localSizeBytes >= 1024, "local %zu, expected at least 1024", a.localSizeBytes);
    EXPECT(a.constSizeBytes >= 1200, "constant %zu, expected at least 1200", a.constSizeBytes);
    EXPECT(a.maxThreadsPerBlock == 256, "launch bounds: maxThreadsPerBlock %d", a.maxThreadsPerBlock);
    EXPECT(a.numRegs > 0 && a.numRegs <= 255, "numRegs %d", a.numRegs);
    EXPECT(a.ptxVersion >= 75 && a.binaryVersion >= 75, "ptx %d binary %d", a.ptxVersion, a.binaryVersion);
    // The PTX version is the virtual architecture the program carries (what a GPU JIT-compiles
    // for a newer device), never newer than the device the binary runs on.
    EXPECT(a.ptxVersion <= a.binaryVersion, "ptx %d binary %d", a.ptxVersion, a.binaryVersion);
#if defined(__CUDA_ARCH_LIST__)
    int newest = 0;
    for (int arch : {__CUDA_ARCH_LIST__})
        newest = arch > newest ? arch : newest;
    EXPECT(a.ptxVersion * 10 <= newest, "ptx %d, newest compiled arch %d", a.ptxVersion, newest);
#endif
    EXPECT(a.maxDynamicSharedSizeBytes == 48 * 1024 - 4000, "default max dynamic shared %d", a.maxDynamicSharedSizeBytes);
    cudaFuncAttributes p;
    CK(cudaFuncGetAttributes(&p, plain));
    EXPECT(p.sharedSizeBytes == 0 && p.maxThreadsPerBlock == 1024 && p.maxDynamicSharedSizeBytes == 48 * 1024,
           "plain kernel: shared %zu, max threads %d, max dynamic %d", p.sharedSizeBytes, p.maxThreadsPerBlock, p.maxDynamicSharedSizeBytes);
    const char *name = nullptr;
    CK(cudaFuncGetName(&name, staticUse));
    EXPECT(name && strstr(name, "staticUse"), "cudaFuncGetName: %s", name ? name : "(null)");
    EXPECT(cudaFuncGetAttributes(&a, (const void *)main) == cudaErrorInvalidResourceHandle, "attributes of a host function"); // as on an H100
    cudaGetLastError();

    // the kernels run and agree with the host
    {
        float table[300];
        for (int i = 0; i < 300; ++i) table[i] = i * 0.5f;
        CK(cudaMemcpyToSymbol(c_table, table, sizeof table));
        int *idx;
        float *out;
        CK(cudaMallocManaged(&idx, 256 * 4));
        CK(cudaMallocManaged(&out, 2 * 256 * 4));
        for (int t = 0; t < 256; ++t) idx[t] = t * 7;
        staticUse<<<2, 256>>>(idx, out);
        CK(cudaDeviceSynchronize());
        for (int b = 0; b < 2; ++b)
            for (int t = 0; t < 256; ++t) {
                int j = (t * 7) & 255; // idx[t] & 255, and idx[k] = 7k
                float want = table[((t + 1) % 256) % 300] + (float)(((j * 5 + t) & 255) * 7 * t);
                EXPECT(out[b * 256 + t] == want, "staticUse out[%d] = %g, expected %g", b * 256 + t, out[b * 256 + t], want);
            }
        EXPECT(cudaGetLastError() == cudaSuccess, "no error");
        staticUse<<<1, 512>>>(idx, out);  // more threads than the launch bounds allow
        EXPECT(cudaGetLastError() != cudaSuccess, "a launch over __launch_bounds__ fails");
        CK(cudaFree(idx));
        CK(cudaFree(out));
    }

    // ---- dynamic shared memory opt-in and carveout -----------------------------------------------
    {
        int optin = 0, perBlock = 0;
        CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
        CK(cudaDeviceGetAttribute(&perBlock, cudaDevAttrMaxSharedMemoryPerBlock, 0));
        EXPECT(perBlock == 48 * 1024 && optin > perBlock, "shared per block %d, opt-in %d", perBlock, optin);
        float *out;
        CK(cudaMallocManaged(&out, 128 * 4));
        const int bigBytes = 80 * 1024, n = bigBytes / 4;
        dynamicUse<<<1, 128, bigBytes>>>(out, n);
        EXPECT(cudaGetLastError() == cudaErrorInvalidValue, "80 KiB dynamic shared without the opt-in is refused");
        EXPECT(cudaFuncSetAttribute(dynamicUse, cudaFuncAttributeMaxDynamicSharedMemorySize, optin + 1) == cudaErrorInvalidValue,
               "an opt-in above the device limit is refused");
        cudaGetLastError();
        CK(cudaFuncSetAttribute(dynamicUse, cudaFuncAttributeMaxDynamicSharedMemorySize, bigBytes));
        cudaFuncAttributes d;
        CK(cudaFuncGetAttributes(&d, dynamicUse));
        EXPECT(d.maxDynamicSharedSizeBytes == bigBytes, "max dynamic shared after the opt-in: %d", d.maxDynamicSharedSizeBytes);
        dynamicUse<<<1, 128, bigBytes>>>(out, n);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        for (int t = 0; t < 128; ++t) {
            double s = 0;
            for (int i = t; i < n; i += 128) s += n - 1 - i;
            EXPECT(out[t] == (float)s, "dynamicUse out[%d] = %g, expected %g", t, out[t], s);
        }
        CK(cudaFuncSetAttribute(dynamicUse, cudaFuncAttributePreferredSharedMemoryCarveout, 50));
        CK(cudaFuncGetAttributes(&d, dynamicUse));
        EXPECT(d.preferredShmemCarveout == 50, "carveout %d, expected 50", d.preferredShmemCarveout);
        EXPECT(cudaFuncSetAttribute(dynamicUse, cudaFuncAttributePreferredSharedMemoryCarveout, 101) == cudaErrorInvalidValue,
               "carveout 101 refused");
        cudaGetLastError();
        CK(cudaFuncSetAttribute(dynamicUse, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
        CK(cudaFuncGetAttributes(&d, dynamicUse));
        EXPECT(d.preferredShmemCarveout == cudaSharedmemCarveoutMaxShared, "carveout %d", d.preferredShmemCarveout);
        CK(cudaFuncSetCacheConfig(dynamicUse, cudaFuncCachePreferShared));
        CK(cudaFree(out));
    }

    // ---- limits -------------------------------------------------------------------------------
    {
        size_t v = 0;
        CK(cudaDeviceGetLimit(&v, cudaLimitStackSize));
        EXPECT(v == 1024, "default stack %zu", v);
        CK(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize));
        EXPECT(v == 8650752, "default printf FIFO %zu (an H100 and an H200 have 8650752)", v);
        CK(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize));
        EXPECT(v == 8 << 20, "default heap %zu", v);
        CK(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
        CK(cudaDeviceGetLimit(&v, cudaLimitStackSize));
        EXPECT(v == 4096, "stack after set %zu", v);
        CK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 2 << 20));
        CK(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize));
        EXPECT(v == 2 << 20, "printf FIFO after set %zu", v);
        int *ok;
        CK(cudaMallocManaged(&ok, 4));
        CK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 32 << 20));
        CK(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize));
        EXPECT(v >= 32 << 20, "heap after set %zu", v);
        *ok = 0;
        bigMalloc<<<1, 1>>>((size_t)12 << 20, ok);  // more than the 8 MiB default heap
        CK(cudaDeviceSynchronize());
        EXPECT(*ok == 3, "a 12 MiB device malloc after raising the heap: %d", *ok);
        bigMalloc<<<1, 1>>>((size_t)64 << 20, ok);  // more than the heap
        CK(cudaDeviceSynchronize());
        EXPECT(*ok == -1, "a 64 MiB device malloc from a 32 MiB heap returns null (%d)", *ok);
        // (an H200 answers InvalidValue for an enumerator it does not know)
        cudaError_t le = cudaDeviceSetLimit((cudaLimit)0x77, 1);
        EXPECT(le == cudaErrorInvalidValue, "unknown limit refused: %s", cudaGetErrorName(le));
        cudaGetLastError();
        CK(cudaDeviceSetLimit(cudaLimitStackSize, 1024));
        CK(cudaFree(ok));
    }

    // ---- device flags -------------------------------------------------------------------------------
    {
        unsigned f = 0;
        CK(cudaGetDeviceFlags(&f));
        EXPECT(f & cudaDeviceMapHost, "default flags 0x%x include cudaDeviceMapHost", f);
        CK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
        CK(cudaGetDeviceFlags(&f));
        EXPECT((f & cudaDeviceScheduleMask) == cudaDeviceScheduleBlockingSync && (f & cudaDeviceMapHost), "flags after set 0x%x", f);
        CK(cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceLmemResizeToMax));
        CK(cudaGetDeviceFlags(&f));
        EXPECT((f & cudaDeviceScheduleMask) == cudaDeviceScheduleSpin && (f & cudaDeviceLmemResizeToMax), "flags after set 0x%x", f);
        EXPECT(cudaSetDeviceFlags(0x4000) == cudaErrorInvalidValue, "unknown device flags refused");
        cudaGetLastError();
        CK(cudaSetDeviceFlags(cudaDeviceScheduleAuto));
    }

    // ---- profiler, PCI bus id ---------------------------------------------------------------------
    {
        CK(cudaProfilerStart());
        int *d;
        CK(cudaMalloc(&d, 32 * 4));
        plain<<<1, 32>>>(d);
        CK(cudaProfilerStop());
        CK(cudaDeviceSynchronize());
        char id[64] = {0};
        CK(cudaDeviceGetPCIBusId(id, sizeof id, 0));
        int domain = -1, bus = -1, device = -1, function = -1;
        int got = sscanf(id, "%x:%x:%x.%x", &domain, &bus, &device, &function);
        int aDomain, aBus, aDevice;
        CK(cudaDeviceGetAttribute(&aDomain, cudaDevAttrPciDomainId, 0));
        CK(cudaDeviceGetAttribute(&aBus, cudaDevAttrPciBusId, 0));
        CK(cudaDeviceGetAttribute(&aDevice, cudaDevAttrPciDeviceId, 0));
        EXPECT(got == 4 && domain == aDomain && bus == aBus && device == aDevice && function == 0, "PCI bus id '%s'", id);
        EXPECT(strlen(id) == 12, "PCI bus id '%s' has the dddd:bb:dd.f form", id);
        EXPECT(cudaDeviceGetPCIBusId(id, sizeof id, 1) == cudaErrorInvalidDevice, "device 1 has no bus id");
        cudaGetLastError();
        int dev = -1;
        CK(cudaDeviceGetByPCIBusId(&dev, id));
        EXPECT(dev == 0, "device of '%s' is %d", id, dev);
        char shortId[32];
        snprintf(shortId, sizeof shortId, "%02x:%02x.0", aBus, aDevice);
        dev = -1;
        CK(cudaDeviceGetByPCIBusId(&dev, shortId));
        EXPECT(dev == 0, "device of '%s' is %d", shortId, dev);
        snprintf(shortId, sizeof shortId, "%04x:%02x:%02x", aDomain, aBus, aDevice);  // no function
        dev = -1;
        CK(cudaDeviceGetByPCIBusId(&dev, shortId));
        EXPECT(dev == 0, "device of '%s' is %d", shortId, dev);
        char other[32];
        snprintf(other, sizeof other, "%04x:%02x:%02x.0", aDomain, (aBus + 1) & 0xff, aDevice);
        EXPECT(cudaDeviceGetByPCIBusId(&dev, other) == cudaErrorInvalidDevice, "no device at '%s'", other);
        cudaGetLastError();
        EXPECT(cudaDeviceGetByPCIBusId(&dev, "not-a-bus-id") == cudaErrorInvalidValue, "a malformed id is refused");
        cudaGetLastError();
        CK(cudaFree(d));
    }

    // ---- peers ------------------------------------------------------------------------------------
    {
        int can = -1;
        CK(cudaDeviceCanAccessPeer(&can, 0, 0));
        EXPECT(can == 0, "a device is not its own peer (%d)", can);
        EXPECT(cudaDeviceCanAccessPeer(&can, 0, 1) == cudaErrorInvalidDevice, "device 1 does not exist");
        cudaGetLastError();
        // (an H200 answers PeerAccessUnsupported for the device itself)
        cudaError_t pe = cudaDeviceEnablePeerAccess(0, 0);
        EXPECT(pe == cudaErrorPeerAccessUnsupported, "peer access to itself is refused: %s", cudaGetErrorName(pe));
        cudaGetLastError();
        EXPECT(cudaDeviceDisablePeerAccess(0) == cudaErrorPeerAccessNotEnabled,
               "disabling peer access to itself is refused");
        cudaGetLastError();
        int v = -1;
        EXPECT(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 0) == cudaErrorInvalidDevice, "P2P attribute of a device with itself");
        cudaGetLastError();
        const int n = 1000;
        std::vector<int> h(n), back(n, 0);
        for (int i = 0; i < n; ++i) h[i] = i * i;
        int *a0, *b0;
        CK(cudaMalloc(&a0, n * 4));
        CK(cudaMalloc(&b0, n * 4));
        CK(cudaMemcpy(a0, h.data(), n * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpyPeer(b0, 0, a0, 0, n * 4));
        CK(cudaMemcpy(back.data(), b0, n * 4, cudaMemcpyDeviceToHost));
        EXPECT(back == h, "cudaMemcpyPeer copied");
        cudaStream_t s;
        CK(cudaStreamCreate(&s));
        CK(cudaMemset(b0, 0, n * 4));
        CK(cudaMemcpyPeerAsync(b0, 0, a0, 0, n * 4, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(back.data(), b0, n * 4, cudaMemcpyDeviceToHost));
        EXPECT(back == h, "cudaMemcpyPeerAsync copied");
        EXPECT(cudaMemcpyPeer(b0, 1, a0, 0, n * 4) == cudaErrorInvalidDevice, "a copy to device 1 is refused");
        cudaGetLastError();
        CK(cudaStreamDestroy(s));
        CK(cudaFree(a0));
        CK(cudaFree(b0));
    }
    return finish();
}

// A buffer grown 1 MiB at a time to 1 GiB, as growable arrays do: allocate the larger buffer,
// carry the old one's contents over, free the old one. With nothing else live every step must
// succeed (freed space is merged and reused), the carried data must arrive, and the device's free
// memory must account for exactly the live buffer. Host memory: only the touched pages (checked
// under ptxsim, where device memory is host memory; printed elsewhere).
static const char *kName = "alloc_grow";
#include "../kernels/test_common.h"

#include <cstdint>
#include <cstdlib>

// Stamps the first and last 1 KiB of the buffer with its size in MiB.
__global__ void stamp(unsigned *p, size_t words, unsigned mib) {
    unsigned t = threadIdx.x;
    p[t] = mib * 1000 + t;
    p[words - 256 + t] = mib * 1000 + 500 + t;
}

// A field of /proc/self/status in KiB ("VmHWM:", the peak resident memory, or "VmRSS:").
static long statusKiB(const char *field) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, field, strlen(field))) kb = atol(line + strlen(field));
    fclose(f);
    return kb;
}

int main() {
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    bool ptxsim = strncmp(prop.name, "ptxsim", 6) == 0; // ptxsim names its device "ptxsim ..."
    const size_t kMiB = 1 << 20;
    size_t free0 = 0, total = 0;
    { // the simulator's (or driver's) own set-up is not the loop's: measure from after a launch
        unsigned *w;
        CK(cudaMalloc(&w, 4096));
        stamp<<<1, 256>>>(w, 1024, 0);
        CK(cudaDeviceSynchronize());
        CK(cudaFree(w));
    }
    long rss0 = statusKiB("VmRSS:");
    CK(cudaMemGetInfo(&free0, &total));
    unsigned *old = nullptr;
    size_t oldBytes = 0;
    unsigned head[256], tail[256];
    int failedAt = 0, badInfo = 0, badCopy = 0;
    for (unsigned mib = 1; mib <= 1024; ++mib) {
        size_t bytes = mib * kMiB;
        unsigned *p = nullptr;
        cudaError_t e = cudaMalloc(&p, bytes);
        if (e != cudaSuccess) {
            failedAt = mib;
            printf("cudaMalloc(%u MiB) with %zu MiB live: %s\n", mib, oldBytes / kMiB, cudaGetErrorName(e));
            break;
        }
        if (old) {
            // the old buffer's stamps move to the start of the new one
            CK(cudaMemcpy(p, old, 1024, cudaMemcpyDeviceToDevice));
            CK(cudaMemcpy(p + 256, old + oldBytes / 4 - 256, 1024, cudaMemcpyDeviceToDevice));
            CK(cudaFree(old));
            CK(cudaMemcpy(head, p, 1024, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(tail, p + 256, 1024, cudaMemcpyDeviceToHost));
            for (unsigned t = 0; t < 256; ++t)
                badCopy += head[t] != (mib - 1) * 1000 + t || tail[t] != (mib - 1) * 1000 + 500 + t;
        }
        stamp<<<1, 256>>>(p, bytes / 4, mib);
        CK(cudaGetLastError());
        if (mib % 64 == 0 || mib == 1) {
            size_t fr = 0, tot = 0;
            CK(cudaMemGetInfo(&fr, &tot));
            // the live buffer is all that is used beyond the start (other processes sharing a
            // GPU and the driver's own granularity may move this a little: 64 MiB slack)
            long long usedNow = (long long)free0 - (long long)fr;
            if (usedNow < (long long)bytes - (64ll << 20) || usedNow > (long long)bytes + (64ll << 20)) {
                ++badInfo;
                printf("cudaMemGetInfo with %u MiB live: %lld MiB used since the start\n", mib, usedNow >> 20);
            }
        }
        old = p;
        oldBytes = bytes;
    }
    EXPECT(failedAt == 0, "growing the buffer failed at %d MiB", failedAt);
    EXPECT(badCopy == 0, "%d stamp words did not survive a step", badCopy);
    EXPECT(badInfo == 0, "cudaMemGetInfo disagreed with the live buffer %d times", badInfo);
    CK(cudaDeviceSynchronize());
    if (old) CK(cudaFree(old));
    size_t free1 = 0, tot1 = 0;
    CK(cudaMemGetInfo(&free1, &tot1));
    EXPECT(free1 + (64u << 20) >= free0, "free memory after the last free: %zu MiB, at the start %zu MiB",
           free1 >> 20, free0 >> 20);
    long hwm = statusKiB("VmHWM:");
    printf("peak host memory (VmHWM): %ld MiB, %ld MiB more than after the first launch\n", hwm / 1024,
           (hwm - rss0) / 1024);
    if (ptxsim) // device memory is host memory there: only the touched pages may count
        EXPECT(hwm > 0 && hwm - rss0 < 300 * 1024, "peak host memory %ld MiB, %ld MiB over the start (limit 300)",
               hwm / 1024, (hwm - rss0) / 1024);
    return finish();
}

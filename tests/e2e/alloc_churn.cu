// A caching-allocator style churn: 3,000 allocations of 1-64 MiB (sizes and order from a fixed
// LCG), at most 8 live, 4 KiB of each written and checked again before it is freed, as the
// buffers of an iterative application are. Every buffer must keep its own bytes while the others
// come and go (no aliasing), the device's free memory must return to its start value, and under
// ptxsim (where device memory is host memory) the peak host memory must stay under 300 MiB: the
// process holds what it touched, not what it ever allocated.
static const char *kName = "alloc_churn";
#include "../kernels/test_common.h"

#include <cstdint>
#include <cstdlib>

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static unsigned next() {
    g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(g_rng >> 33);
}

// Writes 1024 words of `p` at word `at` with `tag` + index.
__global__ void touch(unsigned *p, size_t at, unsigned tag) {
    for (unsigned i = threadIdx.x; i < 1024; i += blockDim.x) p[at + i] = tag + i;
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

struct Slot {
    unsigned *p = nullptr;
    size_t words = 0, at = 0;
    unsigned tag = 0;
};

int main() {
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    bool ptxsim = strncmp(prop.name, "ptxsim", 6) == 0; // ptxsim names its device "ptxsim ..."
    size_t free0 = 0, total = 0;
    CK(cudaMemGetInfo(&free0, &total));
    { // the simulator's (or driver's) own set-up is not the churn's: measure from after a launch
        unsigned *w;
        CK(cudaMalloc(&w, 4096));
        touch<<<1, 256>>>(w, 0, 1);
        CK(cudaDeviceSynchronize());
        CK(cudaFree(w));
    }
    long rss0 = statusKiB("VmRSS:");
    int iterations = 3000; // ALLOC_CHURN_N: fewer (the timing-mode run, 3,000 launches took 6 s)
    if (const char *e = getenv("ALLOC_CHURN_N")) iterations = atoi(e);
    EXPECT(iterations > 0, "ALLOC_CHURN_N must be a positive count");
    Slot slots[8];
    static unsigned h[1024];
    int badData = 0, failed = 0;
    for (int it = 0; it < iterations; ++it) {
        Slot &s = slots[next() % 8];
        if (s.p) { // check its 4 KiB, then free it
            CK(cudaMemcpy(h, s.p + s.at, sizeof h, cudaMemcpyDeviceToHost));
            for (unsigned i = 0; i < 1024; ++i) badData += h[i] != s.tag + i;
            CK(cudaFree(s.p));
            s.p = nullptr;
        }
        size_t bytes = (size_t)(1 + next() % 64) << 20;
        if (cudaMalloc(&s.p, bytes) != cudaSuccess) {
            ++failed;
            s.p = nullptr;
            cudaGetLastError();
            continue;
        }
        s.words = bytes / 4;
        s.at = (size_t)(next() % (unsigned)(bytes / 4096)) * 1024; // a page-aligned 4 KiB
        s.tag = (unsigned)it << 12;
        touch<<<1, 256>>>(s.p, s.at, s.tag);
        CK(cudaGetLastError());
    }
    for (Slot &s : slots)
        if (s.p) {
            CK(cudaMemcpy(h, s.p + s.at, sizeof h, cudaMemcpyDeviceToHost));
            for (unsigned i = 0; i < 1024; ++i) badData += h[i] != s.tag + i;
            CK(cudaFree(s.p));
        }
    EXPECT(failed == 0, "%d of %d allocations failed with at most 8 x 64 MiB live", failed, iterations);
    EXPECT(badData == 0, "%d words of live buffers changed under the churn (aliasing?)", badData);
    size_t free1 = 0, tot1 = 0;
    CK(cudaMemGetInfo(&free1, &tot1));
    EXPECT(free1 + (64u << 20) >= free0 && free1 <= free0 + (64u << 20),
           "free memory %zu MiB after freeing everything, %zu MiB at the start", free1 >> 20, free0 >> 20);
    long hwm = statusKiB("VmHWM:");
    printf("peak host memory (VmHWM): %ld MiB, %ld MiB more than after the first launch\n", hwm / 1024,
           (hwm - rss0) / 1024);
    if (ptxsim)
        EXPECT(hwm > 0 && hwm - rss0 < 300 * 1024, "peak host memory %ld MiB, %ld MiB over the start (limit 300)",
               hwm / 1024, (hwm - rss0) / 1024);
    return finish();
}

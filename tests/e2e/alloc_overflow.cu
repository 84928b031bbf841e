// Allocation sizes that do not fit: SIZE_MAX, a negative int times sizeof(float), products of
// pitch, height and depth that wrap around 64 bits. Every allocating call refuses them (a GPU
// answers cudaErrorMemoryAllocation) and hands out no address; the next allocations work, do not
// alias each other, and the device's free memory is what it was.
static const char *kName = "alloc_overflow";
#include "../kernels/test_common.h"

#include <cstdint>

__global__ void fill(unsigned *p, size_t n, unsigned v) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) p[i] = v + (unsigned)i;
}

// Device-side malloc of sizes no heap holds returns null; a small one still works.
__global__ void deviceMalloc(size_t huge, int *out) {
    void *p = malloc(huge);
    out[0] = p == nullptr;
    int *q = (int *)malloc(64);
    out[1] = q != nullptr;
    if (q) { q[15] = 7; out[2] = q[15]; free(q); }
}

// The call failed as CUDA fails an allocation it cannot make (`alsoOk`: a second code some
// calls may give for a malformed extent) and left no error behind for the next call.
static void refused(cudaError_t e, const char *what, cudaError_t alsoOk = cudaErrorMemoryAllocation) {
    EXPECT(e == cudaErrorMemoryAllocation || e == alsoOk, "%s returned %s, not cudaErrorMemoryAllocation",
           what, cudaGetErrorName(e));
    cudaGetLastError(); // not sticky: clear it
}

// Two fresh buffers are distinct, do not overlap and keep their own contents.
static void twoBuffersIndependent(const char *after) {
    const size_t n = 1 << 18; // 1 MiB of unsigned
    unsigned *a = nullptr, *b = nullptr;
    CK(cudaMalloc(&a, n * sizeof(unsigned)));
    CK(cudaMalloc(&b, n * sizeof(unsigned)));
    EXPECT(a && b && a != b, "after %s: cudaMalloc returned %p and %p", after, (void *)a, (void *)b);
    uintptr_t ua = (uintptr_t)a, ub = (uintptr_t)b, bytes = n * sizeof(unsigned);
    EXPECT(ua + bytes <= ub || ub + bytes <= ua, "after %s: buffers %p and %p overlap", after,
           (void *)a, (void *)b);
    fill<<<(unsigned)(n / 256), 256>>>(a, n, 1000);
    fill<<<(unsigned)(n / 256), 256>>>(b, n, 7000000);
    CK(cudaGetLastError());
    static unsigned h[1 << 18];
    CK(cudaMemcpy(h, a, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (size_t i = 0; i < n; ++i) wrong += h[i] != 1000 + (unsigned)i;
    CK(cudaMemcpy(h, b, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) wrong += h[i] != 7000000 + (unsigned)i;
    EXPECT(wrong == 0, "after %s: %d words of two fresh buffers wrong (aliased?)", after, wrong);
    CK(cudaFree(a));
    CK(cudaFree(b));
}

int main() {
    size_t free0 = 0, total = 0;
    CK(cudaMemGetInfo(&free0, &total));
    twoBuffersIndependent("start");

    const size_t huge[] = {SIZE_MAX, SIZE_MAX - 255, SIZE_MAX - 4095, SIZE_MAX / 2 + 1, (size_t)1 << 63,
                           total + 1};
    for (size_t s : huge) {
        void *p = nullptr;
        refused(cudaMalloc(&p, s), "cudaMalloc(huge)");
        if (s >= (size_t)1 << 62) { // managed and pinned memory may exceed the device's: only
                                    // sizes no machine has
            refused(cudaMallocManaged(&p, s, cudaMemAttachGlobal), "cudaMallocManaged(huge)");
            refused(cudaMallocHost(&p, s), "cudaMallocHost(huge)");
            refused(cudaHostAlloc(&p, s, cudaHostAllocDefault), "cudaHostAlloc(huge)");
        }
    }
    twoBuffersIndependent("cudaMalloc(SIZE_MAX)");

    // the everyday trigger: a negative count
    int n = -1;
    float *f = nullptr;
    refused(cudaMalloc(&f, n * sizeof(float)), "cudaMalloc(-1 * sizeof(float))");

    // stream-ordered allocation
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    void *p = nullptr;
    refused(cudaMallocAsync(&p, SIZE_MAX, st), "cudaMallocAsync(SIZE_MAX)");
    cudaMemPool_t pool;
    CK(cudaDeviceGetDefaultMemPool(&pool, 0));
    refused(cudaMallocFromPoolAsync(&p, SIZE_MAX - 1, pool, st), "cudaMallocFromPoolAsync(SIZE_MAX - 1)");
    cudaError_t se = cudaStreamSynchronize(st);
    EXPECT(se == cudaSuccess || se == cudaErrorMemoryAllocation, "stream after refused cudaMallocAsync: %s",
           cudaGetErrorName(se));
    cudaGetLastError();
    CK(cudaStreamSynchronize(st));
    void *q = nullptr;
    CK(cudaMallocAsync(&q, 1 << 20, st)); // and a sane one still works
    CK(cudaMemsetAsync(q, 0x5a, 1 << 20, st));
    CK(cudaFreeAsync(q, st));
    CK(cudaStreamSynchronize(st));
    CK(cudaStreamDestroy(st));

    // pitch * height and pitch * height * depth that wrap around (or a width whose rounding does)
    size_t pitch = 0;
    refused(cudaMallocPitch(&p, &pitch, SIZE_MAX, 1), "cudaMallocPitch(SIZE_MAX, 1)", cudaErrorInvalidValue);
    refused(cudaMallocPitch(&p, &pitch, SIZE_MAX - 100, 2), "cudaMallocPitch(SIZE_MAX - 100, 2)",
            cudaErrorInvalidValue);
    refused(cudaMallocPitch(&p, &pitch, (size_t)1 << 20, (size_t)1 << 45), "cudaMallocPitch(1 MiB, 2^45)",
            cudaErrorInvalidValue);
    refused(cudaMallocPitch(&p, &pitch, 4096, SIZE_MAX / 2048), "cudaMallocPitch(4096, SIZE_MAX / 2048)",
            cudaErrorInvalidValue);
    cudaPitchedPtr pp;
    refused(cudaMalloc3D(&pp, make_cudaExtent(SIZE_MAX, 1, 1)), "cudaMalloc3D(SIZE_MAX, 1, 1)",
            cudaErrorInvalidValue);
    refused(cudaMalloc3D(&pp, make_cudaExtent(1 << 20, (size_t)1 << 30, (size_t)1 << 30)),
            "cudaMalloc3D(2^20, 2^30, 2^30)", cudaErrorInvalidValue);
    refused(cudaMalloc3D(&pp, make_cudaExtent(512, (size_t)1 << 32, (size_t)1 << 30)),
            "cudaMalloc3D(512, 2^32, 2^30)", cudaErrorInvalidValue);
    // an array larger than any device's memory (64 TiB of float4)
    cudaChannelFormatDesc d4 = cudaCreateChannelDesc<float4>();
    cudaArray_t arr;
    refused(cudaMalloc3DArray(&arr, &d4, make_cudaExtent(16384, 16384, 16384)), "cudaMalloc3DArray(16384^3 float4)");
    twoBuffersIndependent("pitched and array sizes");

    // a sane pitched allocation still works
    CK(cudaMallocPitch(&p, &pitch, 1000, 10));
    EXPECT(pitch >= 1000, "pitch %zu", pitch);
    CK(cudaMemset2D(p, pitch, 1, 1000, 10));
    CK(cudaFree(p));

    int *flags, hf[3];
    CK(cudaMalloc(&flags, sizeof hf));
    // Device malloc of a size no heap can hold returns null. (Sizes within a few bytes of
    // SIZE_MAX are left out: an H200's device malloc returned non-null pointers for SIZE_MAX and
    // SIZE_MAX - 8, its rounding wraps; ptxsim returns null there.)
    const size_t hugeDev[] = {(size_t)1 << 63, (size_t)1 << 62, (size_t)1 << 50};
    for (size_t s : hugeDev) {
        deviceMalloc<<<1, 1>>>(s, flags);
        CK(cudaGetLastError());
        CK(cudaMemcpy(hf, flags, sizeof hf, cudaMemcpyDeviceToHost));
        EXPECT(hf[0] == 1 && hf[1] == 1 && hf[2] == 7, "device malloc(%zu): null %d, small one %d/%d", s,
               hf[0], hf[1], hf[2]);
    }
    CK(cudaFree(flags));

    size_t free1 = 0, total1 = 0;
    CK(cudaMemGetInfo(&free1, &total1));
    EXPECT(total1 == total, "total memory changed: %zu -> %zu", total, total1);
    // Refused allocations took nothing. Other processes on a shared GPU may move free memory a
    // little, and the first launch that calls malloc reserves the device heap and stacks (an
    // H200's free memory fell by 148 MiB here).
    EXPECT(free1 + ((size_t)512 << 20) >= free0, "free memory fell from %zu to %zu", free0, free1);
    CK(cudaDeviceSynchronize());
    return finish();
}

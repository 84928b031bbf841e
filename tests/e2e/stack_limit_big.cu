// Large stack limits. cudaDeviceSetLimit(cudaLimitStackSize, ...) of 8 MiB and more is refused with
// cudaErrorInvalidValue, leaving the old limit (CUDA reserves the stack for every resident thread
// of the device: stack x resident threads must fit in its memory; an H200 refuses 1 MiB and up
// this way). Never a crash. A limit that does fit (64 KiB) runs a deep recursion.
static const char *kName = "stack_limit_big";
#include "../kernels/test_common.h"

#include <cstdint>

// Each level keeps a 256-byte array on the stack, so `depth` levels need about depth x 300 bytes.
__device__ __noinline__ unsigned long long deep(int depth, unsigned seed) {
    volatile unsigned buf[64];
    for (int i = 0; i < 64; ++i) buf[i] = seed * 31u + i;
    unsigned long long below = depth > 0 ? deep(depth - 1, seed + 1) : 0;
    unsigned long long s = 0;
    for (int i = 0; i < 64; ++i) s += buf[i];
    return s + below;
}

__global__ void recurse(int depth, unsigned long long *out) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = deep(depth, threadIdx.x);
}

static unsigned long long expected(int depth, unsigned seed) {
    unsigned long long s = 0;
    for (int d = depth; d >= 0; --d, ++seed)
        for (unsigned i = 0; i < 64; ++i) s += (unsigned)(seed * 31u + i);
    return s;
}

// Runs the recursion with `depth` levels on 2 x 32 threads and checks every result.
static void runRecursion(int depth, const char *what) {
    unsigned long long *d, h[64];
    CK(cudaMalloc(&d, sizeof h));
    recurse<<<2, 32>>>(depth, d);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    EXPECT(e == cudaSuccess, "%s: recursion of depth %d: %s", what, depth, cudaGetErrorName(e));
    if (e == cudaSuccess) {
        CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        int wrong = 0;
        for (int t = 0; t < 64; ++t) wrong += h[t] != expected(depth, (unsigned)(t % 32));
        EXPECT(wrong == 0, "%s: %d of 64 threads computed the wrong sum", what, wrong);
    }
    CK(cudaFree(d));
}

int main() {
    size_t before = 0;
    CK(cudaDeviceGetLimit(&before, cudaLimitStackSize));
    const size_t big[] = {(size_t)8 << 20, (size_t)64 << 20, (size_t)1 << 30, (size_t)1 << 40, SIZE_MAX};
    for (size_t lim : big) {
        size_t old = 0, now = 0;
        CK(cudaDeviceGetLimit(&old, cudaLimitStackSize));
        cudaError_t e = cudaDeviceSetLimit(cudaLimitStackSize, lim);
        cudaGetLastError();
        CK(cudaDeviceGetLimit(&now, cudaLimitStackSize));
        printf("cudaDeviceSetLimit(stack, %zu): %s, limit now %zu\n", lim, cudaGetErrorName(e), now);
        EXPECT(e == cudaErrorInvalidValue, "stack limit %zu: %s, not cudaErrorInvalidValue", lim,
               cudaGetErrorName(e));
        EXPECT(now == old, "refused stack limit %zu changed the limit from %zu to %zu", lim, old, now);
    }
    // a limit that fits every device: the recursion runs
    CK(cudaDeviceSetLimit(cudaLimitStackSize, 64 << 10));
    size_t now = 0;
    CK(cudaDeviceGetLimit(&now, cudaLimitStackSize));
    EXPECT(now >= (64u << 10), "stack limit reads %zu after setting 64 KiB", now);
    runRecursion(150, "64 KiB stack"); // about 48 KiB deep
    CK(cudaDeviceSetLimit(cudaLimitStackSize, before));
    return finish();
}

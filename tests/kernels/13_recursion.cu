// ptxsim test kernel: recursion
// Self-checking: prints PASS recursion / FAIL recursion.
static const char* kName = "recursion";
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "test_common.h"

// Recursive device functions (noinline, real call stack): fibonacci, ackermann,
// recursive quicksort of a per-thread local array, recursive sum over a local
// array, and an explicit local-memory stack (iterative DFS).

__device__ __noinline__ int fib(int n) {
    if (n < 2) return n;
    return fib(n - 1) + fib(n - 2);
}

__device__ __noinline__ int ackermann(int m, int n) {
    if (m == 0) return n + 1;
    if (n == 0) return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

__device__ __noinline__ void quicksort(int* a, int lo, int hi) {
    if (lo >= hi) return;
    int pivot = a[(lo + hi) / 2];
    int i = lo, j = hi;
    while (i <= j) {
        while (a[i] < pivot) i++;
        while (a[j] > pivot) j--;
        if (i <= j) { int t = a[i]; a[i] = a[j]; a[j] = t; i++; j--; }
    }
    quicksort(a, lo, j);
    quicksort(a, i, hi);
}

__device__ __noinline__ long long rsum(const int* a, int lo, int hi) {
    if (hi - lo == 1) return a[lo];
    int mid = (lo + hi) / 2;
    return rsum(a, lo, mid) * 1 + rsum(a, mid, hi);
}

// count nodes of a complete binary tree of given depth using an explicit stack
__device__ int dfs_count(int depth, int* maxsp) {
    int stack[32];
    int sp = 0, count = 0, deepest = 0;
    stack[sp++] = 0;  // level of root
    while (sp > 0) {
        int lvl = stack[--sp];
        count++;
        if (lvl < depth) { stack[sp++] = lvl + 1; stack[sp++] = lvl + 1; }
        if (sp > deepest) deepest = sp;
    }
    *maxsp = deepest;
    return count;
}

__global__ void rec_kernel(int* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int* o = out + t * 24;
    o[0] = fib(t % 12);
    o[1] = ackermann(t % 3, t % 4);
    int arr[16];
    for (int i = 0; i < 16; ++i) arr[i] = ((i + 3) * (t + 7) * 31) % 53 - 20;
    quicksort(arr, 0, 15);
    for (int i = 0; i < 16; ++i) o[2 + i] = arr[i];
    o[18] = (int)rsum(arr, 0, 16);
    int msp;
    o[19] = dfs_count(t % 6, &msp);
    o[20] = msp;
}

static int h_fib(int n) { return n < 2 ? n : h_fib(n - 1) + h_fib(n - 2); }
static int h_ack(int m, int n) { if (m == 0) return n + 1; if (n == 0) return h_ack(m - 1, 1); return h_ack(m - 1, h_ack(m, n - 1)); }

int main() {
    const int n = 64;
    CK(cudaDeviceSetLimit(cudaLimitStackSize, 8192));
    int* dout;
    CK(cudaMalloc(&dout, n * 24 * sizeof(int)));
    rec_kernel<<<2, 32>>>(dout);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int* out = new int[n * 24];
    CK(cudaMemcpy(out, dout, n * 24 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int t = 0; t < n; ++t) {
        int* o = out + t * 24;
        EXPECT(o[0] == h_fib(t % 12), "fib t=%d got %d expected %d", t, o[0], h_fib(t % 12));
        EXPECT(o[1] == h_ack(t % 3, t % 4), "ack t=%d got %d expected %d", t, o[1], h_ack(t % 3, t % 4));
        int arr[16]; long long s = 0;
        for (int i = 0; i < 16; ++i) { arr[i] = ((i + 3) * (t + 7) * 31) % 53 - 20; s += arr[i]; }
        for (int i = 1; i < 16; ++i) for (int j = i; j > 0 && arr[j - 1] > arr[j]; --j) { int x = arr[j]; arr[j] = arr[j - 1]; arr[j - 1] = x; }
        for (int i = 0; i < 16; ++i) EXPECT(o[2 + i] == arr[i], "sort t=%d idx %d got %d expected %d", t, i, o[2 + i], arr[i]);
        EXPECT(o[18] == (int)s, "rsum t=%d got %d expected %lld", t, o[18], s);
        int d = t % 6;
        EXPECT(o[19] == (1 << (d + 1)) - 1, "dfs count t=%d got %d expected %d", t, o[19], (1 << (d + 1)) - 1);
        EXPECT(o[20] == (d == 0 ? 0 : d + 1), "dfs max stack t=%d got %d expected %d", t, o[20], d == 0 ? 0 : d + 1);
    }
    cudaFree(dout); delete[] out;
    return finish();
}

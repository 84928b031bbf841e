// Probe: why 13_recursion's fib phase takes ~5x recursion.cu's fib on the GPU. The kernel of
// tests/kernels/13_recursion.cu with %clock64 around its fib phase and the whole body, beside a
// kernel that only runs the fib phase, each launched 4 times (the last after an L2 scrub) with
// the default and an 8 KiB stack. Output on an H200: tools/hw/data/h200-2026-11-26b.
#include <cstdio>
#include <cuda_runtime.h>
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


__global__ void rec_kernel(int* out, long long *cyc) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int* o = out + t * 24;
    long long c0, c1, c2;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c0)::"memory");
    o[0] = fib(t % 12);
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c1)::"memory");
    o[1] = ackermann(t % 3, t % 4);
    int arr[16];
    for (int i = 0; i < 16; ++i) arr[i] = ((i + 3) * (t + 7) * 31) % 53 - 20;
    quicksort(arr, 0, 15);
    for (int i = 0; i < 16; ++i) o[2 + i] = arr[i];
    o[18] = (int)rsum(arr, 0, 16);
    int msp;
    o[19] = dfs_count(t % 6, &msp);
    o[20] = msp;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c2)::"memory");
    cyc[2 * t] = c1 - c0; cyc[2 * t + 1] = c2 - c0;
}
__global__ void fib_kernel(int* out, long long *cyc) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    long long c0, c1;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c0)::"memory");
    out[t * 24] = fib(t % 12);
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c1)::"memory");
    cyc[2 * t] = c1 - c0; cyc[2 * t + 1] = c1 - c0;
}
__global__ void scrub(int *p, size_t n) { for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] += 1; }
int main(int argc, char **argv) {
  int *out, *big; long long *cyc;
  cudaMalloc(&out, 64 * 24 * 4); cudaMalloc(&cyc, 128 * 8);
  size_t nbig = 64 << 20; cudaMalloc(&big, nbig * 4);
  for (int stack = 0; stack < 2; ++stack) {
    if (stack) cudaDeviceSetLimit(cudaLimitStackSize, 8192);
    size_t s; cudaDeviceGetLimit(&s, cudaLimitStackSize);
    for (int k = 0; k < 2; ++k) {
      for (int rep = 0; rep < 4; ++rep) {
        if (rep == 3) { scrub<<<1024, 256>>>(big, nbig); }
        cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
        cudaEventRecord(e0);
        if (k) rec_kernel<<<2, 32>>>(out, cyc); else fib_kernel<<<2, 32>>>(out, cyc);
        cudaEventRecord(e1);
        if (cudaDeviceSynchronize() != cudaSuccess) { printf("error\n"); return 1; }
        float ms; cudaEventElapsedTime(&ms, e0, e1);
        long long h[128]; cudaMemcpy(h, cyc, sizeof h, cudaMemcpyDeviceToHost);
        long long mf[2] = {0, 0}, mt[2] = {0, 0};
        for (int t = 0; t < 64; ++t) { int w = t / 32; if (h[2*t] > mf[w]) mf[w] = h[2*t]; if (h[2*t+1] > mt[w]) mt[w] = h[2*t+1]; }
        printf("stack %zu %s launch %d%s: fib phase warp0 %lld warp1 %lld, total %lld %lld, %.1f us\n", s, k ? "rec_kernel" : "fib_kernel", rep, rep == 3 ? " (after an L2 scrub)" : "", mf[0], mf[1], mt[0], mt[1], ms * 1000);
      }
    }
  }
  return 0;
}

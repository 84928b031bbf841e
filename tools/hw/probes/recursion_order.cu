// Probe (issue 31): which rule keeps the lanes of 13_recursion's fib phase apart on the GPU.
// recursion_phases.cu measured the same divergent fib(t % 12) at ~68k cycles per warp when the
// kernel ends after it (fib_kernel) and at ~314k when the kernel goes on to call ackermann,
// quicksort and rsum and runs a local-memory loop (rec_kernel, tests/kernels/13_recursion.cu).
// Each variant here runs the fib phase and then one part of the rest, and records for every lane
// the cycle (from the warp's common start) at which it returned from fib and at which it ended:
//   fib_only      fib, store
//   fib_ack       fib, then ackermann(t % 3, t % 4)
//   fib_qsort     fib, then the quicksort of a 16-element local array
//   fib_rsum      fib, then rsum over a local array
//   fib_dfs       fib, then the explicit-stack loop (dfs_count)
//   full          fib and all of the above (rec_kernel)
//   full_sync     as full, with __syncwarp() right after fib (every lane waits there)
//   fib_loop      fib, then a plain divergent loop of t % 12 * 64 iterations (no calls)
// Per variant and warp: the last lane's return from fib, the last lane's end, and the lanes'
// return cycles in lane order (the order the hardware ran the groups in). With ncu's
// smsp__inst_executed per launch (one launch per variant, in this order) the warp-instruction
// count of each tells how much of fib ran apart.
//   nvcc -cudart shared -O2 -arch=sm_90 recursion_order.cu -o recursion_order && ./recursion_order
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x)                                                                  \
  do {                                                                            \
    cudaError_t e_ = (x);                                                         \
    if (e_ != cudaSuccess) {                                                      \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)

__device__ __noinline__ int fib(int n) {
  if (n < 2)
    return n;
  return fib(n - 1) + fib(n - 2);
}

__device__ __noinline__ int ackermann(int m, int n) {
  if (m == 0)
    return n + 1;
  if (n == 0)
    return ackermann(m - 1, 1);
  return ackermann(m - 1, ackermann(m, n - 1));
}

__device__ __noinline__ void quicksort(int *a, int lo, int hi) {
  if (lo >= hi)
    return;
  int pivot = a[(lo + hi) / 2];
  int i = lo, j = hi;
  while (i <= j) {
    while (a[i] < pivot)
      i++;
    while (a[j] > pivot)
      j--;
    if (i <= j) {
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
      i++;
      j--;
    }
  }
  quicksort(a, lo, j);
  quicksort(a, i, hi);
}

__device__ __noinline__ long long rsum(const int *a, int lo, int hi) {
  if (hi - lo == 1)
    return a[lo];
  int mid = (lo + hi) / 2;
  return rsum(a, lo, mid) * 1 + rsum(a, mid, hi);
}

__device__ int dfs_count(int depth, int *maxsp) {
  int stack[32];
  int sp = 0, count = 0, deepest = 0;
  stack[sp++] = 0;
  while (sp > 0) {
    int lvl = stack[--sp];
    count++;
    if (lvl < depth) {
      stack[sp++] = lvl + 1;
      stack[sp++] = lvl + 1;
    }
    if (sp > deepest)
      deepest = sp;
  }
  *maxsp = deepest;
  return count;
}

enum { kFibOnly, kFibAck, kFibQsort, kFibRsum, kFibDfs, kFull, kFullSync, kFibLoop, kVariants };
static const char *kNames[kVariants] = {"fib_only", "fib_ack", "fib_qsort", "fib_rsum",
                                        "fib_dfs",  "full",    "full_sync", "fib_loop"};

__device__ __forceinline__ long long clk() {
  long long c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}

template <int V> __global__ void variant(int *out, long long *cyc) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int *o = out + t * 24;
  __syncwarp();
  long long c0 = clk();
  o[0] = fib(t % 12);
  long long c1 = clk();
  if (V == kFullSync)
    __syncwarp();
  if (V == kFibAck || V == kFull || V == kFullSync)
    o[1] = ackermann(t % 3, t % 4);
  if (V == kFibQsort || V == kFibRsum || V == kFull || V == kFullSync) {
    int arr[16];
    for (int i = 0; i < 16; ++i)
      arr[i] = ((i + 3) * (t + 7) * 31) % 53 - 20;
    if (V != kFibRsum)
      quicksort(arr, 0, 15);
    for (int i = 0; i < 16; ++i)
      o[2 + i] = arr[i];
    if (V != kFibQsort)
      o[18] = (int)rsum(arr, 0, 16);
  }
  if (V == kFibDfs || V == kFull || V == kFullSync) {
    int msp;
    o[19] = dfs_count(t % 6, &msp);
    o[20] = msp;
  }
  if (V == kFibLoop) {
    int x = t;
    for (int i = 0; i < (t % 12) * 64; ++i)
      x = x * 1664525 + 1013904223;
    o[21] = x;
  }
  long long c2 = clk();
  cyc[2 * t] = c1 - c0;
  cyc[2 * t + 1] = c2 - c0;
}

typedef void (*Kernel)(int *, long long *);
static const Kernel kKernels[kVariants] = {variant<0>, variant<1>, variant<2>, variant<3>,
                                           variant<4>, variant<5>, variant<6>, variant<7>};

int main() {
  int *out;
  long long *cyc;
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 8192));
  CHECK(cudaMalloc(&out, 64 * 24 * sizeof(int)));
  CHECK(cudaMalloc(&cyc, 128 * sizeof(long long)));
  for (int v = 0; v < kVariants; ++v) {
    kKernels[v]<<<2, 32>>>(out, cyc); // the first launch warms the instruction cache
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    kKernels[v]<<<2, 32>>>(out, cyc);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    long long h[128];
    int r[64 * 24];
    CHECK(cudaMemcpy(h, cyc, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 64; ++t) { // the fib results, so the calls cannot be dropped
      int n = t % 12, a = 0, b = 1;
      for (int i = 0; i < n; ++i) {
        int c = a + b;
        a = b;
        b = c;
      }
      if (r[t * 24] != a) {
        printf("FAIL %s: fib lane %d got %d expected %d\n", kNames[v], t, r[t * 24], a);
        return 1;
      }
    }
    for (int w = 0; w < 2; ++w) {
      long long fibMax = 0, endMax = 0;
      for (int l = 0; l < 32; ++l) {
        fibMax = h[2 * (w * 32 + l)] > fibMax ? h[2 * (w * 32 + l)] : fibMax;
        endMax = h[2 * (w * 32 + l) + 1] > endMax ? h[2 * (w * 32 + l) + 1] : endMax;
      }
      printf("%s warp%d: fib phase %lld, total %lld; fib return per lane:", kNames[v], w, fibMax,
             endMax);
      for (int l = 0; l < 32; ++l)
        printf(" %lld", h[2 * (w * 32 + l)]);
      printf("\n");
    }
  }
  return 0;
}

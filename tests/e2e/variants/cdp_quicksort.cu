// Dynamic parallelism: a quicksort whose kernels launch kernels. Each grid is one block that
// partitions its range three ways around a median-of-three pivot (block-wide counts, a prefix
// sum in shared memory, a scatter through a scratch buffer), then launches one child grid per
// side that still needs sorting: the smaller side into a stream the block creates, the larger
// into the block's default stream. Small ranges, and ranges at kMaxDepth, are finished by a
// selection sort in one thread. Checked against std::sort for several inputs.
// Usage: cdp_quicksort [n]   (n elements per input: the argument, else $CDP_QUICKSORT_N, else
// 30000)
static const char *kName = "cdp_quicksort";
#include "../../kernels/test_common.h"
#include <algorithm>
#include <vector>

constexpr int kThreads = 128;
constexpr int kSmall = 48;   // ranges up to this size are selection-sorted
constexpr int kMaxDepth = 12; // deeper ranges are selection-sorted too

__device__ int g_launchErrors = 0;
__device__ int g_grids = 0;
__device__ int g_deepest = 0;

__device__ void selectionSort(int *a, int n) {
  for (int i = 0; i + 1 < n; ++i) {
    int best = i;
    for (int j = i + 1; j < n; ++j)
      if (a[j] < a[best])
        best = j;
    int t = a[i];
    a[i] = a[best];
    a[best] = t;
  }
}

__device__ int medianOfThree(int a, int b, int c) {
  return max(min(a, b), min(max(a, b), c));
}

// Block-wide exclusive prefix sum of one value per thread; returns this thread's offset and
// writes the block total to *total.
__device__ int blockScan(int v, int *scratch, int *total) {
  int t = threadIdx.x;
  scratch[t] = v;
  __syncthreads();
  for (int step = 1; step < blockDim.x; step *= 2) {
    int add = t >= step ? scratch[t - step] : 0;
    __syncthreads();
    scratch[t] += add;
    __syncthreads();
  }
  int inclusive = scratch[t];
  *total = scratch[blockDim.x - 1];
  __syncthreads();
  return inclusive - v;
}

__global__ void sortRange(int *data, int *scratch, int lo, int hi, int depth) {
  __shared__ int scan[kThreads];
  __shared__ int pivot;
  int n = hi - lo;
  if (threadIdx.x == 0) {
    atomicAdd(&g_grids, 1);
    atomicMax(&g_deepest, depth);
  }
  if (n <= kSmall || depth >= kMaxDepth) {
    if (threadIdx.x == 0)
      selectionSort(data + lo, n);
    return;
  }
  if (threadIdx.x == 0)
    pivot = medianOfThree(data[lo], data[lo + n / 2], data[hi - 1]);
  __syncthreads();
  // each thread owns one contiguous chunk, so the scatter keeps the order inside each class
  int chunk = (n + blockDim.x - 1) / blockDim.x;
  int begin = lo + threadIdx.x * chunk, end = min(hi, begin + chunk);
  int less = 0, equal = 0;
  for (int i = begin; i < end; ++i) {
    less += data[i] < pivot;
    equal += data[i] == pivot;
  }
  int nLess, nEqual, nGreater;
  int lessAt = blockScan(less, scan, &nLess);
  int equalAt = blockScan(equal, scan, &nEqual);
  int greaterAt = blockScan(end > begin ? (end - begin) - less - equal : 0, scan, &nGreater);
  int *l = scratch + lo + lessAt, *e = scratch + lo + nLess + equalAt,
      *g = scratch + lo + nLess + nEqual + greaterAt;
  for (int i = begin; i < end; ++i) {
    int v = data[i];
    if (v < pivot)
      *l++ = v;
    else if (v == pivot)
      *e++ = v;
    else
      *g++ = v;
  }
  __syncthreads();
  for (int i = lo + threadIdx.x; i < hi; i += blockDim.x)
    data[i] = scratch[i];
  __threadfence();
  __syncthreads();
  if (threadIdx.x != 0)
    return;
  int leftLo = lo, leftHi = lo + nLess, rightLo = lo + nLess + nEqual, rightHi = hi;
  bool leftSmaller = leftHi - leftLo <= rightHi - rightLo;
  cudaStream_t side;
  if (cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking) != cudaSuccess)
    atomicAdd(&g_launchErrors, 1);
  if (leftHi - leftLo > 1)
    sortRange<<<1, kThreads, 0, leftSmaller ? side : 0>>>(data, scratch, leftLo, leftHi, depth + 1);
  if (rightHi - rightLo > 1)
    sortRange<<<1, kThreads, 0, leftSmaller ? 0 : side>>>(data, scratch, rightLo, rightHi, depth + 1);
  if (cudaGetLastError() != cudaSuccess)
    atomicAdd(&g_launchErrors, 1);
  cudaStreamDestroy(side);
}

static bool sortOnDevice(const char *what, std::vector<int> values) {
  int n = int(values.size());
  int *data, *scratch;
  CK(cudaMalloc(&data, n * sizeof(int)));
  CK(cudaMalloc(&scratch, n * sizeof(int)));
  CK(cudaMemcpy(data, values.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  int zero = 0;
  CK(cudaMemcpyToSymbol(g_launchErrors, &zero, sizeof zero));
  CK(cudaMemcpyToSymbol(g_grids, &zero, sizeof zero));
  CK(cudaMemcpyToSymbol(g_deepest, &zero, sizeof zero));
  sortRange<<<1, kThreads>>>(data, scratch, 0, n, 0);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<int> got(n);
  CK(cudaMemcpy(got.data(), data, n * sizeof(int), cudaMemcpyDeviceToHost));
  int errors = -1, grids = 0, deepest = 0;
  CK(cudaMemcpyFromSymbol(&errors, g_launchErrors, sizeof errors));
  CK(cudaMemcpyFromSymbol(&grids, g_grids, sizeof grids));
  CK(cudaMemcpyFromSymbol(&deepest, g_deepest, sizeof deepest));
  CK(cudaFree(data));
  CK(cudaFree(scratch));
  std::sort(values.begin(), values.end());
  int bad = g_bad;
  for (int i = 0; i < n; ++i)
    EXPECT(got[i] == values[i], "%s: element %d is %d, expected %d", what, i, got[i], values[i]);
  EXPECT(errors == 0, "%s: %d device launch errors", what, errors);
  EXPECT(n <= kSmall || grids > 1, "%s: only %d grids ran", what, grids);
  EXPECT(deepest <= kMaxDepth, "%s: depth %d beyond %d", what, deepest, kMaxDepth);
  printf("%s: %d elements, %d grids, deepest %d\n", what, n, grids, deepest);
  return g_bad == bad;
}

int main(int argc, char **argv) {
  const char *env = std::getenv("CDP_QUICKSORT_N");
  int n = argc > 1 ? std::atoi(argv[1]) : env ? std::atoi(env) : 30000;
  std::vector<int> v(n);
  unsigned x = 12345;
  for (int &e : v) {
    x = x * 1664525u + 1013904223u;
    e = int(x >> 8) - (1 << 23);
  }
  sortOnDevice("random", v);
  for (int &e : v) { // many duplicates
    x = x * 1664525u + 1013904223u;
    e = int(x >> 24) % 17;
  }
  sortOnDevice("duplicates", v);
  for (int i = 0; i < n; ++i)
    v[i] = n - i;
  sortOnDevice("descending", v);
  // organ pipe: the median-of-three pivot is poor, so the depth limit is reached and the
  // selection sort (quadratic) gets a large range: fewer elements
  int m = std::min(n, 2000);
  std::vector<int> pipe(m);
  for (int i = 0; i < m; ++i)
    pipe[i] = i < m / 2 ? i : m - i;
  sortOnDevice("organ pipe", pipe);
  sortOnDevice("one element", {42});
  return finish();
}

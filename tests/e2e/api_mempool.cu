// ptxsim e2e: memory pools: the default and current pool, created pools, allocation from a pool
// with kernels using the memory, attributes (release threshold, reuse flags, usage counters)
// and misuse errors.
static const char *kName = "api_mempool";
#include <cstdint>
#include "../kernels/test_common.h"

__global__ void iota(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = i * 3;
}

int main() {
  int supported = 0;
  CK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0));
  EXPECT(supported == 1, "memoryPoolsSupported = %d", supported);

  cudaMemPool_t def = nullptr, cur = nullptr;
  CK(cudaDeviceGetDefaultMemPool(&def, 0));
  CK(cudaDeviceGetMemPool(&cur, 0));
  EXPECT(def && def == cur, "default pool is the current pool");

  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t pool;
  CK(cudaMemPoolCreate(&pool, &props));
  EXPECT(pool != def, "created pool differs from the default");

  uint64_t thr = 64ull << 20, got = 0;
  CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr));
  CK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &got));
  EXPECT(got == thr, "release threshold %llu", (unsigned long long)got);
  int reuse = 0;
  CK(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &reuse));
  reuse = 5;
  CK(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &reuse));
  EXPECT(reuse == 0, "reuse opportunistic %d", reuse);
  CK(cudaMemPoolGetAttribute(pool, cudaMemPoolReuseFollowEventDependencies, &reuse));
  EXPECT(reuse == 1, "reuse follow events default %d", reuse);

  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  const int n = 512;
  int *a = nullptr, *b = nullptr;
  CK(cudaMallocFromPoolAsync((void **)&a, n * sizeof(int), pool, s));
  CK(cudaMallocFromPoolAsync((void **)&b, n * sizeof(int), pool, s));
  EXPECT(a && b && a != b, "pool allocations");
  uint64_t used = 0, high = 0;
  CK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  EXPECT(used == 2 * n * sizeof(int), "used %llu", (unsigned long long)used);
  iota<<<(n + 127) / 128, 128, 0, s>>>(a, n);
  CK(cudaGetLastError());
  CK(cudaMemcpyAsync(b, a, n * sizeof(int), cudaMemcpyDeviceToDevice, s));
  int h[n];
  CK(cudaMemcpyAsync(h, b, sizeof h, cudaMemcpyDeviceToHost, s));
  CK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i)
    EXPECT(h[i] == i * 3, "h[%d] = %d", i, h[i]);
  CK(cudaFreeAsync(a, s));
  CK(cudaStreamSynchronize(s));
  CK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  CK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high));
  EXPECT(used == n * sizeof(int) && high == 2 * n * sizeof(int), "used %llu high %llu",
         (unsigned long long)used, (unsigned long long)high);
  uint64_t zero = 0;
  CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
  CK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high));
  EXPECT(high == n * sizeof(int), "high after reset %llu", (unsigned long long)high);
  CK(cudaMemPoolTrimTo(pool, 0));

  // the current pool
  CK(cudaDeviceSetMemPool(0, pool));
  CK(cudaDeviceGetMemPool(&cur, 0));
  EXPECT(cur == pool, "current pool after set");
  int *c = nullptr;
  CK(cudaMallocAsync((void **)&c, 1024, s));
  CK(cudaMemsetAsync(c, 0x7f, 1024, s));
  CK(cudaFreeAsync(c, s));
  CK(cudaFreeAsync(b, s));
  CK(cudaStreamSynchronize(s));

  // misuse
  uint64_t one = 1;
  EXPECT(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &one) ==
             cudaErrorInvalidValue, "set a read-only attribute");
  EXPECT(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &one) == cudaErrorInvalidValue,
         "high-water mark set to non-zero");
  EXPECT(cudaMemPoolDestroy(def) == cudaErrorInvalidValue, "destroy the default pool");
  EXPECT(cudaDeviceGetDefaultMemPool(&cur, 3) == cudaErrorInvalidDevice, "bad device");
  EXPECT(cudaMallocFromPoolAsync(nullptr, 16, pool, s) == cudaErrorInvalidValue, "null ptr");
  cudaMemPoolProps bad = props;
  bad.allocType = cudaMemAllocationTypeInvalid;
  cudaMemPool_t p2;
  EXPECT(cudaMemPoolCreate(&p2, &bad) == cudaErrorInvalidValue, "invalid alloc type");
  EXPECT(cudaMemPoolCreate(&p2, nullptr) == cudaErrorInvalidValue, "null props");
  cudaGetLastError();

  // destroying the current pool makes the default current again
  CK(cudaMemPoolDestroy(pool));
  CK(cudaDeviceGetMemPool(&cur, 0));
  EXPECT(cur == def, "current pool after destroy");
  EXPECT(cudaMemPoolTrimTo(pool, 0) == cudaErrorInvalidValue, "destroyed pool");
  cudaGetLastError();
  int *d = nullptr;
  CK(cudaMallocFromPoolAsync((void **)&d, 256, def, s));
  CK(cudaFreeAsync(d, s));
  CK(cudaStreamSynchronize(s));
  CK(cudaStreamDestroy(s));
  return finish();
}

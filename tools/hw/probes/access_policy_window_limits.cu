// hwapi probe: cudaLimitPersistingL2CacheSize: its initial value, what cudaDeviceSetLimit accepts
// (values around the device's persistingL2CacheMaxSize) and what cudaDeviceGetLimit reads back;
// the value after cudaCtxResetPersistingL2Cache and after cudaDeviceReset.
#include <cstdio>
#include <cuda_runtime.h>

static void setGet(size_t v, const char *what) {
  cudaError_t e = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, v);
  cudaError_t l = cudaGetLastError();
  size_t got = 12345;
  cudaError_t g = cudaDeviceGetLimit(&got, cudaLimitPersistingL2CacheSize);
  printf("set %zu (%s) -> %s (lastError %s); get -> %s %zu\n", v, what, cudaGetErrorName(e),
         cudaGetErrorName(l), cudaGetErrorName(g), got);
}

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  printf("%s cc %d.%d: l2CacheSize %d persistingL2CacheMaxSize %d accessPolicyMaxWindowSize %d\n", p.name,
         p.major, p.minor, p.l2CacheSize, p.persistingL2CacheMaxSize, p.accessPolicyMaxWindowSize);
  printf("ratios: max/l2 = %.6f\n", double(p.persistingL2CacheMaxSize) / p.l2CacheSize);
  size_t init = 0;
  cudaError_t e = cudaDeviceGetLimit(&init, cudaLimitPersistingL2CacheSize);
  printf("initial limit -> %s %zu (= %.6f of max, %.6f of l2)\n", cudaGetErrorName(e), init,
         double(init) / p.persistingL2CacheMaxSize, double(init) / p.l2CacheSize);
  size_t other = 0;
  cudaDeviceGetLimit(&other, cudaLimitMaxL2FetchGranularity);
  printf("cudaLimitMaxL2FetchGranularity %zu\n", other);
  size_t mx = size_t(p.persistingL2CacheMaxSize);
  setGet(mx / 2, "max/2");
  setGet(mx / 2 + 1, "max/2+1");
  setGet(1, "1");
  setGet(1000, "1000");
  setGet(mx, "max");
  setGet(mx + 1, "max+1");
  setGet(mx + 4096, "max+4096");
  setGet(size_t(p.l2CacheSize), "l2");
  setGet(size_t(p.l2CacheSize) * 4, "l2*4");
  setGet(0, "0");
  setGet(mx / 3, "max/3");
  e = cudaCtxResetPersistingL2Cache();
  size_t got = 0;
  cudaDeviceGetLimit(&got, cudaLimitPersistingL2CacheSize);
  printf("after cudaCtxResetPersistingL2Cache (%s): %zu\n", cudaGetErrorName(e), got);
  e = cudaDeviceReset();
  got = 0;
  cudaError_t g = cudaDeviceGetLimit(&got, cudaLimitPersistingL2CacheSize);
  printf("after cudaDeviceReset (%s): get %s %zu\n", cudaGetErrorName(e), cudaGetErrorName(g), got);
  printf("DONE\n");
  return 0;
}

// Host-device copy bandwidth under ptxsim's runtime: cudaMemcpy H2D, D2H and D2D of 256 MiB,
// best of 5, printed in GB/s. Run: LD_LIBRARY_PATH=build/lib build/bench/memcpy_bw
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

int main() {
  const size_t n = 256u << 20;
  char *h = nullptr, *d1 = nullptr, *d2 = nullptr;
  if (cudaMallocHost(&h, n) != cudaSuccess || cudaMalloc(&d1, n) != cudaSuccess ||
      cudaMalloc(&d2, n) != cudaSuccess) {
    printf("allocation failed\n");
    return 1;
  }
  memset(h, 1, n);
  cudaMemcpy(d1, h, n, cudaMemcpyHostToDevice); // touch every page once
  cudaMemcpy(d2, d1, n, cudaMemcpyDeviceToDevice);
  struct { const char *name; void *dst; const void *src; cudaMemcpyKind kind; } cases[] = {
      {"host to device", d1, h, cudaMemcpyHostToDevice},
      {"device to host", h, d1, cudaMemcpyDeviceToHost},
      {"device to device", d2, d1, cudaMemcpyDeviceToDevice}};
  for (auto &c : cases) {
    double best = 1e30;
    for (int rep = 0; rep < 5; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      cudaMemcpy(c.dst, c.src, n, c.kind);
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    printf("%-17s %6.1f GB/s\n", c.name, n / best / 1e9);
  }
  return 0;
}

// hwapi probe: cudaOccupancyAvailableDynamicSMemPerBlock for kernels with and without static
// shared memory over numBlocks and blockSize (default limit and opted in), cudaFuncSetSharedMemConfig
// on a kernel, and which widths/heights/depths make cudaMallocPitch and cudaMalloc3D return
// cudaErrorInvalidValue rather than cudaErrorMemoryAllocation.
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

__global__ void plain(float *p) { extern __shared__ float d[]; d[threadIdx.x] = 1; p[threadIdx.x] = d[threadIdx.x ^ 1]; }
__global__ void withStatic(float *p) {
  __shared__ float s[1000];
  extern __shared__ float d[];
  s[threadIdx.x % 1000] = 1; d[threadIdx.x] = 2; __syncthreads();
  p[threadIdx.x] = s[(threadIdx.x + 1) % 1000] + d[threadIdx.x ^ 1];
}
__global__ void __launch_bounds__(1024) big(float *p) { p[threadIdx.x] = 1; }

static void avail(const char *name, const void *f) {
  int nbs[] = {0, 1, 2, 3, 4, 5, 7, 8, 16, 32, 33};
  int bss[] = {0, 32, 128, 1024, 2048};
  for (int bs : bss) {
    printf("%s bs %4d:", name, bs);
    for (int nb : nbs) {
      size_t dyn = 12345;
      cudaError_t e = cudaOccupancyAvailableDynamicSMemPerBlock(&dyn, f, nb, bs);
      cudaError_t l = cudaGetLastError();
      if (e) printf(" nb%d=%s/%s(%zu)", nb, cudaGetErrorName(e), cudaGetErrorName(l), dyn);
      else printf(" nb%d=%zu", nb, dyn);
    }
    printf("\n");
  }
}

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  cudaFree(0);
  cudaDeviceProp pr; cudaGetDeviceProperties(&pr, 0);
  printf("memPitch %zu sharedMemPerBlock %zu optin %zu perSM %zu reserved %zu maxTexture2DLinear %d %d %d\n", pr.memPitch,
         pr.sharedMemPerBlock, pr.sharedMemPerBlockOptin, pr.sharedMemPerMultiprocessor, pr.reservedSharedMemPerBlock,
         pr.maxTexture2DLinear[0], pr.maxTexture2DLinear[1], pr.maxTexture2DLinear[2]);
  avail("plain", (const void *)plain);
  avail("static4000", (const void *)withStatic);
  avail("big", (const void *)big);
  size_t dyn = 0;
  printf("null out -> %s\n", cudaGetErrorName(cudaOccupancyAvailableDynamicSMemPerBlock(nullptr, (const void *)plain, 1, 128)));
  cudaGetLastError();
  printf("set max dyn 100000 plain -> %s; static4000 -> %s\n",
         cudaGetErrorName(cudaFuncSetAttribute((const void *)plain, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000)),
         cudaGetErrorName(cudaFuncSetAttribute((const void *)withStatic, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000)));
  avail("plain/100000", (const void *)plain);
  avail("static4000/100000", (const void *)withStatic);
  cudaFuncSetAttribute((const void *)plain, cudaFuncAttributeMaxDynamicSharedMemorySize, 232448);
  avail("plain/232448", (const void *)plain);
  cudaFuncSetAttribute((const void *)plain, cudaFuncAttributeMaxDynamicSharedMemorySize, 1000);
  avail("plain/1000", (const void *)plain);
  cudaFuncSetAttribute((const void *)plain, cudaFuncAttributePreferredSharedMemoryCarveout, 50);
  cudaFuncSetAttribute((const void *)plain, cudaFuncAttributeMaxDynamicSharedMemorySize, 49152);
  avail("plain/carveout50", (const void *)plain);
  cudaFuncSetCacheConfig((const void *)withStatic, cudaFuncCachePreferL1);
  avail("static4000/100000/preferL1", (const void *)withStatic);
  (void)dyn;
  for (int c : {0, 1, 2, 3, 7, -1}) {
    cudaError_t e = cudaFuncSetSharedMemConfig((const void *)plain, (cudaSharedMemConfig)c);
    printf("cudaFuncSetSharedMemConfig(plain, %d) -> %s; last %s\n", c, cudaGetErrorName(e), cudaGetErrorName(cudaGetLastError()));
  }
  // pitched allocations
  struct { size_t w, h; } ps[] = {{(size_t)1 << 31, 1}, {((size_t)1 << 31) - 1, 1}, {((size_t)1 << 31) + 1, 1},
                                  {(size_t)1 << 32, 1}, {(size_t)1 << 33, 1}, {(size_t)1 << 40, 1}, {SIZE_MAX, 1},
                                  {SIZE_MAX, 0}, {0, 5}, {1024, (size_t)1 << 40}, {1024, (size_t)1 << 30},
                                  {1 << 20, (size_t)1 << 30}, {(size_t)1 << 31, 4}, {1024, SIZE_MAX}, {0, 0}};
  for (auto &q : ps) {
    void *p = nullptr; size_t pitch = 777;
    cudaError_t e = cudaMallocPitch(&p, &pitch, q.w, q.h);
    printf("cudaMallocPitch(w %zu, h %zu) -> %s pitch %zu p %s\n", q.w, q.h, cudaGetErrorName(e), pitch, p ? "set" : "null");
    cudaGetLastError();
    if (p) cudaFree(p);
  }
  struct { size_t w, h, d; } es[] = {{(size_t)1 << 30, (size_t)1 << 30, (size_t)1 << 30}, {(size_t)1 << 31, 1, 1},
                                     {((size_t)1 << 31) + 1, 1, 1}, {(size_t)1 << 32, 1, 1}, {1024, (size_t)1 << 30, (size_t)1 << 30},
                                     {1024, (size_t)1 << 20, (size_t)1 << 20}, {1024, (size_t)1 << 40, 1}, {1024, 1, (size_t)1 << 40},
                                     {1024, (size_t)1 << 32, 1}, {1024, 1, (size_t)1 << 32}, {1024, 1 << 20, 1 << 10},
                                     {1 << 20, 1 << 20, 1}, {1 << 20, 1 << 10, 1 << 10}, {0, 0, 0}, {0, 4, 4}, {16, 0, 4}, {16, 4, 0},
                                     {SIZE_MAX, 1, 1}};
  for (auto &q : es) {
    cudaPitchedPtr pp = {(void *)0x1, 777, 777, 777};
    cudaError_t e = cudaMalloc3D(&pp, make_cudaExtent(q.w, q.h, q.d));
    printf("cudaMalloc3D(%zu, %zu, %zu) -> %s pitch %zu xsize %zu ysize %zu p %s\n", q.w, q.h, q.d, cudaGetErrorName(e), pp.pitch,
           pp.xsize, pp.ysize, pp.ptr == (void *)0x1 ? "untouched" : pp.ptr ? "set" : "null");
    cudaGetLastError();
    if (e == cudaSuccess && pp.ptr) cudaFree(pp.ptr);
  }
  printf("DONE\n");
  return 0;
}

// hwapi probe: 2D memsets and copies whose width exceeds the pitch (height 1 and 2), widths equal
// to the pitch, zero sizes, and what the memory holds afterwards.
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#define R(call) do { cudaError_t e_ = (call); cudaError_t l_ = cudaGetLastError(); \
  printf("%-78s -> %s (lastError %s)\n", #call, cudaGetErrorName(e_), cudaGetErrorName(l_)); } while (0)

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  const int w = 100, h = 37;
  float *d = nullptr;
  size_t pitch = 0;
  cudaMallocPitch((void **)&d, &pitch, w * sizeof(float), h);
  printf("pitch %zu\n", pitch);
  cudaStream_t s;
  cudaStreamCreate(&s);
  R(cudaMemset2D(d, pitch, 0, pitch + 1, 1));
  R(cudaMemset2D(d, pitch, 0, pitch + 1, 2));
  R(cudaMemset2D(d, pitch, 0, pitch, 2));
  R(cudaMemset2D(d, pitch, 0, 2 * pitch, 1));
  R(cudaMemset2D(d, pitch, 0, 0, 2));
  R(cudaMemset2D(d, pitch, 0, pitch, 0));
  R(cudaMemset2DAsync(d, pitch, 0, pitch + 1, 1, s));
  R(cudaMemset2DAsync(d, pitch, 0, pitch + 1, 2, s));
  R(cudaMemset2D(d, 0, 0, 4, 1));
  R(cudaMemset2D(d, 0, 0, 4, 2));
  std::vector<char> host(2 * pitch + 64, 7);
  R(cudaMemcpy2D(d, pitch, host.data(), pitch, pitch + 1, 1, cudaMemcpyHostToDevice));
  R(cudaMemcpy2D(d, pitch, host.data(), pitch, pitch + 1, 2, cudaMemcpyHostToDevice));
  R(cudaMemcpy2D(d, pitch, host.data(), 2 * pitch, pitch + 1, 1, cudaMemcpyHostToDevice));
  R(cudaMemcpy2D(d, pitch, host.data(), 2 * pitch, pitch + 1, 2, cudaMemcpyHostToDevice));
  R(cudaMemcpy2D(host.data(), 8, d, pitch, 16, 1, cudaMemcpyDeviceToHost));
  R(cudaMemcpy2D(host.data(), 8, d, pitch, 16, 2, cudaMemcpyDeviceToHost));
  R(cudaMemcpy2DAsync(d, pitch, host.data(), pitch, pitch + 1, 1, cudaMemcpyHostToDevice, s));
  R(cudaMemcpy2DAsync(d, pitch, host.data(), pitch, pitch + 1, 2, cudaMemcpyHostToDevice, s));
  R(cudaStreamSynchronize(s));
  // what a width > pitch, height 1 memset wrote
  R(cudaMemset(d, 0, pitch * 2));
  R(cudaMemset2D(d, pitch, 0x5a, pitch + 8, 1));
  std::vector<unsigned char> back(pitch * 2);
  R(cudaMemcpy(back.data(), d, pitch * 2, cudaMemcpyDeviceToHost));
  size_t n5a = 0;
  for (size_t i = 0; i < back.size(); ++i) n5a += back[i] == 0x5a;
  printf("bytes set to 0x5a after memset2D(width pitch+8, height 1): %zu (first %d, byte[pitch+7] %d, byte[pitch+8] %d)\n",
         n5a, back[0], back[pitch + 7], back[pitch + 8]);
  printf("DONE\n");
  return 0;
}

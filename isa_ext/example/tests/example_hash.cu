// End-to-end test of the example extension (isa_ext/example): a CUDA kernel that uses the
// extension's instruction through inline PTX, built PTX-only (ptxas does not know the
// instruction; ptxsim runs the PTX). Checks every value against the host's reference.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

__device__ __forceinline__ uint32_t exhash(uint32_t x) {
  uint32_t r;
  asm volatile("exhash.b32 %0, %1;" : "=r"(r) : "r"(x));
  return r;
}

__global__ void hashPairs(const uint32_t *in, uint32_t *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = exhash(in[i]) ^ exhash(in[i] + 1u);
}

static uint32_t mixRef(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 5000;
  std::vector<uint32_t> in(n), out(n);
  uint32_t s = 12345;
  for (int i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    in[i] = s;
  }
  uint32_t *dIn, *dOut;
  cudaMalloc(&dIn, n * sizeof(uint32_t));
  cudaMalloc(&dOut, n * sizeof(uint32_t));
  cudaMemcpy(dIn, in.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice);
  hashPairs<<<(n + 127) / 128, 128>>>(dIn, dOut, n);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("example hash: kernel failed: %s\n", cudaGetErrorName(e));
    return 1;
  }
  cudaMemcpy(out.data(), dOut, n * sizeof(uint32_t), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (out[i] != (mixRef(in[i]) ^ mixRef(in[i] + 1u)) && bad++ < 5)
      std::printf("mismatch at %d: %08x\n", i, out[i]);
  std::printf("example hash: %d values, %s\n", n, bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}

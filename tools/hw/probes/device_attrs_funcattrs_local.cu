// hwapi probe: cudaFuncGetAttributes for kernels with local arrays: the test's staticUse (a
// volatile local array ptxas folds away) and variants whose local array holds loaded data at a
// run-time index (which ptxas must keep in local memory); all the attribute fields.
#include <cstdio>
#include <cuda_runtime.h>

__constant__ float c_table[300];

__global__ void __launch_bounds__(256) staticUse(const int *idx, float *out) {
  __shared__ float tile[1000];
  volatile int local[64];
  int t = threadIdx.x;
  for (int i = 0; i < 64; ++i) local[i] = i * t;
  tile[t] = c_table[t % 300];
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = tile[(t + 1) % blockDim.x] + local[idx[t] & 63];
}

__global__ void __launch_bounds__(256) loadedLocal(const int *idx, float *out) {
  __shared__ float tile[1000];
  int local[64];
  int t = threadIdx.x;
  for (int i = 0; i < 64; ++i) local[i] = idx[(i * 5 + t) & 255] * t;
  tile[t] = c_table[t % 300];
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = tile[(t + 1) % blockDim.x] + local[idx[t] & 63];
}

__global__ void bigLocal(const int *idx, int *out) {
  int local[256];
  int t = threadIdx.x;
  for (int i = 0; i < 256; ++i) local[i] = idx[(i + t) & 255];
  out[t] = local[idx[t] & 255] + local[(idx[t] >> 8) & 255];
}

static void show(const char *name, const void *f) {
  cudaFuncAttributes a;
  cudaError_t e = cudaFuncGetAttributes(&a, f);
  printf("%-12s %s: shared %zu const %zu local %zu maxThreads %d regs %d ptx %d binary %d maxDynShared %d cacheModeCA %d carveout %d\n",
         name, cudaGetErrorName(e), a.sharedSizeBytes, a.constSizeBytes, a.localSizeBytes, a.maxThreadsPerBlock,
         a.numRegs, a.ptxVersion, a.binaryVersion, a.maxDynamicSharedSizeBytes, a.cacheModeCA,
         a.preferredShmemCarveout);
}

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);
  show("staticUse", (const void *)staticUse);
  show("loadedLocal", (const void *)loadedLocal);
  show("bigLocal", (const void *)bigLocal);
  printf("DONE\n");
  return 0;
}

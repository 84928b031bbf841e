// Kernels the driver-API test programs load as PTX text, as a fat binary and (drv_mixed) next
// to the runtime's own: built with `nvcc -ptx` and `nvcc -fatbin`, never linked into a host.
#include <cooperative_groups.h>

__constant__ float cScale;
__device__ int gCounter;
__device__ float gTable[4] = {1.0f, 2.0f, 3.0f, 4.0f};

extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

// Scales by the __constant__ cScale and counts the threads in the __device__ gCounter.
extern "C" __global__ void scaleConst(float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] *= cScale * gTable[i % 4];
    atomicAdd(&gCounter, 1);
  }
}

// Parameters of mixed sizes and alignments (the CU_LAUNCH_PARAM_BUFFER_POINTER layout).
extern "C" __global__ void mixedParams(char c, double d, short s, long long q, int *out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    out[0] = c;
    out[1] = int(d * 4);
    out[2] = s;
    out[3] = int(q >> 32);
    out[4] = int(q & 0xffffffff);
  }
}

// Every block adds its id, then (after a grid-wide barrier) block 0 reads the total.
extern "C" __global__ void gridTotal(int *partial, int *total) {
  namespace cg = cooperative_groups;
  cg::grid_group g = cg::this_grid();
  if (threadIdx.x == 0)
    partial[blockIdx.x] = blockIdx.x + 1;
  g.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    int s = 0;
    for (unsigned b = 0; b < gridDim.x; ++b)
      s += partial[b];
    *total = s;
  }
}

// A C++ (mangled) kernel with dynamic shared memory: a block-wide reverse.
template <typename T> __global__ void reverseBlock(T *data) {
  extern __shared__ unsigned char raw[];
  T *tile = reinterpret_cast<T *>(raw);
  unsigned t = threadIdx.x, base = blockIdx.x * blockDim.x;
  tile[t] = data[base + t];
  __syncthreads();
  data[base + t] = tile[blockDim.x - 1 - t];
}
template __global__ void reverseBlock<int>(int *);

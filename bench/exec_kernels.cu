// Kernels for bench_exec: one ALU-bound, one memory-bound, one divergent and shuffle-heavy.
// Compiled to PTX by nvcc at build time and run by the functional executor.

// Integer and float arithmetic with no memory traffic inside the loop.
extern "C" __global__ void alu_bound(unsigned *out, int iters) {
  unsigned x = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned y = x * 2654435761u;
  float f = (float)x;
  for (int i = 0; i < iters; ++i) {
    x = x * 1664525u + 1013904223u;
    y ^= x >> 7;
    y += (x << 3) | (y >> 29);
    f = f * 0.999f + 1.0f;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x ^ y ^ __float_as_uint(f);
}

// Streaming: y = a * x + y with a grid-stride loop.
extern "C" __global__ void memory_bound(const float *x, float *y, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}

// Data-dependent trip counts (divergence) and warp shuffles.
extern "C" __global__ void divergent_shuffle(const unsigned *in, unsigned *out) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[tid];
  unsigned n = v & 31;
  unsigned acc = 0;
  for (unsigned i = 0; i < n; ++i) {
    if (acc & 1)
      acc = acc * 3 + 1;
    else
      acc = (acc >> 1) + i;
  }
  for (int off = 16; off > 0; off >>= 1)
    acc += __shfl_xor_sync(0xffffffffu, acc, off);
  out[tid] = acc;
}

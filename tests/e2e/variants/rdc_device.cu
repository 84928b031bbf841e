// Device half of the -rdc=true test: device functions, variables and a kernel that the other
// translation unit (rdc_main.cu) uses; it in turn uses g_bias, defined there.
#include "rdc_device.h"

__device__ int g_calls = 0;
__device__ float g_coeffs[4] = {1.0f, 0.0f, 0.0f, 0.0f};

__device__ float polynomial(float x) {
  atomicAdd(&g_calls, 1);
  return g_bias + g_coeffs[0] + x * (g_coeffs[1] + x * (g_coeffs[2] + x * g_coeffs[3]));
}

__device__ int clampIndex(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

__global__ void fillSquares(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = i * i;
}

// Host half of the -rdc=true test: kernels here call device functions and use device variables
// defined in rdc_device.cu (resolved by nvcc's device link), and launch a kernel defined there.
static const char *kName = "rdc";
#include "../../kernels/test_common.h"
#include "rdc_device.h"
#include <cmath>

__device__ float g_bias = 0.0f;

__global__ void evalPolynomial(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = polynomial(x[clampIndex(i, n)]);
}

int main() {
  const int n = 200;
  const float coeffs[4] = {0.5f, -1.0f, 0.25f, 2.0f}, bias = 3.0f;
  CK(cudaMemcpyToSymbol(g_coeffs, coeffs, sizeof(coeffs)));
  CK(cudaMemcpyToSymbol(g_bias, &bias, sizeof(bias)));
  float hx[n], hy[n];
  for (int i = 0; i < n; ++i)
    hx[i] = (i - n / 2) * 0.01f;
  float *dx, *dy;
  int *dsq;
  CK(cudaMalloc(&dx, sizeof(hx)));
  CK(cudaMalloc(&dy, sizeof(hy)));
  CK(cudaMalloc(&dsq, n * sizeof(int)));
  CK(cudaMemcpy(dx, hx, sizeof(hx), cudaMemcpyHostToDevice));
  evalPolynomial<<<(n + 63) / 64, 64>>>(dx, dy, n);
  CK(cudaGetLastError());
  fillSquares<<<(n + 63) / 64, 64>>>(dsq, n);
  CK(cudaGetLastError());
  CK(cudaMemcpy(hy, dy, sizeof(hy), cudaMemcpyDeviceToHost));
  int sq[n], calls = -1;
  CK(cudaMemcpy(sq, dsq, sizeof(sq), cudaMemcpyDeviceToHost));
  CK(cudaMemcpyFromSymbol(&calls, g_calls, sizeof(calls)));
  for (int i = 0; i < n; ++i) {
    float x = hx[i];
    float want = bias + coeffs[0] + x * (coeffs[1] + x * (coeffs[2] + x * coeffs[3]));
    EXPECT(std::fabs(hy[i] - want) <= 1e-5f, "y[%d] = %f, expected %f", i, hy[i], want);
    EXPECT(sq[i] == i * i, "squares[%d] = %d", i, sq[i]);
  }
  EXPECT(calls == n, "g_calls = %d, expected %d", calls, n);
  return finish();
}

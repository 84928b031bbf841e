// ptxsim e2e: pitched allocations with 2D copies and memsets, stream-ordered allocation,
// host callbacks and functions on streams, all in stream order.
static const char *kName = "api_pitched_async";
#include <vector>
#include "../kernels/test_common.h"

__global__ void addRows(float *m, size_t pitch, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) {
    float *row = (float *)((char *)m + y * pitch);
    row[x] += (float)(y * 1000 + x);
  }
}

static int g_calls = 0;
static void CUDART_CB onHost(void *p) { g_calls += *(int *)p; }
static void CUDART_CB onStream(cudaStream_t, cudaError_t st, void *p) {
  if (st == cudaSuccess)
    g_calls += *(int *)p * 10;
}

int main() {
  const int w = 100, h = 37;
  float *d = nullptr;
  size_t pitch = 0;
  CK(cudaMallocPitch((void **)&d, &pitch, w * sizeof(float), h));
  EXPECT(pitch >= w * sizeof(float) && pitch % 256 == 0, "pitch %zu", pitch);
  CK(cudaMemset2D(d, pitch, 0, w * sizeof(float), h));
  std::vector<float> host(w * h, 0.5f), back(w * h, -1.0f);
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  CK(cudaMemcpy2DAsync(d, pitch, host.data(), w * sizeof(float), w * sizeof(float), h,
                       cudaMemcpyHostToDevice, s));
  addRows<<<dim3((w + 63) / 64, h), 64, 0, s>>>(d, pitch, w, h);
  CK(cudaGetLastError());
  int one = 1;
  CK(cudaLaunchHostFunc(s, onHost, &one));
  CK(cudaStreamAddCallback(s, onStream, &one, 0));
  CK(cudaMemcpy2DAsync(back.data(), w * sizeof(float), d, pitch, w * sizeof(float), h,
                       cudaMemcpyDeviceToHost, s));
  CK(cudaStreamSynchronize(s));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      EXPECT(back[y * w + x] == 0.5f + (float)(y * 1000 + x), "m[%d][%d] = %f", y, x, back[y * w + x]);
  EXPECT(g_calls == 11, "host function and callback ran %d", g_calls);
  // rows wider than the pitch, as an H200 answers: a single row is set whole, overlapping rows
  // are cudaErrorInvalidValue; a copy's row wider than a pitch is cudaErrorInvalidValue for one
  // row and cudaErrorInvalidPitchValue for more
  CK(cudaMemset(d, 0, 2 * pitch));
  CK(cudaMemset2D(d, pitch, 0x5a, pitch + 8, 1));
  std::vector<unsigned char> bytes(2 * pitch);
  CK(cudaMemcpy(bytes.data(), d, 2 * pitch, cudaMemcpyDeviceToHost));
  EXPECT(bytes[pitch + 7] == 0x5a && bytes[pitch + 8] == 0 && bytes[0] == 0x5a,
         "one row wider than the pitch: %d %d %d", bytes[0], bytes[pitch + 7], bytes[pitch + 8]);
  cudaError_t e = cudaMemset2D(d, pitch, 0, pitch + 1, 2);
  EXPECT(e == cudaErrorInvalidValue, "overlapping memset rows: %s", cudaGetErrorName(e));
  e = cudaMemcpy2D(d, pitch, host.data(), pitch, pitch + 1, 1, cudaMemcpyHostToDevice);
  EXPECT(e == cudaErrorInvalidValue, "one copied row wider than the pitch: %s", cudaGetErrorName(e));
  e = cudaMemcpy2D(d, pitch, host.data(), pitch, pitch + 1, 2, cudaMemcpyHostToDevice);
  EXPECT(e == cudaErrorInvalidPitchValue, "copied rows wider than the pitch: %s", cudaGetErrorName(e));
  cudaGetLastError();

  int *a = nullptr;
  CK(cudaMallocAsync((void **)&a, 64 * sizeof(int), s));
  CK(cudaMemsetAsync(a, 0xff, 64 * sizeof(int), s));
  int hv[64];
  CK(cudaMemcpyAsync(hv, a, sizeof hv, cudaMemcpyDeviceToHost, s));
  CK(cudaFreeAsync(a, s));
  CK(cudaStreamSynchronize(s));
  EXPECT(hv[63] == -1, "memset through stream-ordered allocation: %d", hv[63]);
  CK(cudaStreamDestroy(s));
  CK(cudaFree(d));
  return finish();
}

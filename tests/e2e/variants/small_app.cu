// A small self-checking program for the build-variant tests: it is built with every nvcc
// --compress-mode, with -Xfatbin -compress-all, and with no -arch flag at all, and must give the
// same answers under ptxsim each time. Several kernels, so the fatbin has some PTX to compress.
static const char *kName = "small_app";
#include "../../kernels/test_common.h"

__constant__ int c_shift;

__global__ void saxpy(float a, const float *x, float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}

__global__ void blockMax(const int *in, int *out, int n) {
  __shared__ int s[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : -2147483647 - 1;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride)
      s[threadIdx.x] = max(s[threadIdx.x], s[threadIdx.x + stride]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = s[0];
}

__global__ void classify(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int v = in[i] + c_shift, r;
  switch (v & 7) {
  case 0:
    r = v * 3;
    break;
  case 1:
    r = v ^ 0x55;
    break;
  case 2:
    r = v >> 2;
    break;
  case 3:
    r = __popc(v);
    break;
  case 4:
    r = __clz(v);
    break;
  default:
    r = -v;
    break;
  }
  out[i] = r + __shfl_xor_sync(0xffffffffu, v, 1) * 0; // keeps a warp op in the PTX
}

static int classifyHost(int v) {
  switch (v & 7) {
  case 0:
    return v * 3;
  case 1:
    return v ^ 0x55;
  case 2:
    return v >> 2;
  case 3:
    return __builtin_popcount(v);
  case 4:
    return v == 0 ? 32 : __builtin_clz(v);
  default:
    return -v;
  }
}

int main() {
  const int n = 1000, blocks = (n + 127) / 128, shift = 5;
  float hx[n], hy[n];
  int hi[n], hmax[blocks], hclass[n];
  for (int i = 0; i < n; ++i) {
    hx[i] = 0.5f * i;
    hy[i] = 1.0f;
    hi[i] = (i * 7919) % 1009 - 500;
  }
  float *dx, *dy;
  int *di, *dmax, *dclass;
  CK(cudaMalloc(&dx, sizeof(hx)));
  CK(cudaMalloc(&dy, sizeof(hy)));
  CK(cudaMalloc(&di, sizeof(hi)));
  CK(cudaMalloc(&dmax, sizeof(hmax)));
  CK(cudaMalloc(&dclass, sizeof(hclass)));
  CK(cudaMemcpy(dx, hx, sizeof(hx), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dy, hy, sizeof(hy), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(di, hi, sizeof(hi), cudaMemcpyHostToDevice));
  CK(cudaMemcpyToSymbol(c_shift, &shift, sizeof(shift)));
  saxpy<<<4, 64>>>(2.0f, dx, dy, n);
  blockMax<<<blocks, 128>>>(di, dmax, n);
  classify<<<blocks, 128>>>(di, dclass, n);
  CK(cudaGetLastError());
  CK(cudaMemcpy(hy, dy, sizeof(hy), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hmax, dmax, sizeof(hmax), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hclass, dclass, sizeof(hclass), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    EXPECT(hy[i] == 2.0f * hx[i] + 1.0f, "y[%d] = %f", i, hy[i]);
    EXPECT(hclass[i] == classifyHost(hi[i] + shift), "class[%d] = %d, expected %d", i, hclass[i],
           classifyHost(hi[i] + shift));
  }
  for (int b = 0; b < blocks; ++b) {
    int want = -2147483647 - 1;
    for (int i = b * 128; i < n && i < (b + 1) * 128; ++i)
      want = hi[i] > want ? hi[i] : want;
    EXPECT(hmax[b] == want, "max of block %d = %d, expected %d", b, hmax[b], want);
  }
  return finish();
}

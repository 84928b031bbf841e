// ptxsim demo sample: element-wise vector addition with a grid-stride loop, plus a block-level
// reduction of the result, checked on the host.

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                            \
  do {                                                                                         \
    cudaError_t err_ = (call);                                                                 \
    if (err_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                \
                   cudaGetErrorString(err_));                                                  \
      return 1;                                                                                \
    }                                                                                          \
  } while (0)

__global__ void vecAdd(const float *a, const float *b, float *c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
}

__global__ void blockSum(const float *c, float *partial, int n) {
  extern __shared__ float tile[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? c[i] : 0.0f;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride)
      tile[threadIdx.x] += tile[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partial[blockIdx.x] = tile[0];
}

int main() {
  const int n = 4096, threads = 256, blocks = (n + threads - 1) / threads;
  std::vector<float> a(n), b(n), c(n), partial(blocks);
  for (int i = 0; i < n; ++i) {
    a[i] = 0.5f * static_cast<float>(i);
    b[i] = static_cast<float>(n - i);
  }
  float *da, *db, *dc, *dp;
  CHECK(cudaMalloc(&da, n * sizeof(float)));
  CHECK(cudaMalloc(&db, n * sizeof(float)));
  CHECK(cudaMalloc(&dc, n * sizeof(float)));
  CHECK(cudaMalloc(&dp, blocks * sizeof(float)));
  CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  vecAdd<<<blocks / 2, threads>>>(da, db, dc, n);
  CHECK(cudaGetLastError());
  blockSum<<<blocks, threads, threads * sizeof(float)>>>(dc, dp, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(partial.data(), dp, blocks * sizeof(float), cudaMemcpyDeviceToHost));
  double total = 0;
  for (int i = 0; i < n; ++i) {
    float want = a[i] + b[i];
    if (c[i] != want) {
      std::printf("FAIL vecadd: c[%d] = %f, expected %f\n", i, c[i], want);
      return 1;
    }
    total += want;
  }
  double sum = 0;
  for (float p : partial)
    sum += p;
  if (sum != total) {
    std::printf("FAIL vecadd: block sums add to %f, expected %f\n", sum, total);
    return 1;
  }
  std::printf("PASS vecadd: %d elements, sum %.1f\n", n, sum);
  return 0;
}

// The reference document's multi-chiplet example: one CPU chiplet and three GPU chiplets
// multiply C = A x B. The CPU chiplet (0,0) splits the inner dimension in three, sends each GPU
// chiplet its slices A_k (N x N) and B_k (N x N), and sums the partial products the GPUs send
// back; the GPU chiplets move data with the document's legacy `addc` encoding (the same
// passMessage/readMessage kernels), so run it with --legacy-addc:
//   ptxsim chiplets --grid 2x2 --cpu 0,0 --legacy-addc -- ./chiplet_matmul {x} {y}
// Every chiplet runs this program; argv[1], argv[2] are its coordinates, as in the document, and
// an optional argv[3] is N (default 32, a multiple of 16 up to 256): the same on every chiplet.
// The CPU chiplet checks C against a host reference and prints PASS or FAIL.

#include "../common/sample.h"
#include "ptxsim_chiplet_host.h"

#include <cstdlib>
#include <vector>

constexpr int kGpus = 3; // (0,1), (1,0), (1,1)

__global__ void matrixMulGpu(const int *M, const int *Nm, int *P, int width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= width || j >= width)
    return;
  int sum = 0;
  for (int k = 0; k < width; ++k)
    sum += M[j * width + k] * Nm[k * width + i];
  P[j * width + i] = sum;
}

// The document's kernels: para1 = abcdefghi, ab/cd this chiplet, ef/gh the peer, i = 0 send /
// 1 receive; one addc moves one int.
__global__ void passMessage(int dstX, int dstY, int srcX, int srcY, int *data, int dataSize) {
  int para1 = srcX * 10000000 + srcY * 100000 + dstX * 1000 + dstY * 10;
  for (int i = 0; i < dataSize; i++)
    asm("addc.s32 %0, %1, %2;" : "=r"(data[i]) : "r"(para1), "r"(data[i]));
}

__global__ void readMessage(int dstX, int dstY, int srcX, int srcY, int *data, int dataSize) {
  int para1 = srcX * 10000000 + srcY * 100000 + dstX * 1000 + dstY * 10 + 1;
  for (int i = 0; i < dataSize; i++) {
    data[i] = i;
    asm("addc.s32 %0, %1, %2;" : "=r"(data[i]) : "r"(para1), "r"(data[i]));
  }
}

static const int kGpuX[kGpus] = {0, 1, 1}, kGpuY[kGpus] = {1, 0, 1};

int main(int argc, char **argv) {
  if (argc < 3) {
    std::printf("usage: chiplet_matmul X Y [N] (run it with ptxsim chiplets)\nFAIL\n");
    return 2;
  }
  int x = std::atoi(argv[1]), y = std::atoi(argv[2]);
  const int N = argc > 3 ? std::atoi(argv[3]) : 32; // each GPU multiplies N x N slices
  const int K = N * kGpus;
  if (N < 16 || N > 256 || N % 16) {
    std::printf("chiplet_matmul: N must be a multiple of 16 from 16 to 256, got '%s'\nFAIL\n",
                argv[3]);
    return 2;
  }
  if (x == 0 && y == 0) { // the CPU chiplet
    std::vector<int> A(N * K), B(K * N);
    Rng rng(2024);
    for (int &v : A)
      v = (int)(rng.next() % 51);
    for (int &v : B)
      v = (int)(rng.next() % 51);
    for (int g = 0; g < kGpus; ++g) {
      std::vector<int> a(N * N), b(N * N);
      for (int r = 0; r < N; ++r)
        for (int c = 0; c < N; ++c) {
          a[r * N + c] = A[r * K + g * N + c];
          b[r * N + c] = B[(g * N + r) * N + c];
        }
      sendGpuMessage(kGpuX[g], kGpuY[g], x, y, a.data(), N * N);
      sendGpuMessage(kGpuX[g], kGpuY[g], x, y, b.data(), N * N);
    }
    std::vector<int> C(N * N, 0), part(N * N);
    for (int g = 0; g < kGpus; ++g) {
      readGpuMessage(kGpuX[g], kGpuY[g], x, y, part.data(), N * N);
      for (int i = 0; i < N * N; ++i)
        C[i] += part[i];
    }
    int bad = 0;
    for (int r = 0; r < N; ++r)
      for (int c = 0; c < N; ++c) {
        int want = 0;
        for (int k = 0; k < K; ++k)
          want += A[r * K + k] * B[k * N + c];
        bad += C[r * N + c] != want;
      }
    std::printf("chiplet matmul %dx%d x %dx%d over %d GPU chiplets: C[0]=%d C[%d]=%d, %d wrong\n%s\n",
                N, K, K, N, kGpus, C[0], N * N - 1, C[N * N - 1], bad, bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
  }
  // a GPU chiplet
  int *dA, *dB, *dC;
  CHECK(cudaMalloc(&dA, sizeof(int) * N * N));
  CHECK(cudaMalloc(&dB, sizeof(int) * N * N));
  CHECK(cudaMalloc(&dC, sizeof(int) * N * N));
  readMessage<<<1, 1>>>(0, 0, x, y, dA, N * N);
  readMessage<<<1, 1>>>(0, 0, x, y, dB, N * N);
  matrixMulGpu<<<dim3(N / 16, N / 16), dim3(16, 16)>>>(dA, dB, dC, N);
  passMessage<<<1, 1>>>(0, 0, x, y, dC, N * N);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(dA));
  CHECK(cudaFree(dB));
  CHECK(cudaFree(dC));
  std::printf("GPU chiplet (%d,%d) sent its %dx%d partial product\n", x, y, N, N);
  return 0;
}

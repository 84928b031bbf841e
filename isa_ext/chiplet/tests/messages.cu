// Message boundaries and per-warp channels (docs/chiplets.md), on a 2x1 grid of GPU chiplets.
//   messages warps ITERS   every warp of a 2-CTA x 4-warp kernel sends ITERS one-word messages
//                          per lane to the other chiplet, after a warp-dependent amount of work
//                          (so in timing mode the warps send in scheduler order, not warp
//                          order), then receives the other chiplet's; each warp must get exactly
//                          what the same warp of the other chiplet sent. Prints a checksum that
//                          is the same in functional and timing mode and on both transports.
//   messages mixed         (0,0) sends one 4-word message, (1,0) receives one word: an error
//                          naming both instructions and sizes (never data).
// PTX only (ptxas does not know the chiplet instructions).

#include "ptxsim_chiplet.cuh"
#include "ptxsim_chiplet_host.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

__device__ int value(int chiplet, int warp, int lane, int it) {
  return ((chiplet * 64 + warp) * 32 + lane) * 1000 + it;
}

__global__ void exchange(int peerX, int self, int iters, int *bad, int *sum) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  // warp-dependent work first: later warps of a CTA send earlier or later than warp order
  float f = 1.0f + lane;
  for (int k = 0; k < (7 - warp) * 40; ++k)
    f = f * 1.0001f + 0.5f;
  if (f < 0) // never: keeps the loop
    bad[0] = -1;
  for (int it = 0; it < iters; ++it)
    chipletSend(peerX, 0, value(self, warp, lane, it));
  for (int it = 0; it < iters; ++it) {
    int v = chipletRecv(peerX, 0);
    if (v != value(peerX, warp, lane, it))
      atomicAdd(bad, 1);
    atomicAdd(sum, v % 9973);
  }
}

__global__ void sendFour(int dx) { chipletSend4(dx, 0, make_int4(1, 2, 3, 4)); }
__global__ void recvOne(int sx, int *out) { *out = chipletRecv(sx, 0); }

int main(int argc, char **argv) {
  int x, y, w, h;
  if (!ptxsimChipletSelf(&x, &y, &w, &h) || w != 2 || h != 1) {
    std::printf("run it with: ptxsim chiplets --grid 2x1 -- ./messages warps|mixed\nFAIL\n");
    return 2;
  }
  const char *mode = argc > 1 ? argv[1] : "warps";
  int *d;
  cudaMalloc(&d, 2 * sizeof(int));
  cudaMemset(d, 0, 2 * sizeof(int));
  if (std::strcmp(mode, "mixed") == 0) {
    if (x == 0)
      sendFour<<<1, 1>>>(1);
    else
      recvOne<<<1, 1>>>(0, d);
    cudaError_t e = cudaDeviceSynchronize();
    std::printf("chiplet (%d,%d): %s\n", x, y, cudaGetErrorString(e));
    return 0;
  }
  int iters = argc > 2 ? std::atoi(argv[2]) : 3;
  exchange<<<2, 128>>>(1 - x, x, iters, d, d + 1);
  cudaError_t e = cudaDeviceSynchronize();
  int r[2] = {-1, -1};
  cudaMemcpy(r, d, sizeof r, cudaMemcpyDeviceToHost);
  std::printf("chiplet (%d,%d): %d wrong, checksum %d %s\n", x, y, r[0], r[1],
              e == cudaSuccess && r[0] == 0 ? "PASS" : "FAIL");
  return r[0] == 0 && e == cudaSuccess ? 0 : 1;
}

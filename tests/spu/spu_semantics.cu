// SPU semantics, end to end (tests/spu): every unit stamps its south and east CBs with a token
// naming the unit, the time step and the thread; every reader checks it gets exactly the token
// its neighbour wrote one step earlier: never the current step's, never an older one. Blocks in
// later passes read tokens that blocks of earlier passes wrote, so the VIUs' spill and restore
// must round-trip the CBs exactly. The misuse modes must end in the documented faults.
//
//   spu_semantics tokens GX GY STEPS THREADS
//   spu_semantics oob | misaligned | nocb | deadlock | regs

#include "spu.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__device__ unsigned token(int row, int col, int step, unsigned tid) {
  unsigned h = (unsigned)(row + 7) * 2654435761u ^ (unsigned)(col + 7) * 40503u ^ (unsigned)step * 97u;
  return (h ^ (h >> 13)) + tid * 3u + 1u;
}

__global__ void tokens(int *errors, int *firstBad, int gx, int gy, int steps) {
  unsigned tid = threadIdx.x;
  unsigned off = tid * 4;
  int row, col;
  bool readN = true, readW = true, writeS = true, writeE = true;
  if (spu_role() == SPU_IU) {
    int id = (int)spu_id();
    switch (spu_dir()) {
    case SPU_NORTH: row = -1, col = id, readN = readW = writeE = false; break;
    case SPU_WEST: row = id, col = -1, readN = readW = writeS = false; break;
    case SPU_SOUTH: row = gy, col = id, readW = writeS = writeE = false; break;
    default: row = id, col = gx, readN = writeS = writeE = false; break; // east
    }
  } else {
    row = blockIdx.y, col = blockIdx.x;
  }
  for (int s = 0; s < steps; ++s) {
    if (s > 0) {
      // what the neighbour wrote at s - 1 (a west neighbour of column 0 is the west IU, ...)
      if (readN) {
        unsigned v = spu_cb_load_north<unsigned>(off);
        if (v != token(row - 1, col, s - 1, tid) && atomicAdd(errors, 1) == 0)
          *firstBad = (row + 1) * 100000 + (col + 1) * 100 + s;
      }
      if (readW) {
        unsigned v = spu_cb_load_west<unsigned>(off);
        if (v != token(row, col - 1, s - 1, tid) && atomicAdd(errors, 1) == 0)
          *firstBad = -((row + 1) * 100000 + (col + 1) * 100 + s);
      }
    }
    if (writeS)
      spu_cb_store_south(off, token(row, col, s, tid));
    if (writeE)
      spu_cb_store_east(off, token(row, col, s, tid));
    if (spu_step() != (unsigned)s && atomicAdd(errors, 1) == 0)
      *firstBad = 999999;
    spu_block_sync();
  }
}

__global__ void misuse(int mode, int *out) {
  switch (mode) {
  case 0: // past the CB's end
    if (spu_role() == SPU_SM)
      out[0] = spu_cb_load_north<int>(1u << 20);
    break;
  case 1: // misaligned
    if (spu_role() == SPU_SM)
      spu_cb_store_south<int>(2, 1);
    break;
  case 2: // a west IU has no north CB
    if (spu_role() == SPU_IU && spu_dir() == SPU_WEST)
      out[0] = spu_cb_load_north<int>(0);
    break;
  case 3: // half of block (0,0) waits at __syncthreads, the other half at spu.sync
    if (spu_role() == SPU_SM && blockIdx.x == 0 && blockIdx.y == 0) {
      if (threadIdx.x < 32)
        __syncthreads();
      else
        spu_block_sync();
    }
    spu_block_sync();
    break;
  case 4: // role registers of every unit
    if (spu_role() == SPU_SM)
      out[blockIdx.y * gridDim.x + blockIdx.x] = 1000 * spu_pass() + 10 * spu_i() + spu_j();
    break;
  }
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "tokens";
  int *d;
  cudaMalloc(&d, 64 * sizeof(int));
  cudaMemset(d, 0, 64 * sizeof(int));
  if (!std::strcmp(mode, "tokens")) {
    int gx = argc > 2 ? std::atoi(argv[2]) : 6, gy = argc > 3 ? std::atoi(argv[3]) : 5;
    int steps = argc > 4 ? std::atoi(argv[4]) : 7, threads = argc > 5 ? std::atoi(argv[5]) : 64;
    tokens<<<dim3(gx, gy), threads>>>(d, d + 1, gx, gy, steps);
    cudaError_t e = cudaDeviceSynchronize();
    int h[2];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    std::printf("tokens %dx%d blocks, %d steps, %d threads: %s, %d wrong tokens (first %d)\n", gx,
                gy, steps, threads, cudaGetErrorString(e), h[0], h[1]);
    std::printf("%s\n", e == cudaSuccess && h[0] == 0 ? "PASS" : "FAIL");
    return e == cudaSuccess && h[0] == 0 ? 0 : 1;
  }
  int m = !std::strcmp(mode, "oob") ? 0 : !std::strcmp(mode, "misaligned") ? 1
          : !std::strcmp(mode, "nocb") ? 2 : !std::strcmp(mode, "deadlock") ? 3 : 4;
  dim3 grid = m == 4 ? dim3(6, 5) : dim3(2, 2);
  misuse<<<grid, 64>>>(m, d);
  cudaError_t e = cudaDeviceSynchronize();
  if (m == 4) {
    int h[30];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 30; ++i)
      std::printf("%d%c", h[i], i % 6 == 5 ? '\n' : ' ');
    return e == cudaSuccess ? 0 : 1;
  }
  std::printf("%s: %s\n", mode, cudaGetErrorString(e));
  return e == cudaSuccess ? 1 : 0;
}

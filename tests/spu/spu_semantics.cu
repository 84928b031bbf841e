// SPU semantics, end to end (tests/spu): every unit stamps its south and east CBs with a token
// naming the unit, the time step and the thread; every reader checks it gets exactly the token
// its neighbour wrote one step earlier: never the current step's, never an older one. Blocks in
// later passes read tokens that blocks of earlier passes wrote, so the VIUs' spill and restore
// must round-trip the CBs exactly. The misuse modes must end in the documented faults.
//
//   spu_semantics tokens GX GY STEPS THREADS
//   spu_semantics oob | misaligned | nocb | deadlock | regs | iufp | iushared | lanes | barstuck
//   spu_semantics slow ITERS     one block computes ITERS loop iterations before every sync
//   spu_semantics cbtypes [GX GY]  every CB type spu.h offers round-trips between neighbours
//   spu_semantics passlocal 0|1    a wavefront along a row of GX=4 blocks, scheduled by global
//                                  block coordinates (0) or by the pass-local spu_j() (1)

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
  case 5: // floating point on an IU, a reduced SM without an FPU (a fault in timing mode)
    if (spu_role() == SPU_IU)
      out[2] = __float_as_int(__int_as_float(out[3]) * 1.5f + __int_as_float(out[4]));
    break;
  case 8: // block (0,0)'s two warps wait at named barriers that never complete (one warp each
           // at barriers 1 and 2, each counting 64 threads); every other unit waits at spu.sync
    if (spu_role() == SPU_SM && blockIdx.x == 0 && blockIdx.y == 0) {
      if (threadIdx.x < 32)
        asm volatile("bar.sync 1, 64;");
      else
        asm volatile("bar.sync 2, 64;");
    }
    spu_block_sync();
    break;
  case 7: // the lanes of a warp call spu.sync different numbers of times (odd lanes once more)
    for (unsigned s = 0; s < 2 + (threadIdx.x & 1); ++s)
      spu_block_sync();
    break;
  case 6: { // shared memory on an IU, a reduced SM without one (a fault in timing mode)
    __shared__ int scratch[64];
    if (spu_role() == SPU_IU) {
      scratch[threadIdx.x] = out[3] + threadIdx.x;
      __syncthreads();
      out[2] = scratch[(threadIdx.x + 1) % 64];
    }
    break;
  }
  }
}

// Slow but progressing: block (0,0) computes for `iters` iterations before each of 3 block
// synchronizations while every other unit waits at spu.sync; the result checks the work.
__global__ void slow(unsigned *out, int iters) {
  for (int s = 0; s < 3; ++s) {
    if (spu_role() == SPU_SM && blockIdx.x == 0 && blockIdx.y == 0) {
      unsigned h = threadIdx.x + 1u + (unsigned)s;
      for (int i = 0; i < iters; ++i)
        h = h * 1664525u + 1013904223u;
      out[s * blockDim.x + threadIdx.x] = h;
    }
    spu_block_sync();
  }
}

// Every CB type of spu.h: each unit writes a value of every type at step 0 (derived from its
// position and thread), and at step 1 its east/south neighbour checks what arrives.
struct Vals {
  float f; int i; unsigned u; double d; long long ll; float2 f2; float4 f4; int2 i2; int4 i4;
  uint2 u2; uint4 u4; double2 d2;
};
__device__ Vals valsOf(int row, int col, unsigned tid) {
  int b = (row + 3) * 1000 + (col + 3) * 10 + (int)tid * 100000;
  Vals v;
  v.f = b * 0.5f; v.i = -b; v.u = 3u * b; v.d = b * 0.25; v.ll = -7ll * b;
  v.f2 = make_float2(b + 0.5f, b + 1.5f);
  v.f4 = make_float4(b + 0.25f, b + 2.0f, b + 3.0f, -b * 1.0f);
  v.i2 = make_int2(b + 1, -b - 2);
  v.i4 = make_int4(b + 3, b + 4, -b, b * 2);
  v.u2 = make_uint2(b + 5u, b + 6u);
  v.u4 = make_uint4(b + 7u, b + 8u, b + 9u, b + 10u);
  v.d2 = make_double2(b * 0.125, -b * 8.0);
  return v;
}
constexpr unsigned kValsBytes = 176; // per thread: every type at an offset aligned to its size
template <bool South> __device__ void storeVals(unsigned o, const Vals &v) {
  if (South) {
    spu_cb_store_south(o, v.f); spu_cb_store_south(o + 4, v.i); spu_cb_store_south(o + 8, v.u);
    spu_cb_store_south(o + 16, v.d); spu_cb_store_south(o + 24, v.ll);
    spu_cb_store_south(o + 32, v.f2); spu_cb_store_south(o + 48, v.f4);
    spu_cb_store_south(o + 64, v.i2); spu_cb_store_south(o + 80, v.i4);
    spu_cb_store_south(o + 96, v.u2); spu_cb_store_south(o + 112, v.u4);
    spu_cb_store_south(o + 128, v.d2);
  } else {
    spu_cb_store_east(o, v.f); spu_cb_store_east(o + 4, v.i); spu_cb_store_east(o + 8, v.u);
    spu_cb_store_east(o + 16, v.d); spu_cb_store_east(o + 24, v.ll);
    spu_cb_store_east(o + 32, v.f2); spu_cb_store_east(o + 48, v.f4);
    spu_cb_store_east(o + 64, v.i2); spu_cb_store_east(o + 80, v.i4);
    spu_cb_store_east(o + 96, v.u2); spu_cb_store_east(o + 112, v.u4);
    spu_cb_store_east(o + 128, v.d2);
  }
}
#define SPU_LOAD_(T, o) (North ? spu_cb_load_north<T>(o) : spu_cb_load_west<T>(o))
template <bool North> __device__ int checkVals(unsigned o, const Vals &e) {
  int bad = 0;
  bad += SPU_LOAD_(float, o) != e.f;
  bad += SPU_LOAD_(int, o + 4) != e.i;
  bad += SPU_LOAD_(unsigned, o + 8) != e.u;
  bad += SPU_LOAD_(double, o + 16) != e.d;
  bad += SPU_LOAD_(long long, o + 24) != e.ll;
  float2 f2 = SPU_LOAD_(float2, o + 32);
  bad += f2.x != e.f2.x || f2.y != e.f2.y;
  float4 f4 = SPU_LOAD_(float4, o + 48);
  bad += f4.x != e.f4.x || f4.y != e.f4.y || f4.z != e.f4.z || f4.w != e.f4.w;
  int2 i2 = SPU_LOAD_(int2, o + 64);
  bad += i2.x != e.i2.x || i2.y != e.i2.y;
  int4 i4 = SPU_LOAD_(int4, o + 80);
  bad += i4.x != e.i4.x || i4.y != e.i4.y || i4.z != e.i4.z || i4.w != e.i4.w;
  uint2 u2 = SPU_LOAD_(uint2, o + 96);
  bad += u2.x != e.u2.x || u2.y != e.u2.y;
  uint4 u4 = SPU_LOAD_(uint4, o + 112);
  bad += u4.x != e.u4.x || u4.y != e.u4.y || u4.z != e.u4.z || u4.w != e.u4.w;
  double2 d2 = SPU_LOAD_(double2, o + 128);
  bad += d2.x != e.d2.x || d2.y != e.d2.y;
  return bad;
}
#undef SPU_LOAD_

__global__ void cbtypes(int *errors, int gx, int gy) {
  unsigned o = threadIdx.x * kValsBytes;
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
  Vals mine = valsOf(row, col, threadIdx.x);
  if (writeS)
    storeVals<true>(o, mine);
  if (writeE)
    storeVals<false>(o, mine);
  spu_block_sync();
  int bad = 0;
  if (readN)
    bad += checkVals<true>(o, valsOf(row - 1, col, threadIdx.x));
  if (readW)
    bad += checkVals<false>(o, valsOf(row, col - 1, threadIdx.x));
  if (bad)
    atomicAdd(errors, bad);
}

// A wavefront along one row of blocks: the west IU feeds 100 at step 0, and block j adds 1 to
// what arrives from the west and passes it east at its step j + 1. `local` schedules it with
// the pass-local spu_j() instead of blockIdx.x: wrong once the row needs several passes.
__global__ void passlocal(int *out, int local, int gx) {
  unsigned off = threadIdx.x * 4;
  int steps = gx + 1;
  if (spu_role() == SPU_IU) {
    if (spu_dir() != SPU_WEST)
      return;
    for (int s = 0; s < steps; ++s) {
      if (s == 0)
        spu_cb_store_east(off, 100);
      spu_block_sync();
    }
    return;
  }
  int j = local ? (int)spu_j() : (int)blockIdx.x;
  int v = -1;
  for (int s = 0; s < steps; ++s) {
    if (s == j + 1) {
      v = spu_cb_load_west<int>(off) + 1;
      spu_cb_store_east(off, v);
    }
    spu_block_sync();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
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
  if (!std::strcmp(mode, "slow")) {
    int iters = argc > 2 ? std::atoi(argv[2]) : 100000, threads = 64;
    unsigned *o;
    cudaMalloc(&o, 3 * threads * sizeof(unsigned));
    slow<<<dim3(2, 2), threads>>>(o, iters);
    cudaError_t e = cudaDeviceSynchronize();
    unsigned h[3 * 64];
    cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int s = 0; s < 3; ++s)
      for (int t = 0; t < threads; ++t) {
        unsigned x = t + 1u + (unsigned)s;
        for (int i = 0; i < iters; ++i)
          x = x * 1664525u + 1013904223u;
        wrong += h[s * threads + t] != x;
      }
    std::printf("slow %d iterations: %s, %d wrong\n", iters, cudaGetErrorString(e), wrong);
    std::printf("%s\n", e == cudaSuccess && !wrong ? "PASS" : "FAIL");
    return e == cudaSuccess && !wrong ? 0 : 1;
  }
  if (!std::strcmp(mode, "passlocal")) {
    int local = argc > 2 ? std::atoi(argv[2]) : 0, gx = 4, threads = 32;
    int h[4 * 32], *o;
    cudaMalloc(&o, sizeof h);
    cudaMemset(o, 0, sizeof h);
    passlocal<<<dim3(gx, 1), threads>>>(o, local, gx);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < gx * threads; ++i)
      wrong += h[i] != 100 + i / threads + 1;
    std::printf("passlocal %d: %s, %d wrong values\n", local, cudaGetErrorString(e), wrong);
    std::printf("%s\n", e == cudaSuccess && !wrong ? "PASS" : "FAIL");
    return e == cudaSuccess && !wrong ? 0 : 1;
  }
  if (!std::strcmp(mode, "cbtypes")) {
    int gx = argc > 2 ? std::atoi(argv[2]) : 3, gy = argc > 3 ? std::atoi(argv[3]) : 2;
    int threads = 64; // 64 threads x 176 bytes fit a 16 KB CB
    cbtypes<<<dim3(gx, gy), threads>>>(d, gx, gy);
    cudaError_t e = cudaDeviceSynchronize();
    int h = -1;
    cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    std::printf("cbtypes %dx%d: %s, %d wrong values\n", gx, gy, cudaGetErrorString(e), h);
    std::printf("%s\n", e == cudaSuccess && h == 0 ? "PASS" : "FAIL");
    return e == cudaSuccess && h == 0 ? 0 : 1;
  }
  int m = !std::strcmp(mode, "oob") ? 0 : !std::strcmp(mode, "misaligned") ? 1
          : !std::strcmp(mode, "nocb") ? 2 : !std::strcmp(mode, "deadlock") ? 3
          : !std::strcmp(mode, "iufp") ? 5 : !std::strcmp(mode, "iushared") ? 6
          : !std::strcmp(mode, "lanes") ? 7 : !std::strcmp(mode, "barstuck") ? 8 : 4;
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

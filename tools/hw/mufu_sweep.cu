// Full-result sweeps of the MUFU operations ptxsim does not yet compute bit for bit (issue 31,
// item 4): sqrt.approx, lg2.approx, tanh.approx, sin.approx and cos.approx over whole binades
// of the input, the GPU's result bits for every float in each range.
//
//   nvcc -O2 -arch=sm_90 -o mufu_sweep tools/hw/mufu_sweep.cu && ./mufu_sweep DIR [N]
// (N: only the first N sweeps, and one binade of each: a quick check, e.g. under ptxsim)
//
// Writes DIR/NAME_FIRST.d for each sweep (NAME the operation, FIRST the first input's bits in hex):
// the result bits r[0..count) of inputs first, first+1, ... as the differences r[i] - r[i-1]
// (r[-1] = 0) in zigzag form, one byte where it is below 255, else the byte 255 and the four bytes
// of the zigzag value (little-endian). A few lines on stdout per sweep: count, the number of
// results whose bits equal the f64 function rounded to f32, and NaN results. The decoder is
// tools/hw/mufu_decode.py; the data of an H200 is kept in tools/hw/data (see its README).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x)                                                                  \
  do {                                                                            \
    cudaError_t e_ = (x);                                                         \
    if (e_ != cudaSuccess) {                                                      \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)

enum Op { SQRT_FTZ, SQRT, LG2_FTZ, LG2, TANH, SIN_FTZ, COS_FTZ, SIN, COS, kOps };
static const char *kNames[kOps] = {"sqrt.approx.ftz", "sqrt.approx", "lg2.approx.ftz", "lg2.approx",
                                   "tanh.approx", "sin.approx.ftz", "cos.approx.ftz", "sin.approx",
                                   "cos.approx"};

__global__ void eval(int op, uint32_t first, uint32_t n, uint32_t *out, unsigned long long *exact) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = __uint_as_float(first + i), r = 0.f;
  double ref = 0.0;
  switch (op) {
    case SQRT_FTZ: asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); ref = sqrt((double)x); break;
    case SQRT: asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); ref = sqrt((double)x); break;
    case LG2_FTZ: asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); ref = log2((double)x); break;
    case LG2: asm("lg2.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); ref = log2((double)x); break;
    case TANH: asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); ref = tanh((double)x); break;
    case SIN_FTZ: asm("sin.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); ref = sin((double)x); break;
    case COS_FTZ: asm("cos.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); ref = cos((double)x); break;
    case SIN: asm("sin.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); ref = sin((double)x); break;
    case COS: asm("cos.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); ref = cos((double)x); break;
  }
  out[i] = __float_as_uint(r);
  if (__float_as_uint(r) == __float_as_uint((float)ref)) atomicAdd(exact, 1ull);
}

struct Sweep {
  Op op;
  uint32_t first;
  uint32_t binades;  // count = binades * 2^23
};

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: mufu_sweep DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  const uint32_t kB = 1u << 23;
  std::vector<Sweep> sweeps = {
      // sqrt: [0.25, 4), the two lowest and two highest normal binades, subnormals without .ftz
      {SQRT_FTZ, 0x3e800000u, 4}, {SQRT_FTZ, 0x00800000u, 2}, {SQRT_FTZ, 0x7e800000u, 2},
      {SQRT, 0x00000000u, 1}, {SQRT, 0x3f800000u, 1},
      // lg2: [1/8, 8), far binades, subnormals without .ftz
      {LG2_FTZ, 0x3e000000u, 6}, {LG2_FTZ, 0x00800000u, 1}, {LG2_FTZ, 0x34000000u, 1},
      {LG2_FTZ, 0x4b000000u, 1}, {LG2_FTZ, 0x7f000000u, 1}, {LG2, 0x00000000u, 1},
      // tanh: [2^-14, 16), [-1, -1/2), subnormals, [2^-31, 2^-30)
      {TANH, 0x38800000u, 18}, {TANH, 0xbf000000u, 1}, {TANH, 0x00000000u, 1}, {TANH, 0x30000000u, 1},
      // sin, cos (.ftz): [2^-20, 2^12) (revolutions from 2.4e-7 to 652), [-8, -1/2)
      {SIN_FTZ, 0x35800000u, 32}, {SIN_FTZ, 0xbf000000u, 4},
      {COS_FTZ, 0x35800000u, 32}, {COS_FTZ, 0xbf000000u, 4},
      // without .ftz: subnormal inputs, and one binade to compare with .ftz
      {SIN, 0x00000000u, 1}, {SIN, 0x3f800000u, 1}, {COS, 0x00000000u, 1}, {COS, 0x3f800000u, 1},
  };
  if (argc > 2) {
    sweeps.resize(std::min<size_t>(sweeps.size(), (size_t)atoi(argv[2])));
    for (Sweep &s : sweeps) s.binades = 1;
  }
  uint32_t *d, *h;
  unsigned long long *dexact;
  CHECK(cudaMalloc(&d, sizeof(uint32_t) * kB));
  CHECK(cudaMalloc(&dexact, sizeof(unsigned long long)));
  CHECK(cudaMallocHost(&h, sizeof(uint32_t) * kB));
  std::vector<unsigned char> buf;
  buf.reserve(5 * kB);
  for (const Sweep &s : sweeps) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s_%08x.d", dir.c_str(), kNames[s.op], s.first);
    FILE *f = fopen(path, "wb");
    if (!f) {
      fprintf(stderr, "cannot write %s\n", path);
      return 1;
    }
    uint32_t prev = 0;
    unsigned long long exact = 0, nans = 0;
    for (uint32_t b = 0; b < s.binades; ++b) {
      const uint32_t first = s.first + b * kB;
      CHECK(cudaMemset(dexact, 0, sizeof(unsigned long long)));
      eval<<<kB / 256, 256>>>(s.op, first, kB, d, dexact);
      CHECK(cudaGetLastError());
      CHECK(cudaMemcpy(h, d, sizeof(uint32_t) * kB, cudaMemcpyDeviceToHost));
      unsigned long long e = 0;
      CHECK(cudaMemcpy(&e, dexact, sizeof e, cudaMemcpyDeviceToHost));
      exact += e;
      buf.clear();
      for (uint32_t i = 0; i < kB; ++i) {
        const uint32_t r = h[i];
        nans += (r & 0x7fffffffu) > 0x7f800000u;
        const int32_t delta = (int32_t)(r - prev);
        prev = r;
        const uint32_t z = ((uint32_t)delta << 1) ^ (uint32_t)(delta >> 31);
        if (z < 255) {
          buf.push_back((unsigned char)z);
        } else {
          buf.push_back(255);
          for (int k = 0; k < 4; ++k) buf.push_back((unsigned char)(z >> (8 * k)));
        }
      }
      if (fwrite(buf.data(), 1, buf.size(), f) != buf.size()) {
        fprintf(stderr, "short write %s\n", path);
        return 1;
      }
    }
    fclose(f);
    printf("sweep %s first %08x count %u exact %llu nan %llu\n", kNames[s.op], s.first, s.binades * kB,
           exact, nans);
    fflush(stdout);
  }
  return 0;
}

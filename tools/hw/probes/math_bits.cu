// Probe: the exact bits of the approximate and fused f32 operations (issue 31, item 4).
// For each operation a kernel computes it on a fixed, deterministic input set (special values,
// denormals, consecutive-float sweeps and pseudo-random values over the operation's range and over
// all bit patterns) and the program prints, per block of 4,096 inputs, an FNV-1a hash of the
// output bits (the compact form kept in tools/hw/data and checked by the ctest math_bits_h200),
// and with a file argument it also writes every output (the full table, for analysis):
//   math_bits            -> "op block hash" lines
//   math_bits FILE       -> the same lines, and FILE = for each op: name[16], count (u32), outputs
//   math_bits --sweep FILE -> for every float of whole binades (ex2, rcp, lg2, sin, cos over
//                           [1,2), rsqrt over [1,4), tanh over [0.5,1)), the .ftz result minus the
//                           f64 result rounded to f32, in units in the last place (int8; -128 =
//                           beyond +-127), and per sweep a histogram of those differences
// The same binary under ptxsim prints the same lines when ptxsim computes the GPU's bits.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

static const int kN = 1 << 18;      // inputs per operation
static const int kBlock = 4096;     // inputs per hash

enum Op {
  EX2, EX2_FTZ, LG2, LG2_FTZ, RCP, RCP_FTZ, RSQRT, RSQRT_FTZ, SQRT_APPROX, SQRT_APPROX_FTZ,
  SIN, COS, TANH, DIV_APPROX, DIV_FULL, DIV_RN, MULADD, MULADD_RN, MAD_RN, RCP_RN, SQRT_RN,
  C_EXPF, C_LOGF, C_FAST_EXPF, C_FAST_LOGF, C_SINF, C_FAST_SINF, C_TANHF, C_POWF, C_DIV_FAST,
  C_AXPBY, kOps
};
static const char *kNames[kOps] = {
  "ex2", "ex2.ftz", "lg2", "lg2.ftz", "rcp", "rcp.ftz", "rsqrt", "rsqrt.ftz", "sqrt.approx",
  "sqrt.approx.ftz", "sin.ftz", "cos.ftz", "tanh", "div.approx", "div.full", "div.rn",
  "mul_add", "mul.rn_add.rn", "fma.rn", "rcp.rn", "sqrt.rn", "expf", "logf", "__expf",
  "__logf", "sinf", "__sinf", "tanhf", "powf", "__fdividef", "a*b+c*d"};

__global__ void kern(int op, const float *a, const float *b, const float *c, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i], z = c[i], r = 0.f;
  switch (op) {
    case EX2: asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case EX2_FTZ: asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case LG2: asm("lg2.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case LG2_FTZ: asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case RCP: asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case RCP_FTZ: asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case RSQRT: asm("rsqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case RSQRT_FTZ: asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case SQRT_APPROX: asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case SQRT_APPROX_FTZ: asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case SIN: asm("sin.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case COS: asm("cos.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case TANH: asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case DIV_APPROX: asm("div.approx.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y)); break;
    case DIV_FULL: asm("div.full.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y)); break;
    case DIV_RN: asm("div.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y)); break;
    case MULADD: asm("{ .reg .f32 t; mul.f32 t, %1, %2; add.f32 %0, t, %3; }" : "=f"(r) : "f"(x), "f"(y), "f"(z)); break;
    case MULADD_RN: asm("{ .reg .f32 t; mul.rn.f32 t, %1, %2; add.rn.f32 %0, t, %3; }" : "=f"(r) : "f"(x), "f"(y), "f"(z)); break;
    case MAD_RN: asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(x), "f"(y), "f"(z)); break;
    case RCP_RN: asm("rcp.rn.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case SQRT_RN: asm("sqrt.rn.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case C_EXPF: r = expf(x); break;
    case C_LOGF: r = logf(x); break;
    case C_FAST_EXPF: r = __expf(x); break;
    case C_FAST_LOGF: r = __logf(x); break;
    case C_SINF: r = sinf(x); break;
    case C_FAST_SINF: r = __sinf(x); break;
    case C_TANHF: r = tanhf(x); break;
    case C_POWF: r = powf(fabsf(x), y); break;
    case C_DIV_FAST: r = __fdividef(x, y); break;
    case C_AXPBY: r = x * y + z * (x - y); break;
  }
  out[i] = r;
}

// Difference in ulps of the approximate result from the double-precision one rounded to f32.
__global__ void sweep(int op, uint32_t first, int n, signed char *d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = __uint_as_float(first + i), r = 0.f;
  double ref = 0.0;
  switch (op) {
    case 0: asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); ref = exp2((double)x); break;
    case 1: asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); ref = 1.0 / (double)x; break;
    case 2: asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); ref = log2((double)x); break;
    case 3: asm("sin.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); ref = sin((double)x); break;
    case 4: asm("cos.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); ref = cos((double)x); break;
    case 5: asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); ref = rsqrt((double)x); break;
    case 6: asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); ref = tanh((double)x); break;
  }
  int diff = (int)__float_as_uint(r) - (int)__float_as_uint((float)ref);
  if ((__float_as_uint(r) ^ __float_as_uint((float)ref)) & 0x80000000u) diff = -128;
  d[i] = diff > 127 || diff < -127 ? -128 : diff;
}

static int run_sweeps(const char *path) {
  FILE *f = fopen(path, "wb");
  if (!f) { fprintf(stderr, "cannot write %s\n", path); return 1; }
  static const char *names[] = {"ex2.ftz", "rcp.ftz", "lg2.ftz", "sin.ftz", "cos.ftz", "rsqrt.ftz", "tanh"};
  static const uint32_t first[] = {0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f000000u};
  static const int count[] = {1 << 23, 1 << 23, 1 << 23, 1 << 23, 1 << 23, 1 << 24, 1 << 23};
  signed char *d;
  CHECK(cudaMalloc(&d, 1 << 24));
  std::vector<signed char> h(1 << 24);
  for (int op = 0; op < 7; ++op) {
    sweep<<<count[op] / 256, 256>>>(op, first[op], count[op], d);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h.data(), d, count[op], cudaMemcpyDeviceToHost));
    long hist[256] = {0};
    for (int i = 0; i < count[op]; ++i) hist[(unsigned char)h[i]]++;
    printf("sweep %s first %08x count %d:", names[op], first[op], count[op]);
    for (int v = -128; v < 128; ++v) if (hist[(unsigned char)v]) printf(" %d:%ld", v, hist[(unsigned char)v]);
    printf("\n");
    char name[16] = {0};
    strncpy(name, names[op], 15);
    fwrite(name, 1, 16, f);
    fwrite(&first[op], 4, 1, f);
    fwrite(&count[op], 4, 1, f);
    fwrite(h.data(), 1, count[op], f);
  }
  fclose(f);
  return 0;
}

static uint32_t rng_state;
static uint32_t rnd() {  // xorshift32, deterministic
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state;
}
static float bitsf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float uni(float lo, float hi) { return lo + (hi - lo) * (float)((rnd() >> 8) * (1.0 / 16777216.0)); }

// Input set of one operand: 64 special values, a sweep of consecutive floats upwards from `s0`
// (N/4) and from `s1` (N/8), uniform values in [lo, hi] (N/4), log-uniform positive values
// times a random sign when `neg` (N/4), and random bit patterns (the rest).
static void inputs(std::vector<float> &v, uint32_t seed, float s0, float s1, float lo, float hi, bool neg) {
  static const uint32_t sp[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x3f800000u,
                                0xbf800000u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu, 0x00800000u,
                                0x80800000u, 0x7f7fffffu, 0xff7fffffu, 0x3f000000u, 0x40000000u, 0x40490fdbu,
                                0x3fc90fdbu, 0x42fe0000u, 0x43000000u, 0xc3150000u, 0xc2fc0000u, 0x3effffffu,
                                0x3f7fffffu, 0x3f800001u, 0x4b000000u, 0x4b800000u, 0x34000000u, 0x33800000u,
                                0x00400000u, 0x7e800000u};
  rng_state = seed;
  v.resize(kN);
  int k = 0;
  for (uint32_t s : sp) v[k++] = bitsf(s);
  while (k < 64) v[k++] = bitsf(rnd());
  uint32_t b0 = fbits(s0), b1 = fbits(s1);
  for (int j = 0; j < kN / 4; ++j) v[k++] = bitsf(b0 + j);
  for (int j = 0; j < kN / 8; ++j) v[k++] = bitsf(b1 + j);
  for (int j = 0; j < kN / 4; ++j) v[k++] = uni(lo, hi);
  for (int j = 0; j < kN / 4; ++j) {
    float m = exp2f(uni(-126.f, 127.f));
    v[k++] = (neg && (rnd() & 1)) ? -m : m;
  }
  while (k < kN) v[k++] = bitsf(rnd());
}

int main(int argc, char **argv) {
  if (argc > 2 && !strcmp(argv[1], "--sweep")) return run_sweeps(argv[2]);
  FILE *full = nullptr;
  if (argc > 1 && !(full = fopen(argv[1], "wb"))) { fprintf(stderr, "cannot write %s\n", argv[1]); return 1; }
  float *da, *db, *dc, *dout;
  CHECK(cudaMalloc(&da, kN * 4));
  CHECK(cudaMalloc(&db, kN * 4));
  CHECK(cudaMalloc(&dc, kN * 4));
  CHECK(cudaMalloc(&dout, kN * 4));
  std::vector<float> a, b, c, out(kN);
  for (int op = 0; op < kOps; ++op) {
    float s0 = 0.5f, s1 = 1.0f, lo = -4.f, hi = 4.f;
    bool neg = true;
    switch (op) {
      case EX2: case EX2_FTZ: case C_EXPF: case C_FAST_EXPF: s0 = 0.0f; s1 = -1.0f; lo = -130.f; hi = 130.f; break;
      case LG2: case LG2_FTZ: case C_LOGF: case C_FAST_LOGF: s0 = 1.0f; s1 = bitsf(1); lo = 0.f; hi = 8.f; neg = false; break;
      case RCP: case RCP_FTZ: case RCP_RN: s0 = 1.0f; s1 = bitsf(0x7e7f0000u); lo = -8.f; hi = 8.f; break;
      case RSQRT: case RSQRT_FTZ: case SQRT_APPROX: case SQRT_APPROX_FTZ: case SQRT_RN:
        s0 = 1.0f; s1 = bitsf(1); lo = 0.f; hi = 16.f; neg = false; break;
      case SIN: case COS: case C_SINF: case C_FAST_SINF: s0 = 0.0f; s1 = 3.0f; lo = -100.f; hi = 100.f; break;
      case TANH: case C_TANHF: s0 = 0.0f; s1 = 0.5f; lo = -10.f; hi = 10.f; break;
      default: s0 = 1.0f; s1 = 0.75f; lo = -4.f; hi = 4.f; break;
    }
    inputs(a, 1000 + op, s0, s1, lo, hi, neg);
    inputs(b, 2000 + op, 3.0f, 1.0f, -4.f, 4.f, true);  // divisors, multipliers, exponents
    inputs(c, 3000 + op, -1.0f, 0.25f, -4.f, 4.f, true);
    if (op == C_POWF) for (float &y : b) if (!(fabsf(y) < 64.f)) y = 1.5f;  // keep powf's exponents modest
    CHECK(cudaMemcpy(da, a.data(), kN * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), kN * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, c.data(), kN * 4, cudaMemcpyHostToDevice));
    kern<<<kN / 256, 256>>>(op, da, db, dc, dout, kN);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), dout, kN * 4, cudaMemcpyDeviceToHost));
    for (int blk = 0; blk < kN / kBlock; ++blk) {
      uint32_t h = 2166136261u;
      for (int j = blk * kBlock; j < (blk + 1) * kBlock; ++j) {
        uint32_t u = fbits(out[j]);
        if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu)) u = 0x7fffffffu;  // any NaN
        for (int s = 0; s < 32; s += 8) { h ^= (u >> s) & 0xff; h *= 16777619u; }
      }
      printf("%s %d %08x\n", kNames[op], blk, h);
    }
    if (full) {
      char name[16] = {0};
      strncpy(name, kNames[op], 15);
      uint32_t n = kN;
      fwrite(name, 1, 16, full);
      fwrite(&n, 4, 1, full);
      fwrite(out.data(), 4, kN, full);
    }
  }
  if (full) fclose(full);
  printf("done %d ops x %d inputs\n", (int)kOps, kN);
  return 0;
}

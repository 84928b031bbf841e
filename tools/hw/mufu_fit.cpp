// Builds ptx/exec/MufuTables.inc from an H200's MUFU sweeps (issue 31, item 4).
//
// Inputs (tools/hw/data):
//  - h200-2026-11-28-fidelity/sweep.bin.gz (tools/hw/probes/math_bits.cu `--sweep`): for every
//    float of a binade, the GPU's result minus the f64 function rounded to f32, in ulps. For
//    MUFU.RCP ([1,2)), MUFU.RSQ ([1,4)) and MUFU.EX2 ([1,2)) that is the whole function: RCP and
//    RSQ repeat per binade (pair of binades), EX2 per unit interval of the input.
//  - h200-2026-11-30-mufu/NAME_FIRST.d.xz (tools/hw/mufu_sweep.cu): the result bits of every
//    input of whole binades. MUFU.SQRT repeats per pair of binades: [1,4) is the whole function.
//    MUFU.TANH is one function of |x| over [2^-8, 8) (x itself below, 1 above, odd): see
//    emitTanh.
//    MUFU.SIN/COS (sin/cos.approx: FMUL.RZ by 1/(2 pi), then the unit on revolutions) is one
//    function of a quarter turn, found exactly (no exceptions): see emitSinCos.
//
// Representation (exact, checked here on every input): per segment of 2^16 consecutive inputs,
// a fixed-point model  v = C0 + C1*u + C2*u^2 + C3*popcount(j)  (j the index in the segment,
// u = j - 2^15, units 2^-40 of a result ulp; the popcount term captures about half of the
// hardware's truncation noise) rounded to nearest, plus the inputs where the GPU differs from
// the model (index and difference). The hardware's own algorithm (128 or 64 segments of
// quadratic interpolation with truncated partial products) is not reproduced bit for bit by a
// plain fixed-point quadratic: see docs/executor.md. MUFU.LG2 (lg2.approx.ftz_* sweeps) is
// different: one fixed-point function of the mantissa, bounded from both sides by [1,2) and
// [1/2,1) and modelled as the hardware's truncated quadratic (see emitLg2); every lg2 sweep is
// checked.
//
// Build and run (any C++17 compiler; needs gzip and xz on the PATH):
//   g++ -O2 -std=c++17 -o /tmp/mufu_fit tools/hw/mufu_fit.cpp -lzstd
//   /tmp/mufu_fit tools/hw/data > ptx/exec/MufuTables.inc
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <zstd.h>

namespace {

constexpr int kSegBits = 16;
constexpr int kSeg = 1 << kSegBits;
constexpr int kFrac = 40;
constexpr int kBucketBits = 7; // per segment 2^7 buckets of 2^9 inputs index the exceptions

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// The model's value for index j of a segment with coefficients c (see the file comment).
int64_t modelAt(const int64_t *c, int j) {
  const int64_t u = j - kSeg / 2;
  const int64_t v = c[0] + c[1] * u + c[2] * u * u + c[3] * __builtin_popcount(static_cast<unsigned>(j));
  return (v + (int64_t(1) << (kFrac - 1))) >> kFrac;
}

struct Fitted {
  std::vector<int64_t> coef;    // 4 per segment
  std::vector<uint32_t> base;   // result bits at j = 2^15 (the model is relative to it)
  std::vector<uint32_t> start;  // first exception of each segment, and the total
  std::vector<uint16_t> pos;
  std::vector<int8_t> delta;
};

/// Least squares of the target bits on (1, t, t^2, popcount) per segment, to fixed point, then
/// the constant term nudged to the fewest exceptions.
Fitted fit(const std::vector<uint32_t> &target) {
  Fitted f;
  const size_t nseg = target.size() / kSeg;
  f.start.push_back(0);
  for (size_t s = 0; s < nseg; ++s) {
    const uint32_t *t = &target[s * kSeg];
    const uint32_t base = t[kSeg / 2];
    double a[4][5] = {};
    for (int j = 0; j < kSeg; ++j) {
      const double x = (j - kSeg / 2) / double(kSeg);
      const double p[4] = {1.0, x, x * x, double(__builtin_popcount(unsigned(j)))};
      const double y = double(int64_t(t[j]) - int64_t(base));
      for (int r = 0; r < 4; ++r) {
        for (int c = 0; c < 4; ++c)
          a[r][c] += p[r] * p[c];
        a[r][4] += p[r] * y;
      }
    }
    for (int i = 0; i < 4; ++i)
      for (int k = i + 1; k < 4; ++k) {
        const double r = a[k][i] / a[i][i];
        for (int c = i; c < 5; ++c)
          a[k][c] -= r * a[i][c];
      }
    double c[4];
    for (int i = 3; i >= 0; --i) {
      double v = a[i][4];
      for (int k = i + 1; k < 4; ++k)
        v -= a[i][k] * c[k];
      c[i] = v / a[i][i];
    }
    const double one = std::ldexp(1.0, kFrac);
    int64_t q[4] = {std::llround(c[0] * one), std::llround(c[1] / kSeg * one),
                    std::llround(c[2] / (double(kSeg) * kSeg) * one), std::llround(c[3] * one)};
    auto misses = [&](const int64_t *cc) {
      long n = 0;
      for (int j = 0; j < kSeg; ++j)
        n += modelAt(cc, j) != int64_t(t[j]) - int64_t(base);
      return n;
    };
    int64_t best = q[0];
    long bestMiss = misses(q);
    const int64_t c0 = q[0];
    for (int k = -20; k <= 20; ++k) {
      q[0] = c0 + k * (int64_t(1) << (kFrac - 7));
      const long m = misses(q);
      if (m < bestMiss) {
        bestMiss = m;
        best = q[0];
      }
    }
    q[0] = best;
    for (int j = 0; j < kSeg; ++j) {
      const int64_t d = int64_t(t[j]) - int64_t(base) - modelAt(q, j);
      if (d == 0)
        continue;
      if (d < -127 || d > 127) {
        std::fprintf(stderr, "segment %zu index %d: difference %lld from the model\n", s, j, (long long)d);
        std::exit(1);
      }
      f.pos.push_back(uint16_t(j));
      f.delta.push_back(int8_t(d));
    }
    f.coef.insert(f.coef.end(), q, q + 4);
    f.base.push_back(base);
    f.start.push_back(uint32_t(f.pos.size()));
  }
  return f;
}

void emit(const char *name, const Fitted &f, uint32_t firstInput) {
  const size_t nseg = f.base.size();
  std::printf("// %s: %zu segments of 2^%d inputs from 0x%08x, %zu exceptions\n", name, nseg, kSegBits,
              firstInput, f.pos.size());
  std::printf("static const int64_t k%sCoef[%zu][4] = {\n", name, nseg);
  for (size_t s = 0; s < nseg; ++s)
    std::printf("  {%lldLL, %lldLL, %lldLL, %lldLL},\n", (long long)f.coef[4 * s], (long long)f.coef[4 * s + 1],
                (long long)f.coef[4 * s + 2], (long long)f.coef[4 * s + 3]);
  std::printf("};\nstatic const uint32_t k%sBase[%zu] = {", name, nseg);
  for (size_t s = 0; s < nseg; ++s)
    std::printf("%s0x%08xu,", s % 8 ? " " : "\n  ", f.base[s]);
  std::printf("\n};\nstatic const uint32_t k%sStart[%zu] = {", name, nseg + 1);
  for (size_t s = 0; s <= nseg; ++s)
    std::printf("%s%u,", s % 10 ? " " : "\n  ", f.start[s]);
  std::printf("\n};\nstatic const uint16_t k%sPos[%zu] = {", name, f.pos.size());
  for (size_t i = 0; i < f.pos.size(); ++i)
    std::printf("%s%u,", i % 16 ? " " : "\n  ", f.pos[i]);
  std::printf("\n};\nstatic const int8_t k%sDelta[%zu] = {", name, f.delta.size());
  for (size_t i = 0; i < f.delta.size(); ++i)
    std::printf("%s%d,", i % 24 ? " " : "\n  ", f.delta[i]);
  const int buckets = 1 << kBucketBits;
  std::printf("\n};\nstatic const uint16_t k%sBucket[%zu][%d] = {\n", name, nseg, buckets + 1);
  for (size_t s = 0; s < nseg; ++s) {
    std::printf("  {");
    size_t k = f.start[s];
    for (int b = 0; b <= buckets; ++b) {
      const int lo = b << (kSegBits - kBucketBits);
      while (k < f.start[s + 1] && f.pos[k] < lo)
        ++k;
      if (k - f.start[s] > 0xffff) {
        std::fprintf(stderr, "%s: segment %zu has too many exceptions\n", name, s);
        std::exit(1);
      }
      std::printf("%s%zu", b ? "," : "", k - f.start[s]);
    }
    std::printf("},\n");
  }
  std::printf("};\nstatic constexpr MufuTable k%s = {k%sCoef, k%sBase, k%sStart, k%sBucket, k%sPos, k%sDelta, %zu};\n\n",
              name, name, name, name, name, name, name, nseg);
}


/// The output of a command (a decompressor), whole.
std::vector<unsigned char> readCommand(const std::string &cmd) {
  FILE *p = popen(cmd.c_str(), "r");
  if (!p) {
    std::fprintf(stderr, "cannot run %s\n", cmd.c_str());
    std::exit(1);
  }
  std::vector<unsigned char> out;
  unsigned char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
    out.insert(out.end(), buf, buf + n);
  if (pclose(p) != 0 || out.empty()) {
    std::fprintf(stderr, "%s failed\n", cmd.c_str());
    std::exit(1);
  }
  return out;
}

/// A sweep of tools/hw/mufu_sweep.cu: result bits of consecutive inputs (zigzag differences).
std::vector<uint32_t> readResults(const std::string &path) {
  const std::vector<unsigned char> d = readCommand("xz -dc '" + path + "'");
  std::vector<uint32_t> out;
  uint32_t prev = 0;
  for (size_t i = 0; i < d.size();) {
    uint32_t z = d[i++];
    if (z == 255) {
      if (i + 4 > d.size()) {
        std::fprintf(stderr, "%s: truncated\n", path.c_str());
        std::exit(1);
      }
      z = uint32_t(d[i]) | uint32_t(d[i + 1]) << 8 | uint32_t(d[i + 2]) << 16 | uint32_t(d[i + 3]) << 24;
      i += 4;
    }
    prev += (z >> 1) ^ (0u - (z & 1));
    out.push_back(prev);
  }
  return out;
}

// ---- MUFU.LG2 ---------------------------------------------------------------------------------
// For x = m * 2^e (m in [1,2)) the unit forms the two's complement fixed-point value
// V = e * 2^36 + Q(m), Q(m) = log2(m) + about 2^-23.5 with 36 fraction bits, and returns V rounded
// toward zero to a float; a negative V is made positive by one's complement (|V| - 2^-36), and
// lg2(1) is +0 (Q(1) is not). Q repeats for every binade, so the sweeps of [1,2) (e = 0: Q
// truncated) and [1/2,1) (e = -1: 1 - Q truncated) bound Q(m) from both sides, and every other
// binade follows: truncation nests. Q itself is the hardware's interpolation: 64 segments of 2^17
// mantissas, Q = (c0 + c1 * j + c2 * s(j) + 2) >> 2 in quarters of 2^-36, j the offset in the
// segment and s(j) its square with the partial products below 2^19 left out (as the hardware's
// squarer does, then / 2^19): a few hundred mantissas where Q is bound to a grid point by the data
// differ by 1 to 3 from it (the exceptions).

constexpr int kLg2SegBits = 17;
constexpr int kLg2Frac = 2;
constexpr int64_t kLg2One = int64_t(1) << 36;

/// The hardware's truncated square of the offset j in its segment (t^2 for t < 2^17 from the
/// partial products of weight >= 2^19 only), in units of 2^19: MUFU.LG2, SIN and COS alike.
int64_t truncatedSquare(uint32_t j) {
  int64_t s = 0;
  for (int b = 0; b < kLg2SegBits; ++b)
    if (j >> b & 1) {
      if (2 * b >= 19)
        s += int64_t(1) << (2 * b);
      const int lo = 18 - b > 0 ? 18 - b : 0;
      if (lo < b)
        s += int64_t(j & ((1u << b) - (1u << lo))) << (b + 1);
    }
  return s >> 19;
}

int64_t lg2Model(const int64_t *c, uint32_t j) {
  return (c[0] + c[1] * int64_t(j) + c[2] * truncatedSquare(j) + (int64_t(1) << (kLg2Frac - 1))) >>
         kLg2Frac;
}

/// e * 2^36 + q (units 2^-36) as a float rounded toward zero, negative values by one's complement.
uint32_t lg2Bits(int e, int64_t q) {
  const int64_t v = e * kLg2One + q;
  const uint32_t sign = v < 0 ? 0x80000000u : 0;
  const uint64_t mag = v < 0 ? uint64_t(-v - 1) : uint64_t(v);
  if (mag == 0)
    return sign;
  const int hb = 63 - __builtin_clzll(mag);
  const uint64_t frac = hb > 23 ? mag >> (hb - 23) : mag << (23 - hb);
  return sign | uint32_t(hb - 36 + 127) << 23 | uint32_t(frac & 0x7fffff);
}

struct Lg2Fit {
  std::vector<int64_t> coef; // 3 per segment
  std::vector<uint32_t> key; // mantissas where Q is not the model's, ascending
  std::vector<int8_t> delta;
};

/// MUFU.LG2 of a float's bits (the .ftz instruction: subnormal inputs flushed).
uint32_t lg2Of(const Lg2Fit &f, uint32_t u) {
  const uint32_t e = (u >> 23) & 0xff, m = u & 0x7fffff;
  if (e == 0xff)
    return m || (u >> 31) ? 0x7fffffffu : 0x7f800000u;
  if (e == 0)
    return 0xff800000u;
  if (u >> 31)
    return 0x7fffffffu;
  if (e == 127 && m == 0)
    return 0;
  const uint32_t s = m >> kLg2SegBits;
  int64_t q = lg2Model(&f.coef[3 * s], m & ((1u << kLg2SegBits) - 1));
  const auto it = std::lower_bound(f.key.begin(), f.key.end(), m);
  if (it != f.key.end() && *it == m)
    q += f.delta[size_t(it - f.key.begin())];
  return lg2Bits(int(e) - 127, q);
}

/// Q(m) in units 2^-36 is bound to [lo, hi] by T0 = RZ(Q) (x in [1,2)) and T1 = RZ(Q - 1) with
/// one's complement (x in [1/2,1)); fits the segments to those ranges, checks every lg2 sweep.
void emitLg2(const std::string &dir) {
  constexpr size_t kB = size_t(1) << 23;
  const std::vector<uint32_t> all = readResults(dir + "/lg2.approx.ftz_3e000000.d.xz");
  if (all.size() != 6 * kB) {
    std::fprintf(stderr, "lg2 sweep: %zu results, want 6 binades\n", all.size());
    std::exit(1);
  }
  // the value of result bits r (|r| a multiple of 2^-36) in units 2^-36, and its ulp there (>= 1)
  auto fixedOf = [](uint32_t r, int64_t &ulp) {
    const double d = std::ldexp(double(std::fabs(floatOf(r))), 36);
    if (d != std::floor(d)) {
      std::fprintf(stderr, "lg2: result 0x%08x finer than 2^-36\n", r);
      std::exit(1);
    }
    const int ue = int((r >> 23) & 0xff) - 114;
    ulp = ue > 0 ? int64_t(1) << ue : 1;
    return int64_t(d);
  };
  std::vector<int64_t> lo(kB), hi(kB);
  for (size_t i = 0; i < kB; ++i) {
    const uint32_t t0 = all[3 * kB + i], t1 = all[2 * kB + i];
    if ((t0 >> 31) || (t1 != 0 && !(t1 >> 31))) {
      std::fprintf(stderr, "lg2: sign of mantissa %zu\n", i);
      std::exit(1);
    }
    int64_t u0, u1;
    const int64_t v0 = fixedOf(t0, u0), v1 = fixedOf(t1, u1);
    // T1's magnitude 2^36 - 1 - Q is in [v1, v1 + u1)
    lo[i] = kLg2One - 1 - (v1 + u1 - 1);
    hi[i] = kLg2One - 1 - v1;
    if (i != 0) { // lg2(1) = +0 whatever Q(1) is
      lo[i] = std::max(lo[i], v0);
      hi[i] = std::min(hi[i], t0 ? v0 + u0 - 1 : 0);
    }
    if (lo[i] > hi[i]) {
      std::fprintf(stderr, "lg2: [1,2) and [1/2,1) disagree at mantissa %zu\n", i);
      std::exit(1);
    }
  }
  // per segment: weighted least squares on (1, j, s(j)) towards the middle of [lo, hi], then
  // each coefficient moved by up to 8 units to the fewest points outside
  Lg2Fit f;
  constexpr uint32_t kS = 1u << kLg2SegBits;
  std::vector<int64_t> sq(kS);
  for (uint32_t j = 0; j < kS; ++j)
    sq[j] = truncatedSquare(j);
  for (size_t seg = 0; seg < kB / kS; ++seg) {
    const int64_t *l = &lo[seg * kS], *h = &hi[seg * kS];
    long double a[3][4] = {};
    for (uint32_t j = 0; j < kS; ++j) {
      const long double w = 1.0L / ((h[j] - l[j] + 1.0L) * (h[j] - l[j] + 1.0L));
      const long double y = (l[j] + h[j]) / 2.0L;
      const long double p[3] = {1.0L, (long double)j, (long double)sq[j]};
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c)
          a[r][c] += w * p[r] * p[c];
        a[r][3] += w * p[r] * y;
      }
    }
    for (int i = 0; i < 3; ++i)
      for (int k = i + 1; k < 3; ++k) {
        const long double r = a[k][i] / a[i][i];
        for (int c = i; c < 4; ++c)
          a[k][c] -= r * a[i][c];
      }
    long double c[3];
    for (int i = 2; i >= 0; --i) {
      long double v = a[i][3];
      for (int k = i + 1; k < 3; ++k)
        v -= a[i][k] * c[k];
      c[i] = v / a[i][i];
    }
    int64_t q[3];
    for (int k = 0; k < 3; ++k)
      q[k] = std::llround(double(c[k] * (1 << kLg2Frac)));
    auto misses = [&](const int64_t *cc) {
      long n = 0;
      for (uint32_t j = 0; j < kS; ++j) {
        const int64_t v = lg2Model(cc, j);
        n += v < l[j] || v > h[j];
      }
      return n;
    };
    long best = misses(q);
    for (int round = 0; round < 2; ++round)
      for (int k = 0; k < 3; ++k) {
        const int64_t c0 = q[k];
        int64_t bestC = c0;
        for (int d = -8; d <= 8; ++d) {
          q[k] = c0 + d;
          const long m = misses(q);
          if (m < best) {
            best = m;
            bestC = q[k];
          }
        }
        q[k] = bestC;
      }
    for (uint32_t j = 0; j < kS; ++j) {
      const int64_t v = lg2Model(q, j);
      if (v >= l[j] && v <= h[j])
        continue;
      const int64_t d = v < l[j] ? l[j] - v : h[j] - v;
      if (d < -127 || d > 127) {
        std::fprintf(stderr, "lg2: mantissa %zu differs by %lld from the model\n", seg * kS + j,
                     (long long)d);
        std::exit(1);
      }
      f.key.push_back(uint32_t(seg * kS + j));
      f.delta.push_back(int8_t(d));
    }
    f.coef.insert(f.coef.end(), q, q + 3);
  }
  // every input of every lg2 sweep; without .ftz ptxas scales a subnormal input by 2^24 and
  // subtracts 24 from the result (FADD, rounded to nearest)
  struct File {
    const char *name;
    uint32_t first;
    size_t binades;
    bool ftz;
  };
  const File files[] = {{"lg2.approx.ftz_3e000000", 0x3e000000u, 6, true},
                        {"lg2.approx.ftz_00800000", 0x00800000u, 1, true},
                        {"lg2.approx.ftz_34000000", 0x34000000u, 1, true},
                        {"lg2.approx.ftz_4b000000", 0x4b000000u, 1, true},
                        {"lg2.approx.ftz_7f000000", 0x7f000000u, 1, true},
                        {"lg2.approx_00000000", 0x00000000u, 1, false}};
  size_t checked = 0;
  for (const File &file : files) {
    const std::vector<uint32_t> gpu =
        file.first == 0x3e000000u ? all : readResults(dir + "/" + file.name + ".d.xz");
    if (gpu.size() != file.binades * kB) {
      std::fprintf(stderr, "%s: %zu results\n", file.name, gpu.size());
      std::exit(1);
    }
    for (size_t i = 0; i < gpu.size(); ++i) {
      const uint32_t u = file.first + uint32_t(i);
      uint32_t r;
      if (!file.ftz && std::fabs(floatOf(u)) < 0x1p-126f)
        r = bitsOf(floatOf(lg2Of(f, bitsOf(floatOf(u) * 0x1p24f))) + -24.0f);
      else
        r = lg2Of(f, u);
      if (r != gpu[i]) {
        std::fprintf(stderr, "%s: input 0x%08x: GPU 0x%08x, model 0x%08x\n", file.name, u, gpu[i],
                     r);
        std::exit(1);
      }
    }
    checked += gpu.size();
  }
  std::fprintf(stderr, "lg2.approx: %zu exceptions, %zu inputs checked\n", f.key.size(), checked);
  const size_t nseg = f.coef.size() / 3;
  std::printf("// Lg2: %zu segments of 2^%d mantissas, Q = (c0 + c1*j + c2*square(j) + 2) >> %d in "
              "units of\n"
              "// 2^-36 (see Mufu.cpp), %zu exceptions\n",
              nseg, kLg2SegBits, kLg2Frac, f.key.size());
  std::printf("static const int64_t kLg2Coef[%zu][3] = {\n", nseg);
  for (size_t s = 0; s < nseg; ++s)
    std::printf("  {%lldLL, %lldLL, %lldLL},\n", (long long)f.coef[3 * s],
                (long long)f.coef[3 * s + 1], (long long)f.coef[3 * s + 2]);
  std::printf("};\nstatic const uint32_t kLg2Key[%zu] = {", f.key.size());
  for (size_t i = 0; i < f.key.size(); ++i)
    std::printf("%s0x%06xu,", i % 10 ? " " : "\n  ", f.key[i]);
  std::printf("\n};\nstatic const int8_t kLg2Delta[%zu] = {", f.delta.size());
  for (size_t i = 0; i < f.delta.size(); ++i)
    std::printf("%s%d,", i % 24 ? " " : "\n  ", f.delta[i]);
  std::printf("\n};\n\n");
}

/// Fits `target` (inputs from `first`), checks the representation on every input, prints it.
void fitCheckEmit(const char *what, const char *name, const std::vector<uint32_t> &target, uint32_t first) {
  const Fitted f = fit(target);
  for (size_t i = 0; i < target.size(); ++i) {
    const size_t s = i / kSeg;
    const int j = int(i % kSeg);
    int64_t v = int64_t(f.base[s]) + modelAt(&f.coef[4 * s], j);
    for (uint32_t k = f.start[s]; k < f.start[s + 1]; ++k)
      if (f.pos[k] == j)
        v += f.delta[k];
    if (uint32_t(v) != target[i]) {
      std::fprintf(stderr, "%s: input %zu not reproduced\n", what, i);
      std::exit(1);
    }
  }
  std::fprintf(stderr, "%s: %zu exceptions of %zu inputs\n", what, f.pos.size(), target.size());
  emit(name, f, first);
}

/// MUFU.TANH (tanh.approx.f32, measured over [2^-14, 16)): |x| < 2^-8 gives x itself and
/// |x| >= 8 gives 1 (checked on every input of the sweep); in between, each binade of |x| uses
/// only the top bits of the mantissa (the result is constant over aligned groups of 2^k inputs,
/// k = 2..6 by binade, found here as the largest such k). The result of every group, in order,
/// is the whole function there: 6.7 M values whose differences (zigzag bytes, as the sweep
/// files) compress to about 150 KB with zstd; ptxsim decompresses them at the first tanh.approx.
/// No model or fit: the table is the measurement, checked here on every input.
void emitTanh(const std::string &dir) {
  const uint32_t first = 0x38800000u, binade = 1u << 23; // 2^-14
  const std::vector<uint32_t> r = readResults(dir + "/h200-2026-11-30-mufu/tanh.approx_38800000.d.xz");
  if (r.size() != 18 * size_t(binade)) {
    std::fprintf(stderr, "tanh sweep: %zu results, want 18 binades\n", r.size());
    std::exit(1);
  }
  const uint32_t lo = 0x3b800000u, hi = 0x41000000u; // 2^-8 and 8
  for (uint32_t u = first; u < first + uint32_t(r.size()); ++u) {
    const uint32_t got = r[u - first];
    if ((u < lo && got != u) || (u >= hi && got != 0x3f800000u)) {
      std::fprintf(stderr, "tanh: input 0x%08x gives 0x%08x, outside the table's range\n", u, got);
      std::exit(1);
    }
  }
  std::vector<int> shift;
  std::vector<uint32_t> start{0}, seq;
  for (uint32_t b = lo; b < hi; b += binade) {
    const uint32_t *v = &r[b - first];
    int k = 0;
    while (k < 23) {
      const uint32_t g = 2u << k;
      bool same = true;
      for (uint32_t i = 0; i < binade && same; ++i)
        same = v[i] == v[i & ~(g - 1)];
      if (!same)
        break;
      ++k;
    }
    shift.push_back(k);
    for (uint32_t i = 0; i < binade; i += 1u << k)
      seq.push_back(v[i]);
    start.push_back(uint32_t(seq.size()));
  }
  // differences as zigzag bytes (255 then 4 bytes for a large one); blocks of 256 values must
  // span less than 2^16 (ptxsim keeps a base per block and 16-bit offsets)
  std::vector<unsigned char> bytes;
  uint32_t prev = 0;
  for (size_t i = 0; i < seq.size(); ++i) {
    const int32_t d = int32_t(seq[i] - prev);
    prev = seq[i];
    const uint32_t z = (uint32_t(d) << 1) ^ uint32_t(d >> 31);
    if (z < 255) {
      bytes.push_back(uint8_t(z));
    } else {
      bytes.push_back(255);
      for (int q = 0; q < 4; ++q)
        bytes.push_back(uint8_t(z >> (8 * q)));
    }
    if (i % 256 == 255 || i + 1 == seq.size()) {
      const auto [mn, mx] = std::minmax_element(seq.begin() + (i & ~size_t(255)), seq.begin() + i + 1);
      if (*mx - *mn > 0xffffu) {
        std::fprintf(stderr, "tanh: block %zu spans %u\n", i / 256, *mx - *mn);
        std::exit(1);
      }
    }
  }
  std::vector<unsigned char> z(ZSTD_compressBound(bytes.size()));
  const size_t n = ZSTD_compress(z.data(), z.size(), bytes.data(), bytes.size(), 19);
  if (ZSTD_isError(n)) {
    std::fprintf(stderr, "tanh: zstd: %s\n", ZSTD_getErrorName(n));
    std::exit(1);
  }
  z.resize(n);
  std::vector<unsigned char> back(bytes.size());
  if (ZSTD_decompress(back.data(), back.size(), z.data(), z.size()) != bytes.size() || back != bytes) {
    std::fprintf(stderr, "tanh: zstd round trip failed\n");
    std::exit(1);
  }
  std::fprintf(stderr, "tanh.approx: %zu groups of %zu inputs, %zu bytes compressed\n", seq.size(), r.size(), n);
  std::printf("// Tanh: |x| in [2^-8, 8), binades from 0x%08x; %zu group results, zstd (%zu bytes)\n", lo,
              seq.size(), n);
  std::printf("static const uint8_t kTanhShift[%zu] = {", shift.size());
  for (size_t i = 0; i < shift.size(); ++i)
    std::printf("%s%d", i ? ", " : "", shift[i]);
  std::printf("};\nstatic const uint32_t kTanhStart[%zu] = {", start.size());
  for (size_t i = 0; i < start.size(); ++i)
    std::printf("%s%u", i ? ", " : "", start[i]);
  std::printf("};\nstatic const unsigned char kTanhZst[%zu] = {", z.size());
  for (size_t i = 0; i < z.size(); ++i)
    std::printf("%s%u,", i % 32 ? "" : "\n", z[i]);
  std::printf("\n};\n\n");
}

// ---- MUFU.SIN and MUFU.COS ----------------------------------------------------------------
//
// sin.approx.f32 / cos.approx.f32 (and __sinf, __cosf) are  r = RZ(x * 0x3e22f983)  (FMUL.RZ by
// 1/(2 pi) as an f32) and MUFU.SIN / MUFU.COS of r, in revolutions. Found on the H200's sweeps
// (every float of [2^-20, 2^12), [-8, -1/2), the subnormals and [1, 2)), and checked here on the
// committed ones:
//  - the unit reads the phase p = floor(frac(|r|) * 2^25) (25 bits, truncated; |r| < 2^-25 and
//    |r| >= 2^24 give p = 0) and the sign of r; MUFU.COS adds a quarter turn: p + 2^23;
//  - quadrant q = p >> 23, index j = p mod 2^23, reflected as 2^23 - 1 - j (the one's
//    complement, not 2^23 - j) in quadrants 1 and 3; the result is -g(j) in quadrants 2 and 3
//    and sin(-r) = -sin(r), cos(-r) = cos(r);
//  - g, a quarter turn, is the interpolator of Oberman and Siu (ARITH 2005): 64 segments of
//    2^17 indices, t = j mod 2^17, V = C0 + C1 * t + C2 * (sq(t) >> 19), where sq(t) is t^2
//    from a squarer that keeps only the partial products of weight >= 2^19; V in units of 2^-37,
//    rounded toward zero to an f32 (near zero the results are the exact fixed-point values:
//    g(j) = 25737 j 2^-37 for j < 1024).
// The sweeps give g for every one of the 2^23 indices; per segment the integer (C1, C2) with the
// widest interval of C0 that reproduces all of them is searched (ternary search: the width is a
// concave function), and C0 taken in that interval (the hardware's are multiples of 2^12).
// The whole function is 64 x 3 coefficients, and every input of the sweeps read is checked.

constexpr uint32_t kRevPerRad = 0x3e22f983u; // 1/(2 pi) as f32, FMUL.RZ's constant
constexpr int kScSegBits = 17;
constexpr uint32_t kQuarter = 1u << 23;

/// RZ(|x| * 1/(2 pi)) for the bits of a float x (exact integer product; subnormal -> 0).
uint32_t revolutionsRz(uint32_t xb) {
  const int ex = int((xb >> 23) & 0xff), ec = int((kRevPerRad >> 23) & 0xff);
  if (ex == 0)
    return 0;
  uint64_t m = uint64_t((xb & 0x7fffffu) | 0x800000u) * ((kRevPerRad & 0x7fffffu) | 0x800000u);
  int e = ex + ec - 127;
  if (m >> 47) {
    ++e;
    m >>= 24;
  } else {
    m >>= 23;
  }
  if (e <= 0)
    return 0;
  return (uint32_t(e) << 23) | (uint32_t(m) & 0x7fffffu);
}

/// floor(frac(r) * 2^25) for the bits of r >= 0 (finite).
uint32_t phaseOf(uint32_t rb) {
  const int e = int((rb >> 23) & 0xff);
  if (e == 0)
    return 0;
  const uint64_t m = (rb & 0x7fffffu) | 0x800000u;
  const int sh = e - 125; // value * 2^25 = m * 2^sh
  if (sh >= 25 || sh <= -24)
    return 0;
  return uint32_t((sh >= 0 ? m << sh : m >> -sh) & ((1u << 25) - 1));
}

/// RZ(v * 2^-37) as f32 bits (v >= 0).
uint32_t fixedToF32Rz(int64_t v) {
  if (v <= 0)
    return 0;
  const int msb = 63 - __builtin_clzll(uint64_t(v));
  const uint64_t m = msb >= 23 ? uint64_t(v) >> (msb - 23) : uint64_t(v) << (23 - msb);
  return (uint32_t(msb - 37 + 127) << 23) | (uint32_t(m) & 0x7fffffu);
}

uint32_t sinCosModel(const int64_t (*c)[3], uint32_t j) {
  const uint32_t s = j >> kScSegBits, t = j & ((1u << kScSegBits) - 1);
  return fixedToF32Rz(c[s][0] + c[s][1] * int64_t(t) + c[s][2] * truncatedSquare(t));
}

void emitSinCos(const std::string &data) {
  const std::string dir = data + "/h200-2026-11-30-mufu/";
  struct Src {
    const char *file;
    uint32_t first, count;
    bool cosine;
  };
  // [-8, -1/2) alone reaches every index of the quarter turn; [1, 2) (without .ftz: the same
  // for normal inputs) checks the rest of the rule
  const Src srcs[] = {{"sin.approx.ftz_bf000000.d.xz", 0xbf000000u, 4u << 23, false},
                      {"cos.approx.ftz_bf000000.d.xz", 0xbf000000u, 4u << 23, true},
                      {"sin.approx_3f800000.d.xz", 0x3f800000u, 1u << 23, false},
                      {"cos.approx_3f800000.d.xz", 0x3f800000u, 1u << 23, true}};
  constexpr uint32_t kNone = 0xffffffffu;
  std::vector<uint32_t> g(kQuarter, kNone);
  struct Seen {
    uint32_t x, result, p;
    bool cosine;
  };
  size_t inputs = 0;
  for (const Src &src : srcs) {
    const std::vector<uint32_t> r = readResults(dir + src.file);
    if (r.size() != src.count) {
      std::fprintf(stderr, "%s: %zu results, want %u\n", src.file, r.size(), src.count);
      std::exit(1);
    }
    for (uint32_t i = 0; i < src.count; ++i) {
      const uint32_t x = src.first + i;
      uint32_t p = phaseOf(revolutionsRz(x & 0x7fffffffu));
      if (src.cosine)
        p = (p + kQuarter) & (4 * kQuarter - 1);
      const uint32_t q = p >> 23;
      const uint32_t j = q & 1 ? kQuarter - 1 - (p & (kQuarter - 1)) : p & (kQuarter - 1);
      const uint32_t sign = ((q & 2) ? 0x80000000u : 0u) ^ (src.cosine ? 0u : x & 0x80000000u);
      if ((r[i] & 0x80000000u) != sign || (g[j] != kNone && g[j] != (r[i] & 0x7fffffffu))) {
        std::fprintf(stderr, "%s: input 0x%08x (phase 0x%07x) breaks the rule: 0x%08x\n", src.file, x, p, r[i]);
        std::exit(1);
      }
      g[j] = r[i] & 0x7fffffffu;
    }
    inputs += src.count;
  }
  if (std::count(g.begin(), g.end(), kNone) != 0) {
    std::fprintf(stderr, "sin/cos: the sweeps miss %ld indices of the quarter turn\n",
                 long(std::count(g.begin(), g.end(), kNone)));
    std::exit(1);
  }
  constexpr int kS = 1 << kScSegBits;
  std::vector<int64_t> sq(kS), lo(kS), ulp(kS);
  for (int t = 0; t < kS; ++t)
    sq[t] = truncatedSquare(uint32_t(t));
  int64_t coef[64][3];
  for (int s = 0; s < 64; ++s) {
    // RZ: V in [G, G + ulp) for the GPU's value G (units 2^-37)
    for (int t = 0; t < kS; ++t) {
      const float v = floatOf(g[uint32_t(s) * kS + t]);
      lo[t] = int64_t(std::ldexp(double(v), 37));
      ulp[t] = v == 0.0f ? 1 : std::max<int64_t>(1, int64_t(std::ldexp(1.0, std::ilogb(v) - 23 + 37)));
    }
    // width of the interval of C0 for (C1, C2), and its lower end
    auto width = [&](int64_t c1, int64_t c2, int64_t *c0) {
      int64_t hi = INT64_MAX, low = INT64_MIN;
      for (int t = 0; t < kS; ++t) {
        const int64_t a = lo[t] - c1 * t - c2 * sq[t];
        low = std::max(low, a);
        hi = std::min(hi, a + ulp[t]);
      }
      if (c0)
        *c0 = low;
      return hi - low;
    };
    const int64_t slope = (lo[kS - 1] - lo[0]) / (kS - 1);
    auto bestC1 = [&](int64_t c2, int64_t *c1) {
      int64_t a = slope - 4096, b = slope + 4096;
      while (b - a > 2) {
        const int64_t m1 = a + (b - a) / 3, m2 = b - (b - a) / 3;
        if (width(m1, c2, nullptr) < width(m2, c2, nullptr))
          a = m1;
        else
          b = m2;
      }
      int64_t best = INT64_MIN;
      for (int64_t c = a; c <= b; ++c) {
        const int64_t w = width(c, c2, nullptr);
        if (w > best) {
          best = w;
          *c1 = c;
        }
      }
      return best;
    };
    int64_t a = -4096, b = 256, c1 = 0;
    while (b - a > 2) {
      const int64_t m1 = a + (b - a) / 3, m2 = b - (b - a) / 3;
      if (bestC1(m1, &c1) < bestC1(m2, &c1))
        a = m1;
      else
        b = m2;
    }
    int64_t bestW = INT64_MIN, bc1 = 0, bc2 = 0;
    for (int64_t c2 = a - 8; c2 <= b + 8; ++c2) {
      const int64_t w = bestC1(c2, &c1);
      if (w > bestW) {
        bestW = w;
        bc1 = c1;
        bc2 = c2;
      }
    }
    int64_t c0;
    width(bc1, bc2, &c0);
    if (bestW < 1) {
      std::fprintf(stderr, "sin/cos: segment %d has no exact (C0, C1, C2)\n", s);
      std::exit(1);
    }
    auto zeros = [](int64_t v) { return v == 0 ? 64 : __builtin_ctzll(uint64_t(v)); };
    int64_t pick = c0; // the value of [c0, c0 + width) with the most trailing zero bits
    for (int64_t v = c0; v < c0 + bestW; ++v)
      if (zeros(v) > zeros(pick))
        pick = v;
    coef[s][0] = pick;
    coef[s][1] = bc1;
    coef[s][2] = bc2;
  }
  for (uint32_t j = 0; j < kQuarter; ++j)
    if (sinCosModel(coef, j) != g[j]) {
      std::fprintf(stderr, "sin/cos: index %u not reproduced\n", j);
      std::exit(1);
    }
  std::fprintf(stderr, "sin/cos: 64 segments exact on all %u indices (%zu inputs)\n", kQuarter, inputs);
  std::printf("// SinCos: MUFU.SIN/COS on a quarter turn, 64 segments of 2^17 indices: {C0, C1, C2} of\n"
              "// V = C0 + C1 t + C2 (sq(t) >> 19) in units of 2^-37, rounded toward zero (see Mufu.cpp)\n");
  std::printf("static const int64_t kSinCosCoef[64][3] = {\n");
  for (int s = 0; s < 64; ++s)
    std::printf("  {%lldLL, %lld, %lld},\n", (long long)coef[s][0], (long long)coef[s][1], (long long)coef[s][2]);
  std::printf("};\n");
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: mufu_fit DATA_DIR (tools/hw/data) > ptx/exec/MufuTables.inc\n");
    return 2;
  }
  const std::string data = argv[1];
  const std::vector<unsigned char> raw =
      readCommand("gzip -dc '" + data + "/h200-2026-11-28-fidelity/sweep.bin.gz'");
  std::map<std::string, std::vector<int8_t>> sweeps;
  std::map<std::string, uint32_t> firsts;
  for (size_t at = 0; at < raw.size();) {
    if (at + 24 > raw.size()) {
      std::fprintf(stderr, "truncated sweep header\n");
      return 1;
    }
    char name[16];
    uint32_t hdr[2];
    std::memcpy(name, &raw[at], 16);
    std::memcpy(hdr, &raw[at + 16], 8);
    at += 24;
    if (at + hdr[1] > raw.size()) {
      std::fprintf(stderr, "truncated sweep %.16s\n", name);
      return 1;
    }
    const std::string n(name, strnlen(name, 16));
    sweeps[n].assign(reinterpret_cast<const int8_t *>(&raw[at]), reinterpret_cast<const int8_t *>(&raw[at]) + hdr[1]);
    firsts[n] = hdr[0];
    at += hdr[1];
  }
  struct Op {
    const char *sweep, *name;
    double (*ref)(double);
  };
  const Op ops[] = {
      {"rcp.ftz", "Rcp", [](double x) { return 1.0 / x; }},
      {"rsqrt.ftz", "Rsq", [](double x) { return 1.0 / std::sqrt(x); }},
      {"ex2.ftz", "Ex2", [](double x) { return std::exp2(x); }},
  };
  std::printf("// Generated by tools/hw/mufu_fit.cpp from tools/hw/data (h200-2026-11-28-fidelity/sweep.bin.gz,\n"
              "// h200-2026-11-30-mufu): the H200's MUFU results, exactly (see Mufu.cpp). Do not edit.\n\n");
  for (const Op &op : ops) {
    auto it = sweeps.find(op.sweep);
    if (it == sweeps.end()) {
      std::fprintf(stderr, "sweep %s missing\n", op.sweep);
      return 1;
    }
    const uint32_t first = firsts[op.sweep];
    std::vector<uint32_t> target(it->second.size());
    for (size_t i = 0; i < target.size(); ++i) {
      const int8_t d = it->second[i];
      if (d == -128) {
        std::fprintf(stderr, "%s: input %zu beyond the sweep's range\n", op.sweep, i);
        return 1;
      }
      const float x = floatOf(first + uint32_t(i));
      target[i] = bitsOf(float(op.ref(double(x)))) + int32_t(d);
    }
    fitCheckEmit(op.sweep, op.name, target, first);
  }
  // MUFU.SQRT: [1,4) (the last 2^24 inputs of the sweep from 0.25), one function per pair of binades
  {
    const std::vector<uint32_t> all = readResults(data + "/h200-2026-11-30-mufu/sqrt.approx.ftz_3e800000.d.xz");
    if (all.size() != (size_t(4) << 23)) {
      std::fprintf(stderr, "sqrt sweep: %zu results, want 4 binades\n", all.size());
      return 1;
    }
    fitCheckEmit("sqrt.approx.ftz", "Sqrt", std::vector<uint32_t>(all.begin() + (2 << 23), all.end()), 0x3f800000u);
  }
  // MUFU.LG2: one function Q of the mantissa, bound by [1,2) and [1/2,1)
  emitLg2(data + "/h200-2026-11-30-mufu");
  emitTanh(data);
  emitSinCos(data);
  return 0;
}

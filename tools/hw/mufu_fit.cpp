// Builds ptx/exec/MufuTables.inc from an H200's MUFU sweeps (issue 31, item 4).
//
// Inputs (tools/hw/data):
//  - h200-2026-11-28-fidelity/sweep.bin.gz (tools/hw/probes/math_bits.cu `--sweep`): for every
//    float of a binade, the GPU's result minus the f64 function rounded to f32, in ulps. For
//    MUFU.RCP ([1,2)), MUFU.RSQ ([1,4)) and MUFU.EX2 ([1,2)) that is the whole function: RCP and
//    RSQ repeat per binade (pair of binades), EX2 per unit interval of the input.
//  - h200-2026-11-30-mufu/NAME_FIRST.d.xz (tools/hw/mufu_sweep.cu): the result bits of every
//    input of whole binades. MUFU.SQRT repeats per pair of binades: [1,4) is the whole function.
//    MUFU.SIN/COS (sin/cos.approx: FMUL.RZ by 1/(2 pi), then the unit on revolutions) is one
//    function of a quarter turn, found exactly (no exceptions): see emitSinCos.
//
// Representation (exact, checked here on every input): per segment of 2^16 consecutive inputs,
// a fixed-point model  v = C0 + C1*u + C2*u^2 + C3*popcount(j)  (j the index in the segment,
// u = j - 2^15, units 2^-40 of a result ulp; the popcount term captures about half of the
// hardware's truncation noise) rounded to nearest, plus the inputs where the GPU differs from
// the model (index and difference). The hardware's own algorithm (128 or 64 segments of
// quadratic interpolation with truncated partial products) is not reproduced bit for bit by a
// plain fixed-point quadratic: see docs/executor.md.
//
// Build and run (any C++17 compiler; needs gzip and xz on the PATH):
//   g++ -O2 -std=c++17 -o /tmp/mufu_fit tools/hw/mufu_fit.cpp
//   /tmp/mufu_fit tools/hw/data > ptx/exec/MufuTables.inc
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <map>
#include <string>
#include <vector>

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

/// sq(t) >> 19: t^2 (t < 2^17) from the partial products of weight >= 2^19 only.
int64_t truncatedSquare(uint32_t t) {
  uint64_t s = 0;
  for (int i = 0; i < kScSegBits; ++i)
    if ((t >> i) & 1) {
      if (2 * i >= 19)
        s += uint64_t(1) << (2 * i);
      const int kmin = std::max(i + 1, 18 - i); // cross products b_i b_k 2^(i+k+1), k > i
      s += uint64_t(t & ~((1u << kmin) - 1)) << (i + 1);
    }
  return int64_t(s >> 19);
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
  emitSinCos(data);
  return 0;
}

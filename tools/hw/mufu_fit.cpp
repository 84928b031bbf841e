// Builds ptx/exec/MufuTables.inc from an H200's MUFU sweeps (issue 31, item 4).
//
// Input: the sweep file of tools/hw/probes/math_bits.cu (`math_bits --sweep`, kept gzipped in
// tools/hw/data/h200-2026-11-28-fidelity/sweep.bin.gz): for every float of a binade, the GPU's
// result minus the f64 function rounded to f32, in ulps. For MUFU.RCP ([1,2)), MUFU.RSQ ([1,4))
// and MUFU.EX2 ([1,2)) that is the whole function: RCP and RSQ repeat per binade (pair of
// binades), EX2 per unit interval of the input.
//
// Representation (exact, checked here on every input): per segment of 2^16 consecutive inputs,
// a fixed-point model  v = C0 + C1*u + C2*u^2 + C3*popcount(j)  (j the index in the segment,
// u = j - 2^15, units 2^-40 of a result ulp; the popcount term captures about half of the
// hardware's truncation noise) rounded to nearest, plus the inputs where the GPU differs from
// the model (index and difference). The hardware's own algorithm (128 or 64 segments of
// quadratic interpolation with truncated partial products) is not reproduced bit for bit by a
// plain fixed-point quadratic: see docs/numerics.md.
//
// Build and run (any C++17 compiler):
//   g++ -O2 -std=c++17 -o /tmp/mufu_fit tools/hw/mufu_fit.cpp
//   zcat tools/hw/data/h200-2026-11-28-fidelity/sweep.bin.gz | /tmp/mufu_fit > ptx/exec/MufuTables.inc
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

} // namespace

int main() {
  std::map<std::string, std::vector<int8_t>> sweeps;
  std::map<std::string, uint32_t> firsts;
  for (;;) {
    char name[16];
    uint32_t hdr[2];
    if (std::fread(name, 1, 16, stdin) != 16)
      break;
    if (std::fread(hdr, 4, 2, stdin) != 2) {
      std::fprintf(stderr, "truncated sweep header\n");
      return 1;
    }
    std::vector<int8_t> d(hdr[1]);
    if (std::fread(d.data(), 1, d.size(), stdin) != d.size()) {
      std::fprintf(stderr, "truncated sweep %.16s\n", name);
      return 1;
    }
    const std::string n(name, strnlen(name, 16));
    sweeps[n] = std::move(d);
    firsts[n] = hdr[0];
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
  std::printf("// Generated by tools/hw/mufu_fit.cpp from tools/hw/data/h200-2026-11-28-fidelity/sweep.bin.gz:\n"
              "// the H200's MUFU.RCP, MUFU.RSQ and MUFU.EX2 results, exactly (see Mufu.cpp). Do not edit.\n\n");
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
    const Fitted f = fit(target);
    // check: the representation gives every target
    for (size_t i = 0; i < target.size(); ++i) {
      const size_t s = i / kSeg;
      const int j = int(i % kSeg);
      int64_t v = int64_t(f.base[s]) + modelAt(&f.coef[4 * s], j);
      for (uint32_t k = f.start[s]; k < f.start[s + 1]; ++k)
        if (f.pos[k] == j)
          v += f.delta[k];
      if (uint32_t(v) != target[i]) {
        std::fprintf(stderr, "%s: input %zu not reproduced\n", op.sweep, i);
        return 1;
      }
    }
    std::fprintf(stderr, "%s: %zu exceptions of %zu inputs\n", op.sweep, f.pos.size(), target.size());
    emit(op.name, f, first);
  }
  return 0;
}

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
//   g++ -O2 -std=c++17 -o /tmp/mufu_fit tools/hw/mufu_fit.cpp -lzstd
//   /tmp/mufu_fit tools/hw/data > ptx/exec/MufuTables.inc
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
  emitTanh(data);
  return 0;
}

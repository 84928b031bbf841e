// MUFU.RCP, MUFU.RSQ, MUFU.EX2, MUFU.SQRT, MUFU.LG2 and MUFU.TANH of an H200, exact on every input.
//
// Each unit repeats one function over a binade of its input (RCP), a pair of binades (RSQ, SQRT)
// or a unit interval (EX2): the result bits for that range come from MufuTables.inc, which
// tools/hw/mufu_fit.cpp builds from the measured sweeps: per segment of 2^16 inputs a fixed-point
// model (quadratic in the input plus a popcount term, rounded to nearest) and the inputs where
// the GPU differs from it (about 0.2-0.9% of inputs; 265k exceptions, 1 MB of tables with their index). The
// exponent is then applied as the hardware does, flushing subnormal inputs and results.
// MUFU.LG2 is reproduced nearly as the hardware computes it (64 segments of a truncated
// quadratic, 180 exceptions), see below.
// MUFU.TANH has no such model: its measured results themselves are the table (compressed; see
// tanhTable).
//
// MUFU.SIN and MUFU.COS are exact without exceptions: a quarter turn of 2^23 phase indices is
// the ARITH 2005 interpolator of Oberman and Siu (64 segments, V = C0 + C1 t + C2 sq(t) with a
// truncated squarer, rounded toward zero), 64 x 3 coefficients found by tools/hw/mufu_fit.cpp;
// the other quadrants reflect and negate it as the hardware does (see sinCos below).

#include "ptx/exec/Mufu.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include <zstd.h>

namespace ptxsim::ptx::exec {
namespace {

struct MufuTable {
  const int64_t (*coef)[4];
  const uint32_t *base;
  const uint32_t *start;
  const uint16_t (*bucket)[129]; // per segment: first exception of each 2^9 inputs, and the count
  const uint16_t *pos;
  const int8_t *delta;
  uint32_t segments;
};

#include "ptx/exec/MufuTables.inc"

constexpr int kSegBits = 16;
constexpr int kBucketShift = 9;
constexpr int kFrac = 40;

uint32_t popcount16(uint32_t v) {
  v = v - ((v >> 1) & 0x5555u);
  v = (v & 0x3333u) + ((v >> 2) & 0x3333u);
  v = (v + (v >> 4)) & 0x0f0fu;
  return (v + (v >> 8)) & 0x1fu;
}

/// The result bits for index `key` of the table's range (see tools/hw/mufu_fit.cpp).
uint32_t lookup(const MufuTable &t, uint32_t key) {
  const uint32_t s = key >> kSegBits;
  const uint32_t j = key & ((1u << kSegBits) - 1);
  const int64_t *c = t.coef[s];
  const int64_t u = int64_t(j) - (int64_t(1) << (kSegBits - 1));
  const int64_t v = c[0] + c[1] * u + c[2] * u * u + c[3] * int64_t(popcount16(j));
  int64_t r = int64_t(t.base[s]) + ((v + (int64_t(1) << (kFrac - 1))) >> kFrac);
  const uint16_t *seg = t.pos + t.start[s];
  const uint32_t b = j >> kBucketShift;
  for (uint32_t k = t.bucket[s][b], end = t.bucket[s][b + 1]; k < end; ++k)
    if (seg[k] == j) {
      r += t.delta[t.start[s] + k];
      break;
    }
  return uint32_t(r);
}

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

constexpr uint32_t kSign = 0x80000000u;
constexpr uint32_t kInf = 0x7f800000u;
constexpr uint32_t kQNaN = 0x7fffffffu;

/// Result bits `r` (a normal float) scaled by 2^k, flushed to signed zero when subnormal.
float scaled(uint32_t r, int k, uint32_t sign) {
  const int e = int((r >> 23) & 0xff) + k;
  if (e <= 0)
    return floatOf(sign);
  if (e >= 255)
    return floatOf(sign | kInf);
  return floatOf(sign | (r & 0x807fffffu) | (uint32_t(e) << 23));
}

/// MUFU.TANH's result for every group of inputs of [2^-8, 8) (MufuTables.inc, kTanh*),
/// decompressed at the first use: a base per 256 groups and 16-bit offsets (13 MB).
class TanhTable {
public:
  TanhTable() {
    const size_t n = kTanhStart[sizeof kTanhShift];
    const unsigned long long size = ZSTD_getFrameContentSize(kTanhZst, sizeof kTanhZst);
    std::vector<unsigned char> bytes(size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN ? 0 : size);
    const size_t got = ZSTD_decompress(bytes.data(), bytes.size(), kTanhZst, sizeof kTanhZst);
    if (bytes.empty() || ZSTD_isError(got) || got != bytes.size()) {
      std::fprintf(stderr, "ptxsim: internal error: MUFU.TANH table: %s\n",
                   ZSTD_isError(got) ? ZSTD_getErrorName(got) : "bad size");
      std::abort();
    }
    // the differences, a block of 256 values at a time: its base is the block's least value
    base_.resize((n + 255) / 256);
    off_.resize(n);
    uint32_t prev = 0, block[256];
    size_t at = 0;
    for (size_t b = 0; b < base_.size(); ++b) {
      const size_t len = std::min<size_t>(256, n - b * 256);
      uint32_t least = ~0u;
      for (size_t i = 0; i < len; ++i) {
        uint32_t z = bytes.at(at++);
        if (z == 255) {
          z = uint32_t(bytes.at(at)) | uint32_t(bytes.at(at + 1)) << 8 | uint32_t(bytes.at(at + 2)) << 16 |
              uint32_t(bytes.at(at + 3)) << 24;
          at += 4;
        }
        prev += (z >> 1) ^ (0u - (z & 1));
        block[i] = prev;
        least = std::min(least, prev);
      }
      base_[b] = least;
      for (size_t i = 0; i < len; ++i)
        off_[b * 256 + i] = uint16_t(block[i] - least); // the generator checked each block spans < 2^16
    }
  }
  uint32_t at(size_t g) const { return base_[g / 256] + off_[g]; }

private:
  std::vector<uint32_t> base_;
  std::vector<uint16_t> off_;
};

const TanhTable &tanhTable() {
  // built on first use and never destroyed (no static destructor runs at exit)
  static const TanhTable *t = new TanhTable();
  return *t;
}

constexpr int kSquareBits = 17; // MUFU.LG2, SIN and COS: 64 segments of 2^17 indices

/// The truncated squarer of MUFU.LG2, SIN and COS (the same in both units): t^2 (t < 2^17)
/// summed from the partial products of weight 2^19 and above only (b_i 2^(2i), and
/// b_i b_k 2^(i+k+1) for k > i), divided by 2^19. Computed as t^2 less the dropped products
/// (tools/hw/mufu_fit.cpp sums the kept ones bit by bit; the results agree for every t): with
/// t = h 2^9 + l, all of l^2 drops, of h only b_9's square (2^18), and of the cross products
/// b_i b_k (i in l, k in h) those with i + k <= 17, i.e. l mod 2^(18-k) for each set bit k.
/// Branch-free, since the bits of t are unpredictable (one call per lane).
int64_t truncatedSquare(uint32_t t) {
  const uint64_t l = t & 0x1ffu;
  uint64_t dropped = l * l + (uint64_t(t & 0x200u) << 9);
  for (int k = 9; k < kSquareBits; ++k)
    dropped += (uint64_t(0) - ((t >> k) & 1)) & ((l & ((1u << (18 - k)) - 1)) << (k + 1));
  return int64_t((uint64_t(t) * t - dropped) >> 19);
}

// MUFU.LG2 (see tools/hw/mufu_fit.cpp): for x = m * 2^e the unit forms the fixed-point value
// e + Q(m) with 36 fraction bits and truncates it to a float, a negative one made positive by one's
// complement. Q is the hardware's interpolation: 64 segments of 2^17 mantissas, each
// (c0 + c1 * j + c2 * s(j) + 2) / 4 in units of 2^-36 (j the offset in the segment, s(j) its square
// without the partial products below 2^19, / 2^19), and kLg2Key/kLg2Delta where the GPU differs.

/// Q(m) of the 23-bit mantissa m, units 2^-36.
int64_t lg2Fraction(uint32_t m) {
  const int64_t *c = kLg2Coef[m >> kSquareBits];
  const uint32_t j = m & ((1u << kSquareBits) - 1);
  int64_t q = (c[0] + c[1] * int64_t(j) + c[2] * truncatedSquare(j) + 2) >> 2;
  const uint32_t *end = kLg2Key + sizeof kLg2Key / sizeof kLg2Key[0];
  const uint32_t *k = std::lower_bound(kLg2Key, end, m);
  if (k != end && *k == m)
    q += kLg2Delta[k - kLg2Key];
  return q;
}

constexpr uint32_t kQuarter = 1u << 23; // phase indices in a quarter turn

/// MUFU.SIN (cosine: MUFU.COS) of r in revolutions. The phase is p = floor(frac(|r|) * 2^25)
/// (truncated; a subnormal r counts as 0), MUFU.COS adds a quarter turn; quadrant q = p >> 23 and
/// index j = p mod 2^23, reflected to 2^23 - 1 - j (one's complement) in quadrants 1 and 3.
/// Segment j >> 17 of the table gives V = C0 + C1 t + C2 truncatedSquare(t) for t = j mod 2^17,
/// in units of 2^-37, rounded toward zero to an f32; negative in quadrants 2 and 3 and, for
/// MUFU.SIN, for negative r (sin(-r) = -sin(r), cos(-r) = cos(r)).
float sinCos(float r, bool cosine) {
  const uint32_t u = bitsOf(r), e = (u >> 23) & 0xff;
  if (e == 0xff)
    return floatOf(kQNaN);
  uint32_t p = 0;
  const int sh = int(e) - 125; // |r| * 2^25 = m * 2^sh
  if (e != 0 && sh < 25 && sh > -24) {
    const uint64_t m = (u & 0x7fffffu) | 0x800000u;
    p = uint32_t(sh >= 0 ? m << sh : m >> -sh);
  }
  if (cosine)
    p += kQuarter;
  p &= 4 * kQuarter - 1;
  const uint32_t q = p >> 23;
  uint32_t j = p & (kQuarter - 1);
  if (q & 1)
    j = kQuarter - 1 - j;
  const int64_t *c = kSinCosCoef[j >> kSquareBits];
  const uint32_t t = j & ((1u << kSquareBits) - 1);
  const int64_t v = c[0] + c[1] * int64_t(t) + c[2] * truncatedSquare(t);
  uint32_t mag = 0;
  if (v > 0) {
    const int msb = 63 - __builtin_clzll(uint64_t(v));
    const uint64_t m = msb >= 23 ? uint64_t(v) >> (msb - 23) : uint64_t(v) << (23 - msb);
    mag = (uint32_t(msb - 37 + 127) << 23) | (uint32_t(m) & 0x7fffffu);
  }
  const uint32_t sign = ((q & 2) ? kSign : 0u) ^ (cosine ? 0u : (u & kSign));
  return floatOf(sign | mag);
}

} // namespace

float mufuTanh(float x) {
  const uint32_t u = bitsOf(x), sign = u & kSign, a = u & ~kSign;
  if (a > kInf)
    return floatOf(kQNaN);
  if (a < 0x3b800000u) // |x| < 2^-8 (subnormals too): x itself
    return x;
  if (a >= 0x41000000u) // |x| >= 8: +-1
    return floatOf(sign | 0x3f800000u);
  const uint32_t b = (a >> 23) - (0x3b800000u >> 23);
  return floatOf(sign | tanhTable().at(kTanhStart[b] + ((a & 0x7fffffu) >> kTanhShift[b])));
}

float mufuRcp(float x) {
  const uint32_t u = bitsOf(x), sign = u & kSign, e = (u >> 23) & 0xff;
  if (e == 0xff)
    return (u & 0x7fffffu) ? floatOf(kQNaN) : floatOf(sign);
  if (e == 0)
    return floatOf(sign | kInf);
  return scaled(lookup(kRcp, u & 0x7fffffu), 127 - int(e), sign);
}

float mufuRsq(float x) {
  const uint32_t u = bitsOf(x), sign = u & kSign, e = (u >> 23) & 0xff;
  if (e == 0xff && (u & 0x7fffffu))
    return floatOf(kQNaN);
  if (e == 0)
    return floatOf(sign | kInf);
  if (sign)
    return floatOf(kQNaN);
  if (e == 0xff)
    return 0.0f;
  const int ue = int(e) - 127, odd = ue & 1;
  const uint32_t key = (uint32_t(odd) << 23) | (u & 0x7fffffu);
  return scaled(lookup(kRsq, key), -(ue - odd) / 2, 0);
}

float mufuSqrt(float x) {
  const uint32_t u = bitsOf(x), sign = u & kSign, e = (u >> 23) & 0xff;
  if (e == 0xff)
    return (u & 0x7fffffu) || sign ? floatOf(kQNaN) : floatOf(kInf);
  if (e == 0)
    return floatOf(sign); // subnormal input flushed: +-0
  if (sign)
    return floatOf(kQNaN);
  const int ue = int(e) - 127, odd = ue & 1;
  const uint32_t key = (uint32_t(odd) << 23) | (u & 0x7fffffu);
  return scaled(lookup(kSqrt, key), (ue - odd) / 2, 0);
}

float mufuLg2(float x) {
  const uint32_t u = bitsOf(x), e = (u >> 23) & 0xff, m = u & 0x7fffffu;
  if (e == 0xff)
    return floatOf(m || (u & kSign) ? kQNaN : kInf);
  if (e == 0)
    return floatOf(kSign | kInf); // +-0 and subnormals (flushed): -inf
  if (u & kSign)
    return floatOf(kQNaN);
  if (u == 0x3f800000u)
    return 0.0f;
  const int64_t v = (int64_t(e) - 127) * (int64_t(1) << 36) + lg2Fraction(m);
  const uint32_t sign = v < 0 ? kSign : 0;
  const uint64_t mag = v < 0 ? uint64_t(-v - 1) : uint64_t(v); // one's complement
  if (mag == 0)
    return floatOf(sign);
  const int hb = 63 - __builtin_clzll(mag);
  const uint64_t frac = hb > 23 ? mag >> (hb - 23) : mag << (23 - hb);
  return floatOf(sign | uint32_t(hb - 36 + 127) << 23 | uint32_t(frac & 0x7fffffu));
}

float mufuEx2(float x) {
  const uint32_t u = bitsOf(x), e = (u >> 23) & 0xff;
  if (e == 0xff)
    return (u & 0x7fffffu) ? floatOf(kQNaN) : ((u & kSign) ? 0.0f : floatOf(kInf));
  if (e == 0)
    return 1.0f;
  if (x >= 128.0f)
    return floatOf(kInf);
  if (x < -127.0f)
    return 0.0f;
  // |x| in fixed point with 23 fraction bits (truncated); a negative input is its one's
  // complement unless the fraction is zero: n + f/2^23 with f = 2^23 - 1 - F for F != 0
  const int64_t v = int64_t(std::fabs(double(x)) * 8388608.0);
  const int64_t fx = x < 0 ? -v - ((v & 0x7fffff) ? 1 : 0) : v;
  const int64_t n = fx >> 23;
  const uint32_t f = uint32_t(fx & 0x7fffff);
  return scaled(lookup(kEx2, f), int(n) - 1, 0);
}

float mufuSin(float r) { return sinCos(r, false); }

float mufuCos(float r) { return sinCos(r, true); }

} // namespace ptxsim::ptx::exec

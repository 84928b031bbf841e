// MUFU.RCP, MUFU.RSQ, MUFU.EX2 and MUFU.SQRT of an H200, exact on every input.
//
// Each unit repeats one function over a binade of its input (RCP), a pair of binades (RSQ, SQRT)
// or a unit interval (EX2): the result bits for that range come from MufuTables.inc, which
// tools/hw/mufu_fit.cpp builds from the measured sweeps: per segment of 2^16 inputs a fixed-point
// model (quadratic in the input plus a popcount term, rounded to nearest) and the inputs where
// the GPU differs from it (about 0.2-0.9% of inputs; 265k exceptions, 1 MB of tables with their index). The
// exponent is then applied as the hardware does, flushing subnormal inputs and results.
//
// MUFU.SIN and MUFU.COS are exact without exceptions: a quarter turn of 2^23 phase indices is
// the ARITH 2005 interpolator of Oberman and Siu (64 segments, V = C0 + C1 t + C2 sq(t) with a
// truncated squarer, rounded toward zero), 64 x 3 coefficients found by tools/hw/mufu_fit.cpp;
// the other quadrants reflect and negate it as the hardware does (see sinCos below).

#include "ptx/exec/Mufu.h"

#include <cmath>
#include <cstring>
#include <limits>

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

constexpr uint32_t kQuarter = 1u << 23; // phase indices in a quarter turn
constexpr int kScSegBits = 17;          // 64 segments of 2^17 indices

/// The truncated squarer of MUFU.SIN: t^2 (t < 2^17) summed from the partial products of weight
/// 2^19 and above only (b_i 2^(2i), and b_i b_k 2^(i+k+1) for k > i), divided by 2^19.
int64_t truncatedSquare(uint32_t t) {
  uint64_t s = 0;
  for (int i = 0; i < kScSegBits; ++i)
    if ((t >> i) & 1) {
      if (i >= 10)
        s += uint64_t(1) << (2 * i);
      const int kmin = i + 1 > 18 - i ? i + 1 : 18 - i;
      s += uint64_t(t & ~((1u << kmin) - 1)) << (i + 1);
    }
  return int64_t(s >> 19);
}

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
  const int64_t *c = kSinCosCoef[j >> kScSegBits];
  const uint32_t t = j & ((1u << kScSegBits) - 1);
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

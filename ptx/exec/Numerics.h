//===- Numerics.h - PTX floating-point instruction semantics ----*- C++ -*-===//
//
// Contract: each function computes one lane of one PTX floating-point operation exactly as the
// PTX ISA defines it, on host values: `float`/`double` for .f32/.f64 and raw bit patterns for
// .f16/.bf16 (`uint16_t`) and packed .f16x2/.bf16x2 (`uint32_t`). They are header-only,
// allocation-free, exception-free and independent of the host floating-point environment, so
// the warp executor can call them per lane in tight loops:
//   - IEEE operations (add, sub, mul, fma, div, sqrt, rcp, cvt) take a rounding mode `Rnd` and
//     are correctly rounded in every mode. The .rn path is the plain host operation; the
//     directed modes (.rz, .rm, .rp) go to an out-of-line exact-integer path (never
//     fesetround), so they are right under any compiler flags and optimisation level.
//   - Modifiers compose: `.ftz` is `ftz32()` on the .f32 inputs and on the result, `.sat` is
//     `sat32()` on the result (`add.rn.ftz.sat.f32 d,a,b` is
//     `sat32(ftz32(addF32(ftz32(a), ftz32(b))))`). f64 never flushes except where an
//     instruction says so in its name (rcpApproxFtzF64).
//   - NaN: the IEEE .f32/.f64 arithmetic returns whatever NaN the host produces (a quiet NaN;
//     apply canonicalNaNF32/F64 where bit-exact NaN payloads matter). Everything that builds a
//     NaN itself (min/max, .f16/.bf16 results, narrowing cvt) returns the PTX canonical NaN:
//     0x7fffffff (.f32), 0x7fffffffffffffff (.f64), 0x7fff (.f16 and .bf16).
//   - Packed x2 layout: PTX `cvt.rn.f16x2.f32 d, a, b` stores the value converted from `a` in
//     the UPPER 16 bits of d and `b` in the LOWER 16 bits (PTX ISA, cvt); cvtF16x2F32(a, b)
//     does the same. Lane-wise x2 arithmetic applies the op to the two upper halves and to the
//     two lower halves independently.
//
//===----------------------------------------------------------------------===//

#ifndef PTXSIM_PTX_EXEC_NUMERICS_H
#define PTXSIM_PTX_EXEC_NUMERICS_H

#include "ptx/exec/Mufu.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace ptxsim::ptx::exec {

/// Floating-point rounding (.rn nearest-even, .rz toward zero, .rm toward -inf, .rp toward +inf).
enum class Rnd : uint8_t { RN, RZ, RM, RP };
/// Rounding to an integral value (.rni, .rzi, .rmi, .rpi); None keeps the value.
enum class IRnd : uint8_t { None, RNI, RZI, RMI, RPI };
/// testp predicates.
enum class TestpKind : uint8_t { Finite, Infinite, Number, NotANumber, Normal, Subnormal };

inline constexpr uint32_t kCanonicalNaNF32 = 0x7fffffffu;
inline constexpr uint64_t kCanonicalNaNF64 = 0x7fffffffffffffffull;
inline constexpr uint16_t kCanonicalNaNF16 = 0x7fff;
inline constexpr uint16_t kCanonicalNaNBF16 = 0x7fff;

//===----------------------------------------------------------------------===//
// Bit casts
//===----------------------------------------------------------------------===//

static inline uint32_t bitsOfF32(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
static inline float f32OfBits(uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}
static inline uint64_t bitsOfF64(double x) {
  uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
static inline double f64OfBits(uint64_t u) {
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

/// The PTX canonical NaN in place of any NaN; other values unchanged.
static inline float canonicalNaNF32(float x) { return x != x ? f32OfBits(kCanonicalNaNF32) : x; }
static inline double canonicalNaNF64(double x) { return x != x ? f64OfBits(kCanonicalNaNF64) : x; }

namespace numerics_detail {

__extension__ typedef unsigned __int128 U128;

/// A binary interchange format: stored fraction bits and exponent bits.
struct Fmt {
  int frac;
  int exp;
};
inline constexpr Fmt kF16{10, 5};
inline constexpr Fmt kBF16{7, 8};
inline constexpr Fmt kF32{23, 8};
inline constexpr Fmt kF64{52, 11};

static inline int msb128(U128 m) {
  uint64_t hi = static_cast<uint64_t>(m >> 64);
  return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll(static_cast<uint64_t>(m));
}

/// Rounds (-1)^neg * (m + s) * 2^e to format f in mode r and returns its bit pattern, where m is
/// nonzero and s is 0 when !sticky and some value in (0, 1) when sticky. `satfinite` turns
/// every overflow into the largest finite value.
static inline uint64_t roundPack(bool neg, U128 m, int e, bool sticky, Fmt f, Rnd r,
                                 bool satfinite = false) {
  constexpr int kTop = 120; // normalised position of the leading one
  int l = msb128(m);
  if (l < kTop) {
    m <<= (kTop - l); // callers pass sticky only with enough bits that this stays exact
    e -= kTop - l;
  } else if (l > kTop) {
    int s = l - kTop;
    sticky |= (m & ((U128(1) << s) - 1)) != 0;
    m >>= s;
    e += s;
  }
  const int bias = (1 << (f.exp - 1)) - 1;
  const int emin = 1 - bias;
  const uint64_t infBits = uint64_t((1u << f.exp) - 1) << f.frac;
  const int bigE = e + kTop; // value in [2^bigE, 2^(bigE+1))
  uint64_t mag;
  if (bigE > bias) {
    mag = infBits; // overflow before rounding
  } else {
    const int q = (bigE > emin ? bigE : emin) - f.frac; // exponent of the result's last bit
    const int sh = q - e;                               // >= kTop - 52
    U128 kept = 0;
    int cmpHalf; // remainder compared with half an ulp
    bool inexact;
    if (sh <= kTop + 1) {
      kept = m >> sh;
      U128 rem = m & ((U128(1) << sh) - 1);
      U128 half = U128(1) << (sh - 1);
      cmpHalf = rem > half ? 1 : rem < half ? -1 : (sticky ? 1 : 0);
      inexact = rem != 0 || sticky;
    } else {
      cmpHalf = -1;
      inexact = true;
    }
    bool up = false;
    switch (r) {
    case Rnd::RN:
      up = cmpHalf > 0 || (cmpHalf == 0 && (kept & 1));
      break;
    case Rnd::RZ:
      break;
    case Rnd::RM:
      up = inexact && neg;
      break;
    case Rnd::RP:
      up = inexact && !neg;
      break;
    }
    // Normal: the hidden bit of `kept` adds one to the exponent field; subnormal: q - emin +
    // frac is 0 and a carry out of `kept` produces the smallest normal.
    mag = (uint64_t(q - (emin - f.frac)) << f.frac) + static_cast<uint64_t>(kept) + up;
  }
  if (mag >= infBits) {
    bool toInf = !satfinite && (r == Rnd::RN || (r == Rnd::RP && !neg) || (r == Rnd::RM && neg));
    mag = toInf ? infBits : infBits - 1;
  }
  return (uint64_t(neg) << (f.frac + f.exp)) | mag;
}

/// A finite nonzero value (-1)^neg * m * 2^e.
struct Unp {
  bool neg;
  U128 m;
  int e;
};

/// x finite and nonzero.
static inline Unp unpack(double x) {
  uint64_t b = bitsOfF64(x);
  int ex = static_cast<int>((b >> 52) & 0x7ff);
  uint64_t fr = b & ((uint64_t(1) << 52) - 1);
  if (ex == 0)
    return {(b >> 63) != 0, fr, -1074};
  return {(b >> 63) != 0, fr | (uint64_t(1) << 52), ex - 1075};
}

static inline Unp normTo(Unp x, int top) {
  int l = msb128(x.m);
  if (l < top) {
    x.m <<= (top - l);
    x.e -= top - l;
  }
  return x;
}

/// Correctly rounded x + y (both nonzero finite; m of at most 126 bits). Sets `zero` on an exact
/// zero sum, whose sign the caller decides.
static inline uint64_t addRound(Unp x, Unp y, Fmt f, Rnd r, bool &zero) {
  x = normTo(x, 125);
  y = normTo(y, 125);
  if (x.e < y.e || (x.e == y.e && x.m < y.m)) {
    Unp t = x;
    x = y;
    y = t;
  }
  int d = x.e - y.e;
  U128 yv = 0;
  bool lost;
  if (d >= 127) {
    lost = true;
  } else {
    yv = y.m >> d;
    lost = d > 0 && (y.m & ((U128(1) << d) - 1)) != 0;
  }
  U128 m;
  if (x.neg == y.neg) {
    m = x.m + yv; // < 2^127
  } else {
    m = x.m - yv - (lost ? 1 : 0); // |x| >= |y|; with `lost`, m >= 2^123
    if (m == 0) {
      zero = true;
      return 0;
    }
  }
  zero = false;
  return roundPack(x.neg, m, x.e, lost, f, r);
}

static inline uint64_t mulRound(Unp x, Unp y, Fmt f, Rnd r) {
  return roundPack(x.neg != y.neg, x.m * y.m, x.e + y.e, false, f, r);
}

/// x / y for 53-bit significands.
static inline uint64_t divRound(Unp x, Unp y, Fmt f, Rnd r) {
  x = normTo(x, 125);
  y = normTo(y, 63);
  U128 q = x.m / y.m; // >= 2^61
  bool sticky = q * y.m != x.m;
  return roundPack(x.neg != y.neg, q, x.e - y.e, sticky, f, r);
}

/// Rounds hi + t to f, where hi is finite and nonzero and t is a value of sign `loSign` (-1, 0,
/// +1) too small to move hi across a point that matters for rounding to f (|t| < ulp(hi)/2
/// and either f has fewer than 53 bits or hi is the correctly rounded-to-nearest value).
static inline uint64_t roundHiLo(double hi, int loSign, Fmt f, Rnd r) {
  Unp u = normTo(unpack(hi), 120);
  bool sticky = false;
  if (loSign != 0) {
    sticky = true;
    if ((loSign < 0) != u.neg)
      u.m -= 1; // magnitude slightly below |hi|
  }
  return roundPack(u.neg, u.m, u.e, sticky, f, r);
}

static inline int signOf(double x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }

/// Sign of an exact zero sum x + y with the given addend signs (IEEE 754 6.3): -0 when both
/// are negative, and in .rm also when they differ. Spelled out rather than computed as
/// -((-x) + (-y)), which compilers may fold back into x + y.
static inline bool zeroSumNeg(bool xNeg, bool yNeg, Rnd r) { return r == Rnd::RM ? (xNeg || yNeg) : (xNeg && yNeg); }

template <class T> struct FmtOf;
template <> struct FmtOf<float> {
  static constexpr Fmt kFmt = kF32;
  static float fromBits(uint64_t b) { return f32OfBits(static_cast<uint32_t>(b)); }
};
template <> struct FmtOf<double> {
  static constexpr Fmt kFmt = kF64;
  static double fromBits(uint64_t b) { return f64OfBits(b); }
};

template <class T> [[gnu::cold, gnu::noinline]] T addSlow(T a, T b, Rnd r) {
  if (!std::isfinite(a) || !std::isfinite(b))
    return a + b; // inf/NaN results are exact
  if (a == 0 || b == 0) {
    if (a != 0)
      return a;
    if (b != 0)
      return b;
    return zeroSumNeg(std::signbit(a), std::signbit(b), r) ? T(-0.0) : T(0.0);
  }
  bool zero;
  uint64_t bits = addRound(unpack(a), unpack(b), FmtOf<T>::kFmt, r, zero);
  if (zero)
    return r == Rnd::RM ? T(-0.0) : T(0.0);
  return FmtOf<T>::fromBits(bits);
}

template <class T> [[gnu::cold, gnu::noinline]] T mulSlow(T a, T b, Rnd r) {
  if (!std::isfinite(a) || !std::isfinite(b) || a == 0 || b == 0)
    return a * b;
  return FmtOf<T>::fromBits(mulRound(unpack(a), unpack(b), FmtOf<T>::kFmt, r));
}

template <class T> [[gnu::cold, gnu::noinline]] T fmaSlow(T a, T b, T c, Rnd r) {
  if (!std::isfinite(a) || !std::isfinite(b) || !std::isfinite(c))
    return std::fma(a, b, c);
  if (a == 0 || b == 0) {
    if (c != 0)
      return c;
    return zeroSumNeg(std::signbit(a) != std::signbit(b), std::signbit(c), r) ? T(-0.0) : T(0.0);
  }
  if (c == 0)
    return mulSlow(a, b, r);
  Unp ua = unpack(a), ub = unpack(b);
  Unp p{ua.neg != ub.neg, ua.m * ub.m, ua.e + ub.e};
  bool zero;
  uint64_t bits = addRound(p, unpack(c), FmtOf<T>::kFmt, r, zero);
  if (zero)
    return r == Rnd::RM ? T(-0.0) : T(0.0);
  return FmtOf<T>::fromBits(bits);
}

template <class T> [[gnu::cold, gnu::noinline]] T divSlow(T a, T b, Rnd r) {
  if (!std::isfinite(a) || !std::isfinite(b) || a == 0 || b == 0)
    return a / b;
  return FmtOf<T>::fromBits(divRound(unpack(a), unpack(b), FmtOf<T>::kFmt, r));
}

template <class T> [[gnu::cold, gnu::noinline]] T sqrtSlow(T x, Rnd r) {
  if (!(x > 0) || !std::isfinite(x))
    return std::sqrt(x); // NaN, negative, +-0, +inf: exact
  double a = x;
  bool scaled = a < 0x1p-800; // keep a - s*s clear of underflow
  if (scaled)
    a *= 0x1p600;
  double s = std::sqrt(a);
  double res = std::fma(-s, s, a); // exact sign of sqrt(a) - s
  T out = FmtOf<T>::fromBits(roundHiLo(s, signOf(res), FmtOf<T>::kFmt, r));
  if constexpr (std::is_same_v<T, double>)
    if (scaled)
      out *= 0x1p-300; // result is normal: exact
  return out;
}

/// Round to an integral value without the host rounding mode.
static inline double roundIntegral(double x, IRnd r) {
  switch (r) {
  case IRnd::None:
    return x;
  case IRnd::RZI:
    return std::trunc(x);
  case IRnd::RMI:
    return std::floor(x);
  case IRnd::RPI:
    return std::ceil(x);
  case IRnd::RNI: {
    double t = std::trunc(x);
    double d = std::fabs(x - t); // exact
    if (d > 0.5 || (d == 0.5 && std::fmod(t, 2.0) != 0))
      t += x > 0 ? 1.0 : -1.0;
    return std::copysign(t, x);
  }
  }
  return x;
}

} // namespace numerics_detail

//===----------------------------------------------------------------------===//
// .ftz and .sat
//===----------------------------------------------------------------------===//

/// .ftz on an .f32 operand or result: subnormals become zero of the same sign.
static inline float ftz32(float x) {
  uint32_t b = bitsOfF32(x);
  return (b & 0x7f800000u) == 0 ? f32OfBits(b & 0x80000000u) : x;
}
/// Flush a subnormal .f64 (only the instructions that say .ftz.f64 do this).
static inline double ftz64(double x) {
  uint64_t b = bitsOfF64(x);
  return (b & 0x7ff0000000000000ull) == 0 ? f64OfBits(b & 0x8000000000000000ull) : x;
}
/// .sat: clamp to [0.0, 1.0]; NaN and -0.0 give +0.0.
static inline float sat32(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }
static inline double sat64(double x) { return x > 0.0 ? (x < 1.0 ? x : 1.0) : 0.0; }

//===----------------------------------------------------------------------===//
// IEEE arithmetic, .f32 and .f64, correctly rounded in every mode
//===----------------------------------------------------------------------===//

static inline float addF32(float a, float b, Rnd r = Rnd::RN) {
  return r == Rnd::RN ? a + b : numerics_detail::addSlow(a, b, r);
}
static inline float subF32(float a, float b, Rnd r = Rnd::RN) {
  return r == Rnd::RN ? a - b : numerics_detail::addSlow(a, -b, r);
}
static inline float mulF32(float a, float b, Rnd r = Rnd::RN) {
  return r == Rnd::RN ? a * b : numerics_detail::mulSlow(a, b, r);
}
/// fma.f32, and mad.f32 (which is fma on sm_20 and later).
static inline float fmaF32(float a, float b, float c, Rnd r = Rnd::RN) {
  return r == Rnd::RN ? std::fma(a, b, c) : numerics_detail::fmaSlow(a, b, c, r);
}
static inline float madF32(float a, float b, float c, Rnd r = Rnd::RN) { return fmaF32(a, b, c, r); }
/// div.rn/.rz/.rm/.rp.f32 (IEEE division; div.full and div.approx are below).
static inline float divF32(float a, float b, Rnd r = Rnd::RN) {
  return r == Rnd::RN ? a / b : numerics_detail::divSlow(a, b, r);
}
static inline float sqrtF32(float x, Rnd r = Rnd::RN) {
  return r == Rnd::RN ? std::sqrt(x) : numerics_detail::sqrtSlow(x, r);
}
/// rcp.rn/.rz/.rm/.rp.f32: correctly rounded 1/x.
static inline float rcpF32(float x, Rnd r = Rnd::RN) { return divF32(1.0f, x, r); }

static inline double addF64(double a, double b, Rnd r = Rnd::RN) {
  return r == Rnd::RN ? a + b : numerics_detail::addSlow(a, b, r);
}
static inline double subF64(double a, double b, Rnd r = Rnd::RN) {
  return r == Rnd::RN ? a - b : numerics_detail::addSlow(a, -b, r);
}
static inline double mulF64(double a, double b, Rnd r = Rnd::RN) {
  return r == Rnd::RN ? a * b : numerics_detail::mulSlow(a, b, r);
}
static inline double fmaF64(double a, double b, double c, Rnd r = Rnd::RN) {
  return r == Rnd::RN ? std::fma(a, b, c) : numerics_detail::fmaSlow(a, b, c, r);
}
static inline double madF64(double a, double b, double c, Rnd r = Rnd::RN) { return fmaF64(a, b, c, r); }
static inline double divF64(double a, double b, Rnd r = Rnd::RN) {
  return r == Rnd::RN ? a / b : numerics_detail::divSlow(a, b, r);
}
static inline double sqrtF64(double x, Rnd r = Rnd::RN) {
  return r == Rnd::RN ? std::sqrt(x) : numerics_detail::sqrtSlow(x, r);
}
static inline double rcpF64(double x, Rnd r = Rnd::RN) { return divF64(1.0, x, r); }

//===----------------------------------------------------------------------===//
// abs, neg, copysign (bit operations; NaN payloads kept)
//===----------------------------------------------------------------------===//

static inline float absF32(float x) { return f32OfBits(bitsOfF32(x) & 0x7fffffffu); }
static inline float negF32(float x) { return f32OfBits(bitsOfF32(x) ^ 0x80000000u); }
static inline double absF64(double x) { return f64OfBits(bitsOfF64(x) & 0x7fffffffffffffffull); }
static inline double negF64(double x) { return f64OfBits(bitsOfF64(x) ^ 0x8000000000000000ull); }
static inline uint16_t absF16(uint16_t x) { return x & 0x7fff; }
static inline uint16_t negF16(uint16_t x) { return x ^ 0x8000; }
static inline uint16_t absBF16(uint16_t x) { return x & 0x7fff; }
static inline uint16_t negBF16(uint16_t x) { return x ^ 0x8000; }
/// PTX `copysign.f32 d, a, b`: d is b with the sign of a (note the operand order: the sign
/// comes from the FIRST source, unlike C copysign).
static inline float copysignF32(float a, float b) {
  return f32OfBits((bitsOfF32(b) & 0x7fffffffu) | (bitsOfF32(a) & 0x80000000u));
}
static inline double copysignF64(double a, double b) {
  return f64OfBits((bitsOfF64(b) & 0x7fffffffffffffffull) | (bitsOfF64(a) & 0x8000000000000000ull));
}

//===----------------------------------------------------------------------===//
// min / max
//===----------------------------------------------------------------------===//
// PTX: one NaN input gives the other input; two NaNs give the canonical NaN; -0.0 < +0.0.
// The .NaN variants return the canonical NaN when either input is NaN.

namespace numerics_detail {
template <class T> inline T minMax(T a, T b, T canonicalNaN, bool isMax) {
  if (a != a)
    return b != b ? canonicalNaN : b;
  if (b != b)
    return a;
  if (a == b) // only +0 and -0 differ here: -0 is the smaller
    return (std::signbit(a) != isMax) ? a : b;
  return (a < b) != isMax ? a : b;
}
} // namespace numerics_detail

static inline float minF32(float a, float b) {
  return numerics_detail::minMax(a, b, f32OfBits(kCanonicalNaNF32), false);
}
static inline float maxF32(float a, float b) {
  return numerics_detail::minMax(a, b, f32OfBits(kCanonicalNaNF32), true);
}
static inline float minNaNF32(float a, float b) {
  return (a != a || b != b) ? f32OfBits(kCanonicalNaNF32) : minF32(a, b);
}
static inline float maxNaNF32(float a, float b) {
  return (a != a || b != b) ? f32OfBits(kCanonicalNaNF32) : maxF32(a, b);
}
static inline double minF64(double a, double b) {
  return numerics_detail::minMax(a, b, f64OfBits(kCanonicalNaNF64), false);
}
static inline double maxF64(double a, double b) {
  return numerics_detail::minMax(a, b, f64OfBits(kCanonicalNaNF64), true);
}
static inline double minNaNF64(double a, double b) {
  return (a != a || b != b) ? f64OfBits(kCanonicalNaNF64) : minF64(a, b);
}
static inline double maxNaNF64(double a, double b) {
  return (a != a || b != b) ? f64OfBits(kCanonicalNaNF64) : maxF64(a, b);
}

//===----------------------------------------------------------------------===//
// testp
//===----------------------------------------------------------------------===//

static inline bool testpF64(TestpKind k, double x) {
  uint64_t b = bitsOfF64(x);
  uint64_t ex = (b >> 52) & 0x7ff, fr = b & 0xfffffffffffffull;
  switch (k) {
  case TestpKind::Finite:
    return ex != 0x7ff;
  case TestpKind::Infinite:
    return ex == 0x7ff && fr == 0;
  case TestpKind::Number:
    return !(ex == 0x7ff && fr != 0);
  case TestpKind::NotANumber:
    return ex == 0x7ff && fr != 0;
  case TestpKind::Normal:
    return ex != 0 && ex != 0x7ff;
  case TestpKind::Subnormal:
    return ex == 0 && fr != 0;
  }
  return false;
}
/// testp on .f32 (classes by bit pattern, independent of host DAZ/FTZ settings).
static inline bool testpF32(TestpKind k, float x) {
  uint32_t b = bitsOfF32(x);
  uint32_t ex = (b >> 23) & 0xff, fr = b & 0x7fffffu;
  switch (k) {
  case TestpKind::Finite:
    return ex != 0xff;
  case TestpKind::Infinite:
    return ex == 0xff && fr == 0;
  case TestpKind::Number:
    return !(ex == 0xff && fr != 0);
  case TestpKind::NotANumber:
    return ex == 0xff && fr != 0;
  case TestpKind::Normal:
    return ex != 0 && ex != 0xff;
  case TestpKind::Subnormal:
    return ex == 0 && fr != 0;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// .f16 / .bf16 conversions
//===----------------------------------------------------------------------===//

/// .f16 bits to f32 (exact; NaN payload kept).
static inline float f16ToF32(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t ex = (h >> 10) & 0x1f, fr = h & 0x3ff;
  if (ex == 0x1f)
    return f32OfBits(sign | 0x7f800000u | (fr << 13));
  if (ex == 0) {
    float v = static_cast<float>(fr) * 0x1p-24f; // exact
    return sign ? -v : v;
  }
  return f32OfBits(sign | ((ex + 112) << 23) | (fr << 13));
}
/// .bf16 bits to f32 (exact).
static inline float bf16ToF32(uint16_t h) { return f32OfBits(uint32_t(h) << 16); }

namespace numerics_detail {
static inline uint16_t f64To16(double x, Fmt f, Rnd r, bool satfinite) {
  uint64_t b = bitsOfF64(x);
  bool neg = (b >> 63) != 0;
  uint16_t sign = neg ? 0x8000 : 0;
  uint16_t inf = static_cast<uint16_t>(((1u << f.exp) - 1) << f.frac);
  if (x != x)
    return 0x7fff; // canonical NaN of both .f16 and .bf16
  if (std::isinf(x))
    return sign | (satfinite ? inf - 1 : inf);
  if (x == 0)
    return sign;
  Unp u = unpack(x);
  return static_cast<uint16_t>(roundPack(neg, u.m, u.e, false, f, r, satfinite));
}
} // namespace numerics_detail

/// cvt.frnd{.satfinite}.f16.f64 / .f16.f32: NaN gives the canonical NaN; .satfinite turns
/// +-inf and overflow into +-MAX (65504).
static inline uint16_t f64ToF16(double x, Rnd r = Rnd::RN, bool satfinite = false) {
  return numerics_detail::f64To16(x, numerics_detail::kF16, r, satfinite);
}
static inline uint16_t f32ToF16(float x, Rnd r = Rnd::RN, bool satfinite = false) {
  return f64ToF16(x, r, satfinite); // widening is exact: one rounding
}
static inline uint16_t f64ToBF16(double x, Rnd r = Rnd::RN, bool satfinite = false) {
  return numerics_detail::f64To16(x, numerics_detail::kBF16, r, satfinite);
}
static inline uint16_t f32ToBF16(float x, Rnd r = Rnd::RN, bool satfinite = false) {
  return f64ToBF16(x, r, satfinite);
}
/// .relu on an .f16/.bf16 result: negative values (and -0) give +0, NaN gives canonical NaN.
static inline uint16_t reluF16(uint16_t h) {
  if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff))
    return kCanonicalNaNF16;
  return (h & 0x8000) ? 0 : h;
}
static inline uint16_t reluBF16(uint16_t h) {
  if ((h & 0x7f80) == 0x7f80 && (h & 0x7f))
    return kCanonicalNaNBF16;
  return (h & 0x8000) ? 0 : h;
}
/// An .e4m3 (.e5m2) byte as a double (exact). e4m3 has no infinities: S.1111.111 is its NaN.
static inline double fp8ToF64(uint8_t b, bool e5m2) {
  const bool neg = b & 0x80;
  const int man = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  const unsigned e = (b & 0x7f) >> man, m = b & ((1u << man) - 1), emax = e5m2 ? 31 : 15;
  double v;
  if (e5m2 && e == emax)
    v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (!e5m2 && e == emax && m == (1u << man) - 1)
    v = std::numeric_limits<double>::quiet_NaN();
  else if (e == 0)
    v = std::ldexp((double)m, 1 - bias - man);
  else
    v = std::ldexp(1.0 + (double)m / (1 << man), (int)e - bias);
  return neg ? -v : v;
}

/// cvt.rn{.satfinite}{.relu} to .e4m3 (.e5m2): x rounded to nearest even. Overflow and +-inf
/// give +-MAX (448, 57344) with .satfinite, else NaN (e4m3) or +-inf (e5m2); NaN gives the
/// canonical 0x7f; .relu turns negative values and -0 into +0.
static inline uint8_t f64ToFp8(double x, bool e5m2, bool satfinite, bool relu) {
  if (x != x)
    return 0x7f;
  const bool neg = std::signbit(x);
  if (relu && neg)
    return 0;
  const uint8_t sign = neg ? 0x80 : 0;
  const int man = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  const double maxv = e5m2 ? 57344.0 : 448.0;
  const uint8_t maxCode = e5m2 ? 0x7b : 0x7e, overflow = e5m2 ? 0x7c : 0x7f;
  double a = std::fabs(x);
  if (std::isinf(a))
    return sign | (satfinite ? maxCode : overflow);
  if (a == 0)
    return sign;
  int e;
  std::frexp(a, &e); // a in [2^(e-1), 2^e)
  const int expo = std::max(e - 1, 1 - bias); // subnormals share the smallest exponent
  double r = std::ldexp(a, man - expo);       // a in units of the last place (exact)
  double fl = std::floor(r), diff = r - fl;
  if (diff > 0.5 || (diff == 0.5 && std::fmod(fl, 2.0) != 0))
    fl += 1;
  double q = std::ldexp(fl, expo - man);
  if (q > maxv)
    return sign | (satfinite ? maxCode : overflow);
  if (q == 0)
    return sign;
  std::frexp(q, &e);
  if (e - 1 < 1 - bias) // subnormal
    return sign | (uint8_t)std::ldexp(q, bias - 1 + man);
  int field = e - 1 + bias;
  int m = (int)std::ldexp(q, man - (e - 1)) - (1 << man);
  return sign | (uint8_t)(field << man | m);
}

/// cvt.{rna,rn,rz}{.satfinite}{.relu}.tf32.f32: x rounded to tf32 (f32 with 10 fraction bits),
/// as .b32 with the low 13 bits zero. `tiesAway` is .rna, otherwise `r` (RN, RZ) rounds. NaN
/// gives the canonical NaN; .satfinite turns +-inf and overflow into +-MAX_NORM; .relu turns
/// negative results (and -0) into +0.
static inline uint32_t f32ToTF32(float x, bool tiesAway, Rnd r, bool satfinite, bool relu) {
  if (x != x)
    return kCanonicalNaNF32;
  uint32_t b = bitsOfF32(x), sign = b & 0x80000000u, mag = b & 0x7fffffffu;
  if (mag != 0x7f800000u) {
    uint32_t low = mag & 0x1fffu;
    mag -= low;
    bool up = tiesAway          ? low >= 0x1000u
              : r == Rnd::RN    ? low > 0x1000u || (low == 0x1000u && (mag & 0x2000u))
              : r == Rnd::RP    ? low && !sign
              : r == Rnd::RM    ? low && sign
                                : false;
    if (up)
      mag += 0x2000u; // a carry into the exponent is the right result, up to infinity
  }
  if (satfinite && mag >= 0x7f800000u)
    mag = 0x7f7fe000u;
  return relu && sign ? 0 : sign | mag;
}

//===----------------------------------------------------------------------===//
// .f16 / .bf16 arithmetic: exact in f64 (or exact f64 pair), then one rounding
//===----------------------------------------------------------------------===//

namespace numerics_detail {
/// Correctly rounded a + b to a 16-bit format (a, b doubles converted exactly from 16-bit
/// values or exact products of them).
static inline uint16_t sumTo16(double a, double b, Fmt f, Rnd r) {
  double s = a + b;
  if (s != s || std::isinf(s))
    return f64To16(s, f, r, false);
  double bb = s - a;
  double err = (a - (s - bb)) + (b - bb); // TwoSum: a + b == s + err exactly
  if (err == 0) {
    if (s == 0)
      return zeroSumNeg(std::signbit(a), std::signbit(b), r) ? 0x8000 : 0;
    return f64To16(s, f, r, false);
  }
  return static_cast<uint16_t>(roundHiLo(s, signOf(err), f, r));
}
} // namespace numerics_detail

static inline uint16_t addF16(uint16_t a, uint16_t b, Rnd r = Rnd::RN) {
  return numerics_detail::sumTo16(f16ToF32(a), f16ToF32(b), numerics_detail::kF16, r);
}
static inline uint16_t subF16(uint16_t a, uint16_t b, Rnd r = Rnd::RN) { return addF16(a, negF16(b), r); }
static inline uint16_t mulF16(uint16_t a, uint16_t b, Rnd r = Rnd::RN) {
  return f64ToF16(double(f16ToF32(a)) * f16ToF32(b), r); // 22-bit product: exact
}
static inline uint16_t fmaF16(uint16_t a, uint16_t b, uint16_t c, Rnd r = Rnd::RN) {
  return numerics_detail::sumTo16(double(f16ToF32(a)) * f16ToF32(b), f16ToF32(c), numerics_detail::kF16, r);
}
static inline uint16_t addBF16(uint16_t a, uint16_t b, Rnd r = Rnd::RN) {
  return numerics_detail::sumTo16(bf16ToF32(a), bf16ToF32(b), numerics_detail::kBF16, r);
}
static inline uint16_t subBF16(uint16_t a, uint16_t b, Rnd r = Rnd::RN) { return addBF16(a, negBF16(b), r); }
static inline uint16_t mulBF16(uint16_t a, uint16_t b, Rnd r = Rnd::RN) {
  return f64ToBF16(double(bf16ToF32(a)) * bf16ToF32(b), r); // 16-bit product: exact
}
static inline uint16_t fmaBF16(uint16_t a, uint16_t b, uint16_t c, Rnd r = Rnd::RN) {
  return numerics_detail::sumTo16(double(bf16ToF32(a)) * bf16ToF32(b), bf16ToF32(c), numerics_detail::kBF16, r);
}
/// .sat on an .f16/.bf16 value: clamp to [0, 1], NaN gives +0.
static inline uint16_t satF16(uint16_t h) {
  float x = f16ToF32(h);
  return x > 0.0f ? (x < 1.0f ? h : uint16_t(0x3c00)) : uint16_t(0);
}
static inline uint16_t satBF16(uint16_t h) {
  float x = bf16ToF32(h);
  return x > 0.0f ? (x < 1.0f ? h : uint16_t(0x3f80)) : uint16_t(0);
}

namespace numerics_detail {
template <float (*ToF32)(uint16_t)> static inline uint16_t min16(uint16_t a, uint16_t b, bool nanProp) {
  float x = ToF32(a), y = ToF32(b);
  bool xn = x != x, yn = y != y;
  if (xn || yn) {
    if (nanProp || (xn && yn))
      return 0x7fff;
    return xn ? b : a;
  }
  if (x == y)
    return (a & 0x8000) ? a : b;
  return x < y ? a : b;
}
template <float (*ToF32)(uint16_t)> static inline uint16_t max16(uint16_t a, uint16_t b, bool nanProp) {
  float x = ToF32(a), y = ToF32(b);
  bool xn = x != x, yn = y != y;
  if (xn || yn) {
    if (nanProp || (xn && yn))
      return 0x7fff;
    return xn ? b : a;
  }
  if (x == y)
    return (a & 0x8000) ? b : a;
  return x > y ? a : b;
}
} // namespace numerics_detail

static inline uint16_t minF16(uint16_t a, uint16_t b) { return numerics_detail::min16<f16ToF32>(a, b, false); }
static inline uint16_t maxF16(uint16_t a, uint16_t b) { return numerics_detail::max16<f16ToF32>(a, b, false); }
static inline uint16_t minNaNF16(uint16_t a, uint16_t b) { return numerics_detail::min16<f16ToF32>(a, b, true); }
static inline uint16_t maxNaNF16(uint16_t a, uint16_t b) { return numerics_detail::max16<f16ToF32>(a, b, true); }
static inline uint16_t minBF16(uint16_t a, uint16_t b) { return numerics_detail::min16<bf16ToF32>(a, b, false); }
static inline uint16_t maxBF16(uint16_t a, uint16_t b) { return numerics_detail::max16<bf16ToF32>(a, b, false); }
static inline uint16_t minNaNBF16(uint16_t a, uint16_t b) { return numerics_detail::min16<bf16ToF32>(a, b, true); }
static inline uint16_t maxNaNBF16(uint16_t a, uint16_t b) { return numerics_detail::max16<bf16ToF32>(a, b, true); }

//===----------------------------------------------------------------------===//
// Packed .f16x2 / .bf16x2 (upper half = first source operand of cvt, see the file comment)
//===----------------------------------------------------------------------===//

static inline uint16_t hiHalf(uint32_t v) { return static_cast<uint16_t>(v >> 16); }
static inline uint16_t loHalf(uint32_t v) { return static_cast<uint16_t>(v); }
static inline uint32_t packHalves(uint16_t hi, uint16_t lo) { return (uint32_t(hi) << 16) | lo; }

/// cvt.frnd{.relu}{.satfinite}.f16x2.f32 d, a, b: a goes to the upper half, b to the lower.
static inline uint32_t cvtF16x2F32(float a, float b, Rnd r = Rnd::RN, bool satfinite = false,
                                   bool relu = false) {
  uint16_t ha = f32ToF16(a, r, satfinite), hb = f32ToF16(b, r, satfinite);
  return relu ? packHalves(reluF16(ha), reluF16(hb)) : packHalves(ha, hb);
}
static inline uint32_t cvtBF16x2F32(float a, float b, Rnd r = Rnd::RN, bool satfinite = false,
                                    bool relu = false) {
  uint16_t ha = f32ToBF16(a, r, satfinite), hb = f32ToBF16(b, r, satfinite);
  return relu ? packHalves(reluBF16(ha), reluBF16(hb)) : packHalves(ha, hb);
}

#define PTXSIM_NUMERICS_X2(NAME, OP)                                                              \
  static inline uint32_t NAME(uint32_t a, uint32_t b, Rnd r = Rnd::RN) {                          \
    return packHalves(OP(hiHalf(a), hiHalf(b), r), OP(loHalf(a), loHalf(b), r));                  \
  }
PTXSIM_NUMERICS_X2(addF16x2, addF16)
PTXSIM_NUMERICS_X2(subF16x2, subF16)
PTXSIM_NUMERICS_X2(mulF16x2, mulF16)
PTXSIM_NUMERICS_X2(addBF16x2, addBF16)
PTXSIM_NUMERICS_X2(subBF16x2, subBF16)
PTXSIM_NUMERICS_X2(mulBF16x2, mulBF16)
#undef PTXSIM_NUMERICS_X2

static inline uint32_t fmaF16x2(uint32_t a, uint32_t b, uint32_t c, Rnd r = Rnd::RN) {
  return packHalves(fmaF16(hiHalf(a), hiHalf(b), hiHalf(c), r), fmaF16(loHalf(a), loHalf(b), loHalf(c), r));
}
static inline uint32_t fmaBF16x2(uint32_t a, uint32_t b, uint32_t c, Rnd r = Rnd::RN) {
  return packHalves(fmaBF16(hiHalf(a), hiHalf(b), hiHalf(c), r), fmaBF16(loHalf(a), loHalf(b), loHalf(c), r));
}
static inline uint32_t minF16x2(uint32_t a, uint32_t b) {
  return packHalves(minF16(hiHalf(a), hiHalf(b)), minF16(loHalf(a), loHalf(b)));
}
static inline uint32_t maxF16x2(uint32_t a, uint32_t b) {
  return packHalves(maxF16(hiHalf(a), hiHalf(b)), maxF16(loHalf(a), loHalf(b)));
}
static inline uint32_t minBF16x2(uint32_t a, uint32_t b) {
  return packHalves(minBF16(hiHalf(a), hiHalf(b)), minBF16(loHalf(a), loHalf(b)));
}
static inline uint32_t maxBF16x2(uint32_t a, uint32_t b) {
  return packHalves(maxBF16(hiHalf(a), hiHalf(b)), maxBF16(loHalf(a), loHalf(b)));
}
static inline uint32_t negF16x2(uint32_t a) { return a ^ 0x80008000u; }
static inline uint32_t absF16x2(uint32_t a) { return a & 0x7fff7fffu; }
static inline uint32_t negBF16x2(uint32_t a) { return a ^ 0x80008000u; }
static inline uint32_t absBF16x2(uint32_t a) { return a & 0x7fff7fffu; }
static inline uint32_t satF16x2(uint32_t a) { return packHalves(satF16(hiHalf(a)), satF16(loHalf(a))); }

//===----------------------------------------------------------------------===//
// cvt between floating-point types and to integral values
//===----------------------------------------------------------------------===//

/// cvt.frnd.f32.f64 (.ftz: ftz32 on the result; .sat: sat32 on the result).
static inline float f64ToF32(double x, Rnd r = Rnd::RN) {
  if (r == Rnd::RN || !std::isfinite(x) || x == 0)
    return static_cast<float>(x);
  numerics_detail::Unp u = numerics_detail::unpack(x);
  return f32OfBits(static_cast<uint32_t>(numerics_detail::roundPack(u.neg, u.m, u.e, false, numerics_detail::kF32, r)));
}
/// cvt.f64.f32 (exact; .ftz flushes the input: f32ToF64(ftz32(a))).
static inline double f32ToF64(float x) { return x; }
/// cvt.irnd.f64.f64: round to an integral value (.rni ties to even); NaN/inf/+-0 unchanged.
static inline double roundToIntegralF64(double x, IRnd r) { return numerics_detail::roundIntegral(x, r); }
/// cvt.irnd.f32.f32 (exact: an integral float's value is a float).
static inline float roundToIntegralF32(float x, IRnd r) {
  return static_cast<float>(numerics_detail::roundIntegral(x, r));
}
/// cvt.irnd.f16.f16 / .bf16.bf16 on bit patterns.
static inline uint16_t roundToIntegralF16(uint16_t h, IRnd r) {
  float x = f16ToF32(h);
  return x != x ? kCanonicalNaNF16 : f32ToF16(roundToIntegralF32(x, r));
}
static inline uint16_t roundToIntegralBF16(uint16_t h, IRnd r) {
  float x = bf16ToF32(h);
  return x != x ? kCanonicalNaNBF16 : f32ToBF16(roundToIntegralF32(x, r));
}

/// cvt.irnd.{s,u}{8,16,32,64}.{f16,bf16,f32,f64}: round with r (PTX requires one of .rni,
/// .rzi, .rmi, .rpi; None behaves as .rzi, the C conversion), saturate to I's range.
/// NaN: the PTX ISA says 0, and an H100 gives 0 for 8/16/32-bit destinations, but its 64-bit
/// converters (F2I.S64/U64, F2I.F64.S64/U64) return 0x8000000000000000 for both .s64 and .u64
/// (measured: ../shared/hw/h100/native_failures.txt, __float2ll_* and __float2ull_rz of NaN).
/// Programs compiled for the hardware see the hardware's value, so ptxsim follows it.
/// Pass f32/f16/bf16 values widened to double (exact); apply ftz32 first for .ftz.
template <class I> static inline I floatToInt(double x, IRnd r) {
  static_assert(std::is_integral_v<I>, "integer destination");
  if (x != x) {
    if constexpr (sizeof(I) == 8)
      return static_cast<I>(uint64_t(1) << 63);
    return 0;
  }
  double t = numerics_detail::roundIntegral(x, r == IRnd::None ? IRnd::RZI : r);
  constexpr double lo = static_cast<double>(std::numeric_limits<I>::min()); // 0 or -2^(n-1)
  constexpr double hiExcl = static_cast<double>(uint64_t(1) << (std::numeric_limits<I>::digits - 1)) * 2.0;
  if (t <= lo)
    return std::numeric_limits<I>::min();
  if (t >= hiExcl)
    return std::numeric_limits<I>::max();
  return static_cast<I>(t);
}
template <class I> static inline I f16ToInt(uint16_t h, IRnd r) { return floatToInt<I>(f16ToF32(h), r); }
template <class I> static inline I bf16ToInt(uint16_t h, IRnd r) { return floatToInt<I>(bf16ToF32(h), r); }

namespace numerics_detail {
template <class I> static inline uint64_t intToBits(I v, Fmt f, Rnd r) {
  if (v == 0)
    return 0;
  bool neg = false;
  uint64_t mag = static_cast<uint64_t>(v);
  if constexpr (std::is_signed_v<I>) {
    neg = v < 0;
    if (neg)
      mag = uint64_t(0) - mag;
  }
  return roundPack(neg, mag, 0, false, f, r);
}
} // namespace numerics_detail

/// cvt.frnd.{f16,bf16,f32,f64}.{s,u}{8,16,32,64}: correctly rounded in every mode.
template <class I> static inline float intToF32(I v, Rnd r = Rnd::RN) {
  if (r == Rnd::RN)
    return static_cast<float>(v);
  return f32OfBits(static_cast<uint32_t>(numerics_detail::intToBits(v, numerics_detail::kF32, r)));
}
template <class I> static inline double intToF64(I v, Rnd r = Rnd::RN) {
  if (r == Rnd::RN)
    return static_cast<double>(v);
  return f64OfBits(numerics_detail::intToBits(v, numerics_detail::kF64, r));
}
template <class I> static inline uint16_t intToF16(I v, Rnd r = Rnd::RN) {
  return static_cast<uint16_t>(numerics_detail::intToBits(v, numerics_detail::kF16, r));
}
template <class I> static inline uint16_t intToBF16(I v, Rnd r = Rnd::RN) {
  return static_cast<uint16_t>(numerics_detail::intToBits(v, numerics_detail::kBF16, r));
}

//===----------------------------------------------------------------------===//
// Approximate instructions
//===----------------------------------------------------------------------===//
// Every f32 .approx operation (rcp, rsqrt, sqrt, ex2, lg2, tanh, sin, cos, and div.approx/.full
// built on rcp) is the H200's bits: the SFU functions of Mufu.h, wrapped for subnormal inputs and
// results as ptxas does for the forms without .ftz (sm_90 SASS). The others (the f64 approximate
// forms, ex2/tanh.approx.f16 and .bf16) are computed with host math at least as accurate as the
// PTX bounds (most are correctly rounded, so results may differ from a GPU in the last bits).
// Special values follow the PTX ISA tables; .ftz variants: ftz32 on input and result.

/// rcp.approx.f32: rcp(+-0) = +-inf, rcp(+-inf) = +-0, NaN -> NaN. ptxas scales a subnormal
/// input by 2^24 and an input above 2^126 by 1/4 around MUFU.RCP and the result back.
static inline float rcpApproxF32(float x) {
  const float a = std::fabs(x);
  const float s = a < 0x1p-126f ? 0x1p24f : (a > 0x1p126f ? 0.25f : 1.0f);
  return s * mufuRcp(x * s);
}
/// sqrt.approx.f32: sqrt(-0) = -0, sqrt(+inf) = +inf, negative -> NaN. A subnormal input:
/// MUFU.SQRT(x * 2^24) * 2^-12 (sm_90 SASS).
static inline float sqrtApproxF32(float x) {
  return std::fabs(x) < 0x1p-126f ? mufuSqrt(x * 0x1p24f) * 0x1p-12f : mufuSqrt(x);
}
/// rsqrt.approx.f32: rsqrt(+0) = +inf, rsqrt(-0) = -inf, rsqrt(+inf) = +0, negative -> NaN.
/// A subnormal input: MUFU.RSQ(x * 2^24) * 2^12.
static inline float rsqrtApproxF32(float x) {
  return std::fabs(x) < 0x1p-126f ? mufuRsq(x * 0x1p24f) * 0x1p12f : mufuRsq(x);
}
/// FMUL.RZ x, 0.15915493667125701904 (1/(2 pi) as an f32, 0x3e22f983): the f64 product of two
/// f32 is exact, so cutting its significand to 24 bits rounds toward zero whatever the host's
/// rounding mode; products below 2^-126 (f32 subnormals), zeros and NaN take mulF32's exact path.
static inline float revolutionsRzF32(float x) {
  const double p = static_cast<double>(x) * 0x1.45f306p-3;
  if (!(std::fabs(p) >= 0x1p-126))
    return mulF32(x, 0x1.45f306p-3f, Rnd::RZ);
  uint64_t b;
  std::memcpy(&b, &p, 8);
  b &= ~((uint64_t(1) << 29) - 1); // an infinite x stays infinite
  double t;
  std::memcpy(&t, &b, 8);
  return static_cast<float>(t); // exact
}
/// sin.approx.f32 (and __sinf), sm_90 SASS: FMUL.RZ by 1/(2 pi) as an f32 (0x3e22f983), then
/// MUFU.SIN of those revolutions; the same with or without .ftz (the unit flushes a subnormal
/// product). sin(+-0) = +-0, sin(+-inf) = NaN; 0 < |x| < 2 pi 2^-25 (and |x| >= 2^27) give +-0.
static inline float sinApproxF32(float x) { return mufuSin(revolutionsRzF32(x)); }
/// cos.approx.f32 (and __cosf): MUFU.COS(RZ(x * 0x3e22f983)). cos(+-0) = 1, cos(+-inf) = NaN.
static inline float cosApproxF32(float x) { return mufuCos(revolutionsRzF32(x)); }
/// lg2.approx.f32: lg2(+-0) = -inf, lg2(+inf) = +inf, lg2(negative) = NaN, lg2(1) = +0. A
/// subnormal input: MUFU.LG2(x * 2^24) - 24 (sm_90 SASS: FADD, rounded to nearest).
static inline float lg2ApproxF32(float x) {
  return std::fabs(x) < 0x1p-126f ? mufuLg2(x * 0x1p24f) + -24.0f : mufuLg2(x);
}
/// ex2.approx.f32: ex2(-inf) = +0, ex2(+-0) = 1, ex2(+inf) = +inf. Below -126 (a subnormal
/// result) ptxas squares MUFU.EX2(x / 2).
static inline float ex2ApproxF32(float x) {
  if (x < -126.0f) {
    const float h = mufuEx2(x * 0.5f);
    return h * h;
  }
  return mufuEx2(x);
}
/// tanh.approx.f32: tanh(+-0) = +-0, tanh(+-inf) = +-1 (MUFU.TANH alone in the SASS).
static inline float tanhApproxF32(float x) { return mufuTanh(x); }
/// ex2.approx.f16 / tanh.approx.f16 (via f32, rounded to nearest).
/// (MUFU.EX2.F16 and MUFU.TANH.F16 were not measured: f16 and bf16 keep the host function,
/// unlike the .f32 forms.)
static inline float ex2HostF32(float x) { return static_cast<float>(std::exp2(static_cast<double>(x))); }
static inline float tanhHostF32(float x) { return static_cast<float>(std::tanh(static_cast<double>(x))); }
static inline uint16_t ex2ApproxF16(uint16_t h) { return f32ToF16(ex2HostF32(f16ToF32(h))); }
static inline uint16_t tanhApproxF16(uint16_t h) { return f32ToF16(tanhHostF32(f16ToF32(h))); }
/// div.approx.f32 (sm_90 SASS): MUFU.RCP(b) * a, both scaled by 2^24 when b is subnormal (so
/// subnormal / subnormal is finite: 0x1 / 0x1 = 1). The reciprocal flushes, so for
/// 2^126 < |b| < 2^128 a finite a gives +-0 (as PTX documents).
static inline float divApproxF32(float a, float b) {
  const float s = std::fabs(b) < 0x1p-126f ? 0x1p24f : 1.0f;
  return mufuRcp(b * s) * (a * s);
}
/// div.full.f32 (sm_90 SASS): as div.approx, and both operands also scaled by 1/4 when
/// |b| > 2^126, so the whole range of b is covered (within 2 ulp).
static inline float divFullF32(float a, float b) {
  const float ab = std::fabs(b);
  if (ab > 0x1p126f) {
    a *= 0.25f;
    b *= 0.25f;
  } else if (ab < 0x1p-126f) {
    a *= 0x1p24f;
    b *= 0x1p24f;
  }
  return mufuRcp(b) * a;
}
/// rcp.approx.ftz.f64: subnormal input and result flushed to signed zero.
static inline double rcpApproxFtzF64(double x) { return ftz64(1.0 / ftz64(x)); }
/// rsqrt.approx.f64 (rsqrt(-0) = -inf, rsqrt(+0) = +inf, negative -> NaN).
static inline double rsqrtApproxF64(double x) { return 1.0 / std::sqrt(x); }

} // namespace ptxsim::ptx::exec

#endif // PTXSIM_PTX_EXEC_NUMERICS_H

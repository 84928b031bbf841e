// PTX floating-point semantics (ptx/exec/Numerics.h) against independent references: the host
// FPU under fesetround (through volatile operands, checked to really change results), a slow
// table-search rounding to .f16/.bf16, integer rounding of 64-bit values, and hand-computed
// cases for NaN, signed zeros, infinities, subnormals, overflow and ties.

#include "ptx/exec/Numerics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfenv>
#include <cfloat>
#include <cstdint>
#include <random>
#include <vector>

namespace ptxsim::test {
namespace {

using namespace ptx::exec;

constexpr Rnd kModes[] = {Rnd::RN, Rnd::RZ, Rnd::RM, Rnd::RP};

const char *name(Rnd r) {
  switch (r) {
  case Rnd::RN:
    return "rn";
  case Rnd::RZ:
    return "rz";
  case Rnd::RM:
    return "rm";
  case Rnd::RP:
    return "rp";
  }
  return "?";
}

int fenvMode(Rnd r) {
  switch (r) {
  case Rnd::RN:
    return FE_TONEAREST;
  case Rnd::RZ:
    return FE_TOWARDZERO;
  case Rnd::RM:
    return FE_DOWNWARD;
  case Rnd::RP:
    return FE_UPWARD;
  }
  return FE_TONEAREST;
}

/// Runs `f` (which must read its operands from volatiles) under rounding mode r and returns
/// its result through a volatile, so the operation can be neither folded nor moved.
template <class T, class F> T underMode(Rnd r, F f) {
  std::fesetround(fenvMode(r));
  volatile T out = f();
  std::fesetround(FE_TONEAREST);
  return out;
}

enum class Op { Add, Sub, Mul, Div, Fma, Sqrt, Rcp };

template <class T> T hostRef(Op op, T a, T b, T c, Rnd r) {
  volatile T va = a, vb = b, vc = c;
  return underMode<T>(r, [&]() -> T {
    switch (op) {
    case Op::Add:
      return va + vb;
    case Op::Sub:
      return va - vb;
    case Op::Mul:
      return va * vb;
    case Op::Div:
      return va / vb;
    case Op::Fma:
      return std::fma(T(va), T(vb), T(vc));
    case Op::Sqrt:
      return std::sqrt(T(va));
    case Op::Rcp:
      return T(1) / va;
    }
    return 0;
  });
}

float ours(Op op, float a, float b, float c, Rnd r) {
  switch (op) {
  case Op::Add:
    return addF32(a, b, r);
  case Op::Sub:
    return subF32(a, b, r);
  case Op::Mul:
    return mulF32(a, b, r);
  case Op::Div:
    return divF32(a, b, r);
  case Op::Fma:
    return fmaF32(a, b, c, r);
  case Op::Sqrt:
    return sqrtF32(a, r);
  case Op::Rcp:
    return rcpF32(a, r);
  }
  return 0;
}
double ours(Op op, double a, double b, double c, Rnd r) {
  switch (op) {
  case Op::Add:
    return addF64(a, b, r);
  case Op::Sub:
    return subF64(a, b, r);
  case Op::Mul:
    return mulF64(a, b, r);
  case Op::Div:
    return divF64(a, b, r);
  case Op::Fma:
    return fmaF64(a, b, c, r);
  case Op::Sqrt:
    return sqrtF64(a, r);
  case Op::Rcp:
    return rcpF64(a, r);
  }
  return 0;
}

uint64_t bitsOf(float x) { return bitsOfF32(x); }
uint64_t bitsOf(double x) { return bitsOfF64(x); }

/// Same value and sign; any NaN matches any NaN.
template <class T> bool sameFloat(T x, T y) { return (x != x && y != y) || bitsOf(x) == bitsOf(y); }

/// Random values of every class, with pairs often close in magnitude (cancellation, ties).
template <class T> struct Gen {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  std::mt19937_64 rng{12345};
  T any() {
    U bits = static_cast<U>(rng());
    T x;
    switch (rng() % 8) {
    case 0: { // subnormal
      U frac = bits & ((U(1) << (std::numeric_limits<T>::digits - 1)) - 1);
      bits = (bits & (U(1) << (sizeof(T) * 8 - 1))) | frac;
      break;
    }
    case 1: // short significand, moderate exponent: exact ties and cancellations
      x = static_cast<T>(static_cast<int32_t>(rng() % 2001) - 1000) * std::ldexp(T(1), int(rng() % 41) - 20);
      return x;
    case 2:
      bits |= 0; // raw bits (may be inf/NaN)
      break;
    default: { // normal value in a moderate range
      T m = static_cast<T>(1) + static_cast<T>(rng() % (uint64_t(1) << 40)) * std::ldexp(T(1), -40);
      x = std::ldexp(m, int(rng() % 120) - 60);
      return rng() % 2 ? -x : x;
    }
    }
    std::memcpy(&x, &bits, sizeof x);
    return x;
  }
  /// A value near `a` in magnitude (or an arbitrary one).
  T near(T a) {
    if (rng() % 4 == 0 || !std::isfinite(a) || a == 0)
      return any();
    U bits;
    std::memcpy(&bits, &a, sizeof bits);
    bits += static_cast<U>(static_cast<int64_t>(rng() % 2000001) - 1000000) << (rng() % 8);
    T b;
    std::memcpy(&b, &bits, sizeof b);
    b = std::ldexp(b, int(rng() % 61) - 30);
    return rng() % 2 ? -b : b;
  }
};

//===----------------------------------------------------------------------===//

TEST(NumericsReference, FesetroundChangesHostResults) {
  // The reference is only meaningful if the mode really reaches the operations.
  volatile double one = 1.0, tiny = 0x1p-60;
  EXPECT_EQ(hostRef<double>(Op::Add, one, tiny, 0, Rnd::RN), 1.0);
  EXPECT_EQ(hostRef<double>(Op::Add, one, tiny, 0, Rnd::RP), std::nextafter(1.0, 2.0));
  EXPECT_EQ(hostRef<double>(Op::Sub, one, tiny, 0, Rnd::RZ), std::nextafter(1.0, 0.0));
  EXPECT_EQ(hostRef<float>(Op::Div, 1.0f, 3.0f, 0, Rnd::RP), std::nextafter(hostRef<float>(Op::Div, 1.0f, 3.0f, 0, Rnd::RM), 1.0f));
}

template <class T> void checkArithmetic(int n) {
  Gen<T> g;
  const Op ops[] = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Fma, Op::Sqrt, Op::Rcp};
  int failures = 0;
  for (int i = 0; i < n && failures < 20; ++i) {
    T a = g.any(), b = g.near(a), c = g.near(i % 2 ? a * b : a);
    if (i % 3 == 0 && std::isfinite(a * b))
      c = -(a * b) * (1 + T(g.rng() % 16) * std::numeric_limits<T>::epsilon()); // fma cancellation
    for (Op op : ops)
      for (Rnd r : kModes) {
        T want = hostRef<T>(op, a, b, c, r), got = ours(op, a, b, c, r);
        if (!sameFloat(want, got)) {
          ++failures;
          ADD_FAILURE() << "op " << int(op) << "." << name(r) << " a=" << std::hexfloat << a << " b=" << b
                        << " c=" << c << ": want " << want << " got " << got;
        }
      }
  }
}

TEST(NumericsF32, ArithmeticInEveryModeMatchesHostFenv) { checkArithmetic<float>(100000); }
TEST(NumericsF64, ArithmeticInEveryModeMatchesHostFenv) { checkArithmetic<double>(100000); }

TEST(NumericsF32, DirectedOverflowGivesMaxFiniteOrInf) {
  const float m = FLT_MAX, inf = INFINITY;
  EXPECT_EQ(addF32(m, m, Rnd::RN), inf);
  EXPECT_EQ(addF32(m, m, Rnd::RZ), m);
  EXPECT_EQ(addF32(m, m, Rnd::RM), m);
  EXPECT_EQ(addF32(m, m, Rnd::RP), inf);
  EXPECT_EQ(addF32(-m, -m, Rnd::RZ), -m);
  EXPECT_EQ(addF32(-m, -m, Rnd::RM), -inf);
  EXPECT_EQ(addF32(-m, -m, Rnd::RP), -m);
  EXPECT_EQ(mulF32(m, 2.0f, Rnd::RZ), m);
  EXPECT_EQ(mulF32(m, -2.0f, Rnd::RP), -m);
  EXPECT_EQ(fmaF32(m, 2.0f, -m, Rnd::RZ), m); // exact m, no intermediate overflow
  EXPECT_EQ(divF32(m, 0.5f, Rnd::RZ), m);
  // Just above FLT_MAX by less than half an ulp: .rn stays finite, .rp overflows.
  EXPECT_EQ(addF32(m, 1.0f, Rnd::RN), m);
  EXPECT_EQ(addF32(m, 1.0f, Rnd::RP), inf);
  EXPECT_EQ(addF64(DBL_MAX, 1.0, Rnd::RP), INFINITY);
  EXPECT_EQ(mulF64(DBL_MAX, 3.0, Rnd::RZ), DBL_MAX);
  EXPECT_EQ(mulF64(DBL_MAX, -3.0, Rnd::RM), -INFINITY);
  // fma: the product alone overflows, the sum does not; far smaller terms still count.
  EXPECT_EQ(fmaF64(DBL_MAX, 1.5, -DBL_MAX, Rnd::RZ), DBL_MAX / 2);
  EXPECT_EQ(fmaF64(DBL_MAX, 1.5, -DBL_MAX, Rnd::RN), DBL_MAX / 2);
  EXPECT_EQ(fmaF64(0x1p-600, 0x1p-600, 1.0, Rnd::RP), std::nextafter(1.0, 2.0));
  EXPECT_EQ(fmaF64(0x1p-600, -0x1p-600, 1.0, Rnd::RZ), std::nextafter(1.0, 0.0));
  EXPECT_EQ(fmaF64(0x1p-600, 0x1p-600, 1.0, Rnd::RN), 1.0);
}

TEST(NumericsF32, TiesAndModesOnHandPickedValues) {
  const float one = 1.0f, u = 0x1p-23f; // ulp of 1
  // 1 + u/2 is a tie: .rn goes to the even neighbour 1.
  EXPECT_EQ(addF32(one, u / 2), one);
  EXPECT_EQ(addF32(one + u, u / 2), one + 2 * u); // tie rounds up to even
  EXPECT_EQ(addF32(one, u / 2, Rnd::RZ), one);
  EXPECT_EQ(addF32(one, u / 2, Rnd::RM), one);
  EXPECT_EQ(addF32(one, u / 2, Rnd::RP), one + u);
  EXPECT_EQ(addF32(-one, -u / 2, Rnd::RM), -one - u);
  EXPECT_EQ(addF32(-one, -u / 2, Rnd::RZ), -one);
  // A far smaller addend still moves directed results.
  EXPECT_EQ(addF32(one, 0x1p-140f, Rnd::RP), one + u);
  EXPECT_EQ(subF32(one, 0x1p-140f, Rnd::RZ), std::nextafter(one, 0.0f));
  EXPECT_EQ(subF32(one, 0x1p-140f, Rnd::RN), one);
  // 1/3 in every mode.
  EXPECT_EQ(divF32(1, 3, Rnd::RZ), 0x1.555554p-2f);
  EXPECT_EQ(divF32(1, 3, Rnd::RM), 0x1.555554p-2f);
  EXPECT_EQ(divF32(1, 3, Rnd::RN), 0x1.555556p-2f);
  EXPECT_EQ(divF32(1, 3, Rnd::RP), 0x1.555556p-2f);
  EXPECT_EQ(divF32(-1, 3, Rnd::RM), -0x1.555556p-2f);
  EXPECT_EQ(sqrtF32(2, Rnd::RZ), 0x1.6a09e6p+0f);
  EXPECT_EQ(sqrtF32(2, Rnd::RP), 0x1.6a09e8p+0f);
  EXPECT_EQ(rcpF64(3, Rnd::RP), std::nextafter(1.0 / 3, 1.0));
}

TEST(NumericsF32, SignedZerosAndSubnormals) {
  EXPECT_TRUE(std::signbit(addF32(1.0f, -1.0f, Rnd::RM)));
  EXPECT_FALSE(std::signbit(addF32(1.0f, -1.0f, Rnd::RN)));
  EXPECT_FALSE(std::signbit(addF32(1.0f, -1.0f, Rnd::RP)));
  EXPECT_TRUE(std::signbit(addF32(-0.0f, -0.0f, Rnd::RP)));
  EXPECT_TRUE(std::signbit(addF32(0.0f, -0.0f, Rnd::RM)));
  EXPECT_FALSE(std::signbit(addF32(0.0f, -0.0f, Rnd::RZ)));
  EXPECT_FALSE(std::signbit(addF32(0.0f, 0.0f, Rnd::RM)));
  EXPECT_TRUE(std::signbit(fmaF32(1.0f, -0.0f, 0.0f, Rnd::RM)));
  EXPECT_FALSE(std::signbit(fmaF32(1.0f, -0.0f, 0.0f, Rnd::RN)));
  EXPECT_TRUE(std::signbit(fmaF64(2.0, 3.0, -6.0, Rnd::RM)));
  EXPECT_TRUE(std::signbit(subF64(5.0, 5.0, Rnd::RM)));
  const float minSub = 0x1p-149f;
  EXPECT_EQ(mulF32(FLT_MIN, 0.5f, Rnd::RZ), 0x1p-127f); // exact subnormal
  EXPECT_EQ(mulF32(minSub, 0.5f, Rnd::RN), 0.0f);        // tie to even zero
  EXPECT_EQ(mulF32(minSub, 0.75f, Rnd::RN), minSub);
  EXPECT_EQ(mulF32(minSub, 0.5f, Rnd::RP), minSub);
  EXPECT_EQ(bitsOfF32(mulF32(-minSub, 0.5f, Rnd::RP)), 0x80000000u);
  EXPECT_EQ(mulF32(-minSub, 0.5f, Rnd::RM), -minSub);
  EXPECT_EQ(mulF64(0x1p-1074, 0x1p-3, Rnd::RP), 0x1p-1074);
  EXPECT_EQ(mulF64(0x1.8p-1060, 0x1.8p-10, Rnd::RZ), 36 * 0x1p-1074); // exact subnormal
  EXPECT_EQ(mulF64(0x1.8p-1060, 0x1.8p-16, Rnd::RZ), 0.0);            // 0.5625 * 2^-1074
  EXPECT_EQ(mulF64(0x1.8p-1060, 0x1.8p-16, Rnd::RN), 0x1p-1074);
  EXPECT_EQ(mulF64(0x1.8p-1060, 0x1.8p-13, Rnd::RN), 4 * 0x1p-1074); // 4.5: tie to even
  EXPECT_EQ(mulF64(0x1.8p-1060, 0x1.8p-13, Rnd::RZ), 4 * 0x1p-1074);
  EXPECT_EQ(mulF64(0x1.8p-1060, 0x1.8p-13, Rnd::RP), 5 * 0x1p-1074);
  EXPECT_EQ(mulF64(-0x1.8p-1060, 0x1.8p-13, Rnd::RM), -5 * 0x1p-1074);
  EXPECT_EQ(sqrtF64(0x1p-1074, Rnd::RN), 0x1p-537);
  EXPECT_EQ(sqrtF64(0x1.8p-1070, Rnd::RZ), hostRef<double>(Op::Sqrt, 0x1.8p-1070, 0, 0, Rnd::RZ));
}

TEST(NumericsF32, FtzAndSat) {
  EXPECT_EQ(bitsOfF32(ftz32(0x1p-130f)), 0u);
  EXPECT_EQ(bitsOfF32(ftz32(-0x1p-149f)), 0x80000000u);
  EXPECT_EQ(ftz32(FLT_MIN), FLT_MIN);
  EXPECT_EQ(bitsOfF64(ftz64(-0x1p-1070)), 0x8000000000000000ull);
  EXPECT_EQ(bitsOfF32(sat32(NAN)), 0u);
  EXPECT_EQ(bitsOfF32(sat32(-0.0f)), 0u);
  EXPECT_EQ(sat32(-3.0f), 0.0f);
  EXPECT_EQ(sat32(1.5f), 1.0f);
  EXPECT_EQ(sat32(INFINITY), 1.0f);
  EXPECT_EQ(sat32(0.25f), 0.25f);
  EXPECT_EQ(sat64(2.0), 1.0);
  EXPECT_EQ(bitsOfF64(sat64(NAN)), 0u);
  // add.rn.ftz.sat.f32 composition
  EXPECT_EQ(sat32(ftz32(addF32(ftz32(0x1p-140f), ftz32(-0.5f)))), 0.0f);
}

TEST(NumericsMinMax, NaNAndSignedZeroRules) {
  const float nan = NAN;
  const float snanLike = f32OfBits(0x7fa00001u);
  EXPECT_EQ(minF32(nan, 2.0f), 2.0f);
  EXPECT_EQ(minF32(2.0f, snanLike), 2.0f);
  EXPECT_EQ(maxF32(nan, -2.0f), -2.0f);
  EXPECT_EQ(bitsOfF32(minF32(nan, snanLike)), 0x7fffffffu);
  EXPECT_EQ(bitsOfF32(maxF32(nan, nan)), 0x7fffffffu);
  EXPECT_EQ(bitsOfF32(minF32(0.0f, -0.0f)), 0x80000000u);
  EXPECT_EQ(bitsOfF32(minF32(-0.0f, 0.0f)), 0x80000000u);
  EXPECT_EQ(bitsOfF32(maxF32(-0.0f, 0.0f)), 0u);
  EXPECT_EQ(bitsOfF32(maxF32(0.0f, -0.0f)), 0u);
  EXPECT_EQ(minF32(-INFINITY, 3.0f), -INFINITY);
  EXPECT_EQ(bitsOfF32(minNaNF32(1.0f, nan)), 0x7fffffffu);
  EXPECT_EQ(bitsOfF32(maxNaNF32(nan, 1.0f)), 0x7fffffffu);
  EXPECT_EQ(maxNaNF32(1.0f, 3.0f), 3.0f);
  EXPECT_EQ(bitsOfF64(minF64(NAN, NAN)), 0x7fffffffffffffffull);
  EXPECT_EQ(minF64(NAN, 1.0), 1.0);
  EXPECT_EQ(bitsOfF64(maxF64(-0.0, 0.0)), 0u);
  EXPECT_EQ(bitsOfF64(minF64(0.0, -0.0)), 0x8000000000000000ull);
  EXPECT_EQ(bitsOfF64(maxNaNF64(2.0, NAN)), 0x7fffffffffffffffull);
  // f16: 1.0 = 0x3c00, 2.0 = 0x4000, -0 = 0x8000, NaN 0x7e00 / 0xfd00.
  EXPECT_EQ(minF16(0x3c00, 0x4000), 0x3c00);
  EXPECT_EQ(maxF16(0x3c00, 0x4000), 0x4000);
  EXPECT_EQ(minF16(0x7e00, 0x4000), 0x4000);
  EXPECT_EQ(minF16(0x7e00, 0xfd00), 0x7fff);
  EXPECT_EQ(minF16(0x0000, 0x8000), 0x8000);
  EXPECT_EQ(maxF16(0x8000, 0x0000), 0x0000);
  EXPECT_EQ(minNaNF16(0x3c00, 0x7e00), 0x7fff);
  EXPECT_EQ(minF16(0xc000, 0x3c00), 0xc000); // -2 < 1
  EXPECT_EQ(maxBF16(0x3f80, 0x7fc0), 0x3f80);
  EXPECT_EQ(maxBF16(0xffc1, 0x7fc0), 0x7fff);
  EXPECT_EQ(minBF16(0xbf80, 0x3f80), 0xbf80);
  EXPECT_EQ(maxNaNBF16(0xbf80, 0xffc0), 0x7fff);
  EXPECT_EQ(minF16x2(0x3c004000u, 0x40003c00u), 0x3c003c00u);
}

TEST(NumericsTestp, Classes) {
  struct Row {
    double x;
    bool finite, infinite, number, nan, normal, subnormal;
  };
  const Row rows[] = {
      {0.0, true, false, true, false, false, false},      {-0.0, true, false, true, false, false, false},
      {1.5, true, false, true, false, true, false},       {INFINITY, false, true, true, false, false, false},
      {-INFINITY, false, true, true, false, false, false}, {NAN, false, false, false, true, false, false},
  };
  for (const Row &r : rows) {
    for (int w = 0; w < 2; ++w) {
      auto t = [&](TestpKind k) { return w ? testpF64(k, r.x) : testpF32(k, float(r.x)); };
      EXPECT_EQ(t(TestpKind::Finite), r.finite) << r.x;
      EXPECT_EQ(t(TestpKind::Infinite), r.infinite) << r.x;
      EXPECT_EQ(t(TestpKind::Number), r.number) << r.x;
      EXPECT_EQ(t(TestpKind::NotANumber), r.nan) << r.x;
      EXPECT_EQ(t(TestpKind::Normal), r.normal) << r.x;
      EXPECT_EQ(t(TestpKind::Subnormal), r.subnormal) << r.x;
    }
  }
  EXPECT_TRUE(testpF32(TestpKind::Subnormal, 0x1p-130f));
  EXPECT_FALSE(testpF32(TestpKind::Normal, -0x1p-130f));
  EXPECT_TRUE(testpF32(TestpKind::Normal, FLT_MIN));
  EXPECT_TRUE(testpF64(TestpKind::Subnormal, 0x1p-1050));
  EXPECT_TRUE(testpF64(TestpKind::Normal, 0x1p-1000)); // subnormal as f32, normal as f64
}

TEST(NumericsBits, CopysignAbsNeg) {
  EXPECT_EQ(copysignF32(-1.0f, 2.0f), -2.0f); // sign from the first operand
  EXPECT_EQ(copysignF32(1.0f, -2.0f), 2.0f);
  EXPECT_EQ(copysignF64(-0.0, 3.0), -3.0);
  EXPECT_EQ(bitsOfF32(copysignF32(-1.0f, NAN)), bitsOfF32(NAN) | 0x80000000u);
  EXPECT_EQ(bitsOfF32(absF32(f32OfBits(0xffa00001u))), 0x7fa00001u); // NaN payload kept
  EXPECT_EQ(bitsOfF32(negF32(f32OfBits(0x7fa00001u))), 0xffa00001u);
  EXPECT_EQ(bitsOfF32(negF32(0.0f)), 0x80000000u);
  EXPECT_EQ(bitsOfF64(absF64(-0.0)), 0u);
  EXPECT_EQ(negF64(2.0), -2.0);
  EXPECT_EQ(negF16(0x3c00), 0xbc00);
  EXPECT_EQ(absF16(0xfe01), 0x7e01);
  EXPECT_EQ(negBF16(0x7fc1), 0xffc1);
  EXPECT_EQ(absBF16(0x8000), 0);
  EXPECT_EQ(negF16x2(0x3c00bc00u), 0xbc003c00u);
}

//===----------------------------------------------------------------------===//
// .f16 / .bf16
//===----------------------------------------------------------------------===//

__extension__ typedef __float128 Quad;

/// Slow reference: round x to a 16-bit format by searching the sorted table of its
/// nonnegative finite values (index = bit pattern).
struct Table16 {
  std::vector<double> v; // v[bits] for bits in [0, infBits)
  uint16_t infBits;
  explicit Table16(bool bf) : infBits(bf ? 0x7f80 : 0x7c00) {
    for (uint32_t b = 0; b < infBits; ++b) {
      double x;
      if (bf) {
        x = f32OfBits(b << 16);
      } else {
        uint32_t ex = b >> 10, fr = b & 0x3ff;
        x = ex ? std::ldexp(1.0 + fr / 1024.0, int(ex) - 15) : std::ldexp(double(fr), -24);
      }
      v.push_back(x);
    }
  }
  uint16_t round(Quad x, Rnd r, bool satfinite = false) const {
    bool neg = x < 0;
    uint16_t sign = neg ? 0x8000 : 0;
    Quad ax = neg ? -x : x;
    if (ax == 0)
      return sign;
    size_t n = v.size();
    size_t lo;
    Quad loV, hiV;
    if (ax >= Quad(v[n - 1])) {
      if (ax == Quad(v[n - 1]))
        return sign | uint16_t(n - 1);
      lo = n - 1;
      loV = v[n - 1];
      hiV = Quad(v[n - 1]) + (Quad(v[n - 1]) - Quad(v[n - 2])); // where the next value would be
    } else {
      size_t i = std::upper_bound(v.begin(), v.end(), double(ax)) - v.begin() - 1;
      // double(ax) may round; fix up with exact comparisons.
      while (i + 1 < n && Quad(v[i + 1]) <= ax)
        ++i;
      while (Quad(v[i]) > ax)
        --i;
      if (Quad(v[i]) == ax)
        return sign | uint16_t(i);
      lo = i;
      loV = v[i];
      hiV = v[i + 1];
    }
    size_t pick = lo;
    switch (r) {
    case Rnd::RZ:
      break;
    case Rnd::RP:
      pick = neg ? lo : lo + 1;
      break;
    case Rnd::RM:
      pick = neg ? lo + 1 : lo;
      break;
    case Rnd::RN: {
      Quad mid = (loV + hiV) / 2;
      pick = ax < mid ? lo : ax > mid ? lo + 1 : (lo % 2 ? lo + 1 : lo);
      break;
    }
    }
    if (pick >= n && satfinite)
      pick = n - 1;
    return sign | uint16_t(pick);
  }
};

const Table16 &f16Table() {
  static const Table16 t(false);
  return t;
}
const Table16 &bf16Table() {
  static const Table16 t(true);
  return t;
}

bool isNaN16(uint16_t h, bool bf) {
  return bf ? ((h & 0x7f80) == 0x7f80 && (h & 0x7f)) : ((h & 0x7c00) == 0x7c00 && (h & 0x3ff));
}

TEST(NumericsF16, AllValuesDecodeAndRoundTripInEveryMode) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    uint16_t h = uint16_t(b);
    uint32_t ex = (b >> 10) & 0x1f, fr = b & 0x3ff;
    double mag = ex == 0x1f ? (fr ? NAN : INFINITY)
                            : ex ? std::ldexp(1.0 + fr / 1024.0, int(ex) - 15) : std::ldexp(double(fr), -24);
    double want = (b & 0x8000) ? -mag : mag;
    float got = f16ToF32(h);
    if (fr && ex == 0x1f) {
      ASSERT_TRUE(std::isnan(got)) << b;
      for (Rnd r : kModes)
        ASSERT_EQ(f32ToF16(got, r), kCanonicalNaNF16);
      continue;
    }
    ASSERT_EQ(bitsOfF64(double(got)), bitsOfF64(want)) << std::hex << b;
    for (Rnd r : kModes) {
      ASSERT_EQ(f32ToF16(got, r), h) << std::hex << b << " " << name(r);
      ASSERT_EQ(f64ToF16(double(got), r), h) << std::hex << b << " " << name(r);
    }
  }
}

TEST(NumericsBF16, AllValuesRoundTripInEveryMode) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    uint16_t h = uint16_t(b);
    float x = bf16ToF32(h);
    if (isNaN16(h, true)) {
      ASSERT_TRUE(std::isnan(x));
      ASSERT_EQ(f32ToBF16(x, Rnd::RZ), kCanonicalNaNBF16);
      continue;
    }
    for (Rnd r : kModes)
      ASSERT_EQ(f32ToBF16(x, r), h) << std::hex << b << " " << name(r);
  }
}

TEST(NumericsF16, NarrowingMatchesSlowReference) {
  std::mt19937_64 rng(777);
  Gen<float> gf;
  Gen<double> gd;
  int failures = 0;
  for (int i = 0; i < 200000 && failures < 20; ++i) {
    float x;
    if (i % 2) {
      // Around the f16/bf16 range, with ties: a random f16 value plus a few low bits.
      x = std::ldexp(1.0f + float(rng() % (1u << 23)) * 0x1p-23f, int(rng() % 50) - 30);
      if (rng() % 2)
        x = -x;
    } else {
      x = gf.any();
    }
    double d = i % 3 ? double(x) : gd.any();
    for (Rnd r : kModes)
      for (bool sat : {false, true}) {
        auto check = [&](uint16_t got, Quad v, const Table16 &t, bool bf, const char *what) {
          uint16_t want = v != v ? 0x7fff : t.round(v, r, sat);
          if (v == Quad(INFINITY) || v == -Quad(INFINITY))
            want = (v < 0 ? 0x8000 : 0) | (sat ? t.infBits - 1 : t.infBits);
          if (got != want) {
            ++failures;
            ADD_FAILURE() << what << "." << name(r) << (sat ? ".satfinite" : "") << " " << std::hexfloat
                          << double(v) << ": want " << std::hex << want << " got " << got;
          }
          (void)bf;
        };
        check(f32ToF16(x, r, sat), x, f16Table(), false, "f32->f16");
        check(f32ToBF16(x, r, sat), x, bf16Table(), true, "f32->bf16");
        check(f64ToF16(d, r, sat), d, f16Table(), false, "f64->f16");
        check(f64ToBF16(d, r, sat), d, bf16Table(), true, "f64->bf16");
      }
  }
}

TEST(NumericsF16, HandPickedConversions) {
  EXPECT_EQ(f32ToF16(1.0f), 0x3c00);
  EXPECT_EQ(f32ToF16(65504.0f), 0x7bff);
  EXPECT_EQ(f32ToF16(65519.0f), 0x7bff);                // below the rounding boundary
  EXPECT_EQ(f32ToF16(65520.0f), 0x7c00);                // tie past MAX: infinity
  EXPECT_EQ(f32ToF16(65520.0f, Rnd::RN, true), 0x7bff); // .satfinite
  EXPECT_EQ(f32ToF16(1e9f, Rnd::RZ), 0x7bff);
  EXPECT_EQ(f32ToF16(-1e9f, Rnd::RP), 0xfbff);
  EXPECT_EQ(f32ToF16(-1e9f, Rnd::RM), 0xfc00);
  EXPECT_EQ(f32ToF16(-INFINITY, Rnd::RN, true), 0xfbff);
  EXPECT_EQ(f32ToF16(NAN, Rnd::RN, true), 0x7fff);
  EXPECT_EQ(f32ToF16(0x1p-25f), 0x0000);            // tie to even zero
  EXPECT_EQ(f32ToF16(0x1.8p-25f), 0x0001);
  EXPECT_EQ(f32ToF16(0x1p-30f, Rnd::RP), 0x0001);
  EXPECT_EQ(f32ToF16(-0x1p-30f, Rnd::RM), 0x8001);
  EXPECT_EQ(f32ToF16(-0x1p-30f, Rnd::RZ), 0x8000);
  EXPECT_EQ(f32ToF16(-0.0f), 0x8000);
  EXPECT_EQ(f32ToBF16(1.0f + 0x1p-8f), 0x3f80);     // tie to even
  EXPECT_EQ(f32ToBF16(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);
  EXPECT_EQ(f32ToBF16(FLT_MAX), 0x7f80);
  EXPECT_EQ(f32ToBF16(FLT_MAX, Rnd::RZ), 0x7f7f);
  EXPECT_EQ(reluF16(0xbc00), 0);
  EXPECT_EQ(reluF16(0x3c00), 0x3c00);
  EXPECT_EQ(reluF16(0xfe00), 0x7fff);
  // cvt.rn.f16x2.f32 d, a, b: a in the upper half.
  EXPECT_EQ(cvtF16x2F32(1.0f, 2.0f), 0x3c004000u);
  EXPECT_EQ(cvtF16x2F32(-1.0f, 1e9f, Rnd::RN, true), 0xbc007bffu);
  EXPECT_EQ(cvtF16x2F32(-1.0f, 1.0f, Rnd::RN, false, true), 0x00003c00u);
  EXPECT_EQ(cvtBF16x2F32(1.0f, -2.0f), 0x3f80c000u);
}

uint16_t randomFinite16(std::mt19937_64 &rng, bool bf) {
  for (;;) {
    uint16_t h = uint16_t(rng());
    if (bf) { // keep exponents moderate so exact sums fit in a quad
      int ex = (h >> 7) & 0xff;
      if (ex < 127 - 20 || ex > 127 + 20)
        continue;
    }
    if (!isNaN16(h, bf) && (h & 0x7fff) != (bf ? 0x7f80 : 0x7c00))
      return h;
  }
}

TEST(NumericsF16, ArithmeticMatchesSlowReference) {
  std::mt19937_64 rng(4242);
  int failures = 0;
  for (int bf = 0; bf < 2; ++bf) {
    const Table16 &t = bf ? bf16Table() : f16Table();
    auto val = [&](uint16_t h) { return Quad(bf ? bf16ToF32(h) : f16ToF32(h)); };
    for (int i = 0; i < 100000 && failures < 20; ++i) {
      uint16_t a = randomFinite16(rng, bf), b = randomFinite16(rng, bf), c = randomFinite16(rng, bf);
      if (i % 4 == 0)
        b = uint16_t(a ^ 0x8000 ^ (rng() % 8)); // near cancellation
      for (Rnd r : kModes) {
        struct {
          const char *what;
          uint16_t got;
          Quad exact;
        } cases[] = {
            {"add", bf ? addBF16(a, b, r) : addF16(a, b, r), val(a) + val(b)},
            {"sub", bf ? subBF16(a, b, r) : subF16(a, b, r), val(a) - val(b)},
            {"mul", bf ? mulBF16(a, b, r) : mulF16(a, b, r), val(a) * val(b)},
            {"fma", bf ? fmaBF16(a, b, c, r) : fmaF16(a, b, c, r), val(a) * val(b) + val(c)},
        };
        for (auto &k : cases) {
          uint16_t want = t.round(k.exact, r);
          // Exact zero sums: -0 only in .rm (or when both addends are -0; not drawn here).
          if (k.exact == 0 && k.what[0] != 'm')
            want = r == Rnd::RM ? 0x8000 : 0;
          if (k.exact == 0 && k.what[0] == 'm')
            want = ((a ^ b) & 0x8000);
          if (k.got != want) {
            ++failures;
            ADD_FAILURE() << (bf ? "bf16 " : "f16 ") << k.what << "." << name(r) << " " << std::hex << a << " "
                          << b << " " << c << ": want " << want << " got " << k.got;
          }
        }
      }
    }
  }
}

TEST(NumericsF16, HandPickedArithmetic) {
  // bf16: 1 + 2^-100 only moves directed rounding up.
  uint16_t one = 0x3f80, tiny = f32ToBF16(0x1p-100f);
  EXPECT_EQ(addBF16(one, tiny, Rnd::RN), one);
  EXPECT_EQ(addBF16(one, tiny, Rnd::RZ), one);
  EXPECT_EQ(addBF16(one, tiny, Rnd::RP), 0x3f81);
  EXPECT_EQ(subBF16(one, tiny, Rnd::RZ), 0x3f7f);
  EXPECT_EQ(fmaBF16(one, one, tiny, Rnd::RP), 0x3f81);
  EXPECT_EQ(addF16(0x7bff, 0x7bff), 0x7c00);
  EXPECT_EQ(addF16(0x7bff, 0x7bff, Rnd::RZ), 0x7bff);
  EXPECT_EQ(addF16(0x7c00, 0xfc00), 0x7fff); // inf - inf: canonical NaN
  EXPECT_EQ(mulF16(0x0001, 0x3800), 0x0000); // min subnormal * 0.5: tie to even
  EXPECT_EQ(mulF16(0x0001, 0x3800, Rnd::RP), 0x0001);
  EXPECT_EQ(addF16x2(0x3c004000u, 0x3c00bc00u), 0x40003c00u);
  EXPECT_EQ(mulF16x2(0x40004200u, 0x40003800u), 0x44003e00u); // 2*2=4, 3*0.5=1.5
  EXPECT_EQ(fmaF16x2(0x3c003c00u, 0x3c003c00u, 0x3c00bc00u), 0x40000000u);
  EXPECT_EQ(satF16(0x4000), 0x3c00);
  EXPECT_EQ(satF16(0xbc00), 0);
  EXPECT_EQ(satF16(0x7e00), 0);
  EXPECT_EQ(satF16(0x3800), 0x3800);
}

//===----------------------------------------------------------------------===//
// cvt
//===----------------------------------------------------------------------===//

TEST(NumericsCvt, FloatToIntRoundsSaturatesAndMapsNaNLikeTheHardware) {
  EXPECT_EQ(floatToInt<int32_t>(2.5, IRnd::RNI), 2);
  EXPECT_EQ(floatToInt<int32_t>(3.5, IRnd::RNI), 4);
  EXPECT_EQ(floatToInt<int32_t>(-2.5, IRnd::RNI), -2);
  EXPECT_EQ(floatToInt<int32_t>(-2.6, IRnd::RNI), -3);
  EXPECT_EQ(floatToInt<int32_t>(-2.6, IRnd::RZI), -2);
  EXPECT_EQ(floatToInt<int32_t>(-2.1, IRnd::RMI), -3);
  EXPECT_EQ(floatToInt<int32_t>(-2.9, IRnd::RPI), -2);
  EXPECT_EQ(floatToInt<int32_t>(0.1, IRnd::RPI), 1);
  EXPECT_EQ(floatToInt<uint32_t>(-0.5, IRnd::RNI), 0u);
  EXPECT_EQ(floatToInt<uint32_t>(-0.5, IRnd::RMI), 0u); // -1 saturates to 0
  EXPECT_EQ(floatToInt<int32_t>(NAN, IRnd::RNI), 0);
  // 64-bit destinations: the H100 returns 0x8000000000000000 for NaN, signed and unsigned alike
  EXPECT_EQ(floatToInt<uint64_t>(NAN, IRnd::RZI), 0x8000000000000000ull);
  EXPECT_EQ(floatToInt<int64_t>(NAN, IRnd::RNI), INT64_MIN);
  EXPECT_EQ(floatToInt<int16_t>(NAN, IRnd::RNI), 0);
  EXPECT_EQ(f16ToInt<int64_t>(0x7e00, IRnd::RZI), INT64_MIN);
  EXPECT_EQ(floatToInt<int8_t>(300.0, IRnd::RZI), 127);
  EXPECT_EQ(floatToInt<int8_t>(-200.0, IRnd::RZI), -128);
  EXPECT_EQ(floatToInt<int8_t>(-128.9, IRnd::RZI), -128);
  EXPECT_EQ(floatToInt<int8_t>(127.4, IRnd::RNI), 127);
  EXPECT_EQ(floatToInt<int8_t>(127.6, IRnd::RNI), 127);
  EXPECT_EQ(floatToInt<uint8_t>(255.5, IRnd::RNI), 255);
  EXPECT_EQ(floatToInt<uint8_t>(254.5, IRnd::RNI), 254);
  EXPECT_EQ(floatToInt<uint8_t>(-1.0, IRnd::RZI), 0);
  EXPECT_EQ(floatToInt<int16_t>(40000.0, IRnd::RZI), 32767);
  EXPECT_EQ(floatToInt<uint16_t>(70000.0, IRnd::RZI), 65535);
  EXPECT_EQ(floatToInt<int32_t>(3e9, IRnd::RZI), INT32_MAX);
  EXPECT_EQ(floatToInt<int32_t>(-3e9, IRnd::RZI), INT32_MIN);
  EXPECT_EQ(floatToInt<uint32_t>(4294967295.4, IRnd::RNI), 4294967295u);
  EXPECT_EQ(floatToInt<uint32_t>(INFINITY, IRnd::RNI), UINT32_MAX);
  EXPECT_EQ(floatToInt<int64_t>(1e19, IRnd::RZI), INT64_MAX);
  EXPECT_EQ(floatToInt<int64_t>(-0x1p63, IRnd::RZI), INT64_MIN);
  EXPECT_EQ(floatToInt<int64_t>(0x1.fffffffffffffp62, IRnd::RZI), int64_t(0x7ffffffffffffc00));
  EXPECT_EQ(floatToInt<uint64_t>(1.8e19, IRnd::RZI), 18000000000000000000ull);
  EXPECT_EQ(floatToInt<uint64_t>(0x1p64, IRnd::RZI), UINT64_MAX);
  EXPECT_EQ(floatToInt<uint64_t>(-INFINITY, IRnd::RZI), 0u);
  EXPECT_EQ(f16ToInt<int32_t>(0x3e00, IRnd::RNI), 2); // 1.5
  EXPECT_EQ(f16ToInt<uint8_t>(0x7c00, IRnd::RNI), 255);
  EXPECT_EQ(bf16ToInt<int16_t>(0xc2f7, IRnd::RMI), -124); // -123.5
  EXPECT_EQ(floatToInt<int32_t>(ftz32(0x1p-140f), IRnd::RPI), 0);
  EXPECT_EQ(floatToInt<int32_t>(0x1p-140f, IRnd::RPI), 1);
}

TEST(NumericsCvt, RoundToIntegral) {
  EXPECT_EQ(roundToIntegralF32(2.5f, IRnd::RNI), 2.0f);
  EXPECT_EQ(roundToIntegralF32(-3.5f, IRnd::RNI), -4.0f);
  EXPECT_EQ(bitsOfF32(roundToIntegralF32(-0.4f, IRnd::RNI)), 0x80000000u);
  EXPECT_EQ(bitsOfF32(roundToIntegralF32(-0.5f, IRnd::RNI)), 0x80000000u);
  EXPECT_EQ(bitsOfF32(roundToIntegralF32(-0.5f, IRnd::RPI)), 0x80000000u);
  EXPECT_EQ(roundToIntegralF32(-0.5f, IRnd::RMI), -1.0f);
  EXPECT_EQ(roundToIntegralF32(0x1.fffffep22f, IRnd::RNI), 0x1p23f);
  EXPECT_EQ(roundToIntegralF64(0x1.0000000000001p52, IRnd::RNI), 0x1.0000000000001p52);
  EXPECT_EQ(roundToIntegralF64(4503599627370495.5, IRnd::RNI), 4503599627370496.0);
  EXPECT_EQ(roundToIntegralF64(-7.7, IRnd::RZI), -7.0);
  EXPECT_EQ(roundToIntegralF64(INFINITY, IRnd::RNI), INFINITY);
  EXPECT_TRUE(std::isnan(roundToIntegralF64(NAN, IRnd::RMI)));
  EXPECT_EQ(roundToIntegralF16(0x4100, IRnd::RNI), 0x4000); // 2.5 -> 2
  EXPECT_EQ(roundToIntegralF16(0x3c01, IRnd::RPI), 0x4000);
  EXPECT_EQ(roundToIntegralBF16(0x3fc0, IRnd::RNI), 0x4000); // 1.5 -> 2
}

/// Integer reference: v rounded to p significant bits, as a long double (exact for p <= 64).
long double refRoundU64(uint64_t v, bool neg, int p, Rnd r) {
  if (v == 0)
    return 0;
  int len = 64 - __builtin_clzll(v);
  if (len <= p)
    return neg ? -(long double)v : (long double)v;
  int sh = len - p;
  uint64_t lo = (v >> sh) << sh;
  uint64_t rem = v - lo;
  unsigned __int128 hi = (unsigned __int128)lo + ((unsigned __int128)1 << sh);
  uint64_t half = uint64_t(1) << (sh - 1);
  bool up = false;
  switch (r) {
  case Rnd::RN:
    up = rem > half || (rem == half && ((lo >> sh) & 1));
    break;
  case Rnd::RZ:
    break;
  case Rnd::RM:
    up = neg;
    break;
  case Rnd::RP:
    up = !neg;
    break;
  }
  if (rem == 0)
    up = false;
  long double mag = up ? (long double)hi : (long double)lo; // both exact in 64-bit significand
  return neg ? -mag : mag;
}

TEST(NumericsCvt, IntToFloatInEveryModeMatchesIntegerReference) {
  std::mt19937_64 rng(99);
  int failures = 0;
  for (int i = 0; i < 200000 && failures < 20; ++i) {
    uint64_t u = rng() >> (rng() % 64);
    if (i % 7 == 0)
      u |= 0xffffffffff000000ull; // near 2^64: rounds up to 2^64 in .rp
    int64_t s = int64_t(rng()) >> (rng() % 64);
    uint64_t smag = s < 0 ? uint64_t(0) - uint64_t(s) : uint64_t(s);
    for (Rnd r : kModes) {
      float gf = intToF32<uint64_t>(u, r);
      double gd = intToF64<uint64_t>(u, r);
      if ((long double)gf != refRoundU64(u, false, 24, r) || (long double)gd != refRoundU64(u, false, 53, r)) {
        ++failures;
        ADD_FAILURE() << "u64 " << u << " ." << name(r) << ": got " << std::hexfloat << gf << " / " << gd;
      }
      float sf = intToF32<int64_t>(s, r);
      double sd = intToF64<int64_t>(s, r);
      if ((long double)sf != refRoundU64(smag, s < 0, 24, r) || (long double)sd != refRoundU64(smag, s < 0, 53, r)) {
        ++failures;
        ADD_FAILURE() << "s64 " << s << " ." << name(r) << ": got " << std::hexfloat << sf << " / " << sd;
      }
      uint32_t u32 = uint32_t(u);
      if ((long double)intToF32<uint32_t>(u32, r) != refRoundU64(u32, false, 24, r)) {
        ++failures;
        ADD_FAILURE() << "u32 " << u32 << " ." << name(r);
      }
    }
  }
  EXPECT_EQ(intToF32<uint64_t>(UINT64_MAX, Rnd::RZ), 0x1.fffffep63f);
  EXPECT_EQ(intToF32<uint64_t>(UINT64_MAX, Rnd::RN), 0x1p64f);
  EXPECT_EQ(intToF32<int64_t>(INT64_MIN, Rnd::RZ), -0x1p63f);
  EXPECT_EQ(intToF32<int32_t>(16777217, Rnd::RP), 16777218.0f);
  EXPECT_EQ(intToF32<int32_t>(-16777217, Rnd::RP), -16777216.0f);
  EXPECT_EQ(intToF16<int32_t>(70000, Rnd::RN), 0x7c00);
  EXPECT_EQ(intToF16<int32_t>(70000, Rnd::RZ), 0x7bff);
  EXPECT_EQ(intToF16<uint8_t>(255, Rnd::RN), 0x5bf8);
  EXPECT_EQ(intToF16<int16_t>(-2049, Rnd::RM), 0xe801); // -2050 = -(1 + 2^-10) * 2^11
  EXPECT_EQ(intToF16<int16_t>(2049, Rnd::RN), 0x6800);  // tie to even 2048
  EXPECT_EQ(intToBF16<int32_t>(257, Rnd::RP), 0x4381);  // 258
  EXPECT_EQ(intToBF16<int32_t>(0, Rnd::RM), 0);
}

TEST(NumericsCvt, F64ToF32InEveryModeMatchesHostFenv) {
  Gen<double> g;
  int failures = 0;
  for (int i = 0; i < 200000 && failures < 20; ++i) {
    double d = g.any();
    if (i % 3 == 0)
      d = std::ldexp(d, -(int)std::ilogb(d) + int(g.rng() % 320) - 170); // f32 range edges
    for (Rnd r : kModes) {
      volatile double vd = d;
      float want = underMode<float>(r, [&]() -> float { return static_cast<float>(vd); });
      float got = f64ToF32(d, r);
      if (!sameFloat(want, got)) {
        ++failures;
        ADD_FAILURE() << std::hexfloat << d << " ." << name(r) << ": want " << want << " got " << got;
      }
    }
  }
  EXPECT_EQ(f64ToF32(1e300, Rnd::RZ), FLT_MAX);
  EXPECT_EQ(f64ToF32(-1e300, Rnd::RP), -FLT_MAX);
  EXPECT_EQ(f64ToF32(1e-300, Rnd::RP), 0x1p-149f);
  EXPECT_EQ(f32ToF64(0x1p-149f), 0x1p-149);
}

//===----------------------------------------------------------------------===//
// Approximate instructions
//===----------------------------------------------------------------------===//

TEST(NumericsApprox, SpecialValuesPerPtx) {
  EXPECT_EQ(lg2ApproxF32(0.0f), -INFINITY);
  EXPECT_EQ(lg2ApproxF32(-0.0f), -INFINITY);
  EXPECT_TRUE(std::isnan(lg2ApproxF32(-1.0f)));
  EXPECT_EQ(lg2ApproxF32(INFINITY), INFINITY);
  EXPECT_EQ(lg2ApproxF32(8.0f), 3.0f);
  EXPECT_EQ(ex2ApproxF32(-INFINITY), 0.0f);
  EXPECT_FALSE(std::signbit(ex2ApproxF32(-INFINITY)));
  EXPECT_EQ(ex2ApproxF32(-0.0f), 1.0f);
  EXPECT_EQ(ex2ApproxF32(INFINITY), INFINITY);
  EXPECT_EQ(ex2ApproxF32(-3.0f), 0.125f);
  EXPECT_TRUE(std::isnan(sinApproxF32(INFINITY)));
  EXPECT_TRUE(std::isnan(cosApproxF32(-INFINITY)));
  EXPECT_EQ(bitsOfF32(sinApproxF32(-0.0f)), 0x80000000u);
  EXPECT_EQ(cosApproxF32(0.0f), 1.0f);
  EXPECT_EQ(rsqrtApproxF32(-0.0f), -INFINITY);
  EXPECT_EQ(rsqrtApproxF32(0.0f), INFINITY);
  EXPECT_EQ(bitsOfF32(rsqrtApproxF32(INFINITY)), 0u);
  EXPECT_TRUE(std::isnan(rsqrtApproxF32(-4.0f)));
  EXPECT_EQ(rsqrtApproxF32(4.0f), 0.5f);
  EXPECT_EQ(rcpApproxF32(-0.0f), -INFINITY);
  EXPECT_EQ(bitsOfF32(rcpApproxF32(-INFINITY)), 0x80000000u);
  EXPECT_EQ(bitsOfF32(sqrtApproxF32(-0.0f)), 0x80000000u);
  EXPECT_TRUE(std::isnan(sqrtApproxF32(-1.0f)));
  EXPECT_EQ(tanhApproxF32(INFINITY), 1.0f);
  EXPECT_EQ(tanhApproxF32(-INFINITY), -1.0f);
  EXPECT_EQ(bitsOfF32(tanhApproxF32(-0.0f)), 0x80000000u);
  EXPECT_EQ(divApproxF32(1.0f, 0x1.8p127f), 0.0f); // |b| > 2^126: zero
  EXPECT_EQ(divApproxF32(6.0f, 3.0f), 2.0f);
  EXPECT_NEAR(divFullF32(1.0f, 0x1.8p127f), 1.0f / 0x1.8p127f, 0x1p-149f); // scaled by 1/4: subnormal
  EXPECT_EQ(divApproxF32(0x1p-149f, 0x1p-149f), 1.0f); // both scaled by 2^24, as on the GPU
  EXPECT_EQ(divFullF32(-0x1p-149f, 0x1p-149f), -1.0f);
  EXPECT_EQ(rcpApproxFtzF64(0x1p1023), 0.0);            // 2^-1023 is subnormal: flushed
  EXPECT_EQ(rcpApproxFtzF64(-0x1p-1070), -INFINITY);    // subnormal input flushed
  EXPECT_EQ(rsqrtApproxF64(-0.0), -INFINITY);
  EXPECT_EQ(rsqrtApproxF64(0.25), 2.0);
  EXPECT_EQ(ex2ApproxF16(0x4000), 0x4400); // 2^2 = 4
}

TEST(NumericsApprox, WithinPtxErrorBounds) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 10000; ++i) {
    float x = std::ldexp(float(rng() % (1u << 24)) * 0x1p-24f, 9) - 256.0f; // [-256, 256)
    // the H200's sin/cos.approx (Mufu.cpp): within 2^-20.9 on [-pi, pi] (2^-21.2 measured);
    // beyond, the revolutions r = RZ(x * 1/(2 pi)) lose up to 2 pi (ulp(r) + |r| 2^-24)
    const double rev = std::fabs(double(x)) * 0.15915494309189535;
    const double trig = std::exp2(-20.9) + (std::fabs(x) > 3.1415926f ? 2 * M_PI * (std::exp2(std::ilogb(rev) - 23) + rev * 0x1p-24) : 0.0);
    EXPECT_NEAR(sinApproxF32(x), std::sin(double(x)), trig) << x;
    EXPECT_NEAR(cosApproxF32(x), std::cos(double(x)), trig) << x;
    float p = std::fabs(x) + 0x1p-20f;
    EXPECT_NEAR(lg2ApproxF32(p), std::log2(double(p)), std::exp2(-22.6) * std::max(1.0, std::fabs(std::log2(double(p)))));
    double e = std::exp2(double(x) / 4);
    EXPECT_NEAR(ex2ApproxF32(x / 4), e, 2 * 0x1p-23 * e);
    double rs = 1 / std::sqrt(double(p));
    EXPECT_NEAR(rsqrtApproxF32(p), rs, 0x1p-23 * rs);
  }
}

} // namespace
} // namespace ptxsim::test

// Executor floating-point families: f32/f64 IEEE arithmetic in every rounding mode, .ftz/.sat,
// min/max, abs/neg/copysign, testp, approximate functions, f16/bf16 arithmetic and float
// comparisons (setp/set). Expected values are computed here independently: directed rounding
// with the host's fesetround, half precision with a small reference rounding routine.

#include "ExecHarness.h"

#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace ptxsim;
using namespace ptxsim::test;

namespace {

template <class D, class S>
std::vector<D> runOp(const std::string &st, const std::string &dt, const std::string &body, std::vector<S> a,
                     std::vector<S> b = {}, std::vector<S> c = {}) {
  return runElementwise<D, S>(st, dt, body, std::move(a), std::move(b), std::move(c));
}

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
uint64_t bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
float f32(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
double f64(uint64_t u) {
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}

const int kModes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
const char *kModeNames[4] = {"rn", "rz", "rm", "rp"};

/// Host result of `f` under rounding mode `mode`, with NaN as the PTX canonical NaN.
template <class T, class F> T hostRounded(int mode, F f) {
  std::fesetround(mode);
  T r = f();
  std::fesetround(FE_TONEAREST);
  if (r != r)
    return std::is_same_v<T, float> ? T(f32(0x7fffffff)) : T(f64(0x7fffffffffffffffull));
  return r;
}

/// Inputs where rounding modes differ, plus special values.
template <class T> std::vector<T> interestingValues(unsigned n, uint32_t seed) {
  std::vector<T> v = {T(1), T(-1), T(0), -T(0), T(3), T(-3), T(0.1), T(-0.1), T(1e-3), T(7.5),
                      std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                      std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::max(),
                      std::numeric_limits<T>::denorm_min(), std::numeric_limits<T>::min(), T(1) / T(3)};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> mant(-2.0, 2.0);
  std::uniform_int_distribution<int> ex(-30, 30);
  while (v.size() < n)
    v.push_back(T(std::ldexp(mant(rng), ex(rng))));
  return v;
}

// --- f32/f64 IEEE arithmetic in every rounding mode ------------------------------------------

template <class T> struct TypeNames;
template <> struct TypeNames<float> {
  static constexpr const char *kT = "f32";
  using U = uint32_t;
};
template <> struct TypeNames<double> {
  static constexpr const char *kT = "f64";
  using U = uint64_t;
};

template <class T> void checkRoundedBinary(const char *op, T (*ref)(T, T)) {
  using U = typename TypeNames<T>::U;
  auto a = interestingValues<T>(64, 1), b = interestingValues<T>(64, 2);
  std::rotate(b.begin(), b.begin() + 5, b.end());
  for (int m = 0; m < 4; ++m) {
    std::string body = std::string(op) + "." + kModeNames[m] + "." + TypeNames<T>::kT + " %d, %a, %b;";
    auto d = runOp<U, T>(TypeNames<T>::kT, TypeNames<T>::kT, body, a, b);
    ASSERT_EQ(d.size(), a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      volatile T x = a[i], y = b[i];
      T e = hostRounded<T>(kModes[m], [&] { return ref(x, y); });
      EXPECT_EQ(d[i], bits(e)) << body << " a=" << a[i] << " b=" << b[i] << " lane " << i;
    }
  }
}

template <class T> T refAdd(T x, T y) { volatile T r = x + y; return r; }
template <class T> T refSub(T x, T y) { volatile T r = x - y; return r; }
template <class T> T refMul(T x, T y) { volatile T r = x * y; return r; }
template <class T> T refDiv(T x, T y) { volatile T r = x / y; return r; }

TEST(ExecFloat, F32ArithmeticAllRoundingModes) {
  checkRoundedBinary<float>("add", refAdd<float>);
  checkRoundedBinary<float>("sub", refSub<float>);
  checkRoundedBinary<float>("mul", refMul<float>);
  checkRoundedBinary<float>("div", refDiv<float>);
}

TEST(ExecFloat, F64ArithmeticAllRoundingModes) {
  checkRoundedBinary<double>("add", refAdd<double>);
  checkRoundedBinary<double>("sub", refSub<double>);
  checkRoundedBinary<double>("mul", refMul<double>);
  checkRoundedBinary<double>("div", refDiv<double>);
}

TEST(ExecFloat, FmaAndSqrtAllRoundingModes) {
  auto a = interestingValues<double>(48, 3), b = interestingValues<double>(48, 4),
       c = interestingValues<double>(48, 5);
  std::rotate(b.begin(), b.begin() + 3, b.end());
  std::rotate(c.begin(), c.begin() + 7, c.end());
  for (int m = 0; m < 4; ++m) {
    std::string body = std::string("fma.") + kModeNames[m] + ".f64 %d, %a, %b, %c;";
    auto d = runOp<uint64_t, double>("f64", "f64", body, a, b, c);
    for (size_t i = 0; i < a.size(); ++i) {
      volatile double x = a[i], y = b[i], z = c[i];
      double e = hostRounded<double>(kModes[m], [&] { return std::fma(x, y, z); });
      EXPECT_EQ(d[i], bits(e)) << body << " lane " << i;
    }
    body = std::string("sqrt.") + kModeNames[m] + ".f64 %d, %a;";
    d = runOp<uint64_t, double>("f64", "f64", body, a);
    for (size_t i = 0; i < a.size(); ++i) {
      volatile double x = a[i];
      double e = hostRounded<double>(kModes[m], [&] { return std::sqrt(x); });
      EXPECT_EQ(d[i], bits(e)) << body << " lane " << i;
    }
  }
  std::vector<float> fa(a.begin(), a.end()), fb(b.begin(), b.end()), fc(c.begin(), c.end());
  for (int m = 0; m < 4; ++m) {
    std::string body = std::string("fma.") + kModeNames[m] + ".f32 %d, %a, %b, %c;";
    auto d = runOp<uint32_t, float>("f32", "f32", body, fa, fb, fc);
    for (size_t i = 0; i < fa.size(); ++i) {
      volatile float x = fa[i], y = fb[i], z = fc[i];
      float e = hostRounded<float>(kModes[m], [&] { return std::fma(x, y, z); });
      EXPECT_EQ(d[i], bits(e)) << body << " lane " << i;
    }
    body = std::string("rcp.") + kModeNames[m] + ".f32 %d, %a;";
    d = runOp<uint32_t, float>("f32", "f32", body, fa);
    for (size_t i = 0; i < fa.size(); ++i) {
      volatile float x = fa[i];
      float e = hostRounded<float>(kModes[m], [&] { volatile float r = 1.0f / x; return (float)r; });
      EXPECT_EQ(d[i], bits(e)) << body << " lane " << i;
    }
  }
}

// fma.rn.f32 on a full warp and under guards of 21, 11 and 4 lanes (the host's vector form
// computes eight lanes at a time and must keep the unguarded lanes' registers): every lane as
// the correctly rounded fused result, NaNs as the canonical one, the other lanes untouched.
TEST(ExecFloat, FmaF32OnEveryMask) {
  std::vector<uint32_t> a(32), b(32), c(32);
  std::mt19937 rng(20261130);
  for (uint32_t l = 0; l < 32; ++l) {
    a[l] = rng();
    b[l] = rng() & 0xbfffffffu; // (mostly within range of a's products)
    c[l] = rng();
  }
  // special operands: NaNs with payloads, inf * 0, denormals, signed zeros, cancellation
  const uint32_t specials[][3] = {
      {0x7fc12345u, 0x3f800000u, 0x00000000u}, {0x3f800000u, 0x7f800001u, 0x3f800000u},
      {0x7f800000u, 0x00000000u, 0x3f800000u}, {0x00000001u, 0x3f000000u, 0x00000000u},
      {0x80000000u, 0x3f800000u, 0x00000000u}, {0x3f800001u, 0x3f7ffffeu, 0xbf800000u},
      {0x00800000u, 0x34000000u, 0x80000001u}, {0x7f7fffffu, 0x40000000u, 0xff7fffffu},
      {0xff800000u, 0x3f800000u, 0x7f800000u}, {0x3eaaaaabu, 0x40400000u, 0xbf800000u},
  };
  for (unsigned i = 0; i < std::size(specials); ++i) {
    const unsigned l = i * 3 + 1; // spread over the lanes of each group of eight
    a[l] = specials[i][0];
    b[l] = specials[i][1];
    c[l] = specials[i][2];
  }
  auto f = [](uint32_t u) {
    float x;
    std::memcpy(&x, &u, 4);
    return x;
  };
  const uint32_t kSentinel = 0x12345678u;
  for (const LaneGuard &g : kLaneGuards) {
    std::string body = std::string("cvt.u64.u32 %x6, %i; rem.u64 %x7, %x6, 3; setp.ne.u64 %p, %x7, 0; "
                                   "rem.u64 %x7, %x6, 8; setp.eq.u64 %q, %x7, 0; mov.b32 %d, ") +
                       std::to_string(kSentinel) + "; " + g.text + "fma.rn.f32 %d, %a, %b, %c;";
    auto d = runOp<uint32_t, uint32_t>("b32", "b32", body, a, b, c);
    ASSERT_EQ(d.size(), 32u) << body;
    for (uint32_t l = 0; l < 32; ++l) {
      volatile float x = f(a[l]), y = f(b[l]), z = f(c[l]);
      const float e = std::fma(x, y, z);
      const uint32_t want = g.on(l) ? (e != e ? 0x7fffffffu : bits(e)) : kSentinel;
      EXPECT_EQ(d[l], want) << body << " lane " << l;
    }
  }
}

TEST(ExecFloat, DirectedRoundingKnownValues) {
  // 1 + 2^-24 is a tie in f32: rn/rz/rm give 1, rp the next float up.
  std::vector<float> a = {1.0f, -1.0f}, b = {0x1p-24f, -0x1p-24f};
  auto rn = runOp<uint32_t, float>("f32", "f32", "add.rn.f32 %d, %a, %b;", a, b);
  auto rp = runOp<uint32_t, float>("f32", "f32", "add.rp.f32 %d, %a, %b;", a, b);
  auto rm = runOp<uint32_t, float>("f32", "f32", "add.rm.f32 %d, %a, %b;", a, b);
  EXPECT_EQ(rn[0], 0x3f800000u);
  EXPECT_EQ(rp[0], 0x3f800001u);
  EXPECT_EQ(rm[0], 0x3f800000u);
  EXPECT_EQ(rn[1], 0xbf800000u);
  EXPECT_EQ(rp[1], 0xbf800000u);
  EXPECT_EQ(rm[1], 0xbf800001u);
  // x - x is +0 except in .rm, where it is -0.
  auto z = runOp<uint32_t, float>("f32", "f32", "sub.rm.f32 %d, %a, %a;", {2.0f});
  EXPECT_EQ(z[0], 0x80000000u);
  z = runOp<uint32_t, float>("f32", "f32", "sub.rz.f32 %d, %a, %a;", {2.0f});
  EXPECT_EQ(z[0], 0u);
  // overflow: rz clamps to max, rn goes to inf
  auto o = runOp<uint32_t, float>("f32", "f32", "mul.rz.f32 %d, %a, %a;", {3e38f});
  EXPECT_EQ(o[0], 0x7f7fffffu);
  o = runOp<uint32_t, float>("f32", "f32", "mul.rn.f32 %d, %a, %a;", {3e38f});
  EXPECT_EQ(o[0], 0x7f800000u);
}

TEST(ExecFloat, NaNResultsAreCanonical) {
  float inf = std::numeric_limits<float>::infinity();
  auto d = runOp<uint32_t, float>("f32", "f32", "add.f32 %d, %a, %b;", {inf, f32(0xffc00001u), 1.0f},
                                  {-inf, 1.0f, f32(0x7f800123u)});
  EXPECT_EQ(d[0], 0x7fffffffu);
  EXPECT_EQ(d[1], 0x7fffffffu);
  EXPECT_EQ(d[2], 0x7fffffffu);
  auto q = runOp<uint64_t, double>("f64", "f64", "mul.rn.f64 %d, %a, %b;", {0.0}, {std::numeric_limits<double>::infinity()});
  EXPECT_EQ(q[0], 0x7fffffffffffffffull);
  auto s = runOp<uint32_t, float>("f32", "f32", "sqrt.rn.f32 %d, %a;", {-1.0f});
  EXPECT_EQ(s[0], 0x7fffffffu);
}

TEST(ExecFloat, FtzAndSat) {
  const float den = 1e-40f; // subnormal
  auto d = runOp<uint32_t, float>("f32", "f32", "add.f32 %d, %a, %b;", {den, -den}, {0.0f, 0.0f});
  EXPECT_EQ(d[0], bits(den));
  EXPECT_EQ(d[1], bits(-den));
  d = runOp<uint32_t, float>("f32", "f32", "add.ftz.f32 %d, %a, %b;", {den, -den}, {0.0f, -0.0f});
  EXPECT_EQ(d[0], 0u);
  EXPECT_EQ(d[1], 0x80000000u);
  // result underflowing to a subnormal is flushed
  d = runOp<uint32_t, float>("f32", "f32", "mul.rn.ftz.f32 %d, %a, %b;", {1e-20f, -1e-20f}, {1e-20f, 1e-20f});
  EXPECT_EQ(d[0], 0u);
  EXPECT_EQ(d[1], 0x80000000u);
  d = runOp<uint32_t, float>("f32", "f32", "mul.rn.f32 %d, %a, %b;", {1e-20f}, {1e-20f});
  EXPECT_EQ(d[0], bits(1e-20f * 1e-20f));
  EXPECT_NE(d[0], 0u);
  // f64 never flushes
  auto dd = runOp<uint64_t, double>("f64", "f64", "add.rn.f64 %d, %a, %b;", {4.9e-324}, {0.0});
  EXPECT_EQ(dd[0], 1u);
  // .sat: clamp to [0, 1], NaN and -0 to +0
  std::vector<float> a = {2.0f, -1.0f, 0.25f, std::numeric_limits<float>::quiet_NaN(), -0.0f};
  d = runOp<uint32_t, float>("f32", "f32", "add.sat.f32 %d, %a, %b;", a, {0.0f, 0.0f, 0.0f, 0.0f, -0.0f});
  EXPECT_EQ(d[0], bits(1.0f));
  EXPECT_EQ(d[1], 0u);
  EXPECT_EQ(d[2], bits(0.25f));
  EXPECT_EQ(d[3], 0u);
  EXPECT_EQ(d[4], 0u);
  d = runOp<uint32_t, float>("f32", "f32", "fma.rn.ftz.sat.f32 %d, %a, %b, %c;", {0.5f, 3.0f}, {0.5f, 1.0f},
                             {den, 0.0f});
  EXPECT_EQ(d[0], bits(0.25f));
  EXPECT_EQ(d[1], bits(1.0f));
  d = runOp<uint32_t, float>("f32", "f32", "mad.rn.f32 %d, %a, %b, %c;", {1.0f + 0x1p-23f}, {1.0f - 0x1p-23f},
                             {-1.0f});
  EXPECT_EQ(d[0], bits(-0x1p-46f)); // fused: the exact product minus one
  // abs/neg .ftz
  d = runOp<uint32_t, float>("f32", "f32", "abs.ftz.f32 %d, %a;", {-den});
  EXPECT_EQ(d[0], 0u);
  d = runOp<uint32_t, float>("f32", "f32", "neg.f32 %d, %a;", {den});
  EXPECT_EQ(d[0], bits(-den));
}

TEST(ExecFloat, MinMaxNaNAndSignedZero) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a = {1.0f, nan, nan, -0.0f, 0.0f, -3.0f}, b = {2.0f, 5.0f, nan, 0.0f, -0.0f, -4.0f};
  auto mn = runOp<uint32_t, float>("f32", "f32", "min.f32 %d, %a, %b;", a, b);
  auto mx = runOp<uint32_t, float>("f32", "f32", "max.f32 %d, %a, %b;", a, b);
  auto mnn = runOp<uint32_t, float>("f32", "f32", "min.NaN.f32 %d, %a, %b;", a, b);
  EXPECT_EQ(mn[0], bits(1.0f));
  EXPECT_EQ(mx[0], bits(2.0f));
  EXPECT_EQ(mn[1], bits(5.0f));
  EXPECT_EQ(mx[1], bits(5.0f));
  EXPECT_EQ(mn[2], 0x7fffffffu);
  EXPECT_EQ(mn[3], 0x80000000u);
  EXPECT_EQ(mx[3], 0u);
  EXPECT_EQ(mn[4], 0x80000000u);
  EXPECT_EQ(mx[4], 0u);
  EXPECT_EQ(mn[5], bits(-4.0f));
  EXPECT_EQ(mnn[0], bits(1.0f));
  EXPECT_EQ(mnn[1], 0x7fffffffu);
  auto md = runOp<uint64_t, double>("f64", "f64", "max.f64 %d, %a, %b;", {std::nan(""), 1.0}, {3.0, -1.0});
  EXPECT_EQ(md[0], bits(3.0));
  EXPECT_EQ(md[1], bits(1.0));
}

TEST(ExecFloat, AbsNegCopysignKeepBits) {
  std::vector<uint32_t> a = {0x7fc00001u, 0xbf800000u, 0x00000001u, 0x80000000u};
  auto ab = runOp<uint32_t, uint32_t>("b32", "b32", "abs.f32 %d, %a;", a);
  auto ng = runOp<uint32_t, uint32_t>("b32", "b32", "neg.f32 %d, %a;", a);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(ab[i], a[i] & 0x7fffffffu);
    EXPECT_EQ(ng[i], a[i] ^ 0x80000000u);
  }
  // copysign d, a, b: magnitude of b, sign of a
  auto cs = runOp<uint32_t, float>("f32", "f32", "copysign.f32 %d, %a, %b;", {-1.0f, 2.0f}, {3.0f, -4.0f});
  EXPECT_EQ(cs[0], bits(-3.0f));
  EXPECT_EQ(cs[1], bits(4.0f));
  auto cd = runOp<uint64_t, double>("f64", "f64", "copysign.f64 %d, %a, %b;", {-0.0}, {5.0});
  EXPECT_EQ(cd[0], bits(-5.0));
}

TEST(ExecFloat, Testp) {
  float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a = {1.0f, 0.0f, 1e-40f, inf, -inf, nan};
  const char *kinds[] = {"finite", "infinite", "number", "notanumber", "normal", "subnormal"};
  const uint32_t expect[6][6] = {
      {1, 1, 1, 0, 0, 0}, {0, 0, 0, 1, 1, 0}, {1, 1, 1, 1, 1, 0},
      {0, 0, 0, 0, 0, 1}, {1, 0, 0, 0, 0, 0}, {0, 0, 1, 0, 0, 0},
  };
  for (int k = 0; k < 6; ++k) {
    std::string body = std::string("testp.") + kinds[k] + ".f32 %p, %a; selp.u32 %d, 1, 0, %p;";
    auto d = runOp<uint32_t, float>("f32", "u32", body, a);
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_EQ(d[i], expect[k][i]) << body << " lane " << i;
  }
  auto d = runOp<uint32_t, double>("f64", "u32", "testp.subnormal.f64 %p, %a; selp.u32 %d, 1, 0, %p;",
                                   {4.9e-324, 1e-300});
  EXPECT_EQ(d[0], 1u);
  EXPECT_EQ(d[1], 0u);
}

TEST(ExecFloat, DivApproxFullAndTranscendentals) {
  std::vector<float> a = {1.0f, 10.0f, -7.0f, 3.0f}, b = {3.0f, 4.0f, 0.5f, 0x1.8p127f};
  auto full = runOp<uint32_t, float>("f32", "f32", "div.full.f32 %d, %a, %b;", a, b);
  auto apx = runOp<uint32_t, float>("f32", "f32", "div.approx.f32 %d, %a, %b;", a, b);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(f32(full[i]), a[i] / b[i], std::fabs(a[i] / b[i]) * 3e-7f);
    EXPECT_NEAR(f32(apx[i]), a[i] / b[i], std::fabs(a[i] / b[i]) * 3e-7f);
  }
  EXPECT_EQ(apx[3], 0u); // 2^126 < |b| < 2^128: the reciprocal flushes to zero
  std::vector<float> x = {0.5f, 1.0f, 2.0f, -0.75f, 0.0f};
  auto s = runOp<uint32_t, float>("f32", "f32", "sin.approx.f32 %d, %a;", x);
  auto c = runOp<uint32_t, float>("f32", "f32", "cos.approx.ftz.f32 %d, %a;", x);
  auto e = runOp<uint32_t, float>("f32", "f32", "ex2.approx.f32 %d, %a;", x);
  auto t = runOp<uint32_t, float>("f32", "f32", "tanh.approx.f32 %d, %a;", x);
  auto r = runOp<uint32_t, float>("f32", "f32", "rsqrt.approx.f32 %d, %a;", x);
  auto l = runOp<uint32_t, float>("f32", "f32", "lg2.approx.f32 %d, %a;", x);
  auto rc = runOp<uint32_t, float>("f32", "f32", "rcp.approx.ftz.f32 %d, %a;", x);
  auto sq = runOp<uint32_t, float>("f32", "f32", "sqrt.approx.f32 %d, %a;", x);
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_NEAR(f32(s[i]), std::sin(x[i]), 1e-6);
    EXPECT_NEAR(f32(c[i]), std::cos(x[i]), 1e-6);
    EXPECT_NEAR(f32(e[i]), std::exp2(x[i]), 1e-6);
    // tanh.approx.f32 is MUFU.TANH's bits: the PTX bound is a relative error of 2^-11
    EXPECT_NEAR(f32(t[i]), std::tanh(x[i]), std::ldexp(std::fabs(std::tanh(x[i])), -11));
  }
  EXPECT_NEAR(f32(r[2]), 1.0 / std::sqrt(2.0), 1e-6);
  EXPECT_EQ(r[4], bits(std::numeric_limits<float>::infinity()));
  EXPECT_EQ(l[1], 0u);
  EXPECT_EQ(l[2], bits(1.0f));
  EXPECT_EQ(l[4], bits(-std::numeric_limits<float>::infinity()));
  EXPECT_EQ(l[3], 0x7fffffffu); // lg2 of a negative number
  EXPECT_EQ(rc[2], bits(0.5f));
  EXPECT_EQ(sq[0], bits(std::sqrt(0.5f)));
  auto r64 = runOp<uint64_t, double>("f64", "f64", "rcp.approx.ftz.f64 %d, %a;", {4.0, 1e-310});
  EXPECT_EQ(r64[0], bits(0.25));
  EXPECT_EQ(r64[1], bits(std::numeric_limits<double>::infinity())); // flushed input
  auto rs64 = runOp<uint64_t, double>("f64", "f64", "rsqrt.approx.f64 %d, %a;", {4.0});
  EXPECT_EQ(rs64[0], bits(0.5));
}

// --- half precision ----------------------------------------------------------------------------

/// Reference rounding of x to a binary16-like format (frac bits, minimum normal exponent, max
/// finite value) in the host's current rounding mode.
double refRound(double x, int frac, int emin, double maxFinite) {
  if (x != x || std::isinf(x) || x == 0)
    return x;
  int e;
  std::frexp(x, &e); // |x| in [2^(e-1), 2^e)
  int q = std::max(e - 1, emin) - frac;
  double r = std::ldexp(std::nearbyint(std::ldexp(x, -q)), q);
  if (std::fabs(r) > maxFinite) {
    int mode = std::fegetround();
    bool toInf = mode == FE_TONEAREST || (mode == FE_UPWARD && r > 0) || (mode == FE_DOWNWARD && r < 0);
    r = toInf ? std::copysign(std::numeric_limits<double>::infinity(), r) : std::copysign(maxFinite, r);
  }
  return r;
}
uint16_t refF16Bits(double x) { // x exactly representable in f16
  if (x != x)
    return 0x7fff;
  uint16_t s = std::signbit(x) ? 0x8000 : 0;
  x = std::fabs(x);
  if (std::isinf(x))
    return s | 0x7c00;
  if (x < 0x1p-14)
    return s | (uint16_t)(x * 0x1p24);
  int e;
  double m = std::frexp(x, &e); // [0.5, 1)
  return s | (uint16_t)((e - 1 + 15) << 10) | (uint16_t)((m * 2 - 1) * 1024);
}
double refF16Value(uint16_t h) {
  int ex = (h >> 10) & 0x1f, fr = h & 0x3ff;
  double v = ex == 0 ? std::ldexp(fr, -24) : ex == 31 ? (fr ? NAN : INFINITY) : std::ldexp(1024 + fr, ex - 25);
  return (h & 0x8000) ? -v : v;
}
double refBF16Value(uint16_t h) { return f32(uint32_t(h) << 16); }
uint16_t refBF16Bits(double x) { return x != x ? 0x7fff : (uint16_t)(bits((float)x) >> 16); } // exact x

TEST(ExecFloat, HalfArithmeticMatchesReference) {
  std::mt19937 rng(7);
  std::vector<uint16_t> a, b, c;
  for (int i = 0; i < 64; ++i) {
    auto pick = [&] { return (uint16_t)((rng() & 0x8000) | (0x2000 + rng() % 0x3000)); }; // ~2^-7..2^5
    a.push_back(pick());
    b.push_back(pick());
    c.push_back(pick());
  }
  a[0] = 0x3c00, b[0] = 0x1000, c[0] = 0x7c00;  // 1 + 2^-11: tie, to even
  a[1] = 0x7bff, b[1] = 0x7bff, c[1] = 0xfc00;  // overflow
  a[2] = 0x7e00, b[2] = 0x3c00, c[2] = 0x3c00;  // NaN
  a[3] = 0x0001, b[3] = 0x8001, c[3] = 0x0001;  // subnormals
  auto add = runOp<uint16_t, uint16_t>("b16", "b16", "add.f16 %d, %a, %b;", a, b);
  auto mul = runOp<uint16_t, uint16_t>("b16", "b16", "mul.rn.f16 %d, %a, %b;", a, b);
  auto fma = runOp<uint16_t, uint16_t>("b16", "b16", "fma.rn.f16 %d, %a, %b, %c;", a, b, c);
  auto sub = runOp<uint16_t, uint16_t>("b16", "b16", "sub.f16 %d, %a, %b;", a, b);
  for (size_t i = 0; i < a.size(); ++i) {
    double x = refF16Value(a[i]), y = refF16Value(b[i]), z = refF16Value(c[i]);
    EXPECT_EQ(add[i], refF16Bits(refRound(x + y, 10, -14, 65504))) << i; // x + y exact in double
    EXPECT_EQ(sub[i], refF16Bits(refRound(x - y, 10, -14, 65504))) << i;
    EXPECT_EQ(mul[i], refF16Bits(refRound(x * y, 10, -14, 65504))) << i;
    EXPECT_EQ(fma[i], refF16Bits(refRound(x * y + z, 10, -14, 65504))) << i; // exact: 22 + small spread
  }
  EXPECT_EQ(add[0], 0x3c00);
  EXPECT_EQ(mul[1], 0x7c00);
  EXPECT_EQ(add[2], 0x7fff);
  EXPECT_EQ(add[3], 0x0000);
  // .ftz flushes subnormal inputs, .sat clamps
  auto af = runOp<uint16_t, uint16_t>("b16", "b16", "add.ftz.f16 %d, %a, %b;", {0x0001, 0x3c00}, {0x0000, 0x3c00});
  EXPECT_EQ(af[0], 0x0000);
  EXPECT_EQ(af[1], 0x4000);
  auto as = runOp<uint16_t, uint16_t>("b16", "b16", "add.sat.f16 %d, %a, %b;", {0x3c00, 0xbc00}, {0x3c00, 0x3800});
  EXPECT_EQ(as[0], 0x3c00);
  EXPECT_EQ(as[1], 0x0000);
  auto fr = runOp<uint16_t, uint16_t>("b16", "b16", "fma.rn.relu.f16 %d, %a, %b, %c;", {0xbc00, 0x3c00},
                                      {0x3c00, 0x3c00}, {0x0000, 0x3c00});
  EXPECT_EQ(fr[0], 0x0000);
  EXPECT_EQ(fr[1], 0x4000);
  auto ng = runOp<uint16_t, uint16_t>("b16", "b16", "neg.f16 %d, %a;", {0x3c00, 0x7e00});
  EXPECT_EQ(ng[0], 0xbc00);
  EXPECT_EQ(ng[1], 0xfe00);
  auto ab = runOp<uint16_t, uint16_t>("b16", "b16", "abs.bf16 %d, %a;", {0xbf80});
  EXPECT_EQ(ab[0], 0x3f80);
}

TEST(ExecFloat, PackedHalvesAndBf16) {
  // f16x2: upper and lower halves independently
  auto d = runOp<uint32_t, uint32_t>("b32", "b32", "add.f16x2 %d, %a, %b;", {0x3c004000u}, {0x3c00bc00u});
  EXPECT_EQ(d[0], 0x40003c00u); // {1+1, 2-1}
  d = runOp<uint32_t, uint32_t>("b32", "b32", "fma.rn.f16x2 %d, %a, %b, %c;", {0x40004200u}, {0x38003c00u},
                                {0x3c00bc00u});
  EXPECT_EQ(d[0], 0x40004000u); // {2*0.5+1, 3*1-1}
  d = runOp<uint32_t, uint32_t>("b32", "b32", "min.f16x2 %d, %a, %b;", {0x7e003c00u}, {0x4000c000u});
  EXPECT_EQ(d[0], 0x4000c000u);
  d = runOp<uint32_t, uint32_t>("b32", "b32", "max.NaN.f16x2 %d, %a, %b;", {0x7e003c00u}, {0x4000c000u});
  EXPECT_EQ(d[0], 0x7fff3c00u);
  // bf16: 1 + 2^-8 is a tie -> 1; 1 + 3*2^-9 rounds up
  std::vector<uint16_t> a = {0x3f80, 0x3f80, 0x4040}, b = {0x3b80, 0x3bc0, 0x4000};
  auto s = runOp<uint16_t, uint16_t>("b16", "b16", "add.bf16 %d, %a, %b;", a, b);
  EXPECT_EQ(s[0], 0x3f80);
  EXPECT_EQ(s[1], 0x3f81);
  EXPECT_EQ(s[2], 0x40a0); // 3 + 2
  auto m = runOp<uint16_t, uint16_t>("b16", "b16", "mul.bf16 %d, %a, %b;", a, b);
  EXPECT_EQ(m[2], refBF16Bits(refRound(refBF16Value(0x4040) * refBF16Value(0x4000), 7, -126, 3.3895313892515355e38)));
  auto fx = runOp<uint32_t, uint32_t>("b32", "b32", "fma.rn.bf16x2 %d, %a, %b, %c;", {0x3f804000u},
                                      {0x40004000u}, {0x3f80bf80u});
  EXPECT_EQ(fx[0], 0x40404040u); // {1*2+1, 2*2-1}
  auto mx = runOp<uint16_t, uint16_t>("b16", "b16", "max.bf16 %d, %a, %b;", {0x7fc1, 0x8000}, {0x3f80, 0x0000});
  EXPECT_EQ(mx[0], 0x3f80);
  EXPECT_EQ(mx[1], 0x0000);
  auto ex = runOp<uint16_t, uint16_t>("b16", "b16", "ex2.approx.f16 %d, %a;", {0x4000, 0xfc00});
  EXPECT_EQ(ex[0], 0x4400); // 4
  EXPECT_EQ(ex[1], 0x0000);
  auto th = runOp<uint32_t, uint32_t>("b32", "b32", "tanh.approx.f16x2 %d, %a;", {0x00007c00u});
  EXPECT_EQ(th[0], 0x00003c00u);
  // mixed fma.rn.f32.f16: exact half product plus f32
  auto mf = runOp<float, float>("f32", "f32",
                                "{ .reg .b16 %h1, %h2; cvt.rn.f16.f32 %h1, %a; cvt.rn.f16.f32 %h2, %b;"
                                " fma.rn.f32.f16 %d, %h1, %h2, %c; }",
                                {1.5f}, {2.5f}, {0.25f});
  EXPECT_EQ(mf[0], 4.0f);
}

// --- comparisons --------------------------------------------------------------------------------

TEST(ExecFloat, SetpAllComparisons) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a = {1.0f, 2.0f, 2.0f, nan, 1.0f, nan, -0.0f}, b = {2.0f, 1.0f, 2.0f, 1.0f, nan, nan, 0.0f};
  struct Case {
    const char *cmp;
    bool (*f)(float, float);
  } cases[] = {
      {"eq", [](float x, float y) { return x == y; }},
      {"ne", [](float x, float y) { return x == x && y == y && x != y; }},
      {"lt", [](float x, float y) { return x < y; }},
      {"le", [](float x, float y) { return x <= y; }},
      {"gt", [](float x, float y) { return x > y; }},
      {"ge", [](float x, float y) { return x >= y; }},
      {"equ", [](float x, float y) { return !(x < y || x > y); }},
      {"neu", [](float x, float y) { return !(x == y); }},
      {"ltu", [](float x, float y) { return !(x >= y); }},
      {"leu", [](float x, float y) { return !(x > y); }},
      {"gtu", [](float x, float y) { return !(x <= y); }},
      {"geu", [](float x, float y) { return !(x < y); }},
      {"num", [](float x, float y) { return x == x && y == y; }},
      {"nan", [](float x, float y) { return x != x || y != y; }},
  };
  for (const Case &cs : cases) {
    std::string body = std::string("setp.") + cs.cmp + ".f32 %p|%q, %a, %b; selp.u32 %d, 1, 0, %p; @%q add.u32 %d, %d, 2;";
    auto d = runOp<uint32_t, float>("f32", "u32", body, a, b);
    std::string body64 = std::string("setp.") + cs.cmp + ".f64 %p, %a, %b; selp.u32 %d, 1, 0, %p;";
    std::vector<double> da(a.begin(), a.end()), db(b.begin(), b.end());
    auto d64 = runOp<uint32_t, double>("f64", "u32", body64, da, db);
    std::string bodyh = std::string("setp.") + cs.cmp + ".f16 %p, %a, %b; selp.u32 %d, 1, 0, %p;";
    std::vector<uint16_t> ha, hb;
    for (size_t i = 0; i < a.size(); ++i) {
      ha.push_back(refF16Bits(a[i]));
      hb.push_back(refF16Bits(b[i]));
    }
    auto dh = runOp<uint32_t, uint16_t>("b16", "u32", bodyh, ha, hb);
    for (size_t i = 0; i < a.size(); ++i) {
      uint32_t e = cs.f(a[i], b[i]);
      EXPECT_EQ(d[i], e | (e ^ 1) << 1) << cs.cmp << " lane " << i;
      EXPECT_EQ(d64[i], e) << cs.cmp << " f64 lane " << i;
      EXPECT_EQ(dh[i], e) << cs.cmp << " f16 lane " << i;
    }
  }
}

TEST(ExecFloat, SetpBoolOpsFtzAndPacked) {
  // p = (a < b) and t; q = !(a < b) and t
  std::vector<float> a = {1.0f, 1.0f, 3.0f, 3.0f}, b = {2.0f, 2.0f, 2.0f, 2.0f}, c = {1.0f, 0.0f, 1.0f, 0.0f};
  auto d = runOp<uint32_t, float>("f32", "u32",
                                  "setp.ne.f32 %t, %c, 0f00000000; setp.lt.and.f32 %p|%q, %a, %b, %t;"
                                  " selp.u32 %d, 1, 0, %p; @%q add.u32 %d, %d, 2;",
                                  a, b, c);
  EXPECT_EQ(d[0], 1u);
  EXPECT_EQ(d[1], 0u);
  EXPECT_EQ(d[2], 2u);
  EXPECT_EQ(d[3], 0u);
  d = runOp<uint32_t, float>("f32", "u32",
                             "setp.ne.f32 %t, %c, 0f00000000; setp.lt.xor.f32 %p|%q, %a, %b, !%t;"
                             " selp.u32 %d, 1, 0, %p; @%q add.u32 %d, %d, 2;",
                             a, b, c);
  EXPECT_EQ(d[0], 1u);     // t=1: !t=0: p = 1, q = 0
  EXPECT_EQ(d[1], 2u);     // !t=1: p = 1^1 = 0, q = 0^1 = 1
  // .ftz: a subnormal equals zero
  auto z = runOp<uint32_t, float>("f32", "u32", "setp.eq.ftz.f32 %p, %a, %b; selp.u32 %d, 1, 0, %p;", {1e-40f, 1e-40f},
                                  {0.0f, -0.0f});
  EXPECT_EQ(z[0], 1u);
  EXPECT_EQ(z[1], 1u);
  z = runOp<uint32_t, float>("f32", "u32", "setp.eq.f32 %p, %a, %b; selp.u32 %d, 1, 0, %p;", {1e-40f}, {0.0f});
  EXPECT_EQ(z[0], 0u);
  // f16x2: p = lower halves, q = upper halves
  auto h = runOp<uint32_t, uint32_t>("b32", "u32",
                                     "setp.lt.f16x2 %p|%q, %a, %b; selp.u32 %d, 1, 0, %p; @%q add.u32 %d, %d, 2;",
                                     {0x3c004000u, 0x40003c00u}, {0x40003c00u, 0x3c004000u});
  EXPECT_EQ(h[0], 2u);
  EXPECT_EQ(h[1], 1u);
}

TEST(ExecFloat, SetWritesMaskOrOne) {
  std::vector<float> a = {1.0f, 3.0f, std::numeric_limits<float>::quiet_NaN()}, b = {2.0f, 2.0f, 2.0f};
  auto u = runOp<uint32_t, float>("f32", "u32", "set.lt.u32.f32 %d, %a, %b;", a, b);
  EXPECT_EQ(u[0], 0xffffffffu);
  EXPECT_EQ(u[1], 0u);
  EXPECT_EQ(u[2], 0u);
  auto f = runOp<uint32_t, float>("f32", "b32", "{ .reg .f32 %e; set.ltu.f32.f32 %e, %a, %b; mov.b32 %d, %e; }", a, b);
  EXPECT_EQ(f[0], bits(1.0f));
  EXPECT_EQ(f[1], 0u);
  EXPECT_EQ(f[2], bits(1.0f));
  auto h = runOp<uint32_t, uint32_t>("b32", "u32", "set.gt.u32.f16x2 %d, %a, %b;", {0x40003c00u}, {0x3c004000u});
  EXPECT_EQ(h[0], 0xffff0000u);
  auto hf = runOp<uint32_t, uint32_t>("b32", "b32", "set.gt.f16x2.f16x2 %d, %a, %b;", {0x40003c00u}, {0x3c004000u});
  EXPECT_EQ(hf[0], 0x3c000000u);
}

} // namespace

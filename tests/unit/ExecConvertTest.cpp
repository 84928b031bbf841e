// Executor cvt family: integer <-> integer (truncation, extension, .sat), float -> integer
// (.rni/.rzi/.rmi/.rpi, saturation, NaN), integer -> float and float -> float in every rounding
// mode, half precision (.satfinite, .relu, packed x2), rounding to integral, .ftz/.sat and
// cvt.pack. Expected values come from the host (fesetround) or are written out.

#include "ExecHarness.h"

#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>

using namespace ptxsim;
using namespace ptxsim::test;

namespace {

template <class D, class S>
std::vector<D> runCvt(const std::string &st, const std::string &dt, const std::string &body, std::vector<S> a,
                      std::vector<S> b = {}, std::vector<S> c = {}, std::string *failure = nullptr) {
  return runElementwise<D, S>(st, dt, body, std::move(a), std::move(b), std::move(c), failure);
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

const int kModes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
const char *kModeNames[4] = {"rn", "rz", "rm", "rp"};

TEST(ExecConvert, IntegerTruncationExtensionAndSat) {
  std::vector<int32_t> a = {0, 1, -1, 127, 128, -129, 255, 256, 70000, -70000, INT32_MAX, INT32_MIN};
  auto s8 = runCvt<int32_t, int32_t>("s32", "s32", "cvt.s8.s32 %d, %a;", a); // register wider than .s8
  auto u8 = runCvt<int32_t, int32_t>("s32", "s32", "cvt.u8.s32 %d, %a;", a);
  auto su8 = runCvt<uint32_t, int32_t>("s32", "u32", "cvt.sat.u8.s32 %d, %a;", a);
  auto ss16 = runCvt<int16_t, int32_t>("s32", "s16", "cvt.sat.s16.s32 %d, %a;", a);
  auto s64 = runCvt<int64_t, int32_t>("s32", "s64", "cvt.s64.s32 %d, %a;", a);
  auto u64 = runCvt<uint64_t, int32_t>("s32", "u64", "cvt.u64.s32 %d, %a;", a);
  auto uu64 = runCvt<uint64_t, int32_t>("s32", "u64", "cvt.u64.u32 %d, %a;", a);
  auto su32 = runCvt<uint32_t, int32_t>("s32", "u32", "cvt.sat.u32.s32 %d, %a;", a);
  for (size_t i = 0; i < a.size(); ++i) {
    int32_t v = a[i];
    EXPECT_EQ(s8[i], (int32_t)(int8_t)v) << v;
    EXPECT_EQ(u8[i], (int32_t)(uint8_t)v) << v;
    EXPECT_EQ(su8[i], uint32_t(v < 0 ? 0 : v > 255 ? 255 : v)) << v;
    EXPECT_EQ(ss16[i], v < -32768 ? -32768 : v > 32767 ? 32767 : v) << v;
    EXPECT_EQ(s64[i], (int64_t)v) << v;
    EXPECT_EQ(u64[i], (uint64_t)(int64_t)v) << v;
    EXPECT_EQ(uu64[i], (uint64_t)(uint32_t)v) << v;
    EXPECT_EQ(su32[i], v < 0 ? 0u : (uint32_t)v) << v;
  }
  std::vector<uint64_t> big = {0, 1, 0x80000000ull, 0xffffffffull, 0x100000000ull, ~0ull};
  auto sat32 = runCvt<int32_t, uint64_t>("u64", "s32", "cvt.sat.s32.u64 %d, %a;", big);
  auto tr32 = runCvt<uint32_t, uint64_t>("u64", "u32", "cvt.u32.u64 %d, %a;", big);
  auto sats = runCvt<uint32_t, uint64_t>("u64", "u32", "cvt.sat.u32.s64 %d, %a;", big);
  for (size_t i = 0; i < big.size(); ++i) {
    EXPECT_EQ(sat32[i], big[i] > (uint64_t)INT32_MAX ? INT32_MAX : (int32_t)big[i]);
    EXPECT_EQ(tr32[i], (uint32_t)big[i]);
    int64_t s = (int64_t)big[i];
    EXPECT_EQ(sats[i], s < 0 ? 0u : s > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)s);
  }
}

TEST(ExecConvert, FloatToIntegerRoundingSaturationNaN) {
  float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<float> a = {2.5f, -2.5f, 3.5f, -0.5f, 1.7f, -1.7f, nan, 1e20f, -1e20f, inf, -inf, 4294967040.0f};
  struct {
    const char *mod;
    double (*f)(double);
  } modes[] = {{"rni", [](double x) { return std::nearbyint(x); }},
               {"rzi", [](double x) { return std::trunc(x); }},
               {"rmi", [](double x) { return std::floor(x); }},
               {"rpi", [](double x) { return std::ceil(x); }}};
  auto clampTo = [](double r, double lo, double hi) { return r != r ? 0.0 : r < lo ? lo : r > hi ? hi : r; };
  for (auto &m : modes) {
    auto s32 = runCvt<int32_t, float>("f32", "s32", std::string("cvt.") + m.mod + ".s32.f32 %d, %a;", a);
    auto u32 = runCvt<uint32_t, float>("f32", "u32", std::string("cvt.") + m.mod + ".u32.f32 %d, %a;", a);
    auto s64 = runCvt<int64_t, float>("f32", "s64", std::string("cvt.") + m.mod + ".s64.f32 %d, %a;", a);
    auto u8 = runCvt<uint32_t, float>("f32", "u32",
                                      std::string("cvt.") + m.mod + ".u8.f32 %d, %a;", a);
    for (size_t i = 0; i < a.size(); ++i) {
      double r = a[i] != a[i] ? NAN : m.f(a[i]);
      EXPECT_EQ(s32[i], (int32_t)clampTo(r, INT32_MIN, INT32_MAX)) << m.mod << " " << a[i];
      EXPECT_EQ(u32[i], (uint32_t)clampTo(r, 0, UINT32_MAX)) << m.mod << " " << a[i];
      // NaN -> 0 except for 64-bit targets, where the H100 gives 0x8000000000000000
      EXPECT_EQ(s64[i], a[i] != a[i] ? INT64_MIN : a[i] >= 9.3e18f ? INT64_MAX : a[i] <= -9.3e18f ? INT64_MIN : (int64_t)clampTo(r, -9.3e18, 9.3e18))
          << m.mod << " " << a[i];
      EXPECT_EQ(u8[i], (uint32_t)clampTo(r, 0, 255)) << m.mod << " " << a[i];
    }
  }
  // f64 and f16 sources, .ftz on an f32 source
  auto d = runCvt<int32_t, double>("f64", "s32", "cvt.rni.s32.f64 %d, %a;", {0.5, 1.5, -1.5, 2147483647.5});
  EXPECT_EQ(d, (std::vector<int32_t>{0, 2, -2, INT32_MAX}));
  auto h = runCvt<int32_t, uint16_t>("b16", "s32", "cvt.rzi.s32.f16 %d, %a;", {0x4500, 0xc500, 0x7c00, 0x7e00});
  EXPECT_EQ(h, (std::vector<int32_t>{5, -5, INT32_MAX, 0}));
  auto u64 = runCvt<uint64_t, double>("f64", "u64", "cvt.rzi.u64.f64 %d, %a;", {1.8446744073709552e19, -3.0, 1e19});
  EXPECT_EQ(u64, (std::vector<uint64_t>{UINT64_MAX, 0, 10000000000000000000ull}));
}

TEST(ExecConvert, IntegerToFloatAllRoundingModes) {
  std::vector<int64_t> a = {0, 1, -1, 16777217, -16777217, 16777219, INT64_MAX, INT64_MIN, 9007199254740993ll,
                            -9007199254740993ll, 123456789};
  for (int m = 0; m < 4; ++m) {
    auto f = runCvt<uint32_t, int64_t>("s64", "f32", std::string("cvt.") + kModeNames[m] + ".f32.s64 %d, %a;", a);
    auto g = runCvt<uint64_t, int64_t>("s64", "f64", std::string("cvt.") + kModeNames[m] + ".f64.s64 %d, %a;", a);
    auto u = runCvt<uint32_t, int64_t>("s64", "f32", std::string("cvt.") + kModeNames[m] + ".f32.u64 %d, %a;", a);
    for (size_t i = 0; i < a.size(); ++i) {
      std::fesetround(kModes[m]);
      volatile int64_t v = a[i];
      volatile uint64_t uv = (uint64_t)a[i];
      volatile float ef = (float)v;
      volatile double ed = (double)v;
      volatile float euf = (float)uv;
      std::fesetround(FE_TONEAREST);
      EXPECT_EQ(f[i], bits((float)ef)) << kModeNames[m] << " " << a[i];
      EXPECT_EQ(g[i], bits((double)ed)) << kModeNames[m] << " " << a[i];
      EXPECT_EQ(u[i], bits((float)euf)) << kModeNames[m] << " " << (uint64_t)a[i];
    }
  }
  // 32-bit sources; .sat on a float destination
  auto s = runCvt<float, int32_t>("s32", "f32", "cvt.rn.f32.s32 %d, %a;", {-7, 16777217});
  EXPECT_EQ(s, (std::vector<float>{-7.0f, 16777216.0f}));
  auto st = runCvt<float, int32_t>("s32", "f32", "cvt.rn.sat.f32.s32 %d, %a;", {-7, 0, 1, 5});
  EXPECT_EQ(st, (std::vector<float>{0.0f, 0.0f, 1.0f, 1.0f}));
  auto h = runCvt<uint16_t, int32_t>("s32", "b16", "cvt.rn.f16.s32 %d, %a;", {1, -2, 2049, 70000});
  EXPECT_EQ(h, (std::vector<uint16_t>{0x3c00, 0xc000, 0x6800, 0x7c00}));
  auto hz = runCvt<uint16_t, int32_t>("s32", "b16", "cvt.rz.f16.s32 %d, %a;", {70000});
  EXPECT_EQ(hz[0], 0x7bff);
}

TEST(ExecConvert, F64ToF32RoundingFtzSat) {
  std::vector<double> a = {1.0 + 0x1p-24, -(1.0 + 0x1p-24), 1.0 + 0x1.8p-24, 0.1, 1e300, -1e300, 1e-40, 1e-50,
                           std::nan(""), 3.0};
  for (int m = 0; m < 4; ++m) {
    auto f = runCvt<uint32_t, double>("f64", "f32", std::string("cvt.") + kModeNames[m] + ".f32.f64 %d, %a;", a);
    for (size_t i = 0; i < a.size(); ++i) {
      std::fesetround(kModes[m]);
      volatile double v = a[i];
      volatile float e = (float)v;
      std::fesetround(FE_TONEAREST);
      uint32_t eb = e != e ? 0x7fffffffu : bits((float)e);
      EXPECT_EQ(f[i], eb) << kModeNames[m] << " " << a[i];
    }
  }
  auto ftz = runCvt<uint32_t, double>("f64", "f32", "cvt.rn.ftz.f32.f64 %d, %a;", {1e-40, -1e-40});
  EXPECT_EQ(ftz, (std::vector<uint32_t>{0u, 0x80000000u}));
  auto sat = runCvt<float, double>("f64", "f32", "cvt.rn.sat.f32.f64 %d, %a;", {3.0, -1.0, 0.5});
  EXPECT_EQ(sat, (std::vector<float>{1.0f, 0.0f, 0.5f}));
  auto wide = runCvt<double, float>("f32", "f64", "cvt.f64.f32 %d, %a;", {0.1f, 1e-40f});
  EXPECT_EQ(wide, (std::vector<double>{(double)0.1f, (double)1e-40f}));
  auto wftz = runCvt<double, float>("f32", "f64", "cvt.ftz.f64.f32 %d, %a;", {1e-40f});
  EXPECT_EQ(wftz[0], 0.0);
}

TEST(ExecConvert, HalfConversions) {
  // f32 -> f16 in each mode: 1 + 2^-11 is a tie (rn: even = 1), 1 + 3*2^-12 above it
  std::vector<float> a = {1.0f + 0x1p-11f, -(1.0f + 0x1p-11f), 1.0f + 0x1.8p-11f, 1e5f, -1e5f, 65519.0f, 65520.0f,
                          std::numeric_limits<float>::quiet_NaN(), 1e-8f, -0.0f};
  const uint16_t expect[4][10] = {
      {0x3c00, 0xbc00, 0x3c01, 0x7c00, 0xfc00, 0x7bff, 0x7c00, 0x7fff, 0x0000, 0x8000}, // rn
      {0x3c00, 0xbc00, 0x3c00, 0x7bff, 0xfbff, 0x7bff, 0x7bff, 0x7fff, 0x0000, 0x8000}, // rz
      {0x3c00, 0xbc01, 0x3c00, 0x7bff, 0xfc00, 0x7bff, 0x7bff, 0x7fff, 0x0000, 0x8000}, // rm
      {0x3c01, 0xbc00, 0x3c01, 0x7c00, 0xfbff, 0x7c00, 0x7c00, 0x7fff, 0x0001, 0x8000}, // rp
  };
  for (int m = 0; m < 4; ++m) {
    auto h = runCvt<uint16_t, float>("f32", "b16", std::string("cvt.") + kModeNames[m] + ".f16.f32 %d, %a;", a);
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_EQ(h[i], expect[m][i]) << kModeNames[m] << " lane " << i;
  }
  auto sf = runCvt<uint16_t, float>("f32", "b16", "cvt.rn.satfinite.f16.f32 %d, %a;",
                                    {1e5f, -std::numeric_limits<float>::infinity()});
  EXPECT_EQ(sf, (std::vector<uint16_t>{0x7bff, 0xfbff}));
  auto relu = runCvt<uint16_t, float>("f32", "b16", "cvt.rn.relu.f16.f32 %d, %a;", {-2.0f, 2.0f});
  EXPECT_EQ(relu, (std::vector<uint16_t>{0x0000, 0x4000}));
  auto bf = runCvt<uint16_t, float>("f32", "b16", "cvt.rn.bf16.f32 %d, %a;", {1.0f + 0x1p-8f, 1.0f + 0x1.8p-8f, 3.0f});
  EXPECT_EQ(bf, (std::vector<uint16_t>{0x3f80, 0x3f81, 0x4040}));
  auto bfz = runCvt<uint16_t, float>("f32", "b16", "cvt.rz.bf16.f32 %d, %a;", {1.0f + 0x1.8p-8f});
  EXPECT_EQ(bfz[0], 0x3f80);
  auto bd = runCvt<uint16_t, double>("f64", "b16", "cvt.rn.f16.f64 %d, %a;", {1.0 + 0x1p-11 + 0x1p-40});
  EXPECT_EQ(bd[0], 0x3c01); // single rounding from f64
  // widening is exact
  auto w = runCvt<float, uint16_t>("b16", "f32", "cvt.f32.f16 %d, %a;", {0x3c01, 0x0001, 0xfc00});
  EXPECT_EQ(w[0], 1.0f + 0x1p-10f);
  EXPECT_EQ(w[1], 0x1p-24f);
  EXPECT_EQ(w[2], -std::numeric_limits<float>::infinity());
  auto wb = runCvt<double, uint16_t>("b16", "f64", "cvt.f64.bf16 %d, %a;", {0x3fc0});
  EXPECT_EQ(wb[0], 1.5);
  // half <-> half: f16 1+2^-10 to bf16 rounds (rn to 1, rp up)
  auto hb = runCvt<uint16_t, uint16_t>("b16", "b16", "cvt.rn.bf16.f16 %d, %a;", {0x3c01, 0x7bff});
  EXPECT_EQ(hb, (std::vector<uint16_t>{0x3f80, 0x4780}));
  auto hbp = runCvt<uint16_t, uint16_t>("b16", "b16", "cvt.rp.bf16.f16 %d, %a;", {0x3c01});
  EXPECT_EQ(hbp[0], 0x3f81);
  auto bh = runCvt<uint16_t, uint16_t>("b16", "b16", "cvt.rn.f16.bf16 %d, %a;", {0x4780, 0x3fc0});
  EXPECT_EQ(bh, (std::vector<uint16_t>{0x7c00, 0x3e00})); // 65536 overflows f16
  // .sat on a half destination
  auto hs = runCvt<uint16_t, float>("f32", "b16", "cvt.rn.sat.f16.f32 %d, %a;", {2.0f, -1.0f});
  EXPECT_EQ(hs, (std::vector<uint16_t>{0x3c00, 0x0000}));
}

TEST(ExecConvert, PackedX2FirstSourceGoesHigh) {
  auto d = runCvt<uint32_t, float>("f32", "b32", "cvt.rn.f16x2.f32 %d, %a, %b;", {1.0f, 1e6f}, {2.0f, -0.5f});
  EXPECT_EQ(d, (std::vector<uint32_t>{0x3c004000u, 0x7c00b800u}));
  auto s = runCvt<uint32_t, float>("f32", "b32", "cvt.rn.satfinite.relu.f16x2.f32 %d, %a, %b;", {1e6f}, {-0.5f});
  EXPECT_EQ(s[0], 0x7bff0000u);
  auto b = runCvt<uint32_t, float>("f32", "b32", "cvt.rz.bf16x2.f32 %d, %a, %b;", {1.0f + 0x1.8p-8f}, {-3.0f});
  EXPECT_EQ(b[0], 0x3f80c040u);
}

TEST(ExecConvert, RoundToIntegralSameType) {
  std::vector<float> a = {2.5f, 3.5f, -0.5f, -2.5f, 1.25f, -1.75f, 1e30f, std::numeric_limits<float>::infinity()};
  struct {
    const char *mod;
    float (*f)(float);
  } modes[] = {{"rni", [](float x) { return std::nearbyint(x); }},
               {"rzi", [](float x) { return std::trunc(x); }},
               {"rmi", [](float x) { return std::floor(x); }},
               {"rpi", [](float x) { return std::ceil(x); }}};
  for (auto &m : modes) {
    auto d = runCvt<uint32_t, float>("f32", "f32", std::string("cvt.") + m.mod + ".f32.f32 %d, %a;", a);
    std::vector<double> da(a.begin(), a.end());
    auto dd = runCvt<uint64_t, double>("f64", "f64", std::string("cvt.") + m.mod + ".f64.f64 %d, %a;", da);
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(d[i], bits(m.f(a[i]))) << m.mod << " " << a[i];
      EXPECT_EQ(dd[i], bits((double)m.f(a[i]))) << m.mod << " " << a[i];
    }
  }
  auto nz = runCvt<uint32_t, float>("f32", "f32", "cvt.rni.f32.f32 %d, %a;", {-0.5f});
  EXPECT_EQ(nz[0], 0x80000000u);
  auto h = runCvt<uint16_t, uint16_t>("b16", "b16", "cvt.rni.f16.f16 %d, %a;", {0x4100, 0x4300}); // 2.5, 3.5
  EXPECT_EQ(h, (std::vector<uint16_t>{0x4000, 0x4400}));
  auto f = runCvt<uint32_t, float>("f32", "f32", "cvt.ftz.sat.f32.f32 %d, %a;", {1e-40f, 2.0f, -3.0f, 0.5f});
  EXPECT_EQ(f, (std::vector<uint32_t>{0u, bits(1.0f), 0u, bits(0.5f)}));
}

TEST(ExecConvert, PackSat) {
  std::vector<int32_t> a = {70000, -5, 100, -40000}, b = {-70000, 65535, 32767, 12};
  auto u = runCvt<uint32_t, int32_t>("s32", "b32", "cvt.pack.sat.u16.s32 %d, %a, %b;", a, b);
  auto s = runCvt<uint32_t, int32_t>("s32", "b32", "cvt.pack.sat.s16.s32 %d, %a, %b;", a, b);
  EXPECT_EQ(u, (std::vector<uint32_t>{0xffff0000u, 0x0000ffffu, 0x00647fffu, 0x0000000cu}));
  EXPECT_EQ(s, (std::vector<uint32_t>{0x7fff8000u, 0xfffb7fffu, 0x00647fffu, 0x8000000cu}));
  auto u8 = runCvt<uint32_t, int32_t>("s32", "b32", "cvt.pack.sat.u8.s32.b32 %d, %a, %b, %c;", {300, -1}, {-3, 7},
                                      {0x1234, 0xab});
  EXPECT_EQ(u8, (std::vector<uint32_t>{0x1234ff00u, 0x00ab0007u}));
  auto s8 = runCvt<uint32_t, int32_t>("s32", "b32", "cvt.pack.sat.s8.s32.b32 %d, %a, %b, %c;", {300}, {-300}, {0});
  EXPECT_EQ(s8[0], 0x00007f80u);
}

TEST(ExecConvert, Tf32RoundingSatfiniteRelu) {
  auto f = [](uint32_t u) {
    float x;
    std::memcpy(&x, &u, 4);
    return x;
  };
  // 1 + 2^-11 (a tie), 1 + 3 * 2^-11 (a tie, odd), 1 + 2^-11 + 2^-23 (above), 1 + 2^-12 (below),
  // -(1 + 2^-11), FLT_MAX (rounds up to inf), -inf, NaN, the smallest subnormal
  std::vector<float> a = {f(0x3f801000u), f(0x3f803000u), f(0x3f801001u), f(0x3f800800u), f(0xbf801000u),
                          f(0x7f7fffffu), -INFINITY, NAN, f(0x00000001u)};
  auto rna = runCvt<uint32_t, float>("f32", "b32", "cvt.rna.tf32.f32 %d, %a;", a);
  auto rnaSat = runCvt<uint32_t, float>("f32", "b32", "cvt.rna.satfinite.tf32.f32 %d, %a;", a);
  auto rn = runCvt<uint32_t, float>("f32", "b32", "cvt.rn.tf32.f32 %d, %a;", a);
  auto rzRelu = runCvt<uint32_t, float>("f32", "b32", "cvt.rz.relu.tf32.f32 %d, %a;", a);
  EXPECT_EQ(rna, (std::vector<uint32_t>{0x3f802000u, 0x3f804000u, 0x3f802000u, 0x3f800000u, 0xbf802000u,
                                        0x7f800000u, 0xff800000u, 0x7fffffffu, 0u}));
  EXPECT_EQ(rnaSat, (std::vector<uint32_t>{0x3f802000u, 0x3f804000u, 0x3f802000u, 0x3f800000u, 0xbf802000u,
                                           0x7f7fe000u, 0xff7fe000u, 0x7fffffffu, 0u}));
  EXPECT_EQ(rn, (std::vector<uint32_t>{0x3f800000u, 0x3f804000u, 0x3f802000u, 0x3f800000u, 0xbf800000u,
                                       0x7f800000u, 0xff800000u, 0x7fffffffu, 0u}));
  EXPECT_EQ(rzRelu, (std::vector<uint32_t>{0x3f800000u, 0x3f802000u, 0x3f800000u, 0x3f800000u, 0u,
                                           0x7f7fe000u, 0u, 0x7fffffffu, 0u}));
}

TEST(ExecConvert, Fp8PairsFromAndToF32AndF16x2) {
  const float inf = INFINITY, nan = NAN;
  // e4m3: 1 -> 0x38, -1.5 -> 0xbc, 448 (max) -> 0x7e, 500 and inf saturate, NaN -> 0x7f, 2^-9 is
  // the smallest subnormal, 2^-10 ties to 0, 464 ties to 448 (even), 465 rounds up and saturates
  std::vector<float> a = {1.0f, 448.0f, inf, 0x1p-9f, 464.0f, -0.0f};
  std::vector<float> b = {-1.5f, 500.0f, nan, 0x1p-10f, 465.0f, 0.1f};
  auto e4 = runCvt<uint16_t, float>("f32", "b16", "cvt.rn.satfinite.e4m3x2.f32 %d, %a, %b;", a, b);
  EXPECT_EQ(e4, (std::vector<uint16_t>{0x38bc, 0x7e7e, 0x7e7f, 0x0100, 0x7e7e, 0x801d}));
  auto e4relu = runCvt<uint16_t, float>("f32", "b16", "cvt.rn.satfinite.relu.e4m3x2.f32 %d, %a, %b;", a, b);
  EXPECT_EQ(e4relu, (std::vector<uint16_t>{0x3800, 0x7e7e, 0x7e7f, 0x0100, 0x7e7e, 0x001d}));
  // e5m2: 1 -> 0x3c, 1.25 -> 0x3d, 57344 (max) -> 0x7b, 61440 ties up past the max and
  // saturates, 2^-16 is the smallest subnormal
  auto e5 = runCvt<uint16_t, float>("f32", "b16", "cvt.rn.satfinite.e5m2x2.f32 %d, %a, %b;",
                                    {1.0f, 57344.0f, -inf, 0x1p-16f}, {1.25f, 61440.0f, 3.0f, -0x1p-18f});
  EXPECT_EQ(e5, (std::vector<uint16_t>{0x3c3d, 0x7b7b, 0xfb42, 0x0180}));
  // f16x2 -> e4m3x2: the upper half to the upper byte (1.0 and -1.5 in f16: 0x3c00, 0xbe00)
  auto h = runCvt<uint16_t, uint32_t>("b32", "b16", "cvt.rn.satfinite.e4m3x2.f16x2 %d, %a;", {0x3c00be00u});
  EXPECT_EQ(h[0], 0x38bc);
  // back to f16x2, exactly
  auto back = runCvt<uint32_t, uint16_t>("b16", "b32", "cvt.rn.f16x2.e4m3x2 %d, %a;", {0x38bc, 0x7e01, 0x7f00});
  EXPECT_EQ(back, (std::vector<uint32_t>{0x3c00be00u, 0x5f001800u, 0x7fff0000u})); // 448, 2^-9; NaN
  auto back5 = runCvt<uint32_t, uint16_t>("b16", "b32", "cvt.rn.relu.f16x2.e5m2x2 %d, %a;", {0x7cbc});
  EXPECT_EQ(back5[0], 0x7c000000u); // +inf kept, -1.0 -> +0 with .relu
}

TEST(ExecConvert, UnsupportedFormsFaultAtRunTime) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_100a") + R"(
.visible .entry k(.param .u64 p) {
  .reg .b16 %h; .reg .f32 %f<2>; .reg .b64 %rd;
  ld.param.u64 %rd, [p];
  mov.f32 %f0, 1.0; mov.f32 %f1, 2.0;
  cvt.rn.satfinite.e2m1x2.f32 %h, %f0, %f1;
  st.global.b16 [%rd], %h;
  ret;
})")) << h.errors;
  auto r = h.launch("k", {1}, {1}, {h.alloc(2)});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.message.find("cvt"), std::string::npos) << r.message;
}

} // namespace

// The MUFU functions (ptx/exec/Mufu.h) and the PTX instructions built on them against an H200's
// results on every float of the measured ranges, and the special values:
//  - tools/hw/data/h200-2026-11-28-fidelity/sweep.bin.gz: the GPU's result minus the f64
//    function rounded to f32, in ulps (rcp, rsqrt, ex2);
//  - tools/hw/data/h200-2026-11-30-mufu/NAME_FIRST.d.xz (tools/hw/mufu_sweep.cu): the GPU's
//    result bits for every input of whole binades (sqrt, lg2, tanh, sin, cos).

#include "ptx/exec/Mufu.h"
#include "ptx/exec/Numerics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace ptxsim::test {
namespace {

using namespace ptx::exec;

struct Sweep {
  uint32_t first = 0;
  std::vector<int8_t> diff;
};

/// The sweeps of the data folder by name (read once through gzip).
const std::map<std::string, Sweep> &sweeps() {
  static const std::map<std::string, Sweep> all = [] {
    std::map<std::string, Sweep> m;
    const std::string path = std::string(PTXSIM_TEST_DIR) + "/../tools/hw/data/h200-2026-11-28-fidelity/sweep.bin.gz";
    FILE *f = popen(("gzip -dc '" + path + "'").c_str(), "r");
    if (!f)
      return m;
    for (;;) {
      char name[16];
      uint32_t hdr[2];
      if (std::fread(name, 1, 16, f) != 16 || std::fread(hdr, 4, 2, f) != 2)
        break;
      Sweep s;
      s.first = hdr[0];
      s.diff.resize(hdr[1]);
      if (std::fread(s.diff.data(), 1, s.diff.size(), f) != s.diff.size())
        break;
      m[std::string(name, strnlen(name, 16))] = std::move(s);
    }
    pclose(f);
    return m;
  }();
  return all;
}

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float flt(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Inputs of the sweep where `mufu` differs from the GPU (reference: f64 `ref` rounded to f32
/// plus the recorded difference), and how many differ from the plain rounded reference.
template <class Mufu, class Ref> void expectSweep(const char *name, Mufu mufu, Ref ref, long wantRoundedDiffer) {
  auto it = sweeps().find(name);
  ASSERT_NE(it, sweeps().end()) << "sweep " << name << " not read from tools/hw/data (gzip needed)";
  const Sweep &s = it->second;
  long bad = 0, rounded = 0;
  uint32_t firstBad = 0;
  for (size_t i = 0; i < s.diff.size(); ++i) {
    const float x = flt(s.first + uint32_t(i));
    ASSERT_NE(s.diff[i], -128) << name << " input " << i;
    const uint32_t cr = bits(float(ref(double(x))));
    const uint32_t gpu = cr + uint32_t(int32_t(s.diff[i]));
    rounded += cr != gpu;
    if (bits(mufu(x)) != gpu && !bad++)
      firstBad = bits(x);
  }
  EXPECT_EQ(bad, 0) << name << ": first differing input 0x" << std::hex << firstBad;
  EXPECT_EQ(rounded, wantRoundedDiffer) << name; // the sweep is the one measured (log.txt histogram)
}

/// The GPU's result bits for consecutive inputs of one sweep file of h200-2026-11-30-mufu (read
/// through xz; the format is tools/hw/mufu_sweep.cu's), empty when it cannot be read.
std::vector<uint32_t> gpuResults(const std::string &file) {
  const std::string path = std::string(PTXSIM_TEST_DIR) + "/../tools/hw/data/h200-2026-11-30-mufu/" + file;
  std::vector<uint32_t> out;
  FILE *f = popen(("xz -dc '" + path + "'").c_str(), "r");
  if (!f)
    return out;
  uint32_t prev = 0;
  for (int c; (c = std::fgetc(f)) != EOF;) {
    uint32_t z = uint32_t(c);
    if (z == 255) {
      unsigned char b[4];
      if (std::fread(b, 1, 4, f) != 4)
        break;
      z = uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
    }
    prev += (z >> 1) ^ (0u - (z & 1));
    out.push_back(prev);
  }
  if (pclose(f) != 0)
    out.clear();
  return out;
}

/// Every input of sweep `file` (named by its first input's bits): `fn` gives the GPU's bits.
template <class Fn> void expectEveryInput(const std::string &file, uint32_t first, size_t count, Fn fn) {
  const std::vector<uint32_t> gpu = gpuResults(file);
  ASSERT_EQ(gpu.size(), count) << file << " not read from tools/hw/data (xz needed)";
  long bad = 0;
  uint32_t firstBad = 0, want = 0, got = 0;
  for (size_t i = 0; i < gpu.size(); ++i) {
    const uint32_t r = bits(fn(flt(first + uint32_t(i))));
    if (r != gpu[i] && !bad++) {
      firstBad = first + uint32_t(i);
      want = gpu[i];
      got = r;
    }
  }
  EXPECT_EQ(bad, 0) << file << ": first differing input 0x" << std::hex << firstBad << ", GPU 0x" << want
                    << ", ptxsim 0x" << got;
}

constexpr size_t kBinade = size_t(1) << 23;

TEST(MufuH200, SqrtEveryFloatOfEightBinades) {
  // [0.25, 4), the two lowest and the two highest normal binades (.ftz: MUFU.SQRT alone)
  expectEveryInput("sqrt.approx.ftz_3e800000.d.xz", 0x3e800000u, 4 * kBinade, mufuSqrt);
  expectEveryInput("sqrt.approx.ftz_00800000.d.xz", 0x00800000u, 2 * kBinade, mufuSqrt);
  expectEveryInput("sqrt.approx.ftz_7e800000.d.xz", 0x7e800000u, 2 * kBinade, mufuSqrt);
}

TEST(MufuH200, SqrtWithoutFtzScalesSubnormals) {
  expectEveryInput("sqrt.approx_00000000.d.xz", 0u, kBinade, sqrtApproxF32);
  expectEveryInput("sqrt.approx_3f800000.d.xz", 0x3f800000u, kBinade, sqrtApproxF32);
  EXPECT_EQ(bits(mufuSqrt(-0.0f)), 0x80000000u);
  EXPECT_EQ(bits(mufuSqrt(-0x1p-140f)), 0x80000000u); // flushed to -0 first
  EXPECT_EQ(mufuSqrt(INFINITY), INFINITY);
  EXPECT_TRUE(std::isnan(mufuSqrt(-1.0f)) && std::isnan(mufuSqrt(-INFINITY)) && std::isnan(mufuSqrt(NAN)));
  EXPECT_EQ(mufuSqrt(4.0f), 2.0f);
  EXPECT_EQ(bits(mufuSqrt(0x1.8p100f)), bits(mufuSqrt(0x1.8p0f)) + (50u << 23));
  EXPECT_EQ(bits(sqrtApproxF32(-0.0f)), 0x80000000u);
}

TEST(MufuH200, TanhEveryFloatOfTwentyTwoBinades) {
  // [2^-14, 16): x itself below 2^-8, the table from there to 8, 1 above
  expectEveryInput("tanh.approx_38800000.d.xz", 0x38800000u, 18 * kBinade, tanhApproxF32);
  expectEveryInput("tanh.approx_bf000000.d.xz", 0xbf000000u, kBinade, tanhApproxF32); // odd
  expectEveryInput("tanh.approx_00000000.d.xz", 0u, kBinade, tanhApproxF32);          // subnormals kept
  expectEveryInput("tanh.approx_30000000.d.xz", 0x30000000u, kBinade, tanhApproxF32);
  EXPECT_EQ(mufuTanh(INFINITY), 1.0f);
  EXPECT_EQ(mufuTanh(-INFINITY), -1.0f);
  EXPECT_EQ(mufuTanh(0x1p100f), 1.0f);
  EXPECT_EQ(bits(mufuTanh(-0.0f)), 0x80000000u);
  EXPECT_TRUE(std::isnan(mufuTanh(NAN)));
}

TEST(MufuH200, Lg2EveryFloatOfTenBinades) {
  // [1/8, 8) and the lowest, highest and two far binades (.ftz: MUFU.LG2 alone); the tables were
  // fitted to [1/2, 2) only: the other binades check how the exponent is added
  expectEveryInput("lg2.approx.ftz_3e000000.d.xz", 0x3e000000u, 6 * kBinade, mufuLg2);
  expectEveryInput("lg2.approx.ftz_00800000.d.xz", 0x00800000u, kBinade, mufuLg2);
  expectEveryInput("lg2.approx.ftz_34000000.d.xz", 0x34000000u, kBinade, mufuLg2);
  expectEveryInput("lg2.approx.ftz_4b000000.d.xz", 0x4b000000u, kBinade, mufuLg2);
  expectEveryInput("lg2.approx.ftz_7f000000.d.xz", 0x7f000000u, kBinade, mufuLg2);
}

TEST(MufuH200, Lg2WithoutFtzScalesSubnormalsAndSpecialValues) {
  expectEveryInput("lg2.approx_00000000.d.xz", 0u, kBinade, lg2ApproxF32);
  EXPECT_EQ(bits(mufuLg2(1.0f)), 0u); // +0, though 2^k gives k + Q(1) truncated: exactly k
  EXPECT_EQ(mufuLg2(2.0f), 1.0f);
  EXPECT_EQ(bits(mufuLg2(0.5f)), 0xbf7ffffeu); // -1 + Q(1), Q(1) about 2^-23.2
  EXPECT_EQ(bits(mufuLg2(0.0f)), 0xff800000u);
  EXPECT_EQ(bits(mufuLg2(-0.0f)), 0xff800000u);
  EXPECT_EQ(bits(mufuLg2(0x1p-140f)), 0xff800000u);  // subnormal input flushed
  EXPECT_EQ(bits(mufuLg2(-0x1p-140f)), 0xff800000u); // to -0: -inf
  EXPECT_EQ(mufuLg2(INFINITY), INFINITY);
  EXPECT_EQ(bits(mufuLg2(-1.0f)), 0x7fffffffu);
  EXPECT_EQ(bits(mufuLg2(-INFINITY)), 0x7fffffffu);
  EXPECT_TRUE(std::isnan(mufuLg2(NAN)));
  EXPECT_EQ(mufuLg2(0x1.fffffep127f), 128.0f - 0x1p-17f); // 127 + Q, truncated below 128
  EXPECT_EQ(bits(lg2ApproxF32(0.0f)), 0xff800000u);
  EXPECT_EQ(bits(lg2ApproxF32(-0.0f)), 0xff800000u);
  EXPECT_TRUE(std::isnan(lg2ApproxF32(-0x1p-140f))); // scaled: a negative normal input
  EXPECT_EQ(lg2ApproxF32(0x1p-149f), -149.0f);
  EXPECT_EQ(lg2ApproxF32(0x1p-126f), mufuLg2(0x1p-126f)); // the smallest normal is not scaled
}

// sin.approx.ftz / cos.approx.ftz as the executor runs them (ftz32 on the input and the result)
float sinFtz(float x) { return ftz32(sinApproxF32(ftz32(x))); }
float cosFtz(float x) { return ftz32(cosApproxF32(ftz32(x))); }

TEST(MufuH200, SinCosEveryFloatOfNegativeBinades) {
  // [-8, -1/2): reaches every phase index of the quarter turn (what tools/hw/mufu_fit.cpp reads)
  expectEveryInput("sin.approx.ftz_bf000000.d.xz", 0xbf000000u, 4 * kBinade, sinFtz);
  expectEveryInput("cos.approx.ftz_bf000000.d.xz", 0xbf000000u, 4 * kBinade, cosFtz);
}

TEST(MufuH200, SinCosEveryFloatOfSmallAndLargeBinades) {
  // [2^-20, 1): phases of few bits (|r| < 2^-25 gives p = 0 below 2^-22.35); [2^8, 2^12):
  // revolutions with 15 to 11 fraction bits
  expectEveryInput("sin.approx.ftz_35800000.d.xz", 0x35800000u, 20 * kBinade, sinFtz);
  expectEveryInput("cos.approx.ftz_35800000.d.xz", 0x35800000u, 20 * kBinade, cosFtz);
  expectEveryInput("sin.approx.ftz_43800000.d.xz", 0x43800000u, 4 * kBinade, sinFtz);
  expectEveryInput("cos.approx.ftz_43800000.d.xz", 0x43800000u, 4 * kBinade, cosFtz);
}

TEST(MufuH200, SinCosWithoutFtz) {
  expectEveryInput("sin.approx_00000000.d.xz", 0u, kBinade, sinApproxF32);
  expectEveryInput("cos.approx_00000000.d.xz", 0u, kBinade, cosApproxF32);
  expectEveryInput("sin.approx_3f800000.d.xz", 0x3f800000u, kBinade, sinApproxF32);
  expectEveryInput("cos.approx_3f800000.d.xz", 0x3f800000u, kBinade, cosApproxF32);
}

TEST(MufuH200, SinCosSpecialValues) {
  EXPECT_EQ(bits(sinApproxF32(0.0f)), 0u);
  EXPECT_EQ(bits(sinApproxF32(-0.0f)), 0x80000000u);
  EXPECT_EQ(bits(sinApproxF32(-0x1p-140f)), 0x80000000u); // subnormal: flushed by the unit
  EXPECT_EQ(cosApproxF32(0.0f), 1.0f);
  EXPECT_EQ(cosApproxF32(-0.0f), 1.0f);
  EXPECT_EQ(cosApproxF32(0x1p-140f), 1.0f);
  for (float x : {INFINITY, -INFINITY, NAN}) {
    EXPECT_TRUE(std::isnan(sinApproxF32(x)) && std::isnan(cosApproxF32(x))) << x;
    EXPECT_TRUE(std::isnan(mufuSin(x)) && std::isnan(mufuCos(x))) << x;
  }
  // the unit on revolutions: a quarter turn is the last index of the quarter (1 exactly), half a
  // turn is -g(0) = -0, and cos is sin a quarter turn on
  EXPECT_EQ(mufuSin(0.25f), 1.0f);
  EXPECT_EQ(bits(mufuSin(0.5f)), 0x80000000u);
  EXPECT_EQ(bits(mufuSin(-0.5f)), 0u);
  EXPECT_EQ(mufuSin(0.75f), -1.0f);
  EXPECT_EQ(bits(mufuCos(0.25f)), 0x80000000u);
  EXPECT_EQ(mufuCos(0.5f), -1.0f);
  for (float r : {0x1.2345p-3f, 0x1.fffp-2f, 0x1.4p-1f, 0x1.abcp-6f, 0x1.ffcp-1f}) {
    // r, r + 1/4 and r + 3 exact, with the same 25-bit phase
    EXPECT_EQ(bits(mufuSin(r + 0.25f)), bits(mufuCos(r))) << r;
    EXPECT_EQ(bits(mufuSin(r + 3.0f)), bits(mufuSin(r))) << r;
    EXPECT_EQ(bits(mufuSin(-r)), bits(mufuSin(r)) ^ 0x80000000u) << r;
    EXPECT_EQ(bits(mufuCos(-r)), bits(mufuCos(r))) << r;
  }
  // the phase is 25 bits, truncated: below 2^-25 revolutions, and for integers, it is 0
  EXPECT_EQ(bits(mufuSin(0x1.fffffep-26f)), 0u);
  EXPECT_EQ(mufuSin(0x1p-25f), 0x19224p-39f); // g(1) = 25737 * 4 * 2^-39: the exact fixed point
  EXPECT_EQ(bits(sinApproxF32(0x1p30f)), 0u);
  EXPECT_EQ(cosApproxF32(0x1p30f), 1.0f);
  EXPECT_EQ(bits(sinApproxF32(-1e-7f)), 0x80000000u); // 2 pi 2^-25 > 1e-7: phase 0
  // quadrants 1 and 3 reflect with the one's complement: sin(1/4 + d) = sin(1/4 - d - 2^-25)
  EXPECT_EQ(bits(mufuSin(0.25f + 0x1p-20f)), bits(mufuSin(0.25f - 0x1p-20f - 0x1p-25f)));
  EXPECT_NE(bits(mufuSin(0.25f + 0x1p-20f)), bits(mufuSin(0.25f - 0x1p-20f)));
}

TEST(MufuH200, RcpEveryFloatOfABinade) {
  expectSweep("rcp.ftz", mufuRcp, [](double x) { return 1.0 / x; }, 374723 + 733799);
}

TEST(MufuH200, RsqEveryFloatOfTwoBinades) {
  expectSweep("rsqrt.ftz", mufuRsq, [](double x) { return 1.0 / std::sqrt(x); }, 8 + 2344391 + 1289731);
}

TEST(MufuH200, Ex2EveryFloatOfAUnitInterval) {
  expectSweep("ex2.ftz", mufuEx2, [](double x) { return std::exp2(x); }, 3093 + 3259640);
}

TEST(MufuH200, ScaledBinadesAndSpecialValues) {
  // RCP and RSQ repeat per binade (pair of binades); EX2 per unit interval
  EXPECT_EQ(bits(mufuRcp(0x1.234p40f)), bits(mufuRcp(0x1.234p0f)) - (40u << 23));
  EXPECT_EQ(bits(mufuRcp(-0x1.234p-40f)), (bits(mufuRcp(0x1.234p0f)) + (40u << 23)) | 0x80000000u);
  EXPECT_EQ(bits(mufuRsq(0x1.234p41f)), bits(mufuRsq(0x1.234p1f)) - (20u << 23));
  EXPECT_EQ(bits(mufuEx2(5.25f)), bits(mufuEx2(1.25f)) + (4u << 23));
  EXPECT_EQ(mufuEx2(-3.0f), 0.125f);
  EXPECT_EQ(bits(mufuRcp(0x1p127f)), 0u);            // 2^-127 is subnormal: flushed
  EXPECT_EQ(bits(mufuRcp(-0x1p-149f)), 0xff800000u); // subnormal input flushed: -inf
  EXPECT_EQ(mufuRsq(0x1p-140f), INFINITY);
  EXPECT_TRUE(std::isnan(mufuRsq(-1.0f)));
  EXPECT_EQ(bits(mufuRsq(-0.0f)), 0xff800000u);
  EXPECT_EQ(mufuEx2(0x1p-140f), 1.0f);
  EXPECT_EQ(mufuEx2(-127.5f), 0.0f);
  EXPECT_EQ(mufuEx2(128.0f), INFINITY);
  EXPECT_EQ(mufuEx2(-INFINITY), 0.0f);
  EXPECT_TRUE(std::isnan(mufuEx2(NAN)) && std::isnan(mufuRcp(NAN)) && std::isnan(mufuRsq(NAN)));
  // the forms without .ftz reach subnormals through ptxas's scaling
  EXPECT_EQ(rcpApproxF32(0x1p-127f), 0x1p127f);
  EXPECT_EQ(rcpApproxF32(0x1p-140f), INFINITY);
  EXPECT_EQ(rcpApproxF32(0x1p127f), 0x1p-127f);
  EXPECT_EQ(rsqrtApproxF32(0x1p-140f), 0x1p70f);
  EXPECT_EQ(ex2ApproxF32(-140.0f), 0x1p-140f);
}

} // namespace
} // namespace ptxsim::test

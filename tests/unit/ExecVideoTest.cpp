// Executor video instructions: scalar vadd/vsub/vabsdiff/vmin/vmax/vshl/vshr/vmad/vset with
// byte/halfword selectors, per-operand signedness, saturation, secondary operations and subword
// merges, and the SIMD forms (2 halfwords, 4 bytes) with element selectors, masks and
// accumulation. Expected values are worked out by hand from the PTX ISA pseudocode.

#include "ExecHarness.h"

using namespace ptxsim;
using namespace ptxsim::test;

namespace {

struct Case {
  const char *inst; ///< one instruction: d in %r4, a in %r1, b in %r2, c in %r3
  uint32_t a, b, c;
  uint32_t want;
};

/// One kernel `v<i>(out, a, b, c)` per case, all in one module.
std::string module(const std::vector<Case> &cases) {
  std::string s = ptxHeader("sm_80");
  for (size_t i = 0; i < cases.size(); ++i)
    s += ".visible .entry v" + std::to_string(i) +
         R"((.param .u64 out, .param .u32 a, .param .u32 b, .param .u32 c) {
  .reg .b32 %r<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [a]; ld.param.u32 %r2, [b]; ld.param.u32 %r3, [c];
  mov.u32 %r4, 0xdeadbeef;
  )" + cases[i].inst + R"(
  st.global.u32 [%rd1], %r4;
  ret;
}
)";
  return s;
}

void runCases(const std::vector<Case> &cases) {
  ExecHarness h;
  ASSERT_TRUE(h.load(module(cases))) << h.errors;
  uint64_t out = h.alloc(4);
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case &k = cases[i];
    auto r = h.launch("v" + std::to_string(i), {1}, {1}, {out, k.a, k.b, k.c});
    ASSERT_TRUE(r.ok()) << k.inst << ": " << r.message;
    EXPECT_EQ(h.read<uint32_t>(out, 1)[0], k.want)
        << std::hex << k.inst << " a=0x" << k.a << " b=0x" << k.b << " c=0x" << k.c;
  }
}

TEST(ExecVideo, ScalarArithmeticSelectorsAndSigns) {
  runCases({
      {"vadd.u32.u32.u32 %r4, %r1, %r2;", 0xffffffff, 2, 0, 1},
      {"vadd.u32.u32.u32.sat %r4, %r1, %r2;", 0xffffffff, 2, 0, 0xffffffff},
      {"vadd.s32.s32.s32.sat %r4, %r1, %r2;", 0x7fffffff, 1, 0, 0x7fffffff},
      {"vadd.s32.s32.s32.sat %r4, %r1, %r2;", 0x80000000, 0xffffffff, 0, 0x80000000},
      // a.b0 as u8 = 240, b.h0 as s16 = -16
      {"vadd.s32.u32.s32.sat %r4, %r1.b0, %r2.h0;", 0x000000f0, 0x0000fff0, 0, 224},
      // a.b1 as s8 = -1, b.b1 as u8 = 255
      {"vadd.s32.s32.u32 %r4, %r1.b1, %r2.b1;", 0x0000ff00, 0x0000ff00, 0, 254},
      {"vsub.s32.u32.u32 %r4, %r1.h1, %r2.h0;", 0x00050000, 7, 0, 0xfffffffe},
      {"vsub.u32.u32.u32.sat %r4, %r1, %r2;", 5, 7, 0, 0},
      {"vsub.s32.s32.s32.sat %r4, %r1, %r2;", 0x80000000, 1, 0, 0x80000000},
      // |-128 - 127|
      {"vabsdiff.u32.s32.s32 %r4, %r1.b0, %r2.b3;", 0x00000080, 0x7f000000, 0, 255},
      {"vabsdiff.u32.u32.u32 %r4, %r1, %r2;", 3, 0xffffffff, 0, 0xfffffffc},
      {"vmin.u32.s32.u32 %r4, %r1, %r2;", 0xfffffff0, 3, 0, 0xfffffff0},
      {"vmin.u32.s32.u32.sat %r4, %r1, %r2;", 0xfffffff0, 3, 0, 0},
      {"vmin.s32.u32.s32 %r4, %r1, %r2;", 0xfffffff0, 3, 0, 3},
      {"vmax.u32.u32.u32 %r4, %r1.b2, %r2;", 0x00ab0000, 0x10, 0, 0xab},
      {"vmax.s32.s32.s32 %r4, %r1.h1, %r2.h0;", 0x80000000, 0x0000fffe, 0, 0xfffffffe},
      {"vadd.u32.u32.u32 %r4, %r1, 5;", 10, 0, 0, 15},
  });
}

TEST(ExecVideo, ScalarSecondaryOperationsAndMerge) {
  runCases({
      {"vadd.u32.u32.u32.add %r4, %r1, %r2, %r3;", 1, 2, 10, 13},
      {"vsub.s32.s32.s32.min %r4, %r1, %r2, %r3;", 10, 3, 5, 5},
      {"vsub.s32.s32.s32.max %r4, %r1, %r2, %r3;", 10, 3, 5, 7},
      // c extends per dtype: -16 signed, 4294967280 unsigned
      {"vabsdiff.s32.s32.s32.max %r4, %r1, %r2, %r3;", 3, 10, 0xfffffff0, 7},
      {"vabsdiff.u32.s32.s32.max %r4, %r1, %r2, %r3;", 3, 10, 0xfffffff0, 0xfffffff0},
      {"vmin.s32.s32.s32.min %r4, %r1, %r2, %r3;", 4, 9, 0xfffffff0, 0xfffffff0},
      // saturation applies before the secondary operation
      {"vadd.s32.s32.s32.sat.add %r4, %r1, %r2, %r3;", 0x7fffffff, 1, 1, 0x80000000},
      {"vmax.u32.s32.u32.sat.add %r4, %r1, %r2, %r3;", 0xffffffff, 0, 5, 5},
      // merges the selected byte/halfword of the result, in place, into c (what an H100 does:
      // vmin.u32 d.h1 with min 0x7f and c = 0 gives 0 there); the saturated forms clamp to the
      // field's range first, as the PTX ISA says, then merge in place the same way
      {"vadd.u32.u32.u32 %r4.b2, %r1, %r2, %r3;", 0x12, 0x01, 0xaabbccdd, 0xaa00ccdd},
      {"vadd.u32.u32.u32 %r4.b2, %r1, %r2, %r3;", 0x120000, 0x010000, 0xaabbccdd, 0xaa13ccdd},
      {"vadd.u32.u32.u32 %r4.b0, %r1, %r2, %r3;", 0x12, 0x01, 0xaabbccdd, 0xaabbcc13},
      {"vmin.u32.u32.u32 %r4.h1, %r1.b2, %r2.b3, %r3;", 0x80808080, 0x7f7f7f7f, 0, 0},
      {"vadd.u32.u32.u32.sat %r4.b1, %r1, %r2, %r3;", 0xf0, 0x20, 0x11223344, 0x11220044},
      {"vadd.s32.s32.s32.sat %r4.b3, %r1, %r2, %r3;", 0xffffff00, 0, 0x11223344, 0xff223344},
      {"vsub.s32.s32.s32.sat %r4.h1, %r1, %r2, %r3;", (uint32_t)-40000, 0, 0x11223344, 0xffff3344},
      {"vsub.u32.u32.u32 %r4.h0, %r1, %r2, %r3;", 1, 2, 0x11223344, 0x1122ffff},
  });
}

TEST(ExecVideo, ScalarShifts) {
  runCases({
      {"vshl.u32.u32.u32.clamp %r4, %r1, %r2;", 1, 40, 0, 0},
      {"vshl.u32.u32.u32.wrap %r4, %r1, %r2;", 1, 33, 0, 2},
      {"vshl.u32.u32.u32.sat.clamp %r4, %r1, %r2;", 0x80000000, 1, 0, 0xffffffff},
      {"vshl.s32.s32.u32.sat.wrap %r4, %r1.b0, %r2;", 0xff, 4, 0, 0xfffffff0},
      {"vshr.s32.s32.u32.clamp %r4, %r1, %r2;", 0x80000000, 40, 0, 0xffffffff},
      {"vshr.u32.u32.u32.clamp %r4, %r1, %r2;", 0x80000000, 40, 0, 0},
      {"vshr.u32.u32.u32.wrap %r4, %r1.h1, %r2;", 0xf0000000, 36, 0, 0x0f00},
      {"vshr.s32.s32.u32.wrap.add %r4, %r1, %r2, %r3;", (uint32_t)-64, 2, 100, 84},
      {"vshl.u32.u32.u32.clamp.max %r4, %r1, %r2.b1, %r3;", 3, 0x0200, 10, 12},
  });
}

TEST(ExecVideo, ScalarSetAndMad) {
  runCases({
      {"vset.u32.u32.lt %r4, %r1, %r2;", 1, 2, 0, 1},
      {"vset.s32.u32.lt %r4, %r1, %r2;", 0xffffffff, 0, 0, 1},
      {"vset.u32.u32.lt %r4, %r1, %r2;", 0xffffffff, 0, 0, 0},
      {"vset.s32.s32.ne.add %r4, %r1.b0, %r2.b1, %r3;", 0x05, 0x0500, 7, 7},
      {"vset.s32.s32.eq.add %r4, %r1.b0, %r2.b1, %r3;", 0x05, 0x0500, 7, 8},
      // the merge keeps the result's own byte 3 (in place, as on an H100): a 0/1 result leaves 0
      {"vset.u32.u32.ge %r4.b3, %r1, %r2, %r3;", 5, 5, 0xffffffff, 0x00ffffff},
      {"vset.u32.u32.ge %r4.b0, %r1, %r2, %r3;", 5, 5, 0xffffffff, 0xffffff01},
      {"vset.u32.u32.gt.max %r4, %r1, %r2, %r3;", 5, 4, 0, 1},
      {"vmad.u32.u32.u32 %r4, %r1, %r2, %r3;", 0x10000, 0x10000, 5, 5},
      {"vmad.u32.u32.u32.sat %r4, %r1, %r2, %r3;", 0x10000, 0x10000, 5, 0xffffffff},
      // (-2) * 3 + (-10)
      {"vmad.s32.s32.u32 %r4, %r1.h0, %r2.h1, %r3;", 0x0000fffe, 0x00030000, 0xfffffff6, 0xfffffff0},
      // (100 * 3 + 27 + 1) >> 7
      {"vmad.u32.u32.u32.po.shr7 %r4, %r1, %r2, %r3;", 100, 3, 27, 2},
      {"vmad.s32.s32.s32.sat.shr15 %r4, %r1, %r2, %r3;", 0x7fffffff, 0x7fffffff, 0, 0x7fffffff},
      // -196608 >> 15 (arithmetic)
      {"vmad.s32.s32.s32.shr15 %r4, %r1, %r2, %r3;", (uint32_t)-3, 0x10000, 0, 0xfffffffa},
      {"vmad.s32.s32.s32.sat %r4, %r1, %r2, %r3;", 0x80000000, 2, 0, 0x80000000},
      // c is sign-extended with unsigned types too (an H100: 0 * 40 + 0xffffffff, >> 15, is
      // 0xffffffff, not the PTX ISA text's 0x0001ffff)
      {"vmad.u32.u32.u32.shr15 %r4, %r1.h0, %r2.h0, %r3;", 0, 40, 0xffffffff, 0xffffffff},
      {"vmad.u32.u32.u32.shr15 %r4, %r1.h0, %r2.h0, %r3;", 0xffff, 0xffff, 0x80000000, 0xfffc},
      // a whole-word .u32 operand is sign-extended too: (-1 * 1 + 0x7fffffff) >> 7
      {"vmad.u32.u32.u32.shr7 %r4, %r1, %r2, %r3;", 0xffffffff, 1, 0x7fffffff, 0x00ffffff},
      // .sat with unsigned operands: a negative sum clamps to 0 without a shift, but a shifted
      // negative value saturates to 0xffffffff (as the H100 computes it)
      {"vmad.u32.u32.u32.sat %r4, %r1, %r2, %r3;", 0, 40, 0xffffffff, 0},
      {"vmad.u32.u32.u32.sat.shr7 %r4, %r1.b0, %r2.b0, %r3;", 0, 40, 0xffffffff, 0xffffffff},
      {"vmad.s32.u32.u32.sat %r4, %r1, %r2, %r3;", 0x7fffffff, 0x7fffffff, 0, 0xffffffff},
  });
}

TEST(ExecVideo, SimdHalfwords) {
  runCases({
      {"vadd2.u32.u32.u32 %r4, %r1, %r2, %r3;", 0x0001ffff, 0x00020003, 0, 0x00030002},
      {"vadd2.u32.u32.u32.sat %r4, %r1, %r2, %r3;", 0x0001ffff, 0x00020003, 0, 0x0003ffff},
      {"vadd2.s32.s32.s32.sat %r4, %r1, %r2, %r3;", 0x7fff8000, 0x0001ffff, 0, 0x7fff8000},
      // mask: only halfword 1 is written, halfword 0 from c
      {"vadd2.u32.u32.u32 %r4.h1, %r1, %r2, %r3;", 0x00010001, 0x00020002, 0xaaaabbbb, 0x0003bbbb},
      {"vadd2.u32.u32.u32 %r4.h0, %r1, %r2, %r3;", 0x00010001, 0x00020002, 0xaaaabbbb, 0xaaaa0003},
      // selectors: element 1 from the first digit, element 0 from the second
      {"vsub2.s32.s32.s32 %r4, %r1.h01, %r2.h23, %r3;", 0x00050009, 0x00010002, 0, 0x00070004},
      {"vmax2.u32.u32.u32 %r4, %r1.h32, %r2.h10, %r3;", 0x00100001, 0x00030004, 0, 0x00100004},
      {"vavrg2.s32.s32.s32 %r4, %r1, %r2, %r3;", 0x0003fffd, 0x00020000, 0, 0x0003fffe},
      {"vavrg2.u32.u32.u32 %r4, %r1, %r2, %r3;", 0xffff0001, 0xffff0002, 0, 0xffff0002},
      {"vabsdiff2.s32.s32.s32.add %r4, %r1, %r2, %r3;", 0x00050001, 0x00010005, 100, 108},
      {"vmin2.s32.s32.s32.add %r4, %r1, %r2, %r3;", 0xfffe0003, 0x00050001, 10, 9},
      {"vmin2.s32.s32.s32.add %r4.h1, %r1, %r2, %r3;", 0xfffe0003, 0x00050001, 10, 8},
      {"vmin2.u32.u32.u32 %r4, %r1, %r2, %r3;", 0xfffe0003, 0x00050001, 0, 0x00050001},
      {"vsub2.u32.s32.u32.sat %r4, %r1, %r2, %r3;", 0xfffe0009, 0x00010002, 0, 0x00000007},
      {"vset2.u32.u32.lt %r4, %r1, %r2, %r3;", 0x00010005, 0x00020005, 0, 0x00010000},
      {"vset2.s32.s32.lt.add %r4, %r1, %r2, %r3;", 0xffff0005, 0x00000006, 40, 42},
      {"vset2.u32.u32.lt %r4, %r1, %r2, %r3;", 0xffff0005, 0x00000006, 0, 0x00000001},
      {"vset2.u32.u32.ne %r4.h0, %r1, %r2, %r3;", 1, 2, 0x12345678, 0x12340001},
  });
}

TEST(ExecVideo, SimdBytes) {
  runCases({
      {"vadd4.u32.u32.u32 %r4, %r1, %r2, %r3;", 0x01020304, 0x10ff2030, 0, 0x11012334},
      {"vadd4.u32.u32.u32.sat %r4, %r1, %r2, %r3;", 0x01020304, 0x10ff2030, 0, 0x11ff2334},
      {"vadd4.s32.s32.s32.sat %r4, %r1, %r2, %r3;", 0x7f80017f, 0x01ff01ff, 0, 0x7f80027e},
      {"vsub4.u32.u32.u32 %r4.b31, %r1, %r2, %r3;", 0x05050505, 0x01020304, 0xaabbccdd, 0x04bb02dd},
      {"vmax4.u32.u32.u32 %r4, %r1.b0123, %r2.b7777, %r3;", 0x01020304, 0x02000000, 0, 0x04030202},
      {"vavrg4.u32.u32.u32 %r4, %r1, %r2, %r3;", 0x01ff0300, 0x02ff0401, 0, 0x02ff0401},
      {"vavrg4.s32.s32.s32 %r4, %r1, %r2, %r3;", 0x00fd0000, 0x00000000, 0, 0x00fe0000},
      {"vabsdiff4.u32.u32.u32.add %r4, %r1, %r2, %r3;", 0x0a000510, 0x000a0a01, 2, 42},
      {"vset4.s32.s32.gt %r4, %r1, %r2, %r3;", 0x80017f00, 0, 0, 0x00010100},
      {"vset4.u32.u32.gt.add %r4.b30, %r1, %r2, %r3;", 0x80017f00, 0, 5, 6},
      {"vmin4.s32.s32.u32 %r4, %r1, %r2, %r3;", 0xff00ff00, 0x01ff0102, 0, 0xff00ff00},
      {"vsub4.s32.s32.s32.add %r4, %r1, %r2, %r3;", 0x00000001, 0x01010101, 0, 0xfffffffd},
      {"vadd4.u32.u32.u32 %r4.b0, %r1.b4444, %r2.b0000, %r3;", 0x00000003, 0x00000004, 0xffffff00, 0xffffff07},
  });
}

TEST(ExecVideo, LanesAreIndependentAndGuarded) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_80") + R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.lo.u32 %r2, %r1, 0x01010101;
  mov.u32 %r4, 7;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 vadd4.u32.u32.u32.sat %r4, %r2, 0xf0f0f0f0, %r4;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
})")) << h.errors;
  auto v = h.runOneWarp("k");
  ASSERT_EQ(v.size(), 32u);
  for (uint32_t l = 0; l < 32; ++l) {
    uint32_t b = l + 0xf0 > 0xff ? 0xff : l + 0xf0;
    EXPECT_EQ(v[l], l < 16 ? b * 0x01010101u : 7u) << "lane " << l;
  }
}

} // namespace

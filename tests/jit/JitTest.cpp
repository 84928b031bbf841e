// The LLVM JIT (ptx/jit) against the interpreter: every test runs its kernels with
// PTXSIM_JIT=diff, so each launch runs in both engines and fails on the first difference in
// global memory, result or fault message; the tests also check that the JIT compiled the
// instructions natively (not only as handler calls), so they cannot pass on the interpreter
// alone.

#include "../unit/ExecHarness.h"
#include "ptx/jit/JitOps.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>

namespace ptxsim::test {
namespace {

/// An engine in differential mode (the mode is read when the engine is made).
struct DiffHarness : ExecHarness {
  static unsigned setMode() {
    setenv("PTXSIM_JIT", "diff", 1);
    setenv("PTXSIM_JIT_CACHE", "off", 1); // these tests compile (JitCacheTest.cpp covers the cache)
    return 1;
  }
  explicit DiffHarness(ptx::exec::SimtMode simt = ptx::exec::SimtMode::Auto)
      : ExecHarness(setMode(), simt) {}
};

uint64_t nativeSoFar() {
  ptx::jit::Stats &s = ptx::jit::stats();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.nativeInsts;
}
uint64_t mismatchesSoFar() {
  ptx::jit::Stats &s = ptx::jit::stats();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.diffMismatches;
}

uint64_t inRangesSoFar() {
  ptx::jit::Stats &s = ptx::jit::stats();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.functionsInRanges;
}

uint64_t stackChangesSoFar() {
  ptx::jit::Stats &s = ptx::jit::stats();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.stackChanges;
}

/// Sets PTXSIM_JIT_RANGE_INSTS (read at every compile) for the scope.
struct RangeInsts {
  explicit RangeInsts(unsigned n) { setenv("PTXSIM_JIT_RANGE_INSTS", std::to_string(n).c_str(), 1); }
  ~RangeInsts() { unsetenv("PTXSIM_JIT_RANGE_INSTS"); }
};

#define REQUIRE_JIT()                                                                              \
  do {                                                                                             \
    std::string why_;                                                                              \
    if (!ptx::jit::backend(why_))                                                                  \
      GTEST_SKIP() << why_;                                                                        \
  } while (0)

// Without the JIT (a build with -DPTXSIM_JIT=OFF, or the module missing) PTXSIM_JIT=on runs the
// kernel interpreted with the interpreter's result, and the run summary names the reason.
TEST(Jit, UnavailableRunsInterpretedAndSaysWhy) {
  std::string why;
  if (ptx::jit::backend(why))
    GTEST_SKIP() << "this build has the JIT";
  EXPECT_TRUE(why.find("built without LLVM") != std::string::npos ||
              why.find("cannot load the JIT module") != std::string::npos) << why;
  setenv("PTXSIM_JIT", "on", 1);
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<2>; .reg .b64 %rd<4>;
  ld.param.u64 %rd0, [out];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd1, %r0, 4;
  add.s64 %rd2, %rd0, %rd1;
  st.global.u32 [%rd2], %r0;
  ret;
})")) << h.errors;
  std::vector<uint32_t> v = h.runOneWarp("k");
  ASSERT_EQ(v.size(), 32u);
  EXPECT_EQ(v[31], 31u);
  const std::string summary = ptx::jit::summaryText();
  EXPECT_NE(summary.find("jit fallback: kernel 'k': " + why), std::string::npos) << summary;
}

TEST(Jit, ModeParsing) {
  ptx::jit::Mode m;
  std::string err;
  EXPECT_TRUE(ptx::jit::parseMode("on", m, err));
  EXPECT_EQ(m, ptx::jit::Mode::On);
  EXPECT_TRUE(ptx::jit::parseMode("diff", m, err));
  EXPECT_EQ(m, ptx::jit::Mode::Diff);
  EXPECT_TRUE(ptx::jit::parseMode("auto", m, err));
  EXPECT_EQ(m, ptx::jit::Mode::Auto);
  EXPECT_TRUE(ptx::jit::parseMode("off", m, err));
  EXPECT_EQ(m, ptx::jit::Mode::Off);
  EXPECT_TRUE(ptx::jit::parseMode(nullptr, m, err)); // the default
  EXPECT_EQ(m, ptx::jit::Mode::Auto);
  EXPECT_TRUE(ptx::jit::parseMode("", m, err));
  EXPECT_EQ(m, ptx::jit::Mode::Auto);
  EXPECT_FALSE(ptx::jit::parseMode("fast", m, err));
  EXPECT_NE(err.find("'fast'"), std::string::npos);
}

// Integer corner cases lane by lane: shifts by 0..63 (amounts >= the width), signed and
// unsigned min/max, 16-bit wrap-around, mul.wide of negative values, setp with a boolean
// operation and two destinations, selp, all under a lane-dependent guard.
TEST(Jit, IntegerOpsMatchInterpreter) {
  REQUIRE_JIT();
  DiffHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<16>; .reg .b64 %rd<12>; .reg .pred %p<6>; .reg .b16 %h<4>;
  ld.param.u64 %rd0, [out];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd1, %r0, 64;
  add.s64 %rd0, %rd0, %rd1;
  mul.lo.s32 %r1, %r0, -123457;
  xor.b32 %r2, %r1, 0x5a5a5a5a;
  shl.b32 %r3, %r2, %r0;
  shr.s32 %r4, %r1, %r0;
  shr.u32 %r5, %r1, %r0;
  min.s32 %r6, %r1, %r2;
  max.u32 %r7, %r1, %r2;
  mad.lo.s32 %r8, %r1, %r2, %r3;
  setp.lt.s32.and %p1|%p2, %r1, %r2, %p0;
  setp.gt.u32 %p0, %r0, 9;
  @%p0 sub.s32 %r9, %r8, %r7;
  @!%p0 not.b32 %r9, %r8;
  selp.b32 %r10, %r4, %r5, %p0;
  mul.wide.s32 %rd2, %r1, %r2;
  cvt.u64.u32 %rd3, %r0;
  add.s64 %rd3, %rd3, 40;
  cvt.u32.u64 %r11, %rd3;
  shl.b64 %rd4, %rd2, %r11;
  shr.s64 %rd5, %rd2, %r11;
  min.s64 %rd6, %rd2, %rd4;
  max.u64 %rd7, %rd2, %rd5;
  cvt.u16.u32 %h0, %r1;
  add.s16 %h1, %h0, 0x7fff;
  mul.lo.u16 %h2, %h1, %h0;
  cvt.s32.s16 %r12, %h2;
  selp.u32 %r13, 1, 0, %p1;
  selp.u32 %r14, 2, 0, %p2;
  add.u32 %r13, %r13, %r14;
  st.global.v4.u32 [%rd0], {%r3, %r4, %r5, %r6};
  st.global.v4.u32 [%rd0+16], {%r7, %r9, %r10, %r12};
  st.global.v2.u64 [%rd0+32], {%rd2, %rd4};
  st.global.v2.u64 [%rd0+48], {%rd6, %rd7};
  st.global.u32 [%rd0+60], %r13;
  ret;
})")) << h.errors;
  const uint64_t before = nativeSoFar();
  uint64_t out = h.alloc(48 * 64);
  auto r = h.launch("k", {2}, {48}, {out}); // a partial second warp
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_GT(nativeSoFar(), before + 20); // most of the kernel is native code
  // shr.s32 of a negative value by 31 or more is the sign fill, shl by >= 32 is zero
  auto v = h.read<uint32_t>(out, 48 * 16);
  EXPECT_EQ(v[33 * 16 + 0], 0u);
  EXPECT_EQ(v[33 * 16 + 1], (int32_t)(33 * -123457) < 0 ? 0xffffffffu : 0u);
}

// f32/f64 add, sub, mul and fma round to nearest: NaN payloads become the canonical NaN, and
// infinities, signed zeros and subnormals keep the interpreter's bits.
TEST(Jit, FloatOpsMatchInterpreter) {
  REQUIRE_JIT();
  DiffHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 in, .param .u64 out) {
  .reg .b32 %r<4>; .reg .b64 %rd<8>; .reg .f32 %f<12>; .reg .f64 %fd<8>;
  ld.param.u64 %rd0, [in];
  ld.param.u64 %rd1, [out];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd2, %r0, 4;
  add.s64 %rd3, %rd0, %rd2;
  ld.global.f32 %f0, [%rd3];
  ld.global.f32 %f1, [%rd3+4];
  ld.global.f32 %f2, [%rd3+8];
  add.rn.f32 %f3, %f0, %f1;
  sub.rn.f32 %f4, %f1, %f2;
  mul.rn.f32 %f5, %f0, %f2;
  fma.rn.f32 %f6, %f0, %f1, %f2;
  mul.f32 %f7, %f3, %f4;
  add.f32 %f8, %f7, %f5;
  cvt.f64.f32 %fd0, %f0;
  cvt.f64.f32 %fd1, %f1;
  fma.rn.f64 %fd2, %fd0, %fd1, %fd0;
  mul.rn.f64 %fd3, %fd2, %fd1;
  sub.rn.f64 %fd4, %fd3, %fd0;
  div.rn.f32 %f9, %f6, %f1;
  mul.wide.u32 %rd4, %r0, 48;
  add.s64 %rd5, %rd1, %rd4;
  st.global.v4.f32 [%rd5], {%f3, %f4, %f5, %f6};
  st.global.v2.f32 [%rd5+16], {%f8, %f9};
  st.global.f64 [%rd5+24], %fd4;
  ret;
})")) << h.errors;
  const uint32_t special[] = {0x7fc00001u, 0xffc12345u, 0x7f800000u, 0xff800000u, 0x00000001u,
                              0x80000001u, 0x00000000u, 0x80000000u, 0x3f800000u, 0x7f7fffffu,
                              0x00800000u, 0xbf800001u};
  std::vector<uint32_t> in(64 + 2);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = special[(i * 7 + i / 12) % 12] ^ (i % 3 == 0 ? 0u : (uint32_t)i);
  uint64_t din = h.upload(in), out = h.alloc(64 * 48);
  const uint64_t before = nativeSoFar();
  auto r = h.launch("k", {1}, {64}, {din, out});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_GT(nativeSoFar(), before + 8);
  // lane 0: NaN payload 0x7fc00001 + x is the canonical NaN
  EXPECT_EQ(h.read<uint32_t>(out, 1)[0], 0x7fffffffu);
}

// Divergent code: blocks run with partial active masks on both paths of a branch and in a loop
// whose trip count differs by lane; a fault inside a compiled block reports the interpreter's
// message (diff mode compares them).
TEST(Jit, DivergenceAndFaultsMatchInterpreter) {
  REQUIRE_JIT();
  DiffHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 out, .param .u64 bad) {
  .reg .b32 %r<8>; .reg .b64 %rd<6>; .reg .pred %p<3>;
  ld.param.u64 %rd0, [out];
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, 0;
  mov.u32 %r2, 7;
  and.b32 %r3, %r0, 3;
  setp.eq.u32 %p0, %r3, 1;
  @%p0 bra ODD;
  mul.lo.u32 %r2, %r0, 3;
  add.u32 %r2, %r2, 11;
  bra JOIN;
ODD:
  xor.b32 %r2, %r0, 0x33;
  shl.b32 %r2, %r2, 2;
JOIN:
  add.u32 %r1, %r1, %r2;
  mad.lo.u32 %r2, %r2, 1664525, 1013904223;
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, %r0;
  @%p1 bra JOIN;
  mul.wide.u32 %rd1, %r0, 4;
  add.s64 %rd2, %rd0, %rd1;
  st.global.u32 [%rd2], %r1;
  setp.eq.u32 %p2, %r0, 45;
  ld.param.u64 %rd3, [bad];
  @!%p2 bra DONE;
  add.s64 %rd4, %rd3, %rd1;
  ld.global.u32 %r4, [%rd4];
  st.global.u32 [%rd2], %r4;
DONE:
  ret;
})")) << h.errors;
  uint64_t out = h.alloc(64 * 4);
  auto ok = h.launch("k", {1}, {64}, {out, out});
  ASSERT_TRUE(ok.ok()) << ok.message;
  const uint64_t mism = mismatchesSoFar();
  auto bad = h.launch("k", {1}, {64}, {out, 0x10}); // lane 45 loads from an unmapped address
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.message.find("PTXSIM_JIT=diff"), std::string::npos) << bad.message;
  EXPECT_NE(bad.message.find("thread (45,0,0)"), std::string::npos) << bad.message;
  EXPECT_EQ(mismatchesSoFar(), mism);
}

// Divergent branches and reconvergence run in compiled code (jitDiverge, jitReconverge): a loop
// whose lanes leave at different iterations (the test at its top, a per-lane trip count, and a
// break for some lanes), a `continue`, if/else nested two deep inside it (lanes split and rejoin
// at different depths), shfl.sync and vote.sync inside the divergent body with the active lanes
// as members (source lanes outside them), a partial last warp, and a load past an allocation in a
// divergent path (the interpreter's fault message, thread 5). Under IPDOM and ITS, and in pc
// ranges of 8 (a jump into another range after the lanes changed leaves for the interpreter).
// Diff mode: memory, results, fault messages and thread-instruction counts as the interpreter's.
TEST(Jit, DivergenceStaysInCompiledCodeAndMatchesInterpreter) {
  REQUIRE_JIT();
  const std::string ptx = ptxHeader() + R"(
.visible .entry k(.param .u64 out, .param .u64 bad) {
  .reg .b32 %r<16>; .reg .b64 %rd<6>; .reg .pred %p<8>;
  ld.param.u64 %rd0, [out];
  ld.param.u64 %rd5, [bad];
  mov.u32 %r0, %tid.x;
  and.b32 %r1, %r0, 31;
  setp.ne.u32 %p3, %r1, %r1;
  mov.u32 %r2, 0;
  mov.u32 %r3, 0;
  mul.lo.u32 %r4, %r1, 7;
  and.b32 %r4, %r4, 15;
OUTER:
  setp.ge.u32 %p0, %r2, %r4;
  @%p0 bra OUTDONE;
  and.b32 %r5, %r2, 3;
  setp.eq.u32 %p1, %r5, 2;
  @%p1 bra CONT;
  setp.eq.u32 %p2, %r5, 1;
  @%p2 bra ODD;
  mad.lo.u32 %r3, %r3, 3, %r2;
  and.b32 %r6, %r1, 1;
  setp.eq.u32 %p3, %r6, 0;
  @%p3 bra EVENL;
  xor.b32 %r3, %r3, %r1;
  and.b32 %r6, %r1, 2;
  setp.eq.u32 %p5, %r6, 0;
  @%p5 bra JOIN2;
  add.u32 %r3, %r3, 9;
  bra JOIN2;
EVENL:
  add.u32 %r3, %r3, 5;
JOIN2:
  bra NEXT;
ODD:
  shr.u32 %r7, %r3, 1;
  add.u32 %r3, %r7, %r1;
  setp.gt.u32 %p4, %r3, 60;
  @%p4 bra OUTDONE;
NEXT:
  activemask.b32 %r8;
  shfl.sync.bfly.b32 %r9, %r3, 1, 31, %r8;
  vote.sync.ballot.b32 %r10, %p3, %r8;
  add.u32 %r3, %r3, %r9;
  xor.b32 %r3, %r3, %r10;
CONT:
  add.u32 %r2, %r2, 1;
  bra OUTER;
OUTDONE:
  mul.wide.u32 %rd1, %r0, 4;
  add.s64 %rd2, %rd0, %rd1;
  st.global.u32 [%rd2], %r3;
  and.b32 %r11, %r0, 7;
  setp.eq.u32 %p6, %r11, 5;
  @!%p6 bra DONE;
  add.s64 %rd3, %rd5, %rd1;
  ld.global.u32 %r12, [%rd3];
  add.u32 %r12, %r12, %r3;
  st.global.u32 [%rd2], %r12;
DONE:
  ret;
})";
  for (unsigned ranges : {0u, 8u})
    for (auto simt : {ptx::exec::SimtMode::Ipdom, ptx::exec::SimtMode::Its}) {
      SCOPED_TRACE(std::string(simt == ptx::exec::SimtMode::Its ? "its" : "ipdom") + " ranges " +
                   std::to_string(ranges));
      std::unique_ptr<RangeInsts> r;
      if (ranges)
        r = std::make_unique<RangeInsts>(ranges);
      DiffHarness h(simt);
      ASSERT_TRUE(h.load(ptx)) << h.errors;
      const uint64_t mism = mismatchesSoFar(), changes = stackChangesSoFar(), native = nativeSoFar();
      uint64_t out = h.alloc(2 * 48 * 4), src = h.alloc(2 * 48 * 4);
      auto ok = h.launch("k", {2}, {48}, {out, src});
      ASSERT_TRUE(ok.ok()) << ok.message;
      EXPECT_GT(nativeSoFar(), native);
      EXPECT_GT(stackChangesSoFar(), changes); // the divergence ran in compiled code
      auto bad = h.launch("k", {2}, {48}, {out, 0x10}); // thread 5 loads from an unmapped address
      EXPECT_FALSE(bad.ok());
      EXPECT_EQ(bad.message.find("PTXSIM_JIT=diff"), std::string::npos) << bad.message;
      EXPECT_NE(bad.message.find("thread (5,0,0)"), std::string::npos) << bad.message;
      EXPECT_EQ(mismatchesSoFar(), mism);
    }
}

// A function larger than one pc range (PTXSIM_JIT_RANGE_INSTS=8 here, 256 by default) is
// compiled in ranges, each its own LLVM function: a uniform loop whose body spans three ranges,
// a divergent branch into a later range and a per-lane loop back across ranges, a call from a
// later range into a function that is itself in ranges, and a fault in the last range, which
// must carry the interpreter's message.
TEST(Jit, LargeFunctionsInRangesMatchInterpreter) {
  REQUIRE_JIT();
  RangeInsts ranges(8);
  DiffHarness h;
  const std::string text = ptxHeader() + R"(
.func (.reg .b32 r) mix(.reg .b32 a, .reg .b32 b) {
  .reg .b32 %t<4>; .reg .pred %q;
  mul.lo.u32 %t0, a, 2654435761;
  xor.b32 %t1, %t0, b;
  shl.b32 %t2, %t1, 5;
  add.u32 %t3, %t2, %t0;
  setp.lt.u32 %q, a, 7;
  @%q bra SMALL;
  sub.u32 %t3, %t3, b;
  mul.lo.u32 %t3, %t3, 3;
  xor.b32 %t3, %t3, 0x1234;
  add.u32 %t3, %t3, a;
SMALL:
  and.b32 %t3, %t3, 0x7fffffff;
  mov.u32 r, %t3;
  ret;
}
.visible .entry k(.param .u64 out, .param .u64 bad) {
  .reg .b32 %r<10>; .reg .b64 %rd<6>; .reg .pred %p<4>;
  ld.param.u64 %rd0, [out];
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, 0;
  mov.u32 %r2, 5;
  mov.u32 %r3, 0;
LOOP:
  mad.lo.u32 %r1, %r1, 31, %r2;
  xor.b32 %r1, %r1, %r0;
  add.u32 %r4, %r1, 17;
  shl.b32 %r5, %r4, 3;
  shr.u32 %r6, %r4, 2;
  or.b32 %r5, %r5, %r6;
  add.u32 %r1, %r1, %r5;
  mul.lo.u32 %r6, %r5, 7;
  sub.u32 %r1, %r1, %r6;
  and.b32 %r7, %r1, 0xffff;
  add.u32 %r3, %r3, %r7;
  min.u32 %r8, %r3, %r1;
  max.u32 %r9, %r3, %r8;
  add.u32 %r1, %r1, %r9;
  sub.u32 %r2, %r2, 1;
  setp.ne.u32 %p0, %r2, 0;
  @%p0 bra LOOP;
  and.b32 %r4, %r0, 3;
  setp.eq.u32 %p1, %r4, 2;
  @%p1 bra FAR;
  add.u32 %r1, %r1, 99;
  xor.b32 %r3, %r3, %r1;
  mul.lo.u32 %r3, %r3, 5;
  add.u32 %r3, %r3, %r0;
  shl.b32 %r5, %r3, 1;
  add.u32 %r1, %r1, %r5;
  sub.u32 %r3, %r3, 3;
  or.b32 %r1, %r1, 1;
FAR:
  add.u32 %r1, %r1, %r3;
  and.b32 %r4, %r0, 7;
BACK:
  mad.lo.u32 %r1, %r1, 1664525, 1013904223;
  xor.b32 %r6, %r1, %r4;
  add.u32 %r3, %r3, %r6;
  shr.u32 %r7, %r3, 4;
  add.u32 %r1, %r1, %r7;
  sub.u32 %r5, %r1, %r3;
  xor.b32 %r1, %r1, %r5;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p2, %r4, 12;
  @%p2 bra BACK;
  call.uni (%r8), mix, (%r1, %r3);
  add.u32 %r1, %r1, %r8;
  mul.wide.u32 %rd1, %r0, 4;
  add.s64 %rd2, %rd0, %rd1;
  st.global.u32 [%rd2], %r1;
  setp.eq.u32 %p3, %r0, 45;
  ld.param.u64 %rd3, [bad];
  @!%p3 bra DONE;
  add.s64 %rd4, %rd3, %rd1;
  ld.global.u32 %r9, [%rd4];
  st.global.u32 [%rd2], %r9;
DONE:
  ret;
})";
  ASSERT_TRUE(h.load(text)) << h.errors;
  const uint64_t native = nativeSoFar(), split = inRangesSoFar(), mism = mismatchesSoFar();
  uint64_t out = h.alloc(64 * 4);
  auto ok = h.launch("k", {1}, {64}, {out, out});
  ASSERT_TRUE(ok.ok()) << ok.message;
  EXPECT_GT(nativeSoFar(), native + 40);
  EXPECT_EQ(inRangesSoFar(), split + 2); // the kernel and mix, both in more than one range
  auto bad = h.launch("k", {1}, {64}, {out, 0x10}); // lane 45 loads from an unmapped address
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.message.find("PTXSIM_JIT=diff"), std::string::npos) << bad.message;
  EXPECT_NE(bad.message.find("thread (45,0,0)"), std::string::npos) << bad.message;
  // the faulting load's source line
  const size_t at = text.find("ld.global.u32 %r9");
  const std::string line = "test.ptx:" + std::to_string(1 + std::count(text.begin(), text.begin() + at, '\n')) + ":";
  EXPECT_NE(bad.message.find(line), std::string::npos) << bad.message;
  EXPECT_EQ(mismatchesSoFar(), mism);
}

// ld/st's inline fast path (coalesced full warps inside a recently checked allocation) and its
// slow path (a partial warp, swapped lanes, an access crossing the allocation's end that faults
// with the interpreter's message), over 16-, 32- and 64-bit elements in a loop.
TEST(Jit, MemoryFastPathMatchesInterpreter) {
  REQUIRE_JIT();
  DiffHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 in, .param .u64 out, .param .u64 n, .param .u64 shift) {
  .reg .b32 %r<10>; .reg .b64 %rd<18>; .reg .b16 %h<2>; .reg .pred %p<2>;
  ld.param.u64 %rd0, [in];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd16, [n];
  ld.param.u64 %rd17, [shift];
  cvt.u32.u64 %r0, %rd16;
  cvt.u32.u64 %r1, %rd17;
  mov.u32 %r2, %tid.x;
LOOP:
  add.u32 %r3, %r2, %r1;
  mul.wide.u32 %rd2, %r3, 4;
  add.s64 %rd3, %rd0, %rd2;
  ld.global.u32 %r4, [%rd3];
  ld.global.s32 %r5, [%rd3+4];
  xor.b64 %rd4, %rd2, 4;
  add.s64 %rd5, %rd0, %rd4;
  ld.global.u32 %r6, [%rd5];
  mul.wide.u32 %rd6, %r3, 8;
  add.s64 %rd7, %rd0, %rd6;
  ld.global.u64 %rd8, [%rd7];
  mul.wide.u32 %rd9, %r3, 2;
  add.s64 %rd10, %rd0, %rd9;
  ld.global.s16 %h0, [%rd10+2];
  cvt.s32.s16 %r7, %h0;
  add.u32 %r4, %r4, %r6;
  xor.b32 %r5, %r5, %r7;
  mul.wide.u32 %rd11, %r2, 4;
  add.s64 %rd12, %rd1, %rd11;
  st.global.u32 [%rd12], %r4;
  st.global.u32 [%rd12+1024], %r5;
  mul.wide.u32 %rd13, %r2, 8;
  add.s64 %rd14, %rd1, %rd13;
  add.s64 %rd8, %rd8, %rd6;
  st.global.u64 [%rd14+2048], %rd8;
  cvt.u16.u32 %h1, %r4;
  mul.wide.u32 %rd15, %r2, 2;
  add.s64 %rd15, %rd1, %rd15;
  st.global.u16 [%rd15+4096], %h1;
  add.u32 %r2, %r2, 40;
  setp.lt.u32 %p0, %r2, %r0;
  @%p0 bra LOOP;
  ret;
})")) << h.errors;
  std::vector<uint32_t> init(1024);
  for (size_t i = 0; i < init.size(); ++i)
    init[i] = (uint32_t)(i * 2654435761u);
  uint64_t out = h.alloc(8192), in = h.upload(init); // `in` last: nothing mapped after it
  const uint64_t mism = mismatchesSoFar(), native = nativeSoFar();
  auto ok = h.launch("k", {1}, {40}, {in, out, 200, 3});
  ASSERT_TRUE(ok.ok()) << ok.message;
  EXPECT_GT(nativeSoFar(), native);
  // at i = 400.. the 64-bit loads of lanes 12.. cross the end of `in` (4 KiB) into the launch's
  // 48-byte parameter buffer, which lane 18 leaves
  auto bad = h.launch("k", {1}, {40}, {in, out, 480, 100});
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.message.find("PTXSIM_JIT=diff"), std::string::npos) << bad.message;
  EXPECT_NE(bad.message.find("thread (18,0,0)"), std::string::npos) << bad.message;
  EXPECT_EQ(mismatchesSoFar(), mism);
}

// The inline ld/st path tries ExecCtx::recentAllocs one slot after another: a loop over five
// arrays (one more than the slots, so the slots keep changing and some accesses find theirs in
// the second, third or fourth slot or in none, taking the handler), whose loaded values are
// used later in the same block (the slow path's destination read back for the rest of the
// block), a partial last warp (the handler for every access) and accesses past the arrays'
// ends (the interpreter's fault message).
TEST(Jit, MemoryFastPathTriesEveryRecentAllocation) {
  REQUIRE_JIT();
  DiffHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 d, .param .u64 e,
                  .param .u64 out, .param .u64 iters) {
  .reg .b32 %r<12>; .reg .b64 %rd<16>; .reg .pred %p<2>;
  ld.param.u64 %rd0, [a]; ld.param.u64 %rd1, [b]; ld.param.u64 %rd2, [c];
  ld.param.u64 %rd3, [d]; ld.param.u64 %rd4, [e]; ld.param.u64 %rd5, [out];
  ld.param.u64 %rd6, [iters];
  cvt.u32.u64 %r10, %rd6;
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd7, %r0, 4;
  mov.u32 %r1, 0;
  mov.u32 %r11, 0;
LOOP:
  add.s64 %rd8, %rd0, %rd7;
  ld.global.u32 %r2, [%rd8];
  add.s64 %rd9, %rd1, %rd7;
  ld.global.u32 %r3, [%rd9];
  add.u32 %r1, %r1, %r2;
  add.s64 %rd10, %rd2, %rd7;
  ld.global.u32 %r4, [%rd10];
  add.s64 %rd11, %rd3, %rd7;
  ld.global.u32 %r5, [%rd11];
  add.s64 %rd12, %rd4, %rd7;
  ld.global.u32 %r6, [%rd12];
  mul.lo.u32 %r3, %r3, 3;
  add.u32 %r1, %r1, %r3;
  xor.b32 %r1, %r1, %r4;
  add.u32 %r1, %r1, %r5;
  mad.lo.u32 %r1, %r6, 5, %r1;
  add.s64 %rd13, %rd5, %rd7;
  st.global.u32 [%rd13], %r1;
  add.u32 %r11, %r11, 1;
  setp.lt.u32 %p0, %r11, %r10;
  @%p0 bra LOOP;
  ret;
})")) << h.errors;
  const unsigned n = 96;
  std::vector<std::vector<uint32_t>> in(5, std::vector<uint32_t>(n));
  for (unsigned j = 0; j < 5; ++j)
    for (unsigned i = 0; i < n; ++i)
      in[j][i] = (i + 1) * 2654435761u + j * 40503u;
  uint64_t dev[5];
  for (unsigned j = 0; j < 5; ++j)
    dev[j] = h.upload(in[j]);
  const uint64_t out = h.alloc(n * 4);
  auto expect = [&](unsigned i, unsigned iters) {
    uint32_t r = 0;
    for (unsigned t = 0; t < iters; ++t) {
      r += in[0][i];
      r += in[1][i] * 3;
      r ^= in[2][i];
      r += in[3][i];
      r += in[4][i] * 5;
    }
    return r;
  };
  const uint64_t mism = mismatchesSoFar(), native = nativeSoFar();
  for (unsigned threads : {96u, 80u}) { // whole warps, then a partial last warp
    auto r = h.launch("k", {1}, {threads}, {dev[0], dev[1], dev[2], dev[3], dev[4], out, 7});
    ASSERT_TRUE(r.ok()) << r.message;
    std::vector<uint32_t> v = h.read<uint32_t>(out, threads);
    for (unsigned i = 0; i < threads; ++i)
      ASSERT_EQ(v[i], expect(i, 7)) << "thread " << i << " of " << threads;
  }
  EXPECT_GT(nativeSoFar(), native);
  // 128 threads: lanes 96.. access past the ends of the 96-word arrays (a fault, with the
  // interpreter's message, not a difference)
  auto bad = h.launch("k", {1}, {128}, {dev[0], dev[1], dev[2], dev[3], dev[4], out, 1});
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.message.find("PTXSIM_JIT=diff"), std::string::npos) << bad.message;
  EXPECT_EQ(mismatchesSoFar(), mism);
}

// What every kernel's first instructions do, as vector code: ld.param of each width (one scalar
// load; sign-extended, in a divergent branch's lanes, under a guard, in a partial warp), the
// special registers %tid/%ntid/%ctaid/%nctaid/%laneid in every component, cvta to and from the
// global window (64- and 32-bit) beside the forms that stay handler calls (cvta of the shared
// window, %clock), and ld.param faults: misaligned and past the parameter buffer's end, with the
// interpreter's messages. Every value is also checked against the CUDA semantics computed here.
TEST(Jit, KernelStartInstructionsMatchInterpreter) {
  REQUIRE_JIT();
  DiffHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 out, .param .s16 sh, .param .u16 uh, .param .s32 si, .param .f32 fv,
                  .param .u64 big) {
  .reg .b32 %r<48>; .reg .b64 %rd<16>; .reg .b16 %h<4>; .reg .pred %p<4>; .reg .f32 %f<2>;
  .shared .align 4 .b32 sm[4];
  ld.param.u64 %rd0, [out];
  cvta.to.global.u64 %rd1, %rd0;
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %tid.y;
  mov.u32 %r2, %tid.z;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %ntid.y;
  mov.u32 %r5, %ntid.z;
  mov.u32 %r6, %ctaid.x;
  mov.u32 %r7, %ctaid.y;
  mov.u32 %r8, %ctaid.z;
  mov.u32 %r9, %nctaid.x;
  mov.u32 %r10, %nctaid.y;
  mov.u32 %r11, %nctaid.z;
  mov.u32 %r12, %laneid;
  mad.lo.u32 %r20, %r2, %r4, %r1;
  mad.lo.u32 %r20, %r20, %r3, %r0;
  mad.lo.u32 %r21, %r8, %r10, %r7;
  mad.lo.u32 %r21, %r21, %r9, %r6;
  mul.lo.u32 %r22, %r3, %r4;
  mul.lo.u32 %r22, %r22, %r5;
  mad.lo.u32 %r23, %r21, %r22, %r20;
  mul.wide.u32 %rd2, %r23, 96;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r0;
  st.global.u32 [%rd3+4], %r1;
  st.global.u32 [%rd3+8], %r2;
  st.global.u32 [%rd3+12], %r3;
  st.global.u32 [%rd3+16], %r4;
  st.global.u32 [%rd3+20], %r5;
  st.global.u32 [%rd3+24], %r6;
  st.global.u32 [%rd3+28], %r7;
  st.global.u32 [%rd3+32], %r8;
  st.global.u32 [%rd3+36], %r9;
  st.global.u32 [%rd3+40], %r10;
  st.global.u32 [%rd3+44], %r11;
  st.global.u32 [%rd3+48], %r12;
  mov.u16 %h0, 4660;
  and.b32 %r24, %r12, 1;
  setp.eq.u32 %p0, %r24, 1;
  @%p0 ld.param.s16 %h0, [sh];
  ld.param.u16 %h1, [uh];
  cvt.s32.s16 %r25, %h0;
  cvt.u32.u16 %r26, %h1;
  ld.param.s32 %r27, [si];
  ld.param.f32 %f0, [fv];
  add.f32 %f1, %f0, 0f3F800000;
  mov.b32 %r28, %f1;
  st.global.u32 [%rd3+52], %r25;
  st.global.u32 [%rd3+56], %r26;
  st.global.u32 [%rd3+60], %r27;
  st.global.u32 [%rd3+64], %r28;
  setp.lt.u32 %p1, %r0, 3;
  @%p1 bra SMALL;
  ld.param.u64 %rd5, [big];
  cvta.global.u64 %rd6, %rd1;
  sub.s64 %rd5, %rd5, %rd6;
  bra.uni JOIN;
SMALL:
  ld.param.s32 %rd5, [si];
  cvt.u32.u64 %r30, %rd0;
  cvta.to.global.u32 %r31, %r30;
  sub.u32 %r32, %r31, %r30;
  cvt.u64.u32 %rd7, %r32;
  add.s64 %rd5, %rd5, %rd7;
JOIN:
  st.global.u64 [%rd3+72], %rd5;
  mov.u64 %rd8, sm;
  cvta.shared.u64 %rd9, %rd8;
  cvta.to.shared.u64 %rd10, %rd9;
  sub.s64 %rd11, %rd10, %rd8;
  cvt.u32.u64 %r33, %rd11;
  mov.u32 %r34, %clock;
  mov.u32 %r35, %clock;
  sub.u32 %r36, %r35, %r34;
  st.global.u32 [%rd3+68], %r33;
  st.global.u32 [%rd3+80], %r36;
  ret;
}
.visible .entry misaligned(.param .u64 out, .param .u64 v) {
  .reg .b32 %r<2>; .reg .b64 %rd<2>;
  ld.param.u64 %rd0, [out];
  ld.param.u32 %r0, [v+2];
  st.global.u32 [%rd0], %r0;
  ret;
}
.visible .entry past(.param .u64 out, .param .u64 v) {
  .reg .b64 %rd<2>;
  ld.param.u64 %rd0, [out];
  ld.param.u64 %rd1, [v+4096];
  st.global.u64 [%rd0], %rd1;
  ret;
})")) << h.errors;
  const uint64_t mism = mismatchesSoFar(), native = nativeSoFar();
  const int16_t sh = -1234;
  const uint16_t uh = 0xfedc;
  const int32_t si = -77777;
  const float fv = 2.5f;
  uint32_t fbits;
  std::memcpy(&fbits, &fv, 4);
  const uint64_t big = 0x123456789abcdef0ull;
  struct Shape {
    ptx::exec::Dim3 grid, block;
  };
  // whole warps (64 threads a block), then 45 threads a block (a partial second warp)
  for (const Shape &sp : {Shape{{2, 2, 2}, {8, 4, 2}}, Shape{{3, 1, 2}, {5, 3, 3}}}) {
    const uint64_t nb = sp.block.count(), total = sp.grid.count() * nb;
    const uint64_t out = h.alloc(total * 96);
    auto r = h.launch("k", sp.grid, sp.block, {out, (uint16_t)sh, uh, (uint32_t)si, fbits, big});
    ASSERT_TRUE(r.ok()) << r.message;
    std::vector<uint32_t> v = h.read<uint32_t>(out, total * 24);
    for (uint32_t cz = 0; cz < sp.grid.z; ++cz)
      for (uint32_t cy = 0; cy < sp.grid.y; ++cy)
        for (uint32_t cx = 0; cx < sp.grid.x; ++cx)
          for (uint32_t tz = 0; tz < sp.block.z; ++tz)
            for (uint32_t ty = 0; ty < sp.block.y; ++ty)
              for (uint32_t tx = 0; tx < sp.block.x; ++tx) {
                const uint32_t tl = (tz * sp.block.y + ty) * sp.block.x + tx;
                const uint32_t cl = (cz * sp.grid.y + cy) * sp.grid.x + cx;
                const uint32_t *o = &v[(cl * nb + tl) * 24];
                const uint32_t lane = tl % 32;
                const uint32_t want[] = {tx, ty, tz, sp.block.x, sp.block.y, sp.block.z, cx, cy, cz,
                                         sp.grid.x, sp.grid.y, sp.grid.z, lane};
                for (unsigned i = 0; i < 13; ++i)
                  ASSERT_EQ(o[i], want[i]) << "word " << i << " of thread " << tl << " in block " << cl;
                EXPECT_EQ(o[13], lane & 1 ? (uint32_t)(int32_t)sh : 4660u) << tl;
                EXPECT_EQ(o[14], uh) << tl;
                EXPECT_EQ(o[15], (uint32_t)si) << tl;
                float f1 = fv + 1.0f;
                uint32_t f1bits;
                std::memcpy(&f1bits, &f1, 4);
                EXPECT_EQ(o[16], f1bits) << tl;
                EXPECT_EQ(o[17], 0u) << tl;  // the shared window there and back
                EXPECT_NE(o[20], 0u) << tl;  // the clock moved between two reads
                uint64_t d;
                std::memcpy(&d, &o[18], 8);
                EXPECT_EQ(d, tx < 3 ? (uint64_t)(int64_t)si : big - out) << tl;
              }
  }
  // 13 special registers and the 64- and 32-bit global cvta forms, natively
  EXPECT_GE(nativeSoFar() - native, 16u);
  const uint64_t out = h.alloc(64);
  for (const char *name : {"misaligned", "past"}) {
    auto bad = h.launch(name, {1}, {32}, {out, 5});
    EXPECT_FALSE(bad.ok()) << name;
    EXPECT_EQ(bad.message.find("PTXSIM_JIT=diff"), std::string::npos) << bad.message;
    EXPECT_NE(bad.message.find("thread (0,0,0)"), std::string::npos) << bad.message;
  }
  EXPECT_EQ(mismatchesSoFar(), mism);
}

// A loop of one block keeps its registers as values from one iteration to the next (loopHead,
// loopBack in LlvmJit.cpp). Per-lane trip counts longer than a warp's turn (the budget ends the
// loop mid-way and the turn resumes), guarded writes, a shfl that reads a register the last
// iteration wrote (of lanes that left the loop too: the file must hold it), handler calls
// inside the loop (the registers written before them reach the file) and an inline load, whole
// and partial warps, under IPDOM and independent thread scheduling (where, past a few spins,
// jitLoopStep decides and hashes the registers live at the branch). The values are checked
// against the loop computed here; the shfl sums only against the interpreter (they read lanes
// outside the loop, which CUDA leaves undefined).
TEST(Jit, LoopRegistersStayValuesAndMatchInterpreter) {
  REQUIRE_JIT();
  const std::string ptx = ptxHeader() + R"(
.visible .entry k(.param .u64 in, .param .u64 out, .param .u32 iters) {
  .reg .b32 %r<24>; .reg .b64 %rd<8>; .reg .pred %p<4>; .reg .f32 %f<2>;
  ld.param.u64 %rd0, [in];
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r9, [iters];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd2, %r0, 4;
  add.s64 %rd3, %rd0, %rd2;
  ld.global.u32 %r1, [%rd3];
  and.b32 %r2, %r1, 63;
  add.u32 %r2, %r2, %r9;
  mov.u32 %r3, 0;
  mov.u32 %r4, 1;
  mov.u32 %r5, 0;
  mov.u32 %r10, 0;
LOOP1:
  mad.lo.u32 %r4, %r4, 1664525, 1013904223;
  and.b32 %r6, %r4, 3;
  setp.eq.u32 %p1, %r6, 0;
  @%p1 add.u32 %r5, %r5, %r3;
  activemask.b32 %r8;
  shfl.sync.bfly.b32 %r7, %r5, 1, 31, %r8;
  add.u32 %r10, %r10, %r7;
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p0, %r3, %r2;
  @%p0 bra LOOP1;
  and.b32 %r12, %r1, 15;
  mov.u32 %r13, 0;
  mov.u32 %r14, 0;
LOOP2:
  add.u32 %r15, %r13, %r0;
  and.b32 %r15, %r15, 63;
  mul.wide.u32 %rd4, %r15, 4;
  add.s64 %rd5, %rd0, %rd4;
  ld.global.u32 %r16, [%rd5];
  xor.b32 %r14, %r14, %r16;
  cvt.rn.f32.u32 %f0, %r13;
  mul.rn.f32 %f1, %f0, 0f3F000000;
  cvt.rzi.u32.f32 %r17, %f1;
  add.u32 %r14, %r14, %r17;
  add.u32 %r13, %r13, 1;
  setp.le.u32 %p2, %r13, %r12;
  @%p2 bra LOOP2;
  mul.wide.u32 %rd6, %r0, 16;
  add.s64 %rd7, %rd1, %rd6;
  st.global.u32 [%rd7], %r4;
  st.global.u32 [%rd7+4], %r5;
  st.global.u32 [%rd7+8], %r10;
  st.global.u32 [%rd7+12], %r14;
  ret;
})";
  std::vector<uint32_t> in(64);
  for (unsigned i = 0; i < 64; ++i)
    in[i] = (i * 2654435761u) >> 5;
  const uint64_t mism = mismatchesSoFar();
  for (auto simt : {ptx::exec::SimtMode::Its, ptx::exec::SimtMode::Ipdom}) {
    DiffHarness h(simt);
    ASSERT_TRUE(h.load(ptx)) << h.errors;
    const uint64_t din = h.upload(in), out = h.alloc(64 * 16);
    for (unsigned threads : {64u, 50u})
      for (uint32_t iters : {1u, 700u}) {
        auto r = h.launch("k", {1}, {threads}, {din, out, iters});
        ASSERT_TRUE(r.ok()) << r.message;
        std::vector<uint32_t> v = h.read<uint32_t>(out, threads * 4);
        for (unsigned t = 0; t < threads; ++t) {
          uint32_t trips = (in[t] & 63) + iters, x = 1, y = 0;
          for (uint32_t i = 0; i < trips; ++i) {
            x = x * 1664525u + 1013904223u;
            if ((x & 3) == 0)
              y += i;
          }
          uint32_t z = 0;
          for (uint32_t i = 0; i <= (in[t] & 15); ++i)
            z = (z ^ in[(i + t) & 63]) + i / 2;
          ASSERT_EQ(v[t * 4], x) << "thread " << t << " of " << threads << ", " << iters;
          ASSERT_EQ(v[t * 4 + 1], y) << "thread " << t << " of " << threads << ", " << iters;
          ASSERT_EQ(v[t * 4 + 3], z) << "thread " << t << " of " << threads << ", " << iters;
        }
      }
  }
  EXPECT_EQ(mismatchesSoFar(), mism);
}

// A CTA reuses a retired CTA's register file and zeroes only the registers it may read before
// writing them (ptx/exec/RegInit.h). Registers read before any write, written under a guard,
// written on one side of a divergent branch, or read by a shuffle from lanes that never wrote
// them must read 0 in every CTA, whatever the CTA before wrote there (the guards and branches
// depend on the CTA's parity, so the previous CTA wrote the lanes this one does not); both
// engines, and the interpreter's values checked one by one. One host thread: CTAs run one
// after another on the same buffers.
const char *kUninitPtx = R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<16>; .reg .b64 %rd<4>; .reg .pred %p<4>;
  ld.param.u64 %rd0, [out];
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %ctaid.x;
  add.u32 %r2, %r0, %r1;
  and.b32 %r3, %r2, 1;
  setp.eq.u32 %p0, %r3, 1;
  add.u32 %r4, %r5, %r0;
  mov.u32 %r5, 1000;
  @%p0 mov.u32 %r6, 9;
  @%p0 bra ODD;
  mov.u32 %r7, 77;
  shl.b32 %r8, %r0, 1;
  activemask.b32 %r13;
  shfl.sync.idx.b32 %r9, %r8, 1, 31, %r13;
  bra.uni JOIN;
ODD:
  mov.u32 %r10, 5;
JOIN:
  mov.u32 %r11, %r7;
  add.u32 %r12, %r10, %r6;
  mad.lo.u32 %r14, %r1, 64, %r0;
  mul.wide.u32 %rd1, %r14, 32;
  add.s64 %rd2, %rd0, %rd1;
  st.global.v4.u32 [%rd2], {%r4, %r6, %r11, %r12};
  st.global.v4.u32 [%rd2+16], {%r9, %r5, %r8, %r10};
  ret;
})";

TEST(Jit, CtaRegistersReadBeforeWrittenStartZero) {
  REQUIRE_JIT();
  for (auto simt : {ptx::exec::SimtMode::Ipdom, ptx::exec::SimtMode::Its}) {
    DiffHarness h(simt);
    ASSERT_TRUE(h.load(ptxHeader() + kUninitPtx)) << h.errors;
    const ptx::ir::Function &fn = *h.engine->findKernel("k", h.module)->fn;
    EXPECT_TRUE(fn.zeroAtStartKnown);
    uint32_t zeroed = 0;
    for (auto [first, count] : fn.zeroAtStart)
      zeroed += count;
    EXPECT_LT(zeroed, fn.numRegs); // some registers are left as the last CTA wrote them
    const unsigned blocks = 8, threads = 64;
    const uint64_t out = h.alloc(blocks * threads * 32);
    const uint64_t mism = mismatchesSoFar(), native = nativeSoFar();
    auto r = h.launch("k", {blocks}, {threads}, {out});
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_GT(nativeSoFar(), native);
    EXPECT_EQ(mismatchesSoFar(), mism);
    std::vector<uint32_t> v = h.read<uint32_t>(out, blocks * threads * 8);
    for (unsigned c = 0; c < blocks; ++c)
      for (unsigned t = 0; t < threads; ++t) {
        const unsigned i = t + c, lane = t % 32;
        const bool odd = i & 1;
        const uint32_t *o = &v[(size_t)(c * threads + t) * 8];
        SCOPED_TRACE("cta " + std::to_string(c) + " thread " + std::to_string(t));
        EXPECT_EQ(o[0], t);                   // %r5 read before written: 0
        EXPECT_EQ(o[1], odd ? 9u : 0u);       // guarded write
        EXPECT_EQ(o[2], odd ? 0u : 77u);      // written on one side only
        EXPECT_EQ(o[3], odd ? 14u : 0u);      // %r10 + %r6
        // every lane reads lane 1's %r8, which lane 1 wrote only when its tid + ctaid is even
        const bool srcRan = ((1 + c) & 1) == 0;
        if (!odd)
          EXPECT_EQ(o[4], srcRan ? 2 * (t - lane + 1) : 0u);
        else
          EXPECT_EQ(o[4], 0u);                // %r9 never written in these lanes
        EXPECT_EQ(o[5], 1000u);
        EXPECT_EQ(o[6], odd ? 0u : 2 * t);
        EXPECT_EQ(o[7], odd ? 5u : 0u);
      }
  }
}

// The set of registers a CTA zeroes: those read before written (the rest keep the previous
// CTA's values), every register when the kernel makes calls.
TEST(Jit, ZeroAtStartFollowsReadsBeforeWrites) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry first(.param .u64 out) {
  .reg .b32 %r<3>; .reg .b64 %rd<3>;
  ld.param.u64 %rd0, [out];
  mov.u32 %r0, 5;
  add.u32 %r1, %r0, %r2;
  mov.u32 %r2, 1;
  mul.wide.u32 %rd1, %r1, 4;
  add.s64 %rd2, %rd0, %rd1;
  st.global.u32 [%rd2], %r2;
  ret;
}
.func f(.param .b32 x) { ret; }
.visible .entry calls(.param .u64 out) {
  .reg .b32 %r<2>;
  mov.u32 %r0, 1;
  { .param .b32 a; st.param.b32 [a], %r0; call f, (a); }
  ret;
})")) << h.errors;
  const ptx::ir::Function &first = *h.engine->findKernel("first", h.module)->fn;
  ASSERT_TRUE(first.zeroAtStartKnown);
  ASSERT_EQ(first.zeroAtStart.size(), 1u);
  EXPECT_EQ(first.zeroAtStart[0].second, 1u); // %r2 alone
  const ptx::ir::Function &calls = *h.engine->findKernel("calls", h.module)->fn;
  EXPECT_FALSE(calls.zeroAtStartKnown);
}

// Warp primitives as vector code: shfl in its four modes with lane-dependent lane offsets,
// clamps and segment masks (out-of-range lanes read their own value, the predicate says which
// were in range), under a guard that leaves lanes out (the executing lanes still read every
// lane's register); vote all/any/uni/ballot with lane-dependent member masks; activemask; a
// partial last warp; and, under independent thread scheduling, shfl.sync and activemask on both
// sides of a divergent branch, where the compiled code leaves for the interpreter loop to
// gather the member lanes. Both SIMT modes.
TEST(Jit, WarpPrimitivesMatchInterpreter) {
  REQUIRE_JIT();
  const char *ptx = R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<40>; .reg .b64 %rd<4>; .reg .pred %p<12>;
  ld.param.u64 %rd0, [out];
  mov.u32 %r0, %tid.x;
  mov.u32 %r30, %laneid;
  mul.lo.u32 %r1, %r0, -1640531527;
  and.b32 %r2, %r0, 7;
  mul.lo.u32 %r3, %r0, 0x0301;
  and.b32 %r3, %r3, 0x1f1f;
  mul.lo.u32 %r4, %r0, 13;
  rem.u32 %r5, %r0, 3;
  setp.ne.u32 %p0, %r5, 0;
  shfl.sync.up.b32 %r6|%p1, %r1, %r2, 0, -1;
  shfl.sync.down.b32 %r7|%p2, %r1, %r2, %r3, -1;
  shfl.sync.bfly.b32 %r8|%p3, %r1, 5, 0x0c1f, -1;
  shfl.sync.idx.b32 %r9|%p4, %r1, %r4, %r3, -1;
  @%p0 shfl.sync.bfly.b32 %r10|%p5, %r1, %r4, 0x1f, -1;
  @!%p0 shfl.sync.up.b32 %r10, %r1, 1, 0x0800, -1;
  shfl.sync.idx.b32 %r11, %r1, 31, 0x1f, -1;
  or.b32 %r12, %r3, 0xff00ff00;
  setp.gt.u32 %p6, %r2, 2;
  vote.sync.ballot.b32 %r13, %p6, %r12;
  @%p0 vote.sync.ballot.b32 %r14, %p0, -1;
  vote.sync.all.pred %p7, %p6, %r12;
  vote.sync.any.pred %p8, %p1, %r12;
  @%p0 vote.sync.uni.pred %p9, %p6, -1;
  vote.sync.uni.pred %p10, %p0, 0x55555555;
  activemask.b32 %r15;
  selp.u32 %r16, 1, 0, %p1;
  selp.u32 %r17, 2, 0, %p2;
  selp.u32 %r18, 4, 0, %p3;
  selp.u32 %r19, 8, 0, %p4;
  selp.u32 %r20, 16, 0, %p5;
  selp.u32 %r21, 32, 0, %p7;
  selp.u32 %r22, 64, 0, %p8;
  selp.u32 %r23, 128, 0, %p9;
  selp.u32 %r24, 256, 0, %p10;
  or.b32 %r16, %r16, %r17;
  or.b32 %r16, %r16, %r18;
  or.b32 %r16, %r16, %r19;
  or.b32 %r16, %r16, %r20;
  or.b32 %r16, %r16, %r21;
  or.b32 %r16, %r16, %r22;
  or.b32 %r16, %r16, %r23;
  or.b32 %r16, %r16, %r24;
  setp.lt.u32 %p11, %r30, 16;
  @%p11 bra LOW;
  shfl.sync.bfly.b32 %r25, %r1, 1, 0x1f, 0xffff0000;
  activemask.b32 %r26;
  bra.uni JOIN;
LOW:
  shfl.sync.bfly.b32 %r25, %r1, 2, 0x1f, 0x0000ffff;
  activemask.b32 %r26;
JOIN:
  mul.wide.u32 %rd1, %r0, 64;
  add.s64 %rd2, %rd0, %rd1;
  st.global.v4.u32 [%rd2], {%r6, %r7, %r8, %r9};
  st.global.v4.u32 [%rd2+16], {%r10, %r11, %r13, %r14};
  st.global.v4.u32 [%rd2+32], {%r15, %r16, %r25, %r26};
  ret;
})";
  for (int i = 0; i < 2; ++i) {
    DiffHarness h(i ? ptx::exec::SimtMode::Ipdom : ptx::exec::SimtMode::Its);
    ASSERT_TRUE(h.load(ptxHeader() + ptx)) << h.errors;
    const uint64_t before = nativeSoFar(), mism = mismatchesSoFar();
    uint64_t out = h.alloc(48 * 64);
    auto r = h.launch("k", {2}, {48}, {out}); // a partial second warp
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(mismatchesSoFar(), mism);
    // 17 warp primitives, 25 integer instructions: compiled as handler calls (or not at all,
    // as control instructions) they would count 25
    EXPECT_GE(nativeSoFar(), before + 40);
    auto v = h.read<uint32_t>(out, 48 * 16);
    auto lane = [](uint32_t t) { return t * 2654435769u; };
    // thread 3: up by 3 reads lane 0; bfly 5 within 16-lane segments reads lane 6
    EXPECT_EQ(v[3 * 16 + 0], lane(0));
    EXPECT_EQ(v[3 * 16 + 2], lane(6));
    // idx 31 in the partial warp reads lane 31's register, which no thread wrote: 0
    EXPECT_EQ(v[33 * 16 + 5], 0u);
    EXPECT_EQ(v[33 * 16 + 8], 0xffffu); // activemask of the partial warp
  }
  // A warp split by independent thread scheduling reaches two different shfl.sync naming
  // the whole warp: the interpreter loop gathers the lanes and faults with its message (the
  // compiled code must leave before either instruction, not run it with half the warp).
  DiffHarness h(ptx::exec::SimtMode::Its);
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .pred %p<2>;
  ld.param.u64 %rd0, [out];
  mov.u32 %r0, %laneid;
  setp.lt.u32 %p0, %r0, 16;
  @%p0 bra LOW;
  add.u32 %r1, %r0, 7;
  shfl.sync.bfly.b32 %r2, %r1, 16, 0x1f, -1;
  bra.uni JOIN;
LOW:
  mul.lo.u32 %r1, %r0, 3;
  shfl.sync.bfly.b32 %r2, %r1, 16, 0x1f, -1;
JOIN:
  mul.wide.u32 %rd1, %r0, 4;
  add.s64 %rd2, %rd0, %rd1;
  st.global.u32 [%rd2], %r2;
  ret;
})")) << h.errors;
  uint64_t out = h.alloc(32 * 4);
  const uint64_t mism = mismatchesSoFar();
  auto bad = h.launch("k", {1}, {32}, {out});
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.message.find("PTXSIM_JIT=diff"), std::string::npos) << bad.message;
  EXPECT_NE(bad.message.find("must execute the same instruction"), std::string::npos) << bad.message;
  EXPECT_EQ(mismatchesSoFar(), mism);
}

// Loops with per-lane trip counts stay in compiled code under independent thread scheduling
// too, counting their spins as the interpreter does (jitLoopStep): lane 0 spins on a flag that
// the other lanes set after a loop of their own, so it must yield exactly where the
// interpreter yields (after kSpinFrom spins with unchanged registers) for the other lanes to
// run; diff mode compares the warps' instruction counts, which count every spin. Lanes with
// their own trip counts then loop past the spin watch's start while making progress.
TEST(Jit, ItsDivergentLoopsMatchInterpreter) {
  REQUIRE_JIT();
  DiffHarness h(ptx::exec::SimtMode::Its);
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<10>; .reg .b64 %rd<4>; .reg .pred %p<4>;
  ld.param.u64 %rd0, [out];
  mov.u32 %r0, %laneid;
  setp.eq.u32 %p0, %r0, 0;
  @%p0 bra SPIN;
  mov.u32 %r1, 0;
WORK:
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, 40;
  @%p1 bra WORK;
  st.volatile.global.u32 [%rd0], %r1;
  bra.uni AFTER;
SPIN:
  ld.volatile.global.u32 %r2, [%rd0];
  setp.eq.u32 %p2, %r2, 0;
  @%p2 bra SPIN;
AFTER:
  mov.u32 %r3, 0;
  mov.u32 %r4, 0;
  mul.lo.u32 %r5, %r0, 3;
TRIP:
  mad.lo.u32 %r4, %r4, 1664525, %r3;
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p3, %r3, %r5;
  @%p3 bra TRIP;
  mul.wide.u32 %rd1, %r0, 4;
  add.s64 %rd2, %rd0, %rd1;
  st.global.u32 [%rd2+4], %r4;
  ret;
})")) << h.errors;
  const uint64_t mism = mismatchesSoFar();
  uint64_t out = h.alloc(33 * 4);
  auto r = h.launch("k", {2}, {64}, {out});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(mismatchesSoFar(), mism);
  EXPECT_EQ(h.read<uint32_t>(out, 1)[0], 40u);
}

// A block's results stay in SSA form and reach the register file only where a lane may still
// read them (ptx/jit/Liveness.h): a full-warp loop whose temporaries die in the block, guarded
// writes that merge with lanes that keep their value, a partial last warp, a loop with a
// per-lane trip count (lanes leave at every iteration, the rest run as a diverged group whose
// spin watch hashes the live registers), lane 0 spinning on a flag while dead temporaries
// change (%clock and a value computed from it: it yields where the interpreter does), shfl with constant lanes (a permutation of a
// register written in the same block, with guarded writes, out-of-range lanes and lanes that do
// not execute) in all four modes, and a store of a block's value past an allocation's end (the
// handler faults with the interpreter's message). Both SIMT modes, diff mode.
TEST(Jit, DeadRegistersStayOutOfTheFileAndMatchInterpreter) {
  REQUIRE_JIT();
  const char *ptx = R"(
.visible .entry k(.param .u64 out, .param .u32 n, .param .u32 spin) {
  .reg .b32 %r<40>; .reg .b64 %rd<8>; .reg .pred %p<10>;
  ld.param.u64 %rd0, [out];
  ld.param.u32 %r30, [n];
  ld.param.u32 %r32, [spin];
  mov.u32 %r0, %tid.x;
  mov.u32 %r31, %laneid;
  mov.u32 %r1, 0;
  mov.u32 %r2, 7;
FULL:
  and.b32 %r3, %r2, 1;
  setp.eq.u32 %p0, %r3, 1;
  mad.lo.u32 %r4, %r2, 3, 1;
  shr.u32 %r5, %r2, 1;
  selp.b32 %r2, %r4, %r5, %p0;
  @%p0 add.u32 %r2, %r2, %r0;
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, 12;
  @%p1 bra FULL;
  and.b32 %r6, %r0, 15;
  mov.u32 %r7, 0;
  mov.u32 %r8, 0;
  setp.eq.u32 %p2, %r6, 0;
  @%p2 bra TRIPDONE;
TRIP:
  xor.b32 %r9, %r8, %r7;
  mul.lo.u32 %r10, %r9, 2654435761;
  shr.u32 %r11, %r10, 13;
  add.u32 %r8, %r8, %r11;
  add.u32 %r7, %r7, 1;
  setp.lt.u32 %p3, %r7, %r6;
  @%p3 bra TRIP;
TRIPDONE:
  setp.eq.u32 %p8, %r32, 0;
  @%p8 bra AFTER;
  setp.eq.u32 %p4, %r31, 0;
  @%p4 bra SPIN;
  mov.u32 %r12, 0;
WORK:
  add.u32 %r12, %r12, 1;
  st.volatile.global.u32 [%rd0+8], %r12;
  setp.lt.u32 %p5, %r12, 30;
  @%p5 bra WORK;
  st.volatile.global.u32 [%rd0], %r12;
  bra.uni AFTER;
SPIN:
  ld.volatile.global.u32 %r14, [%rd0+8];
  ld.volatile.global.u32 %r13, [%rd0];
  add.u32 %r14, %r14, %r13;
  mov.u32 %r24, %clock;
  xor.b32 %r25, %r24, %r14;
  setp.eq.u32 %p6, %r13, 0;
  @%p6 bra SPIN;
AFTER:
  add.u32 %r15, %r2, %r8;
  @%p0 mov.u32 %r15, %r0;
  shfl.sync.up.b32 %r16, %r15, 3, 0, -1;
  shfl.sync.down.b32 %r17, %r15, 2, 0x0c1f, -1;
  shfl.sync.bfly.b32 %r18|%p7, %r15, 5, 0x0c1f, -1;
  @%p0 shfl.sync.idx.b32 %r19, %r15, 21, 0x1f, -1;
  shfl.sync.idx.b32 %r20, %r15, 9, 0x0818, -1;
  selp.u32 %r21, 1, 0, %p7;
  mul.wide.u32 %rd1, %r0, 32;
  add.s64 %rd2, %rd0, %rd1;
  st.global.v4.u32 [%rd2+64], {%r2, %r8, %r15, %r16};
  st.global.v4.u32 [%rd2+80], {%r17, %r18, %r19, %r20};
  mul.lo.u32 %r22, %r0, %r30;
  add.u32 %r23, %r22, %r21;
  mul.wide.u32 %rd3, %r22, 4;
  add.s64 %rd4, %rd0, %rd3;
  st.global.u32 [%rd4+4], %r23;
  ret;
})";
  for (auto simt : {ptx::exec::SimtMode::Its, ptx::exec::SimtMode::Ipdom}) {
    SCOPED_TRACE(simt == ptx::exec::SimtMode::Its ? "its" : "ipdom");
    DiffHarness h(simt);
    ASSERT_TRUE(h.load(ptxHeader() + ptx)) << h.errors;
    const unsigned threads = 48; // a partial second warp
    const uint64_t bytes = 64 + threads * 32;
    const uint64_t mism = mismatchesSoFar(), native = nativeSoFar();
    uint64_t out = h.alloc(bytes);
    const bool its = simt == ptx::exec::SimtMode::Its; // (under IPDOM lane 0 would spin forever)
    auto r = h.launch("k", {1}, {threads}, {out, 0, its ? 1u : 0u});
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(mismatchesSoFar(), mism);
    EXPECT_GT(nativeSoFar(), native + 40);
    std::vector<uint32_t> v = h.read<uint32_t>(out, bytes / 4);
    EXPECT_EQ(v[0], its ? 30u : 0u); // the flag the spinning lanes waited for
    bool odd = false;                // %p0 after the loop
    auto collatz = [&odd](uint32_t t) {
      uint32_t x = 7;
      for (int i = 0; i < 12; ++i) {
        odd = x & 1;
        x = odd ? x * 3 + 1 + t : x >> 1;
      }
      return x;
    };
    auto trip = [](uint32_t t) {
      uint32_t acc = 0;
      for (uint32_t i = 0; i < (t & 15); ++i)
        acc += ((acc ^ i) * 2654435761u) >> 13;
      return acc;
    };
    auto val = [&](uint32_t t) {
      uint32_t x = collatz(t);
      return odd ? t : x + trip(t);
    };
    for (uint32_t t = 0; t < threads; ++t) {
      SCOPED_TRACE("thread " + std::to_string(t));
      const uint32_t *o = &v[16 + t * 8];
      EXPECT_EQ(o[0], collatz(t));
      EXPECT_EQ(o[1], trip(t));
      const uint32_t w = t & ~31u, l = t & 31;
      EXPECT_EQ(o[2], val(t));
      EXPECT_EQ(o[3], val(w + (l >= 3 ? l - 3 : l))); // up 3 (source lanes all live here)
    }
  }
  // a store of the block's value past the allocation: the handler's fault message
  DiffHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + ptx)) << h.errors;
  const uint64_t mism = mismatchesSoFar();
  uint64_t out = h.alloc(64 + 32 * 32);
  auto bad = h.launch("k", {1}, {32}, {out, 9, 1});
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.message.find("PTXSIM_JIT=diff"), std::string::npos) << bad.message;
  EXPECT_NE(bad.message.find("thread ("), std::string::npos) << bad.message;
  EXPECT_EQ(mismatchesSoFar(), mism);
}

// The registers the spin watch hashes at a loop's branch are those live there: not a
// temporary that the loop writes before reading, every register when a function's reads
// cannot be bounded (an indirect call).
TEST(Jit, SpinWatchHashesLiveRegisters) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry loop(.param .u64 out) {
  .reg .b32 %r<4>; .reg .b64 %rd<2>; .reg .pred %p<2>;
  ld.param.u64 %rd0, [out];
  mov.u32 %r0, 0;
  mov.u32 %r1, 0;
L:
  mul.lo.u32 %r2, %r0, 5;
  add.u32 %r1, %r1, %r2;
  add.u32 %r0, %r0, 1;
  setp.lt.u32 %p0, %r0, 9;
  @%p0 bra L;
  st.global.u32 [%rd0], %r1;
  ret;
}
.func f() { ret; }
.visible .entry indirect(.param .u64 out) {
  .reg .b32 %r<2>; .reg .b64 %rd<2>; .reg .pred %p<2>;
  mov.u64 %rd0, f;
  mov.u32 %r0, 0;
L2:
  add.u32 %r0, %r0, 1;
  setp.lt.u32 %p0, %r0, 3;
  @%p0 bra L2;
  prototype: .callprototype ()_ ();
  call %rd0, prototype;
  ret;
})")) << h.errors;
  const ptx::ir::Function &loop = *h.engine->findKernel("loop", h.module)->fn;
  ASSERT_EQ(loop.spinFirst.size(), loop.code.size() + 1);
  uint32_t branch = 0;
  for (uint32_t pc = 0; pc < loop.code.size(); ++pc)
    if (loop.code[pc].ctl == ptx::ir::Ctl::Bra && loop.code[pc].target <= pc)
      branch = pc;
  ASSERT_GT(branch, 0u);
  // %r0 (counter), %r1 (sum) and %rd0 (the address stored to after the loop); not %r2
  EXPECT_EQ(loop.spinFirst[branch + 1] - loop.spinFirst[branch], 3u);
  EXPECT_EQ(loop.spinFirst[branch] - loop.spinFirst[0], 0u); // other pcs have none
  const ptx::ir::Function &ind = *h.engine->findKernel("indirect", h.module)->fn;
  EXPECT_TRUE(ind.spinFirst.empty()); // every register hashed
}

// %clock64 counts the warp's instructions in functional mode: read around native code and
// handler calls inside compiled blocks it must give the interpreter's values.
TEST(Jit, ClockMatchesInterpreter) {
  REQUIRE_JIT();
  DiffHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<4>; .reg .b64 %rd<8>; .reg .f32 %f<2>;
  ld.param.u64 %rd0, [out];
  mov.u64 %rd1, %clock64;
  mov.u32 %r0, %tid.x;
  add.u32 %r1, %r0, 5;
  cvt.rn.f32.u32 %f0, %r1;
  mul.lo.u32 %r2, %r1, %r1;
  mov.u64 %rd2, %clock64;
  sqrt.rn.f32 %f1, %f0;
  mov.u64 %rd3, %clock64;
  sub.s64 %rd4, %rd2, %rd1;
  sub.s64 %rd5, %rd3, %rd1;
  mul.wide.u32 %rd6, %r0, 16;
  add.s64 %rd7, %rd0, %rd6;
  st.global.v2.u64 [%rd7], {%rd4, %rd5};
  ret;
})")) << h.errors;
  uint64_t out = h.alloc(32 * 16);
  auto r = h.launch("k", {1}, {32}, {out});
  ASSERT_TRUE(r.ok()) << r.message;
  auto v = h.read<uint64_t>(out, 2);
  EXPECT_GT(v[0], 0u); // (diff mode compared the values with the interpreter's)
  EXPECT_GT(v[1], v[0]);
}

// Random straight-line and branching kernels over every operation the translator emits
// natively, mixed with handler calls (div, rem, cvt with rounding, sqrt), random guards,
// divergent branches and loops with uniform and divergent trip counts, under both reconvergence
// models; PTXSIM_JIT_FUZZ_KERNELS sets how many (default 30; 1,000 passed when it was written),
// PTXSIM_JIT_FUZZ_OPS their size (operations in the body; 20 to 59 by default).
class KernelGen {
public:
  explicit KernelGen(uint32_t seed, int ops = 0) : rng_(seed), ops_(ops) {}
  std::string kernel() {
    std::string s = ptxHeader() + ".visible .entry k(.param .u64 out) {\n"
                                  "  .reg .b32 %r<8>; .reg .b64 %d<4>; .reg .f32 %f<4>; .reg .f64 %g<2>;\n"
                                  "  .reg .pred %p<3>; .reg .b64 %o, %t; .reg .b32 %ti, %lc;\n"
                                  "  .reg .pred %pl;\n"
                                  "  ld.param.u64 %o, [out];\n  mov.u32 %ti, %tid.x;\n"
                                  "  mul.wide.u32 %t, %ti, 96;\n  add.s64 %o, %o, %t;\n";
    for (int i = 0; i < 8; ++i)
      s += "  mad.lo.u32 %r" + std::to_string(i) + ", %ti, " + imm32() + ", " + imm32() + ";\n";
    for (int i = 0; i < 4; ++i)
      s += "  mul.wide.s32 %d" + std::to_string(i) + ", %r" + std::to_string(i) + ", " + imm32() + ";\n";
    for (int i = 0; i < 4; ++i)
      s += "  cvt.rn.f32.s32 %f" + std::to_string(i) + ", %r" + std::to_string(i + 4) + ";\n";
    s += "  mov.b32 %f3, " + pick({"0x7fc00011", "0x7f800000", "0x00000003", "0x80000000", "0x3f800000"}) + ";\n";
    s += "  cvt.f64.f32 %g0, %f0;\n  cvt.f64.f32 %g1, %f3;\n";
    for (int i = 0; i < 3; ++i)
      s += "  setp.lt.u32 %p" + std::to_string(i) + ", %r" + std::to_string(i) + ", %r" + std::to_string(i + 3) + ";\n";
    int labels = 0;
    const int n = ops_ ? ops_ : 20 + (int)(rng_() % 40);
    for (int i = 0; i < n; ++i) {
      if (rng_() % 16 == 0) {
        // a counted loop, uniform or with a per-lane (divergent) trip count, long enough to
        // cross the warp's turns; its body may hold guarded instructions
        std::string l = "L" + std::to_string(labels++);
        if (rng_() % 2)
          s += "  mov.u32 %lc, " + std::to_string(1 + rng_() % 70) + ";\n";
        else
          s += "  and.b32 %lc, " + r() + ", " + std::to_string(rng_() % 2 ? 7 : 63) + ";\n"
               "  add.u32 %lc, %lc, 1;\n";
        s += l + ":\n";
        for (int j = 0; j < 1 + (int)(rng_() % 6); ++j)
          s += "  " + std::string(rng_() % 4 == 0 ? "@" + neg() + p() + " " : "") + op() + "\n";
        s += "  sub.u32 %lc, %lc, 1;\n  setp.ne.u32 %pl, %lc, 0;\n  @%pl bra " + l + ";\n";
        continue;
      }
      if (rng_() % 10 == 0) {
        std::string l = "L" + std::to_string(labels++);
        s += "  @" + neg() + "%p" + std::to_string(rng_() % 3) + " bra " + l + ";\n";
        for (int j = 0; j < 1 + (int)(rng_() % 4); ++j)
          s += "  " + op() + "\n";
        s += l + ":\n";
        continue;
      }
      std::string g = rng_() % 4 == 0 ? "@" + neg() + "%p" + std::to_string(rng_() % 3) + " " : "";
      s += "  " + g + op() + "\n";
    }
    for (int i = 0; i < 8; ++i)
      s += "  st.global.u32 [%o+" + std::to_string(4 * i) + "], %r" + std::to_string(i) + ";\n";
    for (int i = 0; i < 4; ++i)
      s += "  st.global.u64 [%o+" + std::to_string(32 + 8 * i) + "], %d" + std::to_string(i) + ";\n";
    for (int i = 0; i < 4; ++i)
      s += "  st.global.f32 [%o+" + std::to_string(64 + 4 * i) + "], %f" + std::to_string(i) + ";\n";
    s += "  st.global.f64 [%o+80], %g0;\n  st.global.f64 [%o+88], %g1;\n  ret;\n}\n";
    return s;
  }

private:
  std::string r() { return "%r" + std::to_string(rng_() % 8); }
  std::string d() { return "%d" + std::to_string(rng_() % 4); }
  std::string f() { return "%f" + std::to_string(rng_() % 4); }
  std::string g() { return "%g" + std::to_string(rng_() % 2); }
  std::string p() { return "%p" + std::to_string(rng_() % 3); }
  std::string neg() { return rng_() % 2 ? "!" : ""; }
  std::string imm32() { return std::to_string((int32_t)rng_()); }
  std::string pick(std::initializer_list<const char *> l) {
    auto it = l.begin();
    std::advance(it, rng_() % l.size());
    return *it;
  }
  std::string op() {
    std::string it = pick({"s32", "u32"}), lt = pick({"s64", "u64"});
    switch (rng_() % 19) {
    case 0: return pick({"add", "sub", "mul.lo", "min", "max"}) + ("." + it) + " " + r() + ", " + r() + ", " + r() + ";";
    case 1: return pick({"and", "or", "xor"}) + std::string(".b32 ") + r() + ", " + r() + ", " + (rng_() % 2 ? r() : imm32()) + ";";
    case 2: return pick({"shl.b32", "shr.s32", "shr.u32"}) + (" " + r()) + ", " + r() + ", " + (rng_() % 2 ? r() : std::to_string(rng_() % 40)) + ";";
    case 3: return "mad.lo." + it + " " + r() + ", " + r() + ", " + r() + ", " + r() + ";";
    case 4: return pick({"add", "sub", "mul.lo", "min", "max"}) + ("." + lt) + " " + d() + ", " + d() + ", " + d() + ";";
    case 5: return pick({"shl.b64", "shr.s64", "shr.u64"}) + (" " + d()) + ", " + d() + ", " + r() + ";";
    case 6: return "mul.wide." + it + " " + d() + ", " + r() + ", " + r() + ";";
    case 7: return "setp." + pick({"eq", "ne", "lt", "le", "gt", "ge"}) + "." + it + " " + p() + ", " + r() + ", " + r() + ";";
    case 8: return "setp." + pick({"lo", "ls", "hi", "hs"}) + ".u64." + pick({"and", "or", "xor"}) + " " + p() + "|" + p() + ", " + d() + ", " + d() + ", " + neg() + p() + ";";
    case 9: return "selp.b32 " + r() + ", " + r() + ", " + r() + ", " + p() + ";";
    case 10: return pick({"add.rn", "sub.rn", "mul.rn", "add", "mul"}) + std::string(".f32 ") + f() + ", " + f() + ", " + f() + ";";
    case 11: return "fma.rn.f32 " + f() + ", " + f() + ", " + f() + ", " + f() + ";";
    case 12: return pick({"add.rn", "mul.rn", "sub.rn"}) + std::string(".f64 ") + g() + ", " + g() + ", " + g() + ";";
    case 13: return pick({"div.rn.f32", "div.approx.f32", "add.rz.f32", "mul.ftz.f32"}) + (" " + f()) + ", " + f() + ", " + f() + ";";
    case 14: return pick({"rem.s32", "div.u32", "mul.hi.s32"}) + (" " + r()) + ", " + r() + ", " + r() + ";";
    // warp primitives in their forms without .sync (they run with whatever lanes execute, so
    // they may sit in divergent code): lane offsets, clamps and segment masks from registers
    case 16: return "shfl." + pick({"up", "down", "bfly", "idx"}) + ".b32 " + r() + (rng_() % 2 ? "|" + p() : "") + ", " + r() + ", " + (rng_() % 2 ? r() : std::to_string(rng_() % 40)) + ", " + (rng_() % 2 ? r() : pick({"0", "31", "0x1f", "0x181f", "0x1c00"})) + ";";
    case 17: return rng_() % 2 ? "vote.ballot.b32 " + r() + ", " + neg() + p() + ";" : "vote." + pick({"all", "any", "uni"}) + ".pred " + p() + ", " + neg() + p() + ";";
    case 18: return "activemask.b32 " + r() + ";";
    default: return pick({"cvt.rzi.s32.f32", "cvt.rni.s32.f32", "cvt.rzi.sat.u32.f32"}) + (" " + r()) + ", " + f() + ";";
    }
  }
  std::mt19937 rng_;
  int ops_; ///< operations in the body (0: 20 to 59)
};

/// `PTXSIM_JIT_FUZZ_KERNELS` random kernels (else `dflt`) from PTXSIM_JIT_FUZZ_SEED (else 1),
/// each of PTXSIM_JIT_FUZZ_OPS operations (else 20 to 59), in differential mode; `ranges` gives
/// the kernel's pc-range size (0: the default).
void fuzz(int dflt, unsigned (*ranges)(uint32_t seed)) {
  int count = dflt, ops = 0;
  if (const char *v = std::getenv("PTXSIM_JIT_FUZZ_KERNELS"))
    count = std::atoi(v);
  if (const char *v = std::getenv("PTXSIM_JIT_FUZZ_OPS"))
    ops = std::atoi(v);
  uint32_t seed = 1;
  if (const char *v = std::getenv("PTXSIM_JIT_FUZZ_SEED"))
    seed = (uint32_t)std::strtoul(v, nullptr, 10);
  const uint64_t mism = mismatchesSoFar(), split = inRangesSoFar();
  for (int i = 0; i < count; ++i) {
    KernelGen gen(seed + (uint32_t)i, ops);
    std::string text = gen.kernel();
    const unsigned n = ranges(seed + (uint32_t)i);
    if (n)
      setenv("PTXSIM_JIT_RANGE_INSTS", std::to_string(n).c_str(), 1);
    else
      unsetenv("PTXSIM_JIT_RANGE_INSTS");
    // every other kernel under pre-Volta reconvergence (IPDOM), the others under independent
    // thread scheduling (sm_90); divergent loops stay compiled under both
    DiffHarness h(i % 2 ? ptx::exec::SimtMode::Ipdom : ptx::exec::SimtMode::Auto);
    ASSERT_TRUE(h.load(text)) << h.errors << "\n" << text;
    uint64_t out = h.alloc(80 * 96);
    auto r = h.launch("k", {1}, {80}, {out});
    unsetenv("PTXSIM_JIT_RANGE_INSTS");
    ASSERT_TRUE(r.ok()) << "seed " << seed + i << ": " << r.message << "\n" << text;
  }
  EXPECT_EQ(mismatchesSoFar(), mism);
  if (count > 0 && ranges(seed)) {
    EXPECT_GT(inRangesSoFar(), split); // the kernels were compiled in ranges
  }
}

TEST(Jit, RandomKernelsMatchInterpreter) {
  REQUIRE_JIT();
  fuzz(30, [](uint32_t) { return 0u; });
}

// The same kernels in pc ranges of 4 to 35 instructions: branches, loops and faults across
// ranges (the default range size is larger than these kernels).
TEST(Jit, RandomKernelsInRangesMatchInterpreter) {
  REQUIRE_JIT();
  fuzz(3, [](uint32_t seed) { return 4 + seed * 2654435761u % 32; });
}

} // namespace
} // namespace ptxsim::test

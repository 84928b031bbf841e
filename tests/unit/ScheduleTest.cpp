// ptx/exec/Schedule.h: loads move ahead of independent arithmetic within a basic block, never
// across stores (but for global loads past shared stores), clock reads or block boundaries, and
// every thread computes what it computed in PTX order; counting shared atomics are marked.
#include "ExecHarness.h"
#include "ptx/exec/Schedule.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace ptxsim::test {
namespace {

// out[i] = sum over k < 8 of a[i + 32k] * b[k] (a dot product unrolled by 4 as nvcc emits it:
// each load right before its use), then a store, a load after the store, and a clock read.
const char *kPtx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry dot(.param .u64 pa, .param .u64 pb, .param .u64 pout)
{
  .reg .pred %p<2>;
  .reg .f32 %f<20>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  mov.f32 %f1, 0f00000000;
  mov.u32 %r2, 0;
LOOP:
  ld.global.f32 %f2, [%rd5];
  ld.global.f32 %f3, [%rd2];
  fma.rn.f32 %f1, %f2, %f3, %f1;
  ld.global.f32 %f4, [%rd5+128];
  ld.global.f32 %f5, [%rd2+4];
  fma.rn.f32 %f1, %f4, %f5, %f1;
  add.s64 %rd6, %rd5, 256;
  ld.global.f32 %f6, [%rd6];
  ld.global.f32 %f7, [%rd2+8];
  fma.rn.f32 %f1, %f6, %f7, %f1;
  ld.global.f32 %f8, [%rd6+128];
  ld.global.f32 %f9, [%rd2+12];
  fma.rn.f32 %f1, %f8, %f9, %f1;
  add.s64 %rd5, %rd5, 512;
  add.s64 %rd2, %rd2, 16;
  add.u32 %r2, %r2, 4;
  setp.lt.u32 %p1, %r2, 8;
  @%p1 bra LOOP;
  add.s64 %rd7, %rd3, %rd4;
  st.global.f32 [%rd7], %f1;
  ld.global.f32 %f10, [%rd7];
  mov.u64 %rd8, %clock64;
  ld.global.f32 %f11, [%rd7];
  add.f32 %f12, %f10, %f11;
  st.global.f32 [%rd7+128], %f12;
  ret;
}
)";

struct Lowered {
  std::vector<uint32_t> lines; ///< PTX lines of the kernel's code in execution order
  std::vector<float> out;
};

Lowered run(bool schedule) {
  ExecHarness h(1, ptx::exec::SimtMode::Auto, schedule);
  EXPECT_TRUE(h.load(kPtx)) << h.errors;
  std::vector<float> a(32 * 8), b(8);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = float(i % 13) * 0.5f - 2.0f;
  for (size_t k = 0; k < b.size(); ++k)
    b[k] = float(k) + 0.25f;
  uint64_t da = h.upload(a), db = h.upload(b), dout = h.alloc(64 * 4);
  auto r = h.launch("dot", {1}, {32}, {da, db, dout});
  EXPECT_TRUE(r.ok()) << r.message;
  Lowered out;
  out.out = h.read<float>(dout, 64);
  for (const auto &in : h.engine->findKernel("dot", h.module)->fn->code)
    out.lines.push_back(in.line);
  return out;
}

TEST(ScheduleLoads, LoadsGoFirstResultsStayTheSame) {
  Lowered plain = run(false), sched = run(true);
  ASSERT_EQ(plain.out.size(), sched.out.size());
  for (size_t i = 0; i < plain.out.size(); ++i)
    EXPECT_EQ(plain.out[i], sched.out[i]) << i; // bit for bit
  // PTX lines (kPtx starts with a newline: `.version` is line 2): the loop's 8 loads are
  // 20,21,23,24,27,28,30,31, its first fma 22
  auto pos = [&](const Lowered &r, uint32_t line) {
    for (size_t i = 0; i < r.lines.size(); ++i)
      if (r.lines[i] == line)
        return i;
    ADD_FAILURE() << "no line " << line;
    return size_t(0);
  };
  for (uint32_t ld : {20u, 21u, 23u, 24u, 27u, 28u, 30u, 31u})
    EXPECT_LT(pos(sched, ld), pos(sched, 22)) << "load at line " << ld << " after the first fma";
  EXPECT_GT(pos(plain, 23), pos(plain, 22)); // PTX order without scheduling
  // the address add of the third pair (line 26) goes before its load, the fmas keep their order
  EXPECT_LT(pos(sched, 26), pos(sched, 27));
  EXPECT_LT(pos(sched, 22), pos(sched, 25));
  EXPECT_LT(pos(sched, 25), pos(sched, 29));
  // a load never passes a store (39) or a clock read (41); the loop's branch keeps its pc
  EXPECT_EQ(pos(sched, 40), pos(plain, 40));
  EXPECT_EQ(pos(sched, 42), pos(plain, 42));
  EXPECT_EQ(pos(sched, 37), pos(plain, 37));
}

// Relaxed atomics move ahead of arithmetic like loads (ptxas issues an unrolled loop's ATOMs back
// to back) but keep their order among loads and atomics; an ordered atomic stays in place.
// Lines: kAtomPtx starts with a newline, `.version` is line 2.
const char *kAtomPtx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry atoms(.param .u64 pw, .param .u64 pout)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pw];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  atom.global.add.u32 %r2, [%rd1], 1;
  add.s32 %r3, %r2, %r1;
  atom.global.add.u32 %r4, [%rd1], 1;
  add.s32 %r5, %r4, %r3;
  ld.global.u32 %r6, [%rd1+4];
  atom.global.exch.b32 %r7, [%rd1+4], %r1;
  add.s32 %r8, %r5, %r6;
  atom.acq_rel.gpu.global.add.u32 %r9, [%rd1+8], 1;
  add.s32 %r10, %r8, %r7;
  add.s32 %r11, %r10, %r9;
  st.global.u32 [%rd4], %r11;
  ret;
}
)";

TEST(ScheduleLoads, RelaxedAtomicsGoFirstInOrderResultsStayTheSame) {
  auto runAtoms = [](bool schedule, std::vector<uint32_t> &lines) {
    ExecHarness h(1, ptx::exec::SimtMode::Auto, schedule);
    EXPECT_TRUE(h.load(kAtomPtx)) << h.errors;
    uint64_t w = h.upload(std::vector<uint32_t>{0, 7, 0}), out = h.alloc(64 * 4);
    auto r = h.launch("atoms", {1}, {64}, {w, out});
    EXPECT_TRUE(r.ok()) << r.message;
    for (const auto &in : h.engine->findKernel("atoms", h.module)->fn->code)
      lines.push_back(in.line);
    std::vector<uint32_t> res = h.read<uint32_t>(out, 64), words = h.read<uint32_t>(w, 3);
    res.insert(res.end(), words.begin(), words.end());
    return res;
  };
  std::vector<uint32_t> plainLines, schedLines;
  std::vector<uint32_t> plain = runAtoms(false, plainLines), sched = runAtoms(true, schedLines);
  EXPECT_EQ(plain, sched); // every thread's results and the words, bit for bit
  EXPECT_EQ(plain[64], 128u);
  EXPECT_EQ(plain[66], 64u);
  auto pos = [](const std::vector<uint32_t> &lines, uint32_t line) {
    for (size_t i = 0; i < lines.size(); ++i)
      if (lines[i] == line)
        return i;
    ADD_FAILURE() << "no line " << line;
    return size_t(0);
  };
  // atomics at lines 14, 16, 19 (relaxed) and 21 (acq_rel); the load at 18; adds 15, 17, 20
  EXPECT_GT(pos(plainLines, 16), pos(plainLines, 15)); // PTX order without scheduling
  EXPECT_LT(pos(schedLines, 16), pos(schedLines, 15)); // the second atomic before the first add
  EXPECT_LT(pos(schedLines, 14), pos(schedLines, 16)); // atomics and loads keep their order
  EXPECT_LT(pos(schedLines, 16), pos(schedLines, 18));
  EXPECT_LT(pos(schedLines, 18), pos(schedLines, 19));
  EXPECT_LT(pos(schedLines, 19), pos(schedLines, 17));
  EXPECT_EQ(pos(schedLines, 21), pos(plainLines, 21)); // an ordered atomic does not move
}

// Pairs ptxas merges into one SASS instruction (fuseSassPairs): the first of each is marked, the
// results are the same bits. Lines: kFusePtx starts with a newline, `.version` is line 2.
const char *kFusePtx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry fuse(.param .u64 pout, .param .u32 pk)
{
  .reg .pred %p<2>;
  .reg .f32 %f<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pout];
  ld.param.u32 %r2, [pk];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  add.s32 %r3, %r1, %r2;
  add.s32 %r3, %r3, 7;
  shl.b32 %r4, %r1, 2;
  add.s32 %r5, %r4, %r2;
  shl.b32 %r6, %r1, 3;
  add.s32 %r7, %r6, 1;
  add.s32 %r8, %r6, %r7;
  shl.b32 %r9, %r1, %r2;
  add.s32 %r10, %r9, 1;
  setp.lt.u32 %p1, %r1, 16;
  add.s32 %r11, %r10, %r8;
  @%p1 add.s32 %r11, %r11, 1;
  cvt.rn.f32.u32 %f1, %r1;
  add.f32 %f2, %f1, 0f3F800000;
  add.f32 %f3, %f2, 0f3F800000;
  cvt.rzi.u32.f32 %r12, %f3;
  add.s32 %r13, %r3, %r5;
  add.s32 %r14, %r13, %r11;
  add.s32 %r15, %r14, %r12;
  st.global.u32 [%rd5], %r15;
  ret;
}
)";

std::pair<std::vector<uint32_t>, std::vector<uint32_t>> runFuse(bool fuse) {
  ExecHarness h(1, ptx::exec::SimtMode::Auto, false, fuse);
  EXPECT_TRUE(h.load(kFusePtx)) << h.errors;
  uint64_t out = h.alloc(32 * 4);
  auto r = h.launch("fuse", {1}, {32}, {out, 5});
  EXPECT_TRUE(r.ok()) << r.message;
  std::vector<uint32_t> fused;
  for (const auto &in : h.engine->findKernel("fuse", h.module)->fn->code)
    if (in.hints & ptx::ir::Inst::kHintFusedIntoNext)
      fused.push_back(in.line);
  return {h.read<uint32_t>(out, 32), fused};
}

TEST(FusePairs, MarksWhatPtxasMergesResultsStayTheSame) {
  auto [plain, none] = runFuse(false);
  auto [merged, fused] = runFuse(true);
  EXPECT_EQ(plain, merged);
  for (uint32_t l = 0; l < 32; ++l) { // the kernel's value, computed here
    uint32_t r3 = l + 5 + 7, r5 = (l << 2) + 5, r8 = (l << 3) + (l << 3) + 1;
    uint32_t r11 = ((l << 5) + 1) + r8 + (l < 16), r12 = l + 2;
    EXPECT_EQ(merged[l], r3 + r5 + r11 + r12) << l;
  }
  EXPECT_TRUE(none.empty());
  // marked (the first of each pair): mul.wide into add.s64 (14), an add into the add that
  // overwrites its result (16), a shl by a constant into the add that alone reads it (18), an
  // add whose result only the next add reads (21, 32). Not marked: a shl whose result two
  // instructions read (20), an add that absorbed one (17, 19, 22, 33), a shift by a register
  // (23), an add before a setp (24), an add before a guarded add (26), float adds (29-30).
  EXPECT_EQ(fused, (std::vector<uint32_t>{14, 16, 18, 21, 32}));
}

// Scalar shared loads ptxas merges into LDS.128/LDS.64 (mergeSharedLoads): marked for the timing
// model only. Lines: `.version` is line 2.
const char *kMergePtx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry merge(.param .u64 pout)
{
  .shared .align 4 .b8 sm[2048];
  .reg .f32 %f<20>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, sm;
  shl.b32 %r3, %r1, 4;
  add.s32 %r4, %r2, %r3;
  cvt.rn.f32.u32 %f1, %r1;
  st.shared.f32 [%r4], %f1;
  st.shared.f32 [%r4+4], %f1;
  st.shared.f32 [%r4+8], %f1;
  st.shared.f32 [%r4+12], %f1;
  bar.sync 0;
  ld.shared.f32 %f2, [%r4+4];
  ld.shared.f32 %f3, [%r4];
  ld.shared.f32 %f4, [%r4+12];
  ld.shared.f32 %f5, [%r4+8];
  ld.shared.f32 %f6, [%r4+16];
  ld.shared.f32 %f7, [%r4+20];
  shl.b32 %r5, %r1, 2;
  add.s32 %r6, %r2, %r5;
  ld.shared.f32 %f8, [%r6];
  ld.shared.f32 %f9, [%r6+4];
  ld.shared.f32 %f10, [%r6+8];
  ld.shared.f32 %f11, [%r6+12];
  ld.shared.f32 %f12, [%r4+32];
  st.shared.f32 [%r4+1024], %f1;
  ld.shared.f32 %f13, [%r4+36];
  add.f32 %f14, %f2, %f3;
  add.f32 %f14, %f14, %f4;
  add.f32 %f14, %f14, %f5;
  add.f32 %f14, %f14, %f6;
  add.f32 %f14, %f14, %f7;
  add.f32 %f14, %f14, %f8;
  add.f32 %f14, %f14, %f9;
  add.f32 %f14, %f14, %f10;
  add.f32 %f14, %f14, %f11;
  add.f32 %f14, %f14, %f12;
  add.f32 %f14, %f14, %f13;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f14;
  ret;
}
)";

TEST(MergeSharedLoads, MarksWhatPtxasVectorizesResultsStayTheSame) {
  auto run = [](bool merge, std::vector<uint32_t> &leads, std::vector<uint32_t> &merged) {
    ExecHarness h(1, ptx::exec::SimtMode::Auto, false, false, merge);
    EXPECT_TRUE(h.load(kMergePtx)) << h.errors;
    uint64_t out = h.alloc(32 * 4);
    auto r = h.launch("merge", {1}, {32}, {out});
    EXPECT_TRUE(r.ok()) << r.message;
    for (const auto &in : h.engine->findKernel("merge", h.module)->fn->code) {
      if (in.mergedLoads)
        leads.push_back(in.line * 10 + in.mergedLoads);
      if (in.hints & ptx::ir::Inst::kHintMergedLoad)
        merged.push_back(in.line);
    }
    return h.read<float>(out, 32);
  };
  std::vector<uint32_t> l0, m0, l1, m1;
  std::vector<float> plain = run(false, l0, m0), vec = run(true, l1, m1);
  EXPECT_EQ(plain, vec);
  EXPECT_TRUE(l0.empty() && m0.empty());
  // one LDS.128 from the 16-byte-aligned base %r4 (lines 22-25, led by the first in PTX order),
  // one LDS.64 (26-27: offsets 16 and 20); not the loads from %r6 (tid * 4: only 4-byte
  // aligned, lines 30-33), nor 32 and 36 (a store between them, lines 34 and 36)
  EXPECT_EQ(l1, (std::vector<uint32_t>{224, 262}));
  EXPECT_EQ(m1, (std::vector<uint32_t>{23, 24, 25, 27}));
  EXPECT_EQ(vec[0], 0 + 0 + 0 + 0 + 1 + 1 + 0 + 0 + 0 + 0 + 2 + 2); // lane 0's chunk, lane 1's, lane 2's
}

// A tile copy as nvcc unrolls it (global load, shared store, twice), then a shared load of the
// tile: the second global load passes the first shared store (the spaces cannot alias), the
// shared load passes neither store, and the results are the same bits. Lines: kTilePtx starts
// with a newline, `.version` is line 2.
const char *kTilePtx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry tile(.param .u64 pin, .param .u64 pout)
{
  .reg .f32 %f<6>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b32 t[64];
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r2, t;
  shl.b32 %r3, %r1, 2;
  add.s32 %r4, %r2, %r3;
  ld.global.f32 %f1, [%rd4];
  st.shared.f32 [%r4], %f1;
  ld.global.f32 %f2, [%rd4+128];
  st.shared.f32 [%r4+128], %f2;
  xor.b32 %r5, %r4, 4;
  ld.shared.f32 %f3, [%r5];
  add.f32 %f4, %f3, %f2;
  add.s64 %rd5, %rd2, %rd3;
  st.global.f32 [%rd5], %f4;
  ret;
}
)";

TEST(ScheduleLoads, GlobalLoadsPassSharedStoresSharedLoadsDoNot) {
  auto run = [](bool schedule, std::vector<uint32_t> &lines) {
    ExecHarness h(1, ptx::exec::SimtMode::Auto, schedule);
    EXPECT_TRUE(h.load(kTilePtx)) << h.errors;
    std::vector<float> in(64);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = float(i) * 0.75f - 3.0f;
    uint64_t din = h.upload(in), dout = h.alloc(32 * 4);
    auto r = h.launch("tile", {1}, {32}, {din, dout});
    EXPECT_TRUE(r.ok()) << r.message;
    for (const auto &i : h.engine->findKernel("tile", h.module)->fn->code)
      lines.push_back(i.line);
    return h.read<float>(dout, 32);
  };
  std::vector<uint32_t> plain, sched;
  std::vector<float> a = run(false, plain), b = run(true, sched);
  EXPECT_EQ(a, b);
  // lane 0 reads lane 1's word (in[1]) and adds its own second one (in[32])
  EXPECT_EQ(b[0], (1 * 0.75f - 3.0f) + (32 * 0.75f - 3.0f));
  auto pos = [](const std::vector<uint32_t> &v, uint32_t line) {
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i] == line)
        return i;
    ADD_FAILURE() << "no line " << line;
    return size_t(0);
  };
  // lines: the global loads 19 and 21, the shared stores 20 and 22, the shared load 24
  EXPECT_GT(pos(plain, 21), pos(plain, 20));
  EXPECT_LT(pos(sched, 21), pos(sched, 20)) << "the second global load stays behind the store";
  EXPECT_GT(pos(sched, 24), pos(sched, 22)) << "a shared load passed a shared store";
  EXPECT_LT(pos(sched, 20), pos(sched, 22)); // the stores keep their order
}

// atom/red.shared.add.u32 of 1 whose result nothing reads is what ptxas makes ATOMS.POPC.INC of
// (kHintCountingAtomic); one whose result is read, or an add of another value, is not.
TEST(CountingAtomics, MarksIncrementsWhoseResultIsUnused) {
  const char *ptx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry count(.param .u64 pout)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 h[64];
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 7;
  shl.b32 %r2, %r2, 2;
  mov.u32 %r3, h;
  add.s32 %r3, %r3, %r2;
  st.shared.u32 [%r3], 0;
  bar.sync 0;
  atom.shared.add.u32 %r4, [%r3], 1;
  red.shared.add.u32 [%r3], 1;
  atom.shared.add.u32 %r5, [%r3], 1;
  atom.shared.add.u32 %r6, [%r3], 2;
  bar.sync 0;
  ld.shared.u32 %r7, [%r3];
  add.u32 %r7, %r7, %r5;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  ret;
}
)";
  ExecHarness h(1, ptx::exec::SimtMode::Auto);
  ASSERT_TRUE(h.load(ptx)) << h.errors;
  uint64_t out = h.alloc(32 * 4);
  auto r = h.launch("count", {1}, {32}, {out});
  ASSERT_TRUE(r.ok()) << r.message;
  std::vector<uint32_t> marked;
  for (const auto &in : h.engine->findKernel("count", h.module)->fn->code)
    if (in.hints & ptx::exec::kHintCountingAtomic)
      marked.push_back(in.line);
  // lines 18 (result unused) and 19 (red); not 20 (%r5 is read) nor 21 (adds 2)
  EXPECT_EQ(marked, (std::vector<uint32_t>{18, 19}));
  // 4 lanes per word, 5 adds each: 20, plus the value lane l's third add saw
  auto v = h.read<uint32_t>(out, 32);
  for (uint32_t l = 0; l < 32; ++l)
    EXPECT_GE(v[l], 20u + 8u) << l;
}

// ld.const from a fixed address whose value only arithmetic reads is a constant-bank operand
// of its users in SASS (markConstOperands): marked for the timing model only.
TEST(ConstOperands, MarksFixedConstantLoadsReadOnlyByArithmetic) {
  const char *ptx = R"(
.version 8.0
.target sm_90
.address_size 64
.const .align 4 .u32 cw[4] = {3, 5, 7, 11};
.visible .entry konst(.param .u64 pout)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  ld.const.u32 %r2, [cw];
  ld.const.u32 %r3, [cw+4];
  ld.const.u32 %r4, [cw+8];
  ld.const.u32 %r5, [cw+12];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  mov.u64 %rd4, cw;
  ld.const.u32 %r6, [%rd4+4];
  mad.lo.s32 %r7, %r1, %r2, %r6;
  add.s32 %r8, %r4, %r5;
  add.s32 %r9, %r7, %r8;
  st.global.u32 [%rd3], %r9;
  st.global.u32 [%rd3+128], %r3;
  ret;
}
)";
  ExecHarness h(1, ptx::exec::SimtMode::Auto);
  ASSERT_TRUE(h.load(ptx)) << h.errors;
  uint64_t out = h.alloc(64 * 4);
  auto r = h.launch("konst", {1}, {32}, {out});
  ASSERT_TRUE(r.ok()) << r.message;
  std::vector<uint32_t> marked;
  for (const auto &in : h.engine->findKernel("konst", h.module)->fn->code)
    if (in.sassRole == uint8_t(ptx::exec::SassRole::ConstOperand))
      marked.push_back(in.line);
  // lines 12 (read by mad) and 14 (the first of the two an add reads); not 13 (stored), 15 (the
  // add's second constant operand) nor 19 (a register address)
  EXPECT_EQ(marked, (std::vector<uint32_t>{12, 14}));
  auto v = h.read<uint32_t>(out, 64);
  for (uint32_t l = 0; l < 32; ++l) {
    EXPECT_EQ(v[l], l * 3 + 5 + 7 + 11) << l;
    EXPECT_EQ(v[32 + l], 5u) << l;
  }
}

// mul.f32 then add.f32 (no rounding modifiers) of the product: ptxas contracts them into one FFMA
// and so does the lowering (findContractedAdds); mul.rn/add.rn stay two roundings.
TEST(Contraction, MulAddWithoutRoundingIsFma) {
  const char *ptx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pout, .param .f32 pa, .param .f32 pc)
{
  .reg .f32 %f<12>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [pout];
  ld.param.f32 %f1, [pa];
  ld.param.f32 %f2, [pc];
  mul.f32 %f3, %f1, %f1;
  add.f32 %f4, %f3, %f2;
  mul.rn.f32 %f5, %f1, %f1;
  add.rn.f32 %f6, %f5, %f2;
  mul.f32 %f7, %f1, %f1;
  add.f32 %f8, %f2, %f7;
  add.f32 %f9, %f7, %f2;
  st.global.f32 [%rd1], %f4;
  st.global.f32 [%rd1+4], %f6;
  st.global.f32 [%rd1+8], %f8;
  st.global.f32 [%rd1+12], %f9;
  ret;
}
)";
  ExecHarness h;
  ASSERT_TRUE(h.load(ptx)) << h.errors;
  uint64_t out = h.alloc(16);
  float a = 1.0f + 0x1p-12f, c = -1.0f;
  uint32_t ab, cb;
  std::memcpy(&ab, &a, 4);
  std::memcpy(&cb, &c, 4);
  auto r = h.launch("k", {1}, {1}, {out, ab, cb});
  ASSERT_TRUE(r.ok()) << r.message;
  std::vector<float> v = h.read<float>(out, 4);
  EXPECT_EQ(v[0], 0x1p-11f + 0x1p-24f); // fused: the exact a*a - 1
  EXPECT_EQ(v[1], 0x1p-11f);            // rounded product first
  EXPECT_EQ(v[2], 0x1p-11f);            // the product is read twice: not contracted
  EXPECT_EQ(v[3], 0x1p-11f);
}

// Short forward branches become predication (ifConvertShortBranches), as ptxas if-converts them:
// reduce<256>'s `s += in[i]; if (i + 256 < n) s += in[i + 256];` in a grid-stride loop. The
// 2-instruction body (lines 24-25) is guarded by the branch's predicate negated and its load
// issues before the first add (line 20); the 5-instruction body (lines 33-37) and the body a
// second branch also jumps past (lines 43-44: its target is reached from line 40 too) keep their
// branches.
// Lanes take both ways (n is not a multiple of the stride); results are the same bits. Lines:
// kIfPtx starts with a newline, `.version` is line 2.
const char *kIfPtx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry red(.param .u64 pin, .param .u64 pout, .param .u32 pn)
{
  .reg .pred %p<6>;
  .reg .f32 %f<12>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  ld.param.u32 %r1, [pn];
  mov.u32 %r2, %tid.x;
  mov.f32 %f1, 0f00000000;
LOOP:
  mul.wide.s32 %rd3, %r2, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f2, [%rd4];
  add.f32 %f1, %f1, %f2;
  add.s32 %r3, %r2, 32;
  setp.ge.s32 %p1, %r3, %r1;
  @%p1 bra SKIP;
  ld.global.f32 %f3, [%rd4+128];
  add.f32 %f1, %f1, %f3;
SKIP:
  add.s32 %r2, %r2, 64;
  setp.lt.s32 %p2, %r2, %r1;
  @%p2 bra LOOP;
  mov.u32 %r4, %tid.x;
  setp.gt.u32 %p3, %r4, 7;
  @%p3 bra LONG;
  add.f32 %f1, %f1, 0f3F800000;
  add.f32 %f1, %f1, 0f3F800000;
  add.f32 %f1, %f1, 0f3F800000;
  add.f32 %f1, %f1, 0f3F800000;
  add.f32 %f1, %f1, 0f3F800000;
LONG:
  setp.eq.u32 %p4, %r4, 3;
  @%p4 bra JOIN;
  setp.eq.u32 %p5, %r4, 5;
  @%p5 bra JOIN;
  mul.f32 %f1, %f1, 0f40000000;
  add.f32 %f1, %f1, 0f3F800000;
JOIN:
  mul.wide.u32 %rd5, %r4, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.f32 [%rd6], %f1;
  ret;
}
)";

TEST(IfConvert, ShortBranchesBecomePredicationResultsStayTheSame) {
  struct Out {
    std::vector<float> res;
    std::vector<uint32_t> lines, guarded, converted;
  };
  auto runIf = [](uint32_t maxInsts) {
    ExecHarness h(1, ptx::exec::SimtMode::Auto, true, true, false, maxInsts);
    EXPECT_TRUE(h.load(kIfPtx)) << h.errors;
    std::vector<float> in(200);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = float(i % 7) * 0.375f + 0.125f;
    uint64_t din = h.upload(in), dout = h.alloc(32 * 4);
    auto r = h.launch("red", {1}, {32}, {din, dout, 170}); // lanes 0..9 load a 6th element
    EXPECT_TRUE(r.ok()) << r.message;
    Out o;
    o.res = h.read<float>(dout, 32);
    for (const auto &i : h.engine->findKernel("red", h.module)->fn->code) {
      o.lines.push_back(i.line);
      if (i.guard != ptx::ir::kPredTrue && i.ctl == ptx::ir::Ctl::None)
        o.guarded.push_back(i.line);
      if (i.hints & ptx::exec::kHintIfConverted) {
        o.converted.push_back(i.line);
        EXPECT_TRUE(i.hints & ptx::ir::Inst::kHintFusedIntoNext);
        EXPECT_EQ(i.ctl, ptx::ir::Ctl::None);
      }
    }
    return o;
  };
  Out plain = runIf(0), conv = runIf(4), wide = runIf(5);
  EXPECT_EQ(plain.res, conv.res); // bit for bit
  EXPECT_EQ(plain.res, wide.res);
  // lane 0: in[0], in[32], in[64], in[96], in[128], in[160] (+ in[192]? no: 192 >= 170), then
  // five increments (lane < 8), then doubled and incremented (lane is not 3 or 5)
  float s = 0;
  for (int i : {0, 32, 64, 96, 128, 160})
    s += float(i % 7) * 0.375f + 0.125f;
  EXPECT_EQ(plain.res[0], (s + 5.0f) * 2.0f + 1.0f);
  EXPECT_TRUE(plain.converted.empty());
  EXPECT_EQ(conv.converted, (std::vector<uint32_t>{23}));
  EXPECT_EQ(conv.guarded, (std::vector<uint32_t>{24, 25}));
  EXPECT_EQ(wide.converted, (std::vector<uint32_t>{23, 32})); // 5 instructions with a limit of 5
  auto pos = [](const std::vector<uint32_t> &v, uint32_t line) {
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i] == line)
        return i;
    ADD_FAILURE() << "no line " << line;
    return size_t(0);
  };
  EXPECT_GT(pos(plain.lines, 24), pos(plain.lines, 20));
  EXPECT_LT(pos(conv.lines, 24), pos(conv.lines, 20)) << "the predicated load waits for the first add";
  EXPECT_LT(pos(conv.lines, 22), pos(conv.lines, 24)); // after the setp of its guard
  EXPECT_EQ(pos(conv.lines, 43), pos(plain.lines, 43)); // a body with two ways in stays put
}

// A CTA zeroes only the registers some lane may read before writing them (RegInit.h), and a
// short branch made predication no longer stops the analysis: the no-op it leaves reads and
// writes nothing. %r4 is written only in the lanes that fall through (the guarded body); the
// others read it unwritten, so it must start at 0 in every CTA, although the CTA before (the
// same Cta object, reused) wrote it in those lanes.
TEST(IfConvert, ConvertedBranchKeepsTheZeroedRegistersKnown) {
  const char *ptx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd0, [out];
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %ctaid.x;
  add.u32 %r2, %r0, %r1;
  and.b32 %r3, %r2, 1;
  setp.eq.u32 %p0, %r3, 1;
  @%p0 bra SKIP;
  add.u32 %r4, %r0, 100;
SKIP:
  mad.lo.u32 %r5, %r1, 32, %r0;
  mul.wide.u32 %rd1, %r5, 8;
  add.s64 %rd2, %rd0, %rd1;
  st.global.v2.u32 [%rd2], {%r4, %r2};
  ret;
}
)";
  for (uint32_t maxInsts : {0u, 4u}) {
    SCOPED_TRACE("if-convert limit " + std::to_string(maxInsts));
    ExecHarness h(1, ptx::exec::SimtMode::Auto, true, true, false, maxInsts);
    ASSERT_TRUE(h.load(ptx)) << h.errors;
    const ptx::ir::Function &fn = *h.engine->findKernel("k", h.module)->fn;
    bool converted = false;
    for (const auto &i : fn.code)
      converted |= (i.hints & ptx::exec::kHintIfConverted) != 0;
    EXPECT_EQ(converted, maxInsts > 0);
    EXPECT_TRUE(fn.zeroAtStartKnown);
    uint32_t zeroed = 0;
    for (auto [first, count] : fn.zeroAtStart)
      zeroed += count;
    EXPECT_GE(zeroed, 1u); // %r4
    EXPECT_LT(zeroed, fn.numRegs);
    const unsigned blocks = 8;
    uint64_t out = h.alloc(blocks * 32 * 8);
    auto r = h.launch("k", {blocks}, {32}, {out});
    ASSERT_TRUE(r.ok()) << r.message;
    std::vector<uint32_t> v = h.read<uint32_t>(out, blocks * 32 * 2);
    for (unsigned c = 0; c < blocks; ++c)
      for (unsigned t = 0; t < 32; ++t) {
        const bool odd = (t + c) & 1;
        EXPECT_EQ(v[(c * 32 + t) * 2], odd ? 0u : t + 100) << "cta " << c << " thread " << t;
        EXPECT_EQ(v[(c * 32 + t) * 2 + 1], t + c);
      }
  }
}

// A body with an atomic keeps its branch (ptxas does not predicate hist64's merge, a RED behind
// `if (threadIdx.x < 64)`), a body with a global load and store of the same length is
// predicated (conv5's filter copy). Lines: kIfAtomPtx starts with a newline, `.version` is line 2.
const char *kIfAtomPtx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pin, .param .u64 pout)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  setp.gt.u32 %p1, %r1, 7;
  @%p1 bra SKIP1;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r2;
SKIP1:
  setp.gt.u32 %p2, %r1, 3;
  @%p2 bra SKIP2;
  add.s64 %rd6, %rd2, 128;
  ld.global.u32 %r3, [%rd1];
  add.s64 %rd7, %rd6, %rd3;
  atom.global.add.u32 %r4, [%rd7], %r3;
SKIP2:
  ret;
}
)";

TEST(IfConvert, AtomicsKeepTheirBranch) {
  auto runAtom = [](uint32_t maxInsts, std::vector<uint32_t> &converted) {
    ExecHarness h(1, ptx::exec::SimtMode::Auto, true, false, false, maxInsts);
    EXPECT_TRUE(h.load(kIfAtomPtx)) << h.errors;
    std::vector<uint32_t> in(32);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = uint32_t(i * 3 + 1);
    uint64_t din = h.upload(in), dout = h.upload(std::vector<uint32_t>(64, 0));
    auto r = h.launch("k", {1}, {32}, {din, dout});
    EXPECT_TRUE(r.ok()) << r.message;
    for (const auto &i : h.engine->findKernel("k", h.module)->fn->code)
      if (i.hints & ptx::exec::kHintIfConverted)
        converted.push_back(i.line);
    return h.read<uint32_t>(dout, 64);
  };
  std::vector<uint32_t> c0, c8;
  std::vector<uint32_t> plain = runAtom(0, c0), conv = runAtom(8, c8);
  EXPECT_EQ(plain, conv);
  EXPECT_EQ(plain[5], 16u);     // lane 5 copied in[5]
  EXPECT_EQ(plain[9], 0u);      // lane 9 skipped the copy
  EXPECT_EQ(plain[32 + 2], 1u); // lane 2 added in[0] to out[32 + 2]
  EXPECT_EQ(plain[32 + 6], 0u);
  EXPECT_TRUE(c0.empty());
  EXPECT_EQ(c8, (std::vector<uint32_t>{15})); // the copy's branch, not the atomic's (line 22)
}

} // namespace
} // namespace ptxsim::test

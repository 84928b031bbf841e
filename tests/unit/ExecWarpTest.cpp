// Executor warp-wide instructions: shfl (all modes, segment widths, out-of-range lanes), vote,
// match, redux, activemask and elect, with partial warps and divergence. Expected values are
// computed here from the CUDA-level definitions (__shfl_*_sync with a width, __ballot_sync...).

#include "ExecHarness.h"

#include <algorithm>

using namespace ptxsim;
using namespace ptxsim::test;

namespace {

/// Kernel `name(.u64 out, .u32 b, .u32 c)`: lane in %r1, out + tid*8 in %rd3 (two u32 slots
/// per thread); `body` follows.
std::string kernel(const std::string &name, const std::string &body) {
  return ".visible .entry " + name + R"((.param .u64 out, .param .u32 b, .param .u32 c) {
  .reg .b32 %r<24>; .reg .b64 %rd<8>; .reg .pred %p<6>;
  ld.param.u64 %rd1, [out]; ld.param.u32 %r10, [b]; ld.param.u32 %r11, [c];
  mov.u32 %r1, %laneid; mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd2, %r2, 8;
  add.s64 %rd3, %rd1, %rd2;
)" + body + "\nDONE:\n  ret;\n}\n";
}

struct Lanes {
  uint32_t v[32], p[32];
};

Lanes runLanes(ExecHarness &h, const char *k, uint32_t b, uint32_t c, unsigned threads = 32) {
  uint64_t out = h.alloc(threads * 8);
  std::vector<uint32_t> fill(threads * 2, 0xdeadbeef);
  std::memcpy(reinterpret_cast<void *>(out), fill.data(), threads * 8);
  auto r = h.launch(k, {1}, {threads}, {out, b, c});
  EXPECT_TRUE(r.ok()) << r.message;
  auto v = h.read<uint32_t>(out, threads * 2);
  Lanes l;
  for (unsigned i = 0; i < 32; ++i) {
    l.v[i] = i < threads ? v[i * 2] : 0xdeadbeef;
    l.p[i] = i < threads ? v[i * 2 + 1] : 0xdeadbeef;
  }
  return l;
}

uint32_t value(unsigned lane) { return lane * 7 + 100; }

const char *kShfl = R"(
  mad.lo.u32 %r3, %r1, 7, 100;
  shfl.sync.MODE.b32 %r4|%p1, %r3, %r10, %r11, 0xffffffff;
  selp.u32 %r5, 1, 0, %p1;
  st.global.v2.u32 [%rd3], {%r4, %r5};)";

std::string shflKernels() {
  std::string s;
  for (const char *m : {"up", "down", "bfly", "idx"}) {
    std::string body = kShfl;
    body.replace(body.find("MODE"), 4, m);
    s += kernel(std::string("shfl_") + m, body);
  }
  return s;
}

TEST(ExecWarp, ShflAllModesAndWidths) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + shflKernels())) << h.errors;
  for (unsigned width : {4u, 8u, 16u, 32u}) {
    uint32_t segc = (32 - width) << 8;
    for (unsigned delta : {0u, 1u, 2u, 3u, 5u, width - 1, width, width + 1, 31u}) {
      SCOPED_TRACE("width " + std::to_string(width) + " delta " + std::to_string(delta));
      Lanes up = runLanes(h, "shfl_up", delta, segc);
      Lanes down = runLanes(h, "shfl_down", delta, segc | 0x1f);
      Lanes bfly = runLanes(h, "shfl_bfly", delta, segc | 0x1f);
      Lanes idx = runLanes(h, "shfl_idx", delta, segc | 0x1f);
      for (unsigned l = 0; l < 32; ++l) {
        unsigned base = l / width * width, pos = l % width;
        // __shfl_up_sync: from lane - delta within the segment, else own value
        bool okUp = (delta & 31) <= pos;
        EXPECT_EQ(up.v[l], value(okUp ? l - (delta & 31) : l)) << "up lane " << l;
        EXPECT_EQ(up.p[l], okUp ? 1u : 0u) << "up lane " << l;
        // __shfl_down_sync: from lane + delta within the segment, else own value
        bool okDown = pos + (delta & 31) < width;
        EXPECT_EQ(down.v[l], value(okDown ? l + (delta & 31) : l)) << "down lane " << l;
        EXPECT_EQ(down.p[l], okDown ? 1u : 0u) << "down lane " << l;
        // __shfl_xor_sync: lanes of later segments are out of range, earlier ones readable
        unsigned x = l ^ (delta & 31);
        bool okX = x < base + width;
        EXPECT_EQ(bfly.v[l], value(okX ? x : l)) << "bfly lane " << l;
        EXPECT_EQ(bfly.p[l], okX ? 1u : 0u) << "bfly lane " << l;
        // __shfl_sync: lane srcLane % width of the own segment, always in range
        EXPECT_EQ(idx.v[l], value(base + delta % width)) << "idx lane " << l;
        EXPECT_EQ(idx.p[l], 1u) << "idx lane " << l;
      }
    }
  }
}

TEST(ExecWarp, ShflClampBelowSegmentEnd) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + shflKernels())) << h.errors;
  // no segments (mask 0), clamp 20: down and idx reach at most lane 20; up needs j >= 20
  Lanes down = runLanes(h, "shfl_down", 3, 20);
  Lanes idx = runLanes(h, "shfl_idx", 25, 20);
  Lanes up = runLanes(h, "shfl_up", 2, 20);
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(down.v[l], value(l + 3 <= 20 ? l + 3 : l)) << l;
    EXPECT_EQ(down.p[l], l + 3 <= 20 ? 1u : 0u) << l;
    EXPECT_EQ(idx.v[l], value(l)) << l; // 25 > 20: out of range, own value
    EXPECT_EQ(idx.p[l], 0u) << l;
    bool okUp = (int)l - 2 >= 20;
    EXPECT_EQ(up.v[l], value(okUp ? l - 2 : l)) << l;
  }
}

TEST(ExecWarp, ShflFromInactiveLaneReadsItsRegister) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + kernel("k", R"(
  mad.lo.u32 %r3, %r1, 7, 100;
  setp.ge.u32 %p2, %r1, 16;
  @%p2 bra SKIP;
  add.u32 %r3, %r3, 1000;             // only the low half changes its value
  shfl.sync.idx.b32 %r4, %r3, %r10, 0x1f, 0xffff;
  shfl.sync.down.b32 %r5|%p1, %r3, 4, 0x1f, 0xffff;
  st.global.v2.u32 [%rd3], {%r4, %r5};
SKIP:
  mov.u32 %r6, 0;)"))) << h.errors;
  Lanes l = runLanes(h, "k", 20, 0);
  for (unsigned i = 0; i < 16; ++i) {
    EXPECT_EQ(l.v[i], value(20)) << i; // lane 20 did not execute: its register as it was
    EXPECT_EQ(l.p[i], value(i + 4) + (i + 4 < 16 ? 1000 : 0)) << i;
  }
  for (unsigned i = 16; i < 32; ++i)
    EXPECT_EQ(l.v[i], 0xdeadbeefu) << i;
}

TEST(ExecWarp, VotePartialWarpAndDivergence) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + kernel("full", R"(
  and.b32 %r3, %r1, 1;
  setp.eq.u32 %p1, %r3, 0;           // even lanes
  vote.sync.ballot.b32 %r4, %p1, 0xffffffff;
  setp.lt.u32 %p2, %r1, 64;          // true in every existing lane
  vote.sync.all.pred %p3, %p2, 0xffffffff;
  vote.sync.any.pred %p4, !%p2, 0xffffffff;
  vote.sync.uni.pred %p5, %p1, 0xffffffff;
  selp.u32 %r5, 1, 0, %p3;
  selp.u32 %r6, 2, 0, %p4;
  selp.u32 %r7, 4, 0, %p5;
  or.b32 %r5, %r5, %r6; or.b32 %r5, %r5, %r7;
  st.global.v2.u32 [%rd3], {%r4, %r5};)") + kernel("div", R"(
  rem.u32 %r3, %r1, 3;
  setp.ne.u32 %p1, %r3, 0;
  @%p1 bra DONE;                      // lanes 0,3,6,...
  activemask.b32 %r8;
  and.b32 %r3, %r1, 1;
  setp.eq.u32 %p1, %r3, 0;
  vote.sync.ballot.b32 %r4, %p1, %r8;
  vote.sync.all.pred %p3, %p1, %r8;
  vote.sync.any.pred %p4, %p1, %r8;
  setp.lt.u32 %p2, %r1, 100;
  vote.sync.uni.pred %p5, %p2, %r8;
  selp.u32 %r5, 1, 0, %p3;
  selp.u32 %r6, 2, 0, %p4;
  selp.u32 %r7, 4, 0, %p5;
  or.b32 %r5, %r5, %r6; or.b32 %r5, %r5, %r7;
  st.global.v2.u32 [%rd3], {%r4, %r5};
  st.global.u32 [%rd1+512], %r8;)"))) << h.errors;
  // a partial warp of 20 threads: lanes 20..31 do not exist
  Lanes f = runLanes(h, "full", 0, 0, 20);
  for (unsigned i = 0; i < 20; ++i) {
    EXPECT_EQ(f.v[i], 0x55555u) << i;
    EXPECT_EQ(f.p[i], 1u | 0u | 0u) << i; // all true, any(!true) false, even lanes not uniform
  }
  uint64_t out = h.alloc(1024);
  auto r = h.launch("div", {1}, {32}, {out, 0, 0});
  ASSERT_TRUE(r.ok()) << r.message;
  auto v = h.read<uint32_t>(out, 129);
  uint32_t active = 0, even = 0;
  for (unsigned i = 0; i < 32; i += 3)
    active |= 1u << i;
  for (unsigned i = 0; i < 32; i += 6)
    even |= 1u << i;
  EXPECT_EQ(v[128], active);
  for (unsigned i = 0; i < 32; i += 3) {
    EXPECT_EQ(v[i * 2], even) << i;
    EXPECT_EQ(v[i * 2 + 1], 0u | 2u | 4u) << i; // not all even, some even, all below 100
  }
}

TEST(ExecWarp, MatchAnyAll) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + kernel("any32", R"(
  rem.u32 %r3, %r1, 5;
  match.any.sync.b32 %r4, %r3, 0xffffffff;
  match.all.sync.b32 %r5|%p1, %r3, 0xffffffff;
  selp.u32 %r6, 1, 0, %p1;
  shl.b32 %r6, %r6, 31;
  or.b32 %r5, %r5, %r6;
  st.global.v2.u32 [%rd3], {%r4, %r5};)") + kernel("all64", R"(
  mul.wide.u32 %rd4, %r10, 1;
  shl.b64 %rd4, %rd4, 32;
  setp.eq.u32 %p2, %r1, 9;
  selp.b64 %rd5, %rd4, 0, %p2;       // lane 9 differs only in the upper word when b != 0
  match.all.sync.b64 %r5|%p1, %rd5, 0xffffffff;
  match.any.sync.b64 %r4, %rd5, 0xffffffff;
  selp.u32 %r6, 1, 0, %p1;
  st.global.v2.u32 [%rd3], {%r4, %r5};
  st.global.u32 [%rd1+256], %r6;)"))) << h.errors;
  Lanes a = runLanes(h, "any32", 0, 0);
  for (unsigned i = 0; i < 32; ++i) {
    uint32_t same = 0;
    for (unsigned k = 0; k < 32; ++k)
      same |= uint32_t(k % 5 == i % 5) << k;
    EXPECT_EQ(a.v[i], same) << i;
    EXPECT_EQ(a.p[i], 0u) << i; // not all equal: d = 0, p = false
  }
  Lanes u = runLanes(h, "all64", 0, 0);
  for (unsigned i = 0; i < 32; ++i) {
    EXPECT_EQ(u.v[i], 0xffffffffu) << i;
    EXPECT_EQ(u.p[i], 0xffffffffu) << i;
  }
  Lanes d = runLanes(h, "all64", 1, 0);
  for (unsigned i = 0; i < 32; ++i) {
    EXPECT_EQ(d.v[i], i == 9 ? 0x200u : ~0x200u) << i;
    EXPECT_EQ(d.p[i], 0u) << i;
  }
}

TEST(ExecWarp, ReduxOverParticipants) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + kernel("k", R"(
  mul.lo.u32 %r3, %r1, 2654435761;
  shr.u32 %r3, %r3, 4;
  sub.s32 %r3, %r3, 134217728;          // mixed signs
  and.b32 %r12, %r1, 1;
  setp.ne.u32 %p1, %r12, %r10;
  @%p1 bra DONE;                          // b = 0: even lanes, b = 1: odd lanes
  activemask.b32 %r9;
  redux.sync.add.s32 %r4, %r3, %r9;
  redux.sync.min.s32 %r5, %r3, %r9;
  redux.sync.max.u32 %r6, %r3, %r9;
  redux.sync.and.b32 %r7, %r3, %r9;
  redux.sync.or.b32 %r8, %r3, %r9;
  redux.sync.xor.b32 %r13, %r3, %r9;
  redux.sync.min.u32 %r14, %r3, %r9;
  redux.sync.max.s32 %r15, %r3, %r9;
  mul.wide.u32 %rd4, %r1, 32;
  add.s64 %rd5, %rd1, %rd4;
  st.global.v4.u32 [%rd5], {%r4, %r5, %r6, %r7};
  st.global.v4.u32 [%rd5+16], {%r8, %r13, %r14, %r15};)"))) << h.errors;
  for (uint32_t parity : {0u, 1u}) {
    uint64_t out = h.alloc(32 * 32);
    auto r = h.launch("k", {1}, {32}, {out, parity, 0});
    ASSERT_TRUE(r.ok()) << r.message;
    auto v = h.read<uint32_t>(out, 32 * 8);
    int32_t sum = 0, mins = INT32_MAX, maxs = INT32_MIN;
    uint32_t maxu = 0, minu = UINT32_MAX, andv = ~0u, orv = 0, xorv = 0;
    for (uint32_t l = parity; l < 32; l += 2) {
      uint32_t x = ((l * 2654435761u) >> 4) - 134217728u;
      sum += (int32_t)x, mins = std::min(mins, (int32_t)x), maxs = std::max(maxs, (int32_t)x);
      maxu = std::max(maxu, x), minu = std::min(minu, x);
      andv &= x, orv |= x, xorv ^= x;
    }
    std::vector<uint32_t> want = {(uint32_t)sum, (uint32_t)mins, maxu, andv, orv, xorv, minu,
                                  (uint32_t)maxs};
    for (uint32_t l = 0; l < 32; ++l) {
      std::vector<uint32_t> got(v.begin() + l * 8, v.begin() + l * 8 + 8);
      if (l % 2 == parity)
        EXPECT_EQ(got, want) << "lane " << l;
      else
        EXPECT_EQ(got, std::vector<uint32_t>(8, 0)) << "lane " << l;
    }
  }
}

TEST(ExecWarp, ActivemaskAndElect) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + kernel("k", R"(
  setp.lt.u32 %p1, %r1, %r10;
  @%p1 bra DONE;                      // lanes >= b go on
  setp.eq.u32 %p2, %r1, 30;
  @%p2 activemask.b32 %r3;            // guarded: still reports all active lanes
  @!%p2 activemask.b32 %r3;
  elect.sync %r4|%p3, %r11;
  selp.u32 %r5, 1, 0, %p3;
  shl.b32 %r5, %r5, 8;
  or.b32 %r4, %r4, %r5;
  st.global.v2.u32 [%rd3], {%r3, %r4};)"))) << h.errors;
  Lanes l = runLanes(h, "k", 5, 0xfffffff0u);
  for (unsigned i = 0; i < 32; ++i) {
    if (i < 5) {
      EXPECT_EQ(l.v[i], 0xdeadbeefu);
      continue;
    }
    EXPECT_EQ(l.v[i], 0xffffffe0u) << i;
    // leader: lowest lane both active (>= 5) and in the membermask (>= 4): lane 5
    EXPECT_EQ(l.p[i], 5u | (i == 5 ? 0x100u : 0u)) << i;
  }
}

TEST(ExecWarp, FnsFindsNthSetBit) {
  ExecHarness h;
  // lane l: base l, offset b - 3 (b from the parameter); c is the mask
  ASSERT_TRUE(h.load(ptxHeader() + kernel("k", R"(
  sub.s32 %r3, %r10, 3;
  fns.b32 %r4, %r11, %r1, %r3;
  st.global.v2.u32 [%rd3], {%r4, %r3};)"))) << h.errors;
  auto ref = [](uint32_t mask, unsigned base, int off) -> uint32_t {
    // walk the bits one by one from base in the offset's direction
    if (off == 0)
      return (mask >> base & 1) ? base : ~0u;
    int seen = 0;
    for (int p = (int)base; p >= 0 && p < 32; p += off > 0 ? 1 : -1)
      if ((mask >> p & 1) && ++seen == (off > 0 ? off : -off))
        return (uint32_t)p;
    return ~0u;
  };
  for (uint32_t mask : {0x0u, 0xffffffffu, 0x80000001u, 0x12345678u, 0xf0f00f0fu}) {
    for (uint32_t b = 0; b <= 7; ++b) {
      Lanes l = runLanes(h, "k", b, mask);
      for (unsigned i = 0; i < 32; ++i)
        EXPECT_EQ(l.v[i], ref(mask, i, (int)b - 3)) << "mask " << mask << " lane " << i << " b " << b;
    }
  }
}

TEST(ExecWarp, LegacyFormsWithoutMembermask) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_60") + kernel("k", R"(
  mad.lo.u32 %r3, %r1, 7, 100;
  setp.ge.u32 %p2, %r1, 12;
  @%p2 bra DONE;
  shfl.up.b32 %r4|%p1, %r3, 1, 0;
  setp.eq.u32 %p3, %r1, 11;
  vote.any.pred %p4, %p3;
  vote.ballot.b32 %r5, %p1;
  selp.u32 %r6, 0x10000, 0, %p4;
  or.b32 %r5, %r5, %r6;
  st.global.v2.u32 [%rd3], {%r4, %r5};)"))) << h.errors;
  Lanes l = runLanes(h, "k", 0, 0);
  for (unsigned i = 0; i < 12; ++i) {
    EXPECT_EQ(l.v[i], value(i == 0 ? 0 : i - 1)) << i;
    EXPECT_EQ(l.p[i], 0xffeu | 0x10000u) << i; // lanes 1..11 read in range; lane 11 votes
  }
}

// setmaxnreg (sm_90a) and griddepcontrol have no functional effect: they run as no-ops and the
// code around them is unaffected.
TEST(ExecWarp, SetmaxnregAndGriddepcontrolAreNoOps) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_90a") + R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<3>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  griddepcontrol.wait;
  setmaxnreg.inc.sync.aligned.u32 240;
  mov.u32 %r1, %tid.x;
  mul.lo.u32 %r2, %r1, 3;
  setmaxnreg.dec.sync.aligned.u32 40;
  griddepcontrol.launch_dependents;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
})")) << h.errors;
  auto v = h.runOneWarp("k");
  ASSERT_EQ(v.size(), 32u);
  for (uint32_t i = 0; i < 32; ++i)
    EXPECT_EQ(v[i], 3 * i) << i;
}

} // namespace

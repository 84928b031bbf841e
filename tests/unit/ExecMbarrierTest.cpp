// Executor mbarrier: init, arrive (tokens, counts), arrive_drop, phase completion seen by
// test_wait/try_wait (token and parity forms) across several warps, expect_tx/complete_tx
// accounting, pending_count, generic addresses, inval, and the fault for an arrival the phase
// does not expect. Raw objects are checked against the encoding documented in OpsMbarrier.cpp.

#include "ExecHarness.h"

using namespace ptxsim;
using namespace ptxsim::test;

namespace {

/// The object as OpsMbarrier.cpp encodes it.
uint64_t mbarWord(uint32_t pending, uint32_t expected, int32_t tx, uint32_t phase) {
  return pending | (uint64_t)expected << 20 | (uint64_t)((uint32_t)tx & 0x1fffff) << 40 |
         (uint64_t)(phase & 7) << 61;
}

const char *kBasic = R"(
.visible .entry mb_basic(.param .u64 out) {
  .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<4>;
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SKIP;
  mbarrier.init.shared.b64 [bar], 32;
SKIP:
  bar.sync 0;
  mbarrier.arrive.shared.b64 %rd2, [bar];
  mbarrier.pending_count.b64 %r2, %rd2;
  mbarrier.test_wait.shared.b64 %p2, [bar], %rd2;
  selp.u32 %r3, 1, 0, %p2;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  ld.shared.b64 %rd5, [bar];
  st.global.v2.u32 [%rd4], {%r2, %r3};
  st.global.u64 [%rd4+8], %rd5;
  ret;
})";

TEST(ExecMbarrier, ArriveReturnsTokenAndCompletesPhase) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_80") + kBasic)) << h.errors;
  uint64_t out = h.alloc(32 * 16);
  auto r = h.launch("mb_basic", {1}, {32}, {out});
  ASSERT_TRUE(r.ok()) << r.message;
  for (uint32_t l = 0; l < 32; ++l) {
    auto v = h.read<uint32_t>(out + l * 16, 2);
    EXPECT_EQ(v[0], 32 - l) << "pending count in the token of lane " << l;
    EXPECT_EQ(v[1], 1u) << "phase complete for lane " << l;
    EXPECT_EQ(h.read<uint64_t>(out + l * 16 + 8, 1)[0], mbarWord(32, 32, 0, 1));
  }
}

// Every thread writes data[tid] = 3 * tid + 1, then runs `wait` (arrivals and a wait loop),
// then reads data[(tid + shift) % 128 | orMask]: data written before arrivals the phase waited
// for.
std::string waitKernel(const char *name, unsigned count, const char *wait, unsigned shift,
                       unsigned orMask = 0) {
  return std::string(".visible .entry ") + name + R"((.param .u64 out) {
  .reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<4>;
  .shared .align 8 .b64 bar;
  .shared .align 4 .b32 data[128];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  and.b32 %r3, %r1, 31;
  mov.u32 %r4, data;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SKIP;
  mbarrier.init.shared.b64 [bar], )" + std::to_string(count) + R"(;
SKIP:
  bar.sync 0;
  mad.lo.u32 %r5, %r1, 3, 1;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r4, %r6;
  st.shared.u32 [%r7], %r5;
)" + wait + R"(
  add.u32 %r8, %r1, )" + std::to_string(shift) + R"(;
  and.b32 %r8, %r8, 127;
  or.b32 %r8, %r8, )" + std::to_string(orMask) + R"(;
  shl.b32 %r8, %r8, 2;
  add.u32 %r8, %r4, %r8;
  ld.shared.u32 %r9, [%r8];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r9;
  ret;
}
)";
}

void expectNeighbourData(ExecHarness &h, const char *kernel, unsigned shift, unsigned orMask = 0) {
  uint64_t out = h.alloc(128 * 4);
  auto r = h.launch(kernel, {2}, {128}, {out});
  ASSERT_TRUE(r.ok()) << kernel << ": " << r.message;
  auto v = h.read<uint32_t>(out, 128);
  for (uint32_t t = 0; t < 128; ++t)
    EXPECT_EQ(v[t], ((t + shift) % 128 | orMask) * 3 + 1) << kernel << " thread " << t;
}

TEST(ExecMbarrier, WaitersSeeDataWrittenBeforeTheLastArrival) {
  ExecHarness h;
  // Only warp 3 arrives (count 32); every warp spins on try_wait.parity for phase 0 and then
  // reads warp 3's data. Warp 3 arrives last in round-robin order, so warps 0-2 see try_wait
  // fail first.
  std::string tryWait = waitKernel("mb_try", 32, R"(
  setp.ne.u32 %p1, %r2, 3;
  @%p1 bra WAIT;
  mbarrier.arrive.shared.b64 %rd2, [bar];
WAIT:
  mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
  @!%p2 bra WAIT;)", 0, 96);
  // Every thread arrives (count 128) and polls test_wait with its own token.
  std::string testWait = waitKernel("mb_test", 128, R"(
  mbarrier.arrive.shared.b64 %rd2, [bar];
POLL:
  mbarrier.test_wait.shared.b64 %p2, [bar], %rd2;
  @!%p2 bra POLL;)", 32);
  // try_wait with a token and a suspend-time hint
  std::string tryToken = waitKernel("mb_try_token", 128, R"(
  mbarrier.arrive.release.cta.shared::cta.b64 %rd2, [bar];
AGAIN:
  mbarrier.try_wait.acquire.cta.shared::cta.b64 %p2, [bar], %rd2, 1000;
  @!%p2 bra AGAIN;)", 64);
  ASSERT_TRUE(h.load(ptxHeader("sm_90") + tryWait + testWait + tryToken)) << h.errors;
  expectNeighbourData(h, "mb_try", 0, 96);
  expectNeighbourData(h, "mb_test", 32);
  expectNeighbourData(h, "mb_try_token", 64);
}

TEST(ExecMbarrier, TransactionCountAccounting) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_90") + R"(
.visible .entry mb_tx(.param .u64 out) {
  .reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<8>;
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [out];
  mbarrier.init.shared::cta.b64 [bar], 1;
  mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 64;
  mbarrier.arrive.shared.b64 %rd2, [bar];
  mbarrier.test_wait.shared.b64 %p1, [bar], %rd2;
  mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 32;
  mbarrier.test_wait.shared.b64 %p2, [bar], %rd2;
  ld.shared.b64 %rd5, [bar];
  mbarrier.complete_tx.shared::cta.b64 [bar], 32;
  mbarrier.test_wait.shared.b64 %p3, [bar], %rd2;
  mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 16;
  mbarrier.test_wait.parity.shared.b64 %p4, [bar], 1;
  mbarrier.complete_tx.shared::cta.b64 [bar], 16;
  mbarrier.test_wait.parity.shared.b64 %p5, [bar], 1;
  mbarrier.pending_count.b64 %r6, %rd3;
  // a complete_tx before the expect_tx: the count goes negative and the phase waits for it
  mbarrier.complete_tx.shared::cta.b64 [bar], 8;
  mbarrier.arrive.shared.b64 %rd4, [bar];
  mbarrier.test_wait.shared.b64 %p6, [bar], %rd4;
  ld.shared.b64 %rd6, [bar];
  mbarrier.expect_tx.shared::cta.b64 [bar], 8;
  mbarrier.test_wait.shared.b64 %p7, [bar], %rd4;
  selp.u32 %r1, 1, 0, %p1;
  selp.u32 %r2, 1, 0, %p2;
  selp.u32 %r3, 1, 0, %p3;
  selp.u32 %r4, 1, 0, %p4;
  selp.u32 %r5, 1, 0, %p5;
  selp.u32 %r7, 1, 0, %p6;
  selp.u32 %r8, 1, 0, %p7;
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
  st.global.v4.u32 [%rd1+16], {%r5, %r6, %r7, %r8};
  st.global.u64 [%rd1+32], %rd5;
  st.global.u64 [%rd1+40], %rd6;
  ld.shared.b64 %rd7, [bar];
  st.global.u64 [%rd1+48], %rd7;
  ret;
})")) << h.errors;
  uint64_t out = h.alloc(56);
  auto r = h.launch("mb_tx", {1}, {1}, {out});
  ASSERT_TRUE(r.ok()) << r.message;
  auto v = h.read<uint32_t>(out, 8);
  EXPECT_EQ(v[0], 0u) << "arrived but 64 bytes outstanding";
  EXPECT_EQ(v[1], 0u) << "32 bytes outstanding";
  EXPECT_EQ(v[2], 1u) << "all bytes complete";
  EXPECT_EQ(v[3], 0u) << "phase 1 waits for 16 bytes";
  EXPECT_EQ(v[4], 1u) << "phase 1 complete";
  EXPECT_EQ(v[5], 1u) << "token of the phase-1 arrive: one arrival pending";
  EXPECT_EQ(v[6], 0u) << "tx count -8 keeps phase 2 open";
  EXPECT_EQ(v[7], 1u) << "expect_tx brings the count to zero";
  auto w = h.read<uint64_t>(out + 32, 3);
  EXPECT_EQ(w[0], mbarWord(0, 1, 32, 0));
  EXPECT_EQ(w[1], mbarWord(0, 1, -8, 2));
  EXPECT_EQ(w[2], mbarWord(1, 1, 0, 3));
}

TEST(ExecMbarrier, ArriveDropCountsAndGenericAddresses) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_80") + R"(
.visible .entry mb_drop(.param .u64 out) {
  .reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<8>;
  .shared .align 8 .b64 bar;
  .shared .align 8 .b64 bar2;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [bar], 2;
  @%p1 mbarrier.init.shared.b64 [bar2], 5;
  bar.sync 0;
  // thread 0 drops out (expected 2 -> 1), thread 1 arrives: phase 0 completes
  @%p1 mbarrier.arrive_drop.shared.b64 %rd2, [bar];
  @!%p1 mbarrier.arrive.shared.b64 %rd2, [bar];
  mbarrier.test_wait.parity.shared.b64 %p2, [bar], 0;
  // phase 1 needs one arrival only
  @!%p1 mbarrier.arrive.shared.b64 %rd3, [bar];
  mbarrier.test_wait.parity.shared.b64 %p3, [bar], 1;
  ld.shared.b64 %rd4, [bar];
  // counts: 2 + 3 arrivals complete bar2's phase; through a generic address
  cvta.shared.u64 %rd5, bar2;
  @%p1 mbarrier.arrive.b64 %rd6, [%rd5], 2;
  mbarrier.test_wait.parity.b64 %p4, [%rd5], 0;
  @!%p1 mbarrier.arrive.b64 %rd6, [%rd5], 3;
  mbarrier.test_wait.parity.b64 %p5, [%rd5], 0;
  selp.u32 %r2, 1, 0, %p2;
  selp.u32 %r3, 1, 0, %p3;
  selp.u32 %r4, 1, 0, %p4;
  selp.u32 %r5, 1, 0, %p5;
  mul.wide.u32 %rd7, %r1, 32;
  add.s64 %rd7, %rd1, %rd7;
  st.global.v4.u32 [%rd7], {%r2, %r3, %r4, %r5};
  st.global.u64 [%rd7+16], %rd4;
  mbarrier.inval.shared.b64 [bar];
  ret;
})")) << h.errors;
  uint64_t out = h.alloc(64);
  auto r = h.launch("mb_drop", {1}, {2}, {out});
  ASSERT_TRUE(r.ok()) << r.message;
  for (unsigned t = 0; t < 2; ++t) {
    auto v = h.read<uint32_t>(out + t * 32, 4);
    EXPECT_EQ(v[0], 1u) << "phase 0 complete after drop + arrive, thread " << t;
    EXPECT_EQ(v[1], 1u) << "phase 1 complete with one arrival, thread " << t;
    EXPECT_EQ(v[2], 0u) << "2 of 5 arrivals, thread " << t;
    EXPECT_EQ(v[3], 1u) << "5 of 5 arrivals, thread " << t;
    EXPECT_EQ(h.read<uint64_t>(out + t * 32 + 16, 1)[0], mbarWord(1, 1, 0, 2));
  }
}

TEST(ExecMbarrier, UnexpectedArrivalFaults) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_80") + R"(
.visible .entry mb_bad() {
  .reg .b64 %rd<4>;
  .shared .align 8 .b64 bar;
  mbarrier.init.shared.b64 [bar], 1;
  mbarrier.arrive.shared.b64 %rd1, [bar], 2;
  ret;
})")) << h.errors;
  auto r = h.launch("mb_bad", {1}, {1}, {});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.message.find("mbarrier arrive of 2 with only 1 arrivals pending"), std::string::npos)
      << r.message;
}

// arrive.noComplete counts arrivals without ending the phase; one that would end it faults.
TEST(ExecMbarrier, ArriveNoCompleteNeverEndsThePhase) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader("sm_80") + R"(
.visible .entry mb_nc(.param .u64 out, .param .u32 second) {
  .reg .b64 %rd<6>; .reg .b32 %r<4>; .reg .pred %p<3>;
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd4, [out]; ld.param.u32 %r1, [second];
  mbarrier.init.shared.b64 [bar], 4;
  mbarrier.arrive.noComplete.shared.b64 %rd1, [bar], 3;
  mbarrier.test_wait.shared.b64 %p1, [bar], %rd1;
  selp.u32 %r2, 1, 0, %p1;
  st.global.u32 [%rd4], %r2;
  mbarrier.pending_count.b64 %r3, %rd1;
  st.global.u32 [%rd4+4], %r3;
  mbarrier.arrive.noComplete.shared.b64 %rd2, [bar], %r1;
  mbarrier.arrive.shared.b64 %rd3, [bar];
  mbarrier.test_wait.shared.b64 %p2, [bar], %rd1;
  selp.u32 %r2, 1, 0, %p2;
  st.global.u32 [%rd4+8], %r2;
  ret;
})")) << h.errors;
  uint64_t out = h.alloc(16);
  // second = 0: the plain arrive then ends the phase
  auto r = h.launch("mb_nc", {1}, {1}, {out, 0});
  ASSERT_TRUE(r.ok()) << r.message;
  auto v = h.read<uint32_t>(out, 3);
  EXPECT_EQ(v[0], 0u); // 3 of 4 arrivals: still in phase 0
  EXPECT_EQ(v[1], 4u); // the state returned by the first arrive still has 4 pending
  EXPECT_EQ(v[2], 1u);
  // second = 1: the last pending arrival through noComplete is an error
  r = h.launch("mb_nc", {1}, {1}, {out, 1});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.message.find("arrive.noComplete of 1 would complete the phase"), std::string::npos)
      << r.message;
}

} // namespace

namespace {

// cp.async.mbarrier.arrive: with .noinc it is one arrival (copies complete at issue in the
// functional model); without .noinc it has no net effect on the pending count.
TEST(ExecMbarrier, CpAsyncArriveCountsAsAnArrivalWithNoinc) {
  ptxsim::test::ExecHarness h;
  ASSERT_TRUE(h.load(ptxsim::test::ptxHeader() + R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<6>; .reg .b64 %rd<6>; .reg .pred %p<3>;
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [out];
  mbarrier.init.shared.b64 [bar], 2;
  cp.async.mbarrier.arrive.shared.b64 [bar];
  ld.shared.b64 %rd2, [bar];
  mbarrier.pending_count.b64 %r1, %rd2;
  cp.async.mbarrier.arrive.noinc.shared.b64 [bar];
  ld.shared.b64 %rd3, [bar];
  mbarrier.pending_count.b64 %r2, %rd3;
  mbarrier.arrive.shared.b64 %rd4, [bar];
  mbarrier.test_wait.parity.shared.b64 %p1, [bar], 0;
  selp.u32 %r3, 1, 0, %p1;
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r3};
  ret;
}
)")) << h.errors;
  uint64_t d = h.alloc(16);
  auto r = h.launch("k", {1}, {1}, {d});
  ASSERT_TRUE(r.ok()) << r.message;
  auto v = h.read<uint32_t>(d, 3);
  EXPECT_EQ(v[0], 2u); // no net change
  EXPECT_EQ(v[1], 1u); // one arrival
  EXPECT_EQ(v[2], 1u); // the last arrival completed phase 0
}

} // namespace

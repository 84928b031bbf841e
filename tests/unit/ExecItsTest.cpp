// Independent thread scheduling (EngineConfig::simt, docs/executor.md): lanes of one warp that
// hand a lock or data to each other inside divergent code, warp-synchronous instructions that
// wait for their member lanes, and the deadlock and livelock reports. Expected values follow
// from the PTX ISA's per-thread semantics (sm_70 and later).

#include "ExecHarness.h"

namespace ptxsim::test {
namespace {

using ptx::exec::SimtMode;

// Every lane of two warps takes one global lock with atom.cas in a spin loop and increments a
// plain counter under it.
const char *kSpinLock = R"(
.visible .entry lockk(.param .u64 lock, .param .u64 counter) {
  .reg .b32 %r<6>; .reg .b64 %rd<3>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [lock];
  ld.param.u64 %rd2, [counter];
SPIN:
  atom.global.cas.b32 %r1, [%rd1], 0, 1;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SPIN;
  ld.volatile.global.u32 %r2, [%rd2];
  add.u32 %r2, %r2, 1;
  st.volatile.global.u32 [%rd2], %r2;
  atom.global.exch.b32 %r3, [%rd1], 0;
  ret;
})";

TEST(ExecIts, SpinLockInsideAWarp) {
  for (unsigned threads : {1u, 2u}) {
    ExecHarness h(threads, SimtMode::Its);
    ASSERT_TRUE(h.load(ptxHeader() + kSpinLock, "lock.ptx")) << h.errors;
    uint64_t lock = h.alloc(4), counter = h.alloc(4);
    auto r = h.launch("lockk", {3}, {64}, {lock, counter});
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(h.read<uint32_t>(counter, 1)[0], 192u);
    EXPECT_EQ(h.read<uint32_t>(lock, 1)[0], 0u);
  }
}

// With the pre-Volta stack the lock's winner waits to reconverge with the lanes spinning on it:
// a livelock, reported with the lanes, the loop's PTX line and where the winner waits.
TEST(ExecIts, SpinLockIsALivelockUnderIpdom) {
  ExecHarness h(1, SimtMode::Ipdom);
  ASSERT_TRUE(h.load(ptxHeader() + kSpinLock, "lock.ptx")) << h.errors;
  uint64_t lock = h.alloc(4), counter = h.alloc(4);
  auto r = h.launch("lockk", {1}, {32}, {lock, counter});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message.find("livelock: lanes 0xfffffffe of warp 0 keep taking the loop branch at "
                           "pc "),
            std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("(lock.ptx:12) bra with their registers unchanged while lanes "
                           "0x00000001 wait to reconverge at pc "),
            std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("--simt its"), std::string::npos) << r.message;
}

// SimtMode::Auto: ITS for sm_70 and newer targets, the IPDOM stack for older ones.
TEST(ExecIts, AutoModeFollowsTheTarget) {
  for (const char *target : {"sm_70", "sm_60"}) {
    ExecHarness h(1, SimtMode::Auto);
    ASSERT_TRUE(h.load(ptxHeader(target) + kSpinLock, "lock.ptx")) << h.errors;
    uint64_t lock = h.alloc(4), counter = h.alloc(4);
    auto r = h.launch("lockk", {1}, {32}, {lock, counter});
    if (std::string(target) == "sm_70") {
      ASSERT_TRUE(r.ok()) << r.message;
      EXPECT_EQ(h.read<uint32_t>(counter, 1)[0], 32u);
    } else {
      EXPECT_NE(r.message.find("livelock"), std::string::npos) << r.message;
    }
  }
}

// Odd lanes (the branch taken first) wait at one bar.warp.sync for the even lanes, which store
// and then reach the other one: under ITS the odd lanes read what the even lanes stored; the
// IPDOM stack runs the odd path to its end first and they read the zero-filled memory.
TEST(ExecIts, WarpSyncAtDifferentInstructionsHandsOverData) {
  const std::string ptx = ptxHeader() + R"(
.visible .entry handoff(.param .u64 out) {
  .reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .pred %p<2>;
  .shared .align 4 .b32 s[32];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %laneid;
  and.b32 %r2, %r1, 1;
  setp.ne.u32 %p1, %r2, 0;
  mov.u32 %r7, s;
  @%p1 bra ODD;
  mul.lo.u32 %r5, %r1, 7;
  shl.b32 %r4, %r1, 2;
  add.u32 %r4, %r4, %r7;
  st.shared.u32 [%r4], %r5;
  bar.warp.sync -1;
  bra DONE;
ODD:
  bar.warp.sync -1;
  sub.u32 %r3, %r1, 1;
  shl.b32 %r4, %r3, 2;
  add.u32 %r4, %r4, %r7;
  ld.shared.u32 %r5, [%r4];
DONE:
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
})";
  for (SimtMode mode : {SimtMode::Its, SimtMode::Ipdom}) {
    ExecHarness h(1, mode);
    ASSERT_TRUE(h.load(ptx)) << h.errors;
    std::vector<uint32_t> v = h.runOneWarp("handoff");
    ASSERT_EQ(v.size(), 32u);
    for (uint32_t l = 0; l < 32; ++l) {
      uint32_t want = l % 2 == 0 ? 7 * l : mode == SimtMode::Its ? 7 * (l - 1) : 0;
      EXPECT_EQ(v[l], want) << "lane " << l << (mode == SimtMode::Its ? " its" : " ipdom");
    }
  }
}

// Lanes 0-15 wait at shfl.sync for lanes 16-31, which wait at bar.sync for lanes 0-15: no lane
// can progress, and the fault names both groups, their PCs and PTX lines.
TEST(ExecIts, DeadlockBetweenWarpSyncAndBarrierIsReported) {
  ExecHarness h(1, SimtMode::Its);
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry dl(.param .u64 out) {
  .reg .b32 %r<4>; .reg .pred %p<2>;
  mov.u32 %r1, %laneid;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra LOW;
  bar.sync 0;
  bra DONE;
LOW:
  shfl.sync.idx.b32 %r2, %r1, 0, 31, -1;
DONE:
  ret;
})", "dl.ptx")) << h.errors;
  auto r = h.launch("dl", {1}, {32}, {h.alloc(4)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message.find("deadlock: no thread of warp 0 can progress: lanes 0x0000ffff wait at "
                           "pc "),
            std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("(dl.ptx:13) shfl for lanes 0xffff0000"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("lanes 0xffff0000 wait at pc "), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("(dl.ptx:10) bar (barrier 0) for lanes 0x0000ffff"), std::string::npos)
      << r.message;
}

// The lanes a .sync warp primitive names must execute the same instruction: two shfl.sync in
// different branches with the full mask are an error naming the other instruction.
TEST(ExecIts, WarpPrimitiveMembersAtDifferentInstructionsIsAnError) {
  ExecHarness h(1, SimtMode::Its);
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry two(.param .u64 out) {
  .reg .b32 %r<4>; .reg .pred %p<2>;
  mov.u32 %r1, %laneid;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra LOW;
  shfl.sync.idx.b32 %r2, %r1, 0, 31, -1;
  bra DONE;
LOW:
  shfl.sync.idx.b32 %r2, %r1, 1, 31, -1;
DONE:
  ret;
})", "two.ptx")) << h.errors;
  auto r = h.launch("two", {1}, {32}, {h.alloc(4)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message.find("wait at a different warp-synchronous instruction (pc "),
            std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("must execute the same instruction"), std::string::npos) << r.message;
}

// Member lanes that have exited are not waited for (the ISA waits for non-exited threads), and
// lanes that arrive at one shfl.sync from different paths exchange values.
TEST(ExecIts, ShflAfterDivergenceAndExit) {
  ExecHarness h(1, SimtMode::Its);
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry sh(.param .u64 out) {
  .reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .pred %p<3>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %laneid;
  setp.ge.u32 %p2, %r1, 24;
  @%p2 exit;
  and.b32 %r2, %r1, 1;
  setp.ne.u32 %p1, %r2, 0;
  mov.u32 %r3, 100;
  @%p1 bra ODD;
  add.u32 %r3, %r1, 1000;
  bra JOIN;
ODD:
  add.u32 %r3, %r1, 2000;
JOIN:
  add.u32 %r4, %r1, 1;
  rem.u32 %r4, %r4, 24;
  shfl.sync.idx.b32 %r5, %r3, %r4, 31, -1;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
})", "sh.ptx")) << h.errors;
  uint64_t out = h.alloc(32 * 4);
  auto r = h.launch("sh", {1}, {32}, {out});
  ASSERT_TRUE(r.ok()) << r.message;
  std::vector<uint32_t> v = h.read<uint32_t>(out, 32);
  for (uint32_t l = 0; l < 24; ++l) {
    uint32_t src = (l + 1) % 24;
    EXPECT_EQ(v[l], src + (src % 2 ? 2000 : 1000)) << "lane " << l;
  }
}

// A lane that yields with nanosleep while it waits lets the lane it waits for run.
TEST(ExecIts, FlagHandOffWithNanosleep) {
  ExecHarness h(1, SimtMode::Its);
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry flag(.param .u64 f, .param .u64 out) {
  .reg .b32 %r<6>; .reg .b64 %rd<3>; .reg .pred %p<3>;
  ld.param.u64 %rd1, [f];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %laneid;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra WAIT;
  setp.ne.u32 %p2, %r1, 31;
  @%p2 bra DONE;
  st.volatile.global.u32 [%rd2], 77;
  st.volatile.global.u32 [%rd1], 1;
  bra DONE;
WAIT:
  nanosleep.u32 20;
  ld.volatile.global.u32 %r2, [%rd1];
  setp.eq.u32 %p2, %r2, 0;
  @%p2 bra WAIT;
  ld.volatile.global.u32 %r3, [%rd2];
  add.u32 %r3, %r3, 1;
  st.volatile.global.u32 [%rd2], %r3;
DONE:
  ret;
})", "flag.ptx")) << h.errors;
  uint64_t f = h.alloc(4), out = h.alloc(4);
  auto r = h.launch("flag", {1}, {32}, {f, out});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(h.read<uint32_t>(out, 1)[0], 78u);
}

} // namespace
} // namespace ptxsim::test

// Executor dynamic stack allocation: alloca with per-lane sizes and alignment, stacksave and
// stackrestore freeing a loop's allocations, allocations of a called function freed at its
// return, and the overflow fault naming cudaLimitStackSize.

#include "ExecHarness.h"

using namespace ptxsim;
using namespace ptxsim::test;

namespace {

// Lane l allocates 8 * (l % 4 + 1) bytes aligned to 16, writes l there through a generic
// pointer, reads it back through the local address, and reports the address; then 100
// iterations each save the stack, allocate 64 bytes and restore; after the loop the stack top
// is back at the first block.
const char *kAlloca = R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<8>; .reg .b64 %rd<16>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  add.u32 %r2, %r2, 1;
  mul.wide.u32 %rd2, %r2, 8;
  alloca.u64 %rd3, %rd2, 16;
  cvta.local.u64 %rd4, %rd3;
  st.u32 [%rd4], %r1;
  ld.local.u32 %r3, [%rd3];
  mov.u32 %r4, 0;
LOOP:
  stacksave.u64 %rd5;
  alloca.u64 %rd6, 64, 8;
  st.local.u32 [%rd6], %r4;
  stackrestore.u64 %rd5;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p1, %r4, 100;
  @%p1 bra LOOP;
  stacksave.u64 %rd7;
  sub.s64 %rd9, %rd7, %rd3;
  mul.wide.u32 %rd10, %r1, 24;
  add.s64 %rd11, %rd1, %rd10;
  st.global.u32 [%rd11], %r3;
  st.global.u64 [%rd11+8], %rd3;
  st.global.u64 [%rd11+16], %rd9;
  ret;
})";

TEST(ExecStack, AllocaPerLaneSizesAlignmentAndStackRestore) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + kAlloca)) << h.errors;
  uint64_t out = h.alloc(32 * 24);
  auto r = h.launch("k", {1}, {32}, {out});
  ASSERT_TRUE(r.ok()) << r.message;
  auto v = h.read<uint64_t>(out, 32 * 3);
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ((uint32_t)v[3 * l], l);          // the value round-tripped
    EXPECT_EQ(v[3 * l + 1] % 16, 0u) << l;     // aligned as asked
    EXPECT_EQ(v[3 * l + 2], 0u) << l;          // the loop's allocations were all freed
  }
  // lanes with sizes 8 and 32 got different blocks below the same stack top
  EXPECT_GT(v[1], v[3 * 3 + 1]);
}

// A function that allocates 512 bytes, called 50 times: each return frees its block, so the
// 1 KiB stack never overflows.
TEST(ExecStack, CalleeAllocationsAreFreedAtReturn) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.func (.param .b32 r) f(.param .b32 a) {
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.b32 %r1, [a];
  alloca.u64 %rd1, 512, 8;
  st.local.u32 [%rd1+508], %r1;
  ld.local.u32 %r2, [%rd1+508];
  add.u32 %r2, %r2, 1;
  st.param.b32 [r], %r2;
  ret;
}
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<4>; .reg .b64 %rd<2>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 0;
LOOP:
  {
    .param .b32 a; .param .b32 r;
    st.param.b32 [a], %r1;
    call.uni (r), f, (a);
    ld.param.b32 %r1, [r];
  }
  setp.lt.u32 %p1, %r1, 50;
  @%p1 bra LOOP;
  st.global.u32 [%rd1], %r1;
  ret;
})")) << h.errors;
  uint64_t out = h.alloc(4);
  auto r = h.launch("k", {1}, {1}, {out});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(h.read<uint32_t>(out, 1)[0], 50u);
}

TEST(ExecStack, AllocaOverflowFaults) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k() {
  .reg .b64 %rd<2>;
  alloca.u64 %rd1, 4096, 8;
  st.local.u32 [%rd1], 1;
  ret;
})")) << h.errors;
  auto r = h.launch("k", {1}, {1}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message.find("alloca of 4096 bytes overflows the stack"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("cudaLimitStackSize"), std::string::npos) << r.message;
}

} // namespace

// Executor core: control flow, reconvergence, calls, barriers, memory spaces and faults.

#include "ExecHarness.h"

using namespace ptxsim;
using namespace ptxsim::test;

namespace {

TEST(ExecCore, VecAddIntegers) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry add(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n) {
  .reg .b32 %r<6>; .reg .b64 %rd<10>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [b]; ld.param.u64 %rd3, [c]; ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.s32 %rd4, %r5, 4;
  add.s64 %rd5, %rd1, %rd4; add.s64 %rd6, %rd2, %rd4; add.s64 %rd7, %rd3, %rd4;
  ld.global.u32 %r2, [%rd5]; ld.global.u32 %r3, [%rd6];
  add.s32 %r4, %r2, %r3;
  st.global.u32 [%rd7], %r4;
DONE:
  ret;
}
)")) << h.errors;
  const int n = 1000;
  std::vector<int32_t> a(n), b(n);
  for (int i = 0; i < n; ++i)
    a[i] = i * 3 - 7, b[i] = 100000 - i * i;
  uint64_t da = h.upload(a), db = h.upload(b), dc = h.alloc(n * 4);
  auto r = h.launch("add", {(n + 127) / 128}, {128}, {da, db, dc, (uint64_t)n});
  ASSERT_TRUE(r.ok()) << r.message;
  auto c = h.read<int32_t>(dc, n);
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(c[i], a[i] + b[i]) << i;
}

TEST(ExecCore, OutOfBoundsStoreIsReportedWithThreadAndLine) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry oob(.param .u64 a) {
  .reg .b32 %r<3>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [a];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
)")) << h.errors;
  uint64_t d = h.alloc(16 * 4);
  auto r = h.launch("oob", {1}, {32}, {d});
  ASSERT_EQ(r.status, ptx::exec::LaunchStatus::IllegalAddress);
  EXPECT_NE(r.message.find("kernel 'oob'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("thread (16,0,0)"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("test.ptx:11:"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("out-of-bounds global write of 4 bytes"), std::string::npos) << r.message;
  // the engine stays usable
  auto r2 = h.launch("oob", {1}, {16}, {d});
  EXPECT_TRUE(r2.ok()) << r2.message;
}

} // namespace

// ptx/exec/Schedule.h: loads move ahead of independent arithmetic within a basic block, never
// across stores, clock reads or block boundaries, and every thread computes what it computed
// in PTX order.
#include "ExecHarness.h"

#include <gtest/gtest.h>

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

} // namespace
} // namespace ptxsim::test

// Device-memory safety in the executor: constant memory is read-only in kernels (a store is a
// fault naming it), and bounds checks stay correct while other host threads allocate and free.

#include "ExecHarness.h"

#include <atomic>
#include <thread>

using namespace ptxsim;
using namespace ptxsim::test;

TEST(MemorySafety, StoreToConstantMemoryFaults) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.const .align 4 .u32 cval = 5;
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<3>; .reg .b64 %rd<3>;
  ld.param.u64 %rd2, [out];
  ld.const.u32 %r1, [cval];
  st.global.u32 [%rd2], %r1;
  cvta.const.u64 %rd1, cval;
  mov.u32 %r2, 7;
  st.u32 [%rd1], %r2;
  ret;
}
)")) << h.errors;
  uint64_t out = h.alloc(4);
  auto r = h.launch("k", {1}, {32}, {out});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.message.find("store of 4 bytes to constant memory"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("kernel 'k'"), std::string::npos) << r.message;
  EXPECT_EQ(h.read<uint32_t>(out, 1)[0], 5u); // the read before it worked
}

TEST(MemorySafety, BoundsChecksWhileAnotherThreadAllocates) {
  ExecHarness h(2);
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry sum(.param .u64 a, .param .u64 b, .param .u64 out, .param .u32 n) {
  .reg .b32 %r<8>; .reg .b64 %rd<10>; .reg .pred %p;
  ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [b]; ld.param.u64 %rd3, [out]; ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x; mov.u32 %r3, %ctaid.x; mad.lo.u32 %r4, %r3, 64, %r2;
  mul.wide.u32 %rd4, %r4, 4;
  add.s64 %rd5, %rd1, %rd4; add.s64 %rd6, %rd2, %rd4; add.s64 %rd7, %rd3, %rd4;
  mov.u32 %r5, 0; mov.u32 %r6, 0;
LOOP:
  ld.global.u32 %r7, [%rd5]; add.u32 %r6, %r6, %r7;
  ld.global.u32 %r7, [%rd6]; add.u32 %r6, %r6, %r7;
  add.u32 %r5, %r5, 1; setp.lt.u32 %p, %r5, %r1; @%p bra LOOP;
  st.global.u32 [%rd7], %r6;
  ret;
}
)")) << h.errors;
  const uint32_t n = 64 * 64;
  std::vector<uint32_t> av(n, 1), bv(n, 2);
  uint64_t a = h.upload(av), b = h.upload(bv), out = h.alloc(n * 4);
  std::atomic<bool> stop{false};
  std::thread churn([&] {
    std::vector<uint64_t> live;
    for (unsigned i = 0; !stop; ++i) {
      live.push_back(h.engine->memory().allocate(256 + (i % 7) * 64, ptx::exec::AllocKind::Device));
      if (live.size() > 32) {
        h.engine->memory().release(live.front());
        live.erase(live.begin());
      }
    }
    for (uint64_t p : live)
      h.engine->memory().release(p);
  });
  auto r = h.launch("sum", {64}, {64}, {a, b, out, 200});
  stop = true;
  churn.join();
  ASSERT_TRUE(r.ok()) << r.message;
  std::vector<uint32_t> v = h.read<uint32_t>(out, n);
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(v[i], 600u) << i;
}

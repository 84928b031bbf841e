// Executor asynchronous copies: cp.async with src-size (every partial size zero-fills the rest)
// and the ignore-src predicate, cp.async.bulk global -> shared completing an mbarrier
// transaction, shared -> global bulk groups (with and without .cp_mask), and %globaltimer
// advancing from one launch to the next.

#include "ExecHarness.h"

#include <cstring>

using namespace ptxsim;
using namespace ptxsim::test;

namespace {

// Thread t copies 16 bytes from src + 16t into shared memory with src-size t % 17, except that
// threads 17 and 18 use the ignore-src predicate (true for 17), then writes the tile out.
const char *kZfill = R"(
.visible .entry zfill(.param .u64 src, .param .u64 out) {
  .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<4>;
  .shared .align 16 .b8 tile[512];
  ld.param.u64 %rd1, [src]; ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r2, tile;
  mad.lo.u32 %r3, %r1, 16, %r2;
  rem.u32 %r4, %r1, 17;
  setp.eq.u32 %p1, %r1, 17;
  setp.eq.u32 %p2, %r1, 18;
  or.pred %p3, %p1, %p2;
  @%p3 bra IGN;
  cp.async.ca.shared.global [%r3], [%rd4], 16, %r4;
  bra DONE;
IGN:
  cp.async.cg.shared.global [%r3], [%rd4], 16, %p1;
DONE:
  cp.async.commit_group;
  cp.async.wait_all;
  ld.shared.v4.u32 {%r5, %r6, %r7, %r4}, [%r3];
  add.s64 %rd5, %rd2, %rd3;
  st.global.v4.u32 [%rd5], {%r5, %r6, %r7, %r4};
  ret;
})";

TEST(ExecAsyncCopy, CpAsyncSrcSizeAndIgnoreSrcZeroFill) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + kZfill)) << h.errors;
  std::vector<uint8_t> src(32 * 16);
  for (size_t i = 0; i < src.size(); ++i)
    src[i] = (uint8_t)(i * 13 + 1);
  uint64_t ds = h.upload(src), dout = h.alloc(32 * 16);
  auto r = h.launch("zfill", {1}, {32}, {ds, dout});
  ASSERT_TRUE(r.ok()) << r.message;
  auto out = h.read<uint8_t>(dout, 32 * 16);
  for (unsigned t = 0; t < 32; ++t) {
    unsigned keep = t == 17 ? 0 : t == 18 ? 16 : t % 17;
    for (unsigned b = 0; b < 16; ++b)
      EXPECT_EQ(out[16 * t + b], b < keep ? src[16 * t + b] : 0) << "thread " << t << " byte " << b;
  }
}

// A partial src-size reads only that many bytes: a source that ends right after them is fine.
TEST(ExecAsyncCopy, CpAsyncPartialSourceReadsOnlySrcSizeBytes) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 src, .param .u64 out) {
  .reg .b32 %r<6>; .reg .b64 %rd<4>;
  .shared .align 16 .b8 tile[16];
  ld.param.u64 %rd1, [src]; ld.param.u64 %rd2, [out];
  mov.u32 %r1, tile;
  cp.async.ca.shared.global [%r1], [%rd1], 16, 5;
  cp.async.wait_all;
  ld.shared.v4.u32 {%r2, %r3, %r4, %r5}, [%r1];
  st.global.v4.u32 [%rd2], {%r2, %r3, %r4, %r5};
  ret;
})")) << h.errors;
  std::vector<uint8_t> src = {1, 2, 3, 4, 5};
  uint64_t ds = h.upload(src), dout = h.alloc(16);
  auto r = h.launch("k", {1}, {1}, {ds, dout});
  ASSERT_TRUE(r.ok()) << r.message;
  auto out = h.read<uint8_t>(dout, 16);
  for (unsigned b = 0; b < 16; ++b)
    EXPECT_EQ(out[b], b < 5 ? src[b] : 0) << b;
}

// 256 bytes global -> shared with mbarrier::complete_tx, a parity wait, each word incremented,
// then shared -> global as a bulk group, and the first 64 bytes again through .cp_mask 0x00ff.
TEST(ExecAsyncCopy, BulkCopiesWithMbarrierAndBulkGroups) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry bulk(.param .u64 src, .param .u64 out, .param .u64 masked) {
  .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<3>;
  .shared .align 128 .b8 tile[256];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [src]; ld.param.u64 %rd2, [out]; ld.param.u64 %rd3, [masked];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra WAIT;
  mbarrier.init.shared::cta.b64 [bar], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 256;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd1], 256, [bar];
WAIT:
  bar.sync 0;
LOOP:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
  @!%p2 bra LOOP;
  mov.u32 %r2, tile;
  mad.lo.u32 %r3, %r1, 4, %r2;
  ld.shared.u32 %r4, [%r3];
  add.u32 %r4, %r4, 1;
  st.shared.u32 [%r3], %r4;
  fence.proxy.async.shared::cta;
  bar.sync 0;
  @%p1 bra END;
  cp.async.bulk.global.shared::cta.bulk_group [%rd2], [tile], 256;
  cp.async.bulk.global.shared::cta.bulk_group.cp_mask [%rd3], [%r2], 64, 255;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group 0;
END:
  ret;
})")) << h.errors;
  std::vector<uint32_t> src(64);
  for (unsigned i = 0; i < 64; ++i)
    src[i] = i * 1000;
  uint64_t ds = h.upload(src), dout = h.alloc(256);
  uint64_t dm = h.upload(std::vector<uint8_t>(64, 0xcc));
  auto r = h.launch("bulk", {1}, {64}, {ds, dout, dm});
  ASSERT_TRUE(r.ok()) << r.message;
  auto out = h.read<uint32_t>(dout, 64);
  for (unsigned i = 0; i < 64; ++i)
    EXPECT_EQ(out[i], i * 1000 + 1) << i;
  auto m = h.read<uint8_t>(dm, 64);
  for (unsigned i = 0; i < 64; ++i) {
    uint32_t word = i / 4 * 1000 + 1;
    uint8_t byte = (uint8_t)(word >> (8 * (i % 4)));
    EXPECT_EQ(m[i], i % 16 < 8 ? byte : 0xcc) << i; // mask bit i % 16 of each 16-byte chunk
  }
}

TEST(ExecAsyncCopy, BulkCopySizeMustBeAMultipleOf16) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 dst) {
  .reg .b64 %rd<2>;
  .shared .align 16 .b8 tile[64];
  ld.param.u64 %rd1, [dst];
  cp.async.bulk.global.shared::cta.bulk_group [%rd1], [tile], 24;
  ret;
})")) << h.errors;
  auto r = h.launch("k", {1}, {1}, {h.alloc(64)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message.find("multiple of 16"), std::string::npos) << r.message;
}

TEST(ExecAsyncCopy, GlobaltimerNeverGoesBackAcrossLaunches) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry t(.param .u64 out) {
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u64 %rd2, %globaltimer;
  st.global.u64 [%rd1], %rd2;
  ret;
})")) << h.errors;
  uint64_t d = h.alloc(8);
  uint64_t last = 0;
  for (int i = 0; i < 3; ++i) {
    auto r = h.launch("t", {1}, {32}, {d});
    ASSERT_TRUE(r.ok()) << r.message;
    uint64_t now = h.read<uint64_t>(d, 1)[0];
    if (i) {
      EXPECT_GT(now, last) << "launch " << i;
    }
    last = now;
  }
}

} // namespace

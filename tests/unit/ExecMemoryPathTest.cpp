// The executor's warp-wide memory path (Exec.cpp resolveWarp): coalesced and warp-uniform
// accesses checked once per warp, sequential copies, and the per-lane path it falls back to,
// which must report faults exactly as before (kernel, thread, address).

#include "ExecHarness.h"

#include <map>

using namespace ptxsim;
using namespace ptxsim::test;

namespace {

std::string kernel(const std::string &name, const std::string &params, const std::string &body) {
  return ptxHeader() + ".visible .entry " + name + "(" + params + ") {\n" + body + "\n}\n";
}

/// Copies n elements of `type` in[i] -> out[i] (i = global thread id) with `vec` elements per
/// thread, by a grid of `threads` threads; lanes with i >= n do nothing (a partial last warp).
std::string copyKernel(const std::string &type, unsigned bytes, unsigned vec) {
  std::string v = vec == 1 ? "" : ".v" + std::to_string(vec);
  std::string regs = vec == 1 ? "%v0" : vec == 2 ? "{%v0, %v1}" : "{%v0, %v1, %v2, %v3}";
  // byte loads go to 16-bit registers (PTX has no 8-bit register arithmetic types)
  std::string regType = bytes == 1 ? (type[0] == 's' ? "s16" : "u16") : type;
  return kernel("copy", ".param .u64 in, .param .u64 out, .param .u32 n",
                "  .reg .b32 %r<6>; .reg .b64 %rd<8>; .reg ." + type + " %v<4>; .reg .pred %p;\n"
                "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out]; ld.param.u32 %r1, [n];\n"
                "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;\n"
                "  mad.lo.s32 %r5, %r2, %r3, %r4;\n"
                "  setp.ge.u32 %p, %r5, %r1;\n"
                "  @%p bra DONE;\n"
                "  mul.wide.u32 %rd3, %r5, " + std::to_string(bytes * vec) + ";\n"
                "  add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;\n"
                "  ld.global" + v + "." + type + " " + regs + ", [%rd4];\n"
                "  st.global" + v + "." + type + " [%rd5], " + regs + ";\n"
                "DONE:\n  ret;");
}

TEST(ExecMemoryPath, CoalescedCopiesOfEveryWidthAndPartialWarps) {
  struct Case {
    const char *type;
    unsigned bytes, vec;
  };
  for (Case c : {Case{"u8", 1, 1}, Case{"u16", 2, 1}, Case{"u32", 4, 1}, Case{"u64", 8, 1},
                 Case{"u32", 4, 2}, Case{"u32", 4, 4}, Case{"u64", 8, 2}, Case{"s8", 1, 4}}) {
    SCOPED_TRACE(std::string(c.type) + " x" + std::to_string(c.vec));
    ExecHarness h;
    ASSERT_TRUE(h.load(copyKernel(c.type, c.bytes, c.vec))) << h.errors;
    const unsigned n = 1000; // 31 full warps and one of 8 lanes
    const size_t total = size_t(n) * c.bytes * c.vec;
    std::vector<uint8_t> src(total);
    for (size_t i = 0; i < total; ++i)
      src[i] = uint8_t(i * 131 + 7);
    uint64_t in = h.upload(src), out = h.alloc(total + 64);
    auto r = h.launch("copy", {(n + 127) / 128}, {128}, {in, out, n});
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(h.read<uint8_t>(out, total), src);
    // nothing written past the last element
    EXPECT_EQ(h.read<uint8_t>(out + total, 64), std::vector<uint8_t>(64, 0));
  }
}

TEST(ExecMemoryPath, SignedNarrowLoadsSignExtendOnTheCoalescedPath) {
  ExecHarness h;
  ASSERT_TRUE(h.load(kernel("sx", ".param .u64 in, .param .u64 out",
                            "  .reg .b32 %r<3>; .reg .b64 %rd<8>; .reg .s16 %h;\n"
                            "  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];\n"
                            "  mov.u32 %r1, %tid.x;\n"
                            "  mul.wide.u32 %rd3, %r1, 2; add.s64 %rd4, %rd1, %rd3;\n"
                            "  ld.global.s16 %h, [%rd4];\n"
                            "  cvt.s32.s16 %r2, %h;\n"
                            "  mul.wide.u32 %rd5, %r1, 4; add.s64 %rd6, %rd2, %rd5;\n"
                            "  st.global.s32 [%rd6], %r2;\n"
                            "  ret;")))
      << h.errors;
  std::vector<int16_t> v(32);
  for (int i = 0; i < 32; ++i)
    v[i] = int16_t(i * 2000 - 30000);
  uint64_t in = h.upload(v), out = h.alloc(32 * 4);
  auto r = h.launch("sx", {1}, {32}, {in, out});
  ASSERT_TRUE(r.ok()) << r.message;
  auto got = h.read<int32_t>(out, 32);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(got[i], v[i]) << i;
}

TEST(ExecMemoryPath, WarpAcrossTwoAdjacentAllocationsIsNotAFault) {
  // Allocations are 256-byte aligned and packed: lanes 0-15 read the end of `a`, lanes 16-31
  // the start of `b`. Each lane's access is legal, so the warp-wide check falls back to the
  // per-lane one and the load succeeds.
  ExecHarness h;
  ASSERT_TRUE(h.load(copyKernel("u32", 4, 1))) << h.errors;
  std::vector<uint32_t> va(64), vb(64);
  for (uint32_t i = 0; i < 64; ++i)
    va[i] = 1000 + i, vb[i] = 2000 + i;
  uint64_t a = h.upload(va), b = h.upload(vb);
  ASSERT_EQ(b, a + 256) << "the allocator no longer packs 256-byte allocations";
  uint64_t out = h.alloc(32 * 4);
  auto r = h.launch("copy", {1}, {32}, {a + 48 * 4, out, 32});
  ASSERT_TRUE(r.ok()) << r.message;
  auto got = h.read<uint32_t>(out, 32);
  for (uint32_t l = 0; l < 32; ++l)
    EXPECT_EQ(got[l], l < 16 ? 1048 + l : 2000 + (l - 16)) << l;
}

TEST(ExecMemoryPath, CoalescedOverrunOfACachedAllocationNamesTheFirstBadLane) {
  // The first load puts the allocation in the context's cache; the store then runs past its
  // end from lane 24 on: the warp-wide check refuses, the per-lane path names thread 24.
  ExecHarness h;
  ASSERT_TRUE(h.load(kernel("over", ".param .u64 a",
                            "  .reg .b32 %r<3>; .reg .b64 %rd<5>;\n"
                            "  ld.param.u64 %rd1, [a];\n"
                            "  mov.u32 %r1, %tid.x;\n"
                            "  ld.global.u32 %r2, [%rd1];\n"
                            "  mul.wide.u32 %rd2, %r1, 4;\n"
                            "  add.s64 %rd3, %rd1, %rd2;\n"
                            "  st.global.u32 [%rd3+32], %r2;\n"
                            "  ret;")))
      << h.errors;
  uint64_t d = h.alloc(32 * 4);
  auto r = h.launch("over", {1}, {32}, {d});
  ASSERT_EQ(r.status, ptx::exec::LaunchStatus::IllegalAddress) << r.message;
  EXPECT_NE(r.message.find("kernel 'over'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("thread (24,0,0)"), std::string::npos) << r.message;
  char addr[64];
  std::snprintf(addr, sizeof addr, "out-of-bounds global write of 4 bytes at address 0x%llx",
                (unsigned long long)(d + 32 * 4));
  EXPECT_NE(r.message.find(addr), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("test.ptx:11:"), std::string::npos) << r.message;
}

TEST(ExecMemoryPath, WarpUniformAddressPastTheEndFaultsAtTheFirstLane) {
  ExecHarness h;
  ASSERT_TRUE(h.load(kernel("uni", ".param .u64 a",
                            "  .reg .b32 %r<3>; .reg .b64 %rd<3>;\n"
                            "  ld.param.u64 %rd1, [a];\n"
                            "  ld.global.u32 %r1, [%rd1];\n"
                            "  ld.global.u32 %r2, [%rd1+64];\n"
                            "  ret;")))
      << h.errors;
  uint64_t d = h.alloc(64);
  auto r = h.launch("uni", {1}, {32}, {d});
  ASSERT_EQ(r.status, ptx::exec::LaunchStatus::IllegalAddress) << r.message;
  EXPECT_NE(r.message.find("thread (0,0,0)"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("out-of-bounds global read of 4 bytes"), std::string::npos) << r.message;
}

TEST(ExecMemoryPath, MisalignedCoalescedLoadIsReported) {
  ExecHarness h;
  ASSERT_TRUE(h.load(copyKernel("u32", 4, 1))) << h.errors;
  uint64_t in = h.alloc(33 * 4), out = h.alloc(32 * 4);
  auto r = h.launch("copy", {1}, {32}, {in + 2, out, 32});
  ASSERT_EQ(r.status, ptx::exec::LaunchStatus::Misaligned) << r.message;
  EXPECT_NE(r.message.find("misaligned global read of 4 bytes"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("thread (0,0,0)"), std::string::npos) << r.message;
}

TEST(ExecMemoryPath, GenericCoalescedAccessesToSharedAndGlobal) {
  // st through a generic pointer into shared memory (whole warp, coalesced), read back with
  // ld.shared; then a generic store to global memory.
  ExecHarness h;
  ASSERT_TRUE(h.load(kernel("gen", ".param .u64 out",
                            "  .shared .align 4 .b32 buf[64];\n"
                            "  .reg .b32 %r<4>; .reg .b64 %rd<8>;\n"
                            "  ld.param.u64 %rd1, [out];\n"
                            "  mov.u32 %r1, %tid.x;\n"
                            "  mov.u64 %rd2, buf; cvta.shared.u64 %rd3, %rd2;\n"
                            "  mul.wide.u32 %rd4, %r1, 4;\n"
                            "  add.s64 %rd5, %rd3, %rd4;\n"
                            "  mul.lo.u32 %r2, %r1, 3;\n"
                            "  st.u32 [%rd5+128], %r2;\n"
                            "  bar.sync 0;\n"
                            "  add.s64 %rd6, %rd2, %rd4;\n"
                            "  ld.shared.u32 %r3, [%rd6+128];\n"
                            "  cvta.global.u64 %rd7, %rd1;\n"
                            "  add.s64 %rd7, %rd7, %rd4;\n"
                            "  st.u32 [%rd7], %r3;\n"
                            "  ret;")))
      << h.errors;
  uint64_t out = h.alloc(32 * 4);
  auto r = h.launch("gen", {1}, {32}, {out});
  ASSERT_TRUE(r.ok()) << r.message;
  auto got = h.read<uint32_t>(out, 32);
  for (uint32_t l = 0; l < 32; ++l)
    EXPECT_EQ(got[l], l * 3) << l;
}

TEST(ExecMemoryPath, CoalescedSharedOverrunIsReported) {
  ExecHarness h;
  ASSERT_TRUE(h.load(kernel("sh", ".param .u64 out",
                            "  .shared .align 4 .b32 buf[40];\n"
                            "  .reg .b32 %r<3>; .reg .b64 %rd<4>;\n"
                            "  mov.u32 %r1, %tid.x;\n"
                            "  mov.u64 %rd1, buf;\n"
                            "  mul.wide.u32 %rd2, %r1, 4;\n"
                            "  add.s64 %rd3, %rd1, %rd2;\n"
                            "  ld.shared.u32 %r2, [%rd3+64];\n"
                            "  ret;")))
      << h.errors;
  auto r = h.launch("sh", {1}, {32}, {0});
  ASSERT_EQ(r.status, ptx::exec::LaunchStatus::IllegalAddress) << r.message;
  // 40 words of shared memory: lane 24 reads word 40, the first one past the end
  EXPECT_NE(r.message.find("thread (24,0,0)"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("out-of-bounds shared read of 4 bytes"), std::string::npos) << r.message;
}

TEST(ExecMemoryPath, LocalMemoryReadsZeroInEveryCtaAfterAnotherWroteIt) {
  // Each CTA reads a local word before writing it; one host thread reuses its CTA object, so
  // the local memory the previous CTA wrote must be cleared again (and only then).
  ExecHarness h;
  ASSERT_TRUE(h.load(kernel("loc", ".param .u64 out",
                            "  .local .align 4 .b32 slot[4];\n"
                            "  .reg .b32 %r<6>; .reg .b64 %rd<6>;\n"
                            "  ld.param.u64 %rd1, [out];\n"
                            "  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;\n"
                            "  mad.lo.s32 %r4, %r1, %r2, %r3;\n"
                            "  mov.u64 %rd2, slot;\n"
                            "  ld.local.u32 %r5, [%rd2+8];\n"
                            "  mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3;\n"
                            "  st.global.u32 [%rd4], %r5;\n"
                            "  add.s32 %r5, %r4, 1;\n"
                            "  st.local.u32 [%rd2+8], %r5;\n"
                            "  ret;")))
      << h.errors;
  uint64_t out = h.alloc(4 * 64 * 4);
  auto r = h.launch("loc", {4}, {64}, {out});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(h.read<uint32_t>(out, 4 * 64), std::vector<uint32_t>(4 * 64, 0));
}

TEST(ExecMemoryPath, StridedLoopResultsDoNotDependOnThreadsOrPrefetch) {
  // A grid-stride loop (the case the stride prefetch serves): same results on 1 and 2 host
  // threads, equal to the host's.
  const std::string ptx = kernel(
      "saxpy", ".param .u64 x, .param .u64 y, .param .f32 a, .param .u32 n",
      "  .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<5>; .reg .pred %p;\n"
      "  ld.param.u64 %rd1, [x]; ld.param.u64 %rd2, [y]; ld.param.f32 %f1, [a]; ld.param.u32 %r1, [n];\n"
      "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;\n"
      "  mad.lo.s32 %r5, %r2, %r3, %r4;\n"
      "  mov.u32 %r6, %nctaid.x; mul.lo.s32 %r7, %r3, %r6;\n"
      "LOOP:\n"
      "  setp.ge.s32 %p, %r5, %r1;\n"
      "  @%p bra DONE;\n"
      "  mul.wide.s32 %rd3, %r5, 4;\n"
      "  add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;\n"
      "  ld.global.f32 %f2, [%rd4]; ld.global.f32 %f3, [%rd5];\n"
      "  fma.rn.f32 %f4, %f2, %f1, %f3;\n"
      "  st.global.f32 [%rd5], %f4;\n"
      "  add.s32 %r5, %r5, %r7;\n"
      "  bra LOOP;\n"
      "DONE:\n  ret;");
  const unsigned n = 50000;
  std::vector<float> x(n), y(n);
  for (unsigned i = 0; i < n; ++i)
    x[i] = float(i % 97) * 0.5f, y[i] = float(i % 13);
  std::vector<float> want(n);
  for (unsigned i = 0; i < n; ++i)
    want[i] = x[i] * 3.0f + y[i]; // exact: small halves and integers
  float a = 3.0f;
  uint32_t ab;
  std::memcpy(&ab, &a, 4);
  for (unsigned threads : {1u, 2u}) {
    ExecHarness h(threads);
    ASSERT_TRUE(h.load(ptx)) << h.errors;
    uint64_t dx = h.upload(x), dy = h.upload(y);
    auto r = h.launch("saxpy", {24}, {96}, {dx, dy, ab, n});
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(h.read<float>(dy, n), want) << threads << " host threads";
  }
}

TEST(ExecMemoryPath, MulWideS32OfAFullWarpMatchesTheHost) {
  // mul.wide.s32 computes array offsets; a full warp takes a vectorised path of its own
  // (unsigned product and sign correction): every sign combination and the extremes.
  std::vector<int32_t> a, b;
  const int32_t edge[] = {0, 1, -1, 2, -2, 4, -4, 0x7fffffff, -0x7fffffff - 1, 123456789, -987654321,
                          65536, -65536, 46341, -46341, 0x40000000};
  for (int32_t x : edge)
    for (int32_t y : edge)
      a.push_back(x), b.push_back(y);
  ASSERT_EQ(a.size() % 32, 0u); // full warps only
  auto got = runElementwise<int64_t, int32_t>("s32", "s64", "mul.wide.s32 %d, %a, %b;", a, b);
  ASSERT_EQ(got.size(), a.size());
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(got[i], int64_t(a[i]) * int64_t(b[i])) << a[i] << " * " << b[i];
}

TEST(ExecMemoryPath, MulWideU32AndS32OfFullAndPartialWarpsMatchTheHost) {
  // On AVX2 hosts mul.wide has a full-warp handler of its own (OpsInt.cpp mulWideAvx2); a
  // partial last warp (7 lanes) takes the per-lane one. Both must give the host's products.
  const uint32_t edge[] = {0,           1,           2,           4,
                           0xffffffffu, 0xfffffffeu, 0x80000000u, 0x7fffffffu,
                           123456789u,  3987654321u, 65536,       0xffff0000u,
                           46341,       0x40000000u, 3,           0xc0000000u};
  std::vector<uint32_t> a, b;
  for (uint32_t x : edge)
    for (uint32_t y : edge)
      a.push_back(x), b.push_back(y);
  for (unsigned i = 0; i < 7; ++i) // a partial last warp
    a.push_back(edge[i] ^ 0x5a5a5a5au), b.push_back(edge[15 - i]);
  auto u = runElementwise<uint64_t, uint32_t>("u32", "u64", "mul.wide.u32 %d, %a, %b;", a, b);
  ASSERT_EQ(u.size(), a.size());
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(u[i], uint64_t(a[i]) * uint64_t(b[i])) << a[i] << " * " << b[i];
  std::vector<int32_t> sa(a.begin(), a.end()), sb(b.begin(), b.end());
  auto s = runElementwise<int64_t, int32_t>("s32", "s64", "mul.wide.s32 %d, %a, %b;", sa, sb);
  ASSERT_EQ(s.size(), sa.size());
  for (size_t i = 0; i < sa.size(); ++i)
    EXPECT_EQ(s[i], int64_t(sa[i]) * int64_t(sb[i])) << sa[i] << " * " << sb[i];
}

TEST(ExecMemoryPath, AddSubWithTheDestinationAsASourceWrapLikeTheHost) {
  // 32/64-bit add/sub also have an AVX2 full-warp handler; the destination is often a source
  // (add.s64 %rd1, %rd1, %rd2), and sums wrap around 2^64.
  const uint64_t edge[] = {0,
                           1,
                           ~0ull,
                           0x8000000000000000ull,
                           0x7fffffffffffffffull,
                           0x00000000ffffffffull,
                           0x123456789abcdef0ull,
                           0xfedcba9876543210ull};
  std::vector<uint64_t> a, b, c;
  for (uint64_t x : edge)
    for (uint64_t y : edge)
      a.push_back(x), b.push_back(y), c.push_back(x * 3 + y);
  for (unsigned i = 0; i < 5; ++i) // a partial last warp
    a.push_back(edge[i]), b.push_back(edge[7 - i]), c.push_back(i);
  auto got = runElementwise<uint64_t, uint64_t>(
      "u64", "u64",
      "add.s64 %d, %a, %b; add.s64 %d, %d, %c; sub.s64 %d, %d, %a; add.u64 %a, %a, %d;"
      " sub.u64 %d, %a, %c;",
      a, b, c);
  ASSERT_EQ(got.size(), a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    uint64_t d = b[i] + c[i]; // a + b + c - a
    EXPECT_EQ(got[i], a[i] + d - c[i]) << a[i] << " " << b[i] << " " << c[i];
  }
  // 32-bit: the same with wrap-around at 2^32 (and a full warp plus a partial one)
  std::vector<int32_t> x, y, z;
  for (size_t i = 0; i < a.size(); ++i)
    x.push_back(int32_t(a[i] >> 16)), y.push_back(int32_t(b[i])), z.push_back(int32_t(c[i] >> 3));
  auto got32 = runElementwise<int32_t, int32_t>(
      "s32", "s32", "add.s32 %d, %a, %b; sub.s32 %d, %d, %c; add.u32 %d, %d, %d;", x, y, z);
  ASSERT_EQ(got32.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    uint32_t d = uint32_t(x[i]) + uint32_t(y[i]) - uint32_t(z[i]);
    EXPECT_EQ(uint32_t(got32[i]), d + d) << x[i] << " " << y[i] << " " << z[i];
  }
}

} // namespace

namespace {

/// Shared memory as sharedAccessKernel() fills it: 40 words, word i = sharedWord(i).
uint32_t sharedWord(uint32_t i) { return i * 0x9E3779B1u + 0x01234567u; }
uint8_t sharedByte(uint32_t a) { return uint8_t(sharedWord(a / 4) >> (8 * (a % 4))); }

/// One warp fills a 160-byte shared array (word i = sharedWord(i)); then each lane l whose bit
/// is set in `mask` loads `type` (u8 or u32) from the 32-bit shared address buf + at[l] + `off`
/// ([reg+off] with a 32-bit register: ld.shared's usual form) and stores it to out[l]
/// (0xdeadbeef for the lanes left out). With `store`, those lanes first store l + 1000 there
/// (as `type`), and the load reads it back.
std::string sharedAccessKernel(const std::string &type, int off, bool store = false) {
  const std::string o = off ? (off > 0 ? "+" : "") + std::to_string(off) : "";
  const std::string st =
      store ? "  add.u32 %r12, %r4, 1000;\n" +
                  (type == "u8" ? "  cvt.u16.u32 %h1, %r12;\n  @%p2 st.shared.u8 [%r9" + o + "], %h1;\n"
                                : "  @%p2 st.shared.u32 [%r9" + o + "], %r12;\n")
            : "";
  const std::string ld =
      type == "u8" ? "  @%p2 ld.shared.u8 %h1, [%r9" + o + "];\n  @%p2 cvt.u32.u16 %r11, %h1;\n"
                   : "  @%p2 ld.shared.u32 %r11, [%r9" + o + "];\n";
  return kernel("sh", ".param .u64 out, .param .u64 at, .param .u32 mask",
                "  .shared .align 16 .b8 buf[160];\n"
                "  .reg .b32 %r<13>; .reg .b16 %h<2>; .reg .b64 %rd<6>; .reg .pred %p<3>;\n"
                "  ld.param.u64 %rd1, [out]; ld.param.u64 %rd4, [at]; ld.param.u32 %r3, [mask];\n"
                "  mov.u32 %r4, %tid.x;\n"
                "  mov.u32 %r5, buf;\n"
                "  shl.b32 %r6, %r4, 2;\n"
                "  add.u32 %r7, %r5, %r6;\n"
                "  mad.lo.u32 %r8, %r4, -1640531535, 19088743;\n" // sharedWord(l)
                "  st.shared.u32 [%r7], %r8;\n"
                "  setp.lt.u32 %p1, %r4, 8;\n"
                "  add.u32 %r10, %r4, 32;\n"
                "  mad.lo.u32 %r8, %r10, -1640531535, 19088743;\n" // sharedWord(l + 32)
                "  @%p1 st.shared.u32 [%r7+128], %r8;\n"
                "  bar.sync 0;\n"
                "  mul.wide.u32 %rd2, %r4, 4;\n"
                "  add.s64 %rd5, %rd4, %rd2;\n"
                "  ld.global.u32 %r8, [%rd5];\n"
                "  add.u32 %r9, %r5, %r8;\n"
                "  shr.b32 %r10, %r3, %r4;\n"
                "  and.b32 %r10, %r10, 1;\n"
                "  setp.ne.u32 %p2, %r10, 0;\n"
                "  mov.u32 %r11, -559038737;\n" + // 0xdeadbeef
                    st + ld +
                "  add.s64 %rd3, %rd1, %rd2;\n"
                "  st.global.u32 [%rd3], %r11;\n"
                "  ret;");
}

constexpr uint32_t kAll = 0xffffffffu;

/// Lane l's offset base + l * stride (32-bit arithmetic).
std::vector<uint32_t> strided(uint32_t base, uint32_t stride) {
  std::vector<uint32_t> v(32);
  for (uint32_t l = 0; l < 32; ++l)
    v[l] = base + l * stride;
  return v;
}

struct SharedCase {
  const char *what;
  std::vector<uint32_t> at;
  uint32_t mask;
  int off;
};

/// The cases that stay inside the 160 bytes, for `bytes`-wide accesses.
std::vector<SharedCase> inBoundsCases(uint32_t bytes) {
  std::vector<uint32_t> tile(32), rev(32), perm(32);
  for (uint32_t l = 0; l < 32; ++l) {
    tile[l] = 64 + (l % 16) * bytes; // two rows of a 16-wide tile on the same elements
    rev[l] = (31 - l) * bytes + (160 - 32 * bytes);
    perm[l] = (l * 7 % 32) * bytes + (160 - 32 * bytes);
  }
  const uint32_t last = 160 - bytes;
  return {
      {"coalesced from 0", strided(0, bytes), kAll, 0},
      {"coalesced to the last element", strided(last - 31 * bytes, bytes), kAll, 0},
      {"coalesced to the last element by the offset", strided(0, bytes), kAll, int(last - 31 * bytes)},
      {"broadcast of the last element", strided(last, 0), kAll, 0},
      {"broadcast by a negative offset", strided(last + 16, 0), kAll, -16},
      {"a tile's two rows", tile, kAll, 0},
      {"reversed, ending at the last element", rev, kAll, 0},
      {"permuted, to the last element", perm, kAll, 0},
      {"every other element of 16 lanes, to the last", strided(last - 30 * bytes, 2 * bytes), 0xffffu, 0},
      {"partial warp to the last element", strided(last - 31 * bytes, bytes), 0x7ffffffeu, 0},
      {"one lane on the last element", strided(last, 0), 0x10u, 0},
  };
}

/// What lane l reads at shared byte `a` for a `bytes`-wide load.
uint32_t sharedValue(uint32_t a, uint32_t bytes) { return bytes == 1 ? sharedByte(a) : sharedWord(a / 4); }

} // namespace

TEST(ExecMemoryPath, SharedAccessesWith32BitAddressesUpToTheWindowsEnd) {
  for (uint32_t bytes : {1u, 4u}) {
    const std::string type = bytes == 1 ? "u8" : "u32";
    for (const SharedCase &c : inBoundsCases(bytes)) {
      for (bool store : {false, true}) {
        SCOPED_TRACE(type + ", " + c.what + (store ? ", stored then loaded" : ""));
        ExecHarness h;
        ASSERT_TRUE(h.load(sharedAccessKernel(type, c.off, store))) << h.errors;
        uint64_t out = h.alloc(32 * 4), at = h.upload(c.at);
        auto r = h.launch("sh", {1}, {32}, {out, at, c.mask});
        ASSERT_TRUE(r.ok()) << r.message;
        auto got = h.read<uint32_t>(out, 32);
        // a store by several lanes to one element: one of them wins (here the last in lane
        // order); the lanes then read the winner's value
        std::map<uint32_t, uint32_t> stored;
        if (store)
          for (uint32_t l = 0; l < 32; ++l)
            if (c.mask >> l & 1)
              stored[c.at[l] + uint32_t(c.off)] = bytes == 1 ? uint8_t(l + 1000) : l + 1000;
        for (uint32_t l = 0; l < 32; ++l) {
          const uint32_t a = c.at[l] + uint32_t(c.off);
          uint32_t want = 0xdeadbeefu;
          if (c.mask >> l & 1)
            want = store ? stored[a] : sharedValue(a, bytes);
          EXPECT_EQ(got[l], want) << "lane " << l;
        }
      }
    }
  }
}

TEST(ExecMemoryPath, SharedAccessesWith32BitAddressesOneBytePastTheWindowFault) {
  // one element past the end (by the address or by the offset), a wrap below 0 of the 32-bit
  // address, and misaligned words: the first bad lane is reported, for loads and stores, full
  // and partial warps
  struct Bad {
    const char *what;
    uint32_t bytes;
    std::vector<uint32_t> at;
    uint32_t mask;
    int off;
    unsigned lane;
    const char *kind;
  };
  std::vector<uint32_t> lastPast(32), wrap = strided(0u - 8u, 4);
  for (uint32_t l = 0; l < 32; ++l)
    lastPast[l] = l == 31 ? 160 : l * 4; // only the last lane is out
  const Bad cases[] = {
      {"u32 coalesced, one word past", 4, strided(64, 4), kAll, 0, 24, "out-of-bounds"},
      {"u32 coalesced, one word past by the offset", 4, strided(0, 4), kAll, 64, 24, "out-of-bounds"},
      {"u32 broadcast at the end", 4, strided(160, 0), kAll, 0, 0, "out-of-bounds"},
      {"u32 last lane past", 4, lastPast, kAll, 0, 31, "out-of-bounds"},
      {"u32 partial warp past", 4, strided(64, 4), 0x3000000u, 0, 24, "out-of-bounds"},
      {"u32 below 0 (wraps to 2^32 - 8)", 4, wrap, kAll, 0, 0, "out-of-bounds"},
      {"u32 misaligned by 2", 4, strided(2, 4), kAll, 0, 0, "misaligned"},
      {"u32 misaligned lane 5", 4, [] {
         auto v = strided(0, 4);
         v[5] = 21;
         return v;
       }(), kAll, 0, 5, "misaligned"},
      {"u8 one byte past", 1, strided(129, 1), kAll, 0, 31, "out-of-bounds"},
      {"u8 one byte past by the offset", 1, strided(0, 1), kAll, 129, 31, "out-of-bounds"},
      {"u8 broadcast one byte past", 1, strided(159, 0), kAll, 1, 0, "out-of-bounds"},
  };
  for (const Bad &c : cases) {
    for (bool store : {false, true}) {
      SCOPED_TRACE(std::string(c.what) + (store ? ", store" : ", load"));
      ExecHarness h;
      ASSERT_TRUE(h.load(sharedAccessKernel(c.bytes == 1 ? "u8" : "u32", c.off, store))) << h.errors;
      uint64_t out = h.alloc(32 * 4), at = h.upload(c.at);
      auto r = h.launch("sh", {1}, {32}, {out, at, c.mask});
      ASSERT_FALSE(r.ok());
      EXPECT_NE(r.message.find("thread (" + std::to_string(c.lane) + ",0,0)"), std::string::npos)
          << r.message;
      EXPECT_NE(r.message.find(std::string(c.kind) + " shared " + (store ? "write" : "read") +
                               " of " + std::to_string(c.bytes) + " byte"),
                std::string::npos)
          << r.message;
    }
  }
}

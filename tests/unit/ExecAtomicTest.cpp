// Executor atomics: atom/red in global, shared and generic space under contention from CTAs
// running on several host threads, with exact totals and permutation checks on old values.

#include "ExecHarness.h"

#include <algorithm>
#include <cstring>

using namespace ptxsim;
using namespace ptxsim::test;

namespace {

/// Kernel `name(.u64 ctr, .u64 out, .u64 arg)`: gtid in %r4 (u32) and %rd9 (u64), the counter
/// address in %rd1, out + gtid*esize in %rd4; `body` uses them.
std::string kernel(const std::string &name, unsigned esize, const std::string &body) {
  return ".visible .entry " + name + R"((.param .u64 ctr, .param .u64 out, .param .u64 arg) {
  .reg .b16 %h<8>; .reg .b32 %r<16>; .reg .b64 %rd<16>; .reg .f32 %f<8>; .reg .f64 %fd<8>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [ctr]; ld.param.u64 %rd2, [out]; ld.param.u64 %rd5, [arg];
  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  mul.wide.u32 %rd9, %r4, 1;
  mul.wide.u32 %rd3, %r4, )" + std::to_string(esize) + R"(;
  add.s64 %rd4, %rd2, %rd3;
)" + body + "\n  ret;\n}\n";
}

constexpr unsigned kCtas = 48, kThreads = 160, kN = kCtas * kThreads;

template <class T> void expectPermutation(std::vector<T> v, T first) {
  std::sort(v.begin(), v.end());
  for (size_t i = 0; i < v.size(); ++i)
    ASSERT_EQ(v[i], T(first + i)) << "position " << i;
}

TEST(ExecAtomic, AddU32ManyCtasOldValuesArePermutation) {
  ExecHarness h(4);
  ASSERT_TRUE(h.load(ptxHeader() + kernel("k", 4, R"(
  atom.global.add.u32 %r5, [%rd1], 1;
  st.global.u32 [%rd4], %r5;)"))) << h.errors;
  uint64_t ctr = h.alloc(4), out = h.alloc(kN * 4);
  auto r = h.launch("k", {kCtas}, {kThreads}, {ctr, out, 0});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(h.read<uint32_t>(ctr, 1)[0], kN);
  expectPermutation(h.read<uint32_t>(out, kN), 0u);
}

TEST(ExecAtomic, AddU64AndS32AndRed) {
  ExecHarness h(4);
  ASSERT_TRUE(h.load(ptxHeader() + kernel("k", 8, R"(
  mad.lo.u64 %rd6, %rd9, 4294967311, 4294967311;
  atom.global.add.u64 %rd7, [%rd1], %rd6;
  st.global.u64 [%rd4], %rd7;
  sub.s32 %r6, 1000, %r4;
  atom.global.add.s32 %r7, [%rd1+8], %r6;
  red.global.add.u64 [%rd1+16], %rd9;
  red.add.u32 [%rd1+24], 3;)"))) << h.errors;
  uint64_t ctr = h.alloc(32), out = h.alloc(kN * 8);
  auto r = h.launch("k", {kCtas}, {kThreads}, {ctr, out, 0});
  ASSERT_TRUE(r.ok()) << r.message;
  uint64_t sum64 = 0, sumIdx = 0;
  int32_t sum32 = 0;
  for (uint64_t i = 0; i < kN; ++i) {
    sum64 += (i + 1) * 4294967311ull;
    sumIdx += i;
    sum32 += int32_t(1000 - (int32_t)i);
  }
  auto c = h.read<uint64_t>(ctr, 4);
  EXPECT_EQ(c[0], sum64);
  EXPECT_EQ((int32_t)c[1], sum32);
  EXPECT_EQ(c[2], sumIdx);
  EXPECT_EQ((uint32_t)c[3], 3 * kN);
  // every old value is a prefix sum in some order of positive addends: all distinct
  auto olds = h.read<uint64_t>(out, kN);
  std::sort(olds.begin(), olds.end());
  EXPECT_EQ(olds[0], 0u);
  EXPECT_TRUE(std::adjacent_find(olds.begin(), olds.end()) == olds.end());
}

TEST(ExecAtomic, FloatAddsAreExactForSmallIntegers) {
  ExecHarness h(4);
  ASSERT_TRUE(h.load(ptxHeader() + kernel("k", 4, R"(
  atom.global.add.f32 %f1, [%rd1], 0f3F800000;
  red.global.add.f64 [%rd1+8], 0d3FE0000000000000;
  mov.b16 %h1, 0x3C00;
  and.b32 %r8, %r4, 1023;
  setp.eq.u32 %p1, %r8, 0;
  @%p1 atom.global.add.noftz.f16 %h2, [%rd1+16], %h1;
  mov.b16 %h4, 0x3F80;
  @%p1 atom.global.add.noftz.bf16 %h3, [%rd1+18], %h4;
  mov.b32 %r9, 0x3C004000;
  @%p1 atom.global.add.noftz.f16x2 %r10, [%rd1+20], %r9;
  st.global.f32 [%rd4], %f1;)"))) << h.errors;
  uint64_t ctr = h.alloc(32), out = h.alloc(kN * 4);
  auto r = h.launch("k", {kCtas}, {kThreads}, {ctr, out, 0});
  ASSERT_TRUE(r.ok()) << r.message;
  auto raw = h.read<uint8_t>(ctr, 32);
  float f;
  double d;
  uint16_t h16, b16;
  uint32_t x2;
  std::memcpy(&f, &raw[0], 4);
  std::memcpy(&d, &raw[8], 8);
  std::memcpy(&h16, &raw[16], 2);
  std::memcpy(&b16, &raw[18], 2);
  std::memcpy(&x2, &raw[20], 4);
  EXPECT_EQ(f, float(kN));
  EXPECT_EQ(d, kN * 0.5);
  // gtid multiples of 1024 below 7680: 0, 1024, ..., 7168 (8 adds)
  EXPECT_EQ(h16, 0x4800) << "8.0 in f16";
  EXPECT_EQ(b16, 0x4100) << "8.0 in bf16";
  EXPECT_EQ(x2, 0x48004C00u) << "f16x2 {8.0, 16.0}";
  auto olds = h.read<float>(out, kN);
  std::vector<uint32_t> ints(kN);
  for (unsigned i = 0; i < kN; ++i)
    ints[i] = (uint32_t)olds[i];
  expectPermutation(ints, 0u);
}

TEST(ExecAtomic, MinMaxSignedUnsigned) {
  ExecHarness h(4);
  ASSERT_TRUE(h.load(ptxHeader() + kernel("k", 4, R"(
  mul.lo.u32 %r6, %r4, 2654435761;
  xor.b32 %r6, %r6, 0x5bd1e995;
  atom.global.min.s32 %r7, [%rd1], %r6;
  atom.global.max.s32 %r7, [%rd1+4], %r6;
  atom.global.min.u32 %r7, [%rd1+8], %r6;
  atom.global.max.u32 %r7, [%rd1+12], %r6;
  mul.wide.s32 %rd6, %r6, 1000003;
  red.global.min.s64 [%rd1+16], %rd6;
  red.global.max.u64 [%rd1+24], %rd6;)"))) << h.errors;
  uint64_t ctr = h.alloc(32), out = h.alloc(4);
  std::vector<uint32_t> init = {0x7fffffffu, 0x80000000u, 0xffffffffu, 0, 0xffffffffu, 0x7fffffffu, 0, 0};
  std::memcpy(reinterpret_cast<void *>(ctr), init.data(), 32);
  auto r = h.launch("k", {kCtas}, {kThreads}, {ctr, out, 0});
  ASSERT_TRUE(r.ok()) << r.message;
  int32_t mins = INT32_MAX, maxs = INT32_MIN;
  uint32_t minu = UINT32_MAX, maxu = 0;
  int64_t min64 = INT64_MAX;
  uint64_t max64 = 0;
  for (uint32_t i = 0; i < kN; ++i) {
    uint32_t v = (i * 2654435761u) ^ 0x5bd1e995u;
    mins = std::min(mins, (int32_t)v), maxs = std::max(maxs, (int32_t)v);
    minu = std::min(minu, v), maxu = std::max(maxu, v);
    int64_t w = (int64_t)(int32_t)v * 1000003;
    min64 = std::min(min64, w), max64 = std::max(max64, (uint64_t)w);
  }
  auto c32 = h.read<uint32_t>(ctr, 4);
  EXPECT_EQ((int32_t)c32[0], mins);
  EXPECT_EQ((int32_t)c32[1], maxs);
  EXPECT_EQ(c32[2], minu);
  EXPECT_EQ(c32[3], maxu);
  auto c64 = h.read<uint64_t>(ctr + 16, 2);
  EXPECT_EQ((int64_t)c64[0], min64);
  EXPECT_EQ(c64[1], max64);
}

TEST(ExecAtomic, BitwiseAndExchange) {
  ExecHarness h(4);
  ASSERT_TRUE(h.load(ptxHeader() + kernel("k", 4, R"(
  and.b32 %r6, %r4, 63;
  shl.b64 %rd7, 1, %r6;
  atom.global.or.b64 %rd8, [%rd1], %rd7;
  not.b64 %rd7, %rd7;
  red.global.and.b64 [%rd1+8], %rd7;
  atom.global.xor.b32 %r7, [%rd1+16], %r4;
  add.u32 %r8, %r4, 1;
  atom.global.exch.b32 %r9, [%rd1+20], %r8;
  st.global.u32 [%rd4], %r9;)"))) << h.errors;
  uint64_t ctr = h.alloc(24), out = h.alloc(kN * 4);
  std::vector<uint64_t> init = {0, ~0ull, 0};
  std::memcpy(reinterpret_cast<void *>(ctr), init.data(), 24);
  auto r = h.launch("k", {kCtas}, {kThreads}, {ctr, out, 0});
  ASSERT_TRUE(r.ok()) << r.message;
  auto c = h.read<uint64_t>(ctr, 2);
  EXPECT_EQ(c[0], ~0ull);
  EXPECT_EQ(c[1], 0ull);
  uint32_t x = 0;
  for (uint32_t i = 0; i < kN; ++i)
    x ^= i;
  auto c32 = h.read<uint32_t>(ctr + 16, 2);
  EXPECT_EQ(c32[0], x);
  // exchange chain: the old values plus the final value are 0..kN, each once
  auto olds = h.read<uint32_t>(out, kN);
  olds.push_back(c32[1]);
  expectPermutation(olds, 0u);
}

TEST(ExecAtomic, IncDecWrapSemantics) {
  ExecHarness h;
  // single thread: edge cases of the wrap rules
  ASSERT_TRUE(h.load(ptxHeader() + kernel("k", 4, R"(
  atom.global.inc.u32 %r5, [%rd1], 9;
  atom.global.inc.u32 %r6, [%rd1+4], 9;
  atom.global.inc.u32 %r7, [%rd1+8], 9;
  atom.global.dec.u32 %r8, [%rd1+12], 9;
  atom.global.dec.u32 %r9, [%rd1+16], 9;
  atom.global.dec.u32 %r10, [%rd1+20], 9;
  st.global.v4.u32 [%rd2], {%r5, %r6, %r7, %r8};
  st.global.v2.u32 [%rd2+16], {%r9, %r10};)"))) << h.errors;
  uint64_t ctr = h.alloc(24), out = h.alloc(24);
  std::vector<uint32_t> init = {3, 9, 100, 0, 5, 100};
  std::memcpy(reinterpret_cast<void *>(ctr), init.data(), 24);
  auto r = h.launch("k", {1}, {1}, {ctr, out, 0});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(h.read<uint32_t>(ctr, 6), (std::vector<uint32_t>{4, 0, 0, 9, 4, 9}));
  EXPECT_EQ(h.read<uint32_t>(out, 6), init);

  ExecHarness m(4);
  ASSERT_TRUE(m.load(ptxHeader() + kernel("many", 4, R"(
  atom.global.inc.u32 %r5, [%rd1], 9;
  st.global.u32 [%rd4], %r5;
  red.global.dec.u32 [%rd1+4], 6;)"))) << m.errors;
  uint64_t c2 = m.alloc(8), o2 = m.alloc(kN * 4);
  r = m.launch("many", {kCtas}, {kThreads}, {c2, o2, 0});
  ASSERT_TRUE(r.ok()) << r.message;
  // inc with bound 9 counts modulo 10, dec with bound 6 counts down modulo 7 from 0
  auto c = m.read<uint32_t>(c2, 2);
  EXPECT_EQ(c[0], kN % 10);
  EXPECT_EQ(c[1], (7 - kN % 7) % 7);
  std::vector<unsigned> hist(10);
  for (uint32_t v : m.read<uint32_t>(o2, kN)) {
    ASSERT_LT(v, 10u);
    ++hist[v];
  }
  for (unsigned v = 0; v < 10; ++v)
    EXPECT_EQ(hist[v], kN / 10 + (v < kN % 10)) << v;
}

TEST(ExecAtomic, CasSemanticsAndLockFreeCounter) {
  ExecHarness h(4);
  ASSERT_TRUE(h.load(ptxHeader() + kernel("once", 4, R"(
  atom.global.cas.b32 %r5, [%rd1], 7, 11;
  atom.global.cas.b32 %r6, [%rd1+4], 7, 11;
  atom.global.cas.b64 %rd6, [%rd1+8], 0x100000000, 5;
  mov.b16 %h1, 0x1234;
  atom.global.cas.b16 %h2, [%rd1+16], %h1, 0x4321;
  st.global.v2.u32 [%rd2], {%r5, %r6};
  st.global.u16 [%rd2+8], %h2;
  st.global.u64 [%rd2+16], %rd6;)") + kernel("spin", 4, R"(
LOOP:
  ld.volatile.global.u32 %r5, [%rd1];
  add.u32 %r6, %r5, %r4;
  atom.global.cas.b32 %r7, [%rd1], %r5, %r6;
  setp.ne.u32 %p1, %r7, %r5;
  @%p1 bra LOOP;)"))) << h.errors;
  uint64_t ctr = h.alloc(24), out = h.alloc(24);
  std::vector<uint32_t> init = {7, 8, 0, 1, 0x1234, 0};
  std::memcpy(reinterpret_cast<void *>(ctr), init.data(), 24);
  auto r = h.launch("once", {1}, {1}, {ctr, out, 0});
  ASSERT_TRUE(r.ok()) << r.message;
  auto c = h.read<uint32_t>(ctr, 5);
  EXPECT_EQ(c[0], 11u);
  EXPECT_EQ(c[1], 8u);
  EXPECT_EQ(c[2], 5u);
  EXPECT_EQ(c[3], 0u);
  EXPECT_EQ(c[4] & 0xffff, 0x4321u);
  auto o = h.read<uint32_t>(out, 3);
  EXPECT_EQ(o[0], 7u);
  EXPECT_EQ(o[1], 8u);
  EXPECT_EQ(o[2] & 0xffff, 0x1234u);
  EXPECT_EQ(h.read<uint64_t>(out + 16, 1)[0], 0x100000000ull);

  uint64_t c2 = h.alloc(4);
  r = h.launch("spin", {kCtas}, {kThreads}, {c2, out, 0});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(h.read<uint32_t>(c2, 1)[0], uint32_t(uint64_t(kN) * (kN - 1) / 2));
}

TEST(ExecAtomic, SharedAndGenericSpaces) {
  ExecHarness h(4);
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<12>; .reg .b64 %rd<8>; .reg .pred %p<2>;
  .shared .align 8 .b32 cnt[4];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SKIP;
  st.shared.u32 [cnt], 0; st.shared.u32 [cnt+4], 0; st.shared.u32 [cnt+8], 0;
SKIP:
  bar.sync 0;
  atom.shared.add.u32 %r3, [cnt], 1;
  mov.u64 %rd2, cnt;
  cvta.shared.u64 %rd3, %rd2;
  atom.add.u32 %r4, [%rd3+4], %r1;
  atom.shared::cta.max.u32 %r5, [cnt+8], %r1;
  atom.add.u32 %r6, [%rd1], 1;   // generic pointing to global
  bar.sync 0;
  @%p1 bra DONE;
  ld.shared.u32 %r7, [cnt]; ld.shared.u32 %r8, [cnt+4]; ld.shared.u32 %r9, [cnt+8];
  mul.wide.u32 %rd4, %r2, 16;
  add.s64 %rd5, %rd1, %rd4;
  st.global.v2.u32 [%rd5+16], {%r7, %r8};
  st.global.u32 [%rd5+24], %r9;
DONE:
  ret;
}
)")) << h.errors;
  uint64_t out = h.alloc(16 + kCtas * 16);
  auto r = h.launch("k", {kCtas}, {kThreads}, {out});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(h.read<uint32_t>(out, 1)[0], kN);
  auto v = h.read<uint32_t>(out + 16, kCtas * 4);
  for (unsigned c = 0; c < kCtas; ++c) {
    EXPECT_EQ(v[c * 4], kThreads) << c;
    EXPECT_EQ(v[c * 4 + 1], kThreads * (kThreads - 1) / 2) << c;
    EXPECT_EQ(v[c * 4 + 2], kThreads - 1) << c;
  }
}

TEST(ExecAtomic, MisalignedAtomicFaults) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + kernel("k", 4, R"(
  atom.global.add.u32 %r5, [%rd1+2], 1;)"))) << h.errors;
  uint64_t ctr = h.alloc(16), out = h.alloc(4);
  auto r = h.launch("k", {1}, {1}, {ctr, out, 0});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.message.find("misaligned"), std::string::npos) << r.message;
}

// .b128 registers (two 64-bit slots): mov pack/unpack, ld/st.b128, and atom.cas/exch.b128 under
// contention. Every thread runs a 128-bit CAS loop adding (1, tid) to the pair at ctr, then
// exchanges (tid, ~tid) into ctr+16; old values it gets back must be whole pairs.
TEST(ExecAtomic, Wide128BitCasAndExchange) {
  ExecHarness h(4);
  ASSERT_TRUE(h.load(ptxHeader() + kernel("k", 8, R"(
  .reg .b128 %q<4>;
  ld.global.b128 %q0, [%rd1];
LOOP:
  mov.b128 {%rd10, %rd11}, %q0;
  add.s64 %rd12, %rd10, 1;
  add.s64 %rd13, %rd11, %rd9;
  mov.b128 %q1, {%rd12, %rd13};
  atom.global.cas.b128 %q2, [%rd1], %q0, %q1;
  mov.b128 {%rd14, %rd15}, %q2;
  setp.ne.s64 %p1, %rd14, %rd10;
  setp.ne.or.s64 %p1, %rd15, %rd11, %p1;
  mov.b128 %q0, %q2;
  @%p1 bra LOOP;
  not.b64 %rd12, %rd9;
  mov.b128 %q3, {%rd9, %rd12};
  atom.global.exch.b128 %q2, [%rd1+16], %q3;
  mov.b128 {%rd10, %rd11}, %q2;
  xor.b64 %rd12, %rd10, %rd11;
  st.global.u64 [%rd4], %rd12;
  st.global.b128 [%rd1+32], %q3;)"))) << h.errors;
  uint64_t ctr = h.upload(std::vector<uint64_t>{0, 0, 5, ~5ull, 0, 0});
  uint64_t out = h.alloc(kN * 8);
  auto r = h.launch("k", {kCtas}, {kThreads}, {ctr, out, 0});
  ASSERT_TRUE(r.ok()) << r.message;
  auto c = h.read<uint64_t>(ctr, 6);
  EXPECT_EQ(c[0], (uint64_t)kN);
  EXPECT_EQ(c[1], (uint64_t)kN * (kN - 1) / 2);
  EXPECT_EQ(c[3], ~c[2]); // the last exchange left a whole pair
  EXPECT_LT(c[2], (uint64_t)kN);
  EXPECT_EQ(c[5], ~c[4]); // st.b128 stored both halves
  auto o = h.read<uint64_t>(out, kN);
  for (unsigned i = 0; i < kN; ++i)
    ASSERT_EQ(o[i], ~0ull) << "thread " << i << " got a torn pair"; // lo ^ hi of (x, ~x)
}

} // namespace

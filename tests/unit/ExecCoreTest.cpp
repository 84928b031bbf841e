// Executor core: control flow, reconvergence, calls, barriers, memory spaces and faults.

#include "ExecHarness.h"

#include <algorithm>
#include <set>

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

namespace {

std::string kernelWrap(const std::string &name, const std::string &body,
                       const std::string &params = ".param .u64 out") {
  return ptxHeader() + ".visible .entry " + name + "(" + params + ") {\n" + body + "\n}\n";
}

TEST(ExecCore, MisalignedLoadIsReported) {
  ExecHarness h;
  ASSERT_TRUE(h.load(kernelWrap("mis", R"(
  .reg .b32 %r<3>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  add.s64 %rd2, %rd1, 2;
  ld.global.u32 %r1, [%rd2];
  st.global.u32 [%rd1], %r1;
  ret;)"))) << h.errors;
  uint64_t d = h.alloc(64);
  auto r = h.launch("mis", {1}, {1}, {d});
  ASSERT_EQ(r.status, ptx::exec::LaunchStatus::Misaligned);
  EXPECT_NE(r.message.find("misaligned global read of 4 bytes"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("test.ptx:9:"), std::string::npos) << r.message;
}

TEST(ExecCore, TrapStopsTheKernelAndNamesTheThread) {
  ExecHarness h;
  ASSERT_TRUE(h.load(kernelWrap("tr", R"(
  .reg .b32 %r<3>; .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 37;
  @%p1 trap;
  ret;)"))) << h.errors;
  auto r = h.launch("tr", {2}, {64}, {0});
  ASSERT_EQ(r.status, ptx::exec::LaunchStatus::Trap);
  EXPECT_NE(r.message.find("thread (37,0,0)"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("block (0,0,0)"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("trap"), std::string::npos) << r.message;
}

// Nested divergence: every lane takes a path by its bits, the paths rejoin, and a uniform
// instruction after reconvergence sees every lane again.
TEST(ExecCore, NestedDivergenceReconverges) {
  ExecHarness h;
  ASSERT_TRUE(h.load(kernelWrap("div", R"(
  .reg .b32 %r<10>; .reg .b64 %rd<4>; .reg .pred %p<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
  and.b32 %r3, %r1, 1;
  setp.ne.u32 %p1, %r3, 0;
  @%p1 bra ODD;
  and.b32 %r4, %r1, 2;
  setp.ne.u32 %p2, %r4, 0;
  @%p2 bra E2;
  add.u32 %r2, %r2, 10;
  bra EJOIN;
E2:
  add.u32 %r2, %r2, 20;
EJOIN:
  add.u32 %r2, %r2, 1;
  bra JOIN;
ODD:
  mov.u32 %r5, 0;
LOOP:
  add.u32 %r2, %r2, 100;
  add.u32 %r5, %r5, 1;
  setp.lt.u32 %p3, %r5, %r1;
  @%p3 bra LOOP;
JOIN:
  activemask.b32 %r6;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r2, %r6};
  ret;)"))) << h.errors;
  uint64_t d = h.alloc(32 * 8);
  auto r = h.launch("div", {1}, {32}, {d});
  ASSERT_TRUE(r.ok()) << r.message;
  auto v = h.read<uint32_t>(d, 64);
  for (unsigned t = 0; t < 32; ++t) {
    uint32_t want = (t & 1) ? 100 * t : ((t & 2) ? 21 : 11);
    EXPECT_EQ(v[2 * t], want) << t;
    EXPECT_EQ(v[2 * t + 1], 0xffffffffu) << t; // reconverged before activemask
  }
}

// brx.idx with a different target per lane, and recursion through a .func with parameters.
TEST(ExecCore, JumpTableAndRecursiveCalls) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.func (.param .b32 ret) fib(.param .b32 n) {
  .reg .b32 %r<8>; .reg .pred %p<2>;
  ld.param.b32 %r1, [n];
  setp.lt.u32 %p1, %r1, 2;
  @%p1 bra BASE;
  add.u32 %r2, %r1, -1;
  { .param .b32 a; .param .b32 r;
    st.param.b32 [a], %r2;
    call (r), fib, (a);
    ld.param.b32 %r3, [r]; }
  add.u32 %r2, %r1, -2;
  { .param .b32 a; .param .b32 r;
    st.param.b32 [a], %r2;
    call (r), fib, (a);
    ld.param.b32 %r4, [r]; }
  add.u32 %r1, %r3, %r4;
BASE:
  st.param.b32 [ret], %r1;
  ret;
}
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, 3;
  ts: .branchtargets L0, L1, L2;
  brx.idx %r2, ts;
L0: mov.u32 %r3, 1000; bra J;
L1: mov.u32 %r3, 2000; bra J;
L2: mov.u32 %r3, 3000;
J:
  { .param .b32 a; .param .b32 r;
    st.param.b32 [a], %r1;
    call (r), fib, (a);
    ld.param.b32 %r4, [r]; }
  add.u32 %r5, %r3, %r4;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
}
)")) << h.errors;
  uint64_t d = h.alloc(20 * 4);
  auto r = h.launch("k", {1}, {20}, {d});
  ASSERT_TRUE(r.ok()) << r.message;
  auto v = h.read<uint32_t>(d, 20);
  uint32_t fib[21] = {0, 1};
  for (int i = 2; i <= 20; ++i)
    fib[i] = fib[i - 1] + fib[i - 2];
  for (unsigned t = 0; t < 20; ++t)
    EXPECT_EQ(v[t], 1000 * (t % 3 + 1) + fib[t]) << t;
}

// Shared memory, bar.sync and bar.red.popc across 4 warps; the same answer with 1 and 4 host
// threads over many CTAs.
TEST(ExecCore, BarriersAndSharedMemoryAreDeterministicAcrossThreadCounts) {
  std::string ptx = ptxHeader() + R"(
.visible .entry k(.param .u64 out) {
  .shared .align 4 .b32 buf[128];
  .reg .b32 %r<12>; .reg .b64 %rd<4>; .reg .pred %p<3>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mad.lo.u32 %r3, %r2, 7, %r1;
  mov.u32 %r4, buf;
  shl.b32 %r5, %r1, 2;
  add.u32 %r6, %r4, %r5;
  st.shared.u32 [%r6], %r3;
  bar.sync 0;
  xor.b32 %r7, %r1, 127;
  shl.b32 %r7, %r7, 2;
  add.u32 %r7, %r4, %r7;
  ld.shared.u32 %r8, [%r7];
  and.b32 %r9, %r8, 1;
  setp.ne.u32 %p1, %r9, 0;
  bar.red.popc.u32 %r10, 0, %p1;
  add.u32 %r11, %r8, %r10;
  mov.u32 %r9, %ntid.x;
  mad.lo.u32 %r9, %r2, %r9, %r1;
  mul.wide.u32 %rd2, %r9, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r11;
  ret;
}
)";
  std::vector<uint32_t> results[2];
  int i = 0;
  for (unsigned threads : {1u, 4u}) {
    ExecHarness h(threads);
    ASSERT_TRUE(h.load(ptx)) << h.errors;
    uint64_t d = h.alloc(64 * 128 * 4);
    auto r = h.launch("k", {64}, {128}, {d});
    ASSERT_TRUE(r.ok()) << r.message;
    results[i++] = h.read<uint32_t>(d, 64 * 128);
  }
  EXPECT_EQ(results[0], results[1]);
  for (unsigned c = 0; c < 64; ++c) {
    unsigned odd = 0;
    for (unsigned t = 0; t < 128; ++t)
      odd += (c * 7 + t) & 1;
    for (unsigned t = 0; t < 128; ++t)
      ASSERT_EQ(results[0][c * 128 + t], c * 7 + (127 - t) + odd) << c << " " << t;
  }
}

} // namespace

namespace {

// Kernel "k" of `h` as a stepped grid of one block of `threads`, its parameters at `params`.
std::unique_ptr<ptx::exec::SteppedGrid> beginOneBlock(ExecHarness &h, const void *params,
                                                      uint32_t threads, ptx::exec::LaunchResult &err) {
  ptx::exec::LaunchParams p;
  p.kernel = h.engine->findKernel("k");
  if (!p.kernel) {
    err.message = "no kernel k";
    return nullptr;
  }
  p.grid = {1};
  p.block = {threads};
  p.params = params;
  return h.engine->beginGrid(p, err);
}

// Warp 0 of block 0 of kernel "k" (one block of 32 threads, its parameter `param`) stepped to its
// end with its global stores held in the lane's buffer (SteppedGrid::bufferGlobalStores), nothing
// committed yet; `onStore(rec, n)` sees the record of the n-th buffered store (1, 2, ...). The
// number of buffered stores, or -1 (with `error`) when a step fails.
template <class OnStore>
int stepWithBufferedStores(ExecHarness &h, uint64_t param,
                           std::unique_ptr<ptx::exec::SteppedGrid> &g, std::string &error,
                           OnStore onStore) {
  ptx::exec::LaunchResult err;
  g = beginOneBlock(h, &param, 32, err);
  if (!g) {
    error = err.message;
    return -1;
  }
  ptx::exec::Cta *cta = g->startCta(0);
  ptx::exec::Warp &wp = g->warp(cta, 0);
  ptx::exec::WarpInstRecord rec;
  g->bufferGlobalStores(0, true);
  int buffered = 0;
  for (int steps = 0; !g->ctaDone(cta) && steps < 100; ++steps) {
    const ptx::ir::Inst *in = g->peek(wp);
    if (!in || !g->step(wp, rec)) {
      error = "warp 0 could not step at step " + std::to_string(steps);
      return -1;
    }
    if (ptx::exec::SteppedGrid::bufferableStore(*in))
      onStore(rec, ++buffered);
  }
  return buffered;
}

// Kernel "k" (loaded into `h` from `body`, after the PTX header) as a stepped grid of `blocks`
// blocks of `threads`, its one parameter an output buffer of `threads` words per block; the
// first block started. What the stepping tests share; false (with `error`) when any of it fails.
struct SteppedKernel {
  uint64_t out = 0;
  std::unique_ptr<ptx::exec::SteppedGrid> grid;
  ptx::exec::Cta *cta = nullptr; ///< block 0
  std::string error;
  bool begin(ExecHarness &h, const std::string &body, uint32_t threads, uint32_t blocks = 1) {
    if (!h.load(ptxHeader() + body)) {
      error = h.errors;
      return false;
    }
    out = h.alloc(uint64_t(blocks) * threads * 4);
    ptx::exec::LaunchParams p;
    p.kernel = h.engine->findKernel("k");
    if (!p.kernel) {
      error = "no kernel k";
      return false;
    }
    p.grid = {blocks};
    p.block = {threads};
    p.params = &out;
    ptx::exec::LaunchResult err;
    grid = h.engine->beginGrid(p, err);
    if (!grid) {
      error = err.message;
      return false;
    }
    cta = grid->startCta(0);
    return true;
  }
};

// The single-step interface a timing model drives: every record names the pc, masks and, for
// memory instructions, the per-lane addresses; stepping gives the same results as launch().
TEST(ExecCore, SteppedGridRecordsEachWarpInstruction) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 40;
  @!%p1 bra SKIP;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
SKIP:
  bar.sync 0;
  ret;
}
)")) << h.errors;
  uint64_t d = h.alloc(64 * 4);
  uint64_t param = d;
  ptx::exec::LaunchResult err;
  auto g = beginOneBlock(h, &param, 64, err);
  ASSERT_TRUE(g) << err.message;
  ptx::exec::Cta *cta = g->startCta(0);
  ptx::exec::WarpInstRecord rec;
  int stores = 0, steps = 0;
  std::vector<uint32_t> storeMasks;
  while (!g->ctaDone(cta) && steps < 1000) {
    for (uint32_t w = 0; w < g->warpsPerCta(); ++w) {
      ptx::exec::Warp &wp = g->warp(cta, w);
      if (!g->ready(wp))
        continue;
      ASSERT_TRUE(g->step(wp, rec));
      ++steps;
      if (rec.isMemory && rec.space == ptxsim::ptx::ir::MemSpace::Global) {
        ++stores;
        storeMasks.push_back(rec.execMask);
        for (unsigned l = 0; l < 32; ++l) {
          if (rec.execMask >> l & 1) {
            EXPECT_EQ(rec.addr[l], d + 4 * (w * 32 + l));
          }
        }
      }
    }
  }
  EXPECT_TRUE(g->ctaDone(cta));
  auto r = g->finish();
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(stores, 2);
  EXPECT_EQ(storeMasks[0], 0xffffffffu);
  EXPECT_EQ(storeMasks[1], 0xffu); // threads 32..39
  auto v = h.read<uint32_t>(d, 64);
  for (unsigned t = 0; t < 64; ++t)
    EXPECT_EQ(v[t], t < 40 ? t : 0u);
  EXPECT_EQ(r.warpInsts, (uint64_t)steps);
}

// A step of a pure register computation also executes the pure instructions after it in a
// straight line (ir::Inst::pure, Warp::aheadN): their later steps only record them. The run stops
// before the reconvergence point (an in-place xor there would run twice) and before anything
// not pure (%tid, the store); a guard inside it reads the predicate the run wrote, and its
// record keeps that guard's lanes though the run writes the predicate again. Warps are
// stepped in turn, so one warp's pending run waits across the other's steps.
TEST(ExecCore, SteppedPureRunsExecuteAheadAndRecordAtTheirIssue) {
  ExecHarness h;
  SteppedKernel sk;
  ASSERT_TRUE(sk.begin(h, R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<3>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 8;
  add.u32 %r2, %r1, 100;
  @%p1 add.u32 %r2, %r2, 1000;
  setp.eq.u32 %p1, %r1, 99;
  setp.ge.u32 %p2, %r2, 1000;
  @%p2 bra JOIN;
  mul.lo.u32 %r2, %r2, 3;
  add.u32 %r2, %r2, 7;
JOIN:
  xor.b32 %r2, %r2, 5;
  shl.b32 %r2, %r2, 1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)", 64)) << sk.error;
  auto &g = sk.grid;
  ptx::exec::Cta *cta = sk.cta;
  const uint64_t d = sk.out;
  const ptx::ir::Function &fn = *g->function(g->warp(cta, 0));
  ptx::exec::WarpInstRecord rec;
  std::vector<std::pair<uint32_t, uint32_t>> seen[2]; // (pc, execMask) by warp
  uint32_t aheadSeen = 0;
  int steps = 0;
  while (!g->ctaDone(cta) && steps < 1000) {
    for (uint32_t w = 0; w < 2; ++w) {
      ptx::exec::Warp &wp = g->warp(cta, w);
      if (!g->ready(wp))
        continue;
      ASSERT_TRUE(g->step(wp, rec));
      ++steps;
      seen[w].emplace_back(rec.pc, rec.execMask);
      aheadSeen = std::max<uint32_t>(aheadSeen, wp.aheadN);
    }
  }
  ASSERT_TRUE(g->ctaDone(cta));
  auto r = g->finish();
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.warpInsts, uint64_t(steps));
  EXPECT_GE(aheadSeen, 4u); // (add, @p add, setp, setp ran at the first setp's step)
  auto v = h.read<uint32_t>(d, 64);
  for (unsigned t = 0; t < 64; ++t) {
    uint32_t x = t + 100 + (t < 8 ? 1000 : 0);
    if (t >= 8)
      x = x * 3 + 7;
    EXPECT_EQ(v[t], (x ^ 5) << 1) << "thread " << t;
  }
  // every instruction up to the ret recorded once per warp, in program order (warp 0's lanes
  // 0-7 jump to JOIN, where its other lanes arrive after the not-taken path), with the lanes its
  // guard chose at its own place
  uint32_t n = 0;
  while (n < fn.code.size() && fn.code[n].ctl != ptx::ir::Ctl::Ret &&
         fn.code[n].ctl != ptx::ir::Ctl::Exit)
    ++n;
  ++n;
  for (uint32_t w = 0; w < 2; ++w) {
    ASSERT_EQ(seen[w].size(), n) << "warp " << w;
    uint32_t guarded = 0, notTakenPath = 0;
    for (uint32_t pc = 0; pc < n; ++pc) {
      const ptx::ir::Inst &in = fn.code[pc];
      ASSERT_EQ(seen[w][pc].first, pc) << "warp " << w;
      if (in.ctl == ptx::ir::Ctl::None && in.guard != ptx::ir::kPredTrue) { // @%p1 add
        EXPECT_EQ(seen[w][pc].second, w == 0 ? 0xffu : 0u) << "pc " << pc;
        ++guarded;
      } else if (pc > 0 && fn.code[pc - 1].ctl == ptx::ir::Ctl::Bra) {
        notTakenPath = pc; // mul, add: lanes 8-31 of warp 0, all of warp 1
      }
    }
    EXPECT_EQ(guarded, 1u);
    ASSERT_NE(notTakenPath, 0u);
    EXPECT_EQ(seen[w][notTakenPath].second, w == 0 ? 0xffffff00u : 0xffffffffu);
    EXPECT_EQ(seen[w][notTakenPath + 1].second, w == 0 ? 0xffffff00u : 0xffffffffu);
  }
}

// stepThenNext() as a cycle model issues: the next instruction and popDue it returns are what
// next() says after the step, also for the steps of a pure run executed ahead under a partial
// mask (the branch's taken lanes) that ends at the reconvergence point; and each step counts
// the lanes of its active mask as thread instructions (the run's steps included).
TEST(ExecCore, SteppedThenNextMatchesNextAndCountsPartialRuns) {
  ExecHarness h;
  SteppedKernel sk;
  ASSERT_TRUE(sk.begin(h, R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<3>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
  setp.ge.u32 %p1, %r1, 10;
  @%p1 bra SKIP;
  add.u32 %r2, %r1, 1;
  add.u32 %r2, %r2, 2;
  mul.lo.u32 %r2, %r2, 3;
  add.u32 %r2, %r2, 4;
  xor.b32 %r2, %r2, 5;
SKIP:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)", 32)) << sk.error;
  auto &g = sk.grid;
  ptx::exec::Cta *cta = sk.cta;
  const uint64_t d = sk.out;
  ptx::exec::Warp &wp = g->warp(cta, 0);
  ptx::exec::WarpInstRecord rec;
  uint64_t lanes = 0, partialAheadSteps = 0;
  int steps = 0;
  while (!g->ctaDone(cta) && steps < 100) {
    ASSERT_TRUE(g->ready(wp));
    const bool ahead = wp.aheadN != 0;
    const ptx::ir::Inst *next = nullptr;
    bool popDue = true;
    ASSERT_TRUE(g->stepThenNext(wp, rec, 0, next, popDue));
    ++steps;
    lanes += ptx::exec::laneCount(rec.activeMask);
    if (ahead && rec.activeMask == 0x3ffu)
      ++partialAheadSteps;
    bool popDue2 = false;
    const ptx::ir::Inst *next2 = g->next(wp, popDue2);
    EXPECT_EQ(next, next2) << "step " << steps;
    EXPECT_EQ(popDue, popDue2) << "step " << steps;
  }
  ASSERT_TRUE(g->ctaDone(cta));
  auto r = g->finish();
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.warpInsts, uint64_t(steps));
  EXPECT_EQ(r.threadInsts, lanes);
  EXPECT_GE(partialAheadSteps, 3u); // (the run after the branch's first add, lanes 0-9)
  auto v = h.read<uint32_t>(d, 32);
  for (unsigned t = 0; t < 32; ++t)
    EXPECT_EQ(v[t], t < 10 ? (((t + 1 + 2) * 3 + 4) ^ 5) : 0u) << "thread " << t;
}

// A cycle model's issue (stepThenNext) takes memory instructions and the starts of pure runs
// through a step without the interpreter's general loop (stepPlainWarp): each step's record (masks, class, space, bytes,
// the executed lanes' addresses as CTA offsets, a generic access placed in shared memory), the
// next instruction, the counts, the results and a fault are those of step() on a twin grid
// (the addresses in rec.lanes, which step() points at rec.addr)
// stepped in the same order, for full warps, a partial warp (40 threads), guarded lanes and
// shared accesses that conflict in the banks or broadcast; `badOffset` > 0 makes the guarded
// load read past the CTA's shared memory (lanes 0-4 of each warp).
void checkPlainStepsMatchStep(uint32_t badOffset) {
  std::string body = R"(
.visible .entry k(.param .u64 out) {
  .shared .align 4 .b32 sh[64];
  .reg .b32 %r<12>; .reg .b64 %rd<6>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, sh;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  bar.sync 0;
  xor.b32 %r5, %r2, 4;
  add.u32 %r5, %r3, %r5;
  ld.shared.u32 %r6, [%r5];
  and.b32 %r8, %r1, 7;
  and.b32 %r9, %r1, 8;
  shl.b32 %r9, %r9, 2;
  add.u32 %r8, %r8, %r9;
  shl.b32 %r8, %r8, 2;
  add.u32 %r8, %r3, %r8;
  ld.shared.u32 %r9, [%r8];
  add.u32 %r6, %r6, %r9;
  setp.lt.u32 %p1, %r1, 5;
  @%p1 ld.shared.u32 %r6, [%r3+BAD];
  cvta.shared.u64 %rd2, sh;
  ld.u32 %r7, [%rd2+12];
  add.u32 %r6, %r6, %r7;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r6;
  ret;
}
)";
  body.replace(body.find("BAD"), 3, std::to_string(badOffset ? badOffset : 8));
  const uint32_t threads = 40;
  ExecHarness ha, hb;
  SteppedKernel ref, fast;
  ASSERT_TRUE(ref.begin(ha, body, threads)) << ref.error;
  ASSERT_TRUE(fast.begin(hb, body, threads)) << fast.error;
  ptx::exec::WarpInstRecord ra, rb;
  int steps = 0, sharedSteps = 0, genericSteps = 0, partialSteps = 0;
  bool faulted = false;
  while (!ref.grid->ctaDone(ref.cta) && !faulted && steps < 1000) {
    for (uint32_t w = 0; w < ref.grid->warpsPerCta() && !faulted; ++w) {
      ptx::exec::Warp &wa = ref.grid->warp(ref.cta, w), &wb = fast.grid->warp(fast.cta, w);
      ASSERT_EQ(ref.grid->ready(wa), fast.grid->ready(wb)) << "step " << steps;
      if (!ref.grid->ready(wa))
        continue;
      const ptx::ir::Inst *next = nullptr;
      bool popDue = true;
      const bool oka = ref.grid->step(wa, ra);
      const bool okb = fast.grid->stepThenNext(wb, rb, 0, next, popDue);
      ++steps;
      ASSERT_EQ(oka, okb) << "step " << steps;
      if (!oka) {
        EXPECT_TRUE(badOffset) << "step " << steps;
        EXPECT_TRUE(ref.grid->laneFaulted(0));
        EXPECT_TRUE(fast.grid->laneFaulted(0));
        faulted = true;
        break;
      }
      bool popDue2 = false;
      EXPECT_EQ(next, fast.grid->next(wb, popDue2)) << "step " << steps;
      EXPECT_EQ(popDue, popDue2) << "step " << steps;
      EXPECT_EQ(ra.pc, rb.pc);
      EXPECT_EQ(ra.activeMask, rb.activeMask) << "pc " << ra.pc;
      EXPECT_EQ(ra.execMask, rb.execMask) << "pc " << ra.pc;
      EXPECT_EQ(ra.cls, rb.cls) << "pc " << ra.pc;
      EXPECT_EQ(ra.isMemory, rb.isMemory) << "pc " << ra.pc;
      EXPECT_EQ(ra.blocked, rb.blocked) << "pc " << ra.pc;
      EXPECT_EQ(ra.switched, rb.switched) << "pc " << ra.pc;
      EXPECT_EQ(ra.callDone, rb.callDone) << "pc " << ra.pc;
      if (!ra.isMemory || !rb.isMemory)
        continue;
      EXPECT_EQ(ra.space, rb.space) << "pc " << ra.pc;
      EXPECT_EQ(ra.accessBytes, rb.accessBytes) << "pc " << ra.pc;
      EXPECT_EQ(rb.accessBytes, rb.space == ptx::ir::MemSpace::Param ? 8u : 4u) << "pc " << ra.pc;
      ASSERT_EQ(ra.lanes, ra.addr); // (step(): the addresses are copied into the record)
      ASSERT_NE(rb.lanes, nullptr);
      // (each grid has its own engine: global addresses relative to its output buffer; the
      // parameter's address is each engine's own)
      const bool global = rb.space == ptx::ir::MemSpace::Global;
      if (rb.space != ptx::ir::MemSpace::Param)
        for (unsigned l = 0; l < 32; ++l)
          if (rb.execMask >> l & 1) {
            EXPECT_EQ(ra.addr[l] - (global ? ref.out : 0), rb.lanes[l] - (global ? fast.out : 0))
                << "pc " << ra.pc << " lane " << l;
          }
      if (rb.space != ptx::ir::MemSpace::Shared)
        continue;
      ++sharedSteps;
      const ptx::ir::Inst &in = *rb.inst;
      genericSteps += in.space == ptx::ir::MemSpace::Generic;
      partialSteps += rb.execMask != 0xffffffffu;
      // the lanes' offsets in the CTA's shared memory, as the kernel computes them (the first
      // unguarded ld.shared reads the neighbour's word, the second words 0-7 and 32-39: two
      // words in each of banks 0-7, each read by two lanes)
      uint32_t firstLoad = 0;
      while (firstLoad < rb.fn->code.size() &&
             !(rb.fn->code[firstLoad].cls == ptx::ir::OpClass::Mem &&
               rb.fn->code[firstLoad].space == ptx::ir::MemSpace::Shared &&
               rb.fn->code[firstLoad].nrd == 1))
        ++firstLoad;
      for (unsigned l = 0; l < 32; ++l) {
        if (!(rb.execMask >> l & 1))
          continue;
        const uint64_t t = w * 32 + l;
        const uint64_t want = in.space == ptx::ir::MemSpace::Generic ? 12
                              : in.nrd == 0                          ? 4 * t
                              : in.guard != ptx::ir::kPredTrue       ? 8
                              : rb.pc == firstLoad                   ? 4 * (t ^ 1)
                                                                     : 4 * ((t & 7) + 4 * (t & 8));
        EXPECT_EQ(rb.lanes[l], want) << "pc " << rb.pc << " thread " << t;
      }
    }
  }
  auto a = ref.grid->finish(), b = fast.grid->finish();
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.warpInsts, b.warpInsts);
  EXPECT_EQ(a.threadInsts, b.threadInsts);
  if (badOffset) {
    EXPECT_TRUE(faulted);
    EXPECT_FALSE(b.ok());
    EXPECT_NE(b.message.find("shared"), std::string::npos) << b.message;
    return;
  }
  ASSERT_TRUE(b.ok()) << b.message;
  // per warp: the store, the two loads, the generic load; the guarded load only in warp 0 (its
  // lanes 0-4); warp 1 (8 lanes) partial in all of them
  EXPECT_EQ(sharedSteps, 2 * 4 + 1);
  EXPECT_EQ(genericSteps, 2);
  EXPECT_EQ(partialSteps, 4 + 1);
  auto va = ha.read<uint32_t>(ref.out, threads), vb = hb.read<uint32_t>(fast.out, threads);
  for (uint32_t t = 0; t < threads; ++t) {
    const uint32_t other = t < 5 ? 2 : (t ^ 1) + (t & 7) + 4 * (t & 8);
    EXPECT_EQ(vb[t], other + 3) << "thread " << t;
    EXPECT_EQ(va[t], vb[t]) << "thread " << t;
  }
}

TEST(ExecCore, SteppedThenNextPlainMemoryStepsMatchStep) { checkPlainStepsMatchStep(0); }
TEST(ExecCore, SteppedThenNextPlainMemoryStepFaultsAsStep) { checkPlainStepsMatchStep(4096); }

// Kernel "k" of `body` (one output word per thread) as `blocks` CTAs of one warp stepped one
// after the other: the first fresh (its register file from a heap whose free memory was left
// full of other bytes), each later one on the objects of the one before, whose registers are
// overwritten with other bytes first (what a finished CTA leaves is no concern of the next).
// The output words, or none on a failure.
std::vector<uint32_t> runOnDirtyRegisterFiles(const char *body, uint32_t blocks) {
  std::vector<uint8_t> keep; // (allocated after the junk: the freed junk stays in the heap)
  {
    std::vector<std::vector<uint64_t>> junk;
    for (size_t n = 16; n < 4096; n += 40)
      junk.emplace_back(n, ~0ull);
    keep.resize(64);
  }
  ExecHarness h;
  SteppedKernel sk;
  if (!sk.begin(h, body, 32, blocks)) {
    ADD_FAILURE() << sk.error;
    return {};
  }
  auto &g = sk.grid;
  ptx::exec::WarpInstRecord rec;
  ptx::exec::Cta *cta = sk.cta;
  for (uint64_t c = 0; c < blocks; ++c) {
    if (c > 0) {
      g->retireCta(cta);
      cta = g->startCta(c); // (reuses the retired CTA's objects)
    }
    ptx::exec::Warp &wp = g->warp(cta, 0);
    for (int steps = 0; !g->ctaDone(cta) && steps < 100; ++steps)
      if (!g->ready(wp) || !g->step(wp, rec)) {
        ADD_FAILURE() << "cta " << c << " stopped at step " << steps;
        return {};
      }
    if (!g->ctaDone(cta)) {
      ADD_FAILURE() << "cta " << c << " did not finish";
      return {};
    }
    std::fill(wp.regStore.begin(), wp.regStore.end(), ~0ull);
  }
  auto r = g->finish();
  if (!r.ok()) {
    ADD_FAILURE() << r.message;
    return {};
  }
  keep[0] = 1;
  return h.read<uint32_t>(sk.out, size_t(blocks) * 32);
}

// How many registers a CTA of kernel "k" of `body` zeroes (RegInit.h), and of how many.
void zeroedOf(const char *body, uint32_t &zeroed, uint32_t &regs) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + body)) << h.errors;
  const ptx::ir::Function &fn = *h.engine->findKernel("k", h.module)->fn;
  ASSERT_TRUE(fn.zeroAtStartKnown); // (otherwise every register is zeroed: nothing to test)
  zeroed = 0;
  for (auto [first, count] : fn.zeroAtStart)
    zeroed += count;
  regs = fn.numRegs;
}

// A register no instruction has written reads 0 in every lane (RegInit.h), in a fresh CTA and
// in one that reuses a finished CTA's objects, though a CTA zeroes only the registers some lane
// may read before writing them: %r2 is written only in lanes 0-15 and %r4 never, so lanes 16-31
// read both unwritten and the others read %r4 unwritten.
TEST(ExecCore, RegistersReadBeforeWrittenStartAtZeroInFreshAndReusedCtas) {
  const char *body = R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r6, %ctaid.x;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 add.u32 %r2, %r1, 100;
  add.u32 %r3, %r2, %r4;
  mad.lo.u32 %r5, %r6, 32, %r1;
  mul.wide.u32 %rd2, %r5, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)";
  uint32_t zeroed = 0, regs = 0;
  zeroedOf(body, zeroed, regs);
  EXPECT_GE(zeroed, 2u); // %r2, %r4
  EXPECT_LT(zeroed, regs);
  std::vector<uint32_t> v = runOnDirtyRegisterFiles(body, 3);
  ASSERT_EQ(v.size(), 3u * 32);
  for (unsigned c = 0; c < 3; ++c)
    for (unsigned t = 0; t < 32; ++t)
      EXPECT_EQ(v[c * 32 + t], t < 16 ? t + 100 : 0u) << "cta " << c << " thread " << t;
}

// A declared register the code never names (%r0, %r4, %r7-%r39, %rd0) takes no room in the
// register file (the lowering places registers as the code names them) and so needs no zero; a
// register the lowering made itself (addc's carry, Inst::aux) does: the addc with no carry set
// before reads a carry of 0 in a fresh and in a reused CTA.
TEST(ExecCore, UnnamedRegistersNeedNoZeroButHiddenOnesDo) {
  const char *body = R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<40>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r6, %ctaid.x;
  add.u32 %r2, %r1, 7;
  addc.u32 %r3, %r1, %r2;
  mad.lo.u32 %r5, %r6, 32, %r1;
  mul.wide.u32 %rd2, %r5, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)";
  uint32_t zeroed = 0, regs = 0;
  zeroedOf(body, zeroed, regs);
  EXPECT_GE(regs, 8u);  // %r1-%r3, %r5, %r6, %rd1-%rd3
  EXPECT_LE(regs, 16u); // (and temporaries the lowering made: not the 36 unnamed ones)
  {
    // each placed register keeps its index among the declarations (%r<40> are 0-39, %rd<4>
    // 40-43, the lowering's own from 44 on): the named ones and no other declared one
    ExecHarness h;
    ASSERT_TRUE(h.load(ptxHeader() + body)) << h.errors;
    const ptx::ir::Function &fn = *h.engine->findKernel("k", h.module)->fn;
    ASSERT_EQ(fn.regDeclIndex.size(), fn.numRegs);
    std::set<uint32_t> declared, temps;
    for (uint32_t d : fn.regDeclIndex)
      (d < 44 ? declared : temps).insert(d);
    EXPECT_EQ(declared, (std::set<uint32_t>{1, 2, 3, 5, 6, 41, 42, 43}));
    EXPECT_EQ(declared.size() + temps.size(), fn.numRegs); // (no index twice)
  }
  EXPECT_GE(zeroed, 1u); // the carry
  EXPECT_LE(zeroed, 8u); // (and temporaries the lowering made: not the 36 unnamed ones)
  std::vector<uint32_t> v = runOnDirtyRegisterFiles(body, 3);
  ASSERT_EQ(v.size(), 3u * 32);
  for (unsigned c = 0; c < 3; ++c)
    for (unsigned t = 0; t < 32; ++t)
      EXPECT_EQ(v[c * 32 + t], 2 * t + 7) << "cta " << c << " thread " << t;
}

} // namespace

namespace {

// A second module calls a .visible function and uses a .visible variable of the first; a fault
// names the CUDA source line from .loc.
TEST(ExecCore, CrossModuleLinkingAndSourceLines) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .global .align 4 .u32 table[4] = {5, 6, 7, 8};
.visible .func (.param .b32 r) twice(.param .b32 x) {
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  add.u32 %r2, %r1, %r1;
  st.param.b32 [r], %r2;
  ret;
}
)", "lib.ptx")) << h.errors;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.extern .global .align 4 .u32 table[4];
.extern .func (.param .b32 r) twice(.param .b32 x);
.file 1 "app.cu"
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<4>; .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  mov.u64 %rd3, table;
  add.s64 %rd4, %rd3, %rd2;
  .loc 1 42 7
  ld.global.u32 %r2, [%rd4];
  { .param .b32 a; .param .b32 r;
    st.param.b32 [a], %r2;
    call (r), twice, (a);
    ld.param.b32 %r3, [r]; }
  add.s64 %rd5, %rd1, %rd2;
  st.global.u32 [%rd5], %r3;
  ret;
}
)", "app.ptx")) << h.errors;
  uint64_t d = h.alloc(8 * 4);
  auto r = h.launch("k", {1}, {4}, {d});
  ASSERT_TRUE(r.ok()) << r.message;
  auto v = h.read<uint32_t>(d, 4);
  EXPECT_EQ(v, (std::vector<uint32_t>{10, 12, 14, 16}));
  // 8 threads read past the 4-element table: the fault names app.cu:42
  r = h.launch("k", {1}, {8}, {d});
  ASSERT_EQ(r.status, ptx::exec::LaunchStatus::IllegalAddress);
  EXPECT_NE(r.message.find("(app.cu:42)"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("thread (4,0,0)"), std::string::npos) << r.message;
}

} // namespace

namespace {

// Separate compilation (-rdc=true): the module with the kernel may come before the module that
// defines the function and variable it uses.
TEST(ExecCore, ExternsResolveAgainstModulesLoadedLater) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.extern .global .align 4 .u32 counter[2];
.extern .func (.param .b32 r) bump(.param .b32 x);
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.global.u32 %r1, [counter+4];
  { .param .b32 a; .param .b32 r;
    st.param.b32 [a], %r1;
    call (r), bump, (a);
    ld.param.b32 %r2, [r]; }
  st.global.u32 [%rd1], %r2;
  ret;
}
)", "app.ptx")) << h.errors;
  int appModule = h.module;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .global .align 4 .u32 counter[2] = {1, 41};
.visible .func (.param .b32 r) bump(.param .b32 x) {
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  add.u32 %r2, %r1, 1;
  st.param.b32 [r], %r2;
  ret;
}
)", "lib.ptx")) << h.errors;
  h.module = appModule;
  uint64_t d = h.alloc(4);
  auto r = h.launch("k", {1}, {1}, {d});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(h.read<uint32_t>(d, 1)[0], 42u);
}

} // namespace

namespace {

// Under --simt ipdom, a loop that one lane runs 2^24 times (its registers changing) while the
// rest of its warp waits to reconverge gets a one-time warning naming the kernel, block, warp and PTX line (the shape of a spin lock that
// needs independent thread scheduling); the loop itself still runs to completion.
TEST(ExecCore, LongDivergentLoopWarnsAboutSpinLocks) {
  ExecHarness h(1, ptx::exec::SimtMode::Ipdom);
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry spin(.param .u64 out) {
  .reg .b32 %r<4>; .reg .b64 %rd<2>; .reg .pred %p<3>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  mov.u32 %r2, 0;
  @%p1 bra DONE;
LOOP:
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p2, %r2, 16777300;
  @%p2 bra LOOP;
  st.global.u32 [%rd1], %r2;
DONE:
  ret;
})", "spin.ptx")) << h.errors;
  uint64_t out = h.alloc(4);
  testing::internal::CaptureStderr();
  auto r = h.launch("spin", {1}, {32}, {out});
  std::string err = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(h.read<uint32_t>(out, 1)[0], 16777300u);
  EXPECT_NE(err.find("kernel 'spin', block (0,0,0), warp 0 has taken the loop branch at spin.ptx:15 "
                     "16777216 times"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("independent thread scheduling"), std::string::npos) << err;
}

} // namespace

namespace {

// A vector load sees another thread's vector store whole or not at all, as on the hardware
// (CUB's decoupled look-back depends on it: a tile's status and value travel in one st.v2 and
// are read with one ld.v2). One CTA stores {i, i} with st.v2 from all 32 lanes while another,
// on a second host thread, reads the pair with ld.v2 and counts pairs whose halves differ.
TEST(ExecCore, VectorAccessesAreNotTornAcrossHostThreads) {
  ExecHarness h(2);
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry tear(.param .u64 pair, .param .u64 torn) {
  .reg .b32 %r<8>; .reg .b64 %rd<3>; .reg .pred %p<4>;
  ld.param.u64 %rd1, [pair]; ld.param.u64 %rd2, [torn];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, 0;
  mov.u32 %r5, 0;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra READ;
WRITE:
  add.u32 %r2, %r2, 1;
  st.volatile.global.v2.u32 [%rd1], {%r2, %r2};
  setp.lt.u32 %p2, %r2, 300000;
  @%p2 bra WRITE;
  bra DONE;
READ:
  ld.volatile.global.v2.u32 {%r3, %r4}, [%rd1];
  setp.ne.u32 %p3, %r3, %r4;
  selp.u32 %r6, 1, 0, %p3;
  add.u32 %r5, %r5, %r6;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p2, %r2, 300000;
  @%p2 bra READ;
  atom.global.add.u32 %r7, [%rd2], %r5;
DONE:
  ret;
})")) << h.errors;
  uint64_t pair = h.alloc(8), torn = h.alloc(4);
  auto r = h.launch("tear", {2}, {32}, {pair, torn});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(h.read<uint32_t>(torn, 1)[0], 0u);
}

// bufferGlobalStores: a plain st.global (scalar or vector) stepped while buffering leaves
// memory unchanged, keeps the addresses the timing model reads, and commitStores() writes the
// lanes' bytes in order; shared-memory stores are never held back.
TEST(ExecCore, BufferedGlobalStoresWaitForTheCommit) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 out) {
  .shared .align 4 .b32 s[32];
  .reg .b32 %r<6>; .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  mov.u32 %r2, s;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  st.shared.u32 [%r4], %r1;
  ld.shared.u32 %r5, [%r4];
  add.u32 %r5, %r5, 100;
  st.global.v2.u32 [%rd1+128], {%r5, %r1};
  ret;
}
)")) << h.errors;
  EXPECT_FALSE(ptx::exec::SteppedGrid::bufferableStore(ptx::ir::Inst{}));
  uint64_t d = h.alloc(256);
  std::unique_ptr<ptx::exec::SteppedGrid> g;
  std::string error;
  const int buffered =
      stepWithBufferedStores(h, d, g, error, [&](const ptx::exec::WarpInstRecord &rec, int n) {
        EXPECT_EQ(rec.addr[5], n == 1 ? d + 20 : d + 128);
      });
  ASSERT_GE(buffered, 0) << error;
  EXPECT_EQ(buffered, 2); // the shared store is not one
  auto before = h.read<uint32_t>(d, 34);
  for (unsigned t = 0; t < 34; ++t)
    EXPECT_EQ(before[t], 0u) << t; // nothing written yet (the shared load saw its own store)
  g->commitStores(0);
  g->bufferGlobalStores(0, false);
  auto v = h.read<uint32_t>(d, 34);
  for (unsigned t = 0; t < 32; ++t)
    EXPECT_EQ(v[t], t);
  EXPECT_EQ(v[32], 131u); // every lane wrote the pair: the last lane's bytes stay
  EXPECT_EQ(v[33], 31u);
  ASSERT_TRUE(g->finish().ok());
}


// Buffered global stores of every shape, overlapping one another: a full warp's contiguous
// store (scalar, v2 and 16-bit), a scattered one (lanes in reverse) and a partial warp's. The
// commit leaves memory as the stores made in program order, lane by lane, would: each later
// store's bytes over the earlier ones', and nothing before the commit.
TEST(ExecCore, BufferedStoresOfEveryShapeCommitInProgramOrder) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 out) {
  .reg .b16 %rs<2>; .reg .b32 %r<8>; .reg .b64 %rd<10>; .reg .pred %p;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  sub.u32 %r2, 31, %r1;
  mul.wide.u32 %rd4, %r2, 4;
  add.s64 %rd5, %rd1, %rd4;
  add.u32 %r3, %r1, 100;
  st.global.u32 [%rd5], %r3;
  mul.wide.u32 %rd6, %r1, 8;
  add.s64 %rd7, %rd1, %rd6;
  add.u32 %r4, %r1, 1;
  st.global.v2.u32 [%rd7+128], {%r1, %r4};
  setp.lt.u32 %p, %r1, 5;
  mov.u32 %r5, 7;
  @%p st.global.u32 [%rd3+128], %r5;
  st.global.u32 [%rd5+384], %r1;
  mul.wide.u32 %rd8, %r1, 2;
  add.s64 %rd9, %rd1, %rd8;
  cvt.u16.u32 %rs1, %r1;
  st.global.u16 [%rd9+384], %rs1;
  ret;
}
)")) << h.errors;
  uint64_t d = h.alloc(512);
  std::unique_ptr<ptx::exec::SteppedGrid> g;
  std::string error;
  const int buffered =
      stepWithBufferedStores(h, d, g, error, [](const ptx::exec::WarpInstRecord &, int) {});
  ASSERT_GE(buffered, 0) << error;
  EXPECT_EQ(buffered, 6);
  auto before = h.read<uint32_t>(d, 128);
  for (unsigned k = 0; k < 128; ++k)
    EXPECT_EQ(before[k], 0u) << k;
  g->commitStores(0);
  g->bufferGlobalStores(0, false);
  auto v = h.read<uint32_t>(d, 128);
  for (unsigned k = 0; k < 32; ++k) // the reversed store over the contiguous one
    EXPECT_EQ(v[k], 131u - k) << k;
  for (unsigned t = 0; t < 32; ++t) { // the pairs, then 7 in the first five words
    EXPECT_EQ(v[32 + 2 * t], 2 * t < 5 ? 7u : t) << t;
    EXPECT_EQ(v[33 + 2 * t], 2 * t + 1 < 5 ? 7u : t + 1) << t;
  }
  for (unsigned j = 0; j < 16; ++j) // the halfwords over the reversed words
    EXPECT_EQ(v[96 + j], (2 * j) | (2 * j + 1) << 16) << j;
  for (unsigned k = 112; k < 128; ++k)
    EXPECT_EQ(v[k], 127u - k) << k;
  ASSERT_TRUE(g->finish().ok());
}

// Integer arithmetic, logic and shifts for a full warp, for guards that leave many lanes (the
// AVX2 handlers compute every lane and write back the guard's) and few, on 32-bit values whose
// register slots hold the sign extension of a negative s32 result in their upper bits (readers
// look at their type's width only), with shift amounts of 32 and more. Lanes the guard leaves
// out keep their value.
TEST(ExecCore, IntegerOpsHonourTypeWidthAndGuardOnEveryMask) {
  std::vector<uint32_t> a(32), b(32);
  const uint32_t amounts[] = {0, 1, 5, 31, 32, 33, 63, 64, 65, 100, 0x80000000u, 0xffffffffu};
  for (uint32_t l = 0; l < 32; ++l) {
    a[l] = l * 0x9e3779b9u ^ (l & 1 ? 0x80000000u : 0);
    b[l] = l < 12 ? amounts[l] : l * 0x7f4a7c15u;
  }
  const uint32_t kSentinel = 0xdeadbeefu;
  struct Op {
    const char *text; // %a and %b: the sources, %d the destination
    uint32_t (*f)(uint32_t, uint32_t);
  };
  const Op ops[] = {
      {"add.s32 %d, %a, %b;", [](uint32_t x, uint32_t y) { return x + y; }},
      {"add.u32 %d, %a, %b;", [](uint32_t x, uint32_t y) { return x + y; }},
      {"sub.s32 %d, %a, %b;", [](uint32_t x, uint32_t y) { return x - y; }},
      {"and.b32 %d, %a, %b;", [](uint32_t x, uint32_t y) { return x & y; }},
      {"or.b32 %d, %a, %b;", [](uint32_t x, uint32_t y) { return x | y; }},
      {"xor.b32 %d, %a, %b;", [](uint32_t x, uint32_t y) { return x ^ y; }},
      {"mad.lo.s32 %d, %a, %b, %a;", [](uint32_t x, uint32_t y) { return x * y + x; }},
      {"mad.lo.u32 %d, %a, 1664525, 1013904223;", [](uint32_t x, uint32_t) { return x * 1664525u + 1013904223u; }},
      {"shl.b32 %d, %a, %b;", [](uint32_t x, uint32_t n) { return n >= 32 ? 0u : x << n; }},
      {"shr.u32 %d, %a, %b;", [](uint32_t x, uint32_t n) { return n >= 32 ? 0u : x >> n; }},
      {"shr.s32 %d, %a, %b;", [](uint32_t x, uint32_t n) { return uint32_t(int32_t(x) >> (n >= 32 ? 31 : n)); }},
      {"shr.u32 %d, %a, 7;", [](uint32_t x, uint32_t) { return x >> 7; }},
      {"shl.b32 %d, %a, 3;", [](uint32_t x, uint32_t) { return x << 3; }},
  };
  for (const Op &op : ops) {
    for (const LaneGuard &g : kLaneGuards) {
      // %a and %b through add.s32: their slots' upper bits are the sign of bit 31
      std::string body = "rem.u32 %d, %i, 3; setp.ne.u32 %p, %d, 0; rem.u32 %d, %i, 8; "
                         "setp.eq.u32 %q, %d, 0; add.s32 %a, %a, 0; add.s32 %b, %b, 0; "
                         "mov.u32 %d, " + std::to_string(kSentinel) + "; " + g.text + op.text;
      auto v = runElementwise<uint32_t, uint32_t>("u32", "u32", body, a, b);
      ASSERT_EQ(v.size(), 32u) << body;
      for (uint32_t l = 0; l < 32; ++l)
        EXPECT_EQ(v[l], g.on(l) ? op.f(a[l], b[l]) : kSentinel) << body << " lane " << l;
    }
  }
  // 64-bit forms
  std::vector<uint64_t> a64(32), b64(32);
  for (uint32_t l = 0; l < 32; ++l) {
    a64[l] = uint64_t(a[l]) << 32 | (a[l] ^ 0x5bd1e995u);
    b64[l] = l < 12 ? amounts[l] : uint64_t(b[l]) << 29 | l;
  }
  struct Op64 {
    const char *text;
    uint64_t (*f)(uint64_t, uint64_t);
  };
  const Op64 ops64[] = {
      {"add.s64 %d, %a, %b;", [](uint64_t x, uint64_t y) { return x + y; }},
      {"sub.u64 %d, %a, %b;", [](uint64_t x, uint64_t y) { return x - y; }},
      {"xor.b64 %d, %a, %b;", [](uint64_t x, uint64_t y) { return x ^ y; }},
      {"and.b64 %d, %a, %b;", [](uint64_t x, uint64_t y) { return x & y; }},
      {"mad.lo.u64 %d, %a, %b, %a;", [](uint64_t x, uint64_t y) { return x * y + x; }},
      {"shl.b64 %d, %a, %r;", [](uint64_t x, uint64_t n) { return uint32_t(n) >= 64 ? 0 : x << uint32_t(n); }},
      {"shr.u64 %d, %a, %r;", [](uint64_t x, uint64_t n) { return uint32_t(n) >= 64 ? 0 : x >> uint32_t(n); }},
      {"shr.s64 %d, %a, %r;", [](uint64_t x, uint64_t n) {
         return uint64_t(int64_t(x) >> (uint32_t(n) >= 64 ? 63 : uint32_t(n)));
       }},
  };
  for (const Op64 &op : ops64) {
    for (const LaneGuard &g : kLaneGuards) {
      std::string body = ".reg .b32 %r, %m; cvt.u32.u64 %r, %b; rem.u32 %m, %i, 3; "
                         "setp.ne.u32 %p, %m, 0; rem.u32 %m, %i, 8; setp.eq.u32 %q, %m, 0; "
                         "mov.u64 %d, 0xfeedfacecafef00d; " + std::string(g.text) + op.text;
      auto v = runElementwise<uint64_t, uint64_t>("u64", "u64", body, a64, b64);
      ASSERT_EQ(v.size(), 32u) << body;
      for (uint32_t l = 0; l < 32; ++l)
        EXPECT_EQ(v[l], g.on(l) ? op.f(a64[l], b64[l]) : 0xfeedfacecafef00dull)
            << body << " lane " << l;
    }
  }
}

// The lowering's table of pure runs (ir::Function::pureRun, aheadRows) is what a step would find
// walking the code: per pc, how many pure instructions follow in a straight line from it (at most
// Warp::kAheadMax + 1) and the rows (slots) of the data registers they read and write, each once.
TEST(ExecCore, PureRunTableMatchesTheCode) {
  ExecHarness h;
  std::string body;
  for (int i = 0; i < 40; ++i) // a run longer than kAheadMax + 1
    body += "  add.u32 %r" + std::to_string(2 + i % 5) + ", %r" + std::to_string(1 + i % 6) +
            ", " + std::to_string(i) + ";\n";
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
)" + body + R"(
  setp.lt.u32 %p1, %r2, 8;
  @%p1 bra DONE;
  mul.lo.u32 %r3, %r3, %r4;
DONE:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)")) << h.errors;
  uint64_t param = h.alloc(32 * 4);
  ptx::exec::LaunchResult err;
  auto g = beginOneBlock(h, &param, 32, err);
  ASSERT_TRUE(g) << err.message;
  ptx::exec::Cta *cta = g->startCta(0);
  const ptx::ir::Function &fn = *g->function(g->warp(cta, 0));
  const size_t n = fn.code.size();
  ASSERT_EQ(fn.pureRun.size(), n);
  ASSERT_EQ(fn.aheadRowFirst.size(), n + 1);
  uint32_t longest = 0;
  for (size_t pc = 0; pc < n; ++pc) {
    size_t end = pc;
    while (end < n && end < pc + 1 + ptx::exec::Warp::kAheadMax && fn.code[end].pure)
      ++end;
    EXPECT_EQ(fn.pureRun[pc], end - pc) << "pc " << pc;
    longest = std::max<uint32_t>(longest, fn.pureRun[pc]);
    std::vector<uint16_t> want;
    for (size_t q = pc; q < end; ++q) {
      const ptx::ir::Inst &in = fn.code[q];
      std::vector<uint16_t> regs(in.rs, in.rs + in.nrs);
      regs.insert(regs.end(), in.rd, in.rd + in.nrd);
      for (uint16_t r : regs) {
        if (r & ptx::ir::Inst::kPredBit)
          continue;
        if (r < fn.regSlot.size())
          r = uint16_t(fn.regSlot[r]); // (registers that share slots: the slot's row)
        if (r < 256 && std::find(want.begin(), want.end(), r) == want.end())
          want.push_back(r);
      }
    }
    std::vector<uint16_t> got(fn.aheadRows.begin() + fn.aheadRowFirst[pc],
                              fn.aheadRows.begin() + fn.aheadRowFirst[pc + 1]);
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, want) << "pc " << pc;
  }
  EXPECT_EQ(longest, ptx::exec::Warp::kAheadMax + 1);
  g->finish();
}

// A full warp's load whose lanes are neither coalesced nor at one address (two rows of 16, as a
// tiled matrix multiply reads shared memory) is checked for the whole warp by its lowest and
// highest lane: in bounds it reads every lane's word; one lane past the allocation's end, or one
// below its start, faults.
TEST(ExecCore, ScatteredFullWarpLoadChecksItsLowestAndHighestLane) {
  auto run = [](int32_t badLane, int64_t badIndex, std::string *failure) {
    std::vector<uint32_t> idx(32);
    for (uint32_t l = 0; l < 32; ++l)
      idx[l] = (l & 15) + (l < 16 ? 8 : 40); // (two rows of 16 words)
    std::vector<uint64_t> off(32);
    for (uint32_t l = 0; l < 32; ++l)
      off[l] = uint64_t(int64_t(l == uint32_t(badLane) ? badIndex : idx[l]) * 4);
    ExecHarness h;
    EXPECT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 data, .param .u64 offs, .param .u64 out) {
  .reg .b32 %r<4>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [data]; ld.param.u64 %rd2, [offs]; ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 8;
  add.s64 %rd5, %rd2, %rd4;
  ld.global.u64 %rd6, [%rd5];
  add.s64 %rd7, %rd1, %rd6;
  ld.global.u32 %r2, [%rd7];
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd3, %rd4;
  st.global.u32 [%rd5], %r2;
  ret;
}
)")) << h.errors;
    std::vector<uint32_t> data(60); // (240 bytes: the allocation's rounding follows its end)
    for (uint32_t i = 0; i < 60; ++i)
      data[i] = 1000 + i;
    uint64_t before = h.alloc(256);
    uint64_t dd = h.upload(data);
    uint64_t dof = h.upload(off), out = h.alloc(32 * 4);
    h.engine->memory().release(before); // (nothing just below `data`)
    auto r = h.launch("k", {1}, {32}, {dd, dof, out});
    *failure = r.ok() ? "" : r.message;
    std::vector<uint32_t> v = h.read<uint32_t>(out, 32);
    for (uint32_t l = 0; r.ok() && l < 32; ++l)
      EXPECT_EQ(v[l], 1000 + idx[l]) << "lane " << l;
  };
  std::string failure;
  run(-1, 0, &failure);
  EXPECT_EQ(failure, "");
  run(31, 60, &failure); // the word after the last
  EXPECT_NE(failure, "");
  run(0, -1, &failure); // the word before the first
  EXPECT_NE(failure, "");
}

// The same check for shared memory's 32-bit addresses ([reg] with a .u32 register): a full warp
// reading two rows of 16 words reads every lane's word; one lane in the middle of the warp
// beyond the array, or at a byte that is not word-aligned, faults; the last word does not.
TEST(ExecCore, ScatteredSharedLoadChecksEveryLanesRange) {
  auto run = [](int32_t badLane, uint32_t badByte, std::string *failure) {
    std::vector<uint32_t> idx(32);
    for (uint32_t l = 0; l < 32; ++l)
      idx[l] = (l & 15) + (l < 16 ? 0 : 32); // (two rows of 16 words)
    std::vector<uint32_t> off(32);
    for (uint32_t l = 0; l < 32; ++l)
      off[l] = l == uint32_t(badLane) ? badByte : idx[l] * 4;
    ExecHarness h;
    EXPECT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 offs, .param .u64 out) {
  .shared .align 4 .b32 s[48];
  .reg .b32 %r<10>; .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [offs]; ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  add.u32 %r5, %r1, 1000;
  st.shared.u32 [%r4], %r5;
  add.u32 %r5, %r5, 16;
  st.shared.u32 [%r4+64], %r5;
  bar.sync 0;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r6, [%rd4];
  add.u32 %r7, %r2, %r6;
  ld.shared.u32 %r8, [%r7];
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r8;
  ret;
}
)")) << h.errors;
    uint64_t dof = h.upload(off), out = h.alloc(32 * 4);
    auto r = h.launch("k", {1}, {32}, {dof, out});
    *failure = r.ok() ? "" : r.message;
    std::vector<uint32_t> v = h.read<uint32_t>(out, 32);
    for (uint32_t l = 0; r.ok() && l < 32; ++l)
      EXPECT_EQ(v[l], 1000 + (l == uint32_t(badLane) ? badByte / 4 : idx[l])) << "lane " << l;
  };
  std::string failure;
  run(-1, 0, &failure);
  EXPECT_EQ(failure, "");
  run(20, 47 * 4, &failure); // the last word
  EXPECT_EQ(failure, "");
  run(20, 4096 * 4, &failure); // far beyond the array
  EXPECT_NE(failure, "");
  run(9, 5 * 4 + 2, &failure); // not word-aligned
  EXPECT_NE(failure, "");
}

} // namespace

// setCycle and bufferGlobalStores act on the lane they name and on no other; a lane setLanes
// did not make is lane 0 (the contract of SteppedGrid::setLanes): with three lanes, warp 0
// stepped in lane 2 reads lane 2's cycle and writes at once, warp 1 in lane 0 reads the cycle
// given to lane 7 (lane 0's) and holds its stores until lane 0's commit (buffering turned on
// for lane 9), warp 2 in lane 1 reads lane 1's and holds its stores until lane 1's commit.
TEST(ExecCore, SteppedLanesKeepTheirOwnCycleAndStoreBuffering) {
  ExecHarness h;
  SteppedKernel k;
  ASSERT_TRUE(k.begin(h, R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<3>; .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  mov.u64 %rd4, %clock64;
  cvt.u32.u64 %r2, %rd4;
  st.global.u32 [%rd3], %r2;
  ret;
}
)",
                      96))
      << k.error;
  ptx::exec::SteppedGrid &g = *k.grid;
  g.setLanes(3);
  g.setTimedClock(1.0);
  g.setCycle(700, 2);
  g.setCycle(5, 0);
  g.setCycle(900, 7); // lane 0
  g.setCycle(333, 1);
  g.bufferGlobalStores(1, true);
  g.bufferGlobalStores(9, true); // lane 0
  auto run = [&](uint32_t warp, uint32_t lane) {
    ptx::exec::Warp &wp = g.warp(k.cta, warp);
    ptx::exec::WarpInstRecord rec;
    for (int steps = 0; g.peek(wp) && steps < 100; ++steps)
      ASSERT_TRUE(g.step(wp, rec, lane)) << "warp " << warp << " step " << steps;
  };
  auto word = [&](uint32_t t) { return h.read<uint32_t>(k.out + 4 * t, 1)[0]; };
  run(0, 2);
  run(1, 0);
  run(2, 1);
  EXPECT_EQ(word(0), 700u);
  EXPECT_EQ(word(31), 700u);
  EXPECT_EQ(word(32), 0u); // held in lane 0's buffer
  EXPECT_EQ(word(64), 0u); // held in lane 1's buffer
  g.commitStores(0);
  EXPECT_EQ(word(32), 900u);
  EXPECT_EQ(word(63), 900u);
  EXPECT_EQ(word(64), 0u);
  g.commitStores(1);
  EXPECT_EQ(word(64), 333u);
  EXPECT_EQ(word(95), 333u);
  g.bufferGlobalStores(0, false);
  g.bufferGlobalStores(1, false);
  EXPECT_FALSE(g.faulted());
  ASSERT_TRUE(g.finish().ok());
}

// The scan's greedy shortcut (Sm::QuietScan::greedy): with a policy that keeps issuing from the
// warp it picked last while that warp is ready (gto: IWarpScheduler::keepsLastWhileReady), the
// SM visits only that warp while every other one is asleep, at a barrier or ready and waiting
// for its turn, and issues it without asking the policy (which would pick it). The same policy
// without the trait takes the full scan and picks every cycle; both must give every result and
// statistic alike, on one host thread and on several. The built-in gto, whose issued() does
// nothing (IWarpScheduler::hearsIssues: the SM does not call it), gives them alike too, and a
// policy that hears issues hears every one.

#include "ExecHarness.h"
#include "sim/KernelSimulator.h"
#include "timing/gpu/Gpu.h"
#include "timing/sm/scheduler/IWarpScheduler.h"

#include <atomic>
#include <cstring>

using namespace ptxsim;
using namespace ptxsim::test;

namespace {

std::atomic<uint64_t> gPicks[2];  ///< by trait (0: full scan): calls of pick()
std::atomic<uint64_t> gIssued[2]; ///< by trait: calls of issued()

/// gto, with or without the greedy trait; counts the calls of pick() (the shortcut's issues
/// make none) and of issued().
template <bool Greedy> class TestGto final : public timing::IWarpScheduler {
public:
  explicit TestGto(const timing::SchedulerParams &p) : gto_(timing::createGtoScheduler(p)) {}
  const char *name() const override { return Greedy ? "test_gto_greedy" : "test_gto_full_scan"; }
  void addWarp(uint32_t slot, uint64_t age) override { gto_->addWarp(slot, age); }
  void removeWarp(uint32_t slot) override { gto_->removeWarp(slot); }
  void tick(timing::Cycle now) override { gto_->tick(now); }
  int pick(const std::vector<uint32_t> &ready, timing::Cycle now) override {
    gPicks[Greedy].fetch_add(1, std::memory_order_relaxed);
    return gto_->pick(ready, now);
  }
  bool keepsLastWhileReady() const override { return Greedy; }
  void issued(uint32_t slot, bool longLatency, timing::Cycle now) override {
    gIssued[Greedy].fetch_add(1, std::memory_order_relaxed);
    gto_->issued(slot, longLatency, now);
  }

private:
  std::unique_ptr<timing::IWarpScheduler> gto_;
};

// dependent integer and float chains (warps ready in turn), a divergent branch, loads, a
// shared-memory exchange across a barrier and a global atomic
const char *kPtx = R"(
.visible .entry k(.param .u64 out, .param .u64 counter, .param .u32 iters) {
  .reg .pred %p<3>; .reg .b32 %r<16>; .reg .f32 %f<4>; .reg .b64 %rd<8>;
  .shared .align 4 .b32 buf[256];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [counter];
  ld.param.u32 %r9, [iters];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  mov.u32 %r5, %r4;
  cvt.rn.f32.u32 %f1, %r4;
LOOP:
  mad.lo.u32 %r5, %r5, 1664525, 1013904223;
  shr.u32 %r6, %r5, 7;
  xor.b32 %r5, %r5, %r6;
  fma.rn.f32 %f1, %f1, 0f3F7FBE77, 0f3F800000;
  and.b32 %r7, %r5, 3;
  setp.eq.u32 %p1, %r7, 0;
  @%p1 bra SKIP;
  shl.b32 %r8, %r5, 3;
  add.u32 %r5, %r5, %r8;
SKIP:
  sub.u32 %r9, %r9, 1;
  setp.ne.u32 %p2, %r9, 0;
  @%p2 bra LOOP;
  mov.u32 %r10, buf;
  shl.b32 %r11, %r1, 2;
  add.u32 %r12, %r10, %r11;
  st.shared.u32 [%r12], %r5;
  bar.sync 0;
  xor.b32 %r13, %r11, 4;
  add.u32 %r13, %r10, %r13;
  ld.shared.u32 %r14, [%r13];
  cvt.rzi.u32.f32 %r15, %f1;
  add.u32 %r14, %r14, %r15;
  atom.global.add.u32 %r15, [%rd2], %r14;
  mul.wide.u32 %rd3, %r4, 4;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.u32 %r6, [%rd4];
  add.u32 %r15, %r15, %r6;
  st.global.u32 [%rd4], %r15;
  ret;
}
)";

// shared-memory loads between independent integer chains: with an LD/ST issue interval of
// several cycles, the warps that reach a load wait for the LD/ST slot while the greedy warp
// goes on with its chain (the shortcut then runs while other warps wait only for that slot)
const char *kLdstPtx = R"(
.visible .entry k(.param .u64 out, .param .u64 counter, .param .u32 iters) {
  .reg .pred %p<3>; .reg .b32 %r<16>; .reg .b64 %rd<8>;
  .shared .align 4 .b32 buf[256];
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r9, [iters];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  mov.u32 %r5, %r4;
  mov.u32 %r7, 0;
  mov.u32 %r10, buf;
  shl.b32 %r11, %r1, 2;
  add.u32 %r12, %r10, %r11;
  st.shared.u32 [%r12], %r4;
  bar.sync 0;
LOOP:
  ld.shared.u32 %r6, [%r12];
  mad.lo.u32 %r5, %r5, 1664525, 1013904223;
  xor.b32 %r8, %r5, 12345;
  shr.u32 %r13, %r5, 3;
  add.u32 %r14, %r8, %r13;
  ld.shared.u32 %r15, [%r12];
  or.b32 %r8, %r14, 7;
  add.u32 %r7, %r7, %r6;
  add.u32 %r7, %r7, %r15;
  add.u32 %r7, %r7, %r8;
  sub.u32 %r9, %r9, 1;
  setp.ne.u32 %p2, %r9, 0;
  @%p2 bra LOOP;
  mul.wide.u32 %rd3, %r4, 4;
  add.u64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r7;
  ret;
}
)";

struct ScanRun {
  timing::KernelTimingStats stats;
  std::vector<uint32_t> out;
};

ScanRun runKernel(const char *policy, unsigned threads, const char *ptx = kPtx,
                  uint32_t ldstInterval = 1) {
  ExecHarness h;
  EXPECT_TRUE(h.load(ptxHeader() + ptx)) << h.errors;
  timing::TimingConfig cfg; // defaults: GTX480-like, 15 SMs
  cfg.core.scheduler = policy;
  cfg.core.ldstInterval = ldstInterval;
  sim::KernelSimulator sim(cfg, *h.engine);
  sim.gpu().setHostThreads(threads);
  sim.gpu().setParallelMinBusySms(0); // the threads in every cycle
  const uint32_t ctas = 60, block = 256, n = ctas * block, iters = 24;
  uint64_t out = h.alloc(n * 4), counter = h.alloc(4);
  const ptx::exec::Kernel *k = h.engine->findKernel("k", h.module);
  std::vector<uint8_t> buf(k->paramBytes + 8);
  uint64_t args[2] = {out, counter};
  for (size_t i = 0; i < 2; ++i)
    std::memcpy(buf.data() + k->paramOffsets[i], &args[i], k->paramSizes[i]);
  std::memcpy(buf.data() + k->paramOffsets[2], &iters, 4);
  ptx::exec::LaunchParams p;
  p.kernel = k;
  p.grid = {ctas};
  p.block = {block};
  p.params = buf.data();
  sim::KernelRun run = sim.run(p);
  EXPECT_TRUE(run.launch.ok()) << run.launch.message;
  return {run.stats, h.read<uint32_t>(out, n)};
}

void addTestPolicies() {
  timing::schedulerRegistry().add("test_gto_greedy", [](const timing::SchedulerParams &p) {
    return std::unique_ptr<timing::IWarpScheduler>(new TestGto<true>(p));
  });
  timing::schedulerRegistry().add("test_gto_full_scan", [](const timing::SchedulerParams &p) {
    return std::unique_ptr<timing::IWarpScheduler>(new TestGto<false>(p));
  });
}

void expectSameRun(const ScanRun &a, const ScanRun &b, unsigned threads) {
  EXPECT_GT(b.stats.cycles, 0u);
  EXPECT_EQ(a.stats.cycles, b.stats.cycles) << threads;
  EXPECT_EQ(a.out, b.out) << threads;
  ASSERT_EQ(a.stats.values().size(), b.stats.values().size()) << threads;
  for (size_t i = 0; i < b.stats.values().size(); ++i)
    EXPECT_EQ(a.stats.values()[i], b.stats.values()[i]) << threads << " value " << i;
}

/// The warp instructions the SMs issued in a run.
double warpInsts(const ScanRun &r) { return r.stats.get("gpu.warp_insts"); }

/// Runs the kernel with both policies: every result and statistic alike, and the shortcut ran.
void expectShortcutExact(const char *ptx, uint32_t ldstInterval) {
  addTestPolicies();
  for (unsigned threads : {1u, 2u}) {
    gPicks[0] = gPicks[1] = gIssued[0] = gIssued[1] = 0;
    const ScanRun full = runKernel("test_gto_full_scan", threads, ptx, ldstInterval);
    const ScanRun greedy = runKernel("test_gto_greedy", threads, ptx, ldstInterval);
    // the shortcut ran: its issues do not ask the policy, the full scan's all do
    EXPECT_LT(gPicks[1].load(), gPicks[0].load()) << threads;
    EXPECT_GT(gPicks[1].load(), 0u) << threads;
    // a policy that hears issues hears every one (the greedy shortcut's too)
    EXPECT_EQ(double(gIssued[0].load()), warpInsts(full)) << threads;
    EXPECT_EQ(double(gIssued[1].load()), warpInsts(greedy)) << threads;
    expectSameRun(greedy, full, threads);
    // the built-in gto: the shortcut, no pick for it, and no issued() call
    expectSameRun(runKernel("gto", threads, ptx, ldstInterval), full, threads);
  }
}

} // namespace

TEST(TimingGreedyScan, ShortcutLeavesEveryResultAndStatistic) { expectShortcutExact(kPtx, 1); }

// The shortcut also runs while other warps of the scheduler wait only for the LD/ST slot.
TEST(TimingGreedyScan, ShortcutWhileWarpsWaitForTheLdstSlot) { expectShortcutExact(kLdstPtx, 6); }

// The core's extension points, used the way an isa_ext/ extension uses them: a blocking
// instruction (`tsync`, a barrier across the CTAs of a group, run by ir::Ctl::Wait), a launch
// policy that runs a kernel's CTAs in co-resident groups on chosen SMs, a counter, and a warp
// scheduler added through the registry alone. Functional mode with 1, 2 and 4 host threads and
// timing mode must compute the same values.

#include "ExecHarness.h"
#include "base/ExtensionOptions.h"
#include "base/Stats.h"
#include "ptx/exec/Counters.h"
#include "ptx/exec/LaunchPolicy.h"
#include "ptx/exec/Lower.h"
#include "ptx/exec/Program.h"
#include "ptx/sema/OpcodeTable.h"
#include "timing/TimingConfig.h"
#include "timing/gpu/Gpu.h"
#include "timing/sm/scheduler/IWarpScheduler.h"

#include <atomic>
#include <mutex>

using namespace ptxsim;
using namespace ptxsim::test;
namespace ex = ptxsim::ptx::exec;
namespace ir = ptxsim::ptx::ir;

namespace {

constexpr uint32_t kGroup = 4; ///< CTAs per co-resident group
constexpr int kSteps = 6;

/// Per-launch state of the test extension: arrivals at `tsync` within the current group.
struct GroupSync : ex::LaunchExtension {
  std::atomic<uint64_t> arrived{0};
  uint64_t warpsPerGroup = 0;
  const char *name() const override { return "test_groups"; }
  std::string beginGroup(size_t g, ex::DeviceMemory &) override;
  std::string endGroup(size_t g, ex::DeviceMemory &) override;
};
/// Groups begun and ended by the last launch (the LaunchExtension dies with its launch).
std::vector<size_t> gBegun, gEnded;
std::string GroupSync::beginGroup(size_t g, ex::DeviceMemory &) {
  if (g == 0)
    gBegun.clear(), gEnded.clear();
  gBegun.push_back(g);
  arrived = 0;
  return {};
}
std::string GroupSync::endGroup(size_t g, ex::DeviceMemory &) {
  gEnded.push_back(g);
  return {};
}

uint16_t gSyncs = 0;

/// First call: arrive (and remember the arrival count that completes this barrier); then wait.
bool pollSync(ex::ExecCtx &ctx, ex::Warp &w, const ir::Inst &, uint32_t) {
  auto *gs = static_cast<GroupSync *>(ctx.grid->ext);
  if (w.waitStep == 0) {
    uint64_t index = gs->arrived.fetch_add(1);
    w.waitData = (index / gs->warpsPerGroup + 1) * gs->warpsPerGroup;
    ctx.count(gSyncs, 1);
  }
  return gs->arrived.load() >= w.waitData;
}

bool lowerSync(ex::LowerCtx &c) {
  c.emitWait(pollSync, ir::OpClass::Sync);
  return true;
}

std::unique_ptr<ex::LaunchExtension> groupPolicy(const ex::LaunchParams &p, uint32_t numSms) {
  if (p.kernel->name != "grouped")
    return nullptr;
  auto gs = std::make_unique<GroupSync>();
  uint64_t n = p.grid.count();
  gs->warpsPerGroup = kGroup * ((p.block.count() + 31) / 32);
  for (uint64_t c = 0; c < n; c += kGroup) {
    gs->groups.emplace_back();
    for (uint64_t k = c; k < c + kGroup && k < n; ++k)
      gs->groups.back().push_back(k);
  }
  for (uint64_t c = 0; c < n; ++c)
    gs->smOf.push_back(uint32_t((c % kGroup) * 2 + 1) % numSms); // SMs 1, 3, 5, 7
  return gs;
}

void registerTestExtension() {
  static std::once_flag once;
  std::call_once(once, [] {
    ASSERT_EQ(ptx::registerOpcode("tsync", "", ""), "");
    ex::registerLowering("tsync", lowerSync);
    gSyncs = ex::registerExecCounter("test.group_syncs", stats::Unit::Count, "tsync arrivals");
    ex::registerLaunchPolicy(groupPolicy);
  });
}

// Each CTA of a group of four repeatedly publishes its value and adds its right neighbour's
// (double-buffered, one tsync per step); it also records the SM it ran on.
std::string groupedKernel() {
  return ptxHeader() + R"(
.visible .entry grouped(.param .u64 buf, .param .u64 out, .param .u64 sms) {
  .reg .b32 %r<12>; .reg .b64 %rd<12>; .reg .pred %p<3>;
  ld.param.u64 %rd1, [buf]; ld.param.u64 %rd2, [out]; ld.param.u64 %rd3, [sms];
  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %tid.x;
  setp.eq.u32 %p1, %r2, 0;
  and.b32 %r3, %r1, 3;            // index in the group
  sub.u32 %r4, %r1, %r3;          // first CTA of the group
  add.u32 %r5, %r3, 1; and.b32 %r5, %r5, 3; add.u32 %r5, %r5, %r4;   // right neighbour
  add.u32 %r6, %r1, 1;            // value
  mov.u32 %r7, 0;                 // step
LOOP:
  and.b32 %r8, %r7, 1; mul.lo.u32 %r8, %r8, 64;   // buffer half (16 CTAs x 4 bytes)
  add.u32 %r9, %r8, %r1; mul.wide.u32 %rd4, %r9, 4; add.s64 %rd5, %rd1, %rd4;
  @%p1 st.global.u32 [%rd5], %r6;
  tsync;
  add.u32 %r10, %r8, %r5; mul.wide.u32 %rd6, %r10, 4; add.s64 %rd7, %rd1, %rd6;
  ld.global.u32 %r11, [%rd7];
  add.u32 %r6, %r6, %r11;
  add.u32 %r7, %r7, 1;
  setp.lt.u32 %p2, %r7, )" + std::to_string(kSteps) + R"(;
  @%p2 bra LOOP;
  mul.wide.u32 %rd8, %r1, 4;
  add.s64 %rd9, %rd2, %rd8; add.s64 %rd10, %rd3, %rd8;
  mov.u32 %r9, %smid;
  @%p1 st.global.u32 [%rd9], %r6;
  @%p1 st.global.u32 [%rd10], %r9;
  ret;
}
)";
}

std::vector<uint32_t> expected(uint32_t ctas) {
  std::vector<uint32_t> v(ctas);
  for (uint32_t c = 0; c < ctas; ++c)
    v[c] = c + 1;
  for (int t = 0; t < kSteps; ++t) {
    std::vector<uint32_t> n(ctas);
    for (uint32_t c = 0; c < ctas; ++c)
      n[c] = v[c] + v[c - c % kGroup + (c % kGroup + 1) % kGroup];
    v = n;
  }
  return v;
}

std::vector<uint8_t> params(const ex::Kernel &k, std::vector<uint64_t> v) {
  std::vector<uint8_t> buf(k.paramBytes + 8);
  for (size_t i = 0; i < v.size(); ++i)
    std::memcpy(buf.data() + k.paramOffsets[i], &v[i], 8);
  return buf;
}

} // namespace

TEST(ExtensionHooks, CrossCtaWaitInCoResidentGroupsFunctional) {
  registerTestExtension();
  for (unsigned threads : {1u, 2u, 4u}) {
    ExecHarness h(threads);
    ASSERT_TRUE(h.load(groupedKernel())) << h.errors;
    uint64_t buf = h.alloc(128 * 4), out = h.alloc(16 * 4), sms = h.alloc(16 * 4);
    auto r = h.launch("grouped", {16}, {64}, {buf, out, sms});
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(h.read<uint32_t>(out, 16), expected(16)) << threads << " host threads";
    EXPECT_EQ(gBegun, (std::vector<size_t>{0, 1, 2, 3}));
    EXPECT_EQ(gEnded, (std::vector<size_t>{0, 1, 2, 3}));
    ASSERT_GT(r.counters.size(), gSyncs);
    EXPECT_EQ(r.counters[gSyncs], 16u * 2 * kSteps); // 16 CTAs x 2 warps x steps
    std::vector<uint32_t> sm = h.read<uint32_t>(sms, 16);
    for (uint32_t c = 0; c < 16; ++c)
      EXPECT_EQ(sm[c], (c % kGroup) * 2 + 1) << "CTA " << c;
  }
}

TEST(ExtensionHooks, CrossCtaWaitInCoResidentGroupsTiming) {
  registerTestExtension();
  ExecHarness h(1);
  ASSERT_TRUE(h.load(groupedKernel())) << h.errors;
  timing::TimingConfig cfg;
  timing::Gpu gpu(cfg, *h.engine);
  const ex::Kernel *k = h.engine->findKernel("grouped", h.module);
  uint64_t buf = h.alloc(128 * 4), out = h.alloc(16 * 4), sms = h.alloc(16 * 4);
  auto pb = params(*k, {buf, out, sms});
  ex::LaunchParams p;
  p.kernel = k;
  p.grid = {16};
  p.block = {64};
  p.params = pb.data();
  timing::KernelTimingStats st;
  auto r = gpu.runKernel(p, st);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(h.read<uint32_t>(out, 16), expected(16));
  std::vector<uint32_t> sm = h.read<uint32_t>(sms, 16);
  for (uint32_t c = 0; c < 16; ++c)
    EXPECT_EQ(sm[c], (c % kGroup) * 2 + 1) << "CTA " << c;
  // the CTAs ran where the policy put them, the waits show as ext_wait stalls, and the counter
  // reached the kernel's statistics
  EXPECT_EQ(st.get("sm[1].ctas"), 4);
  EXPECT_EQ(st.get("sm[0].ctas"), 0);
  EXPECT_EQ(st.get("test.group_syncs"), 16.0 * 2 * kSteps);
  EXPECT_GT(st.get("sm.stall.ext_wait"), 0);
  EXPECT_EQ(gEnded, (std::vector<size_t>{0, 1, 2, 3}));
}

namespace {
/// A policy a study adds without touching timing/: always the highest ready slot.
class HighestSlotFirst : public timing::IWarpScheduler {
public:
  const char *name() const override { return "highest_first"; }
  void addWarp(uint32_t, uint64_t) override {}
  void removeWarp(uint32_t) override {}
  int pick(const std::vector<uint32_t> &ready, timing::Cycle) override {
    ++picks_;
    return ready.empty() ? -1 : int(ready.back());
  }
  void stats(std::vector<std::pair<std::string, uint64_t>> &out) const override {
    out.emplace_back("highest_first_picks", picks_);
  }

private:
  uint64_t picks_ = 0;
};
} // namespace

TEST(ExtensionHooks, SchedulerAddedThroughTheRegistryAlone) {
  timing::schedulerRegistry().add("highest_first", [](const timing::SchedulerParams &) {
    return std::unique_ptr<timing::IWarpScheduler>(new HighestSlotFirst());
  });
  timing::TimingConfig cfg;
  DiagEngine d;
  ASSERT_TRUE(timing::loadTimingConfig({}, {"-gpgpu_scheduler", "highest_first"}, false, cfg, d));
  EXPECT_EQ(cfg.core.scheduler, "highest_first");
  ASSERT_TRUE(timing::validateTimingConfig(cfg, d));
  ExecHarness h(1);
  ASSERT_TRUE(h.load(ptxHeader() + R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out]; mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x;
  mad.lo.u32 %r3, %r2, 128, %r1; mul.wide.u32 %rd2, %r3, 4; add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3; ret;
}
)")) << h.errors;
  timing::Gpu gpu(cfg, *h.engine);
  const ex::Kernel *k = h.engine->findKernel("k", h.module);
  uint64_t out = h.alloc(8 * 128 * 4);
  auto pb = params(*k, {out});
  ex::LaunchParams p;
  p.kernel = k;
  p.grid = {8};
  p.block = {128};
  p.params = pb.data();
  timing::KernelTimingStats st;
  ASSERT_TRUE(gpu.runKernel(p, st).ok());
  std::vector<uint32_t> v = h.read<uint32_t>(out, 8 * 128);
  for (uint32_t i = 0; i < v.size(); ++i)
    ASSERT_EQ(v[i], i);
  // its own counter is registered and reported like a built-in policy's
  EXPECT_GT(st.get("sched.highest_first_picks"), 0);
}

// The no-progress detector (docs/executor.md, "No progress"): a blocking instruction that never
// completes (`tnever`) while the block's other warp waits at a barrier stops the launch with a
// report naming the kernel and both warps, in functional mode (after EngineConfig::
// noProgressPolls polls) with 1 and 2 host threads, and in timing mode (after the cycle bound).
namespace {

bool pollNever(ex::ExecCtx &, ex::Warp &, const ir::Inst &, uint32_t) { return false; }

bool lowerNever(ex::LowerCtx &c) {
  c.emitWait(pollNever, ir::OpClass::Sync);
  return true;
}

void registerNever() {
  static std::once_flag once;
  std::call_once(once, [] {
    ASSERT_EQ(ptx::registerOpcode("tnever", "", ""), "");
    ex::registerLowering("tnever", lowerNever);
  });
}

std::string stuckKernel() {
  return ptxHeader() + R"(
.visible .entry stuck(.param .u64 out) {
  .reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra WAIT;
  bar.sync 0;
  bra DONE;
WAIT:
  tnever;
DONE:
  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
)";
}

} // namespace

TEST(NoProgress, WaitThatNeverCompletesStopsTheLaunchFunctional) {
  registerNever();
  for (unsigned threads : {1u, 2u}) {
    ExecHarness h(threads);
    h.engine->setNoProgressPolls(1000);
    ASSERT_TRUE(h.load(stuckKernel())) << h.errors;
    uint64_t out = h.alloc(64 * 4);
    auto r = h.launch("stuck", {2}, {64}, {out});
    ASSERT_FALSE(r.ok()) << threads << " host threads";
    EXPECT_NE(r.message.find("kernel 'stuck': no progress: every live warp waits at a blocking "
                             "instruction ('tnever') or a barrier, and for 1000 polls in a row"),
              std::string::npos)
        << r.message;
    EXPECT_NE(r.message.find("warp 0: lanes 0xffffffff"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("warp 1 (waiting at a barrier): lanes 0xffffffff"), std::string::npos)
        << r.message;
    EXPECT_NE(r.message.find("tnever"), std::string::npos) << r.message;
  }
}

TEST(NoProgress, WaitThatNeverCompletesStopsTheLaunchTiming) {
  registerNever();
  ExecHarness h(1);
  ASSERT_TRUE(h.load(stuckKernel())) << h.errors;
  timing::TimingConfig cfg;
  timing::Gpu gpu(cfg, *h.engine);
  gpu.setNoProgressCycles(20000);
  const ex::Kernel *k = h.engine->findKernel("stuck", h.module);
  uint64_t out = h.alloc(64 * 4);
  auto pb = params(*k, {out});
  ex::LaunchParams p;
  p.kernel = k;
  p.grid = {2};
  p.block = {64};
  p.params = pb.data();
  timing::KernelTimingStats st;
  auto r = gpu.runKernel(p, st);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message.find("kernel 'stuck': no progress: no warp issued an instruction for 20000 "
                           "cycles (a deadlock); the live warps (4):"),
            std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("block (1,0,0) warp 1 (waiting at a barrier): lanes 0xffffffff"),
            std::string::npos)
      << r.message;
}

// Waits that complete are progress, never a deadlock: the grouped kernel's CTAs wait at every
// step for CTAs on the other host thread, and finish.
TEST(NoProgress, WaitsThatCompleteAreNotStopped) {
  registerTestExtension();
  ExecHarness h(2);
  h.engine->setNoProgressPolls(20000);
  ASSERT_TRUE(h.load(groupedKernel())) << h.errors;
  uint64_t buf = h.alloc(128 * 4), out = h.alloc(16 * 4), sms = h.alloc(16 * 4);
  auto r = h.launch("grouped", {16}, {64}, {buf, out, sms});
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(h.read<uint32_t>(out, 16), expected(16));
}

// Extension options (base/ExtensionOptions.h): typed handles registered once, bound by the
// configuration loader into TimingConfig::ext with the built-ins' diagnostics, read through
// the handle (per configuration, or the configuration loaded last) without a lookup by name.
TEST(ExtensionHooks, OptionsAreTypedPartsOfTheConfiguration) {
  NumberOption units = registerOption("-hooktest_units", 2, "test: units", 0, 8);
  StringOption mode = registerStringOption("-hooktest_mode", "fast", "test: mode", {"fast", "slow"});
  EXPECT_EQ(registerOption("-hooktest_units", 2, "test: units", 0, 8).name(), units.name());
  EXPECT_EQ(findNumberOption("-hooktest_units").name(), "-hooktest_units");
  EXPECT_FALSE(findNumberOption("-hooktest_mode").valid()); // a string option, not a number
  EXPECT_FALSE(findStringOption("-hooktest_none").valid());

  timing::TimingConfig before; // built before any load: the defaults
  EXPECT_EQ(units.in(before.ext), 2);
  EXPECT_EQ(mode.in(before.ext), "fast");

  DiagEngine d;
  timing::TimingConfig a, b;
  ASSERT_TRUE(timing::loadTimingConfig({}, {"-hooktest_units", "5", "-hooktest_mode", "slow"},
                                       false, a, d));
  EXPECT_EQ(units.in(a.ext), 5);
  EXPECT_EQ(mode.in(a.ext), "slow");
  EXPECT_EQ(units.value(), 5); // the configuration loaded last
  EXPECT_EQ(option("-hooktest_units"), 5);
  ASSERT_TRUE(timing::loadTimingConfig({}, {"-hooktest_units", "7"}, false, b, d));
  EXPECT_EQ(units.in(a.ext), 5); // each configuration keeps its own values
  EXPECT_EQ(units.in(b.ext), 7);
  EXPECT_EQ(mode.in(b.ext), "fast"); // a new load starts from the defaults
  EXPECT_EQ(units.value(), 7);
  EXPECT_NE(timing::timingConfigText(a).find("-hooktest_units 5"), std::string::npos);

  // errors name the option and where it was given; the configuration is left as it was
  DiagEngine bad;
  timing::TimingConfig c = b;
  EXPECT_FALSE(timing::loadTimingConfig({}, {"-hooktest_units", "9"}, false, c, bad));
  ASSERT_EQ(bad.errorCount(), 1u);
  const std::string err = bad.diagnostics()[0].str();
  EXPECT_NE(err.find("<command line>:1:"), std::string::npos) << err;
  EXPECT_NE(err.find("-hooktest_units"), std::string::npos) << err;
  EXPECT_EQ(units.in(c.ext), 7);
  DiagEngine badMode;
  EXPECT_FALSE(timing::loadTimingConfig({}, {"-hooktest_mode", "medium"}, false, c, badMode));
  ASSERT_EQ(badMode.errorCount(), 1u);
  EXPECT_NE(badMode.diagnostics()[0].str().find("-hooktest_mode"), std::string::npos);
}

TEST(ExtensionHooksDeathTest, AnEmptyOptionHandleAborts) {
  EXPECT_DEATH(NumberOption().value(), "names no option");
  EXPECT_DEATH(option("-hooktest_never_registered"), "is not registered");
}

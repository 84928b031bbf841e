// Core kinds (timing/sm/core/CoreKinds.h): the built-ins are registered by name, and a kind
// added from outside timing/ (here a test, as an extension would) is what the GPU builds for the
// SMs a heterogeneous-core function names; it runs in the parallel engine, and a kind that
// times like the full SM leaves every result and statistic as the full SM does, for any number
// of host threads.

#include "ExecHarness.h"
#include "sim/KernelSimulator.h"
#include "timing/ext/Extension.h"
#include "timing/gpu/Gpu.h"
#include "timing/sm/core/CoreKinds.h"

#include <algorithm>
#include <atomic>

using namespace ptxsim;
using namespace ptxsim::test;

namespace {

std::atomic<uint64_t> gIssues{0};
bool gOddSmsCount = false; ///< oddSmsCount() makes the odd SMs "test_counting" cores

/// The full SM, counting its issues (the hook a kind overrides).
class CountingSm : public timing::Sm {
public:
  using Sm::Sm;

protected:
  bool issue(Slot &s, const ptx::ir::Inst &in, uint32_t slotIndex, timing::Cycle now) override {
    gIssues.fetch_add(1, std::memory_order_relaxed);
    return Sm::issue(s, in, slotIndex, now);
  }
};

void oddSmsCount(timing::TimingConfig &cfg, uint32_t smId) {
  if (gOddSmsCount && smId % 2)
    cfg.core.kind = "test_counting";
}

// shared memory across a barrier (the SM's own phase), then a global atomic whose old values
// depend on the order of the SMs (the ordered phase)
const char *kPtx = R"(
.visible .entry k(.param .u64 out, .param .u64 counter) {
  .reg .b32 %r<8>; .reg .b64 %rd<6>;
  .shared .align 4 .b32 buf[128];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [counter];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  mov.u32 %r5, buf;
  shl.b32 %r6, %r1, 2;
  add.u32 %r5, %r5, %r6;
  st.shared.u32 [%r5], %r4;
  bar.sync 0;
  ld.shared.u32 %r6, [%r5];
  atom.global.add.u32 %r7, [%rd2], %r6;
  mul.wide.u32 %rd3, %r4, 4;
  add.u64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r7;
  ret;
}
)";

struct KindRun {
  timing::KernelTimingStats stats;
  std::vector<uint32_t> out;
};

KindRun runKernel(unsigned threads) {
  ExecHarness h;
  EXPECT_TRUE(h.load(ptxHeader() + kPtx)) << h.errors;
  timing::TimingConfig cfg; // defaults: GTX480-like, 15 SMs
  sim::KernelSimulator sim(cfg, *h.engine);
  sim.gpu().setHostThreads(threads);
  sim.gpu().setParallelMinBusySms(0); // the threads in every cycle
  const uint32_t ctas = 45, block = 128, n = ctas * block;
  uint64_t out = h.alloc(n * 4), counter = h.alloc(4);
  const ptx::exec::Kernel *k = h.engine->findKernel("k", h.module);
  std::vector<uint8_t> buf(k->paramBytes + 8);
  uint64_t args[2] = {out, counter};
  for (size_t i = 0; i < 2; ++i)
    std::memcpy(buf.data() + k->paramOffsets[i], &args[i], k->paramSizes[i]);
  ptx::exec::LaunchParams p;
  p.kernel = k;
  p.grid = {ctas};
  p.block = {block};
  p.params = buf.data();
  sim::KernelRun run = sim.run(p);
  EXPECT_TRUE(run.launch.ok()) << run.launch.message;
  return {run.stats, h.read<uint32_t>(out, n)};
}

} // namespace

TEST(CoreKinds, BuiltinsRegisteredByName) {
  std::vector<std::string> names = timing::coreKindRegistry().names();
  for (const char *k : {"sm", "reduced", "dma"})
    EXPECT_NE(std::find(names.begin(), names.end(), k), names.end()) << k;
  timing::TimingConfig cfg;
  cfg.core.kind = "no_such_kind";
  EXPECT_EQ(timing::coreKindRegistry().create(cfg, 0, timing::schedulerRegistry()), nullptr);
}

TEST(CoreKinds, KindAddedOutsideTimingRunsInTheParallelEngine) {
  timing::coreKindRegistry().add(
      "test_counting", [](const timing::TimingConfig &cfg, uint32_t smId,
                          const timing::SchedulerRegistry &s) -> std::unique_ptr<timing::Sm> {
        return std::make_unique<CountingSm>(cfg, smId, s);
      });
  timing::registerSmConfig(oddSmsCount);
  gOddSmsCount = false;
  gIssues = 0;
  const KindRun base = runKernel(1);
  EXPECT_EQ(gIssues.load(), 0u); // every SM the full one
  gOddSmsCount = true;
  for (unsigned threads : {1u, 2u, 4u}) {
    gIssues = 0;
    const KindRun r = runKernel(threads);
    EXPECT_GT(gIssues.load(), 0u) << threads;
    EXPECT_EQ(r.stats.cycles, base.stats.cycles) << threads;
    EXPECT_EQ(r.out, base.out) << threads;
    ASSERT_EQ(r.stats.values().size(), base.stats.values().size()) << threads;
    for (size_t i = 0; i < base.stats.values().size(); ++i)
      EXPECT_EQ(r.stats.values()[i], base.stats.values()[i]) << threads;
  }
  gOddSmsCount = false;
}

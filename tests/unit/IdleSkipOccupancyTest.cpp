// The GPU skips cycles in which no SM can issue and the memory system has nothing due
// (Gpu::skipIdleCycles). A skipped cycle must count what a ticked idle cycle counts: the SM's
// active cycle, its stall reasons and its resident warps. sm.occupancy is resident warp-cycles
// over active cycles times the warp slots, so one warp resident for the whole launch is an
// occupancy of exactly 1 / slots, however many of its cycles the loop skipped.

#include "ExecHarness.h"
#include "sim/KernelSimulator.h"
#include "timing/gpu/Gpu.h"
#include "timing/gpu/TimingProfile.h"

#include <cstring>

using namespace ptxsim;
using namespace ptxsim::test;

namespace {

// One warp follows a chain of pointers in global memory, each a line of its own: every load
// misses, and while it is out no SM can issue, so the loop skips most cycles.
const char *kChasePtx = R"(
.visible .entry chase(.param .u64 p, .param .u64 out, .param .u32 n) {
  .reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p;
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, 0;
LOOP:
  ld.global.u64 %rd1, [%rd1];
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p, %r2, %r1;
  @%p bra LOOP;
  st.global.u64 [%rd2], %rd1;
  ret;
}
)";

} // namespace

TEST(IdleSkipOccupancy, ASkippedCycleCountsTheResidentWarpsAsATickedOneWould) {
  for (uint32_t window : {0u, 1024u}) { // (without and with SM windows)
    ExecHarness h;
    ASSERT_TRUE(h.load(ptxHeader() + kChasePtx)) << h.errors;
    timing::TimingConfig cfg; // defaults: GTX480-like
    sim::KernelSimulator sim(cfg, *h.engine);
    sim.gpu().setSmWindow(window);
    const uint32_t hops = 40, stride = 4096 / 8;
    std::vector<uint64_t> chain(size_t(hops + 1) * stride);
    const uint64_t base = h.upload(chain);
    for (uint32_t k = 0; k < hops; ++k) // element k points at element k + 1, a page further
      chain[size_t(k) * stride] = base + uint64_t(k + 1) * stride * 8;
    std::memcpy(reinterpret_cast<void *>(base), chain.data(), chain.size() * 8);
    const uint64_t out = h.alloc(8);
    const ptx::exec::Kernel *k = h.engine->findKernel("chase", h.module);
    ASSERT_NE(k, nullptr);
    std::vector<uint8_t> buf(k->paramBytes + 8);
    const uint64_t args[3] = {base, out, hops};
    for (size_t i = 0; i < 3; ++i)
      std::memcpy(buf.data() + k->paramOffsets[i], &args[i], k->paramSizes[i]);
    ptx::exec::LaunchParams p;
    p.kernel = k;
    p.grid = {1};
    p.block = {32};
    p.params = buf.data();
    timing::TimingProfile::reset();
    timing::TimingProfile::setEnabled(true);
    const sim::KernelRun run = sim.run(p);
    const timing::TimingProfile prof = timing::TimingProfile::total();
    timing::TimingProfile::setEnabled(false);
    timing::TimingProfile::reset();
    ASSERT_TRUE(run.launch.ok()) << run.launch.message;
    EXPECT_EQ(h.read<uint64_t>(out, 1)[0], base + uint64_t(hops) * stride * 8);
    // the case the test is about: cycles skipped, not ticked (the loads' way through the
    // interconnect, L2 and DRAM has events in most cycles)
    ASSERT_GT(prof.cycles - prof.ticked, prof.cycles / 40) << "window " << window;
    const double slots = double(cfg.core.maxThreadsPerSm / cfg.core.warpSize);
    // (the warp is resident from the CTA's first cycle to its exit; the CTA's last cycles,
    // after the exit, count no warp: a few cycles of some thousands)
    EXPECT_NEAR(run.stats.get("sm.occupancy") * slots, 1.0, 0.005)
        << "window " << window << ": " << prof.cycles - prof.ticked << " of " << prof.cycles
        << " cycles skipped";
  }
}

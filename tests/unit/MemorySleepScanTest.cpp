// Warps asleep until one of their loads returns (Sm::memSleepers_) leave their scheduler's scan
// until the load's return wakes them; meanwhile they must still count as resident warps, their
// scheduler's stall reason must be memory, and the return must wake them (the kernel finishes
// with the chased values).

#include "ExecHarness.h"
#include "sim/KernelSimulator.h"
#include "timing/gpu/Gpu.h"

#include <cstring>

using namespace ptxsim;
using namespace ptxsim::test;

namespace {

// each thread chases `steps` dependent global loads (next[i]), then stores where it ended
const char *kChasePtx = R"(
.visible .entry chase(.param .u64 next, .param .u64 out, .param .u32 steps) {
  .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [next];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [steps];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %r2;
LOOP:
  mul.wide.u32 %rd3, %r3, 4;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.u32 %r3, [%rd4];
  sub.u32 %r1, %r1, 1;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra LOOP;
  mul.wide.u32 %rd5, %r2, 4;
  add.u64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r3;
  ret;
}
)";

struct ChaseRun {
  timing::KernelTimingStats stats;
  std::vector<uint32_t> out, expected;
};

ChaseRun runChase(unsigned hostThreads) {
  ExecHarness h;
  EXPECT_TRUE(h.load(ptxHeader() + kChasePtx)) << h.errors;
  timing::TimingConfig cfg; // defaults: GTX480-like, 2 schedulers per SM
  sim::KernelSimulator sim(cfg, *h.engine);
  sim.gpu().setHostThreads(hostThreads);
  sim.gpu().setParallelMinBusySms(0);
  const uint32_t block = 256, entries = 1 << 14, steps = 12;
  // a warp's lanes read one line at each step (one request per warp and load), the next
  // step's line far from the last
  std::vector<uint32_t> next(entries);
  for (uint32_t i = 0; i < entries; ++i)
    next[i] = (i / 32 * 97 + 61) % (entries / 32) * 32 + i % 32;
  ChaseRun r;
  for (uint32_t t = 0; t < block; ++t) {
    uint32_t x = t;
    for (uint32_t s = 0; s < steps; ++s)
      x = next[x];
    r.expected.push_back(x);
  }
  const uint64_t dNext = h.upload(next), dOut = h.alloc(block * 4);
  const ptx::exec::Kernel *k = h.engine->findKernel("chase", h.module);
  std::vector<uint8_t> buf(k->paramBytes + 8);
  const uint64_t args[2] = {dNext, dOut};
  for (size_t i = 0; i < 2; ++i)
    std::memcpy(buf.data() + k->paramOffsets[i], &args[i], k->paramSizes[i]);
  std::memcpy(buf.data() + k->paramOffsets[2], &steps, 4);
  ptx::exec::LaunchParams p;
  p.kernel = k;
  p.grid = {1};
  p.block = {block};
  p.params = buf.data();
  sim::KernelRun run = sim.run(p);
  EXPECT_TRUE(run.launch.ok()) << run.launch.message;
  r.stats = run.stats;
  r.out = h.read<uint32_t>(dOut, block);
  return r;
}

} // namespace

TEST(TimingMemorySleep, AsleepOnLoadsYetResidentAndStalledOnMemory) {
  for (unsigned threads : {1u, 2u}) {
    const ChaseRun r = runChase(threads);
    // the loads' returns woke the warps: each thread ended where its chase ends
    EXPECT_EQ(r.out, r.expected) << threads;
    const double active = r.stats.get("sm.active_cycles"); // the one SM with the CTA
    ASSERT_GT(active, 12 * 100.0) << threads; // 12 dependent global loads
    // all 8 warps stay resident from the launch to about its end, most of it asleep on a load
    // (occupancy: resident warp-cycles over active cycles times 48 warp slots)
    const double resident = r.stats.get("sm.occupancy") * active * (1536 / 32);
    EXPECT_GT(resident, 0.9 * 8 * active) << threads;
    EXPECT_LE(resident, 8 * active + 0.5) << threads;
    // both schedulers mostly wait for memory (not idle: their warps are live)
    EXPECT_GT(r.stats.get("sm.stall.memory"), 0.8 * 2 * active) << threads;
    EXPECT_LT(r.stats.get("sm.stall.idle"), 0.05 * 2 * active) << threads;
  }
}

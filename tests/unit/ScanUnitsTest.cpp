// The scan's unit test and its loop over the warp slots (Sm::unitFreeFor, Sm::forScanned). A
// warp whose operands are ready issues only when a unit of its instruction's pipe is free, an
// operand collector too unless it is a memory instruction (Mem, Atomic), and the LD/ST slot for
// an instruction of the LD/ST pipe; the scan's common case reads that from a per-class table
// (classAlsoFree_), the rest from the slot's per-scan memo. And an SM with more than 64 warp
// slots (two words of the scan's slot mask, not every preset's one) issues from all of them.

#include "ExecHarness.h"
#include "sim/KernelSimulator.h"
#include "timing/gpu/Gpu.h"
#include "timing/sm/Sm.h"
#include "timing/sm/scheduler/IWarpScheduler.h"

#include <cstring>

using namespace ptxsim;
using namespace ptxsim::test;

namespace {

/// The full SM with its unit state set and its unit test asked from outside.
class UnitProbeSm : public timing::Sm {
public:
  using Sm::Sm;
  /// unitFreeFor(in, now) with the scan's memo of the LD/ST slot (-1: not looked at; 0: busy;
  /// 1: free) for other spaces and for shared memory.
  bool freeFor(const ptx::ir::Inst &in, timing::Cycle now, int8_t ldstOther, int8_t ldstShared) {
    UnitMemo m;
    m.ldst[0] = ldstOther;
    m.ldst[1] = ldstShared;
    return unitFreeFor(in, now, m);
  }
  /// Every pipe's units free from `pipes`, the collectors from `collectors` (as issues leave them).
  void setFree(timing::Cycle pipes, timing::Cycle collectors) {
    for (Pipe &p : pipes_) {
      std::fill(p.freeAt.begin(), p.freeAt.end(), pipes);
      p.minFree = pipes;
    }
    collectorMinFree_ = collectors;
  }
  void setPipeFree(const ptx::ir::Inst &in, timing::Cycle at) {
    Pipe &p = pipes_[pipeFor(in)];
    std::fill(p.freeAt.begin(), p.freeAt.end(), at);
    p.minFree = at;
  }
  bool inLdstPipe(const ptx::ir::Inst &in) const { return pipeFor(in) == ldstPipe_; }
  timing::Cycle freeAt(const ptx::ir::Inst &in) const { return unitFreeAt(in); }
};

} // namespace

TEST(TimingScanUnits, FreeForNeedsThePipeACollectorAndTheLdstSlotByClass) {
  for (const char *preset : {"default", "h100"}) {
    timing::TimingConfig cfg;
    if (std::string(preset) == "h100") {
      cfg.core.schedulersPerSm = 4;
      cfg.core.maxThreadsPerSm = 2048;
    }
    UnitProbeSm sm(cfg, 0, timing::builtinSchedulers());
    const timing::Cycle now = 100;
    ptx::ir::Inst mem;
    mem.cls = ptx::ir::OpClass::Mem;
    ASSERT_TRUE(sm.inLdstPipe(mem)) << preset;
    for (uint8_t c = 0; c < ptx::ir::kNumBuiltinOpClasses; ++c) {
      for (ptx::ir::MemSpace space : {ptx::ir::MemSpace::Global, ptx::ir::MemSpace::Shared}) {
        ptx::ir::Inst in;
        in.cls = ptx::ir::OpClass(c);
        in.space = space;
        const bool memory = in.cls == ptx::ir::OpClass::Mem || in.cls == ptx::ir::OpClass::Atomic;
        const bool ldst = sm.inLdstPipe(in);
        const bool shared = space == ptx::ir::MemSpace::Shared;
        for (timing::Cycle pipe : {now - 5, now, now + 1, now + 7})
          for (timing::Cycle coll : {timing::Cycle(0), now, now + 1, now + 3})
            for (int8_t other : {-1, 0, 1})
              for (int8_t sh : {-1, 0, 1}) {
                sm.setFree(0, coll);
                sm.setPipeFree(in, pipe);
                // (-1: the LD/ST unit is asked; a fresh one can issue)
                const bool slot = (shared ? sh : other) != 0;
                const bool expect = pipe <= now && (memory || coll <= now) && (!ldst || slot);
                EXPECT_EQ(sm.freeFor(in, now, other, sh), expect)
                    << preset << " class " << int(c) << " shared " << shared << " pipe " << pipe
                    << " collectors " << coll << " ldst " << int(other) << "/" << int(sh);
                // without the LD/ST slot's say, the first cycle it can say yes
                if (!expect && !ldst) {
                  const timing::Cycle at = sm.freeAt(in);
                  EXPECT_EQ(at, std::max(pipe, memory ? timing::Cycle(0) : coll)) << preset;
                  EXPECT_TRUE(sm.freeFor(in, at, other, sh)) << preset << " class " << int(c);
                  EXPECT_FALSE(sm.freeFor(in, at - 1, other, sh)) << preset << " class " << int(c);
                }
              }
      }
    }
  }
}

namespace {

// independent integer chains per thread, then each thread's result stored
const char *kChainPtx = R"(
.visible .entry k(.param .u64 out, .param .u32 iters) {
  .reg .pred %p<2>; .reg .b32 %r<12>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r9, [iters];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  mov.u32 %r5, %r4;
  mov.u32 %r6, 7;
LOOP:
  mad.lo.u32 %r5, %r5, 1664525, 1013904223;
  shr.u32 %r7, %r5, 5;
  xor.b32 %r6, %r6, %r7;
  sub.u32 %r9, %r9, 1;
  setp.ne.u32 %p1, %r9, 0;
  @%p1 bra LOOP;
  add.u32 %r6, %r6, %r5;
  mul.wide.u32 %rd2, %r4, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r6;
  ret;
}
)";

struct SlotsRun {
  timing::KernelTimingStats stats;
  std::vector<uint32_t> out;
};

/// 12 CTAs of 256 threads (96 warps) per SM on 2 SMs, with `threadsPerSm` of warp slots.
SlotsRun runChains(const char *policy, uint32_t threadsPerSm, unsigned hostThreads) {
  ExecHarness h;
  EXPECT_TRUE(h.load(ptxHeader() + kChainPtx)) << h.errors;
  timing::TimingConfig cfg; // defaults: GTX480-like
  cfg.core.numClusters = 2;
  cfg.core.scheduler = policy;
  cfg.core.maxThreadsPerSm = threadsPerSm;
  cfg.core.maxCtasPerSm = 16;
  cfg.core.registersPerSm = 1u << 20;
  sim::KernelSimulator sim(cfg, *h.engine);
  sim.gpu().setHostThreads(hostThreads);
  sim.gpu().setParallelMinBusySms(0);
  const uint32_t ctas = 24, block = 256, n = ctas * block, iters = 200;
  uint64_t out = h.alloc(n * 4);
  const ptx::exec::Kernel *k = h.engine->findKernel("k", h.module);
  std::vector<uint8_t> buf(k->paramBytes + 8);
  std::memcpy(buf.data() + k->paramOffsets[0], &out, k->paramSizes[0]);
  std::memcpy(buf.data() + k->paramOffsets[1], &iters, 4);
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

TEST(TimingScanUnits, WarpsInSlotsPastTheFirst64Issue) {
  // the expected results, computed here
  const uint32_t n = 24 * 256;
  std::vector<uint32_t> expect(n);
  for (uint32_t t = 0; t < n; ++t) {
    uint32_t x = t, y = 7;
    for (int i = 0; i < 200; ++i) {
      x = x * 1664525u + 1013904223u;
      y ^= x >> 5;
    }
    expect[t] = y + x;
  }
  for (const char *policy : {"lrr", "gto"})
    for (unsigned hostThreads : {1u, 2u}) {
      const SlotsRun one = runChains(policy, 2048, hostThreads); // 64 slots: one word
      const SlotsRun two = runChains(policy, 4096, hostThreads); // 128 slots: two words
      EXPECT_EQ(one.out, expect) << policy << " " << hostThreads;
      EXPECT_EQ(two.out, expect) << policy << " " << hostThreads;
      EXPECT_EQ(two.stats.get("gpu.warp_insts"), one.stats.get("gpu.warp_insts")) << policy;
      // round robin keeps every warp going to the end: the 96 warps an SM holds at once stay
      // resident (more than the first word's 64 slots), and those past it issue
      if (std::string(policy) == "lrr") {
        EXPECT_GT(two.stats.get("sm.occupancy") * 128, 80.0) << hostThreads;
      }
    }
}

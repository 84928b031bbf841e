// SM windows (timing/gpu/Gpu.h, setSmWindow): an SM with no memory traffic in flight runs its
// next cycles ahead of the rest of the GPU while it keeps to itself. Whatever the window and the
// host threads, every statistic and every result must be those of the plain cycle-by-cycle
// loop: on kernels whose SMs alternate between their own work (ALU chains, shared memory,
// barriers, shuffles) and instructions that reach beyond them (global atomics whose old values
// depend on the order in which SMs get there, loads of a counter other SMs keep changing), with
// more CTAs than fit at once (dispatch while others run ahead), a statistics sampler every few
// cycles, and a fault in shared memory.

#include "ExecHarness.h"
#include "TimingCompare.h"
#include "ptx/sema/OpcodeTable.h"
#include "sim/KernelSimulator.h"
#include "timing/gpu/Gpu.h"
#include "timing/gpu/TimingProfile.h"
#include "timing/sm/Sm.h"

#include <cstring>
#include <map>

using namespace ptxsim;
using namespace ptxsim::test;

namespace {

// Each thread: an ALU chain, a shared-memory exchange between barriers, and every 16th
// iteration (at a different iteration per warp) a global atomic ticket and a load of the counter,
// and 8 iterations later a plain load of it (the values depend on the order of every SM's
// atomics; the plain load comes after a stretch of the SM's own work); after the loop a shuffle
// and a store.
const char *kInterleavePtx = R"(
.visible .entry interleave(.param .u64 counter, .param .u64 out, .param .u32 iters) {
  .reg .b32 %r<24>; .reg .b64 %rd<8>; .reg .pred %p<3>;
  .shared .align 4 .b32 buf[256];
  ld.param.u64 %rd1, [counter];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r10, [iters];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  mov.u32 %r5, buf;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r5, %r6;
  shr.u32 %r18, %r1, 5;
  and.b32 %r18, %r18, 15;
  mov.u32 %r9, %r4;
  mov.u32 %r11, 0;
  mov.u32 %r16, 0;
LOOP:
  mad.lo.u32 %r9, %r9, 1664525, 1013904223;
  xor.b32 %r9, %r9, %r11;
  shr.u32 %r19, %r9, 3;
  add.u32 %r9, %r9, %r19;
  st.shared.u32 [%r7], %r9;
  bar.sync 0;
  xor.b32 %r8, %r1, 3;
  shl.b32 %r8, %r8, 2;
  add.u32 %r8, %r5, %r8;
  ld.shared.u32 %r12, [%r8];
  add.u32 %r9, %r9, %r12;
  bar.sync 0;
  and.b32 %r13, %r11, 15;
  setp.ne.u32 %p2, %r13, %r18;
  @%p2 bra PLAIN;
  atom.global.add.u32 %r14, [%rd1], 1;
  ld.global.u32 %r15, [%rd1];
  add.u32 %r16, %r16, %r15;
  add.u32 %r16, %r16, %r14;
PLAIN:
  xor.b32 %r20, %r18, 8;
  setp.ne.u32 %p2, %r13, %r20;
  @%p2 bra SKIP;
  ld.global.u32 %r21, [%rd1];
  mad.lo.u32 %r16, %r16, 3, %r21;
SKIP:
  add.u32 %r11, %r11, 1;
  setp.lt.u32 %p1, %r11, %r10;
  @%p1 bra LOOP;
  shfl.sync.bfly.b32 %r17, %r9, 1, 31, -1;
  add.u32 %r17, %r17, %r16;
  mul.wide.u32 %rd4, %r4, 4;
  add.u64 %rd5, %rd2, %rd4;
  st.global.u32 [%rd5], %r17;
  ret;
}
)";

// A long ALU chain, then one CTA stores past its shared array (a fault in shared memory, in a
// stretch of the SM's own work).
const char *kFaultPtx = R"(
.visible .entry fault(.param .u64 out, .param .u32 iters) {
  .reg .b32 %r<16>; .reg .b64 %rd<4>; .reg .pred %p<3>;
  .shared .align 4 .b32 buf[32];
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r10, [iters];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r9, %r1;
  mov.u32 %r11, 0;
LOOP:
  mad.lo.u32 %r9, %r9, 1664525, 1013904223;
  add.u32 %r11, %r11, 1;
  setp.lt.u32 %p1, %r11, %r10;
  @%p1 bra LOOP;
  mov.u32 %r5, buf;
  setp.eq.u32 %p2, %r2, 3;
  selp.u32 %r6, 1048576, 0, %p2;
  add.u32 %r5, %r5, %r6;
  and.b32 %r7, %r1, 31;
  shl.b32 %r7, %r7, 2;
  add.u32 %r5, %r5, %r7;
  st.shared.u32 [%r5], %r9;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r9;
  ret;
}
)";

struct Result {
  ptx::exec::LaunchResult launch;
  timing::KernelTimingStats stats;
  std::vector<uint32_t> counter, out;
  std::vector<std::pair<uint64_t, std::vector<stats::Snapshot::Entry>>> samples;
  timing::TimingProfile profile;
};

/// Two launches of `interleave` in one simulator (the counter keeps counting), the window
/// `window` and `threads` host threads (the threads in every cycle), with a statistics sampler
/// every `sampleEvery` cycles (0: none). The profile is the two launches'.
Result runInterleave(uint32_t window, unsigned threads, uint64_t sampleEvery = 0,
                     uint32_t ctas = 40, uint32_t iters = 48) {
  ExecHarness h;
  EXPECT_TRUE(h.load(ptxHeader() + kInterleavePtx)) << h.errors;
  timing::TimingConfig cfg; // defaults: GTX480-like, 15 SMs
  sim::KernelSimulator sim(cfg, *h.engine);
  sim.gpu().setSmWindow(window);
  sim.gpu().setHostThreads(threads);
  if (threads > 1)
    sim.gpu().setParallelMinBusySms(0);
  Result res;
  if (sampleEvery)
    sim.gpu().setSampler(sampleEvery, [&res](const timing::KernelTimingStats &s) {
      res.samples.push_back({s.cycles, s.values()});
    });
  const uint32_t block = 256, n = ctas * block;
  uint64_t counter = h.alloc(4), out = h.alloc(n * 4);
  const ptx::exec::Kernel *k = h.engine->findKernel("interleave", h.module);
  std::vector<uint8_t> buf(k->paramBytes + 8);
  uint64_t args[3] = {counter, out, iters};
  for (size_t i = 0; i < 3; ++i)
    std::memcpy(buf.data() + k->paramOffsets[i], &args[i], k->paramSizes[i]);
  ptx::exec::LaunchParams p;
  p.kernel = k;
  p.grid = {ctas};
  p.block = {block};
  p.params = buf.data();
  timing::TimingProfile::reset();
  timing::TimingProfile::setEnabled(true);
  for (int l = 0; l < 2; ++l) {
    sim::KernelRun run = sim.run(p);
    EXPECT_TRUE(run.launch.ok()) << run.launch.message;
    res.launch = run.launch;
    res.stats = run.stats;
  }
  res.profile = timing::TimingProfile::total();
  timing::TimingProfile::setEnabled(false);
  timing::TimingProfile::reset(); // (nothing printed at exit)
  res.counter = h.read<uint32_t>(counter, 1);
  res.out = h.read<uint32_t>(out, n);
  return res;
}

void expectSame(const Result &r, const Result &base, const std::string &what) {
  expectSameStats(r.stats, base.stats, what);
  EXPECT_EQ(r.counter, base.counter) << what;
  EXPECT_EQ(r.out, base.out) << what;
  ASSERT_EQ(r.samples.size(), base.samples.size()) << what;
  for (size_t s = 0; s < base.samples.size(); ++s) {
    EXPECT_EQ(r.samples[s].first, base.samples[s].first) << "sample " << s << ", " << what;
    EXPECT_EQ(r.samples[s].second, base.samples[s].second) << "sample " << s << ", " << what;
  }
}

} // namespace

TEST(SmWindow, StatisticsAndResultsIdenticalToTheCycleByCycleLoop) {
  const Result base = runInterleave(0, 1);
  EXPECT_EQ(base.profile.aheadTicks, 0u);
  EXPECT_GT(base.profile.smTicks, 0u);
  auto onClock = [](const timing::TimingProfile &p) {
    uint64_t n = 0;
    for (uint64_t t : p.clockTicksBy)
      n += t;
    return n;
  };
  EXPECT_EQ(onClock(base.profile), 0u); // (no windows: no window ended)
  // the kernel is what the test needs: each warp's loads saw other SMs' atomics
  EXPECT_EQ(base.counter[0], 2u * 40 * 256 * 3);
  for (uint32_t window : {1u, 2u, 5u, 64u, 1024u}) {
    for (unsigned threads : {1u, 2u}) {
      const Result r = runInterleave(window, threads);
      const std::string what = "window " + std::to_string(window) + ", " +
                               std::to_string(threads) + " thread(s)";
      expectSame(r, base, what);
      // the windows ran: most SM ticks of the ALU and shared-memory stretches ran ahead
      EXPECT_GT(r.profile.aheadTicks, 0u) << what;
      if (window >= 64) {
        EXPECT_GT(r.profile.aheadTicks * 4, r.profile.smTicks) << what;
      }
      // every tick on the GPU's clock has what ended the window before it: the global loads and
      // atomics (an instruction beyond the SM), and responses on their way, among them
      EXPECT_EQ(onClock(r.profile), r.profile.smTicks - r.profile.aheadTicks) << what;
      EXPECT_GT(r.profile.clockTicksBy[timing::TimingProfile::EndBeyond], 0u) << what;
      EXPECT_GT(r.profile.clockTicksBy[timing::TimingProfile::EndResponse], 0u) << what;
      // the profile's balance: on two threads (in every cycle here) every SM tick was in a
      // cycle on the threads, and the critical path lies between an even share and all of it
      if (threads == 1) {
        EXPECT_EQ(r.profile.threadTicks, 0u) << what;
      } else {
        EXPECT_EQ(r.profile.threadTicks, r.profile.smTicks) << what;
        EXPECT_GE(r.profile.criticalTicks, (r.profile.threadTicks + 1) / 2) << what;
        EXPECT_LT(r.profile.criticalTicks, r.profile.threadTicks) << what;
      }
    }
  }
}

TEST(SmWindow, TheSamplerSeesTheSameStatisticsEveryTime) {
  // (a window ends by the sampler's next cycle: each sample reads every SM at that cycle)
  const Result base = runInterleave(0, 1, 97);
  ASSERT_GT(base.samples.size(), 10u);
  for (unsigned threads : {1u, 2u}) {
    const Result r = runInterleave(1024, threads, 97);
    expectSame(r, base, "sampled, " + std::to_string(threads) + " thread(s)");
    EXPECT_GT(r.profile.aheadTicks, 0u);
  }
}

TEST(SmWindow, AFaultInSharedMemoryReportsTheSameError) {
  auto run = [](uint32_t window) {
    ExecHarness h;
    EXPECT_TRUE(h.load(ptxHeader() + kFaultPtx)) << h.errors;
    timing::TimingConfig cfg;
    sim::KernelSimulator sim(cfg, *h.engine);
    sim.gpu().setSmWindow(window);
    uint64_t out = h.alloc(128 * 4);
    const ptx::exec::Kernel *k = h.engine->findKernel("fault", h.module);
    std::vector<uint8_t> buf(k->paramBytes + 8);
    uint64_t args[2] = {out, 300};
    for (size_t i = 0; i < 2; ++i)
      std::memcpy(buf.data() + k->paramOffsets[i], &args[i], k->paramSizes[i]);
    ptx::exec::LaunchParams p;
    p.kernel = k;
    p.grid = {8};
    p.block = {128};
    p.params = buf.data();
    return sim.run(p);
  };
  const sim::KernelRun base = run(0), windowed = run(1024);
  ASSERT_FALSE(base.launch.ok());
  EXPECT_EQ(windowed.launch.status, base.launch.status);
  EXPECT_EQ(windowed.launch.message, base.launch.message);
  // the faulting CTA's SM was running ahead when it faulted: the launch ends at that cycle
  EXPECT_EQ(windowed.stats.cycles, base.stats.cycles);
}

TEST(SmWindow, TheDefaultLengthShrinksWithTheThreadsButASetOneStays) {
  // an SM's window is one item of the threads' job: 1,024 cycles on one thread, 1,024 / T on
  // T threads, never below 64; a length set (PTXSIM_SM_WINDOW) holds for any count
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + kInterleavePtx)) << h.errors;
  timing::TimingConfig cfg;
  sim::KernelSimulator sim(cfg, *h.engine);
  timing::Gpu &gpu = sim.gpu();
  const std::pair<unsigned, uint32_t> expect[] = {{1, 1024}, {2, 512}, {3, 341}, {4, 256},
                                                  {16, 64},  {32, 64}, {0, 1024}};
  for (auto [threads, len] : expect)
    EXPECT_EQ(gpu.smWindowFor(threads), len) << threads << " thread(s)";
  gpu.setSmWindow(300);
  EXPECT_EQ(gpu.smWindowFor(1), 300u);
  EXPECT_EQ(gpu.smWindowFor(16), 300u);
  gpu.setSmWindow(0);
  EXPECT_EQ(gpu.smWindowFor(8), 0u);
}

TEST(SmWindow, WhatAnSmMayIssueAhead) {
  // Only what acts on the SM's own state, whatever the cycle: never memory other than the
  // CTA's shared memory, atomics (their order across SMs), fences, calls or traps.
  const char *ptx = R"(
.visible .func (.reg .b32 r) f(.reg .b32 a) { add.u32 r, a, 1; ret; }
.visible .entry k(.param .u64 p, .param .u32 n) {
  .reg .b32 %r<12>; .reg .b64 %rd<4>; .reg .f32 %f<4>; .reg .pred %p<2>;
  .shared .align 4 .b32 sh[32];
  .local .align 4 .b32 loc[4];
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  add.u32 %r2, %r1, 1;
  mad.lo.u32 %r3, %r2, %r1, 7;
  cvt.rn.f32.u32 %f1, %r3;
  sqrt.approx.f32 %f2, %f1;
  shfl.sync.bfly.b32 %r4, %r3, 1, 31, -1;
  mov.u32 %r5, sh;
  ld.shared.u32 %r6, [%r5];
  st.shared.u32 [%r5], %r6;
  atom.shared.add.u32 %r7, [%r5], 1;
  bar.sync 0;
  ld.global.u32 %r8, [%rd1];
  st.global.u32 [%rd1], %r8;
  atom.global.add.u32 %r9, [%rd1], 1;
  ld.u32 %r10, [%rd1];
  st.local.u32 [loc], %r10;
  membar.gl;
  call (%r11), f, (%r10);
  setp.lt.u32 %p1, %r11, 3;
  @%p1 bra DONE;
  trap;
DONE:
  ret;
}
)";
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + ptx)) << h.errors;
  const ptx::exec::Kernel *k = h.engine->findKernel("k", h.module);
  ASSERT_TRUE(k && k->fn);
  // by opcode and space as written: ahead or not
  std::map<std::string, bool> seen;
  for (const ptx::ir::Inst &in : k->fn->code) {
    std::string name = ptx::opcodeInfo(in.opcode).name;
    if (name == "ret") // (the kernel's own: an exit, or the lowering's return path)
      continue;
    if (in.cls == ptx::ir::OpClass::Mem || in.cls == ptx::ir::OpClass::Atomic)
      name += in.space == ptx::ir::MemSpace::Shared   ? ".shared"
              : in.space == ptx::ir::MemSpace::Global ? ".global"
              : in.space == ptx::ir::MemSpace::Local  ? ".local"
              : in.space == ptx::ir::MemSpace::Param  ? ".param"
                                                      : ".other";
    const bool safe = timing::Sm::windowSafe(in);
    auto [it, fresh] = seen.emplace(name, safe);
    EXPECT_TRUE(fresh || it->second == safe) << name;
  }
  const std::map<std::string, bool> want = {
      {"add", true},         {"mad", true},          {"cvt", true},
      {"sqrt", true},        {"shfl", true},         {"mov", true},
      {"ld.shared", true},   {"st.shared", true},    {"atom.shared", false},
      {"bar", true},         {"ld.global", false},   {"st.global", false},
      {"atom.global", false}, {"ld.other", false},   {"st.local", false},
      {"ld.param", false},   {"membar", false},      {"call", false},
      {"setp", true},        {"bra", true},          {"trap", false}};
  for (const auto &[name, safe] : want) {
    auto it = seen.find(name);
    if (it == seen.end()) {
      ADD_FAILURE() << "no instruction " << name << " in the lowered kernel";
      continue;
    }
    EXPECT_EQ(it->second, safe) << name;
  }
}

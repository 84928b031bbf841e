// The parallel timing engine (timing/gpu/Gpu.h) and sampling (sim/KernelSimulator.h): every
// statistic and every result identical for 1, 2, 4 and 8 host threads on kernels whose
// instructions reach beyond the SM (global atomics that return old values, loads of other CTAs'
// stores) as well as SM-private work (shared memory, barriers); the worker pool runs each index
// once; CTA sampling extrapolates a many-wave kernel close to its full simulation.

#include "ExecHarness.h"
#include "TimingCompare.h"
#include "sim/KernelSimulator.h"
#include "timing/gpu/Gpu.h"
#include "timing/gpu/TimingProfile.h"
#include "timing/gpu/WorkerPool.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

using namespace ptxsim;
using namespace ptxsim::test;

namespace {

// Each thread: a shared-memory exchange across a barrier, a loop of ALU work, a warp shuffle
// (warp-synchronous: it runs in the SMs' parallel phase), then a global atomic ticket (the order
// in which warps of different SMs reach it decides the values) and a load of the counter other
// CTAs keep incrementing.
const char *kMixedPtx = R"(
.visible .entry mixed(.param .u64 tickets, .param .u64 counter, .param .u64 seen, .param .u32 iters) {
  .reg .b32 %r<16>; .reg .b64 %rd<12>; .reg .pred %p<2>;
  .shared .align 4 .b32 buf[128];
  ld.param.u64 %rd1, [tickets];
  ld.param.u64 %rd2, [counter];
  ld.param.u64 %rd3, [seen];
  ld.param.u32 %r10, [iters];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  mov.u32 %r5, buf;
  shl.b32 %r6, %r1, 2;
  add.u32 %r7, %r5, %r6;
  st.shared.u32 [%r7], %r4;
  bar.sync 0;
  xor.b32 %r8, %r1, 1;
  shl.b32 %r8, %r8, 2;
  add.u32 %r8, %r5, %r8;
  ld.shared.u32 %r9, [%r8];
  mov.u32 %r11, 0;
LOOP:
  mad.lo.u32 %r9, %r9, 1664525, 1013904223;
  add.u32 %r11, %r11, 1;
  setp.lt.u32 %p1, %r11, %r10;
  @%p1 bra LOOP;
  shfl.sync.bfly.b32 %r15, %r9, 1, 31, -1;
  atom.global.add.u32 %r12, [%rd2], 1;
  mul.wide.u32 %rd4, %r4, 4;
  add.u64 %rd5, %rd1, %rd4;
  add.u32 %r13, %r12, %r15;
  st.global.u32 [%rd5], %r13;
  ld.global.u32 %r14, [%rd2];
  add.u64 %rd6, %rd3, %rd4;
  st.global.u32 [%rd6], %r14;
  ret;
}
)";

struct Result {
  timing::KernelTimingStats stats;
  std::vector<uint32_t> tickets, seen;
};

/// `launches` launches of the kernel in one simulator (the counter keeps counting); with
/// `tuner`, the engine's tuner decides cycle by cycle whether the threads run (it switches
/// between the threads and one thread within and across launches), else the threads run in
/// every cycle.
std::vector<Result> runMixedLaunches(unsigned threads, bool tuner, int launches,
                                     sim::SampleMode sample = sim::SampleMode::Off,
                                     uint32_t ctas = 96, uint32_t iters = 20,
                                     uint32_t smWindow = timing::Gpu::kDefaultSmWindow) {
  ExecHarness h;
  EXPECT_TRUE(h.load(ptxHeader() + kMixedPtx)) << h.errors;
  timing::TimingConfig cfg; // defaults: GTX480-like, 15 SMs
  sim::KernelSimulator sim(cfg, *h.engine);
  sim.gpu().setHostThreads(threads);
  sim.gpu().setSmWindow(smWindow);
  if (!tuner)
    sim.gpu().setParallelMinBusySms(0); // use the threads in every cycle
  sim.setSampling(sample);
  const uint32_t block = 128, n = ctas * block;
  uint64_t tickets = h.alloc(n * 4), counter = h.alloc(4), seen = h.alloc(n * 4);
  const ptx::exec::Kernel *k = h.engine->findKernel("mixed", h.module);
  std::vector<uint8_t> buf(k->paramBytes + 8);
  uint64_t args[4] = {tickets, counter, seen, iters};
  for (size_t i = 0; i < 4; ++i)
    std::memcpy(buf.data() + k->paramOffsets[i], &args[i], k->paramSizes[i]);
  ptx::exec::LaunchParams p;
  p.kernel = k;
  p.grid = {ctas};
  p.block = {block};
  p.params = buf.data();
  std::vector<Result> out;
  for (int l = 0; l < launches; ++l) {
    sim::KernelRun run = sim.run(p);
    EXPECT_TRUE(run.launch.ok()) << run.launch.message;
    out.push_back({run.stats, h.read<uint32_t>(tickets, n), h.read<uint32_t>(seen, n)});
  }
  return out;
}

Result runMixed(unsigned threads, sim::SampleMode sample = sim::SampleMode::Off, uint32_t ctas = 96,
                uint32_t iters = 20) {
  return runMixedLaunches(threads, false, 1, sample, ctas, iters)[0];
}

/// Launches of the kernel in one simulator, one per (ctas, iters) of `launches` (the grid and
/// the parameter value change the signature; see runMixedLaunches).
std::vector<Result> runSequence(sim::SampleMode sample,
                                const std::vector<std::pair<uint32_t, uint32_t>> &launches) {
  ExecHarness h;
  EXPECT_TRUE(h.load(ptxHeader() + kMixedPtx)) << h.errors;
  timing::TimingConfig cfg;
  sim::KernelSimulator sim(cfg, *h.engine);
  sim.setSampling(sample);
  const uint32_t block = 128, maxCtas = 64, n = maxCtas * block;
  uint64_t tickets = h.alloc(n * 4), counter = h.alloc(4), seen = h.alloc(n * 4);
  const ptx::exec::Kernel *k = h.engine->findKernel("mixed", h.module);
  std::vector<uint8_t> buf(k->paramBytes + 8);
  std::vector<Result> out;
  for (auto [ctas, iters] : launches) {
    EXPECT_LE(ctas, maxCtas);
    uint64_t args[4] = {tickets, counter, seen, iters};
    for (size_t i = 0; i < 4; ++i)
      std::memcpy(buf.data() + k->paramOffsets[i], &args[i], k->paramSizes[i]);
    ptx::exec::LaunchParams p;
    p.kernel = k;
    p.grid = {ctas};
    p.block = {block};
    p.params = buf.data();
    sim::KernelRun run = sim.run(p);
    EXPECT_TRUE(run.launch.ok()) << run.launch.message;
    out.push_back({run.stats, {}, {}});
  }
  return out;
}

void expectSame(const Result &r, const Result &base, const std::string &what) {
  expectSameStats(r.stats, base.stats, what);
  EXPECT_EQ(r.tickets, base.tickets) << what;
  EXPECT_EQ(r.seen, base.seen) << what;
}

} // namespace

TEST(TimingParallel, WorkerPoolRunsEachIndexOnce) {
  timing::WorkerPool pool(4);
  std::vector<std::atomic<int>> hits(1000);
  for (int rep = 0; rep < 200; ++rep) {
    size_t count = 1 + size_t(rep) * 5 % 1000;
    for (auto &h : hits)
      h.store(0);
    pool.run(count, [](void *c, size_t i) { (*static_cast<std::vector<std::atomic<int>> *>(c))[i]++; }, &hits);
    for (size_t i = 0; i < hits.size(); ++i)
      ASSERT_EQ(hits[i].load(), i < count ? 1 : 0) << "run " << rep << " index " << i;
  }
}

// Jobs back to back, most with fewer indices than threads (empty shares) and calls of uneven
// length (stealing): threads that wake up late for a finished job must claim nothing from the
// next one, and every index must run exactly once. The summed call time (profiling) is a time.
TEST(TimingParallel, WorkerPoolBackToBackSmallJobs) {
  timing::WorkerPool pool(5);
  pool.setProfiling(true); // (the calls are timed too)
  struct Ctx {
    std::atomic<int> hits[16];
    int rep = 0;
  } ctx;
  for (int rep = 0; rep < 20000; ++rep) {
    size_t count = 2 + size_t(rep) % 15;
    for (auto &h : ctx.hits)
      h.store(0, std::memory_order_relaxed);
    ctx.rep = rep;
    double secs = pool.run(count, [](void *c, size_t i) {
      Ctx &x = *static_cast<Ctx *>(c);
      if ((size_t(x.rep) + i) % 7 == 0) // an uneven call
        for (volatile int k = 0; k < 2000; ++k) {
        }
      x.hits[i].fetch_add(1, std::memory_order_relaxed);
    }, &ctx);
    ASSERT_GE(secs, 0.0);
    for (size_t i = 0; i < 16; ++i)
      ASSERT_EQ(ctx.hits[i].load(), i < count ? 1 : 0) << "run " << rep << " index " << i;
  }
}

namespace {
// Waits up to 20 s for `cond` (which holds within microseconds to milliseconds when the pool
// works: the bound only turns a hang into a failure).
template <class F> bool eventually(F cond) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!cond()) {
    if (std::chrono::steady_clock::now() > end)
      return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}
} // namespace

// rest(): the threads go to sleep at once (each begins one sleep after the job; sleeps()
// counts them, sleepingThreads() alone could still show the sleepers from before the job) and
// the next run() still runs every index once; wake(): the sleepers get up without a job.
TEST(TimingParallel, WorkerPoolRestSleepsAndWakeWakes) {
  timing::WorkerPool pool(3);
  std::atomic<int> hits[8];
  auto job = [&](size_t count) {
    for (auto &h : hits)
      h.store(0);
    pool.run(count, [](void *c, size_t i) { static_cast<std::atomic<int> *>(c)[i]++; }, hits);
    for (size_t i = 0; i < 8; ++i)
      ASSERT_EQ(hits[i].load(), i < count ? 1 : 0) << "index " << i;
  };
  uint64_t s = pool.sleeps(); // (before the job: a thread may fall asleep on its own after it)
  job(8);
  pool.rest();
  ASSERT_TRUE(eventually([&] { return pool.sleeps() >= s + 2 && pool.sleepingThreads() == 2; }));
  s = pool.sleeps();
  const uint64_t early = pool.earlyWakeups();
  job(5); // (it wakes the sleepers; after rest() each sleeps once more)
  pool.rest();
  ASSERT_TRUE(eventually([&] { return pool.sleeps() >= s + 2 && pool.sleepingThreads() == 2; }));
  EXPECT_EQ(pool.earlyWakeups(), early); // (a job is no early wake-up)
  pool.wake();
  ASSERT_TRUE(eventually([&] { return pool.earlyWakeups() == early + 2; }));
  pool.rest();
  ASSERT_TRUE(eventually([&] { return pool.sleepingThreads() == 2; }));
  job(7);
  pool.wake(); // (not resting: nothing to do)
  job(3);
}

// rest() and wake() between and around jobs in every order, with jobs of uneven calls: no job
// is lost or run twice, and none waits for a sleeping thread (the test would hang).
TEST(TimingParallel, WorkerPoolRestAndWakeKeepJobsExact) {
  timing::WorkerPool pool(4);
  std::atomic<int> hits[16];
  uint32_t x = 12345;
  for (int rep = 0; rep < 4000; ++rep) {
    x = x * 1103515245u + 12345u;
    const unsigned what = x >> 28;
    if (what & 1)
      pool.rest();
    if (what & 2)
      pool.wake();
    if (what == 15) // (long enough for the threads to fall asleep now and then)
      std::this_thread::sleep_for(std::chrono::microseconds(300));
    const size_t count = 2 + (x >> 8) % 15;
    for (auto &h : hits)
      h.store(0, std::memory_order_relaxed);
    pool.run(count, [](void *c, size_t i) {
      if (i % 5 == 0)
        for (volatile int k = 0; k < 1000; ++k) {
        }
      static_cast<std::atomic<int> *>(c)[i].fetch_add(1, std::memory_order_relaxed);
    }, hits);
    for (size_t i = 0; i < 16; ++i)
      ASSERT_EQ(hits[i].load(), i < count ? 1 : 0) << "run " << rep << " index " << i;
    if (what & 4)
      pool.rest();
  }
}

TEST(TimingParallel, StatisticsAndResultsIdenticalForAnyThreadCount) {
  Result base = runMixed(1);
  ASSERT_GT(base.stats.cycles, 0u);
  // the atomics really raced across SMs: tickets are a permutation, not all equal
  uint32_t last = base.seen[0];
  bool differs = false;
  for (uint32_t v : base.seen)
    differs |= v != last;
  EXPECT_TRUE(differs);
  for (unsigned t : {2u, 4u, 8u})
    expectSame(runMixed(t), base, std::to_string(t) + " threads");
}

// The tuner's choice (threads or one thread, probed in sub-windows of a few cycles and kept
// across launches of the same kernel) switches the engine between both ways within a launch:
// every launch must still match one thread exactly. Launches after the first continue the
// first's tuner state and see the counter the earlier launches left.
TEST(TimingParallel, TunerSwitchingKeepsResultsIdentical) {
  // (without SM windows, then with them: there the tuner decides the cycles whose SMs are not
  // expected to tick many times ahead, ThreadTuner::clearGain the others)
  std::vector<Result> base = runMixedLaunches(1, true, 3, sim::SampleMode::Off, 96, 20, 0);
  for (unsigned t : {2u, 3u}) {
    std::vector<Result> r = runMixedLaunches(t, true, 3, sim::SampleMode::Off, 96, 20, 0);
    ASSERT_EQ(r.size(), base.size());
    for (size_t l = 0; l < r.size(); ++l)
      expectSame(r[l], base[l], std::to_string(t) + " threads, launch " + std::to_string(l));
  }
  for (unsigned t : {2u, 3u}) {
    std::vector<Result> r = runMixedLaunches(t, true, 3);
    ASSERT_EQ(r.size(), base.size());
    for (size_t l = 0; l < r.size(); ++l)
      expectSame(r[l], base[l], std::to_string(t) + " threads, SM windows, launch " + std::to_string(l));
  }
}

// With SM windows (the default) the tuner still decides the cycles that the SMs' windows do not
// fill: it probes, so some eligible cycles run on one thread by its choice whatever the host's
// times (a probe's sub-windows alternate), and it is kept across launches of the kernel. (It once
// took part only without windows: a program of many small launches then ran every cycle with
// two SMs due on the threads, three times slower on 2 threads than on one.)
TEST(TimingParallel, TheTunerProbesWithSmWindows) {
  timing::TimingProfile::reset();
  timing::TimingProfile::setEnabled(true);
  std::vector<Result> r = runMixedLaunches(2, true, 3);
  timing::TimingProfile p = timing::TimingProfile::total();
  timing::TimingProfile::setEnabled(false);
  timing::TimingProfile::reset(); // (nothing printed at exit)
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(p.launches, 3u);
  EXPECT_GT(p.aheadTicks, 0u); // (SM windows were on)
  EXPECT_GE(p.probes, 1u);
  EXPECT_GT(p.tunerSerialCycles, 0u);
  EXPECT_EQ(p.ticked, p.threadCycles + p.tunerSerialCycles + p.fewSmsCycles);
}

// PTXSIM_TIMING_PROFILE: the profile accounts for every ticked cycle once (on the threads, on
// one thread by choice, on one thread for too few busy SMs), counts a fork-join per cycle on
// the threads, and changes no result.
TEST(TimingParallel, ProfileAccountsEveryCycleAndChangesNothing) {
  Result plain = runMixed(2);
  timing::TimingProfile::reset();
  timing::TimingProfile::setEnabled(true);
  Result profiled = runMixed(2);
  timing::TimingProfile p = timing::TimingProfile::total();
  timing::TimingProfile::setEnabled(false);
  timing::TimingProfile::reset(); // (nothing printed at exit)
  expectSame(profiled, plain, "profiled");
  EXPECT_EQ(p.launches, 1u);
  EXPECT_EQ(p.threads, 2u);
  EXPECT_GT(p.ticked, 0u);
  EXPECT_GE(p.cycles, p.ticked);
  EXPECT_EQ(p.ticked, p.threadCycles + p.tunerSerialCycles + p.fewSmsCycles);
  EXPECT_GT(p.threadCycles, 0u); // forced threads: every cycle with a busy SM
  EXPECT_GE(p.jobs, p.threadCycles);
  double total = 0;
  for (double s : p.seconds)
    total += s;
  EXPECT_GT(total, 0);
  EXPECT_GT(p.seconds[timing::TimingProfile::PhaseThreads], 0);
  EXPECT_GT(p.threadWork, 0);
  char buf[8192] = {};
  std::FILE *f = fmemopen(buf, sizeof buf - 1, "w");
  ASSERT_NE(f, nullptr);
  p.print(f);
  std::fclose(f);
  std::string text(buf);
  EXPECT_NE(text.find("ptxsim timing profile: 1 launch(es), 2 host thread(s)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("Amdahl speed-up over one thread"), std::string::npos) << text;
  EXPECT_NE(text.find("fork-joins:"), std::string::npos) << text;
}

// The split tick holds a plain global store back only in the SMs' parallel phase (Sm::tickLocal
// leaves the lane's buffering on from one such tick to the next; tickShared and the launch's end
// switch it off; tickShared commits what was held): the stores of every launch in one simulator
// and those of the CTAs that CTA sampling leaves to run functionally after the last cycle (on
// the first SM's lane) reach memory, and each thread's load after its own store reads it while
// other warps' atomics stop their SMs for the ordered phase. The CTA's even warps add to a
// counter; the odd ones store, load back and count the loads that missed.
const char *kStoresPtx = R"(
.visible .entry stores(.param .u64 out, .param .u64 counter) {
  .reg .b32 %r<16>; .reg .b64 %rd<6>; .reg .pred %p<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [counter];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  mul.wide.u32 %rd3, %r4, 8;
  add.u64 %rd4, %rd1, %rd3;
  mov.u32 %r10, 0;
  mov.u32 %r11, 0;
  and.b32 %r5, %r1, 32;
  setp.ne.u32 %p1, %r5, 0;
LOOP:
  @%p1 bra STORE;
  atom.global.add.u32 %r6, [%rd2], 1;
  bra.uni NEXT;
STORE:
  mad.lo.u32 %r7, %r10, 7, %r4;
  st.global.u32 [%rd4+4], %r7;
  ld.global.u32 %r8, [%rd4+4];
  setp.ne.u32 %p2, %r8, %r7;
  selp.u32 %r9, 1, 0, %p2;
  add.u32 %r11, %r11, %r9;
NEXT:
  add.u32 %r10, %r10, 1;
  setp.lt.u32 %p3, %r10, 16;
  @%p3 bra LOOP;
  st.global.u32 [%rd4], %r11;
  ret;
}
)";

TEST(TimingParallel, HeldGlobalStoresReachMemoryInEveryPhaseAndLaunch) {
  for (sim::SampleMode sample : {sim::SampleMode::Off, sim::SampleMode::Ctas}) {
    ExecHarness h;
    ASSERT_TRUE(h.load(ptxHeader() + kStoresPtx)) << h.errors;
    timing::TimingConfig cfg; // defaults: 15 SMs, one instruction per warp and cycle (split tick)
    sim::KernelSimulator sim(cfg, *h.engine);
    sim.setSampling(sample);
    // (sampled: 10 waves of 8 CTAs per SM, most of them run functionally)
    const uint32_t ctas = sample == sim::SampleMode::Off ? 96 : 1200, block = 128, n = ctas * block;
    const uint64_t out = h.alloc(uint64_t(n) * 8), counter = h.alloc(4);
    const ptx::exec::Kernel *k = h.engine->findKernel("stores", h.module);
    std::vector<uint8_t> buf(k->paramBytes + 8);
    const uint64_t args[2] = {out, counter};
    for (size_t i = 0; i < 2; ++i)
      std::memcpy(buf.data() + k->paramOffsets[i], &args[i], k->paramSizes[i]);
    ptx::exec::LaunchParams p;
    p.kernel = k;
    p.grid = {ctas};
    p.block = {block};
    p.params = buf.data();
    for (uint32_t launch = 0; launch < 3; ++launch) {
      std::memset(reinterpret_cast<void *>(out), 0, size_t(n) * 8);
      sim::KernelRun run = sim.run(p);
      ASSERT_TRUE(run.launch.ok()) << run.launch.message;
      const std::vector<uint32_t> v = h.read<uint32_t>(out, size_t(n) * 2);
      uint32_t wrong = 0;
      for (uint32_t t = 0; t < n; ++t)
        wrong += v[2 * t] != 0 || v[2 * t + 1] != ((t & 32) ? 15 * 7 + t : 0);
      EXPECT_EQ(wrong, 0u) << "launch " << launch << (sample == sim::SampleMode::Off ? "" : ", sampled");
      EXPECT_EQ(h.read<uint32_t>(counter, 1)[0], n / 2 * 16 * (launch + 1));
      EXPECT_EQ(run.stats.get("sample.estimated"), sample == sim::SampleMode::Off ? 0 : 1);
    }
  }
}

TEST(TimingSampling, CtaSamplingExtrapolatesAManyWaveKernel) {
  // 15 SMs x 8 CTAs per SM (1024 threads / 128) = 120 resident: 1200 CTAs are 10 waves
  Result full = runMixed(1, sim::SampleMode::Off, 1200, 200);
  Result sampled = runMixed(1, sim::SampleMode::Ctas, 1200, 200);
  EXPECT_EQ(sampled.stats.get("sample.estimated"), 1);
  EXPECT_LT(sampled.stats.get("sample.detailed_ctas"), 1200 * 0.6);
  EXPECT_EQ(sampled.stats.warpInsts, full.stats.warpInsts); // instructions are counted exactly
  double err = std::fabs(double(sampled.stats.cycles) - double(full.stats.cycles)) / double(full.stats.cycles);
  EXPECT_LT(err, 0.05) << sampled.stats.cycles << " vs " << full.stats.cycles;
  EXPECT_EQ(full.stats.get("sample.estimated"), 0);
}

TEST(TimingSampling, KernelSamplingIsTheSameOnAnyNumberOfHostThreads) {
  // 40 launches of one kernel and shape: after the first launches, most are estimated (run
  // functionally on the host threads); the cycles and the decisions do not depend on the threads
  std::vector<Result> one = runMixedLaunches(1, false, 40, sim::SampleMode::Kernels, 30, 5);
  std::vector<Result> three = runMixedLaunches(3, false, 40, sim::SampleMode::Kernels, 30, 5);
  ASSERT_EQ(one.size(), three.size());
  int estimated = 0;
  for (size_t i = 0; i < one.size(); ++i) {
    estimated += one[i].stats.get("sample.estimated") > 0;
    EXPECT_EQ(one[i].stats.cycles, three[i].stats.cycles) << "launch " << i;
    EXPECT_EQ(one[i].stats.warpInsts, three[i].stats.warpInsts) << "launch " << i;
    EXPECT_EQ(one[i].stats.get("sample.estimated"), three[i].stats.get("sample.estimated"));
    EXPECT_EQ(one[i].stats.get("sample.error_pct"), three[i].stats.get("sample.error_pct"));
  }
  EXPECT_GT(estimated, 20);
  // without sampling every launch is simulated: same instructions, and the estimated launches'
  // cycles are within their stated bound of the simulated ones or the run's total is
  std::vector<Result> full = runMixedLaunches(1, false, 40, sim::SampleMode::Off, 30, 5);
  double cf = 0, cs = 0, bound = 0;
  for (size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(full[i].stats.warpInsts, one[i].stats.warpInsts) << "launch " << i;
    EXPECT_EQ(full[i].stats.get("sample.estimated"), 0);
    cf += double(full[i].stats.cycles);
    cs += double(one[i].stats.cycles);
    bound += double(one[i].stats.cycles) * one[i].stats.get("sample.error_pct") / 100.0;
  }
  EXPECT_LE(std::fabs(cs - cf), std::max(bound, 0.02 * cf)) << cs << " vs " << cf;
}

TEST(TimingSampling, KernelSamplingSimulatesTheFirstLaunchesOfASignature) {
  // the first launch and kMinSamples more are simulated before anything is estimated: a pattern
  // over several launches (a converging iteration's) shows in the samples
  std::vector<std::pair<uint32_t, uint32_t>> seq(20, {30, 5});
  std::vector<Result> r = runSequence(sim::SampleMode::Kernels, seq);
  for (uint32_t i = 0; i <= sim::KernelSimulator::kMinSamples; ++i)
    EXPECT_EQ(r[i].stats.get("sample.estimated"), 0) << "launch " << i;
  int estimated = 0;
  for (const Result &x : r)
    estimated += x.stats.get("sample.estimated") > 0;
  EXPECT_GT(estimated, 5);
}

TEST(TimingSampling, ALaunchAfterAnotherKernelIsSimulated) {
  // 24 launches of one signature (estimated after the first ones), one of another shape, then
  // the first again: the caches hold what the other launch left, a state none of the samples
  // saw, so that launch is simulated, and so is the other shape's (its first)
  std::vector<std::pair<uint32_t, uint32_t>> seq(24, {30, 5});
  seq.push_back({60, 5});
  seq.push_back({30, 5});
  std::vector<Result> r = runSequence(sim::SampleMode::Kernels, seq);
  EXPECT_EQ(r[23].stats.get("sample.estimated"), 1);
  EXPECT_EQ(r[24].stats.get("sample.estimated"), 0);
  EXPECT_EQ(r[25].stats.get("sample.estimated"), 0);
}

TEST(TimingSampling, ParameterValuesThatChangeTheWorkAreSignaturesOfTheirOwn) {
  // one kernel and shape, alternating between two loop counts: each value is its own
  // signature, both get estimated, and the sampled total is within its stated bound of the
  // full simulation
  std::vector<std::pair<uint32_t, uint32_t>> seq;
  for (int i = 0; i < 60; ++i)
    seq.push_back({30, i % 2 ? 40u : 5u});
  std::vector<Result> sampled = runSequence(sim::SampleMode::Kernels, seq);
  std::vector<Result> full = runSequence(sim::SampleMode::Off, seq);
  double cf = 0, cs = 0, bound = 0;
  int estimated[2] = {0, 0};
  for (size_t i = 0; i < seq.size(); ++i) {
    EXPECT_EQ(full[i].stats.warpInsts, sampled[i].stats.warpInsts) << "launch " << i;
    estimated[i % 2] += sampled[i].stats.get("sample.estimated") > 0;
    cf += double(full[i].stats.cycles);
    cs += double(sampled[i].stats.cycles);
    bound += double(sampled[i].stats.cycles) * sampled[i].stats.get("sample.error_pct") / 100.0;
  }
  EXPECT_GT(estimated[0], 5);
  EXPECT_GT(estimated[1], 5);
  EXPECT_LE(std::fabs(cs - cf), std::max(bound, 0.005 * cf)) << cs << " vs " << cf;
}

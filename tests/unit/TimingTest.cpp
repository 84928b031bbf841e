// The timing model on microbenchmarks with known answers: dependent ALU chains cost the
// configured latency, pointer chases the L1/L2/DRAM latencies, streaming approaches the DRAM
// bandwidth, shared-memory bank conflicts cost their degree; runs are deterministic.

#include "ExecHarness.h"
#include "sim/KernelSimulator.h"
#include "timing/gpu/Gpu.h"

#include <optional>

#include <sstream>

using namespace ptxsim;
using namespace ptxsim::test;
using ptxsim::timing::Cycle;

namespace {

struct TimedRun {
  timing::KernelTimingStats stats;
  ptx::exec::LaunchResult result;
  std::optional<power::KernelPower> power;
};

/// The defaults without instruction-fetch modelling, so latency microbenchmarks measure only
/// the unit under test (straight-line test kernels would otherwise miss in the I-cache).
timing::TimingConfig noFetch() {
  timing::TimingConfig c;
  c.mem.l1i.enabled = false;
  return c;
}

class TimingHarness {
public:
  explicit TimingHarness(timing::TimingConfig cfg = noFetch()) : cfg(cfg) {}
  bool load(const std::string &ptx) { return h.load(ptx); }
  TimedRun run(const std::string &kernel, ptx::exec::Dim3 grid, ptx::exec::Dim3 block,
               std::vector<uint64_t> params, int carveoutHint = -1) {
    if (!sim)
      sim = std::make_unique<sim::KernelSimulator>(cfg, *h.engine);
    const ptx::exec::Kernel *k = h.engine->findKernel(kernel, h.module);
    std::vector<uint8_t> buf(k->paramBytes + 8);
    for (size_t i = 0; i < params.size(); ++i)
      std::memcpy(buf.data() + k->paramOffsets[i], &params[i], std::min<uint32_t>(k->paramSizes[i], 8));
    ptx::exec::LaunchParams p;
    p.kernel = k;
    p.grid = grid;
    p.block = block;
    p.params = buf.data();
    p.carveoutHint = carveoutHint;
    TimedRun r;
    sim::KernelRun run = sim->run(p);
    r.result = std::move(run.launch);
    r.stats = std::move(run.stats);
    r.power = std::move(run.power);
    return r;
  }
  timing::TimingConfig cfg;
  ExecHarness h{1, ptx::exec::SimtMode::Auto, cfg.core.scheduleLoads, cfg.core.fusePairs};
  std::unique_ptr<sim::KernelSimulator> sim;
};

// n dependent integer adds in one warp.
std::string aluChain(int n) {
  std::ostringstream os;
  os << ptxHeader() << ".visible .entry k(.param .u64 out) {\n .reg .b32 %r<3>; .reg .b64 %rd<2>;\n"
     << " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n";
  for (int i = 0; i < n; ++i)
    os << " add.u32 %r1, %r1, 3;\n";
  os << " st.global.u32 [%rd1], %r1;\n ret;\n}\n";
  return os.str();
}

// Cycles of a one-thread chain of n dependent adds under `cfg` (and its result checked).
Cycle aluChainCycles(const timing::TimingConfig &cfg, int n) {
  TimingHarness t(cfg);
  EXPECT_TRUE(t.load(aluChain(n))) << t.h.errors;
  uint64_t out = t.h.alloc(4);
  auto r = t.run("k", {1}, {1}, {out});
  EXPECT_TRUE(r.result.ok()) << r.result.message;
  EXPECT_EQ(t.h.read<uint32_t>(out, 1)[0], uint32_t(n * 3));
  return r.stats.cycles;
}

TEST(Timing, DependentAluChainCostsTheConfiguredLatencyPerInstruction) {
  EXPECT_EQ(aluChainCycles(noFetch(), 200) - aluChainCycles(noFetch(), 100),
            100u * timing::TimingConfig{}.core.intLatency);
}

// -ptxsim_fuse_pairs: ptxas merges each two dependent adds into one IADD3, so the chain costs
// one latency per pair, and the pair takes one issue slot
TEST(Timing, FusedAddPairsCostOneLatencyPerPair) {
  timing::TimingConfig cfg = noFetch();
  cfg.core.fusePairs = true;
  EXPECT_EQ(aluChainCycles(cfg, 200) - aluChainCycles(cfg, 100),
            50u * timing::TimingConfig{}.core.intLatency);
}

// n dependent shuffles in one warp (each lane reads its neighbour's value).
Cycle shflChainCycles(const timing::TimingConfig &cfg, int n) {
  std::ostringstream os;
  os << ptxHeader() << ".visible .entry k(.param .u64 out) {\n .reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
     << " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n mov.u32 %r2, %r1;\n";
  for (int i = 0; i < n; ++i)
    os << " shfl.sync.bfly.b32 %r1, %r1, 1, 31, -1;\n";
  os << " mul.wide.u32 %rd2, %r2, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], %r1;\n ret;\n}\n";
  TimingHarness t(cfg);
  EXPECT_TRUE(t.load(os.str())) << t.h.errors;
  uint64_t out = t.h.alloc(32 * 4);
  auto r = t.run("k", {1}, {32}, {out});
  EXPECT_TRUE(r.result.ok()) << r.result.message;
  auto v = t.h.read<uint32_t>(out, 32);
  for (uint32_t l = 0; l < 32; ++l) // an even number of butterflies with lane ^ 1 is the identity
    EXPECT_EQ(v[l], n % 2 ? l ^ 1 : l) << l;
  return r.stats.cycles;
}

// -ptxsim_warp_units/_latency: warp primitives on their own pipe (the H100's 24-cycle shuffle);
// without units they run on the SP pipes with the SP latency, as before
TEST(Timing, WarpPrimitivesTakeTheirPipesLatency) {
  timing::TimingConfig cfg = noFetch();
  EXPECT_EQ(shflChainCycles(cfg, 200) - shflChainCycles(cfg, 100), 100u * cfg.core.spLatency);
  cfg.core.warpUnits = 1;
  cfg.core.warpLatency = 24;
  EXPECT_EQ(shflChainCycles(cfg, 200) - shflChainCycles(cfg, 100), 100u * 24);
}

// n dependent atom.global.cas by one warp, all 32 lanes on one word (each lane's compare value is
// its last result: at most one lane swaps per CAS, adding 1).
Cycle casChainCycles(const timing::TimingConfig &cfg, int n) {
  std::ostringstream os;
  os << ptxHeader() << ".visible .entry k(.param .u64 p) {\n .reg .b32 %r<4>; .reg .b64 %rd<2>;\n"
     << " ld.param.u64 %rd1, [p];\n mov.u32 %r1, 0;\n";
  for (int i = 0; i < n; ++i)
    os << " add.u32 %r2, %r1, 1;\n atom.global.cas.b32 %r1, [%rd1], %r1, %r2;\n";
  os << " ret;\n}\n";
  TimingHarness t(cfg);
  EXPECT_TRUE(t.load(os.str())) << t.h.errors;
  uint64_t word = t.h.alloc(4);
  *reinterpret_cast<uint32_t *>(word) = 0;
  auto r = t.run("k", {1}, {32}, {word});
  EXPECT_TRUE(r.result.ok()) << r.result.message;
  const uint32_t swaps = t.h.read<uint32_t>(word, 1)[0];
  EXPECT_TRUE(swaps >= uint32_t(n / 2) && swaps <= uint32_t(n)) << swaps;
  return r.stats.cycles;
}

// -ptxsim_l2_atomic_cas_lane_latency: a CAS response waits that long per same-address lane after
// the first (31 here), on top of the atomic unit's time
TEST(Timing, CasResponseWaitsPerSameAddressLane) {
  timing::TimingConfig cfg = noFetch();
  Cycle base = casChainCycles(cfg, 40) - casChainCycles(cfg, 20);
  cfg.mem.l2AtomicCasLaneLatency = 10;
  Cycle slow = casChainCycles(cfg, 40) - casChainCycles(cfg, 20);
  // 310 L2 cycles more per CAS, in core cycles (the clocks' ratio; rounding at the crossings)
  const double perCas = 310.0 * cfg.core.clockMHz / cfg.mem.l2ClockMHz;
  EXPECT_NEAR(double(slow - base) / 20, perCas, 2.0) << base << " " << slow;
}

// n dependent loads chasing a pointer that points at itself (one miss, then L1 hits), or a
// chain through distinct lines spread over `bytes`.
std::string chase(int n, const std::string &load = "ld.global.u64") {
  std::ostringstream os;
  os << ptxHeader() << ".visible .entry k(.param .u64 p, .param .u64 out) {\n .reg .b64 %rd<4>;\n"
     << " ld.param.u64 %rd1, [p];\n ld.param.u64 %rd3, [out];\n";
  for (int i = 0; i < n; ++i)
    os << " " << load << " %rd1, [%rd1];\n";
  os << " st.global.u64 [%rd3], %rd1;\n ret;\n}\n";
  return os.str();
}

Cycle chaseCycles(timing::TimingConfig cfg, int n, uint64_t stride, uint64_t count,
                  const std::string &load = "ld.global.u64") {
  TimingHarness t(cfg);
  EXPECT_TRUE(t.load(chase(n, load))) << t.h.errors;
  uint64_t buf = t.h.alloc(stride * count + 8), out = t.h.alloc(8);
  auto *host = reinterpret_cast<uint64_t *>(buf);
  for (uint64_t i = 0; i < count; ++i) // a cycle through `count` lines, `stride` bytes apart
    host[i * stride / 8] = buf + ((i + 1) % count) * stride;
  auto r = t.run("k", {1}, {1}, {buf, out});
  EXPECT_TRUE(r.result.ok()) << r.result.message;
  return r.stats.cycles;
}

TEST(Timing, PointerChaseSeesL1HitLatency) {
  timing::TimingConfig cfg = noFetch();
  Cycle a = chaseCycles(cfg, 40, 8, 1), b = chaseCycles(cfg, 80, 8, 1);
  // L1 hit: data at issue + 1 (first coalescer piece) + l1Latency; the dependent load issues
  // in the cycle the data arrives
  EXPECT_EQ((b - a) / 40, cfg.mem.l1Latency + 1) << (b - a);
  EXPECT_EQ((b - a) % 40, 0u);
}

// Loads that must see other SMs' writes (.volatile, .relaxed/.acquire at gpu or sys scope) are
// served by the L2, as the SM's L1 is not coherent: a chase over one line costs an L2 round trip
// per hop with them and an L1 hit per hop with a plain or CTA-scope load.
TEST(Timing, CoherentLoadsAreServedByTheL2) {
  timing::TimingConfig cfg = noFetch();
  auto perHop = [&](const std::string &load) {
    return (chaseCycles(cfg, 80, 8, 1, load) - chaseCycles(cfg, 40, 8, 1, load)) / 40;
  };
  Cycle l1 = cfg.mem.l1Latency + 1;
  EXPECT_EQ(perHop("ld.global.u64"), l1);
  EXPECT_EQ(perHop("ld.relaxed.cta.global.u64"), l1);
  for (const char *load : {"ld.volatile.global.u64", "ld.acquire.gpu.global.u64",
                           "ld.relaxed.sys.global.u64", "ld.acquire.gpu.u64"}) {
    Cycle c = perHop(load);
    EXPECT_GE(c, cfg.mem.l2Latency) << load;
    EXPECT_LT(c, cfg.mem.l2Latency + 20) << load;
  }
}

// -gpgpu_adaptive_cache_config: each launch's shared memory is the smallest carve-out holding
// the CTAs one SM gets (with the system's reserve), or what the preferred carve-out asks for;
// the L1D gets the rest of the unified array, and a chase that fits it hits only then.
TEST(Timing, AdaptiveCarveoutGivesTheL1WhatSharedMemoryLeaves) {
  timing::TimingConfig cfg = noFetch();
  cfg.core.adaptiveL1 = true;
  cfg.core.unifiedL1Kib = 64;
  cfg.core.shmemOptionsKib = {0, 8, 16, 32, 48};
  cfg.core.sharedBytesPerSm = 48 * 1024;
  cfg.core.reservedSharedPerCta = 1024;
  cfg.mem.l1d.sets = 4;
  cfg.mem.l1d.ways = 16;
  const uint32_t sms = cfg.numSms();
  TimingHarness t(cfg);
  const int hops = 512;
  ASSERT_TRUE(t.load(chase(hops) + R"(
.visible .entry sh(.param .u64 out) {
  .shared .align 4 .b8 buf[7168];
  .reg .b32 %r<3>; .reg .b64 %rd<2>;
  mov.u32 %r1, %tid.x;
  st.shared.u32 [buf], %r1;
  bar.sync 0;
  ld.shared.u32 %r2, [buf];
  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], %r2;
  ret;
}
)")) << t.h.errors;
  // 256 lines (32 KiB) in a cycle, each 128 bytes on: 64 per set
  const uint64_t lines = 256;
  uint64_t buf = t.h.alloc(lines * 128), out = t.h.alloc(64);
  auto *host = reinterpret_cast<uint64_t *>(buf);
  for (uint64_t i = 0; i < lines; ++i)
    host[i * 16] = buf + ((i + 1) % lines) * 128;
  // no shared memory (and so no reserve): the 0 KiB carve-out, all 64 KiB (128 ways) are L1D
  auto fits = t.run("k", {1}, {1}, {buf, out});
  ASSERT_TRUE(fits.result.ok()) << fits.result.message;
  EXPECT_EQ(fits.stats.get("gpu.shared_carveout_bytes"), 0.0);
  EXPECT_EQ(fits.stats.get("gpu.l1d_bytes"), 65536.0);
  // the kernel prefers all the shared memory: 48 KiB, 16 KiB (32 ways) of L1D, which the chase
  // (64 lines per set) thrashes
  auto thrashes = t.run("k", {1}, {1}, {buf, out}, 100);
  ASSERT_TRUE(thrashes.result.ok()) << thrashes.result.message;
  EXPECT_EQ(thrashes.stats.get("gpu.shared_carveout_bytes"), 49152.0);
  EXPECT_EQ(thrashes.stats.get("gpu.l1d_bytes"), 16384.0);
  EXPECT_EQ(thrashes.stats.get("l1d.hits"), 0.0);
  EXPECT_EQ(fits.stats.get("l1d.hits"), double(hops - lines));
  EXPECT_GT(thrashes.stats.cycles, fits.stats.cycles + (hops - lines) * 50);
  // 7 KiB of shared memory + 1 KiB reserved, two CTAs per SM: a 16 KiB carve-out
  auto two = t.run("sh", {2 * sms}, {32}, {out});
  ASSERT_TRUE(two.result.ok()) << two.result.message;
  EXPECT_EQ(two.stats.get("gpu.shared_carveout_bytes"), 16384.0);
  EXPECT_EQ(two.stats.get("gpu.l1d_bytes"), 49152.0);
  // seven per SM need 56 KiB: the largest carve-out (48 KiB), which holds six at a time
  auto many = t.run("sh", {7 * sms}, {32}, {out});
  ASSERT_TRUE(many.result.ok()) << many.result.message;
  EXPECT_EQ(many.stats.get("gpu.shared_carveout_bytes"), 49152.0);
  EXPECT_LT(t.h.read<uint32_t>(out, 1)[0], 32u); // one lane's tid
}

TEST(Timing, PointerChaseOverL2AndDramIsSlowerInThatOrder) {
  timing::TimingConfig cfg = noFetch();
  // 64 lines 128 bytes apart: 8 KiB fits L2 but thrashes a 1-way, 2-set L1
  timing::TimingConfig small = cfg;
  small.mem.l1d.sets = 2;
  small.mem.l1d.ways = 1;
  Cycle l2a = chaseCycles(small, 64, 128, 64), l2b = chaseCycles(small, 128, 128, 64);
  double l2PerLoad = double(l2b - l2a) / 64;
  // 4096 lines 4 KiB apart: 16 MiB, far beyond the L2: every load goes to DRAM
  Cycle da = chaseCycles(cfg, 64, 4096, 4096), db = chaseCycles(cfg, 128, 4096, 4096);
  double dramPerLoad = double(db - da) / 64;
  double l1 = cfg.mem.l1Latency + 1;
  EXPECT_GE(l2PerLoad, cfg.mem.l2Latency) << l2PerLoad;
  EXPECT_LE(l2PerLoad, cfg.mem.l2Latency + l1 + 10) << l2PerLoad;
  const timing::DramConfig &d = cfg.dram;
  double dramCoreCycles = (d.tRCD + d.tCL) * cfg.core.clockMHz / d.clockMHz;
  EXPECT_GT(dramPerLoad, l2PerLoad + dramCoreCycles * 0.9) << dramPerLoad << " vs " << l2PerLoad;
}

// A one-thread pointer chase timed from inside the kernel, as microbenchmarks do: %clock64 and
// %globaltimer before and after n dependent loads, stored to out[0..3], the chase's end in out[4].
std::string timedChase(int n) {
  std::ostringstream os;
  os << ptxHeader() << ".visible .entry k(.param .u64 p, .param .u64 out) {\n .reg .b64 %rd<9>;\n"
     << " ld.param.u64 %rd1, [p];\n ld.param.u64 %rd3, [out];\n"
     << " mov.u64 %rd4, %clock64;\n mov.u64 %rd5, %globaltimer;\n";
  for (int i = 0; i < n; ++i)
    os << " ld.global.u64 %rd1, [%rd1];\n";
  // the clock read after the chain must wait for it, as in C code that uses the value first
  os << " add.u64 %rd8, %rd1, 0;\n setp.eq.u64 %p1, %rd8, 0;\n @%p1 bra DONE;\n"
     << "DONE:\n mov.u64 %rd6, %clock64;\n mov.u64 %rd7, %globaltimer;\n"
     << " st.global.u64 [%rd3], %rd4;\n st.global.u64 [%rd3+8], %rd6;\n"
     << " st.global.u64 [%rd3+16], %rd5;\n st.global.u64 [%rd3+24], %rd7;\n"
     << " st.global.u64 [%rd3+32], %rd1;\n ret;\n}\n";
  std::string s = os.str();
  s.insert(s.find(".reg .b64"), ".reg .pred %p<2>; ");
  return s;
}

TEST(Timing, Clock64InTimingModeIsTheModelsCycle) {
  timing::TimingConfig cfg = noFetch();
  const uint64_t stride = 4096, count = 2048; // 8 MiB: beyond the default L2, so DRAM latency
  Cycle kernelCycles[2];
  uint64_t clockDelta[2], timerDelta[2];
  for (int i = 0; i < 2; ++i) {
    const int n = i ? 256 : 128;
    TimingHarness t(cfg);
    ASSERT_TRUE(t.load(timedChase(n))) << t.h.errors;
    uint64_t buf = t.h.alloc(stride * count + 8), out = t.h.alloc(40);
    auto *host = reinterpret_cast<uint64_t *>(buf);
    for (uint64_t j = 0; j < count; ++j)
      host[j * stride / 8] = buf + ((j * 997 + 1) % count) * stride; // scattered cycle
    auto r = t.run("k", {1}, {1}, {buf, out});
    ASSERT_TRUE(r.result.ok()) << r.result.message;
    auto o = t.h.read<uint64_t>(out, 5);
    kernelCycles[i] = r.stats.cycles;
    ASSERT_GT(o[1], o[0]);
    clockDelta[i] = o[1] - o[0];
    timerDelta[i] = o[3] - o[2];
    // the timed region lies inside the kernel, and the timer is the clock in nanoseconds
    EXPECT_LE(clockDelta[i], kernelCycles[i]);
    EXPECT_NEAR(double(timerDelta[i]), clockDelta[i] * 1000.0 / cfg.core.clockMHz, 2.0);
  }
  // per load, the in-kernel clock agrees with the model's own cycle count exactly: the only
  // difference between the two runs is 128 more dependent loads
  double perLoadClock = double(clockDelta[1] - clockDelta[0]) / 128;
  double perLoadModel = double(kernelCycles[1] - kernelCycles[0]) / 128;
  EXPECT_DOUBLE_EQ(perLoadClock, perLoadModel);
  EXPECT_GT(perLoadClock, double(cfg.mem.l2Latency)) << "an 8 MiB chase should miss the L2";
}

// Each thread copies `perThread` floats with a grid-stride loop.
const char *kCopy = R"(
.visible .entry copy(.param .u64 src, .param .u64 dst, .param .u32 n) {
  .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [src]; ld.param.u64 %rd2, [dst]; ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;
  mad.lo.u32 %r5, %r2, %r3, %r4;
  mov.u32 %r6, %nctaid.x; mul.lo.u32 %r6, %r6, %r3;
LOOP:
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
  ld.global.u32 %r7, [%rd4];
  st.global.u32 [%rd5], %r7;
  add.u32 %r5, %r5, %r6;
  bra LOOP;
DONE:
  ret;
}
)";

TEST(Timing, StreamingCopyApproachesDramBandwidth) {
  TimingHarness t;
  ASSERT_TRUE(t.load(ptxHeader() + kCopy)) << t.h.errors;
  const uint32_t n = 1 << 19; // 2 MiB each way
  uint64_t src = t.h.alloc(n * 4ull), dst = t.h.alloc(n * 4ull);
  auto r = t.run("copy", {120}, {512}, {src, dst, n});
  ASSERT_TRUE(r.result.ok()) << r.result.message;
  const timing::TimingConfig &c = t.cfg;
  double bytes = 2.0 * n * 4; // read + write
  double seconds = double(r.stats.cycles) / (c.core.clockMHz * 1e6);
  double peak = double(c.mem.numPartitions) * c.dram.channelsPerPartition * c.dram.busWidthBytes *
                c.dram.dataRate * c.dram.clockMHz * 1e6;
  double achieved = bytes / seconds;
  // The copy itself may run a little above the DRAM peak (the write-back L2 still holds dirty
  // lines at the end); the DRAM traffic may not.
  double dramBytes = r.stats.get("dram.read_bytes") + r.stats.get("dram.write_bytes");
  EXPECT_GE(r.stats.get("dram.read_bytes"), n * 4.0);
  EXPECT_GT(achieved, 0.5 * peak) << achieved / 1e9 << " GB/s of " << peak / 1e9;
  EXPECT_LE(dramBytes / seconds, 1.001 * peak) << dramBytes / seconds / 1e9 << " GB/s of " << peak / 1e9;
  std::printf("streaming copy: %.1f GB/s of a %.1f GB/s DRAM peak (%.0f%%)\n", achieved / 1e9,
              peak / 1e9, 100 * achieved / peak);
}

// Shared memory: every lane reads word (lane * stride); stride 32 puts all lanes in one bank.
std::string sharedStride(int stride, int reps) {
  std::ostringstream os;
  os << ptxHeader() << ".visible .entry k(.param .u64 out) {\n .shared .align 4 .b32 s[1024];\n"
     << " .reg .b32 %r<6>; .reg .b64 %rd<2>;\n ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n"
     << " mul.lo.u32 %r2, %r1, " << stride * 4 << ";\n mov.u32 %r3, s;\n add.u32 %r3, %r3, %r2;\n"
     << " mov.u32 %r4, 0;\n";
  for (int i = 0; i < reps; ++i)
    os << " ld.shared.u32 %r5, [%r3];\n add.u32 %r4, %r4, %r5;\n";
  os << " st.global.u32 [%rd1], %r4;\n ret;\n}\n";
  return os.str();
}

TEST(Timing, SharedBankConflictsCostTheirDegree) {
  Cycle c[2][2];
  int strides[2] = {1, 32};
  for (int s = 0; s < 2; ++s)
    for (int k = 0; k < 2; ++k) {
      TimingHarness t;
      ASSERT_TRUE(t.load(sharedStride(strides[s], k ? 40 : 20))) << t.h.errors;
      uint64_t out = t.h.alloc(4);
      auto r = t.run("k", {1}, {32}, {out});
      ASSERT_TRUE(r.result.ok()) << r.result.message;
      c[s][k] = r.stats.cycles;
    }
  timing::TimingConfig cfg;
  Cycle perLoadNoConflict = (c[0][1] - c[0][0]) / 20, perLoadConflict = (c[1][1] - c[1][0]) / 20;
  // each load feeds an add that the next load does not wait for; the chain is load -> add
  EXPECT_EQ(perLoadConflict - perLoadNoConflict, 31u) << perLoadNoConflict << " " << perLoadConflict;
  EXPECT_GE(perLoadNoConflict, 1u);
  (void)cfg;
}

// Straight-line code misses in the L1 instruction cache once per line; run again, the
// instructions are still cached.
TEST(Timing, InstructionCacheMissesCostAnL2AccessPerLine) {
  timing::TimingConfig cfg; // fetch modelled
  TimingHarness t(cfg);
  ASSERT_TRUE(t.load(aluChain(160))) << t.h.errors;
  uint64_t out = t.h.alloc(4);
  auto cold = t.run("k", {1}, {1}, {out});
  auto warm = t.run("k", {1}, {1}, {out});
  ASSERT_TRUE(cold.result.ok() && warm.result.ok());
  double misses = cold.stats.get("l1i.misses");
  // 166 instructions of 8 bytes: 11 lines of 128 bytes (a few more when not line-aligned)
  EXPECT_GE(misses, 11);
  EXPECT_LE(misses, 12);
  double warmMisses = warm.stats.get("l1i.misses");
  EXPECT_LE(warmMisses, 1); // at most the line shared with the kernel's last instructions
  // each miss the warm run avoids saves about an L2 access (a miss can overlap the previous
  // instruction's latency by a few cycles)
  double saved = double(cold.stats.cycles - warm.stats.cycles);
  EXPECT_GE(saved, (misses - warmMisses) * (cfg.mem.l2Latency - cfg.core.intLatency));
  EXPECT_LE(saved, (misses - warmMisses) * cfg.mem.l2Latency);
}

// -ptxsim_l1i_stream_prefetch: a miss requests the next -ptxsim_l1i_prefetch_lines lines with
// it, and a warp's first fetch from a prefetched line requests one line more, so straight-line
// code waits for its first line only (sequential prefetch without the stream waits again after
// each window); -ptxsim_l1i_cold_miss_latency is a miss's round trip while the L2 is flushed
// before each kernel (the code comes from DRAM).
TEST(Timing, InstructionStreamStaysAheadOfStraightLineCode) {
  struct Extra {
    Cycle cycles;  // cold run's cycles beyond the warm run's
    double misses; // the cold run's L1I misses
  };
  const uint32_t cold = 680;
  auto run = [&](bool stream, bool flushL2) {
    timing::TimingConfig cfg; // fetch modelled
    cfg.core.l1iPrefetchLines = 16;
    cfg.core.l1iStreamPrefetch = stream;
    cfg.core.l1iColdMissLatency = cold;
    cfg.mem.l1i.sets = 64; // 128 KiB: the code stays cached
    cfg.mem.l1i.ways = 16;
    cfg.launch.flushL2 = flushL2;
    TimingHarness t(cfg);
    EXPECT_TRUE(t.load(aluChain(1600))) << t.h.errors; // 1,606 instructions: 101 lines
    uint64_t out = t.h.alloc(4);
    auto first = t.run("k", {1}, {1}, {out});
    auto again = t.run("k", {1}, {1}, {out}); // every line still cached
    EXPECT_TRUE(first.result.ok() && again.result.ok());
    EXPECT_EQ(again.stats.get("l1i.misses"), 0.0);
    return Extra{first.stats.cycles - again.stats.cycles, first.stats.get("l1i.misses")};
  };
  const Cycle l2 = timing::TimingConfig().mem.l2Latency;
  Extra stream = run(true, false), window = run(false, false);
  EXPECT_EQ(stream.misses, 1.0);
  EXPECT_GE(stream.cycles, l2 - 8);
  EXPECT_LE(stream.cycles, l2 + 8);
  // without the stream: a miss every 17 lines (the missing one and the 16 after it)
  EXPECT_EQ(window.misses, 6.0);
  EXPECT_GE(window.cycles, 6 * (l2 - 8));
  // the L2 flushed before each kernel: the one miss comes from DRAM
  Extra flushed = run(true, true);
  EXPECT_EQ(flushed.misses, 1.0);
  EXPECT_GE(flushed.cycles, cold - 8);
  EXPECT_LE(flushed.cycles, cold + 8);
}

// -ptxsim_l1i_fetch_at_launch: each SM requests the kernel's first lines when the launch starts,
// so a launch latency longer than a miss's round trip hides the kernel's first miss.
TEST(Timing, KernelsFirstLinesAreFetchedDuringTheLaunch) {
  auto extra = [](bool atLaunch) {
    timing::TimingConfig cfg;
    cfg.core.l1iPrefetchLines = 16;
    cfg.core.l1iStreamPrefetch = true;
    cfg.core.l1iFetchAtLaunch = atLaunch;
    cfg.mem.l1i.sets = 64;
    cfg.mem.l1i.ways = 16;
    cfg.launch.kernelLaunchLatency = 2 * cfg.mem.l2Latency;
    TimingHarness t(cfg);
    EXPECT_TRUE(t.load(aluChain(1600))) << t.h.errors;
    uint64_t out = t.h.alloc(4);
    auto first = t.run("k", {1}, {1}, {out});
    auto again = t.run("k", {1}, {1}, {out});
    EXPECT_TRUE(first.result.ok() && again.result.ok());
    return first.stats.cycles - again.stats.cycles;
  };
  const Cycle l2 = timing::TimingConfig().mem.l2Latency;
  EXPECT_LE(extra(true), 8u);
  EXPECT_GE(extra(false), l2 - 8);
}

// With the stream, a line in flight is ready only when it arrives: the second warp of a CTA
// that asks for the line the first one missed waits for it too (without the stream it found the
// line at once and ran a round trip ahead of the warp that missed). Each warp stores the
// %clock64 its first instruction read.
TEST(Timing, InstructionLineInFlightIsReadyWhenItArrives) {
  auto firstClocks = [](bool stream) {
    timing::TimingConfig cfg;
    cfg.core.l1iPrefetchLines = 16;
    cfg.core.l1iStreamPrefetch = stream;
    cfg.mem.l1i.sets = 64; // (the default 4 x 4 lines would not hold the 17 lines of a miss)
    cfg.mem.l1i.ways = 16;
    TimingHarness t(cfg);
    EXPECT_TRUE(t.load(ptxHeader() + R"(
.visible .entry c(.param .u64 out) {
  .reg .b32 %r<3>; .reg .b64 %rd<5>;
  mov.u64 %rd2, %clock64;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  mul.wide.u32 %rd3, %r2, 8;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u64 [%rd4], %rd2;
  ret;
}
)")) << t.h.errors;
    uint64_t out = t.h.alloc(16);
    auto r = t.run("c", {1}, {64}, {out});
    EXPECT_TRUE(r.result.ok()) << r.result.message;
    const auto *clk = reinterpret_cast<const uint64_t *>(out);
    return std::pair<int64_t, int64_t>(int64_t(clk[0]), int64_t(clk[1]));
  };
  const int64_t l2 = timing::TimingConfig().mem.l2Latency;
  auto [w0, w1] = firstClocks(true);
  EXPECT_LE(std::abs(w1 - w0), 8) << w0 << " " << w1;
  auto [v0, v1] = firstClocks(false);
  EXPECT_GE(std::abs(v1 - v0), l2 - 8) << v0 << " " << v1;
}

TEST(Timing, RepeatedRunsGiveIdenticalCycles) {
  std::vector<Cycle> cycles;
  for (int i = 0; i < 2; ++i) {
    TimingHarness t;
    ASSERT_TRUE(t.load(ptxHeader() + kCopy)) << t.h.errors;
    const uint32_t n = 1 << 16;
    uint64_t src = t.h.alloc(n * 4ull), dst = t.h.alloc(n * 4ull);
    auto r = t.run("copy", {30}, {256}, {src, dst, n});
    ASSERT_TRUE(r.result.ok()) << r.result.message;
    cycles.push_back(r.stats.cycles);
  }
  EXPECT_EQ(cycles[0], cycles[1]);
}

// The fixed costs of a launch are charged exactly once per kernel, and the CTA dispatch interval
// spaces the CTAs one SM starts.
TEST(Timing, LaunchAndDrainLatencyAndCtaDispatchInterval) {
  auto cycles = [](uint32_t launch, uint32_t drain, uint32_t interval, uint32_t ctas) {
    timing::TimingConfig cfg = noFetch();
    cfg.core.numClusters = 1; // one SM: every CTA goes through its dispatch
    cfg.launch.kernelLaunchLatency = launch;
    cfg.launch.kernelDrainLatency = drain;
    cfg.launch.ctaDispatchInterval = interval;
    TimingHarness t(cfg);
    EXPECT_TRUE(t.load(aluChain(4))) << t.h.errors;
    uint64_t out = t.h.alloc(4);
    auto r = t.run("k", {ctas}, {32}, {out});
    EXPECT_TRUE(r.result.ok()) << r.result.message;
    return r.stats.cycles;
  };
  Cycle base = cycles(0, 0, 0, 1);
  EXPECT_EQ(cycles(1000, 0, 0, 1), base + 1000);
  EXPECT_EQ(cycles(1000, 500, 0, 1), base + 1500);
  // 8 CTAs fit at once and overlap; 500 cycles between starts makes the kernel the last CTA's
  // start (7 x 500) plus one CTA's time (each is far shorter than 500, so they run alone)
  EXPECT_LT(cycles(0, 0, 1, 8), base + 500);
  // (the later CTAs find the parameters in the constant cache, so compare two intervals)
  EXPECT_EQ(cycles(0, 0, 600, 8) - cycles(0, 0, 500, 8), 7u * 100);
  EXPECT_GT(cycles(0, 0, 500, 8), Cycle(7 * 500));
}

// Cold caches before each kernel (-gpgpu_flush_l1_cache/-gpgpu_flush_l2_cache): a second run of a
// kernel that hits in warm caches misses again.
TEST(Timing, FlushingCachesBeforeEachKernelMakesTheSecondRunCold) {
  auto twoRuns = [](bool flush) {
    timing::TimingConfig cfg = noFetch();
    cfg.launch.flushL1 = cfg.launch.flushL2 = flush;
    TimingHarness t(cfg);
    EXPECT_TRUE(t.load(chase(64))) << t.h.errors;
    const uint64_t stride = 128, count = 64;
    uint64_t buf = t.h.alloc(stride * count + 8), out = t.h.alloc(8);
    auto *host = reinterpret_cast<uint64_t *>(buf);
    for (uint64_t i = 0; i < count; ++i)
      host[i * stride / 8] = buf + ((i + 1) % count) * stride;
    auto a = t.run("k", {1}, {1}, {buf, out});
    auto b = t.run("k", {1}, {1}, {buf, out});
    return std::make_pair(a.stats.cycles, b.stats.cycles);
  };
  auto warm = twoRuns(false), cold = twoRuns(true);
  EXPECT_EQ(warm.first, cold.first);       // the first run is cold either way
  EXPECT_LT(warm.second * 3, warm.first);  // warm: 64 L1 hits instead of 64 DRAM misses
  // flushed: as cold as the first run (DRAM rows left open by it may differ a little)
  EXPECT_NEAR(double(cold.second), double(cold.first), 0.02 * cold.first);
}

// Same-address atomics serialize in the L2 slice's atomic unit: a warp of 32 lanes on one word
// costs 31 x the per-lane cycles more than a warp on 32 different words of one line.
TEST(Timing, SameAddressAtomicsSerializeAtTheL2) {
  const char *kAtom = R"(
.visible .entry k(.param .u64 p, .param .u32 spread) {
  .reg .b32 %r<6>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [spread];
  mov.u32 %r2, %tid.x; mul.lo.u32 %r3, %r2, %r1;
  mul.wide.u32 %rd2, %r3, 4; add.s64 %rd3, %rd1, %rd2;
  atom.global.add.u32 %r4, [%rd3], 1;
  atom.global.add.u32 %r5, [%rd3], %r4;
  ret;
}
)";
  auto run = [&](uint32_t spread, double same, double lane) {
    timing::TimingConfig cfg = noFetch();
    cfg.mem.l2AtomicSameAddrCycles = same;
    cfg.mem.l2AtomicLaneCycles = lane;
    TimingHarness t(cfg);
    EXPECT_TRUE(t.load(ptxHeader() + kAtom)) << t.h.errors;
    uint64_t buf = t.h.alloc(4096);
    auto r = t.run("k", {1}, {32}, {buf, spread});
    EXPECT_TRUE(r.result.ok()) << r.result.message;
    return r.stats.cycles;
  };
  // off: one request either way (the 32-word one carries 4 sectors, so a few flits more)
  int64_t base = int64_t(run(0, 0, 0)) - int64_t(run(1, 0, 0));
  int64_t diff = int64_t(run(0, 10, 1)) - int64_t(run(1, 10, 1));
  // two dependent atomics, each: 32 x 10 on one word against 10 + 31 x 1 on 32 words (L2 cycles
  // = core cycles in the default config)
  EXPECT_EQ(diff - base, 2 * (320 - 41));
}

// -ptxsim_l2_atomic_units: consecutive slices share an atomic unit, and requests that reach two
// slices of one unit at once take turns; with a unit per slice (units = slices) the responses
// come when they came without the option. -ptxsim_l2_atomic_first_lane_cycles: the unit takes a
// request's first lane in that many cycles, only the further same-address lanes serialize.
TEST(Timing, SlicesSharingAnAtomicUnitTakeTurns) {
  // warp w's 32 lanes add to the word at p + w * 256: with 256-byte interleaving and linear
  // indexing, warp 0 reaches slice 0 and warp 1 slice 1 (the default config's 6 slices)
  const char *kAtom = R"(
.visible .entry k(.param .u64 p) {
  .reg .b32 %r<6>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x; shr.u32 %r2, %r1, 5;
  mul.wide.u32 %rd2, %r2, 256; add.s64 %rd3, %rd1, %rd2;
  atom.global.add.u32 %r4, [%rd3], %r1;
  ret;
}
)";
  auto run = [&](uint32_t units, double first, uint32_t threads) {
    timing::TimingConfig cfg = noFetch();
    cfg.mem.l2AtomicSameAddrCycles = 10;
    cfg.mem.l2AtomicUnits = units;
    cfg.mem.l2AtomicFirstLaneCycles = first;
    TimingHarness t(cfg);
    EXPECT_TRUE(t.load(ptxHeader() + kAtom)) << t.h.errors;
    uint64_t buf = t.h.alloc(4096);
    if (threads > 1) {
      t.sim = std::make_unique<sim::KernelSimulator>(cfg, *t.h.engine);
      t.sim->gpu().setHostThreads(threads);
      t.sim->gpu().setParallelMinBusySms(0); // the threads in every cycle
    }
    auto r = t.run("k", {1}, {64}, {buf});
    EXPECT_TRUE(r.result.ok()) << r.result.message;
    // each word got its warp's thread indices: 0 + ... + 31 and 32 + ... + 63
    EXPECT_EQ(t.h.read<uint32_t>(buf, 1)[0], 31u * 32u / 2u);
    EXPECT_EQ(t.h.read<uint32_t>(buf + 256, 1)[0], 32u * 32u + 31u * 32u / 2u);
    return int64_t(r.stats.cycles);
  };
  const int64_t own = run(0, 0, 1);
  EXPECT_EQ(run(6, 0, 1), own); // a unit per slice, served at the end of the tick: the same
  // slices 0 and 1 share unit 0: the later of the two warps' requests waits for the other's
  // 32 x 10 L2 cycles (= core cycles here), less the few cycles it reached its slice later
  const int64_t shared = run(3, 0, 1);
  EXPECT_NEAR(double(shared - own), 320.0, 8.0) << own << " " << shared;
  EXPECT_EQ(run(3, 0, 4), shared); // the same with 4 host threads ticking the slices
  // the first lane in 1 cycle instead of 10: 9 fewer per request, both in turn when shared
  EXPECT_EQ(run(0, 1, 1), own - 9);
  EXPECT_EQ(run(3, 1, 1), shared - 2 * 9);
}

// Compare-and-swap lanes on one address cost -ptxsim_l2_atomic_cas_same_addr_cycles each
// (when set) instead of the other atomics' same-address cost; other atomics are unaffected.
TEST(Timing, CasOnOneAddressHasItsOwnL2Cost) {
  const char *kCas = R"(
.visible .entry k(.param .u64 p, .param .u32 cas) {
  .reg .b32 %r<6>; .reg .b64 %rd<2>; .reg .pred %p1;
  ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [cas];
  setp.ne.u32 %p1, %r1, 0;
  mov.u32 %r2, %tid.x;
  @%p1 bra CAS;
  atom.global.add.u32 %r3, [%rd1], %r2;
  atom.global.add.u32 %r4, [%rd1], %r3;
  ret;
CAS:
  atom.global.cas.b32 %r3, [%rd1], %r2, 7;
  atom.global.cas.b32 %r4, [%rd1], %r3, 9;
  ret;
}
)";
  auto run = [&](uint32_t cas, double casSame) {
    timing::TimingConfig cfg = noFetch();
    cfg.mem.l2AtomicSameAddrCycles = 1;
    cfg.mem.l2AtomicCasSameAddrCycles = casSame;
    TimingHarness t(cfg);
    EXPECT_TRUE(t.load(ptxHeader() + kCas)) << t.h.errors;
    uint64_t buf = t.h.alloc(4096);
    auto r = t.run("k", {1}, {32}, {buf, cas});
    EXPECT_TRUE(r.result.ok()) << r.result.message;
    return int64_t(r.stats.cycles);
  };
  // two dependent CASes of 32 lanes on one word: 32 x 10 instead of 32 x 1 L2 cycles each
  EXPECT_EQ(run(1, 10) - run(1, 0), 2 * 32 * (10 - 1));
  EXPECT_EQ(run(0, 10), run(0, 0)); // atom.add keeps the common cost
}

// Returning from a device function that makes calls (not a leaf under the ABI, whose epilogue
// reloads the return address and saved registers from the stack) waits
// -ptxsim_call_frame_cycles; a leaf function's return does not.
const char *kCalls = R"(
.func (.param .b32 r) leaf(.param .b32 a) {
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [a]; add.s32 %r2, %r1, 1; st.param.b32 [r], %r2;
  ret;
}
.func (.param .b32 r) outer(.param .b32 a) {
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [a];
  { .param .b32 pa; .param .b32 pr; st.param.b32 [pa], %r1;
    call.uni (pr), leaf, (pa); ld.param.b32 %r2, [pr]; }
  add.s32 %r3, %r2, 2; st.param.b32 [r], %r3;
  ret;
}
.visible .entry k(.param .u64 p, .param .u32 nonleaf) {
  .reg .b32 %r<4>; .reg .b64 %rd<2>; .reg .pred %p1;
  ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [nonleaf];
  setp.ne.u32 %p1, %r1, 0;
  mov.u32 %r2, 0;
  @%p1 bra OUTER;
  { .param .b32 pa; .param .b32 pr; st.param.b32 [pa], %r2;
    call.uni (pr), leaf, (pa); ld.param.b32 %r3, [pr]; }
  st.global.u32 [%rd1], %r3;
  ret;
OUTER:
  { .param .b32 pa; .param .b32 pr; st.param.b32 [pa], %r2;
    call.uni (pr), outer, (pa); ld.param.b32 %r3, [pr]; }
  st.global.u32 [%rd1], %r3;
  ret;
}
)";

TEST(Timing, ReturnFromANonLeafFunctionWaitsForItsFrame) {
  auto run = [&](uint32_t nonLeaf, uint32_t frameCycles) {
    timing::TimingConfig cfg = noFetch();
    cfg.core.callFrameCycles = frameCycles;
    TimingHarness t(cfg);
    EXPECT_TRUE(t.load(ptxHeader() + kCalls)) << t.h.errors;
    uint64_t buf = t.h.alloc(4096);
    auto r = t.run("k", {1}, {32}, {buf, nonLeaf});
    EXPECT_TRUE(r.result.ok()) << r.result.message;
    EXPECT_EQ(t.h.read<uint32_t>(buf, 1)[0], nonLeaf ? 3u : 1u);
    return int64_t(r.stats.cycles);
  };
  // one return from `outer`: the next instruction issues 300 cycles after it instead of 1
  EXPECT_EQ(run(1, 300) - run(1, 0), 300 - 1);
  EXPECT_EQ(run(0, 300), run(0, 0));       // `leaf` is a leaf
}

// -ptxsim_call_params_in_registers: the st.param/ld.param of a call's arguments and return
// value (caller and callee) are registers under the SASS calling convention: no LD/ST access,
// no issue slot, no load latency; the kernel's own ld.param (its constant-bank parameters) stay.
TEST(Timing, CallArgumentsPassInRegisters) {
  auto run = [&](uint32_t nonLeaf, bool inRegs) {
    timing::TimingConfig cfg = noFetch();
    cfg.core.callParamsInRegisters = inRegs;
    TimingHarness t(cfg);
    EXPECT_TRUE(t.load(ptxHeader() + kCalls)) << t.h.errors;
    uint64_t buf = t.h.alloc(4096);
    auto r = t.run("k", {1}, {32}, {buf, nonLeaf});
    EXPECT_TRUE(r.result.ok()) << r.result.message;
    EXPECT_EQ(t.h.read<uint32_t>(buf, 1)[0], nonLeaf ? 3u : 1u); // results do not change
    return std::make_pair(int64_t(r.stats.cycles), r.stats.get("ldst.instructions"));
  };
  for (uint32_t nonLeaf : {0u, 1u}) {
    auto [memCycles, memInsts] = run(nonLeaf, false);
    auto [regCycles, regInsts] = run(nonLeaf, true);
    // leaf: st/ld of the argument and of the result (4); through outer: 8
    EXPECT_EQ(memInsts - regInsts, nonLeaf ? 8.0 : 4.0);
    EXPECT_EQ(regInsts, 3.0); // the kernel's two ld.param and its st.global
    // the callee's ld.param no longer waits for a load (at least the L1 latency each)
    EXPECT_GE(memCycles - regCycles, int64_t(noFetch().mem.l1Latency) * (nonLeaf ? 2 : 1));
  }
}

// n copies of `inst` between two %clock64 reads; thread 0 stores the difference.
std::string fenced(const std::string &inst, int n) {
  std::ostringstream os;
  os << ptxHeader() << ".visible .entry k(.param .u64 out) {\n .reg .b64 %rd<5>;\n"
     << " .reg .b32 %r<2>;\n .reg .pred %p<2>;\n .reg .f32 %f<3>;\n .reg .b32 %q<3>;\n"
     << " .reg .b64 %d<3>;\n ld.param.u64 %rd1, [out];\n mov.f32 %f1, 0f40000000;\n"
     << " mov.f32 %f2, 0f3FC00000;\n mov.u32 %q1, 1000000;\n mov.u32 %q2, 3;\n"
     << " mov.u64 %d1, 1000000;\n mov.u64 %d2, 3;\n mov.u64 %rd2, %clock64;\n";
  for (int i = 0; i < n; ++i)
    os << " " << inst << "\n";
  os << " mov.u64 %rd3, %clock64;\n mov.u32 %r1, %tid.x;\n setp.ne.u32 %p1, %r1, 0;\n"
     << " @%p1 bra DONE;\n sub.u64 %rd4, %rd3, %rd2;\n st.global.u64 [%rd1], %rd4;\n"
     << "DONE:\n ret;\n}\n";
  return os.str();
}

// -ptxsim_fence_{cta,gpu,sys}_cycles: a MEMBAR (fence, membar, and the one ptxas puts before a
// release atom/red/st) makes the warp's next instruction wait its scope's cost; proxy fences and
// relaxed atomics are not MEMBARs.
TEST(Timing, FencesWaitTheirScopesCost) {
  timing::TimingConfig cfg = noFetch();
  cfg.core.fenceCtaCycles = 8;
  cfg.core.fenceGpuCycles = 600;
  cfg.core.fenceSysCycles = 1300;
  auto cycles = [&](const std::string &inst, int n) {
    TimingHarness t(cfg);
    EXPECT_TRUE(t.load(fenced(inst, n))) << t.h.errors;
    uint64_t out = t.h.alloc(8);
    auto r = t.run("k", {1}, {32}, {out});
    EXPECT_TRUE(r.result.ok()) << r.result.message;
    return int64_t(t.h.read<uint64_t>(out, 1)[0]);
  };
  // two more fences: two more waits of the scope's cost
  auto perFence = [&](const std::string &inst) { return (cycles(inst, 4) - cycles(inst, 2)) / 2; };
  EXPECT_EQ(perFence("fence.sc.gpu;"), 600);
  EXPECT_EQ(perFence("fence.acq_rel.gpu;"), 600);
  EXPECT_EQ(perFence("membar.gl;"), 600);
  EXPECT_EQ(perFence("fence.sc.cta;"), 8);
  EXPECT_EQ(perFence("membar.cta;"), 8);
  EXPECT_EQ(perFence("fence.sc.sys;"), 1300);
  EXPECT_EQ(perFence("membar.sys;"), 1300);
  // a release reduction waits for the MEMBAR ptxas puts before it; a relaxed one does not
  const int64_t relaxed = perFence("red.relaxed.gpu.global.add.u32 [%rd1], 1;");
  EXPECT_LT(relaxed, 100);
  EXPECT_EQ(perFence("red.release.gpu.global.add.u32 [%rd1], 1;") - relaxed, 600);
  EXPECT_EQ(perFence("red.release.sys.global.add.u32 [%rd1], 1;") - relaxed, 1300);
  EXPECT_EQ(perFence("atom.acq_rel.gpu.global.add.u32 %q1, [%rd1], 1;") -
                perFence("atom.relaxed.gpu.global.add.u32 %q1, [%rd1], 1;"),
            600);
  EXPECT_LT(perFence("fence.proxy.async;"), 100);
  cfg.core.fenceGpuCycles = 0; // the default: free
  EXPECT_LT(perFence("fence.sc.gpu;"), 100);
}

// -ptxsim_its_leave_calls: lanes that return from a call made in another function while other
// lanes are still in it run the rest of the kernel as a group of their own (ptxas puts no
// convergence barrier after the call), so the code after the call issues once per group; a
// recursive call's lanes still meet at its return. Results are the same either way.
std::string leaveCallsPtx(int after, bool recursive) {
  std::ostringstream os;
  os << ptxHeader()
     << ".func (.param .b32 res) f(.param .b32 n) {\n .reg .pred %p<2>; .reg .b32 %r<4>;\n"
        " ld.param.u32 %r1, [n];\n setp.lt.s32 %p1, %r1, 1;\n @%p1 bra DONE;\n";
  if (recursive) // f(n) = f(n - 1) + 5 for n > 0: lanes meet at the recursive call's return
    os << " add.s32 %r2, %r1, -1;\n { .param .b32 a; .param .b32 b; st.param.b32 [a], %r2;\n"
          " call.uni (b), f, (a);\n ld.param.b32 %r3, [b]; }\n add.s32 %r1, %r3, 5;\n";
  else
    for (int i = 0; i < 8; ++i)
      os << " add.s32 %r1, %r1, 3;\n";
  os << "DONE:\n st.param.b32 [res], %r1;\n ret;\n}\n"
     << ".visible .entry k(.param .u64 out) {\n .reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
        " ld.param.u64 %rd1, [out];\n mov.u32 %r1, %tid.x;\n and.b32 %r2, %r1, 3;\n"
        " { .param .b32 a; .param .b32 b; st.param.b32 [a], %r2;\n call.uni (b), f, (a);\n"
        " ld.param.b32 %r3, [b]; }\n";
  for (int i = 0; i < after; ++i)
    os << " add.s32 %r3, %r3, 7;\n";
  os << " mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], %r3;\n"
        " ret;\n}\n";
  return os.str();
}

TEST(Timing, LanesLeavingACallRunOnApart) {
  struct Out {
    double warpInsts;
    std::vector<uint32_t> values;
  };
  auto run = [](bool leave, int after, bool recursive) {
    timing::TimingConfig cfg = noFetch();
    cfg.core.itsLeaveCalls = leave;
    ExecHarness h{1, ptx::exec::SimtMode::Its, false, false, false, 0, leave};
    EXPECT_TRUE(h.load(leaveCallsPtx(after, recursive))) << h.errors;
    sim::KernelSimulator sim(cfg, *h.engine);
    const ptx::exec::Kernel *k = h.engine->findKernel("k", h.module);
    uint64_t out = h.alloc(32 * 4);
    std::vector<uint8_t> buf(k->paramBytes + 8);
    std::memcpy(buf.data() + k->paramOffsets[0], &out, 8);
    ptx::exec::LaunchParams p;
    p.kernel = k;
    p.grid = {1};
    p.block = {32};
    p.params = buf.data();
    sim::KernelRun r = sim.run(p);
    EXPECT_TRUE(r.launch.ok()) << r.launch.message;
    return Out{r.stats.get("gpu.warp_insts"), h.read<uint32_t>(out, 32)};
  };
  for (bool recursive : {false, true}) {
    const Out joined10 = run(false, 10, recursive), joined30 = run(false, 30, recursive);
    const Out apart10 = run(true, 10, recursive), apart30 = run(true, 30, recursive);
    EXPECT_EQ(apart10.values, joined10.values); // the same results
    EXPECT_EQ(apart30.values, joined30.values);
    for (unsigned l = 0; l < 32; ++l) {
      const uint32_t n = l & 3, f = recursive ? 5 * n : n == 0 ? 0 : n + 24;
      EXPECT_EQ(joined30.values[l], f + 7 * 30) << "lane " << l;
    }
    // one warp: 20 more instructions after the call issue once as one group...
    EXPECT_EQ(joined30.warpInsts - joined10.warpInsts, 20);
    // ...and twice when the lanes with n == 0 left the call at once: they run on apart (also
    // out of a recursive function, whose other lanes meet at each recursive return)
    EXPECT_EQ(apart30.warpInsts - apart10.warpInsts, 40) << (recursive ? "recursive" : "plain");
  }
}

// -ptxsim_{div,sqrt}_*_latency: IEEE division and square root and integer division by a
// register are SASS sequences; a dependent chain of them takes the sequence's latency per
// instruction. Integer division by an immediate (multiply and shifts) keeps its class's.
TEST(Timing, DivisionSequencesTakeTheirLatency) {
  timing::TimingConfig cfg = noFetch();
  cfg.core.divF32Latency = 58;
  cfg.core.sqrtF32Latency = 56;
  cfg.core.divFullF32Latency = 45;
  cfg.core.divU32Latency = 60;
  cfg.core.divS64Latency = 331;
  auto perInst = [&](const std::string &inst) {
    auto cycles = [&](int n) {
      TimingHarness t(cfg);
      EXPECT_TRUE(t.load(fenced(inst, n))) << t.h.errors;
      uint64_t out = t.h.alloc(8);
      auto r = t.run("k", {1}, {32}, {out});
      EXPECT_TRUE(r.result.ok()) << r.result.message;
      return int64_t(t.h.read<uint64_t>(out, 1)[0]);
    };
    return (cycles(6) - cycles(2)) / 4;
  };
  EXPECT_EQ(perInst("div.rn.f32 %f1, %f1, %f2;"), 58);
  EXPECT_EQ(perInst("div.rz.f32 %f1, %f1, %f2;"), 58);
  EXPECT_EQ(perInst("div.full.f32 %f1, %f1, %f2;"), 45);
  EXPECT_EQ(perInst("sqrt.rn.f32 %f1, %f1;"), 56);
  EXPECT_EQ(perInst("div.u32 %q1, %q1, %q2;"), 60);
  EXPECT_EQ(perInst("rem.u32 %q1, %q1, %q2;"), 60);
  EXPECT_EQ(perInst("div.s64 %d1, %d1, %d2;"), 331);
  const int64_t sfu = perInst("div.u32 %q1, %q1, 3;"); // by an immediate: not a sequence
  EXPECT_LT(sfu, 60);
  cfg.core.divF32Latency = 0; // the default: the class's latency
  EXPECT_LT(perInst("div.rn.f32 %f1, %f1, %f2;"), 58);
}

// A two-level scheduler with fewer active places than warps must not stall for good: warps that
// exit early leave the active set at once (not when their CTA ends), and warps waiting at a
// barrier leave it so that the pending warps they wait for can run.
// n back-to-back bar.sync between two %clock64 reads; thread 0 stores the difference.
std::string barriers(int n) {
  std::ostringstream os;
  os << ptxHeader() << ".visible .entry k(.param .u64 out) {\n .reg .b64 %rd<5>;\n"
     << " .reg .b32 %r<2>;\n .reg .pred %p<2>;\n ld.param.u64 %rd1, [out];\n bar.sync 0;\n"
     << " mov.u64 %rd2, %clock64;\n";
  for (int i = 0; i < n; ++i)
    os << " bar.sync 0;\n";
  os << " mov.u64 %rd3, %clock64;\n mov.u32 %r1, %tid.x;\n setp.ne.u32 %p1, %r1, 0;\n"
     << " @%p1 bra DONE;\n sub.u64 %rd4, %rd3, %rd2;\n st.global.u64 [%rd1], %rd4;\n"
     << "DONE:\n ret;\n}\n";
  return os.str();
}

uint64_t barrierCycles(const timing::TimingConfig &cfg, int n, uint32_t threads) {
  TimingHarness t(cfg);
  EXPECT_TRUE(t.load(barriers(n))) << t.h.errors;
  uint64_t out = t.h.alloc(8);
  auto r = t.run("k", {1}, {threads}, {out});
  EXPECT_TRUE(r.result.ok()) << r.result.message;
  return t.h.read<uint64_t>(out, 1)[0];
}

// -ptxsim_bar_arrive_cycles / -ptxsim_bar_release_cycles: the SM counts one arrival every A
// cycles and releases a barrier R cycles after its last arrival, so back-to-back barriers of w
// warps take R + A x w cycles each (an H100 SM: 12 + 2 x w, micro/sync.cu); without them a
// barrier is released in the cycle its last warp arrives.
TEST(Timing, BarriersCostArrivalsAndRelease) {
  timing::TimingConfig cfg = noFetch();
  cfg.core.schedulersPerSm = 4;
  cfg.core.barArriveCycles = 2;
  cfg.core.barReleaseCycles = 12;
  for (uint32_t warps : {1u, 8u, 32u}) {
    double per = double(barrierCycles(cfg, 64, warps * 32) - barrierCycles(cfg, 32, warps * 32)) / 32;
    EXPECT_DOUBLE_EQ(per, 12.0 + 2.0 * warps) << warps << " warps";
  }
  timing::TimingConfig off = noFetch();
  off.core.schedulersPerSm = 4;
  double per = double(barrierCycles(off, 64, 256) - barrierCycles(off, 32, 256)) / 32;
  EXPECT_LT(per, 12.0) << "without the options a barrier costs only its issue";
}

TEST(Timing, TwoLevelSchedulerSurvivesEarlyExitsAndBarriers) {
  const char *kKernel = R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<6>; .reg .b64 %rd<4>; .reg .pred %p<3>;
  .shared .align 4 .b32 buf[256];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, buf;
  add.u32 %r3, %r3, %r2;
  st.shared.u32 [%r3], %r1;
  bar.sync 0;
  xor.b32 %r4, %r2, 4;
  mov.u32 %r5, buf;
  add.u32 %r5, %r5, %r4;
  ld.shared.u32 %r4, [%r5];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  and.b32 %r2, %r1, 64;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 exit;
  ld.global.u32 %r4, [%rd3];
  add.u32 %r4, %r4, 1000;
  st.global.u32 [%rd3], %r4;
  ret;
})";
  timing::TimingConfig cfg = noFetch();
  cfg.core.scheduler = "two_level";
  cfg.core.twoLevelActiveWarps = 2;
  cfg.core.numClusters = 1;
  TimingHarness t(cfg);
  ASSERT_TRUE(t.load(ptxHeader() + kKernel)) << t.h.errors;
  uint64_t out = t.h.alloc(4 * 256 * 4);
  auto r = t.run("k", {4}, {256}, {out});
  ASSERT_TRUE(r.result.ok()) << r.result.message;
  auto v = t.h.read<uint32_t>(out, 256);
  for (uint32_t i = 0; i < 256; ++i)
    EXPECT_EQ(v[i], (i ^ 1) + ((i & 64) ? 0 : 1000)) << i;
}

} // namespace

// Timing and power joined by sim::KernelSimulator (what the runtime uses): twice the ALU work
// costs more dynamic energy in the SP pipelines, never less total than the static floor.
TEST(TimingPower, SimulatorJoinsTimingAndPower) {
  double spJ[2] = {0, 0};
  for (int i = 0; i < 2; ++i) {
    TimingHarness t;
    DiagEngine d;
    ASSERT_TRUE(t.load(aluChain(i ? 400 : 200))) << t.h.errors;
    t.sim = std::make_unique<sim::KernelSimulator>(t.cfg, *t.h.engine);
    ASSERT_TRUE(t.sim->enablePower(std::string(PTXSIM_TEST_DIR) + "/../configs/gtx480.power.xml", d));
    uint64_t out = t.h.alloc(4 * 64);
    auto r = t.run("k", {2}, {64}, {out});
    ASSERT_TRUE(r.result.ok()) << r.result.message;
    ASSERT_TRUE(r.power.has_value());
    for (auto &c : r.power->components)
      if (c.name == "sp")
        spJ[i] = c.dynamicJ;
    EXPECT_GE(r.power->avgW, t.sim->powerModel().staticW() * 0.999);
    EXPECT_GT(r.power->energyJ, 0);
  }
  EXPECT_GT(spJ[0], 0);
  EXPECT_NEAR(spJ[1] / spJ[0], 2.0, 0.05);
}

// The load-latency distribution sees every load of a pointer chase at the L1 hit latency, and
// the first (cold) one at DRAM latency; DRAM reports its own request latencies.
TEST(TimingStats, LoadAndDramLatencyDistributions) {
  timing::TimingConfig cfg = noFetch();
  TimingHarness t(cfg);
  ASSERT_TRUE(t.load(chase(64))) << t.h.errors;
  uint64_t buf = t.h.alloc(16), out = t.h.alloc(8);
  *reinterpret_cast<uint64_t *>(buf) = buf; // one line, pointing at itself
  auto r = t.run("k", {1}, {1}, {buf, out});
  ASSERT_TRUE(r.result.ok()) << r.result.message;
  EXPECT_EQ(r.stats.get("sm.load_latency.count"), 64 + 2); // the chase and two ld.param
  EXPECT_EQ(r.stats.get("sm.load_latency.min"), cfg.mem.l1Latency + 1);
  EXPECT_GT(r.stats.get("sm.load_latency.max"), cfg.mem.l2Latency); // the cold miss
  EXPECT_LE(r.stats.get("sm.load_latency.p50"), 2 * (cfg.mem.l1Latency + 1));
  EXPECT_GE(r.stats.get("dram.latency.count"), 1);
  EXPECT_GE(r.stats.get("dram.latency.min"), cfg.dram.tCL);
}

#include "timing/gpu/Gpu.h"

#include "base/Config.h"
#include "base/HostCores.h"

#include "ptx/exec/Counters.h"
#include "ptx/exec/LaunchPolicy.h"
#include "timing/ext/Extension.h"
#include "timing/gpu/TimingProfile.h"
#include "timing/gpu/WorkerPool.h"
#include "timing/mem/MemorySystem.h"
#include "timing/sm/Sm.h"
#include "timing/sm/core/CoreKinds.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>

namespace ptxsim::timing {

namespace {
using stats::Unit;

/// The GPU's statistics, declared once: kernel totals, the SMs' sums, formulas and the names
/// other tools use (collect() sets them in the order the dumps show).
struct GpuStatDecls {
  GpuStatDecls();
  stats::Counter cycles{"gpu.cycles", Unit::Cycles,
                        "core cycles from the kernel's start to its last CTA's end"};
  stats::Counter simSeconds{"gpu.sim_seconds", Unit::Seconds,
                            "simulated time of the kernel (core clock)"};
  stats::Counter warpInsts{"gpu.warp_insts", Unit::Count, "warp instructions issued"};
  stats::Counter threadInsts{"gpu.thread_insts", Unit::Count,
                             "thread instructions (active lanes of issued warp instructions)"};
  stats::Formula ipc{"gpu.ipc", Unit::Ratio, "warp instructions per core cycle (whole GPU)",
                     [this](const stats::Snapshot &s) {
                       return stats::ratio(s.get(warpInsts), s.get(cycles));
                     }};
  stats::Formula threadIpc{"gpu.thread_ipc", Unit::Ratio,
                           "thread instructions per core cycle (whole GPU)",
                           [this](const stats::Snapshot &s) {
                             return stats::ratio(s.get(threadInsts), s.get(cycles));
                           }};
  stats::Counter ctas{"gpu.ctas", Unit::Count, "CTAs run"};
  stats::Counter carveoutBytes{
      "gpu.shared_carveout_bytes", Unit::Bytes,
      "shared memory per SM the adaptive carve-out gave the kernel (-gpgpu_adaptive_cache_config)"};
  stats::Counter l1dBytes{"gpu.l1d_bytes", Unit::Bytes,
                          "L1D capacity per SM beside that carve-out (-gpgpu_adaptive_cache_config)"};
  stats::Counter stallCycles{"sm.stall_cycles", Unit::Cycles,
                             "scheduler-cycles without an issue while warps were resident"};
  stats::Counter stall[size_t(StallReason::Count)]; ///< by reason (none for StallReason::None)
  stats::Counter issueCycles{"sm.issue_cycles", Unit::Cycles, "scheduler-cycles that issued"};
  stats::Counter activeCycles{"sm.active_cycles", Unit::Cycles,
                              "SM-cycles with at least one resident CTA (sum over SMs)"};
  stats::Counter regBankConflictCycles{
      "sm.reg_bank_conflict_cycles", Unit::Cycles,
      "extra operand-collector cycles from register bank conflicts"};
  stats::Counter occupancy{"sm.occupancy", Unit::Ratio,
                           "resident warps / warp slots, averaged over active SM-cycles"};
  stats::Counter smWarpInsts{"sm[].warp_insts", Unit::Count, "warp instructions this SM issued"};
  stats::Counter smActiveCycles{"sm[].active_cycles", Unit::Cycles,
                                "cycles this SM had a resident CTA"};
  stats::Counter smCtas{"sm[].ctas", Unit::Count, "CTAs this SM ran"};
  stats::Stat l1dMisses; ///< declared by the LD/ST unit (resolved once, below)
  stats::Formula l1dMpki{"l1d.misses_per_1000_insts", Unit::PerKiloInst,
                         "L1D misses per 1000 warp instructions",
                         [this](const stats::Snapshot &s) {
                           return stats::ratio(s.get(l1dMisses) * 1000.0, s.get(warpInsts));
                         }};
  stats::Alias totSimCycle{"gpu_tot_sim_cycle", cycles, "GPGPU-Sim's name"};
  stats::Alias totSimInsn{"gpu_tot_sim_insn", threadInsts, "GPGPU-Sim's name"};
  stats::Alias numStallCycles{"NUM_STALL_CYCLES", stallCycles, "the scheduling study's name"};
  stats::Alias missesPer1000{"MISSES_PER_1000_INSTR", l1dMpki, "the scheduling study's name"};
  stats::Counter sampleEstimated{
      "sample.estimated", Unit::Ratio,
      "1 when sampling estimated the kernel's cycles (--sample), 0 when simulated in full"};
  stats::Counter sampleErrorPct{"sample.error_pct", Unit::Ratio,
                                "sampling's own estimate of its cycle error, percent"};
  stats::Counter sampleDetailedCtas{
      "sample.detailed_ctas", Unit::Ratio,
      "CTAs simulated cycle by cycle (--sample ctas; 0: the launch ran functionally)"};
};

GpuStatDecls::GpuStatDecls() {
  for (size_t i = 0; i < size_t(StallReason::Count); ++i)
    if (StallReason(i) != StallReason::None)
      stall[i] = stats::Counter(
          std::string("sm.stall.") + stallReasonName(StallReason(i)), Unit::Cycles,
          std::string("scheduler-cycles without an issue, reason: ") + stallReasonName(StallReason(i)));
  pipeRegistry(); // the pipes declare their sm.issued.<pipe> as they are added
  Sm::describeStats();
  MemorySystem::describeStats();
  l1dMisses = stats::Catalog::global().resolve("l1d.misses");
}

const GpuStatDecls &gpuStats() {
  static const GpuStatDecls &d = *new GpuStatDecls; // never destroyed (no static destructors)
  return d;
}
} // namespace

void registerTimingStatistics() { gpuStats(); }

Gpu::Gpu(const TimingConfig &cfg, ptx::exec::Engine &engine) : cfg_(cfg), engine_(engine) {
  mem_ = std::make_unique<MemorySystem>(cfg_);
  registerTimingStatistics();
  const SchedulerRegistry &reg = schedulerRegistry();
  for (uint32_t i = 0; i < cfg_.numSms(); ++i) {
    TimingConfig smCfg = cfg_;
    for (SmConfigFn adjust : smConfigFns()) // heterogeneous cores (timing/ext/Extension.h)
      adjust(smCfg, i);
    std::unique_ptr<Sm> sm = coreKindRegistry().create(smCfg, i, reg);
    if (!sm) { // (the kind comes from an extension's code, never from the user's input)
      std::fprintf(stderr, "ptxsim: internal error: SM %u: unknown core kind '%s'\n", i,
                   smCfg.core.kind.c_str());
      std::abort();
    }
    sms_.push_back(std::move(sm));
    // (dual issue may issue an instruction that reaches beyond the SM after a local one)
    parallelOk_ = parallelOk_ && smCfg.core.issueWidth <= 1;
  }
  hostThreads_ = engine.config().hostThreads;
  smUsed_.assign(sms_.size(), 1);
  smBefore_.resize(sms_.size());
}

unsigned Gpu::hostThreads() const {
  // by default at most one thread per 4 SMs: a per-cycle fork-join over more threads than that
  // costs more than the few SMs each would tick
  unsigned n = hostThreads_ ? hostThreads_
                            : std::min(base::usableCores(),
                                       std::max(1u, (unsigned)sms_.size() / 4));
  return std::max(1u, std::min<unsigned>(n, (unsigned)sms_.size()));
}

Gpu::~Gpu() = default;

namespace {
/// Host time per step of the cycle loop for TimingProfile: a no-op (one branch) when off.
struct ProfileClock {
  TimingProfile *p = nullptr;
  std::chrono::steady_clock::time_point last;
  void mark(unsigned step) {
    if (!p)
      return;
    auto t = std::chrono::steady_clock::now();
    p->seconds[step] += std::chrono::duration<double>(t - last).count();
    last = t;
  }
};
} // namespace

void Gpu::skipKernel(Cycle cycles) { now_ += cycles; }

void Gpu::noteDeviceWrite(const void *dst, uint64_t bytes) {
  if (!cfg_.mem.copiesFillL2 || !bytes)
    return;
  const ptx::exec::DeviceMemory &m = engine_.memory();
  uint64_t a = reinterpret_cast<uint64_t>(dst);
  if (!m.inArena(a)) // (not device memory: nothing to fill)
    return;
  mem_->hostWrite(a - m.arenaBegin() + Sm::kDeviceBase, bytes);
}

double Gpu::copySeconds(uint64_t bytes) const {
  return cfg_.pcieLatencyUs * 1e-6 + double(bytes) / (cfg_.pcieGBps * 1e9);
}

// The driver sizes the carve-out for the CTAs one SM can hold (by threads, registers, CTA and
// warp slots, and no more than the launch gives each SM), each with its shared memory and the
// system's reserve, and takes the smallest option that holds them, or the larger one that the
// kernel's preferred carve-out (a percentage of the largest) asks for. The L1D gets the rest.
void Gpu::applyCarveout(const ptx::exec::LaunchParams &p, uint64_t ctas) {
  const CoreConfig &c = cfg_.core;
  const Sm &sm0 = *sms_.front();
  uint64_t perSm = (ctas + sms_.size() - 1) / sms_.size();
  uint64_t n = std::max<uint64_t>(1, std::min<uint64_t>(sm0.ctaLimitWithoutShared(), perSm));
  uint64_t need = n * sm0.sharedPerCta();
  const uint64_t largest = uint64_t(c.shmemOptionsKib.back()) * 1024;
  if (p.carveoutHint >= 0)
    need = std::max(need, (largest * uint64_t(std::min(p.carveoutHint, 100)) + 99) / 100);
  uint64_t carve = largest;
  for (uint32_t k : c.shmemOptionsKib)
    if (uint64_t(k) * 1024 >= need) {
      carve = uint64_t(k) * 1024;
      break;
    }
  // the model's shared memory never exceeds -gpgpu_shmem_size (the largest option may be above)
  carve = std::min<uint64_t>(carve, c.sharedBytesPerSm);
  const CacheConfig &l1 = cfg_.mem.l1d;
  uint64_t l1Bytes = uint64_t(c.unifiedL1Kib) * 1024 - carve;
  uint32_t ways = uint32_t(std::max<uint64_t>(1, l1Bytes / (uint64_t(l1.sets) * l1.lineBytes)));
  carveoutBytes_ = uint32_t(carve);
  for (auto &sm : sms_)
    sm->setCarveout(uint32_t(carve), ways);
}

/// One launch while runKernel() drives it: the state its steps share.
struct Gpu::KernelRun {
  explicit KernelRun(const ptx::exec::LaunchParams &params) : p(params) {}
  const ptx::exec::LaunchParams &p;
  std::chrono::steady_clock::time_point hostStart;
  TimingProfile profile;
  ProfileClock prof;
  std::unique_ptr<ptx::exec::SteppedGrid> grid;
  /// An extension's launch (ptx/exec/LaunchPolicy.h): CTAs in groups, each on its named SM.
  ptx::exec::LaunchExtension *ext = nullptr;
  size_t group = 0, groupPos = 0;
  bool groupStarted = false;
  std::string extError;
  /// The split tick (tickLocal/tickShared): the parallel engine's phases, on one thread or more.
  bool split = false;
  ThreadTuner *tuner = nullptr; ///< this kernel's and grid shape's (kept across launches)
  uint32_t probesBefore = 0;
  Cycle start = 0, loopStart = 0;
  uint64_t total = 0, nextCta = 0;
  /// CTA sampling (docs/sampling.md): CTAs from `limit` on are not dispatched; they run
  /// functionally after the simulated ones and their cycles are extrapolated at steady IPC.
  uint64_t limit = 0;
  CtaSampler sampling;
  size_t rr = 0; ///< round-robin dispatch: the SM the next cycle starts at
  /// CTA dispatch rate: an SM starts at most one CTA every dispatchEvery cycles.
  Cycle dispatchEvery = 1;
  std::vector<Cycle> smDispatchAt;
  Cycle lastProgress = 0, lastSample = 0;
  uint64_t lastInsts = 0;
  bool deadlock = false;
  /// SMs holding CTAs (kept up to date at dispatch and retirement; it decides whether a cycle
  /// uses the threads).
  uint32_t busySms = 0;
  uint64_t ticked = 0;
  // the current cycle
  bool dispatching = false;   ///< CTAs left to dispatch by the round robin
  bool parallelCycle = false; ///< the SMs' phase runs on the pool's threads
  bool eligible = false;      ///< enough busy SMs for the threads (the tuner decides)
  bool clearGain = false;     ///< on the threads for the SMs' expected work, without the tuner
};

/// What the ordered phase found in a cycle.
struct Gpu::CycleOutcome {
  bool issued = false, smsIdle = true;
  uint64_t insts = 0;
};

ptx::exec::LaunchResult Gpu::runKernel(const ptx::exec::LaunchParams &p, KernelTimingStats &st) {
  KernelRun r(p);
  r.hostStart = std::chrono::steady_clock::now();
  if (TimingProfile::enabled()) {
    r.prof.p = &r.profile;
    r.prof.last = r.hostStart;
  }
  ptx::exec::LaunchResult err;
  r.grid = engine_.beginGrid(p, err, cfg_.numSms());
  if (!r.grid)
    return err;
  r.grid->setTimedClock(1000.0 / cfg_.core.clockMHz); // %clock64, %globaltimer follow the model
  r.grid->setLanes((uint32_t)sms_.size()); // one execution context per SM, whatever the threads
  r.ext = r.grid->extension();
  beginKernelOnSms(r);
  chooseEngine(r);
  beginCycleLoop(r);
  while (stepCycle(r))
    ++now_;
  // (the SMs' lanes leave the launch's last cycle holding back no stores: Sm::bufferStores)
  for (auto &sm : sms_)
    sm->endStoreBuffering();
  return finishKernel(r, st);
}

void Gpu::beginKernelOnSms(KernelRun &r) {
  const ptx::exec::LaunchParams &p = r.p;
  uint32_t threads = (uint32_t)p.block.count();
  uint32_t shared = p.kernel->staticShared + p.dynamicShared;
  for (size_t i = 0; i < sms_.size(); ++i) {
    Sm *sm = sms_[i].get();
    if (smUsed_[i]) // (an SM unused since its last reset counted nothing: still zero)
      sm->resetStats();
    sm->beginKernel(r.grid.get(), p.kernel, threads, shared, engine_.memory().arenaBegin());
  }
  if (cfg_.core.adaptiveL1 && !sms_.empty())
    applyCarveout(p, r.grid->numCtas());
  mem_->resetStats();
  // Cache state between kernels: warm (the default) or flushed, as Nsight Compute measures
  const LaunchConfig &lc = cfg_.launch;
  if (lc.flushL1)
    for (size_t i = 0; i < sms_.size(); ++i)
      if (smUsed_[i]) // (unused since its last flush: nothing to clear)
        sms_[i]->flushCaches();
  if (lc.flushL2)
    mem_->flushL2();
  // (the carve-out above may change an L1's ways on every SM: that clears no line an unused SM
  // holds, as it holds none, so the flags stay meaningful)
  std::fill(smUsed_.begin(), smUsed_.end(), 0);
}

void Gpu::chooseEngine(KernelRun &r) {
  // The parallel engine, unless an SM issues more than one instruction per warp and cycle. A
  // launch extension's hooks run between groups (dispatchGroup) or, for a CTA that ends, in
  // the ordered phase (Sm::mustStop), and its instructions reach beyond the SM (touchesOutside).
  r.split = parallelOk_;
  const unsigned nThreads = r.split ? hostThreads() : 1;
  if (nThreads > 1 && (!pool_ || pool_->threads() != nThreads))
    pool_ = std::make_unique<WorkerPool>(nThreads);
  else if (nThreads <= 1)
    pool_.reset();
  if (pool_ && minBusy_ != 0) {
    const ptx::exec::LaunchParams &p = r.p;
    TunerKey key{p.kernel, {p.grid.x, p.grid.y, p.grid.z}, {p.block.x, p.block.y, p.block.z}};
    for (auto &kv : tuners_)
      if (kv.first == key)
        r.tuner = &kv.second;
    if (!r.tuner) {
      if (tuners_.size() >= 256) // (a program with ever new grid shapes: forget the oldest)
        tuners_.erase(tuners_.begin());
      tuners_.emplace_back(key, ThreadTuner{});
      r.tuner = &tuners_.back().second;
    }
  }
  if (pool_)
    pool_->setProfiling(r.prof.p != nullptr);
  r.probesBefore = r.tuner ? r.tuner->probes() : 0;
}

void Gpu::beginCycleLoop(KernelRun &r) {
  const LaunchConfig &lc = cfg_.launch;
  r.start = now_;
  for (auto &sm : sms_) // (-ptxsim_l1i_fetch_at_launch: the code's first lines are on their way)
    sm->fetchEntry(now_);
  // Fixed launch cost: the front end reads the launch and sets up the grid before any CTA starts.
  now_ += lc.kernelLaunchLatency;
  r.total = r.limit = r.grid->numCtas();
  r.sampling.on = ctaSampling_ && !r.ext && !r.p.cooperative;
  r.dispatchEvery = std::max<uint32_t>(lc.ctaDispatchInterval, 1);
  r.smDispatchAt.assign(sms_.size(), 0);
  r.lastProgress = r.lastSample = now_;
  for (auto &sm : sms_)
    r.busySms += sm->residentCtas() != 0;
  smSum_.assign(sms_.size(), Sm::TickSummary{});
  for (size_t i = 0; i < sms_.size(); ++i)
    sms_[i]->summarize(smSum_[i], true);
  // An SM that went idle (no CTA, nothing in its LD/ST unit, so no reply can come) sleeps: the
  // cycle loop skips it until a CTA is dispatched to it. Its tick would change nothing (an
  // empty SM counts no cycles and no stalls) and its summary stays true, so the skip is exact;
  // the memory partitions do the same (MemorySystem::tickPartition). Only the split tick
  // (cores the parallel engine handles, no launch extension) puts SMs to sleep after a tick;
  // every engine starts the SMs idle at the launch's start asleep (a launch of a few CTAs
  // ticks only the SMs it uses).
  smAwake_.resize(sms_.size());
  awake_.clear();
  asleepInsts_ = 0;
  for (uint32_t i = 0; i < (uint32_t)sms_.size(); ++i) {
    smAwake_[i] = !smSum_[i].idle;
    if (smAwake_[i]) {
      awake_.push_back(i);
      useSm(i);
    } else {
      asleepInsts_ += smSum_[i].insts;
    }
  }
  awakeDirty_ = false;
  smWakeAt_.assign(sms_.size(), 0);
  smResident_.assign(sms_.size(), 0);
  smIdleTicks_.assign(sms_.size(), 0);
  smStopped_.assign(sms_.size(), 0);
  // SM windows: the split tick (on the threads, each SM's window on its own); no launch extension, cooperative launch or CTA sampling, which look at every SM in every
  // cycle (a window ends by the statistics sampler's next cycle)
  windowLen_ = smWindowFor(pool_ ? pool_->threads() : 1);
  windows_ = windowLen_ && r.split && !r.ext && !r.p.cooperative && !r.sampling.on;
  windowAlign_ = std::max(1u, windowLen_);
  smDoneTo_.assign(sms_.size(), 0);
  smResumeDue_.assign(sms_.size(), 0);
  smBusyTicks_.assign(sms_.size(), 0);
  smAheadTicks_.assign(sms_.size(), 0);
  smLastAhead_.assign(sms_.size(), 0);
  if (r.prof.p) {
    smWindowEnd_.assign(sms_.size(), TimingProfile::EndOther);
    smClockTicksBy_.assign(sms_.size() * TimingProfile::kWindowEnds, 0);
  }
  r.prof.mark(TimingProfile::Setup);
  r.loopStart = now_;
}

bool Gpu::stepCycle(KernelRun &r) {
  ++r.ticked;
  if (r.ext && !dispatchGroup(r))
    return false;
  const uint64_t dispatchedBefore = r.nextCta; // (the tuner sets cycles with dispatch apart)
  if (!r.ext && r.nextCta < r.limit)
    dispatchRoundRobin(r);
  // The interconnect first (one thread: it moves packets between every SM and partition),
  // then the partitions' L2 slices and DRAM channels and every SM's local part: those share
  // nothing (an SM's LD/ST unit touches only its own injection and reply queues), so they run
  // together on the pool's threads when enough SMs are busy and the tuner finds that the
  // threads pay. Then the ordered part, in SM order, for the SMs that stopped before an
  // instruction reaching beyond them or have a CTA to retire. One thread runs the same
  // phases, so the thread count never changes a result.
  r.prof.mark(TimingProfile::Dispatch);
  mem_->tickIcnt(now_);
  r.prof.mark(TimingProfile::Icnt);
  // CTAs left to dispatch by the round robin: the summaries then say which SMs can take one
  // (a launch extension's group dispatch asks the SMs themselves, as it is rare)
  r.dispatching = !r.ext && r.nextCta < r.limit;
  runLocalPhase(r, r.nextCta == dispatchedBefore);
  const CycleOutcome o = runOrderedPhase(r);
  r.prof.mark(TimingProfile::Ordered);
  if ((r.grid->faulted() && faultDue(r)) || kernelDone(r, o))
    return false;
  r.prof.mark(TimingProfile::Bookkeeping);
  if (!o.issued)
    skipIdleCycles(r);
  r.prof.mark(TimingProfile::IdleSkip);
  return true;
}

bool Gpu::dispatchGroup(KernelRun &r) {
  ptx::exec::LaunchExtension &ext = *r.ext;
  // group by group: the next group starts when every CTA of the previous one has ended
  if (r.groupStarted && r.groupPos == ext.groups[r.group].size() && residentCtas() == 0) {
    r.extError = ext.endGroup(r.group, r.grid->memory());
    r.groupStarted = false;
    ++r.group;
    r.groupPos = 0;
  }
  if (r.extError.empty() && !r.groupStarted && r.group < ext.groups.size()) {
    r.extError = ext.beginGroup(r.group, r.grid->memory());
    r.groupStarted = true;
    std::fill(smWakeAt_.begin(), smWakeAt_.end(), 0); // (its hooks may change what warps see)
  }
  if (r.extError.empty() && r.groupStarted) {
    const std::vector<uint64_t> &g = ext.groups[r.group];
    // in group order, one CTA per SM per cycle, each on its own SM
    std::vector<uint8_t> took(sms_.size(), 0);
    while (r.groupPos < g.size()) {
      uint64_t c = g[r.groupPos];
      uint32_t smi = ext.smOf.empty() ? uint32_t(c % sms_.size()) : ext.smOf[c] % sms_.size();
      Sm &sm = *sms_[smi];
      if (took[smi] || !sm.canTakeCta()) {
        if (!took[smi] && sm.residentCtas() == 0)
          r.extError = "CTA " + std::to_string(c) + " does not fit on SM " + std::to_string(smi);
        break;
      }
      took[smi] = 1;
      r.busySms += sm.residentCtas() == 0;
      useSm(smi);
      flushIdleTicks(smi);
      sm.addCta(r.grid->startCta(c), r.nextCta);
      wakeSm(smi);
      ++r.nextCta;
      ++r.groupPos;
    }
  }
  return r.extError.empty();
}

uint32_t Gpu::residentCtas() const {
  uint32_t n = 0;
  for (auto &sm : sms_)
    n += sm->residentCtas();
  return n;
}

void Gpu::dispatchRoundRobin(KernelRun &r) {
  // CTA dispatch: at most one CTA per SM per cycle, round robin over the SMs
  for (size_t k = 0; k < sms_.size() && r.nextCta < r.limit; ++k) {
    size_t i = (r.rr + k) % sms_.size();
    // (the summary's canTake, not the SM: no pass over every SM's state in the cycle)
    if (r.smDispatchAt[i] <= now_ && smSum_[i].canTake) {
      Sm &sm = *sms_[i];
      flushIdleTicks(i); // (its idle ticks count with the CTAs it had)
      r.busySms += sm.residentCtas() == 0;
      useSm(i);
      // (with the split tick, the SM fills in the CTA's state in its own phase: on the
      // threads when they run)
      if (r.split)
        sm.addReservedCta(r.grid->reserveCta(r.nextCta), r.nextCta);
      else
        sm.addCta(r.grid->startCta(r.nextCta), r.nextCta);
      wakeSm(i);
      smSum_[i].canTake = sm.canTakeCta(); // (placedCtasOnly cores never get here)
      r.smDispatchAt[i] = now_ + r.dispatchEvery;
      ++r.nextCta;
    }
  }
  r.rr = (r.rr + 1) % sms_.size();
}

void Gpu::useSm(size_t i) {
  if (smUsed_[i])
    return;
  smUsed_[i] = 1;
  // (its schedulers' counters have not moved since the launch began: the SM was idle)
  smBefore_[i].clear();
  sms_[i]->appendSchedulerStats(smBefore_[i]);
}

void Gpu::wakeSm(size_t i) {
  smWakeAt_[i] = 0;
  if (smAwake_[i])
    return;
  smAwake_[i] = 1;
  asleepInsts_ -= smSum_[i].insts; // (its summary is that of its last tick)
  awakeDirty_ = true;
}

void Gpu::runLocalPhase(KernelRun &r, bool noDispatch) {
  if (awakeDirty_) { // SMs woken by dispatch join the list, in SM order
    awake_.clear();
    for (uint32_t i = 0; i < (uint32_t)sms_.size(); ++i)
      if (smAwake_[i])
        awake_.push_back(i);
    awakeDirty_ = false;
  }
  r.parallelCycle = r.eligible = r.clearGain = false;
  if (pool_) {
    // (memory partitions tick in the same job: a kernel's tail with few busy SMs may still
    // pay for the threads; the tuner finds out)
    // With SM windows: the SMs whose own phase runs in this cycle (not ahead) and is no idle
    // tick (a few counters), and the partitions awake, the job's items with work to do. Most
    // cycles then find most SMs ahead, and those in which windows end carry up to a window's
    // ticks of each SM due: a cycle whose SMs are expected to tick enough to pay for the
    // threads without a doubt runs on them (ThreadTuner::clearGain), the tuner decides for the
    // others.
    uint32_t ticking = 0;
    uint64_t work = 0, most = 0;
    if (windows_)
      smsDue(ticking, work, most, dueLater_);
    const uint32_t busy = windows_ ? ticking + mem_->awakePartitions() : r.busySms;
    // (windows begun in a cycle with few SMs ticking end at a finer multiple, a sixteenth of
    // the window: an SM's window is one indivisible item of the threads' job, and SMs whose
    // windows broke off at different cycles would each run to the next full multiple alone,
    // one thread busy and the others waiting. The finer ends bring them back together. With at
    // least 8 such SMs per thread the items balance. The profile's "balance on the threads".)
    windowAlign_ = ticking < 8 * pool_->threads() ? std::max(1u, windowLen_ / 16) : windowLen_;
    r.clearGain =
        windows_ && minBusy_ != 0 && ThreadTuner::clearGain(work, most, pool_->threads());
    r.parallelCycle =
        r.clearGain || busy >= (minBusy_ == ~0u ? std::max(2u, pool_->threads() / 2) : minBusy_);
    r.eligible = r.parallelCycle;
    // on a loaded host or with little work per cycle the threads can cost more than they
    // save: the tuner measures (the testing knob minBusy_ == 0 always uses the threads)
    if (r.parallelCycle && r.tuner && !r.clearGain)
      r.parallelCycle = r.tuner->useThreads();
  } else if (r.prof.p) {
    r.eligible = r.split && r.busySms >= 2; // (the profile's estimate for more threads)
  }
  const bool tuned = r.eligible && r.tuner && !r.clearGain; // the tuner counts the cycle ...
  // ... and times it, unless it keeps one thread until its next probe
  const bool timed = tuned && r.tuner->wantsTimes();
  auto phaseStart =
      timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
  double threadSeconds = 0; // the threads' summed time in the phase's calls (the profile's)
  if (r.parallelCycle && r.prof.p)
    profTicks_ = smBusyTicks_; // (the balance's figures: each SM's ticks in this cycle)
  if (r.parallelCycle)
    threadSeconds = tickLocalOnThreads(r);
  else
    tickLocalSerial(r);
  if (r.prof.p) {
    if (r.parallelCycle) {
      uint64_t ticks = 0, most = 0;
      for (size_t i = 0; i < sms_.size(); ++i) {
        const uint64_t t = smBusyTicks_[i] - profTicks_[i];
        ticks += t;
        most = std::max(most, t);
      }
      const unsigned n = pool_->threads();
      r.profile.threadTicks += ticks;
      r.profile.criticalTicks += std::max(most, (ticks + n - 1) / n);
      ++r.profile.threadCycles;
      r.profile.clearGainCycles += r.clearGain;
      ++r.profile.jobs;
      r.profile.threadWork += threadSeconds;
    } else {
      ++(r.eligible ? r.profile.tunerSerialCycles : r.profile.fewSmsCycles);
    }
    r.prof.mark(r.parallelCycle ? TimingProfile::PhaseThreads
                : r.eligible    ? TimingProfile::PhaseSerial
                                : TimingProfile::PhaseFewSms);
  }
  mem_->endTick(now_);
  if (timed) {
    r.tuner->record(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - phaseStart).count(),
        noDispatch);
  } else if (tuned) {
    r.tuner->record(0, noDispatch);
  } else if (r.clearGain && r.tuner) {
    r.tuner->noteClear();
  }
  // While the tuner keeps one thread until its next probe, the pool's threads get only the
  // clearGain cycles' jobs, far apart: they sleep between them rather than spin and yield
  // (spinning and yielding, the 500-launch stencil on 2 threads took 2.3x the CPU of one
  // thread and 1.2x its wall time on the development machine), and are woken a few cycles
  // before the next cycle the SMs ahead are due in would be one (dueLater_), so that they
  // are up when its job comes.
  if (pool_ && !r.parallelCycle && r.tuner && !r.tuner->useThreads() && !r.tuner->probing()) {
    if (windows_ && minBusy_ != 0 && dueLater_.at - now_ <= kWakeAhead &&
        ThreadTuner::clearGain(dueLater_.work, dueLater_.most, pool_->threads()))
      pool_->wake();
    else
      pool_->rest();
  }
  r.prof.mark(TimingProfile::EndTick);
}

double Gpu::tickLocalOnThreads(const KernelRun &r) {
  // SMs and partitions interleaved in proportion (item i is an SM when the SMs' share of the
  // first i + 1 items grows at i), so each thread's contiguous share of the items has as many
  // SMs and partitions as any other: the threads rarely need to steal, and an SM keeps ticking
  // on the same core, its state in that core's cache.
  const uint32_t nSms = (uint32_t)sms_.size();
  struct Job {
    Gpu *gpu;
    const KernelRun *r;
    uint32_t nSms, count;
    Cycle now;
  } job{this, &r, nSms, nSms + mem_->numPartitions(), now_};
  mem_->partitionsTickedApart();
  return pool_->run(
      job.count,
      [](void *c, size_t i) {
        Job &j = *static_cast<Job *>(c);
        const uint64_t smsBefore = uint64_t(i) * j.nSms / j.count;
        if (uint64_t(i + 1) * j.nSms / j.count > smsBefore) {
          if (j.gpu->smAwake_[smsBefore])
            j.gpu->tickSmLocal(smsBefore, *j.r);
        } else {
          j.gpu->mem_->tickPartition(uint32_t(i - smsBefore), j.now);
        }
      },
      &job);
}

inline bool Gpu::idleTickDue(size_t i, Cycle now) const {
  return smWakeAt_[i] > now && !mem_->hasResponse(uint32_t(i));
}

void Gpu::countIdleTick(size_t i, Cycle now) {
  // Nothing can happen in this SM before smWakeAt_ unless a reply or a CTA arrives (which
  // clears it): the tick would find every warp as the last one did. Its summary stands.
  // (Counted in a batch where no scheduler needs its per-cycle hook: 3 % of a program of
  // small launches went to these ticks.)
  Sm &sm = *sms_[i];
  if (sm.idleTicksBatchable())
    smIdleTicks_[i] += sm.residentCtas() != 0; // (with no CTA a tick counts nothing)
  else
    sm.idleTick(now, smResident_[i]);
}

void Gpu::tickSmLocal(size_t i, const KernelRun &r) {
  const Cycle now = now_;
  bool resumeDue;
  if (ranAhead(i, now, resumeDue)) {
    if (resumeDue)
      tickSmWindow(i, r);
  } else if (idleTickDue(i, now)) {
    countIdleTick(i, now);
  } else if (windows_) {
    tickSmWindow(i, r);
  } else {
    tickSmBusy(i, now, r.dispatching);
  }
}

// (inline in its two callers, the serial loop's and the threads': no frame per SM tick)
inline __attribute__((always_inline)) void Gpu::tickSmBusy(size_t i, Cycle now, bool dispatching) {
  Sm &sm = *sms_[i];
  flushIdleTicks(i);
  ++smBusyTicks_[i];
  const uint64_t resident = sm.stats().warpCyclesResident;
  const bool finished = sm.tickLocal(now, *mem_, true);
  Sm::TickSummary &sum = smSum_[i];
  sm.summarize(sum, dispatching);
  smResident_[i] = sm.stats().warpCyclesResident - resident;
  smStopped_[i] = !finished;
  // after a tick without an issue that left nothing to the ordered phase, the SM's own next
  // event: until then its ticks are idle ones (kNever: until a reply or a CTA comes)
  smWakeAt_[i] = finished && !sum.issued && !sum.needShared ? sm.ownNextEvent(now) : 0;
  if (sum.idle)
    sleepSm(i);
}

void Gpu::tickLocalSerial(const KernelRun &r) {
  mem_->tickPartitions(now_);
  if (!r.split) {
    const size_t n = awake_.size();
    for (size_t k = 0; k < n; ++k) {
      // (the next SMs' state on its way into the cache while this one ticks)
      if (k + 2 < n)
        sms_[awake_[k + 2]]->prefetchState();
      if (k + 1 < n)
        sms_[awake_[k + 1]]->prefetchWarps(now_);
      Sm &sm = *sms_[awake_[k]];
      sm.tick(now_, *mem_); // the whole tick, SM by SM (the order the split reproduces)
      sm.summarize(smSum_[awake_[k]], r.dispatching);
    }
    return;
  }
  // The idle ticks first (SMs share nothing in this phase: the order changes no result), then
  // the SMs that tick, the next ones' state on its way into the cache while one ticks (not
  // that of SMs whose idle tick reads none of it).
  busyScratch_.clear();
  for (uint32_t i : awake_) {
    bool resumeDue;
    if (ranAhead(i, now_, resumeDue)) {
      if (resumeDue)
        busyScratch_.push_back(i);
      continue;
    }
    if (idleTickDue(i, now_))
      countIdleTick(i, now_);
    else
      busyScratch_.push_back(i);
  }
  const size_t n = busyScratch_.size();
  for (size_t k = 0; k < n; ++k) {
    if (k + 2 < n)
      sms_[busyScratch_[k + 2]]->prefetchState();
    if (k + 1 < n)
      sms_[busyScratch_[k + 1]]->prefetchWarps(now_);
    if (windows_)
      tickSmWindow(busyScratch_[k], r);
    else
      tickSmBusy(busyScratch_[k], now_, r.dispatching);
  }
}

void Gpu::tickSmWindow(size_t i, const KernelRun &r) {
  Sm &sm = *sms_[i];
  if (smResumeDue_[i]) { // (due now: tickLocalSerial passes it on only then)
    smResumeDue_[i] = 0;
    resumeSm(i, now_, r.dispatching);
    return;
  }
  tickSmBusy(i, now_, r.dispatching);
  const bool prof = r.prof.p != nullptr;
  if (prof) // (a tick on the GPU's clock, after whatever ended the SM's last window)
    ++smClockTicksBy_[i * TimingProfile::kWindowEnds + smWindowEnd_[i]];
  // Then its next cycles, ahead of the GPU: exact because nothing outside the SM reaches it
  // before it sends something to the memory system or the ordered phase (Sm::windowReady) or a
  // response it waits for can arrive (MemorySystem::responseMayArrive), and what it does in
  // them reads nothing that other SMs or the memory system write meanwhile (Sm::windowSafe).
  // Its ordered part, a dispatch to it and an idle tick wait for their cycle.
  Cycle c = now_ + 1;
  smLastAhead_[i] = 0;
  if (!windowCanGo(i, r, c)) {
    if (prof)
      smWindowEnd_[i] = uint8_t(windowEndOf(i, r, c));
    return;
  }
  // (to the next multiple of the window, or of windowAlign_'s finer one: windows that run their
  // whole length end together, so that the next cycle has every such SM's work for the threads
  // to share)
  Cycle last = (now_ / windowAlign_ + 1) * windowAlign_;
  if (sampleEvery_) // (the sampler reads every SM after that cycle's ordered phase)
    last = std::min(last, r.lastSample + sampleEvery_);
  if (prof)
    smWindowEnd_[i] = TimingProfile::EndLength; // (unless it ends before `last`, below)
  sm.setWindow(true);
  const Cycle first = c;
  for (; c <= last; ++c) {
    ++smAheadTicks_[i];
    tickSmBusy(i, c, r.dispatching);
    if (sm.windowStopped()) { // the rest of cycle c's tick at cycle c (resumeSm)
      smDoneTo_[i] = c;
      smResumeDue_[i] = 1;
      if (prof)
        smWindowEnd_[i] = TimingProfile::EndBeyond;
      break;
    }
    smDoneTo_[i] = c + 1;
    if (!windowCanGo(i, r, c + 1)) {
      if (prof)
        smWindowEnd_[i] = uint8_t(windowEndOf(i, r, c + 1));
      break;
    }
  }
  sm.setWindow(false);
  // (what the next cycle this SM is due in expects of it: runLocalPhase, ThreadTuner::clearGain)
  smLastAhead_[i] = uint32_t(std::min<Cycle>(c, last) - first + 1);
}

void Gpu::smsDue(uint32_t &ticking, uint64_t &work, uint64_t &most, DueLater &later) const {
  uint32_t t = 0;
  uint64_t w = 0, m = 0;
  DueLater l;
  for (uint32_t i : awake_) {
    bool resumeDue;
    if (ranAhead(i, now_, resumeDue)) {
      t += resumeDue;
      w += resumeDue;
      m = std::max<uint64_t>(m, resumeDue);
      if (!resumeDue) { // (due again at smDoneTo_: its window's ticks again, or a resumption)
        const Cycle at = smDoneTo_[i];
        const uint64_t e = smResumeDue_[i] ? 1 : 1 + uint64_t(smLastAhead_[i]);
        if (at < l.at)
          l = DueLater{at, e, e};
        else if (at == l.at)
          l.work += e, l.most = std::max(l.most, e);
      }
    } else if (!idleTickDue(i, now_)) {
      ++t;
      const uint64_t e = 1 + uint64_t(smLastAhead_[i]);
      w += e;
      m = std::max(m, e);
    }
  }
  ticking = t;
  work = w;
  most = m;
  later = l;
}

TimingProfile::WindowEnd Gpu::windowEndOf(size_t i, const KernelRun &r, Cycle next) const {
  const Sm::TickSummary &sum = smSum_[i];
  const Sm &sm = *sms_[i];
  if (sum.needShared)
    return TimingProfile::EndOrdered;
  if (sum.idle)
    return TimingProfile::EndOther;
  if (r.dispatching && sum.canTake)
    return TimingProfile::EndDispatch;
  if (idleTickDue(i, next))
    return TimingProfile::EndIdle;
  if (r.grid->faulted())
    return TimingProfile::EndOther;
  if (!sm.windowReady())
    return sm.holdsOrderedWork() ? TimingProfile::EndOrdered
           : !sm.ldstQuiet()     ? TimingProfile::EndLdst
                                 : TimingProfile::EndOther;
  if (sm.awaitingResponses() && mem_->responseMayArrive(uint32_t(i), next))
    return TimingProfile::EndResponse;
  return TimingProfile::kWindowEnds; // (nothing ends the window: windowCanGo)
}

void Gpu::resumeSm(size_t i, Cycle now, bool dispatching) {
  // tickSmBusy's bookkeeping for the whole tick (its first part counted its resident warps)
  Sm &sm = *sms_[i];
  const uint64_t resident = sm.stats().warpCyclesResident;
  const bool finished = sm.resumeLocal(now);
  Sm::TickSummary &sum = smSum_[i];
  sm.summarize(sum, dispatching);
  smResident_[i] += sm.stats().warpCyclesResident - resident;
  smStopped_[i] = !finished;
  smWakeAt_[i] = finished && !sum.issued && !sum.needShared ? sm.ownNextEvent(now) : 0;
  if (sum.idle)
    sleepSm(i);
}

bool Gpu::faultDue(const KernelRun &r) const {
  if (!windows_)
    return true;
  // (a lane's fault in a cycle its SM ran ahead to ends the launch at that cycle; one of no
  // lane, the kernel timeout's, at once)
  bool anyLane = false;
  for (size_t i = 0; i < sms_.size(); ++i)
    if (r.grid->laneFaulted(uint32_t(i))) {
      if (!smAhead(i, now_))
        return true;
      anyLane = true;
    }
  return !anyLane;
}

Gpu::CycleOutcome Gpu::runOrderedPhase(KernelRun &r) {
  // The ordered phase and the cycle's bookkeeping read the SMs' summaries (one array) rather
  // than every SM: no per-SM pass over state other threads just wrote. The SMs asleep since an
  // earlier cycle are idle, issue nothing and keep their instruction counts (asleepInsts_):
  // only the awake ones are visited.
  CycleOutcome o;
  o.insts = asleepInsts_;
  bool stopped = false, fellAsleep = false;
  for (uint32_t i : awake_) {
    Sm::TickSummary &sum = smSum_[i];
    if (windows_ && smAhead(i, now_)) {
      // (ran ahead: busy, and no cycle is skipped while it is ahead)
      o.issued = true;
      o.smsIdle = false;
      o.insts += sum.insts;
      continue;
    }
    if (r.split && sum.needShared) {
      Sm &sm = *sms_[i];
      stopped = stopped || smStopped_[i];
      smStopped_[i] = 0;
      bool wasBusy = sm.residentCtas() != 0;
      sm.tickShared(now_);
      sm.summarize(sum, r.dispatching);
      r.busySms -= wasBusy && sm.residentCtas() == 0;
      if (sum.idle)
        sleepSm(i);
    }
    o.issued |= sum.issued != 0;
    o.smsIdle = o.smsIdle && sum.idle;
    o.insts += sum.insts;
    if (!smAwake_[i]) { // (fell asleep: its next ticks would issue nothing)
      sum.issued = 0;
      asleepInsts_ += sum.insts;
      fellAsleep = true;
    }
  }
  if (fellAsleep)
    awake_.erase(std::remove_if(awake_.begin(), awake_.end(),
                                [this](uint32_t i) { return !smAwake_[i]; }),
                 awake_.end());
  // An instruction of the ordered phase (a blocking one, a runtime call, ...) may release
  // warps of other SMs (a cluster barrier): every SM then looks at its warps again.
  if (stopped)
    std::fill(smWakeAt_.begin(), smWakeAt_.end(), 0);
  if (!r.split) {
    r.busySms = 0;
    for (auto &sm : sms_)
      r.busySms += sm->residentCtas() != 0;
  }
  return o;
}

bool Gpu::kernelDone(KernelRun &r, const CycleOutcome &o) {
  if (sampleEvery_ && now_ - r.lastSample >= sampleEvery_) {
    flushIdleTicks();
    KernelTimingStats snap;
    collect(snap, r.p.kernel->name, r.start, r.grid.get());
    sampler_(snap);
    r.lastSample = now_;
  }
  if (r.sampling.on && r.limit == r.total)
    r.sampling.observe(*this, r.nextCta, r.total, r.limit);
  if (r.nextCta == r.limit && o.smsIdle && mem_->idle())
    return true;
  return noProgress(r, o.insts);
}

bool Gpu::noProgress(KernelRun &r, uint64_t insts) {
  if (insts != r.lastInsts) {
    r.lastInsts = insts;
    r.lastProgress = now_;
  } else if (now_ - r.lastProgress > noProgressCycles_) {
    r.deadlock = true; // nothing issued for that long: report instead of hanging
    return true;
  }
  return false;
}

void Gpu::skipIdleCycles(KernelRun &r) {
  // Skip cycles in which nothing can change.
  bool canDispatch = false;
  Cycle nextDispatch = kNever; // an SM with room waits for its dispatch interval
  if (r.nextCta < r.limit)
    for (size_t i = 0; i < sms_.size(); ++i)
      if (r.ext ? sms_[i]->canTakeCta() : smSum_[i].canTake) {
        canDispatch = canDispatch || r.smDispatchAt[i] <= now_ + 1;
        nextDispatch = std::min(nextDispatch, r.smDispatchAt[i]);
      }
  if (canDispatch)
    return;
  Cycle next = mem_->idle() ? kNever : mem_->nextEventCycle(now_);
  next = std::min(next, nextDispatch);
  // (the SMs' next events can only bring `next` closer: when the memory system or dispatch
  // acts in the next cycle anyway, nothing is skipped and the SMs need no look; on
  // memory-bound kernels that is most cycles without an issue)
  if (next <= now_ + 1)
    return;
  next = std::min(next, nextSmEvent());
  if (next != kNever && next > now_ + 1) {
    uint64_t skip = next - now_ - 1;
    for (uint32_t i : awake_) // (an SM asleep has no CTA and counts nothing)
      sms_[i]->skipCycles(skip, smResident_[i]);
    now_ += skip;
  }
}

Cycle Gpu::smNextEvent(size_t i, Cycle now) const {
  // (an SM whose own next event is known from its last tick, its warps unchanged since, has
  // the same one now: each of its terms is later than `now`)
  const Cycle own = smWakeAt_[i] > now ? smWakeAt_[i] : 0;
  if (!own)
    return sms_[i]->nextEventCycle(now);
  return own == kNever && sms_[i]->residentCtas() ? now + 1 : own;
}

Cycle Gpu::nextSmEvent() const {
  // On this thread, over the awake SMs, whatever the phase ran on: most SMs' next event is
  // known from their last tick (smWakeAt_), the others' reads a few of their warps, and the
  // search stops at the first SM that acts in the next cycle. A fork-join over every SM cost
  // more than that on any kernel (on the H100 preset, 16 threads: 0.15 to 2.6 us per ticked
  // cycle, against 0.07 to 0.16 on one thread).
  Cycle next = kNever;
  for (uint32_t i : awake_) {
    next = std::min(next, smNextEvent(i, now_));
    if (next <= now_ + 1)
      break; // (nothing to skip)
  }
  return next;
}

ptx::exec::LaunchResult Gpu::finishKernel(KernelRun &r, KernelTimingStats &st) {
  flushIdleTicks();
  const Cycle loopEnd = now_;
  const Cycle simulatedCycles = now_ - r.start;
  const bool faulted = r.grid->faulted();
  // CTA sampling: the CTAs not simulated run functionally; their cycles at the steady IPC
  uint64_t extraWarp = 0, extraThread = 0;
  if (r.limit < r.total && !faulted && !r.deadlock) {
    uint64_t w0, t0, w1, t1;
    r.grid->instsSoFar(w0, t0);
    r.grid->runFunctionally(r.limit, r.total);
    r.grid->instsSoFar(w1, t1);
    extraWarp = w1 - w0;
    extraThread = t1 - t0;
    now_ += Cycle(std::llround(double(extraWarp) / r.sampling.steadyIpc));
  }
  // Fixed end cost: completion, memory flush and the front end's signal back to the host.
  if (!faulted && !r.deadlock)
    now_ += cfg_.launch.kernelDrainLatency;
  if (r.ext && r.extError.empty() && r.groupStarted && !faulted)
    r.extError = r.ext->endGroup(r.group, r.grid->memory());
  if (pool_) // (the host program runs until the next launch)
    pool_->rest();
  ptx::exec::LaunchResult res = r.grid->finish();
  const std::string &kernel = r.p.kernel->name;
  if (!r.extError.empty() && res.ok()) {
    res.status = ptx::exec::LaunchStatus::Fault;
    res.message = "kernel '" + kernel + "': " + r.ext->name() + ": " + r.extError;
  }
  res.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - r.hostStart).count();
  if (r.deadlock && res.ok()) {
    res.status = ptx::exec::LaunchStatus::Fault;
    res.message = r.grid->noProgressText(noProgressCycles_);
  }
  collect(st, kernel, r.start, r.grid.get());
  if (ctaSampling_ && !r.ext)
    addSamplingStats(r, st, extraWarp, extraThread, simulatedCycles);
  if (r.prof.p) {
    r.prof.mark(TimingProfile::Finish);
    r.profile.launches = 1;
    r.profile.cycles = loopEnd - r.loopStart;
    r.profile.ticked = r.ticked;
    r.profile.threads = pool_ ? pool_->threads() : 1;
    r.profile.probes = r.tuner ? r.tuner->probes() - r.probesBefore : 0;
    for (size_t i = 0; i < sms_.size(); ++i) {
      r.profile.smTicks += smBusyTicks_[i];
      r.profile.aheadTicks += smAheadTicks_[i];
      for (unsigned e = 0; e < TimingProfile::kWindowEnds && windows_; ++e)
        r.profile.clockTicksBy[e] += smClockTicksBy_[i * TimingProfile::kWindowEnds + e];
    }
    if (pool_)
      r.profile.callerWait = pool_->takeWaitSeconds();
    TimingProfile::accumulate(r.profile);
  }
  return res;
}

void Gpu::addSamplingStats(const KernelRun &r, KernelTimingStats &st, uint64_t extraWarp,
                           uint64_t extraThread, Cycle simulatedCycles) {
  const GpuStatDecls &d = gpuStats();
  const bool sampled = r.limit < r.total;
  if (sampled) {
    // counts scale with the instructions, cycle-valued statistics with the cycles
    double insts = st.warpInsts ? double(st.warpInsts + extraWarp) / double(st.warpInsts) : 1;
    double cyc = simulatedCycles ? double(st.cycles) / double(simulatedCycles) : 1;
    scaleStats(st, insts, cyc);
    st.warpInsts += extraWarp;
    st.threadInsts += extraThread;
    st.set(d.cycles, double(st.cycles));
    st.copy(d.totSimCycle);
    st.set(d.simSeconds, st.seconds);
    st.set(d.warpInsts, double(st.warpInsts));
    st.set(d.threadInsts, double(st.threadInsts));
    st.copy(d.totSimInsn);
    st.compute(d.ipc);
    st.compute(d.threadIpc);
    st.set(d.ctas, double(r.total));
  }
  st.set(d.sampleEstimated, sampled ? 1 : 0);
  // the IPC's change between the last two measured waves, plus how much the extrapolated
  // CTAs' instruction counts differ from the simulated ones' (CTAs unlike those measured may
  // not run at their IPC), on the extrapolated share
  double share = st.warpInsts ? double(extraWarp) / double(st.warpInsts) : 0;
  double hetero = 0;
  if (sampled && r.limit > 0 && st.warpInsts > extraWarp) {
    double simPerCta = double(st.warpInsts - extraWarp) / double(r.limit);
    double restPerCta = double(extraWarp) / double(r.total - r.limit);
    hetero = simPerCta > 0 ? std::fabs(restPerCta / simPerCta - 1) : 0;
  }
  st.set(d.sampleErrorPct, sampled ? 100.0 * (r.sampling.ipcChange + hetero) * share : 0);
  st.set(d.sampleDetailedCtas, double(r.limit));
}

void Gpu::CtaSampler::observe(const Gpu &gpu, uint64_t nextCta, uint64_t total, uint64_t &limit) {
  uint64_t resident = 0, insts = 0;
  for (auto &sm : gpu.sms_) {
    resident += sm->residentCtas();
    insts += sm->stats().warpInsts;
  }
  uint64_t completed = nextCta - resident;
  if (wave == 0) {
    if (completed == 0)
      return;
    wave = std::max<uint64_t>(1, resident + completed); // CTAs that were resident at once
    nextMark = wave;
  }
  if (completed < nextMark)
    return;
  // a wave boundary: the window since the last one gives an IPC
  nextMark += wave;
  if (marks++ > 0 && gpu.now_ > lastCycle) {
    double ipc = double(insts - lastInsts) / double(gpu.now_ - lastCycle);
    if (lastIpc > 0 && ipc > 0) {
      double change = std::fabs(ipc - lastIpc) / ipc;
      // steady, and at least a wave left to extrapolate: dispatch no more
      if (change <= kSteadyChange && total - nextCta >= wave) {
        limit = nextCta;
        steadyIpc = ipc;
        ipcChange = change;
      }
    }
    lastIpc = ipc;
  }
  lastCycle = gpu.now_;
  lastInsts = insts;
}

void statScaleKinds(const stats::Snapshot &s, std::vector<uint8_t> &kinds) {
  const stats::Catalog &cat = stats::Catalog::global();
  kinds.clear();
  kinds.reserve(s.values().size());
  for (const auto &kv : s.values()) {
    const stats::Desc *d = cat.find(kv.first);
    uint8_t k = 0;
    if (d) {
      switch (d->unit) {
      case stats::Unit::Count:
      case stats::Unit::Bytes:
      case stats::Unit::Joules: k = 1; break;
      case stats::Unit::Cycles:
      case stats::Unit::Seconds: k = 2; break;
      default: break;
      }
    }
    kinds.push_back(k);
  }
}

void scaleStats(stats::Snapshot &s, const std::vector<uint8_t> &kinds, double insts,
                double cycles) {
  const double factors[2] = {insts, cycles};
  s.scaleByKind(kinds, factors);
}

void scaleStats(stats::Snapshot &s, double insts, double cycles) {
  std::vector<uint8_t> kinds;
  statScaleKinds(s, kinds);
  scaleStats(s, kinds, insts, cycles);
}

void Gpu::collect(KernelTimingStats &st, const std::string &kernel, Cycle start,
                  const ptx::exec::SteppedGrid *grid) const {
  st = KernelTimingStats{};
  // (room for the totals: the snapshot's name index is rebuilt whenever its entries move)
  st.reserve(512);
  st.kernel = kernel;
  st.cycles = now_ - start;
  st.seconds = double(st.cycles) / (cfg_.core.clockMHz * 1e6);
  SmStats sum;
  uint64_t smCycles = 0;
  for (size_t i = 0; i < sms_.size(); ++i) {
    if (!smUsed_[i]) // (its statistics are zero: beginKernelOnSms reset them)
      continue;
    const SmStats &s = sms_[i]->stats();
    sum.warpInsts += s.warpInsts;
    sum.threadInsts += s.threadInsts;
    sum.issueCycles += s.issueCycles;
    sum.regBankConflicts += s.regBankConflicts;
    sum.ctasRun += s.ctasRun;
    sum.warpCyclesResident += s.warpCyclesResident;
    smCycles += s.cycles;
    for (size_t i = 0; i < size_t(StallReason::Count); ++i)
      sum.stall[i] += s.stall[i];
    for (size_t i = 0; i < kMaxPipes; ++i)
      sum.fuIssued[i] += s.fuIssued[i];
  }
  st.warpInsts = sum.warpInsts;
  st.threadInsts = sum.threadInsts;
  stats::Snapshot &v = st;
  const GpuStatDecls &d = gpuStats();
  v.set(d.cycles, (double)st.cycles);
  v.set(d.simSeconds, st.seconds);
  v.set(d.warpInsts, (double)sum.warpInsts);
  v.set(d.threadInsts, (double)sum.threadInsts);
  v.compute(d.ipc);
  v.compute(d.threadIpc);
  v.set(d.ctas, (double)sum.ctasRun);
  if (cfg_.core.adaptiveL1) {
    v.set(d.carveoutBytes, (double)carveoutBytes_);
    v.set(d.l1dBytes, (double)(uint64_t(cfg_.core.unifiedL1Kib) * 1024 - carveoutBytes_));
  }
  uint64_t stalls = 0;
  for (size_t i = 0; i < size_t(StallReason::Count); ++i)
    if (StallReason(i) != StallReason::None && StallReason(i) != StallReason::Idle)
      stalls += sum.stall[i];
  v.set(d.stallCycles, (double)stalls);
  for (size_t i = 0; i < size_t(StallReason::Count); ++i)
    if (StallReason(i) != StallReason::None)
      v.set(d.stall[i], (double)sum.stall[i]);
  v.set(d.issueCycles, (double)sum.issueCycles);
  v.set(d.activeCycles, (double)smCycles);
  v.set(d.regBankConflictCycles, (double)sum.regBankConflicts);
  uint32_t maxWarps = cfg_.core.maxThreadsPerSm / cfg_.core.warpSize;
  v.set(d.occupancy, smCycles && maxWarps
                            ? double(sum.warpCyclesResident) / (double(smCycles) * maxWarps)
                            : 0);
  const std::vector<PipeDesc> &pipes = pipeRegistry().pipes();
  for (size_t i = 0; i < pipes.size(); ++i)
    v.set(pipes[i].issued, (double)sum.fuIssued[i]);
  stats::Distribution loadLatency;
  for (size_t i = 0; i < sms_.size(); ++i)
    if (smUsed_[i])
      loadLatency.merge(sms_[i]->stats().loadLatency);
  v.setDistribution(Sm::loadLatencyStat(), loadLatency);
  v.setDistribution(MemorySystem::dramLatencyStat(), mem_->dramLatency());
  addSmCounters(v);
  // the memory system's totals first, then its per-partition detail (`l2[3].misses`)
  Sm::StatValues memTotals;
  mem_->appendTotals(memTotals);
  // the instances' names are fixed for the GPU's life: built once, and only the values each time
  // (interned: each launch's snapshot holds pointers to them, no string of its own)
  if (instanceNames_.empty()) {
    for (const std::string &n : mem_->instanceNames())
      instanceNames_.push_back(stats::StatName::of(n));
    for (size_t i = 0; i < sms_.size(); ++i) {
      instanceNames_.push_back(stats::StatName::of(d.smWarpInsts.instance(i)));
      instanceNames_.push_back(stats::StatName::of(d.smActiveCycles.instance(i)));
      instanceNames_.push_back(stats::StatName::of(d.smCtas.instance(i)));
    }
  }
  // (the const values(): the other one drops the positions by id, rebuilt at the next set)
  v.reserve(std::as_const(v).values().size() + memTotals.size() + instanceNames_.size() + 256);
  for (auto &kv : memTotals)
    v.set(kv.first, kv.second);
  v.compute(d.l1dMpki);
  // aliases the reference documents use
  v.copy(d.totSimCycle);
  v.copy(d.totSimInsn);
  v.copy(d.numStallCycles);
  v.copy(d.missesPer1000);
  // extension counters and units
  if (grid) {
    const auto &ec = ptx::exec::execCounters();
    const uint64_t *counts = ec.empty() ? nullptr : grid->counters(); // (merges the lanes)
    for (size_t i = 0; i < ec.size(); ++i)
      v.set(ec[i].stat, (double)counts[i]);
  }
  if (grid)
    for (const StatsSource &src : statsSources())
      if (src.collect)
        src.collect(*grid, v);
  // instances: per partition, per SM (instanceNames_' order)
  std::vector<double> &inst = instanceValues_;
  inst.clear();
  mem_->appendInstanceValues(inst);
  for (size_t i = 0; i < sms_.size(); ++i) {
    if (!smUsed_[i]) {
      inst.insert(inst.end(), 3, 0.0);
      continue;
    }
    const SmStats &s = sms_[i]->stats();
    inst.push_back((double)s.warpInsts);
    inst.push_back((double)s.cycles);
    inst.push_back((double)s.ctasRun);
  }
  v.setInstances(instanceNames_, inst);
}

void Gpu::addSmCounters(stats::Snapshot &v) const {
  // per-SM LD/ST, scheduler and extension-unit counters, summed by statistic: SMs that report
  // the same statistics in the same order as the first (all, unless cores differ) are summed by
  // position, the others by statistic after them (the same first-seen order; the counts are
  // integers, so the sums are exact in any order)
  // An SM that had no CTA in this launch adds nothing: its counters are zero since the launch
  // began, its schedulers' cumulative ones what `before` holds. Once it is known to report the
  // first SM's names, it is left out together with its part of `before` (with 132 SMs and
  // small launches, building every SM's names was most of a launch's fixed cost).
  Sm::StatValues smVals, one, others;
  if (smLayout_.size() != sms_.size())
    smLayout_.assign(sms_.size(), 0);
  std::vector<uint8_t> left(sms_.size(), 0);
  for (size_t i = 0; i < sms_.size(); ++i) {
    const Sm &sm = *sms_[i];
    if (smVals.empty()) {
      sm.appendStats(smVals);
      continue;
    }
    const SmStats &s = sm.stats();
    if (smLayout_[i] == 1 &&
        (!smUsed_[i] || (s.cycles == 0 && s.ctasRun == 0 && s.warpInsts == 0))) {
      left[i] = 1;
      continue;
    }
    one.clear();
    sm.appendStats(one);
    bool same = one.size() == smVals.size();
    for (size_t k = 0; same && k < one.size(); ++k)
      same = one[k].first == smVals[k].first;
    smLayout_[i] = same ? 1 : 2;
    if (same) {
      for (size_t k = 0; k < one.size(); ++k)
        smVals[k].second += one[k].second;
    } else {
      for (auto &kv : one)
        others.push_back(kv);
    }
  }
  // less the schedulers' counters when the launch began (smBefore_; an SM unused in the launch
  // has the same ones now)
  Sm::StatValues unused;
  for (size_t i = 0; i < sms_.size(); ++i) {
    if (left[i])
      continue;
    const Sm::StatValues *before = &smBefore_[i];
    if (!smUsed_[i]) {
      unused.clear();
      sms_[i]->appendSchedulerStats(unused);
      before = &unused;
    }
    for (auto &kv : *before)
      others.push_back({kv.first, -kv.second});
  }
  for (auto &kv : smVals)
    v.add(kv.first, kv.second);
  for (auto &kv : others)
    v.add(kv.first, kv.second);
}

std::string formatKernelStats(const KernelTimingStats &s) {
  return "kernel " + s.kernel + "\n" + s.text();
}

std::string kernelStatsJson(const KernelTimingStats &s) {
  std::string members = s.jsonMembers();
  return "{\"kernel\": " + jsonQuote(s.kernel) + (members.empty() ? "" : ", ") + members + "}";
}

} // namespace ptxsim::timing

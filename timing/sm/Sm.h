#pragma once
// One streaming multiprocessor: resident CTAs, warp slots with scoreboards, N warp schedulers,
// functional-unit pipelines, an operand-collector bank model and the LD/ST unit.
//
// Contract: the GPU calls tick(now) once per core cycle. In a tick, finished memory
// instructions release their destination registers, then each scheduler looks at its warps
// whose next instruction has its operands ready (scoreboard), a free functional unit (or LD/ST
// slot) and is not waiting at a barrier, picks one with its policy (IWarpScheduler) and issues
// it: the functional core executes the instruction right then (SteppedGrid::step), and the SM
// charges its latency. Every cycle a scheduler with live warps does not issue counts as a stall
// with one reason. All iteration is in slot order, so runs are deterministic.

#include "base/HugeAlloc.h"
#include "ptx/exec/Engine.h"
#include "ptx/exec/Exec.h"
#include "timing/TimingConfig.h"
#include "timing/Types.h"
#include "timing/ext/Extension.h"
#include "timing/mem/LdstUnit.h"
#include "timing/mem/replacement/IReplacementPolicy.h"
#include "timing/sm/FreeRing.h"
#include "timing/sm/Pipes.h"
#include "timing/sm/scheduler/IWarpScheduler.h"

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ptxsim::timing {

class MemorySystem;

/// Why a scheduler did not issue in a cycle.
/// ExtWait: the warp is at a blocking instruction (ptx::ir::Ctl::Wait) that said "not yet".
/// Divergence: under independent thread scheduling the warp just changed the group of lanes it
/// runs (a spinning group yielded, or lanes parked at a convergence point) and restores the
/// other group's state (kGroupSwitchCycles in Sm.cpp).
enum class StallReason : uint8_t {
  None, Idle, Barrier, Memory, Scoreboard, Pipeline, Fetch, ExtWait, Divergence, Count
};
const char *stallReasonName(StallReason r);

struct SmStats {
  uint64_t cycles = 0;           ///< cycles with at least one resident CTA
  uint64_t warpInsts = 0, threadInsts = 0;
  uint64_t stall[size_t(StallReason::Count)] = {}; ///< scheduler-cycles, by reason
  uint64_t issueCycles = 0;      ///< scheduler-cycles that issued
  uint64_t regBankConflicts = 0; ///< extra operand-collector cycles
  uint64_t ctasRun = 0;
  uint64_t warpCyclesResident = 0; ///< sum over cycles of resident warps (for occupancy)
  /// By pipeline, in the pipe registry's order (timing/sm/Pipes.h: the built-ins sp, dp, sfu,
  /// tensor, ldst, branch, sync, misc, then extension pipes).
  uint64_t fuIssued[kMaxPipes] = {};
  uint64_t l1iHits = 0, l1iMisses = 0;
  uint64_t regReads = 0, regWrites = 0; ///< warp-wide register file accesses (operands x lanes / 32)
  uint64_t activeLaneInsts = 0;         ///< lanes that executed (guard true), summed
  uint64_t dmaOps = 0; ///< instructions a DMA engine walked (core kind "dma"; not exported)
  stats::Distribution loadLatency;      ///< cycles from issue to result, loads and atomics
};

/// The full SM, and the base of the other core kinds (timing/sm/CoreKinds.h): a kind that is
/// not a full SM overrides issue() (what one issue does) and, where it must, beginKernel(), and
/// sets its traits (coreClock_, orderedIssue_) in its constructor; everything else (the scan,
/// the schedulers, the LD/ST unit, the split tick of the parallel engine) is the SM's.
class Sm : public base::HugeAllocated {
public:
  Sm(const TimingConfig &cfg, uint32_t id, const SchedulerRegistry &schedulers);
  virtual ~Sm();
  Sm(const Sm &) = delete;
  Sm &operator=(const Sm &) = delete;

  uint32_t id() const { return id_; }
  /// Begins a kernel: the grid whose CTAs this SM will run.
  /// `arenaBase` is the host address of device memory's first byte: the model sees device
  /// addresses relative to it (plus kDeviceBase), so cycle counts do not depend on where the
  /// host's address-space randomisation put the arena.
  virtual void beginKernel(ptx::exec::SteppedGrid *grid, const ptx::exec::Kernel *kernel,
                           uint32_t threadsPerCta, uint32_t sharedPerCta, uint64_t arenaBase);
  static constexpr uint64_t kDeviceBase = uint64_t(1) << 36;
  /// True when one more CTA of the current kernel fits (threads, CTA slots, registers, shared).
  bool canTakeCta() const;
  /// After beginKernel: how many CTAs of the kernel the SM could hold by threads, CTA slots,
  /// registers and warp slots (shared memory aside), and the shared memory each takes (its own
  /// and the system's reserve).
  uint32_t ctaLimitWithoutShared() const;
  uint32_t sharedPerCta() const { return sharedPerCta_; }
  /// The adaptive carve-out for this kernel: `sharedBytes` of shared memory, the L1D's ways.
  void setCarveout(uint32_t sharedBytes, uint32_t l1Ways);
  void addCta(ptx::exec::Cta *cta, uint64_t age);
  /// addCta() for a CTA from SteppedGrid::reserveCta(): the SM fills in its state
  /// (initReservedCta) at the start of its next tickLocal(), so the parallel engine's threads
  /// do that work rather than the serial CTA dispatch. Same results as addCta(startCta()).
  void addReservedCta(ptx::exec::Cta *cta, uint64_t age) {
    toInit_.push_back(cta);
    addCta(cta, age);
  }
  void tick(Cycle now, MemorySystem &mem);
  /// Hints for the GPU's serial loop, which ticks the SMs one after another (every other SM's
  /// tick pushes this one's state out of the cache): prefetchState() starts bringing in the
  /// SM's own fields, prefetchWarps(now), called after them, the warp slots a tick at `now`
  /// will scan, its LD/ST unit and schedulers. They read nothing that changes results.
  void prefetchState() const;
  void prefetchWarps(Cycle now) const;
  /// tick() in two parts, for the GPU's parallel engine. tickLocal() does everything that only
  /// touches this SM (its LD/ST unit's own queues in `mem`, its warps, its CTAs' shared
  /// memory): with `stopBeforeShared` it stops before the first instruction a scheduler picks
  /// that reaches beyond the SM (touchesOutside) and returns false. tickShared() finishes the
  /// tick from there and retires finished CTAs. Contract: tickLocal() of different SMs may run
  /// on different host threads at once; tickShared() runs on one thread, in SM order, after
  /// every SM's tickLocal() of the cycle. tick() = tickLocal(.., false) + tickShared(), and the
  /// split gives the same results, because what tickLocal() does commutes with what other SMs
  /// do in the same cycle.
  bool tickLocal(Cycle now, MemorySystem &mem, bool stopBeforeShared);
  void tickShared(Cycle now);
  /// Stops holding back this SM's global stores in its lane of the grid (SteppedGrid::
  /// bufferGlobalStores), which tickLocal(.., true) leaves on for the next such tick: the GPU
  /// calls it after a launch's last cycle, before anything else steps warps of the grid.
  void endStoreBuffering() { bufferStores(false); }
  /// Running ahead (Gpu::setSmWindow): while set, tickLocal(.., true) also stops before an
  /// instruction that is not windowSafe(), and windowStopped() says so; resumeLocal(now) then
  /// does the rest of that tick's own phase, at the cycle it belongs to, as tickLocal would have.
  /// What an SM may issue while it runs ahead of the rest of the GPU (setWindow): register-only
  /// and warp-synchronous instructions, branches, exits, the CTA's barriers and plain accesses to
  /// the CTA's shared memory; nothing whose result or timing depends on other SMs or the memory
  /// system (global, local, constant and parameter memory, atomics, textures, fences, calls).
  static bool windowSafe(const ptx::ir::Inst &in);
  void setWindow(bool on) { windowLocal_ = on; }
  bool windowStopped() const { return windowStop_; }
  bool resumeLocal(Cycle now);
  /// The SM's next ticks may run ahead of the GPU's clock: a full SM (no other core kind, no
  /// ordered issue, no launch extension) with CTAs, nothing left for the ordered phase and
  /// nothing to send to the memory system (LdstUnit::quiet), so that nothing from outside
  /// reaches it, but the responses awaitingResponses() says it waits for, before it issues an
  /// instruction that is not windowSafe().
  bool windowReady() const {
    return exactSm_ && !orderedIssue_ && !extLaunch_ && !storesHeld_ && !retireDue_ &&
           resume_.sched == scheds_.size() && !ctas_.empty() && ldst_->quiet();
  }
  bool awaitingResponses() const { return ldst_->awaiting() != 0; }
  /// windowReady()'s parts, for the profile: work held for the ordered phase; the LD/ST unit
  /// with nothing to send.
  bool holdsOrderedWork() const {
    return storesHeld_ || retireDue_ || resume_.sched != scheds_.size();
  }
  bool ldstQuiet() const { return ldst_->quiet(); }
  /// True when executing `in` may write state outside the warp's SM and CTA, or read state
  /// that may be written in the same cycle's ordered phase (global stores and atomics, generic
  /// memory, runtime calls, blocking or extension instructions): the parallel engine executes
  /// such instructions in SM order. Plain global loads (isGlobalLoad) run in the SM's own
  /// phase: nothing writes global memory there, and the ordered phase runs after it, so a load
  /// sees the stores of earlier cycles, never those of its own cycle from another SM (two
  /// warps' accesses to one address in the same cycle without synchronisation race on hardware
  /// too). Plain global stores (SteppedGrid::bufferableStore) run there as well, into the SM's
  /// store buffer, which tickShared() writes to memory at the SM's turn, so every SM sees them
  /// exactly as if they had run in the ordered phase; after one, the SM's next global load
  /// waits for the ordered phase (mustStop). Texture fetches read like global loads. Direct
  /// calls of functions with a body (mustStop: the instruction alone does not say) and
  /// warp-synchronous instructions (shfl.sync ...) touch only the warp. The same order holds
  /// for any number of host threads.
  static bool touchesOutside(const ptx::ir::Inst &in) {
    // (inline: the common case, a plain instruction of a class that reads and writes only the
    // warp's registers, on every issue of the parallel phase; the rest: touchesOutsideOther)
    if (in.ctl == ptx::ir::Ctl::None && (kRegisterOnlyClasses >> (uint32_t(in.cls) & 31) & 1))
      return false;
    return touchesOutsideOther(in);
  }
  /// touchesOutside() for what its inline test does not settle.
  static bool touchesOutsideOther(const ptx::ir::Inst &in);
  /// The instruction classes that read and write only the warp's registers, a bit per class.
  static constexpr uint32_t kRegisterOnlyClasses = [] {
    using C = ptx::ir::OpClass;
    uint32_t m = 0;
    for (C c : {C::Alu, C::Mul, C::Fp32, C::Fp64, C::Half, C::Sfu, C::Warp, C::Control, C::Tensor})
      m |= 1u << uint32_t(c);
    return m;
  }();
  /// ld / ldu in the global space (any cache or ordering qualifier).
  static bool isGlobalLoad(const ptx::ir::Inst &in);
  /// tex / tld4 / txq: reads of a texture object and its texels only.
  static bool isTextureRead(const ptx::ir::Inst &in);
  /// True when the SM has no resident CTA and no memory traffic of its own in flight.
  bool idle() const;
  uint32_t residentCtas() const { return (uint32_t)ctas_.size(); }
  /// The earliest cycle > now at which tick() could do something (kNever when idle); used to
  /// skip cycles in which nothing can issue.
  Cycle nextEventCycle(Cycle now) const;
  /// nextEventCycle() less its guess for an SM with CTAs that waits only on what comes from
  /// outside: replies from the memory system and CTA dispatch wake it, so it may be kNever.
  Cycle ownNextEvent(Cycle now) const;
  /// Accounts `n` skipped cycles (nothing could issue) with the stall reasons of the last tick
  /// and its `resident` warps, as `n` idle ticks would (idleTicks).
  void skipCycles(uint64_t n, uint64_t resident);
  /// The tick of a cycle before ownNextEvent() in which no reply arrived and no CTA was added,
  /// after a tick that issued nothing, was not stopped and left nothing for tickShared(): the
  /// warps' state cannot change, so it counts what that tick would (the cycle, each
  /// scheduler's last stall reason, `resident` warp-cycles: what the last scan counted) and
  /// runs the schedulers' per-cycle hook, without scanning the warps.
  void idleTick(Cycle now, uint64_t resident);
  /// What `n` idleTick()s count, at once, when idleTicksBatchable(): the GPU defers an SM's
  /// idle ticks and accounts them here before the SM ticks again or its statistics are read.
  void idleTicks(uint64_t n, uint64_t resident);
  /// No scheduler has a per-cycle hook (IWarpScheduler::ticks): idleTick() only counts.
  bool idleTicksBatchable() const { return !schedTicks_; }
  /// True when the last tick issued an instruction.
  bool issuedLastTick() const { return issuedLastTick_; }
  /// What the GPU's cycle loop needs from an SM after a tick, in one small record: the parallel
  /// engine fills it in the SM's own phase, so the serial bookkeeping reads one array instead of
  /// state other threads just wrote.
  struct TickSummary {
    uint64_t insts = 0;      ///< warp instructions (plus DMA-engine steps) so far
    uint8_t needShared = 0;  ///< tickShared() has work: a stopped scheduler or a CTA to retire
    uint8_t issued = 0;      ///< issuedLastTick()
    uint8_t idle = 0;        ///< idle()
    uint8_t canTake = 0;     ///< canTakeCta() while dispatching (only dispatch and retirement change it)
  };
  /// Fills `t` from the SM's state now (after tickLocal, tick or tickShared); canTake only
  /// while `dispatching` (CTAs are left to dispatch), else false.
  /// (inline: after every tick of every SM)
  void summarize(TickSummary &t, bool dispatching) const {
    t.insts = stats_.warpInsts + stats_.dmaOps;
    t.issued = issuedLastTick_;
    t.idle = ctas_.empty() && ldst_->idle(); // (idle())
    // (canTakeCta looks at the SM's resources: only while it matters)
    t.canTake = dispatching && !cfg_.core.placedCtasOnly && canTakeCta();
    // tickShared() resumes a stopped scheduler, then retires CTAs whose warps have all finished
    // and whose loads are back (noteRetire at the end of the tick made the same test)
    t.needShared = resume_.sched < nScheds_ || retireDue_ || storesHeld_;
  }

  const SmStats &stats() const { return stats_; }
  /// `sm.load_latency` (SmStats::loadLatency, merged over SMs, in a snapshot).
  static const stats::DistributionStat &loadLatencyStat();
  void resetStats();
  /// Invalidates the SM's data caches (L1D, constant); only between kernels.
  /// -ptxsim_l1i_fetch_at_launch: requests the kernel's first instruction lines at `now`, the
  /// launch's start (after beginKernel).
  void fetchEntry(Cycle now);
  void flushCaches();
  /// (statistic, value) pairs of one SM that the GPU sums over SMs.
  using StatValues = std::vector<std::pair<stats::Stat, double>>;
  /// Statistics of the LD/ST unit, schedulers and extension memory models.
  void appendStats(StatValues &out) const;
  /// The part of appendStats() that resetStats() does not reset: the schedulers' counters
  /// (cumulative over kernels; a kernel's share is the difference).
  void appendSchedulerStats(StatValues &out) const;
  /// Registers the names appendStats() reports (stats::Catalog).
  static void describeStats();

protected:
  /// (aligned: the scan's fields fill the first cache line of each slot exactly)
  struct alignas(64) Slot {
    // The fields the per-cycle scan reads, and writes for a ready warp, in the slot's first
    // cache line (the scan of 64 slots per SM every cycle is most of a compute-bound kernel's
    // time; prefetchWarps() brings this line in).
    /// The warp cannot issue before this cycle (kNever: until one of its loads returns); saves
    /// re-checking blocked warps every cycle.
    Cycle wakeAt = 0;
    /// The warp's next instruction as a scan or the warp's last step found it (null: not
    /// known, peek), and whether its operands were ready then: both hold until the warp steps
    /// again (Sm::stepWarp sets them from the stepped warp; a DMA engine's run-ahead clears
    /// them), since only its own steps move a ready warp on, and operands, once ready, stay
    /// ready until it issues (a load's return only makes more of them ready). Saves the scan
    /// re-reading the warp's SIMT stack and scoreboard every cycle.
    const ptx::ir::Inst *nextCache = nullptr;
    Cycle fetchReadyAt = 0; ///< the next instruction is in the buffer from this cycle
    /// The instruction fetched() found last (its line is fetchLine), and the instructions of
    /// that line in its function (from the first, up to the last): an instruction among them
    /// needs no address arithmetic
    const ptx::ir::Inst *fetchIn = nullptr, *fetchLo = nullptr, *fetchHi = nullptr;
    ptx::exec::Warp *w = nullptr;
    bool active = false;
    bool retired = false; ///< the warp has exited and left its scheduler (its CTA still runs)
    bool operandsWereReady = false;
    StallReason blockedBy = StallReason::None;
    /// SassRole of the instruction just issued merged into the next (-ptxsim_fuse_pairs): the
    /// next one's latency is the merged SASS instruction's
    uint8_t fusedRole = 0;
    /// The warp waits at a barrier and leaves it -ptxsim_bar_release_cycles after the last
    /// arrival is counted (Sm::timeBarrier)
    bool barWait = false;
    // (the second cache line on; the scan reads its first three fields)
    /// The operands of opsFor, noted at the end of the issue before it (opsSummary), while the
    /// warp's scoreboard was in the cache: the scan's first look at the next instruction reads
    /// these instead of the scoreboard. Null: not known (a load returned, the warp stepped
    /// without an issue's timing, a CTA arrived).
    const ptx::ir::Inst *opsFor = nullptr;
    /// The latest ready cycle of opsFor's operands (kNever: one is a load not back yet)
    Cycle opsAt = 0;
    /// The cycle from which operandsReady() would say Memory rather than Scoreboard: the
    /// latest ready cycle of the operands before the first pending one (kNever: none pending)
    Cycle opsMemFrom = kNever;
    /// Where the warp's next step reads first (its SIMT stack's top entry, its predicates),
    /// noted after its last step: the issue prefetches them once the scheduler picked the warp
    /// (only a hint: a stale address costs nothing)
    const void *stepHint[2] = {};
    uint32_t sched = 0;
    uint64_t fetchLine = ~0ull; ///< instruction-cache line the warp's fetch last brought in
    /// The code of the function fetchBase belongs to (fetched() needs the warp's function
    /// only when an instruction lies outside it)
    const ptx::ir::Inst *codeBegin = nullptr, *codeEnd = nullptr;
    uint32_t cta = 0; ///< index in ctas_
    uint64_t age = 0;
    const ptx::ir::Function *fetchFn = nullptr; ///< function whose code region fetchBase is
    uint64_t fetchBase = 0;
    base::HugeVector<Cycle> regReady;  ///< by register index
    base::HugeVector<Cycle> predReady; ///< by predicate index
    struct Pending {
      uint64_t tag;
      uint16_t rd[8];
      uint8_t n;
      Cycle issued; ///< for the load-latency distribution
    };
    base::HugeVector<Pending> pending; ///< loads and atomics whose results are not back yet
    Cycle callDoneAt = 0; ///< a runtime call (printf, malloc) keeps the warp until then
    /// A release access whose MEMBAR (ptx::ir::Inst::sassSeq) the warp has waited for.
    const ptx::ir::Inst *fenceDoneFor = nullptr;
    /// (inline: the issue writes its destinations' entries; grow() when one is past the end)
    Cycle &ready(uint16_t r) {
      base::HugeVector<Cycle> &v = (r & ptx::ir::Inst::kPredBit) ? predReady : regReady;
      const size_t i = r & ~ptx::ir::Inst::kPredBit;
      return i < v.size() ? v[i] : grow(v, i);
    }
    static Cycle &grow(base::HugeVector<Cycle> &v, size_t i);
    /// (inline: the scan and the next-event search call it for every operand of every warp)
    Cycle readyAt(uint16_t r) const {
      const base::HugeVector<Cycle> &v = (r & ptx::ir::Inst::kPredBit) ? predReady : regReady;
      size_t i = r & ~ptx::ir::Inst::kPredBit;
      return i < v.size() ? v[i] : 0;
    }
  };
  struct CtaState {
    ptx::exec::Cta *cta = nullptr;
    std::vector<uint32_t> slots;
    Cycle barLastArrival = 0; ///< when the barrier unit counted the latest arrival (0: none)
  };
  /// A pipeline's units. An issue takes a unit that is free (its free cycle has come) and keeps
  /// it `interval` cycles from now. Which free unit it takes changes nothing (every later test
  /// compares with a cycle from now on, and for those all past cycles are alike), and the
  /// cycles taken never decrease (`now` does not, the interval is the pipe's): so the units are
  /// a ring in the order they were taken, its next unit the least busy one (no pass over them).
  struct Pipe {
    std::vector<Cycle> freeAt; ///< per unit: cycle it can accept the next instruction
    uint32_t next = 0;         ///< the unit taken least recently: freeAt's least
    Cycle minFree = 0;         ///< freeAt[next] (kept with it: the scan's unit test)
    uint32_t latency = 1, interval = 1;
    uint32_t units = 1; ///< freeAt.size()
  };
  /// The pipe `in` issues to (pipeOf_, filled from the pipe registry when the SM is built).
  uint8_t pipeFor(const ptx::ir::Inst &in) const {
    return pipeOf_[size_t(in.cls) % ptx::ir::kMaxOpClasses];
  }
  /// Builds pipes_ and pipeOf_ from the pipe registry (timing/sm/Pipes.h).
  void buildPipes();
  /// Instruction fetch: true when the instruction is in the warp's buffer at `now`; otherwise
  /// the fetch (an L1I hit, or a miss served at L2 latency) is started or still in flight.
  /// (inline: the scan's common case, the instruction fetched() found last, reads two fields)
  bool fetched(Slot &s, const ptx::ir::Inst &in, Cycle now) {
    // (its line is fetchLine; fetchIn stays null and the range empty without an L1I)
    if (&in == s.fetchIn)
      return now >= s.fetchReadyAt;
    if (uintptr_t(&in) - uintptr_t(s.fetchLo) < uintptr_t(s.fetchHi) - uintptr_t(s.fetchLo)) {
      s.fetchIn = &in;
      return now >= s.fetchReadyAt;
    }
    return fetchLine(s, in, now);
  }
  /// fetched() for an instruction outside Slot::fetchLo..fetchHi: finds its line, or starts its
  /// fetch.
  bool fetchLine(Slot &s, const ptx::ir::Inst &in, Cycle now);
  uint32_t latencyFor(const ptx::ir::Inst &in, uint8_t p) const;
  /// What issue() needs of an instruction that depends only on the instruction and the SM's
  /// configuration: its pipe, its latencyFor(), the most of its register sources in one
  /// register bank, its register (not predicate) reads and writes. Worked out at the
  /// instruction's first issue on the SM in a launch and kept in a small table indexed by its
  /// address (issueInfo_: the loop of a kernel fits), so that an issue does not go over its
  /// operands again.
  struct IssueInfo {
    const ptx::ir::Inst *in = nullptr; ///< the instruction the entry is for (null: none)
    uint32_t latency = 0;  ///< latencyFor(*in, pipe)
    uint8_t pipe = 0;      ///< pipeFor(*in)
    uint8_t bankWorst = 0; ///< register sources read from the busiest bank (0: none)
    uint8_t regReads = 0, regWrites = 0; ///< register operands (rs, rd) that are not predicates
    /// The issue may take one of its rarer paths for this instruction (a fence's SASS sequence,
    /// a call, a return, a barrier, a pair merged into the next, a folded constant load or
    /// parameter register): 0 lets the step and the issue skip those tests (hasRarePath)
    uint8_t rare = 0;
    /// A plain instruction (Ctl::None) of a class that reads and writes only the warp's
    /// registers (kRegisterOnlyClasses: mustStop's common case), and mayWakeOthers()
    uint8_t registerOnly = 0, wakesOthers = 0;
    /// What mustStopOther() asks of the instruction (kStop* bits)
    uint8_t stop = 0;
    /// windowSafe(): an SM running ahead of the GPU's clock may issue it (setWindow)
    uint8_t windowSafe = 0;
    /// registerOnly and windowSafe: in the parallel phase the issue need not stop for it
    /// unless mayStop_ (issueBody's one test for the common case of mustStop and the window)
    uint8_t localOnly = 0;
  };
  static constexpr uint8_t kStopExitOrRet = 1, kStopGlobalRead = 2, kStopCall = 4,
                           kStopTouchesOutside = 8, kStopBufferable = 16;
  static constexpr size_t kIssueInfoEntries = 256; ///< a power of 2
  /// The power of 2 in sizeof(ptx::ir::Inst) (issueInfo's index)
  static constexpr unsigned kInstSizeShift = __builtin_ctzll(sizeof(ptx::ir::Inst));
  /// (inline: once per issue; the rest, fillIssueInfo, once per instruction and launch)
  const IssueInfo &issueInfo(const ptx::ir::Inst &in, const ptx::ir::Function &fn) {
    // (a shift, not a division: the address over the power of 2 in the instruction's size
    // steps by an odd number from one instruction to the next, so any kIssueInfoEntries
    // consecutive instructions take different entries, whatever the array's alignment)
    IssueInfo &e = issueInfo_[(uintptr_t(&in) >> kInstSizeShift) % kIssueInfoEntries];
    if (__builtin_expect(e.in != &in, 0))
      fillIssueInfo(e, in, fn);
    return e;
  }
  /// (`fn`: the function holding `in`, for its registers' banks)
  void fillIssueInfo(IssueInfo &e, const ptx::ir::Inst &in, const ptx::ir::Function &fn);
  /// IssueInfo::rare: what of the instruction stepBody() and issueSm() test besides the common
  /// path (they test it all when this is true).
  bool hasRarePath(const ptx::ir::Inst &in) const;
  /// By instruction address (issueInfo()); beginKernel() empties it when issueInfoUsed_, since
  /// a later launch's code may lie where an earlier one's was.
  std::unique_ptr<IssueInfo[]> issueInfo_{new IssueInfo[kIssueInfoEntries]};
  bool issueInfoUsed_ = false;
  /// The -ptxsim_*_latency of an instruction ptxas makes a SASS sequence (ptx::ir::SassSeq);
  /// 0 when none is set.
  uint32_t sequenceLatency(const ptx::ir::Inst &in) const;
  bool operandsReady(const Slot &s, const ptx::ir::Inst &in, Cycle now, StallReason &why) const;
  /// 0 when operandsReady(), else the cycle all of `in`'s operands are ready (kNever: a load
  /// is not back), `why` as operandsReady() says; from the slot's note when it is for `in`.
  /// (inline: the scan's common case, the slot's note, without a call; the pass over the
  /// operands out of line)
  Cycle operandsWait(const Slot &s, const ptx::ir::Inst &in, Cycle now, StallReason &why) const {
    if (__builtin_expect(s.opsFor == &in, 1)) { // (what operandsReady() would say, as the last issue noted it)
      if (s.opsAt <= now)
        return 0;
      why = s.opsMemFrom <= now ? StallReason::Memory : StallReason::Scoreboard;
      return s.opsAt;
    }
    return operandsWaitPass(s, in, now, why);
  }
  /// operandsWait() from the warp's scoreboard.
  Cycle operandsWaitPass(const Slot &s, const ptx::ir::Inst &in, Cycle now, StallReason &why) const;
  /// Notes the operands of the slot's next instruction (Slot::opsFor) after an issue.
  void noteNextOperands(Slot &s) const;
  /// A unit of the instruction's pipeline (and, for register operands, a collector) is free.
  bool unitFreeFor(const ptx::ir::Inst &in, Cycle now) const {
    UnitMemo m;
    return unitFreeFor(in, now, m);
  }
  /// What unitFreeFor() found of the LD/ST slot in one scan (-1: not looked at yet): nothing
  /// issues during a scan, so the unit's state holds for all its warps.
  struct UnitMemo {
    int8_t ldst[2] = {-1, -1}; ///< other spaces, shared memory
  };
  /// (inline: the scan asks it of every warp whose operands are ready)
  bool unitFreeFor(const ptx::ir::Inst &in, Cycle now, UnitMemo &m) const {
    const size_t c = size_t(in.cls) % ptx::ir::kMaxOpClasses;
    if (*classMinFree_[c] > now) // (no unit of its pipe free)
      return false;
    if (__builtin_expect(*classAlsoFree_[c] <= now, 1)) // (a collector free, or none needed)
      return true;
    const uint8_t needs = classNeeds_[c];
    if (needs & kNeedsLdstSlot) { // (what the scan found of the slot already, else ldstFree)
      const int8_t known = m.ldst[in.space == ptx::ir::MemSpace::Shared];
      if (known < 0 ? !ldstFree(in, now, m) : !known)
        return false;
    }
    // an operand collector unit for the operands, but for memory instructions
    return !(needs & kNeedsCollector) || collectorMinFree_ <= now;
  }
  /// By instruction class, for unitFreeFor(): its pipe's Pipe::minFree (pipes_ is built once),
  /// and whether it needs the LD/ST slot (the LD/ST pipe's) and a collector (not Mem, Atomic).
  const Cycle *classMinFree_[ptx::ir::kMaxOpClasses] = {};
  uint8_t classNeeds_[ptx::ir::kMaxOpClasses] = {};
  /// By instruction class, for unitFreeFor()'s common case: a cycle that must have come besides
  /// the pipe's, &collectorMinFree_ for a class that needs a collector, a cycle 0 for one that
  /// needs nothing more, kNever for one that needs the LD/ST slot (looked at beyond it)
  const Cycle *classAlsoFree_[ptx::ir::kMaxOpClasses] = {};
  static constexpr Cycle kCycleZero = 0, kCycleNever = kNever;
  static constexpr uint8_t kNeedsLdstSlot = 1, kNeedsCollector = 2;
  /// unitFreeFor()'s test of the LD/ST slot for `in` (its space), once per scan (`m`).
  /// (inline, the unit's tests too: the scan asks it of every ready memory instruction)
  bool ldstFree(const ptx::ir::Inst &in, Cycle now, UnitMemo &m) const {
    const bool shared = in.space == ptx::ir::MemSpace::Shared;
    if (m.ldst[shared] < 0)
      m.ldst[shared] = shared ? ldst_->canIssueShared(now) : ldst_->canIssue(now);
    return m.ldst[shared];
  }
  /// After unitFreeFor() said no: the first cycle at which it can say yes (a unit of the pipe
  /// and a collector free: until then issues leave them as they are, so none frees earlier),
  /// or 0 for the LD/ST pipe, whose slot frees on the unit's own events.
  Cycle unitFreeAt(const ptx::ir::Inst &in) const;
  /// The warp just issued: its next instruction when that can issue in the same cycle (dual
  /// issue), else null.
  const ptx::ir::Inst *issuableAgain(Slot &s, Cycle now);
  /// After an issue that merged into the next instruction or with an issue width above one:
  /// the warp's next instructions that can issue in the same cycle.
  __attribute__((noinline)) void issueAgain(Slot &s, uint32_t slotIndex, Cycle now);
  /// Issues the slot's next instruction `in` (the scan's nextCache, or issuableAgain()'s);
  /// false when it was a blocking instruction that could not complete (nothing executed: the
  /// warp waits, stall reason ExtWait). The core kind's step: the full SM's times the
  /// instruction on its pipes; other kinds override it.
  virtual bool issue(Slot &s, const ptx::ir::Inst &in, uint32_t slotIndex, Cycle now);
  /// The full SM's issue() (Sm::issue is this), which the scheduler's issue calls directly when
  /// the SM is of no other core kind (exactSm_).
  bool issueSm(Slot &s, const ptx::ir::Inst &in, uint32_t slotIndex, Cycle now);
  /// issueSm() with the instruction's issueInfo()
  bool issueSmWith(Slot &s, const ptx::ir::Inst &in, const IssueInfo &ii, uint32_t slotIndex,
                   Cycle now);
  bool exactSm_ = false; ///< this is an Sm, not a class derived from it (beginKernel sets it)
  /// The cycle the SM last gave its lane of the grid (SteppedGrid::setCycle; every setter in a
  /// cycle gives it that cycle): the step sets it only when it differs.
  Cycle cycleSet_ = kNever;
  /// Whether the SM's lane holds back its global stores now (SteppedGrid::bufferGlobalStores):
  /// on from a tickLocal(.., true) until tickShared(), tick() or the launch's end, so that the
  /// SM's ticks of the parallel phase, one after another, do not switch it at all.
  bool storesBuffered_ = false;
  void bufferStores(bool on) {
    if (on != storesBuffered_) {
      grid_->bufferGlobalStores(id_, on);
      storesBuffered_ = on;
    }
  }
  // issue() in steps:
  enum class StepOutcome : uint8_t {
    Stepped, ///< the functional core executed the instruction (rec_)
    Waiting, ///< a blocking instruction said "not yet" (issue returns false)
    Skipped, ///< nothing to time (the lane faulted): issue returns true
  };
  /// Executes the slot's next instruction `in` on the functional core at `now`.
  StepOutcome stepWarp(Slot &s, const ptx::ir::Inst &in, Cycle now);
  /// stepWarp's, inline in issueSm; `rare` false (IssueInfo::rare) skips the tests of the
  /// instruction's rarer paths
  StepOutcome stepBody(Slot &s, const ptx::ir::Inst &in, Cycle now, bool rare = true);
  /// After the step: a memory access, to an extension's memory model or the LD/ST unit. -1: the
  /// instruction accessed no memory (the caller times it); else 1 for a long-latency access.
  int timeMemoryAccess(Slot &s, const ptx::ir::Inst &in, uint32_t slotIndex, Cycle now);
  /// The end of an issue: the scheduler hears of it (`longLatency`, or the warp now waits at a
  /// barrier).
  /// (inline: on every issue)
  void noteIssued(Slot &s, uint32_t slotIndex, bool longLatency, Cycle now) {
    // A warp left waiting at a barrier will wait long too: a two-level scheduler must move it
    // out of its active set, or active warps that all wait for pending ones would never issue
    // again.
    if (!schedHearsIssues_) // (no policy's issued() does anything: IWarpScheduler::hearsIssues)
      return;
    if (s.w->state == ptx::exec::WarpState::AtBarrier) // (SteppedGrid::atBarrier, inline)
      longLatency = true;
    scheds_[s.sched]->issued(slotIndex, longLatency, now);
  }
  /// The warp waits after a switch of lane group, a non-leaf return or a runtime call.
  void holdAfterStep(Slot &s, Cycle now, bool frameRet, uint32_t builtin);
  /// -ptxsim_fence_*_cycles of a MEMBAR of the scope in ptx::ir::Inst::sassSeq (0: none).
  uint32_t fenceCycles(const ptx::ir::Inst &in) const;
  /// A fence (a MEMBAR: ptx::ir::Inst::sassSeq) just stepped: the warp waits its scope's
  /// -ptxsim_fence_*_cycles.
  void holdForFence(Slot &s, const ptx::ir::Inst &in, Cycle now);
  /// A release access about to issue: true when the warp must first wait for the MEMBAR ptxas
  /// puts before it (then it issues at the end of the wait).
  bool waitForFenceBefore(Slot &s, const ptx::ir::Inst &in, Cycle now);
  /// A barrier instruction just stepped: the barrier unit counts the arrival; when it completed
  /// the barrier, the warps it released wait for the release (-ptxsim_bar_*_cycles).
  void timeBarrier(Slot &s, const ptx::ir::Inst &in, Cycle now);
  /// Instruction, lane and register-file counters; a unit of the instruction's pipe takes it
  /// (neither when lastIssueFused_; `mayBeFused` false: the caller knows it is not).
  void countIssue(const IssueInfo &ii, Cycle now, bool mayBeFused = true);
  /// An access to an extension's memory space, timed by its model.
  void timeExtensionAccess(Slot &s, const ptx::ir::Inst &in, IMemSpaceModel &model,
                           uint32_t slotIndex, Cycle now);
  /// A memory access to the LD/ST unit; true when it is long-latency (global, local).
  bool issueMemory(Slot &s, const ptx::ir::Inst &in, uint32_t slotIndex, Cycle now);
  /// Latency of an arithmetic instruction: fused predecessor, register banks, collectors.
  void timeArithmetic(Slot &s, const ptx::ir::Inst &in, const IssueInfo &ii, Cycle now);
  void finishCta(size_t ctaIndex);
  /// Sets retireDue_: some CTA's warps have all finished and its loads are back (what
  /// tickShared() retires). Looks at the CTAs only when retireCheck_ says something changed.
  void noteRetire();
  struct SchedScan {
    bool anyLive = false, anyBarrier = false;
    StallReason worst = StallReason::None;
  };
  /// A scheduler's last scan when it found no warp ready and none waiting only for a unit:
  /// every live warp was asleep (wakeAt) or at a barrier. Until the first wakeAt (`until`) the
  /// scan would find the same, unless an event wakes a warp earlier: a load's return (its
  /// scheduler's entry), an issue that may release a barrier or end a warp, a CTA arriving or
  /// leaving (every entry: forgetScans). Then the scan's outcome is taken from here (the same
  /// counters and stall reason), without visiting the warps. A scan whose other warps waited
  /// only for the LD/ST slot stands too while the LD/ST unit's issue state is unchanged
  /// (`ldstVersion`; `until` then includes LdstUnit::issueStateUntil and the pipe's free cycle).
  ///
  /// The same record serves a greedy policy (IWarpScheduler::keepsLastWhileReady) after an
  /// issue: when the last full scan found every warp asleep (until `greedyUntil`), at a
  /// barrier, ready and only waiting for its turn, or waiting only for the LD/ST slot (nothing a
  /// visit of them would change: their instruction fetch and operand check are done, the unit
  /// tests change no state, and whether the LD/ST slot is free for them does not matter while
  /// the policy keeps the greedy warp), and the warp that issued (`greedy`) is ready again with
  /// an instruction that cannot refuse to issue, the policy picks that warp again and the
  /// others' visits would find what they found: the scan visits only that warp and counts the
  /// others as before (`resident`, `scan.anyBarrier`). Any event that may change another warp
  /// clears it with `valid` (forget()).
  struct QuietScan {
    bool valid = false;
    bool ldstWait = false; ///< some warp waited for the LD/ST slot
    int32_t greedy = -1;  ///< the slot that issued after the last full scan (-1: none)
    SchedScan scan;
    uint32_t resident = 0; ///< warps counted in warpCyclesResident per cycle
    Cycle until = 0;
    Cycle greedyUntil = 0; ///< `until` without the LD/ST terms: the asleep warps' first wake-up
    uint64_t ldstVersion = 0; ///< LdstUnit::issueVersion() at the scan (ldstWait)
    void forget() {
      valid = false;
      greedy = -1;
    }
  };
  std::vector<QuietScan> quiet_; ///< per scheduler
  /// The policy is greedy (IWarpScheduler::keepsLastWhileReady) and the core the full SM: the
  /// scan may take QuietScan::greedy.
  bool greedyScan_ = false;
  /// The greedy shortcut of scanScheduler(): true when it found the scheduler's last issuing
  /// warp ready (readyScratch_ holds it), with the others as the last full scan found them.
  bool scanGreedy(uint32_t si, Cycle now, SchedScan &scan);
  /// Issuing `in` may change what other schedulers' scans find (quiet_).
  bool mayWakeOthers(const ptx::ir::Inst &in) const {
    using ptx::ir::Ctl;
    // a plain instruction, branch or warp-synchronous one moves only its own warp; barriers,
    // exits, returns, calls and waits may move others (a CTA barrier's release); a core kind
    // other than the full SM may step more than the instruction at issue
    return (in.ctl != Ctl::None && in.ctl != Ctl::Bra && in.ctl != Ctl::WarpSync) ||
           uint8_t(in.cls) >= ptx::ir::kNumBuiltinOpClasses || orderedIssue_ || !coreClock_;
  }
  void forgetScans() {
    for (QuietScan &q : quiet_)
      q.forget();
  }
  /// A scheduler's part of the tick: scan its warps (readyScratch_ gets the ready ones), then
  /// pick and issue (`pick` >= 0: resume with that already picked warp). issueScheduler()
  /// returns false when it stopped before an instruction that touchesOutside().
  inline void scanScheduler(uint32_t si, Cycle now, SchedScan &scan);
  /// scanScheduler() without a shortcut: visits the scheduler's warps (readyScratch_ is empty).
  __attribute__((noinline)) void scanFull(uint32_t si, Cycle now, SchedScan &scan);
  bool issueScheduler(uint32_t si, Cycle now, SchedScan &scan, int pick, bool stopBeforeShared);
  /// issueScheduler()'s body, inline in the tick (no frame per scheduler and cycle)
  bool issueBody(uint32_t si, Cycle now, SchedScan &scan, int pick, bool stopBeforeShared);
  /// A scheduler's cycle without an issue: its stall reason, from its scan.
  void countStall(uint32_t si, const SchedScan &scan) {
    const StallReason r = !scan.anyLive                    ? StallReason::Idle
                          : scan.worst != StallReason::None ? scan.worst
                          : scan.anyBarrier                 ? StallReason::Barrier
                                                            : StallReason::Pipeline;
    lastStall_[si] = r;
    ++stats_.stall[size_t(r)];
  }
  TimingConfig cfg_;
  uint32_t id_;
  // The core kind's traits (its constructor sets them):
  /// Cycles with a resident CTA count as the core's (SmStats::cycles) per tick: 1, or 0 for a
  /// unit without a core clock (a DMA engine).
  uint8_t coreClock_ = 1;
  /// The parallel engine runs every issue of this core in its ordered phase (a kind whose
  /// issue may step instructions that reach beyond the SM, which it cannot tell beforehand).
  bool orderedIssue_ = false;
  /// The launch has a launch extension (LaunchExtension): a warp's exit or return may run the
  /// extension's ctaFinished hook, so it runs in the ordered phase.
  bool extLaunch_ = false;
  std::vector<std::unique_ptr<IWarpScheduler>> scheds_;
  uint32_t nScheds_ = 0; ///< scheds_.size() (the constructor fills scheds_ once)
  /// The statistics of the policy's counters (SchedulerRegistry::counters)
  const std::vector<stats::Counter> *schedCounters_ = nullptr;
  base::HugeVector<Slot> slots_;
  /// The slots the scan visits, a bit per slot (64 a word): active and not retired. The scan
  /// and the prefetch pass over the others without reading their slots (most of an SM's slots
  /// are empty when its CTAs are small).
  std::vector<uint64_t> scanSlots_;
  /// By scheduler, its slots (slot i is scheduler i % schedulers'), scanSlots_' words each
  std::vector<uint64_t> schedSlotMask_;
  /// By scheduler, its warps asleep until one of their loads returns (wakeAt kNever, blockedBy
  /// Memory), which are out of scanSlots_ meanwhile: a visit would only count the warp resident
  /// and its stall reason Memory, which the scan counts from this number instead (Memory
  /// prevails over every other reason in the scan's order, so the order of the visits does not
  /// matter), and only the warp's load return (tickLocal) wakes it and puts it back.
  std::vector<uint32_t> memSleepers_;
  /// The scan found the slot's warp waiting until `wake` for its operands (operandsWait, `why`):
  /// it sleeps until then, out of the scan while it waits for a load (memSleepers_).
  void sleepOnOperands(Slot &s, uint32_t slot, uint32_t si, Cycle wake, StallReason why) {
    s.wakeAt = wake;
    s.blockedBy = why;
    // a finite wake-up is the cycle the last operand is ready: the scan then need not look
    // again (a load's return that wakes the warp earlier clears this)
    s.operandsWereReady = wake != kNever;
    if (wake == kNever && why == StallReason::Memory) {
      ++memSleepers_[si];
      setScanned(slot, false);
    }
  }
  void setScanned(uint32_t slot, bool on) {
    const uint64_t bit = uint64_t(1) << (slot % 64);
    scanSlots_[slot / 64] = on ? scanSlots_[slot / 64] | bit : scanSlots_[slot / 64] & ~bit;
  }
  /// Calls f(slot) for scheduler si's slots in scanSlots_, in ascending order.
  template <class F> void forScanned(uint32_t si, F &&f) const {
    const size_t words = scanSlots_.size();
    const uint64_t *mask = &schedSlotMask_[si * words];
    for (size_t wd = 0; wd < words; ++wd)
      for (uint64_t bits = scanSlots_[wd] & mask[wd]; bits; bits &= bits - 1)
        f(uint32_t(wd * 64 + __builtin_ctzll(bits)));
  }
  std::vector<CtaState> ctas_;
  std::vector<ptx::exec::Cta *> toInit_;  ///< added by addReservedCta, state not yet filled in
  std::vector<Pipe> pipes_;               ///< in the pipe registry's order
  uint8_t pipeOf_[ptx::ir::kMaxOpClasses] = {}; ///< pipe of each instruction class
  uint8_t ldstPipe_ = 0; ///< the pipe of memory instructions (it also needs an LD/ST slot)
  Cycle barUnitFreeAt_ = 0; ///< the barrier unit can count the next arrival from this cycle
  /// Models of extension memory spaces (timing/ext/Extension.h), by ir::MemSpace; null: none.
  std::vector<std::unique_ptr<IMemSpaceModel>> spaceModels_;
  std::unique_ptr<LdstUnit> ldst_;
  /// Operand collector units (-gpgpu_operand_collector_num_units_gen): busy until.
  FreeRing collectors_;
  Cycle collectorMinFree_ = 0; ///< collectors_.least() (kept with it: the scan's unit test)
  /// L1 instruction cache tags (sets x ways) and its replacement policy (stamps: cycles).
  std::vector<uint64_t> l1iTag_;
  /// Per way, with -ptxsim_l1i_stream_prefetch: the cycle its line arrives (a line in flight
  /// is in the tags already), and whether a prefetch brought it and no fetch has used it yet.
  std::vector<Cycle> l1iReady_;
  std::vector<uint8_t> l1iPrefetched_;
  Cycle l1iMissLatency_ = 0; ///< an L1I miss's round trip (the L2's, or DRAM's when it is flushed)
  /// Puts `line` in the L1I (nothing when it is there): it arrives at `ready`.
  void l1iFill(uint64_t line, Cycle now, Cycle ready, bool prefetched);
  /// log2 of the L1I's line size (a shift, not a division, per fetch), or 64: not a power of 2
  uint8_t l1iLineShift_ = 64;
  std::unique_ptr<IReplacementPolicy> l1iPolicy_;
  uint16_t sinOpcode_ = 0, cosOpcode_ = 0; ///< opcode ids with -ptxsim_sfu_trig_extra_latency
  ptx::exec::SteppedGrid *grid_ = nullptr;
  const ptx::exec::Kernel *kernel_ = nullptr;
  uint32_t threadsPerCta_ = 0, sharedPerCta_ = 0, regsPerCta_ = 0;
  /// In the parallel phase: whether the SM stops before `in` (touchesOutside, except a plain
  /// global store, which it holds back; a global load after one). Sets storesHeld_.
  /// (`ii`: the instruction's issueInfo())
  bool mustStop(const ptx::exec::Warp &w, const ptx::ir::Inst &in, const IssueInfo &ii) {
    // (inline: a plain register-only instruction of a full SM, no launch extension, no store
    // held; mustStopOther the rest)
    if (ii.registerOnly && !mayStop_)
      return false;
    return mustStopOther(w, in, ii);
  }
  bool mustStopOther(const ptx::exec::Warp &w, const ptx::ir::Inst &in, const IssueInfo &ii);
  bool storesHeld_ = false; ///< this tick's parallel phase buffered global stores
  /// orderedIssue_ || extLaunch_ || storesHeld_ (noteMayStop() after each of them changes):
  /// without it an IssueInfo::localOnly instruction never stops the parallel phase
  bool mayStop_ = false;
  void noteMayStop() { mayStop_ = orderedIssue_ || extLaunch_ || storesHeld_; }
  uint32_t sharedCap_ = 0; ///< shared memory this kernel may use (-gpgpu_shmem_size or the carve-out)
  uint64_t arenaBase_ = 0;
  uint32_t usedThreads_ = 0, usedShared_ = 0, usedRegs_ = 0;
  uint32_t usedSlots_ = 0; ///< warp slots of the resident CTAs (canTakeCta: no pass over slots_)
  uint64_t nextTag_ = 1;
  std::vector<StallReason> lastStall_; ///< per scheduler, from the last tick
  bool schedTicks_ = false; ///< some scheduler's tick() does something (IWarpScheduler::ticks)
  bool schedHearsIssues_ = true; ///< some scheduler's issued() does something (hearsIssues)
  std::vector<uint32_t> readyScratch_;
  bool issuedLastTick_ = false;
  bool windowLocal_ = false; ///< setWindow()
  bool windowStop_ = false;  ///< windowStopped()
  /// issue() just issued an instruction that ptxas merges into the next (kHintFusedIntoNext):
  /// the warp's next instruction may issue in the same cycle.
  bool lastIssueFused_ = false;
  /// The constant load just stepped (SassRole::ConstOperand) finds its line in the constant cache.
  bool foldedConstHit() const;
  bool retireCheck_ = false; ///< a warp finished, a load returned or a CTA arrived since the last look
  bool retireDue_ = false;   ///< noteRetire(): tickShared() has a CTA to retire
  /// Where tickShared() resumes: scheduler `sched` (scheds_.size(): nothing to resume) with its
  /// scan and its pick.
  struct {
    uint32_t sched = ~0u;
    SchedScan scan;
    int pick = -1;
  } resume_;
  SmStats stats_;
  ptx::exec::WarpInstRecord rec_;
};

} // namespace ptxsim::timing

#pragma once
// Run-time state of warps, CTAs and grids, and the per-host-thread execution context.
//
// Contract: a Warp holds its registers as structure-of-arrays (`regs[r*32 + lane]`, 8 bytes per
// lane whatever the register's type; readers truncate to their type, so upper bits are don't
// care), predicates as 32-bit lane masks, a SIMT reconvergence stack and a call stack (under
// independent thread scheduling, those of the running group of lanes; parked groups keep theirs
// in Warp::groups, see ThreadGroup). Handlers
// (ir::ExecFn) see the warp and an ExecCtx; they report faults through ExecCtx::fault() and never
// touch control state. One host thread runs one CTA at a time, so shared memory needs no locks;
// global memory is shared by all host threads and atomics use host atomics.

#include "base/HugeAlloc.h"
#include "ptx/exec/Counters.h"
#include "ptx/exec/Memory.h"
#include "ptx/ir/Ir.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace ptxsim::ptx::exec {

class Program;
class DeviceRuntime;
struct DeviceRuntimeCta;
struct DeviceRuntimeCtaDeleter {
  void operator()(DeviceRuntimeCta *p) const; ///< DeviceRuntime.cpp
};
struct Grid;
struct Cta;
class LaunchExtension;

struct SimtEntry {
  uint32_t pc;
  uint32_t rpc;  ///< pop when pc reaches this; ir::kNoPc for none
  uint32_t mask;
};

struct CallFrame {
  const ir::Function *callerFn;
  const ir::CallSite *site;
  uint32_t baseDepth; ///< index in the SIMT stack of the callee's base entry
  uint32_t regBase, predBase, frameBase; ///< the caller's
  uint32_t mask;      ///< lanes that made the call
};

enum class WarpState : uint8_t { Ready, AtBarrier, Done };

/// Independent thread scheduling: why a parked thread group does not run.
enum class GroupWait : uint8_t {
  None,     ///< runnable
  WarpSync, ///< at a Ctl::WarpSync instruction (not executed) until its member lanes arrive
  CtaBar,   ///< at bar.sync/bar.red (not executed) until the warp's other groups arrive
};

/// Independent thread scheduling: the control state of a group of lanes that runs apart from
/// the warp's other lanes (its own reconvergence stack, call stack and frame). The running
/// group lives in the Warp's own fields; the others are parked in Warp::groups. Within a group
/// lanes diverge and reconverge on the IPDOM stack as in pre-Volta mode.
struct ThreadGroup {
  base::HugeVector<SimtEntry> stack;
  std::vector<CallFrame> calls;
  std::vector<std::array<uint32_t, ir::kWarpSize>> stackSaves;
  const ir::Function *fn = nullptr;
  uint32_t regBase = 0, predBase = 0, frameBase = 0;
  uint32_t waitStep = 0;
  uint64_t waitData = 0;
  uint32_t spinPc = ir::kNoPc;
  uint64_t spinCount = 0, spinHash = 0;
  GroupWait wait = GroupWait::None;
  uint32_t barId = 0; ///< GroupWait::CtaBar: the barrier
  uint32_t lanes() const { return stack.empty() ? 0 : stack[0].mask; }
};

/// What a blocking instruction's poll keeps between its tries when waitData is not enough (a
/// receive's words until its cycle comes): an extension derives from it and puts one in
/// Warp::waitState. Owned by the warp, so no map keyed by warp and no lock.
struct WarpWaitState {
  virtual ~WarpWaitState() = default;
};

/// An allocator whose value-less construction leaves the value as it finds it (default-
/// initialisation): a vector of it grows by resize(n) without writing the new elements, and by
/// resize(n, v) or assign(n, v) with them written (StoreBuffer::data).
template <class T> struct NoZeroAllocator : std::allocator<T> {
  template <class U> struct rebind {
    using other = NoZeroAllocator<U>;
  };
  NoZeroAllocator() = default;
  template <class U> NoZeroAllocator(const NoZeroAllocator<U> &) noexcept {}
  template <class U> void construct(U *p) noexcept { ::new (static_cast<void *>(p)) U; }
  template <class U, class... A> void construct(U *p, A &&...a) {
    ::new (static_cast<void *>(p)) U(std::forward<A>(a)...);
  }
};

struct Warp {
  Cta *cta = nullptr;
  uint32_t id = 0;          ///< warp index in the CTA
  uint32_t validMask = 0;   ///< lanes that exist (a partial last warp has fewer)
  const ir::Function *fn = nullptr; ///< function now executing
  uint64_t *regs = nullptr;         ///< current function's registers
  uint32_t *preds = nullptr;
  uint32_t regBase = 0, predBase = 0; ///< offsets of the current frame in the stores
  uint32_t frameBase = 0;            ///< local-space offset of the current call frame
  base::HugeVector<uint64_t> regStore; // (huge-page memory: base/HugeAlloc.h)
  base::HugeVector<uint32_t> predStore;
  base::HugeVector<SimtEntry> stack;
  std::vector<CallFrame> calls;
  /// Stepped warps (stepWarp, a cycle model's issue): the next `aheadN` instructions from
  /// `aheadPc`, pure register computations (ir::Inst::pure) of the straight-line run the
  /// last step began, have executed already, ahead of their issue, while the warp's registers
  /// were in the host's caches; aheadMask holds the lanes each executed for (its guard then).
  /// Their steps only record them. Nothing else reads or writes the warp's registers before
  /// those steps: other warps, the timing model and the warp's other thread groups do not.
  static constexpr uint32_t kAheadMax = 16;
  uint32_t aheadPc = 0;
  uint8_t aheadN = 0, aheadAt = 0; ///< (aheadMask[aheadAt] is aheadPc's)
  /// The active mask the run ahead executed under and its lane count (each of its steps counts
  /// that many thread instructions when its entry still has that mask, as it has).
  uint32_t aheadActive = 0;
  uint8_t aheadLanes = 0;
  uint32_t aheadMask[kAheadMax];
  /// alloca: each lane's stack top in its local memory; allocations grow down from the end
  /// while call frames grow up from 0. stackLow is the lowest of them (the limit for frames).
  uint32_t stackTop[ir::kWarpSize];
  uint32_t stackLow = 0;
  /// stackTop at each call into a function that allocates, restored at its return.
  std::vector<std::array<uint32_t, ir::kWarpSize>> stackSaves;
  WarpState state = WarpState::Ready;
  /// Failed polls of the blocking instruction (ir::Ctl::Wait) the warp is at; 0 when it is not
  /// waiting. A poll may keep a little state of its own in waitData.
  uint32_t waitStep = 0;
  uint64_t waitData = 0;
  /// Extension slot of the blocking instruction the warp is at (WarpWaitState): set and
  /// cleared by its poll; cleared when the warp starts a CTA (a faulted warp may have left one).
  std::unique_ptr<WarpWaitState> waitState;
  uint64_t instCount = 0;
  /// Livelock hint: the backward branch this warp keeps taking while some of its lanes wait
  /// to reconverge, and how many times in a row (see noteDivergentLoop in Exec.cpp).
  uint32_t spinPc = ir::kNoPc;
  uint64_t spinCount = 0;
  uint64_t spinHash = 0;  ///< register state at the last spin check (Exec.cpp)
  uint64_t spinSince = 0; ///< IPDOM: spinCount when that register state was first seen
  /// Independent thread scheduling (EngineConfig::simt): lanes may run apart in groups.
  bool its = false;
  /// ITS: lanes returning from a call made in another function do not wait for the call's
  /// other lanes (EngineConfig::itsLeaveCalls).
  bool leaveCalls = false;
  uint32_t liveMask = 0; ///< lanes that have not exited
  /// ITS: the parked thread groups (the running one is in the fields above), in round-robin
  /// order; empty while the warp runs as one group.
  std::vector<ThreadGroup> groups;
  uint64_t groupSwitches = 0; ///< ITS: times the warp changed its running group
  uint32_t tid[3][ir::kWarpSize]; ///< threadIdx per lane
  uint64_t addr[ir::kWarpSize];   ///< effective addresses of the last memory instruction
  /// Stride prefetch (Exec.cpp, resolveWarp): the first address of the last coalesced global
  /// load of the instructions that hash to each slot. Only a hint: stale values cost nothing.
  uint64_t lastLoad[8] = {};

  uint64_t *reg(uint32_t off) { return regs + off; }
  const uint64_t *src(const ir::Opnd &o) const { return o.cst ? o.cst : regs + o.reg; }
  uint32_t pred(uint16_t idx, uint32_t x) const { return preds[idx] ^ x; }
  uint32_t linearTid(unsigned lane) const { return id * ir::kWarpSize + lane; }
};

struct BarrierState {
  uint32_t arrivedThreads = 0;
  uint32_t expected = 0;   ///< 0: all threads of the CTA
  uint32_t redPopc = 0, redAnd = 1, redOr = 0;
  std::vector<uint32_t> waiting; ///< warp ids blocked on this barrier
};

struct Cta {
  Grid *grid = nullptr;
  uint32_t ctaid[3] = {0, 0, 0};
  uint64_t linearId = 0;
  uint32_t smid = 0;
  base::HugeVector<uint8_t> shared; ///< static then dynamic shared memory
  uint32_t dynBase = 0;          ///< offset of dynamic shared memory
  LocalBytes local;              ///< per-thread local memory, `localPerThread` bytes each
  uint32_t localPerThread = 0;
  /// Set whenever the executor hands out a pointer into `local`: until then it is still all
  /// zero, and the next CTA to use this object need not clear it again (a CTA of 1024 threads
  /// has 1 MiB of local memory, and most kernels never touch it).
  bool localTouched = false;
  base::HugeVector<Warp> warps;
  /// The block shape the warps' thread indices and valid masks were computed for: a CTA object
  /// reused for a block of the same shape (every CTA of a launch, and of most launches that
  /// follow) keeps them instead of recomputing 96 indices a warp.
  uint32_t shapeBlock[3] = {0, 0, 0};
  uint32_t liveWarps = 0;
  uint32_t liveThreads = 0;
  BarrierState bars[16];
  std::string printf;            ///< device printf output of this CTA, in execution order
  /// Device-runtime state (dynamic parallelism), created by the CTA's first call.
  std::unique_ptr<DeviceRuntimeCta, DeviceRuntimeCtaDeleter> devrt;
};

struct Grid {
  Program *prog = nullptr;
  DeviceMemory *mem = nullptr;
  const ir::Function *kernel = nullptr;
  uint32_t dim[3] = {1, 1, 1};   ///< gridDim
  uint32_t block[3] = {1, 1, 1}; ///< blockDim
  uint32_t threadsPerCta = 1;
  uint32_t warpsPerCta = 1;
  uint64_t numCtas = 1;
  uint64_t paramAddr = 0;        ///< kernel parameter buffer in device memory
  uint64_t gridWorkspace = 0;    ///< zeroed 16 bytes after the parameters: %envreg1:%envreg2
  uint32_t dynShared = 0;
  uint32_t numSms = 1;
  uint64_t stackBytes = 1024;
  uint64_t gridId = 1;
  uint64_t timerBase = 0;        ///< %globaltimer (ns) when the launch began
  uint32_t depth = 0;            ///< nesting depth of device launches (0: from the host)
  DeviceRuntime *devrt = nullptr;
  /// The extension that took this launch over (LaunchPolicy.h), or null.
  LaunchExtension *ext = nullptr;
  bool its = false;              ///< independent thread scheduling (EngineConfig::simt)
  bool leaveCalls = false;       ///< its and EngineConfig::itsLeaveCalls
  std::atomic<bool> stop{false}; ///< set by the first fault; other CTAs stop early
  /// The lowest linear id of a CTA that faulted: CTAs below it run on (one of them may fault
  /// too and be the one reported, as with one host thread), the others stop.
  std::atomic<uint64_t> stopCta{~0ull};
  /// The kernel timeout passed (Watchdog.h; set with `stop`): every host thread notes where its
  /// CTAs' warps are (noteTimedOutWarps) and stops.
  std::atomic<bool> timedOut{false};
  std::mutex timeoutMu;
  /// Where each live warp was when the timeout stopped it: (CTA, warp) -> one line.
  std::map<std::pair<uint64_t, uint32_t>, std::string> timeoutWarps;
  /// The no-progress detector (docs/executor.md, "No progress"): bumped by each round of a
  /// host thread's warps that executed an instruction and by components that move the launch on
  /// without one (reportProgress). A host thread whose live warps all wait at blocking
  /// instructions fails the launch once it has polled `noProgressPolls` times in a row with
  /// this unchanged (EngineConfig::noProgressPolls).
  std::atomic<uint64_t> progress{0};
  uint64_t noProgressPolls = ~0ull;
};

/// Why a warp instruction faulted.
enum class FaultKind : uint8_t { None, OutOfBounds, Misaligned, Trap, Unsupported, Invalid, Assert };

/// Global stores a cycle model's parallel phase held back (SteppedGrid::bufferGlobalStores):
/// each entry is one lane's bytes for `dst`, in the order the lanes and instructions wrote them.
struct StoreBuffer {
  struct Entry {
    uint8_t *dst;
    uint32_t offset, bytes; ///< in `data`
  };
  std::vector<Entry> entries;
  /// (grown without writing: the store writes each byte it adds right after, NoZeroAllocator)
  std::vector<uint8_t, NoZeroAllocator<uint8_t>> data;
  bool empty() const { return entries.empty(); }
};

/// A backward jump at `pc` taken by every active lane of `w` while other lanes wait, met by the
/// JIT's compiled code (Exec.cpp): true when the interpreter would only count the spin (counted
/// as it would), false when it would do more (yield, watch for a livelock, warn), with nothing
/// changed: the code then leaves before the jump.
bool jitLoopStep(Warp &w, uint32_t pc);

/// Where compiled code goes on after it changed the reconvergence stack itself (jitDiverge,
/// jitReconverge): the top entry's pc, lanes and reconvergence point.
struct JitResume {
  uint32_t pc, mask, rpc;
};

/// A `bra` at `pc` that the active lanes of the stack's top entry split over, met by compiled
/// code (`taken` the lanes that jump, neither none nor all of them): the interpreter's divergence
/// (runImpl: the top entry waits at the reconvergence point, one entry per path is pushed), then
/// the entries whose pc is their reconvergence point are popped as runImpl's loop pops them
/// (never the last one). `count` is the warp's instruction count with the branch. Fills `out`
/// with the new top; true when compiled code may go on there, false when it must leave for the
/// interpreter loop at out.pc (which pops the last entry). Thread instructions counted so far
/// with the old lanes are settled in ctx.threadInsts (see runImpl).
bool jitDiverge(ExecCtx &ctx, Warp &w, uint32_t pc, uint32_t taken, uint64_t count, JitResume *out);

/// Compiled code reached `pc`, the reconvergence point of the stack's top entry: pops it and
/// what follows as runImpl's loop would; the rest as jitDiverge.
bool jitReconverge(ExecCtx &ctx, Warp &w, uint32_t pc, uint64_t count, JitResume *out);

/// Per host thread execution context.
struct ExecCtx {
  Program *prog = nullptr;
  DeviceMemory *mem = nullptr;
  Grid *grid = nullptr;
  Cta *cta = nullptr;
  /// The allocations this context touched last (copies, so a release on another host thread
  /// cannot leave them dangling): most kernels hit here and never take the allocator's lock.
  static constexpr unsigned kAllocCache = 4;
  Allocation recentAllocs[kAllocCache];
  unsigned recentNext = 0, recentHit = 0;
  FaultKind faultKind = FaultKind::None;
  std::string faultMsg;
  uint64_t threadInsts = 0;
  uint64_t warpInsts = 0;
  /// A blocking instruction said "not yet" since the flag was last cleared (runCtas uses it to
  /// tell waiting from a barrier deadlock).
  bool waited = false;
  /// Timing mode: the SM's simulated core cycle at which the current instruction issues (set by
  /// the cycle model before each step); 0 in functional mode. Handlers of blocking or timed
  /// extension instructions read it (a message may not be received before it was sent).
  uint64_t cycle = 0;
  /// Extension event counters (Counters.h), by id.
  uint64_t counters[kMaxExecCounters] = {};
  void count(uint16_t id, uint64_t n) { counters[id] += n; }
  /// Timing mode (SteppedGrid::setTimedClock): %clock/%clock64 read `cycle`, the SM's simulated
  /// cycle at issue, and %globaltimer reads cycle * nsPerCycle; otherwise (nsPerCycle == 0) the
  /// functional-mode stand-ins in movSpecial apply.
  double nsPerCycle = 0;
  /// Plain st.global (isBufferableStore) writes into `stores` instead of memory while set:
  /// a cycle model's SM steps its stores on its own host thread and commits them in SM order.
  bool bufferStores = false;
  StoreBuffer stores;
  /// Functional mode with the JIT (ptx/jit/JitOps.h): straight-line runs of functions that have
  /// compiled code execute it instead of the handlers one by one.
  bool jit = false;
  uint64_t jitStackChanges = 0; ///< jitDiverge and jitReconverge calls (the run summary's count)
  bool (*loopStep)(Warp &, uint32_t) = jitLoopStep; ///< for compiled code, which links nothing
  bool (*diverge)(ExecCtx &, Warp &, uint32_t, uint32_t, uint64_t, JitResume *) = jitDiverge;
  bool (*reconverge)(ExecCtx &, Warp &, uint32_t, uint64_t, JitResume *) = jitReconverge;

  bool faulted() const { return faultKind != FaultKind::None; }
  /// Records the first fault of this context: `what` describes it; the context adds the kernel,
  /// CTA, thread, pc and source line of `in` executed by `lane` of `w`.
  void fault(FaultKind k, const Warp &w, const ir::Inst &in, unsigned lane, const std::string &what);
};

/// A component's report that the launch moved on although no instruction completed (a warp's
/// arrival at an extension's blocking instruction, a unit's exit): the no-progress detector
/// (Grid::progress) then counts its polls from zero again.
inline void reportProgress(const ExecCtx &ctx) {
  if (ctx.grid)
    ctx.grid->progress.fetch_add(1, std::memory_order_relaxed);
}

} // namespace ptxsim::ptx::exec

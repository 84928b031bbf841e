#pragma once
// The functional engine: loaded PTX modules, device memory and kernel launches.
//
// Contract: the runtime (libcudart) and the timing model drive the simulator only through this
// class. loadModule() parses, checks and lowers PTX text, places its `.global`/`.const`
// variables in device memory (initialised) and links `.extern` names against modules loaded
// before. launch() runs a kernel to completion in functional mode, spreading CTAs over a host
// thread pool; the results do not depend on the number of threads (except where the program
// itself races). A fault (bad address, misaligned access, trap, unsupported instruction) stops
// the kernel and comes back as a LaunchResult with a message naming the kernel, CTA, thread,
// PC and source line; the engine stays usable. For cycle-level models, beginGrid()/stepWarp()
// expose the same executor one warp instruction at a time. Grids a kernel launches from the
// device (dynamic parallelism, ptx/exec/DeviceRuntime.h) run after it, inside launch() or
// launchTree(), before either returns.

#include "base/Diagnostics.h"
#include "ptx/exec/LaunchTypes.h"
#include "ptx/exec/Memory.h"
#include "ptx/exec/Warp.h"
#include "ptx/ir/Ir.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ptxsim::ptx::exec {

class Program;
class DeviceRuntime;
struct Grid;
struct Cta;
struct Warp;
struct ExecCtx;
struct WarpInstRecord;
class LaunchExtension;

/// A launch executed one warp instruction at a time, for cycle-level models. The model decides
/// which CTAs are resident (startCta) and which warp issues next (step); the functional core
/// executes the instruction at issue and describes it. Not thread-safe: one model thread.
class SteppedGrid {
public:
  ~SteppedGrid();
  uint64_t numCtas() const;
  uint32_t warpsPerCta() const;
  /// The extension that took the launch over (ptx/exec/LaunchPolicy.h), or null: then the
  /// model dispatches CTAs its own way; otherwise group by group, on the SMs it names.
  LaunchExtension *extension() const;
  DeviceMemory &memory() const;
  /// Extension counters (Counters.h) so far in this launch, by id.
  const uint64_t *counters() const;
  /// Creates the state of CTA `linearId` (0 <= id < numCtas()).
  Cta *startCta(uint64_t linearId);
  /// startCta() in two parts, so a cycle model can fill in CTAs on several host threads:
  /// reserveCta() (one thread, like every other call here) creates CTA `linearId`'s object
  /// with room for its warps (warp() may be called on it for their addresses, which stay),
  /// initReservedCta() constructs the warps and fills in its state (registers, local and
  /// shared memory, thread ids). Contract: initReservedCta() calls for different CTAs may run
  /// on different host threads at once (each touches only its CTA and reads the grid);
  /// nothing may read the warps, step, test or retire the CTA before it.
  Cta *reserveCta(uint64_t linearId);
  void initReservedCta(Cta *cta);
  /// Warp `w` of a started CTA.
  Warp &warp(Cta *cta, uint32_t w);
  /// True when the warp can issue (not finished, not waiting at a barrier).
  bool ready(const Warp &w) const;
  bool atBarrier(const Warp &w) const;
  bool done(const Warp &w) const;
  /// The instruction `w` executes next (reconverged stack entries are popped first), or null
  /// when it has finished or waits at a barrier. Timing models read its class and registers.
  const ir::Inst *peek(Warp &w);
  /// The same without changing the warp: null also when a stack pop is due (`popDue` set).
  const ir::Inst *next(const Warp &w, bool &popDue) const;
  /// The function `w` is executing (for instruction-fetch addresses).
  const ir::Function *function(const Warp &w) const;
  /// `in`, an instruction of the function `w` is executing, is a direct call of a function
  /// with a body (not a runtime builtin such as printf or malloc): it moves only the warp's
  /// registers and local memory.
  bool callsBody(const Warp &w, const ir::Inst &in) const;
  bool ctaDone(const Cta *cta) const;
  /// Execution lanes: `n` independent execution contexts (instruction counts, extension
  /// counters, clock, fault). Contract: step()/setCycle() calls with different lanes may run on
  /// different host threads at once as long as the warps they step share no state a lane
  /// does not own (a cycle model gives each SM its lane and steps only instructions that touch
  /// nothing outside their CTA concurrently). A fault stops only its own lane; faulted() and
  /// finish() report the fault of the lowest lane, so the outcome does not depend on which
  /// host thread ran first. Call before the first step; 1 by default.
  void setLanes(uint32_t n);
  /// Executes one instruction of `w` in `lane`; false when it cannot issue, a blocking
  /// instruction said "not yet" (rec.blocked), or the lane faulted.
  bool step(Warp &w, WarpInstRecord &rec, uint32_t lane = 0);
  /// The simulated cycle the next step() of `lane` issues at (ExecCtx::cycle for handlers).
  void setCycle(uint64_t cycle, uint32_t lane = 0) { laneCtx(lane).cycle = cycle; }
  /// step(w, rec, lane), then `next` = next(w, popDue), in one call (a cycle model's issue).
  /// Returns what step() returns. The record's addresses are in rec.lanes: for an access
  /// outside generic space, the warp's own (rec.addr is not filled), valid until its next step.
  bool stepThenNext(Warp &w, WarpInstRecord &rec, uint32_t lane, const ir::Inst *&next,
                    bool &popDue);
  /// True when `lane` has faulted.
  bool laneFaulted(uint32_t lane) const;
  /// While on, plain global stores stepped in `lane` (bufferableStore) are held in the lane's
  /// buffer instead of written: a cycle model steps them on the lane's host thread with other
  /// lanes' loads, and commitStores() writes them in lane order afterwards. Off by default.
  void bufferGlobalStores(uint32_t lane, bool on) { laneCtx(lane).bufferStores = on; }
  /// Writes `lane`'s buffered stores to memory (in the order they were stepped).
  void commitStores(uint32_t lane);
  /// `in` is a store bufferGlobalStores() holds back (ptx/exec/Exec.h isBufferableStore).
  static bool bufferableStore(const ir::Inst &in);
  /// Runs CTAs [first, end) to completion functionally, one after another as functional mode
  /// does, in lane 0 (a cycle model's sampling: CTAs it does not simulate). False on a fault
  /// (faulted() has it), including a CTA that waits for one that is not running.
  bool runFunctionally(uint64_t first, uint64_t end);
  /// Warp and thread instructions executed so far, all lanes.
  void instsSoFar(uint64_t &warpInsts, uint64_t &threadInsts) const;
  /// The no-progress detector's report when no warp issued for `cycles` cycles: the kernel,
  /// then where each live warp of the resident CTAs waits (at most 16).
  std::string noProgressText(uint64_t cycles) const;
  /// For `in`, the next instruction of `w`: when it is a direct call of a runtime builtin
  /// (vprintf, malloc, free, ...), that builtin's id (exec::Builtin), else 0. Timing models
  /// charge those calls their cost.
  uint32_t builtinCallee(const Warp &w, const ir::Inst &in) const;
  /// Makes the clocks follow the model: %clock/%clock64 read the cycle setCycle() gave,
  /// %globaltimer that cycle times `nsPerCycle` (1000 / core MHz).
  void setTimedClock(double nsPerCycle);
  /// Releases a finished CTA (its printf output is kept for finish()); a later startCta may
  /// reuse the object, so the pointer must not be used after this.
  void retireCta(Cta *cta);
  bool faulted() const;
  /// Faults the launch at `in`, the next instruction of `w` (a cycle model's reason the
  /// instruction cannot run, e.g. a reduced SM without the unit it needs): the message gets the
  /// kernel, block, thread (the warp's first active lane), pc and PTX line like any fault.
  void fault(Warp &w, const ir::Inst &in, const std::string &what, uint32_t lane = 0);
  /// Ends the launch: flushes printf output in CTA order, frees the parameter buffer.
  LaunchResult finish();

private:
  friend class Engine;
  SteppedGrid() = default;
  bool stepIn(ExecCtx &ctx, Warp &w, WarpInstRecord &rec);
  /// stepThenNext() of a step that is not the record of an instruction executed ahead.
  bool stepThenNextSlow(ExecCtx &ctx, Warp &w, WarpInstRecord &rec, const ir::Inst *&next,
                        bool &popDue);
  struct State;
  std::unique_ptr<State> s_;
  /// The lanes' contexts, lane 0's first (beginGrid, setLanes): a cycle model sets a lane's
  /// cycle and store buffering every SM cycle, inline, without the call and State's lookup.
  std::vector<ExecCtx *> lanes_;
  /// Lane `i`'s context; lane 0's for a lane setLanes did not make (as State::lane).
  ExecCtx &laneCtx(uint32_t i) const { return *lanes_[i < lanes_.size() ? i : 0]; }
};

class Engine {
public:
  explicit Engine(EngineConfig cfg = {});
  ~Engine();
  Engine(const Engine &) = delete;
  Engine &operator=(const Engine &) = delete;

  const EngineConfig &config() const { return cfg_; }
  void setHostThreads(unsigned n);
  void setStackBytes(uint64_t n) { cfg_.stackBytes = n; }
  void setHeapBytes(uint64_t n);
  void setKernelTimeout(double seconds) { cfg_.kernelTimeoutSeconds = seconds; }
  /// EngineConfig::noProgressPolls for the launches that follow.
  void setNoProgressPolls(uint64_t polls) { cfg_.noProgressPolls = polls; }

  /// Parses, checks, lowers and links one PTX module. Returns its id, or -1 with diagnostics.
  int loadModule(std::string_view ptxText, const std::string &fileName, DiagEngine &diags);
  /// Kernel by (mangled) name: in `module` when >= 0, else in any module (last loaded wins).
  const Kernel *findKernel(std::string_view name, int module = -1) const;
  const GlobalSymbol *findGlobal(std::string_view name, int module = -1) const;
  /// Names of the kernels of `module`, sorted.
  std::vector<std::string> kernelNames(int module) const;
  /// Records ptxas's register count for kernel `name` of `module` (from the program's SASS).
  void setHardwareRegisters(std::string_view name, int module, uint32_t regs);
  /// The kernel's local-memory frame per thread in its SASS (cudaFuncGetAttributes'
  /// localSizeBytes), when the runtime has the SASS.
  void setHardwareFrameSize(std::string_view name, int module, uint32_t bytes);
  /// Device address of a function (for function pointers read by the host), or 0.
  uint64_t functionAddress(std::string_view name) const;

  DeviceMemory &memory() { return *mem_; }

  /// Runs a kernel to completion, with every grid it launches from the device.
  LaunchResult launch(const LaunchParams &p);
  /// Runs one grid; what it launched from the device comes back in `deviceWork`.
  LaunchResult launchGrid(const LaunchParams &p);
  /// Runs `p` through `runGrid` (launchGrid, or a timing model's run), then what it launched
  /// from the device, depth first, each grid through `runGrid` and each copy here. Stops at the
  /// first failure. The result sums the instruction counts and times of every grid.
  using GridRunner = std::function<LaunchResult(const LaunchParams &)>;
  LaunchResult launchTree(const LaunchParams &p, const GridRunner &runGrid);
  /// cudaLimitDevRuntimePendingLaunchCount.
  void setPendingLaunchLimit(uint64_t n);
  uint64_t pendingLaunchLimit() const;
  void setDeviceRuntimeHooks(DeviceRuntimeHooks h);
  /// Starts a launch driven one warp instruction at a time; null with `err` set when the
  /// configuration is invalid.
  /// `numSms`: the cycle model's SM count, which launch policies (LaunchPolicy.h) place CTAs
  /// on; 0 means the engine's own (EngineConfig::numSms).
  std::unique_ptr<SteppedGrid> beginGrid(const LaunchParams &p, LaunchResult &err,
                                         uint32_t numSms = 0);

  /// Output of device printf calls, in CTA order; the runtime flushes it after each launch.
  /// By default it goes to stdout.
  void setPrintfSink(std::function<void(const std::string &)> sink) { printfSink_ = std::move(sink); }

  Program &program() { return *prog_; }

  /// Called about twice a second during launches that run longer than a second, and once more
  /// with `last` set when such a launch ends: (kernel, CTAs done, CTAs total, last).
  using ProgressFn = std::function<void(const std::string &, uint64_t, uint64_t, bool)>;
  void setProgress(ProgressFn fn) { progress_ = std::move(fn); }

private:
  /// One grid in functional mode, with the JIT's compiled code when `useJit`.
  LaunchResult runGrid(const LaunchParams &p, bool useJit);
  /// ptx/jit/EngineJit.cpp: the JIT mode from PTXSIM_JIT, compiling a kernel (and the functions
  /// it calls) before its launch, and the differential mode's two runs.
  void initJit();
  bool prepareJit(const Kernel &k);
  void observeJit(const Kernel &k, const LaunchResult &r); ///< --jit auto: after each launch
  void stopJit();                                          ///< the background compiler leaves prog_
  LaunchResult launchDiff(const LaunchParams &p);

  EngineConfig cfg_;
  uint8_t jitMode_ = 0; ///< jit::Mode
  std::unique_ptr<DeviceMemory> mem_;
  std::unique_ptr<Program> prog_;
  std::unique_ptr<DeviceRuntime> devrt_;
  std::function<void(const std::string &)> printfSink_;
  ProgressFn progress_;
  uint64_t heapAddr_ = 0;
};

} // namespace ptxsim::ptx::exec

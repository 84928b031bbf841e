#include "ptx/exec/Engine.h"

#include "base/HostCores.h"
#include "ptx/jit/JitOps.h"

#include "ptx/exec/LaunchPolicy.h"

#include "ptx/exec/DeviceRuntime.h"
#include "ptx/exec/Exec.h"
#include "ptx/exec/Program.h"
#include "ptx/exec/Watchdog.h"
#include "ptx/exec/WorkerPool.h"
#include "ptx/sema/OpcodeTable.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

namespace ptxsim::ptx::exec {

Engine::Engine(EngineConfig cfg) : cfg_(cfg) {
  mem_ = std::make_unique<DeviceMemory>(cfg_.arenaBytes);
  prog_ = std::make_unique<Program>(*mem_);
  devrt_ = std::make_unique<DeviceRuntime>(*mem_, *prog_, cfg_);
  setHeapBytes(cfg_.heapBytes);
  printfSink_ = [](const std::string &s) {
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
  };
  initJit();
}

Engine::~Engine() { stopJit(); }

void Engine::setPendingLaunchLimit(uint64_t n) { devrt_->pendingLimit = n; }
uint64_t Engine::pendingLaunchLimit() const { return devrt_->pendingLimit; }
void Engine::setDeviceRuntimeHooks(DeviceRuntimeHooks h) { devrt_->hooks = std::move(h); }

void Engine::setHostThreads(unsigned n) { cfg_.hostThreads = n; }

void Engine::setHeapBytes(uint64_t n) {
  if (heapAddr_)
    mem_->release(heapAddr_);
  cfg_.heapBytes = n;
  heapAddr_ = n ? mem_->allocate(n, AllocKind::Heap) : 0;
  prog_->setHeap(heapAddr_, heapAddr_ ? n : 0);
}

int Engine::loadModule(std::string_view text, const std::string &fileName, DiagEngine &diags) {
  return prog_->load(text, fileName, diags, cfg_);
}

const Kernel *Engine::findKernel(std::string_view name, int module) const {
  const auto &mods = prog_->modules();
  for (size_t i = mods.size(); i-- > 0;) {
    if (module >= 0 && (size_t)module != i)
      continue;
    auto it = mods[i]->kernels.find(std::string(name));
    if (it != mods[i]->kernels.end())
      return &it->second;
  }
  return nullptr;
}

std::vector<std::string> Engine::kernelNames(int module) const {
  std::vector<std::string> names;
  const auto &mods = prog_->modules();
  if (module >= 0 && (size_t)module < mods.size())
    for (const auto &[name, k] : mods[module]->kernels)
      names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

void Engine::setHardwareRegisters(std::string_view name, int module, uint32_t regs) {
  if (auto *k = const_cast<Kernel *>(findKernel(name, module))) {
    k->hwRegs = regs;
    k->hwRegsFromSass = true;
  }
}

void Engine::setHardwareFrameSize(std::string_view name, int module, uint32_t bytes) {
  if (auto *k = const_cast<Kernel *>(findKernel(name, module)))
    k->hwLocalBytes = int64_t(bytes);
}

const GlobalSymbol *Engine::findGlobal(std::string_view name, int module) const {
  const auto &mods = prog_->modules();
  for (size_t i = mods.size(); i-- > 0;) {
    if (module >= 0 && (size_t)module != i)
      continue;
    auto it = mods[i]->globals.find(std::string(name));
    if (it != mods[i]->globals.end())
      return &it->second;
  }
  return nullptr;
}

uint64_t Engine::functionAddress(std::string_view name) const {
  auto it = prog_->visibleFunctions_.find(std::string(name));
  if (it != prog_->visibleFunctions_.end())
    return kCodeBase + 16ull * it->second;
  for (const auto &m : prog_->modules()) {
    auto f = m->functionByName.find(std::string(name));
    if (f != m->functionByName.end())
      return kCodeBase + 16ull * f->second;
  }
  return 0;
}

bool parseSimtMode(std::string_view s, SimtMode &out) {
  if (s == "its")
    out = SimtMode::Its;
  else if (s == "ipdom")
    out = SimtMode::Ipdom;
  else if (s == "auto")
    out = SimtMode::Auto;
  else
    return false;
  return true;
}

namespace {

bool hasCalls(const ir::Function &f) {
  for (const ir::Inst &in : f.code)
    if (in.ctl == ir::Ctl::Call || in.ctl == ir::Ctl::CallIndirect)
      return true;
  return false;
}

/// Prepares `cta` (reusing its buffers) to run CTA number `linear` of `g`.
void initCta(Cta &cta, Grid &g, uint64_t linear, uint32_t localPerThread) {
  cta.grid = &g;
  cta.linearId = linear;
  cta.ctaid[0] = uint32_t(linear % g.dim[0]);
  cta.ctaid[1] = uint32_t(linear / g.dim[0] % g.dim[1]);
  cta.ctaid[2] = uint32_t(linear / (uint64_t(g.dim[0]) * g.dim[1]));
  cta.smid = g.ext && !g.ext->smOf.empty() ? g.ext->smOf[linear] : uint32_t(linear % g.numSms);
  const ir::Function &k = *g.kernel;
  uint32_t stat = (k.staticShared + 15) & ~15u;
  cta.dynBase = stat;
  cta.shared.assign(stat + g.dynShared, 0);
  cta.localPerThread = localPerThread;
  if (!cta.local.reset((size_t)localPerThread * g.threadsPerCta, cta.localTouched)) {
    // no address space for it: every local access of this CTA faults (an error, not a crash)
    std::fprintf(stderr, "ptxsim: cannot reserve %llu bytes of local memory for a CTA\n",
                 (unsigned long long)localPerThread * g.threadsPerCta);
    cta.localPerThread = 0;
  }
  cta.localTouched = false;
  // warps beyond the first g.warpsPerCta keep their indices: a resize never changes the
  // indices of the warps it keeps, so only a new shape recomputes them
  bool sameShape = cta.warps.size() >= g.warpsPerCta && cta.shapeBlock[0] == g.block[0] &&
                   cta.shapeBlock[1] == g.block[1] && cta.shapeBlock[2] == g.block[2];
  cta.warps.resize(g.warpsPerCta);
  cta.liveWarps = g.warpsPerCta;
  cta.liveThreads = g.threadsPerCta;
  for (auto &b : cta.bars)
    b = BarrierState{};
  cta.printf.clear();
  cta.devrt.reset();
  for (uint32_t wi = 0; wi < g.warpsPerCta && !sameShape; ++wi) {
    Warp &w = cta.warps[wi];
    uint32_t first = wi * kWarpSize;
    uint32_t n = std::min<uint32_t>(kWarpSize, g.threadsPerCta - first);
    w.validMask = n == kWarpSize ? kFullMask : ((1u << n) - 1);
    // threadIdx of lane l is thread first + l decomposed; counting up from the first lane
    // avoids three divisions per lane (they were most of a small CTA's set-up time)
    uint32_t x = first % g.block[0], y = first / g.block[0] % g.block[1];
    uint32_t z = first / (g.block[0] * g.block[1]);
    for (unsigned l = 0; l < kWarpSize; ++l) {
      w.tid[0][l] = x;
      w.tid[1][l] = y;
      w.tid[2][l] = z;
      if (++x == g.block[0]) {
        x = 0;
        if (++y == g.block[1]) {
          y = 0;
          ++z;
        }
      }
    }
  }
  std::copy(g.block, g.block + 3, cta.shapeBlock);
  for (uint32_t wi = 0; wi < g.warpsPerCta; ++wi) {
    Warp &w = cta.warps[wi];
    w.cta = &cta;
    w.id = wi;
    // a register every lane writes before reading it keeps the last CTA's value; the others
    // start at 0 (RegInit.h). A partial warp's missing lanes are read by shuffles: all zeroed.
    // A fresh register file is zeroed whole: left unwritten, its pages are faulted in during
    // the run instead, which took more CPU time than the zeroing (divergent_shuffle, 5 %).
    if (k.zeroAtStartKnown && w.validMask == kFullMask && w.regStore.size() >= (size_t)k.numRegs * kWarpSize) {
      w.regStore.resize((size_t)k.numRegs * kWarpSize); // (a call's frames grow zeroed from here)
      for (auto [first, count] : k.zeroAtStart)
        std::fill_n(w.regStore.data() + (size_t)first * kWarpSize, (size_t)count * kWarpSize, 0);
    } else {
      w.regStore.assign((size_t)k.numRegs * kWarpSize, 0);
    }
    w.predStore.assign(k.numPreds, 0);
    w.predStore[ir::kPredTrue] = kFullMask;
    w.regBase = w.predBase = w.frameBase = 0;
    w.regs = w.regStore.data();
    w.preds = w.predStore.data();
    w.fn = &k;
    w.stack.clear();
    w.stack.push_back(SimtEntry{0, ir::kNoPc, w.validMask});
    w.its = g.its;
    w.leaveCalls = g.leaveCalls;
    w.liveMask = w.validMask;
    w.groups.clear();
    w.groupSwitches = 0;
    w.spinPc = ir::kNoPc;
    w.spinCount = 0;
    w.waitStep = 0;
    w.waitData = 0;
    w.calls.clear();
    for (unsigned l = 0; l < kWarpSize; ++l)
      w.stackTop[l] = localPerThread;
    w.stackLow = localPerThread;
    w.stackSaves.clear();
    w.state = WarpState::Ready;
    w.aheadN = 0;
    w.instCount = 0;
    w.waitStep = 0; // a CTA object is reused; a faulted warp may have been waiting
    w.waitData = 0;
    w.waitState.reset();
    w.spinPc = ir::kNoPc;
    w.spinCount = 0;
  }
}

/// Bookkeeping when a warp of `c` finishes: a barrier that waits for every live warp may now
/// be complete.
void warpFinished(ExecCtx &ctx, Cta &c) {
  if (--c.liveWarps == 0 && c.grid->ext)
    c.grid->ext->ctaFinished(ctx, c);
  for (unsigned b = 0; b < 16; ++b) {
    BarrierState &bs = c.bars[b];
    if (!bs.waiting.empty() && bs.expected == 0 && bs.arrivedThreads >= c.liveWarps) {
      for (uint32_t wid : bs.waiting)
        if (c.warps[wid].state == WarpState::AtBarrier)
          c.warps[wid].state = WarpState::Ready;
      bs.waiting.clear();
      bs.arrivedThreads = 0;
      bs.redPopc = 0;
      bs.redAnd = 1;
      bs.redOr = 0;
    }
  }
}

/// The kernel timeout stopped the CTAs in `ctas`: records where each of their live warps is.
[[gnu::cold, gnu::noinline]] void noteTimedOutWarps(const Program *prog, Grid &g,
                                                    const std::vector<Cta *> &ctas) {
  std::lock_guard<std::mutex> lock(g.timeoutMu);
  for (const Cta *c : ctas)
    if (c->liveWarps)
      for (const Warp &w : c->warps)
        if (w.state != WarpState::Done)
          g.timeoutWarps[{c->linearId, w.id}] = warpPlaceText(prog, g, w);
}

/// The launch's deadline under EngineConfig::kernelTimeoutSeconds: set by launchTree for the
/// whole tree of grids (on the thread that runs them), else counted from the grid's start.
thread_local Watchdog::Clock::time_point tLaunchDeadline{};

Watchdog::Clock::time_point deadlineIn(double seconds) {
  using Seconds = std::chrono::duration<double>;
  return Watchdog::Clock::now() +
         std::chrono::duration_cast<Watchdog::Clock::duration>(Seconds(seconds));
}

Watchdog::Clock::time_point launchDeadline(double seconds) {
  return tLaunchDeadline != Watchdog::Clock::time_point{} ? tLaunchDeadline : deadlineIn(seconds);
}

/// The launch result of a grid the timeout stopped: where its warps were, at most 64 of them.
void timedOutResult(LaunchResult &r, Grid &g, double seconds) {
  std::lock_guard<std::mutex> lock(g.timeoutMu);
  char secs[32];
  std::snprintf(secs, sizeof secs, "%g", seconds);
  r.status = LaunchStatus::Timeout;
  r.message = "kernel '" + (g.kernel ? g.kernel->name : std::string("?")) +
              "' stopped: the launch ran longer than the kernel timeout of " + secs +
              " s (--kernel-timeout, PTXSIM_KERNEL_TIMEOUT); " +
              std::to_string(g.timeoutWarps.size()) + " warp(s) were running:";
  size_t n = 0;
  for (const auto &[key, text] : g.timeoutWarps) {
    if (++n > 64) {
      r.message += "\n  ... and " + std::to_string(g.timeoutWarps.size() - 64) + " more";
      break;
    }
    r.message += "\n  " + text;
  }
}

/// The no-progress detector: polls in a row without progress that yield the host core; the
/// ones after them sleep 50 us each.
constexpr uint64_t kYieldPolls = 1024;

/// The no-progress detector fired on this host thread (runCtas): every live warp of `ctas` (up
/// to `stopCta`) waits at a blocking instruction or a barrier, and no warp of the launch
/// executed an instruction nor did any component report progress for Grid::noProgressPolls
/// polls. Faults at the first waiting warp's instruction and lists the waiting warps.
[[gnu::cold, gnu::noinline]] void noProgressFault(ExecCtx &ctx, const std::vector<Cta *> &ctas,
                                                  uint64_t stopCta) {
  const Grid &g = *ctx.grid;
  constexpr size_t kShown = 16;
  Warp *first = nullptr;
  Cta *firstCta = nullptr;
  std::string list;
  size_t n = 0;
  for (Cta *c : ctas) {
    if (!c->liveWarps || c->linearId > stopCta)
      continue;
    for (Warp &w : c->warps) {
      if (w.state == WarpState::Done)
        continue;
      if (!first && w.state == WarpState::Ready && !w.stack.empty() &&
          w.stack.back().pc < w.fn->code.size()) {
        first = &w;
        firstCta = c;
      }
      if (n++ < kShown)
        list += "\n  " + warpPlaceText(ctx.prog, g, w);
    }
  }
  if (!first)
    return;
  if (n > kShown)
    list += "\n  ... and " + std::to_string(n - kShown) + " more";
  ctx.cta = firstCta;
  const ir::Inst &in = first->fn->code[first->stack.back().pc];
  std::string who = g.ext ? std::string(" (the launch is run by ") + g.ext->name() + ")" : "";
  ctx.fault(FaultKind::Invalid, *first, in, (unsigned)__builtin_ctz(first->stack.back().mask | 1u << 31),
            "no progress: every live warp waits at a blocking instruction ('" +
                std::string(opcodeInfo(in.opcode).name) + "') or a barrier" + who +
                ", and for " + std::to_string(g.noProgressPolls) +
                " polls in a row no warp of the launch executed an instruction and no "
                "component reported progress (a deadlock)");
  ctx.faultMsg += "; the waiting warps of this host thread (" + std::to_string(n) + "):" + list;
}

/// Runs the CTAs in `ctas` interleaved (warp by warp, `quantum` instructions per turn) until all
/// finish or a fault. Returns false on a fault or deadlock (ctx has the message).
bool runCtas(ExecCtx &ctx, std::vector<Cta *> &ctas, unsigned quantum) {
  size_t liveCtas = ctas.size();
  unsigned stalledAfterStop = 0;
  // the no-progress detector: polls in a row that saw Grid::progress unchanged
  uint64_t idlePolls = 0, seenProgress = ~0ull;
  // Warp instructions run after another thread's fault: a CTA below the faulted one that keeps
  // running without finishing (a full-warp spin on a lock the faulted CTA holds, which no
  // livelock test sees) stops after this many, and the faulted CTA's fault is reported.
  constexpr uint64_t kRunAfterStop = uint64_t(1) << 24;
  uint64_t ranAfterStop = 0;
  while (liveCtas) {
    // Another host thread's CTA faulted. The fault reported must be the one a single host
    // thread would report, the lowest CTA's, so CTAs below the faulted one run on and those
    // above it stop. A CTA below that makes no progress for a while (a wait for the faulted
    // CTA's data) or runs on too long (a spin on a lock the faulted CTA held) stops too.
    uint64_t stopCta = ~0ull;
    if (ctx.grid && ctx.grid->stop.load(std::memory_order_relaxed)) {
      if (ctx.grid->timedOut.load(std::memory_order_relaxed)) {
        noteTimedOutWarps(ctx.prog, *ctx.grid, ctas);
        return true;
      }
      stopCta = ctx.grid->stopCta.load(std::memory_order_relaxed);
      bool below = false;
      for (Cta *c : ctas)
        below |= c->liveWarps && c->linearId < stopCta;
      if (!below || stalledAfterStop > 4096 || ranAfterStop > kRunAfterStop)
        return true;
    }
    liveCtas = 0;
    bool progress = false;
    for (Cta *c : ctas) {
      if (!c->liveWarps || c->linearId > stopCta)
        continue;
      ctx.cta = c;
      for (Warp &w : c->warps) {
        if (w.state != WarpState::Ready)
          continue;
        const uint64_t ran = runWarp(ctx, w, quantum);
        progress |= ran != 0;
        if (stopCta != ~0ull)
          ranAfterStop += ran;
        if (ctx.faulted())
          return false;
        if (w.state == WarpState::Done)
          warpFinished(ctx, *c);
      }
      if (c->liveWarps)
        ++liveCtas;
    }
    if (progress && ctx.grid) {
      ctx.grid->progress.fetch_add(1, std::memory_order_relaxed);
      idlePolls = 0;
    }
    if (liveCtas && ctx.waited) {
      // some warp waits at a blocking instruction (ir::Ctl::Wait) for something another warp,
      // CTA, host thread or process will do: try again, letting other host threads run
      ctx.waited = false;
      if (!progress) {
        if (ctx.grid) {
          uint64_t now = ctx.grid->progress.load(std::memory_order_relaxed);
          if (now != seenProgress) {
            seenProgress = now;
            idlePolls = 0;
          } else if (++idlePolls >= ctx.grid->noProgressPolls) {
            noProgressFault(ctx, ctas, stopCta);
            if (ctx.faulted())
              return false;
            idlePolls = 0;
          }
        }
        // (after a while nothing moves: sleep, so the host threads that could move it get a core)
        if (idlePolls > kYieldPolls)
          std::this_thread::sleep_for(std::chrono::microseconds(50));
        else
          std::this_thread::yield();
        if (stopCta != ~0ull)
          ++stalledAfterStop;
      }
      continue;
    }
    if (liveCtas && !progress) {
      // every live warp waits at a barrier that cannot complete
      for (Cta *c : ctas)
        for (Warp &w : c->warps)
          if (w.state == WarpState::AtBarrier && c->linearId <= stopCta) {
            ctx.cta = c;
            const ir::Inst &in = w.fn->code[w.stack.back().pc - 1];
            ctx.fault(FaultKind::Invalid, w, in, (unsigned)__builtin_ctz(w.stack.back().mask),
                      "deadlock: every live warp of the block waits at a barrier that cannot "
                      "complete (" + std::to_string(c->liveWarps) + " warps live)");
            return false;
          }
      return false;
    }
  }
  return true;
}


} // namespace

namespace {
/// Checks the launch configuration; empty when valid.
LaunchResult validate(const LaunchParams &p, const EngineConfig &cfg_) {
  LaunchResult res;
  auto fail = [&](LaunchStatus s, std::string msg) {
    res.status = s;
    res.message = std::move(msg);
    return res;
  };
  if (!p.kernel || !p.kernel->fn)
    return fail(LaunchStatus::InvalidConfig, "invalid kernel");
  const Kernel &k = *p.kernel;
  uint64_t threads = p.block.count();
  if (!p.grid.x || !p.grid.y || !p.grid.z || !p.block.x || !p.block.y || !p.block.z)
    return fail(LaunchStatus::InvalidConfig, "grid and block dimensions must be positive");
  if (threads > cfg_.maxThreadsPerBlock || p.block.x > 1024 || p.block.y > 1024 || p.block.z > 64)
    return fail(LaunchStatus::InvalidConfig,
                "block of " + std::to_string(threads) + " threads exceeds the device limits");
  if (k.maxThreads && threads > k.maxThreads)
    return fail(LaunchStatus::InvalidConfig, "block of " + std::to_string(threads) +
                                                 " threads exceeds the kernel's .maxntid of " +
                                                 std::to_string(k.maxThreads));
  if (p.grid.x > 0x7fffffffu || p.grid.y > 65535 || p.grid.z > 65535)
    return fail(LaunchStatus::InvalidConfig, "grid dimensions exceed the device limits");
  if ((uint64_t)k.staticShared + p.dynamicShared > cfg_.maxSharedPerBlockOptin)
    return fail(LaunchStatus::OutOfResources, "too much shared memory requested");
  return res;
}

/// Fills `g` for launch `p`; allocates the parameter buffer. Returns the local bytes per thread.
/// %globaltimer in functional mode (ns): each launch starts at this base and its warps add their
/// own time (Exec.cpp); a finished launch moves the base past every value it could have read,
/// so the timer never goes back from one launch to the next.
std::atomic<uint64_t> &globalTimer() {
  static std::atomic<uint64_t> t{0};
  return t;
}
void advanceGlobalTimer(const Grid &g, uint64_t warpInsts) {
  // a warp reads base + (instCount * 4 + ctaIndex * 16) / 2 (Exec.cpp movSpecial)
  globalTimer().fetch_add(2 * warpInsts + 8 * g.numCtas + 1);
}

uint32_t setupGrid(Grid &g, const LaunchParams &p, const EngineConfig &cfg_, Program *prog,
                   DeviceMemory *mem, DeviceRuntime *devrt) {
  const Kernel &k = *p.kernel;
  uint64_t threads = p.block.count();
  g.prog = prog;
  g.mem = mem;
  g.kernel = k.fn;
  g.dim[0] = p.grid.x;
  g.dim[1] = p.grid.y;
  g.dim[2] = p.grid.z;
  g.block[0] = p.block.x;
  g.block[1] = p.block.y;
  g.block[2] = p.block.z;
  g.threadsPerCta = (uint32_t)threads;
  g.warpsPerCta = (uint32_t)((threads + kWarpSize - 1) / kWarpSize);
  g.numCtas = p.grid.count();
  g.dynShared = p.dynamicShared;
  g.numSms = cfg_.numSms;
  g.stackBytes = cfg_.stackBytes;
  static std::atomic<uint64_t> gridIds{1};
  g.gridId = gridIds++;
  g.timerBase = globalTimer().load();
  g.depth = p.depth;
  g.its = cfg_.simt == SimtMode::Its || (cfg_.simt == SimtMode::Auto && k.fn->smVersion >= 70);
  g.leaveCalls = g.its && cfg_.itsLeaveCalls;
  g.noProgressPolls = cfg_.noProgressPolls;
  g.devrt = devrt;
  devrt->prepareGrid();
  uint32_t wsOff = (k.paramBytes + 15) & ~15u;
  g.paramAddr = mem->allocate(wsOff + 16, AllocKind::Param);
  if (k.paramBytes && p.params)
    std::memcpy(reinterpret_cast<void *>(g.paramAddr), p.params, k.paramBytes);
  g.gridWorkspace = g.paramAddr + wsOff;
  std::memset(reinterpret_cast<void *>(g.gridWorkspace), 0, 16);
  bool stack = hasCalls(*k.fn) || k.fn->dynamicStack; // calls and alloca use the stack
  return (uint32_t)((k.fn->frameSize + (stack ? cfg_.stackBytes : 0) + 15) & ~15ull);
}

LaunchStatus statusOf(FaultKind k) {
  switch (k) {
  case FaultKind::None: return LaunchStatus::Ok;
  case FaultKind::OutOfBounds: return LaunchStatus::IllegalAddress;
  case FaultKind::Misaligned: return LaunchStatus::Misaligned;
  case FaultKind::Trap: return LaunchStatus::Trap;
  case FaultKind::Assert: return LaunchStatus::Assert;
  case FaultKind::Unsupported: return LaunchStatus::Unsupported;
  default: return LaunchStatus::Fault;
  }
}
} // namespace

LaunchResult Engine::launch(const LaunchParams &p) {
  return launchTree(p, [this](const LaunchParams &q) { return launchGrid(q); });
}

LaunchResult Engine::launchTree(const LaunchParams &p, const GridRunner &runGrid) {
  devrt_->pending = 0;
  // one deadline for the launch and every grid it launches from the device
  struct DeadlineScope {
    Watchdog::Clock::time_point saved = tLaunchDeadline;
    ~DeadlineScope() { tLaunchDeadline = saved; }
  } deadlineScope;
  if (cfg_.kernelTimeoutSeconds > 0)
    tLaunchDeadline = deadlineIn(cfg_.kernelTimeoutSeconds);
  LaunchResult total = runGrid(p);
  std::vector<DeviceWork> stack; // depth first: the next to run is at the back
  auto push = [&](std::vector<DeviceWork> &work) {
    for (auto it = work.rbegin(); it != work.rend(); ++it)
      stack.push_back(std::move(*it));
    work.clear();
  };
  if (total.ok())
    push(total.deviceWork);
  total.deviceWork.clear();
  while (!stack.empty()) {
    DeviceWork w = std::move(stack.back());
    stack.pop_back();
    if (w.kind != DeviceWork::Kind::Kernel) {
      bool copy = w.kind == DeviceWork::Kind::Memcpy;
      if (!mem_->valid(w.dst, w.bytes) || (copy && !mem_->valid(w.src, w.bytes))) {
        total.status = LaunchStatus::IllegalAddress;
        total.message = std::string("device-side ") + (copy ? "cudaMemcpyAsync" : "cudaMemsetAsync") +
                        " queued by kernel '" + w.launcher + "' reaches freed memory";
        break;
      }
      if (copy)
        std::memmove(DeviceMemory::host(w.dst), DeviceMemory::host(w.src), w.bytes);
      else
        std::memset(DeviceMemory::host(w.dst), int(w.src), w.bytes);
      continue;
    }
    LaunchParams q;
    q.kernel = w.kernel;
    q.grid = w.grid;
    q.block = w.block;
    q.dynamicShared = w.dynamicShared;
    q.params = w.params.data();
    q.depth = w.depth;
    devrt_->pending = stack.size();
    LaunchResult r = runGrid(q);
    total.threadInsts += r.threadInsts;
    total.warpInsts += r.warpInsts;
    total.seconds += r.seconds;
    if (!r.ok()) {
      total.status = r.status;
      total.message = r.message + " (a grid launched from the device by kernel '" + w.launcher +
                      "', nesting depth " + std::to_string(w.depth) + ")";
      break;
    }
    push(r.deviceWork);
  }
  devrt_->pending = 0;
  return total;
}

LaunchResult Engine::launchGrid(const LaunchParams &p) {
  if (jitMode_ == (uint8_t)jit::Mode::Off || !p.kernel)
    return runGrid(p, false);
  const bool useJit = prepareJit(*p.kernel);
  if (useJit && jitMode_ == (uint8_t)jit::Mode::Diff)
    return launchDiff(p);
  LaunchResult r = runGrid(p, useJit);
  if (jitMode_ == (uint8_t)jit::Mode::Auto)
    observeJit(*p.kernel, r); // (a compiled launch too: the hotness record counts every one)
  return r;
}

LaunchResult Engine::runGrid(const LaunchParams &p, bool useJit) {
  LaunchResult res = validate(p, cfg_);
  if (!res.ok())
    return res;
  auto t0 = std::chrono::steady_clock::now();
  Grid g;
  uint32_t localPerThread = setupGrid(g, p, cfg_, prog_.get(), mem_.get(), devrt_.get());
  const Kernel &k = *p.kernel;
  std::string policyError;
  std::unique_ptr<LaunchExtension> ext = applyLaunchPolicies(p, cfg_.numSms, g.numCtas, policyError);
  if (!policyError.empty()) {
    mem_->release(g.paramAddr);
    res.status = LaunchStatus::Fault;
    res.message = policyError;
    return res;
  }
  g.ext = ext.get();
  // the CTAs of the current group of an extension's launch (LaunchPolicy.h)
  const std::vector<uint64_t> *group = nullptr;

  unsigned nthreads = cfg_.hostThreads ? cfg_.hostThreads : base::usableCores();
  if ((uint64_t)nthreads > g.numCtas)
    nthreads = (unsigned)g.numCtas;
  std::atomic<uint64_t> next{0};
  std::atomic<uint64_t> ctasDone{0};
  std::mutex mu;
  std::map<uint64_t, std::string> printfOut;
  std::vector<std::pair<uint64_t, CtaDeviceWork>> deviceWork;
  uint64_t faultCta = ~0ull;
  std::string faultMsg;
  FaultKind faultKind = FaultKind::None;
  std::atomic<uint64_t> totalThreadInsts{0}, totalWarpInsts{0};

  auto worker = [&](unsigned tid) {
    ExecCtx ctx;
    ctx.prog = prog_.get();
    ctx.mem = mem_.get();
    ctx.grid = &g;
    ctx.jit = useJit;
    auto record = [&](Cta &c) {
      if (!c.printf.empty() || c.devrt) {
        std::lock_guard<std::mutex> lock(mu);
        if (!c.printf.empty())
          printfOut[c.linearId] = std::move(c.printf);
        c.printf.clear();
        if (c.devrt)
          deviceWork.emplace_back(c.linearId, takeCtaDeviceWork(c));
      }
    };
    auto onFault = [&](uint64_t cta) {
      std::lock_guard<std::mutex> lock(mu);
      if (cta < faultCta) {
        faultCta = cta;
        faultMsg = ctx.faultMsg;
        faultKind = ctx.faultKind;
        g.stopCta = cta;
      }
      g.stop = true;
    };
    if (p.cooperative || group) {
      // every CTA of this worker (of the group) is resident at once
      std::vector<std::unique_ptr<Cta>> mine;
      std::vector<Cta *> ptrs;
      uint64_t n = group ? group->size() : g.numCtas;
      for (uint64_t i = tid; i < n; i += nthreads) {
        uint64_t c = group ? (*group)[i] : i;
        mine.push_back(std::make_unique<Cta>());
        initCta(*mine.back(), g, c, localPerThread);
        ptrs.push_back(mine.back().get());
      }
      if (!runCtas(ctx, ptrs, cfg_.warpQuantum))
        onFault(ctx.cta ? ctx.cta->linearId : 0);
      for (auto &c : mine)
        record(*c);
    } else {
      // each host thread keeps its CTA (and the capacity of its register, shared and local
      // storage) from launch to launch: a large kernel's registers are megabytes per CTA,
      // and fresh allocations would fault those pages in again at every launch
      thread_local Cta cta;
      std::vector<Cta *> one{&cta};
      for (;;) {
        if (g.stop.load(std::memory_order_relaxed))
          break;
        uint64_t c = next.fetch_add(1);
        if (c >= g.numCtas)
          break;
        initCta(cta, g, c, localPerThread);
        if (!runCtas(ctx, one, cfg_.warpQuantum)) {
          onFault(c);
          break;
        }
        if (g.stop.load(std::memory_order_relaxed))
          break; // stopped unfinished by another CTA's fault
        record(cta);
        ctasDone.fetch_add(1, std::memory_order_relaxed);
      }
    }
    totalThreadInsts += ctx.threadInsts;
    totalWarpInsts += ctx.warpInsts;
    if (ctx.jitStackChanges) {
      jit::Stats &st = jit::stats();
      std::lock_guard<std::mutex> lock(st.mu);
      st.stackChanges += ctx.jitStackChanges;
    }
    if (size_t nc = execCounters().size()) {
      std::lock_guard<std::mutex> lock(mu);
      res.counters.resize(nc, 0);
      for (size_t i = 0; i < nc; ++i)
        res.counters[i] += ctx.counters[i];
      std::fill(ctx.counters, ctx.counters + nc, 0);
    }
  };
  // Progress for long launches: a monitor thread reports CTAs done every half second once the
  // launch has run for a second (only when the embedder asked for it, e.g. stderr is a tty).
  std::atomic<bool> finished{false};
  std::thread monitor;
  if (progress_) {
    monitor = std::thread([&] {
      auto begin = std::chrono::steady_clock::now();
      bool shown = false;
      while (!finished.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        if (t >= 1.0 && !finished.load() && (!shown || int(t * 10) % 5 == 0)) {
          progress_(k.name, ctasDone.load(), g.numCtas, false);
          shown = true;
        }
      }
      if (shown)
        progress_(k.name, g.numCtas, g.numCtas, true);
    });
  }
  // every worker on a pool thread, also when there is one: CTA storage, printf text and
  // device-launch queues then stay out of the application's malloc arena (WorkerPool::run)
  uint64_t timer = 0;
  if (cfg_.kernelTimeoutSeconds > 0)
    timer = Watchdog::instance().arm(launchDeadline(cfg_.kernelTimeoutSeconds), [&g] {
      g.timedOut = true;
      g.stop = true;
    });
  auto runPool = [&] { WorkerPool::instance().run(nthreads, worker); };
  if (!ext) {
    runPool();
  } else {
    // an extension's launch: its groups one after another, each group's CTAs co-resident
    unsigned all = nthreads;
    for (size_t gi = 0; gi < ext->groups.size() && !g.stop; ++gi) {
      std::string err = ext->beginGroup(gi, *mem_);
      if (err.empty()) {
        group = &ext->groups[gi];
        nthreads = (unsigned)std::min<uint64_t>(all, std::max<size_t>(1, group->size()));
        runPool();
        if (!g.stop)
          err = ext->endGroup(gi, *mem_);
      }
      if (!err.empty() && faultKind == FaultKind::None) {
        faultKind = FaultKind::Invalid;
        faultMsg = "kernel '" + k.name + "': " + ext->name() + ": " + err;
        break;
      }
    }
  }
  if (timer)
    Watchdog::instance().disarm(timer);
  finished = true;
  if (monitor.joinable())
    monitor.join();
  mem_->release(g.paramAddr);
  std::string out;
  for (auto &kv : printfOut)
    out += kv.second;
  if (!out.empty() && printfSink_)
    printfSink_(out);
  res.threadInsts = totalThreadInsts;
  res.warpInsts = totalWarpInsts;
  advanceGlobalTimer(g, res.warpInsts);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (faultKind != FaultKind::None) {
    res.message = faultMsg;
    res.status = statusOf(faultKind);
  } else if (g.timedOut && (!g.timeoutWarps.empty() || (!p.cooperative && !ext &&
                                                        ctasDone.load() < g.numCtas))) {
    // (a timeout that came as the last CTA finished stopped nothing)
    timedOutResult(res, g, cfg_.kernelTimeoutSeconds);
  } else if (!deviceWork.empty()) {
    res.deviceWork = mergeDeviceWork(deviceWork);
  }
  return res;
}

// --- stepped execution ----------------------------------------------------------------------------

namespace {
/// Retired CTAs of stepped grids that ended, for the next stepped grid's startCta (initCta
/// resets them for any kernel), and their lanes' contexts (setLanes resets them): a program
/// that launches a small kernel many times would otherwise allocate, page-fault and zero every
/// CTA's buffers (registers, SIMT stacks, shared memory) and a context per SM at every launch.
/// Bounded (kMaxSpareCtas, kMaxSpareLanes); never destroyed (no static destructors).
struct SpareCtas {
  static constexpr size_t kMaxSpareCtas = 1024, kMaxSpareLanes = 1024;
  std::mutex mu;
  std::vector<std::unique_ptr<Cta>> ctas;
  std::vector<std::unique_ptr<ExecCtx>> lanes;
};
SpareCtas &spareCtas() {
  static SpareCtas *s = new SpareCtas;
  return *s;
}
} // namespace

struct SteppedGrid::State {
  Grid g;
  ExecCtx ctx; ///< lane 0
  /// Lanes 1.. (setLanes): each a context of its own, so cycle models can step warps of
  /// different SMs on different host threads; lane i's fault stops only lane i.
  std::vector<std::unique_ptr<ExecCtx>> more;
  mutable uint64_t mergedCounters[kMaxExecCounters] = {};
  /// Some lane faulted (set by the lane's own thread; faulted() is checked every cycle).
  std::atomic<bool> anyFault{false};
  ExecCtx &lane(uint32_t i) { return i == 0 || i > more.size() ? ctx : *more[i - 1]; }
  /// The first fault by lane order (deterministic whatever ran first on the host).
  const ExecCtx *firstFault() const {
    if (ctx.faulted())
      return &ctx;
    for (const auto &c : more)
      if (c->faulted())
        return c.get();
    return nullptr;
  }
  uint32_t localPerThread = 0;
  std::map<uint64_t, std::unique_ptr<Cta>> ctas;
  /// Retired CTAs, reused by startCta (initCta resets them): a fresh CTA's buffers (registers,
  /// local memory) would be allocated, page-faulted and zeroed again, on the cycle model's
  /// serial dispatch path.
  std::vector<std::unique_ptr<Cta>> freeCtas;
  std::map<uint64_t, std::string> printfOut;
  std::vector<std::pair<uint64_t, CtaDeviceWork>> deviceWork;
  std::function<void(const std::string &)> sink;
  std::unique_ptr<LaunchExtension> ext;
  unsigned quantum = 1;
  bool finished = false;
  uint64_t timer = 0;        ///< the kernel timeout's Watchdog token, 0 when none
  double timeoutSeconds = 0;
};

SteppedGrid::~SteppedGrid() {
  if (s_ && !s_->finished)
    finish();
  if (s_ && (!s_->freeCtas.empty() || !s_->more.empty())) {
    SpareCtas &sp = spareCtas();
    std::lock_guard<std::mutex> lock(sp.mu);
    for (auto &c : s_->freeCtas) { // (retired CTAs only: those still resident stay here)
      if (sp.ctas.size() >= SpareCtas::kMaxSpareCtas)
        break;
      sp.ctas.push_back(std::move(c));
    }
    for (auto &c : s_->more) {
      if (sp.lanes.size() >= SpareCtas::kMaxSpareLanes)
        break;
      sp.lanes.push_back(std::move(c));
    }
  }
}
uint64_t SteppedGrid::numCtas() const {
  return s_->g.numCtas + (s_->ext ? s_->ext->helperCtas : 0);
}
uint32_t SteppedGrid::warpsPerCta() const { return s_->g.warpsPerCta; }
LaunchExtension *SteppedGrid::extension() const { return s_->ext.get(); }
const uint64_t *SteppedGrid::counters() const {
  if (s_->more.empty())
    return s_->ctx.counters;
  // the registered counters only (the rest stay 0), lane by lane (each lane's in one place)
  const size_t n = std::min<size_t>(execCounters().size(), kMaxExecCounters);
  std::copy_n(s_->ctx.counters, n, s_->mergedCounters);
  for (const auto &c : s_->more)
    for (size_t i = 0; i < n; ++i)
      s_->mergedCounters[i] += c->counters[i];
  return s_->mergedCounters;
}
bool SteppedGrid::runFunctionally(uint64_t first, uint64_t end) {
  for (uint64_t c = first; c < end; ++c) {
    Cta *cta = startCta(c);
    std::vector<Cta *> one{cta};
    if (!runCtas(s_->ctx, one, s_->quantum) || s_->g.timedOut.load(std::memory_order_relaxed)) {
      s_->anyFault.store(true, std::memory_order_relaxed);
      return false;
    }
    retireCta(cta);
  }
  return true;
}
void SteppedGrid::instsSoFar(uint64_t &warpInsts, uint64_t &threadInsts) const {
  warpInsts = s_->ctx.warpInsts;
  threadInsts = s_->ctx.threadInsts;
  for (const auto &c : s_->more) {
    warpInsts += c->warpInsts;
    threadInsts += c->threadInsts;
  }
}
std::string SteppedGrid::noProgressText(uint64_t cycles) const {
  constexpr size_t kShown = 16;
  const Grid &g = s_->g;
  std::string list;
  size_t n = 0;
  for (const auto &kv : s_->ctas)
    for (const Warp &w : kv.second->warps)
      if (w.state != WarpState::Done && n++ < kShown)
        list += "\n  " + warpPlaceText(s_->ctx.prog, g, w);
  if (n > kShown)
    list += "\n  ... and " + std::to_string(n - kShown) + " more";
  std::string who = s_->ext ? std::string(" (the launch is run by ") + s_->ext->name() + ")" : "";
  return "kernel '" + (g.kernel ? g.kernel->name : std::string("?")) +
         "': no progress: no warp issued an instruction for " + std::to_string(cycles) +
         " cycles" + who + " (a deadlock); the live warps (" + std::to_string(n) + "):" + list;
}
void SteppedGrid::setLanes(uint32_t n) {
  while (s_->more.size() + 1 < n) {
    std::unique_ptr<ExecCtx> c;
    { // an earlier grid's lane, as a fresh one (or a new one)
      SpareCtas &sp = spareCtas();
      std::lock_guard<std::mutex> lock(sp.mu);
      if (!sp.lanes.empty()) {
        c = std::move(sp.lanes.back());
        sp.lanes.pop_back();
      }
    }
    if (c)
      *c = ExecCtx();
    else
      c = std::make_unique<ExecCtx>();
    c->prog = s_->ctx.prog;
    c->mem = s_->ctx.mem;
    c->grid = s_->ctx.grid;
    c->nsPerCycle = s_->ctx.nsPerCycle;
    lanes_.push_back(c.get());
    s_->more.push_back(std::move(c));
  }
}
DeviceMemory &SteppedGrid::memory() const { return *s_->g.mem; }
Cta *SteppedGrid::startCta(uint64_t id) {
  Cta *cta = reserveCta(id);
  initReservedCta(cta);
  return cta;
}
Cta *SteppedGrid::reserveCta(uint64_t id) {
  auto &slot = s_->ctas[id];
  if (!s_->freeCtas.empty()) {
    slot = std::move(s_->freeCtas.back());
    s_->freeCtas.pop_back();
    // (what finish() reads of a CTA that never got its state: nothing from the last use)
    slot->printf.clear();
    slot->devrt.reset();
  } else {
    slot = std::make_unique<Cta>();
  }
  slot->linearId = id;
  // room for the warps, not the warps: initCta constructs them in place (initReservedCta runs
  // on the SM's thread, which then takes the first touch of a fresh CTA's pages, the most of
  // its dispatch), and warp() only hands out their addresses until then
  if (slot->warps.size() > s_->g.warpsPerCta)
    slot->warps.resize(s_->g.warpsPerCta);
  slot->warps.reserve(s_->g.warpsPerCta);
  return slot.get();
}
void SteppedGrid::initReservedCta(Cta *cta) {
  initCta(*cta, s_->g, cta->linearId, s_->localPerThread);
}
Warp &SteppedGrid::warp(Cta *cta, uint32_t w) {
  return cta->warps.data()[w]; // (a reserved CTA's warps are constructed by initReservedCta)
}
bool SteppedGrid::ready(const Warp &w) const { return w.state == WarpState::Ready; }
bool SteppedGrid::atBarrier(const Warp &w) const { return w.state == WarpState::AtBarrier; }
bool SteppedGrid::done(const Warp &w) const { return w.state == WarpState::Done; }
const ir::Inst *SteppedGrid::peek(Warp &w) { return peekWarp(w); }
namespace {
inline const ir::Inst *nextOf(const Warp &w, bool &popDue) {
  popDue = false;
  if (w.state != WarpState::Ready || w.stack.empty())
    return nullptr;
  const SimtEntry &top = w.stack.back();
  if (top.pc == top.rpc || top.mask == 0) {
    popDue = true;
    return nullptr;
  }
  return &w.fn->code[top.pc];
}
} // namespace
const ir::Inst *SteppedGrid::next(const Warp &w, bool &popDue) const { return nextOf(w, popDue); }
const ir::Function *SteppedGrid::function(const Warp &w) const { return w.fn; }
bool SteppedGrid::callsBody(const Warp &w, const ir::Inst &in) const {
  if (in.ctl != ir::Ctl::Call || !w.fn || in.target >= w.fn->calls.size())
    return false;
  const ir::Function *callee = s_->ctx.prog->function(w.fn->calls[in.target].callee);
  return callee && callee->hasBody;
}
bool SteppedGrid::ctaDone(const Cta *cta) const { return cta->liveWarps == 0; }
bool SteppedGrid::faulted() const { return s_->anyFault.load(std::memory_order_relaxed); }
bool SteppedGrid::laneFaulted(uint32_t lane) const { return s_->lane(lane).faulted(); }
void SteppedGrid::fault(Warp &w, const ir::Inst &in, const std::string &what, uint32_t laneId) {
  ExecCtx &ctx = s_->lane(laneId);
  ctx.cta = w.cta;
  uint32_t mask = w.stack.empty() ? 1u : w.stack.back().mask;
  unsigned lane = mask ? unsigned(__builtin_ctz(mask)) : 0;
  ctx.fault(FaultKind::Unsupported, w, in, lane, what);
  s_->anyFault.store(true, std::memory_order_relaxed);
}
inline bool SteppedGrid::stepIn(ExecCtx &ctx, Warp &w, WarpInstRecord &rec) {
  if (ctx.faulted())
    return false;
  // (an instruction executed ahead: nothing runs, the warp stays Ready and cannot fault)
  if (w.aheadN && stepAheadWarp(ctx, w, rec))
    return true;
  ctx.cta = w.cta;
  bool ok = stepWarp(ctx, w, rec);
  if (w.state == WarpState::Done && w.cta->liveWarps && ok)
    warpFinished(ctx, *w.cta);
  if (__builtin_expect(ctx.faulted(), false)) {
    s_->anyFault.store(true, std::memory_order_relaxed);
    return false;
  }
  return ok;
}
bool SteppedGrid::step(Warp &w, WarpInstRecord &rec, uint32_t lane) {
  return stepIn(laneCtx(lane), w, rec);
}
bool SteppedGrid::stepThenNext(Warp &w, WarpInstRecord &rec, uint32_t lane,
                               const ir::Inst *&next, bool &popDue) {
  ExecCtx &ctx = laneCtx(lane);
  if (w.aheadN && !ctx.faulted() && stepAheadWarp(ctx, w, rec)) {
    // An instruction executed ahead (most steps of straight-line code): stepAheadWarp found
    // the warp Ready with a non-empty top entry and moved only its pc, and such a step cannot
    // fault, so of nextOf's checks only the reconvergence point is left to look at.
    const SimtEntry &top = w.stack.back();
    popDue = top.pc == top.rpc;
    next = popDue ? nullptr : &w.fn->code[top.pc];
    return true;
  }
  // (out of line: the path above then needs no saved registers)
  return stepThenNextSlow(ctx, w, rec, next, popDue);
}
__attribute__((noinline)) bool SteppedGrid::stepThenNextSlow(ExecCtx &ctx, Warp &w,
                                                             WarpInstRecord &rec,
                                                             const ir::Inst *&next, bool &popDue) {
  // A memory instruction, most of these steps (a tiled kernel's shared loads and stores):
  // stepIn's work without stepWarp's general loop (stepPlainWarp), the rest as stepIn does it.
  if (!ctx.faulted() && !w.aheadN) {
    ctx.cta = w.cta; // (as stepIn sets it for stepWarp)
    if (stepPlainWarp(ctx, w, rec)) {
      if (w.state == WarpState::Done && w.cta->liveWarps)
        warpFinished(ctx, *w.cta);
      if (__builtin_expect(ctx.faulted(), false)) {
        s_->anyFault.store(true, std::memory_order_relaxed);
        next = nextOf(w, popDue);
        return false;
      }
      next = nextOf(w, popDue);
      return true;
    }
  }
  const bool ok = stepIn(ctx, w, rec);
  next = nextOf(w, popDue);
  return ok;
}
void SteppedGrid::commitStores(uint32_t lane) {
  StoreBuffer &b = s_->lane(lane).stores;
  if (!b.empty())
    exec::commitStores(b);
}
bool SteppedGrid::bufferableStore(const ir::Inst &in) { return isBufferableStore(in); }
void SteppedGrid::setTimedClock(double nsPerCycle) {
  s_->ctx.nsPerCycle = nsPerCycle;
  for (auto &c : s_->more)
    c->nsPerCycle = nsPerCycle;
}
uint32_t SteppedGrid::builtinCallee(const Warp &w, const ir::Inst &in) const {
  if (in.ctl != ir::Ctl::Call || !w.fn || in.target >= w.fn->calls.size())
    return 0;
  const ir::Function *f = s_->ctx.prog->function(w.fn->calls[in.target].callee);
  return f && !f->hasBody ? f->builtin : 0;
}
void SteppedGrid::retireCta(Cta *cta) {
  if (!cta->printf.empty())
    s_->printfOut[cta->linearId] = std::move(cta->printf);
  if (cta->devrt)
    s_->deviceWork.emplace_back(cta->linearId, takeCtaDeviceWork(*cta));
  auto it = s_->ctas.find(cta->linearId);
  if (it != s_->ctas.end()) {
    s_->freeCtas.push_back(std::move(it->second));
    s_->ctas.erase(it);
  }
}
LaunchResult SteppedGrid::finish() {
  LaunchResult r;
  if (s_->finished)
    return r;
  s_->finished = true;
  if (s_->timer)
    Watchdog::instance().disarm(s_->timer);
  if (s_->g.timedOut) {
    // where the warps of the resident CTAs are (the ones runFunctionally ran noted theirs)
    std::vector<Cta *> live;
    for (auto &kv : s_->ctas)
      live.push_back(kv.second.get());
    noteTimedOutWarps(s_->ctx.prog, s_->g, live);
  }
  for (auto &kv : s_->ctas) {
    if (!kv.second->printf.empty())
      s_->printfOut[kv.first] = std::move(kv.second->printf);
    if (kv.second->devrt)
      s_->deviceWork.emplace_back(kv.first, takeCtaDeviceWork(*kv.second));
  }
  std::string out;
  for (auto &kv : s_->printfOut)
    out += kv.second;
  if (!out.empty() && s_->sink)
    s_->sink(out);
  s_->g.mem->release(s_->g.paramAddr);
  r.threadInsts = s_->ctx.threadInsts;
  r.warpInsts = s_->ctx.warpInsts;
  for (const auto &c : s_->more) {
    r.threadInsts += c->threadInsts;
    r.warpInsts += c->warpInsts;
  }
  const uint64_t *counts = counters();
  r.counters.assign(counts, counts + execCounters().size());
  advanceGlobalTimer(s_->g, r.warpInsts);
  if (const ExecCtx *f = s_->firstFault()) {
    r.status = statusOf(f->faultKind);
    r.message = f->faultMsg;
  } else if (s_->g.timedOut && !s_->g.timeoutWarps.empty()) {
    timedOutResult(r, s_->g, s_->timeoutSeconds);
  } else if (!s_->deviceWork.empty()) {
    r.deviceWork = mergeDeviceWork(s_->deviceWork);
  }
  return r;
}

std::unique_ptr<SteppedGrid> Engine::beginGrid(const LaunchParams &p, LaunchResult &err,
                                               uint32_t numSms) {
  err = validate(p, cfg_);
  if (!err.ok())
    return nullptr;
  std::unique_ptr<SteppedGrid> sg(new SteppedGrid());
  sg->s_ = std::make_unique<SteppedGrid::State>();
  auto &st = *sg->s_;
  sg->lanes_.assign(1, &st.ctx);
  st.localPerThread = setupGrid(st.g, p, cfg_, prog_.get(), mem_.get(), devrt_.get());
  std::string policyError;
  st.ext = applyLaunchPolicies(p, numSms ? numSms : cfg_.numSms, st.g.numCtas, policyError);
  if (!policyError.empty()) {
    mem_->release(st.g.paramAddr);
    st.finished = true;
    err.status = LaunchStatus::Fault;
    err.message = policyError;
    return nullptr;
  }
  st.g.ext = st.ext.get();
  { // the CTAs earlier stepped grids retired, for startCta to reuse (as many as it can use)
    SpareCtas &sp = spareCtas();
    std::lock_guard<std::mutex> lock(sp.mu);
    const size_t n = size_t(std::min<uint64_t>(sp.ctas.size(), st.g.numCtas));
    st.freeCtas.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      st.freeCtas.push_back(std::move(sp.ctas.back()));
      sp.ctas.pop_back();
    }
  }
  st.ctx.prog = prog_.get();
  st.ctx.mem = mem_.get();
  st.ctx.grid = &st.g;
  st.quantum = cfg_.warpQuantum;
  st.sink = printfSink_;
  if (cfg_.kernelTimeoutSeconds > 0) {
    SteppedGrid::State *state = &st;
    st.timeoutSeconds = cfg_.kernelTimeoutSeconds;
    st.timer = Watchdog::instance().arm(launchDeadline(cfg_.kernelTimeoutSeconds), [state] {
      state->g.timedOut = true;
      state->g.stop = true;
      state->anyFault = true; // the cycle model looks at faulted() every cycle
    });
  }
  return sg;
}

} // namespace ptxsim::ptx::exec

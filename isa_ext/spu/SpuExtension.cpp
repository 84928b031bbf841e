// The SPU plugged into ptxsim: PTX forms, lowering, handlers, the launch policy (passes), the
// CB timing model and statistics. The model itself (passes, CBs, VIUs) is Machine/Topology.

#include "isa_ext/spu/SpuExtension.h"

#include "base/ExtensionOptions.h"
#include "base/Stats.h"
#include "power/IPowerComponent.h"
#include "ptx/ast/Types.h"
#include "ptx/exec/Counters.h"
#include "ptx/exec/Engine.h"
#include "ptx/exec/Exec.h"
#include "ptx/exec/LaunchPolicy.h"
#include "ptx/exec/Lower.h"
#include "ptx/exec/Program.h"
#include "ptx/exec/Warp.h"
#include "ptx/sema/OpcodeTable.h"
#include "timing/ext/Extension.h"
#include "timing/mem/LdstUnit.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <sstream>

namespace ptxsim::spu {

using namespace ptx;
using namespace ptx::exec;

// --- options --------------------------------------------------------------------------------

namespace {
std::mutex gConfigMu;
Config gConfig;

bool parseUnsigned(const std::string &s, uint32_t &v) {
  if (s.empty())
    return false;
  char *end = nullptr;
  unsigned long x = std::strtoul(s.c_str(), &end, 0);
  if (*end || x > 0xffffffffu)
    return false;
  v = (uint32_t)x;
  return true;
}
} // namespace

uint64_t virtualCbBytesPerSm(const Config &c) {
  uint32_t m = c.machine.blocksPerSm;
  if (m <= 1)
    return 0;
  uint64_t perSm = c.machine.oneD ? m - 1 : 2ull * (m - 1);
  return perSm * 2 * c.machine.cbBytes;
}

namespace {
/// One SPU option: its name, default, help text, range and where it goes in Config. The one
/// table both the configuration loader (registerOption, which checks the range in files and on
/// the command line) and PTXSIM_SPU (parseOptions) read, so both accept exactly the same values.
struct OptionSpec {
  const char *name;
  uint32_t def, lo, hi;
  const char *help;
  void (*set)(Config &, uint32_t);
  bool enables; ///< setting it in PTXSIM_SPU implies -spu_enabled 1
};

const OptionSpec kOptions[] = {
    {"-spu_enabled", 0, 0, 1, "SPU: the GPU has a Stencil Processing Unit (docs/spu.md)",
     [](Config &c, uint32_t v) { c.enabled = v; }, false},
    {"-spu_rows", 4, 1, 64, "SPU: rows of the SM grid",
     [](Config &c, uint32_t v) { c.machine.shape.rows = v; }, true},
    {"-spu_cols", 4, 1, 64, "SPU: columns of the SM grid",
     [](Config &c, uint32_t v) { c.machine.shape.cols = v; }, true},
    {"-spu_cb_bytes", 16384, 4, 1u << 20, "SPU: bytes of one half of a communication buffer",
     [](Config &c, uint32_t v) { c.machine.cbBytes = v; }, false},
    {"-spu_regstart", 1, 0, 1,
     "SPU: regstart optimization (section 3.3): VIUs skip steps that moved no data",
     [](Config &c, uint32_t v) { c.machine.regstart = v; }, false},
    {"-spu_1d", 0, 0, 1, "SPU: 1D grids of blocks chained through every SM (section 5)",
     [](Config &c, uint32_t v) { c.machine.oneD = v; }, false},
    {"-spu_skip_dummy_syncs", 0, 0, 1,
     "SPU: block synchronizations that moved no data cost no barrier-network time (section 5)",
     [](Config &c, uint32_t v) { c.machine.skipDummySyncs = v; }, false},
    {"-spu_blocks_per_sm", 1, 1, 8,
     "SPU: blocks side by side on each SM, linked by virtual CBs (section 5, figure 10)",
     [](Config &c, uint32_t v) { c.machine.blocksPerSm = v; }, false},
    {"-spu_cb_latency", 24, 1, 10000, "SPU: cycles from a CB access to its data",
     [](Config &c, uint32_t v) { c.cbLatency = v; }, false},
    {"-spu_cb_banks", 32, 1, 256, "SPU: 4-byte banks of a CB",
     [](Config &c, uint32_t v) { c.cbBanks = v; }, false},
    {"-spu_sync_latency", 20, 0, 100000,
     "SPU: cycles the barrier network adds to each block synchronization",
     [](Config &c, uint32_t v) { c.syncLatency = v; }, false},
    {"-spu_viu_bytes_per_cycle", 32, 1, 65536,
     "SPU: spill/restore bandwidth of one VIU (bytes per cycle)",
     [](Config &c, uint32_t v) { c.viuBytesPerCycle = v; }, false},
    {"-spu_power_pairs", 0, 0, 1,
     "SPU: power convention: 0 per-unit accounting, 1 the report's (one SM + IU pair times the "
     "number of pairs)",
     [](Config &c, uint32_t v) { c.powerPairs = v; }, false},
    {"-spu_dma_ius", 0, 0, 1,
     "SPU: IUs are DMA engines instead of reduced SMs (section 5): no instruction issue, only "
     "their memory transfers take time; a DMA power component",
     [](Config &c, uint32_t v) { c.dmaIus = v; }, false},
    {"-spu_check_reads", 0, 0, 1,
     "SPU: debug check: a CB load of bytes the neighbour did not write in the previous step "
     "(stale data) faults",
     [](Config &c, uint32_t v) { c.checkReads = v; }, false},
};
} // namespace

std::string parseOptions(const std::string &text, Config &c) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;)
    words.push_back(w);
  if (words.size() == 1 && (words[0] == "1" || words[0] == "on")) {
    c.enabled = true;
    return "";
  }
  for (size_t i = 0; i < words.size(); i += 2) {
    const std::string &name = words[i];
    const OptionSpec *o = nullptr;
    for (const OptionSpec &x : kOptions)
      if (name == x.name)
        o = &x;
    if (!o)
      return "unknown SPU option '" + name + "'";
    if (i + 1 >= words.size())
      return "option '" + name + "' needs a value";
    uint32_t v = 0;
    const std::string &val = words[i + 1];
    if (!parseUnsigned(val, v))
      return "option '" + name + "' needs an unsigned number, not '" + val + "'";
    if (v < o->lo || v > o->hi)
      return o->lo == 0 && o->hi == 1
                 ? "option '" + name + "' is 0 or 1"
                 : "option '" + name + "' must be between " + std::to_string(o->lo) + " and " +
                       std::to_string(o->hi);
    o->set(c, v);
    if (o->enables)
      c.enabled = true;
  }
  return "";
}

namespace {
bool gTestConfig = false;

/// The registered options' values (the timing configuration's, or their defaults).
Config fromOptions() {
  Config c;
  for (const OptionSpec &o : kOptions)
    o.set(c, (uint32_t)option(o.name));
  return c;
}

void registerOptions() {
  for (const OptionSpec &o : kOptions)
    registerOption(o.name, o.def, o.help, o.lo, o.hi);
}

/// PTXSIM_SPU's error, if its value is invalid: every launch then fails with it (reported as a
/// launch error, like any other), and it is printed once. Exiting instead, from inside a
/// launch, would leave the CUDA runtime's locks held and hang at unregistration.
std::string gEnvError;
bool gEnvErrorShown = false;
} // namespace

std::string configError() {
  (void)config();
  std::lock_guard<std::mutex> lock(gConfigMu);
  return gTestConfig ? std::string() : gEnvError;
}

Config config() {
  std::lock_guard<std::mutex> lock(gConfigMu);
  if (gTestConfig)
    return gConfig;
  Config c = fromOptions();
  gEnvError.clear();
  if (const char *e = std::getenv("PTXSIM_SPU"); e && *e && std::strcmp(e, "0") != 0) {
    Config env = c;
    env.enabled = true;
    std::string err = parseOptions(e, env);
    if (err.empty())
      return env;
    // the configuration without PTXSIM_SPU stays in force (so the GPU can be built); launches
    // report the error
    gEnvError = "PTXSIM_SPU: " + err;
    if (!gEnvErrorShown) {
      gEnvErrorShown = true;
      std::fprintf(stderr, "ptxsim: %s (every kernel launch fails with this error)\n",
                   gEnvError.c_str());
    }
  }
  return c;
}

void setConfig(const Config &c) {
  std::lock_guard<std::mutex> lock(gConfigMu);
  gConfig = c;
  gTestConfig = true;
}

// --- one launch -------------------------------------------------------------------------------

namespace {

/// Counter ids (ptx/exec/Counters.h): totals per launch, in both modes.
/// Timing mode: shared memory of an SM core before virtual CBs are carved from it (recorded when
/// the GPU's SMs are built, timing::registerSmConfig); 0 in functional mode, which has no
/// occupancy limits.
std::atomic<uint32_t> gSmSharedBytes{0};

uint16_t gCbReads, gCbWrites, gCbReadBytes, gCbWriteBytes, gSyncs, gDummySyncs, gSpillBytes,
    gRestoreBytes, gIuCbBytes;

/// What one unit (a CTA of the current pass) is doing at a block synchronization.
struct UnitRun {
  uint32_t step = 0;         ///< time step the unit is in
  uint32_t arrivedWarps = 0; ///< warps waiting at spu.sync
  uint32_t passedWarps = 0;  ///< of those, warps that have left it
  bool unitArrived = false;  ///< reported to the machine
  /// The unit can never arrive: every live warp waits either here or at a CTA barrier, and at
  /// least one at a CTA barrier (which the warps here will never reach). Permanent.
  bool stuck = false;
};

/// The launch policy's object: the machine plus what maps CTAs to units.
class SpuLaunch : public LaunchExtension {
public:
  SpuLaunch(const Config &c, uint32_t gx, uint32_t gy) : cfg(c), machine(c.machine, gx, gy) {
    size_t n = machine.passes().size();
    passCb.reset(new std::atomic<uint64_t>[2 * n]);
    for (size_t i = 0; i < 2 * n; ++i)
      passCb[i].store(0, std::memory_order_relaxed);
  }

  std::string beginGroup(size_t g, DeviceMemory &) override {
    std::lock_guard<std::mutex> lock(mu);
    machine.beginPass((uint32_t)g);
    countedSpill = countedRestore = 0;
    runs.assign(machine.pass().units.size(), UnitRun{});
    stuckUnits = 0;
    step.store(0, std::memory_order_release);
    readyCycle = 0;
    return "";
  }
  std::string endGroup(size_t, DeviceMemory &) override { return ""; }
  void ctaFinished(ExecCtx &ctx, Cta &c) override {
    int32_t u = unitOf[c.linearId];
    std::lock_guard<std::mutex> lock(mu);
    reportProgress(ctx);
    if (machine.exited((uint32_t)u))
      released(ctx);
    if (machine.passDone()) {
      // the VIUs' last synchronization and spill (Algorithm 1), once the pass is over
      PassStats before = machine.stats()[machine.currentPass()];
      machine.endPass();
      const PassStats &after = machine.stats()[machine.currentPass()];
      ctx.count(gSyncs, after.steps - before.steps);
      ctx.count(gSpillBytes, after.spillBytes - before.spillBytes);
    }
  }
  const char *name() const override { return "SPU"; }

  /// After a synchronization completed (under mu): count it, publish the new step and when, in
  /// timing mode, the waiting warps may leave: the barrier network's latency (none for a dummy
  /// synchronization with -spu_skip_dummy_syncs) plus the VIUs' transfers.
  void released(ExecCtx &ctx) {
    bool dummy = machine.lastTransitionDummy();
    uint64_t viu = machine.lastTransitionVIUMaxBytes(); // the VIUs work in parallel
    const PassStats &ps = machine.stats()[machine.currentPass()];
    ctx.count(gSyncs, 1);
    ctx.count(gDummySyncs, dummy);
    ctx.count(gSpillBytes, ps.spillBytes - countedSpill);
    ctx.count(gRestoreBytes, ps.restoreBytes - countedRestore);
    countedSpill = ps.spillBytes;
    countedRestore = ps.restoreBytes;
    uint64_t cost = 0;
    if (ctx.cycle) {
      if (!(cfg.machine.skipDummySyncs && dummy))
        cost += cfg.syncLatency;
      cost += (viu + cfg.viuBytesPerCycle - 1) / cfg.viuBytesPerCycle;
    }
    readyCycle = ctx.cycle + cost;
    step.store(machine.step(), std::memory_order_release);
  }

  Config cfg;
  Machine machine;
  std::vector<int32_t> unitOf; ///< per CTA linear id: unit index in its pass
  std::vector<UnitRun> runs;   ///< per unit of the current pass
  std::mutex mu;
  std::atomic<uint32_t> step{0};
  uint64_t readyCycle = 0;
  uint64_t countedSpill = 0, countedRestore = 0; ///< of the current pass, already counted
  uint32_t warpsPerCta = 1;
  /// Units of the current pass that can never arrive (UnitRun::stuck): with the arrived ones
  /// they make a deadlock once they are all the live units.
  uint32_t stuckUnits = 0;
  /// Warp-level CB loads and stores per pass (2 per pass), from handlers on any host thread.
  std::unique_ptr<std::atomic<uint64_t>[]> passCb;
};

SpuLaunch *launchOf(const ExecCtx &ctx) {
  return ctx.grid ? dynamic_cast<SpuLaunch *>(ctx.grid->ext) : nullptr;
}

/// The launch and unit of warp `w`, or null after a fault (no SPU, or not an SPU launch).
SpuLaunch *unitOf(ExecCtx &ctx, const Warp &w, const ir::Inst &in, uint32_t mask, int32_t &u) {
  SpuLaunch *L = launchOf(ctx);
  if (!L) {
    ctx.fault(FaultKind::Invalid, w, in, (unsigned)__builtin_ctz(mask),
              config().enabled
                  ? "SPU instruction outside an SPU launch (SPU instructions must be in the kernel "
                    "itself, not in a function it calls)"
                  : "SPU instruction on a GPU without an SPU (enable it with PTXSIM_SPU=1 or a "
                    "configuration with -spu_enabled 1, such as configs/spu-gtx480.config)");
    return nullptr;
  }
  u = L->unitOf[w.cta->linearId];
  return L;
}

// --- CB loads and stores -------------------------------------------------------------------

enum CbDir : uint32_t { kNorth, kWest, kSouth, kEast };
const char *cbDirName(uint32_t d) {
  static const char *n[] = {"north", "west", "south", "east"};
  return n[d & 3];
}

/// Checks and translates the lanes' CB offsets (w.addr) to host pointers. `in.aux` is the CB
/// side; in.width * in.vec the bytes per lane.
bool cbPointers(ExecCtx &ctx, Warp &w, const ir::Inst &in, uint32_t m, uint8_t **p, SpuLaunch *&L,
                int32_t &u) {
  L = unitOf(ctx, w, in, m, u);
  if (!L)
    return false;
  const Unit &unit = L->machine.pass().units[u];
  int32_t cb = in.aux == kNorth   ? unit.cbNorth
               : in.aux == kWest  ? unit.cbWest
               : in.aux == kSouth ? unit.cbSouth
                                  : unit.cbEast;
  unsigned lane0 = (unsigned)__builtin_ctz(m);
  if (cb == kNoCb) {
    ctx.fault(FaultKind::Invalid, w, in, lane0,
              std::string("CB access: ") + describe(unit, L->machine.currentPass()) + " has no " +
                  cbDirName(in.aux) + " CB");
    return false;
  }
  computeAddresses(w, in, m);
  unsigned bytes = in.width * in.vec;
  bool write = in.aux >= kSouth;
  bool ok = true;
  forLanes(m, [&](unsigned l) {
    if (!ok)
      return;
    uint64_t a = w.addr[l];
    if (a % bytes) {
      ctx.fault(FaultKind::Misaligned, w, in, l,
                "misaligned CB access: offset " + std::to_string(a) + " for " +
                    std::to_string(bytes) + " bytes");
      ok = false;
      return;
    }
    p[l] = write ? L->machine.cbWrite(cb, a, bytes)
                 : const_cast<uint8_t *>(L->machine.cbRead(cb, a, bytes));
    if (p[l] && !write && L->cfg.checkReads && !L->machine.cbReadFresh(cb, a, bytes)) {
      ctx.fault(FaultKind::Invalid, w, in, l,
                "stale CB read (-spu_check_reads 1): offset " + std::to_string(a) + " + " +
                    std::to_string(bytes) + " bytes of the " + cbDirName(in.aux) + " CB of " +
                    describe(unit, L->machine.currentPass()) +
                    " were not written in the previous step (step " +
                    std::to_string(L->machine.step()) +
                    "): the data has not arrived yet (a schedule built from the pass-local "
                    "%spu_i/%spu_j instead of the block's global coordinates reads too early in "
                    "later passes)");
      ok = false;
      return;
    }
    if (!p[l]) {
      ctx.fault(FaultKind::OutOfBounds, w, in, l,
                "CB access out of bounds: offset " + std::to_string(a) + " + " +
                    std::to_string(bytes) + " bytes in a CB of " +
                    std::to_string(L->cfg.machine.cbBytes) + " bytes");
      ok = false;
    }
  });
  if (ok) {
    uint64_t total = (uint64_t)bytes * (uint64_t)__builtin_popcount(m);
    ctx.count(write ? gCbWrites : gCbReads, 1);
    ctx.count(write ? gCbWriteBytes : gCbReadBytes, total);
    if (L->machine.pass().units[u].role == Role::Iu)
      ctx.count(gIuCbBytes, total);
    L->passCb[2 * L->machine.currentPass() + write].fetch_add(1, std::memory_order_relaxed);
  }
  return ok;
}

template <class T> void cbLoadFn(ExecCtx &ctx, Warp &w, const ir::Inst &in, uint32_t m) {
  uint8_t *p[kWarpSize];
  SpuLaunch *L;
  int32_t u;
  if (!cbPointers(ctx, w, in, m, p, L, u))
    return;
  alignas(16) uint8_t buf[kWarpSize][32];
  unsigned n = in.vec;
  forLanes(m, [&](unsigned l) { std::memcpy(buf[l], p[l], sizeof(T) * n); });
  for (unsigned i = 0; i < n; ++i) {
    uint64_t *d = w.reg(in.dst[i]);
    forLanes(m, [&](unsigned l) {
      T v;
      std::memcpy(&v, buf[l] + i * sizeof(T), sizeof(T));
      d[l] = toBits(v);
    });
  }
}

template <class T> void cbStoreFn(ExecCtx &ctx, Warp &w, const ir::Inst &in, uint32_t m) {
  alignas(16) uint8_t buf[kWarpSize][32];
  unsigned n = in.vec;
  for (unsigned i = 0; i < n; ++i) {
    const uint64_t *s = w.src(in.src[1 + i]);
    forLanes(m, [&](unsigned l) {
      T v = (T)s[l];
      std::memcpy(buf[l] + i * sizeof(T), &v, sizeof(T));
    });
  }
  uint8_t *p[kWarpSize];
  SpuLaunch *L;
  int32_t u;
  if (!cbPointers(ctx, w, in, m, p, L, u))
    return;
  forLanes(m, [&](unsigned l) { std::memcpy(p[l], buf[l], sizeof(T) * n); });
}

ir::ExecFn loadFor(unsigned bytes, bool isSigned) {
  switch (bytes) {
  case 1:
    return isSigned ? cbLoadFn<int8_t> : cbLoadFn<uint8_t>;
  case 2:
    return isSigned ? cbLoadFn<int16_t> : cbLoadFn<uint16_t>;
  case 4:
    return isSigned ? cbLoadFn<int32_t> : cbLoadFn<uint32_t>;
  default:
    return cbLoadFn<uint64_t>;
  }
}
ir::ExecFn storeFor(unsigned bytes) {
  switch (bytes) {
  case 1:
    return cbStoreFn<uint8_t>;
  case 2:
    return cbStoreFn<uint16_t>;
  case 4:
    return cbStoreFn<uint32_t>;
  default:
    return cbStoreFn<uint64_t>;
  }
}

uint16_t gModCb, gModNorth, gModWest, gModSouth, gModEast;
LowerFn gBuiltinLd, gBuiltinSt;
ir::MemSpace gCbSpace = ir::MemSpace::Shared;
ir::OpClass gSyncClass = ir::OpClass::Sync;

bool isSignedType(ScalarType t) {
  return t == ScalarType::s8 || t == ScalarType::s16 || t == ScalarType::s32 ||
         t == ScalarType::s64;
}

bool lowerCb(LowerCtx &c, bool store) {
  ScalarType t = c.type();
  unsigned bits = typeBits(t);
  if (t == ScalarType::pred || bits > 64 || bits < 8)
    return c.unsupported("CB access type");
  unsigned n = c.vecWidth();
  if (n > 4 || (bits / 8) * n > 32)
    return c.unsupported("CB vector width");
  uint32_t side = store ? (c.hasModifier(gModSouth) ? kSouth : kEast)
                        : (c.hasModifier(gModNorth) ? kNorth : kWest);
  ir::Inst tmp;
  c.address(c.op(store ? 0 : 1), Space::Shared, tmp); // byte offsets, as for shared memory
  if (store) {
    ir::Opnd s[4];
    const Operand &sop = c.op(1);
    for (unsigned i = 0; i < n; ++i)
      s[i] = c.src(n == 1 ? sop : sop.elems[i], t);
    ir::Inst &in = c.emit(storeFor(bits / 8), ir::OpClass::Mem);
    LowerCtx::copyAddress(in, tmp);
    in.nsrc = (uint8_t)(n + 1);
    for (unsigned i = 0; i < n; ++i)
      in.src[1 + i] = s[i];
    in.width = (uint8_t)(bits / 8);
    in.vec = (uint8_t)n;
    in.aux = side;
    in.space = gCbSpace;
  } else {
    uint32_t d[4];
    const Operand &dop = c.op(0);
    for (unsigned i = 0; i < n; ++i)
      d[i] = c.dst(n == 1 ? dop : dop.elems[i]);
    ir::Inst &in = c.emit(loadFor(bits / 8, isSignedType(t)), ir::OpClass::Mem);
    LowerCtx::copyAddress(in, tmp);
    in.ndst = (uint8_t)n;
    for (unsigned i = 0; i < n; ++i)
      in.dst[i] = d[i];
    in.width = (uint8_t)(bits / 8);
    in.vec = (uint8_t)n;
    in.aux = side;
    in.space = gCbSpace;
  }
  return true;
}

bool lowerLdWithCb(LowerCtx &c) {
  return c.hasModifier(gModCb) ? lowerCb(c, false) : gBuiltinLd(c);
}
bool lowerStWithCb(LowerCtx &c) { return c.hasModifier(gModCb) ? lowerCb(c, true) : gBuiltinSt(c); }

// --- spu.sync ---------------------------------------------------------------------------------

/// Deadlock detection (docs/spu.md, "Errors"). A block synchronization can never complete when
/// every live unit of the pass is either arrived (all its live warps wait at spu.sync) or stuck
/// (its live warps wait at spu.sync or at a CTA barrier, at least one at the barrier: those
/// will never reach spu.sync, and the ones at spu.sync never reach the barrier). Both states
/// last until a synchronization completes, which then cannot happen, so the check is exact:
/// it reports a deadlock at the first poll that sees it and never a program that is merely
/// slow. A unit whose warps all wait at CTA barriers that cannot complete (mismatched named
/// barriers) never polls; that is left to the core's barrier checks and, as the last resort,
/// to the engine's no-progress detector (functional mode: EngineConfig::noProgressPolls;
/// timing mode: the cycle loop's bound), which the arrivals, departures and exits below
/// report to as progress (exec::reportProgress): an arrival completes no instruction.

std::string maskText(uint32_t m) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", m);
  return b;
}

[[gnu::cold, gnu::noinline]] void syncDeadlock(ExecCtx &ctx, Warp &w, const ir::Inst &in,
                                               uint32_t mask, const SpuLaunch &L) {
  std::string why;
  const Pass &pass = L.machine.pass();
  uint32_t shown = 0;
  for (size_t u = 0; u < L.runs.size(); ++u)
    if (L.runs[u].stuck && shown++ < 4)
      why += std::string(shown > 1 ? ", " : "") + describe(pass.units[u], L.machine.currentPass());
  ctx.fault(FaultKind::Invalid, w, in, (unsigned)__builtin_ctz(mask),
            "deadlock: spu.sync waits for a unit that never reaches it (" +
                std::to_string(L.machine.arrivedUnits()) + " of " +
                std::to_string(L.machine.liveUnits()) + " live units are at spu.sync" +
                (why.empty() ? std::string()
                             : "; " + std::to_string(L.stuckUnits) +
                                   " with warps waiting at a CTA barrier instead: " + why) +
                "; every thread of every running block and IU must call spu.sync the same "
                "number of times, or exit)");
}

bool pollSync(ExecCtx &ctx, Warp &w, const ir::Inst &in, uint32_t mask) {
  int32_t u;
  SpuLaunch *L = unitOf(ctx, w, in, mask, u);
  if (!L)
    return true; // faulted
  if (mask != w.liveMask) {
    // like bar.sync in converged code: the warp's live lanes reach spu.sync together; lanes
    // that call it different numbers of times (or a predicated or divergent spu.sync) would
    // otherwise let part of a warp run a time step ahead of the rest
    ctx.fault(FaultKind::Invalid, w, in, (unsigned)__builtin_ctz(mask),
              "spu.sync reached by lanes " + maskText(mask) + " of warp " + std::to_string(w.id) +
                  " while its live lanes are " + maskText(w.liveMask) +
                  ": every thread must call spu.sync the same number of times, with the warp's "
                  "live lanes together (not in divergent code)");
    return true;
  }
  UnitRun &r = L->runs[u];
  std::lock_guard<std::mutex> lock(L->mu);
  auto notYet = [&] {
    // the unit's state: stuck once its live warps wait here or at a CTA barrier, some at the
    // barrier (the warps of one CTA run on this host thread: their states are ours to read)
    if (!r.unitArrived && !r.stuck && !r.passedWarps) {
      uint32_t atBarrier = 0;
      for (const Warp &o : w.cta->warps)
        atBarrier += o.state == WarpState::AtBarrier;
      if (atBarrier && atBarrier + r.arrivedWarps >= w.cta->liveWarps) {
        r.stuck = true;
        ++L->stuckUnits;
      }
    }
    if (L->stuckUnits && L->stuckUnits + L->machine.arrivedUnits() >= L->machine.liveUnits()) {
      syncDeadlock(ctx, w, in, mask, *L);
      return true;
    }
    return false;
  };
  if (w.waitData == 0) {
    // A warp that left the previous synchronization early waits here until its unit's other
    // warps have left it too; only then does it count as arrived (Warp::waitData marks that).
    if (r.passedWarps)
      return notYet();
    ++r.arrivedWarps;
    reportProgress(ctx);
    w.waitData = ctx.cycle + 1; // non-zero: counted; in timing mode also since when
  }
  // the SM-wide barrier: every live warp of the unit is here; then the SPU-wide one
  if (!r.unitArrived && !r.passedWarps && r.arrivedWarps >= w.cta->liveWarps) {
    r.unitArrived = true;
    if (L->machine.arrive((uint32_t)u))
      L->released(ctx);
  }
  if (L->step.load(std::memory_order_acquire) <= r.step || (ctx.cycle && ctx.cycle < L->readyCycle))
    return notYet();
  reportProgress(ctx);
  if (++r.passedWarps == r.arrivedWarps) {
    ++r.step;
    r.passedWarps = r.arrivedWarps = 0;
    r.unitArrived = false;
  }
  return true;
}

bool lowerSpu(LowerCtx &c) {
  ir::Inst &in = c.emitWait(pollSync, gSyncClass);
  (void)in;
  return true;
}

// --- special registers ------------------------------------------------------------------------

enum class Sreg { Role, Dir, Id, Pass, I, J, Step, Last, Regstart, Rows, Cols };

template <Sreg S> void readSreg(ExecCtx &ctx, const Warp &w, uint64_t *out, uint32_t mask) {
  SpuLaunch *L = launchOf(ctx);
  uint64_t v = 0;
  if (!L) {
    // outside an SPU launch a unit is an SM of pass 0 (so role queries are harmless), but the
    // topology registers read the configured grid
    const Config &c = config();
    if constexpr (S == Sreg::Rows)
      v = c.machine.shape.rows;
    if constexpr (S == Sreg::Cols)
      v = c.machine.shape.cols;
  } else {
    int32_t u = L->unitOf[w.cta->linearId];
    std::lock_guard<std::mutex> lock(L->mu);
    const Unit &unit = L->machine.pass().units[u];
    switch (S) {
    case Sreg::Role:
      v = (uint64_t)unit.role;
      break;
    case Sreg::Dir:
      v = (uint64_t)unit.dir;
      break;
    case Sreg::Id:
      v = unit.id;
      break;
    case Sreg::Pass:
      v = L->machine.currentPass();
      break;
    case Sreg::I:
      v = unit.i;
      break;
    case Sreg::J:
      v = unit.j;
      break;
    case Sreg::Step:
      v = L->machine.step();
      break; // the unit's warps cannot be behind it
    case Sreg::Last:
      v = L->machine.last();
      break;
    case Sreg::Regstart:
      v = L->machine.regstartFlag();
      break;
    case Sreg::Rows:
      v = logicalShape(L->cfg.machine.shape, L->cfg.machine.oneD, L->cfg.machine.blocksPerSm).rows;
      break;
    case Sreg::Cols:
      v = logicalShape(L->cfg.machine.shape, L->cfg.machine.oneD, L->cfg.machine.blocksPerSm).cols;
      break;
    }
  }
  forLanes(mask, [&](unsigned l) { out[l] = v; });
}

// --- launch policy ----------------------------------------------------------------------------

/// Whether `fn` contains an SPU instruction. A scan per launch (only when the GPU has an SPU):
/// no cache keyed by function addresses that a later module could reuse.
bool usesSpu(const ir::Function *fn) {
  for (const ir::Inst &in : fn->code)
    if ((in.ctl == ir::Ctl::Wait && in.poll == pollSync) ||
        (in.cls == ir::OpClass::Mem && in.space == gCbSpace))
      return true;
  return false;
}

/// A launch the SPU refuses: its only group's start reports the error (a launch error).
class RefusedLaunch : public LaunchExtension {
public:
  RefusedLaunch(std::string e, uint64_t numCtas) : error(std::move(e)) {
    groups.assign(1, {});
    for (uint64_t i = 0; i < numCtas; ++i)
      groups[0].push_back(i);
  }
  std::string beginGroup(size_t, DeviceMemory &) override { return error; }
  const char *name() const override { return "SPU"; }
  std::string error;
};

std::unique_ptr<LaunchExtension> spuPolicy(const LaunchParams &p, uint32_t numSms) {
  uint64_t numCtas = p.grid.count();
  // an invalid PTXSIM_SPU fails every launch, SPU or not: the user asked for an SPU machine
  // and did not get the one they described
  if (std::string err = configError(); !err.empty())
    return std::make_unique<RefusedLaunch>(err, numCtas);
  const Config &c = config();
  if (!c.enabled || !p.kernel || !p.kernel->fn || !usesSpu(p.kernel->fn))
    return nullptr;
  const Shape &s = c.machine.shape;
  uint32_t units = s.numSms() + s.numIus();
  auto fail = [&](std::string msg) -> std::unique_ptr<LaunchExtension> {
    return std::make_unique<RefusedLaunch>(std::move(msg), numCtas);
  };
  if (numSms < units) {
    return fail("the SPU needs " + std::to_string(units) + " cores (" + std::to_string(s.numSms()) +
                " SMs and " + std::to_string(s.numIus()) + " IUs) but the GPU has " +
                std::to_string(numSms) + " (-gpgpu_n_clusters)");
  }
  if (p.grid.z != 1 && !c.machine.oneD)
    return fail("an SPU launch needs a 2D grid of blocks (gridDim.z == 1), or -spu_1d 1");
  // figure 10: m blocks and their virtual CBs share one SM's shared memory (timing mode)
  if (uint32_t smem = gSmSharedBytes.load(std::memory_order_relaxed);
      smem && c.machine.blocksPerSm > 1) {
    uint64_t vcb = virtualCbBytesPerSm(c), m = c.machine.blocksPerSm;
    uint64_t perCta = (uint64_t)p.kernel->staticShared + p.dynamicShared;
    if (vcb + m * perCta > smem)
      return fail("-spu_blocks_per_sm " + std::to_string(m) + " needs " + std::to_string(vcb) +
                  " bytes of virtual CBs (" + std::to_string(vcb / (2 * c.machine.cbBytes)) +
                  " CBs of 2 x " + std::to_string(c.machine.cbBytes) + " bytes) plus " +
                  std::to_string(m) + " x " + std::to_string(perCta) +
                  " bytes of the blocks' shared memory, but an SM has " + std::to_string(smem) +
                  " (-gpgpu_shmem_size; lower -spu_cb_bytes)");
  }
  auto L = std::make_unique<SpuLaunch>(c, p.grid.x, p.grid.y * p.grid.z);
  L->warpsPerCta = (uint32_t)((p.block.count() + kWarpSize - 1) / kWarpSize);
  // helper CTAs (the IUs of each pass) get ids after the grid's
  uint64_t helpers = 0;
  for (const Pass &pass : L->machine.passes())
    for (const Unit &u : pass.units)
      helpers += u.role == Role::Iu;
  L->helperCtas = helpers;
  L->unitOf.assign(numCtas + helpers, -1);
  L->smOf.assign(numCtas + helpers, 0);
  uint64_t nextHelper = numCtas;
  for (const Pass &pass : L->machine.passes()) {
    std::vector<uint64_t> group;
    for (size_t ui = 0; ui < pass.units.size(); ++ui) {
      const Unit &u = pass.units[ui];
      uint64_t id;
      if (u.role == Role::Sm)
        id = c.machine.oneD ? u.blockX : (uint64_t)u.blockY * p.grid.x + u.blockX;
      else if (u.role == Role::Iu)
        id = nextHelper++;
      else
        continue; // VIUs are the machine's
      L->unitOf[id] = (int32_t)ui;
      L->smOf[id] = u.hwIndex;
      group.push_back(id);
    }
    L->groups.push_back(std::move(group));
  }
  return L;
}

// --- timing: CB accesses ----------------------------------------------------------------------

/// The SPU's statistics, each declared once with its unit and meaning; registered when the
/// timing model describes its statistics (registerStatsSource), set through these handles.
struct SpuStats {
  using Unit = stats::Unit;
  stats::Counter passes{"spu.passes", Unit::Count, "SPU passes of the launch (figure 5)"};
  stats::Counter skippedSpills{"spu.skipped_spills", Unit::Count, "VIU spills regstart avoided"};
  stats::Counter skippedRestores{"spu.skipped_restores", Unit::Count,
                                 "VIU restores regstart avoided"};
  stats::Counter cbWarpReads{"spu.cb_warp_reads", Unit::Count, "CB loads timed by the CB model"};
  stats::Counter cbWarpWrites{"spu.cb_warp_writes", Unit::Count,
                              "CB stores timed by the CB model"};
  stats::Counter cbBankConflicts{"spu.cb_bank_conflicts", Unit::Count,
                                 "extra CB cycles from bank conflicts"};
  // per pass (`spu.pass[3].cb_reads`)
  stats::Counter passCbReads{"spu.pass[].cb_reads", Unit::Count, "per pass: warp-level CB loads"};
  stats::Counter passCbWrites{"spu.pass[].cb_writes", Unit::Count,
                              "per pass: warp-level CB stores"};
  stats::Counter passBlockSyncs{"spu.pass[].block_syncs", Unit::Count,
                                "per pass: block synchronizations"};
  stats::Counter passSpillBytes{"spu.pass[].spill_bytes", Unit::Bytes,
                                "per pass: bytes the VIUs spilled"};
  stats::Counter passRestoreBytes{"spu.pass[].restore_bytes", Unit::Bytes,
                                  "per pass: bytes the VIUs restored"};
};

const SpuStats &spuStats() {
  static const SpuStats &s = *new SpuStats; // never destroyed (no static destructors)
  return s;
}

/// One SM's CBs: banked like shared memory, one access per `conflict degree` cycles.
class CbTimingModel : public timing::IMemSpaceModel {
public:
  explicit CbTimingModel(const Config &c) : latency_(c.cbLatency), banks_(c.cbBanks) {}
  timing::Cycle access(const timing::WarpMemAccess &a, uint32_t, timing::Cycle now) override {
    // distinct 4-byte words per bank: the access is replayed once per extra word in a bank
    uint64_t words[ir::kWarpSize * 8];
    unsigned nw = 0;
    unsigned perLane = std::max(1u, (a.bytesPerLane + 3) / 4);
    forLanes(a.mask, [&](unsigned l) {
      for (unsigned k = 0; k < perLane && nw < ir::kWarpSize * 8; ++k)
        words[nw++] = a.addr[l] / 4 + k;
    });
    std::vector<uint16_t> &cnt = scratch_;
    cnt.assign(banks_, 0);
    unsigned degree = 1;
    for (unsigned i = 0; i < nw; ++i) {
      bool dup = false;
      for (unsigned j = 0; j < i && !dup; ++j)
        dup = words[j] == words[i];
      if (!dup)
        degree = std::max<unsigned>(degree, ++cnt[words[i] % banks_]);
    }
    timing::Cycle start = std::max(now, busyUntil_);
    busyUntil_ = start + degree;
    (a.write ? writes_ : reads_)++;
    conflicts_ += degree - 1;
    return start + degree - 1 + latency_;
  }
  void stats(std::vector<std::pair<std::string, double>> &out) const override {
    const SpuStats &s = spuStats();
    out.push_back({s.cbWarpReads.name(), (double)reads_});
    out.push_back({s.cbWarpWrites.name(), (double)writes_});
    out.push_back({s.cbBankConflicts.name(), (double)conflicts_});
  }
  void resetStats() override { reads_ = writes_ = conflicts_ = 0; }

private:
  uint32_t latency_, banks_;
  timing::Cycle busyUntil_ = 0;
  uint64_t reads_ = 0, writes_ = 0, conflicts_ = 0;
  std::vector<uint16_t> scratch_;
};

std::unique_ptr<timing::IMemSpaceModel> makeCbModel(const timing::TimingConfig &, uint32_t) {
  return std::make_unique<CbTimingModel>(config());
}

// --- statistics -----------------------------------------------------------------------------

void describeStats() { spuStats(); }

void collectStats(const SteppedGrid &grid, stats::Snapshot &out) {
  auto *L = dynamic_cast<SpuLaunch *>(grid.extension());
  if (!L)
    return;
  const SpuStats &s = spuStats();
  std::lock_guard<std::mutex> lock(L->mu);
  PassStats t = L->machine.totals();
  out.set(s.passes, (double)L->machine.passes().size());
  out.set(s.skippedSpills, (double)t.skippedSpills);
  out.set(s.skippedRestores, (double)t.skippedRestores);
  const auto &ps = L->machine.stats();
  for (size_t k = 0; k < ps.size(); ++k) {
    out.set(s.passCbReads.instance(k), (double)L->passCb[2 * k].load());
    out.set(s.passCbWrites.instance(k), (double)L->passCb[2 * k + 1].load());
    out.set(s.passBlockSyncs.instance(k), (double)ps[k].steps);
    out.set(s.passSpillBytes.instance(k), (double)ps[k].spillBytes);
    out.set(s.passRestoreBytes.instance(k), (double)ps[k].restoreBytes);
  }
}

// --- power ----------------------------------------------------------------------------------

/// The CBs: SRAM arrays read and written like shared memory, leaking for their whole size.
class CbPower : public power::IPowerComponent {
public:
  CbPower(const Config &c, const power::Technology &t) {
    // the physical CBs; virtual CBs (figure 10) are shared memory, which `shared` charges
    uint32_t n = numCbs(logicalShape(c.machine.shape, c.machine.oneD, 1));
    double bits = 2.0 * c.machine.cbBytes * 8;        // both halves of one CB
    readJPerByte_ = t.sramReadJ(bits, 128 * 8) / 128; // a 128-byte warp access
    writeJPerByte_ = t.sramWriteJ(bits, 128 * 8) / 128;
    leakW_ = t.leakageW(t.logicAreaMm2(bits * n * 1.5)); // ~1.5 gate equivalents per SRAM bit
  }
  std::string name() const override { return "spu_cb"; }
  void bind(power::StatBinder &b) override {
    readBytes_ = b.stat("spu.cb_read_bytes");
    writeBytes_ = b.stat("spu.cb_write_bytes");
  }
  double dynamicJ(const power::StatValues &v) const override {
    return v[readBytes_] * readJPerByte_ + v[writeBytes_] * writeJPerByte_;
  }
  double leakageW() const override { return leakW_; }

private:
  double readJPerByte_, writeJPerByte_, leakW_;
  power::StatRef readBytes_, writeBytes_;
};

/// The SPU-wide barrier network (a wire to every unit and an AND tree) and the VIUs' transfers
/// between CBs and DRAM, which the memory system's DRAM counters do not see.
class SpuNetworkPower : public power::IPowerComponent {
public:
  SpuNetworkPower(const Config &c, const power::Technology &t) {
    const Shape &s = c.machine.shape;
    double units = s.numSms() + s.numIus();
    syncJ_ = t.wireJ(units, 4.0 * (s.rows + s.cols)) + t.logicJ(units * 8);
    viuJPerByte_ = t.wireJ(8, 10.0) + t.logicJ(40); // CB <-> memory controller, per byte
    dramJPerByte_ = 8 * 20e-12;                     // ~20 pJ per bit off chip
    leakW_ = t.leakageW(t.logicAreaMm2(units * 200));
  }
  std::string name() const override { return "spu_sync_viu"; }
  void bind(power::StatBinder &b) override {
    syncs_ = b.stat("spu.block_syncs");
    spills_ = b.stat("spu.spill_bytes");
    restores_ = b.stat("spu.restore_bytes");
  }
  double dynamicJ(const power::StatValues &v) const override {
    double viu = v[spills_] + v[restores_];
    return v[syncs_] * syncJ_ + viu * (viuJPerByte_ + dramJPerByte_);
  }
  double leakageW() const override { return leakW_; }

private:
  double syncJ_, viuJPerByte_, dramJPerByte_, leakW_;
  power::StatRef syncs_, spills_, restores_;
};

/// Section 5's DMA IUs: an address generator and a small staging buffer per IU, charged per
/// byte the IUs move through their CBs (their global-memory side is charged by the memory
/// system's own components, as any access is).
class DmaPower : public power::IPowerComponent {
public:
  DmaPower(const Config &c, const power::Technology &t) {
    double bufBits = 1024.0 * 8; // a 1 KB staging buffer
    jPerByte_ = t.sramReadJ(bufBits, 32 * 8) / 32 + t.sramWriteJ(bufBits, 32 * 8) / 32 +
                t.logicJ(200) / 4; // address generation per 4-byte word
    leakW_ = c.machine.shape.numIus() *
             t.leakageW(t.logicAreaMm2(20000) + t.sramAreaMm2(bufBits));
  }
  std::string name() const override { return "spu_dma"; }
  void bind(power::StatBinder &b) override { bytes_ = b.stat("spu.iu_cb_bytes"); }
  double dynamicJ(const power::StatValues &v) const override { return v[bytes_] * jPerByte_; }
  double leakageW() const override { return leakW_; }

private:
  double jPerByte_, leakW_;
  power::StatRef bytes_;
};

/// The IU cores are reduced SMs (section 5 lists what the report removed): no shared memory, no
/// L1 data cache (their global loads and stores go to the L2), no SFU and no FPU (no FP32, FP64,
/// half-precision or tensor unit: the integer ALU that computes addresses stays). An IU CTA is
/// not charged the kernel's shared-memory declaration; an IU that touches shared memory or
/// issues a floating-point or SFU instruction faults (docs/spu.md, "Errors").
void reducedIus(timing::TimingConfig &cfg, uint32_t smId) {
  Config c = config();
  if (!c.enabled)
    return;
  const Shape &s = c.machine.shape;
  if (smId < s.numSms()) {
    // figure 10: virtual CBs live in the SM's shared memory, so CTAs get what is left
    uint64_t vcb = virtualCbBytesPerSm(c);
    gSmSharedBytes.store(cfg.core.sharedBytesPerSm, std::memory_order_relaxed);
    cfg.core.sharedBytesPerSm -= (uint32_t)std::min<uint64_t>(vcb, cfg.core.sharedBytesPerSm);
    return;
  }
  if (smId >= s.numSms() + s.numIus())
    return;
  cfg.mem.l1d.enabled = false;
  cfg.core.noSharedMemory = true;
  // an ordinary kernel (no SPU instruction) runs on the R*C compute SMs only: the IU cores
  // lack the units its code may need (docs/spu.md, "Running it")
  cfg.core.placedCtasOnly = true;
  cfg.core.kind = c.dmaIus ? "dma" : "reduced"; // (timing/sm/core/CoreKinds.h)
  using ptx::ir::OpClass;
  for (OpClass k : {OpClass::Fp32, OpClass::Fp64, OpClass::Half, OpClass::Sfu, OpClass::Tensor})
    // (div/rem, which the model issues to the SFU pipe, still run: see Sm::lacksUnitFor)
    cfg.core.missingOpClasses |= 1u << unsigned(k);
}

/// Power: how the SPU's cores are charged (docs/spu.md, "Power"). Per-unit accounting charges
/// each IU core for the structures the timing model gives it (reducedIus: no shared memory, L1,
/// SFU, FP64 or tensor unit; the SP lanes stay because they are also the integer ALU that
/// computes addresses). The report's convention charges R*C identical SM + IU pairs, the IU as
/// a full SM (McPAT, which GPUWattch uses, has no heterogeneous cores).
power::CoreAccounting spuCoreAccounting(const timing::TimingConfig &cfg) {
  power::CoreAccounting a;
  Config c = config();
  if (!c.enabled)
    return a;
  const Shape &s = c.machine.shape;
  uint32_t ius = std::min<uint32_t>(s.numIus(), cfg.numSms() > s.numSms()
                                                    ? cfg.numSms() - s.numSms()
                                                    : 0);
  std::string pairs = std::to_string(s.numSms());
  if (c.dmaIus) { // no IU cores at all: every per-SM structure is gone (DmaPower replaces them)
    a.reduced.push_back({"IU (DMA)", ius,
                         {"fetch_decode", "icache", "regfile", "operand_collector", "sp", "dp",
                          "sfu", "tensor", "ldst", "shared", "l1d", "const_cache", "sm_clock"},
                         true});
    a.note = std::string("SPU power convention: ") +
             (c.powerPairs ? "the report's (one SM + IU pair x " + pairs + " pairs)"
                           : "per unit (" + pairs + " SMs as full SMs)") +
             "; the " + std::to_string(ius) + " IUs are DMA engines (component spu_dma), no cores";
    return a;
  }
  if (c.powerPairs) {
    a.note = "SPU power convention: the report's (energy of one SM + IU pair x " + pairs +
             " pairs; each IU charged as a full SM)";
    return a;
  }
  a.reduced.push_back({"IU", ius, {"shared", "l1d", "sfu", "dp", "tensor"}});
  a.note = "SPU power convention: per unit (" + pairs + " SMs as full SMs, " +
           std::to_string(ius) + " IUs as reduced SMs without shared memory, L1D, SFU, FP64 or "
           "tensor unit)";
  return a;
}

timing::PipeSpec syncPipe(const timing::TimingConfig &) { return {1, 1, 1}; }

} // namespace

namespace {
bool spuEnabled(const Config &c) { return c.enabled; }
bool dmaIusEnabled(const Config &c) { return c.enabled && c.dmaIus; }
/// A power component of type T for the configured SPU, or none when `Enabled` says the
/// configuration lacks it.
template <class T, bool (*Enabled)(const Config &)>
std::shared_ptr<power::IPowerComponent> powerIf(const power::PowerContext &ctx) {
  Config c = config();
  if (!Enabled(c))
    return nullptr;
  return std::make_shared<T>(c, ctx.tech);
}
} // namespace

void registerSpuExtension() {
  static std::once_flag once;
  std::call_once(once, [] {
    gModCb = registerModifier("cb");
    gModNorth = registerModifier("north");
    gModWest = registerModifier("west");
    gModSouth = registerModifier("south");
    gModEast = registerModifier("east");
    auto check = [](const std::string &err) {
      if (!err.empty()) {
        std::fprintf(stderr, "ptxsim: internal error: SPU opcode table: %s\n", err.c_str());
        std::abort();
      }
    };
    // loads from the north/west CB, stores to the south/east CB: every scalar and vector width
    // of ld/st.shared; a load from a south CB is a checker error because no form has it
    check(registerOpcode("ld", ".cb .north|.west [$vec] $ldt", "d0/wv a"));
    check(registerOpcode("st", ".cb .south|.east [$vec] $ldt", "a s0/wv"));
    check(registerOpcode("spu", ".sync", ""));
    gBuiltinLd = registerLowering("ld", lowerLdWithCb);
    gBuiltinSt = registerLowering("st", lowerStWithCb);
    registerLowering("spu", lowerSpu);
    gCbSpace = ir::registerMemSpace("cb");
    gSyncClass = ir::registerOpClass("spu_sync");
    struct S {
      const char *name;
      SpecialRegFn fn;
    };
    const S sregs[] = {
        {"%spu_role", readSreg<Sreg::Role>},
        {"%spu_dir", readSreg<Sreg::Dir>},
        {"%spu_id", readSreg<Sreg::Id>},
        {"%spu_pass", readSreg<Sreg::Pass>},
        {"%spu_i", readSreg<Sreg::I>},
        {"%spu_j", readSreg<Sreg::J>},
        {"%spu_step", readSreg<Sreg::Step>},
        {"%spu_last", readSreg<Sreg::Last>},
        {"%spu_regstart", readSreg<Sreg::Regstart>},
        {"%spu_rows", readSreg<Sreg::Rows>},
        {"%spu_cols", readSreg<Sreg::Cols>},
    };
    for (const S &s : sregs) {
      registerSpecialRegister(s.name, ScalarType::u32, false);
      registerSpecialRegisterReader(s.name, s.fn);
    }
    registerOptions();
    gCbReads =
        registerExecCounter("spu.cb_reads", stats::Unit::Count, "warp-level CB loads (ld.cb)");
    gCbWrites =
        registerExecCounter("spu.cb_writes", stats::Unit::Count, "warp-level CB stores (st.cb)");
    gCbReadBytes =
        registerExecCounter("spu.cb_read_bytes", stats::Unit::Bytes, "bytes read from CBs");
    gCbWriteBytes =
        registerExecCounter("spu.cb_write_bytes", stats::Unit::Bytes, "bytes written to CBs");
    gSyncs =
        registerExecCounter("spu.block_syncs", stats::Unit::Count,
                            "SPU-wide block synchronizations completed (VIUs' last one included)");
    gDummySyncs = registerExecCounter("spu.dummy_syncs", stats::Unit::Count,
                                      "block synchronizations after a step that moved no CB data");
    gSpillBytes = registerExecCounter("spu.spill_bytes", stats::Unit::Bytes,
                                      "bytes the south/east VIUs spilled to global memory");
    gRestoreBytes = registerExecCounter("spu.restore_bytes", stats::Unit::Bytes,
                                        "bytes the north/west VIUs restored from global memory");
    gIuCbBytes = registerExecCounter("spu.iu_cb_bytes", stats::Unit::Bytes,
                                     "bytes the IUs moved through their CBs");
    registerLaunchPolicy(spuPolicy);
    timing::registerMemSpaceModel(gCbSpace, makeCbModel);
    timing::registerPipe(gSyncClass, "spu_sync", syncPipe);
    timing::registerStatsSource(describeStats, collectStats);
    timing::registerSmConfig(reducedIus);
    power::registerCoreAccounting(spuCoreAccounting);
    // each component exists only on a GPU whose configuration has the unit
    power::registerPowerComponent(powerIf<CbPower, spuEnabled>);
    power::registerPowerComponent(powerIf<SpuNetworkPower, spuEnabled>);
    power::registerPowerComponent(powerIf<DmaPower, dmaIusEnabled>);
  });
}

} // namespace ptxsim::spu

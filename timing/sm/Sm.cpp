#include "timing/sm/Sm.h"

#include "ptx/exec/Program.h"
#include "ptx/exec/Schedule.h"
#include "ptx/sema/OpcodeTable.h"
#include "timing/mem/MemorySystem.h"

#include <algorithm>
#include <typeinfo>
#include <functional>

namespace ptxsim::timing {

/// A step of issue() that only it calls, on every issue: in its body (no call's register saves).
#define PTXSIM_ISSUE_INLINE inline __attribute__((always_inline))

using ptx::ir::Inst;
using ptx::ir::OpClass;

const char *stallReasonName(StallReason r) {
  switch (r) {
  case StallReason::None: return "none";
  case StallReason::Idle: return "idle";
  case StallReason::Barrier: return "barrier";
  case StallReason::Memory: return "memory";
  case StallReason::Scoreboard: return "scoreboard";
  case StallReason::Pipeline: return "pipeline_busy";
  case StallReason::Fetch: return "fetch";
  case StallReason::ExtWait: return "ext_wait";
  case StallReason::Divergence: return "divergence";
  case StallReason::Count: break;
  }
  return "?";
}

Cycle &Sm::Slot::grow(base::HugeVector<Cycle> &v, size_t i) {
  // (never past kPredBit entries: an operand with kPredBit then lies past every register's)
  v.resize(std::min<size_t>(i + 16, Inst::kPredBit), 0);
  return v[i];
}

namespace {
/// Cycles between tries of a blocking instruction that said "not yet".
constexpr Cycle kWaitRetryCycles = 4;
/// Independent thread scheduling: cycles a warp cannot issue after it changed the group of lanes
/// it runs (like a branch to the other group's pc: the fetch restarts there).
constexpr Cycle kGroupSwitchCycles = 2;
} // namespace

Sm::Sm(const TimingConfig &cfg, uint32_t id, const SchedulerRegistry &schedulers)
    : cfg_(cfg), id_(id) {
  const CoreConfig &c = cfg_.core;
  sinOpcode_ = ptx::lookupOpcode("sin");
  cosOpcode_ = ptx::lookupOpcode("cos");
  const SchedulerParams sp = schedulerParams(c);
  for (uint32_t i = 0; i < std::max(1u, c.schedulersPerSm); ++i)
    scheds_.push_back(schedulers.create(c.scheduler, sp));
  nScheds_ = (uint32_t)scheds_.size();
  schedCounters_ = schedulers.counters(c.scheduler);
  schedHearsIssues_ = false;
  for (const auto &sched : scheds_) {
    schedTicks_ = schedTicks_ || sched->ticks();
    schedHearsIssues_ = schedHearsIssues_ || sched->hearsIssues();
  }
  lastStall_.assign(scheds_.size(), StallReason::Idle);
  quiet_.resize(scheds_.size());
  greedyScan_ = scheds_[0]->keepsLastWhileReady();
  uint32_t maxWarps = (c.maxThreadsPerSm + c.warpSize - 1) / c.warpSize;
  slots_.resize(maxWarps);
  const size_t words = (maxWarps + 63) / 64;
  scanSlots_.assign(words, 0);
  schedSlotMask_.assign(scheds_.size() * words, 0);
  memSleepers_.assign(scheds_.size(), 0);
  for (uint32_t i = 0; i < maxWarps; ++i) {
    slots_[i].sched = i % (uint32_t)scheds_.size();
    schedSlotMask_[slots_[i].sched * words + i / 64] |= uint64_t(1) << (i % 64);
  }
  buildPipes();
  spaceModels_.resize(ptx::ir::kMaxMemSpaces);
  for (size_t sp = ptx::ir::kFirstExtensionSpace; sp < ptx::ir::kMaxMemSpaces; ++sp)
    if (MemSpaceModelFactory f = memSpaceModelFactory(ptx::ir::MemSpace(sp)))
      spaceModels_[sp] = f(cfg_, id_);
  ldst_ = std::make_unique<LdstUnit>(cfg_, id_);
  collectors_.reset(c.operandCollectors);
  if (cfg_.mem.l1i.enabled) {
    l1iTag_.assign(size_t(cfg_.mem.l1i.sets) * cfg_.mem.l1i.ways, ~0ull);
    l1iMissLatency_ = cfg_.launch.flushL2 && c.l1iColdMissLatency ? c.l1iColdMissLatency
                                                                   : cfg_.mem.l2Latency;
    if (c.l1iStreamPrefetch) {
      l1iReady_.assign(l1iTag_.size(), 0);
      l1iPrefetched_.assign(l1iTag_.size(), 0);
    }
    const uint32_t lb = cfg_.mem.l1i.lineBytes;
    if (lb && !(lb & (lb - 1)))
      l1iLineShift_ = uint8_t(__builtin_ctz(lb));
    l1iPolicy_ = replacementRegistry().create(cfg_.mem.l1i.replacement, cfg_.mem.l1i.sets,
                                              cfg_.mem.l1i.ways);
  }
  ldst_->onL1Miss = [this](uint32_t slot, uint64_t line, Cycle now) {
    if (slot < slots_.size())
      scheds_[slots_[slot].sched]->l1Miss(slot, line, now);
  };
  ldst_->onL1Evict = [this](uint32_t slot, uint64_t line, Cycle now) {
    if (slot < slots_.size())
      scheds_[slots_[slot].sched]->l1Evict(slot, line, now);
  };
}

Sm::~Sm() = default;

void Sm::beginKernel(ptx::exec::SteppedGrid *grid, const ptx::exec::Kernel *kernel,
                     uint32_t threadsPerCta, uint32_t sharedPerCta, uint64_t arenaBase) {
  grid_ = grid;
  extLaunch_ = grid->extension() != nullptr;
  noteMayStop();
  exactSm_ = typeid(*this) == typeid(Sm); // (not a core kind that overrides issue())
  cycleSet_ = kNever; // (the grid's lanes have no cycle of this SM's yet)
  storesBuffered_ = false; // (nor store buffering: a fresh grid's lanes start without)
  if (issueInfoUsed_) { // (the entries name instructions of earlier launches)
    std::fill(issueInfo_.get(), issueInfo_.get() + kIssueInfoEntries, IssueInfo{});
    issueInfoUsed_ = false;
  }
  toInit_.clear(); // (a launch that faulted may have left some)
  arenaBase_ = arenaBase;
  kernel_ = kernel;
  threadsPerCta_ = threadsPerCta;
  // the system's reserve comes with the kernel's own shared memory: a kernel without any can
  // run on the 0 KiB carve-out (configs/h100.config: the L1D then has all 256 KiB)
  sharedPerCta_ = sharedPerCta ? sharedPerCta + cfg_.core.reservedSharedPerCta : 0;
  sharedCap_ = cfg_.core.sharedBytesPerSm;
  // ptxas's register count when the program carries SASS, else the PTX liveness estimate
  // (Kernel::hwRegs); the hardware allocates at least 16 and at most 255 per thread.
  uint32_t regsPerThread = std::min<uint32_t>(std::max<uint32_t>(kernel->hwRegs, 16), 255);
  uint32_t warps = (threadsPerCta + cfg_.core.warpSize - 1) / cfg_.core.warpSize;
  regsPerCta_ = regsPerThread * warps * cfg_.core.warpSize;
}

bool Sm::canTakeCta() const {
  const CoreConfig &c = cfg_.core;
  if (!grid_)
    return false;
  if (c.oneCtaPerSm && !ctas_.empty())
    return false;
  if (ctas_.size() >= c.maxCtasPerSm)
    return false;
  if (usedThreads_ + threadsPerCta_ > c.maxThreadsPerSm)
    return false;
  if (usedShared_ + sharedPerCta_ > sharedCap_)
    return false;
  if (!ctas_.empty() && usedRegs_ + regsPerCta_ > c.registersPerSm)
    return false; // a single CTA always fits (the functional model can run it)
  // enough free warp slots? (a slot without an active warp has no load pending: a CTA leaves
  // only once its loads are back, so the slots the resident CTAs hold are the taken ones)
  uint32_t need = (threadsPerCta_ + c.warpSize - 1) / c.warpSize;
  return uint32_t(slots_.size()) - usedSlots_ >= need;
}

uint32_t Sm::ctaLimitWithoutShared() const {
  const CoreConfig &c = cfg_.core;
  uint32_t n = c.oneCtaPerSm ? 1 : c.maxCtasPerSm;
  if (threadsPerCta_)
    n = std::min(n, c.maxThreadsPerSm / threadsPerCta_);
  if (regsPerCta_)
    n = std::min(n, c.registersPerSm / regsPerCta_);
  uint32_t warps = (threadsPerCta_ + c.warpSize - 1) / c.warpSize;
  if (warps)
    n = std::min(n, uint32_t(slots_.size()) / warps);
  return std::max(n, 1u); // a single CTA always fits (canTakeCta)
}

void Sm::setCarveout(uint32_t sharedBytes, uint32_t l1Ways) {
  sharedCap_ = sharedBytes;
  ldst_->setL1Ways(l1Ways);
}

void Sm::flushCaches() {
  // data caches only: instruction caches stay warm, as under Nsight Compute, whose replays of a
  // kernel run the same code again
  ldst_->flushL1();
}

void Sm::addCta(ptx::exec::Cta *cta, uint64_t age) {
  retireCheck_ = true;
  forgetScans();
  CtaState st;
  st.cta = cta;
  uint32_t n = grid_->warpsPerCta();
  uint32_t ctaIndex = (uint32_t)ctas_.size();
  for (uint32_t i = 0, k = 0; k < n && i < slots_.size(); ++i) {
    Slot &s = slots_[i];
    if (s.active || !s.pending.empty())
      continue;
    s.w = &grid_->warp(cta, k);
    s.active = true;
    s.retired = false;
    setScanned(i, true);
    s.wakeAt = 0;
    s.callDoneAt = 0;
    s.fenceDoneFor = nullptr;
    s.fetchLine = ~0ull;
    s.fetchIn = s.fetchLo = s.fetchHi = nullptr;
    s.fetchFn = nullptr;
    s.codeBegin = s.codeEnd = nullptr;
    s.fetchReadyAt = 0;
    s.nextCache = nullptr;
    s.opsFor = nullptr;
    s.operandsWereReady = false;
    s.barWait = false;
    s.cta = ctaIndex;
    s.age = age * 64 + k;
    std::fill(s.regReady.begin(), s.regReady.end(), 0);
    std::fill(s.predReady.begin(), s.predReady.end(), 0);
    scheds_[s.sched]->addWarp(i, s.age);
    st.slots.push_back(i);
    ++k;
  }
  usedSlots_ += (uint32_t)st.slots.size();
  ctas_.push_back(std::move(st));
  usedThreads_ += threadsPerCta_;
  usedShared_ += sharedPerCta_;
  usedRegs_ += regsPerCta_;
  ++stats_.ctasRun;
}

void Sm::finishCta(size_t index) {
  forgetScans();
  CtaState &st = ctas_[index];
  for (uint32_t s : st.slots) {
    if (slots_[s].active && !slots_[s].retired)
      scheds_[slots_[s].sched]->removeWarp(s);
    slots_[s].active = false;
    slots_[s].w = nullptr;
    setScanned(s, false);
  }
  grid_->retireCta(st.cta);
  usedSlots_ -= (uint32_t)st.slots.size();
  usedThreads_ -= threadsPerCta_;
  usedShared_ -= sharedPerCta_;
  usedRegs_ -= regsPerCta_;
  ctas_.erase(ctas_.begin() + (long)index);
  // slot -> CTA indices after the erased one shift down
  for (Slot &s : slots_)
    if (s.active && s.cta > index)
      --s.cta;
}

void Sm::buildPipes() {
  const std::vector<PipeDesc> &descs = pipeRegistry().pipes();
  const PipeRegistry &reg = pipeRegistry();
  pipes_.resize(descs.size());
  std::vector<PipeSpec> specs(descs.size());
  for (size_t i = 0; i < descs.size(); ++i) {
    specs[i] = descs[i].spec(cfg_);
    pipes_[i].freeAt.assign(std::max(1u, specs[i].units), 0);
    pipes_[i].units = (uint32_t)pipes_[i].freeAt.size();
    pipes_[i].latency = specs[i].latency;
    pipes_[i].interval = std::max(1u, specs[i].interval);
  }
  // classes no pipe claims issue to misc
  const int misc = reg.find("misc");
  std::fill(std::begin(pipeOf_), std::end(pipeOf_), uint8_t(misc < 0 ? 0 : misc));
  for (size_t i = 0; i < descs.size(); ++i) {
    int to = int(i);
    if (specs[i].units == 0 && !descs[i].fallback.empty() && reg.find(descs[i].fallback) >= 0)
      to = reg.find(descs[i].fallback); // no units of its own: the fallback pipe runs them
    for (OpClass c : descs[i].classes)
      pipeOf_[size_t(c) % ptx::ir::kMaxOpClasses] = uint8_t(to);
  }
  ldstPipe_ = pipeOf_[size_t(OpClass::Mem)];
  for (size_t c = 0; c < ptx::ir::kMaxOpClasses; ++c) {
    classMinFree_[c] = &pipes_[pipeOf_[c]].minFree;
    classNeeds_[c] = uint8_t((pipeOf_[c] == ldstPipe_ ? kNeedsLdstSlot : 0) |
                             (c == size_t(OpClass::Mem) || c == size_t(OpClass::Atomic)
                                  ? 0 : kNeedsCollector));
    classAlsoFree_[c] = (classNeeds_[c] & kNeedsLdstSlot)    ? &kCycleNever
                        : (classNeeds_[c] & kNeedsCollector) ? &collectorMinFree_
                                                              : &kCycleZero;
  }
}

uint32_t Sm::latencyFor(const Inst &in, uint8_t p) const {
  const CoreConfig &c = cfg_.core;
  if (__builtin_expect(in.sassSeq >= uint8_t(ptx::ir::SassSeq::DivF32), 0))
    if (uint32_t l = sequenceLatency(in))
      return l;
  switch (in.cls) {
  case OpClass::Alu:
    return c.iaddLatency && in.sassRole == uint8_t(ptx::exec::SassRole::Add32) ? c.iaddLatency
                                                                               : c.intLatency;
  case OpClass::Mul: return c.mulLatency;
  case OpClass::Sfu:
    return pipes_[p].latency + (in.opcode == sinOpcode_ || in.opcode == cosOpcode_ ? c.sfuTrigExtraLatency : 0);
  default: return pipes_[p].latency;
  }
}

void Sm::fillIssueInfo(IssueInfo &e, const Inst &in, const ptx::ir::Function &fn) {
  issueInfoUsed_ = true;
  e.in = &in;
  e.pipe = pipeFor(in);
  e.latency = latencyFor(in, e.pipe);
  // the operand collector reads source registers of one bank in successive cycles: the
  // busiest bank's reads (at most 16 sources). A register's bank follows its place among the
  // declarations (ir::Function::regDeclIndex), not its place in the simulator's store.
  const uint32_t banks = std::min<uint32_t>(std::max(1u, cfg_.core.regBanks), 64);
  uint32_t worst = 0, n = 0, reads = 0, writes = 0;
  uint8_t bank[16];
  for (unsigned i = 0; i < in.nrs; ++i) {
    if (in.rs[i] & Inst::kPredBit)
      continue;
    ++reads;
    const uint32_t r = in.rs[i];
    const uint8_t b = uint8_t((r < fn.regDeclIndex.size() ? fn.regDeclIndex[r] : r) % banks);
    uint32_t same = 1;
    for (uint32_t j = 0; j < n; ++j)
      same += bank[j] == b;
    bank[n++] = b;
    worst = std::max(worst, same);
  }
  for (unsigned i = 0; i < in.nrd; ++i)
    writes += !(in.rd[i] & Inst::kPredBit);
  e.bankWorst = uint8_t(worst);
  e.regReads = uint8_t(reads);
  e.regWrites = uint8_t(writes);
  e.rare = hasRarePath(in);
  e.registerOnly = in.ctl == ptx::ir::Ctl::None && (kRegisterOnlyClasses >> (uint32_t(in.cls) & 31) & 1);
  e.wakesOthers = mayWakeOthers(in);
  using ptx::ir::Ctl;
  e.stop = uint8_t((in.ctl == Ctl::Exit || in.ctl == Ctl::Ret ? kStopExitOrRet : 0) |
                   (isGlobalLoad(in) || isTextureRead(in) ? kStopGlobalRead : 0) |
                   (in.ctl == Ctl::Call ? kStopCall : 0) |
                   (touchesOutside(in) ? kStopTouchesOutside : 0) |
                   (ptx::exec::SteppedGrid::bufferableStore(in) ? kStopBufferable : 0));
  e.windowSafe = windowSafe(in);
  e.localOnly = e.registerOnly && e.windowSafe;
}

bool Sm::windowSafe(const Inst &in) {
  using ptx::ir::Ctl;
  switch (in.ctl) {
  case Ctl::None:
  case Ctl::Bra:
  case Ctl::Exit:
  case Ctl::WarpSync:
  case Ctl::Bar:
  case Ctl::BarArrive:
  case Ctl::BarRed: break;
  default: return false; // calls and returns (a callee's frame is local memory), waits, traps
  }
  // fences (their SASS sequences wait for the memory system), folded constant-bank and
  // parameter operands (the constant cache); an instruction merged into the next
  // (-ptxsim_fuse_pairs) is, as that next one is an add (issueAgain)
  if ((in.sassSeq != 0 && in.sassSeq < uint8_t(ptx::ir::SassSeq::DivF32)) ||
      in.sassRole == uint8_t(ptx::exec::SassRole::ConstOperand) ||
      in.sassRole == uint8_t(ptx::exec::SassRole::ParamReg))
    return false;
  if (in.ctl >= Ctl::Bar && in.ctl <= Ctl::BarRed)
    return true; // the CTA's barriers
  if (uint8_t(in.cls) >= ptx::ir::kNumBuiltinOpClasses || isTextureRead(in))
    return false; // an extension's class
  if (kRegisterOnlyClasses >> uint32_t(in.cls) & 1)
    return true;
  // a plain load or store of the CTA's shared memory, no other space
  return in.cls == OpClass::Mem && in.space == ptx::ir::MemSpace::Shared &&
         !(in.hints & Inst::kHintOtherSpace);
}

bool Sm::hasRarePath(const Inst &in) const {
  using ptx::exec::SassRole;
  using ptx::ir::Ctl;
  return in.sassSeq != 0 || in.ctl == Ctl::Call || in.ctl == Ctl::Ret ||
         (in.ctl >= Ctl::Bar && in.ctl <= Ctl::BarRed) || (in.hints & Inst::kHintFusedIntoNext) ||
         in.sassRole == uint8_t(SassRole::ConstOperand) || in.sassRole == uint8_t(SassRole::ParamReg);
}

uint32_t Sm::sequenceLatency(const Inst &in) const {
  // ptxas makes these a MUFU estimate refined by dependent FFMAs/DFMAs (integer division: by
  // way of a float reciprocal); the H100 preset's figures are dependent chains of the PTX
  // instruction (../shared/hw/h100/micro alu.cu lat_div_rn_f32 57.8 cycles, lat_div_s64 330.7)
  using ptx::ir::SassSeq;
  const CoreConfig &c = cfg_.core;
  switch (SassSeq(in.sassSeq)) {
  case SassSeq::DivF32: return c.divF32Latency;
  case SassSeq::DivFullF32: return c.divFullF32Latency;
  case SassSeq::SqrtF32: return c.sqrtF32Latency;
  case SassSeq::DivF64: return c.divF64Latency;
  case SassSeq::SqrtF64: return c.sqrtF64Latency;
  case SassSeq::DivS32: return c.divS32Latency;
  case SassSeq::DivU32: return c.divU32Latency;
  case SassSeq::DivS64: return c.divS64Latency;
  case SassSeq::DivU64: return c.divU64Latency;
  default: return 0;
  }
}

bool Sm::fetchLine(Slot &s, const Inst &in, Cycle now) {
  if (l1iTag_.empty()) // (no instruction cache modelled, or a core kind that fetches nothing)
    return true;
  // instructions are -ptxsim_inst_bytes each; each function gets its own code region (from its name, so the
  // layout is the same in every run). `in` is an instruction of the warp's function: when it
  // lies in the code of the function fetched last, that is the function (the warp's own state
  // is not read: the scan of a warp whose next instruction is known touches only its slot).
  if (&in < s.codeBegin || &in >= s.codeEnd) {
    const ptx::ir::Function &fn = *grid_->function(*s.w);
    if (s.fetchFn != &fn) {
      s.fetchFn = &fn;
      s.fetchBase = (std::hash<std::string>{}(fn.name) & 0xfffff) << 24;
    }
    s.codeBegin = fn.code.data();
    s.codeEnd = fn.code.data() + fn.code.size();
  }
  uint64_t base = s.fetchBase;
  uint64_t pc = uint64_t(&in - s.codeBegin);
  const uint64_t addr = base + pc * cfg_.core.instBytes;
  uint64_t line = l1iLineShift_ < 64 ? addr >> l1iLineShift_ : addr / cfg_.mem.l1i.lineBytes;
  // the function's instructions in that line (every path below leaves fetchLine == line): pc
  // from the first whose address is at or past the line's start, to the first past its end
  {
    const uint64_t lineBytes = cfg_.mem.l1i.lineBytes, ib = cfg_.core.instBytes;
    const uint64_t lineStart = l1iLineShift_ < 64 ? line << l1iLineShift_ : line * lineBytes;
    const uint64_t size = uint64_t(s.codeEnd - s.codeBegin);
    auto firstAt = [&](uint64_t a) { // the least pc whose address is >= a
      return a <= base ? 0 : ib ? std::min(size, (a - base + ib - 1) / ib) : size;
    };
    s.fetchLo = s.codeBegin + firstAt(lineStart);
    s.fetchHi = s.codeBegin + firstAt(lineStart + lineBytes);
  }
  s.fetchIn = &in;
  if (line == s.fetchLine)
    return now >= s.fetchReadyAt;
  const CacheConfig &c = cfg_.mem.l1i;
  uint32_t si = uint32_t(line % c.sets);
  size_t set = size_t(si) * c.ways;
  s.fetchLine = line;
  const bool stream = !l1iReady_.empty();
  for (uint32_t w = 0; w < c.ways; ++w)
    if (l1iTag_[set + w] == line) {
      l1iPolicy_->touch(si, w, now, false);
      ++stats_.l1iHits;
      s.fetchReadyAt = now + cfg_.core.fetchLatency - 1; // pipelined: a hit does not stall
      if (stream) {
        // a line still in flight is ready when it arrives; the stream moves on by one line
        s.fetchReadyAt = std::max(s.fetchReadyAt, l1iReady_[set + w]);
        if (l1iPrefetched_[set + w]) {
          l1iPrefetched_[set + w] = 0;
          l1iFill(line + cfg_.core.l1iPrefetchLines, now, now + l1iMissLatency_, true);
        }
      }
      return now >= s.fetchReadyAt;
    }
  ++stats_.l1iMisses;
  const Cycle arrives = now + l1iMissLatency_;
  l1iFill(line, now, arrives, false);
  // sequential prefetch: the lines after a miss are requested with it (straight-line code does
  // not miss on every line, as on hardware with an instruction prefetcher); without the stream
  // option they are usable at once
  for (uint32_t k = 1; k <= cfg_.core.l1iPrefetchLines; ++k)
    l1iFill(line + k, now, arrives, true);
  s.fetchReadyAt = arrives;
  return false;
}

void Sm::fetchEntry(Cycle now) {
  if (l1iTag_.empty() || !cfg_.core.l1iFetchAtLaunch || !kernel_ || !kernel_->fn)
    return;
  // the kernel's code region, as fetchLine places it (its first instruction at the start)
  const uint64_t base = (std::hash<std::string>{}(kernel_->fn->name) & 0xfffff) << 24;
  const uint64_t line = l1iLineShift_ < 64 ? base >> l1iLineShift_ : base / cfg_.mem.l1i.lineBytes;
  const Cycle arrives = now + l1iMissLatency_;
  l1iFill(line, now, arrives, false);
  for (uint32_t k = 1; k <= cfg_.core.l1iPrefetchLines; ++k)
    l1iFill(line + k, now, arrives, true);
}

void Sm::l1iFill(uint64_t line, Cycle now, Cycle ready, bool prefetched) {
  const CacheConfig &c = cfg_.mem.l1i;
  const uint32_t si = uint32_t(line % c.sets);
  const size_t set = size_t(si) * c.ways;
  uint32_t empty = c.ways;
  for (uint32_t w = 0; w < c.ways; ++w) {
    if (l1iTag_[set + w] == line)
      return;
    if (l1iTag_[set + w] == ~0ull && empty == c.ways)
      empty = w;
  }
  // an empty way first (a line filled in cycle 0 has the stamp of a never-used way), else the
  // policy's choice
  const uint32_t v = empty < c.ways ? empty : l1iPolicy_->victim(si);
  l1iTag_[set + v] = line;
  l1iPolicy_->touch(si, v, now, true);
  if (!l1iReady_.empty()) {
    l1iReady_[set + v] = ready;
    l1iPrefetched_[set + v] = prefetched;
  }
}

Cycle Sm::unitFreeAt(const Inst &in) const {
  const uint8_t p = pipeFor(in);
  if (p == ldstPipe_)
    return 0;
  // (a unit's or collector's free cycle only moves when an issue takes it, once it is free)
  Cycle at = pipes_[p].minFree;
  if (in.cls != OpClass::Mem && in.cls != OpClass::Atomic)
    at = std::max(at, collectorMinFree_);
  return at;
}

const Inst *Sm::issuableAgain(Slot &s, Cycle now) {
  // (SteppedGrid::ready, inline)
  if (!s.active || s.w->state != ptx::exec::WarpState::Ready ||
      (s.blockedBy == StallReason::Barrier && now < s.wakeAt))
    return nullptr;
  // (nextCache, when set, is what peek() returns: the warp has not stepped since)
  const Inst *in = s.nextCache ? s.nextCache : grid_->peek(*s.w);
  if (!in || in->ctl == ptx::ir::Ctl::Wait || !fetched(s, *in, now))
    return nullptr;
  // (the operands as the issue just noted them, noteNextOperands, when the note is for `in`:
  // nothing has changed the warp's scoreboard since)
  StallReason why;
  const bool ready = s.opsFor == in ? s.opsAt <= now : operandsReady(s, *in, now, why);
  return ready && unitFreeFor(*in, now) ? in : nullptr;
}

void Sm::issueAgain(Slot &s, uint32_t slotIndex, Cycle now) {
  // The same warp's next instructions while they are ready (blocking instructions issue
  // alone), up to the issue width; one merged into the next takes no slot. The next of a merged
  // one is an add (Schedule.h), never one of the ordered phase's instructions.
  for (uint32_t used = lastIssueFused_ ? 0 : 1; used < cfg_.core.issueWidth || lastIssueFused_;) {
    const Inst *again = issuableAgain(s, now);
    if (!again || (lastIssueFused_ && touchesOutside(*again)))
      break;
    if (mayWakeOthers(*again))
      forgetScans();
    if (!issue(s, *again, slotIndex, now))
      break;
    used += !lastIssueFused_;
  }
}

Cycle Sm::operandsWaitPass(const Slot &s, const Inst &in, Cycle now, StallReason &why) const {
  // One pass over the operands (RAW on sources, WAW on destinations): the latest ready cycle,
  // and the first operand not ready, which names the reason as operandsReady() would. (The
  // scoreboard's two vectors read once, not per operand.)
  const Cycle *const reg = s.regReady.data(), *const pred = s.predReady.data();
  const size_t nReg = s.regReady.size(), nPred = s.predReady.size();
  auto readyAt = [&](uint16_t r) -> Cycle {
    const size_t i = r & ~ptx::ir::Inst::kPredBit;
    if (r & ptx::ir::Inst::kPredBit)
      return i < nPred ? pred[i] : 0;
    return i < nReg ? reg[i] : 0;
  };
  Cycle wake = 0, first = 0; // (first: the first ready cycle past now; 0: none yet)
  for (unsigned i = 0; i < in.nrs; ++i) {
    const Cycle r = readyAt(in.rs[i]);
    if (r > now && !first)
      first = r;
    wake = std::max(wake, r);
  }
  for (unsigned i = 0; i < in.nrd; ++i) {
    const Cycle r = readyAt(in.rd[i]);
    if (r > now && !first)
      first = r;
    wake = std::max(wake, r);
  }
  if (wake <= now)
    return 0;
  why = first == kNever ? StallReason::Memory : StallReason::Scoreboard;
  return wake;
}

bool Sm::operandsReady(const Slot &s, const Inst &in, Cycle now, StallReason &why) const {
  // RAW on sources, WAW on destinations
  for (unsigned i = 0; i < in.nrs; ++i) {
    Cycle r = s.readyAt(in.rs[i]);
    if (r > now) {
      why = r == kNever ? StallReason::Memory : StallReason::Scoreboard;
      return false;
    }
  }
  for (unsigned i = 0; i < in.nrd; ++i) {
    Cycle r = s.readyAt(in.rd[i]);
    if (r > now) {
      why = r == kNever ? StallReason::Memory : StallReason::Scoreboard;
      return false;
    }
  }
  return true;
}

namespace {
MemSpaceKind spaceKind(ptx::ir::MemSpace s) {
  switch (s) {
  case ptx::ir::MemSpace::Shared: return MemSpaceKind::Shared;
  case ptx::ir::MemSpace::Local: return MemSpaceKind::Local;
  case ptx::ir::MemSpace::Const: return MemSpaceKind::Const;
  case ptx::ir::MemSpace::Param: return MemSpaceKind::Param;
  default: return MemSpaceKind::Global;
  }
}
} // namespace

bool Sm::issue(Slot &s, const Inst &inst, uint32_t slotIndex, Cycle now) {
  return issueSm(s, inst, slotIndex, now);
}

PTXSIM_ISSUE_INLINE bool Sm::issueSm(Slot &s, const Inst &inst, uint32_t slotIndex, Cycle now) {
  return issueSmWith(s, inst, issueInfo(inst, *s.w->fn), slotIndex, now);
}

PTXSIM_ISSUE_INLINE bool Sm::issueSmWith(Slot &s, const Inst &inst, const IssueInfo &ii,
                                         uint32_t slotIndex, Cycle now) {
  const Inst *in = &inst;
  // (the step's body twice, the common path's with `rare` a constant: none of its tests for
  // the rarer paths, which the instruction's entry says it has none of)
  if (__builtin_expect(!ii.rare, 1)) {
    const StepOutcome o = stepBody(s, *in, now, false);
    if (o != StepOutcome::Stepped)
      return o == StepOutcome::Skipped;
    // (what follows with none of the rarer paths: stepBody left lastIssueFused_ false)
    countIssue(ii, now, false);
    const int mem = !rec_.isMemory || !rec_.execMask ? -1 : timeMemoryAccess(s, *in, slotIndex, now);
    if (mem < 0)
      timeArithmetic(s, *in, ii, now);
    noteIssued(s, slotIndex, mem > 0, now);
    noteNextOperands(s);
    return true;
  }
  const StepOutcome o = stepBody(s, *in, now, true);
  if (o != StepOutcome::Stepped)
    return o == StepOutcome::Skipped;
  // an instruction ptxas merges into the next one: no pipe, collector or latency of its own
  lastIssueFused_ = (in->hints & Inst::kHintFusedIntoNext) && !rec_.isMemory;
  // a constant load ptxas makes an operand of its users: nothing of its own on a hit
  const bool constOperand = __builtin_expect(in->sassRole == uint8_t(ptx::exec::SassRole::ConstOperand), 0) &&
                            cfg_.core.foldConstOperands && foldedConstHit();
  // a call's argument or return value: a register of the calling convention, no access
  const bool paramReg = __builtin_expect(in->sassRole == uint8_t(ptx::exec::SassRole::ParamReg), 0) &&
                        cfg_.core.callParamsInRegisters;
  const bool folded = constOperand || paramReg;
  lastIssueFused_ |= folded;
  countIssue(ii, now);
  // (timeMemoryAccess: -1 without an access)
  const int mem = folded || !rec_.isMemory || !rec_.execMask ? -1 : timeMemoryAccess(s, *in, slotIndex, now);
  if (mem < 0 && lastIssueFused_) {
    for (unsigned i = 0; i < in->nrd; ++i)
      s.ready(in->rd[i]) = now;
    if (!folded)
      s.fusedRole = in->sassRole;
  } else if (mem < 0) {
    timeArithmetic(s, *in, ii, now);
  }
  noteIssued(s, slotIndex, mem > 0, now);
  noteNextOperands(s);
  return true;
}

PTXSIM_ISSUE_INLINE void Sm::noteNextOperands(Slot &s) const {
  // (the issue just wrote the warp's scoreboard: it is in the cache now, and only a load's
  // return, which clears opsFor, or the warp's next step changes it before the next issue)
  const Inst *in = s.nextCache;
  s.opsFor = in;
  if (!in)
    return;
  // (the scoreboard's two vectors read once, not per operand: Slot::readyAt, inline)
  // (a register within the scoreboard in one test: a predicate's r, with kPredBit, is past
  // every register's, Slot::grow)
  const Cycle *const reg = s.regReady.data(), *const pred = s.predReady.data();
  const size_t nReg = s.regReady.size(), nPred = s.predReady.size();
  auto readyAt = [&](uint16_t r) -> Cycle {
    if (__builtin_expect(r < nReg, 1))
      return reg[r];
    const size_t i = r & ~Inst::kPredBit;
    return (r & Inst::kPredBit) && i < nPred ? pred[i] : 0;
  };
  // The latest ready cycle of all (kNever, the greatest, when one is a load not back yet)
  Cycle at = 0;
  for (unsigned i = 0; i < in->nrs; ++i)
    at = std::max(at, readyAt(in->rs[i]));
  for (unsigned i = 0; i < in->nrd; ++i)
    at = std::max(at, readyAt(in->rd[i]));
  // then, only with one pending, the latest of those before the first pending one
  // (operandsReady() meets that pending operand first once this cycle has passed)
  Cycle memFrom = kNever;
  if (__builtin_expect(at == kNever, 0)) {
    memFrom = [&]() -> Cycle {
      Cycle before = 0;
      for (unsigned i = 0; i < in->nrs; ++i) {
        const Cycle c = readyAt(in->rs[i]);
        if (c == kNever)
          return before;
        before = std::max(before, c);
      }
      for (unsigned i = 0; i < in->nrd; ++i) {
        const Cycle c = readyAt(in->rd[i]);
        if (c == kNever)
          return before;
        before = std::max(before, c);
      }
      return before; // (not reached: one is pending)
    }();
  }
  s.opsAt = at;
  s.opsMemFrom = memFrom;
}

bool Sm::foldedConstHit() const {
  if (!rec_.isMemory || !rec_.execMask)
    return false;
  // a fixed address: every lane reads the same word
  const uint64_t a = rec_.lanes[__builtin_ctz(rec_.execMask)];
  return ldst_->constHolds(a - arenaBase_ + kDeviceBase);
}

Sm::StepOutcome Sm::stepWarp(Slot &s, const Inst &in, Cycle now) {
  return stepBody(s, in, now);
}

PTXSIM_ISSUE_INLINE Sm::StepOutcome Sm::stepBody(Slot &s, const Inst &in, Cycle now, bool rare) {
  lastIssueFused_ = false;
  if (rare && __builtin_expect(in.sassSeq != 0, 0) && waitForFenceBefore(s, in, now))
    return StepOutcome::Waiting;
  // device runtime calls (printf, malloc, free) are long: the builtin the call reaches, if any
  const uint32_t builtin = rare && in.ctl == ptx::ir::Ctl::Call ? grid_->builtinCallee(*s.w, in) : 0;
  // the return from a function that is not a leaf waits for its epilogue's stack loads
  bool frameRet = false;
  if (rare && __builtin_expect(in.ctl == ptx::ir::Ctl::Ret, 0) && cfg_.core.callFrameCycles) {
    const ptx::ir::Function *fn = grid_->function(*s.w);
    frameRet = fn->makesCalls && !fn->isEntry;
  }
  if (now != cycleSet_) { // (the SM's lane has this cycle from its first step in it on)
    grid_->setCycle(now, id_);
    cycleSet_ = now;
  }
  s.nextCache = nullptr;
  s.opsFor = nullptr;
  s.operandsWereReady = false;
  // The step, and the next instruction while the warp's state is in the cache (the scan would
  // read the same one: nothing but its own steps moves a ready warp on); none when a
  // reconverged stack entry is due to be popped (the scan's peek pops it) or the warp left the
  // ready state.
  bool popDue = false;
  const ptx::ir::Inst *next = nullptr;
  const bool stepped = grid_->stepThenNext(*s.w, rec_, id_, next, popDue);
  // (the warp's state read here, as SteppedGrid::done does: no call on every issue)
  if (s.w->state == ptx::exec::WarpState::Done)
    retireCheck_ = true; // the warp finished: its CTA may be done
  s.nextCache = next;
  // (the top entry's address without a test for an empty stack: an address below the
  // stack's end, which a prefetch may be given whatever it is)
  s.stepHint[0] = reinterpret_cast<const void *>(
      uintptr_t(s.w->stack.data() + s.w->stack.size()) - sizeof(ptx::exec::SimtEntry));
  s.stepHint[1] = s.w->preds;
  if (!stepped) {
    if (rec_.blocked && !grid_->laneFaulted(id_)) {
      // a blocking instruction said "not yet": try again a few cycles later
      s.wakeAt = now + kWaitRetryCycles;
      s.blockedBy = StallReason::ExtWait;
      return StepOutcome::Waiting;
    }
    return StepOutcome::Skipped;
  }
  if (__builtin_expect(rec_.switched || frameRet || builtin, 0))
    holdAfterStep(s, now, frameRet, builtin);
  if (!rare)
    return StepOutcome::Stepped;
  if (__builtin_expect(in.sassSeq != 0, 0))
    holdForFence(s, in, now);
  if (__builtin_expect(in.ctl >= ptx::ir::Ctl::Bar && in.ctl <= ptx::ir::Ctl::BarRed, 0) &&
      (cfg_.core.barArriveCycles || cfg_.core.barReleaseCycles))
    timeBarrier(s, in, now);
  return StepOutcome::Stepped;
}

uint32_t Sm::fenceCycles(const Inst &in) const {
  using ptx::ir::SassSeq;
  const CoreConfig &c = cfg_.core;
  switch (SassSeq(in.sassSeq)) {
  case SassSeq::FenceCta: return c.fenceCtaCycles;
  case SassSeq::FenceGpu: return c.fenceGpuCycles;
  case SassSeq::FenceSys: return c.fenceSysCycles;
  default: return 0; // (arithmetic sequences: latencyFor)
  }
}

bool Sm::waitForFenceBefore(Slot &s, const Inst &in, Cycle now) {
  // an atom/red/st with release semantics: its MEMBAR runs first, the access leaves after it
  if (in.cls != OpClass::Mem && in.cls != OpClass::Atomic)
    return false; // (a fence instruction waits after it: holdForFence)
  if (s.fenceDoneFor == &in) { // the wait is over: the access issues now
    s.fenceDoneFor = nullptr;
    return false;
  }
  const uint32_t cost = fenceCycles(in);
  if (!cost)
    return false;
  s.fenceDoneFor = &in;
  s.wakeAt = std::max(s.wakeAt, now + cost);
  s.blockedBy = StallReason::Memory;
  return true;
}

void Sm::holdForFence(Slot &s, const Inst &in, Cycle now) {
  // The MEMBAR of a fence waits until the memory system has acknowledged the warp's earlier
  // accesses: ~669 cycles at GPU scope on an H100 even with none outstanding
  // (../shared/hw/h100/micro sync.cu fence_sc_gpu). The warp's next instruction issues that
  // long after it. (A release access waited before it: waitForFenceBefore.)
  if (in.cls == OpClass::Mem || in.cls == OpClass::Atomic)
    return;
  const uint32_t cost = fenceCycles(in);
  if (!cost || !rec_.execMask)
    return;
  // (callDoneAt too: a load returning meanwhile must not wake the warp early)
  s.wakeAt = s.callDoneAt = std::max(s.wakeAt, now + cost);
  s.blockedBy = StallReason::Memory;
}

void Sm::timeBarrier(Slot &s, const Inst &in, Cycle now) {
  // Arrivals are counted one after another (the SM's barrier unit); a barrier releases its
  // warps barReleaseCycles after its last arrival was counted. An H100 SM takes 12 + 2 x warps
  // cycles per back-to-back bar.sync (../shared/hw/h100/micro sync.cu bar_sync_*w): 14 for one
  // warp, 76 for 32. One count per CTA: named barriers in flight at once share it.
  CtaState &cta = ctas_[s.cta];
  const Cycle counted = std::max(now, barUnitFreeAt_) + cfg_.core.barArriveCycles;
  barUnitFreeAt_ = counted;
  cta.barLastArrival = std::max(cta.barLastArrival, counted);
  if (in.ctl == ptx::ir::Ctl::BarArrive)
    return; // (does not wait)
  if (grid_->atBarrier(*s.w)) {
    s.barWait = true;
    return;
  }
  // this arrival completed the barrier: it and the warps it released go on at the release
  const Cycle release = cta.barLastArrival + cfg_.core.barReleaseCycles;
  cta.barLastArrival = 0;
  auto hold = [&](Slot &w) {
    w.barWait = false;
    if (release <= now)
      return;
    // (callDoneAt too: a load returning meanwhile must not wake the warp early)
    w.callDoneAt = std::max(w.callDoneAt, release);
    if (w.retired) // (a stale barWait: the scan counts it until the release, as any warp)
      setScanned(uint32_t(&w - slots_.data()), true);
    if (w.wakeAt != kNever) {
      w.wakeAt = std::max(w.wakeAt, release);
      w.blockedBy = StallReason::Barrier;
    }
  };
  hold(s);
  for (uint32_t i : cta.slots)
    if (slots_[i].barWait && !grid_->atBarrier(*slots_[i].w))
      hold(slots_[i]);
}

int Sm::timeMemoryAccess(Slot &s, const Inst &in, uint32_t slotIndex, Cycle now) {
  if (!rec_.isMemory || !rec_.execMask)
    return -1;
  IMemSpaceModel *model =
      size_t(rec_.space) < spaceModels_.size() ? spaceModels_[size_t(rec_.space)].get() : nullptr;
  if (model) {
    timeExtensionAccess(s, in, *model, slotIndex, now);
    return 0;
  }
  return issueMemory(s, in, slotIndex, now) ? 1 : 0;
}

void Sm::holdAfterStep(Slot &s, Cycle now, bool frameRet, uint32_t builtin) {
  if (__builtin_expect(rec_.switched, 0)) {
    s.wakeAt = std::max(s.wakeAt, now + kGroupSwitchCycles);
    s.blockedBy = StallReason::Divergence;
  }
  // (with -ptxsim_its_leave_calls only the return that completes the call: lanes that return
  // while others are still in the callee took the leaf path, which saves no frame)
  if (frameRet && rec_.execMask && (rec_.callDone || !cfg_.core.itsLeaveCalls)) {
    // (callDoneAt too: a load returning meanwhile must not wake the warp early)
    s.wakeAt = s.callDoneAt = std::max(s.wakeAt, now + cfg_.core.callFrameCycles);
    s.blockedBy = StallReason::Memory;
  }
  if (builtin) {
    const CoreConfig &c = cfg_.core;
    using B = ptx::exec::Builtin;
    uint64_t cost =
        builtin == uint32_t(B::Vprintf) ? c.vprintfCycles
        : builtin == uint32_t(B::Malloc) || builtin == uint32_t(B::Free)
            ? c.heapCallCycles + uint64_t(c.heapLaneCycles) * ptx::exec::laneCount(rec_.execMask)
            : 0;
    if (cost) {
      s.wakeAt = s.callDoneAt = now + cost;
      s.blockedBy = StallReason::Memory;
    }
  }
}

PTXSIM_ISSUE_INLINE void Sm::countIssue(const IssueInfo &ii, Cycle now, bool mayBeFused) {
  ++stats_.warpInsts;
  // (laneCount: inline bit arithmetic, not the libgcc call __builtin_popcount is without -mpopcnt;
  // mostly every lane is active and runs: one test for both)
  const uint32_t active = rec_.activeMask, exec = rec_.execMask;
  if (__builtin_expect((active & exec) == ptx::exec::kFullMask, 1)) {
    stats_.threadInsts += ptx::exec::kWarpSize;
    stats_.activeLaneInsts += ptx::exec::kWarpSize;
  } else {
    stats_.threadInsts += ptx::exec::laneCount(active);
    stats_.activeLaneInsts += ptx::exec::laneCount(exec);
  }
  if (mayBeFused && lastIssueFused_)
    return;
  stats_.regReads += ii.regReads;
  stats_.regWrites += ii.regWrites;
  const uint8_t p = ii.pipe;
  ++stats_.fuIssued[p];
  // the least recently taken unit of the pipeline takes the instruction (none is free unless
  // the least free cycle, that unit's, has come: Pipe)
  Pipe &pipe = pipes_[p];
  if (pipe.minFree > now)
    return;
  Cycle *f = pipe.freeAt.data();
  const uint32_t u = pipe.next;
  f[u] = now + pipe.interval;
  pipe.next = u + 1 == pipe.units ? 0 : u + 1;
  pipe.minFree = f[pipe.next];
}

void Sm::timeExtensionAccess(Slot &s, const Inst &in, IMemSpaceModel &model, uint32_t slotIndex,
                             Cycle now) {
  // an extension's memory space: its own model times the access
  WarpMemAccess a;
  a.space = MemSpaceKind::Shared;
  a.atomic = in.cls == OpClass::Atomic;
  a.write = !a.atomic && in.nrd == 0;
  a.bytesPerLane = rec_.accessBytes ? rec_.accessBytes : 4;
  a.mask = rec_.execMask;
  std::copy(rec_.lanes, rec_.lanes + ptx::ir::kWarpSize, a.addr);
  Cycle done = std::max(now + 1, model.access(a, slotIndex, now));
  for (unsigned i = 0; i < in.nrd; ++i)
    s.ready(in.rd[i]) = done;
}

PTXSIM_ISSUE_INLINE bool Sm::issueMemory(Slot &s, const Inst &in, uint32_t slotIndex, Cycle now) {
  // (the lanes' addresses are read from the record in issue() below, not copied)
  const MemSpaceKind space = spaceKind(rec_.space);
  WarpMemAccess a(rec_.lanes, space != MemSpaceKind::Shared && space != MemSpaceKind::Local
                                 ? kDeviceBase - arenaBase_
                                 : 0);
  a.space = space;
  a.atomic = in.cls == OpClass::Atomic;
  a.write = !a.atomic && in.nrd == 0;
  a.bytesPerLane = rec_.accessBytes ? rec_.accessBytes : 4;
  // (the hints the unit reads, each where it reads it: the atomics' kinds of an atomic, the L1
  // bypass of an access outside shared memory; the others keep their defaults)
  if (a.atomic) {
    a.floatAtomic = in.hints & Inst::kHintFloatAtomic;
    a.casAtomic = in.hints & Inst::kHintCas;
    a.countingAtomic = in.hints & ptx::exec::kHintCountingAtomic;
  }
  if (a.space == MemSpaceKind::Shared) {
    a.mergedLoad = in.hints & Inst::kHintMergedLoad;
    if (in.mergedLoads > 1)
      a.bytesPerLane *= in.mergedLoads; // the LDS.64/LDS.128 ptxas makes of the group
  } else {
    a.bypassL1 = in.hints & Inst::kHintBypassL1;
  }
  a.mask = rec_.execMask;
  uint64_t tag = nextTag_++;
  ldst_->issue(a, slotIndex, tag, now);
  if (in.nrd) {
    Slot::Pending pd{tag, {}, in.nrd, now};
    for (unsigned i = 0; i < in.nrd; ++i) {
      pd.rd[i] = in.rd[i];
      s.ready(in.rd[i]) = kNever;
    }
    s.pending.push_back(pd);
  }
  return a.space == MemSpaceKind::Global || a.space == MemSpaceKind::Local;
}

PTXSIM_ISSUE_INLINE void Sm::timeArithmetic(Slot &s, const Inst &in, const IssueInfo &ii, Cycle now) {
  // after a merged predecessor, the latency of the SASS instruction the pair became: IADD3
  // the add's own, LEA the integer latency, IMAD the multiply's, IMAD.WIDE (mul.wide into a
  // 64-bit add) both together: ubench's index chase (IMAD.WIDE, then the load) reads 39 cycles
  // per hop on the H100 against latency.cu's pointer chase 32.6
  using ptx::exec::SassRole;
  uint32_t lat = ii.latency;
  if (__builtin_expect(s.fusedRole != 0, 0)) { // (one test on the common path)
    if (s.fusedRole == uint8_t(SassRole::MulInt))
      lat = in.sassRole == uint8_t(SassRole::Add64) ? lat + cfg_.core.mulLatency : cfg_.core.mulLatency;
    else if (s.fusedRole == uint8_t(SassRole::Shift32))
      lat = cfg_.core.intLatency;
    s.fusedRole = 0;
  }
  // operand collector: source registers in the same bank are read in successive cycles (the
  // busiest bank's reads, IssueInfo::bankWorst)
  const uint32_t worst = ii.bankWorst;
  if (worst > 1) {
    lat += worst - 1;
    stats_.regBankConflicts += worst - 1;
  }
  // a collector unit gathers the operands: busy for one cycle per read of the busiest bank
  if (worst) {
    collectorMinFree_ = collectors_.take(now, worst); // (the soonest free takes it)
  }
  // (Slot::ready with the register scoreboard's vector read once: a predicate, or a register
  // past its end, which grows it, takes Slot::ready)
  // (a predicate's r, with kPredBit, is past every register's, as the scoreboard has at most
  // kPredBit entries: Slot::grow; one test)
  const Cycle at = now + lat;
  Cycle *reg = s.regReady.data();
  size_t nReg = s.regReady.size();
  for (unsigned i = 0; i < in.nrd; ++i) {
    const uint16_t r = in.rd[i];
    if (__builtin_expect(r < nReg, 1)) {
      reg[r] = at;
    } else {
      s.ready(r) = at;
      reg = s.regReady.data();
      nReg = s.regReady.size();
    }
  }
}

bool Sm::isGlobalLoad(const Inst &in) {
  static const uint16_t ld = ptx::lookupOpcode("ld"), ldu = ptx::lookupOpcode("ldu");
  return in.cls == OpClass::Mem && in.space == ptx::ir::MemSpace::Global &&
         (in.opcode == ld || in.opcode == ldu) && !(in.hints & Inst::kHintOtherSpace);
}

bool Sm::isTextureRead(const Inst &in) {
  static const uint16_t tex = ptx::lookupOpcode("tex"), tld4 = ptx::lookupOpcode("tld4"),
                        txq = ptx::lookupOpcode("txq");
  return in.ctl == ptx::ir::Ctl::None && !(in.hints & Inst::kHintOtherSpace) &&
         (in.opcode == tex || in.opcode == tld4 || in.opcode == txq);
}

bool Sm::touchesOutsideOther(const Inst &in) {
  using ptx::ir::Ctl;
  using ptx::ir::MemSpace;
  switch (in.ctl) {
  case Ctl::None: break;
  case Ctl::WarpSync: // shfl/vote/match/redux/elect.sync, bar.warp.sync: the warp's own lanes
    if (in.cls == OpClass::Sync)
      return false; // bar.warp.sync (a fence has no member mask)
    break;          // then by class, as any other instruction
  case Ctl::Bra:
  case Ctl::Brx:
  case Ctl::Ret:
  case Ctl::Exit: // (a launch extension's ctaFinished hook: mustStop)
  case Ctl::Bar:
  case Ctl::BarArrive:
  case Ctl::BarRed:
  case Ctl::Yield: return false; // the warp, its CTA's barriers
  default: return true; // calls (mustStop lets those of functions with a body run), waits, traps
  }
  switch (in.cls) {
  case OpClass::Alu:
  case OpClass::Mul:
  case OpClass::Fp32:
  case OpClass::Fp64:
  case OpClass::Half:
  case OpClass::Sfu:
  case OpClass::Warp:
  case OpClass::Control:
  case OpClass::Tensor: return false; // registers of the warp only
  default: break;
  }
  // texture fetches and queries read the texture object and its texels, global memory that
  // nothing writes in the parallel phase (surface stores do not run there); looked at only
  // here, past the classes above (isTextureRead needs Ctl::None; the classes above never touch)
  if (isTextureRead(in))
    return false;
  switch (in.cls) {
  case OpClass::Mem:
  case OpClass::Atomic:
    // the CTA's shared memory, the thread's local memory, and the read-only parameter and
    // constant banks; an instruction that also reads or writes another space (a bulk copy)
    // says so in its hints
    if (in.hints & Inst::kHintOtherSpace)
      return true;
    if (in.space == MemSpace::Global)
      return !isGlobalLoad(in);
    return in.space != MemSpace::Shared && in.space != MemSpace::Local &&
           in.space != MemSpace::Param && in.space != MemSpace::Const;
  default: return true; // fences, Misc, extension classes (they may reach shared state)
  }
}

void Sm::prefetchState() const {
  // the fields a tick reads (ctas_ .. lastStall_ and the stats are a few lines apart)
  __builtin_prefetch(&ctas_);
  __builtin_prefetch(&toInit_);
  __builtin_prefetch(&ldst_);
  __builtin_prefetch(&slots_);
  __builtin_prefetch(&quiet_);
  __builtin_prefetch(&readyScratch_);
  __builtin_prefetch(&resume_);
  __builtin_prefetch(&stats_);
  __builtin_prefetch(&stats_.warpCyclesResident);
}

void Sm::prefetchWarps(Cycle now) const {
  if (ctas_.empty())
    return;
  __builtin_prefetch(ldst_.get());
  for (uint32_t si = 0; si < scheds_.size(); ++si) {
    __builtin_prefetch(scheds_[si].get());
    const QuietScan &q = quiet_[si];
    if (q.valid && now < q.until)
      continue; // (its scan stands: the slots are not read)
    if (q.greedy >= 0 && now < q.greedyUntil) { // (most likely only that warp's slot is read)
      __builtin_prefetch(&slots_[uint32_t(q.greedy)]);
      continue;
    }
    forScanned(si, [&](uint32_t slot) { __builtin_prefetch(&slots_[slot]); });
  }
}

void Sm::tick(Cycle now, MemorySystem &mem) {
  tickLocal(now, mem, false);
  tickShared(now);
}

bool Sm::tickLocal(Cycle now, MemorySystem &mem, bool stopBeforeShared) {
  issuedLastTick_ = false;
  if (!toInit_.empty()) { // CTAs dispatched this cycle (addReservedCta)
    for (ptx::exec::Cta *c : toInit_)
      grid_->initReservedCta(c);
    toInit_.clear();
  }
  resume_.sched = nScheds_; // nothing to resume unless we stop below
  ldst_->tick(now, mem);
  while (ldst_->hasCompletion()) {
    auto [slot, tag] = ldst_->popCompletion();
    if (slot >= slots_.size())
      continue;
    Slot &s = slots_[slot];
    for (size_t i = 0; i < s.pending.size(); ++i) {
      if (s.pending[i].tag != tag)
        continue;
      for (unsigned k = 0; k < s.pending[i].n; ++k)
        s.ready(s.pending[i].rd[k]) = now;
      stats_.loadLatency.sample(now - s.pending[i].issued);
      // (the order of pending loads means nothing, tags are unique: the last one takes its
      // place instead of a memmove of those after it)
      if (i + 1 != s.pending.size())
        s.pending[i] = s.pending.back();
      s.pending.pop_back();
      if (s.wakeAt == kNever && s.blockedBy == StallReason::Memory) {
        --memSleepers_[s.sched]; // (the scan visits it again: see scanFull)
        setScanned(slot, true);
      }
      s.wakeAt = s.callDoneAt; // 0, or the end of a runtime call in progress
      s.opsFor = nullptr;
      if (s.retired)
        setScanned(slot, true); // (the scan takes it out again once awake)
      s.operandsWereReady = false;
      quiet_[s.sched].forget();
      // a finished CTA may have waited for this load (another finished CTA that waits for
      // loads keeps retireCheck_ set: noteRetire)
      if (!s.active || grid_->ctaDone(ctas_[s.cta].cta))
        retireCheck_ = true;
      break;
    }
  }
  if (ctas_.empty()) {
    std::fill(lastStall_.begin(), lastStall_.end(), StallReason::Idle);
    retireDue_ = false;
    return true;
  }
  stats_.cycles += coreClock_; // (0 for a core kind without a core clock)
  // In the parallel phase plain global stores go to the lane's buffer (SteppedGrid::
  // bufferGlobalStores) and tickShared commits them at this SM's turn: other SMs' loads in this
  // cycle could not see them either way, and this SM stops before its next global load. (The
  // buffering stays on after the tick, for the next one: only tickShared's steps, tick()'s and
  // those after the launch need it off, and they switch it off first: bufferStores.)
  bufferStores(stopBeforeShared);
  bool finished = true;
  for (uint32_t si = 0; si < nScheds_ && finished; ++si) {
    SchedScan scan;
    scanScheduler(si, now, scan);
    // (no warp ready: the stall is counted here, without the issue's frame)
    if (readyScratch_.empty())
      countStall(si, scan);
    else
      finished = issueBody(si, now, scan, -1, stopBeforeShared);
  }
  if (!finished)
    return false;
  // (noteRetire's first test inline: mostly no warp finished and no load returned)
  if (__builtin_expect(retireCheck_, 0))
    noteRetire();
  else
    retireDue_ = false;
  return true;
}

bool Sm::resumeLocal(Cycle now) {
  // the rest of tickLocal(now, mem, true), from the scheduler that stopped (setWindow)
  windowStop_ = false;
  bufferStores(true);
  uint32_t si = resume_.sched;
  resume_.sched = (uint32_t)scheds_.size();
  bool finished = issueScheduler(si, now, resume_.scan, resume_.pick, true);
  for (++si; si < scheds_.size() && finished; ++si) {
    SchedScan scan;
    scanScheduler(si, now, scan);
    if (readyScratch_.empty())
      countStall(si, scan);
    else
      finished = issueBody(si, now, scan, -1, true);
  }
  if (!finished)
    return false;
  noteRetire();
  return true;
}

void Sm::noteRetire() {
  retireDue_ = false;
  if (!retireCheck_)
    return;
  bool anyDone = false;
  for (const CtaState &c : ctas_) {
    if (!grid_->ctaDone(c.cta))
      continue;
    anyDone = true;
    bool busy = false;
    for (uint32_t slot : c.slots)
      busy |= !slots_[slot].pending.empty();
    if (!busy) {
      retireDue_ = true;
      return;
    }
  }
  // nothing to retire until a warp finishes or a load returns (both set retireCheck_ again),
  // unless a finished CTA still waits for its loads
  retireCheck_ = anyDone;
}

bool Sm::mustStopOther(const ptx::exec::Warp &w, const Inst &in, const IssueInfo &ii) {
  // (what depends on the instruction alone from its IssueInfo entry: IssueInfo::stop)
  if (orderedIssue_)
    return true;
  // a launch extension's ctaFinished hook runs when a CTA's last warp exits
  if (extLaunch_ && (ii.stop & kStopExitOrRet))
    return true;
  // a held store: later global loads (and texture fetches) of this SM must see it (they wait
  // for the ordered phase)
  if (storesHeld_ && (ii.stop & kStopGlobalRead))
    return true;
  // a direct call of a function with a body moves only the warp's registers and local memory
  // (runtime builtins, printf, malloc, device launches, have none)
  if ((ii.stop & kStopCall) && grid_->callsBody(w, in))
    return false;
  if (!(ii.stop & kStopTouchesOutside)) // (touchesOutside)
    return false;
  if (!(ii.stop & kStopBufferable)) // (SteppedGrid::bufferableStore)
    return true;
  storesHeld_ = true; // (it issues now, into the buffer)
  mayStop_ = true;
  return false;
}

void Sm::tickShared(Cycle now) {
  bufferStores(false); // (its steps write global memory directly)
  if (storesHeld_) { // first this SM's stores of the parallel phase, in the order it made them
    grid_->commitStores(id_);
    storesHeld_ = false;
    noteMayStop();
  }
  if (ctas_.empty()) {
    retireDue_ = false;
    return;
  }
  if (resume_.sched < scheds_.size()) {
    // the scheduler that stopped before an instruction that reaches beyond the SM, then the rest
    uint32_t si = resume_.sched;
    resume_.sched = (uint32_t)scheds_.size();
    issueScheduler(si, now, resume_.scan, resume_.pick, false);
    for (++si; si < scheds_.size(); ++si) {
      SchedScan scan;
      scanScheduler(si, now, scan);
      issueScheduler(si, now, scan, -1, false);
    }
  }
  // CTAs whose warps have all finished (and whose loads are back) leave the SM
  for (size_t i = ctas_.size(); i-- > 0;) {
    if (!grid_->ctaDone(ctas_[i].cta))
      continue;
    bool busy = false;
    for (uint32_t slot : ctas_[i].slots)
      busy |= !slots_[slot].pending.empty();
    if (!busy)
      finishCta(i);
  }
  noteRetire();
}

void Sm::scanScheduler(uint32_t si, Cycle now, SchedScan &scan) {
  // (the shortcuts here, inline in the tick; the full scan out of line: most scans of a
  // scheduler whose warps wait take a shortcut, which then saves the full scan's frame)
  if (schedTicks_) // (a policy whose tick() does something says so: IWarpScheduler::ticks)
    scheds_[si]->tick(now);
  readyScratch_.clear();
  QuietScan &q = quiet_[si];
  if (q.valid && now < q.until && (!q.ldstWait || q.ldstVersion == ldst_->issueVersion())) {
    // nothing woke since the last scan: it would find the same
    stats_.warpCyclesResident += q.resident;
    scan = q.scan;
    return;
  }
  if (q.greedy >= 0 && now < q.greedyUntil && scanGreedy(si, now, scan))
    return;
  scanFull(si, now, scan);
}

void Sm::scanFull(uint32_t si, Cycle now, SchedScan &scan) {
  QuietScan &q = quiet_[si];
  q.greedy = -1;
  // (the warps asleep until a load returns are out of scanSlots_: each would count resident
  // and make the stall reason Memory, which no later visit changes)
  const uint32_t sleepers = memSleepers_[si];
  bool anyBarrier = false;
  StallReason worst = sleepers ? StallReason::Memory : StallReason::None;
  // (for quiet_: warps counted resident, the earliest wake-up, a warp waiting only for a unit;
  // a live warp is one counted resident or one at a barrier)
  uint32_t resident = sleepers;
  Cycle until = kNever;
  bool unitWait = false;

  UnitMemo units;
  // (the active slots, but a retired warp's: its warp is done, the peek below would find
  // nothing, and its wake-up has passed, as it had when the scan retired it; an event that
  // moves a retired warp's wake-up later, a barrier's release or a load's return after one,
  // puts it back until the scan finds it awake again, so that it is counted as before;
  // `return` goes on with the next slot)
  auto visit = [&](uint32_t slot) {
    Slot &s = slots_[slot];
    if (now < s.wakeAt) { // still blocked on its operands
      ++resident;
      until = std::min(until, s.wakeAt);
      if (s.blockedBy == StallReason::Memory || worst == StallReason::None)
        worst = s.blockedBy;
      return;
    }
    const Inst *in = s.nextCache;
    // (a warp that is not ready has no next instruction: peek() would say null, the state read
    // here as SteppedGrid::atBarrier and done do, without a call for a warp at a barrier)
    if (!in && (s.w->state != ptx::exec::WarpState::Ready ||
                !(in = s.nextCache = grid_->peek(*s.w)))) {
      if (s.w->state == ptx::exec::WarpState::AtBarrier) {
        anyBarrier = true;
      } else if (s.retired) {
        setScanned(slot, false); // (back after a late wake-up: see below)
      } else if (grid_->done(*s.w)) {
        // An exited warp leaves its scheduler at once: a two-level scheduler's active set
        // must not keep it while the CTA's other warps wait in the pending set.
        s.retired = true;
        setScanned(slot, false);
        scheds_[si]->removeWarp(slot);
      }
      return;
    }
    ++resident;
    // (fetched()'s common case first: the instruction it found last)
    if (in == s.fetchIn ? now < s.fetchReadyAt : !fetched(s, *in, now)) {
      s.wakeAt = s.fetchReadyAt;
      until = std::min(until, s.wakeAt);
      s.blockedBy = StallReason::Fetch;
      if (worst == StallReason::None)
        worst = StallReason::Fetch;
      return;
    }
    if (!s.operandsWereReady) {
      StallReason why = StallReason::None;
      // sleep until the operands can be ready: a finite scoreboard time, or a load's return
      if (const Cycle wake = operandsWait(s, *in, now, why)) {
        if (why == StallReason::Memory || worst == StallReason::None)
          worst = why;
        until = std::min(until, wake);
        sleepOnOperands(s, slot, si, wake, why);
        return;
      }
      s.operandsWereReady = true;
    }
    if (!unitFreeFor(*in, now, units)) {
      if (worst == StallReason::None)
        worst = StallReason::Pipeline;
      // asleep until a unit and a collector can be free (the scan counts it as it would
      // have each cycle: resident, Pipeline), or looked at again next cycle (the LD/ST slot)
      // (0 for the LD/ST pipe's classes without the call: unitFreeAt's first case)
      const Cycle free =
          classNeeds_[size_t(in->cls) % ptx::ir::kMaxOpClasses] & kNeedsLdstSlot ? 0 : unitFreeAt(*in);
      if (free > now) {
        s.wakeAt = free;
        s.blockedBy = StallReason::Pipeline;
        until = std::min(until, free);
      } else {
        unitWait = true;
      }
      return;
    }
    readyScratch_.push_back(slot); // (the issue takes its nextCache)
  };
  // (up to 64 warp slots, every preset's: one word of slots, without forScanned's loop over
  // words and its state)
  if (__builtin_expect(scanSlots_.size() == 1, 1)) {
    for (uint64_t bits = scanSlots_[0] & schedSlotMask_[si]; bits; bits &= bits - 1)
      visit(uint32_t(__builtin_ctzll(bits)));
  } else {
    forScanned(si, visit);
  }
  const bool anyLive = resident != 0 || anyBarrier;
  stats_.warpCyclesResident += resident;
  scan.anyLive = anyLive;
  scan.anyBarrier = anyBarrier;
  scan.worst = worst;
  q.valid = readyScratch_.empty();
  q.greedyUntil = until; // (the asleep warps' first wake-up: the greedy shortcut's end)
  q.ldstWait = unitWait; // (only the LD/ST slot is waited for without a wake-up: unitFreeAt)
  if (unitWait) {
    q.ldstVersion = ldst_->issueVersion();
    const Cycle pipeFree = pipes_[ldstPipe_].minFree;
    until = std::min({until, ldst_->issueStateUntil(now), pipeFree > now ? pipeFree : kNever});
  }
  // (field by field from the locals: a copy of `scan` would read its three bytes back as one
  // word right after their stores, which the host cannot forward)
  q.scan.anyLive = anyLive;
  q.scan.anyBarrier = anyBarrier;
  q.scan.worst = worst;
  q.resident = resident;
  q.until = until;
}

bool Sm::scanGreedy(uint32_t si, Cycle now, SchedScan &scan) {
  // The scheduler's other warps are as the last full scan left them (nothing cleared
  // QuietScan::greedy since, and none of the asleep ones wakes before `greedyUntil`): the policy picks
  // the greedy warp if it is ready, and the full scan's visits of the others would change
  // nothing. Its visit is the full scan's; when the warp is not ready the full scan runs and
  // visits it again, which finds what this visit left (an instruction fetch started here is
  // not started twice) and counts it as one visit would.
  QuietScan &q = quiet_[si];
  const uint32_t slot = uint32_t(q.greedy);
  Slot &s = slots_[slot];
  const Inst *in = s.nextCache;
  // (only an instruction that cannot refuse to issue: a refusal would let the others issue)
  if (now < s.wakeAt || !in || (in->ctl != ptx::ir::Ctl::None && in->ctl != ptx::ir::Ctl::Bra) ||
      in->sassSeq != 0 || uint8_t(in->cls) >= ptx::ir::kNumBuiltinOpClasses)
    return false;
  if (!fetched(s, *in, now))
    return false;
  if (!s.operandsWereReady) {
    StallReason why = StallReason::None;
    if (const Cycle wake = operandsWait(s, *in, now, why)) {
      // (the full scan's visit: the full scan then finds the warp asleep, counted alike)
      sleepOnOperands(s, slot, si, wake, why);
      return false;
    }
    s.operandsWereReady = true;
  }
  UnitMemo units;
  if (!unitFreeFor(*in, now, units))
    return false;
  readyScratch_.push_back(slot);
  stats_.warpCyclesResident += q.resident;
  scan.anyLive = true;
  scan.anyBarrier = q.scan.anyBarrier;
  scan.worst = StallReason::None; // (read only when no warp issues)
  return true;
}

bool Sm::issueScheduler(uint32_t si, Cycle now, SchedScan &scan, int pick, bool stopBeforeShared) {
  return issueBody(si, now, scan, pick, stopBeforeShared);
}

PTXSIM_ISSUE_INLINE bool Sm::issueBody(uint32_t si, Cycle now, SchedScan &scan, int pick,
                                       bool stopBeforeShared) {
  IWarpScheduler &sched = *scheds_[si];
  while (!readyScratch_.empty()) {
    // (the greedy shortcut's warp alone: a greedy policy picks the warp it picked last, which
    // the greedy record names, and changes nothing then: IWarpScheduler::keepsLastWhileReady)
    if (pick < 0 && greedyScan_ && readyScratch_.size() == 1 &&
        int32_t(readyScratch_[0]) == quiet_[si].greedy)
      pick = quiet_[si].greedy;
    if (pick < 0)
      pick = sched.pick(readyScratch_, now);
    if (pick < 0)
      break;
    Slot &ps = slots_[(uint32_t)pick];
    // (what the step reads first, on its way while the checks below go on; only the picked
    // warp's: the scan finds several ready warps a cycle, which mostly wait)
    __builtin_prefetch(ps.w);
    __builtin_prefetch(&ps.w->stack);
    __builtin_prefetch(&ps.w->state);
    __builtin_prefetch(ps.stepHint[0]);
    __builtin_prefetch(ps.stepHint[1]);
    const Inst &in = *ps.nextCache; // (what the scan found: the warp has not stepped since)
    const IssueInfo &ii = issueInfo(in, *ps.w->fn);
    // (the common case first, in one test: a register-only instruction that is window-safe,
    // on an SM with nothing that makes mustStop look further)
    if (stopBeforeShared && !(ii.localOnly && !mayStop_) &&
        (__builtin_expect(windowLocal_ && !ii.windowSafe, 0) ? (windowStop_ = true)
                                                              : mustStop(*ps.w, in, ii))) {
      // the rest of this tick runs in the GPU's ordered phase (tickShared), from this pick on
      resume_.sched = si;
      resume_.scan = scan;
      resume_.pick = pick;
      return false;
    }
    // (the scans an issue may change: its scheduler's, or every one when the instruction may
    // release a barrier, end a warp or do what an extension does)
    const bool wakesOthers = ii.wakesOthers; // (mayWakeOthers)
    if (wakesOthers)
      forgetScans();
    else
      quiet_[si].valid = false;
    // (the full SM's issue in this body, not by a virtual call)
    if (exactSm_ ? issueSmWith(ps, in, ii, (uint32_t)pick, now) : issue(ps, in, (uint32_t)pick, now)) {
      // (the next scans may take the greedy shortcut: the issue changed no other warp)
      QuietScan &q = quiet_[si];
      q.greedy = greedyScan_ && !wakesOthers ? pick : -1;
      // -gpgpu_max_insn_issue_per_warp: the same warp may issue its next instructions in
      // this cycle too (issueAgain); an instruction merged into the next (-ptxsim_fuse_pairs)
      // takes no issue slot of its own
      if (__builtin_expect(lastIssueFused_ || cfg_.core.issueWidth > 1, 0))
        issueAgain(ps, (uint32_t)pick, now);
      ++stats_.issueCycles;
      lastStall_[si] = StallReason::None;
      issuedLastTick_ = true;
      return true;
    }
    scan.worst = StallReason::ExtWait;
    // A blocking instruction that said "not yet" used no issue slot: another ready warp may
    // issue this cycle (otherwise warps that keep retrying a wait starve the others).
    readyScratch_.erase(std::find(readyScratch_.begin(), readyScratch_.end(), (uint32_t)pick));
    pick = -1;
  }
  countStall(si, scan);
  return true;
}

bool Sm::idle() const { return ctas_.empty() && ldst_->idle(); }

Cycle Sm::nextEventCycle(Cycle now) const {
  Cycle next = ownNextEvent(now);
  if (!ctas_.empty() && next == kNever)
    next = now + 1; // e.g. CTA completion pending: be safe
  return next;
}

Cycle Sm::ownNextEvent(Cycle now) const {
  // (kNever for an idle unit: nextEventCycle needs no idle() first)
  Cycle next = ldst_->nextEventCycle(now);
  if (ctas_.empty())
    return next; // (every warp slot is free: finishCta frees a CTA's slots)
  // (the slots the scan visits: the others are empty, or hold a retired warp, whose next()
  // is null)
  for (size_t wd = 0; wd < scanSlots_.size(); ++wd) {
    for (uint64_t bits = scanSlots_[wd]; bits; bits &= bits - 1) {
      const Slot &s = slots_[wd * 64 + size_t(__builtin_ctzll(bits))];
      if (next <= now + 1)
        return now + 1; // (nothing can be sooner)
      // A warp asleep until a load returns (wakeAt kNever) was peeked when it went to sleep, and
      // that instruction has an operand still pending: the test below would find it blocked too.
      // Only the LD/ST unit's completion (covered by its next event) wakes it. Skipping it here
      // saves reading the warp's SIMT stack, most of this function's time on memory-bound kernels.
      if (!s.active || s.wakeAt == kNever)
        continue;
      // (nextCache, when set, is what next() would return: the warp has not stepped since)
      bool popDue = false;
      const Inst *nextIn = s.nextCache;
      if (!nextIn) {
        // (a warp that is not ready, one at a barrier, has no next instruction and no pop due:
        // its state read here, as SteppedGrid::next does, without the call)
        if (s.w->state != ptx::exec::WarpState::Ready)
          continue;
        nextIn = grid_->next(*s.w, popDue);
      }
      if (popDue)
        return now + 1; // needs a stack pop: just tick
      if (!nextIn)
        continue;
      const Inst &in = *nextIn;
      Cycle t = now + 1;
      bool blocked = false;
      for (unsigned i = 0; i < in.nrs; ++i) {
        Cycle r = s.readyAt(in.rs[i]);
        if (r == kNever)
          blocked = true;
        t = std::max(t, r);
      }
      for (unsigned i = 0; i < in.nrd; ++i) {
        Cycle r = s.readyAt(in.rd[i]);
        if (r == kNever)
          blocked = true;
        t = std::max(t, r);
      }
      if (blocked)
        continue; // woken by the LD/ST unit
      t = std::max(t, pipes_[pipeFor(in)].minFree);
      next = std::min(next, t);
    }
  }
  return next;
}

void Sm::idleTick(Cycle now, uint64_t resident) {
  if (ctas_.empty())
    return; // (tick() would only find the LD/ST unit with nothing due)
  // what tick() counts in a cycle in which no warp's state changes: the same scan's results
  stats_.cycles += coreClock_;
  stats_.warpCyclesResident += resident;
  for (uint32_t si = 0; si < scheds_.size(); ++si) {
    scheds_[si]->tick(now);
    ++stats_.stall[size_t(lastStall_[si])];
  }
}

void Sm::idleTicks(uint64_t n, uint64_t resident) {
  if (ctas_.empty() || n == 0)
    return;
  stats_.cycles += n * coreClock_;
  stats_.warpCyclesResident += n * resident;
  for (StallReason r : lastStall_)
    stats_.stall[size_t(r)] += n;
}

void Sm::skipCycles(uint64_t n, uint64_t resident) {
  if (ctas_.empty() || n == 0)
    return;
  stats_.cycles += n * coreClock_; // as n ticks: none for a core kind without a core clock
  stats_.warpCyclesResident += n * resident; // (the occupancy's: resident in skipped cycles too)
  for (StallReason r : lastStall_)
    if (r != StallReason::None)
      stats_.stall[size_t(r)] += n;
}

void Sm::resetStats() {
  stats_ = SmStats{};
  ldst_->resetStats();
  for (auto &m : spaceModels_)
    if (m)
      m->resetStats();
}

namespace {
using stats::Unit;
constexpr stats::FieldStat<SmStats> kSmFields[] = {
    {"sm.regfile_reads", Unit::Count, "warp-wide register file reads (source operands)", &SmStats::regReads},
    {"sm.regfile_writes", Unit::Count, "warp-wide register file writes (destinations)", &SmStats::regWrites},
    {"sm.active_lane_insts", Unit::Count, "thread instructions whose guard was true", &SmStats::activeLaneInsts},
    {"l1i.hits", Unit::Count, "instruction cache hits", &SmStats::l1iHits},
    {"l1i.misses", Unit::Count, "instruction cache misses", &SmStats::l1iMisses},
};

/// The SM's own statistics, declared once (appendStats' order; the GPU sums the rest of
/// SmStats into its sm.* statistics).
struct SmStatDecls {
  stats::FieldStats<SmStats> fields{kSmFields, ""};
  stats::DistributionStat loadLatency{
      "sm.load_latency", Unit::Cycles,
      "cycles from the issue of a load or atomic to its result (all SMs)"};
};
const SmStatDecls &smStats() {
  static const SmStatDecls &d = *new SmStatDecls; // never destroyed (no static destructors)
  return d;
}
} // namespace

void Sm::describeStats() {
  smStats();
  LdstUnit::describeStats();
  schedulerRegistry(); // the built-in policies register their counters as they are added
}

const stats::DistributionStat &Sm::loadLatencyStat() { return smStats().loadLatency; }

void Sm::appendStats(StatValues &out) const {
  const stats::FieldStats<SmStats> &f = smStats().fields;
  for (size_t i = 0; i < f.size(); ++i)
    out.emplace_back(f.stat(i), (double)f.value(stats_, i));
  ldst_->appendStats(out);
  appendSchedulerStats(out);
  std::vector<std::pair<std::string, double>> ext;
  for (auto &m : spaceModels_)
    if (m)
      m->stats(ext);
  // (an extension's model reports its statistics by name: timing/ext/Extension.h)
  for (auto &kv : ext)
    out.emplace_back(stats::Catalog::global().resolve(kv.first), kv.second);
}

void Sm::appendSchedulerStats(StatValues &out) const {
  std::vector<std::pair<std::string, uint64_t>> v;
  for (auto &sched : scheds_) {
    v.clear();
    sched->stats(v);
    // the counters the policy declared when it was registered, in its order
    for (size_t k = 0; k < v.size(); ++k)
      out.emplace_back(schedCounters_ && k < schedCounters_->size()
                           ? stats::Stat((*schedCounters_)[k])
                           : stats::Catalog::global().resolve("sched." + v[k].first),
                       (double)v[k].second);
  }
}

} // namespace ptxsim::timing

#pragma once
// The warp interpreter and the helpers instruction handlers share.
//
// Contract: runWarp() executes instructions of one warp until it blocks at a barrier, finishes,
// faults or has run `budget` instructions; stepWarp() executes exactly one warp instruction and
// describes it in a WarpInstRecord (for cycle-level models). Handlers (ir::ExecFn) operate on
// all lanes in their mask with forLanes(); memory handlers translate addresses with
// resolveAddresses(), which checks every lane's access against its state space and reports the
// first bad lane through ExecCtx::fault(), or first try resolveWarp(), one check for the whole
// warp in the common case (coalesced or uniform accesses inside one cached allocation).

#include "ptx/exec/Memory.h"
#include "ptx/exec/Warp.h"
#include "ptx/ir/Ir.h"

#include <cstring>
#include <type_traits>

namespace ptxsim::ptx::exec {

using ir::kFullMask;
using ir::kWarpSize;

/// Calls f(lane) for every lane in `mask`; the full-warp case is a plain counted loop the
/// compiler can vectorise.
template <class F> inline void forLanes(uint32_t mask, F &&f) {
  if (mask == kFullMask) {
    for (unsigned l = 0; l < kWarpSize; ++l)
      f(l);
  } else {
    while (mask) {
      unsigned l = (unsigned)__builtin_ctz(mask);
      mask &= mask - 1;
      f(l);
    }
  }
}

/// Number of lanes in `mask`. Inline bit arithmetic: without -mpopcnt, __builtin_popcount is a
/// libgcc call, and the interpreter counts lanes on every warp instruction.
inline unsigned laneCount(uint32_t mask) {
  if (mask == kFullMask)
    return kWarpSize;
  mask = mask - ((mask >> 1) & 0x55555555u);
  mask = (mask & 0x33333333u) + ((mask >> 2) & 0x33333333u);
  return (((mask + (mask >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

/// Register slot <-> typed value. Writes zero- or sign-extend as the C++ conversion does;
/// readers only look at their type's width.
template <class T> inline T fromBits(uint64_t v) {
  if constexpr (std::is_same_v<T, float>) {
    uint32_t b = (uint32_t)v;
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  } else if constexpr (std::is_same_v<T, double>) {
    double d;
    std::memcpy(&d, &v, 8);
    return d;
  } else {
    return (T)v;
  }
}
template <class T> inline uint64_t toBits(T v) {
  if constexpr (std::is_same_v<T, float>) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
  } else if constexpr (std::is_same_v<T, double>) {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  } else if constexpr (std::is_signed_v<T>) {
    return (uint64_t)(int64_t)v;
  } else {
    return (uint64_t)v;
  }
}

/// Computes the effective address of every lane in `mask` into w.addr (the space's own
/// addresses: shared/local offsets, global/generic device addresses).
void computeAddresses(const Warp &w, const ir::Inst &in, uint32_t mask);

/// Translates w.addr of the lanes in `mask` to host pointers for accesses of `bytes` each,
/// checking bounds, alignment (`align`, usually == bytes) and, for writes, that the space is
/// writable. Returns false after reporting a fault.
bool resolveAddresses(ExecCtx &ctx, Warp &w, const ir::Inst &in, uint32_t mask, unsigned bytes,
                      unsigned align, bool write, uint8_t **ptrs);

/// How the lanes of a warp access memory when resolveWarp() accepts the access: lane l's host
/// pointer is w.addr[l] + bias.
struct WarpAccess {
  uint64_t bias = 0;
  /// Every lane of the warp (full mask) accesses the element after the previous lane's:
  /// w.addr[l] == w.addr[0] + l * bytes, so the warp touches one contiguous range.
  bool contiguous = false;
};

/// The common case of resolveAddresses(), checked once for the whole warp rather than lane by
/// lane: computes w.addr, and returns true when every lane in `mask` accesses `bytes` aligned to
/// `align` inside one region (one device allocation already in the context's cache, or the CTA's
/// shared memory), writable when `write`. Returns false, reporting nothing, when some lane needs
/// the per-lane path (local memory, lanes in different allocations or spaces, an allocation not
/// yet cached, or a bad access): the caller then calls resolveAddresses(), which reports faults
/// exactly as before.
bool resolveWarp(ExecCtx &ctx, Warp &w, const ir::Inst &in, uint32_t mask, unsigned bytes,
                 unsigned align, bool write, WarpAccess &acc);

/// A plain st.global (any width or vector, no other space): while ExecCtx::bufferStores it writes
/// into the context's StoreBuffer, and touches nothing else outside its warp.
bool isBufferableStore(const ir::Inst &in);
/// Writes the buffered stores to memory in the order they were made, and empties the buffer.
void commitStores(StoreBuffer &b);

/// Host pointer for one generic/global device address range, or null (no fault reported);
/// with `write`, also null for constant memory (read-only in kernels).
uint8_t *translateGeneric(ExecCtx &ctx, const Warp &w, unsigned lane, uint64_t addr, unsigned bytes,
                          bool write = false);

// Handlers the lowering core emits itself.
void movSpecial(ExecCtx &, Warp &, const ir::Inst &, uint32_t);
void predToValue(ExecCtx &, Warp &, const ir::Inst &, uint32_t);
void nonZeroToPred(ExecCtx &, Warp &, const ir::Inst &, uint32_t);
void movRuntimeAddress(ExecCtx &, Warp &, const ir::Inst &, uint32_t);
/// movSpecial's aux: the special registers (the JIT reads the first ones itself).
namespace sreg {
enum Id : uint32_t {
  kTidX, kTidY, kTidZ, kNtidX, kNtidY, kNtidZ, kCtaidX, kCtaidY, kCtaidZ, kNctaidX, kNctaidY,
  kNctaidZ, kLaneid, kWarpid, kNwarpid, kSmid, kNsmid, kGridid, kLmEq, kLmLe, kLmLt, kLmGe,
  kLmGt, kClock, kClockHi, kClock64, kGtimer, kGtimerLo, kGtimerHi, kDynSmem, kTotalSmem,
  kAggrSmem, kSmemEnd, kZero, kOne, kEnvreg1, kEnvreg2, kFirstExt
};
} // namespace sreg
/// Id of a special register (`%tid` with component 'x'), for movSpecial's aux.
uint32_t specialRegId(std::string_view base, char comp);
/// Registers an extension's special register reader (value per lane).
using SpecialRegFn = void (*)(ExecCtx &, const Warp &, uint64_t *out, uint32_t mask);
uint32_t registerSpecialRegisterReader(std::string_view base, SpecialRegFn fn);

/// f64 -> f16/bf16 bits, round to nearest even (immediates).
uint16_t f64ToF16Bits(double d);
uint16_t f64ToBf16Bits(double d);

/// Runs warp `w` for up to `budget` instructions. Returns the number executed.
uint64_t runWarp(ExecCtx &ctx, Warp &w, uint64_t budget);
/// IPDOM: consecutive spins of a divergent loop (a backward branch taken while other lanes of
/// the warp wait) before the interpreter watches the register state for a livelock; until then
/// it only counts them (Warp::spinPc, spinCount), which the JIT's compiled loops also do.
constexpr uint64_t kLivelockFrom = uint64_t(1) << 16;
/// ITS: the same count from which a diverged group's spins are watched (and it may yield).
constexpr uint64_t kSpinFrom = 4;
/// "block (0,0,0) warp 1: lanes 0xffffffff, pc 12, at k.ptx:40:5 (app.cu:17) ld": where each
/// group of lanes of `w` is, for reports (the kernel timeout's).
std::string warpPlaceText(const Program *prog, const Grid &g, const Warp &w);

/// What one warp instruction did, for timing models.
struct WarpInstRecord {
  uint32_t pc = 0;
  const ir::Inst *inst = nullptr;
  const ir::Function *fn = nullptr;
  uint32_t activeMask = 0;  ///< lanes that were active (before the guard)
  uint32_t execMask = 0;    ///< lanes that executed (guard true)
  ir::OpClass cls = ir::OpClass::Alu;
  bool isMemory = false;
  /// A blocking instruction (ir::Ctl::Wait) could not complete: nothing executed, the warp is
  /// still at `pc` (stepWarp returned false).
  bool blocked = false;
  /// Independent thread scheduling: the warp changed the group of lanes it runs during this
  /// step (a spinning group yielded, or a group parked at a convergence point).
  bool switched = false;
  /// A ret whose lanes completed their call: the warp (or its running group) went on in the
  /// caller. False for lanes that returned while others are still in the callee.
  bool callDone = false;
  ir::MemSpace space = ir::MemSpace::Global;
  unsigned accessBytes = 0;
  uint64_t addr[kWarpSize]; ///< per-lane addresses (valid for lanes in execMask) when isMemory
  /// The same addresses where a reader finds them (valid when isMemory): `addr`, or, in a
  /// record of SteppedGrid::stepThenNext whose addresses need no change (all but a generic
  /// access's), the warp's own (Warp::addr, not copied into `addr`), valid until its next step.
  const uint64_t *lanes = nullptr;
};
/// The instruction `w` executes next (after popping reconverged stack entries), or null when
/// the warp has finished or waits at a barrier. Timing models read its op class and registers
/// (Inst::rd/rs) to decide whether it can issue.
const ir::Inst *peekWarp(Warp &w);
/// Executes exactly one instruction of `w` (which must be Ready) and describes it in `rec`.
/// Returns false when the warp has nothing to execute (done or blocked).
bool stepWarp(ExecCtx &ctx, Warp &w, WarpInstRecord &rec);
/// The step of an instruction executed ahead (Warp::aheadN > 0, `top` at Warp::aheadPc): its
/// record (when `rec`) and the warp's counts, as the step that executes one.
inline void recordAhead(ExecCtx &ctx, Warp &w, SimtEntry &top, const ir::Function &fn,
                        WarpInstRecord *rec) {
  const uint32_t pc = top.pc;
  const uint32_t m = w.aheadMask[w.aheadAt++];
  --w.aheadN;
  ++w.aheadPc;
  ++w.instCount;
  ++ctx.warpInsts;
  ctx.threadInsts += __builtin_expect(top.mask == w.aheadActive, 1) ? w.aheadLanes
                                                                     : laneCount(top.mask);
  if (rec) {
    const ir::Inst &in = fn.code[pc];
    rec->pc = pc;
    rec->inst = &in;
    rec->fn = &fn;
    rec->activeMask = top.mask;
    rec->execMask = m;
    rec->cls = in.cls;
    rec->isMemory = false;
    rec->blocked = false;
    rec->callDone = false;
  }
  top.pc = pc + 1;
}

/// stepWarp() of an instruction an earlier step executed ahead of its issue (Warp::aheadN, at
/// Warp::aheadPc): describes it in `rec` and moves the warp on, as stepWarp() would, without
/// its general loop. False, with nothing changed, when the warp is not simply there (not Ready,
/// a stack entry to pop, another pc): stepWarp() then takes the step (and reports what is wrong).
/// Inline: a cycle model's issue takes it for most instructions of straight-line code.
inline bool stepAheadWarp(ExecCtx &ctx, Warp &w, WarpInstRecord &rec) {
  // (what runImpl's loop finds before its run-ahead branch: a Ready warp whose top entry is
  // neither reconverged nor empty, at the pc the instructions executed ahead resume from)
  if (w.state != WarpState::Ready || w.stack.empty() || !w.aheadN)
    return false;
  SimtEntry &top = w.stack.back();
  if (top.pc == top.rpc || top.mask == 0 || top.pc != w.aheadPc)
    return false;
  recordAhead(ctx, w, top, *w.fn, &rec);
  rec.switched = false; // (no lane group switch: the step moved only the pc)
  return true;
}

/// The memory part of a step's record (runImpl, stepPlainWarp): the space, the bytes per lane
/// and the lanes' addresses (`addr`, `lanes` pointing at it) of a memory instruction or atomic
/// that executed for lanes `m`. A generic access's lanes are placed in the space of its first
/// lane (recordGenericSpace).
void recordGenericSpace(const ExecCtx &ctx, WarpInstRecord &rec, uint32_t m);
inline void recordAccess(const ExecCtx &ctx, const Warp &w, const ir::Inst &in, uint32_t m,
                         WarpInstRecord &rec) {
  rec.isMemory = true;
  rec.space = in.space;
  rec.accessBytes = in.width * in.vec;
  std::memcpy(rec.addr, w.addr, sizeof w.addr);
  rec.lanes = rec.addr;
  if (in.space == ir::MemSpace::Generic)
    recordGenericSpace(ctx, rec, m);
}

/// The step of pure instruction `in` at `pc` that starts a straight-line run of pure
/// instructions (runImpl's): it executes for lanes `m`, the rest of the run (before `rpc`) for
/// the lanes of `active` their guards select (Warp::aheadN). False, with nothing done, when no
/// run follows (`in` then executes as any other instruction).
bool stepPureRun(ExecCtx &ctx, Warp &w, const ir::Inst &in, uint32_t pc, uint32_t rpc, uint32_t m,
                 uint32_t active);

/// stepWarp() of a warp whose next instruction is not a control instruction (a memory
/// instruction, or the first of a run of pure ones, most of these): the same counts, record
/// (but for the addresses of an access outside generic space: in `lanes`, the warp's own, not
/// in `addr`) and effects, without stepWarp's general loop (no stack pop, no control switch).
/// False, with nothing changed, when the warp is not simply there (not Ready, a stack entry to
/// pop, instructions executed ahead, a control instruction): stepWarp() then takes the step. True when it stepped,
/// also when the instruction faulted (ctx.faulted(): stepWarp() returns true then too).
inline bool stepPlainWarp(ExecCtx &ctx, Warp &w, WarpInstRecord &rec) {
  if (w.state != WarpState::Ready || w.stack.empty() || w.aheadN)
    return false;
  SimtEntry &top = w.stack.back();
  const uint32_t pc = top.pc, active = top.mask;
  if (pc == top.rpc || active == 0)
    return false;
  const ir::Function &fn = *w.fn;
  const ir::Inst &in = fn.code[pc];
  if (in.ctl != ir::Ctl::None)
    return false;
  const uint64_t switches = w.groupSwitches;
  const uint32_t m = active & (w.preds[in.guard] ^ in.guardXor);
  ++w.instCount;
  ++ctx.warpInsts;
  ctx.threadInsts += laneCount(active);
  rec.pc = pc;
  rec.inst = &in;
  rec.fn = &fn;
  rec.activeMask = active;
  rec.execMask = m;
  rec.cls = in.cls;
  rec.isMemory = false;
  rec.blocked = false;
  rec.callDone = false;
  top.pc = pc + 1;
  if (in.pure && stepPureRun(ctx, w, in, pc, top.rpc, m, active)) {
    rec.switched = w.groupSwitches != switches;
    return true;
  }
  if (m) {
    in.fn(ctx, w, in, m);
    if (__builtin_expect(ctx.faultKind == FaultKind::None, 1) &&
        (in.cls == ir::OpClass::Mem || in.cls == ir::OpClass::Atomic)) {
      if (__builtin_expect(in.space == ir::MemSpace::Generic, 0)) {
        recordAccess(ctx, w, in, m, rec);
      } else {
        // (the addresses stay where the handler wrote them: `addr` is not filled)
        rec.isMemory = true;
        rec.space = in.space;
        rec.accessBytes = in.width * in.vec;
        rec.lanes = w.addr;
      }
    }
  }
  rec.switched = w.groupSwitches != switches;
  return true;
}

/// Executes a call of device-runtime builtin `id` (DeviceRuntime.h) for the lanes in `mask`
/// (defined in DeviceRuntime.cpp). False after a fault.
bool deviceRuntimeCall(ExecCtx &ctx, Warp &w, const ir::Inst &in, uint32_t id,
                       const ir::CallSite &site, uint32_t mask);

// Argument access for builtins (defined in Exec.cpp): argument `a` of lane `lane` as a scalar or
// as bytes, and the return value.
uint64_t builtinArg(Warp &w, const ir::ArgCopy &a, unsigned lane);
void builtinArgBytes(Warp &w, const ir::ArgCopy &a, unsigned lane, void *out, size_t n);
void builtinReturn(Warp &w, const ir::CallSite &site, unsigned lane, uint64_t v);

} // namespace ptxsim::ptx::exec

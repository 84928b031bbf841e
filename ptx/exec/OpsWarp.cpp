// Warp-wide instructions (shfl, vote, match, redux, activemask, elect) and small miscellany.
//
// The lanes that execute a warp instruction together are the warp's active lanes (the top of
// its reconvergence stack) whose guard is true: the handler's mask. A `.sync` instruction's
// membermask names the lanes that must take part; each lane sees the executing lanes that are
// also in its membermask. A lane reading a lane that does not execute (shfl) gets that lane's
// register as it is, which PTX leaves undefined.
//
// The `.sync` forms are ir::Ctl::WarpSync instructions: under independent thread scheduling the
// interpreter first gathers the live lanes their member mask names (Exec.cpp, warpSyncArrive),
// so the handler's mask then holds all of them.

#include "ptx/exec/Numerics.h"
#include "ptx/exec/OpsCommon.h"
#include "ptx/jit/JitOps.h"

namespace ptxsim::ptx::exec {
namespace {

using ir::Inst;
using ir::OpClass;

/// Lanes taking part for lane `l`: the executing lanes in its membermask.
inline uint32_t partOf(uint32_t m, const uint64_t *mm, unsigned l) { return m & (uint32_t)mm[l]; }
inline uint32_t predBits(const Warp &w, const Inst &in) { return w.pred(in.psrc[0], in.psrcXor[0]); }

// --- shfl -----------------------------------------------------------------------------------

enum ShflMode : uint32_t { kUp, kDown, kBfly, kIdx };

/// shfl{.sync}.mode.b32 d[|p], a, b, c{, membermask}: src0 a, src1 b, src2 c; dst[0] d,
/// dst[1] p when in.flags bit0. Follows the PTX ISA pseudocode: c holds the clamp in bits 0-4
/// and the segment mask in bits 8-12; an out-of-range source lane gives the lane's own value.
void shflFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]), *c = w.src(in.src[2]);
  uint64_t out[kWarpSize];
  uint32_t inRange = 0;
  forLanes(m, [&](unsigned l) {
    int lane = (int)l;
    int bval = (int)(b[l] & 31), cval = (int)(c[l] & 31), seg = (int)((c[l] >> 8) & 31);
    int maxLane = (lane & seg) | (cval & ~seg);
    int minLane = lane & seg;
    int j;
    bool p;
    switch (in.aux) {
    case kUp: j = lane - bval; p = j >= maxLane; break;
    case kDown: j = lane + bval; p = j <= maxLane; break;
    case kBfly: j = lane ^ bval; p = j <= maxLane; break;
    default: j = minLane | (bval & ~seg); p = j <= maxLane; break;
    }
    if (!p)
      j = lane;
    out[l] = a[j];
    inRange |= uint32_t(p) << l;
  });
  uint64_t *d = w.reg(in.dst[0]);
  forLanes(m, [&](unsigned l) { d[l] = out[l]; });
  if (in.flags & 1)
    writePred(w, (uint16_t)in.dst[1], m, inRange);
}

bool lowerShfl(LowerCtx &c) {
  Mod mode = c.first({Mod::up, Mod::down, Mod::bfly, Mod::idx});
  if (mode == Mod::Count)
    return c.unsupported("mode");
  ir::Opnd a = c.src(c.op(1), ScalarType::b32);
  ir::Opnd b = c.src(c.op(2), ScalarType::b32);
  ir::Opnd cc = c.src(c.op(3), ScalarType::b32);
  // shfl.sync's membermask (operand 4): the lanes that must arrive before it executes
  bool sync = c.has(Mod::sync) && c.numOps() > 4;
  ir::Opnd mm = sync ? c.src(c.op(4), ScalarType::u32) : ir::Opnd{};
  uint32_t d;
  uint16_t p = 0;
  bool hasP = false;
  const Operand &dop = c.op(0);
  if (dop.kind == Operand::Kind::Pair) {
    d = c.dst(dop.elems[0]);
    p = c.predDst(dop.elems[1]);
    hasP = true;
  } else {
    d = c.dst(dop);
  }
  ir::Inst &in = c.emit(shflFn, OpClass::Warp);
  in.src[0] = a;
  in.src[1] = b;
  in.src[2] = cc;
  in.nsrc = 3;
  if (sync) {
    in.src[3] = mm;
    in.nsrc = 4;
    markWarpSync(in, 3);
    dropMaskDependency(in, 3);
  }
  in.dst[0] = d;
  in.dst[1] = p;
  in.ndst = hasP ? 2 : 1;
  in.flags = hasP ? 1 : 0;
  in.width = 4;
  in.aux = mode == Mod::up ? kUp : mode == Mod::down ? kDown : mode == Mod::bfly ? kBfly : kIdx;
  return true;
}

// --- vote -----------------------------------------------------------------------------------

enum VoteMode : uint32_t { kAll, kAny, kUni, kBallot };

/// vote{.sync}.mode: psrc[0] the predicate, src0 the membermask; dst[0] a predicate index
/// (all/any/uni) or a register (ballot).
void voteFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  const uint64_t *mm = w.src(in.src[0]);
  uint32_t v = predBits(w, in);
  if (in.aux == kBallot) {
    uint64_t *d = w.reg(in.dst[0]);
    forLanes(m, [&](unsigned l) { d[l] = v & partOf(m, mm, l); });
    return;
  }
  uint32_t r = 0;
  forLanes(m, [&](unsigned l) {
    uint32_t part = partOf(m, mm, l), t = v & part;
    bool x = in.aux == kAll ? t == part : in.aux == kAny ? t != 0 : (t == 0 || t == part);
    r |= uint32_t(x) << l;
  });
  writePred(w, (uint16_t)in.dst[0], m, r);
}

bool lowerVote(LowerCtx &c) {
  Mod mode = c.first({Mod::all, Mod::any, Mod::uni, Mod::ballot});
  if (mode == Mod::Count)
    return c.unsupported("mode");
  uint16_t q;
  uint32_t qx;
  c.predSrc(c.op(1), q, qx);
  ir::Opnd mm = c.numOps() > 2 ? c.src(c.op(2), ScalarType::u32) : c.constant(kFullMask);
  uint32_t d = mode == Mod::ballot ? c.dst(c.op(0)) : c.predDst(c.op(0));
  ir::Inst &in = c.emit(voteFn, OpClass::Warp);
  in.psrc[0] = q;
  in.psrcXor[0] = qx;
  in.src[0] = mm;
  in.nsrc = 1;
  in.dst[0] = d;
  in.ndst = 1;
  in.aux = mode == Mod::all ? kAll : mode == Mod::any ? kAny : mode == Mod::uni ? kUni : kBallot;
  if (c.has(Mod::sync) && c.numOps() > 2)
    markWarpSync(in, 0);
  return true;
}

// --- match ----------------------------------------------------------------------------------

/// match.any/.all.sync.type d[|p], a, membermask: src0 a, src1 membermask; dst[0] d, dst[1]
/// p when in.flags bit1; in.flags bit0: .all.
template <class T> void matchFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  const uint64_t *a = w.src(in.src[0]), *mm = w.src(in.src[1]);
  uint64_t out[kWarpSize];
  uint32_t pv = 0;
  bool all = in.flags & 1;
  forLanes(m, [&](unsigned l) {
    uint32_t part = partOf(m, mm, l), same = 0;
    T x = (T)a[l];
    forLanes(part, [&](unsigned k) { same |= uint32_t((T)a[k] == x) << k; });
    if (all) {
      bool eq = same == part;
      out[l] = eq ? part : 0;
      pv |= uint32_t(eq) << l;
    } else {
      out[l] = same;
    }
  });
  uint64_t *d = w.reg(in.dst[0]);
  forLanes(m, [&](unsigned l) { d[l] = out[l]; });
  if (in.flags & 2)
    writePred(w, (uint16_t)in.dst[1], m, pv);
}

bool lowerMatch(LowerCtx &c) {
  bool all = c.has(Mod::all);
  ScalarType t = c.type();
  unsigned bits = typeBits(t);
  if (bits != 32 && bits != 64)
    return c.unsupported("type");
  ir::Opnd a = c.src(c.op(1), t);
  ir::Opnd mm = c.src(c.op(2), ScalarType::u32);
  const Operand &dop = c.op(0);
  uint32_t d;
  uint16_t p = 0;
  bool hasP = false;
  if (dop.kind == Operand::Kind::Pair) {
    d = c.dst(dop.elems[0]);
    p = c.predDst(dop.elems[1]);
    hasP = true;
  } else {
    d = c.dst(dop);
  }
  ir::Inst &in = c.emit(bits == 32 ? matchFn<uint32_t> : matchFn<uint64_t>, OpClass::Warp);
  in.src[0] = a;
  in.src[1] = mm;
  in.nsrc = 2;
  in.dst[0] = d;
  in.dst[1] = p;
  in.ndst = hasP ? 2 : 1;
  in.flags = uint8_t((all ? 1 : 0) | (hasP ? 2 : 0));
  in.width = (uint8_t)(bits / 8);
  markWarpSync(in, 1);
  return true;
}

// --- redux ----------------------------------------------------------------------------------

struct RAdd { template <class T> static T f(T a, T b) { return T(a + b); } };
struct RMin { template <class T> static T f(T a, T b) { return b < a ? b : a; } };
struct RMax { template <class T> static T f(T a, T b) { return b > a ? b : a; } };
struct RAnd { template <class T> static T f(T a, T b) { return T(a & b); } };
struct ROr { template <class T> static T f(T a, T b) { return T(a | b); } };
struct RXor { template <class T> static T f(T a, T b) { return T(a ^ b); } };

/// redux.sync.op.type d, a, membermask: src0 a, src1 membermask. Every lane reduces over its
/// participants (lanes sharing a membermask get the same value).
template <class T, class Op> void reduxFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  const uint64_t *a = w.src(in.src[0]), *mm = w.src(in.src[1]);
  uint64_t out[kWarpSize];
  uint32_t lastPart = 0;
  uint64_t lastVal = 0;
  forLanes(m, [&](unsigned l) {
    uint32_t part = partOf(m, mm, l);
    if (part != lastPart || !part) {
      bool first = true;
      T acc = T(0);
      forLanes(part, [&](unsigned k) {
        T x = (T)a[k];
        acc = first ? x : Op::f(acc, x);
        first = false;
      });
      lastPart = part;
      lastVal = toBits(acc);
    }
    out[l] = lastVal;
  });
  uint64_t *d = w.reg(in.dst[0]);
  forLanes(m, [&](unsigned l) { d[l] = out[l]; });
}

/// redux.sync.min/max{.abs}{.NaN}.f32: in.flags bit0 .max, bit1 .abs, bit2 .NaN.
void reduxF32Fn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  const uint64_t *a = w.src(in.src[0]), *mm = w.src(in.src[1]);
  bool mx = in.flags & 1, ab = in.flags & 2, nan = in.flags & 4;
  uint64_t out[kWarpSize];
  forLanes(m, [&](unsigned l) {
    bool first = true;
    float acc = 0.0f;
    forLanes(partOf(m, mm, l), [&](unsigned k) {
      float x = f32OfBits((uint32_t)a[k]);
      if (ab)
        x = absF32(x);
      if (first)
        acc = x;
      else if (nan)
        acc = mx ? maxNaNF32(acc, x) : minNaNF32(acc, x);
      else
        acc = mx ? maxF32(acc, x) : minF32(acc, x);
      first = false;
    });
    if (nan && acc != acc)
      acc = f32OfBits(kCanonicalNaNF32);
    out[l] = bitsOfF32(acc);
  });
  uint64_t *d = w.reg(in.dst[0]);
  forLanes(m, [&](unsigned l) { d[l] = out[l]; });
}

template <class Op> ir::ExecFn reduxByType(ScalarType t) {
  switch (t) {
  case ScalarType::u32: case ScalarType::b32: return reduxFn<uint32_t, Op>;
  case ScalarType::s32: return reduxFn<int32_t, Op>;
  default: return nullptr;
  }
}

bool lowerRedux(LowerCtx &c) {
  Mod op = c.first({Mod::add, Mod::min, Mod::max, Mod::and_, Mod::or_, Mod::xor_});
  ScalarType t = c.type();
  ir::ExecFn fn = nullptr;
  uint8_t flags = 0;
  if (t == ScalarType::f32) {
    if (op != Mod::min && op != Mod::max)
      return c.unsupported("operation");
    fn = reduxF32Fn;
    flags = uint8_t((op == Mod::max ? 1 : 0) | (c.has(Mod::abs) ? 2 : 0) | (c.has(Mod::NaN) ? 4 : 0));
  } else {
    switch (op) {
    case Mod::add: fn = reduxByType<RAdd>(t); break;
    case Mod::min: fn = reduxByType<RMin>(t); break;
    case Mod::max: fn = reduxByType<RMax>(t); break;
    case Mod::and_: fn = reduxByType<RAnd>(t); break;
    case Mod::or_: fn = reduxByType<ROr>(t); break;
    case Mod::xor_: fn = reduxByType<RXor>(t); break;
    default: break;
    }
  }
  if (!fn)
    return c.unsupported("type");
  ir::Opnd a = c.src(c.op(1), t);
  ir::Opnd mm = c.src(c.op(2), ScalarType::u32);
  uint32_t d = c.dst(c.op(0));
  ir::Inst &in = c.emit(fn, OpClass::Warp);
  in.src[0] = a;
  in.src[1] = mm;
  in.nsrc = 2;
  in.dst[0] = d;
  in.ndst = 1;
  in.flags = flags;
  in.width = 4;
  markWarpSync(in, 1);
  return true;
}

// --- activemask, elect ----------------------------------------------------------------------

/// activemask.b32 d: the warp's active lanes (guarded-off lanes are active too).
void activemaskFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint32_t active = w.stack.empty() ? m : w.stack.back().mask;
  uint64_t *d = w.reg(in.dst[0]);
  forLanes(m, [&](unsigned l) { d[l] = active; });
}

/// elect.sync d|p, membermask: the lowest participating lane is the leader; d gets its lane
/// id, p is true in the leader only.
void electFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  const uint64_t *mm = w.src(in.src[0]);
  uint64_t *d = w.reg(in.dst[0]);
  uint32_t pv = 0;
  uint64_t out[kWarpSize];
  forLanes(m, [&](unsigned l) {
    uint32_t part = partOf(m, mm, l);
    unsigned leader = part ? (unsigned)__builtin_ctz(part) : l;
    out[l] = leader;
    pv |= uint32_t(leader == l) << l;
  });
  forLanes(m, [&](unsigned l) { d[l] = out[l]; });
  writePred(w, (uint16_t)in.dst[1], m, pv);
}

bool lowerElect(LowerCtx &c) {
  ir::Opnd mm = c.src(c.op(1), ScalarType::u32);
  const Operand &dop = c.op(0);
  uint32_t d;
  uint16_t p;
  if (dop.kind == Operand::Kind::Pair) {
    d = c.dst(dop.elems[0]);
    p = c.predDst(dop.elems[1]);
  } else {
    d = c.dst(dop);
    p = c.predDst(Operand{}); // no predicate named: a scratch one
  }
  ir::Inst &in = c.emit(electFn, OpClass::Warp);
  in.src[0] = mm;
  in.nsrc = 1;
  in.dst[0] = d;
  in.dst[1] = p;
  in.ndst = 2;
  markWarpSync(in, 0);
  return true;
}

// --- miscellany -------------------------------------------------------------------------------

/// fns.b32 d, mask, base, offset: the position of the |offset|-th set bit of mask counting from
/// base upwards (offset > 0) or downwards (offset < 0); offset 0 tests bit base itself;
/// 0xffffffff when there is none.
uint32_t findNthSet(uint32_t mask, uint32_t base, int32_t offset) {
  if (base > 31)
    return ~0u;
  if (offset == 0)
    return (mask >> base) & 1 ? base : ~0u;
  int inc = offset > 0 ? 1 : -1;
  int64_t count = (offset > 0 ? (int64_t)offset : -(int64_t)offset) - 1;
  for (int pos = (int)base; pos >= 0 && pos < 32; pos += inc) {
    if ((mask >> pos) & 1) {
      if (count == 0)
        return (uint32_t)pos;
      --count;
    }
  }
  return ~0u;
}

void fnsFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]), *c = w.src(in.src[2]);
  uint64_t *d = w.reg(in.dst[0]);
  forLanes(m, [&](unsigned l) { d[l] = findNthSet((uint32_t)a[l], (uint32_t)b[l], (int32_t)c[l]); });
}

void zeroFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  forLanes(m, [&](unsigned l) { d[l] = 0; });
}

void nopFn(ExecCtx &, Warp &, const Inst &, uint32_t) {}

/// Instructions with no functional effect in this model (cache hints, dependent-launch
/// control with launches that run in order, register-budget changes).
bool lowerNop(LowerCtx &c) {
  c.emit(nopFn, OpClass::Misc);
  return true;
}

} // namespace

void registerWarpOps() {
  // the JIT compiles these to vector code with these handlers' bits (ptx/jit/LlvmJit.cpp)
  jit::describe(shflFn, jit::Op::Shfl, jit::Type::U64);
  jit::describe(voteFn, jit::Op::Vote, jit::Type::U32);
  jit::describe(activemaskFn, jit::Op::ActiveMask, jit::Type::U32);
  registerLowering("shfl", lowerShfl);
  registerLowering("vote", lowerVote);
  registerLowering("match", lowerMatch);
  registerLowering("redux", lowerRedux);
  registerLowering("activemask", [](LowerCtx &c) {
    uint32_t d = c.dst(c.op(0));
    ir::Inst &in = c.emit(activemaskFn, OpClass::Warp);
    in.dst[0] = d;
    in.ndst = 1;
    return true;
  });
  registerLowering("elect", lowerElect);
}

void registerMiscOps() {
  registerLowering("fns", [](LowerCtx &c) {
    ir::Opnd a = c.src(c.op(1), ScalarType::b32), b = c.src(c.op(2), ScalarType::b32);
    ir::Opnd off = c.src(c.op(3), ScalarType::b32);
    uint32_t d = c.dst(c.op(0));
    ir::Inst &in = c.emit(fnsFn, OpClass::Alu);
    in.src[0] = a;
    in.src[1] = b;
    in.src[2] = off;
    in.nsrc = 3;
    in.dst[0] = d;
    in.ndst = 1;
    return true;
  });
  registerLowering("griddepcontrol", lowerNop);
  registerLowering("setmaxnreg", lowerNop);
  registerLowering("discard", lowerNop);
  registerLowering("applypriority", lowerNop);
  // an L2 cache policy is an opaque 64-bit value that only cache hints consume
  registerLowering("createpolicy", [](LowerCtx &c) {
    uint32_t d = c.dst(c.op(0));
    ir::Inst &in = c.emit(zeroFn, OpClass::Misc);
    in.dst[0] = d;
    in.ndst = 1;
    return true;
  });
}

} // namespace ptxsim::ptx::exec

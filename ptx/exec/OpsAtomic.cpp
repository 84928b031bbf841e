// Atomic read-modify-write instructions: atom and red.
//
// Every lane's operation is one host atomic on the translated pointer, applied in lane order.
// Global memory is shared by all host threads, and a generic address may name either global or
// shared memory, so all spaces use the same host atomics (uncontended on shared memory). The
// memory-order and scope modifiers need no handling: every operation here is sequentially
// consistent, which is at least as strong as any .sem/.scope PTX allows. 128-bit cas/exch take
// one process-wide lock instead (portable host 16-byte atomics need libatomic): they are atomic
// with respect to each other, which is how programs use them.

#include <mutex>

#include "ptx/exec/Numerics.h"
#include "ptx/exec/OpsCommon.h"
#include "ptx/exec/Schedule.h"

namespace ptxsim::ptx::exec {
namespace {

using ir::Inst;

constexpr int kSc = __ATOMIC_SEQ_CST;

/// Applies `f(old) -> new` atomically with a compare-and-swap loop; returns the old value.
template <class U, class F> U casLoop(U *p, F f) {
  U old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(p, &old, f(old), false, kSc, __ATOMIC_RELAXED))
    ;
  return old;
}

// --- operations: `U apply(U *p, U b, U c)` returns the old value ---------------------------

struct FetchAdd { template <class U> static U apply(U *p, U b, U) { return __atomic_fetch_add(p, b, kSc); } };
struct FetchAnd { template <class U> static U apply(U *p, U b, U) { return __atomic_fetch_and(p, b, kSc); } };
struct FetchOr { template <class U> static U apply(U *p, U b, U) { return __atomic_fetch_or(p, b, kSc); } };
struct FetchXor { template <class U> static U apply(U *p, U b, U) { return __atomic_fetch_xor(p, b, kSc); } };
struct Exch { template <class U> static U apply(U *p, U b, U) { return __atomic_exchange_n(p, b, kSc); } };
struct Cas {
  template <class U> static U apply(U *p, U b, U c) {
    __atomic_compare_exchange_n(p, &b, c, false, kSc, kSc);
    return b; // the old value, whether or not it matched
  }
};
/// Integer min/max: U is the signed or unsigned instruction type.
struct IMin { template <class U> static U apply(U *p, U b, U) { return casLoop(p, [b](U o) { return b < o ? b : o; }); } };
struct IMax { template <class U> static U apply(U *p, U b, U) { return casLoop(p, [b](U o) { return b > o ? b : o; }); } };
/// PTX inc/dec wrap: inc gives 0 once old >= b; dec gives b when old is 0 or above b.
struct Inc { template <class U> static U apply(U *p, U b, U) { return casLoop(p, [b](U o) { return o >= b ? U(0) : U(o + 1); }); } };
struct Dec { template <class U> static U apply(U *p, U b, U) { return casLoop(p, [b](U o) { return (o == 0 || o > b) ? b : U(o - 1); }); } };

/// Float operations on bit patterns: F::f(old, b) -> new.
template <class F> struct FloatRmw {
  template <class U> static U apply(U *p, U b, U) { return casLoop(p, [b](U o) { return (U)F::f(o, b); }); }
};
/// atom.add.f32 rounds to nearest even and flushes subnormal inputs and results (PTX ISA).
struct AddF32 {
  static uint32_t f(uint32_t a, uint32_t b) {
    return bitsOfF32(ftz32(addF32(ftz32(f32OfBits(a)), ftz32(f32OfBits(b)))));
  }
};
struct AddF64 { static uint64_t f(uint64_t a, uint64_t b) { return bitsOfF64(addF64(f64OfBits(a), f64OfBits(b))); } };
struct MinF32Op { static uint32_t f(uint32_t a, uint32_t b) { return bitsOfF32(minF32(f32OfBits(a), f32OfBits(b))); } };
struct MaxF32Op { static uint32_t f(uint32_t a, uint32_t b) { return bitsOfF32(maxF32(f32OfBits(a), f32OfBits(b))); } };
struct MinF64Op { static uint64_t f(uint64_t a, uint64_t b) { return bitsOfF64(minF64(f64OfBits(a), f64OfBits(b))); } };
struct MaxF64Op { static uint64_t f(uint64_t a, uint64_t b) { return bitsOfF64(maxF64(f64OfBits(a), f64OfBits(b))); } };
/// 16-bit float op as a function of bit patterns, and its packed x2 form.
template <uint16_t (*G)(uint16_t, uint16_t)> struct Half {
  static uint16_t f(uint16_t a, uint16_t b) { return G(a, b); }
};
template <uint16_t (*G)(uint16_t, uint16_t)> struct Half2 {
  static uint32_t f(uint32_t a, uint32_t b) {
    return packHalves(G(hiHalf(a), hiHalf(b)), G(loHalf(a), loHalf(b)));
  }
};
uint16_t addF16Rn(uint16_t a, uint16_t b) { return addF16(a, b); }
uint16_t addBF16Rn(uint16_t a, uint16_t b) { return addBF16(a, b); }

/// atom/red for element type U (the instruction's type for integer min/max, else unsigned
/// bits): in.vec elements per lane at [src0], operands src[1..vec] (cas: b = src1, c = src2),
/// old values to dst[0..vec-1] unless in.ndst is 0 (red).
template <class U, class Op> void atomFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  uint8_t *p[kWarpSize];
  unsigned n = in.vec;
  if (!resolveAddresses(ctx, w, in, m, sizeof(U) * n, sizeof(U) * n, true, p))
    return;
  const uint64_t *b[4];
  for (unsigned i = 0; i < n; ++i)
    b[i] = w.src(in.src[1 + i]);
  const uint64_t *c = (in.flags & 1) ? w.src(in.src[2]) : nullptr;
  forLanes(m, [&](unsigned l) {
    U old[4];
    for (unsigned i = 0; i < n; ++i)
      old[i] = Op::apply(reinterpret_cast<U *>(p[l]) + i, (U)b[i][l], c ? (U)c[l] : U(0));
    for (unsigned i = 0; i < in.ndst; ++i)
      w.reg(in.dst[i])[l] = toBits(old[i]);
  });
}

std::mutex &wideAtomicLock() {
  static std::mutex *m = new std::mutex; // lives as long as the process, like the engine's threads
  return *m;
}

/// atom.cas.b128 / atom.exch.b128: .b128 registers are two 64-bit slots (low half first);
/// src[1], src[2] are b's halves, src[3], src[4] c's (cas, flags bit 0), dst[0], dst[1] the
/// old value's halves.
void atom128Fn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  uint8_t *p[kWarpSize];
  if (!resolveAddresses(ctx, w, in, m, 16, 16, true, p))
    return;
  const bool cas = in.flags & 1;
  const uint64_t *bl = w.src(in.src[1]), *bh = w.src(in.src[2]);
  const uint64_t *cl = cas ? w.src(in.src[3]) : nullptr, *ch = cas ? w.src(in.src[4]) : nullptr;
  uint64_t *dl = in.ndst ? w.reg(in.dst[0]) : nullptr, *dh = in.ndst ? w.reg(in.dst[1]) : nullptr;
  std::lock_guard<std::mutex> lock(wideAtomicLock());
  forLanes(m, [&](unsigned l) {
    uint64_t old[2], nv[2];
    std::memcpy(old, p[l], 16);
    bool write = true;
    if (cas) {
      write = old[0] == bl[l] && old[1] == bh[l];
      nv[0] = cl[l], nv[1] = ch[l];
    } else {
      nv[0] = bl[l], nv[1] = bh[l];
    }
    if (write)
      std::memcpy(p[l], nv, 16);
    if (dl)
      dl[l] = old[0], dh[l] = old[1];
  });
}

/// atom{.sem}{.scope}{.space}.cas|.exch.b128 d, [a], b{, c}.
bool lowerAtom128(LowerCtx &c, Mod op, bool isRed, Space space) {
  if ((op != Mod::cas && op != Mod::exch) || isRed || c.vecWidth() != 1)
    return c.unsupported("128-bit form");
  auto half = [&](const Operand &o, ir::Opnd &lo, ir::Opnd &hi) {
    if (o.kind != Operand::Kind::Reg || c.regBits(o) != 128)
      return false;
    lo = c.src(o, ScalarType::b128);
    hi.reg = lo.reg + ir::kWarpSize;
    return true;
  };
  ir::Opnd bl, bh, cl, ch;
  if (!half(c.op(2), bl, bh) || (op == Mod::cas && !half(c.op(3), cl, ch)))
    return c.unsupported(".b128 operand");
  const Operand &dop = c.op(0);
  if (dop.kind != Operand::Kind::Reg || c.regBits(dop) != 128)
    return c.unsupported(".b128 destination");
  uint32_t d = c.dst(dop);
  ir::Inst &in = c.emitAddressed(atom128Fn, ir::OpClass::Atomic, c.op(1), space);
  in.sassSeq = uint8_t(fenceOf(c, false));
  in.src[1] = bl;
  in.src[2] = bh;
  in.src[3] = cl;
  in.src[4] = ch;
  in.nsrc = op == Mod::cas ? 5 : 3;
  in.flags = op == Mod::cas ? 1 : 0;
  in.dst[0] = d;
  in.dst[1] = d + ir::kWarpSize;
  in.ndst = 2;
  in.width = 16;
  return true;
}

template <class Op> ir::ExecFn bySize(unsigned bytes) {
  switch (bytes) {
  case 2: return atomFn<uint16_t, Op>;
  case 4: return atomFn<uint32_t, Op>;
  case 8: return atomFn<uint64_t, Op>;
  default: return nullptr;
  }
}

template <class Op> ir::ExecFn bySignedInt(ScalarType t) {
  switch (t) {
  case ScalarType::u32: return atomFn<uint32_t, Op>;
  case ScalarType::s32: return atomFn<int32_t, Op>;
  case ScalarType::u64: return atomFn<uint64_t, Op>;
  case ScalarType::s64: return atomFn<int64_t, Op>;
  default: return nullptr;
  }
}

bool isIntOrBits(ScalarType t) {
  switch (t) {
  case ScalarType::b16: case ScalarType::b32: case ScalarType::b64:
  case ScalarType::u16: case ScalarType::u32: case ScalarType::u64:
  case ScalarType::s16: case ScalarType::s32: case ScalarType::s64:
    return true;
  default:
    return false;
  }
}

/// The handler for operation `op` on type `t`, or null when the combination is not supported.
ir::ExecFn pickAtom(Mod op, ScalarType t) {
  unsigned bytes = typeBits(t) / 8;
  bool wide = bytes == 4 || bytes == 8;
  switch (op) {
  case Mod::add:
    switch (t) {
    case ScalarType::u32: case ScalarType::s32: case ScalarType::u64: case ScalarType::s64:
      return bySize<FetchAdd>(bytes);
    case ScalarType::f32: return atomFn<uint32_t, FloatRmw<AddF32>>;
    case ScalarType::f64: return atomFn<uint64_t, FloatRmw<AddF64>>;
    case ScalarType::f16: return atomFn<uint16_t, FloatRmw<Half<addF16Rn>>>;
    case ScalarType::bf16: return atomFn<uint16_t, FloatRmw<Half<addBF16Rn>>>;
    case ScalarType::f16x2: return atomFn<uint32_t, FloatRmw<Half2<addF16Rn>>>;
    case ScalarType::bf16x2: return atomFn<uint32_t, FloatRmw<Half2<addBF16Rn>>>;
    default: return nullptr;
    }
  case Mod::min:
  case Mod::max: {
    bool mx = op == Mod::max;
    switch (t) {
    case ScalarType::f32: return mx ? atomFn<uint32_t, FloatRmw<MaxF32Op>> : atomFn<uint32_t, FloatRmw<MinF32Op>>;
    case ScalarType::f64: return mx ? atomFn<uint64_t, FloatRmw<MaxF64Op>> : atomFn<uint64_t, FloatRmw<MinF64Op>>;
    case ScalarType::f16: return mx ? atomFn<uint16_t, FloatRmw<Half<maxF16>>> : atomFn<uint16_t, FloatRmw<Half<minF16>>>;
    case ScalarType::bf16: return mx ? atomFn<uint16_t, FloatRmw<Half<maxBF16>>> : atomFn<uint16_t, FloatRmw<Half<minBF16>>>;
    case ScalarType::f16x2: return mx ? atomFn<uint32_t, FloatRmw<Half2<maxF16>>> : atomFn<uint32_t, FloatRmw<Half2<minF16>>>;
    case ScalarType::bf16x2: return mx ? atomFn<uint32_t, FloatRmw<Half2<maxBF16>>> : atomFn<uint32_t, FloatRmw<Half2<minBF16>>>;
    default: return mx ? bySignedInt<IMax>(t) : bySignedInt<IMin>(t);
    }
  }
  case Mod::and_: return isIntOrBits(t) && wide ? bySize<FetchAnd>(bytes) : nullptr;
  case Mod::or_: return isIntOrBits(t) && wide ? bySize<FetchOr>(bytes) : nullptr;
  case Mod::xor_: return isIntOrBits(t) && wide ? bySize<FetchXor>(bytes) : nullptr;
  case Mod::exch:
    // exchange only moves bits, so f32/f64 spellings work too
    return wide && (isIntOrBits(t) || t == ScalarType::f32 || t == ScalarType::f64) ? bySize<Exch>(bytes) : nullptr;
  case Mod::inc: return t == ScalarType::u32 ? atomFn<uint32_t, Inc> : nullptr;
  case Mod::dec: return t == ScalarType::u32 ? atomFn<uint32_t, Dec> : nullptr;
  case Mod::cas: return isIntOrBits(t) ? bySize<Cas>(bytes) : nullptr;
  default: return nullptr;
  }
}

Space atomSpace(LowerCtx &c) {
  switch (c.first({Mod::global, Mod::shared, Mod::shared_cta, Mod::shared_cluster})) {
  case Mod::global: return Space::Global;
  case Mod::shared: case Mod::shared_cta: case Mod::shared_cluster: return Space::Shared;
  default: return Space::None;
  }
}

/// atom{.sem}{.scope}{.space}.op{.vec}.type d, [a], b{, c}   red ... [a], b
bool lowerAtom(LowerCtx &c, bool isRed) {
  if (c.has(Mod::async))
    return c.unsupported("asynchronous reduction");
  Mod op = c.first({Mod::add, Mod::inc, Mod::dec, Mod::min, Mod::max, Mod::exch, Mod::and_,
                    Mod::or_, Mod::xor_, Mod::cas});
  if (op == Mod::Count)
    return c.unsupported("operation");
  ScalarType t = c.type();
  if (t == ScalarType::b128)
    return lowerAtom128(c, op, isRed, atomSpace(c));
  ir::ExecFn fn = pickAtom(op, t);
  if (!fn)
    return c.unsupported("type");
  unsigned n = c.vecWidth();
  if (n > 4 || (n > 1 && op == Mod::cas))
    return c.unsupported("vector width");
  unsigned ai = isRed ? 0 : 1; // address operand
  const Operand &bop = c.op(ai + 1);
  ir::Opnd b[4], cc;
  if (n == 1)
    b[0] = c.src(bop, t);
  else if (bop.kind == Operand::Kind::Vector && bop.elems.size() == n)
    for (unsigned i = 0; i < n; ++i)
      b[i] = c.src(bop.elems[i], t);
  else
    return c.unsupported("vector operand");
  bool isCas = op == Mod::cas;
  if (isCas)
    cc = c.src(c.op(ai + 2), t);
  uint32_t d[4] = {0, 0, 0, 0};
  if (!isRed) {
    const Operand &dop = c.op(0);
    if (n == 1)
      d[0] = c.dst(dop);
    else if (dop.kind == Operand::Kind::Vector && dop.elems.size() == n)
      for (unsigned i = 0; i < n; ++i)
        d[i] = c.dst(dop.elems[i]);
    else
      return c.unsupported("vector destination");
  }
  ir::Inst &in = c.emitAddressed(fn, ir::OpClass::Atomic, c.op(ai), atomSpace(c));
  in.sassSeq = uint8_t(fenceOf(c, false));
  in.width = (uint8_t)(typeBits(t) / 8);
  in.vec = (uint8_t)n;
  in.ndst = isRed ? 0 : (uint8_t)n;
  for (unsigned i = 0; i < n; ++i) {
    in.dst[i] = d[i];
    in.src[1 + i] = b[i];
  }
  in.nsrc = (uint8_t)(1 + n);
  if ((t == ScalarType::f32 || t == ScalarType::f64) && (op == Mod::add || op == Mod::min || op == Mod::max))
    in.hints |= ir::Inst::kHintFloatAtomic; // timing: a CAS loop on shared memory
  if (op == Mod::add && n == 1 && typeBits(t) == 32 && isIntOrBits(t) && b[0].cst && b[0].cst[0] == 1 &&
      atomSpace(c) == Space::Shared)
    in.hints |= kHintCountingAtomic; // (cleared where the result is read: Schedule.h)
  if (isCas) {
    in.hints |= ir::Inst::kHintCas;
    in.src[2] = cc;
    in.nsrc = 3;
    in.flags = 1;
  }
  return true;
}

} // namespace

void registerAtomicOps() {
  registerLowering("atom", [](LowerCtx &c) { return lowerAtom(c, false); });
  registerLowering("red", [](LowerCtx &c) { return lowerAtom(c, true); });
}

} // namespace ptxsim::ptx::exec

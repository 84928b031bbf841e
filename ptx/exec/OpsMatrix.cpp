// Warp matrix instructions: wmma.load.{a,b,c}, wmma.store.d and wmma.mma.
//
// Fragment layout. PTX leaves the distribution of a fragment's elements over the lanes
// unspecified (a program may only apply the same operation to every element), so ptxsim uses
// the simplest one. Let the fragment's matrix be A: M x K, B: K x N or C/D: M x N, with E
// elements, and let `per` be the elements one lane holds: the registers in the brace list times
// the elements per register (two f16/bf16, four s8/u8, eight s4/u4 or 32 b1 in a .b32; one f32,
// s32, tf32 or f64).
// Slot s of lane l holds element (l * per + s) mod E of the matrix in row-major order, so when
// 32 * per > E (f16 A/B fragments of m16n16k16 hold every element twice) the matrix repeats:
// loads fill every copy, mma and store read the first. Slot s lives in register s / pack, bits
// [(s % pack) * w, (s % pack + 1) * w) for elements of w bits. In memory, sub-byte elements
// (s4/u4, b1) pack from the low bits of each byte; strides count elements.
//
// Numerics. D = A x B + C is computed per element in f32 as the products arrive in k order
// (products of f16, bf16 and tf32 values are exact in f32), then rounded to nearest even to the
// D type; tf32 inputs drop their low 13 bits; f64 uses one fused multiply-add per k in the
// instruction's rounding mode; integers sum exactly and wrap to 32 bits, or clamp with
// .satfinite; b1 adds, for each k, the bit a(i,k) xor (or and) b(k,j) (.popc).
//
// An ir::Inst has too few operand slots for eight-register fragments, so each wmma instruction's
// register lists live in a process-wide table indexed by Inst::aux. Lowering appends under a
// lock; execution reads only entries that were complete before their module finished loading.

#include "ptx/exec/MatrixMath.h"
#include "ptx/exec/Numerics.h"
#include "ptx/exec/OpsCommon.h"

#include <algorithm>
#include <cstdio>
#include <mutex>

namespace ptxsim::ptx::exec {
namespace {

using ir::Inst;

using matrix::Elem;
using matrix::elemBits;
using matrix::elemOf;

/// One fragment's registers: destinations (load, mma D) or sources (store, mma A/B/C).
struct Frag {
  uint8_t n = 0;     ///< registers in the brace list
  uint8_t bits = 0;  ///< element size
  uint8_t pack = 1;  ///< elements per register
  uint16_t per = 0;  ///< elements per lane
  uint32_t dst[8] = {};
  ir::Opnd src[8];
};

struct WmmaOp {
  // load / store
  Frag frag;
  uint16_t rows = 0, cols = 0; ///< the matrix in memory
  bool colMajor = false;
  bool hasStride = false;      ///< stride (elements) in Inst::src[1]
  char which = 'a';            ///< a, b, c (load) or d (store)
  // mma
  uint16_t m = 0, n = 0, k = 0;
  Elem ta = Elem::None, tb = Elem::None, tc = Elem::None, td = Elem::None;
  bool satfinite = false;
  bool bitAnd = false; ///< b1: .and.popc (otherwise .xor.popc)
  Rnd rnd = Rnd::RN;
  Frag a, b, c, d;
};

using WmmaTable = AppendOnlyTable<WmmaOp>;

WmmaTable &table() {
  static WmmaTable *t = new WmmaTable; // lives as long as the process: IR points into it
  return *t;
}

// --- execution -------------------------------------------------------------------------------

/// Host pointer for one element access of lane `l` at `a` (in.space's own address), or null
/// after reporting a fault.
uint8_t *elemPtr(ExecCtx &ctx, Warp &w, const Inst &in, const WmmaOp &op, unsigned l, uint64_t a,
                 unsigned bytes, bool write, unsigned row, unsigned col) {
  uint8_t *p = nullptr;
  const char *sp = "generic";
  switch (in.space) {
  case ir::MemSpace::Shared: {
    sp = "shared";
    uint64_t size = w.cta->shared.size();
    if (a <= size && size - a >= bytes)
      p = w.cta->shared.data() + a;
    break;
  }
  case ir::MemSpace::Global:
    sp = "global";
    if (!ctx.mem->inSharedWindow(a) && !ctx.mem->inLocalWindow(a))
      p = translateGeneric(ctx, w, l, a, bytes);
    break;
  default:
    p = translateGeneric(ctx, w, l, a, bytes);
    break;
  }
  bool misaligned = p && (a & (bytes - 1));
  if (p && !misaligned)
    return p;
  std::string what = std::string(misaligned ? "misaligned " : "out-of-bounds ") + sp +
                     (write ? " write" : " read") + " of " + std::to_string(bytes) +
                     " bytes at address " + hex(a) + " (wmma." + (write ? "store." : "load.") +
                     op.which + " element (" + std::to_string(row) + "," + std::to_string(col) +
                     ") of a " + std::to_string(op.rows) + "x" + std::to_string(op.cols) +
                     (op.colMajor ? " column" : " row") + "-major matrix)";
  ctx.fault(misaligned ? FaultKind::Misaligned : FaultKind::OutOfBounds, w, in, l, what);
  return nullptr;
}

/// Element offset of (row, col) in memory.
inline uint64_t elemIndex(const WmmaOp &op, uint64_t ld, unsigned row, unsigned col) {
  return op.colMajor ? (uint64_t)col * ld + row : (uint64_t)row * ld + col;
}

inline uint64_t leadingDim(const WmmaOp &op, const uint64_t *stride, unsigned l) {
  return stride ? (uint32_t)stride[l] : op.colMajor ? op.rows : op.cols;
}

inline uint64_t elemMask(unsigned bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

/// Bits of slot `s` of lane `l` of a source fragment.
inline uint64_t readSlot(const Warp &w, const Frag &f, unsigned l, unsigned s) {
  uint64_t r = w.src(f.src[s / f.pack])[l];
  return (r >> ((s % f.pack) * f.bits)) & elemMask(f.bits);
}

/// Bytes one memory access of an element covers (one byte holds several sub-byte elements).
inline unsigned accessBytes(const Frag &f) { return f.bits < 8 ? 1 : f.bits / 8; }

/// Reads the first copy of every element of a fragment holding `count` elements.
void gather(const Warp &w, const Frag &f, unsigned count, uint64_t *out) {
  for (unsigned e = 0; e < count; ++e)
    out[e] = readSlot(w, f, e / f.per, e % f.per);
}

/// Writes a destination fragment from its `count` elements (every copy).
void scatter(Warp &w, const Frag &f, unsigned count, const uint64_t *elems) {
  uint64_t regs[8][kWarpSize] = {};
  for (unsigned l = 0; l < kWarpSize; ++l)
    for (unsigned s = 0; s < f.per; ++s)
      regs[s / f.pack][l] |= elems[(l * f.per + s) % count] << ((s % f.pack) * f.bits);
  for (unsigned j = 0; j < f.n; ++j) {
    uint64_t *d = w.reg(f.dst[j]);
    for (unsigned l = 0; l < kWarpSize; ++l)
      d[l] = regs[j][l];
  }
}

void wmmaLoadFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  if (!requireFullWarp(ctx, w, in, m, "wmma.load"))
    return;
  const WmmaOp &op = table().at(in.aux);
  const Frag &f = op.frag;
  computeAddresses(w, in, m);
  const uint64_t *stride = op.hasStride ? w.src(in.src[1]) : nullptr;
  unsigned count = op.rows * op.cols;
  // every register is read before any is written: a destination may be the address register
  uint64_t regs[8][kWarpSize] = {};
  for (unsigned l = 0; l < kWarpSize; ++l) {
    uint64_t ld = leadingDim(op, stride, l);
    for (unsigned s = 0; s < f.per; ++s) {
      unsigned e = (l * f.per + s) % count;
      unsigned row = e / op.cols, col = e % op.cols;
      uint64_t bit = elemIndex(op, ld, row, col) * f.bits;
      const uint8_t *p = elemPtr(ctx, w, in, op, l, w.addr[l] + bit / 8, accessBytes(f), false, row, col);
      if (!p)
        return;
      uint64_t v = 0;
      std::memcpy(&v, p, accessBytes(f));
      if (f.bits < 8)
        v = (v >> (bit % 8)) & elemMask(f.bits);
      regs[s / f.pack][l] |= v << ((s % f.pack) * f.bits);
    }
  }
  for (unsigned j = 0; j < f.n; ++j) {
    uint64_t *d = w.reg(f.dst[j]);
    for (unsigned l = 0; l < kWarpSize; ++l)
      d[l] = regs[j][l];
  }
}

void wmmaStoreFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  if (!requireFullWarp(ctx, w, in, m, "wmma.store"))
    return;
  const WmmaOp &op = table().at(in.aux);
  const Frag &f = op.frag;
  computeAddresses(w, in, m);
  const uint64_t *stride = op.hasStride ? w.src(in.src[1]) : nullptr;
  unsigned count = op.rows * op.cols;
  // each element is written by the lane holding its first copy, at that lane's address
  for (unsigned e = 0; e < count; ++e) {
    unsigned l = e / f.per, row = e / op.cols, col = e % op.cols;
    uint64_t a = w.addr[l] + elemIndex(op, leadingDim(op, stride, l), row, col) * (f.bits / 8);
    uint8_t *p = elemPtr(ctx, w, in, op, l, a, f.bits / 8, true, row, col); // D: 16 bits or more
    if (!p)
      return;
    uint64_t v = readSlot(w, f, l, e % f.per);
    std::memcpy(p, &v, f.bits / 8);
  }
}

void wmmaMmaFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  if (!requireFullWarp(ctx, w, in, m, "wmma.mma"))
    return;
  const WmmaOp &op = table().at(in.aux);
  const unsigned M = op.m, N = op.n, K = op.k;
  uint64_t a[matrix::kMaxA], b[matrix::kMaxB], c[matrix::kMaxC], d[matrix::kMaxC];
  gather(w, op.a, M * K, a);
  gather(w, op.b, K * N, b);
  gather(w, op.c, M * N, c);
  matrix::mulAdd({op.m, op.n, op.k, op.ta, op.tb, op.tc, op.td, op.satfinite, op.bitAnd, op.rnd},
                 a, b, c, d);
  scatter(w, op.d, M * N, d);
}

// --- lowering --------------------------------------------------------------------------------

bool shapeOf(LowerCtx &c, uint16_t &m, uint16_t &n, uint16_t &k) {
  switch (c.first({Mod::m16n16k16, Mod::m32n8k16, Mod::m8n32k16, Mod::m16n16k8, Mod::m8n8k4,
                   Mod::m8n8k32, Mod::m8n8k128})) {
  case Mod::m16n16k16: m = 16, n = 16, k = 16; return true;
  case Mod::m32n8k16: m = 32, n = 8, k = 16; return true;
  case Mod::m8n32k16: m = 8, n = 32, k = 16; return true;
  case Mod::m16n16k8: m = 16, n = 16, k = 8; return true;
  case Mod::m8n8k4: m = 8, n = 8, k = 4; return true;
  case Mod::m8n8k32: m = 8, n = 8, k = 32; return true;
  case Mod::m8n8k128: m = 8, n = 8, k = 128; return true;
  default: return false;
  }
}

/// Sets up a fragment of element type `t` from a brace-list operand, checking that it can hold
/// `count` elements.
bool fragOf(LowerCtx &c, const Operand &o, Elem t, unsigned count, bool isDst, Frag &f) {
  if (o.kind != Operand::Kind::Vector || o.elems.empty() || o.elems.size() > 8)
    return c.unsupported("fragment of " + std::to_string(o.elems.size()) + " registers");
  f.n = (uint8_t)o.elems.size();
  f.bits = (uint8_t)elemBits(t);
  f.pack = (uint8_t)std::max(1u, 32u / f.bits);
  f.per = (uint16_t)(f.n * f.pack);
  if (kWarpSize * f.per < count)
    return c.unsupported("fragment of " + std::to_string(f.n) + " registers for " +
                         std::to_string(count) + " elements");
  ScalarType rt = t == Elem::F64 ? ScalarType::f64
                : t == Elem::F32 ? ScalarType::f32
                : t == Elem::S32 ? ScalarType::s32
                                 : ScalarType::b32;
  for (unsigned i = 0; i < f.n; ++i) {
    if (isDst)
      f.dst[i] = c.dst(o.elems[i]);
    else
      f.src[i] = c.src(o.elems[i], rt);
  }
  return true;
}

Space wmmaSpace(LowerCtx &c) {
  switch (c.first({Mod::global, Mod::shared, Mod::shared_cta})) {
  case Mod::global: return Space::Global;
  case Mod::shared: case Mod::shared_cta: return Space::Shared;
  default: return Space::None;
  }
}

/// wmma.load.{a,b,c} d, [addr]{, stride} and wmma.store.d [addr], s{, stride}.
bool lowerLoadStore(LowerCtx &c, bool store) {
  WmmaOp op;
  uint16_t M, N, K;
  if (!shapeOf(c, M, N, K))
    return c.unsupported("shape");
  Mod which = store ? Mod::d : c.first({Mod::a, Mod::b, Mod::c});
  op.which = which == Mod::a ? 'a' : which == Mod::b ? 'b' : which == Mod::c ? 'c' : 'd';
  Elem t = elemOf(c.type());
  bool isAB = op.which == 'a' || op.which == 'b';
  bool ok = isAB ? (t == Elem::F16 || t == Elem::BF16 || t == Elem::S8 || t == Elem::U8 ||
                    t == Elem::TF32 || t == Elem::F64 || t == Elem::S4 || t == Elem::U4 ||
                    t == Elem::B1)
                 : (t == Elem::F16 || t == Elem::F32 || t == Elem::S32 || t == Elem::F64);
  if (!ok)
    return c.unsupported("element type");
  op.rows = op.which == 'b' ? K : M;
  op.cols = op.which == 'a' ? K : N;
  op.colMajor = c.has(Mod::col);
  const unsigned fragOp = store ? 1 : 0, addrOp = store ? 0 : 1;
  if (!fragOf(c, c.op(fragOp), t, op.rows * op.cols, !store, op.frag))
    return false;
  ir::Opnd stride;
  if (c.numOps() > 2) {
    op.hasStride = true;
    stride = c.src(c.op(2), ScalarType::u32);
  }
  ir::Inst tmp;
  c.address(c.op(addrOp), wmmaSpace(c), tmp);
  uint32_t idx = table().add(op);
  if (idx == WmmaTable::kFull)
    return c.unsupported("more wmma instructions than the simulator's table holds");
  ir::Inst &in = c.emit(store ? wmmaStoreFn : wmmaLoadFn, ir::OpClass::Mem);
  LowerCtx::copyAddress(in, tmp);
  in.src[1] = stride;
  in.nsrc = op.hasStride ? 2 : 1;
  in.width = accessBytes(op.frag);
  in.vec = 1;
  in.aux = idx;
  return true;
}

/// wmma.mma d, a, b, c.
bool lowerMma(LowerCtx &c) {
  WmmaOp op;
  if (!shapeOf(c, op.m, op.n, op.k))
    return c.unsupported("shape");
  op.bitAnd = c.has(Mod::and_);
  if (c.ai().numTypes == 2) { // .dtype .ctype with f16 inputs
    op.td = elemOf(c.type(0));
    op.tc = elemOf(c.type(1));
    op.ta = op.tb = Elem::F16;
  } else {
    op.td = elemOf(c.type(0));
    op.ta = elemOf(c.type(1));
    op.tb = elemOf(c.type(2));
    op.tc = elemOf(c.type(3));
  }
  bool fl = op.ta == Elem::F16 || op.ta == Elem::BF16 || op.ta == Elem::TF32;
  bool in8 = op.ta == Elem::S8 || op.ta == Elem::U8;
  bool in4 = op.ta == Elem::S4 || op.ta == Elem::U4;
  bool i32 = op.td == Elem::S32 && op.tc == Elem::S32;
  bool bitOp = c.has(Mod::xor_) || c.has(Mod::and_);
  bool ok = (fl && (op.td == Elem::F16 || op.td == Elem::F32) &&
             (op.tc == Elem::F16 || op.tc == Elem::F32)) ||
            (in8 && (op.tb == Elem::S8 || op.tb == Elem::U8) && i32) ||
            (in4 && (op.tb == Elem::S4 || op.tb == Elem::U4) && i32) ||
            (op.ta == Elem::B1 && op.tb == Elem::B1 && i32 && bitOp && c.has(Mod::popc)) ||
            (op.ta == Elem::F64 && op.tb == Elem::F64 && op.td == Elem::F64 && op.tc == Elem::F64);
  if (!ok || (fl && op.tb != op.ta) || (bitOp && op.ta != Elem::B1))
    return c.unsupported("type combination");
  op.satfinite = c.has(Mod::satfinite);
  switch (c.first({Mod::rn, Mod::rz, Mod::rm, Mod::rp})) {
  case Mod::rz: op.rnd = Rnd::RZ; break;
  case Mod::rm: op.rnd = Rnd::RM; break;
  case Mod::rp: op.rnd = Rnd::RP; break;
  default: op.rnd = Rnd::RN; break;
  }
  if (!fragOf(c, c.op(0), op.td, op.m * op.n, true, op.d) ||
      !fragOf(c, c.op(1), op.ta, op.m * op.k, false, op.a) ||
      !fragOf(c, c.op(2), op.tb, op.k * op.n, false, op.b) ||
      !fragOf(c, c.op(3), op.tc, op.m * op.n, false, op.c))
    return false;
  uint32_t idx = table().add(op);
  if (idx == WmmaTable::kFull)
    return c.unsupported("more wmma instructions than the simulator's table holds");
  ir::OpClass cls = ir::OpClass::Tensor; // every matrix multiply-accumulate runs on the tensor pipe
  ir::Inst &in = c.emit(wmmaMmaFn, cls);
  in.aux = idx;
  return true;
}

bool lowerWmma(LowerCtx &c) {
  if (c.has(Mod::load))
    return lowerLoadStore(c, false);
  if (c.has(Mod::store))
    return lowerLoadStore(c, true);
  if (c.has(Mod::mma))
    return lowerMma(c);
  return c.unsupported("form");
}

} // namespace

void registerMatrixOps() { registerLowering("wmma", lowerWmma); }

} // namespace ptxsim::ptx::exec

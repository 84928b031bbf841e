// Warp-level matrix instructions with PTX-defined fragment layouts: mma.sync (dense shapes),
// ldmatrix, stmatrix and movmatrix.
//
// Fragment layouts. Unlike wmma, the PTX ISA manual fixes which lane holds which element
// (sections "Matrix Fragments for mma.mMnNkK"). With groupID = lane >> 2, tig = lane % 4 and
// p = elements per 32-bit register (2 for f16/bf16, 4 for 8-bit types, 8 for s4/u4, 32 for b1,
// 1 for tf32 and f64), the
// per-shape formulas of every shape implemented here collapse to
//   A (M x K):   element i at row groupID + 8 * ((i / p) % 2),
//                               col tig * p + i % p + 4p * (i / 2p)
//   B (K x N):   element i at row tig * p + i % p + 4p * (i / p), col groupID
//   C/D (M x N): element i at row groupID + 8 * (i / 2), col tig * 2 + i % 2
// (the m8n8 shapes only use the first p elements of A and 2 of C/D, so their rows stay below
// 8). Element i lives in register i / p at bits [(i % p) * w, (i % p + 1) * w): a0 is the low
// half of the first .f16x2 register. tests/unit/ExecMmaTest.cpp checks this against the manual's
// per-shape formulas, written out separately.
//
// Numerics of mma. D = A x B + C. f16, bf16, tf32, e4m3 and e5m2 products are exact in f32;
// each D element is C converted to f32 plus the products added one at a time in k order, each
// addition rounded to nearest even in f32, then rounded once to nearest even to the D type (f16
// D) or kept (f32 D). tf32 inputs drop their low 13 bits. Hardware adds groups of products with
// wider internal precision, so sums that round differ in the last bits; exact sums agree. f64
// uses one fused multiply-add per k (round to nearest even). s8/u8/s4/u4 sum exactly and wrap to
// 32 bits, or clamp to the s32 range with .satfinite. b1 adds, for each k, the bit a(i,k) and (or
// xor) b(k,j) (.popc).
//
// ldmatrix/stmatrix: lanes 0-7 give the row addresses of matrix 0, 8-15 of matrix 1 (.x2, .x4)
// and so on; each row is 16 bytes (eight b16 elements) of shared memory, 16-byte aligned. Lane l
// holds elements (l / 4, 2 * (l % 4) + {0, 1}) of each matrix, matrix j in register j; .trans
// reads (writes) memory row c as matrix column c. Addresses of the other lanes are ignored; a
// generic address outside the shared window faults. movmatrix.trans: lane l's result holds
// elements (l / 4, 2 * (l % 4) + {0, 1}) of the transpose of the matrix held in that layout.
//
// Every instruction here is .sync.aligned: all 32 lanes of the warp execute it together, or the
// kernel faults naming the lanes that did.
//
// An ir::Inst has too few operand slots for mma's A, B and C fragments, so mma register lists
// live in a process-wide append-only table indexed by Inst::aux (as wmma's do).

#include "ptx/exec/MatrixMath.h"
#include "ptx/exec/Numerics.h"
#include "ptx/exec/OpsCommon.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <mutex>

namespace ptxsim::ptx::exec {
namespace {

using ir::Inst;

using matrix::Elem;
using matrix::elemBits;
using matrix::elemOf;

/// One fragment: its registers and how elements pack into them.
struct Frag {
  uint8_t n = 0;    ///< registers
  uint8_t bits = 0; ///< element width
  uint8_t pack = 1; ///< elements per register (p)
  uint32_t dst[4] = {};
  ir::Opnd src[8];
};

struct MmaOp {
  uint16_t m = 0, n = 0, k = 0;
  Elem ta = Elem::None, tb = Elem::None, tc = Elem::None, td = Elem::None;
  bool satfinite = false;
  bool bitAnd = false; ///< b1: .and.popc (otherwise .xor.popc)
  Frag a, b, c, d;
};

using MmaTable = AppendOnlyTable<MmaOp>;

MmaTable &table() {
  static MmaTable *t = new MmaTable; // lives as long as the process: IR points into it
  return *t;
}

// --- fragment layouts ------------------------------------------------------------------------

struct Pos {
  unsigned row, col;
};

inline Pos posA(unsigned lane, unsigned i, unsigned p) {
  unsigned g = lane >> 2, t = lane & 3;
  return {g + 8 * ((i / p) & 1), t * p + i % p + 4 * p * (i / (2 * p))};
}
inline Pos posB(unsigned lane, unsigned i, unsigned p) {
  unsigned g = lane >> 2, t = lane & 3;
  return {t * p + i % p + 4 * p * (i / p), g};
}
inline Pos posC(unsigned lane, unsigned i) {
  unsigned g = lane >> 2, t = lane & 3;
  return {g + 8 * (i >> 1), t * 2 + (i & 1)};
}

// --- execution -------------------------------------------------------------------------------

inline uint64_t elemMask(unsigned bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

/// Element i of lane l of a source fragment.
inline uint64_t readElem(const Warp &w, const Frag &f, unsigned l, unsigned i) {
  uint64_t r = w.src(f.src[i / f.pack])[l];
  return (r >> ((i % f.pack) * f.bits)) & elemMask(f.bits);
}

void mmaFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  if (!requireFullWarp(ctx, w, in, m, "mma"))
    return;
  const MmaOp &op = table().at(in.aux);
  const unsigned N = op.n, K = op.k;
  const unsigned perA = op.a.n * op.a.pack, perB = op.b.n * op.b.pack, perC = op.c.n * op.c.pack;
  uint64_t a[matrix::kMaxA], b[matrix::kMaxB], c[matrix::kMaxC], d[matrix::kMaxC];
  for (unsigned l = 0; l < kWarpSize; ++l) {
    for (unsigned i = 0; i < perA; ++i) {
      Pos p = posA(l, i, op.a.pack);
      a[p.row * K + p.col] = readElem(w, op.a, l, i);
    }
    for (unsigned i = 0; i < perB; ++i) {
      Pos p = posB(l, i, op.b.pack);
      b[p.row * N + p.col] = readElem(w, op.b, l, i);
    }
    for (unsigned i = 0; i < perC; ++i) {
      Pos p = posC(l, i);
      c[p.row * N + p.col] = readElem(w, op.c, l, i);
    }
  }
  matrix::mulAdd({op.m, op.n, op.k, op.ta, op.tb, op.tc, op.td, op.satfinite, op.bitAnd,
                  Rnd::RN},
                 a, b, c, d);
  const Frag &f = op.d;
  for (unsigned r = 0; r < f.n; ++r) {
    uint64_t *dst = w.reg(f.dst[r]);
    for (unsigned l = 0; l < kWarpSize; ++l) {
      uint64_t v = 0;
      for (unsigned s = 0; s < f.pack; ++s) {
        Pos p = posC(l, r * f.pack + s);
        v |= d[p.row * N + p.col] << (s * f.bits);
      }
      dst[l] = v;
    }
  }
}

/// Host pointers of the 16-byte rows that lanes 0 .. 8 * nmat - 1 address. Copies those
/// addresses to the other lanes' w.addr (for timing models, which see every lane's address).
bool matrixRows(ExecCtx &ctx, Warp &w, const Inst &in, bool write, const char *what,
                uint8_t **rows) {
  unsigned nAddr = 8 * in.aux;
  uint32_t amask = nAddr >= 32 ? kFullMask : (1u << nAddr) - 1;
  computeAddresses(w, in, amask);
  if (in.space == ir::MemSpace::Generic) {
    for (unsigned l = 0; l < nAddr; ++l)
      if (!ctx.mem->inSharedWindow(w.addr[l])) {
        ctx.fault(FaultKind::OutOfBounds, w, in, l,
                  std::string(what) + " row address " + hex(w.addr[l]) + " of lane " +
                      std::to_string(l) + " is not a shared-memory address (generic " + what +
                      " addresses must point into .shared)");
        return false;
      }
  }
  if (!resolveAddresses(ctx, w, in, amask, 16, 16, write, rows))
    return false;
  for (unsigned l = nAddr; l < kWarpSize; ++l)
    w.addr[l] = w.addr[l % nAddr];
  return true;
}

inline uint16_t ld16(const uint8_t *p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

void ldmatrixFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  if (!requireFullWarp(ctx, w, in, m, "ldmatrix"))
    return;
  uint8_t *rows[kWarpSize];
  if (!matrixRows(ctx, w, in, false, "ldmatrix", rows))
    return;
  const bool trans = in.flags & 1;
  uint32_t out[4][kWarpSize];
  for (unsigned j = 0; j < in.aux; ++j)
    for (unsigned l = 0; l < kWarpSize; ++l) {
      unsigned r = l >> 2, c0 = 2 * (l & 3);
      uint16_t e0, e1;
      if (trans) { // element (r, c) is element r of memory row c
        e0 = ld16(rows[8 * j + c0] + 2 * r);
        e1 = ld16(rows[8 * j + c0 + 1] + 2 * r);
      } else {
        e0 = ld16(rows[8 * j + r] + 2 * c0);
        e1 = ld16(rows[8 * j + r] + 2 * c0 + 2);
      }
      out[j][l] = e0 | (uint32_t)e1 << 16;
    }
  for (unsigned j = 0; j < in.aux; ++j) {
    uint64_t *d = w.reg(in.dst[j]);
    for (unsigned l = 0; l < kWarpSize; ++l)
      d[l] = out[j][l];
  }
}

void stmatrixFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  if (!requireFullWarp(ctx, w, in, m, "stmatrix"))
    return;
  uint8_t *rows[kWarpSize];
  if (!matrixRows(ctx, w, in, true, "stmatrix", rows))
    return;
  const bool trans = in.flags & 1;
  for (unsigned j = 0; j < in.aux; ++j) {
    const uint64_t *s = w.src(in.src[1 + j]);
    for (unsigned l = 0; l < kWarpSize; ++l) {
      unsigned r = l >> 2, c0 = 2 * (l & 3);
      uint16_t e0 = (uint16_t)s[l], e1 = (uint16_t)(s[l] >> 16);
      if (trans) {
        std::memcpy(rows[8 * j + c0] + 2 * r, &e0, 2);
        std::memcpy(rows[8 * j + c0 + 1] + 2 * r, &e1, 2);
      } else {
        std::memcpy(rows[8 * j + r] + 2 * c0, &e0, 2);
        std::memcpy(rows[8 * j + r] + 2 * c0 + 2, &e1, 2);
      }
    }
  }
}

void movmatrixFn(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  if (!requireFullWarp(ctx, w, in, m, "movmatrix"))
    return;
  const uint64_t *a = w.src(in.src[0]);
  // element (row, col) of the source is half col % 2 of lane 4 * row + col / 2
  auto elem = [&](unsigned row, unsigned col) {
    return (uint16_t)(a[4 * row + col / 2] >> (16 * (col & 1)));
  };
  uint32_t out[kWarpSize];
  for (unsigned l = 0; l < kWarpSize; ++l) {
    unsigned r = l >> 2, c0 = 2 * (l & 3);
    out[l] = elem(c0, r) | (uint32_t)elem(c0 + 1, r) << 16;
  }
  uint64_t *d = w.reg(in.dst[0]);
  for (unsigned l = 0; l < kWarpSize; ++l)
    d[l] = out[l];
}

// --- lowering --------------------------------------------------------------------------------

/// Sets up fragment `f` of element type `t` holding `count` elements from a brace-list operand,
/// which must have exactly the registers the manual specifies.
bool fragOf(LowerCtx &c, const Operand &o, Elem t, unsigned count, bool isDst, Frag &f) {
  f.bits = (uint8_t)elemBits(t);
  f.pack = (uint8_t)std::max(1u, 32u / f.bits);
  unsigned want = count / kWarpSize / f.pack;
  unsigned have = o.kind == Operand::Kind::Vector ? (unsigned)o.elems.size() : 1;
  if (have != want || want > (isDst ? 4u : 8u))
    return c.unsupported("fragment of " + std::to_string(have) + " registers (expected " +
                         std::to_string(want) + ")");
  f.n = (uint8_t)want;
  ScalarType rt = t == Elem::F64 ? ScalarType::f64
                : t == Elem::F32 ? ScalarType::f32
                : t == Elem::S32 ? ScalarType::s32
                                 : ScalarType::b32;
  for (unsigned i = 0; i < f.n; ++i) {
    const Operand &e = o.kind == Operand::Kind::Vector ? o.elems[i] : o;
    if (isDst)
      f.dst[i] = c.dst(e);
    else
      f.src[i] = c.src(e, rt);
  }
  return true;
}

bool lowerMma(LowerCtx &c) {
  MmaOp op;
  if (c.has(Mod::sp) || c.has(Mod::sp_ordered_metadata))
    return c.unsupported("sparse mma");
  if (c.has(Mod::kind_f8f6f4))
    return c.unsupported("form");
  switch (c.first({Mod::m8n8k4, Mod::m8n8k16, Mod::m16n8k4, Mod::m16n8k8, Mod::m16n8k16,
                   Mod::m16n8k32, Mod::m8n8k32, Mod::m16n8k64, Mod::m8n8k128, Mod::m16n8k128,
                   Mod::m16n8k256})) {
  case Mod::m8n8k4: op.m = 8, op.n = 8, op.k = 4; break;
  case Mod::m8n8k16: op.m = 8, op.n = 8, op.k = 16; break;
  case Mod::m16n8k4: op.m = 16, op.n = 8, op.k = 4; break;
  case Mod::m16n8k8: op.m = 16, op.n = 8, op.k = 8; break;
  case Mod::m16n8k16: op.m = 16, op.n = 8, op.k = 16; break;
  case Mod::m16n8k32: op.m = 16, op.n = 8, op.k = 32; break;
  case Mod::m8n8k32: op.m = 8, op.n = 8, op.k = 32; break;
  case Mod::m16n8k64: op.m = 16, op.n = 8, op.k = 64; break;
  case Mod::m8n8k128: op.m = 8, op.n = 8, op.k = 128; break;
  case Mod::m16n8k128: op.m = 16, op.n = 8, op.k = 128; break;
  case Mod::m16n8k256: op.m = 16, op.n = 8, op.k = 256; break;
  default: return c.unsupported("shape");
  }
  if (c.ai().numTypes != 4)
    return c.unsupported("types");
  op.td = elemOf(c.type(0));
  op.ta = elemOf(c.type(1));
  op.tb = elemOf(c.type(2));
  op.tc = elemOf(c.type(3));
  const unsigned M = op.m, N = op.n, K = op.k;
  bool half = op.ta == Elem::F16 || op.ta == Elem::BF16;
  bool f8 = op.ta == Elem::E4M3 || op.ta == Elem::E5M2;
  bool i8 = op.ta == Elem::S8 || op.ta == Elem::U8;
  bool i4 = op.ta == Elem::S4 || op.ta == Elem::U4;
  bool bitOp = c.has(Mod::xor_) || c.has(Mod::and_);
  bool fAcc = (op.td == Elem::F16 || op.td == Elem::F32) && (op.tc == Elem::F16 || op.tc == Elem::F32);
  bool ok = false;
  if (half)
    ok = M == 16 && (K == 8 || K == 16) && op.tb == op.ta && fAcc;
  else if (op.ta == Elem::TF32)
    ok = M == 16 && (K == 4 || K == 8) && op.tb == op.ta && op.td == Elem::F32 && op.tc == Elem::F32;
  else if (f8)
    ok = M == 16 && (K == 16 || K == 32) && (op.tb == Elem::E4M3 || op.tb == Elem::E5M2) && fAcc;
  else if (op.ta == Elem::F64)
    ok = ((M == 8 && K == 4) || (M == 16 && K <= 16)) && op.tb == op.ta && op.tc == op.ta &&
         op.td == op.ta;
  else if (i8)
    ok = ((M == 8 && K == 16) || (M == 16 && (K == 16 || K == 32))) &&
         (op.tb == Elem::S8 || op.tb == Elem::U8) && op.td == Elem::S32 && op.tc == Elem::S32;
  else if (i4)
    ok = ((M == 8 && K == 32) || (M == 16 && (K == 32 || K == 64))) &&
         (op.tb == Elem::S4 || op.tb == Elem::U4) && op.td == Elem::S32 && op.tc == Elem::S32;
  else if (op.ta == Elem::B1)
    ok = ((M == 8 && K == 128) || (M == 16 && (K == 128 || K == 256))) && op.tb == Elem::B1 &&
         op.td == Elem::S32 && op.tc == Elem::S32 && bitOp && c.has(Mod::popc);
  if (bitOp != (op.ta == Elem::B1))
    ok = false;
  // m8n8k4 with f16 inputs (the sm_70 quad-pair form) has a layout of its own: not here
  if (!ok)
    return c.unsupported("type combination");
  op.satfinite = c.has(Mod::satfinite);
  op.bitAnd = c.has(Mod::and_);
  if (!fragOf(c, c.op(0), op.td, M * N, true, op.d) ||
      !fragOf(c, c.op(1), op.ta, M * K, false, op.a) ||
      !fragOf(c, c.op(2), op.tb, K * N, false, op.b) ||
      !fragOf(c, c.op(3), op.tc, M * N, false, op.c))
    return false;
  uint32_t idx = table().add(op);
  if (idx == MmaTable::kFull)
    return c.unsupported("more mma instructions than the simulator's table holds");
  ir::Inst &in = c.emit(mmaFn, ir::OpClass::Tensor);
  in.aux = idx;
  return true;
}

Space matrixSpace(LowerCtx &c) {
  return c.first({Mod::shared, Mod::shared_cta}) != Mod::Count ? Space::Shared : Space::None;
}

unsigned matrixCount(LowerCtx &c) {
  switch (c.first({Mod::x1, Mod::x2, Mod::x4})) {
  case Mod::x1: return 1;
  case Mod::x2: return 2;
  case Mod::x4: return 4;
  default: return 0;
  }
}

/// ldmatrix d, [a] and stmatrix [a], s (m8n8 .b16 only).
bool lowerLdSt(LowerCtx &c, bool store) {
  if (!c.has(Mod::m8n8) || c.type() != ScalarType::b16)
    return c.unsupported("shape or type");
  unsigned nmat = matrixCount(c);
  auto regs = vectorElements(c.op(store ? 1 : 0));
  if (!nmat || regs.size() != nmat)
    return c.unsupported("register count");
  ir::Inst tmp;
  c.address(c.op(store ? 0 : 1), matrixSpace(c), tmp);
  uint32_t dst[4] = {};
  ir::Opnd src[4];
  for (unsigned j = 0; j < nmat; ++j) {
    if (store)
      src[j] = c.src(*regs[j], ScalarType::b32);
    else
      dst[j] = c.dst(*regs[j]);
  }
  ir::Inst &in = c.emit(store ? stmatrixFn : ldmatrixFn, ir::OpClass::Mem);
  LowerCtx::copyAddress(in, tmp);
  for (unsigned j = 0; j < nmat; ++j) {
    if (store)
      in.src[1 + j] = src[j];
    else
      in.dst[j] = dst[j];
  }
  in.nsrc = (uint8_t)(1 + (store ? nmat : 0));
  in.ndst = (uint8_t)(store ? 0 : nmat);
  in.width = 16; // each addressing lane moves one 16-byte row
  in.vec = 1;
  in.flags = c.has(Mod::trans) ? 1 : 0;
  in.aux = nmat;
  return true;
}

bool lowerLdmatrix(LowerCtx &c) { return lowerLdSt(c, false); }
bool lowerStmatrix(LowerCtx &c) { return lowerLdSt(c, true); }

bool lowerMovmatrix(LowerCtx &c) {
  if (!c.has(Mod::m8n8) || !c.has(Mod::trans) || c.type() != ScalarType::b16)
    return c.unsupported("shape or type");
  ir::Opnd a = c.src(c.op(1), ScalarType::b32);
  uint32_t d = c.dst(c.op(0));
  ir::Inst &in = c.emit(movmatrixFn, ir::OpClass::Warp);
  in.dst[0] = d;
  in.ndst = 1;
  in.src[0] = a;
  in.nsrc = 1;
  return true;
}

} // namespace

void registerMmaOps() {
  registerLowering("mma", lowerMma);
  registerLowering("ldmatrix", lowerLdmatrix);
  registerLowering("stmatrix", lowerStmatrix);
  registerLowering("movmatrix", lowerMovmatrix);
}

} // namespace ptxsim::ptx::exec

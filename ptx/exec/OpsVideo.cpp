// Video instructions: the scalar forms (vadd, vsub, vabsdiff, vmin, vmax, vshl, vshr, vmad,
// vset) with byte/halfword operand selectors, saturation, a secondary operation or a subword
// merge, and the SIMD forms (vadd2 ... vset2, vadd4 ... vset4) with element selectors and masks.
//
// Semantics follow the PTX ISA pseudocode literally: scalar sources are extracted and sign- or
// zero-extended per their own type, the primary operation is exact (no wrap before
// saturation), saturation clamps to the destination (sub)word, the secondary operation sees the
// exact (saturated) value and `c` extended per the destination type, and the low 32 bits are
// written. vmad with a negated operand (`-a`) is not parsed, so only the positive forms exist.
// Where the hardware departs from that text it wins (vmad: see vmadFn).

#include "ptx/exec/OpsCommon.h"

namespace ptxsim::ptx::exec {
namespace {

using ir::Inst;
using i128 = __int128;

enum class VOp : uint8_t { Add, Sub, Absdiff, Min, Max, Shl, Shr, Set, Avrg };
enum : unsigned { kCmpEq, kCmpNe, kCmpLt, kCmpLe, kCmpGt, kCmpGe };

bool compare(int64_t a, int64_t b, unsigned cmp) {
  switch (cmp) {
  case kCmpEq: return a == b;
  case kCmpNe: return a != b;
  case kCmpLt: return a < b;
  case kCmpLe: return a <= b;
  case kCmpGt: return a > b;
  default: return a >= b;
  }
}

i128 clamp(i128 v, i128 lo, i128 hi) { return v < lo ? lo : v > hi ? hi : v; }

// Selectors as the parser stores them (Operand::sel): digit i as written at bits 3i.
unsigned selCount(uint16_t s) { return (s >> 12) & 7u; }
unsigned selDigit(uint16_t s, unsigned i) { return (s >> (3 * i)) & 7u; }
bool selHalf(uint16_t s) { return s & 0x8000; }

// --- scalar ------------------------------------------------------------------------------------

/// Scalar part selector: 0 whole word, 1-4 byte 0-3, 5-6 halfword 0-1.
bool scalarSel(uint16_t s, unsigned &code) {
  code = 0;
  if (!s)
    return true;
  if (selCount(s) != 1)
    return false;
  unsigned d = selDigit(s, 0);
  if (selHalf(s)) {
    code = 5 + d;
    return d < 2;
  }
  code = 1 + d;
  return d < 4;
}

int64_t partSelect(uint32_t x, bool sgn, unsigned code) {
  if (code == 0)
    return sgn ? (int64_t)(int32_t)x : (int64_t)x;
  if (code <= 4) {
    uint32_t b = (x >> (8 * (code - 1))) & 0xffu;
    return sgn ? (int64_t)(int8_t)b : (int64_t)b;
  }
  uint32_t h = (x >> (16 * (code - 5))) & 0xffffu;
  return sgn ? (int64_t)(int16_t)h : (int64_t)h;
}

/// Scalar data merge d.dsel: the selected field of d comes from the same bits of the 32-bit
/// result t (in place, not shifted), the rest from c. The PTX ISA's pseudo-code shifts the low
/// field of t into place, but an H100 (ptxas's sm_90 emulation, like the MRG_16H/MRG_8Bn
/// merges of the old video SASS) keeps the field where it is: vmin.u32.u32.u32 d.h1, a.b2,
/// b.b3, c with min = 0x7f and c = 0 gives 0 there, not 0x007f0000
/// (../shared/hw/h100/native_failures.txt). Programs see the hardware's answer, so we follow it.
uint32_t mergeInto(unsigned dsel, uint32_t t, uint32_t c) {
  uint32_t field = dsel >= 5 ? 0xffffu << (16 * (dsel - 5)) : 0xffu << (8 * (dsel - 1));
  return (t & field) | (c & ~field);
}

/// Scalar configuration in Inst::aux: bits 0-3 op, 4-6 asel, 7-9 bsel, 10-12 dsel (merge),
/// 13/14/15 a/b/d signed, 16 sat, 17-18 secondary op (0 none, 1 add, 2 min, 3 max), 19 wrap
/// (shifts), 20-22 comparison (vset).
struct ScalarCfg {
  VOp op;
  unsigned asel, bsel, dsel, op2, cmp;
  bool as, bs, ds, sat, wrap;

  uint32_t pack() const {
    return (uint32_t)op | asel << 4 | bsel << 7 | dsel << 10 | unsigned(as) << 13 |
           unsigned(bs) << 14 | unsigned(ds) << 15 | unsigned(sat) << 16 | op2 << 17 |
           unsigned(wrap) << 19 | cmp << 20;
  }
  static ScalarCfg unpack(uint32_t v) {
    ScalarCfg k;
    k.op = (VOp)(v & 15);
    k.asel = (v >> 4) & 7;
    k.bsel = (v >> 7) & 7;
    k.dsel = (v >> 10) & 7;
    k.as = (v >> 13) & 1;
    k.bs = (v >> 14) & 1;
    k.ds = (v >> 15) & 1;
    k.sat = (v >> 16) & 1;
    k.op2 = (v >> 17) & 3;
    k.wrap = (v >> 19) & 1;
    k.cmp = (v >> 20) & 7;
    return k;
  }
};

uint32_t scalarLane(const ScalarCfg &k, uint32_t a, uint32_t b, uint32_t c) {
  int64_t ta = partSelect(a, k.as, k.asel);
  int64_t tb = partSelect(b, k.bs, k.bsel); // .u32 for shifts
  i128 t;
  switch (k.op) {
  case VOp::Add: t = (i128)ta + tb; break;
  case VOp::Sub: t = (i128)ta - tb; break;
  case VOp::Absdiff: t = ta > tb ? (i128)ta - tb : (i128)tb - ta; break;
  case VOp::Min: t = ta < tb ? ta : tb; break;
  case VOp::Max: t = ta > tb ? ta : tb; break;
  case VOp::Shl:
  case VOp::Shr: {
    unsigned n = k.wrap ? unsigned(tb & 31) : unsigned(tb > 32 ? 32 : tb);
    t = k.op == VOp::Shl ? (i128)ta << n : (i128)(ta >> n);
    break;
  }
  default: t = compare(ta, tb, k.cmp) ? 1 : 0; break; // vset
  }
  if (k.sat) {
    bool byte = k.dsel >= 1 && k.dsel <= 4, half = k.dsel >= 5;
    if (k.ds)
      t = byte ? clamp(t, INT8_MIN, INT8_MAX) : half ? clamp(t, INT16_MIN, INT16_MAX)
                                                   : clamp(t, INT32_MIN, INT32_MAX);
    else
      t = clamp(t, 0, byte ? UINT8_MAX : half ? UINT16_MAX : UINT32_MAX);
  }
  i128 cv = k.ds ? (i128)(int32_t)c : (i128)c;
  switch (k.op2) {
  case 1: t = t + cv; break;
  case 2: t = t < cv ? t : cv; break;
  case 3: t = t > cv ? t : cv; break;
  default: break;
  }
  uint32_t r = (uint32_t)(uint64_t)t;
  return k.dsel ? mergeInto(k.dsel, r, c) : r;
}

void videoScalarFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  ScalarCfg k = ScalarCfg::unpack(in.aux);
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]), *c = w.src(in.src[2]);
  forLanes(m, [&](unsigned l) { d[l] = scalarLane(k, (uint32_t)a[l], (uint32_t)b[l], (uint32_t)c[l]); });
}

/// vmad: Inst::aux bits 0-2 asel, 3-5 bsel, 6/7 a/b signed, 8 sat, 9 po, 10-14 right shift.
///
/// What an H100 computes (native runs of 40 variants on 48 inputs, tools/hw probes), where it
/// departs from the PTX ISA text: c is always sign-extended; a whole-word a or b is
/// sign-extended even when its type is .u32 (byte and halfword selections follow their type);
/// with .sat and unsigned a and b, a negative sum clamps to 0 without a shift, but with .shr7 or
/// .shr15 the shifted 64-bit value is compared as unsigned (a negative one gives 0xffffffff).
void vmadFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  unsigned asel = in.aux & 7, bsel = (in.aux >> 3) & 7, shr = (in.aux >> 10) & 31;
  bool as = (in.aux >> 6) & 1, bs = (in.aux >> 7) & 1, sat = (in.aux >> 8) & 1,
       po = (in.aux >> 9) & 1;
  bool signedFinal = as || bs;
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]), *c = w.src(in.src[2]);
  forLanes(m, [&](unsigned l) {
    i128 t = (i128)partSelect((uint32_t)a[l], as || asel == 0, asel) *
             partSelect((uint32_t)b[l], bs || bsel == 0, bsel);
    t += (i128)(int32_t)(uint32_t)c[l] + (po ? 1 : 0);
    i128 s = t >> shr;
    uint64_t r = (uint64_t)s;
    if (sat) {
      if (signedFinal)
        r = (uint64_t)(int64_t)clamp(s, INT32_MIN, INT32_MAX);
      else if (shr == 0)
        r = (uint64_t)clamp(s, 0, UINT32_MAX);
      else
        r = r > UINT32_MAX ? UINT32_MAX : r;
    }
    d[l] = (uint32_t)r;
  });
}

// --- SIMD --------------------------------------------------------------------------------------

/// SIMD configuration in Inst::aux2: bits 0-3 op, 4-6 comparison, 7/8/9 a/b/d signed, 10 sat,
/// 11 accumulate (.add), 12 four bytes (else two halfwords), 16-19 destination mask. Inst::aux
/// holds the element selectors: element i of a at bits 3i, of b at 12 + 3i (sources 0-3
/// halfwords or 0-7 bytes of the pair {b, a}).
void videoSimdFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint32_t k = in.aux2;
  VOp op = (VOp)(k & 15);
  unsigned cmp = (k >> 4) & 7, mask = (k >> 16) & 15;
  bool as = (k >> 7) & 1, bs = (k >> 8) & 1, ds = (k >> 9) & 1, sat = (k >> 10) & 1,
       acc = (k >> 11) & 1, quad = (k >> 12) & 1;
  unsigned n = quad ? 4 : 2, bits = quad ? 8 : 16;
  uint32_t emask = quad ? 0xffu : 0xffffu;
  int64_t lo = ds ? (quad ? INT8_MIN : INT16_MIN) : 0;
  int64_t hi = ds ? (quad ? INT8_MAX : INT16_MAX) : (int64_t)emask;
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]), *c = w.src(in.src[2]);
  auto elem = [&](uint64_t pair, unsigned idx, bool sgn) -> int64_t {
    uint32_t v = (uint32_t)(pair >> (idx * bits)) & emask;
    if (!sgn)
      return v;
    return quad ? (int64_t)(int8_t)v : (int64_t)(int16_t)v;
  };
  forLanes(m, [&](unsigned l) {
    uint64_t pair = (uint64_t)(uint32_t)b[l] << 32 | (uint32_t)a[l];
    uint32_t cw = (uint32_t)c[l];
    uint32_t r = acc ? cw : 0;
    for (unsigned i = 0; i < n; ++i) {
      int64_t x = elem(pair, (in.aux >> (3 * i)) & 7, as);
      int64_t y = elem(pair, (in.aux >> (12 + 3 * i)) & 7, bs);
      int64_t t;
      switch (op) {
      case VOp::Add: t = x + y; break;
      case VOp::Sub: t = x - y; break;
      case VOp::Avrg: t = x + y >= 0 ? (x + y + 1) >> 1 : (x + y) >> 1; break;
      case VOp::Absdiff: t = x > y ? x - y : y - x; break;
      case VOp::Min: t = x < y ? x : y; break;
      case VOp::Max: t = x > y ? x : y; break;
      default: t = compare(x, y, cmp) ? 1 : 0; break;
      }
      if (sat)
        t = t < lo ? lo : t > hi ? hi : t;
      bool on = (mask >> i) & 1;
      if (acc)
        r += on ? (uint32_t)t : 0;
      else
        r |= (on ? (uint32_t)t & emask : (cw >> (i * bits)) & emask) << (i * bits);
    }
    d[l] = r;
  });
}

// --- lowering ----------------------------------------------------------------------------------

bool isSigned(ScalarType t) { return typeClass(t) == TypeClass::Signed; }

int vcmpCode(LowerCtx &c) {
  switch (c.first({Mod::eq, Mod::ne, Mod::lt, Mod::le, Mod::gt, Mod::ge})) {
  case Mod::eq: return kCmpEq;
  case Mod::ne: return kCmpNe;
  case Mod::lt: return kCmpLt;
  case Mod::le: return kCmpLe;
  case Mod::gt: return kCmpGt;
  case Mod::ge: return kCmpGe;
  default: return -1;
  }
}

/// vop.dtype.atype.btype{.sat}{.op2} d{.dsel}, a{.asel}, b{.bsel}{, c};
/// vset.atype.btype.cmp{.op2} d{.dsel}, a{.asel}, b{.bsel}{, c}.
bool lowerVideoScalar(LowerCtx &c, VOp op) {
  ScalarCfg k{};
  k.op = op;
  bool isSet = op == VOp::Set;
  ScalarType ta = c.type(isSet ? 0 : 1), tb = c.type(isSet ? 1 : 2);
  k.as = isSigned(ta);
  k.bs = isSigned(tb);
  k.ds = !isSet && isSigned(c.type(0));
  k.sat = c.has(Mod::sat);
  k.wrap = c.has(Mod::wrap);
  Mod op2 = c.first({Mod::add, Mod::min, Mod::max});
  k.op2 = op2 == Mod::add ? 1 : op2 == Mod::min ? 2 : op2 == Mod::max ? 3 : 0;
  if (isSet) {
    int cmp = vcmpCode(c);
    if (cmp < 0)
      return c.unsupported("comparison");
    k.cmp = (unsigned)cmp;
  }
  if (!scalarSel(c.op(1).sel, k.asel) || !scalarSel(c.op(2).sel, k.bsel) ||
      !scalarSel(c.op(0).sel, k.dsel))
    return c.unsupported("operand selector");
  bool hasC = c.numOps() > 3;
  if (hasC && c.op(3).sel)
    return c.unsupported("selector on the third source");
  if (k.dsel && (!hasC || k.op2))
    return c.unsupported("destination selector without a merge operand");
  if (!hasC && k.op2)
    return c.unsupported("secondary operation without a third source");
  ir::Opnd a = c.src(c.op(1), ScalarType::u32), b = c.src(c.op(2), ScalarType::u32);
  ir::Opnd cc = hasC ? c.src(c.op(3), ScalarType::u32) : c.constant(0);
  uint32_t d = c.dst(c.op(0));
  Inst &in = c.emit(videoScalarFn, ir::OpClass::Alu);
  in.dst[0] = d;
  in.src[0] = a;
  in.src[1] = b;
  in.src[2] = cc;
  in.aux = k.pack();
  return true;
}

bool lowerVmad(LowerCtx &c) {
  unsigned asel, bsel;
  if (!scalarSel(c.op(1).sel, asel) || !scalarSel(c.op(2).sel, bsel) || c.op(0).sel ||
      c.op(3).sel)
    return c.unsupported("operand selector");
  unsigned shr = c.has(Mod::shr7) ? 7 : c.has(Mod::shr15) ? 15 : 0;
  uint32_t aux = asel | bsel << 3 | unsigned(isSigned(c.type(1))) << 6 |
                 unsigned(isSigned(c.type(2))) << 7 | unsigned(c.has(Mod::sat)) << 8 |
                 unsigned(c.has(Mod::po)) << 9 | shr << 10;
  ir::Opnd a = c.src(c.op(1), ScalarType::u32), b = c.src(c.op(2), ScalarType::u32),
           cc = c.src(c.op(3), ScalarType::u32);
  uint32_t d = c.dst(c.op(0));
  Inst &in = c.emit(vmadFn, ir::OpClass::Mul);
  in.dst[0] = d;
  in.src[0] = a;
  in.src[1] = b;
  in.src[2] = cc;
  in.aux = aux;
  return true;
}

/// Element selector of a SIMD source: element i (lowest first) from the digit written at
/// position count-1-i; `def` when absent. Returns false for a malformed selector.
bool simdSel(uint16_t s, bool quad, uint32_t def, uint32_t &out) {
  unsigned n = quad ? 4 : 2;
  if (!s) {
    out = def;
    return true;
  }
  if (selHalf(s) == quad || selCount(s) != n)
    return false;
  out = 0;
  for (unsigned i = 0; i < n; ++i)
    out |= selDigit(s, n - 1 - i) << (3 * i);
  return true;
}

/// Destination mask of a SIMD form (`.h10`, `.b310`, ...): bit i set for each element named;
/// every element when absent.
bool simdMask(uint16_t s, bool quad, unsigned &mask) {
  unsigned n = quad ? 4 : 2;
  if (!s) {
    mask = (1u << n) - 1;
    return true;
  }
  if (selHalf(s) == quad)
    return false;
  mask = 0;
  for (unsigned i = 0; i < selCount(s); ++i) {
    unsigned e = selDigit(s, i);
    if (e >= n || (mask >> e) & 1)
      return false;
    mask |= 1u << e;
  }
  return true;
}

/// vop2/vop4.dtype.atype.btype{.sat|.add} d{.mask}, a{.asel}, b{.bsel}, c;
/// vset2/vset4.atype.btype.cmp{.add} d{.mask}, a{.asel}, b{.bsel}, c.
bool lowerVideoSimd(LowerCtx &c, VOp op, bool quad) {
  bool isSet = op == VOp::Set;
  ScalarType ta = c.type(isSet ? 0 : 1), tb = c.type(isSet ? 1 : 2);
  unsigned cmp = 0;
  if (isSet) {
    int v = vcmpCode(c);
    if (v < 0)
      return c.unsupported("comparison");
    cmp = (unsigned)v;
  }
  // defaults: a from its own elements (.h10 / .b3210), b from b's (.h32 / .b7654)
  uint32_t asel, bsel;
  unsigned mask;
  uint32_t adef = quad ? (0 | 1 << 3 | 2 << 6 | 3 << 9) : (0 | 1 << 3);
  uint32_t bdef = quad ? (4 | 5 << 3 | 6 << 6 | 7 << 9) : (2 | 3 << 3);
  if (!simdSel(c.op(1).sel, quad, adef, asel) || !simdSel(c.op(2).sel, quad, bdef, bsel) ||
      !simdMask(c.op(0).sel, quad, mask) || c.op(3).sel)
    return c.unsupported("operand selector");
  uint32_t k = (uint32_t)op | cmp << 4 | unsigned(isSigned(ta)) << 7 |
               unsigned(isSigned(tb)) << 8 | unsigned(!isSet && isSigned(c.type(0))) << 9 |
               unsigned(c.has(Mod::sat)) << 10 | unsigned(c.has(Mod::add)) << 11 |
               unsigned(quad) << 12 | mask << 16;
  ir::Opnd a = c.src(c.op(1), ScalarType::u32), b = c.src(c.op(2), ScalarType::u32),
           cc = c.src(c.op(3), ScalarType::u32);
  uint32_t d = c.dst(c.op(0));
  Inst &in = c.emit(videoSimdFn, ir::OpClass::Alu);
  in.dst[0] = d;
  in.src[0] = a;
  in.src[1] = b;
  in.src[2] = cc;
  in.aux = asel | bsel << 12;
  in.aux2 = k;
  return true;
}

} // namespace

void registerVideoOps() {
  // Lowering functions are plain pointers: one capture-free lambda per opcode.
  registerLowering("vadd", [](LowerCtx &c) { return lowerVideoScalar(c, VOp::Add); });
  registerLowering("vsub", [](LowerCtx &c) { return lowerVideoScalar(c, VOp::Sub); });
  registerLowering("vabsdiff", [](LowerCtx &c) { return lowerVideoScalar(c, VOp::Absdiff); });
  registerLowering("vmin", [](LowerCtx &c) { return lowerVideoScalar(c, VOp::Min); });
  registerLowering("vmax", [](LowerCtx &c) { return lowerVideoScalar(c, VOp::Max); });
  registerLowering("vshl", [](LowerCtx &c) { return lowerVideoScalar(c, VOp::Shl); });
  registerLowering("vshr", [](LowerCtx &c) { return lowerVideoScalar(c, VOp::Shr); });
  registerLowering("vset", [](LowerCtx &c) { return lowerVideoScalar(c, VOp::Set); });
  registerLowering("vmad", lowerVmad);
  registerLowering("vadd2", [](LowerCtx &c) { return lowerVideoSimd(c, VOp::Add, false); });
  registerLowering("vsub2", [](LowerCtx &c) { return lowerVideoSimd(c, VOp::Sub, false); });
  registerLowering("vavrg2", [](LowerCtx &c) { return lowerVideoSimd(c, VOp::Avrg, false); });
  registerLowering("vabsdiff2", [](LowerCtx &c) { return lowerVideoSimd(c, VOp::Absdiff, false); });
  registerLowering("vmin2", [](LowerCtx &c) { return lowerVideoSimd(c, VOp::Min, false); });
  registerLowering("vmax2", [](LowerCtx &c) { return lowerVideoSimd(c, VOp::Max, false); });
  registerLowering("vset2", [](LowerCtx &c) { return lowerVideoSimd(c, VOp::Set, false); });
  registerLowering("vadd4", [](LowerCtx &c) { return lowerVideoSimd(c, VOp::Add, true); });
  registerLowering("vsub4", [](LowerCtx &c) { return lowerVideoSimd(c, VOp::Sub, true); });
  registerLowering("vavrg4", [](LowerCtx &c) { return lowerVideoSimd(c, VOp::Avrg, true); });
  registerLowering("vabsdiff4", [](LowerCtx &c) { return lowerVideoSimd(c, VOp::Absdiff, true); });
  registerLowering("vmin4", [](LowerCtx &c) { return lowerVideoSimd(c, VOp::Min, true); });
  registerLowering("vmax4", [](LowerCtx &c) { return lowerVideoSimd(c, VOp::Max, true); });
  registerLowering("vset4", [](LowerCtx &c) { return lowerVideoSimd(c, VOp::Set, true); });
}

} // namespace ptxsim::ptx::exec

// cvt: integer <-> integer, float <-> integer, float <-> float (f16, bf16, f32, f64), packed
// f16x2/bf16x2 from two f32, rounding to integral values and cvt.pack.sat.
//
// One handler per (destination, source) type pair; rounding modes and modifiers are read once
// per warp from the instruction. Every float source is widened exactly to double and rounded
// once to the destination, so each conversion is a single correctly rounded step (Numerics.h).
// tf32 results are f32 bits rounded to 10 fraction bits; e4m3/e5m2 pairs convert to and from
// f32 and f16x2 (Numerics.h f64ToFp8). fp6/fp4, ue8m0 and .rs forms fault at run time as
// unsupported.

#include "ptx/exec/Numerics.h"
#include "ptx/exec/OpsCommon.h"

#include <limits>

namespace ptxsim::ptx::exec {
namespace {

using ir::Inst;
using ir::OpClass;

// Inst::flags bits.
enum : uint8_t { kFtz = 1, kSat = 2, kRelu = 4, kSatFinite = 8, kRna = 16 };
// Inst::aux = Rnd, Inst::aux2 = IRnd.

inline uint16_t flush16(uint16_t h, uint16_t expMask) {
  return (h & expMask) == 0 ? uint16_t(h & 0x8000) : h;
}

/// Float kinds: exact widening of a register value to double and rounding back.
struct KF16 {
  static constexpr bool kHalf = true;
  static double toD(uint64_t v, bool) { return f16ToF32((uint16_t)v); }
  static uint64_t fromD(double x, Rnd r, uint8_t fl) {
    uint16_t h = f64ToF16(x, r, fl & kSatFinite);
    if (fl & kSat)
      h = satF16(h);
    if (fl & kRelu)
      h = reluF16(h);
    return h;
  }
  template <class I> static uint64_t fromInt(I v, Rnd r, uint8_t fl) {
    uint16_t h = intToF16(v, r);
    return (fl & kSat) ? satF16(h) : h;
  }
};
struct KBF16 {
  static constexpr bool kHalf = true;
  static double toD(uint64_t v, bool) { return bf16ToF32((uint16_t)v); }
  static uint64_t fromD(double x, Rnd r, uint8_t fl) {
    uint16_t h = f64ToBF16(x, r, fl & kSatFinite);
    if (fl & kSat)
      h = satBF16(h);
    if (fl & kRelu)
      h = reluBF16(h);
    return h;
  }
  template <class I> static uint64_t fromInt(I v, Rnd r, uint8_t fl) {
    uint16_t h = intToBF16(v, r);
    return (fl & kSat) ? satBF16(h) : h;
  }
};
struct KF32 {
  static constexpr bool kHalf = false;
  static double toD(uint64_t v, bool ftz) {
    float x = fromBits<float>(v);
    return ftz ? ftz32(x) : x;
  }
  static uint64_t fromD(double x, Rnd r, uint8_t fl) {
    float f = f64ToF32(x, r);
    if (fl & kFtz)
      f = ftz32(f);
    if (fl & kSat)
      f = sat32(f);
    return toBits<float>(canonicalNaNF32(f));
  }
  template <class I> static uint64_t fromInt(I v, Rnd r, uint8_t fl) {
    float f = intToF32(v, r);
    return toBits<float>((fl & kSat) ? sat32(f) : f);
  }
};
struct KF64 {
  static constexpr bool kHalf = false;
  static double toD(uint64_t v, bool) { return fromBits<double>(v); }
  static uint64_t fromD(double x, Rnd, uint8_t fl) {
    if (fl & kSat)
      x = sat64(x);
    return toBits<double>(canonicalNaNF64(x));
  }
  template <class I> static uint64_t fromInt(I v, Rnd r, uint8_t fl) {
    double d = intToF64(v, r);
    return toBits<double>((fl & kSat) ? sat64(d) : d);
  }
};

/// float -> float (also same-type rounding to integral with aux2 = IRnd).
template <class D, class S> void cvtFF(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]);
  const uint8_t fl = in.flags;
  const bool ftz = fl & kFtz;
  const Rnd r = (Rnd)in.aux;
  const IRnd ir = (IRnd)in.aux2;
  forLanes(m, [&](unsigned l) {
    double x = S::toD(a[l], ftz);
    if (ir != IRnd::None)
      x = roundToIntegralF64(x, ir); // exact in the (equal) destination type
    d[l] = D::fromD(x, r, fl);
  });
}

/// float -> integer: round with aux2 = IRnd, saturate, NaN -> 0 (64-bit: 0x8000000000000000, as the hardware).
template <class I, class S> void cvtFI(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]);
  const bool ftz = in.flags & kFtz;
  const IRnd ir = (IRnd)in.aux2;
  forLanes(m, [&](unsigned l) { d[l] = toBits<I>(floatToInt<I>(S::toD(a[l], ftz), ir)); });
}

/// integer -> float with aux = Rnd.
template <class D, class I> void cvtIF(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]);
  const uint8_t fl = in.flags;
  const Rnd r = (Rnd)in.aux;
  forLanes(m, [&](unsigned l) { d[l] = D::fromInt(fromBits<I>(a[l]), r, fl); });
}

/// Clamps the value of S to D's range.
template <class D, class S> inline D satInt(S v) {
  using DL = std::numeric_limits<D>;
  if constexpr (std::is_signed_v<S>) {
    int64_t x = v;
    if constexpr (std::is_signed_v<D>) {
      if (x < (int64_t)DL::min())
        return DL::min();
      if (x > (int64_t)DL::max())
        return DL::max();
    } else {
      if (x < 0)
        return 0;
      if ((uint64_t)x > (uint64_t)DL::max())
        return DL::max();
    }
    return (D)x;
  } else {
    uint64_t x = v;
    if (x > (uint64_t)DL::max())
      return DL::max();
    return (D)x;
  }
}

/// integer -> integer: the source value (sign/zero-extended from S) truncated or, with kSat,
/// clamped to D; the register holds D extended by its signedness.
template <class D, class S> void cvtII(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]);
  if (in.flags & kSat)
    forLanes(m, [&](unsigned l) { d[l] = toBits<D>(satInt<D>(fromBits<S>(a[l]))); });
  else
    forLanes(m, [&](unsigned l) { d[l] = toBits<D>((D)fromBits<S>(a[l])); });
}

/// cvt.rnd{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b: a to the upper half.
template <bool BF> void cvtX2Fn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]);
  const Rnd r = (Rnd)in.aux;
  const bool sf = in.flags & kSatFinite, relu = in.flags & kRelu;
  forLanes(m, [&](unsigned l) {
    float x = fromBits<float>(a[l]), y = fromBits<float>(b[l]);
    d[l] = BF ? cvtBF16x2F32(x, y, r, sf, relu) : cvtF16x2F32(x, y, r, sf, relu);
  });
}

/// cvt.{rna,rn,rz}{.satfinite}{.relu}.tf32.f32 d, a. in.aux = Rnd, flags kRna for .rna.
void cvtTF32Fn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]);
  const Rnd r = (Rnd)in.aux;
  const bool rna = in.flags & kRna, sf = in.flags & kSatFinite, relu = in.flags & kRelu;
  forLanes(m, [&](unsigned l) { d[l] = f32ToTF32(fromBits<float>(a[l]), rna, r, sf, relu); });
}

/// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b (flags bit 6: a and b in src[0], src[1],
/// a to the upper byte) and .f16x2 d, a (the upper half to the upper byte). aux: 1 for e5m2.
void cvtToFp8x2Fn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]);
  const uint64_t *b = in.nsrc > 1 ? w.src(in.src[1]) : nullptr;
  const bool e5 = in.aux, sf = in.flags & kSatFinite, relu = in.flags & kRelu;
  forLanes(m, [&](unsigned l) {
    double hi, lo;
    if (b) {
      hi = fromBits<float>(a[l]);
      lo = fromBits<float>(b[l]);
    } else {
      hi = f16ToF32(uint16_t(a[l] >> 16));
      lo = f16ToF32(uint16_t(a[l]));
    }
    d[l] = uint32_t(f64ToFp8(hi, e5, sf, relu)) << 8 | f64ToFp8(lo, e5, sf, relu);
  });
}

/// cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a: each byte of a (the upper to the upper half),
/// exactly. aux: 1 for e5m2.
void cvtFromFp8x2Fn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]);
  const bool e5 = in.aux, relu = in.flags & kRelu;
  forLanes(m, [&](unsigned l) {
    uint16_t h[2];
    for (unsigned i = 0; i < 2; ++i) {
      h[i] = f64ToF16(fp8ToF64(uint8_t(a[l] >> (8 * i)), e5));
      if (relu)
        h[i] = reluF16(h[i]);
    }
    d[l] = uint32_t(h[1]) << 16 | h[0];
  });
}

/// cvt.pack.sat.{u16,s16,u8,s8,u4,s4}.s32 d, a, b{, c}: clamped a above clamped b, then (for
/// narrow types) c's low bits above them. in.aux = element bits, flags bit 0 = signed.
void cvtPackFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]);
  const uint64_t *c = in.nsrc == 3 ? w.src(in.src[2]) : nullptr;
  const unsigned size = in.aux;
  const bool sgn = in.flags & 1;
  const int64_t lo = sgn ? -(int64_t(1) << (size - 1)) : 0;
  const int64_t hi = sgn ? (int64_t(1) << (size - 1)) - 1 : (int64_t(1) << size) - 1;
  const uint32_t emask = (uint32_t(1) << size) - 1;
  auto clampTo = [&](int32_t v) { return (uint32_t)(v < lo ? lo : v > hi ? hi : v) & emask; };
  forLanes(m, [&](unsigned l) {
    uint32_t td = (clampTo((int32_t)a[l]) << size) | clampTo((int32_t)b[l]);
    if (c)
      td |= (uint32_t)c[l] << (2 * size);
    d[l] = td;
  });
}

// --- handler selection ---------------------------------------------------------------------------

template <template <class> class H> ir::ExecFn byFloatKind(ScalarType t) {
  switch (t) {
  case ScalarType::f16: return H<KF16>::fn;
  case ScalarType::bf16: return H<KBF16>::fn;
  case ScalarType::f32: return H<KF32>::fn;
  case ScalarType::f64: return H<KF64>::fn;
  default: return nullptr;
  }
}
template <template <class> class H> ir::ExecFn byCvtInt(ScalarType t) {
  switch (t) {
  case ScalarType::s8: return H<int8_t>::fn;
  case ScalarType::u8: return H<uint8_t>::fn;
  case ScalarType::s16: return H<int16_t>::fn;
  case ScalarType::u16: return H<uint16_t>::fn;
  case ScalarType::s32: return H<int32_t>::fn;
  case ScalarType::u32: return H<uint32_t>::fn;
  case ScalarType::s64: return H<int64_t>::fn;
  case ScalarType::u64: return H<uint64_t>::fn;
  default: return nullptr;
  }
}

template <class D> struct FFOuter { template <class S> struct H { static constexpr ir::ExecFn fn = cvtFF<D, S>; }; };
template <class I> struct FIOuter { template <class S> struct H { static constexpr ir::ExecFn fn = cvtFI<I, S>; }; };
template <class D> struct IFOuter { template <class I> struct H { static constexpr ir::ExecFn fn = cvtIF<D, I>; }; };
template <class D> struct IIOuter { template <class S> struct H { static constexpr ir::ExecFn fn = cvtII<D, S>; }; };

template <class D> struct FFBySrc { static constexpr auto pick = byFloatKind<FFOuter<D>::template H>; };
template <class I> struct FIBySrc { static constexpr auto pick = byFloatKind<FIOuter<I>::template H>; };
template <class D> struct IFBySrc { static constexpr auto pick = byCvtInt<IFOuter<D>::template H>; };
template <class D> struct IIBySrc { static constexpr auto pick = byCvtInt<IIOuter<D>::template H>; };

ir::ExecFn pickFF(ScalarType d, ScalarType s) {
  switch (d) {
  case ScalarType::f16: return FFBySrc<KF16>::pick(s);
  case ScalarType::bf16: return FFBySrc<KBF16>::pick(s);
  case ScalarType::f32: return FFBySrc<KF32>::pick(s);
  case ScalarType::f64: return FFBySrc<KF64>::pick(s);
  default: return nullptr;
  }
}
ir::ExecFn pickIF(ScalarType d, ScalarType s) {
  switch (d) {
  case ScalarType::f16: return IFBySrc<KF16>::pick(s);
  case ScalarType::bf16: return IFBySrc<KBF16>::pick(s);
  case ScalarType::f32: return IFBySrc<KF32>::pick(s);
  case ScalarType::f64: return IFBySrc<KF64>::pick(s);
  default: return nullptr;
  }
}
ir::ExecFn pickFI(ScalarType d, ScalarType s) {
  switch (d) {
  case ScalarType::s8: return FIBySrc<int8_t>::pick(s);
  case ScalarType::u8: return FIBySrc<uint8_t>::pick(s);
  case ScalarType::s16: return FIBySrc<int16_t>::pick(s);
  case ScalarType::u16: return FIBySrc<uint16_t>::pick(s);
  case ScalarType::s32: return FIBySrc<int32_t>::pick(s);
  case ScalarType::u32: return FIBySrc<uint32_t>::pick(s);
  case ScalarType::s64: return FIBySrc<int64_t>::pick(s);
  case ScalarType::u64: return FIBySrc<uint64_t>::pick(s);
  default: return nullptr;
  }
}
ir::ExecFn pickII(ScalarType d, ScalarType s) {
  switch (d) {
  case ScalarType::s8: return IIBySrc<int8_t>::pick(s);
  case ScalarType::u8: return IIBySrc<uint8_t>::pick(s);
  case ScalarType::s16: return IIBySrc<int16_t>::pick(s);
  case ScalarType::u16: return IIBySrc<uint16_t>::pick(s);
  case ScalarType::s32: return IIBySrc<int32_t>::pick(s);
  case ScalarType::u32: return IIBySrc<uint32_t>::pick(s);
  case ScalarType::s64: return IIBySrc<int64_t>::pick(s);
  case ScalarType::u64: return IIBySrc<uint64_t>::pick(s);
  default: return nullptr;
  }
}

bool isCvtInt(ScalarType t) {
  switch (t) {
  case ScalarType::s8: case ScalarType::u8: case ScalarType::s16: case ScalarType::u16:
  case ScalarType::s32: case ScalarType::u32: case ScalarType::s64: case ScalarType::u64:
    return true;
  default:
    return false;
  }
}
bool isCvtFloat(ScalarType t) {
  return t == ScalarType::f16 || t == ScalarType::bf16 || t == ScalarType::f32 || t == ScalarType::f64;
}

Rnd rndOf(LowerCtx &c) {
  switch (c.first({Mod::rn, Mod::rz, Mod::rm, Mod::rp})) {
  case Mod::rz: return Rnd::RZ;
  case Mod::rm: return Rnd::RM;
  case Mod::rp: return Rnd::RP;
  default: return Rnd::RN;
  }
}
IRnd irndOf(LowerCtx &c) {
  switch (c.first({Mod::rni, Mod::rzi, Mod::rmi, Mod::rpi})) {
  case Mod::rni: return IRnd::RNI;
  case Mod::rzi: return IRnd::RZI;
  case Mod::rmi: return IRnd::RMI;
  case Mod::rpi: return IRnd::RPI;
  default: return IRnd::None;
  }
}

bool lowerCvtPack(LowerCtx &c) {
  ScalarType dt = c.type(0);
  unsigned size;
  bool sgn;
  switch (dt) {
  case ScalarType::u16: size = 16; sgn = false; break;
  case ScalarType::s16: size = 16; sgn = true; break;
  case ScalarType::u8: size = 8; sgn = false; break;
  case ScalarType::s8: size = 8; sgn = true; break;
  case ScalarType::u4: size = 4; sgn = false; break;
  case ScalarType::s4: size = 4; sgn = true; break;
  default: return c.unsupported("cvt.pack type");
  }
  const bool hasC = c.numOps() == 4;
  ir::Opnd a = c.src(c.op(1), ScalarType::s32), b = c.src(c.op(2), ScalarType::s32);
  ir::Opnd cc;
  if (hasC)
    cc = c.src(c.op(3), ScalarType::b32);
  uint32_t d = c.dst(c.op(0));
  ir::Inst &in = c.emit(cvtPackFn, OpClass::Alu);
  in.dst[0] = d;
  in.src[0] = a;
  in.src[1] = b;
  in.src[2] = cc;
  in.nsrc = hasC ? 3 : 2;
  in.aux = size;
  in.flags = sgn ? 1 : 0;
  return true;
}

bool lowerCvt(LowerCtx &c) {
  if (c.has(Mod::pack))
    return lowerCvtPack(c);
  const ScalarType dt = c.type(0), st = c.type(1);
  uint8_t flags = (c.has(Mod::ftz) ? kFtz : 0) | (c.has(Mod::sat) ? kSat : 0) |
                  (c.has(Mod::relu) ? kRelu : 0) | (c.has(Mod::satfinite) ? kSatFinite : 0);
  const Rnd r = rndOf(c);
  const IRnd ir = irndOf(c);

  if (dt == ScalarType::tf32 && st == ScalarType::f32 && !c.has(Mod::rs)) {
    ir::Opnd a = c.src(c.op(1), ScalarType::f32);
    uint32_t d = c.dst(c.op(0));
    ir::Inst &in = c.emit(cvtTF32Fn, OpClass::Fp32);
    in.dst[0] = d;
    in.src[0] = a;
    in.nsrc = 1;
    in.aux = (uint32_t)r;
    in.flags = flags | (c.has(Mod::rna) ? kRna : 0);
    return true;
  }
  const bool toFp8 = dt == ScalarType::e4m3x2 || dt == ScalarType::e5m2x2;
  const bool fromFp8 = st == ScalarType::e4m3x2 || st == ScalarType::e5m2x2;
  if (!c.has(Mod::rs) && ((toFp8 && (st == ScalarType::f32 || st == ScalarType::f16x2)) ||
                          (fromFp8 && dt == ScalarType::f16x2))) {
    bool pair = toFp8 && st == ScalarType::f32;
    ir::Opnd a = c.src(c.op(1), pair ? ScalarType::f32 : ScalarType::b32);
    ir::Opnd b;
    if (pair)
      b = c.src(c.op(2), ScalarType::f32);
    uint32_t d = c.dst(c.op(0));
    ir::Inst &in = c.emit(toFp8 ? cvtToFp8x2Fn : cvtFromFp8x2Fn, OpClass::Half);
    in.dst[0] = d;
    in.src[0] = a;
    in.src[1] = b;
    in.nsrc = pair ? 2 : 1;
    in.aux = (toFp8 ? dt : st) == ScalarType::e5m2x2 ? 1 : 0;
    in.flags = flags;
    return true;
  }
  if (c.has(Mod::rs) || c.has(Mod::rna))
    return c.unsupported("cvt rounding mode");

  if ((dt == ScalarType::f16x2 || dt == ScalarType::bf16x2) && st == ScalarType::f32 && c.numOps() == 3) {
    ir::Opnd a = c.src(c.op(1), ScalarType::f32), b = c.src(c.op(2), ScalarType::f32);
    uint32_t d = c.dst(c.op(0));
    ir::Inst &in = c.emit(dt == ScalarType::bf16x2 ? cvtX2Fn<true> : cvtX2Fn<false>, OpClass::Half);
    in.dst[0] = d;
    in.src[0] = a;
    in.src[1] = b;
    in.nsrc = 2;
    in.aux = (uint32_t)r;
    in.flags = flags;
    return true;
  }

  ir::ExecFn fn = nullptr;
  OpClass cls = OpClass::Alu;
  if (isCvtInt(dt) && isCvtInt(st)) {
    fn = pickII(dt, st);
  } else if (isCvtInt(dt) && isCvtFloat(st)) {
    fn = pickFI(dt, st);
    cls = st == ScalarType::f64 ? OpClass::Fp64 : OpClass::Fp32;
  } else if (isCvtFloat(dt) && isCvtInt(st)) {
    fn = pickIF(dt, st);
    cls = dt == ScalarType::f64 ? OpClass::Fp64 : OpClass::Fp32;
  } else if (isCvtFloat(dt) && isCvtFloat(st)) {
    if (ir != IRnd::None && dt != st)
      return c.unsupported("cvt integral rounding between different types");
    fn = pickFF(dt, st);
    cls = dt == ScalarType::f64 || st == ScalarType::f64 ? OpClass::Fp64 : OpClass::Fp32;
  }
  if (!fn)
    return c.unsupported("cvt types");
  ir::Opnd a = c.src(c.op(1), st);
  uint32_t d = c.dst(c.op(0));
  ir::Inst &in = c.emit(fn, cls);
  in.dst[0] = d;
  in.src[0] = a;
  in.nsrc = 1;
  in.flags = flags;
  in.aux = (uint32_t)r;
  in.aux2 = (uint32_t)ir;
  return true;
}

} // namespace

void registerConvertOps() { registerLowering("cvt", lowerCvt); }

} // namespace ptxsim::ptx::exec

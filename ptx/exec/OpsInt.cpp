// Integer, bit, move, select and compare instructions.

#include "ptx/exec/IntOps.h"
#include "ptx/exec/OpsCommon.h"
#include "ptx/jit/JitOps.h"
#include "ptx/sema/OpcodeTable.h"

namespace ptxsim::ptx::exec {
namespace {

using ir::Inst;
using ir::OpClass;

// --- functors ---------------------------------------------------------------------------------

// (w: the 64-bit lane form of a 32-bit operation for the AVX2 handlers, OpsCommon.h; its low
// 32 bits are f's result on the low 32 bits of the operands)
struct AddOp {
  template <class T> static T f(T a, T b) { return add(a, b); }
  static uint64_t w(uint64_t a, uint64_t b) { return a + b; }
};
struct SubOp {
  template <class T> static T f(T a, T b) { return sub(a, b); }
  static uint64_t w(uint64_t a, uint64_t b) { return a - b; }
};
struct MulLoOp { template <class T> static T f(T a, T b) { return mulLo(a, b); } };
struct MulHiOp { template <class T> static T f(T a, T b) { return mulHi(a, b); } };
struct DivOp { template <class T> static T f(T a, T b) { return divInt(a, b); } };
struct RemOp { template <class T> static T f(T a, T b) { return remInt(a, b); } };
struct MinOp { template <class T> static T f(T a, T b) { return minInt(a, b); } };
struct MaxOp { template <class T> static T f(T a, T b) { return maxInt(a, b); } };
struct AndOp {
  template <class T> static T f(T a, T b) { return T(a & b); }
  static uint64_t w(uint64_t a, uint64_t b) { return a & b; }
};
struct OrOp {
  template <class T> static T f(T a, T b) { return T(a | b); }
  static uint64_t w(uint64_t a, uint64_t b) { return a | b; }
};
struct XorOp {
  template <class T> static T f(T a, T b) { return T(a ^ b); }
  static uint64_t w(uint64_t a, uint64_t b) { return a ^ b; }
};
struct AbsOp { template <class T> static T f(T a) { return absInt(a); } };
struct NegOp { template <class T> static T f(T a) { return negInt(a); } };
struct NotOp { template <class T> static T f(T a) { return bitNot(a); } };
struct CnotOp { template <class T> static T f(T a) { return cnot(a); } };
struct MovOp { template <class T> static T f(T a) { return a; } };
struct MadLoOp { template <class T> static T f(T a, T b, T c) { return madLo(a, b, c); } };
struct MadHiOp { template <class T> static T f(T a, T b, T c) { return madHi(a, b, c); } };
struct Mul24LoOp { template <class T> static T f(T a, T b) { return mul24Lo(a, b); } };
struct Mul24HiOp { template <class T> static T f(T a, T b) { return mul24Hi(a, b); } };
struct Mad24LoOp { template <class T> static T f(T a, T b, T c) { return mad24Lo(a, b, c); } };
struct Mad24HiOp { template <class T> static T f(T a, T b, T c) { return mad24Hi(a, b, c); } };
struct SadOp { template <class T> static T f(T a, T b, T c) { return sad(a, b, c); } };

template <class Op> struct Bin { template <class T> struct H { static constexpr ir::ExecFn fn = binaryFn<T, T, Op>; }; };
template <class Op> struct Un { template <class T> struct H { static constexpr ir::ExecFn fn = unaryFn<T, T, Op>; }; };
template <class Op> struct Tern { template <class T> struct H { static constexpr ir::ExecFn fn = ternaryFn<T, T, Op>; }; };

// Binary/ternary only defined for 16..64-bit types in PTX; 8-bit instantiations are harmless.

// --- wide multiply ----------------------------------------------------------------------------

template <class T> void mulWideFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]);
  forLanes(m, [&](unsigned l) { d[l] = toBits(mulWide(fromBits<T>(a[l]), fromBits<T>(b[l]))); });
}
template <class T> void madWideFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]), *c = w.src(in.src[2]);
  forLanes(m, [&](unsigned l) {
    d[l] = toBits(madWide(fromBits<T>(a[l]), fromBits<T>(b[l]), fromBits<WideOf<T>>(c[l])));
  });
}
template <class T> struct MulWideH { static constexpr ir::ExecFn fn = mulWideFn<T>; };
#if PTXSIM_HOST_AVX2
/// mul.wide for a full warp compiled for AVX2 (see hostHasAvx2): vpmuldq/vpmuludq, four lanes
/// at a time, where SSE2 multiplies lane by lane.
template <class T>
__attribute__((target("avx2"))) void mulWideAvx2(ExecCtx &ctx, Warp &w, const Inst &in,
                                                 uint32_t m) {
  if (m != kFullMask)
    return mulWideFn<T>(ctx, w, in, m);
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]);
  for (unsigned l = 0; l < kWarpSize; ++l)
    d[l] = toBits(mulWide(fromBits<T>(a[l]), fromBits<T>(b[l])));
}
template <class T> struct MulWideAvx2H { static constexpr ir::ExecFn fn = mulWideAvx2<T>; };
/// 32- and 64-bit add/sub on AVX2 hosts (16-bit ones keep the baseline handler).
template <class Op> struct BinAvx2 {
  template <class T> struct H {
    static constexpr ir::ExecFn fn = sizeof(T) >= 4 ? binaryFnAvx2<T, T, Op> : binaryFn<T, T, Op>;
  };
};
#endif
template <class T> struct MadWideH { static constexpr ir::ExecFn fn = madWideFn<T>; };
#if PTXSIM_HOST_AVX2
/// 32- and 64-bit mad.lo, and/or/xor on AVX2 hosts (see hostHasAvx2; 16-bit ones keep the
/// baseline handler).
template <class Op> struct TernAvx2 {
  template <class T> struct H {
    static constexpr ir::ExecFn fn = sizeof(T) >= 4 ? ternaryFnAvx2<T, T, Op> : ternaryFn<T, T, Op>;
  };
};
#endif

// --- saturating s32 ---------------------------------------------------------------------------

void addSatFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]);
  forLanes(m, [&](unsigned l) { d[l] = toBits(addSatS32((int32_t)a[l], (int32_t)b[l])); });
}
void subSatFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]);
  forLanes(m, [&](unsigned l) { d[l] = toBits(subSatS32((int32_t)a[l], (int32_t)b[l])); });
}
void madHiSatFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]), *c = w.src(in.src[2]);
  forLanes(m, [&](unsigned l) {
    d[l] = toBits(madHiSatS32((int32_t)a[l], (int32_t)b[l], (int32_t)c[l]));
  });
}
void mad24HiSatFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]), *c = w.src(in.src[2]);
  forLanes(m, [&](unsigned l) {
    d[l] = toBits(mad24HiSatS32((int32_t)a[l], (int32_t)b[l], (int32_t)c[l]));
  });
}
void minMaxReluFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]);
  bool isMax = in.flags & 1;
  forLanes(m, [&](unsigned l) {
    d[l] = toBits(isMax ? maxReluS32((int32_t)a[l], (int32_t)b[l]) : minReluS32((int32_t)a[l], (int32_t)b[l]));
  });
}
void minMax16x2Fn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]);
  bool isMax = in.flags & 1, isSigned = in.flags & 2, relu = in.flags & 4;
  forLanes(m, [&](unsigned l) {
    uint32_t x = (uint32_t)a[l], y = (uint32_t)b[l];
    d[l] = isSigned ? (isMax ? maxS16x2(x, y, relu) : minS16x2(x, y, relu))
                    : (isMax ? maxU16x2(x, y) : minU16x2(x, y));
  });
}

// --- carry chains (per-lane carry flag kept in a hidden register) ------------------------------

template <class U> void addCcFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  uint64_t *cf = w.reg(in.aux);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]);
  bool useIn = in.flags & 1, setOut = in.flags & 2, isSub = in.flags & 4;
  forLanes(m, [&](unsigned l) {
    uint32_t co = 0;
    uint32_t ci = useIn ? (uint32_t)cf[l] : 0;
    U r = isSub ? subBorrow<U>((U)a[l], (U)b[l], ci, co) : addCarry<U>((U)a[l], (U)b[l], ci, co);
    d[l] = r;
    if (setOut)
      cf[l] = co;
  });
}
template <class T> void madCcFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  uint64_t *cf = w.reg(in.aux);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]), *c = w.src(in.src[2]);
  bool useIn = in.flags & 1, setOut = in.flags & 2, hi = in.flags & 8;
  forLanes(m, [&](unsigned l) {
    uint32_t co = 0, ci = useIn ? (uint32_t)cf[l] : 0;
    T r = hi ? madHiCarry<T>((T)a[l], (T)b[l], (T)c[l], ci, co)
             : madLoCarry<T>((T)a[l], (T)b[l], (T)c[l], ci, co);
    d[l] = toBits(r);
    if (setOut)
      cf[l] = co;
  });
}

// --- bit instructions -----------------------------------------------------------------------------

template <class T> void popcFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]);
  forLanes(m, [&](unsigned l) { d[l] = popc((T)a[l]); });
}
template <class T> void clzFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]);
  forLanes(m, [&](unsigned l) { d[l] = clz((T)a[l]); });
}
template <class T> void bfindFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]);
  bool sa = in.flags & 1;
  forLanes(m, [&](unsigned l) { d[l] = bfind((T)a[l], sa); });
}
template <class T> void brevFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]);
  forLanes(m, [&](unsigned l) { d[l] = toBits(brev((T)a[l])); });
}
template <class T> void bfeFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]), *c = w.src(in.src[2]);
  forLanes(m, [&](unsigned l) { d[l] = toBits(bfe((T)a[l], (uint32_t)b[l], (uint32_t)c[l])); });
}
template <class T> void bfiFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]), *c = w.src(in.src[2]),
                 *e = w.src(in.src[3]);
  forLanes(m, [&](unsigned l) {
    d[l] = toBits(bfi((T)a[l], (T)b[l], (uint32_t)c[l], (uint32_t)e[l]));
  });
}
void prmtFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]), *c = w.src(in.src[2]);
  PrmtMode mode = (PrmtMode)in.aux;
  forLanes(m, [&](unsigned l) { d[l] = prmt((uint32_t)a[l], (uint32_t)b[l], (uint32_t)c[l], mode); });
}
void shfFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]), *c = w.src(in.src[2]);
  ShiftMode mode = (in.flags & 2) ? ShiftMode::Wrap : ShiftMode::Clamp;
  bool left = in.flags & 1;
  forLanes(m, [&](unsigned l) {
    d[l] = left ? shfL((uint32_t)a[l], (uint32_t)b[l], (uint32_t)c[l], mode)
                : shfR((uint32_t)a[l], (uint32_t)b[l], (uint32_t)c[l], mode);
  });
}
template <class T> void shlFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]);
  forLanes(m, [&](unsigned l) { d[l] = toBits(shl((T)a[l], (uint32_t)b[l])); });
}
template <class T> void shrFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]);
  forLanes(m, [&](unsigned l) { d[l] = toBits(shr((T)a[l], (uint32_t)b[l])); });
}
#if PTXSIM_HOST_AVX2
/// shl/shr of 32- and 64-bit values compiled for AVX2 (see OpsCommon.h): per-lane shift amounts
/// are vpsllvq/vpsrlvq there, where SSE2 shifts lane by lane; 32-bit values shift in their
/// 64-bit lanes (an amount of 32..63 leaves no low bits, as one >= 32 gives 0). Signed shr
/// keeps the baseline handler's lanes (AVX2 has no 64-bit arithmetic shift). Same results.
template <class T, bool kLeft> inline uint64_t shiftLane64(uint64_t a, uint64_t b) {
  const uint64_t n = uint32_t(b);
  if constexpr (std::is_signed_v<T> || sizeof(T) < 4) {
    return kLeft ? toBits(shl((T)a, (uint32_t)n)) : toBits(shr((T)a, (uint32_t)n));
  } else if constexpr (kLeft) {
    const uint64_t v = n < 64 ? a << n : 0;
    return sizeof(T) == 4 ? v & 0xffffffffu : v;
  } else {
    const uint64_t x = sizeof(T) == 4 ? a & 0xffffffffu : a;
    return n < 64 ? x >> n : 0;
  }
}
template <class T, bool kLeft>
__attribute__((target("avx2"))) void shiftAvx2(ExecCtx &ctx, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]);
  if (m == kFullMask) {
    for (unsigned l = 0; l < kWarpSize; ++l)
      d[l] = shiftLane64<T, kLeft>(a[l], b[l]);
  } else if (laneCount(m) >= kAvx2BlendLanes) {
    for (unsigned l = 0; l < kWarpSize; ++l) {
      const uint64_t v = shiftLane64<T, kLeft>(a[l], b[l]), s = laneSel(m, l);
      d[l] = (v & s) | (d[l] & ~s);
    }
  } else if (kLeft) {
    shlFn<T>(ctx, w, in, m);
  } else {
    shrFn<T>(ctx, w, in, m);
  }
}
#endif
void lop3Fn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]), *c = w.src(in.src[2]);
  uint8_t lut = (uint8_t)in.aux;
  forLanes(m, [&](unsigned l) { d[l] = lop3((uint32_t)a[l], (uint32_t)b[l], (uint32_t)c[l], lut); });
}
template <bool AS, bool BS> void dp4aFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]), *c = w.src(in.src[2]);
  forLanes(m, [&](unsigned l) { d[l] = dp4a<AS, BS>((uint32_t)a[l], (uint32_t)b[l], (uint32_t)c[l]); });
}
template <bool AS, bool BS> void dp2aFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]), *c = w.src(in.src[2]);
  bool hi = in.flags & 1;
  forLanes(m, [&](unsigned l) {
    d[l] = dp2a<AS, BS>((uint32_t)a[l], (uint32_t)b[l], (uint32_t)c[l], hi);
  });
}
void bmskFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]);
  ShiftMode mode = (in.flags & 2) ? ShiftMode::Wrap : ShiftMode::Clamp;
  forLanes(m, [&](unsigned l) { d[l] = bmsk((uint32_t)a[l], (uint32_t)b[l], mode); });
}
template <class T> void szextFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]);
  ShiftMode mode = (in.flags & 2) ? ShiftMode::Wrap : ShiftMode::Clamp;
  forLanes(m, [&](unsigned l) { d[l] = toBits(szext((T)a[l], (uint32_t)b[l], mode)); });
}

// --- predicates, select, compare -------------------------------------------------------------------

void predLogicFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint32_t a = w.pred(in.psrc[0], in.psrcXor[0]);
  uint32_t b = w.pred(in.psrc[1], in.psrcXor[1]);
  uint32_t r;
  switch (in.aux) {
  case 0: r = a & b; break;
  case 1: r = a | b; break;
  case 2: r = a ^ b; break;
  case 3: r = ~a; break;
  default: r = a; break; // mov / cnot handled as not
  }
  writePred(w, (uint16_t)in.dst[0], m, r);
}

void selpFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]);
  uint32_t c = w.pred(in.psrc[0], in.psrcXor[0]);
  forLanes(m, [&](unsigned l) { d[l] = (c >> l) & 1 ? a[l] : b[l]; });
}

enum CmpKind : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };

/// The comparison of every lane as a lane mask. All 32 lanes are compared (registers and
/// constants always hold 32 lanes; the caller masks the result): a branch-free loop the compiler
/// vectorises, then eight flags at a time gathered into bits with one multiply.
template <class T, class Cmp> inline uint32_t compareAll(const uint64_t *a, const uint64_t *b) {
  uint8_t f[kWarpSize];
  for (unsigned l = 0; l < kWarpSize; ++l)
    f[l] = Cmp::f(fromBits<T>(a[l]), fromBits<T>(b[l]));
  uint32_t r = 0;
  for (unsigned g = 0; g < kWarpSize / 8; ++g) {
    uint64_t v;
    std::memcpy(&v, f + 8 * g, 8); // little-endian: flag of lane 8g+i in byte i
    r |= uint32_t((v * 0x0102040810204080ull) >> 56) << (8 * g);
  }
  return r;
}
struct CmpEq { template <class T> static bool f(T x, T y) { return x == y; } };
struct CmpNe { template <class T> static bool f(T x, T y) { return x != y; } };
struct CmpLt { template <class T> static bool f(T x, T y) { return x < y; } };
struct CmpLe { template <class T> static bool f(T x, T y) { return x <= y; } };
struct CmpGt { template <class T> static bool f(T x, T y) { return x > y; } };
struct CmpGe { template <class T> static bool f(T x, T y) { return x >= y; } };

template <class T> uint32_t compareLanes(const uint64_t *a, const uint64_t *b, uint8_t cmp, uint32_t m) {
  switch (cmp) {
  case kEq: return compareAll<T, CmpEq>(a, b) & m;
  case kNe: return compareAll<T, CmpNe>(a, b) & m;
  case kLt: return compareAll<T, CmpLt>(a, b) & m;
  case kLe: return compareAll<T, CmpLe>(a, b) & m;
  case kGt: return compareAll<T, CmpGt>(a, b) & m;
  default: return compareAll<T, CmpGe>(a, b) & m;
  }
}

/// setp: in.aux = comparison, in.flags bits 0-1 = boolean op with psrc[0] (0 none, 1 and,
/// 2 or, 3 xor); dst[1] = second predicate (or ~0u).
template <class T> void setpIntFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint32_t r = compareLanes<T>(w.src(in.src[0]), w.src(in.src[1]), (uint8_t)in.aux, m);
  uint32_t q = ~r;
  if (in.flags & 3) {
    uint32_t c = w.pred(in.psrc[0], in.psrcXor[0]);
    switch (in.flags & 3) {
    case 1: r &= c; q &= c; break;
    case 2: r |= c; q |= c; break;
    default: r ^= c; q ^= c; break;
    }
  }
  writePred(w, (uint16_t)in.dst[0], m, r);
  if (in.dst[1] != ~0u)
    writePred(w, (uint16_t)in.dst[1], m, q);
}
template <class T> struct SetpH { static constexpr ir::ExecFn fn = setpIntFn<T>; };

/// set: d = cmp ? 0xffffffff (or 1.0f with .f32 destination) : 0.
template <class T> void setIntFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint32_t r = compareLanes<T>(w.src(in.src[0]), w.src(in.src[1]), (uint8_t)in.aux, m);
  if (in.flags & 3) {
    uint32_t c = w.pred(in.psrc[0], in.psrcXor[0]);
    switch (in.flags & 3) {
    case 1: r &= c; break;
    case 2: r |= c; break;
    default: r ^= c; break;
    }
  }
  uint64_t *d = w.reg(in.dst[0]);
  uint64_t one = (in.flags & 4) ? 0x3f800000u : 0xffffffffu;
  forLanes(m, [&](unsigned l) { d[l] = (r >> l) & 1 ? one : 0; });
}
template <class T> struct SetH { static constexpr ir::ExecFn fn = setIntFn<T>; };

template <class T> void slctFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]), *c = w.src(in.src[2]);
  bool fc = in.flags & 1;
  forLanes(m, [&](unsigned l) {
    bool ge = fc ? fromBits<float>(c[l]) >= 0.0f : (int32_t)c[l] >= 0;
    d[l] = ge ? a[l] : b[l];
  });
}

// --- mov ---------------------------------------------------------------------------------------------

/// mov.bN d, {a, b, ...}: in.aux = element bits, in.nsrc elements (first is lowest).
void packFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  unsigned eb = in.aux, n = in.nsrc;
  uint64_t emask = eb >= 64 ? ~0ull : ((1ull << eb) - 1);
  const uint64_t *s[8];
  for (unsigned i = 0; i < n; ++i)
    s[i] = w.src(in.src[i < 5 ? i : 4]);
  forLanes(m, [&](unsigned l) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i)
      v |= (s[i][l] & emask) << (i * eb);
    d[l] = v;
  });
}
/// mov.bN {a, b, ...}, s: in.aux = element bits, in.ndst elements.
void unpackFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  const uint64_t *a = w.src(in.src[0]);
  unsigned eb = in.aux, n = in.ndst;
  uint64_t emask = eb >= 64 ? ~0ull : ((1ull << eb) - 1);
  uint64_t tmp[kWarpSize];
  forLanes(m, [&](unsigned l) { tmp[l] = a[l]; });
  for (unsigned i = 0; i < n; ++i) {
    uint64_t *d = w.reg(in.dst[i]);
    forLanes(m, [&](unsigned l) { d[l] = (tmp[l] >> (i * eb)) & emask; });
  }
}

/// mov.b128 between .b128 registers (two 64-bit slots each, low half first) and from/to two
/// .b64 halves: src[0], src[1] are the low and high sources, dst[0], dst[1] the destinations.
void mov128Fn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  const uint64_t *lo = w.src(in.src[0]), *hi = w.src(in.src[1]);
  uint64_t tl[kWarpSize], th[kWarpSize];
  forLanes(m, [&](unsigned l) { tl[l] = lo[l], th[l] = hi[l]; });
  uint64_t *dl = w.reg(in.dst[0]), *dh = w.reg(in.dst[1]);
  forLanes(m, [&](unsigned l) { dl[l] = tl[l], dh[l] = th[l]; });
}

// --- lowering ---------------------------------------------------------------------------------------

bool isFloatForm(ScalarType t) {
  return t == ScalarType::f32 || t == ScalarType::f64 || t == ScalarType::f16 ||
         t == ScalarType::f16x2 || t == ScalarType::bf16 || t == ScalarType::bf16x2;
}

/// d = op(a, b) for integer types.
template <class OpFamily, unsigned kSet = kW16to64>
bool lowerBinary(LowerCtx &c, ScalarType t, OpClass cls = OpClass::Alu) {
  ir::ExecFn fn = byIntType<OpFamily::template H, kSet>(t);
  if (!fn)
    return c.unsupported("type");
  ir::Opnd a = c.src(c.op(1), t), b = c.src(c.op(2), t);
  uint32_t d = c.dst(c.op(0));
  ir::Inst &in = c.emit(fn, cls);
  in.dst[0] = d;
  in.src[0] = a;
  in.src[1] = b;
  return true;
}
/// An integer div/rem just lowered: by a register it is a SASS sequence of ~20 instructions
/// (Inst::sassSeq); by an immediate, ptxas multiplies and shifts, as for any other arithmetic.
bool markIntDivide(LowerCtx &c, ScalarType t) {
  ir::Inst &in = c.fn().code.back();
  if (in.src[1].cst)
    return true;
  const bool sgn = typeClass(t) == TypeClass::Signed;
  in.sassSeq = uint8_t(typeBits(t) == 64 ? (sgn ? ir::SassSeq::DivS64 : ir::SassSeq::DivU64)
                                         : (sgn ? ir::SassSeq::DivS32 : ir::SassSeq::DivU32));
  return true;
}
template <class OpFamily, unsigned kSet = kW16to64> bool lowerUnary(LowerCtx &c, ScalarType t) {
  ir::ExecFn fn = byIntType<OpFamily::template H, kSet>(t);
  if (!fn)
    return c.unsupported("type");
  ir::Opnd a = c.src(c.op(1), t);
  uint32_t d = c.dst(c.op(0));
  ir::Inst &in = c.emit(fn);
  in.dst[0] = d;
  in.src[0] = a;
  return true;
}
bool lowerTernary(LowerCtx &c, ir::ExecFn fn, ScalarType ta, ScalarType tc, OpClass cls) {
  if (!fn)
    return c.unsupported("type");
  ir::Opnd a = c.src(c.op(1), ta), b = c.src(c.op(2), ta), cc = c.src(c.op(3), tc);
  uint32_t d = c.dst(c.op(0));
  ir::Inst &in = c.emit(fn, cls);
  in.dst[0] = d;
  in.src[0] = a;
  in.src[1] = b;
  in.src[2] = cc;
  return true;
}

ScalarType widen(ScalarType t) {
  switch (t) {
  case ScalarType::s16: return ScalarType::s32;
  case ScalarType::u16: return ScalarType::u32;
  case ScalarType::s32: return ScalarType::s64;
  case ScalarType::u32: return ScalarType::u64;
  default: return t;
  }
}

uint32_t carryReg(LowerCtx &c) {
  // one hidden register per function holds the carry flag of every lane
  ir::Function &f = c.fn();
  for (const ir::Inst &in : f.code)
    if ((in.flags & 0x80) && in.aux)
      return in.aux;
  return c.temp();
}

bool lowerAddSub(LowerCtx &c, bool isSub) {
  ScalarType t = c.type();
  if (isFloatForm(t))
    return lowerFloatArith(c, isSub ? FArith::Sub : FArith::Add);
  bool cc = c.has(Mod::cc);
  if (c.has(Mod::sat)) {
    ir::Opnd a = c.src(c.op(1), t), b = c.src(c.op(2), t);
    uint32_t d = c.dst(c.op(0));
    ir::Inst &in = c.emit(isSub ? subSatFn : addSatFn);
    in.dst[0] = d;
    in.src[0] = a;
    in.src[1] = b;
    return true;
  }
  if (t == ScalarType::u16x2 || t == ScalarType::s16x2)
    return c.unsupported("packed 16x2 add");
  if (cc) {
    ir::Opnd a = c.src(c.op(1), t), b = c.src(c.op(2), t);
    uint32_t d = c.dst(c.op(0));
    uint32_t cf = carryReg(c);
    bool is64 = typeBits(t) == 64;
    ir::Inst &in = c.emit(is64 ? addCcFn<uint64_t> : addCcFn<uint32_t>);
    in.dst[0] = d;
    in.src[0] = a;
    in.src[1] = b;
    in.aux = cf;
    in.flags = 0x80 | 2 | (isSub ? 4 : 0);
    return true;
  }
#if PTXSIM_HOST_AVX2
  if (hostHasAvx2())
    return isSub ? lowerBinary<BinAvx2<SubOp>>(c, t) : lowerBinary<BinAvx2<AddOp>>(c, t);
#endif
  return isSub ? lowerBinary<Bin<SubOp>>(c, t) : lowerBinary<Bin<AddOp>>(c, t);
}

bool lowerAddcSubc(LowerCtx &c, bool isSub) {
  ScalarType t = c.type();
  ir::Opnd a = c.src(c.op(1), t), b = c.src(c.op(2), t);
  uint32_t d = c.dst(c.op(0));
  uint32_t cf = carryReg(c);
  bool is64 = typeBits(t) == 64;
  ir::Inst &in = c.emit(is64 ? addCcFn<uint64_t> : addCcFn<uint32_t>);
  in.dst[0] = d;
  in.src[0] = a;
  in.src[1] = b;
  in.aux = cf;
  in.flags = 0x80 | 1 | (c.has(Mod::cc) ? 2 : 0) | (isSub ? 4 : 0);
  return true;
}

bool lowerMul(LowerCtx &c) {
  ScalarType t = c.type();
  if (isFloatForm(t))
    return lowerFloatArith(c, FArith::Mul);
  if (c.has(Mod::wide)) {
    ir::ExecFn fn = byIntType<MulWideH, kW16 | kW32>(t);
#if PTXSIM_HOST_AVX2
    if (fn && hostHasAvx2())
      fn = byIntType<MulWideAvx2H, kW16 | kW32>(t);
#endif
    if (!fn)
      return c.unsupported("type");
    ir::Opnd a = c.src(c.op(1), t), b = c.src(c.op(2), t);
    uint32_t d = c.dst(c.op(0));
    ir::Inst &in = c.emit(fn, OpClass::Mul);
    in.dst[0] = d;
    in.src[0] = a;
    in.src[1] = b;
    return true;
  }
  if (c.has(Mod::hi))
    return lowerBinary<Bin<MulHiOp>>(c, t, OpClass::Mul);
  return lowerBinary<Bin<MulLoOp>>(c, t, OpClass::Mul);
}

bool lowerMad(LowerCtx &c) {
  ScalarType t = c.type();
  if (isFloatForm(t))
    return lowerFloatArith(c, FArith::Mad);
  if (c.has(Mod::cc) || (c.ai().text.substr(0, 4) == "madc")) {
    bool isMadc = c.ai().text.substr(0, 4) == "madc";
    ir::Opnd a = c.src(c.op(1), t), b = c.src(c.op(2), t), cc = c.src(c.op(3), t);
    uint32_t d = c.dst(c.op(0));
    uint32_t cf = carryReg(c);
    bool hi = c.has(Mod::hi);
    ir::ExecFn fn = nullptr;
    switch (t) {
    case ScalarType::s32: fn = madCcFn<int32_t>; break;
    case ScalarType::u32: fn = madCcFn<uint32_t>; break;
    case ScalarType::s64: fn = madCcFn<int64_t>; break;
    case ScalarType::u64: fn = madCcFn<uint64_t>; break;
    default: return c.unsupported("type");
    }
    ir::Inst &in = c.emit(fn, OpClass::Mul);
    in.dst[0] = d;
    in.src[0] = a;
    in.src[1] = b;
    in.src[2] = cc;
    in.aux = cf;
    in.flags = 0x80 | (isMadc ? 1 : 0) | (c.has(Mod::cc) ? 2 : 0) | (hi ? 8 : 0);
    return true;
  }
  if (c.has(Mod::wide))
    return lowerTernary(c, byIntType<MadWideH, kW16 | kW32>(t), t, widen(t), OpClass::Mul);
  if (c.has(Mod::hi)) {
    if (c.has(Mod::sat))
      return lowerTernary(c, madHiSatFn, t, t, OpClass::Mul);
    return lowerTernary(c, byIntType<Tern<MadHiOp>::H>(t), t, t, OpClass::Mul);
  }
#if PTXSIM_HOST_AVX2
  if (hostHasAvx2())
    return lowerTernary(c, byIntType<TernAvx2<MadLoOp>::H>(t), t, t, OpClass::Mul);
#endif
  return lowerTernary(c, byIntType<Tern<MadLoOp>::H>(t), t, t, OpClass::Mul);
}

bool lowerMinMax(LowerCtx &c, bool isMax) {
  ScalarType t = c.type();
  if (isFloatForm(t))
    return lowerFloatArith(c, isMax ? FArith::Max : FArith::Min);
  if (t == ScalarType::u16x2 || t == ScalarType::s16x2) {
    ir::Opnd a = c.src(c.op(1), t), b = c.src(c.op(2), t);
    uint32_t d = c.dst(c.op(0));
    ir::Inst &in = c.emit(minMax16x2Fn);
    in.dst[0] = d;
    in.src[0] = a;
    in.src[1] = b;
    in.flags = (isMax ? 1 : 0) | (t == ScalarType::s16x2 ? 2 : 0) | (c.has(Mod::relu) ? 4 : 0);
    return true;
  }
  if (c.has(Mod::relu)) {
    ir::Opnd a = c.src(c.op(1), t), b = c.src(c.op(2), t);
    uint32_t d = c.dst(c.op(0));
    ir::Inst &in = c.emit(minMaxReluFn);
    in.dst[0] = d;
    in.src[0] = a;
    in.src[1] = b;
    in.flags = isMax ? 1 : 0;
    return true;
  }
  return isMax ? lowerBinary<Bin<MaxOp>>(c, t) : lowerBinary<Bin<MinOp>>(c, t);
}

bool lowerLogic(LowerCtx &c, unsigned op) { // 0 and 1 or 2 xor 3 not 4 cnot
  ScalarType t = c.type();
  if (t == ScalarType::pred) {
    uint16_t a, b = ir::kPredTrue;
    uint32_t xa, xb = 0;
    c.predSrc(c.op(1), a, xa);
    if (op < 3)
      c.predSrc(c.op(2), b, xb);
    uint16_t d = c.predDst(c.op(0));
    ir::Inst &in = c.emit(predLogicFn);
    in.dst[0] = d;
    in.psrc[0] = a;
    in.psrcXor[0] = xa;
    in.psrc[1] = b;
    in.psrcXor[1] = xb;
    in.aux = op == 4 ? 3 : op;
    return true;
  }
#if PTXSIM_HOST_AVX2
  if (hostHasAvx2() && op < 3)
    return op == 0 ? lowerBinary<BinAvx2<AndOp>>(c, t)
                   : op == 1 ? lowerBinary<BinAvx2<OrOp>>(c, t) : lowerBinary<BinAvx2<XorOp>>(c, t);
#endif
  switch (op) {
  case 0: return lowerBinary<Bin<AndOp>>(c, t);
  case 1: return lowerBinary<Bin<OrOp>>(c, t);
  case 2: return lowerBinary<Bin<XorOp>>(c, t);
  case 3: return lowerUnary<Un<NotOp>>(c, t);
  default: return lowerUnary<Un<CnotOp>>(c, t);
  }
}

bool lowerMov(LowerCtx &c) {
  ScalarType t = c.type();
  const Operand &d = c.op(0), &s = c.op(1);
  if (t == ScalarType::pred) {
    uint16_t a;
    uint32_t xa;
    c.predSrc(s, a, xa);
    uint16_t pd = c.predDst(d);
    ir::Inst &in = c.emit(predLogicFn);
    in.dst[0] = pd;
    in.psrc[0] = a;
    in.psrcXor[0] = xa;
    in.aux = 4;
    return true;
  }
  if (t == ScalarType::b128) {
    // .b128 registers are two 64-bit slots; `{a, b}` names the low and high .b64 halves
    ir::Opnd lo, hi;
    if (s.kind == Operand::Kind::Vector) {
      if (s.elems.size() != 2)
        return c.unsupported("b128 vector");
      lo = c.src(s.elems[0], ScalarType::b64);
      hi = c.src(s.elems[1], ScalarType::b64);
    } else if (s.kind == Operand::Kind::Reg && c.regBits(s) == 128) {
      lo = c.src(s, t);
      hi.reg = lo.reg + ir::kWarpSize;
    } else {
      return c.unsupported("b128 source");
    }
    uint32_t dl, dh;
    if (d.kind == Operand::Kind::Vector) {
      if (d.elems.size() != 2)
        return c.unsupported("b128 vector");
      dl = c.dst(d.elems[0]);
      dh = c.dst(d.elems[1]);
    } else {
      dl = c.dst(d);
      dh = dl + ir::kWarpSize;
    }
    ir::Inst &in = c.emit(mov128Fn);
    in.src[0] = lo;
    in.src[1] = hi;
    in.nsrc = 2;
    in.dst[0] = dl;
    in.dst[1] = dh;
    in.ndst = 2;
    return true;
  }
  if (s.kind == Operand::Kind::Vector) { // pack
    unsigned n = (unsigned)s.elems.size();
    if (n > 5)
      return c.unsupported("vector");
    unsigned eb = typeBits(t) / n;
    ir::Opnd src[5];
    ScalarType et = eb == 8 ? ScalarType::b8 : eb == 16 ? ScalarType::b16 : eb == 32 ? ScalarType::b32 : ScalarType::b64;
    for (unsigned i = 0; i < n; ++i)
      src[i] = c.src(s.elems[i], et);
    uint32_t dr = c.dst(d);
    ir::Inst &in = c.emit(packFn);
    in.dst[0] = dr;
    for (unsigned i = 0; i < n; ++i)
      in.src[i] = src[i];
    in.nsrc = (uint8_t)n;
    in.aux = eb;
    return true;
  }
  if (d.kind == Operand::Kind::Vector) { // unpack
    unsigned n = (unsigned)d.elems.size();
    if (n > 4)
      return c.unsupported("vector");
    unsigned eb = typeBits(t) / n;
    ir::Opnd a = c.src(s, t);
    uint32_t dr[4];
    for (unsigned i = 0; i < n; ++i)
      dr[i] = c.dst(d.elems[i]);
    ir::Inst &in = c.emit(unpackFn);
    for (unsigned i = 0; i < n; ++i)
      in.dst[i] = dr[i];
    in.ndst = (uint8_t)n;
    in.src[0] = a;
    in.aux = eb;
    return true;
  }
  ir::Opnd a = c.src(s, t);
  uint32_t dr = c.dst(d);
  ir::Inst &in = c.emit(unaryFn<uint64_t, uint64_t, MovOp>);
  in.dst[0] = dr;
  in.src[0] = a;
  return true;
}

bool lowerSelp(LowerCtx &c) {
  ScalarType t = c.type();
  ir::Opnd a = c.src(c.op(1), t), b = c.src(c.op(2), t);
  uint16_t p;
  uint32_t x;
  c.predSrc(c.op(3), p, x);
  uint32_t d = c.dst(c.op(0));
  ir::Inst &in = c.emit(selpFn);
  in.dst[0] = d;
  in.src[0] = a;
  in.src[1] = b;
  in.psrc[0] = p;
  in.psrcXor[0] = x;
  return true;
}

int cmpCode(LowerCtx &c, bool &unsignedCmp) {
  Mod m = c.first({Mod::eq, Mod::ne, Mod::lt, Mod::le, Mod::gt, Mod::ge, Mod::lo, Mod::ls, Mod::hi,
                   Mod::hs});
  unsignedCmp = false;
  switch (m) {
  case Mod::eq: return kEq;
  case Mod::ne: return kNe;
  case Mod::lt: return kLt;
  case Mod::le: return kLe;
  case Mod::gt: return kGt;
  case Mod::ge: return kGe;
  case Mod::lo: unsignedCmp = true; return kLt;
  case Mod::ls: unsignedCmp = true; return kLe;
  case Mod::hi: unsignedCmp = true; return kGt;
  case Mod::hs: unsignedCmp = true; return kGe;
  default: return -1;
  }
}

ScalarType asUnsigned(ScalarType t) {
  switch (typeBits(t)) {
  case 8: return ScalarType::u8;
  case 16: return ScalarType::u16;
  case 32: return ScalarType::u32;
  default: return ScalarType::u64;
  }
}

unsigned boolOp(LowerCtx &c) {
  Mod b = c.first({Mod::and_, Mod::or_, Mod::xor_});
  return b == Mod::and_ ? 1 : b == Mod::or_ ? 2 : b == Mod::xor_ ? 3 : 0;
}

bool lowerSetp(LowerCtx &c, bool isSet) {
  // setp.cmp.type p[|q], a, b[, c]   set.cmp.dtype.stype d, a, b[, c]
  ScalarType t = isSet ? c.type(1) : c.type(0);
  if (isFloatForm(t))
    return lowerFloatCompare(c, isSet);
  bool uns;
  int cmp = cmpCode(c, uns);
  if (cmp < 0)
    return c.unsupported("comparison");
  ScalarType ct = uns ? asUnsigned(t) : t;
  unsigned bop = boolOp(c);
  ir::Opnd a = c.src(c.op(1), t), b = c.src(c.op(2), t);
  uint16_t p = ir::kPredTrue;
  uint32_t x = 0;
  if (bop)
    c.predSrc(c.op(3), p, x);
  uint32_t d0, d1 = ~0u;
  if (isSet) {
    d0 = c.dst(c.op(0));
  } else if (c.op(0).kind == Operand::Kind::Pair) {
    d0 = c.predDst(c.op(0).elems[0]);
    d1 = c.predDst(c.op(0).elems[1]);
  } else {
    d0 = c.predDst(c.op(0));
  }
  ir::ExecFn fn = isSet ? byIntType<SetH>(ct) : byIntType<SetpH>(ct);
  if (!fn)
    return c.unsupported("type");
  ir::Inst &in = c.emit(fn);
  in.dst[0] = d0;
  in.dst[1] = d1;
  in.src[0] = a;
  in.src[1] = b;
  in.psrc[0] = p;
  in.psrcXor[0] = x;
  in.aux = (uint32_t)cmp;
  in.flags = (uint8_t)(bop | (isSet && c.type(0) == ScalarType::f32 ? 4 : 0));
  return true;
}

template <class T> struct PopcH { static constexpr ir::ExecFn fn = popcFn<std::make_unsigned_t<T>>; };
template <class T> struct ClzH { static constexpr ir::ExecFn fn = clzFn<std::make_unsigned_t<T>>; };
template <class T> struct BfindH { static constexpr ir::ExecFn fn = bfindFn<T>; };
template <class T> struct BrevH { static constexpr ir::ExecFn fn = brevFn<std::make_unsigned_t<T>>; };
template <class T> struct BfeH { static constexpr ir::ExecFn fn = bfeFn<T>; };
template <class T> struct BfiH { static constexpr ir::ExecFn fn = bfiFn<std::make_unsigned_t<T>>; };
template <class T> struct ShlH { static constexpr ir::ExecFn fn = shlFn<T>; };
template <class T> struct ShrH { static constexpr ir::ExecFn fn = shrFn<T>; };
#if PTXSIM_HOST_AVX2
template <class T> struct ShlAvx2H {
  static constexpr ir::ExecFn fn = sizeof(T) >= 4 ? shiftAvx2<std::make_unsigned_t<T>, true> : shlFn<T>;
};
template <class T> struct ShrAvx2H {
  static constexpr ir::ExecFn fn = sizeof(T) >= 4 ? shiftAvx2<T, false> : shrFn<T>;
};
#endif
template <class T> struct SlctH { static constexpr ir::ExecFn fn = slctFn<T>; };
template <class T> struct SzextH { static constexpr ir::ExecFn fn = szextFn<T>; };

bool lowerResultU32(LowerCtx &c, ir::ExecFn fn, uint8_t flags = 0) {
  if (!fn)
    return c.unsupported("type");
  ScalarType t = c.type();
  ir::Opnd a = c.src(c.op(1), t);
  uint32_t d = c.dst(c.op(0));
  ir::Inst &in = c.emit(fn);
  in.dst[0] = d;
  in.src[0] = a;
  in.flags = flags;
  return true;
}

bool lowerShift(LowerCtx &c, bool left) {
  ScalarType t = c.type();
  ir::ExecFn fn = left ? byIntType<ShlH>(asUnsigned(t)) : byIntType<ShrH>(t);
#if PTXSIM_HOST_AVX2
  if (fn && hostHasAvx2())
    fn = left ? byIntType<ShlAvx2H>(asUnsigned(t)) : byIntType<ShrAvx2H>(t);
#endif
  if (!fn)
    return c.unsupported("type");
  ir::Opnd a = c.src(c.op(1), t), b = c.src(c.op(2), ScalarType::u32);
  uint32_t d = c.dst(c.op(0));
  ir::Inst &in = c.emit(fn);
  in.dst[0] = d;
  in.src[0] = a;
  in.src[1] = b;
  return true;
}

/// The handlers the JIT may compile to native code (ptx/jit/JitOps.h): wrapping integer
/// arithmetic, bitwise operations, shifts, moves, selects and compares.
void describeForJit() {
  using jit::Op;
  jit::describeInts<Bin<AddOp>::H>(Op::Add);
  jit::describeInts<Bin<SubOp>::H>(Op::Sub);
  jit::describeInts<Bin<MulLoOp>::H>(Op::MulLo);
  jit::describeInts<Tern<MadLoOp>::H>(Op::MadLo);
  jit::describeInts<Bin<MinOp>::H>(Op::Min);
  jit::describeInts<Bin<MaxOp>::H>(Op::Max);
  jit::describeInts<Bin<AndOp>::H>(Op::And);
  jit::describeInts<Bin<OrOp>::H>(Op::Or);
  jit::describeInts<Bin<XorOp>::H>(Op::Xor);
  jit::describeInts<Un<NotOp>::H>(Op::Not);
  jit::describeInts<ShlH>(Op::Shl);
  jit::describeInts<ShrH>(Op::Shr);
  jit::describeInts<SetpH>(Op::Setp);
  jit::describe(unaryFn<uint64_t, uint64_t, MovOp>, Op::Mov, jit::Type::U64);
  jit::describe(selpFn, Op::Selp, jit::Type::U64);
  jit::describe(MulWideH<int16_t>::fn, Op::MulWide, jit::Type::S16);
  jit::describe(MulWideH<uint16_t>::fn, Op::MulWide, jit::Type::U16);
  jit::describe(MulWideH<int32_t>::fn, Op::MulWide, jit::Type::S32);
  jit::describe(MulWideH<uint32_t>::fn, Op::MulWide, jit::Type::U32);
#if PTXSIM_HOST_AVX2
  jit::describeInts<BinAvx2<AddOp>::H>(Op::Add);
  jit::describeInts<BinAvx2<SubOp>::H>(Op::Sub);
  jit::describeInts<TernAvx2<MadLoOp>::H>(Op::MadLo);
  jit::describeInts<BinAvx2<AndOp>::H>(Op::And);
  jit::describeInts<BinAvx2<OrOp>::H>(Op::Or);
  jit::describeInts<BinAvx2<XorOp>::H>(Op::Xor);
  jit::describeInts<ShlAvx2H>(Op::Shl);
  jit::describeInts<ShrAvx2H>(Op::Shr);
  jit::describe(MulWideAvx2H<int16_t>::fn, Op::MulWide, jit::Type::S16);
  jit::describe(MulWideAvx2H<uint16_t>::fn, Op::MulWide, jit::Type::U16);
  jit::describe(MulWideAvx2H<int32_t>::fn, Op::MulWide, jit::Type::S32);
  jit::describe(MulWideAvx2H<uint32_t>::fn, Op::MulWide, jit::Type::U32);
#endif
}

} // namespace

void registerIntOps() {
  registerLowering("add", [](LowerCtx &c) { return lowerAddSub(c, false); });
  registerLowering("sub", [](LowerCtx &c) { return lowerAddSub(c, true); });
  registerLowering("addc", [](LowerCtx &c) { return lowerAddcSubc(c, false); });
  registerLowering("subc", [](LowerCtx &c) { return lowerAddcSubc(c, true); });
  registerLowering("mul", lowerMul);
  registerLowering("mad", lowerMad);
  if (lookupOpcode("madc") != kInvalidOpcode)
    registerLowering("madc", lowerMad);
  registerLowering("mul24", [](LowerCtx &c) {
    ScalarType t = c.type();
    return c.has(Mod::hi) ? lowerBinary<Bin<Mul24HiOp>, kW32>(c, t, OpClass::Mul)
                          : lowerBinary<Bin<Mul24LoOp>, kW32>(c, t, OpClass::Mul);
  });
  registerLowering("mad24", [](LowerCtx &c) {
    ScalarType t = c.type();
    if (c.has(Mod::hi))
      return c.has(Mod::sat) ? lowerTernary(c, mad24HiSatFn, t, t, OpClass::Mul)
                             : lowerTernary(c, byIntType<Tern<Mad24HiOp>::H, kW32>(t), t, t, OpClass::Mul);
    return lowerTernary(c, byIntType<Tern<Mad24LoOp>::H, kW32>(t), t, t, OpClass::Mul);
  });
  registerLowering("sad", [](LowerCtx &c) {
    ScalarType t = c.type();
    return lowerTernary(c, byIntType<Tern<SadOp>::H>(t), t, t, OpClass::Alu);
  });
  registerLowering("div", [](LowerCtx &c) {
    ScalarType t = c.type();
    if (isFloatForm(t))
      return lowerFloatArith(c, FArith::Div);
    return lowerBinary<Bin<DivOp>>(c, t, OpClass::Sfu) && markIntDivide(c, t);
  });
  registerLowering("rem", [](LowerCtx &c) {
    ScalarType t = c.type();
    return lowerBinary<Bin<RemOp>>(c, t, OpClass::Sfu) && markIntDivide(c, t);
  });
  registerLowering("abs", [](LowerCtx &c) {
    ScalarType t = c.type();
    if (isFloatForm(t))
      return lowerFloatArith(c, FArith::Abs);
    return lowerUnary<Un<AbsOp>, kW16to64 | kSignedOnly>(c, t);
  });
  registerLowering("neg", [](LowerCtx &c) {
    ScalarType t = c.type();
    if (isFloatForm(t))
      return lowerFloatArith(c, FArith::Neg);
    return lowerUnary<Un<NegOp>>(c, t);
  });
  registerLowering("min", [](LowerCtx &c) { return lowerMinMax(c, false); });
  registerLowering("max", [](LowerCtx &c) { return lowerMinMax(c, true); });
  registerLowering("and", [](LowerCtx &c) { return lowerLogic(c, 0); });
  registerLowering("or", [](LowerCtx &c) { return lowerLogic(c, 1); });
  registerLowering("xor", [](LowerCtx &c) { return lowerLogic(c, 2); });
  registerLowering("not", [](LowerCtx &c) { return lowerLogic(c, 3); });
  registerLowering("cnot", [](LowerCtx &c) { return lowerLogic(c, 4); });
  registerLowering("popc", [](LowerCtx &c) { return lowerResultU32(c, byIntType<PopcH, kW32 | kW64>(c.type())); });
  registerLowering("clz", [](LowerCtx &c) { return lowerResultU32(c, byIntType<ClzH, kW32 | kW64>(c.type())); });
  registerLowering("bfind", [](LowerCtx &c) {
    return lowerResultU32(c, byIntType<BfindH, kW32 | kW64>(c.type()), c.has(Mod::shiftamt) ? 1 : 0);
  });
  registerLowering("brev", [](LowerCtx &c) { return lowerResultU32(c, byIntType<BrevH, kW32 | kW64>(c.type())); });
  registerLowering("bfe", [](LowerCtx &c) {
    ScalarType t = c.type();
    ir::ExecFn fn = byIntType<BfeH, kW32 | kW64>(t);
    if (!fn)
      return c.unsupported("type");
    ir::Opnd a = c.src(c.op(1), t), b = c.src(c.op(2), ScalarType::u32),
             l = c.src(c.op(3), ScalarType::u32);
    uint32_t d = c.dst(c.op(0));
    ir::Inst &in = c.emit(fn);
    in.dst[0] = d;
    in.src[0] = a;
    in.src[1] = b;
    in.src[2] = l;
    return true;
  });
  registerLowering("bfi", [](LowerCtx &c) {
    ScalarType t = c.type();
    ir::ExecFn fn = byIntType<BfiH, kW32 | kW64>(t);
    if (!fn)
      return c.unsupported("type");
    ir::Opnd a = c.src(c.op(1), t), b = c.src(c.op(2), t), p = c.src(c.op(3), ScalarType::u32),
             l = c.src(c.op(4), ScalarType::u32);
    uint32_t d = c.dst(c.op(0));
    ir::Inst &in = c.emit(fn);
    in.dst[0] = d;
    in.src[0] = a;
    in.src[1] = b;
    in.src[2] = p;
    in.src[3] = l;
    return true;
  });
  registerLowering("prmt", [](LowerCtx &c) {
    Mod m = c.first({Mod::f4e, Mod::b4e, Mod::rc8, Mod::ecl, Mod::ecr, Mod::rc16});
    PrmtMode mode = m == Mod::f4e ? PrmtMode::F4e : m == Mod::b4e ? PrmtMode::B4e
                  : m == Mod::rc8 ? PrmtMode::Rc8 : m == Mod::ecl ? PrmtMode::Ecl
                  : m == Mod::ecr ? PrmtMode::Ecr : m == Mod::rc16 ? PrmtMode::Rc16
                                  : PrmtMode::Default;
    bool ok = lowerTernary(c, prmtFn, ScalarType::b32, ScalarType::b32, OpClass::Alu);
    c.fn().code.back().aux = (uint32_t)mode;
    return ok;
  });
  registerLowering("shf", [](LowerCtx &c) {
    bool ok = lowerTernary(c, shfFn, ScalarType::b32, ScalarType::u32, OpClass::Alu);
    c.fn().code.back().flags = (c.has(Mod::l) ? 1 : 0) | (c.has(Mod::wrap) ? 2 : 0);
    return ok;
  });
  registerLowering("shl", [](LowerCtx &c) { return lowerShift(c, true); });
  registerLowering("shr", [](LowerCtx &c) { return lowerShift(c, false); });
  registerLowering("lop3", [](LowerCtx &c) {
    ir::Opnd a = c.src(c.op(1), ScalarType::b32), b = c.src(c.op(2), ScalarType::b32),
             cc = c.src(c.op(3), ScalarType::b32);
    uint32_t d = c.dst(c.op(0));
    ir::Inst &in = c.emit(lop3Fn);
    in.dst[0] = d;
    in.src[0] = a;
    in.src[1] = b;
    in.src[2] = cc;
    in.aux = (uint32_t)(c.op(4).ival & 0xff);
    return true;
  });
  registerLowering("dp4a", [](LowerCtx &c) {
    bool as = isIntType(c.type(0)) && typeClass(c.type(0)) == TypeClass::Signed;
    bool bs = isIntType(c.type(1)) && typeClass(c.type(1)) == TypeClass::Signed;
    ir::ExecFn fn = as ? (bs ? dp4aFn<true, true> : dp4aFn<true, false>)
                       : (bs ? dp4aFn<false, true> : dp4aFn<false, false>);
    return lowerTernary(c, fn, ScalarType::b32, ScalarType::b32, OpClass::Mul);
  });
  registerLowering("dp2a", [](LowerCtx &c) {
    bool as = typeClass(c.type(0)) == TypeClass::Signed;
    bool bs = typeClass(c.type(1)) == TypeClass::Signed;
    ir::ExecFn fn = as ? (bs ? dp2aFn<true, true> : dp2aFn<true, false>)
                       : (bs ? dp2aFn<false, true> : dp2aFn<false, false>);
    bool ok = lowerTernary(c, fn, ScalarType::b32, ScalarType::b32, OpClass::Mul);
    c.fn().code.back().flags = c.has(Mod::hi) ? 1 : 0;
    return ok;
  });
  registerLowering("bmsk", [](LowerCtx &c) {
    ir::Opnd a = c.src(c.op(1), ScalarType::b32), b = c.src(c.op(2), ScalarType::b32);
    uint32_t d = c.dst(c.op(0));
    ir::Inst &in = c.emit(bmskFn);
    in.dst[0] = d;
    in.src[0] = a;
    in.src[1] = b;
    in.flags = c.has(Mod::wrap) ? 2 : 0;
    return true;
  });
  registerLowering("szext", [](LowerCtx &c) {
    ir::ExecFn fn = byIntType<SzextH, kW32>(c.type());
    if (!fn)
      return c.unsupported("type");
    ir::Opnd a = c.src(c.op(1), c.type()), b = c.src(c.op(2), ScalarType::u32);
    uint32_t d = c.dst(c.op(0));
    ir::Inst &in = c.emit(fn);
    in.dst[0] = d;
    in.src[0] = a;
    in.src[1] = b;
    in.flags = c.has(Mod::wrap) ? 2 : 0;
    return true;
  });
  registerLowering("mov", lowerMov);
  registerLowering("selp", lowerSelp);
  registerLowering("setp", [](LowerCtx &c) { return lowerSetp(c, false); });
  registerLowering("set", [](LowerCtx &c) { return lowerSetp(c, true); });
  registerLowering("slct", [](LowerCtx &c) {
    ScalarType t = c.type(0);
    ir::ExecFn fn = byIntType<SlctH>(asUnsigned(t));
    if (isFloatForm(t))
      fn = typeBits(t) == 64 ? slctFn<uint64_t> : slctFn<uint32_t>;
    if (!fn)
      return c.unsupported("type");
    bool ok = lowerTernary(c, fn, t, c.type(1), OpClass::Alu);
    c.fn().code.back().flags = c.type(1) == ScalarType::f32 ? 1 : 0;
    return ok;
  });
  describeForJit();
}

} // namespace ptxsim::ptx::exec

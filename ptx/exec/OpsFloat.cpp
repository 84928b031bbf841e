// Floating-point arithmetic, transcendental approximations, testp and float comparisons.
//
// One handler per (type, operation, rounding mode, modifier set), chosen at lowering time. The
// common .rn form without .ftz/.sat is a plain loop over lanes; the others read the modifier
// bits once per warp. Per-lane semantics all come from Numerics.h. f32/f64 results that are NaN
// become the PTX canonical NaN, as the hardware produces, except for the sign/bit operations
// (abs, neg, copysign), which keep the payload.

#include "ptx/exec/Numerics.h"
#include "ptx/exec/OpsCommon.h"
#include "ptx/jit/JitOps.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace ptxsim::ptx::exec {
namespace {

using ir::Inst;
using ir::OpClass;

// Modifier bits in Inst::flags.
enum : uint8_t { kFtz = 1, kSat = 2, kRelu = 4, kBf16 = 8, kNaNMod = 16, kXorsignAbs = 32, kAbs3 = 64 };

template <class T> struct FT;
template <> struct FT<float> {
  static float ftz(float x) { return ftz32(x); }
  static float sat(float x) { return sat32(x); }
  static float canon(float x) { return canonicalNaNF32(x); }
};
template <> struct FT<double> {
  static double ftz(double x) { return x; } // f64 never flushes
  static double sat(double x) { return sat64(x); }
  static double canon(double x) { return canonicalNaNF64(x); }
};

// --- per-lane operations: f(T..., Rnd); kCanon says whether a NaN result is canonicalised ----

struct AddO {
  static constexpr bool kCanon = true;
  static float f(float a, float b, Rnd r) { return addF32(a, b, r); }
  static double f(double a, double b, Rnd r) { return addF64(a, b, r); }
};
struct SubO {
  static constexpr bool kCanon = true;
  static float f(float a, float b, Rnd r) { return subF32(a, b, r); }
  static double f(double a, double b, Rnd r) { return subF64(a, b, r); }
};
struct MulO {
  static constexpr bool kCanon = true;
  static float f(float a, float b, Rnd r) { return mulF32(a, b, r); }
  static double f(double a, double b, Rnd r) { return mulF64(a, b, r); }
};
struct DivO {
  static constexpr bool kCanon = true;
  static float f(float a, float b, Rnd r) { return divF32(a, b, r); }
  static double f(double a, double b, Rnd r) { return divF64(a, b, r); }
};
struct DivApproxO {
  static constexpr bool kCanon = true;
  static float f(float a, float b, Rnd) { return divApproxF32(a, b); }
};
struct DivFullO {
  static constexpr bool kCanon = true;
  static float f(float a, float b, Rnd) { return divFullF32(a, b); }
};
struct FmaO {
  static constexpr bool kCanon = true;
  static float f(float a, float b, float c, Rnd r) { return fmaF32(a, b, c, r); }
  static double f(double a, double b, double c, Rnd r) { return fmaF64(a, b, c, r); }
};
struct MinO {
  static constexpr bool kCanon = false; // already canonical
  static float f(float a, float b, Rnd) { return minF32(a, b); }
  static double f(double a, double b, Rnd) { return minF64(a, b); }
};
struct MaxO {
  static constexpr bool kCanon = false;
  static float f(float a, float b, Rnd) { return maxF32(a, b); }
  static double f(double a, double b, Rnd) { return maxF64(a, b); }
};
struct MinNaNO {
  static constexpr bool kCanon = false;
  static float f(float a, float b, Rnd) { return minNaNF32(a, b); }
  static double f(double a, double b, Rnd) { return minNaNF64(a, b); }
};
struct MaxNaNO {
  static constexpr bool kCanon = false;
  static float f(float a, float b, Rnd) { return maxNaNF32(a, b); }
  static double f(double a, double b, Rnd) { return maxNaNF64(a, b); }
};
struct CopysignO {
  static constexpr bool kCanon = false;
  static float f(float a, float b, Rnd) { return copysignF32(a, b); }
  static double f(double a, double b, Rnd) { return copysignF64(a, b); }
};
struct AbsO {
  static constexpr bool kCanon = false;
  static float f(float a, Rnd) { return absF32(a); }
  static double f(double a, Rnd) { return absF64(a); }
};
struct NegO {
  static constexpr bool kCanon = false;
  static float f(float a, Rnd) { return negF32(a); }
  static double f(double a, Rnd) { return negF64(a); }
};
struct SqrtO {
  static constexpr bool kCanon = true;
  static float f(float a, Rnd r) { return sqrtF32(a, r); }
  static double f(double a, Rnd r) { return sqrtF64(a, r); }
};
struct RcpO {
  static constexpr bool kCanon = true;
  static float f(float a, Rnd r) { return rcpF32(a, r); }
  static double f(double a, Rnd r) { return rcpF64(a, r); }
};
#define PTXSIM_APPROX_OP(NAME, F32EXPR, F64EXPR)                                                   \
  struct NAME {                                                                                    \
    static constexpr bool kCanon = true;                                                           \
    static float f(float x, Rnd) { return F32EXPR; }                                               \
    static double f(double x, Rnd) { return F64EXPR; }                                             \
  };
PTXSIM_APPROX_OP(RcpApproxO, rcpApproxF32(x), 1.0 / x)
PTXSIM_APPROX_OP(RcpApproxFtzF64O, rcpApproxF32(x), rcpApproxFtzF64(x))
PTXSIM_APPROX_OP(SqrtApproxO, sqrtApproxF32(x), std::sqrt(x))
PTXSIM_APPROX_OP(RsqrtApproxO, rsqrtApproxF32(x), rsqrtApproxF64(x))
PTXSIM_APPROX_OP(RsqrtApproxFtzF64O, rsqrtApproxF32(x), ftz64(rsqrtApproxF64(ftz64(x))))
PTXSIM_APPROX_OP(SinO, sinApproxF32(x), std::sin(x))
PTXSIM_APPROX_OP(CosO, cosApproxF32(x), std::cos(x))
PTXSIM_APPROX_OP(Lg2O, lg2ApproxF32(x), std::log2(x))
PTXSIM_APPROX_OP(Ex2O, ex2ApproxF32(x), std::exp2(x))
PTXSIM_APPROX_OP(TanhO, tanhApproxF32(x), std::tanh(x))
#undef PTXSIM_APPROX_OP

template <class T, class Op> inline uint64_t finish(T r) {
  if constexpr (Op::kCanon)
    return toBits<T>(FT<T>::canon(r));
  else
    return toBits<T>(r);
}

// --- f32 / f64 handlers -----------------------------------------------------------------------
// Mods == false: no .ftz/.sat (the hot path). Mods == true: flags kFtz (inputs and result) and
// kSat (result) read once per warp.

template <class T, class Op, Rnd R, bool Mods> void fUnary(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]);
  if constexpr (!Mods) {
    forLanes(m, [&](unsigned l) { d[l] = finish<T, Op>(Op::f(fromBits<T>(a[l]), R)); });
  } else {
    const bool ftz = in.flags & kFtz, sat = in.flags & kSat;
    forLanes(m, [&](unsigned l) {
      T x = fromBits<T>(a[l]);
      if (ftz)
        x = FT<T>::ftz(x);
      T r = Op::f(x, R);
      if (ftz)
        r = FT<T>::ftz(r);
      if (sat)
        r = FT<T>::sat(r);
      d[l] = finish<T, Op>(r);
    });
  }
}

template <class T, class Op, Rnd R, bool Mods> void fBinary(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]);
  if constexpr (!Mods) {
    forLanes(m, [&](unsigned l) { d[l] = finish<T, Op>(Op::f(fromBits<T>(a[l]), fromBits<T>(b[l]), R)); });
  } else {
    const bool ftz = in.flags & kFtz, sat = in.flags & kSat;
    forLanes(m, [&](unsigned l) {
      T x = fromBits<T>(a[l]), y = fromBits<T>(b[l]);
      if (ftz) {
        x = FT<T>::ftz(x);
        y = FT<T>::ftz(y);
      }
      T r = Op::f(x, y, R);
      if (ftz)
        r = FT<T>::ftz(r);
      if (sat)
        r = FT<T>::sat(r);
      d[l] = finish<T, Op>(r);
    });
  }
}

template <class T, class Op, Rnd R, bool Mods> void fTernary(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]), *c = w.src(in.src[2]);
  if constexpr (!Mods) {
    forLanes(m, [&](unsigned l) {
      d[l] = finish<T, Op>(Op::f(fromBits<T>(a[l]), fromBits<T>(b[l]), fromBits<T>(c[l]), R));
    });
  } else {
    const bool ftz = in.flags & kFtz, sat = in.flags & kSat;
    forLanes(m, [&](unsigned l) {
      T x = fromBits<T>(a[l]), y = fromBits<T>(b[l]), z = fromBits<T>(c[l]);
      if (ftz) {
        x = FT<T>::ftz(x);
        y = FT<T>::ftz(y);
        z = FT<T>::ftz(z);
      }
      T r = Op::f(x, y, z, R);
      if (ftz)
        r = FT<T>::ftz(r);
      if (sat)
        r = FT<T>::sat(r);
      d[l] = finish<T, Op>(r);
    });
  }
}

/// min/max with .xorsign.abs (flags) or the three-input form (in.nsrc == 3, optional .abs).
template <class T> void fMinMaxExt(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]);
  const uint64_t *c = in.nsrc == 3 ? w.src(in.src[2]) : nullptr;
  const bool ftz = in.flags & kFtz, nanProp = in.flags & kNaNMod, isMax = in.aux;
  const bool xorsign = in.flags & kXorsignAbs, abs = (in.flags & kAbs3) || xorsign;
  auto mm = [&](T x, T y) {
    if (isMax)
      return nanProp ? MaxNaNO::f(x, y, Rnd::RN) : MaxO::f(x, y, Rnd::RN);
    return nanProp ? MinNaNO::f(x, y, Rnd::RN) : MinO::f(x, y, Rnd::RN);
  };
  forLanes(m, [&](unsigned l) {
    T x = fromBits<T>(a[l]), y = fromBits<T>(b[l]);
    if (ftz) {
      x = FT<T>::ftz(x);
      y = FT<T>::ftz(y);
    }
    bool sign = std::signbit(x) != std::signbit(y);
    if (abs) {
      x = AbsO::f(x, Rnd::RN);
      y = AbsO::f(y, Rnd::RN);
    }
    T r = mm(x, y);
    if (c) {
      T z = fromBits<T>(c[l]);
      if (ftz)
        z = FT<T>::ftz(z);
      if (abs)
        z = AbsO::f(z, Rnd::RN);
      r = mm(r, z);
    }
    if (xorsign && r == r && sign)
      r = NegO::f(r, Rnd::RN);
    d[l] = toBits<T>(r);
  });
}

/// fma.rnd{.sat}.f32.{f16,bf16} d, a, b, c: a and b are halves, c and d f32.
void fmaMixedFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]), *c = w.src(in.src[2]);
  const bool bf = in.flags & kBf16, sat = in.flags & kSat;
  const Rnd r = (Rnd)in.aux;
  forLanes(m, [&](unsigned l) {
    float x = bf ? bf16ToF32((uint16_t)a[l]) : f16ToF32((uint16_t)a[l]);
    float y = bf ? bf16ToF32((uint16_t)b[l]) : f16ToF32((uint16_t)b[l]);
    float v = fmaF32(x, y, fromBits<float>(c[l]), r); // the half product is exact in f32
    if (sat)
      v = sat32(v);
    d[l] = toBits<float>(canonicalNaNF32(v));
  });
}

template <class T> void testpFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  const uint64_t *a = w.src(in.src[0]);
  const TestpKind k = (TestpKind)in.aux;
  uint32_t r = 0;
  forLanes(m, [&](unsigned l) {
    bool v;
    if constexpr (std::is_same_v<T, float>)
      v = testpF32(k, fromBits<float>(a[l]));
    else
      v = testpF64(k, fromBits<double>(a[l]));
    r |= uint32_t(v) << l;
  });
  writePred(w, (uint16_t)in.dst[0], m, r);
}

// --- handler selection ---------------------------------------------------------------------------

template <template <class, class, Rnd, bool> class H, class T, class Op> ir::ExecFn pickRnd(Rnd r, bool mods) {
  switch (r) {
  case Rnd::RZ: return mods ? H<T, Op, Rnd::RZ, true>::fn : H<T, Op, Rnd::RZ, false>::fn;
  case Rnd::RM: return mods ? H<T, Op, Rnd::RM, true>::fn : H<T, Op, Rnd::RM, false>::fn;
  case Rnd::RP: return mods ? H<T, Op, Rnd::RP, true>::fn : H<T, Op, Rnd::RP, false>::fn;
  default: return mods ? H<T, Op, Rnd::RN, true>::fn : H<T, Op, Rnd::RN, false>::fn;
  }
}
template <class T, class Op, Rnd R, bool M> struct UnH { static constexpr ir::ExecFn fn = fUnary<T, Op, R, M>; };
template <class T, class Op, Rnd R, bool M> struct BinH { static constexpr ir::ExecFn fn = fBinary<T, Op, R, M>; };
template <class T, class Op, Rnd R, bool M> struct TernH { static constexpr ir::ExecFn fn = fTernary<T, Op, R, M>; };

/// Handler for f32 (isF64 false) or f64.
template <template <class, class, Rnd, bool> class H, class Op> ir::ExecFn pickF(bool isF64, Rnd r, bool mods) {
  return isF64 ? pickRnd<H, double, Op>(r, mods) : pickRnd<H, float, Op>(r, mods);
}

#if defined(__x86_64__) && defined(__GNUC__)
/// fma.rn / mad.rn without .ftz/.sat on hosts with FMA instructions. A baseline x86-64 build
/// turns std::fma into a library call per lane (most of the cost of the instruction); this
/// handler is compiled for FMA, and is chosen only when the host has it. Same correctly
/// rounded result, same NaN canonicalisation. (No lambdas: they would not inherit the target.)
__attribute__((target("fma"))) inline float hostFma(float x, float y, float z) {
  return __builtin_fmaf(x, y, z);
}
__attribute__((target("fma"))) inline double hostFma(double x, double y, double z) {
  return __builtin_fma(x, y, z);
}
template <class T>
__attribute__((target("fma"))) void fmaRnHost(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]), *c = w.src(in.src[2]);
  if (m == kFullMask) {
    for (unsigned l = 0; l < kWarpSize; ++l)
      d[l] = toBits<T>(FT<T>::canon(hostFma(fromBits<T>(a[l]), fromBits<T>(b[l]), fromBits<T>(c[l]))));
    return;
  }
  for (uint32_t rest = m; rest; rest &= rest - 1) {
    unsigned l = (unsigned)__builtin_ctz(rest);
    d[l] = toBits<T>(FT<T>::canon(hostFma(fromBits<T>(a[l]), fromBits<T>(b[l]), fromBits<T>(c[l]))));
  }
}
bool hostHasFma() {
  static const bool v = __builtin_cpu_supports("fma");
  return v;
}
/// fmaRnHost<float> for a full warp on hosts with AVX2 and FMA: eight lanes an instruction. The
/// low 32 bits of two groups of four register slots are gathered into eight floats (in the
/// order 0 1 4 5 2 3 6 7 of the group: shufps within each 128-bit half), fused, NaNs replaced
/// by the canonical one, and written back zero-extended (unpacking with zero undoes the order),
/// as toBits<float> writes them. Same correctly rounded results, bit for bit: vfmadd on eight
/// lanes is the scalar one's operation, and both run under the host's default rounding.
/// A partial warp of at least kAvx2BlendLanes lanes computes every lane (the operation is total)
/// and keeps the other lanes' slots; fewer take fmaRnHost.
/// The low 32 bits of register slots p[0..7] as eight floats, in the order 0 1 4 5 2 3 6 7.
__attribute__((target("avx2"))) inline __m256 low8F32(const uint64_t *p) {
  return _mm256_shuffle_ps(_mm256_loadu_ps(reinterpret_cast<const float *>(p)),
                           _mm256_loadu_ps(reinterpret_cast<const float *>(p + 4)), 0x88);
}
__attribute__((target("avx2,fma"))) void fmaRnAvx2F32(ExecCtx &ctx, Warp &w, const Inst &in,
                                                      uint32_t m) {
  if (m != kFullMask && laneCount(m) < kAvx2BlendLanes)
    return fmaRnHost<float>(ctx, w, in, m);
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]), *c = w.src(in.src[2]);
  const __m256 canon = _mm256_castsi256_ps(_mm256_set1_epi32(int(kCanonicalNaNF32)));
  const __m256i zero = _mm256_setzero_si256();
  for (unsigned l = 0; l < kWarpSize; l += 8) {
    __m256 r = _mm256_fmadd_ps(low8F32(a + l), low8F32(b + l), low8F32(c + l));
    r = _mm256_blendv_ps(r, canon, _mm256_cmp_ps(r, r, _CMP_UNORD_Q));
    __m256i lo = _mm256_unpacklo_epi32(_mm256_castps_si256(r), zero);
    __m256i hi = _mm256_unpackhi_epi32(_mm256_castps_si256(r), zero);
    if (m != kFullMask) { // keep the other lanes' slots
      const __m256i bits = _mm256_set1_epi32(int(m >> l));
      const __m256i sel = _mm256_setr_epi64x(1, 2, 4, 8);
      const __m256i sel4 = _mm256_setr_epi64x(16, 32, 64, 128);
      const __m256i keepLo = _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_cvtepu32_epi64(
                                                    _mm256_castsi256_si128(bits)), sel), zero);
      const __m256i keepHi = _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_cvtepu32_epi64(
                                                    _mm256_castsi256_si128(bits)), sel4), zero);
      const __m256i oldLo = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(d + l));
      const __m256i oldHi = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(d + l + 4));
      lo = _mm256_blendv_epi8(lo, oldLo, keepLo);
      hi = _mm256_blendv_epi8(hi, oldHi, keepHi);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(d + l), lo);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(d + l + 4), hi);
  }
}
bool hostHasAvx2Fma() {
  static const bool v = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return v;
}
#endif

/// fma/mad handler: the host-FMA one where it applies (see fmaRnHost).
ir::ExecFn pickFma(bool isF64, Rnd r, bool mods) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (r == Rnd::RN && !mods && !isF64 && hostHasAvx2Fma())
    return fmaRnAvx2F32;
  if (r == Rnd::RN && !mods && hostHasFma())
    return isF64 ? fmaRnHost<double> : fmaRnHost<float>;
#endif
  return pickF<TernH, FmaO>(isF64, r, mods);
}

// --- .f16 / .bf16 / x2 ------------------------------------------------------------------------

inline uint16_t flush16(uint16_t h, bool bf) {
  uint16_t expMask = bf ? 0x7f80 : 0x7c00;
  return (h & expMask) == 0 ? uint16_t(h & 0x8000) : h;
}

struct HAdd { static uint16_t f(uint16_t a, uint16_t b, uint16_t, Rnd r, bool bf) { return bf ? addBF16(a, b, r) : addF16(a, b, r); } };
struct HSub { static uint16_t f(uint16_t a, uint16_t b, uint16_t, Rnd r, bool bf) { return bf ? subBF16(a, b, r) : subF16(a, b, r); } };
struct HMul { static uint16_t f(uint16_t a, uint16_t b, uint16_t, Rnd r, bool bf) { return bf ? mulBF16(a, b, r) : mulF16(a, b, r); } };
struct HFma { static uint16_t f(uint16_t a, uint16_t b, uint16_t c, Rnd r, bool bf) { return bf ? fmaBF16(a, b, c, r) : fmaF16(a, b, c, r); } };
struct HNeg { static uint16_t f(uint16_t a, uint16_t, uint16_t, Rnd, bool) { return negF16(a); } };
struct HAbs { static uint16_t f(uint16_t a, uint16_t, uint16_t, Rnd, bool) { return absF16(a); } };
struct HEx2 {
  static uint16_t f(uint16_t a, uint16_t, uint16_t, Rnd, bool bf) {
    return bf ? f32ToBF16(ex2HostF32(bf16ToF32(a))) : ex2ApproxF16(a);
  }
};
struct HTanh {
  static uint16_t f(uint16_t a, uint16_t, uint16_t, Rnd, bool bf) {
    return bf ? f32ToBF16(tanhHostF32(bf16ToF32(a))) : tanhApproxF16(a);
  }
};

/// Lane-wise 16-bit operation with N sources; X2: both halves of a packed value. Flags: kFtz,
/// kSat, kRelu, kBf16; in.aux = rounding mode.
template <class Op, unsigned N, bool X2> void halfFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]);
  const uint64_t *b = N >= 2 ? w.src(in.src[1]) : a;
  const uint64_t *c = N >= 3 ? w.src(in.src[2]) : a;
  const bool ftz = in.flags & kFtz, sat = in.flags & kSat, relu = in.flags & kRelu, bf = in.flags & kBf16;
  const Rnd r = (Rnd)in.aux;
  auto one = [&](uint16_t x, uint16_t y, uint16_t z) {
    if (ftz) {
      x = flush16(x, bf);
      y = flush16(y, bf);
      z = flush16(z, bf);
    }
    uint16_t v = Op::f(x, y, z, r, bf);
    if (ftz)
      v = flush16(v, bf);
    if (sat)
      v = bf ? satBF16(v) : satF16(v);
    if (relu)
      v = bf ? reluBF16(v) : reluF16(v);
    return v;
  };
  forLanes(m, [&](unsigned l) {
    uint32_t x = (uint32_t)a[l], y = (uint32_t)b[l], z = (uint32_t)c[l];
    if constexpr (X2)
      d[l] = packHalves(one(hiHalf(x), hiHalf(y), hiHalf(z)), one(loHalf(x), loHalf(y), loHalf(z)));
    else
      d[l] = one(loHalf(x), loHalf(y), loHalf(z));
  });
}

/// min/max on halves: flags kFtz, kNaNMod, kXorsignAbs, kBf16; aux = 1 for max.
template <bool X2> void halfMinMaxFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]);
  const bool ftz = in.flags & kFtz, nanProp = in.flags & kNaNMod, bf = in.flags & kBf16,
             xorsign = in.flags & kXorsignAbs, isMax = in.aux;
  auto one = [&](uint16_t x, uint16_t y) -> uint16_t {
    if (ftz) {
      x = flush16(x, bf);
      y = flush16(y, bf);
    }
    bool sign = ((x ^ y) & 0x8000) != 0;
    if (xorsign) {
      x &= 0x7fff;
      y &= 0x7fff;
    }
    uint16_t v;
    if (bf)
      v = isMax ? (nanProp ? maxNaNBF16(x, y) : maxBF16(x, y)) : (nanProp ? minNaNBF16(x, y) : minBF16(x, y));
    else
      v = isMax ? (nanProp ? maxNaNF16(x, y) : maxF16(x, y)) : (nanProp ? minNaNF16(x, y) : minF16(x, y));
    if (xorsign && sign && v != 0x7fff)
      v |= 0x8000;
    return v;
  };
  forLanes(m, [&](unsigned l) {
    uint32_t x = (uint32_t)a[l], y = (uint32_t)b[l];
    if constexpr (X2)
      d[l] = packHalves(one(hiHalf(x), hiHalf(y)), one(loHalf(x), loHalf(y)));
    else
      d[l] = one(loHalf(x), loHalf(y));
  });
}

// --- comparisons --------------------------------------------------------------------------------

enum FCmp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe, kEqu, kNeu, kLtu, kLeu, kGtu, kGeu, kNum, kNan };

template <int C, class V> inline bool fcmp(V x, V y) {
  const bool u = x != x || y != y;
  switch (C) {
  case kEq: return !u && x == y;
  case kNe: return !u && x != y;
  case kLt: return x < y;
  case kLe: return x <= y;
  case kGt: return x > y;
  case kGe: return x >= y;
  case kEqu: return u || x == y;
  case kNeu: return u || x != y;
  case kLtu: return u || x < y;
  case kLeu: return u || x <= y;
  case kGtu: return u || x > y;
  case kGeu: return u || x >= y;
  case kNum: return !u;
  default: return u;
  }
}

/// Operand loaders: the value of a lane's register (16-bit kinds at bit Shift) as a host float.
struct LdF32 {
  static float ld(uint64_t v, bool ftz) { return ftz ? ftz32(fromBits<float>(v)) : fromBits<float>(v); }
};
struct LdF64 {
  static double ld(uint64_t v, bool) { return fromBits<double>(v); }
};
template <unsigned Shift> struct LdF16 {
  static float ld(uint64_t v, bool ftz) {
    uint16_t h = (uint16_t)(v >> Shift);
    return f16ToF32(ftz ? flush16(h, false) : h);
  }
};
template <unsigned Shift> struct LdBF16 {
  static float ld(uint64_t v, bool ftz) {
    uint16_t h = (uint16_t)(v >> Shift);
    return bf16ToF32(ftz ? flush16(h, true) : h);
  }
};

template <class Ld, int C> uint32_t cmpLoop(const uint64_t *a, const uint64_t *b, bool ftz, uint32_t m) {
  uint32_t r = 0;
  forLanes(m, [&](unsigned l) { r |= uint32_t(fcmp<C>(Ld::ld(a[l], ftz), Ld::ld(b[l], ftz))) << l; });
  return r;
}

template <class Ld> uint32_t cmpMask(const uint64_t *a, const uint64_t *b, unsigned cmp, bool ftz, uint32_t m) {
  switch (cmp) {
  case kEq: return cmpLoop<Ld, kEq>(a, b, ftz, m);
  case kNe: return cmpLoop<Ld, kNe>(a, b, ftz, m);
  case kLt: return cmpLoop<Ld, kLt>(a, b, ftz, m);
  case kLe: return cmpLoop<Ld, kLe>(a, b, ftz, m);
  case kGt: return cmpLoop<Ld, kGt>(a, b, ftz, m);
  case kGe: return cmpLoop<Ld, kGe>(a, b, ftz, m);
  case kEqu: return cmpLoop<Ld, kEqu>(a, b, ftz, m);
  case kNeu: return cmpLoop<Ld, kNeu>(a, b, ftz, m);
  case kLtu: return cmpLoop<Ld, kLtu>(a, b, ftz, m);
  case kLeu: return cmpLoop<Ld, kLeu>(a, b, ftz, m);
  case kGtu: return cmpLoop<Ld, kGtu>(a, b, ftz, m);
  case kGeu: return cmpLoop<Ld, kGeu>(a, b, ftz, m);
  case kNum: return cmpLoop<Ld, kNum>(a, b, ftz, m);
  default: return cmpLoop<Ld, kNan>(a, b, ftz, m);
  }
}

// Compare flags: bits 0-1 boolean op (0 none, 1 and, 2 or, 3 xor), bit 2 .ftz.
enum : uint8_t { kCmpFtz = 4 };

inline uint32_t applyBop(uint32_t r, uint8_t flags, uint32_t c) {
  switch (flags & 3) {
  case 1: return r & c;
  case 2: return r | c;
  case 3: return r ^ c;
  default: return r;
  }
}

/// setp: Lo is the loader of the scalar (or lower-half) value; Hi the upper half's for x2
/// (void for scalars). Scalar: p = t op c, q = !t op c. x2: p = t_lo op c, q = t_hi op c.
template <class Lo, class Hi> void setpFloatFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]);
  const bool ftz = in.flags & kCmpFtz;
  uint32_t p = cmpMask<Lo>(a, b, in.aux, ftz, m), q;
  if constexpr (std::is_void_v<Hi>)
    q = ~p;
  else
    q = cmpMask<Hi>(a, b, in.aux, ftz, m);
  if (in.flags & 3) {
    uint32_t c = w.pred(in.psrc[0], in.psrcXor[0]);
    p = applyBop(p, in.flags, c);
    q = applyBop(q, in.flags, c);
  }
  writePred(w, (uint16_t)in.dst[0], m, p);
  if (in.dst[1] != ~0u)
    writePred(w, (uint16_t)in.dst[1], m, q);
}

/// set: d = (t op c) ? in.off : 0 for scalars; for x2 sources each half of d is the 16-bit
/// in.off or 0.
template <class Lo, class Hi> void setFloatFn(ExecCtx &, Warp &w, const Inst &in, uint32_t m) {
  const uint64_t *a = w.src(in.src[0]), *b = w.src(in.src[1]);
  const bool ftz = in.flags & kCmpFtz;
  uint32_t lo = cmpMask<Lo>(a, b, in.aux, ftz, m), hi = 0;
  if constexpr (!std::is_void_v<Hi>)
    hi = cmpMask<Hi>(a, b, in.aux, ftz, m);
  if (in.flags & 3) {
    uint32_t c = w.pred(in.psrc[0], in.psrcXor[0]);
    lo = applyBop(lo, in.flags, c);
    hi = applyBop(hi, in.flags, c);
  }
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t one = (uint64_t)in.off;
  forLanes(m, [&](unsigned l) {
    uint64_t v = (lo >> l) & 1 ? one : 0;
    if constexpr (!std::is_void_v<Hi>)
      v |= ((hi >> l) & 1 ? one : 0) << 16;
    d[l] = v;
  });
}

// --- lowering -----------------------------------------------------------------------------------

Rnd rndOf(LowerCtx &c) {
  switch (c.first({Mod::rn, Mod::rz, Mod::rm, Mod::rp})) {
  case Mod::rz: return Rnd::RZ;
  case Mod::rm: return Rnd::RM;
  case Mod::rp: return Rnd::RP;
  default: return Rnd::RN;
  }
}

bool isHalfType(ScalarType t) {
  return t == ScalarType::f16 || t == ScalarType::f16x2 || t == ScalarType::bf16 || t == ScalarType::bf16x2;
}
bool isBf(ScalarType t) { return t == ScalarType::bf16 || t == ScalarType::bf16x2; }
bool isX2(ScalarType t) { return t == ScalarType::f16x2 || t == ScalarType::bf16x2; }

/// Emits `fn` with d = op(0) and n sources op(1..n) of type t.
ir::Inst *emitSimple(LowerCtx &c, ir::ExecFn fn, unsigned n, ScalarType t, OpClass cls) {
  ir::Opnd s[3];
  for (unsigned i = 0; i < n; ++i)
    s[i] = c.src(c.op(1 + i), t);
  uint32_t d = c.dst(c.op(0));
  ir::Inst &in = c.emit(fn, cls);
  in.dst[0] = d;
  in.ndst = 1;
  for (unsigned i = 0; i < n; ++i)
    in.src[i] = s[i];
  in.nsrc = (uint8_t)n;
  return &in;
}

template <class Op, unsigned N> ir::ExecFn halfH(bool x2) { return x2 ? halfFn<Op, N, true> : halfFn<Op, N, false>; }

bool lowerHalfArith(LowerCtx &c, FArith op, ScalarType t) {
  const bool x2 = isX2(t);
  ir::ExecFn fn = nullptr;
  unsigned n = 2;
  OpClass cls = OpClass::Half;
  switch (op) {
  case FArith::Add: fn = halfH<HAdd, 2>(x2); break;
  case FArith::Sub: fn = halfH<HSub, 2>(x2); break;
  case FArith::Mul: fn = halfH<HMul, 2>(x2); break;
  case FArith::Fma:
  case FArith::Mad:
    if (c.has(Mod::oob))
      return c.unsupported("fma.oob");
    fn = halfH<HFma, 3>(x2);
    n = 3;
    break;
  case FArith::Neg: fn = halfH<HNeg, 1>(x2); n = 1; break;
  case FArith::Abs: fn = halfH<HAbs, 1>(x2); n = 1; break;
  case FArith::Ex2: fn = halfH<HEx2, 1>(x2); n = 1; cls = OpClass::Sfu; break;
  case FArith::Tanh: fn = halfH<HTanh, 1>(x2); n = 1; cls = OpClass::Sfu; break;
  case FArith::Min:
  case FArith::Max: {
    ir::Inst *in = emitSimple(c, x2 ? halfMinMaxFn<true> : halfMinMaxFn<false>, 2, t, cls);
    in->flags = (c.has(Mod::ftz) ? kFtz : 0) | (c.has(Mod::NaN) ? kNaNMod : 0) |
                (c.has(Mod::xorsign) ? kXorsignAbs : 0) | (isBf(t) ? kBf16 : 0);
    in->aux = op == FArith::Max;
    return true;
  }
  default:
    return c.unsupported("half-precision form");
  }
  ir::Inst *in = emitSimple(c, fn, n, t, cls);
  // ex2.approx.ftz.bf16 flushes; ex2.approx.f16 has no .ftz
  in->flags = (c.has(Mod::ftz) ? kFtz : 0) | (c.has(Mod::sat) ? kSat : 0) | (c.has(Mod::relu) ? kRelu : 0) |
              (isBf(t) ? kBf16 : 0);
  in->aux = (uint32_t)rndOf(c);
  return true;
}

bool lowerMixedFma(LowerCtx &c) {
  ScalarType ht = c.type(1);
  if (ht != ScalarType::f16 && ht != ScalarType::bf16)
    return c.unsupported("fma type");
  ir::Opnd a = c.src(c.op(1), ht), b = c.src(c.op(2), ht), cc = c.src(c.op(3), ScalarType::f32);
  uint32_t d = c.dst(c.op(0));
  ir::Inst &in = c.emit(fmaMixedFn, OpClass::Fp32);
  in.dst[0] = d;
  in.src[0] = a;
  in.src[1] = b;
  in.src[2] = cc;
  in.nsrc = 3;
  in.flags = (isBf(ht) ? kBf16 : 0) | (c.has(Mod::sat) ? kSat : 0);
  in.aux = (uint32_t)rndOf(c);
  return true;
}

bool lowerMinMaxF(LowerCtx &c, bool isMax, ScalarType t) {
  const bool f64 = t == ScalarType::f64;
  const bool ftz = !f64 && c.has(Mod::ftz);
  const bool nanProp = c.has(Mod::NaN);
  OpClass cls = f64 ? OpClass::Fp64 : OpClass::Fp32;
  if (c.has(Mod::xorsign) || c.numOps() == 4) {
    unsigned n = c.numOps() == 4 ? 3 : 2;
    ir::Inst *in = emitSimple(c, f64 ? fMinMaxExt<double> : fMinMaxExt<float>, n, t, cls);
    in->flags = (ftz ? kFtz : 0) | (nanProp ? kNaNMod : 0) | (c.has(Mod::xorsign) ? kXorsignAbs : 0) |
                (c.has(Mod::abs) ? kAbs3 : 0);
    in->aux = isMax;
    return true;
  }
  ir::ExecFn fn = isMax ? (nanProp ? pickF<BinH, MaxNaNO>(f64, Rnd::RN, ftz) : pickF<BinH, MaxO>(f64, Rnd::RN, ftz))
                        : (nanProp ? pickF<BinH, MinNaNO>(f64, Rnd::RN, ftz) : pickF<BinH, MinO>(f64, Rnd::RN, ftz));
  ir::Inst *in = emitSimple(c, fn, 2, t, cls);
  in->flags = ftz ? kFtz : 0;
  return true;
}

} // namespace

bool lowerFloatArith(LowerCtx &c, FArith op) {
  ScalarType t = c.type(0);
  if (op == FArith::Fma && c.type(1) != ScalarType::None)
    return lowerMixedFma(c);
  if (isHalfType(t))
    return lowerHalfArith(c, op, t);
  if (t != ScalarType::f32 && t != ScalarType::f64)
    return c.unsupported("floating-point type");
  const bool f64 = t == ScalarType::f64;
  const Rnd r = rndOf(c);
  const bool ftz = !f64 && c.has(Mod::ftz);
  const bool sat = c.has(Mod::sat);
  const bool mods = ftz || sat;
  const bool approx = c.has(Mod::approx);
  const OpClass fcls = f64 ? OpClass::Fp64 : OpClass::Fp32;
  ir::ExecFn fn = nullptr;
  unsigned n = 1;
  OpClass cls = fcls;
  if (op == FArith::Add && c.fusedMul_ && !f64) {
    // contracted with the mul that produced one operand (Lower.cpp, findContractedAdds)
    const Instruction &mul = *c.fusedMul_;
    const Operand &other = c.op(1).kind == Operand::Kind::Reg && c.op(1).name == mul.operands[0].name ? c.op(2) : c.op(1);
    ir::Opnd s0 = c.src(mul.operands[1], t), s1 = c.src(mul.operands[2], t), s2 = c.src(other, t);
    uint32_t d = c.dst(c.op(0));
    ir::Inst &in = c.emit(pickFma(false, Rnd::RN, mods), fcls);
    in.dst[0] = d;
    in.ndst = 1;
    in.src[0] = s0;
    in.src[1] = s1;
    in.src[2] = s2;
    in.nsrc = 3;
    in.flags = ftz ? kFtz : 0;
    return true;
  }
  switch (op) {
  case FArith::Add: fn = pickF<BinH, AddO>(f64, r, mods); n = 2; break;
  case FArith::Sub: fn = pickF<BinH, SubO>(f64, r, mods); n = 2; break;
  case FArith::Mul: fn = pickF<BinH, MulO>(f64, r, mods); n = 2; break;
  case FArith::Mad:
  case FArith::Fma: fn = pickFma(f64, r, mods); n = 3; break;
  case FArith::Div:
    n = 2;
    if (approx || c.has(Mod::full)) {
      if (f64)
        return c.unsupported("div.approx.f64");
      fn = approx ? pickRnd<BinH, float, DivApproxO>(Rnd::RN, mods) : pickRnd<BinH, float, DivFullO>(Rnd::RN, mods);
      cls = OpClass::Sfu;
    } else {
      fn = pickF<BinH, DivO>(f64, r, mods);
    }
    break;
  case FArith::Min:
  case FArith::Max: return lowerMinMaxF(c, op == FArith::Max, t);
  case FArith::Abs: fn = pickF<UnH, AbsO>(f64, Rnd::RN, mods); break;
  case FArith::Neg: fn = pickF<UnH, NegO>(f64, Rnd::RN, mods); break;
  case FArith::Copysign: fn = pickF<BinH, CopysignO>(f64, Rnd::RN, false); n = 2; break;
  case FArith::Rcp:
    if (approx && f64)
      fn = c.has(Mod::ftz) ? pickF<UnH, RcpApproxFtzF64O>(true, Rnd::RN, false) : pickF<UnH, RcpApproxO>(true, Rnd::RN, false);
    else
      fn = approx ? pickF<UnH, RcpApproxO>(f64, Rnd::RN, mods) : pickF<UnH, RcpO>(f64, r, mods);
    cls = OpClass::Sfu;
    break;
  case FArith::Sqrt:
    fn = approx ? pickF<UnH, SqrtApproxO>(f64, Rnd::RN, mods) : pickF<UnH, SqrtO>(f64, r, mods);
    cls = approx ? OpClass::Sfu : fcls;
    break;
  case FArith::Rsqrt:
    if (f64 && c.has(Mod::ftz))
      fn = pickF<UnH, RsqrtApproxFtzF64O>(true, Rnd::RN, false);
    else
      fn = pickF<UnH, RsqrtApproxO>(f64, Rnd::RN, mods);
    cls = OpClass::Sfu;
    break;
  case FArith::Sin: fn = pickF<UnH, SinO>(f64, Rnd::RN, mods); cls = OpClass::Sfu; break;
  case FArith::Cos: fn = pickF<UnH, CosO>(f64, Rnd::RN, mods); cls = OpClass::Sfu; break;
  case FArith::Lg2: fn = pickF<UnH, Lg2O>(f64, Rnd::RN, mods); cls = OpClass::Sfu; break;
  case FArith::Ex2: fn = pickF<UnH, Ex2O>(f64, Rnd::RN, mods); cls = OpClass::Sfu; break;
  case FArith::Tanh: fn = pickF<UnH, TanhO>(f64, Rnd::RN, mods); cls = OpClass::Sfu; break;
  case FArith::Testp: {
    TestpKind k;
    switch (c.first({Mod::finite, Mod::infinite, Mod::number, Mod::notanumber, Mod::normal, Mod::subnormal})) {
    case Mod::finite: k = TestpKind::Finite; break;
    case Mod::infinite: k = TestpKind::Infinite; break;
    case Mod::number: k = TestpKind::Number; break;
    case Mod::notanumber: k = TestpKind::NotANumber; break;
    case Mod::normal: k = TestpKind::Normal; break;
    case Mod::subnormal: k = TestpKind::Subnormal; break;
    default: return c.unsupported("testp kind");
    }
    ir::Opnd a = c.src(c.op(1), t);
    uint16_t p = c.predDst(c.op(0));
    ir::Inst &in = c.emit(f64 ? testpFn<double> : testpFn<float>, fcls);
    in.dst[0] = p;
    in.src[0] = a;
    in.nsrc = 1;
    in.aux = (uint32_t)k;
    return true;
  }
  }
  if (!fn)
    return c.unsupported("floating-point form");
  ir::Inst *in = emitSimple(c, fn, n, t, cls);
  in->flags = (ftz ? kFtz : 0) | (sat ? kSat : 0);
  // IEEE division and square root are SASS sequences (a MUFU estimate refined by FFMAs/DFMAs)
  if (op == FArith::Div && !approx)
    in->sassSeq = uint8_t(c.has(Mod::full) ? ir::SassSeq::DivFullF32
                          : f64            ? ir::SassSeq::DivF64
                                           : ir::SassSeq::DivF32);
  else if (op == FArith::Sqrt && !approx)
    in->sassSeq = uint8_t(f64 ? ir::SassSeq::SqrtF64 : ir::SassSeq::SqrtF32);
  return true;
}

bool lowerFloatCompare(LowerCtx &c, bool isSet) {
  // setp.cmp[.bop][.ftz].type p[|q], a, b[, c]   set.cmp[.bop][.ftz].dtype.stype d, a, b[, c]
  const ScalarType t = isSet ? c.type(1) : c.type(0);
  int cmp;
  switch (c.first({Mod::eq, Mod::ne, Mod::lt, Mod::le, Mod::gt, Mod::ge, Mod::equ, Mod::neu, Mod::ltu,
                   Mod::leu, Mod::gtu, Mod::geu, Mod::num, Mod::nan})) {
  case Mod::eq: cmp = kEq; break;
  case Mod::ne: cmp = kNe; break;
  case Mod::lt: cmp = kLt; break;
  case Mod::le: cmp = kLe; break;
  case Mod::gt: cmp = kGt; break;
  case Mod::ge: cmp = kGe; break;
  case Mod::equ: cmp = kEqu; break;
  case Mod::neu: cmp = kNeu; break;
  case Mod::ltu: cmp = kLtu; break;
  case Mod::leu: cmp = kLeu; break;
  case Mod::gtu: cmp = kGtu; break;
  case Mod::geu: cmp = kGeu; break;
  case Mod::num: cmp = kNum; break;
  case Mod::nan: cmp = kNan; break;
  default: return c.unsupported("comparison");
  }
  Mod b = c.first({Mod::and_, Mod::or_, Mod::xor_});
  const unsigned bop = b == Mod::and_ ? 1 : b == Mod::or_ ? 2 : b == Mod::xor_ ? 3 : 0;

  ir::ExecFn fn;
  switch (t) {
  case ScalarType::f32: fn = isSet ? setFloatFn<LdF32, void> : setpFloatFn<LdF32, void>; break;
  case ScalarType::f64: fn = isSet ? setFloatFn<LdF64, void> : setpFloatFn<LdF64, void>; break;
  case ScalarType::f16: fn = isSet ? setFloatFn<LdF16<0>, void> : setpFloatFn<LdF16<0>, void>; break;
  case ScalarType::bf16: fn = isSet ? setFloatFn<LdBF16<0>, void> : setpFloatFn<LdBF16<0>, void>; break;
  case ScalarType::f16x2:
    fn = isSet ? setFloatFn<LdF16<0>, LdF16<16>> : setpFloatFn<LdF16<0>, LdF16<16>>;
    break;
  case ScalarType::bf16x2:
    fn = isSet ? setFloatFn<LdBF16<0>, LdBF16<16>> : setpFloatFn<LdBF16<0>, LdBF16<16>>;
    break;
  default: return c.unsupported("comparison type");
  }

  ir::Opnd a = c.src(c.op(1), t), bb = c.src(c.op(2), t);
  uint16_t p = ir::kPredTrue;
  uint32_t x = 0;
  if (bop)
    c.predSrc(c.op(3), p, x);
  uint32_t d0, d1 = ~0u;
  int64_t one = 0;
  if (isSet) {
    d0 = c.dst(c.op(0));
    const ScalarType dt = c.type(0);
    if (isX2(t))
      one = dt == ScalarType::f16x2 || dt == ScalarType::f16 ? 0x3c00
            : dt == ScalarType::bf16x2 || dt == ScalarType::bf16 ? 0x3f80
                                                                  : 0xffff;
    else
      one = dt == ScalarType::f32 ? 0x3f800000 : dt == ScalarType::f16 ? 0x3c00 : dt == ScalarType::bf16 ? 0x3f80 : 0xffffffff;
  } else if (c.op(0).kind == Operand::Kind::Pair) {
    d0 = c.predDst(c.op(0).elems[0]);
    d1 = c.predDst(c.op(0).elems[1]);
  } else {
    d0 = c.predDst(c.op(0));
  }
  ir::Inst &in = c.emit(fn, t == ScalarType::f64 ? OpClass::Fp64 : isHalfType(t) ? OpClass::Half : OpClass::Fp32);
  in.dst[0] = d0;
  in.dst[1] = d1;
  in.src[0] = a;
  in.src[1] = bb;
  in.nsrc = 2;
  in.psrc[0] = p;
  in.psrcXor[0] = x;
  in.aux = (uint32_t)cmp;
  in.off = one;
  in.flags = (uint8_t)(bop | (c.has(Mod::ftz) ? kCmpFtz : 0));
  return true;
}

void registerFloatOps() {
  registerLowering("fma", [](LowerCtx &c) { return lowerFloatArith(c, FArith::Fma); });
  registerLowering("rcp", [](LowerCtx &c) { return lowerFloatArith(c, FArith::Rcp); });
  registerLowering("sqrt", [](LowerCtx &c) { return lowerFloatArith(c, FArith::Sqrt); });
  registerLowering("rsqrt", [](LowerCtx &c) { return lowerFloatArith(c, FArith::Rsqrt); });
  registerLowering("sin", [](LowerCtx &c) { return lowerFloatArith(c, FArith::Sin); });
  registerLowering("cos", [](LowerCtx &c) { return lowerFloatArith(c, FArith::Cos); });
  registerLowering("lg2", [](LowerCtx &c) { return lowerFloatArith(c, FArith::Lg2); });
  registerLowering("ex2", [](LowerCtx &c) { return lowerFloatArith(c, FArith::Ex2); });
  registerLowering("tanh", [](LowerCtx &c) { return lowerFloatArith(c, FArith::Tanh); });
  registerLowering("copysign", [](LowerCtx &c) { return lowerFloatArith(c, FArith::Copysign); });
  registerLowering("testp", [](LowerCtx &c) { return lowerFloatArith(c, FArith::Testp); });
  // what the JIT may compile natively (ptx/jit/JitOps.h): round-to-nearest add, sub, mul and
  // fma without .ftz/.sat, which the host computes with the same bits (then NaNs canonicalised)
  using jit::Op;
  using jit::Type;
  jit::describe(BinH<float, AddO, Rnd::RN, false>::fn, Op::FAdd, Type::F32);
  jit::describe(BinH<double, AddO, Rnd::RN, false>::fn, Op::FAdd, Type::F64);
  jit::describe(BinH<float, SubO, Rnd::RN, false>::fn, Op::FSub, Type::F32);
  jit::describe(BinH<double, SubO, Rnd::RN, false>::fn, Op::FSub, Type::F64);
  jit::describe(BinH<float, MulO, Rnd::RN, false>::fn, Op::FMul, Type::F32);
  jit::describe(BinH<double, MulO, Rnd::RN, false>::fn, Op::FMul, Type::F64);
  jit::describe(TernH<float, FmaO, Rnd::RN, false>::fn, Op::FFma, Type::F32);
  jit::describe(TernH<double, FmaO, Rnd::RN, false>::fn, Op::FFma, Type::F64);
#if defined(__x86_64__) && defined(__GNUC__)
  jit::describe(fmaRnHost<float>, Op::FFma, Type::F32);
  jit::describe(fmaRnHost<double>, Op::FFma, Type::F64);
  jit::describe(fmaRnAvx2F32, Op::FFma, Type::F32);
#endif
}

// Half-precision forms share the opcodes above and the integer ones (add, min, ...), which
// dispatch to lowerFloatArith; nothing extra to register.
void registerHalfOps() {}

} // namespace ptxsim::ptx::exec

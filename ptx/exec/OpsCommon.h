#pragma once
// Shared pieces of the instruction families (ptx/exec/Ops*.cpp): handler templates over lanes
// and type dispatch. Internal to ptx/exec.

#include "ptx/exec/Exec.h"
#include "ptx/exec/Lower.h"

#include <cstdint>
#include <mutex>
#include <type_traits>

namespace ptxsim::ptx::exec {

/// Writes predicate `idx` for the lanes in `mask` from the bits of `value`.
/// `v` as 0x... (fault messages).
std::string hex(uint64_t v);
/// Faults a .sync.aligned instruction (`what`) that only the lanes in `m` executed.
[[gnu::cold]] void reportPartialWarp(ExecCtx &ctx, Warp &w, const ir::Inst &in, uint32_t m,
                                     const char *what);
/// True when every lane of the warp executes the .sync.aligned instruction; else faults.
inline bool requireFullWarp(ExecCtx &ctx, Warp &w, const ir::Inst &in, uint32_t m,
                            const char *what) {
  if (m == ir::kFullMask)
    return true;
  reportPartialWarp(ctx, w, in, m, what);
  return false;
}

/// The elements of a `{a, b, ...}` vector operand, or the operand itself.
inline std::vector<const Operand *> vectorElements(const Operand &o) {
  std::vector<const Operand *> v;
  if (o.kind == Operand::Kind::Vector)
    for (const Operand &e : o.elems)
      v.push_back(&e);
  else
    v.push_back(&o);
  return v;
}

/// Makes `in` a warp-synchronous instruction whose member mask is source operand `src`
/// (ir::Ctl::WarpSync: under independent thread scheduling it waits for the named lanes).
inline void markWarpSync(ir::Inst &in, uint8_t src) {
  in.ctl = ir::Ctl::WarpSync;
  in.memberSrc = src;
}

/// Drops source `slot`'s register from the timing dependencies of `in` (unless another source
/// reads it too): shfl.sync's and bar.warp.sync's member masks are read for convergence only
/// (SASS puts them in a WARPSYNC, not in the SHFL), as before they were evaluated at all.
inline void dropMaskDependency(ir::Inst &in, unsigned slot) {
  const ir::Opnd &o = in.src[slot];
  if (o.cst)
    return;
  for (unsigned i = 0; i < in.nsrc; ++i)
    if (i != slot && !in.src[i].cst && in.src[i].reg == o.reg)
      return;
  uint16_t r = (uint16_t)(o.reg / ir::kWarpSize);
  unsigned j = 0;
  for (unsigned i = 0; i < in.nrs; ++i)
    if (in.rs[i] != r)
      in.rs[j++] = in.rs[i];
  in.nrs = (uint8_t)j;
}

inline void writePred(Warp &w, uint16_t idx, uint32_t mask, uint32_t value) {
  w.preds[idx] = (w.preds[idx] & ~mask) | (value & mask);
}

/// Unary / binary / ternary handlers with a functor `Op::f(T...) -> R` applied per lane.
template <class T, class R, class Op> void unaryFn(ExecCtx &, Warp &w, const ir::Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]);
  forLanes(m, [&](unsigned l) { d[l] = toBits<R>(Op::f(fromBits<T>(a[l]))); });
}
template <class T, class R, class Op> void binaryFn(ExecCtx &, Warp &w, const ir::Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]);
  const uint64_t *b = w.src(in.src[1]);
  forLanes(m, [&](unsigned l) { d[l] = toBits<R>(Op::f(fromBits<T>(a[l]), fromBits<T>(b[l]))); });
}
template <class T, class R, class Op> void ternaryFn(ExecCtx &, Warp &w, const ir::Inst &in, uint32_t m) {
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]);
  const uint64_t *b = w.src(in.src[1]);
  const uint64_t *c = w.src(in.src[2]);
  forLanes(m, [&](unsigned l) {
    d[l] = toBits<R>(Op::f(fromBits<T>(a[l]), fromBits<T>(b[l]), fromBits<T>(c[l])));
  });
}

#if defined(__x86_64__) && defined(__GNUC__)
#define PTXSIM_HOST_AVX2 1
/// Whether the host has AVX2 (checked once). A baseline x86-64 build has SSE2 only, which has
/// no 64-bit lane multiply and no signed 32x32->64 multiply: the handlers of the hottest
/// address arithmetic (mul.wide, 64-bit add) have full-warp versions compiled for AVX2, chosen
/// at load time when this is true. Same results bit for bit (integer arithmetic).
inline bool hostHasAvx2() {
  static const bool v = __builtin_cpu_supports("avx2");
  return v;
}

/// The AVX2 integer handlers below (see hostHasAvx2) run a full warp in one vectorised loop
/// (plain loops, no lambdas: a lambda would not inherit the target). A 32-bit operation is
/// computed in the registers' 64-bit lanes where Op has w (64-bit arithmetic whose low 32 bits
/// are the 32-bit result), then extended as toBits<T> does (lanes64), so the vectoriser keeps 4 lanes
/// to an instruction instead of packing and unpacking 32-bit halves. A partial warp of at least
/// kAvx2BlendLanes lanes computes every lane and writes back only those of the mask (the
/// operations are total: any register bits give a result, with no fault and no side effect);
/// fewer lanes take the baseline handler. Same results bit for bit.
constexpr unsigned kAvx2BlendLanes = 8;
/// The low 32 bits of `v` zero- or sign-extended as toBits<T> writes a 32-bit T, in 64-bit
/// arithmetic (the sign extension without a 32-bit type: (x ^ 2^31) - 2^31).
template <class T> inline uint64_t lanes64(uint64_t v) {
  static_assert(sizeof(T) == 4);
  if constexpr (std::is_signed_v<T>)
    return ((v & 0xffffffffu) ^ 0x80000000u) - 0x80000000u;
  else
    return v & 0xffffffffu;
}
/// Lane l of the mask `m` as a 64-bit blend selector: all ones when l is in m.
inline uint64_t laneSel(uint32_t m, unsigned l) { return uint64_t(0) - ((m >> l) & 1); }

/// Whether Op has the 64-bit lane form w (the multiply has not: a 64-bit lane product is
/// three vpmuludq, more than packing the 32-bit halves).
template <class Op, class = void> struct HasLanes64 : std::false_type {};
template <class Op> struct HasLanes64<Op, std::void_t<decltype(&Op::w)>> : std::true_type {};

template <class T, class Op> inline uint64_t binaryLane64(uint64_t a, uint64_t b) {
  if constexpr (sizeof(T) == 4 && HasLanes64<Op>::value)
    return lanes64<T>(Op::w(a, b));
  else
    return toBits<T>(Op::f(fromBits<T>(a), fromBits<T>(b)));
}
template <class T, class Op> inline uint64_t ternaryLane64(uint64_t a, uint64_t b, uint64_t c) {
  if constexpr (sizeof(T) == 4 && HasLanes64<Op>::value)
    return lanes64<T>(Op::w(a, b, c));
  else
    return toBits<T>(Op::f(fromBits<T>(a), fromBits<T>(b), fromBits<T>(c)));
}

/// binaryFn of a 32- or 64-bit integer operation compiled for AVX2 (see above).
template <class T, class R, class Op>
__attribute__((target("avx2"))) void binaryFnAvx2(ExecCtx &ctx, Warp &w, const ir::Inst &in,
                                                  uint32_t m) {
  static_assert(std::is_same_v<T, R> && std::is_integral_v<T>);
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]);
  const uint64_t *b = w.src(in.src[1]);
  // d may be a or b (the same register): lane l reads a[l], b[l] before writing d[l]
  if (m == kFullMask) {
    for (unsigned l = 0; l < kWarpSize; ++l)
      d[l] = binaryLane64<T, Op>(a[l], b[l]);
  } else if (laneCount(m) >= kAvx2BlendLanes) {
    for (unsigned l = 0; l < kWarpSize; ++l) {
      const uint64_t v = binaryLane64<T, Op>(a[l], b[l]), s = laneSel(m, l);
      d[l] = (v & s) | (d[l] & ~s);
    }
  } else {
    binaryFn<T, R, Op>(ctx, w, in, m);
  }
}
/// ternaryFn of a 32- or 64-bit integer operation compiled for AVX2, as binaryFnAvx2.
template <class T, class R, class Op>
__attribute__((target("avx2"))) void ternaryFnAvx2(ExecCtx &ctx, Warp &w, const ir::Inst &in,
                                                   uint32_t m) {
  static_assert(std::is_same_v<T, R> && std::is_integral_v<T>);
  uint64_t *d = w.reg(in.dst[0]);
  const uint64_t *a = w.src(in.src[0]);
  const uint64_t *b = w.src(in.src[1]);
  const uint64_t *c = w.src(in.src[2]);
  if (m == kFullMask) {
    for (unsigned l = 0; l < kWarpSize; ++l)
      d[l] = ternaryLane64<T, Op>(a[l], b[l], c[l]);
  } else if (laneCount(m) >= kAvx2BlendLanes) {
    for (unsigned l = 0; l < kWarpSize; ++l) {
      const uint64_t v = ternaryLane64<T, Op>(a[l], b[l], c[l]), s = laneSel(m, l);
      d[l] = (v & s) | (d[l] & ~s);
    }
  } else {
    ternaryFn<T, R, Op>(ctx, w, in, m);
  }
}
#endif

/// Integer type sets for byIntType.
enum : unsigned { kW8 = 1, kW16 = 2, kW32 = 4, kW64 = 8, kSignedOnly = 16, kUnsignedOnly = 32 };
constexpr unsigned kW16to64 = kW16 | kW32 | kW64;

template <template <class> class H, unsigned kSet, class T> constexpr ir::ExecFn pickIntHandler() {
  constexpr unsigned w = sizeof(T) == 1 ? kW8 : sizeof(T) == 2 ? kW16 : sizeof(T) == 4 ? kW32 : kW64;
  constexpr bool sgn = std::is_signed_v<T>;
  if constexpr ((kSet & w) == 0 || ((kSet & kSignedOnly) && !sgn) || ((kSet & kUnsignedOnly) && sgn))
    return nullptr;
  else
    return H<T>::fn;
}

/// Picks `H<T>::fn` for an integer type in `kSet` (b types count as unsigned); null otherwise.
template <template <class> class H, unsigned kSet = kW16to64> ir::ExecFn byIntType(ScalarType t) {
  switch (t) {
  case ScalarType::s8: return pickIntHandler<H, kSet, int8_t>();
  case ScalarType::u8: case ScalarType::b8: return pickIntHandler<H, kSet, uint8_t>();
  case ScalarType::s16: return pickIntHandler<H, kSet, int16_t>();
  case ScalarType::u16: case ScalarType::b16: return pickIntHandler<H, kSet, uint16_t>();
  case ScalarType::s32: return pickIntHandler<H, kSet, int32_t>();
  case ScalarType::u32: case ScalarType::b32: return pickIntHandler<H, kSet, uint32_t>();
  case ScalarType::s64: return pickIntHandler<H, kSet, int64_t>();
  case ScalarType::u64: case ScalarType::b64: return pickIntHandler<H, kSet, uint64_t>();
  default: return nullptr;
  }
}

/// Side storage for instructions whose operands do not fit in an ir::Inst (fragment register
/// lists of wmma/mma): an append-only table in fixed chunks, so that appending (at lowering,
/// under a lock) never moves an entry an executing warp reads (without a lock). Entries live as
/// long as the process, like the IR that indexes them.
template <class T> class AppendOnlyTable {
public:
  static constexpr uint32_t kFull = 0xffffffffu;
  /// Index of a copy of `v`, or kFull when the table is full.
  uint32_t add(const T &v) {
    std::lock_guard<std::mutex> lock(mu_);
    uint32_t i = size_;
    if ((i >> kShift) >= kMaxChunks)
      return kFull;
    if (!chunks_[i >> kShift])
      chunks_[i >> kShift] = new T[kChunk];
    chunks_[i >> kShift][i & (kChunk - 1)] = v;
    ++size_;
    return i;
  }
  const T &at(uint32_t i) const { return chunks_[i >> kShift][i & (kChunk - 1)]; }

private:
  static constexpr unsigned kShift = 10, kChunk = 1u << kShift, kMaxChunks = 4096;
  std::mutex mu_;
  T *chunks_[kMaxChunks] = {};
  uint32_t size_ = 0;
};

/// Float families (OpsFloat.cpp): lowering for opcodes that also have integer forms.
enum class FArith : uint8_t {
  Add, Sub, Mul, Mad, Fma, Div, Min, Max, Abs, Neg, Rcp, Sqrt, Rsqrt, Sin, Cos, Lg2, Ex2, Tanh,
  Copysign, Testp
};
/// Lowers a floating-point form (f32, f64, f16, f16x2, bf16, bf16x2) of `op`.
bool lowerFloatArith(LowerCtx &ctx, FArith op);
/// cp.async.mbarrier.arrive (OpsMbarrier.cpp): the mbarrier side of cp.async's completion.
bool lowerCpAsyncMbarrierArrive(LowerCtx &ctx);
/// The mbarrier::complete_tx::bytes of cp.async.bulk (OpsMbarrier.cpp): `bytes` transactions
/// complete on the mbarrier at shared-space address operand `mbar`.
void emitBulkCompleteTx(LowerCtx &ctx, const Operand &mbar, ir::Opnd bytes);
/// setp/set with a float type; `cmp` is the comparison modifier.
bool lowerFloatCompare(LowerCtx &ctx, bool isSet);
/// The MEMBAR ptxas puts at this instruction (OpsControl.cpp), for Inst::sassSeq: for
/// `fence`/`membar` (`isFence`) its scope (none for proxy, mbarrier_init and restricted
/// fences, which are not MEMBARs); for an atom/red/st the scope of its release semantics
/// (.release, .acq_rel; .gpu when it names none), none when it has none.
ir::SassSeq fenceOf(const LowerCtx &ctx, bool isFence);

} // namespace ptxsim::ptx::exec

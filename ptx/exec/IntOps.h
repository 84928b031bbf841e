//===- IntOps.h - PTX integer and bit instruction semantics -----*- C++ -*-===//
//
// Contract: each function computes one lane of one PTX integer or bit-manipulation instruction
// exactly as the PTX ISA defines it, on host integers of the instruction's width. They are
// header-only, allocation-free and free of undefined behaviour for every input, so the warp
// executor can call them per lane in tight loops:
//   - arithmetic wraps modulo 2^n (signed overflow included; it is done on unsigned values);
//   - shift amounts are unsigned 32-bit values and any amount is defined (see shl/shr/shf);
//   - division and remainder by zero, whose PTX result is unspecified, never trap the host:
//     divInt returns all ones (-1 when signed) and remInt returns the dividend; INT_MIN / -1 wraps
//     to INT_MIN and INT_MIN % -1 is 0.
// Width and signedness come from the template argument type (int16_t ... uint64_t) where PTX
// has the instruction at several types; a function fixed to one PTX type says so in its name.
//
//===----------------------------------------------------------------------===//

#ifndef PTXSIM_PTX_EXEC_INTOPS_H
#define PTXSIM_PTX_EXEC_INTOPS_H

#include <cstdint>
#include <limits>
#include <type_traits>

namespace ptxsim::ptx::exec {

__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

namespace intops_detail {

template <typename T> constexpr unsigned kBits = sizeof(T) * 8;

/// Unsigned arithmetic type at least as wide as int, so narrow operands do not promote to a
/// signed int (uint16_t * uint16_t would otherwise overflow int).
template <typename T>
using Arith = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

/// The `n` low bits set; n may be 0 or the full width.
template <typename U> constexpr U lowMask(unsigned n) {
  return n >= kBits<U> ? static_cast<U>(~U(0)) : static_cast<U>((U(1) << n) - 1);
}

/// Arithmetic right shift by n < width without relying on implementation-defined behaviour.
template <typename T> constexpr T sar(T a, unsigned n) {
  using U = std::make_unsigned_t<T>;
  U u = static_cast<U>(a);
  return static_cast<T>(a < 0 ? static_cast<U>(~(static_cast<U>(~u) >> n))
                              : static_cast<U>(u >> n));
}

template <typename T> struct Wider;
// `utype` is spelled out because std::make_unsigned does not accept __int128 in strict modes.
template <> struct Wider<int16_t> {
  using type = int32_t;
  using utype = uint32_t;
};
template <> struct Wider<uint16_t> {
  using type = uint32_t;
  using utype = uint32_t;
};
template <> struct Wider<int32_t> {
  using type = int64_t;
  using utype = uint64_t;
};
template <> struct Wider<uint32_t> {
  using type = uint64_t;
  using utype = uint64_t;
};
template <> struct Wider<int64_t> {
  using type = Int128;
  using utype = UInt128;
};
template <> struct Wider<uint64_t> {
  using type = UInt128;
  using utype = UInt128;
};

} // namespace intops_detail

/// The type twice as wide as T with T's signedness (mul.wide's destination type).
template <typename T> using WideOf = typename intops_detail::Wider<T>::type;

//===-- add, sub, mul, mad ------------------------------------------------===//

/// add (wrapping, any integer type).
template <typename T> static inline T add(T a, T b) {
  using A = intops_detail::Arith<T>;
  return static_cast<T>(static_cast<A>(a) + static_cast<A>(b));
}

/// sub (wrapping).
template <typename T> static inline T sub(T a, T b) {
  using A = intops_detail::Arith<T>;
  return static_cast<T>(static_cast<A>(a) - static_cast<A>(b));
}

/// mul.lo: the low half of the full product.
template <typename T> static inline T mulLo(T a, T b) {
  using A = intops_detail::Arith<T>;
  return static_cast<T>(static_cast<A>(a) * static_cast<A>(b));
}

/// mul.wide: the full product at twice the width (16 -> 32, 32 -> 64, 64 -> 128 bits).
template <typename T> static inline WideOf<T> mulWide(T a, T b) {
  using W = WideOf<T>;
  using UW = typename intops_detail::Wider<T>::utype;
  // The exact product of two n-bit values always fits in 2n bits; multiplying in the unsigned
  // wide type gives the same bits without signed overflow.
  return static_cast<W>(static_cast<UW>(static_cast<W>(a)) * static_cast<UW>(static_cast<W>(b)));
}

/// mul.hi: the high half of the full product.
template <typename T> static inline T mulHi(T a, T b) {
  using UW = typename intops_detail::Wider<T>::utype;
  return static_cast<T>(static_cast<UW>(mulWide(a, b)) >> intops_detail::kBits<T>);
}

/// mad.lo: low half of a*b, plus c.
template <typename T> static inline T madLo(T a, T b, T c) { return add(mulLo(a, b), c); }

/// mad.hi: high half of a*b, plus c.
template <typename T> static inline T madHi(T a, T b, T c) { return add(mulHi(a, b), c); }

/// mad.wide: full product of a*b plus c at twice the width.
template <typename T> static inline WideOf<T> madWide(T a, T b, WideOf<T> c) {
  using UW = typename intops_detail::Wider<T>::utype;
  return static_cast<WideOf<T>>(static_cast<UW>(mulWide(a, b)) + static_cast<UW>(c));
}

/// Clamps an exact 64-bit value to the s32 range (the `.sat` rule).
static inline int32_t saturateS32(int64_t v) {
  if (v > std::numeric_limits<int32_t>::max())
    return std::numeric_limits<int32_t>::max();
  if (v < std::numeric_limits<int32_t>::min())
    return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(v);
}

/// add.sat.s32: clamps to [INT_MIN, INT_MAX] instead of wrapping.
static inline int32_t addSatS32(int32_t a, int32_t b) {
  return saturateS32(int64_t(a) + int64_t(b));
}

/// sub.sat.s32.
static inline int32_t subSatS32(int32_t a, int32_t b) {
  return saturateS32(int64_t(a) - int64_t(b));
}

/// mad.hi.sat.s32: the high 32 bits of a*b plus c, saturated.
static inline int32_t madHiSatS32(int32_t a, int32_t b, int32_t c) {
  return saturateS32(int64_t(mulHi(a, b)) + int64_t(c));
}

//===-- Extended precision (carry flag) -----------------------------------===//
//
// CC.CF is passed in and out as 0 or 1. For add.cc/addc it is the carry out of the unsigned
// addition; for sub.cc/subc it is the borrow (1 when a - b - borrowIn is negative as an exact
// unsigned computation), and subc computes a - (b + borrowIn). Signed types use the same bits,
// so these take the unsigned type (uint32_t or uint64_t).

/// add.cc (carryIn = 0) and addc (carryIn = CC.CF): returns a + b + carryIn and sets carryOut.
template <typename U> static inline U addCarry(U a, U b, uint32_t carryIn, uint32_t &carryOut) {
  static_assert(std::is_unsigned_v<U> && sizeof(U) >= 4, "addCarry takes uint32_t or uint64_t");
  U s = a + b;
  U r = s + U(carryIn & 1);
  carryOut = (s < a) | (r < s);
  return r;
}

/// sub.cc (borrowIn = 0) and subc (borrowIn = CC.CF): returns a - (b + borrowIn) and sets
/// borrowOut.
template <typename U> static inline U subBorrow(U a, U b, uint32_t borrowIn, uint32_t &borrowOut) {
  static_assert(std::is_unsigned_v<U> && sizeof(U) >= 4, "subBorrow takes uint32_t or uint64_t");
  U bin = U(borrowIn & 1);
  borrowOut = (a < b) | ((a == b) & (bin != 0));
  return a - b - bin;
}

/// mad.lo.cc / madc.lo: low half of a*b plus c plus carryIn, with carry out of that addition.
/// T may be signed (the product half differs) but the addition is unsigned.
template <typename T>
static inline T madLoCarry(T a, T b, T c, uint32_t carryIn, uint32_t &carryOut) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(
      addCarry<U>(static_cast<U>(mulLo(a, b)), static_cast<U>(c), carryIn, carryOut));
}

/// mad.hi.cc / madc.hi: high half of a*b plus c plus carryIn, with carry out.
template <typename T>
static inline T madHiCarry(T a, T b, T c, uint32_t carryIn, uint32_t &carryOut) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(
      addCarry<U>(static_cast<U>(mulHi(a, b)), static_cast<U>(c), carryIn, carryOut));
}

//===-- 24-bit multiply ---------------------------------------------------===//
//
// mul24/mad24 use the low 24 bits of each operand (sign-extended from bit 23 for .s32), form
// the 48-bit product t, and take t<31..0> (.lo) or t<47..16> (.hi).

namespace intops_detail {
template <typename T> static inline int64_t product48(T a, T b) {
  static_assert(std::is_same_v<T, int32_t> || std::is_same_v<T, uint32_t>, "mul24 is .s32/.u32");
  uint32_t ua = static_cast<uint32_t>(a) & 0xffffffu, ub = static_cast<uint32_t>(b) & 0xffffffu;
  if constexpr (std::is_signed_v<T>) {
    int64_t sa = (ua & 0x800000u) ? int64_t(ua) - 0x1000000 : int64_t(ua);
    int64_t sb = (ub & 0x800000u) ? int64_t(ub) - 0x1000000 : int64_t(ub);
    return sa * sb; // |product| < 2^46, no overflow
  } else {
    return int64_t(uint64_t(ua) * uint64_t(ub)); // < 2^48
  }
}
} // namespace intops_detail

/// mul24.lo: bits 31..0 of the 48-bit product.
template <typename T> static inline T mul24Lo(T a, T b) {
  return static_cast<T>(static_cast<uint32_t>(intops_detail::product48(a, b)));
}

/// mul24.hi: bits 47..16 of the 48-bit product.
template <typename T> static inline T mul24Hi(T a, T b) {
  return static_cast<T>(
      static_cast<uint32_t>(static_cast<uint64_t>(intops_detail::product48(a, b)) >> 16));
}

/// mad24.lo: mul24.lo plus c (wrapping).
template <typename T> static inline T mad24Lo(T a, T b, T c) { return add(mul24Lo(a, b), c); }

/// mad24.hi: mul24.hi plus c (wrapping).
template <typename T> static inline T mad24Hi(T a, T b, T c) { return add(mul24Hi(a, b), c); }

/// mad24.hi.sat.s32: mul24.hi plus c, saturated.
static inline int32_t mad24HiSatS32(int32_t a, int32_t b, int32_t c) {
  return saturateS32(int64_t(mul24Hi(a, b)) + int64_t(c));
}

//===-- sad, div, rem, abs, neg, min, max ---------------------------------===//

/// sad: c + |a - b|, the difference taken exactly and the sum wrapping.
template <typename T> static inline T sad(T a, T b, T c) {
  using A = intops_detail::Arith<T>;
  using U = std::make_unsigned_t<T>;
  U diff = a < b ? static_cast<U>(static_cast<A>(b) - static_cast<A>(a))
                 : static_cast<U>(static_cast<A>(a) - static_cast<A>(b));
  return static_cast<T>(static_cast<A>(c) + static_cast<A>(diff));
}

/// div: truncating quotient. b == 0 gives all ones (-1 when signed); MIN / -1 gives MIN.
template <typename T> static inline T divInt(T a, T b) {
  if (b == 0)
    return static_cast<T>(~std::make_unsigned_t<T>(0));
  if constexpr (std::is_signed_v<T>) {
    if (a == std::numeric_limits<T>::min() && b == T(-1))
      return a;
  }
  return static_cast<T>(a / b);
}

/// rem: remainder with the sign of a. b == 0 gives a; MIN % -1 gives 0.
template <typename T> static inline T remInt(T a, T b) {
  if (b == 0)
    return a;
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1))
      return 0;
  }
  return static_cast<T>(a % b);
}

/// abs (signed types): MIN stays MIN.
template <typename T> static inline T absInt(T a) {
  static_assert(std::is_signed_v<T>, "abs is defined on signed types");
  return a < 0 ? sub(T(0), a) : a;
}

/// neg (signed types): two's complement negation, MIN stays MIN.
template <typename T> static inline T negInt(T a) { return sub(T(0), a); }

/// min and max (named apart from std::min/max so that unqualified calls elsewhere in this
/// namespace do not pick them up for floating-point values).
template <typename T> static inline T minInt(T a, T b) { return a < b ? a : b; }
template <typename T> static inline T maxInt(T a, T b) { return a < b ? b : a; }

/// min.relu.s32: min clamped below at 0.
static inline int32_t minReluS32(int32_t a, int32_t b) { return maxInt<int32_t>(minInt(a, b), 0); }

/// max.relu.s32: max clamped below at 0.
static inline int32_t maxReluS32(int32_t a, int32_t b) { return maxInt<int32_t>(maxInt(a, b), 0); }

namespace intops_detail {
template <typename H, typename F> static inline uint32_t packed16x2(uint32_t a, uint32_t b, F f) {
  uint32_t lo = static_cast<uint16_t>(f(static_cast<H>(a & 0xffff), static_cast<H>(b & 0xffff)));
  uint32_t hi = static_cast<uint16_t>(f(static_cast<H>(a >> 16), static_cast<H>(b >> 16)));
  return lo | (hi << 16);
}
} // namespace intops_detail

/// min.u16x2: per-halfword unsigned min.
static inline uint32_t minU16x2(uint32_t a, uint32_t b) {
  return intops_detail::packed16x2<uint16_t>(a, b,
                                             [](uint16_t x, uint16_t y) { return minInt(x, y); });
}

/// max.u16x2.
static inline uint32_t maxU16x2(uint32_t a, uint32_t b) {
  return intops_detail::packed16x2<uint16_t>(a, b,
                                             [](uint16_t x, uint16_t y) { return maxInt(x, y); });
}

/// min{.relu}.s16x2: per-halfword signed min, negative halves clamped to 0 with relu.
static inline uint32_t minS16x2(uint32_t a, uint32_t b, bool relu = false) {
  return intops_detail::packed16x2<int16_t>(a, b, [relu](int16_t x, int16_t y) {
    int16_t m = minInt(x, y);
    return relu && m < 0 ? int16_t(0) : m;
  });
}

/// max{.relu}.s16x2.
static inline uint32_t maxS16x2(uint32_t a, uint32_t b, bool relu = false) {
  return intops_detail::packed16x2<int16_t>(a, b, [relu](int16_t x, int16_t y) {
    int16_t m = maxInt(x, y);
    return relu && m < 0 ? int16_t(0) : m;
  });
}

//===-- Logic -------------------------------------------------------------===//

/// not (bitwise complement).
template <typename T> static inline T bitNot(T a) { return static_cast<T>(~a); }

/// cnot: 1 if a is zero, else 0.
template <typename T> static inline T cnot(T a) { return a == 0 ? T(1) : T(0); }

/// lop3.b32: bit i of the result is bit ((a_i << 2) | (b_i << 1) | c_i) of lut, i.e. the
/// function whose table is lut when a, b, c are 0xF0, 0xCC, 0xAA. Computed as the OR of the
/// minterms whose LUT bit is set.
static inline uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint8_t lut) {
  uint32_t r = 0;
  for (unsigned i = 0; i < 8; ++i) {
    if (!((lut >> i) & 1))
      continue;
    uint32_t ta = (i & 4) ? a : ~a;
    uint32_t tb = (i & 2) ? b : ~b;
    uint32_t tc = (i & 1) ? c : ~c;
    r |= ta & tb & tc;
  }
  return r;
}

//===-- Shifts ------------------------------------------------------------===//

/// shl: amounts >= width give 0.
template <typename T> static inline T shl(T a, uint32_t n) {
  using U = std::make_unsigned_t<T>;
  if (n >= intops_detail::kBits<T>)
    return 0;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) << n));
}

/// shr: logical for unsigned T, arithmetic for signed T; amounts >= width give 0 (unsigned) or
/// the sign fill (signed).
template <typename T> static inline T shr(T a, uint32_t n) {
  constexpr unsigned bits = intops_detail::kBits<T>;
  if constexpr (std::is_signed_v<T>) {
    return intops_detail::sar(a, n < bits ? n : bits - 1);
  } else {
    return n >= bits ? T(0) : static_cast<T>(a >> n);
  }
}

enum class ShiftMode { Clamp, Wrap };

/// shf.l.{clamp,wrap}.b32: shifts the 64-bit value {b, a} left by n (min(n, 32) for clamp,
/// n & 31 for wrap) and returns the upper 32 bits.
static inline uint32_t shfL(uint32_t a, uint32_t b, uint32_t n, ShiftMode mode) {
  uint32_t s = mode == ShiftMode::Clamp ? (n < 32 ? n : 32) : (n & 31);
  uint64_t v = (uint64_t(b) << 32) | a;
  return static_cast<uint32_t>((v << s) >> 32);
}

/// shf.r.{clamp,wrap}.b32: shifts {b, a} right and returns the lower 32 bits.
static inline uint32_t shfR(uint32_t a, uint32_t b, uint32_t n, ShiftMode mode) {
  uint32_t s = mode == ShiftMode::Clamp ? (n < 32 ? n : 32) : (n & 31);
  uint64_t v = (uint64_t(b) << 32) | a;
  return static_cast<uint32_t>(v >> s);
}

//===-- Bit counting and reversal -----------------------------------------===//

/// popc.b32 / popc.b64 (result is .u32).
template <typename U> static inline uint32_t popc(U a) {
  static_assert(std::is_unsigned_v<U> && sizeof(U) >= 4, "popc is .b32/.b64");
  if constexpr (sizeof(U) == 8)
    return static_cast<uint32_t>(__builtin_popcountll(a));
  else
    return static_cast<uint32_t>(__builtin_popcount(a));
}

/// clz.b32 / clz.b64: leading zeros; 0 gives the width.
template <typename U> static inline uint32_t clz(U a) {
  static_assert(std::is_unsigned_v<U> && sizeof(U) >= 4, "clz is .b32/.b64");
  if (a == 0)
    return intops_detail::kBits<U>;
  if constexpr (sizeof(U) == 8)
    return static_cast<uint32_t>(__builtin_clzll(a));
  else
    return static_cast<uint32_t>(__builtin_clz(a));
}

/// bfind{.shiftamt}: position of the most significant 1 (unsigned T) or of the most significant
/// bit differing from the sign bit (signed T); 0xffffffff when there is none. With shiftAmt the
/// result is the left shift that moves that bit to the msb (width - 1 - position).
template <typename T> static inline uint32_t bfind(T a, bool shiftAmt = false) {
  static_assert(sizeof(T) >= 4, "bfind is .u32/.s32/.u64/.s64");
  using U = std::make_unsigned_t<T>;
  U u = static_cast<U>(a);
  if (std::is_signed_v<T> && a < 0)
    u = static_cast<U>(~u);
  if (u == 0)
    return 0xffffffffu;
  uint32_t pos = intops_detail::kBits<T> - 1 - clz<U>(u);
  return shiftAmt ? intops_detail::kBits<T> - 1 - pos : pos;
}

/// brev.b32 / brev.b64: bit reversal.
template <typename U> static inline U brev(U a) {
  static_assert(std::is_unsigned_v<U> && sizeof(U) >= 4, "brev is .b32/.b64");
  U r = 0;
  for (unsigned i = 0; i < intops_detail::kBits<U>; ++i) {
    r = static_cast<U>((r << 1) | (a & 1));
    a >>= 1;
  }
  return r;
}

//===-- Bit fields --------------------------------------------------------===//

/// bfe.{u32,s32,u64,s64}: extracts len = c & 0xff bits starting at pos = b & 0xff. Bits of the
/// field beyond the msb, and all bits above the field, take the sign bit: the field's top bit
/// a[min(pos + len - 1, msb)] for signed T (0 for unsigned T or len == 0).
template <typename T> static inline T bfe(T a, uint32_t b, uint32_t c) {
  static_assert(sizeof(T) >= 4, "bfe is 32 or 64 bit");
  using U = std::make_unsigned_t<T>;
  constexpr unsigned bits = intops_detail::kBits<T>;
  unsigned pos = b & 0xff, len = c & 0xff;
  if (len == 0)
    return 0;
  U u = static_cast<U>(a);
  if (pos >= bits) {
    bool sign = std::is_signed_v<T> && ((u >> (bits - 1)) & 1);
    return sign ? static_cast<T>(~U(0)) : T(0);
  }
  unsigned avail = len < bits - pos ? len : bits - pos;
  U field = (u >> pos) & intops_detail::lowMask<U>(avail);
  if (std::is_signed_v<T> && ((field >> (avail - 1)) & 1))
    field |= static_cast<U>(~intops_detail::lowMask<U>(avail));
  return static_cast<T>(field);
}

/// bfi.{b32,b64}: inserts the low len = d & 0xff bits of a into b at pos = c & 0xff; bits that
/// would land beyond the msb are dropped (pos beyond the msb or len 0 gives b).
template <typename U> static inline U bfi(U a, U b, uint32_t c, uint32_t d) {
  static_assert(std::is_unsigned_v<U> && sizeof(U) >= 4, "bfi is .b32/.b64");
  constexpr unsigned bits = intops_detail::kBits<U>;
  unsigned pos = c & 0xff, len = d & 0xff;
  if (len == 0 || pos >= bits)
    return b;
  unsigned n = len < bits - pos ? len : bits - pos;
  U mask = static_cast<U>(intops_detail::lowMask<U>(n) << pos);
  return static_cast<U>((b & ~mask) | (static_cast<U>(a << pos) & mask));
}

/// bmsk.{clamp,wrap}.b32: a mask of b bits starting at bit a. Wrap takes both operands mod 32;
/// clamp gives 0 for a >= 32 and runs the mask to bit 31 for b >= 32. A mask that would run past
/// bit 31 stops at bit 31.
static inline uint32_t bmsk(uint32_t a, uint32_t b, ShiftMode mode) {
  uint32_t pos = a & 31, width = b & 31;
  if (mode == ShiftMode::Clamp) {
    if (a >= 32)
      return 0;
    if (b >= 32)
      return ~uint32_t(0) << pos;
  }
  uint32_t end = pos + width;
  uint32_t below = end >= 32 ? 0xffffffffu : ((uint32_t(1) << end) - 1);
  return below & (~uint32_t(0) << pos);
}

/// szext.{clamp,wrap}.{u32,s32}: zero- or sign-extends the low n bits of a. Wrap uses n = b & 31;
/// clamp uses n = min(b, 32). n = 0 gives 0; n = 32 gives a.
template <typename T> static inline T szext(T a, uint32_t b, ShiftMode mode) {
  static_assert(std::is_same_v<T, int32_t> || std::is_same_v<T, uint32_t>, "szext is .u32/.s32");
  uint32_t n = mode == ShiftMode::Clamp ? (b < 32 ? b : 32) : (b & 31);
  uint32_t u = static_cast<uint32_t>(a);
  if (n == 32)
    return a;
  if (n == 0)
    return 0;
  uint32_t low = u & ((uint32_t(1) << n) - 1);
  if (std::is_signed_v<T> && ((low >> (n - 1)) & 1))
    low |= ~((uint32_t(1) << n) - 1);
  return static_cast<T>(low);
}

//===-- prmt --------------------------------------------------------------===//

enum class PrmtMode { Default, F4e, B4e, Rc8, Ecl, Ecr, Rc16 };

/// prmt.b32{.mode}: picks four bytes of the 8-byte value {b, a} (a is bytes 0..3). Default mode:
/// nibble k of c selects result byte k; its bit 3 replicates the selected byte's sign bit over
/// the byte. Other modes select a fixed pattern by c & 3 (no sign replication).
static inline uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, PrmtMode mode = PrmtMode::Default) {
  // Selector nibbles (result byte 3 in the top nibble) for c & 3 = 0..3 of each mode.
  static constexpr uint16_t kModeSel[6][4] = {
      {0x3210, 0x4321, 0x5432, 0x6543}, // f4e: forward 4-byte window
      {0x5670, 0x6701, 0x7012, 0x0123}, // b4e: backward 4-byte window
      {0x0000, 0x1111, 0x2222, 0x3333}, // rc8: replicate one byte of a
      {0x3210, 0x3211, 0x3222, 0x3333}, // ecl: edge clamp left
      {0x0000, 0x1110, 0x2210, 0x3210}, // ecr: edge clamp right
      {0x1010, 0x3232, 0x1010, 0x3232}, // rc16: replicate one halfword of a
  };
  uint64_t src = (uint64_t(b) << 32) | a;
  bool generic = mode == PrmtMode::Default;
  uint32_t sel = generic ? c : kModeSel[static_cast<int>(mode) - 1][c & 3];
  uint32_t r = 0;
  for (unsigned k = 0; k < 4; ++k) {
    uint32_t nib = (sel >> (4 * k)) & 0xf;
    uint32_t byte = static_cast<uint32_t>(src >> (8 * (nib & 7))) & 0xff;
    if (generic && (nib & 8))
      byte = (byte & 0x80) ? 0xff : 0x00;
    r |= byte << (8 * k);
  }
  return r;
}

//===-- Dot products ------------------------------------------------------===//

namespace intops_detail {
template <bool Signed> static inline int32_t byteOf(uint32_t v, unsigned i) {
  uint32_t x = (v >> (8 * i)) & 0xff;
  return Signed ? int32_t(int8_t(x)) : int32_t(x);
}
template <bool Signed> static inline int32_t halfOf(uint32_t v, unsigned i) {
  uint32_t x = (v >> (16 * i)) & 0xffff;
  return Signed ? int32_t(int16_t(x)) : int32_t(x);
}
} // namespace intops_detail

/// dp4a.atype.btype: c plus the dot product of the four bytes of a and of b, each byte sign- or
/// zero-extended per its operand's type; the sum wraps to 32 bits (c is .u32 when both types are
/// .u32, else .s32 - the bits are the same).
template <bool ASigned, bool BSigned>
static inline uint32_t dp4a(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t d = c;
  for (unsigned i = 0; i < 4; ++i)
    d += static_cast<uint32_t>(int64_t(intops_detail::byteOf<ASigned>(a, i)) *
                               intops_detail::byteOf<BSigned>(b, i));
  return d;
}

/// dp2a.{lo,hi}.atype.btype: c plus the dot product of a's two halfwords with bytes 0,1 (.lo) or
/// 2,3 (.hi) of b.
template <bool ASigned, bool BSigned>
static inline uint32_t dp2a(uint32_t a, uint32_t b, uint32_t c, bool hi) {
  unsigned base = hi ? 2 : 0;
  uint32_t d = c;
  for (unsigned i = 0; i < 2; ++i)
    d += static_cast<uint32_t>(int64_t(intops_detail::halfOf<ASigned>(a, i)) *
                               intops_detail::byteOf<BSigned>(b, base + i));
  return d;
}

} // namespace ptxsim::ptx::exec

#endif // PTXSIM_PTX_EXEC_INTOPS_H

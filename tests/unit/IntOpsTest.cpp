// PTX integer and bit instruction semantics: edge cases worked out by hand from the PTX ISA
// text, and randomized cross-checks against slow per-bit or wider-type reference code written
// here independently of the implementation.

#include "ptx/exec/IntOps.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>

namespace ptxsim::test {
namespace {

namespace ex = ptx::exec;
using ex::Int128;
using ex::PrmtMode;
using ex::ShiftMode;
using ex::UInt128;

constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();

std::mt19937_64 &rng() {
  static std::mt19937_64 g(12345);
  return g;
}

/// Random values biased towards edges (0, 1, all ones, sign boundaries) a quarter of the time.
uint64_t rand64() {
  static const uint64_t kEdges[] = {0,
                                    1,
                                    2,
                                    0x7f,
                                    0x80,
                                    0xff,
                                    0x7fff,
                                    0x8000,
                                    0xffff,
                                    0x7fffffff,
                                    0x80000000,
                                    0xffffffff,
                                    0x100000000,
                                    ~uint64_t(0),
                                    uint64_t(1) << 63,
                                    (uint64_t(1) << 63) - 1};
  uint64_t r = rng()();
  if ((r & 3) == 0)
    return kEdges[(r >> 2) % (sizeof(kEdges) / sizeof(kEdges[0]))];
  return rng()();
}
uint32_t rand32() { return static_cast<uint32_t>(rand64() ^ (rand64() >> 32)); }

/// Bit i of v.
bool bit(uint64_t v, unsigned i) { return (v >> i) & 1; }

//===-- mul / mad ---------------------------------------------------------===//

TEST(IntOpsMul, HiAndWide32) {
  EXPECT_EQ(ex::mulHi<uint32_t>(0xffffffffu, 0xffffffffu), 0xfffffffeu);
  EXPECT_EQ(ex::mulLo<uint32_t>(0xffffffffu, 0xffffffffu), 1u);
  EXPECT_EQ(ex::mulHi<int32_t>(-1, -1), 0);
  EXPECT_EQ(ex::mulHi<int32_t>(-1, 1), -1);
  EXPECT_EQ(ex::mulHi<int32_t>(kMin32, kMin32), 0x40000000);
  EXPECT_EQ(ex::mulLo<int32_t>(kMax32, 2), -2); // wraps
  EXPECT_EQ(ex::mulWide<int32_t>(kMin32, kMin32), int64_t(1) << 62);
  EXPECT_EQ(ex::mulWide<uint32_t>(0xffffffffu, 2u), 0x1fffffffeull);
  EXPECT_EQ(ex::mulWide<int16_t>(-32768, -32768), 1 << 30);
  EXPECT_EQ(ex::mulWide<uint16_t>(0xffff, 0xffff), 0xfffe0001u);
  EXPECT_EQ(ex::mulHi<uint16_t>(0xffff, 0xffff), 0xfffe);
  EXPECT_EQ(ex::mulLo<uint16_t>(0xffff, 0xffff), 1);
  EXPECT_EQ(ex::mulHi<int16_t>(-2, 3), -1);
  for (int i = 0; i < 10000; ++i) {
    uint32_t a = rand32(), b = rand32();
    EXPECT_EQ(ex::mulHi<uint32_t>(a, b), uint32_t((uint64_t(a) * b) >> 32));
    int64_t sp = int64_t(int32_t(a)) * int64_t(int32_t(b));
    EXPECT_EQ(ex::mulHi<int32_t>(int32_t(a), int32_t(b)), int32_t(uint64_t(sp) >> 32));
  }
}

TEST(IntOpsMul, Hi64AgainstInt128) {
  EXPECT_EQ(ex::mulHi<uint64_t>(~0ull, ~0ull), ~0ull - 1);
  EXPECT_EQ(ex::mulHi<int64_t>(kMin64, kMin64), int64_t(1) << 62);
  EXPECT_EQ(ex::mulHi<int64_t>(kMin64, -1), 0);
  EXPECT_EQ(ex::mulLo<int64_t>(kMin64, -1), kMin64);
  EXPECT_EQ(ex::mulHi<int64_t>(-1, 5), -1);
  for (int i = 0; i < 20000; ++i) {
    uint64_t a = rand64(), b = rand64();
    UInt128 up = UInt128(a) * UInt128(b);
    EXPECT_EQ(ex::mulHi<uint64_t>(a, b), uint64_t(up >> 64));
    EXPECT_EQ(ex::mulLo<uint64_t>(a, b), uint64_t(up));
    Int128 sp = Int128(int64_t(a)) * Int128(int64_t(b));
    EXPECT_EQ(ex::mulHi<int64_t>(int64_t(a), int64_t(b)), int64_t(uint64_t(UInt128(sp) >> 64)));
    EXPECT_TRUE(ex::mulWide<int64_t>(int64_t(a), int64_t(b)) == sp);
  }
}

TEST(IntOpsMul, Mad) {
  EXPECT_EQ(ex::madLo<uint32_t>(0x10000, 0x10000, 5), 5u);
  EXPECT_EQ(ex::madHi<uint32_t>(0x10000, 0x10000, 5), 6u);
  EXPECT_EQ(ex::madWide<int32_t>(-3, 4, int64_t(100)), 88);
  EXPECT_EQ(ex::madHiSatS32(kMax32, kMax32, kMax32), kMax32);
  EXPECT_EQ(ex::madHiSatS32(kMin32, kMax32, kMin32), kMin32);
  EXPECT_EQ(ex::madHiSatS32(0x10000, 0x10000, 3), 4);
}

TEST(IntOpsMul, Mul24) {
  // Upper 8 bits of the operands are ignored; .s32 sign-extends from bit 23.
  EXPECT_EQ(ex::mul24Lo<uint32_t>(0xff000003u, 0x00000005u), 15u);
  EXPECT_EQ(ex::mul24Lo<int32_t>(0x00ffffff, 3), -3); // 0xffffff is -1 as s24
  EXPECT_EQ(ex::mul24Lo<int32_t>(0x7fffffff, 3), -3);
  // 0xffffff * 0xffffff = 0xfffffe000001; bits 47..16 = 0xfffffe00.
  EXPECT_EQ(ex::mul24Hi<uint32_t>(0xffffff, 0xffffff), 0xfffffe00u);
  EXPECT_EQ(ex::mul24Lo<uint32_t>(0xffffff, 0xffffff), 0xfe000001u);
  // s24: -0x800000 * -0x800000 = 2^46 -> bits 47..16 = 2^30.
  EXPECT_EQ(ex::mul24Hi<int32_t>(0x800000, 0x800000), 1 << 30);
  // -1 * 1 = -1 (all 48 bits set) -> .hi is all ones.
  EXPECT_EQ(ex::mul24Hi<int32_t>(0xffffff, 1), -1);
  EXPECT_EQ(ex::mad24Lo<uint32_t>(2, 3, 4), 10u);
  EXPECT_EQ(ex::mad24Hi<uint32_t>(0x10000, 0x100, 1), 0x101u);
  EXPECT_EQ(ex::mad24HiSatS32(0x7fffff, 0x7fffff, kMax32), kMax32);
  for (int i = 0; i < 5000; ++i) {
    uint32_t a = rand32(), b = rand32();
    int64_t sa = int64_t(int32_t(a << 8)) / 256, sb = int64_t(int32_t(b << 8)) / 256;
    int64_t sp = sa * sb;
    EXPECT_EQ(uint32_t(ex::mul24Hi<int32_t>(int32_t(a), int32_t(b))), uint32_t(uint64_t(sp) >> 16));
    uint64_t up = uint64_t(a & 0xffffff) * (b & 0xffffff);
    EXPECT_EQ(ex::mul24Hi<uint32_t>(a, b), uint32_t(up >> 16));
    EXPECT_EQ(ex::mul24Lo<uint32_t>(a, b), uint32_t(up));
  }
}

//===-- add / sub / carry -------------------------------------------------===//

TEST(IntOpsAdd, Saturation) {
  EXPECT_EQ(ex::add<int32_t>(kMax32, 1), kMin32);
  EXPECT_EQ(ex::addSatS32(kMax32, 1), kMax32);
  EXPECT_EQ(ex::addSatS32(kMin32, -1), kMin32);
  EXPECT_EQ(ex::addSatS32(kMin32, kMax32), -1);
  EXPECT_EQ(ex::subSatS32(kMin32, 1), kMin32);
  EXPECT_EQ(ex::subSatS32(0, kMin32), kMax32);
  EXPECT_EQ(ex::subSatS32(kMax32, -1), kMax32);
  EXPECT_EQ(ex::sub<int16_t>(-32768, 1), 32767);
}

TEST(IntOpsAdd, CarryChain) {
  uint32_t cf = 7;
  EXPECT_EQ(ex::addCarry<uint32_t>(0xffffffffu, 1, 0, cf), 0u);
  EXPECT_EQ(cf, 1u);
  EXPECT_EQ(ex::addCarry<uint32_t>(0xffffffffu, 0, 1, cf), 0u);
  EXPECT_EQ(cf, 1u);
  EXPECT_EQ(ex::addCarry<uint32_t>(0xffffffffu, 0xffffffffu, 1, cf), 0xffffffffu);
  EXPECT_EQ(cf, 1u);
  EXPECT_EQ(ex::addCarry<uint32_t>(1, 2, 1, cf), 4u);
  EXPECT_EQ(cf, 0u);
  EXPECT_EQ(ex::subBorrow<uint32_t>(0, 1, 0, cf), 0xffffffffu);
  EXPECT_EQ(cf, 1u);
  EXPECT_EQ(ex::subBorrow<uint32_t>(5, 5, 1, cf), 0xffffffffu);
  EXPECT_EQ(cf, 1u);
  EXPECT_EQ(ex::subBorrow<uint32_t>(5, 5, 0, cf), 0u);
  EXPECT_EQ(cf, 0u);

  // 128-bit add and subtract built from 32-bit limbs match UInt128 arithmetic.
  for (int i = 0; i < 5000; ++i) {
    UInt128 x = (UInt128(rand64()) << 64) | rand64(), y = (UInt128(rand64()) << 64) | rand64();
    uint32_t c = 0, bo = 0;
    UInt128 s = 0, d = 0;
    for (unsigned limb = 0; limb < 4; ++limb) {
      uint32_t xa = uint32_t(x >> (32 * limb)), ya = uint32_t(y >> (32 * limb));
      s |= UInt128(ex::addCarry<uint32_t>(xa, ya, c, c)) << (32 * limb);
      d |= UInt128(ex::subBorrow<uint32_t>(xa, ya, bo, bo)) << (32 * limb);
    }
    EXPECT_TRUE(s == x + y);
    EXPECT_EQ(c, unsigned(x + y < x));
    EXPECT_TRUE(d == x - y);
    EXPECT_EQ(bo, unsigned(x < y));
    uint32_t c64 = 0;
    uint64_t lo = ex::addCarry<uint64_t>(uint64_t(x), uint64_t(y), 0, c64);
    uint64_t hi = ex::addCarry<uint64_t>(uint64_t(x >> 64), uint64_t(y >> 64), c64, c64);
    EXPECT_TRUE(((UInt128(hi) << 64) | lo) == x + y);
  }
}

TEST(IntOpsAdd, MadCarry) {
  uint32_t cf = 0;
  EXPECT_EQ(ex::madLoCarry<uint32_t>(0x10000, 0xffff, 0x10000, 0, cf), 0u);
  EXPECT_EQ(cf, 1u);
  EXPECT_EQ(ex::madHiCarry<uint32_t>(0xffffffffu, 0xffffffffu, 1, 1, cf), 0x0u);
  EXPECT_EQ(cf, 1u);
  EXPECT_EQ(ex::madHiCarry<int32_t>(-1, 1, 1, 0, cf), 0); // hi = -1 = 0xffffffff
  EXPECT_EQ(cf, 1u);
  EXPECT_EQ(ex::madLoCarry<uint64_t>(2, 3, 4, 1, cf), 11u);
  EXPECT_EQ(cf, 0u);
}

//===-- sad / div / rem / abs / neg / min / max ---------------------------===//

TEST(IntOpsArith, Sad) {
  EXPECT_EQ(ex::sad<uint32_t>(3, 10, 1), 8u);
  EXPECT_EQ(ex::sad<uint32_t>(10, 3, 1), 8u);
  EXPECT_EQ(ex::sad<int32_t>(-5, 5, 0), 10);
  EXPECT_EQ(ex::sad<int32_t>(kMin32, kMax32, 0), -1); // |diff| = 2^32 - 1 wraps
  EXPECT_EQ(ex::sad<uint32_t>(0, 0xffffffffu, 1), 0u);
  EXPECT_EQ(ex::sad<int16_t>(-32768, 32767, 1), 0);
  EXPECT_EQ(ex::sad<uint64_t>(~0ull, 0, 0), ~0ull);
}

TEST(IntOpsArith, DivRemNeverTrap) {
  EXPECT_EQ(ex::divInt<uint32_t>(7, 0), 0xffffffffu);
  EXPECT_EQ(ex::divInt<int32_t>(7, 0), -1);
  EXPECT_EQ(ex::divInt<int32_t>(-7, 0), -1);
  EXPECT_EQ(ex::divInt<uint64_t>(7, 0), ~0ull);
  EXPECT_EQ(ex::divInt<int16_t>(7, 0), -1);
  EXPECT_EQ(ex::remInt<uint32_t>(7, 0), 7u);
  EXPECT_EQ(ex::remInt<int32_t>(-7, 0), -7);
  EXPECT_EQ(ex::divInt<int32_t>(kMin32, -1), kMin32);
  EXPECT_EQ(ex::remInt<int32_t>(kMin32, -1), 0);
  EXPECT_EQ(ex::divInt<int64_t>(kMin64, -1), kMin64);
  EXPECT_EQ(ex::remInt<int64_t>(kMin64, -1), 0);
  EXPECT_EQ(ex::divInt<int16_t>(-32768, -1), -32768);
  EXPECT_EQ(ex::divInt<int32_t>(-7, 2), -3); // truncates toward zero
  EXPECT_EQ(ex::remInt<int32_t>(-7, 2), -1);
  EXPECT_EQ(ex::remInt<int32_t>(7, -2), 1);
  EXPECT_EQ(ex::divInt<uint32_t>(0xffffffffu, 2), 0x7fffffffu);
}

TEST(IntOpsArith, AbsNegMinMax) {
  EXPECT_EQ(ex::absInt<int32_t>(kMin32), kMin32);
  EXPECT_EQ(ex::absInt<int32_t>(-5), 5);
  EXPECT_EQ(ex::absInt<int16_t>(-32768), -32768);
  EXPECT_EQ(ex::absInt<int64_t>(kMin64), kMin64);
  EXPECT_EQ(ex::negInt<int32_t>(kMin32), kMin32);
  EXPECT_EQ(ex::negInt<int32_t>(5), -5);
  EXPECT_EQ(ex::negInt<int64_t>(kMin64), kMin64);
  EXPECT_EQ(ex::minInt<int32_t>(-1, 1), -1);
  EXPECT_EQ(ex::minInt<uint32_t>(0xffffffffu, 1), 1u);
  EXPECT_EQ(ex::maxInt<int64_t>(kMin64, -1), -1);
  EXPECT_EQ(ex::minReluS32(-3, 5), 0);
  EXPECT_EQ(ex::minReluS32(3, 5), 3);
  EXPECT_EQ(ex::maxReluS32(-3, -5), 0);
  EXPECT_EQ(ex::maxReluS32(-3, 5), 5);
}

TEST(IntOpsArith, Packed16x2) {
  // halves: a = (hi 0x8000, lo 0x0001), b = (hi 0x7fff, lo 0xffff)
  uint32_t a = 0x80000001u, b = 0x7fffffffu;
  EXPECT_EQ(ex::minU16x2(a, b), 0x7fff0001u);
  EXPECT_EQ(ex::maxU16x2(a, b), 0x8000ffffu);
  EXPECT_EQ(ex::minS16x2(a, b), 0x8000ffffu); // -32768 and -1
  EXPECT_EQ(ex::maxS16x2(a, b), 0x7fff0001u);
  EXPECT_EQ(ex::minS16x2(a, b, true), 0x00000000u);
  EXPECT_EQ(ex::maxS16x2(0x8000ffffu, 0x80000005u, true), 0x00000005u);
  for (int i = 0; i < 2000; ++i) {
    uint32_t x = rand32(), y = rand32();
    uint32_t r = ex::minS16x2(x, y, true);
    for (unsigned h = 0; h < 2; ++h) {
      int xs = int16_t(x >> (16 * h)), ys = int16_t(y >> (16 * h));
      int want = std::max(0, std::min(xs, ys));
      EXPECT_EQ(int16_t(r >> (16 * h)), want);
    }
  }
}

//===-- Logic -------------------------------------------------------------===//

TEST(IntOpsLogic, NotCnot) {
  EXPECT_EQ(ex::bitNot<uint32_t>(0), 0xffffffffu);
  EXPECT_EQ(ex::bitNot<uint16_t>(0x00ff), 0xff00);
  EXPECT_EQ(ex::cnot<uint32_t>(0), 1u);
  EXPECT_EQ(ex::cnot<uint32_t>(0x80000000u), 0u);
  EXPECT_EQ(ex::cnot<uint16_t>(1), 0);
  EXPECT_EQ(ex::cnot<uint64_t>(0), 1u);
}

TEST(IntOpsLogic, Lop3AllLuts) {
  // The canonical inputs reproduce the table itself in the low byte.
  for (unsigned lut = 0; lut < 256; ++lut)
    EXPECT_EQ(ex::lop3(0xF0, 0xCC, 0xAA, uint8_t(lut)) & 0xff, lut);
  // Well-known tables.
  EXPECT_EQ(ex::lop3(0x12345678, 0xff00ff00, 0x0f0f0f0f, 0xF0 & 0xCC), 0x12005600u);
  EXPECT_EQ(ex::lop3(1, 2, 4, 0xF0 | 0xCC | 0xAA), 7u);
  EXPECT_EQ(ex::lop3(0x5, 0x3, 0xf, 0xF0 ^ 0xCC ^ 0xAA), 0x5u ^ 0x3u ^ 0xfu);
  for (unsigned lut = 0; lut < 256; ++lut) {
    for (int i = 0; i < 8; ++i) {
      uint32_t a = rand32(), b = rand32(), c = rand32();
      uint32_t want = 0;
      for (unsigned k = 0; k < 32; ++k) {
        unsigned idx = (bit(a, k) << 2) | (bit(b, k) << 1) | unsigned(bit(c, k));
        want |= uint32_t((lut >> idx) & 1) << k;
      }
      ASSERT_EQ(ex::lop3(a, b, c, uint8_t(lut)), want) << "lut " << lut;
    }
  }
}

//===-- Shifts ------------------------------------------------------------===//

TEST(IntOpsShift, ShlShrAmounts) {
  const uint32_t amounts[] = {0, 1, 31, 32, 33, 255, 0x80000000u, 0xffffffffu};
  const uint32_t v = 0x80000001u;
  const uint32_t wantShl[] = {v, 2, 0x80000000u, 0, 0, 0, 0, 0};
  const uint32_t wantShrU[] = {v, 0x40000000u, 1, 0, 0, 0, 0, 0};
  const int32_t wantShrS[] = {int32_t(v), int32_t(0xc0000000u), -1, -1, -1, -1, -1, -1};
  for (unsigned i = 0; i < 8; ++i) {
    EXPECT_EQ(ex::shl<uint32_t>(v, amounts[i]), wantShl[i]) << amounts[i];
    EXPECT_EQ(ex::shr<uint32_t>(v, amounts[i]), wantShrU[i]) << amounts[i];
    EXPECT_EQ(ex::shr<int32_t>(int32_t(v), amounts[i]), wantShrS[i]) << amounts[i];
    EXPECT_EQ(ex::shr<int32_t>(0x40000000, amounts[i]),
              amounts[i] >= 31 ? 0 : 0x40000000 >> amounts[i]);
  }
  EXPECT_EQ(ex::shl<int32_t>(-1, 31), kMin32);
  EXPECT_EQ(ex::shl<uint16_t>(0xffff, 15), 0x8000);
  EXPECT_EQ(ex::shl<uint16_t>(0xffff, 16), 0);
  EXPECT_EQ(ex::shr<int16_t>(-32768, 15), -1);
  EXPECT_EQ(ex::shr<int16_t>(-32768, 100), -1);
  EXPECT_EQ(ex::shr<uint16_t>(0x8000, 15), 1);
  EXPECT_EQ(ex::shr<uint16_t>(0x8000, 16), 0);
  EXPECT_EQ(ex::shl<uint64_t>(1, 63), 1ull << 63);
  EXPECT_EQ(ex::shl<uint64_t>(1, 64), 0u);
  EXPECT_EQ(ex::shr<int64_t>(kMin64, 63), -1);
  EXPECT_EQ(ex::shr<int64_t>(kMin64, 64), -1);
  EXPECT_EQ(ex::shr<int64_t>(kMin64, 62), -2);
  EXPECT_EQ(ex::shr<uint64_t>(1ull << 63, 64), 0u);
}

TEST(IntOpsShift, Funnel) {
  uint32_t a = 0x89abcdefu, b = 0x01234567u;
  EXPECT_EQ(ex::shfL(a, b, 0, ShiftMode::Clamp), b);
  EXPECT_EQ(ex::shfL(a, b, 4, ShiftMode::Clamp), 0x12345678u);
  EXPECT_EQ(ex::shfL(a, b, 32, ShiftMode::Clamp), a);
  EXPECT_EQ(ex::shfL(a, b, 255, ShiftMode::Clamp), a);
  EXPECT_EQ(ex::shfL(a, b, 32, ShiftMode::Wrap), b);
  EXPECT_EQ(ex::shfL(a, b, 36, ShiftMode::Wrap), 0x12345678u);
  EXPECT_EQ(ex::shfR(a, b, 0, ShiftMode::Clamp), a);
  EXPECT_EQ(ex::shfR(a, b, 4, ShiftMode::Clamp), 0x789abcdeu);
  EXPECT_EQ(ex::shfR(a, b, 32, ShiftMode::Clamp), b);
  EXPECT_EQ(ex::shfR(a, b, 0x80000000u, ShiftMode::Clamp), b);
  EXPECT_EQ(ex::shfR(a, b, 33, ShiftMode::Wrap), (a >> 1) | (b << 31));
  EXPECT_EQ(ex::shfR(a, b, 31, ShiftMode::Wrap), (a >> 31) | (b << 1));
  // Rotation: shf with a == b rotates.
  for (uint32_t n = 0; n < 64; ++n) {
    uint32_t s = n & 31;
    uint32_t rotl = s ? (a << s) | (a >> (32 - s)) : a;
    EXPECT_EQ(ex::shfL(a, a, n, ShiftMode::Wrap), rotl);
  }
}

//===-- Bit counting ------------------------------------------------------===//

TEST(IntOpsBits, PopcClzBrev) {
  EXPECT_EQ(ex::popc<uint32_t>(0), 0u);
  EXPECT_EQ(ex::popc<uint32_t>(0xffffffffu), 32u);
  EXPECT_EQ(ex::popc<uint64_t>(~0ull), 64u);
  EXPECT_EQ(ex::clz<uint32_t>(0), 32u);
  EXPECT_EQ(ex::clz<uint32_t>(1), 31u);
  EXPECT_EQ(ex::clz<uint32_t>(0x80000000u), 0u);
  EXPECT_EQ(ex::clz<uint64_t>(0), 64u);
  EXPECT_EQ(ex::clz<uint64_t>(1), 63u);
  EXPECT_EQ(ex::brev<uint32_t>(1), 0x80000000u);
  EXPECT_EQ(ex::brev<uint32_t>(0x12345678u), 0x1e6a2c48u);
  EXPECT_EQ(ex::brev<uint64_t>(1), 1ull << 63);
  for (int i = 0; i < 2000; ++i) {
    uint64_t v = rand64();
    unsigned pc = 0, lz = 64;
    uint64_t rev = 0;
    for (unsigned k = 0; k < 64; ++k) {
      pc += bit(v, k);
      if (bit(v, k))
        lz = 63 - k;
      rev |= uint64_t(bit(v, k)) << (63 - k);
    }
    EXPECT_EQ(ex::popc<uint64_t>(v), pc);
    EXPECT_EQ(ex::clz<uint64_t>(v), lz);
    EXPECT_EQ(ex::brev<uint64_t>(v), rev);
    EXPECT_EQ(ex::brev<uint32_t>(uint32_t(v)), uint32_t(rev >> 32));
  }
}

TEST(IntOpsBits, Bfind) {
  EXPECT_EQ(ex::bfind<uint32_t>(0), 0xffffffffu);
  EXPECT_EQ(ex::bfind<uint32_t>(0, true), 0xffffffffu);
  EXPECT_EQ(ex::bfind<uint32_t>(1), 0u);
  EXPECT_EQ(ex::bfind<uint32_t>(1, true), 31u);
  EXPECT_EQ(ex::bfind<uint32_t>(0x80000000u), 31u);
  EXPECT_EQ(ex::bfind<uint32_t>(0x80000000u, true), 0u);
  EXPECT_EQ(ex::bfind<int32_t>(0), 0xffffffffu);
  EXPECT_EQ(ex::bfind<int32_t>(-1), 0xffffffffu);
  EXPECT_EQ(ex::bfind<int32_t>(-1, true), 0xffffffffu);
  EXPECT_EQ(ex::bfind<int32_t>(1), 0u);
  EXPECT_EQ(ex::bfind<int32_t>(kMin32), 30u); // ~INT_MIN = INT_MAX, msb at 30
  EXPECT_EQ(ex::bfind<int32_t>(kMin32, true), 1u);
  EXPECT_EQ(ex::bfind<int32_t>(-2), 0u);
  EXPECT_EQ(ex::bfind<int32_t>(kMax32), 30u);
  EXPECT_EQ(ex::bfind<uint64_t>(1ull << 40), 40u);
  EXPECT_EQ(ex::bfind<uint64_t>(1ull << 40, true), 23u);
  EXPECT_EQ(ex::bfind<int64_t>(kMin64), 62u);
  EXPECT_EQ(ex::bfind<int64_t>(-1), 0xffffffffu);
  for (int i = 0; i < 2000; ++i) {
    uint32_t v = rand32();
    uint32_t wantU = 0xffffffffu, wantS = 0xffffffffu;
    for (int k = 31; k >= 0; --k)
      if (bit(v, k)) {
        wantU = k;
        break;
      }
    for (int k = 30; k >= 0; --k)
      if (bit(v, k) != bit(v, 31)) {
        wantS = k;
        break;
      }
    EXPECT_EQ(ex::bfind<uint32_t>(v), wantU);
    EXPECT_EQ(ex::bfind<int32_t>(int32_t(v)), wantS);
  }
}

//===-- Bit fields --------------------------------------------------------===//

/// bfe straight from the ISA pseudocode, bit by bit.
template <typename T> T bfeRef(T a, uint32_t b, uint32_t c) {
  const unsigned msb = sizeof(T) * 8 - 1;
  unsigned pos = b & 0xff, len = c & 0xff;
  uint64_t ua = uint64_t(std::make_unsigned_t<T>(a));
  bool sbit = false;
  if (std::is_signed_v<T> && len != 0)
    sbit = bit(ua, std::min(pos + len - 1, msb));
  uint64_t d = 0;
  for (unsigned i = 0; i <= msb; ++i) {
    bool v = (i < len && pos + i <= msb) ? bit(ua, pos + i) : sbit;
    d |= uint64_t(v) << i;
  }
  return T(std::make_unsigned_t<T>(d));
}

TEST(IntOpsField, Bfe) {
  EXPECT_EQ(ex::bfe<uint32_t>(0xdeadbeefu, 8, 8), 0xbeu);
  EXPECT_EQ(ex::bfe<int32_t>(int32_t(0xdeadbeefu), 8, 8), int32_t(0xffffffbe));
  EXPECT_EQ(ex::bfe<int32_t>(int32_t(0xdeadbeefu), 8, 0), 0); // len 0
  EXPECT_EQ(ex::bfe<uint32_t>(0xdeadbeefu, 0, 32), 0xdeadbeefu);
  EXPECT_EQ(ex::bfe<uint32_t>(0xdeadbeefu, 28, 8), 0xdu);       // pos + len > 32
  EXPECT_EQ(ex::bfe<int32_t>(int32_t(0xdeadbeefu), 28, 8), -3); // 0xd sign-extended
  EXPECT_EQ(ex::bfe<int32_t>(int32_t(0xdeadbeefu), 40, 8), -1); // pos beyond msb: sign of a
  EXPECT_EQ(ex::bfe<int32_t>(0x7fffffff, 40, 8), 0);
  EXPECT_EQ(ex::bfe<uint32_t>(0xdeadbeefu, 40, 8), 0u);
  EXPECT_EQ(ex::bfe<uint32_t>(0xdeadbeefu, 0x104, 0x108), 0xeeu); // only low 8 bits count
  EXPECT_EQ(ex::bfe<int64_t>(kMin64, 63, 1), -1);
  EXPECT_EQ(ex::bfe<uint64_t>(~0ull, 60, 255), 0xfu);
  for (int i = 0; i < 20000; ++i) {
    uint64_t a = rand64();
    uint32_t b = rand32() % 300, c = rand32() % 300;
    if (i & 1) {
      b = rand32();
      c = rand32();
    }
    ASSERT_EQ(ex::bfe<uint32_t>(uint32_t(a), b, c), bfeRef<uint32_t>(uint32_t(a), b, c));
    ASSERT_EQ(ex::bfe<int32_t>(int32_t(a), b, c), bfeRef<int32_t>(int32_t(a), b, c));
    ASSERT_EQ(ex::bfe<uint64_t>(a, b, c), bfeRef<uint64_t>(a, b, c));
    ASSERT_EQ(ex::bfe<int64_t>(int64_t(a), b, c), bfeRef<int64_t>(int64_t(a), b, c))
        << a << " " << b << " " << c;
  }
}

TEST(IntOpsField, Bfi) {
  EXPECT_EQ(ex::bfi<uint32_t>(0xab, 0x11111111u, 8, 8), 0x1111ab11u);
  EXPECT_EQ(ex::bfi<uint32_t>(0xab, 0x11111111u, 8, 0), 0x11111111u);
  EXPECT_EQ(ex::bfi<uint32_t>(0xab, 0x11111111u, 32, 8), 0x11111111u);
  EXPECT_EQ(ex::bfi<uint32_t>(0xabcd, 0x11111111u, 28, 16), 0xd1111111u);
  EXPECT_EQ(ex::bfi<uint32_t>(0xffffffffu, 0, 0, 32), 0xffffffffu);
  EXPECT_EQ(ex::bfi<uint64_t>(1, 0, 63, 200), 1ull << 63);
  for (int i = 0; i < 5000; ++i) {
    uint32_t a = rand32(), b = rand32(), c = rand32() % 64, d = rand32() % 64;
    uint32_t want = b;
    for (unsigned k = 0; k < (d & 0xff) && (c & 0xff) + k <= 31; ++k)
      want = (want & ~(1u << (c + k))) | (uint32_t(bit(a, k)) << (c + k));
    EXPECT_EQ(ex::bfi<uint32_t>(a, b, c, d), want);
  }
}

TEST(IntOpsField, Bmsk) {
  EXPECT_EQ(ex::bmsk(1, 2, ShiftMode::Wrap), 0x6u);
  EXPECT_EQ(ex::bmsk(0, 0, ShiftMode::Wrap), 0u);
  EXPECT_EQ(ex::bmsk(0, 31, ShiftMode::Wrap), 0x7fffffffu);
  EXPECT_EQ(ex::bmsk(0, 32, ShiftMode::Wrap), 0u);           // width wraps to 0
  EXPECT_EQ(ex::bmsk(0, 32, ShiftMode::Clamp), 0xffffffffu); // width clamps
  EXPECT_EQ(ex::bmsk(4, 100, ShiftMode::Clamp), 0xfffffff0u);
  EXPECT_EQ(ex::bmsk(32, 4, ShiftMode::Clamp), 0u);
  EXPECT_EQ(ex::bmsk(33, 4, ShiftMode::Wrap), 0x1eu);
  EXPECT_EQ(ex::bmsk(28, 8, ShiftMode::Wrap), 0xf0000000u); // stops at bit 31
  EXPECT_EQ(ex::bmsk(31, 1, ShiftMode::Clamp), 0x80000000u);
}

TEST(IntOpsField, Szext) {
  EXPECT_EQ(ex::szext<uint32_t>(0xffffffffu, 0, ShiftMode::Wrap), 0u);
  EXPECT_EQ(ex::szext<int32_t>(-1, 0, ShiftMode::Clamp), 0);
  EXPECT_EQ(ex::szext<int32_t>(0xf0, 8, ShiftMode::Wrap), -16);
  EXPECT_EQ(ex::szext<uint32_t>(0x1f0, 8, ShiftMode::Wrap), 0xf0u);
  EXPECT_EQ(ex::szext<int32_t>(0x70, 8, ShiftMode::Clamp), 0x70);
  EXPECT_EQ(ex::szext<int32_t>(0x12345678, 32, ShiftMode::Clamp), 0x12345678);
  EXPECT_EQ(ex::szext<int32_t>(0x12345678, 200, ShiftMode::Clamp), 0x12345678);
  EXPECT_EQ(ex::szext<int32_t>(0x12345678, 32, ShiftMode::Wrap), 0);  // 32 & 31 = 0
  EXPECT_EQ(ex::szext<int32_t>(0x12345678, 36, ShiftMode::Wrap), -8); // low 4 bits 0x8
  EXPECT_EQ(ex::szext<int32_t>(1, 1, ShiftMode::Wrap), -1);
  EXPECT_EQ(ex::szext<uint32_t>(0x80000000u, 31, ShiftMode::Wrap), 0u);
  EXPECT_EQ(ex::szext<int32_t>(0x40000000, 31, ShiftMode::Wrap), int32_t(0xc0000000u));
}

//===-- prmt --------------------------------------------------------------===//

TEST(IntOpsPrmt, DefaultMode) {
  const uint32_t a = 0x03020100u, b = 0x07060504u;
  EXPECT_EQ(ex::prmt(a, b, 0x3210), a);
  EXPECT_EQ(ex::prmt(a, b, 0x7654), b);
  EXPECT_EQ(ex::prmt(a, b, 0x0123), 0x00010203u);
  EXPECT_EQ(ex::prmt(a, b, 0x7531), 0x07050301u);
  EXPECT_EQ(ex::prmt(a, b, 0xffff7531u), 0x07050301u); // bits above 15 ignored
  const uint32_t s = 0x80017f00u, t = 0x00ff0080u;     // bytes: 00 7f 01 80 | 80 00 ff 00
  EXPECT_EQ(ex::prmt(s, t, 0x8888), 0x00000000u);      // sign of byte 0 (0x00)
  EXPECT_EQ(ex::prmt(s, t, 0xbbbb), 0xffffffffu);      // sign of byte 3 (0x80)
  EXPECT_EQ(ex::prmt(s, t, 0x0c93), 0x00ff0080u);      // byte4 sign, byte1 sign(0x7f)=0, byte3
  EXPECT_EQ(ex::prmt(s, t, 0xe6d5), 0xffff0000u);      // 6->ff, e->sign(ff), d->sign(00), 5->00
}

TEST(IntOpsPrmt, Modes) {
  const uint32_t a = 0x33221100u, b = 0x77665544u; // byte k holds 0x11 * k
  auto bytes = [](unsigned b3, unsigned b2, unsigned b1, unsigned b0) {
    return (b3 * 0x11u) << 24 | (b2 * 0x11u) << 16 | (b1 * 0x11u) << 8 | (b0 * 0x11u);
  };
  // Result bytes listed from byte 3 down to byte 0, per the ISA's table.
  EXPECT_EQ(ex::prmt(a, b, 0, PrmtMode::F4e), bytes(3, 2, 1, 0));
  EXPECT_EQ(ex::prmt(a, b, 1, PrmtMode::F4e), bytes(4, 3, 2, 1));
  EXPECT_EQ(ex::prmt(a, b, 2, PrmtMode::F4e), bytes(5, 4, 3, 2));
  EXPECT_EQ(ex::prmt(a, b, 3, PrmtMode::F4e), bytes(6, 5, 4, 3));
  EXPECT_EQ(ex::prmt(a, b, 0, PrmtMode::B4e), bytes(5, 6, 7, 0));
  EXPECT_EQ(ex::prmt(a, b, 1, PrmtMode::B4e), bytes(6, 7, 0, 1));
  EXPECT_EQ(ex::prmt(a, b, 2, PrmtMode::B4e), bytes(7, 0, 1, 2));
  EXPECT_EQ(ex::prmt(a, b, 3, PrmtMode::B4e), bytes(0, 1, 2, 3));
  EXPECT_EQ(ex::prmt(a, b, 0, PrmtMode::Rc8), bytes(0, 0, 0, 0));
  EXPECT_EQ(ex::prmt(a, b, 2, PrmtMode::Rc8), bytes(2, 2, 2, 2));
  EXPECT_EQ(ex::prmt(a, b, 3, PrmtMode::Rc8), bytes(3, 3, 3, 3));
  EXPECT_EQ(ex::prmt(a, b, 0, PrmtMode::Ecl), bytes(3, 2, 1, 0));
  EXPECT_EQ(ex::prmt(a, b, 1, PrmtMode::Ecl), bytes(3, 2, 1, 1));
  EXPECT_EQ(ex::prmt(a, b, 2, PrmtMode::Ecl), bytes(3, 2, 2, 2));
  EXPECT_EQ(ex::prmt(a, b, 3, PrmtMode::Ecl), bytes(3, 3, 3, 3));
  EXPECT_EQ(ex::prmt(a, b, 0, PrmtMode::Ecr), bytes(0, 0, 0, 0));
  EXPECT_EQ(ex::prmt(a, b, 1, PrmtMode::Ecr), bytes(1, 1, 1, 0));
  EXPECT_EQ(ex::prmt(a, b, 2, PrmtMode::Ecr), bytes(2, 2, 1, 0));
  EXPECT_EQ(ex::prmt(a, b, 3, PrmtMode::Ecr), bytes(3, 2, 1, 0));
  EXPECT_EQ(ex::prmt(a, b, 0, PrmtMode::Rc16), bytes(1, 0, 1, 0));
  EXPECT_EQ(ex::prmt(a, b, 1, PrmtMode::Rc16), bytes(3, 2, 3, 2));
  EXPECT_EQ(ex::prmt(a, b, 2, PrmtMode::Rc16), bytes(1, 0, 1, 0));
  EXPECT_EQ(ex::prmt(a, b, 3, PrmtMode::Rc16), bytes(3, 2, 3, 2));
  // Only c[1:0] matters in the special modes, and they never sign-replicate.
  EXPECT_EQ(ex::prmt(a, b, 0xfffffffdu, PrmtMode::F4e), bytes(4, 3, 2, 1));
  EXPECT_EQ(ex::prmt(0x80808080u, 0x80808080u, 0xc, PrmtMode::Rc8), 0x80808080u);
}

//===-- Dot products ------------------------------------------------------===//

TEST(IntOpsDot, Dp4a) {
  EXPECT_EQ((ex::dp4a<false, false>(0x01020304u, 0x01010101u, 10)), 20u);
  EXPECT_EQ((ex::dp4a<true, true>(0xffffffffu, 0x01010101u, 0)), uint32_t(-4));
  EXPECT_EQ((ex::dp4a<false, true>(0xffffffffu, 0x01010101u, 0)), 4u * 255u);
  EXPECT_EQ((ex::dp4a<true, false>(0xffffffffu, 0xffffffffu, 0)), uint32_t(-4 * 255));
  EXPECT_EQ((ex::dp4a<true, true>(0x80808080u, 0x80808080u, 0)), 4u * 16384u);
  EXPECT_EQ((ex::dp4a<false, false>(0xffffffffu, 0xffffffffu, 0xffffffffu)), 4u * 65025u - 1);
  for (int i = 0; i < 5000; ++i) {
    uint32_t a = rand32(), b = rand32(), c = rand32();
    int64_t ss = int32_t(c), uu = c, su = int32_t(c), us = int32_t(c);
    for (unsigned k = 0; k < 4; ++k) {
      unsigned ab = (a >> (8 * k)) & 0xff, bb = (b >> (8 * k)) & 0xff;
      int as = ab >= 128 ? int(ab) - 256 : int(ab), bs = bb >= 128 ? int(bb) - 256 : int(bb);
      ss += int64_t(as) * bs;
      uu += int64_t(ab) * bb;
      su += int64_t(as) * bb;
      us += int64_t(ab) * bs;
    }
    EXPECT_EQ((ex::dp4a<true, true>(a, b, c)), uint32_t(ss));
    EXPECT_EQ((ex::dp4a<false, false>(a, b, c)), uint32_t(uu));
    EXPECT_EQ((ex::dp4a<true, false>(a, b, c)), uint32_t(su));
    EXPECT_EQ((ex::dp4a<false, true>(a, b, c)), uint32_t(us));
  }
}

TEST(IntOpsDot, Dp2a) {
  // a halves: lo = 2, hi = -1 (0xffff); b bytes: 3, 4, 5, 0xff
  const uint32_t a = 0xffff0002u, b = 0xff050403u;
  EXPECT_EQ((ex::dp2a<true, true>(a, b, 100, false)), uint32_t(100 + 2 * 3 + (-1) * 4));
  EXPECT_EQ((ex::dp2a<true, true>(a, b, 100, true)), uint32_t(100 + 2 * 5 + (-1) * (-1)));
  EXPECT_EQ((ex::dp2a<false, false>(a, b, 0, false)), uint32_t(2 * 3 + 65535 * 4));
  EXPECT_EQ((ex::dp2a<false, false>(a, b, 0, true)), uint32_t(2 * 5 + 65535 * 255));
  EXPECT_EQ((ex::dp2a<true, false>(a, b, 0, true)), uint32_t(2 * 5 + (-1) * 255));
  EXPECT_EQ((ex::dp2a<false, true>(a, b, 0, true)), uint32_t(2 * 5 + 65535 * (-1)));
}

} // namespace
} // namespace ptxsim::test

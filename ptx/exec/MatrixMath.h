#pragma once
// Element types and the D = A x B + C arithmetic shared by the tensor-core families: wmma
// (OpsMatrix.cpp) and mma.sync (OpsMma.cpp). They differ only in how fragments map to lanes.
//
// Contract: matrices are passed as raw element bits, row-major: A is m x k, B is k x n, C and D
// are m x n. mulAdd() follows the hardware's rules per type: f64 fuses each step (fma, in the
// instruction's rounding mode); f16/bf16/tf32/fp8 inputs multiply exactly in f32 and accumulate
// in f32 with round-to-nearest adds (a f16 D is rounded once at the end); s8/u8/s4/u4 products
// add in 64 bits and wrap to 32 (or saturate with .satfinite); b1 adds the popcounts of the
// words' and/xor into a 32-bit sum.

#include "ptx/ast/Types.h"
#include "ptx/exec/Numerics.h"

#include <cstdint>

namespace ptxsim::ptx::exec::matrix {

enum class Elem : uint8_t { None, F16, BF16, TF32, F32, F64, S8, U8, S32, E4M3, E5M2, S4, U4, B1 };

Elem elemOf(ScalarType t);
unsigned elemBits(Elem e);

struct MulAdd {
  uint16_t m = 0, n = 0, k = 0;
  Elem ta = Elem::None, tb = Elem::None, tc = Elem::None, td = Elem::None;
  bool satfinite = false;
  bool bitAnd = false; ///< b1: .and.popc (otherwise .xor.popc)
  Rnd rnd = Rnd::RN;   ///< f64 only
};

/// Elements of the largest operands of any shape: A and B of mma m16n8k256 (b1), C and D of
/// wmma m16n16 / m32n8.
constexpr unsigned kMaxA = 16 * 256, kMaxB = 256 * 8, kMaxC = 16 * 16;

/// d = a x b + c for the types and shape in `op` (element bits, row-major).
void mulAdd(const MulAdd &op, const uint64_t *a, const uint64_t *b, const uint64_t *c, uint64_t *d);

} // namespace ptxsim::ptx::exec::matrix

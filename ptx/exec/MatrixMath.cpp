#include "ptx/exec/MatrixMath.h"

#include <algorithm>
#include <climits>

namespace ptxsim::ptx::exec::matrix {

Elem elemOf(ScalarType t) {
  switch (t) {
  case ScalarType::f16: return Elem::F16;
  case ScalarType::bf16: return Elem::BF16;
  case ScalarType::tf32: return Elem::TF32;
  case ScalarType::f32: return Elem::F32;
  case ScalarType::f64: return Elem::F64;
  case ScalarType::s8: return Elem::S8;
  case ScalarType::u8: return Elem::U8;
  case ScalarType::s32: return Elem::S32;
  case ScalarType::e4m3: return Elem::E4M3;
  case ScalarType::e5m2: return Elem::E5M2;
  case ScalarType::s4: return Elem::S4;
  case ScalarType::u4: return Elem::U4;
  case ScalarType::b1: return Elem::B1;
  default: return Elem::None;
  }
}

unsigned elemBits(Elem e) {
  switch (e) {
  case Elem::F16: case Elem::BF16: return 16;
  case Elem::S8: case Elem::U8: case Elem::E4M3: case Elem::E5M2: return 8;
  case Elem::S4: case Elem::U4: return 4;
  case Elem::B1: return 1;
  case Elem::F64: return 64;
  default: return 32;
  }
}

namespace {

inline float toF32(Elem t, uint64_t bits) {
  switch (t) {
  case Elem::F16: return f16ToF32((uint16_t)bits);
  case Elem::BF16: return bf16ToF32((uint16_t)bits);
  case Elem::TF32: return f32OfBits((uint32_t)bits & 0xffffe000u);
  case Elem::E4M3: return (float)fp8ToF64((uint8_t)bits, false);
  case Elem::E5M2: return (float)fp8ToF64((uint8_t)bits, true);
  default: return f32OfBits((uint32_t)bits);
  }
}

inline int64_t toInt(Elem t, uint64_t bits) {
  switch (t) {
  case Elem::S8: return (int8_t)bits;
  case Elem::U8: return (uint8_t)bits;
  case Elem::S4: return (int64_t)((bits & 15) ^ 8) - 8;
  case Elem::U4: return bits & 15;
  default: return (int32_t)bits;
  }
}

} // namespace

void mulAdd(const MulAdd &op, const uint64_t *a, const uint64_t *b, const uint64_t *c, uint64_t *d) {
  const unsigned M = op.m, N = op.n, K = op.k;
  if (op.ta == Elem::F64) {
    for (unsigned i = 0; i < M; ++i)
      for (unsigned j = 0; j < N; ++j) {
        double acc = f64OfBits(c[i * N + j]);
        for (unsigned kk = 0; kk < K; ++kk)
          acc = fmaF64(f64OfBits(a[i * K + kk]), f64OfBits(b[kk * N + j]), acc, op.rnd);
        d[i * N + j] = bitsOfF64(acc);
      }
  } else if (op.ta == Elem::B1) {
    for (unsigned i = 0; i < M; ++i)
      for (unsigned j = 0; j < N; ++j) {
        uint32_t acc = (uint32_t)c[i * N + j];
        for (unsigned kk = 0; kk < K; ++kk)
          acc += op.bitAnd ? (a[i * K + kk] & b[kk * N + j]) : (a[i * K + kk] ^ b[kk * N + j]);
        d[i * N + j] = acc;
      }
  } else if (op.ta == Elem::S8 || op.ta == Elem::U8 || op.ta == Elem::S4 || op.ta == Elem::U4) {
    for (unsigned i = 0; i < M; ++i)
      for (unsigned j = 0; j < N; ++j) {
        int64_t acc = toInt(op.tc, c[i * N + j]);
        for (unsigned kk = 0; kk < K; ++kk)
          acc += toInt(op.ta, a[i * K + kk]) * toInt(op.tb, b[kk * N + j]);
        if (op.satfinite)
          acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
        d[i * N + j] = (uint32_t)acc;
      }
  } else {
    float fa[kMaxA], fb[kMaxB];
    for (unsigned e = 0; e < M * K; ++e)
      fa[e] = toF32(op.ta, a[e]);
    for (unsigned e = 0; e < K * N; ++e)
      fb[e] = toF32(op.tb, b[e]);
    for (unsigned i = 0; i < M; ++i)
      for (unsigned j = 0; j < N; ++j) {
        float acc = toF32(op.tc, c[i * N + j]);
        for (unsigned kk = 0; kk < K; ++kk)
          acc = addF32(acc, fa[i * K + kk] * fb[kk * N + j]); // the product is exact
        d[i * N + j] = op.td == Elem::F16 ? f32ToF16(acc) : bitsOfF32(acc);
      }
  }
}

} // namespace ptxsim::ptx::exec::matrix

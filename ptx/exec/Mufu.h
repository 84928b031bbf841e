#ifndef PTXSIM_PTX_EXEC_MUFU_H
#define PTXSIM_PTX_EXEC_MUFU_H

// The multi-function unit (SASS MUFU) of sm_90, bit for bit as an H200 computes it, for the
// operations whose whole error function was measured: MUFU.RCP, MUFU.RSQ and MUFU.EX2
// (tools/hw/data/h200-2026-11-28-fidelity), MUFU.SQRT, MUFU.LG2, MUFU.TANH, MUFU.SIN and MUFU.COS
// (h200-2026-11-30-mufu). Like the hardware unit they flush subnormal inputs and results to
// signed zero (MUFU.TANH keeps them); the PTX instructions without .ftz wrap them as ptxas does
// (Numerics.h).

#include <cstdint>

namespace ptxsim::ptx::exec {

/// MUFU.RCP: rcp(+-0) = +-inf, rcp(+-inf) = +-0, NaN -> NaN; within 1 ulp of 1/x.
float mufuRcp(float x);
/// MUFU.RSQ: rsqrt(+0) = +inf, rsqrt(-0) = -inf, rsqrt(+inf) = +0, negative -> NaN.
float mufuRsq(float x);
/// MUFU.SQRT: sqrt(+-0) = +-0, sqrt(+inf) = +inf, negative -> NaN; within 1 ulp of sqrt(x).
float mufuSqrt(float x);
/// MUFU.TANH (all of tanh.approx.f32): odd; x itself for |x| < 2^-8 (subnormals kept), +-1 for
/// |x| >= 8, NaN -> NaN; within 2^-11 relative of tanh(x).
float mufuTanh(float x);
/// MUFU.EX2: ex2(-inf) = +0, ex2(+-0) = 1, ex2(+inf) = +inf, NaN -> NaN.
float mufuEx2(float x);
/// MUFU.LG2: lg2(+-0) = -inf (subnormal inputs too), lg2(+inf) = +inf, lg2(1) = +0, negative and
/// NaN -> NaN; otherwise within about 2^-22 of log2(x) (absolute), truncated toward zero.
float mufuLg2(float x);
/// MUFU.SIN of r in revolutions (about sin(2 pi r)): the unit reads the phase floor(frac(|r|) *
/// 2^25) and the sign of r, so |r| < 2^-25 and |r| >= 2^24 give +-0; sin(+-0) = +-0,
/// sin(+-inf) = NaN, NaN -> NaN; within about 2^-21.4 of the function (absolute).
float mufuSin(float r);
/// MUFU.COS of r in revolutions: MUFU.SIN a quarter turn on (phase + 2^23); cos(-r) = cos(r),
/// cos(+-0) = 1, cos(+-inf) = NaN, NaN -> NaN.
float mufuCos(float r);

} // namespace ptxsim::ptx::exec

#endif // PTXSIM_PTX_EXEC_MUFU_H

#pragma once
// Pieces the texture (OpsTexture.cpp) and surface (OpsSurface.cpp) families share. Internal to
// ptx/exec.

#include "ptx/exec/Exec.h"
#include "ptx/exec/TextureDesc.h"

namespace ptxsim::ptx::exec {

/// The descriptor `handle` points at, checked as TextureDesc.h's contract says (a texture object
/// when !surface, a surface object otherwise) and that its texels lie in live memory; null after
/// reporting a fault for `lane`.
const TexDesc *checkedDescriptor(ExecCtx &ctx, const Warp &w, const ir::Inst &in, unsigned lane,
                                 uint64_t handle, bool surface);

/// The 8-bit fraction of linear filtering: `frac` (x - 0.5 - floor(x - 0.5), in [0, 1)) times
/// 256 rounded to nearest, halves up; 256 (all weight on the upper texel) just below 1. Values
/// outside [0, 1) (NaN) give 0.
unsigned linearFraction(float frac);

/// Corner weights of linear filtering in `dims` (1-3) dimensions, in units of 1/256, from the
/// per-dimension fractions q[0..dims) (linearFraction). Corner c has bit k set when it is the
/// upper texel along dimension k. Contract: w has room for 1 << dims entries; the weights are
/// whole numbers that sum to 256, as on the hardware (not the exact products of the fractions).
/// Returns 1 << dims. `total` (default 256) is the weight to split: a mip level's share when
/// two levels are blended (the weights then sum to it).
unsigned linearWeights(unsigned dims, const unsigned *q, unsigned *w, unsigned total = 256);

/// Texel-space coordinate of normalized coordinate `u` along a dimension of `size` texels, as
/// the hardware converts it (u in fixed point with 21 fraction bits, then times the size).
float normalizedToTexels(float u, uint32_t size);

/// suld, sust, sured, suq (OpsSurface.cpp); registered by registerTextureOps.
void registerSurfaceOps();

} // namespace ptxsim::ptx::exec

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

/// suld, sust, sured, suq (OpsSurface.cpp); registered by registerTextureOps.
void registerSurfaceOps();

} // namespace ptxsim::ptx::exec

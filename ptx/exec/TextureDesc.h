#pragma once
// The texture and surface descriptor shared by the runtime (cudaCreateTextureObject,
// cudaCreateSurfaceObject) and the executor (tex, tld4, txq, suld, sust, sured, suq).
//
// Contract: a cudaTextureObject_t / cudaSurfaceObject_t is the device address of one TexDesc,
// alone in an allocation of kind Const and exactly sizeof(TexDesc) bytes, starting with
// kTexMagic (texture) or kSurfMagic (surface). The executor checks all of that before trusting a
// handle and faults otherwise.
//
// Layout: texel (x, y, z) of layer `l` of mip level `m` lies at
//   data + levelOffset[m] + l * layerPitch(m) + z * slicePitch(m) + y * pitch(m) + x * elemBytes
// where level 0 uses the descriptor's pitch, slicePitch and layerPitch, and a level m > 0 of a
// mipmapped resource is packed: width max(1, width >> m) (likewise height and depth for the
// resource's dimensions), pitch = width * elemBytes, slicePitch = pitch * height, layerPitch =
// slicePitch * depth. Layered resources (1D/2D layered, cubemaps with 6 layers per cube) have
// `layers` layers; the others have one.

#include <cstdint>

namespace ptxsim::ptx::exec {

constexpr uint64_t kTexMagic = 0x5054585354455832ull;  // "PTXSTEX2"
constexpr uint64_t kSurfMagic = 0x5054585353555231ull; // "PTXSSUR1"
constexpr unsigned kMaxMipLevels = 16;

enum class TexResource : uint8_t { Linear, Pitch2D, Array };
enum class TexFormat : uint8_t { Signed, Unsigned, Float };
enum class TexFilter : uint8_t { Point, Linear };
enum class TexAddress : uint8_t { Wrap, Clamp, Mirror, Border };

struct TexDesc {
  uint64_t magic = kTexMagic;
  uint64_t data = 0;       ///< device address of texel (0, 0, 0) of layer 0, level 0
  uint64_t pitch = 0;      ///< bytes per row (level 0)
  uint64_t slicePitch = 0; ///< bytes per 2D slice (level 0)
  uint64_t layerPitch = 0; ///< bytes per layer (level 0; layered resources)
  uint32_t width = 0, height = 1, depth = 1; ///< texels of level 0 (linear: elements)
  uint32_t layers = 1;     ///< layers (1D/2D layered; cubemaps: 6 per cube); 1 otherwise
  TexResource resource = TexResource::Linear;
  uint8_t channels = 1;    ///< 1, 2 or 4
  uint8_t bits = 32;       ///< bits per channel: 8, 16 or 32 (float: 16 is half, 32 float)
  TexFormat format = TexFormat::Float;
  TexFilter filter = TexFilter::Point;
  TexAddress address[3] = {TexAddress::Clamp, TexAddress::Clamp, TexAddress::Clamp};
  uint8_t normalizedCoords = 0;
  uint8_t readNormalizedFloat = 0; ///< 8/16-bit integers read as [0,1] / [-1,1]
  uint8_t dims = 1;                ///< 1, 2 or 3: the dimensions of one layer (cubemap: 2)
  uint8_t layered = 0;             ///< layers are selected by the instruction (a1d, a2d, acube)
  uint8_t cubemap = 0;             ///< faces of cubes: layers is a multiple of 6, width == height
  uint8_t levels = 0;              ///< mip levels, 0 when not mipmapped
  TexFilter mipFilter = TexFilter::Point;
  uint8_t reserved[5] = {};
  float border[4] = {0, 0, 0, 0};
  float lodBias = 0, minLod = 0, maxLod = 0; ///< applied to the level of detail (mipmapped)
  float reserved2 = 0;
  uint64_t levelOffset[kMaxMipLevels] = {}; ///< bytes from `data` to each level (mipmapped)

  unsigned elemBytes() const { return channels * (bits / 8u); }
};

static_assert(sizeof(TexDesc) == 240, "TexDesc layout is shared with device memory");

/// Geometry of one mip level (level 0 of a resource that is not mipmapped: the descriptor's).
struct TexLevel {
  uint64_t offset, pitch, slicePitch, layerPitch;
  uint32_t width, height, depth;
};

inline TexLevel texLevel(const TexDesc &d, unsigned m) {
  if (m == 0 || d.levels == 0)
    return {0, d.pitch, d.slicePitch, d.layerPitch, d.width, d.height, d.depth};
  auto shrink = [m](uint32_t n) { return (n >> m) ? (n >> m) : 1u; };
  TexLevel l;
  l.offset = d.levelOffset[m];
  l.width = shrink(d.width);
  l.height = d.dims >= 2 ? shrink(d.height) : 1;
  l.depth = d.dims >= 3 ? shrink(d.depth) : 1;
  l.pitch = (uint64_t)l.width * d.elemBytes();
  l.slicePitch = l.pitch * l.height;
  l.layerPitch = l.slicePitch * l.depth;
  return l;
}

/// Bytes from `data` to the end of the last texel of the resource (all layers and levels).
inline uint64_t texExtent(const TexDesc &d) {
  if (d.resource == TexResource::Linear)
    return (uint64_t)d.width * d.elemBytes();
  uint64_t end = 0;
  unsigned n = d.levels ? d.levels : 1;
  for (unsigned m = 0; m < n; ++m) {
    TexLevel l = texLevel(d, m);
    uint64_t e = l.offset + (uint64_t)(d.layers - 1) * l.layerPitch +
                 (uint64_t)(l.depth - 1) * l.slicePitch + (uint64_t)(l.height - 1) * l.pitch +
                 (uint64_t)l.width * d.elemBytes();
    end = e > end ? e : end;
  }
  return end;
}

} // namespace ptxsim::ptx::exec

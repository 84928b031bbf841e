#pragma once
// The texture descriptor shared by the runtime (cudaCreateTextureObject) and the executor (tex).
//
// Contract: a cudaTextureObject_t is the device address of one TexDesc, alone in an allocation
// of kind Const and exactly sizeof(TexDesc) bytes, starting with kTexMagic. The executor checks
// all of that before trusting a handle and faults otherwise. Texel (x, y, z) of a resource lies
// at data + z * slicePitch + y * pitch + x * (channels * bits / 8).

#include <cstdint>

namespace ptxsim::ptx::exec {

constexpr uint64_t kTexMagic = 0x5054585354455831ull; // "PTXSTEX1"

enum class TexResource : uint8_t { Linear, Pitch2D, Array };
enum class TexFormat : uint8_t { Signed, Unsigned, Float };
enum class TexFilter : uint8_t { Point, Linear };
enum class TexAddress : uint8_t { Wrap, Clamp, Mirror, Border };

struct TexDesc {
  uint64_t magic = kTexMagic;
  uint64_t data = 0;       ///< device address of texel (0, 0, 0)
  uint64_t pitch = 0;      ///< bytes per row
  uint64_t slicePitch = 0; ///< bytes per 2D slice
  uint32_t width = 0, height = 1, depth = 1; ///< texels (linear: elements)
  TexResource resource = TexResource::Linear;
  uint8_t channels = 1;    ///< 1, 2 or 4
  uint8_t bits = 32;       ///< bits per channel: 8, 16 or 32 (float: 16 is half, 32 float)
  TexFormat format = TexFormat::Float;
  TexFilter filter = TexFilter::Point;
  TexAddress address[3] = {TexAddress::Clamp, TexAddress::Clamp, TexAddress::Clamp};
  uint8_t normalizedCoords = 0;
  uint8_t readNormalizedFloat = 0; ///< 8/16-bit integers read as [0,1] / [-1,1]
  uint8_t dims = 1;                ///< 1, 2 or 3 (the resource's dimensionality)
  uint8_t reserved[5] = {};
  float border[4] = {0, 0, 0, 0};
};

static_assert(sizeof(TexDesc) == 80, "TexDesc layout is shared with device memory");

} // namespace ptxsim::ptx::exec

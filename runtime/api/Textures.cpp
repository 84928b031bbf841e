// CUDA arrays and texture objects.
//
// A cudaArray_t points at a host-side cudaArray holding the channel format, the extent and the
// device address of its texels (rows packed, pitch = width * element size). A texture object
// is the device address of a ptx::exec::TexDesc in its own Const allocation; the executor's tex
// reads it there (ptx/exec/TextureDesc.h). The host keeps the descriptors it was created from,
// for cudaGetTextureObject*Desc, and the set of live objects and arrays.

#include "ptx/exec/Engine.h"
#include "ptx/exec/TextureDesc.h"
#include "runtime/api/Api.h"

#include <cstring>
#include <map>
#include <set>

using namespace ptxsim::runtime;
using ptxsim::ptx::exec::AllocKind;
using ptxsim::ptx::exec::TexAddress;
using ptxsim::ptx::exec::TexDesc;
using ptxsim::ptx::exec::TexFilter;
using ptxsim::ptx::exec::TexFormat;
using ptxsim::ptx::exec::TexResource;

struct cudaArray {
  cudaChannelFormatDesc desc{};
  size_t width = 0, height = 0, depth = 0; ///< as allocated (0: dimension absent)
  size_t elemBytes = 0, pitch = 0, slicePitch = 0;
  uint64_t data = 0;
  unsigned flags = 0;
};

namespace {

struct TexRecord {
  cudaResourceDesc res;
  cudaTextureDesc tex;
};

std::set<cudaArray *> &arrays() {
  static std::set<cudaArray *> s;
  return s;
}
std::map<uint64_t, TexRecord> &textures() {
  static std::map<uint64_t, TexRecord> m;
  return m;
}

bool validArray(const cudaArray *a) { return a && arrays().count(const_cast<cudaArray *>(a)); }

/// Element size of a channel format, 0 when unsupported (channels 1/2/4 of equal width 8/16/32).
size_t elementBytes(const cudaChannelFormatDesc &d, unsigned *channels = nullptr,
                    unsigned *bits = nullptr) {
  int b = d.x;
  unsigned n = 0;
  for (int c : {d.x, d.y, d.z, d.w}) {
    if (c == 0)
      break;
    if (c != b)
      return 0;
    ++n;
  }
  if ((d.x && d.y == 0 && (d.z || d.w)) || (d.z && d.w == 0))
    return 0;
  if (n != 1 && n != 2 && n != 4)
    return 0;
  if (b != 8 && b != 16 && b != 32)
    return 0;
  if (d.f != cudaChannelFormatKindSigned && d.f != cudaChannelFormatKindUnsigned &&
      d.f != cudaChannelFormatKindFloat)
    return 0;
  if (d.f == cudaChannelFormatKindFloat && b == 8)
    return 0;
  if (channels)
    *channels = n;
  if (bits)
    *bits = (unsigned)b;
  return n * (size_t)b / 8;
}

cudaError_t mallocArray(cudaArray_t *array, const cudaChannelFormatDesc *desc, size_t w, size_t h,
                        size_t d, unsigned flags) {
  if (!array || !desc || w == 0 || (d && !h))
    return cudaErrorInvalidValue;
  size_t eb = elementBytes(*desc);
  if (!eb)
    return cudaErrorInvalidChannelDescriptor;
  size_t bytes = w * eb * (h ? h : 1) * (d ? d : 1);
  PTXSIM_LOCK_CHECKED;
  uint64_t a = ctx.engine().memory().allocate(bytes, AllocKind::Device);
  if (!a)
    return ret(cudaErrorMemoryAllocation);
  auto *arr = new cudaArray;
  arr->desc = *desc;
  arr->width = w;
  arr->height = h;
  arr->depth = d;
  arr->elemBytes = eb;
  arr->pitch = w * eb;
  arr->slicePitch = arr->pitch * (h ? h : 1);
  arr->data = a;
  arr->flags = flags;
  arrays().insert(arr);
  *array = arr;
  return cudaSuccess;
}

/// Checks a 2D region of an array and returns its first byte's device address.
cudaError_t arrayRegion(const cudaArray *a, size_t wOffset, size_t hOffset, size_t widthBytes,
                        size_t height, char **p) {
  {
    PTXSIM_LOCK;
    (void)ctx;
    if (!validArray(a))
      return cudaErrorInvalidResourceHandle;
  }
  size_t rows = a->height ? a->height : 1;
  if (wOffset + widthBytes > a->pitch || hOffset + height > rows * (a->depth ? a->depth : 1))
    return cudaErrorInvalidValue;
  *p = reinterpret_cast<char *>(a->data + hOffset * a->pitch + wOffset);
  return cudaSuccess;
}

} // namespace

PTXSIM_API cudaError_t cudaMallocArray(cudaArray_t *array, const cudaChannelFormatDesc *desc,
                                       size_t width, size_t height, unsigned int flags) {
  return ret(mallocArray(array, desc, width, height, 0, flags));
}

PTXSIM_API cudaError_t cudaMalloc3DArray(cudaArray_t *array, const cudaChannelFormatDesc *desc,
                                         cudaExtent extent, unsigned int flags) {
  return ret(mallocArray(array, desc, extent.width, extent.height, extent.depth, flags));
}

PTXSIM_API cudaError_t cudaFreeArray(cudaArray_t array) {
  if (!array)
    return cudaSuccess;
  PTXSIM_LOCK_CHECKED;
  if (!validArray(array))
    return ret(cudaErrorInvalidResourceHandle);
  ctx.engine().memory().release(array->data);
  arrays().erase(array);
  delete array;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc *desc, cudaArray_const_t array) {
  if (!desc)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_CHECKED;
  if (!validArray(array))
    return ret(cudaErrorInvalidResourceHandle);
  *desc = array->desc;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc *desc, cudaExtent *extent,
                                        unsigned int *flags, cudaArray_t array) {
  PTXSIM_LOCK_CHECKED;
  if (!validArray(array))
    return ret(cudaErrorInvalidResourceHandle);
  if (desc)
    *desc = array->desc;
  if (extent)
    *extent = cudaExtent{array->width, array->height, array->depth};
  if (flags)
    *flags = array->flags;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                           const void *src, size_t spitch, size_t width,
                                           size_t height, cudaMemcpyKind kind) {
  char *p;
  cudaError_t e = arrayRegion(dst, wOffset, hOffset, width, height, &p);
  if (e)
    return ret(e);
  return cudaMemcpy2D(p, dst->pitch, src, spitch, width, height, kind);
}

PTXSIM_API cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src,
                                             size_t wOffset, size_t hOffset, size_t width,
                                             size_t height, cudaMemcpyKind kind) {
  char *p;
  cudaError_t e = arrayRegion(src, wOffset, hOffset, width, height, &p);
  if (e)
    return ret(e);
  return cudaMemcpy2D(dst, dpitch, p, src->pitch, width, height, kind);
}

PTXSIM_API cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                                const void *src, size_t spitch, size_t width,
                                                size_t height, cudaMemcpyKind kind,
                                                cudaStream_t stream) {
  char *p;
  cudaError_t e = arrayRegion(dst, wOffset, hOffset, width, height, &p);
  if (e)
    return ret(e);
  return cudaMemcpy2DAsync(p, dst->pitch, src, spitch, width, height, kind, stream);
}

PTXSIM_API cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src,
                                                  size_t wOffset, size_t hOffset, size_t width,
                                                  size_t height, cudaMemcpyKind kind,
                                                  cudaStream_t stream) {
  char *p;
  cudaError_t e = arrayRegion(src, wOffset, hOffset, width, height, &p);
  if (e)
    return ret(e);
  return cudaMemcpy2DAsync(dst, dpitch, p, src->pitch, width, height, kind, stream);
}

PTXSIM_API cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst,
                                                size_t hOffsetDst, cudaArray_const_t src,
                                                size_t wOffsetSrc, size_t hOffsetSrc,
                                                size_t width, size_t height, cudaMemcpyKind kind) {
  char *pd, *ps;
  cudaError_t e = arrayRegion(dst, wOffsetDst, hOffsetDst, width, height, &pd);
  if (!e)
    e = arrayRegion(src, wOffsetSrc, hOffsetSrc, width, height, &ps);
  if (e)
    return ret(e);
  if (kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return ret(cudaErrorInvalidMemcpyDirection);
  return cudaMemcpy2D(pd, dst->pitch, ps, src->pitch, width, height, kind);
}

PTXSIM_API cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                         const void *src, size_t count, cudaMemcpyKind kind) {
  char *p;
  cudaError_t e = arrayRegion(dst, wOffset, hOffset, 0, 0, &p);
  if (e)
    return ret(e);
  size_t total = dst->slicePitch * (dst->depth ? dst->depth : 1);
  if (hOffset * dst->pitch + wOffset + count > total)
    return ret(cudaErrorInvalidValue);
  return cudaMemcpy(p, src, count, kind);
}

PTXSIM_API cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset,
                                           size_t hOffset, size_t count, cudaMemcpyKind kind) {
  char *p;
  cudaError_t e = arrayRegion(src, wOffset, hOffset, 0, 0, &p);
  if (e)
    return ret(e);
  size_t total = src->slicePitch * (src->depth ? src->depth : 1);
  if (hOffset * src->pitch + wOffset + count > total)
    return ret(cudaErrorInvalidValue);
  return cudaMemcpy(dst, p, count, kind);
}

namespace {

TexAddress addressMode(cudaTextureAddressMode m) {
  switch (m) {
  case cudaAddressModeWrap: return TexAddress::Wrap;
  case cudaAddressModeMirror: return TexAddress::Mirror;
  case cudaAddressModeBorder: return TexAddress::Border;
  default: return TexAddress::Clamp;
  }
}

cudaError_t buildDesc(const cudaResourceDesc &r, const cudaTextureDesc &t, TexDesc &d) {
  const cudaChannelFormatDesc *fmt;
  switch (r.resType) {
  case cudaResourceTypeArray: {
    const cudaArray *a = r.res.array.array;
    if (!validArray(a))
      return cudaErrorInvalidResourceHandle;
    fmt = &a->desc;
    d.resource = TexResource::Array;
    d.data = a->data;
    d.width = (uint32_t)a->width;
    d.height = (uint32_t)(a->height ? a->height : 1);
    d.depth = (uint32_t)(a->depth ? a->depth : 1);
    d.pitch = a->pitch;
    d.slicePitch = a->slicePitch;
    d.dims = a->depth ? 3 : a->height ? 2 : 1;
    break;
  }
  case cudaResourceTypeLinear: {
    fmt = &r.res.linear.desc;
    size_t eb = elementBytes(*fmt);
    if (!eb || !r.res.linear.devPtr || r.res.linear.sizeInBytes < eb)
      return cudaErrorInvalidValue;
    d.resource = TexResource::Linear;
    d.data = reinterpret_cast<uint64_t>(r.res.linear.devPtr);
    d.width = (uint32_t)(r.res.linear.sizeInBytes / eb);
    d.pitch = r.res.linear.sizeInBytes;
    d.slicePitch = d.pitch;
    d.dims = 1;
    break;
  }
  case cudaResourceTypePitch2D: {
    fmt = &r.res.pitch2D.desc;
    size_t eb = elementBytes(*fmt);
    if (!eb || !r.res.pitch2D.devPtr || r.res.pitch2D.width == 0 || r.res.pitch2D.height == 0 ||
        r.res.pitch2D.pitchInBytes < r.res.pitch2D.width * eb)
      return cudaErrorInvalidValue;
    d.resource = TexResource::Pitch2D;
    d.data = reinterpret_cast<uint64_t>(r.res.pitch2D.devPtr);
    d.width = (uint32_t)r.res.pitch2D.width;
    d.height = (uint32_t)r.res.pitch2D.height;
    d.pitch = r.res.pitch2D.pitchInBytes;
    d.slicePitch = d.pitch * d.height;
    d.dims = 2;
    break;
  }
  default:
    return cudaErrorNotSupported;
  }
  unsigned channels = 0, bits = 0;
  if (!elementBytes(*fmt, &channels, &bits))
    return cudaErrorInvalidChannelDescriptor;
  d.channels = (uint8_t)channels;
  d.bits = (uint8_t)bits;
  d.format = fmt->f == cudaChannelFormatKindSigned     ? TexFormat::Signed
             : fmt->f == cudaChannelFormatKindUnsigned ? TexFormat::Unsigned
                                                       : TexFormat::Float;
  d.filter = t.filterMode == cudaFilterModeLinear ? TexFilter::Linear : TexFilter::Point;
  bool floatOut = d.format == TexFormat::Float ||
                  (t.readMode == cudaReadModeNormalizedFloat && bits < 32);
  if (!floatOut || d.resource == TexResource::Linear)
    d.filter = TexFilter::Point; // linear filtering needs float results and a non-linear resource
  for (unsigned k = 0; k < 3; ++k)
    d.address[k] = addressMode(t.addressMode[k]);
  d.normalizedCoords = t.normalizedCoords ? 1 : 0;
  d.readNormalizedFloat = t.readMode == cudaReadModeNormalizedFloat ? 1 : 0;
  for (unsigned k = 0; k < 4; ++k)
    d.border[k] = t.borderColor[k];
  return cudaSuccess;
}

} // namespace

PTXSIM_API cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
                                               const cudaResourceDesc *pResDesc,
                                               const cudaTextureDesc *pTexDesc,
                                               const cudaResourceViewDesc *pResViewDesc) {
  if (!pTexObject || !pResDesc || !pTexDesc)
    return ret(cudaErrorInvalidValue);
  if (pResViewDesc)
    return ret(cudaErrorNotSupported);
  PTXSIM_LOCK_CHECKED;
  TexDesc d;
  cudaError_t e = buildDesc(*pResDesc, *pTexDesc, d);
  if (e)
    return ret(e);
  uint64_t a = ctx.engine().memory().allocate(sizeof(TexDesc), AllocKind::Const);
  if (!a)
    return ret(cudaErrorMemoryAllocation);
  std::memcpy(reinterpret_cast<void *>(a), &d, sizeof d);
  textures()[a] = TexRecord{*pResDesc, *pTexDesc};
  *pTexObject = a;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject) {
  if (!texObject)
    return cudaSuccess;
  PTXSIM_LOCK_CHECKED;
  auto it = textures().find(texObject);
  if (it == textures().end())
    return ret(cudaErrorInvalidValue);
  std::memset(reinterpret_cast<void *>(texObject), 0, sizeof(TexDesc));
  ctx.engine().memory().release(texObject);
  textures().erase(it);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc *pResDesc,
                                                        cudaTextureObject_t texObject) {
  if (!pResDesc)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_CHECKED;
  auto it = textures().find(texObject);
  if (it == textures().end())
    return ret(cudaErrorInvalidValue);
  *pResDesc = it->second.res;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc *pTexDesc,
                                                       cudaTextureObject_t texObject) {
  if (!pTexDesc)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_CHECKED;
  auto it = textures().find(texObject);
  if (it == textures().end())
    return ret(cudaErrorInvalidValue);
  *pTexDesc = it->second.tex;
  return cudaSuccess;
}

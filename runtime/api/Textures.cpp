// CUDA arrays (plain, layered, cubemap, mipmapped), texture and surface objects, and the copies
// that involve arrays or 3D pitched memory.
//
// A cudaArray_t points at a host-side cudaArray holding the channel format, the extent and the
// device address of its texels: rows packed (pitch = width * element size), then rows of the
// next slice or layer (a 1D layered array is one row per layer; 2D layered and cubemap arrays
// one slice per layer). A mipmapped array is one allocation holding its levels packed one
// after the other; each level is a cudaArray owned by it (cudaGetMipmappedArrayLevel). Texture
// and surface objects are the device address of a ptx::exec::TexDesc in its own Const
// allocation, which the executor reads (ptx/exec/TextureDesc.h). The host keeps the descriptors
// they were created from (cudaGet*Object*Desc) and the sets of live objects and arrays.

#include "ptx/exec/Engine.h"
#include "ptx/exec/TextureDesc.h"
#include "runtime/api/Api.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <vector>

using namespace ptxsim::runtime;
using ptxsim::ptx::exec::AllocKind;
using ptxsim::ptx::exec::kMaxMipLevels;
using ptxsim::ptx::exec::kSurfMagic;
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
  cudaMipmappedArray *owner = nullptr; ///< the mipmapped array this is a level of
};

struct cudaMipmappedArray {
  cudaChannelFormatDesc desc{};
  cudaExtent extent{};
  unsigned flags = 0;
  uint64_t data = 0;
  std::vector<cudaArray *> levels; ///< level arrays, each at its offset in `data`
};

namespace {

struct ObjRecord {
  cudaResourceDesc res;
  cudaTextureDesc tex; ///< textures only
};

std::set<cudaArray *> &arrays() {
  static auto *s = new std::set<cudaArray *>(); // never destroyed
  return *s;
}
std::set<cudaMipmappedArray *> &mipArrays() {
  static auto *s = new std::set<cudaMipmappedArray *>(); // never destroyed
  return *s;
}
/// Handles of mipmapped arrays already freed (until a new one gets the same address).
std::set<cudaMipmappedArray *> &freedMipArrays() {
  static auto *s = new std::set<cudaMipmappedArray *>(); // never destroyed
  return *s;
}
std::map<uint64_t, ObjRecord> &textures() {
  static auto *m = new std::map<uint64_t, ObjRecord>(); // never destroyed
  return *m;
}
/// Destroys texture or surface object `obj` of `records` (its descriptor's device memory too).
cudaError_t destroyObject(Context &ctx, std::map<uint64_t, ObjRecord> &records, uint64_t obj) {
  auto it = records.find(obj);
  if (it == records.end())
    return cudaSuccess; // an H100's runtime: destroying an unknown or destroyed object succeeds
  std::memset(reinterpret_cast<void *>(obj), 0, sizeof(TexDesc));
  ctx.engine().memory().release(obj);
  records.erase(it);
  return cudaSuccess;
}

/// The record of object `obj`, or null.
const ObjRecord *findObject(const std::map<uint64_t, ObjRecord> &records, uint64_t obj) {
  auto it = records.find(obj);
  return it == records.end() ? nullptr : &it->second;
}

std::map<uint64_t, ObjRecord> &surfaces() {
  static auto *m = new std::map<uint64_t, ObjRecord>(); // never destroyed
  return *m;
}

bool validArray(const cudaArray *a) { return a && arrays().count(const_cast<cudaArray *>(a)); }
bool validMip(const cudaMipmappedArray *m) {
  return m && mipArrays().count(const_cast<cudaMipmappedArray *>(m));
}

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

constexpr unsigned kKnownArrayFlags = cudaArrayLayered | cudaArraySurfaceLoadStore |
                                      cudaArrayCubemap | cudaArrayTextureGather;

/// Checks an array extent against its flags and the device limits (CUDA's table of valid
/// extents for cudaMalloc3DArray).
cudaError_t checkExtent(size_t w, size_t h, size_t d, unsigned flags) {
  if (flags & ~kKnownArrayFlags)
    return (flags & (cudaArraySparse | cudaArrayDeferredMapping)) ? cudaErrorNotSupported
                                                                   : cudaErrorInvalidValue;
  if (w == 0)
    return cudaErrorInvalidValue;
  bool layered = flags & cudaArrayLayered, cube = flags & cudaArrayCubemap;
  if (cube) {
    if (w != h || d == 0 || (layered ? d % 6 != 0 : d != 6) || w > 32768 ||
        (layered && d / 6 > 2046))
      return cudaErrorInvalidValue;
    return cudaSuccess;
  }
  if (layered) {
    if (d == 0 || d > 2048 || w > 32768 || h > 32768)
      return cudaErrorInvalidValue;
    return cudaSuccess;
  }
  if (d && !h)
    return cudaErrorInvalidValue;
  if (d ? (w > 16384 || h > 16384 || d > 16384) : h ? (w > 131072 || h > 65536) : w > 131072)
    return cudaErrorInvalidValue;
  return cudaSuccess;
}

cudaArray *newArray(const cudaChannelFormatDesc &desc, size_t eb, size_t w, size_t h, size_t d,
                    unsigned flags, uint64_t data) {
  auto *arr = new cudaArray;
  arr->desc = desc;
  arr->width = w;
  arr->height = h;
  arr->depth = d;
  arr->elemBytes = eb;
  arr->pitch = w * eb;
  arr->slicePitch = arr->pitch * (h ? h : 1);
  arr->data = data;
  arr->flags = flags;
  arrays().insert(arr);
  return arr;
}

cudaError_t mallocArray(cudaArray_t *array, const cudaChannelFormatDesc *desc, size_t w, size_t h,
                        size_t d, unsigned flags) {
  if (!array || !desc)
    return cudaErrorInvalidValue;
  if (cudaError_t e = checkExtent(w, h, d, flags))
    return e;
  size_t eb = elementBytes(*desc);
  if (!eb)
    return cudaErrorInvalidChannelDescriptor;
  size_t bytes = w * eb * (h ? h : 1) * (d ? d : 1);
  PTXSIM_LOCK_CHECKED;
  uint64_t a = ctx.engine().memory().allocate(bytes, AllocKind::Device);
  if (!a)
    return ret(cudaErrorMemoryAllocation);
  *array = newArray(*desc, eb, w, h, d, flags, a);
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
  if (flags & (cudaArrayLayered | cudaArrayCubemap))
    return ret(cudaErrorInvalidValue); // cudaMalloc3DArray makes those
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
  // A mipmap level (cudaGetMipmappedArrayLevel) belongs to its mipmapped array: the H100's
  // runtime answers cudaSuccess and the level stays usable; it goes with the mipmapped array.
  if (array->owner)
    return cudaSuccess;
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

// --- mipmapped arrays ----------------------------------------------------------------------------

namespace {

/// Extent of level `m` of a mipmapped array of extent `e` (layers do not shrink).
cudaExtent levelExtent(const cudaExtent &e, unsigned flags, unsigned m) {
  auto shrink = [m](size_t n) { return n ? std::max<size_t>(1, n >> m) : 0; };
  bool layered = flags & (cudaArrayLayered | cudaArrayCubemap);
  return {shrink(e.width), shrink(e.height), layered ? e.depth : shrink(e.depth)};
}

} // namespace

PTXSIM_API cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *mipmappedArray,
                                                const cudaChannelFormatDesc *desc,
                                                cudaExtent extent, unsigned int numLevels,
                                                unsigned int flags) {
  if (!mipmappedArray || !desc)
    return ret(cudaErrorInvalidValue);
  if (cudaError_t e = checkExtent(extent.width, extent.height, extent.depth, flags))
    return ret(e);
  size_t eb = elementBytes(*desc);
  if (!eb)
    return ret(cudaErrorInvalidChannelDescriptor);
  bool layered = flags & (cudaArrayLayered | cudaArrayCubemap);
  size_t biggest = std::max({extent.width, extent.height, layered ? 0 : extent.depth});
  unsigned maxLevels = 1;
  while ((biggest >> maxLevels) && maxLevels < kMaxMipLevels)
    ++maxLevels;
  numLevels = std::clamp(numLevels, 1u, maxLevels);
  std::vector<uint64_t> offsets;
  uint64_t total = 0;
  for (unsigned m = 0; m < numLevels; ++m) {
    cudaExtent le = levelExtent(extent, flags, m);
    offsets.push_back(total);
    total += le.width * eb * std::max<size_t>(1, le.height) * std::max<size_t>(1, le.depth);
  }
  PTXSIM_LOCK_CHECKED;
  uint64_t a = ctx.engine().memory().allocate(total, AllocKind::Device);
  if (!a)
    return ret(cudaErrorMemoryAllocation);
  auto *mm = new cudaMipmappedArray;
  mm->desc = *desc;
  mm->extent = extent;
  mm->flags = flags;
  mm->data = a;
  for (unsigned m = 0; m < numLevels; ++m) {
    cudaExtent le = levelExtent(extent, flags, m);
    cudaArray *arr = newArray(*desc, eb, le.width, le.height, le.depth, flags, a + offsets[m]);
    arr->owner = mm;
    mm->levels.push_back(arr);
  }
  mipArrays().insert(mm);
  freedMipArrays().erase(mm);
  *mipmappedArray = mm;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t *levelArray,
                                                  cudaMipmappedArray_const_t mipmappedArray,
                                                  unsigned int level) {
  if (!mipmappedArray)
    return ret(cudaErrorInvalidResourceHandle);
  if (!levelArray)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_CHECKED;
  if (!validMip(mipmappedArray))
    return ret(cudaErrorInvalidResourceHandle);
  if (level >= mipmappedArray->levels.size())
    return ret(cudaErrorInvalidValue);
  *levelArray = mipmappedArray->levels[level];
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t mipmappedArray) {
  if (!mipmappedArray)
    return cudaSuccess;
  PTXSIM_LOCK_CHECKED;
  // freeing it a second time: an H200 answers cudaErrorContextIsDestroyed
  // (tools/hw/probes/tex_mipmap_levels.cu)
  if (freedMipArrays().count(mipmappedArray))
    return ret(cudaErrorContextIsDestroyed);
  if (!validMip(mipmappedArray))
    return ret(cudaErrorInvalidResourceHandle);
  for (cudaArray *a : mipmappedArray->levels) {
    arrays().erase(a);
    delete a;
  }
  ctx.engine().memory().release(mipmappedArray->data);
  mipArrays().erase(mipmappedArray);
  freedMipArrays().insert(mipmappedArray);
  delete mipmappedArray;
  return cudaSuccess;
}

// --- copies to and from arrays ----------------------------------------------------------------

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

namespace {

/// The linear range of `count` bytes from (wOffset, hOffset) of array `a` (rows continue into
/// the next row). The deprecated 1D/2D array copies refuse arrays with a depth (3D, layered,
/// cube map) with cudaErrorInvalidValue, as CUDA 13 on an H100 does
/// (../shared/hw/h100/native_failures.txt: cudaMemcpyToArray into a cudaMalloc3DArray array).
cudaError_t arrayRange(const cudaArray *a, size_t wOffset, size_t hOffset, size_t count, char **p) {
  cudaError_t e = arrayRegion(a, wOffset, hOffset, 0, 0, p);
  if (!e && a->depth > 0)
    return cudaErrorInvalidValue;
  if (!e && hOffset * a->pitch + wOffset + count > a->slicePitch)
    e = cudaErrorInvalidValue;
  return e;
}

/// The deprecated 1D array copies: `toArray` copies host/device memory `mem` into the array.
cudaError_t copy1D(cudaArray_const_t arr, size_t wOffset, size_t hOffset, void *mem, size_t count,
                   cudaMemcpyKind kind, bool toArray, bool async, cudaStream_t stream) {
  char *p;
  if (cudaError_t e = arrayRange(arr, wOffset, hOffset, count, &p))
    return e;
  void *dst = toArray ? p : mem;
  const void *src = toArray ? mem : p;
  return async ? cudaMemcpyAsync(dst, src, count, kind, stream) : cudaMemcpy(dst, src, count, kind);
}

cudaError_t copyArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                             cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                             size_t count, cudaMemcpyKind kind) {
  char *pd, *ps;
  cudaError_t e = arrayRange(dst, wOffsetDst, hOffsetDst, count, &pd);
  if (!e)
    e = arrayRange(src, wOffsetSrc, hOffsetSrc, count, &ps);
  if (e)
    return e;
  if (kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  return cudaMemcpy(pd, ps, count, kind);
}

} // namespace

PTXSIM_API cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                         const void *src, size_t count, cudaMemcpyKind kind) {
  return ret(copy1D(dst, wOffset, hOffset, const_cast<void *>(src), count, kind, true, false,
                    nullptr));
}

PTXSIM_API cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset,
                                           size_t hOffset, size_t count, cudaMemcpyKind kind) {
  return ret(copy1D(src, wOffset, hOffset, dst, count, kind, false, false, nullptr));
}

PTXSIM_API cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                              const void *src, size_t count, cudaMemcpyKind kind,
                                              cudaStream_t stream) {
  return ret(copy1D(dst, wOffset, hOffset, const_cast<void *>(src), count, kind, true, true,
                    stream));
}

PTXSIM_API cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset,
                                                size_t hOffset, size_t count, cudaMemcpyKind kind,
                                                cudaStream_t stream) {
  return ret(copy1D(src, wOffset, hOffset, dst, count, kind, false, true, stream));
}

PTXSIM_API cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst,
                                              size_t hOffsetDst, cudaArray_const_t src,
                                              size_t wOffsetSrc, size_t hOffsetSrc, size_t count,
                                              cudaMemcpyKind kind) {
  return ret(copyArrayToArray(dst, wOffsetDst, hOffsetDst, src, wOffsetSrc, hOffsetSrc, count,
                              kind));
}

// --- 3D copies, 3D pitched allocation and memset ---------------------------------------------

namespace {

/// One side of a 3D copy: its first byte, row and slice pitches, and whether it is device
/// memory by construction (an array).
struct CopySide {
  char *base = nullptr;
  size_t pitch = 0, slice = 0;
};

/// Resolves one side of a cudaMemcpy3D: exactly one of `arr` / `ptr.ptr`, the region at `pos`
/// of `ext` (width in elements of `eb` bytes) inside it.
cudaError_t copySide(cudaArray_const_t arr, const cudaPos &pos, const cudaPitchedPtr &ptr,
                     const cudaExtent &ext, size_t eb, CopySide &s) {
  size_t wb = ext.width * eb;
  if (arr) {
    size_t h = std::max<size_t>(1, arr->height), d = std::max<size_t>(1, arr->depth);
    if (pos.x + ext.width > arr->width || pos.y + ext.height > h || pos.z + ext.depth > d)
      return cudaErrorInvalidValue;
    s.pitch = arr->pitch;
    s.slice = arr->slicePitch;
    s.base = reinterpret_cast<char *>(arr->data + pos.z * s.slice + pos.y * s.pitch + pos.x * eb);
    return cudaSuccess;
  }
  if (ptr.pitch < pos.x + wb)
    return cudaErrorInvalidPitchValue;
  if ((ext.depth > 1 || pos.z) && ptr.ysize < pos.y + ext.height)
    return cudaErrorInvalidValue;
  s.pitch = ptr.pitch;
  s.slice = s.pitch * ptr.ysize;
  s.base = static_cast<char *>(ptr.ptr) + pos.z * s.slice + pos.y * s.pitch + pos.x;
  return cudaSuccess;
}

cudaError_t memcpy3D(const cudaMemcpy3DParms *p, bool async, cudaStream_t stream) {
  if (!p)
    return cudaErrorInvalidValue;
  if (!p->srcArray == !p->srcPtr.ptr || !p->dstArray == !p->dstPtr.ptr)
    return cudaErrorInvalidValue;
  if (unsigned(p->kind) > cudaMemcpyDefault)
    return cudaErrorInvalidMemcpyDirection;
  {
    PTXSIM_LOCK;
    (void)ctx;
    if ((p->srcArray && !validArray(p->srcArray)) || (p->dstArray && !validArray(p->dstArray)))
      return cudaErrorInvalidResourceHandle;
  }
  size_t eb = 1;
  if (p->srcArray && p->dstArray && p->srcArray->elemBytes != p->dstArray->elemBytes)
    return cudaErrorInvalidValue;
  if (p->srcArray)
    eb = p->srcArray->elemBytes;
  else if (p->dstArray)
    eb = p->dstArray->elemBytes;
  const cudaExtent &x = p->extent;
  CopySide s, d;
  if (cudaError_t e = copySide(p->srcArray, p->srcPos, p->srcPtr, x, eb, s))
    return e;
  if (cudaError_t e = copySide(p->dstArray, p->dstPos, p->dstPtr, x, eb, d))
    return e;
  if (!x.width || !x.height || !x.depth)
    return cudaSuccess;
  // arrays live on the device whatever the kind says (CUDA corrects the kind the same way)
  cudaMemcpyKind kind = p->kind;
  if (kind != cudaMemcpyDefault && (p->srcArray || p->dstArray)) {
    bool srcDev = p->srcArray || kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    bool dstDev = p->dstArray || kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    kind = srcDev ? (dstDev ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                  : (dstDev ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
  }
  size_t wb = x.width * eb;
  {
    // every slice before any is written: slice by slice would leave the first ones copied
    PTXSIM_LOCK;
    for (size_t z = 0; z < x.depth; ++z)
      if (cudaError_t e = checkCopy2D(ctx, d.base + z * d.slice, d.pitch, s.base + z * s.slice,
                                      s.pitch, wb, x.height, kind))
        return e;
  }
  for (size_t z = 0; z < x.depth; ++z) {
    char *dz = d.base + z * d.slice;
    const char *sz = s.base + z * s.slice;
    cudaError_t e = async ? cudaMemcpy2DAsync(dz, d.pitch, sz, s.pitch, wb, x.height, kind, stream)
                          : cudaMemcpy2D(dz, d.pitch, sz, s.pitch, wb, x.height, kind);
    if (e)
      return e;
  }
  return cudaSuccess;
}

cudaError_t memcpy3DPeer(const cudaMemcpy3DPeerParms *p, bool async, cudaStream_t stream) {
  if (!p)
    return cudaErrorInvalidValue;
  if (p->srcDevice != 0 || p->dstDevice != 0)
    return cudaErrorInvalidDevice;
  cudaMemcpy3DParms q{};
  q.srcArray = p->srcArray;
  q.srcPos = p->srcPos;
  q.srcPtr = p->srcPtr;
  q.dstArray = p->dstArray;
  q.dstPos = p->dstPos;
  q.dstPtr = p->dstPtr;
  q.extent = p->extent;
  q.kind = cudaMemcpyDeviceToDevice;
  return memcpy3D(&q, async, stream);
}

cudaError_t memset3D(cudaPitchedPtr p, int value, cudaExtent x, bool async, cudaStream_t stream) {
  if (!x.width || !x.height || !x.depth)
    return cudaSuccess;
  if (!p.ptr)
    return cudaErrorInvalidValue;
  if (p.pitch < x.width && (x.height > 1 || x.depth > 1))
    return cudaErrorInvalidPitchValue;
  if (x.depth > 1 && p.ysize < x.height)
    return cudaErrorInvalidValue;
  size_t pitch = p.pitch ? p.pitch : x.width;
  {
    PTXSIM_LOCK;
    for (size_t z = 0; z < x.depth; ++z)
      if (cudaError_t e = checkMemset2D(ctx, static_cast<char *>(p.ptr) + z * pitch * p.ysize,
                                        pitch, x.width, x.height))
        return e;
  }
  for (size_t z = 0; z < x.depth; ++z) {
    char *dz = static_cast<char *>(p.ptr) + z * pitch * p.ysize;
    cudaError_t e = async ? cudaMemset2DAsync(dz, pitch, value, x.width, x.height, stream)
                          : cudaMemset2D(dz, pitch, value, x.width, x.height);
    if (e)
      return e;
  }
  return cudaSuccess;
}

} // namespace

PTXSIM_API cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p) {
  return ret(memcpy3D(p, false, nullptr));
}

PTXSIM_API cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms *p, cudaStream_t stream) {
  return ret(memcpy3D(p, true, stream));
}

PTXSIM_API cudaError_t cudaMemcpy3DPeer(const cudaMemcpy3DPeerParms *p) {
  return ret(memcpy3DPeer(p, false, nullptr));
}

PTXSIM_API cudaError_t cudaMemcpy3DPeerAsync(const cudaMemcpy3DPeerParms *p, cudaStream_t stream) {
  return ret(memcpy3DPeer(p, true, stream));
}

PTXSIM_API cudaError_t cudaMalloc3D(cudaPitchedPtr *pitchedDevPtr, cudaExtent extent) {
  if (!pitchedDevPtr)
    return ret(cudaErrorInvalidValue);
  // cudaMallocPitch's rules, as an H200 answers (tools/hw/probes/occupancy_pitch_limits.cu): an
  // empty extent succeeds with pitch 0 and no memory; rows aligned to 512 bytes, the sizes
  // multiplied in 64 bits with wrap-around (a product that wraps to 0 is cudaErrorInvalidValue);
  // a failure writes the pitch and a null pointer and leaves xsize and ysize alone.
  if (!extent.width || !extent.height || !extent.depth) {
    *pitchedDevPtr = cudaPitchedPtr{nullptr, 0, extent.width, extent.height};
    return cudaSuccess;
  }
  size_t pitch = extent.width > SIZE_MAX - 511 ? 0 : (extent.width + 511) / 512 * 512;
  size_t bytes = pitch * extent.height * extent.depth;
  pitchedDevPtr->pitch = pitch;
  pitchedDevPtr->ptr = nullptr;
  if (!bytes)
    return ret(cudaErrorInvalidValue);
  void *p = nullptr;
  cudaError_t e = cudaMalloc(&p, bytes);
  if (e)
    return e;
  *pitchedDevPtr = cudaPitchedPtr{p, pitch, extent.width, extent.height};
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaMemset3D(cudaPitchedPtr pitchedDevPtr, int value, cudaExtent extent) {
  return ret(memset3D(pitchedDevPtr, value, extent, false, nullptr));
}

PTXSIM_API cudaError_t cudaMemset3DAsync(cudaPitchedPtr pitchedDevPtr, int value,
                                         cudaExtent extent, cudaStream_t stream) {
  return ret(memset3D(pitchedDevPtr, value, extent, true, stream));
}

// per-thread default stream variants (nvcc --default-stream per-thread)
PTXSIM_API cudaError_t cudaMemcpy3D_ptds(const cudaMemcpy3DParms *p) { return cudaMemcpy3D(p); }
PTXSIM_API cudaError_t cudaMemcpy3DAsync_ptsz(const cudaMemcpy3DParms *p, cudaStream_t s) {
  return cudaMemcpy3DAsync(p, s);
}
PTXSIM_API cudaError_t cudaMemcpy3DPeer_ptds(const cudaMemcpy3DPeerParms *p) {
  return cudaMemcpy3DPeer(p);
}
PTXSIM_API cudaError_t cudaMemcpy3DPeerAsync_ptsz(const cudaMemcpy3DPeerParms *p, cudaStream_t s) {
  return cudaMemcpy3DPeerAsync(p, s);
}
PTXSIM_API cudaError_t cudaMemset3D_ptds(cudaPitchedPtr p, int v, cudaExtent e) {
  return cudaMemset3D(p, v, e);
}
PTXSIM_API cudaError_t cudaMemset3DAsync_ptsz(cudaPitchedPtr p, int v, cudaExtent e,
                                              cudaStream_t s) {
  return cudaMemset3DAsync(p, v, e, s);
}
PTXSIM_API cudaError_t cudaMemcpy2DToArray_ptds(cudaArray_t dst, size_t wo, size_t ho,
                                                const void *src, size_t sp, size_t w, size_t h,
                                                cudaMemcpyKind k) {
  return cudaMemcpy2DToArray(dst, wo, ho, src, sp, w, h, k);
}
PTXSIM_API cudaError_t cudaMemcpy2DFromArray_ptds(void *dst, size_t dp, cudaArray_const_t src,
                                                  size_t wo, size_t ho, size_t w, size_t h,
                                                  cudaMemcpyKind k) {
  return cudaMemcpy2DFromArray(dst, dp, src, wo, ho, w, h, k);
}
PTXSIM_API cudaError_t cudaMemcpy2DToArrayAsync_ptsz(cudaArray_t dst, size_t wo, size_t ho,
                                                     const void *src, size_t sp, size_t w,
                                                     size_t h, cudaMemcpyKind k, cudaStream_t s) {
  return cudaMemcpy2DToArrayAsync(dst, wo, ho, src, sp, w, h, k, s);
}
PTXSIM_API cudaError_t cudaMemcpy2DFromArrayAsync_ptsz(void *dst, size_t dp, cudaArray_const_t src,
                                                       size_t wo, size_t ho, size_t w, size_t h,
                                                       cudaMemcpyKind k, cudaStream_t s) {
  return cudaMemcpy2DFromArrayAsync(dst, dp, src, wo, ho, w, h, k, s);
}
PTXSIM_API cudaError_t cudaMemcpy2DArrayToArray_ptds(cudaArray_t dst, size_t wod, size_t hod,
                                                     cudaArray_const_t src, size_t wos, size_t hos,
                                                     size_t w, size_t h, cudaMemcpyKind k) {
  return cudaMemcpy2DArrayToArray(dst, wod, hod, src, wos, hos, w, h, k);
}
PTXSIM_API cudaError_t cudaMemcpyToArray_ptds(cudaArray_t dst, size_t wo, size_t ho,
                                              const void *src, size_t n, cudaMemcpyKind k) {
  return ret(copy1D(dst, wo, ho, const_cast<void *>(src), n, k, true, false, nullptr));
}
PTXSIM_API cudaError_t cudaMemcpyFromArray_ptds(void *dst, cudaArray_const_t src, size_t wo,
                                                size_t ho, size_t n, cudaMemcpyKind k) {
  return ret(copy1D(src, wo, ho, dst, n, k, false, false, nullptr));
}
PTXSIM_API cudaError_t cudaMemcpyToArrayAsync_ptsz(cudaArray_t dst, size_t wo, size_t ho,
                                                   const void *src, size_t n, cudaMemcpyKind k,
                                                   cudaStream_t s) {
  return ret(copy1D(dst, wo, ho, const_cast<void *>(src), n, k, true, true, s));
}
PTXSIM_API cudaError_t cudaMemcpyFromArrayAsync_ptsz(void *dst, cudaArray_const_t src, size_t wo,
                                                     size_t ho, size_t n, cudaMemcpyKind k,
                                                     cudaStream_t s) {
  return ret(copy1D(src, wo, ho, dst, n, k, false, true, s));
}
PTXSIM_API cudaError_t cudaMemcpyArrayToArray_ptds(cudaArray_t dst, size_t wod, size_t hod,
                                                   cudaArray_const_t src, size_t wos, size_t hos,
                                                   size_t n, cudaMemcpyKind k) {
  return ret(copyArrayToArray(dst, wod, hod, src, wos, hos, n, k));
}

// --- texture and surface objects ---------------------------------------------------------------

namespace {

TexAddress addressMode(cudaTextureAddressMode m) {
  switch (m) {
  case cudaAddressModeWrap: return TexAddress::Wrap;
  case cudaAddressModeMirror: return TexAddress::Mirror;
  case cudaAddressModeBorder: return TexAddress::Border;
  default: return TexAddress::Clamp;
  }
}

/// Fills the resource geometry of `d` from array `a` (level 0 of a mipmapped resource).
void arrayGeometry(const cudaArray *a, TexDesc &d) {
  bool layered = a->flags & cudaArrayLayered, cube = a->flags & cudaArrayCubemap;
  d.resource = TexResource::Array;
  d.data = a->data;
  d.width = (uint32_t)a->width;
  d.height = (uint32_t)(a->height ? a->height : 1);
  d.pitch = a->pitch;
  d.slicePitch = a->slicePitch;
  if (layered || cube) {
    d.depth = 1;
    d.layers = (uint32_t)a->depth;
    d.layerPitch = a->slicePitch;
    d.dims = a->height ? 2 : 1;
    d.layered = layered;
    d.cubemap = cube;
  } else {
    d.depth = (uint32_t)(a->depth ? a->depth : 1);
    d.layers = 1;
    d.layerPitch = a->slicePitch * d.depth;
    d.dims = a->depth ? 3 : a->height ? 2 : 1;
  }
}

/// Fills the format fields of `d`; false for a format textures cannot use.
bool formatFields(const cudaChannelFormatDesc &fmt, TexDesc &d) {
  unsigned channels = 0, bits = 0;
  if (!elementBytes(fmt, &channels, &bits))
    return false;
  d.channels = (uint8_t)channels;
  d.bits = (uint8_t)bits;
  d.format = fmt.f == cudaChannelFormatKindSigned     ? TexFormat::Signed
             : fmt.f == cudaChannelFormatKindUnsigned ? TexFormat::Unsigned
                                                      : TexFormat::Float;
  return true;
}

cudaError_t buildDesc(const cudaResourceDesc &r, const cudaTextureDesc &t, TexDesc &d) {
  const cudaChannelFormatDesc *fmt;
  switch (r.resType) {
  case cudaResourceTypeArray: {
    const cudaArray *a = r.res.array.array;
    if (!validArray(a))
      return cudaErrorInvalidResourceHandle;
    fmt = &a->desc;
    arrayGeometry(a, d);
    break;
  }
  case cudaResourceTypeMipmappedArray: {
    const cudaMipmappedArray *mm = r.res.mipmap.mipmap;
    if (!validMip(mm))
      return cudaErrorInvalidResourceHandle;
    fmt = &mm->desc;
    arrayGeometry(mm->levels[0], d);
    d.levels = (uint8_t)mm->levels.size();
    for (size_t m = 0; m < mm->levels.size(); ++m)
      d.levelOffset[m] = mm->levels[m]->data - mm->data;
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
    d.slicePitch = d.layerPitch = d.pitch;
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
    d.slicePitch = d.layerPitch = d.pitch * d.height;
    d.dims = 2;
    break;
  }
  default:
    return cudaErrorInvalidValue;
  }
  if (!formatFields(*fmt, d))
    return cudaErrorInvalidChannelDescriptor;
  d.filter = t.filterMode == cudaFilterModeLinear ? TexFilter::Linear : TexFilter::Point;
  bool floatOut = d.format == TexFormat::Float ||
                  (t.readMode == cudaReadModeNormalizedFloat && d.bits < 32);
  if (!floatOut || d.resource == TexResource::Linear)
    d.filter = TexFilter::Point; // linear filtering needs float results and a non-linear resource
  for (unsigned k = 0; k < 3; ++k)
    d.address[k] = addressMode(t.addressMode[k]);
  d.normalizedCoords = t.normalizedCoords ? 1 : 0;
  d.readNormalizedFloat = t.readMode == cudaReadModeNormalizedFloat ? 1 : 0;
  for (unsigned k = 0; k < 4; ++k)
    d.border[k] = t.borderColor[k];
  d.mipFilter = t.mipmapFilterMode == cudaFilterModeLinear ? TexFilter::Linear : TexFilter::Point;
  d.lodBias = t.mipmapLevelBias;
  d.minLod = t.minMipmapLevelClamp;
  d.maxLod = t.maxMipmapLevelClamp;
  return cudaSuccess;
}

/// Copies `d` into a new Const allocation (the object's handle); 0 when memory is exhausted.
uint64_t publish(Context &ctx, const TexDesc &d) {
  uint64_t a = ctx.engine().memory().allocate(sizeof(TexDesc), AllocKind::Const);
  if (a)
    std::memcpy(reinterpret_cast<void *>(a), &d, sizeof d);
  return a;
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
  uint64_t a = publish(ctx, d);
  if (!a)
    return ret(cudaErrorMemoryAllocation);
  textures()[a] = ObjRecord{*pResDesc, *pTexDesc};
  *pTexObject = a;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject) {
  if (!texObject)
    return cudaSuccess;
  PTXSIM_LOCK_CHECKED;
  return ret(destroyObject(ctx, textures(), texObject));
}

PTXSIM_API cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc *pResDesc,
                                                        cudaTextureObject_t texObject) {
  if (!pResDesc)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_CHECKED;
  const ObjRecord *r = findObject(textures(), texObject);
  if (!r)
    return ret(cudaErrorInvalidValue);
  *pResDesc = r->res;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc *pTexDesc,
                                                       cudaTextureObject_t texObject) {
  if (!pTexDesc)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_CHECKED;
  const ObjRecord *r = findObject(textures(), texObject);
  if (!r)
    return ret(cudaErrorInvalidValue);
  *pTexDesc = r->tex;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject,
                                               const cudaResourceDesc *pResDesc) {
  if (!pSurfObject || !pResDesc)
    return ret(cudaErrorInvalidValue);
  if (pResDesc->resType != cudaResourceTypeArray)
    return ret(cudaErrorInvalidValue); // surfaces bind CUDA arrays only
  PTXSIM_LOCK_CHECKED;
  const cudaArray *arr = pResDesc->res.array.array;
  if (!validArray(arr))
    return ret(cudaErrorInvalidResourceHandle);
  // No cudaArraySurfaceLoadStore check: the programming guide asks for the flag, but an H100's
  // runtime creates the surface on an array without it too (native run of tests/e2e/surf_rw).
  TexDesc d;
  d.magic = kSurfMagic;
  arrayGeometry(arr, d);
  if (!formatFields(arr->desc, d))
    return ret(cudaErrorInvalidChannelDescriptor);
  uint64_t a = publish(ctx, d);
  if (!a)
    return ret(cudaErrorMemoryAllocation);
  surfaces()[a] = ObjRecord{*pResDesc, cudaTextureDesc{}};
  *pSurfObject = a;
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject) {
  if (!surfObject)
    return cudaSuccess;
  PTXSIM_LOCK_CHECKED;
  return ret(destroyObject(ctx, surfaces(), surfObject));
}

PTXSIM_API cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc *pResDesc,
                                                        cudaSurfaceObject_t surfObject) {
  if (!pResDesc)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK_CHECKED;
  const ObjRecord *r = findObject(surfaces(), surfObject);
  if (!r)
    return ret(cudaErrorInvalidValue);
  *pResDesc = r->res;
  return cudaSuccess;
}

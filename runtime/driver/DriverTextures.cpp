// Driver-API CUDA arrays, mipmapped arrays, copies to and from arrays, texture and surface
// objects: the runtime's (runtime/api/Textures.cpp) under the driver's names. CUarray and
// CUmipmappedArray are the runtime's arrays; the driver's (format, channel count) pairs become
// channel descriptors and its copy descriptions the runtime's 3D copy parameters.

#include "runtime/driver/DriverApi.h"


#include <cstring>

using namespace ptxsim::runtime;
using namespace ptxsim::driver;

namespace {
cudaArray_t array(CUarray a) { return reinterpret_cast<cudaArray_t>(a); }
cudaMipmappedArray_t mipmapped(CUmipmappedArray m) {
  return reinterpret_cast<cudaMipmappedArray_t>(m);
}
cudaStream_t stream(CUstream s) { return reinterpret_cast<cudaStream_t>(s); }

/// The channel descriptor of `numChannels` channels of `format`; false for formats ptxsim's
/// arrays do not hold (block-compressed, video, packed normalized formats).
bool channelDesc(CUarray_format format, unsigned numChannels, cudaChannelFormatDesc &d) {
  int bits;
  cudaChannelFormatKind kind;
  switch (format) {
  case CU_AD_FORMAT_UNSIGNED_INT8: bits = 8; kind = cudaChannelFormatKindUnsigned; break;
  case CU_AD_FORMAT_UNSIGNED_INT16: bits = 16; kind = cudaChannelFormatKindUnsigned; break;
  case CU_AD_FORMAT_UNSIGNED_INT32: bits = 32; kind = cudaChannelFormatKindUnsigned; break;
  case CU_AD_FORMAT_SIGNED_INT8: bits = 8; kind = cudaChannelFormatKindSigned; break;
  case CU_AD_FORMAT_SIGNED_INT16: bits = 16; kind = cudaChannelFormatKindSigned; break;
  case CU_AD_FORMAT_SIGNED_INT32: bits = 32; kind = cudaChannelFormatKindSigned; break;
  case CU_AD_FORMAT_HALF: bits = 16; kind = cudaChannelFormatKindFloat; break;
  case CU_AD_FORMAT_FLOAT: bits = 32; kind = cudaChannelFormatKindFloat; break;
  default:
    return false;
  }
  if (numChannels != 1 && numChannels != 2 && numChannels != 4)
    return false;
  d = cudaCreateChannelDesc(bits, numChannels > 1 ? bits : 0, numChannels > 2 ? bits : 0,
                            numChannels > 2 ? bits : 0, kind);
  return true;
}

/// The driver's (format, channel count) of a channel descriptor.
bool driverFormat(const cudaChannelFormatDesc &d, CUarray_format &format, unsigned &channels) {
  channels = (d.x > 0) + (d.y > 0) + (d.z > 0) + (d.w > 0);
  switch (d.f) {
  case cudaChannelFormatKindUnsigned:
    format = d.x == 8 ? CU_AD_FORMAT_UNSIGNED_INT8
                      : d.x == 16 ? CU_AD_FORMAT_UNSIGNED_INT16 : CU_AD_FORMAT_UNSIGNED_INT32;
    return true;
  case cudaChannelFormatKindSigned:
    format = d.x == 8 ? CU_AD_FORMAT_SIGNED_INT8
                      : d.x == 16 ? CU_AD_FORMAT_SIGNED_INT16 : CU_AD_FORMAT_SIGNED_INT32;
    return true;
  case cudaChannelFormatKindFloat:
    format = d.x == 16 ? CU_AD_FORMAT_HALF : CU_AD_FORMAT_FLOAT;
    return true;
  default:
    return false;
  }
}

CUresult badFormat() { return CUresult(unsupportedCall("a CUDA array format other than 8/16/32-bit integers, half and float")); }

/// True for an array with depth (3D, layered or cubemap), which 2D copies refuse.
bool hasDepth(CUarray a) {
  cudaChannelFormatDesc d{};
  cudaExtent e{};
  unsigned flags;
  return a && !viaRuntime([&] { return cudaArrayGetInfo(&d, &e, &flags, array(a)); }) &&
         e.depth > 0;
}

/// Bytes per element of an array.
size_t elementBytes(CUarray a) {
  cudaChannelFormatDesc d{};
  cudaExtent e;
  unsigned flags;
  if (viaRuntime([&] { return cudaArrayGetInfo(&d, &e, &flags, array(a)); }))
    return 0;
  return size_t(d.x + d.y + d.z + d.w) / 8;
}
} // namespace

// --- arrays ----------------------------------------------------------------------------------

DRIVER_API CUresult cuArray3DCreate_v2(CUarray *a, const CUDA_ARRAY3D_DESCRIPTOR *d) {
  DRIVER_TRACE();
  if (!a || !d)
    return CUDA_ERROR_INVALID_VALUE;
  cudaChannelFormatDesc cd;
  if (!channelDesc(d->Format, d->NumChannels, cd))
    return badFormat();
  // CUDA_ARRAY3D_* flags have the values of the runtime's cudaArray* flags.
  return viaRuntime([&] {
    return cudaMalloc3DArray(reinterpret_cast<cudaArray_t *>(a), &cd,
                             cudaExtent{d->Width, d->Height, d->Depth}, d->Flags);
  });
}

DRIVER_API CUresult cuArrayCreate_v2(CUarray *a, const CUDA_ARRAY_DESCRIPTOR *d) {
  DRIVER_TRACE();
  if (!d)
    return CUDA_ERROR_INVALID_VALUE;
  CUDA_ARRAY3D_DESCRIPTOR d3{};
  d3.Width = d->Width;
  d3.Height = d->Height;
  d3.Format = d->Format;
  d3.NumChannels = d->NumChannels;
  return cuArray3DCreate_v2(a, &d3);
}

DRIVER_API CUresult cuArrayDestroy(CUarray a) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaFreeArray(array(a)); });
}

DRIVER_API CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *d, CUarray a) {
  DRIVER_TRACE();
  if (!d)
    return CUDA_ERROR_INVALID_VALUE;
  cudaChannelFormatDesc cd{};
  cudaExtent e{};
  unsigned flags = 0;
  if (CUresult r = viaRuntime([&] { return cudaArrayGetInfo(&cd, &e, &flags, array(a)); }))
    return r;
  if (!driverFormat(cd, d->Format, d->NumChannels))
    return badFormat();
  d->Width = e.width;
  d->Height = e.height;
  d->Depth = e.depth;
  d->Flags = flags;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *d, CUarray a) {
  DRIVER_TRACE();
  if (!d)
    return CUDA_ERROR_INVALID_VALUE;
  CUDA_ARRAY3D_DESCRIPTOR d3;
  if (CUresult r = cuArray3DGetDescriptor_v2(&d3, a))
    return r;
  d->Width = d3.Width;
  d->Height = d3.Height;
  d->Format = d3.Format;
  d->NumChannels = d3.NumChannels;
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuMipmappedArrayCreate(CUmipmappedArray *m, const CUDA_ARRAY3D_DESCRIPTOR *d,
                                           unsigned int levels) {
  DRIVER_TRACE();
  if (!m || !d)
    return CUDA_ERROR_INVALID_VALUE;
  cudaChannelFormatDesc cd;
  if (!channelDesc(d->Format, d->NumChannels, cd))
    return badFormat();
  return viaRuntime([&] {
    return cudaMallocMipmappedArray(reinterpret_cast<cudaMipmappedArray_t *>(m), &cd,
                                    cudaExtent{d->Width, d->Height, d->Depth}, levels,
                                    d->Flags);
  });
}

DRIVER_API CUresult cuMipmappedArrayGetLevel(CUarray *level, CUmipmappedArray m, unsigned int l) {
  DRIVER_TRACE();
  return viaRuntime([&] {
    return cudaGetMipmappedArrayLevel(reinterpret_cast<cudaArray_t *>(level), mipmapped(m), l);
  });
}

DRIVER_API CUresult cuMipmappedArrayDestroy(CUmipmappedArray m) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaFreeMipmappedArray(mipmapped(m)); });
}

// --- copies involving arrays (DriverObjects.cpp sends them here) ------------------------------

/// A 2D/3D copy where either side is a CUDA array, as the runtime's cudaMemcpy3D: positions and
/// the extent are in elements of the array (bytes on a memory side).
CUresult ptxsim::driver::copyWithArrays(const CUDA_MEMCPY3D &p, CUstream s, bool async,
                                       bool twoD) {
  // An array with depth takes 3D copies only: from the 2D calls, or with no slice height on
  // the memory side (what NVIDIA's runtime sends for cudaMemcpyToArray, which CUDA refuses).
  bool srcArr = p.srcMemoryType == CU_MEMORYTYPE_ARRAY, dstArr = p.dstMemoryType == CU_MEMORYTYPE_ARRAY;
  if ((srcArr && hasDepth(p.srcArray) && (twoD || (!dstArr && p.dstHeight == 0))) ||
      (dstArr && hasDepth(p.dstArray) && (twoD || (!srcArr && p.srcHeight == 0))))
    return CUDA_ERROR_INVALID_VALUE;
  cudaMemcpy3DParms q{};
  size_t elem = 0;
  bool srcDev = false, dstDev = false;
  auto memory = [](CUmemorytype t, const void *host, CUdeviceptr dev, size_t pitch, size_t width,
                   size_t height, cudaPitchedPtr &out, bool &device) {
    device = t != CU_MEMORYTYPE_HOST;
    void *ptr = device ? reinterpret_cast<void *>(dev) : const_cast<void *>(host);
    out = cudaPitchedPtr{ptr, pitch ? pitch : width, width, height};
  };
  if (p.srcMemoryType == CU_MEMORYTYPE_ARRAY) {
    q.srcArray = array(p.srcArray);
    elem = elementBytes(p.srcArray);
    srcDev = true;
  }
  if (p.dstMemoryType == CU_MEMORYTYPE_ARRAY) {
    q.dstArray = array(p.dstArray);
    size_t e = elementBytes(p.dstArray);
    elem = elem ? elem : e;
    dstDev = true;
  }
  if (!elem)
    return CUDA_ERROR_INVALID_HANDLE;
  size_t height = p.Height ? p.Height : 1;
  if (!q.srcArray)
    memory(p.srcMemoryType, p.srcHost, p.srcDevice, p.srcPitch, p.WidthInBytes,
           p.srcHeight ? p.srcHeight : height, q.srcPtr, srcDev);
  if (!q.dstArray)
    memory(p.dstMemoryType, p.dstHost, p.dstDevice, p.dstPitch, p.WidthInBytes,
           p.dstHeight ? p.dstHeight : height, q.dstPtr, dstDev);
  if (p.WidthInBytes % elem || (q.srcArray && p.srcXInBytes % elem) ||
      (q.dstArray && p.dstXInBytes % elem))
    return CUDA_ERROR_INVALID_VALUE;
  q.srcPos = cudaPos{q.srcArray ? p.srcXInBytes / elem : p.srcXInBytes, p.srcY, p.srcZ};
  q.dstPos = cudaPos{q.dstArray ? p.dstXInBytes / elem : p.dstXInBytes, p.dstY, p.dstZ};
  q.extent = cudaExtent{p.WidthInBytes / elem, height, p.Depth ? p.Depth : 1};
  q.kind = srcDev ? (dstDev ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                  : (dstDev ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
  return viaRuntime(
      [&] { return async ? cudaMemcpy3DAsync(&q, stream(s)) : cudaMemcpy3D(&q); });
}

namespace {
/// A 1D copy at a byte offset into an array.
CUresult copy1D(CUmemorytype srcType, const void *srcHost, CUdeviceptr srcDev, CUarray srcArray,
                size_t srcOffset, CUmemorytype dstType, void *dstHost, CUdeviceptr dstDev,
                CUarray dstArray, size_t dstOffset, size_t n, CUstream s, bool async) {
  CUDA_MEMCPY3D p{};
  p.srcMemoryType = srcType;
  p.srcHost = srcHost;
  p.srcDevice = srcDev;
  p.srcArray = srcArray;
  p.srcXInBytes = srcOffset;
  p.dstMemoryType = dstType;
  p.dstHost = dstHost;
  p.dstDevice = dstDev;
  p.dstArray = dstArray;
  p.dstXInBytes = dstOffset;
  p.WidthInBytes = n;
  p.Height = 1;
  p.Depth = 1;
  return copyWithArrays(p, s, async, /*twoD=*/true);
}
} // namespace

DRIVER_API CUresult cuMemcpyHtoA_v2(CUarray dst, size_t off, const void *src, size_t n) {
  DRIVER_TRACE();
  return copy1D(CU_MEMORYTYPE_HOST, src, 0, nullptr, 0, CU_MEMORYTYPE_ARRAY, nullptr, 0, dst, off,
                n, nullptr, false);
}
DRIVER_API CUresult cuMemcpyAtoH_v2(void *dst, CUarray src, size_t off, size_t n) {
  DRIVER_TRACE();
  return copy1D(CU_MEMORYTYPE_ARRAY, nullptr, 0, src, off, CU_MEMORYTYPE_HOST, dst, 0, nullptr, 0,
                n, nullptr, false);
}
DRIVER_API CUresult cuMemcpyHtoAAsync_v2(CUarray dst, size_t off, const void *src, size_t n,
                                         CUstream s) {
  DRIVER_TRACE();
  return copy1D(CU_MEMORYTYPE_HOST, src, 0, nullptr, 0, CU_MEMORYTYPE_ARRAY, nullptr, 0, dst, off,
                n, s, true);
}
DRIVER_API CUresult cuMemcpyAtoHAsync_v2(void *dst, CUarray src, size_t off, size_t n,
                                         CUstream s) {
  DRIVER_TRACE();
  return copy1D(CU_MEMORYTYPE_ARRAY, nullptr, 0, src, off, CU_MEMORYTYPE_HOST, dst, 0, nullptr, 0,
                n, s, true);
}
DRIVER_API CUresult cuMemcpyDtoA_v2(CUarray dst, size_t off, CUdeviceptr src, size_t n) {
  DRIVER_TRACE();
  return copy1D(CU_MEMORYTYPE_DEVICE, nullptr, src, nullptr, 0, CU_MEMORYTYPE_ARRAY, nullptr, 0,
                dst, off, n, nullptr, false);
}
DRIVER_API CUresult cuMemcpyAtoD_v2(CUdeviceptr dst, CUarray src, size_t off, size_t n) {
  DRIVER_TRACE();
  return copy1D(CU_MEMORYTYPE_ARRAY, nullptr, 0, src, off, CU_MEMORYTYPE_DEVICE, nullptr, dst,
                nullptr, 0, n, nullptr, false);
}
DRIVER_API CUresult cuMemcpyAtoA_v2(CUarray dst, size_t dstOff, CUarray src, size_t srcOff,
                                    size_t n) {
  DRIVER_TRACE();
  return copy1D(CU_MEMORYTYPE_ARRAY, nullptr, 0, src, srcOff, CU_MEMORYTYPE_ARRAY, nullptr, 0,
                dst, dstOff, n, nullptr, false);
}

// --- texture and surface objects -------------------------------------------------------------

namespace {
CUresult resourceDesc(const CUDA_RESOURCE_DESC &r, cudaResourceDesc &out) {
  std::memset(&out, 0, sizeof out);
  switch (r.resType) {
  case CU_RESOURCE_TYPE_ARRAY:
    out.resType = cudaResourceTypeArray;
    out.res.array.array = array(r.res.array.hArray);
    return CUDA_SUCCESS;
  case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
    out.resType = cudaResourceTypeMipmappedArray;
    out.res.mipmap.mipmap = mipmapped(r.res.mipmap.hMipmappedArray);
    return CUDA_SUCCESS;
  case CU_RESOURCE_TYPE_LINEAR:
    out.resType = cudaResourceTypeLinear;
    out.res.linear.devPtr = reinterpret_cast<void *>(r.res.linear.devPtr);
    out.res.linear.sizeInBytes = r.res.linear.sizeInBytes;
    return channelDesc(r.res.linear.format, r.res.linear.numChannels, out.res.linear.desc)
               ? CUDA_SUCCESS
               : badFormat();
  case CU_RESOURCE_TYPE_PITCH2D:
    out.resType = cudaResourceTypePitch2D;
    out.res.pitch2D.devPtr = reinterpret_cast<void *>(r.res.pitch2D.devPtr);
    out.res.pitch2D.width = r.res.pitch2D.width;
    out.res.pitch2D.height = r.res.pitch2D.height;
    out.res.pitch2D.pitchInBytes = r.res.pitch2D.pitchInBytes;
    return channelDesc(r.res.pitch2D.format, r.res.pitch2D.numChannels, out.res.pitch2D.desc)
               ? CUDA_SUCCESS
               : badFormat();
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult fromRuntime(const cudaResourceDesc &r, CUDA_RESOURCE_DESC &out) {
  std::memset(&out, 0, sizeof out);
  switch (r.resType) {
  case cudaResourceTypeArray:
    out.resType = CU_RESOURCE_TYPE_ARRAY;
    out.res.array.hArray = reinterpret_cast<CUarray>(r.res.array.array);
    return CUDA_SUCCESS;
  case cudaResourceTypeMipmappedArray:
    out.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
    out.res.mipmap.hMipmappedArray = reinterpret_cast<CUmipmappedArray>(r.res.mipmap.mipmap);
    return CUDA_SUCCESS;
  case cudaResourceTypeLinear:
    out.resType = CU_RESOURCE_TYPE_LINEAR;
    out.res.linear.devPtr = CUdeviceptr(r.res.linear.devPtr);
    out.res.linear.sizeInBytes = r.res.linear.sizeInBytes;
    return driverFormat(r.res.linear.desc, out.res.linear.format, out.res.linear.numChannels)
               ? CUDA_SUCCESS
               : badFormat();
  case cudaResourceTypePitch2D:
    out.resType = CU_RESOURCE_TYPE_PITCH2D;
    out.res.pitch2D.devPtr = CUdeviceptr(r.res.pitch2D.devPtr);
    out.res.pitch2D.width = r.res.pitch2D.width;
    out.res.pitch2D.height = r.res.pitch2D.height;
    out.res.pitch2D.pitchInBytes = r.res.pitch2D.pitchInBytes;
    return driverFormat(r.res.pitch2D.desc, out.res.pitch2D.format, out.res.pitch2D.numChannels)
               ? CUDA_SUCCESS
               : badFormat();
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}

/// True when the resource's channels are floats (CU_TRSF_READ_AS_INTEGER means nothing then).
bool floatResource(const cudaResourceDesc &r) {
  cudaChannelFormatDesc d{};
  cudaExtent e;
  unsigned flags;
  switch (r.resType) {
  case cudaResourceTypeArray:
    cudaArrayGetInfo(&d, &e, &flags, r.res.array.array);
    break;
  case cudaResourceTypeMipmappedArray: {
    cudaArray_t level0 = nullptr;
    if (cudaGetMipmappedArrayLevel(&level0, r.res.mipmap.mipmap, 0) == cudaSuccess)
      cudaArrayGetInfo(&d, &e, &flags, level0);
    break;
  }
  case cudaResourceTypeLinear:
    d = r.res.linear.desc;
    break;
  default:
    d = r.res.pitch2D.desc;
    break;
  }
  return d.f == cudaChannelFormatKindFloat;
}

void textureDesc(const CUDA_TEXTURE_DESC &t, bool floats, cudaTextureDesc &out) {
  std::memset(&out, 0, sizeof out);
  // CUaddress_mode and CUfilter_mode number like cudaTextureAddressMode and cudaTextureFilterMode.
  for (int k = 0; k < 3; ++k)
    out.addressMode[k] = cudaTextureAddressMode(t.addressMode[k]);
  out.filterMode = cudaTextureFilterMode(t.filterMode);
  out.readMode = (t.flags & CU_TRSF_READ_AS_INTEGER) || floats ? cudaReadModeElementType
                                                               : cudaReadModeNormalizedFloat;
  out.sRGB = (t.flags & CU_TRSF_SRGB) ? 1 : 0;
  out.normalizedCoords = (t.flags & CU_TRSF_NORMALIZED_COORDINATES) ? 1 : 0;
  out.disableTrilinearOptimization = (t.flags & CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION) ? 1 : 0;
  out.seamlessCubemap = (t.flags & CU_TRSF_SEAMLESS_CUBEMAP) ? 1 : 0;
  for (int k = 0; k < 4; ++k)
    out.borderColor[k] = t.borderColor[k];
  out.maxAnisotropy = t.maxAnisotropy;
  out.mipmapFilterMode = cudaTextureFilterMode(t.mipmapFilterMode);
  out.mipmapLevelBias = t.mipmapLevelBias;
  out.minMipmapLevelClamp = t.minMipmapLevelClamp;
  out.maxMipmapLevelClamp = t.maxMipmapLevelClamp;
}
} // namespace

DRIVER_API CUresult cuTexObjectCreate(CUtexObject *tex, const CUDA_RESOURCE_DESC *res,
                                      const CUDA_TEXTURE_DESC *td,
                                      const CUDA_RESOURCE_VIEW_DESC *view) {
  DRIVER_TRACE();
  if (!tex || !res || !td)
    return CUDA_ERROR_INVALID_VALUE;
  cudaResourceDesc r;
  if (CUresult e = resourceDesc(*res, r))
    return e;
  cudaTextureDesc t;
  textureDesc(*td, floatResource(r), t);
  cudaTextureObject_t obj = 0;
  // CUDA_RESOURCE_VIEW_DESC and cudaResourceViewDesc share layout and format numbering.
  CUresult e = viaRuntime([&] {
    return cudaCreateTextureObject(&obj, &r, &t,
                                   reinterpret_cast<const cudaResourceViewDesc *>(view));
  });
  if (e == CUDA_SUCCESS)
    *tex = CUtexObject(obj);
  return e;
}

DRIVER_API CUresult cuTexObjectDestroy(CUtexObject tex) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaDestroyTextureObject(cudaTextureObject_t(tex)); });
}

DRIVER_API CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *res, CUtexObject tex) {
  DRIVER_TRACE();
  if (!res)
    return CUDA_ERROR_INVALID_VALUE;
  cudaResourceDesc r;
  if (CUresult e = viaRuntime(
          [&] { return cudaGetTextureObjectResourceDesc(&r, cudaTextureObject_t(tex)); }))
    return e;
  return fromRuntime(r, *res);
}

DRIVER_API CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *td, CUtexObject tex) {
  DRIVER_TRACE();
  if (!td)
    return CUDA_ERROR_INVALID_VALUE;
  cudaTextureDesc t;
  if (CUresult e = viaRuntime(
          [&] { return cudaGetTextureObjectTextureDesc(&t, cudaTextureObject_t(tex)); }))
    return e;
  std::memset(td, 0, sizeof *td);
  for (int k = 0; k < 3; ++k)
    td->addressMode[k] = CUaddress_mode(t.addressMode[k]);
  td->filterMode = CUfilter_mode(t.filterMode);
  td->flags = (t.readMode == cudaReadModeElementType ? CU_TRSF_READ_AS_INTEGER : 0) |
              (t.normalizedCoords ? CU_TRSF_NORMALIZED_COORDINATES : 0) |
              (t.sRGB ? CU_TRSF_SRGB : 0) |
              (t.disableTrilinearOptimization ? CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION : 0) |
              (t.seamlessCubemap ? CU_TRSF_SEAMLESS_CUBEMAP : 0);
  td->maxAnisotropy = t.maxAnisotropy;
  td->mipmapFilterMode = CUfilter_mode(t.mipmapFilterMode);
  td->mipmapLevelBias = t.mipmapLevelBias;
  td->minMipmapLevelClamp = t.minMipmapLevelClamp;
  td->maxMipmapLevelClamp = t.maxMipmapLevelClamp;
  for (int k = 0; k < 4; ++k)
    td->borderColor[k] = t.borderColor[k];
  return CUDA_SUCCESS;
}

DRIVER_API CUresult cuSurfObjectCreate(CUsurfObject *surf, const CUDA_RESOURCE_DESC *res) {
  DRIVER_TRACE();
  if (!surf || !res)
    return CUDA_ERROR_INVALID_VALUE;
  cudaResourceDesc r;
  if (CUresult e = resourceDesc(*res, r))
    return e;
  cudaSurfaceObject_t obj = 0;
  CUresult e = viaRuntime([&] { return cudaCreateSurfaceObject(&obj, &r); });
  if (e == CUDA_SUCCESS)
    *surf = CUsurfObject(obj);
  return e;
}

DRIVER_API CUresult cuSurfObjectDestroy(CUsurfObject surf) {
  DRIVER_TRACE();
  return viaRuntime([&] { return cudaDestroySurfaceObject(cudaSurfaceObject_t(surf)); });
}

DRIVER_API CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *res, CUsurfObject surf) {
  DRIVER_TRACE();
  if (!res)
    return CUDA_ERROR_INVALID_VALUE;
  cudaResourceDesc r;
  if (CUresult e = viaRuntime(
          [&] { return cudaGetSurfaceObjectResourceDesc(&r, cudaSurfaceObject_t(surf)); }))
    return e;
  return fromRuntime(r, *res);
}

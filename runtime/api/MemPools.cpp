// CUDA memory pools: cudaMemPool* and the device's default and current pool (GraphObjects.h).

#include "runtime/api/GraphObjects.h"

#include <algorithm>

using namespace ptxsim::runtime;
using namespace ptxsim::runtime::graphs;

extern "C" {

// --- memory pools -----------------------------------------------------------------------------

PTXSIM_API cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device) {
  if (!memPool)
    return ret(cudaErrorInvalidValue);
  if (device != 0)
    return ret(cudaErrorInvalidDevice);
  PTXSIM_LOCK;
  *memPool = reinterpret_cast<cudaMemPool_t>(defaultPool());
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device) {
  if (!memPool)
    return ret(cudaErrorInvalidValue);
  if (device != 0)
    return ret(cudaErrorInvalidDevice);
  PTXSIM_LOCK;
  defaultPool();
  *memPool = reinterpret_cast<cudaMemPool_t>(gs().currentPool);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool) {
  if (device != 0)
    return ret(cudaErrorInvalidDevice);
  PTXSIM_LOCK;
  defaultPool();
  if (!memPool || !gs().pools.count(poolOf(memPool)))
    return ret(cudaErrorInvalidValue);
  gs().currentPool = poolOf(memPool);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const cudaMemPoolProps *props) {
  if (!memPool || !props || props->allocType != cudaMemAllocationTypePinned)
    return ret(cudaErrorInvalidValue);
  if (props->location.type != cudaMemLocationTypeDevice)
    return ret(cudaErrorInvalidValue);
  if (props->location.id != 0)
    return ret(cudaErrorInvalidDevice);
  PTXSIM_LOCK;
  defaultPool();
  auto *p = new PoolObj;
  p->props = *props;
  gs().pools.insert(p);
  *memPool = reinterpret_cast<cudaMemPool_t>(p);
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool) {
  PTXSIM_LOCK;
  if (!memPool || !gs().pools.count(poolOf(memPool)) || poolOf(memPool)->isDefault)
    return ret(cudaErrorInvalidValue);
  if (gs().currentPool == poolOf(memPool))
    gs().currentPool = gs().defaultPool;
  gs().pools.erase(poolOf(memPool));
  delete poolOf(memPool); // its live allocations stay valid until freed, as in CUDA
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                               cudaStream_t stream) {
  if (!ptr)
    return ret(cudaErrorInvalidValue);
  {
    PTXSIM_LOCK_CHECKED;
    if (!memPool || !gs().pools.count(poolOf(memPool)))
      return ret(cudaErrorInvalidValue);
    if (!ctx.validStream(stream))
      return ret(cudaErrorInvalidResourceHandle);
    if (auto captured = gs().captureMalloc(stream, ptr, size, &poolOf(memPool)->props))
      return ret(*captured);
  }
  cudaError_t e = cudaMalloc(ptr, size);
  if (e)
    return e;
  PTXSIM_LOCK;
  if (gs().pools.count(poolOf(memPool)) && *ptr) {
    PoolObj &p = *poolOf(memPool);
    pruneLive(ctx, p);
    p.live[*ptr] = size;
    uint64_t used = usedBytes(p);
    p.usedHigh = std::max(p.usedHigh, used);
    p.reservedHigh = std::max(p.reservedHigh, used);
  }
  return cudaSuccess;
}

PTXSIM_API cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t memPool,
                                                    cudaStream_t stream) {
  return cudaMallocFromPoolAsync(ptr, size, memPool, stream);
}

PTXSIM_API cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t) {
  PTXSIM_LOCK;
  if (!memPool || !gs().pools.count(poolOf(memPool)))
    return ret(cudaErrorInvalidValue);
  return cudaSuccess; // freed memory goes back to the device at once: nothing to trim
}

PTXSIM_API cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr,
                                               void *value) {
  if (!value)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK;
  if (!memPool || !gs().pools.count(poolOf(memPool)))
    return ret(cudaErrorInvalidValue);
  PoolObj &p = *poolOf(memPool);
  switch (attr) {
  case cudaMemPoolReuseFollowEventDependencies:
    p.reuseFollow = *static_cast<int *>(value);
    return cudaSuccess;
  case cudaMemPoolReuseAllowOpportunistic:
    p.reuseOpportunistic = *static_cast<int *>(value);
    return cudaSuccess;
  case cudaMemPoolReuseAllowInternalDependencies:
    p.reuseInternal = *static_cast<int *>(value);
    return cudaSuccess;
  case cudaMemPoolAttrReleaseThreshold:
    p.releaseThreshold = *static_cast<uint64_t *>(value);
    return cudaSuccess;
  case cudaMemPoolAttrReservedMemHigh:
  case cudaMemPoolAttrUsedMemHigh: {
    // may only be reset to zero: the high-water mark restarts from the current value
    if (*static_cast<uint64_t *>(value) != 0)
      return ret(cudaErrorInvalidValue);
    pruneLive(ctx, p);
    uint64_t used = usedBytes(p);
    (attr == cudaMemPoolAttrUsedMemHigh ? p.usedHigh : p.reservedHigh) = used;
    return cudaSuccess;
  }
  default:
    return ret(cudaErrorInvalidValue); // read-only or unknown
  }
}

PTXSIM_API cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr,
                                               void *value) {
  if (!value)
    return ret(cudaErrorInvalidValue);
  PTXSIM_LOCK;
  if (!memPool || !gs().pools.count(poolOf(memPool)))
    return ret(cudaErrorInvalidValue);
  PoolObj &p = *poolOf(memPool);
  pruneLive(ctx, p);
  uint64_t used = usedBytes(p);
  switch (attr) {
  case cudaMemPoolReuseFollowEventDependencies:
    *static_cast<int *>(value) = p.reuseFollow;
    return cudaSuccess;
  case cudaMemPoolReuseAllowOpportunistic:
    *static_cast<int *>(value) = p.reuseOpportunistic;
    return cudaSuccess;
  case cudaMemPoolReuseAllowInternalDependencies:
    *static_cast<int *>(value) = p.reuseInternal;
    return cudaSuccess;
  case cudaMemPoolAttrReleaseThreshold:
    *static_cast<uint64_t *>(value) = p.releaseThreshold;
    return cudaSuccess;
  case cudaMemPoolAttrReservedMemCurrent:
  case cudaMemPoolAttrUsedMemCurrent:
    *static_cast<uint64_t *>(value) = used;
    return cudaSuccess;
  case cudaMemPoolAttrReservedMemHigh:
    *static_cast<uint64_t *>(value) = p.reservedHigh;
    return cudaSuccess;
  case cudaMemPoolAttrUsedMemHigh:
    *static_cast<uint64_t *>(value) = p.usedHigh;
    return cudaSuccess;
  default:
    return ret(cudaErrorInvalidValue);
  }
}

} // extern "C"

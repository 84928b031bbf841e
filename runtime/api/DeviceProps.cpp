// What the simulated device reports: cudaDeviceProp and cudaDeviceGetAttribute (DeviceProps.h).

#include "runtime/api/DeviceProps.h"

#include <cstdio>
#include <cstring>

namespace ptxsim::runtime {

namespace {
constexpr int kClockKhz = 1755000, kMemClockKhz = 2619000;
} // namespace

void fillProps(const DeviceView &v, cudaDeviceProp &p) {
  const auto &cfg = *v.engine;
  std::memset(&p, 0, sizeof p);
  std::snprintf(p.name, sizeof p.name, "ptxsim functional GPU");
  std::memcpy(p.uuid.bytes, "ptxsim-device-00", 16);
  p.totalGlobalMem = v.memoryBytes;
  p.sharedMemPerBlock = cfg.maxSharedPerBlock;
  p.regsPerBlock = 65536;
  p.warpSize = 32;
  p.memPitch = 0x7fffffff;
  p.maxThreadsPerBlock = int(cfg.maxThreadsPerBlock);
  p.maxThreadsDim[0] = 1024;
  p.maxThreadsDim[1] = 1024;
  p.maxThreadsDim[2] = 64;
  p.maxGridSize[0] = 0x7fffffff;
  p.maxGridSize[1] = 65535;
  p.maxGridSize[2] = 65535;
  p.totalConstMem = 64 * 1024;
  p.major = kComputeMajor;
  p.minor = kComputeMinor;
  p.textureAlignment = 512;
  p.texturePitchAlignment = 32;
  p.multiProcessorCount = int(cfg.numSms);
  p.canMapHostMemory = 1;
  p.surfaceAlignment = 512;
  p.concurrentKernels = 1;
  p.asyncEngineCount = 2;
  p.unifiedAddressing = 1;
  p.memoryBusWidth = 5120;
  p.l2CacheSize = 50 * 1024 * 1024;
  p.maxThreadsPerMultiProcessor = 2048;
  p.streamPrioritiesSupported = 1;
  p.globalL1CacheSupported = 1;
  p.localL1CacheSupported = 1;
  p.sharedMemPerMultiprocessor = 228 * 1024;
  p.regsPerMultiprocessor = 65536;
  p.managedMemory = 1;
  p.hostNativeAtomicSupported = 1;
  p.pageableMemoryAccess = 0;
  p.concurrentManagedAccess = 1;
  p.computePreemptionSupported = 1;
  p.canUseHostPointerForRegisteredMem = 1;
  p.cooperativeLaunch = 1;
  p.sharedMemPerBlockOptin = cfg.maxSharedPerBlockOptin;
  p.directManagedMemAccessFromHost = 1;
  p.maxBlocksPerMultiProcessor = 32;
  p.reservedSharedMemPerBlock = 1024;
  p.memoryPoolsSupported = 1;
  p.clusterLaunch = 0;
  p.unifiedFunctionPointers = 0;
  p.deviceNumaId = -1;
  p.hostNumaId = -1;
  // Texture and surface limits of a current NVIDIA GPU (reported for queries; texture and
  // surface objects themselves are not supported yet and say so when created).
  p.maxTexture1D = 131072;
  p.maxTexture1DMipmap = 32768;
  p.maxTexture2D[0] = 131072; p.maxTexture2D[1] = 65536;
  p.maxTexture2DMipmap[0] = 32768; p.maxTexture2DMipmap[1] = 32768;
  p.maxTexture2DLinear[0] = 131072; p.maxTexture2DLinear[1] = 65000; p.maxTexture2DLinear[2] = 2097120;
  p.maxTexture2DGather[0] = 32768; p.maxTexture2DGather[1] = 32768;
  p.maxTexture3D[0] = 16384; p.maxTexture3D[1] = 16384; p.maxTexture3D[2] = 16384;
  p.maxTexture3DAlt[0] = 8192; p.maxTexture3DAlt[1] = 8192; p.maxTexture3DAlt[2] = 32768;
  p.maxTextureCubemap = 32768;
  p.maxTexture1DLayered[0] = 32768; p.maxTexture1DLayered[1] = 2048;
  p.maxTexture2DLayered[0] = 32768; p.maxTexture2DLayered[1] = 32768; p.maxTexture2DLayered[2] = 2048;
  p.maxTextureCubemapLayered[0] = 32768; p.maxTextureCubemapLayered[1] = 2046;
  p.maxSurface1D = 32768;
  p.maxSurface2D[0] = 131072; p.maxSurface2D[1] = 65536;
  p.maxSurface3D[0] = 16384; p.maxSurface3D[1] = 16384; p.maxSurface3D[2] = 16384;
  p.maxSurface1DLayered[0] = 32768; p.maxSurface1DLayered[1] = 2048;
  p.maxSurface2DLayered[0] = 32768; p.maxSurface2DLayered[1] = 32768; p.maxSurface2DLayered[2] = 2048;
  p.maxSurfaceCubemap = 32768;
  p.maxSurfaceCubemapLayered[0] = 32768; p.maxSurfaceCubemapLayered[1] = 2046;
  p.pciBusID = 1;
  p.pciDeviceID = 0;
  p.pciDomainID = 0;
  p.hostRegisterSupported = 1;
  p.accessPolicyMaxWindowSize = 0; // set below from the L2 the device has
  p.persistingL2CacheMaxSize = 0;
  p.memoryPoolsSupported = 1; // cudaMallocAsync and the cudaMemPool* family (MemPools.cpp)
  p.clusterLaunch = 0;
  if ((v.timing != nullptr)) {
    // the configured GPU
    const ptxsim::timing::TimingConfig &t = (*v.timing);
    std::snprintf(p.name, sizeof p.name, "ptxsim %s (timing model)", t.name.c_str());
    p.multiProcessorCount = int(t.numSms());
    p.maxThreadsPerMultiProcessor = int(t.core.maxThreadsPerSm);
    p.maxBlocksPerMultiProcessor = int(t.core.maxCtasPerSm);
    p.regsPerMultiprocessor = int(t.core.registersPerSm);
    p.sharedMemPerMultiprocessor = t.core.sharedBytesPerSm;
    p.l2CacheSize = int(uint64_t(t.mem.l2.capacity()) * t.mem.numPartitions);
    p.warpSize = int(t.core.warpSize);
    p.regsPerBlock = std::min<int>(65536, int(t.core.registersPerSm));
    // channels x bytes per transfer x 8 bits
    p.memoryBusWidth = int(t.mem.numPartitions * t.dram.channelsPerPartition * t.dram.busWidthBytes * 8);
  }
  // L2 persistence (compute capability 8.0 on): up to five eighths of the L2 may be set aside
  // for persisting accesses (an H100's 50 MiB L2 reports 32768000 bytes), and an access-policy
  // window spans at most 128 MiB less one 4 KiB page (tools/hw/data/h100-2026-11-26).
  if (p.major >= 8) {
    p.persistingL2CacheMaxSize = int(uint64_t(p.l2CacheSize) * 5 / 8);
    p.accessPolicyMaxWindowSize = kMaxAccessPolicyWindowBytes;
  }
}

/// cudaLimitPersistingL2CacheSize before the program sets it: the driver sets aside three
/// sixteenths of the L2 from the start (9830400 bytes of an H100's 50 MiB,
/// tools/hw/data/h100-2026-11-26); none on a device without L2 persistence.
size_t defaultPersistingL2(const DeviceView &v) {
  cudaDeviceProp p;
  fillProps(v, p);
  return p.persistingL2CacheMaxSize ? size_t(p.l2CacheSize) * 3 / 16 : 0;
}

int deviceAttribute(const DeviceView &v, int attrCode) {
  cudaDeviceAttr attr = cudaDeviceAttr(attrCode);
  cudaDeviceProp p;
  fillProps(v, p);
  switch (attr) {
  case cudaDevAttrMaxThreadsPerBlock: return p.maxThreadsPerBlock;
  case cudaDevAttrMaxBlockDimX: return p.maxThreadsDim[0];
  case cudaDevAttrMaxBlockDimY: return p.maxThreadsDim[1];
  case cudaDevAttrMaxBlockDimZ: return p.maxThreadsDim[2];
  case cudaDevAttrMaxGridDimX: return p.maxGridSize[0];
  case cudaDevAttrMaxGridDimY: return p.maxGridSize[1];
  case cudaDevAttrMaxGridDimZ: return p.maxGridSize[2];
  case cudaDevAttrMaxSharedMemoryPerBlock: return int(p.sharedMemPerBlock);
  case cudaDevAttrTotalConstantMemory: return int(p.totalConstMem);
  case cudaDevAttrWarpSize: return p.warpSize;
  case cudaDevAttrMaxPitch: return int(p.memPitch);
  case cudaDevAttrMaxRegistersPerBlock: return p.regsPerBlock;
  case cudaDevAttrClockRate:
    return (v.timing != nullptr) ? int((*v.timing).core.clockMHz * 1000) : kClockKhz;
  case cudaDevAttrTextureAlignment: return int(p.textureAlignment);
  case cudaDevAttrGpuOverlap: return 1;
  case cudaDevAttrMultiProcessorCount: return p.multiProcessorCount;
  case cudaDevAttrKernelExecTimeout: return 0;
  case cudaDevAttrIntegrated: return 0;
  case cudaDevAttrCanMapHostMemory: return 1;
  case cudaDevAttrComputeMode: return cudaComputeModeDefault;
  case cudaDevAttrConcurrentKernels: return 1;
  case cudaDevAttrEccEnabled: return 0;
  case cudaDevAttrMemoryClockRate:
    return (v.timing != nullptr) ? int((*v.timing).dram.clockMHz * 1000) : kMemClockKhz;
  case cudaDevAttrGlobalMemoryBusWidth: return p.memoryBusWidth;
  case cudaDevAttrL2CacheSize: return p.l2CacheSize;
  case cudaDevAttrMaxThreadsPerMultiProcessor: return p.maxThreadsPerMultiProcessor;
  case cudaDevAttrAsyncEngineCount: return p.asyncEngineCount;
  case cudaDevAttrUnifiedAddressing: return 1;
  case cudaDevAttrComputeCapabilityMajor: return p.major;
  case cudaDevAttrComputeCapabilityMinor: return p.minor;
  case cudaDevAttrStreamPrioritiesSupported: return 1;
  case cudaDevAttrGlobalL1CacheSupported: return 1;
  case cudaDevAttrLocalL1CacheSupported: return 1;
  case cudaDevAttrMaxSharedMemoryPerMultiprocessor: return int(p.sharedMemPerMultiprocessor);
  case cudaDevAttrMaxRegistersPerMultiprocessor: return p.regsPerMultiprocessor;
  case cudaDevAttrManagedMemory: return 1;
  case cudaDevAttrIsMultiGpuBoard: return 0;
  case cudaDevAttrHostNativeAtomicSupported: return 1;
  case cudaDevAttrSingleToDoublePrecisionPerfRatio: return 2;
  case cudaDevAttrPageableMemoryAccess: return 0;
  case cudaDevAttrConcurrentManagedAccess: return 1;
  case cudaDevAttrComputePreemptionSupported: return 1;
  case cudaDevAttrCanUseHostPointerForRegisteredMem: return 1;
  case cudaDevAttrCooperativeLaunch: return 1;
  case cudaDevAttrMaxSharedMemoryPerBlockOptin: return int(p.sharedMemPerBlockOptin);
  case cudaDevAttrDirectManagedMemAccessFromHost: return 1;
  case cudaDevAttrMaxBlocksPerMultiprocessor: return p.maxBlocksPerMultiProcessor;
  case cudaDevAttrReservedSharedMemoryPerBlock: return int(p.reservedSharedMemPerBlock);
  case cudaDevAttrMaxTexture1DWidth: return p.maxTexture1D;
  case cudaDevAttrMaxTexture1DMipmappedWidth: return p.maxTexture1DMipmap;
  case cudaDevAttrMaxTexture1DLinearWidth: return 1 << 27;
  case cudaDevAttrMaxTexture2DWidth: return p.maxTexture2D[0];
  case cudaDevAttrMaxTexture2DHeight: return p.maxTexture2D[1];
  case cudaDevAttrMaxTexture2DMipmappedWidth: return p.maxTexture2DMipmap[0];
  case cudaDevAttrMaxTexture2DMipmappedHeight: return p.maxTexture2DMipmap[1];
  case cudaDevAttrMaxTexture2DLinearWidth: return p.maxTexture2DLinear[0];
  case cudaDevAttrMaxTexture2DLinearHeight: return p.maxTexture2DLinear[1];
  case cudaDevAttrMaxTexture2DLinearPitch: return p.maxTexture2DLinear[2];
  case cudaDevAttrMaxTexture2DGatherWidth: return p.maxTexture2DGather[0];
  case cudaDevAttrMaxTexture2DGatherHeight: return p.maxTexture2DGather[1];
  case cudaDevAttrMaxTexture3DWidth: return p.maxTexture3D[0];
  case cudaDevAttrMaxTexture3DHeight: return p.maxTexture3D[1];
  case cudaDevAttrMaxTexture3DDepth: return p.maxTexture3D[2];
  case cudaDevAttrMaxTexture3DWidthAlt: return p.maxTexture3DAlt[0];
  case cudaDevAttrMaxTexture3DHeightAlt: return p.maxTexture3DAlt[1];
  case cudaDevAttrMaxTexture3DDepthAlt: return p.maxTexture3DAlt[2];
  case cudaDevAttrMaxTextureCubemapWidth: return p.maxTextureCubemap;
  case cudaDevAttrMaxTexture1DLayeredWidth: return p.maxTexture1DLayered[0];
  case cudaDevAttrMaxTexture1DLayeredLayers: return p.maxTexture1DLayered[1];
  case cudaDevAttrMaxTexture2DLayeredWidth: return p.maxTexture2DLayered[0];
  case cudaDevAttrMaxTexture2DLayeredHeight: return p.maxTexture2DLayered[1];
  case cudaDevAttrMaxTexture2DLayeredLayers: return p.maxTexture2DLayered[2];
  case cudaDevAttrMaxTextureCubemapLayeredWidth: return p.maxTextureCubemapLayered[0];
  case cudaDevAttrMaxTextureCubemapLayeredLayers: return p.maxTextureCubemapLayered[1];
  case cudaDevAttrMaxSurface1DWidth: return p.maxSurface1D;
  case cudaDevAttrMaxSurface2DWidth: return p.maxSurface2D[0];
  case cudaDevAttrMaxSurface2DHeight: return p.maxSurface2D[1];
  case cudaDevAttrMaxSurface3DWidth: return p.maxSurface3D[0];
  case cudaDevAttrMaxSurface3DHeight: return p.maxSurface3D[1];
  case cudaDevAttrMaxSurface3DDepth: return p.maxSurface3D[2];
  case cudaDevAttrMaxSurface1DLayeredWidth: return p.maxSurface1DLayered[0];
  case cudaDevAttrMaxSurface1DLayeredLayers: return p.maxSurface1DLayered[1];
  case cudaDevAttrMaxSurface2DLayeredWidth: return p.maxSurface2DLayered[0];
  case cudaDevAttrMaxSurface2DLayeredHeight: return p.maxSurface2DLayered[1];
  case cudaDevAttrMaxSurface2DLayeredLayers: return p.maxSurface2DLayered[2];
  case cudaDevAttrMaxSurfaceCubemapWidth: return p.maxSurfaceCubemap;
  case cudaDevAttrMaxSurfaceCubemapLayeredWidth: return p.maxSurfaceCubemapLayered[0];
  case cudaDevAttrMaxSurfaceCubemapLayeredLayers: return p.maxSurfaceCubemapLayered[1];
  case cudaDevAttrSurfaceAlignment: return int(p.surfaceAlignment);
  case cudaDevAttrTexturePitchAlignment: return int(p.texturePitchAlignment);
  case cudaDevAttrPciBusId: return p.pciBusID;
  case cudaDevAttrPciDeviceId: return p.pciDeviceID;
  case cudaDevAttrPciDomainId: return p.pciDomainID;
  case cudaDevAttrTccDriver: return p.tccDriver;
  case cudaDevAttrMultiGpuBoardGroupID: return p.multiGpuBoardGroupID;
  case cudaDevAttrPageableMemoryAccessUsesHostPageTables: return p.pageableMemoryAccessUsesHostPageTables;
  case cudaDevAttrMaxAccessPolicyWindowSize: return p.accessPolicyMaxWindowSize;
  case cudaDevAttrMaxPersistingL2CacheSize: return p.persistingL2CacheMaxSize;
  case cudaDevAttrHostRegisterSupported: return p.hostRegisterSupported;
  case cudaDevAttrHostRegisterReadOnlySupported: return p.hostRegisterReadOnlySupported;
  case cudaDevAttrSparseCudaArraySupported: return p.sparseCudaArraySupported;
  case cudaDevAttrTimelineSemaphoreInteropSupported: return p.timelineSemaphoreInteropSupported;
  case cudaDevAttrMemoryPoolsSupported: return p.memoryPoolsSupported;
  case cudaDevAttrGPUDirectRDMASupported: return p.gpuDirectRDMASupported;
  case cudaDevAttrGPUDirectRDMAFlushWritesOptions: return int(p.gpuDirectRDMAFlushWritesOptions);
  case cudaDevAttrGPUDirectRDMAWritesOrdering: return p.gpuDirectRDMAWritesOrdering;
  case cudaDevAttrMemoryPoolSupportedHandleTypes: return int(p.memoryPoolSupportedHandleTypes);
  case cudaDevAttrDeferredMappingCudaArraySupported: return p.deferredMappingCudaArraySupported;
  case cudaDevAttrIpcEventSupport: return p.ipcEventSupported;
  case cudaDevAttrClusterLaunch: return p.clusterLaunch;
  case cudaDevAttrOnlyPartialHostNativeAtomicSupported: return 0;
  case cudaDevAttrMemSyncDomainCount: return p.major >= 9 ? 4 : 1; // Hopper has four domains
  // no IPC, NUMA, MPS, multi-node or graphics interop on the simulated device
  default: return 0;
  }
}

} // namespace ptxsim::runtime

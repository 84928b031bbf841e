#pragma once
// What the simulated device reports (cudaGetDeviceProperties, cudaDeviceGetAttribute, the device
// runtime's attribute queries): an H100-like device, or in timing mode the configured GPU.
//
// Contract: the answers depend only on the DeviceView (the engine's limits and memory, and in
// timing mode the GPU's configuration), which the Context builds (Context::deviceView); this
// file knows no context, so the context and the API entry points both depend on it, never the
// reverse.

#include "ptx/exec/Engine.h"
#include "timing/TimingConfig.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace ptxsim::runtime {

constexpr int kComputeMajor = 9, kComputeMinor = 0;
/// cudaDeviceProp::accessPolicyMaxWindowSize of a device with L2 persistence: 128 MiB - 4 KiB.
constexpr int kMaxAccessPolicyWindowBytes = (128 << 20) - 4096;

struct DeviceView {
  const ptx::exec::EngineConfig *engine = nullptr;
  uint64_t memoryBytes = 0;                     ///< the device arena's capacity
  const timing::TimingConfig *timing = nullptr; ///< timing mode: the simulated GPU
};

void fillProps(const DeviceView &v, cudaDeviceProp &p);
/// cudaDeviceGetAttribute's value of `attr` (a cudaDeviceAttr); 0 for one the device lacks.
int deviceAttribute(const DeviceView &v, int attr);
/// cudaLimitPersistingL2CacheSize before the program sets it.
size_t defaultPersistingL2(const DeviceView &v);

} // namespace ptxsim::runtime

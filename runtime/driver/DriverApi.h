#pragma once
// Helpers shared by the files that define the exported driver entry points.

#include "runtime/api/Api.h"
#include "runtime/driver/DriverTables.h"

#include <cuda.h>
#include <cstdint>
#include <cstdio>

/// Marks a definition as part of libcuda.so.1's exported ABI.
#define DRIVER_API extern "C" __attribute__((visibility("default")))

/// PTXSIM_DRIVER_TRACE=1 prints each driver call by name.
#define DRIVER_TRACE()                                                                            \
  do {                                                                                            \
    if (::ptxsim::driver::traceOn())                                                              \
      std::fprintf(stderr, "ptxsim-driver: %s\n", __func__);                                      \
  } while (0)

namespace ptxsim::driver {

/// What a call given a function or kernel handle that is not a kernel returns:
/// CUDA_ERROR_INVALID_HANDLE, which NVIDIA's runtime turns into cudaErrorInvalidResourceHandle,
/// as a static-runtime program launching a host function sees on an H100 (CUDA 13 passes an
/// unregistered pointer to the driver as a CUkernel; tools/hw/data/h100-2026-11-26).
constexpr CUresult kNotAFunction = CUDA_ERROR_INVALID_HANDLE;
/// Likewise for a 2D copy or set wider than its pitch (cudaErrorInvalidPitchValue).
constexpr CUresult kInvalidPitch = CUresult(12);

/// The driver's code for a runtime error.
CUresult toCu(cudaError_t e);

/// Runs a runtime call as the driver: its error becomes a CUresult and the runtime's per-thread
/// last error (cudaGetLastError) is left as it was, since driver calls never set it.
template <class F> CUresult viaRuntime(F &&f) {
  cudaError_t saved = ptxsim::runtime::lastError();
  cudaError_t e = f();
  ptxsim::runtime::lastError() = saved;
  return toCu(e);
}

/// CUDA_SUCCESS once cuInit has run or the runtime has started the device, else
/// CUDA_ERROR_NOT_INITIALIZED.
CUresult checkInit();

/// Loads a module image (fat binary wrapper, fat binary, PTX text) into the one Context; a lazy
/// load (cuLibraryLoadData) defers the PTX to the first lookup of a kernel or variable.
CUresult loadModuleImage(CUmodule *module, const void *image, bool lazy = false);

/// A 2D/3D copy where either side is a CUDA array (DriverTextures.cpp); `twoD` for the 2D calls,
/// which refuse 3D arrays.
CUresult copyWithArrays(const CUDA_MEMCPY3D &p, CUstream s, bool async, bool twoD);

/// The keyed hash NVIDIA's runtime checks the driver with (Integrity.cpp).
CUresult integrityCheck(const void *runtimeTable, const void *integrityTable, const void *function,
                        uint32_t version, uint64_t unixSeconds, uint64_t result[2]);

/// cuGetErrorName/cuGetErrorString's texts; null for a code CUDA does not define.
const char *errorName(CUresult e);
const char *errorString(CUresult e);

} // namespace ptxsim::driver

#pragma once
// ptxsim's driver API (libcuda.so.1): a thin layer over the runtime's Context. This header holds
// the tables and helpers every driver file shares (the tables: DriverStubs.cpp; traceOn and
// unsupportedCall: Driver.cpp).
//
// Contract: libcuda.so.1 and libcudart.so.13 are one shared object (build/lib/libcuda.so.1 is a
// link to libcudart.so.13; the dynamic loader maps a file once however it is named), so a process
// that uses both APIs, or NVIDIA's static runtime talking to "the driver", has one Context: one
// device memory, one set of modules, one set of streams and events. Driver handles are the
// runtime's objects: CUstream/CUevent are the runtime's streams/events, CUmodule and CUlibrary a
// FatbinModule, CUfunction and CUkernel a KernelEntry, CUdeviceptr a device-arena address.

#include <cstddef>

namespace ptxsim::driver {

/// One row of cuGetProcAddress's table (DriverStubs.cpp, generated from cudaTypedefs.h): `name`
/// is served from CUDA version `version` on by `fn`, or by `perThreadFn` when the caller asks
/// for the per-thread default stream (null when there is no such variant).
struct ProcEntry {
  const char *name;
  int version;
  void *fn;
  void *perThreadFn;
};
extern const ProcEntry kProcTable[];
extern const size_t kProcTableSize;

/// cuGetErrorName's table (DriverStubs.cpp, generated from cuda.h).
struct ErrorName {
  int code;
  const char *name;
};
extern const ErrorName kErrorNames[];
extern const size_t kErrorNamesSize;

/// A driver call ptxsim does not implement: prints one line naming it (the first time) and
/// returns CUDA_ERROR_NOT_SUPPORTED.
int unsupportedCall(const char *name);

/// PTXSIM_DRIVER_TRACE=1: every cuGetProcAddress request, export-table request and driver call
/// is printed on stderr (how docs/driver.md's tables were found).
bool traceOn();

} // namespace ptxsim::driver

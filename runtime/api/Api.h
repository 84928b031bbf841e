#pragma once
// Helpers shared by the files that define the exported CUDA entry points.

#include "runtime/api/Context.h"

#include <mutex>

/// Marks a definition as part of the library's exported CUDA ABI (everything else is hidden).
#define PTXSIM_API extern "C" __attribute__((visibility("default")))

namespace ptxsim::runtime {

/// Prints "ptxsim: <call> returned <error>" on stderr (PTXSIM_API_ERRORS=1).
void traceApiError(const char *call, cudaError_t e);
bool apiErrorTraceOn();

/// The checks CUDA makes on an access-policy window (stream, launch and kernel-node attributes):
/// a size within cudaDeviceProp::accessPolicyMaxWindowSize, a hit ratio in [0, 1], known
/// properties, and a miss property that is not persisting (CudaApi.cpp).
bool validAccessPolicyWindow(const cudaAccessPolicyWindow &w);

/// cudaErrorInvalidValue (or the copy's own error) unless every row of a pitched copy lies in
/// memory of its kind: checked as a whole before anything is written (CudaApi.cpp).
cudaError_t checkCopy2D(Context &ctx, void *dst, size_t dpitch, const void *src, size_t spitch,
                        size_t width, size_t height, cudaMemcpyKind kind);
/// cudaErrorInvalidValue unless every row of a pitched memset lies in one device allocation.
cudaError_t checkMemset2D(Context &ctx, void *p, size_t pitch, size_t width, size_t height);

/// Records a failed call as the thread's last error and returns it. With PTXSIM_API_ERRORS=1
/// the failure is also printed with the name of the API function returning it.
inline cudaError_t ret(cudaError_t e, const char *call = __builtin_FUNCTION()) {
  if (e != cudaSuccess) {
    lastError() = e;
    if (apiErrorTraceOn())
      traceApiError(call, e);
  }
  return e;
}

} // namespace ptxsim::runtime

/// Opens an API call that may touch device state directly: the context, locked for the rest of
/// the function, with the stream work queue drained (everything queued before has run).
#define PTXSIM_LOCK                                                                               \
  ::ptxsim::runtime::Context &ctx = ::ptxsim::runtime::Context::get();                            \
  std::unique_lock<std::mutex> lock_(ctx.mutex());                                                \
  ctx.drain(lock_)

/// Opens an API call that only queues work or reads host-side objects: the context, locked,
/// while queued work may still run on the device executor.
#define PTXSIM_LOCK_ASYNC                                                                         \
  ::ptxsim::runtime::Context &ctx = ::ptxsim::runtime::Context::get();                            \
  std::unique_lock<std::mutex> lock_(ctx.mutex())

/// Like PTXSIM_LOCK, and returns the sticky error of a faulted context.
#define PTXSIM_LOCK_CHECKED                                                                       \
  PTXSIM_LOCK;                                                                                    \
  if (ctx.sticky() != cudaSuccess)                                                                \
  return ::ptxsim::runtime::ret(ctx.sticky())

/// Like PTXSIM_LOCK_ASYNC, and returns the sticky error of a faulted context.
#define PTXSIM_LOCK_ASYNC_CHECKED                                                                 \
  PTXSIM_LOCK_ASYNC;                                                                              \
  if (ctx.sticky() != cudaSuccess)                                                                \
  return ::ptxsim::runtime::ret(ctx.sticky())

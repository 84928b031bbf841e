#pragma once
// CUDA graphs, stream capture and memory pools (Graphs.cpp).
//
// Stream capture hooks: the launch and async-copy entry points call these under the context
// mutex. Each returns std::nullopt when `s` is not capturing (the caller then runs the work as
// usual); otherwise the work was recorded into the capture graph (or refused) and the returned
// error is the call's result.

#include "runtime/api/Context.h"

#include <optional>

namespace ptxsim::runtime {

std::optional<cudaError_t> captureKernel(cudaStream_t s, KernelEntry *k, dim3 grid, dim3 block,
                                         void **args, size_t shmem, bool cooperative);
std::optional<cudaError_t> captureMemcpy(cudaStream_t s, void *dst, const void *src, size_t n,
                                         cudaMemcpyKind kind);
std::optional<cudaError_t> captureMemset(cudaStream_t s, void *p, int value, size_t n);
std::optional<cudaError_t> captureHostFunc(cudaStream_t s, cudaHostFn_t fn, void *userData);
std::optional<cudaError_t> captureMemcpy2D(cudaStream_t s, void *dst, size_t dpitch,
                                           const void *src, size_t spitch, size_t width,
                                           size_t height, cudaMemcpyKind kind);
std::optional<cudaError_t> captureMemset2D(cudaStream_t s, void *p, size_t pitch, int value,
                                           size_t width, size_t height);
/// cudaMemcpy{To,From}SymbolAsync: takes the context mutex itself (the callers do not hold it).
std::optional<cudaError_t> captureSymbolCopy(cudaStream_t s, const void *symbol, void *host,
                                             size_t count, size_t offset, cudaMemcpyKind kind,
                                             bool toSymbol);
/// cudaMallocAsync / cudaMallocFromPoolAsync (`props`: the pool's, or null) on a capturing
/// stream: a memory allocation node; *ptr gets its address, fixed for the graph's lifetime.
std::optional<cudaError_t> captureMalloc(cudaStream_t s, void **ptr, size_t size,
                                         const cudaMemPoolProps *props);
/// cudaFreeAsync on a capturing stream: a memory free node of a graph allocation.
std::optional<cudaError_t> captureFree(cudaStream_t s, void *ptr);
/// cudaFree / cudaFreeAsync outside capture. Contract: std::nullopt when `ptr` is not a graph
/// allocation (the caller frees it as usual); otherwise the allocation's lifetime ends (its
/// memory stays reserved for the graph's next launch) and the result is the call's.
std::optional<cudaError_t> graphMemRelease(void *ptr);
/// A synchronizing call on `s` (cudaStreamSynchronize, cudaStreamQuery): while `s` captures
/// this is cudaErrorStreamCaptureUnsupported and invalidates the capture, as in CUDA.
std::optional<cudaError_t> captureSyncCall(cudaStream_t s);
/// cudaEventRecord on a capturing stream marks a capture point instead of recording a time.
std::optional<cudaError_t> captureEventRecord(cudaEvent_t e, cudaStream_t s);
/// cudaStreamWaitEvent on an event recorded during capture: the stream joins that capture
/// (fork), or a capturing stream gains the event's capture point as a dependency (join).
std::optional<cudaError_t> captureStreamWaitEvent(cudaStream_t s, cudaEvent_t e);
/// cudaEventRecordWithFlags(cudaEventRecordExternal) / cudaStreamWaitEvent(cudaEventWaitExternal)
/// on a capturing stream: an event record (`record`) or event wait node.
std::optional<cudaError_t> captureEventNode(cudaStream_t s, cudaEvent_t e, bool record);
/// cudaStreamDestroy: a capturing stream leaves its capture; the capture is invalidated only
/// when it is the origin stream (a joined stream's captured work stays in the graph).
void captureStreamDestroyed(cudaStream_t s);
/// cudaEventDestroy: forgets the event's capture point.
void captureEventDestroyed(cudaEvent_t e);
/// Context::reset (cudaDeviceReset): every capture ends, its graph discarded; graph allocations
/// and conditional-handle slots are forgotten with the device memory they lived in.
void captureReset();

} // namespace ptxsim::runtime

#pragma once
// What the stream API asks of CUDA graphs: stream capture and graph memory (GraphCapture.cpp).
//
// Contract: the launch and async-copy entry points (CudaApi.cpp, Context::launch, the driver
// API) call these under the context mutex through Context::graphHooks(). Each capture hook
// returns std::nullopt when `s` is not capturing (the caller then runs the work as usual);
// otherwise the work was recorded into the capture graph (or refused) and the returned error is
// the call's result. Until the program makes its first graph, capture or memory pool, the
// context holds NoGraphHooks: nothing captures, nothing is a graph allocation. The graph code
// (graphs::GraphState) installs itself then, so the stream API depends on this interface only,
// never on the graph code, and the graph code calls the stream API like a program does.

#include <cuda_runtime_api.h>

#include <optional>

namespace ptxsim::runtime {

struct KernelEntry;

class GraphHooks {
public:
  virtual ~GraphHooks() = default;
  virtual std::optional<cudaError_t> captureKernel(cudaStream_t s, KernelEntry *k, dim3 grid,
                                                   dim3 block, void **args, size_t shmem,
                                                   bool cooperative) = 0;
  virtual std::optional<cudaError_t> captureMemcpy(cudaStream_t s, void *dst, const void *src,
                                                   size_t n, cudaMemcpyKind kind) = 0;
  virtual std::optional<cudaError_t> captureMemset(cudaStream_t s, void *p, int value,
                                                   size_t n) = 0;
  virtual std::optional<cudaError_t> captureHostFunc(cudaStream_t s, cudaHostFn_t fn,
                                                     void *userData) = 0;
  virtual std::optional<cudaError_t> captureMemcpy2D(cudaStream_t s, void *dst, size_t dpitch,
                                                     const void *src, size_t spitch, size_t width,
                                                     size_t height, cudaMemcpyKind kind) = 0;
  virtual std::optional<cudaError_t> captureMemset2D(cudaStream_t s, void *p, size_t pitch,
                                                     int value, size_t width, size_t height) = 0;
  /// cudaMemcpy{To,From}SymbolAsync: takes the context mutex itself (the callers do not hold it).
  virtual std::optional<cudaError_t> captureSymbolCopy(cudaStream_t s, const void *symbol,
                                                       void *host, size_t count, size_t offset,
                                                       cudaMemcpyKind kind, bool toSymbol) = 0;
  /// cudaMallocAsync / cudaMallocFromPoolAsync (`props`: the pool's, or null) on a capturing
  /// stream: a memory allocation node; *ptr gets its address, fixed for the graph's lifetime.
  virtual std::optional<cudaError_t> captureMalloc(cudaStream_t s, void **ptr, size_t size,
                                                   const cudaMemPoolProps *props) = 0;
  /// cudaFreeAsync on a capturing stream: a memory free node of a graph allocation.
  virtual std::optional<cudaError_t> captureFree(cudaStream_t s, void *ptr) = 0;
  /// cudaFree / cudaFreeAsync outside capture: std::nullopt when `ptr` is not a graph
  /// allocation (the caller frees it as usual); otherwise the allocation's lifetime ends (its
  /// memory stays reserved for the graph's next launch) and the result is the call's.
  virtual std::optional<cudaError_t> graphMemRelease(void *ptr) = 0;
  /// A synchronizing call on `s` (cudaStreamSynchronize, cudaStreamQuery): while `s` captures
  /// this is cudaErrorStreamCaptureUnsupported and invalidates the capture, as in CUDA.
  virtual std::optional<cudaError_t> captureSyncCall(cudaStream_t s) = 0;
  /// cudaEventRecord on a capturing stream marks a capture point instead of recording a time.
  virtual std::optional<cudaError_t> captureEventRecord(cudaEvent_t e, cudaStream_t s) = 0;
  /// cudaStreamWaitEvent on an event recorded during capture: the stream joins that capture
  /// (fork), or a capturing stream gains the event's capture point as a dependency (join).
  virtual std::optional<cudaError_t> captureStreamWaitEvent(cudaStream_t s, cudaEvent_t e) = 0;
  /// cudaEventRecordWithFlags(cudaEventRecordExternal) / cudaStreamWaitEvent(
  /// cudaEventWaitExternal) on a capturing stream: an event record (`record`) or wait node.
  virtual std::optional<cudaError_t> captureEventNode(cudaStream_t s, cudaEvent_t e,
                                                      bool record) = 0;
  /// cudaStreamDestroy: a capturing stream leaves its capture; the capture is invalidated only
  /// when it is the origin stream (a joined stream's captured work stays in the graph).
  virtual void captureStreamDestroyed(cudaStream_t s) = 0;
  /// cudaEventDestroy: forgets the event's capture point.
  virtual void captureEventDestroyed(cudaEvent_t e) = 0;
  /// Context::reset (cudaDeviceReset): every capture ends, its graph discarded; graph
  /// allocations and conditional-handle slots are forgotten with the device memory they lived in.
  virtual void reset() = 0;
};

/// The hooks before any graph exists: no stream captures and no memory is a graph allocation.
class NoGraphHooks final : public GraphHooks {
public:
  std::optional<cudaError_t> captureKernel(cudaStream_t, KernelEntry *, dim3, dim3, void **, size_t,
                                           bool) override {
    return std::nullopt;
  }
  std::optional<cudaError_t> captureMemcpy(cudaStream_t, void *, const void *, size_t,
                                           cudaMemcpyKind) override {
    return std::nullopt;
  }
  std::optional<cudaError_t> captureMemset(cudaStream_t, void *, int, size_t) override {
    return std::nullopt;
  }
  std::optional<cudaError_t> captureHostFunc(cudaStream_t, cudaHostFn_t, void *) override {
    return std::nullopt;
  }
  std::optional<cudaError_t> captureMemcpy2D(cudaStream_t, void *, size_t, const void *, size_t,
                                             size_t, size_t, cudaMemcpyKind) override {
    return std::nullopt;
  }
  std::optional<cudaError_t> captureMemset2D(cudaStream_t, void *, size_t, int, size_t,
                                             size_t) override {
    return std::nullopt;
  }
  std::optional<cudaError_t> captureSymbolCopy(cudaStream_t, const void *, void *, size_t, size_t,
                                               cudaMemcpyKind, bool) override {
    return std::nullopt;
  }
  std::optional<cudaError_t> captureMalloc(cudaStream_t, void **, size_t,
                                           const cudaMemPoolProps *) override {
    return std::nullopt;
  }
  std::optional<cudaError_t> captureFree(cudaStream_t, void *) override { return std::nullopt; }
  std::optional<cudaError_t> graphMemRelease(void *) override { return std::nullopt; }
  std::optional<cudaError_t> captureSyncCall(cudaStream_t) override { return std::nullopt; }
  std::optional<cudaError_t> captureEventRecord(cudaEvent_t, cudaStream_t) override {
    return std::nullopt;
  }
  std::optional<cudaError_t> captureStreamWaitEvent(cudaStream_t, cudaEvent_t) override {
    return std::nullopt;
  }
  std::optional<cudaError_t> captureEventNode(cudaStream_t, cudaEvent_t, bool) override {
    return std::nullopt;
  }
  void captureStreamDestroyed(cudaStream_t) override {}
  void captureEventDestroyed(cudaEvent_t) override {}
  void reset() override {}
};

} // namespace ptxsim::runtime

#pragma once
// The process-wide device context behind ptxsim's libcudart.so.13.
//
// Contract: there is one simulated device and one context, created lazily by the first CUDA call
// that needs it and never destroyed (the application's atexit handlers may still call into the
// runtime after main returns). Every entry point takes the context mutex, so the runtime may be
// called from several host threads. Stream work (launches, async copies and memsets, event
// records, host functions) is queued and run by one device executor thread in submission order
// while the host runs on (docs/architecture.md, "Streams"); calls that touch device state
// directly drain the queue first (PTXSIM_LOCK), the asynchronous ones do not
// (PTXSIM_LOCK_ASYNC). Fat binaries are registered by the application's static
// constructors before main; their PTX is loaded into the engine lazily, at the first launch,
// symbol access or __cudaInitModule, so a program that never touches the device pays nothing.
//
// Errors follow CUDA: a call returns its own error and records it as the thread's last error
// (cudaGetLastError returns and clears it); a kernel fault becomes a sticky error that every
// later context call returns (and so records as the last error) until cudaDeviceReset.

#include "ptx/exec/Engine.h"
#include "runtime/api/DeviceProps.h"
#include "runtime/api/GraphHooks.h"
#include "runtime/api/Modules.h"
#include "runtime/api/RunRecorder.h"
#include "runtime/api/Streams.h"
#include "sim/KernelSimulator.h"

#include <map>
#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ptxsim::runtime {

struct LaunchConfig {
  dim3 grid, block;
  size_t sharedMem = 0;
  cudaStream_t stream = nullptr;
};

class Context {
public:
  static Context &get();

  std::mutex &mutex() { return mu_; }

  // --- registration (called under the mutex; the module registry, Modules.h) ---
  FatbinModule *registerFatbin(const void *wrapper) { return modules_.registerFatbin(wrapper); }
  void registerFunction(FatbinModule *fb, const void *hostStub, const char *deviceName) {
    modules_.registerFunction(fb, hostStub, deviceName);
  }
  void registerVar(FatbinModule *fb, const void *hostVar, const char *deviceName, size_t size,
                   bool isConst, void **managedHostPtr) {
    modules_.registerVar(fb, hostVar, deviceName, size, isConst, managedHostPtr);
  }

  /// Creates the engine when needed and loads every registered module not yet loaded.
  /// Returns cudaSuccess or the error of the failed module (also printed once).
  cudaError_t ensureLoaded() { return modules_.ensureLoaded(); }
  ptx::exec::Engine &engine();
  /// True once the engine exists (some call needed the device).
  bool started() const { return engine_ != nullptr; }

  /// Host stub or cudaKernel_t -> entry; null when unknown.
  KernelEntry *findKernel(const void *func) { return modules_.findKernel(func); }
  /// What a call naming `func`, which findKernel does not know, returns. CUDA 13's runtime takes
  /// a pointer it has no kernel registered for as a cudaKernel_t handle, which the driver
  /// refuses: a host function (say `main`) gives cudaErrorInvalidResourceHandle on an H100
  /// (tools/hw/data/h100-2026-11-26); a null pointer is no handle at all and stays
  /// cudaErrorInvalidDeviceFunction.
  static cudaError_t unknownFunction(const void *func) {
    return func ? cudaErrorInvalidResourceHandle : cudaErrorInvalidDeviceFunction;
  }
  /// Host shadow variable -> entry (loaded); null when unknown.
  VarEntry *findVar(const void *hostVar) { return modules_.findVar(hostVar); }

  // --- driver API modules (runtime/driver), called under the mutex ---
  /// Loads a module image now, as cuModuleLoadData does: a fat binary wrapper, a fat binary, or
  /// PTX text (NUL-terminated). With `lazy` (cuLibraryLoadData, CUDA's lazy loading) a fat binary
  /// is only checked for PTX here and loaded at its first lookup (ensureModule). Returns the module, or null with `err` set (and the reason
  /// printed: a cubin without PTX, a PTX error with its file:line:column).
  FatbinModule *loadImage(const void *image, cudaError_t &err, bool lazy = false) {
    return modules_.loadImage(image, err, lazy);
  }
  /// Loads a module registered lazily (with every other registered module not loaded yet, as
  /// the runtime does at its first launch, so device memory is laid out the same whichever
  /// library loaded it). Returns cudaSuccess or why the module has no code.
  cudaError_t ensureModule(FatbinModule *fb) { return modules_.ensureModule(fb); }
  /// The kernel `name` of a driver module (created at the first lookup); null when it has none.
  KernelEntry *moduleFunction(FatbinModule *fb, const char *name) {
    return modules_.moduleFunction(fb, name);
  }
  /// The `.global`/`.const` variable `name` of a module (the override's copy if it has one).
  const ptx::exec::GlobalSymbol *moduleGlobal(FatbinModule *fb, const char *name) {
    return modules_.moduleGlobal(fb, name);
  }
  /// True for a live (not unloaded) module this context loaded or registered.
  bool validModule(const FatbinModule *fb) const { return modules_.validModule(fb); }

  /// Validates and runs a launch. `args` points to one pointer per kernel parameter.
  cudaError_t launch(KernelEntry *k, dim3 grid, dim3 block, void **args, size_t shmem,
                     cudaStream_t stream, bool cooperative);

  // --- stream work (the work queue, Streams.h) ---
  Work *newWork() { return queue_.newWork(); }
  uint64_t submit(Work *w, cudaStream_t s) { return queue_.submit(w, s); }
  uint64_t streamTail(cudaStream_t s) const { return queue_.streamTail(s); }
  bool done(uint64_t seq) const { return queue_.done(seq); }
  void waitFor(uint64_t seq) { queue_.waitFor(seq); }
  void drain(std::unique_lock<std::mutex> &lock) { queue_.drain(lock); }
  void drainAtExit() { queue_.drainAtExit(); }
  static bool onExecutor() { return WorkQueue::onExecutor(); }
  /// The error a synchronising call returns: sticky, or an asynchronous launch error once.
  cudaError_t syncError();

  // --- stream capture and graph memory (GraphHooks.h) ---
  /// NoGraphHooks until the program's first graph, capture or pool call installs the graph
  /// state (graphs::gs()); read without the mutex by the calls that take it later.
  GraphHooks &graphHooks() const { return *graphHooks_.load(std::memory_order_acquire); }
  /// The installed graph state, or null (call under the mutex).
  GraphHooks *installedGraphHooks() const { return graphState_.get(); }
  /// Installs the graph state for the rest of the process (call under the mutex, once).
  void installGraphHooks(std::unique_ptr<GraphHooks> h) {
    graphState_ = std::move(h);
    graphHooks_.store(graphState_.get(), std::memory_order_release);
  }

  // --- errors ---
  cudaError_t sticky() const { return sticky_.load(std::memory_order_acquire); }
  void setSticky(cudaError_t e) { sticky_.store(e, std::memory_order_release); }
  /// Destroys the engine and every allocation, stream and event; registrations stay.
  void reset();

  // --- objects ---
  bool validStream(cudaStream_t s) const;
  std::unordered_set<StreamObj *> streams;
  std::unordered_set<EventObj *> events;

  /// cudaLimitPrintfFifoSize: 8650752 bytes at first (132 x 64 KiB) on an H100 and an H200
  size_t printfFifoBytes = kDefaultPrintfFifo;
  static constexpr size_t kDefaultPrintfFifo = 8650752;
  /// cudaLimitPersistingL2CacheSize (a cache hint); kDefaultPersistingL2 until the program sets
  /// it, when the device's default set-aside is reported (CudaApi.cpp).
  size_t persistingL2Bytes = kDefaultPersistingL2;
  static constexpr size_t kDefaultPersistingL2 = ~size_t(0);
  StreamAttrs defaultStreamAttrs; ///< the legacy and per-thread default streams' attributes
  unsigned deviceFlags = 0; ///< cudaSetDeviceFlags (cudaGetDeviceFlags adds cudaDeviceMapHost)

  /// Prints the end-of-run summary to stderr and writes the JSON stats file when asked
  /// (RunRecorder.h); then an override that replaced nothing ends the run with an error.
  void reportAtExit();

  // --- timing mode (PTXSIM_MODE=timing, PTXSIM_CONFIG=file[,file...]) ---
  bool timingMode() const { return timingMode_; }
  /// Timing + power for one kernel (sim/KernelSimulator.h), created at first use from
  /// PTXSIM_CONFIG (a configuration error ends the program with the diagnostics: it is the
  /// user's input, not the program's). The runtime reaches the GPU and power models only
  /// through it.
  sim::KernelSimulator &simulator();
  /// The simulated GPU's configuration (timing mode; creates the simulator like simulator()).
  const timing::TimingConfig &timingConfig() { return simulator().config(); }
  /// Simulated time so far: kernels plus host-device copies (timing mode).
  double simSeconds() const { return simSeconds_; }
  /// Accounts a host<->device copy of `bytes` (timing mode: PCIe-style time).
  /// `deviceDst`: the destination of a host-to-device copy (the timing model may cache it).
  void noteCopy(uint64_t bytes, const void *deviceDst = nullptr);
  /// A memset wrote `bytes` at `p` in device memory (it goes through the L2 like a copy).
  void noteDeviceFill(const void *p, uint64_t bytes);
  /// What the device reports depends on (DeviceProps.h); creates the engine (and in timing
  /// mode the simulator) like engine().
  DeviceView deviceView();
  /// Occupancy: CTAs of `k` with `blockSize` threads that fit on one SM at once.
  int maxBlocksPerSm(const KernelEntry &k, int blockSize, size_t dynShared);

  /// Queued items above which a host thread's submit waits (CUDA's launch queue also fills).
  static constexpr uint64_t kMaxQueued = WorkQueue::kMaxQueued;

private:
  Context() = default;
  /// Runs one work item (on the executor, or at the call when the queue runs synchronously).
  void execute(Work &w);
  void executeLaunch(Work &w);
  /// Device printf output, written out by the host at synchronising calls as on a GPU.
  void appendPrintf(const std::string &s);
  /// drain() for a caller that holds the mutex without a unique_lock of its own.
  void drainHeld() { queue_.drainHeld(); }
  void flushPrintf();
  /// Runs one grid (the host's, or one launched from the device) and records it.
  ptx::exec::LaunchResult runGrid(const ptx::exec::LaunchParams &q);
  /// The launch's outcome: a fault becomes sticky, a refused configuration is returned once.
  void noteLaunchResult(const ptx::exec::LaunchResult &r);
  // loadTimingConfigOnce's steps
  static std::vector<std::string> configFiles();
  void loadPowerConfig(const std::vector<std::string> &files);
  /// engine()'s steps: the configuration from the timing configuration and the environment,
  /// and the hooks that connect the engine to the runtime.
  ptx::exec::EngineConfig engineConfig();
  void connectEngine();

  std::mutex mu_;
  std::unique_ptr<ptx::exec::Engine> engine_;
  ModuleRegistry modules_{[this]() -> ptx::exec::Engine & { return engine(); },
                          [this] { drainHeld(); }};
  RunRecorder recorder_;
  std::atomic<cudaError_t> sticky_{cudaSuccess};
  NoGraphHooks noGraphs_;
  std::unique_ptr<GraphHooks> graphState_;
  std::atomic<GraphHooks *> graphHooks_{&noGraphs_};
  /// A launch the engine refused at run time (not sticky): returned once by the next
  /// synchronising call.
  std::atomic<cudaError_t> asyncError_{cudaSuccess};

  WorkQueue queue_{mu_, [this](Work &w) { execute(w); }, [this] { flushPrintf(); }};
  std::mutex printfMu_;
  std::string printfBuf_;
  bool timingMode_ = false;
  std::unique_ptr<sim::KernelSimulator> sim_;
  timing::TimingConfig timingCfg_;
  bool timingCfgLoaded_ = false;
  double simSeconds_ = 0;
  sim::PowerSetup power_; ///< PTXSIM_POWER=1 (timing mode): loaded when the configuration is read
  void loadTimingConfigOnce();
};

/// The context's stream-capture and graph-memory hooks (Context::graphHooks).
inline GraphHooks &graphHooks() { return Context::get().graphHooks(); }

/// The calling thread's last error (cudaGetLastError/cudaPeekAtLastError).
cudaError_t &lastError();

} // namespace ptxsim::runtime

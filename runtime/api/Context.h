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
#include "runtime/api/GraphHooks.h"
#include "power/PowerModel.h"
#include "sim/KernelSimulator.h"
#include "timing/gpu/Gpu.h"

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

struct KernelEntry;

/// One registered fat binary: the PTX we chose from it and, once loaded, its engine module id.
struct FatbinModule {
  std::string ptx;       ///< newest PTX entry; empty when the binary has none
  uint32_t ptxArch = 0;  ///< its virtual architecture (80 for compute_80)
  std::string name;      ///< file name used in diagnostics, e.g. "app.sm_75.ptx"
  std::string loadError; ///< why it has no PTX or failed to load
  /// Translation units: (diagnostic name, PTX). One, or several for `-rdc=true` programs.
  std::vector<std::pair<std::string, std::string>> units;
  int module = -1;       ///< engine module id of the first unit once loaded
  std::vector<int> modules; ///< engine module ids of every unit
  /// ptxas's registers per thread of each kernel, from the binary's newest SASS (if any).
  std::map<std::string, uint32_t> sassRegs;
  bool loadTried = false;
  bool unregistered = false;
  /// Loaded through the driver API (cuModuleLoadData, cuLibraryLoadData, NVIDIA's static
  /// runtime): its kernels are looked up by name, one KernelEntry per name.
  bool driver = false;
  std::map<std::string, KernelEntry *> functions;
};

/// A host stub registered with __cudaRegisterFunction; also the cudaKernel_t handed out.
struct KernelEntry {
  FatbinModule *fatbin = nullptr;
  std::string deviceName;
  const ptx::exec::Kernel *kernel = nullptr; ///< resolved when the module loads
  int maxDynamicShared = -1;                  ///< cudaFuncAttributeMaxDynamicSharedMemorySize
  int carveout = -1; ///< cudaFuncAttributePreferredSharedMemoryCarveout (-1: no preference)
  bool overrideError = false; ///< PTXSIM_PTX_OVERRIDE has this kernel with other parameters
};

/// A `__device__`, `__constant__` or `__managed__` variable registered by the host.
struct VarEntry {
  FatbinModule *fatbin = nullptr;
  std::string deviceName;
  size_t size = 0;
  bool isConst = false;
  void **managedHostPtr = nullptr; ///< for managed variables: where the host reads the address
  const ptx::exec::GlobalSymbol *symbol = nullptr;
};

/// What cudaStreamSetAttribute stored (cudaStreamGetAttribute reads it back). Functionally
/// these change nothing: an access-policy window is a cache hint, the synchronisation policy
/// how a host thread waits, the memory-sync domain a fence-scope hint.
struct StreamAttrs {
  cudaAccessPolicyWindow accessPolicyWindow{};
  cudaSynchronizationPolicy syncPolicy = cudaSyncPolicyAuto;
  cudaLaunchMemSyncDomainMap memSyncDomainMap{0, 1};
  cudaLaunchMemSyncDomain memSyncDomain = cudaLaunchMemSyncDomainDefault;
};

struct StreamObj {
  unsigned flags = 0;
  int priority = 0;
  unsigned long long id = 0; ///< cudaStreamGetId: unique over the process's lifetime
  StreamAttrs attrs;
  uint64_t tail = 0; ///< sequence number of the stream's last queued work (0: none)
};

struct EventObj {
  unsigned flags = 0;
  bool recorded = false;
  uint64_t recordSeq = 0; ///< the queued record that completes the event (0: none)
  std::chrono::steady_clock::time_point when; ///< written by the executor at the record
  double simSeconds = 0; ///< simulated time at the record (timing mode)
};

/// One piece of queued stream work (Streams.cpp). Recycled, never freed: its memory stays
/// ptxsim's, so it never becomes the application's next malloc with our data in it.
struct Work {
  enum class Kind : uint8_t { Launch, Copy, Memset, EventRecord, HostFn, Callback };
  Kind kind = Kind::Launch;
  uint64_t seq = 0;
  Work *next = nullptr;
  // Launch
  ptx::exec::LaunchParams lp;
  std::vector<uint8_t> params;
  // Copy, Memset
  void *dst = nullptr;
  const void *src = nullptr;
  size_t count = 0;
  cudaMemcpyKind copyKind = cudaMemcpyDefault;
  int value = 0;
  // EventRecord
  EventObj *event = nullptr;
  // HostFn, Callback
  cudaHostFn_t hostFn = nullptr;
  cudaStreamCallback_t callback = nullptr;
  void *userData = nullptr;
  cudaStream_t stream = nullptr;
};

struct LaunchConfig {
  dim3 grid, block;
  size_t sharedMem = 0;
  cudaStream_t stream = nullptr;
};

class Context;
/// cudaDeviceGetAttribute's value (CudaApi.cpp); the device runtime asks it too.
int deviceAttribute(Context &ctx, int attr);

class Context {
public:
  static Context &get();

  std::mutex &mutex() { return mu_; }

  // --- registration (called under the mutex) ---
  FatbinModule *registerFatbin(const void *wrapper);
  void registerFunction(FatbinModule *fb, const void *hostStub, const char *deviceName);
  void registerVar(FatbinModule *fb, const void *hostVar, const char *deviceName, size_t size,
                   bool isConst, void **managedHostPtr);

  /// Creates the engine when needed and loads every registered module not yet loaded.
  /// Returns cudaSuccess or the error of the failed module (also printed once).
  cudaError_t ensureLoaded();
  ptx::exec::Engine &engine();
  /// True once the engine exists (some call needed the device).
  bool started() const { return engine_ != nullptr; }

  /// Host stub or cudaKernel_t -> entry; null when unknown.
  KernelEntry *findKernel(const void *func);
  /// What a call naming `func`, which findKernel does not know, returns. CUDA 13's runtime takes
  /// a pointer it has no kernel registered for as a cudaKernel_t handle, which the driver
  /// refuses: a host function (say `main`) gives cudaErrorInvalidResourceHandle on an H100
  /// (tools/hw/data/h100-2026-11-26); a null pointer is no handle at all and stays
  /// cudaErrorInvalidDeviceFunction.
  static cudaError_t unknownFunction(const void *func) {
    return func ? cudaErrorInvalidResourceHandle : cudaErrorInvalidDeviceFunction;
  }
  /// Host shadow variable -> entry (loaded); null when unknown.
  VarEntry *findVar(const void *hostVar);

  // --- driver API modules (runtime/driver), called under the mutex ---
  /// Loads a module image now, as cuModuleLoadData does: a fat binary wrapper, a fat binary, or
  /// PTX text (NUL-terminated). With `lazy` (cuLibraryLoadData, CUDA's lazy loading) a fat binary
  /// is only checked for PTX here and loaded at its first lookup (ensureModule). Returns the module, or null with `err` set (and the reason
  /// printed: a cubin without PTX, a PTX error with its file:line:column).
  FatbinModule *loadImage(const void *image, cudaError_t &err, bool lazy = false);
  /// Loads a module registered lazily (with every other registered module not loaded yet, as
  /// the runtime does at its first launch, so device memory is laid out the same whichever
  /// library loaded it). Returns cudaSuccess or why the module has no code.
  cudaError_t ensureModule(FatbinModule *fb);
  /// The kernel `name` of a driver module (created at the first lookup); null when it has none.
  KernelEntry *moduleFunction(FatbinModule *fb, const char *name);
  /// The `.global`/`.const` variable `name` of a module (the override's copy if it has one).
  const ptx::exec::GlobalSymbol *moduleGlobal(FatbinModule *fb, const char *name);
  /// True for a live (not unloaded) module this context loaded or registered.
  bool validModule(const FatbinModule *fb) const;

  /// Validates and runs a launch. `args` points to one pointer per kernel parameter.
  cudaError_t launch(KernelEntry *k, dim3 grid, dim3 block, void **args, size_t shmem,
                     cudaStream_t stream, bool cooperative);

  // --- stream work (Streams.cpp) ---
  /// A recycled work item for submit (call under the mutex).
  Work *newWork();
  /// Queues `w` on stream `s` (a valid, non-capturing stream) and returns its sequence number;
  /// with the queue full (kMaxQueued items), waits for room first. Call under the mutex.
  uint64_t submit(Work *w, cudaStream_t s);
  /// The sequence number of the last work queued on `s` (0: none). Call under the mutex.
  uint64_t streamTail(cudaStream_t s) const;
  /// True once work `seq` (and everything queued before it) has run.
  bool done(uint64_t seq) const { return completed_.load(std::memory_order_acquire) >= seq; }
  /// Waits until work `seq` has run, without the mutex (the executor may need it for a host
  /// function that calls the runtime); then writes the device's buffered printf output.
  /// Returns at once on the executor thread (a host function cannot wait for itself).
  void waitFor(uint64_t seq);
  /// With `lock` (the mutex) held: waits until the queue is empty and the executor idle,
  /// releasing the mutex while it waits. On return nothing runs on the device and nothing can
  /// be queued until the caller unlocks: the caller may touch device state directly.
  void drain(std::unique_lock<std::mutex> &lock);
  /// Waits for every queued work (the program's exit: no mutex held).
  void drainAtExit();
  /// True on the device executor thread (and in host functions it runs).
  static bool onExecutor();
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

  /// Per-kernel totals for the end-of-run summary and PTXSIM_STATS_JSON.
  struct KernelStats {
    uint64_t launches = 0, ctas = 0, threadInsts = 0, warpInsts = 0;
    double seconds = 0;
    uint64_t cycles = 0; ///< timing mode
    double simSeconds = 0;
    std::string lastConfig; ///< "(gx,gy,gz)x(bx,by,bz)" of the last launch
    std::vector<uint64_t> counters; ///< extension counters (ptx/exec/Counters.h), by id
  };
  /// Prints the end-of-run summary to stderr and writes the JSON stats file when asked.
  void reportAtExit();

  // --- timing mode (PTXSIM_MODE=timing, PTXSIM_CONFIG=file[,file...]) ---
  bool timingMode() const { return timingMode_; }
  /// The cycle-level GPU, created at first use from PTXSIM_CONFIG (a configuration error ends
  /// the program with the diagnostics: it is the user's input, not the program's).
  timing::Gpu &timingGpu();
  /// Timing + power for one kernel (sim/KernelSimulator.h), created with timingGpu().
  sim::KernelSimulator &simulator();
  /// Simulated time so far: kernels plus host-device copies (timing mode).
  double simSeconds() const { return simSeconds_; }
  /// Accounts a host<->device copy of `bytes` (timing mode: PCIe-style time).
  /// `deviceDst`: the destination of a host-to-device copy (the timing model may cache it).
  void noteCopy(uint64_t bytes, const void *deviceDst = nullptr);
  /// A memset wrote `bytes` at `p` in device memory (it goes through the L2 like a copy).
  void noteDeviceFill(const void *p, uint64_t bytes);
  /// Occupancy: CTAs of `k` with `blockSize` threads that fit on one SM at once.
  int maxBlocksPerSm(const KernelEntry &k, int blockSize, size_t dynShared);

  /// Queued items above which a host thread's submit waits (CUDA's launch queue also fills).
  static constexpr uint64_t kMaxQueued = 1024;

private:
  Context() = default;
  /// Runs one work item (on the executor, or at the call when the queue runs synchronously).
  void execute(Work &w);
  void executeLaunch(Work &w);
  void executorLoop();
  /// Device printf output, written out by the host at synchronising calls as on a GPU.
  void appendPrintf(const std::string &s);
  /// drain() for a caller that holds the mutex without a unique_lock of its own.
  void drainHeld();
  void flushPrintf();
  void loadModule(FatbinModule &fb);
  void bindSymbols(FatbinModule &fb);
  void bindKernel(KernelEntry &k);
  FatbinModule *loadImageHere(const void *image, cudaError_t &err, bool lazy);
  /// Loads the PTXSIM_PTX_OVERRIDE file(s) into the engine once; returns their module ids.
  const std::vector<int> &overrideModules();

  std::mutex mu_;
  std::unique_ptr<ptx::exec::Engine> engine_;
  std::vector<std::unique_ptr<FatbinModule>> fatbins_;
  std::unordered_map<const void *, std::unique_ptr<KernelEntry>> kernels_; ///< by host stub
  std::unordered_set<const KernelEntry *> kernelHandles_;
  std::unordered_map<const void *, VarEntry> vars_; ///< by host variable address
  std::atomic<cudaError_t> sticky_{cudaSuccess};
  NoGraphHooks noGraphs_;
  std::unique_ptr<GraphHooks> graphState_;
  std::atomic<GraphHooks *> graphHooks_{&noGraphs_};
  /// A launch the engine refused at run time (not sticky): returned once by the next
  /// synchronising call.
  std::atomic<cudaError_t> asyncError_{cudaSuccess};

  // the work queue: qmu_ guards head_/tailItem_/free_/the thread; completed_ is the last run
  std::mutex qmu_;
  std::condition_variable workCv_, doneCv_, roomCv_;
  Work *head_ = nullptr, *tailItem_ = nullptr, *free_ = nullptr;
  uint64_t submitted_ = 0;
  uint64_t wakeAt_ = UINT64_MAX; ///< the lowest sequence number a waiter waits for
  std::atomic<uint64_t> completed_{0};
  bool executorStarted_ = false;
  int synchronous_ = -1; ///< PTXSIM_ASYNC=0 or a forked child: work runs at the call
  uint64_t legacyTail_ = 0;
  std::mutex printfMu_;
  std::string printfBuf_;
  std::vector<int> overrideIds_;
  bool overridesLoaded_ = false;
  /// Override modules (PTXSIM_PTX_OVERRIDE) one of whose kernels named a kernel of the program.
  std::unordered_set<int> overridesUsed_;
  std::vector<std::pair<std::string, KernelStats>> stats_; ///< in order of first launch
  std::unordered_map<std::string, size_t> statsIndex_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  bool timingMode_ = false;
  std::unique_ptr<sim::KernelSimulator> sim_;
  timing::TimingConfig timingCfg_;
  bool timingCfgLoaded_ = false;
  double simSeconds_ = 0, copySeconds_ = 0;
  uint64_t copies_ = 0, copyBytes_ = 0;
  std::vector<timing::KernelTimingStats> launchStats_; ///< per launch, timing mode
  /// Grid, block and simulated start time of each launchStats_ entry (for reports' timelines).
  struct LaunchShape {
    uint32_t grid[3], block[3];
    double startSeconds;
  };
  std::vector<LaunchShape> launchShapes_;
  bool powerOn_ = false;               ///< PTXSIM_POWER=1 (timing mode)
  power::PowerModel powerModel_;
  std::vector<power::KernelPower> powerStats_; ///< per launch
  void loadTimingConfigOnce();
};

/// The context's stream-capture and graph-memory hooks (Context::graphHooks).
inline GraphHooks &graphHooks() { return Context::get().graphHooks(); }

/// The calling thread's last error (cudaGetLastError/cudaPeekAtLastError).
cudaError_t &lastError();

} // namespace ptxsim::runtime

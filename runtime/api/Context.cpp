#include "runtime/api/Context.h"

#include "base/Config.h"
#include "isa_ext/Extensions.h"
#include "ptx/exec/Watchdog.h"
#include "ptx/exec/WorkerPool.h"
#include "runtime/api/UserError.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <unistd.h>

namespace ptxsim::runtime {

namespace {

cudaError_t launchError(const ptx::exec::LaunchResult &r) {
  using ptx::exec::LaunchStatus;
  switch (r.status) {
  case LaunchStatus::Ok:
    return cudaSuccess;
  case LaunchStatus::InvalidConfig:
    // CUDA 13's host runtime reports every invalid launch configuration (block too large, a
    // dimension over its limit or zero, too much dynamic shared memory) as cudaErrorInvalidValue
    // (measured on an H100, ../shared/hw/h100/README.md); the device runtime keeps its own codes
    return cudaErrorInvalidValue;
  case LaunchStatus::OutOfResources:
    return cudaErrorLaunchOutOfResources;
  case LaunchStatus::Misaligned:
    return cudaErrorMisalignedAddress;
  case LaunchStatus::IllegalAddress:
    return cudaErrorIllegalAddress;
  case LaunchStatus::Assert:
    return cudaErrorAssert;
  case LaunchStatus::Timeout:
    // a GPU's watchdog: sticky, like a fault (the context is unusable until cudaDeviceReset)
    return cudaErrorLaunchTimeout;
  case LaunchStatus::Trap:
  case LaunchStatus::Fault:
  case LaunchStatus::Unsupported:
    return cudaErrorLaunchFailure;
  }
  return cudaErrorLaunchFailure;
}

bool isStickyLaunchError(cudaError_t e) {
  return e != cudaSuccess && e != cudaErrorInvalidConfiguration &&
         e != cudaErrorLaunchOutOfResources && e != cudaErrorInvalidValue;
}

} // namespace

bool apiErrorTraceOn() {
  static const bool on = [] {
    const char *v = std::getenv("PTXSIM_API_ERRORS");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  return on;
}

void traceApiError(const char *call, cudaError_t e) {
  std::fprintf(stderr, "ptxsim: %s returned %s\n", call, cudaGetErrorName(e));
}

cudaError_t &lastError() {
  static thread_local cudaError_t err = cudaSuccess;
  return err;
}

Context &Context::get() {
  // Never destroyed: atexit handlers of the application (e.g. __cudaUnregisterFatBinary) may run
  // after our own static destructors would have.
  static Context *ctx = [] {
    Context *c = nullptr;
    // on the service thread, so that set-up's temporary memory stays out of the application's
    // malloc arena (WorkerPool::run says why)
    ptx::exec::WorkerPool::instance().runOffCaller([&] {
      // extensions register their opcodes, options, units and counters before anything is read
      ext::registerExtensions();
      c = new Context();
    });
    return c;
  }();
  return *ctx;
}
namespace {

/// True when the environment variable `name` is set to something other than "0".
bool envFlag(const char *name) {
  const char *v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

} // namespace

std::vector<std::string> Context::configFiles() {
  std::vector<std::string> files;
  if (const char *c = std::getenv("PTXSIM_CONFIG"); c && *c) {
    std::string all = c;
    size_t pos = 0;
    while (pos <= all.size()) {
      size_t comma = all.find(',', pos);
      std::string f = all.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      if (!f.empty())
        files.push_back(f);
      if (comma == std::string::npos)
        break;
      pos = comma + 1;
    }
  }
  return files;
}

void Context::loadTimingConfigOnce() {
  if (timingCfgLoaded_)
    return;
  timingCfgLoaded_ = true;
  const char *mode = std::getenv("PTXSIM_MODE");
  const char *cfgEnv = std::getenv("PTXSIM_CONFIG");
  bool functional = !mode || !*mode || std::strcmp(mode, "functional") == 0;
  // Functional mode reads a configuration only when one is named (its extension options, such
  // as the size of an extension's processor grid, shape the functional run too); it never builds
  // the cycle model.
  if (functional && !(cfgEnv && *cfgEnv)) {
    if (envFlag("PTXSIM_PRINT_CONFIG"))
      std::fprintf(stderr, "# ptxsim: functional mode, no GPU configuration (give one with "
                           "--config to print it)\n");
    return;
  }
  if (!functional && std::strcmp(mode, "timing") != 0) {
    std::fprintf(stderr, "ptxsim: PTXSIM_MODE must be 'functional' or 'timing', not '%s'\n", mode);
    stopForUserError();
  }
  timingMode_ = !functional;
  std::vector<std::string> files = configFiles();
  DiagEngine diags;
  bool lenient = std::getenv("PTXSIM_CONFIG_LENIENT") && std::strcmp(std::getenv("PTXSIM_CONFIG_LENIENT"), "0");
  bool ok = timing::loadTimingConfig(files, lenient, timingCfg_, diags) &&
            timing::validateTimingConfig(timingCfg_, diags);
  if (!diags.diagnostics().empty()) {
    std::ostringstream os;
    diags.print(os);
    std::fprintf(stderr, "%s", os.str().c_str());
  }
  if (!ok) {
    std::fprintf(stderr, "ptxsim: cannot use the timing configuration; stopping\n");
    stopForUserError();
  }
  if (envFlag("PTXSIM_PRINT_CONFIG"))
    std::fprintf(stderr, "%s", timing::timingConfigText(timingCfg_).c_str());
  if (timingMode_ && envFlag("PTXSIM_POWER"))
    loadPowerConfig(files);
}

void Context::loadPowerConfig(const std::vector<std::string> &files) {
  // Power: PTXSIM_POWER=1, with the XML from PTXSIM_POWER_CONFIG or beside the last timing
  // configuration file (configs/gtx480.config -> configs/gtx480.power.xml).
  std::string xml;
  if (const char *px = std::getenv("PTXSIM_POWER_CONFIG"); px && *px) {
    xml = px;
  } else {
    // the last configuration file that has a .power.xml beside it (a preset; files that only
    // add options, such as an extension's, have none)
    for (size_t i = files.size(); i-- > 0 && xml.empty();) {
      const std::string &f = files[i];
      if (f.size() > 7 && f.compare(f.size() - 7, 7, ".config") == 0) {
        std::string x = f.substr(0, f.size() - 7) + ".power.xml";
        if (access(x.c_str(), R_OK) == 0 || i == 0)
          xml = x;
      }
    }
  }
  if (xml.empty()) {
    std::fprintf(stderr,
                 "ptxsim: PTXSIM_POWER needs a power configuration: set PTXSIM_POWER_CONFIG "
                 "or use a timing configuration that has a .power.xml beside it\n");
    stopForUserError();
  }
  DiagEngine pd;
  if (!power_.load(xml, timingCfg_, pd)) {
    std::ostringstream os;
    pd.print(os);
    std::fprintf(stderr, "%sptxsim: cannot use the power configuration '%s'; stopping\n",
                 os.str().c_str(), xml.c_str());
    stopForUserError();
  }
}

sim::KernelSimulator &Context::simulator() {
  if (!sim_) {
    sim_ = std::make_unique<sim::KernelSimulator>(timingCfg_, engine());
    // (testing: the parallel timing engine's threads even for few busy SMs; docs/timing.md)
    if (const char *v = std::getenv("PTXSIM_PARALLEL_MIN_SMS"))
      sim_->setParallelMinBusySms((uint32_t)std::strtoul(v, nullptr, 10));
    // SM windows (docs/timing.md, "Speed"): results never depend on them; 0 turns them off
    if (const char *v = std::getenv("PTXSIM_SM_WINDOW"); v && *v) {
      char *end = nullptr;
      const unsigned long n = std::strtoul(v, &end, 10);
      if (*end || *v == '-' || n > 1000000) {
        std::fprintf(stderr, "ptxsim: PTXSIM_SM_WINDOW must be a number of cycles from 0 to 1000000, not '%s'; stopping\n", v);
        stopForUserError();
      }
      sim_->gpu().setSmWindow(uint32_t(n));
    }
    // sampled simulation (docs/sampling.md): kernel sampling unless PTXSIM_SAMPLE says otherwise
    sim::SampleMode m = sim::SampleMode::Kernels;
    if (const char *v = std::getenv("PTXSIM_SAMPLE"); v && !sim::parseSampleMode(v, m)) {
      std::fprintf(stderr, "ptxsim: PTXSIM_SAMPLE must be off, kernels or ctas, not '%s'; stopping\n", v);
      stopForUserError();
    }
    sim_->setSampling(m);
    if (power_.loaded())
      sim_->enablePower(power_);
  }
  return *sim_;
}

void Context::noteDeviceFill(const void *p, uint64_t bytes) {
  loadTimingConfigOnce();
  if (timingMode_ && bytes)
    simulator().noteDeviceWrite(p, bytes);
}

void Context::noteCopy(uint64_t bytes, const void *deviceDst) {
  loadTimingConfigOnce();
  if (!timingMode_ || !bytes)
    return;
  if (deviceDst)
    simulator().noteDeviceWrite(deviceDst, bytes);
  double s = simulator().copySeconds(bytes);
  simSeconds_ += s;
  recorder_.recordCopy(bytes, s);
}

ptx::exec::EngineConfig Context::engineConfig() {
  ptx::exec::EngineConfig cfg;
  if (const char *v = std::getenv("PTXSIM_THREADS"); v && *v) {
    // (as --threads: 1 to 1024, or 0 for the default, one per core the process may run on;
    // strtoul alone would take "-1" for 4294967295)
    char *end = nullptr;
    const unsigned long n = std::strtoul(v, &end, 10);
    if (*end || !std::isdigit(static_cast<unsigned char>(*v)) || n > 1024) {
      std::fprintf(stderr, "ptxsim: PTXSIM_THREADS must be a number of host threads from 1 to 1024 "
                           "(0: one per core), not '%s'\n", v);
      stopForUserError();
    }
    cfg.hostThreads = unsigned(n);
  }
  if (timingMode_ || !timingCfg_.sources.empty()) { // a configured GPU, also in functional mode
    ptx::exec::parseSimtMode(timingCfg_.core.simt, cfg.simt);
    cfg.scheduleLoads = timingCfg_.core.scheduleLoads;
    cfg.fusePairs = timingCfg_.core.fusePairs;
    cfg.mergeSharedLoads = timingCfg_.core.mergeSharedLoads;
    cfg.ifConvertMax = timingCfg_.core.ifConvertMax;
    cfg.itsLeaveCalls = timingCfg_.core.itsLeaveCalls;
    cfg.numSms = timingCfg_.numSms();
    cfg.maxSharedPerBlock = std::min<uint32_t>(48 * 1024, timingCfg_.core.sharedBytesPerSm);
    // the system's reserve per CTA comes out of the SM's shared memory (227 KiB on an H100)
    cfg.maxSharedPerBlockOptin =
        timingCfg_.core.sharedBytesPerSm -
        std::min(timingCfg_.core.reservedSharedPerCta, timingCfg_.core.sharedBytesPerSm);
  }
  if (const char *v = std::getenv("PTXSIM_SHARE_REGISTER_SLOTS"); v && *v) {
    if (std::strcmp(v, "0") && std::strcmp(v, "1")) {
      std::fprintf(stderr, "ptxsim: PTXSIM_SHARE_REGISTER_SLOTS must be 0 or 1, not '%s'\n", v);
      stopForUserError();
    }
    cfg.shareRegisterSlots = *v == '1';
  }
  if (const char *v = std::getenv("PTXSIM_HUGE_PAGES"); // (read by base/HugeAlloc.cpp)
      v && *v && std::strcmp(v, "0") && std::strcmp(v, "1") && std::strcmp(v, "auto")) {
    std::fprintf(stderr, "ptxsim: PTXSIM_HUGE_PAGES must be 0, 1 or auto, not '%s'\n", v);
    stopForUserError();
  }
  if (const char *simt = std::getenv("PTXSIM_SIMT");
      simt && *simt && !ptx::exec::parseSimtMode(simt, cfg.simt)) {
    std::fprintf(stderr, "ptxsim: PTXSIM_SIMT must be 'its', 'ipdom' or 'auto', not '%s'\n", simt);
    stopForUserError();
  }
  if (const char *t = std::getenv("PTXSIM_KERNEL_TIMEOUT"); t && *t) {
    std::string why = ptx::exec::parseKernelTimeout(t, cfg.kernelTimeoutSeconds);
    if (!why.empty()) {
      std::fprintf(stderr, "ptxsim: PTXSIM_KERNEL_TIMEOUT %s\n", why.c_str());
      stopForUserError();
    }
  }
  return cfg;
}

void Context::connectEngine() {
  if (isatty(2))
    engine_->setProgress([](const std::string &k, uint64_t done, uint64_t total, bool last) {
      std::fprintf(stderr, "\rptxsim: %s: %llu/%llu CTAs%s", k.c_str(), (unsigned long long)done,
                   (unsigned long long)total, last ? "\n" : "");
    });
  static bool registered = false;
  if (!registered) {
    registered = true;
    std::atexit([] {
      Context &c = Context::get();
      c.drainAtExit(); // queued work runs before the program ends, then the summary
      c.reportAtExit();
    });
  }
  // Device printf goes to the application's stdout at the next synchronising call, as a
  // GPU's printf buffer does, so that it comes in order with the host's own output.
  engine_->setPrintfSink([this](const std::string &s) { appendPrintf(s); });
  // Device-side cudaGetErrorString and cudaDeviceGetAttribute (dynamic parallelism) answer
  // like the host's.
  ptx::exec::DeviceRuntimeHooks hooks;
  hooks.errorText = [](int32_t code, bool name) {
    return name ? cudaGetErrorName(cudaError_t(code)) : cudaGetErrorString(cudaError_t(code));
  };
  hooks.attribute = [this](int32_t attr, int32_t &value) {
    value = deviceAttribute(deviceView(), attr);
    return true;
  };
  engine_->setDeviceRuntimeHooks(std::move(hooks));
}

ptx::exec::Engine &Context::engine() {
  if (!engine_) {
    // set-up (reading the configuration) on the service thread: its temporary memory stays
    // out of the application's malloc arena (WorkerPool::run says why)
    ptx::exec::WorkerPool::instance().runOffCaller([&] {
      loadTimingConfigOnce();
      engine_ = std::make_unique<ptx::exec::Engine>(engineConfig());
      connectEngine();
    });
    // Modules with __managed__ variables are loaded as the engine starts, before the
    // application's first allocation, as the CUDA runtime loads them when it initialises the
    // context (other modules load lazily, at first use): module variables and the program's
    // allocations then lie at the same device addresses whichever runtime (shared, or static
    // over the driver API) runs the program, and so do the cycles (e2e_same_cycles_41_managed;
    // a load error is still reported at launch, by ensureLoaded there)
    if (modules_.hasManagedVars())
      modules_.ensureLoaded();
  }
  return *engine_;
}

bool Context::validStream(cudaStream_t s) const {
  return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread ||
         streams.count(reinterpret_cast<StreamObj *>(s));
}

DeviceView Context::deviceView() {
  DeviceView v;
  v.engine = &engine().config();
  v.memoryBytes = engine().memory().capacity();
  v.timing = timingMode_ ? &timingConfig() : nullptr;
  return v;
}

int Context::maxBlocksPerSm(const KernelEntry &k, int blockSize, size_t dynShared) {
  // A Hopper-like SM: 2048 threads, 32 CTAs, 64K registers allocated per warp in units of 256,
  // 228 KiB shared (1 KiB reserved per CTA).
  // In timing mode, the configured GPU's limits instead.
  if (blockSize <= 0)
    return 0;
  int maxWarps = 64, maxCtas = 32, regsPerSm = 65536, sharedPerSm = 228 * 1024, reserved = 1024;
  if (timingMode_) {
    loadTimingConfigOnce();
    const timing::CoreConfig &c = timingCfg_.core;
    maxWarps = int(c.maxThreadsPerSm / 32);
    maxCtas = int(c.maxCtasPerSm);
    regsPerSm = int(c.registersPerSm);
    sharedPerSm = int(c.sharedBytesPerSm);
    reserved = int(c.reservedSharedPerCta); // (as the model's SMs count it: Sm::beginKernel)
  }
  int warps = (blockSize + 31) / 32;
  int blocks = std::min(maxCtas, maxWarps / warps);
  if (k.kernel && k.kernel->hwRegs) {
    int perWarp = (int(std::max<uint32_t>(k.kernel->hwRegs, 16)) * 32 + 255) / 256 * 256;
    blocks = std::min(blocks, regsPerSm / (perWarp * warps));
  }
  size_t shared = (k.kernel ? k.kernel->staticShared : 0) + dynShared;
  if (shared)
    blocks = std::min<int>(blocks, int(sharedPerSm / (shared + reserved)));
  return std::max(blocks, 0);
}

cudaError_t Context::launch(KernelEntry *k, dim3 grid, dim3 block, void **args, size_t shmem,
                            cudaStream_t stream, bool cooperative) {
  if (cudaError_t st = sticky())
    return st;
  if (!k)
    return cudaErrorInvalidDeviceFunction;
  if (!k->kernel) {
    cudaError_t e = ensureLoaded();
    if (k->overrideError)
      return cudaErrorInvalidKernelImage;
    if (!k->kernel)
      return e ? e : cudaErrorInvalidDeviceFunction;
  }
  if (!validStream(stream))
    return cudaErrorInvalidResourceHandle;
  const ptx::exec::Kernel &kern = *k->kernel;
  uint64_t threads = uint64_t(block.x) * block.y * block.z;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || threads == 0 || block.x > 1024 ||
      block.y > 1024 || block.z > 64 || threads > 1024 || grid.x > 0x7fffffffu ||
      grid.y > 65535 || grid.z > 65535)
    return cudaErrorInvalidValue; // CUDA 13 (measured on an H100), not cudaErrorInvalidConfiguration
  if (kern.maxThreads && threads > kern.maxThreads)
    return cudaErrorLaunchOutOfResources;
  const ptx::exec::EngineConfig &cfg = engine().config();
  size_t dynLimit = k->maxDynamicShared >= 0
                        ? size_t(k->maxDynamicShared)
                        : cfg.maxSharedPerBlock - std::min<size_t>(kern.staticShared,
                                                                   cfg.maxSharedPerBlock);
  if (shmem > dynLimit || kern.staticShared + shmem > cfg.maxSharedPerBlockOptin)
    return cudaErrorInvalidValue;
  if (cooperative) {
    int perSm = maxBlocksPerSm(*k, int(threads), shmem);
    if (grid.x * uint64_t(grid.y) * grid.z > uint64_t(perSm) * cfg.numSms)
      return cudaErrorCooperativeLaunchTooLarge;
  }
  size_t nparams = kern.paramOffsets.size();
  if (nparams && !args)
    return cudaErrorInvalidValue;
  // kept from launch to launch: a buffer freed here would be the application's next small
  // malloc, with our parameters in it where it expects fresh memory
  thread_local std::vector<uint8_t> buf;
  buf.assign(kern.paramBytes, 0);
  for (size_t i = 0; i < nparams; ++i) {
    if (!args[i])
      return cudaErrorInvalidValue;
    std::memcpy(buf.data() + kern.paramOffsets[i], args[i], kern.paramSizes[i]);
  }
  // Stream capture (GraphHooks.h): a capturing stream records the launch as a graph node.
  if (auto captured = graphHooks().captureKernel(stream, k, grid, block, args, shmem, cooperative))
    return *captured;
  Work *w = newWork();
  w->kind = Work::Kind::Launch;
  if (w->params.capacity() < kern.paramBytes) // (rare: over 4 KiB of parameters) off our arena
    ptx::exec::WorkerPool::instance().runOffCaller([&] { w->params.reserve(kern.paramBytes); });
  w->params.assign(buf.begin(), buf.end());
  ptx::exec::LaunchParams &lp = w->lp;
  lp = ptx::exec::LaunchParams();
  lp.kernel = &kern;
  lp.grid = {grid.x, grid.y, grid.z};
  lp.block = {block.x, block.y, block.z};
  lp.dynamicShared = uint32_t(shmem);
  lp.params = w->params.data();
  lp.cooperative = cooperative;
  lp.carveoutHint = k->carveout;
  submit(w, stream);
  return cudaSuccess;
}

ptx::exec::LaunchResult Context::runGrid(const ptx::exec::LaunchParams &q) {
  if (!timingMode_) {
    ptx::exec::LaunchResult r = engine().launchGrid(q);
    recorder_.recordGrid(q, r, nullptr, 0);
    return r;
  }
  ptx::exec::LaunchResult r;
  timing::KernelTimingStats ts;
  // off the application's threads (the executor, or the service thread when the queue runs
  // synchronously): the model's allocations stay out of the application's malloc arena
  // (WorkerPool::run says why)
  ptx::exec::WorkerPool::instance().runOffCaller([&] {
    sim::KernelRun run = simulator().run(q);
    r = std::move(run.launch);
    ts = std::move(run.stats);
    if (run.power)
      recorder_.recordPower(std::move(*run.power));
  });
  double start = simSeconds_;
  simSeconds_ += ts.seconds;
  recorder_.recordGrid(q, r, &ts, start);
  return r;
}

void Context::executeLaunch(Work &w) {
  // The GPU's front end spends this long between back-to-back host launches; events see it.
  if (timingMode_ && timingCfg_.launch.kernelGapCycles)
    simSeconds_ += timingCfg_.launch.kernelGapCycles / (timingCfg_.core.clockMHz * 1e6);
  // Grids the kernel launches from the device (dynamic parallelism) run before this returns.
  ptx::exec::LaunchResult r =
      engine().launchTree(w.lp, [this](const ptx::exec::LaunchParams &q) { return runGrid(q); });
  noteLaunchResult(r);
}

void Context::noteLaunchResult(const ptx::exec::LaunchResult &r) {
  cudaError_t e = launchError(r);
  if (e == cudaSuccess)
    return;
  flushPrintf(); // the kernel's output before the message about it
  if (!r.message.empty())
    std::fprintf(stderr, "ptxsim: %s\n", r.message.c_str());
  if (!isStickyLaunchError(e)) {
    // a configuration the engine refused when the launch ran: the next synchronising call
    // returns it (the launch call had returned cudaSuccess)
    cudaError_t none = cudaSuccess;
    asyncError_.compare_exchange_strong(none, e);
    return;
  }
  // A fault is reported by the next synchronising call, as on hardware; the context stays
  // unusable until cudaDeviceReset.
  setSticky(e);
}

void Context::reportAtExit() {
  RunRecorder::RunInfo info;
  info.timing = timingMode_;
  info.config = &timingCfg_;
  info.hostThreads = engine_ ? engine_->config().hostThreads : 0;
  info.power = timingMode_ && power_.loaded() ? &power_ : nullptr;
  info.simSeconds = simSeconds_;
  if (sim_) {
    info.sampling = sim_->sampling();
    info.wouldEstimate = sim_->wouldEstimate();
  }
  recorder_.report(info);
  // An override none of whose kernels replaced one of the program's changed nothing: the run
  // must not look like one of the override (`ptxsim run` refuses such a file up front when it
  // can read the program's PTX; this covers PTXSIM_PTX_OVERRIDE alone and PTX loaded at run time).
  if (modules_.reportUnusedOverrides(engine_.get()))
    stopForUserError();
}

void Context::reset() {
  graphHooks().reset(); // stream captures end with their streams (GraphHooks.h)
  for (StreamObj *s : streams)
    delete s;
  streams.clear();
  for (EventObj *e : events)
    delete e;
  events.clear();
  sim_.reset();
  engine_.reset();
  modules_.forgetLoads();
  // A kernel fault cannot be reset away: as CUDA documents for cudaErrorIllegalAddress ("the
  // process must be terminated and relaunched"), and as an H100 and an H200 do
  // (tools/hw/data/h100-2026-11-26), the calls after cudaDeviceReset of a faulted device return
  // cudaErrorDevicesUnavailable. A reset of a healthy device gives a fresh context.
  setSticky(sticky() != cudaSuccess ? cudaErrorDevicesUnavailable : cudaSuccess);
  asyncError_ = cudaSuccess;
  printfFifoBytes = kDefaultPrintfFifo;
  persistingL2Bytes = kDefaultPersistingL2;
  defaultStreamAttrs = StreamAttrs();
  // The host reads __managed__ variables through pointers set at load time and never asks again
  // (nvcc's __nv_init_managed_rt runs once), so they must point into the new context at once.
  if (modules_.hasManagedVars())
    ensureLoaded();
}

cudaError_t Context::syncError() {
  if (cudaError_t st = sticky())
    return st;
  return asyncError_.exchange(cudaSuccess);
}

void Context::appendPrintf(const std::string &s) {
  std::lock_guard<std::mutex> l(printfMu_);
  printfBuf_ += s;
}

void Context::flushPrintf() {
  std::lock_guard<std::mutex> l(printfMu_);
  if (printfBuf_.empty())
    return;
  std::fwrite(printfBuf_.data(), 1, printfBuf_.size(), stdout);
  std::fflush(stdout);
  printfBuf_.clear(); // keeps its capacity: nothing of ours is freed on the host's thread
}

void Context::execute(Work &w) {
  switch (w.kind) {
  case Work::Kind::Launch:
    if (!sticky()) // a faulted device runs no more kernels
      executeLaunch(w);
    return;
  case Work::Kind::Copy:
    if (sticky() || !w.count)
      return;
    std::memmove(w.dst, w.src, w.count);
    if (w.copyKind == cudaMemcpyHostToDevice || w.copyKind == cudaMemcpyDeviceToHost)
      noteCopy(w.count, w.copyKind == cudaMemcpyHostToDevice ? w.dst : nullptr);
    return;
  case Work::Kind::Memset:
    if (sticky() || !w.count)
      return;
    std::memset(w.dst, w.value, w.count);
    noteDeviceFill(w.dst, w.count);
    return;
  case Work::Kind::EventRecord:
    w.event->when = std::chrono::steady_clock::now();
    w.event->simSeconds = simSeconds_;
    return;
  case Work::Kind::HostFn:
    w.hostFn(w.userData);
    return;
  case Work::Kind::Callback:
    w.callback(w.stream, sticky(), w.userData);
    return;
  }
}

} // namespace ptxsim::runtime

#include "runtime/api/Context.h"
#include "ptx/exec/WorkerPool.h"
#include "ptx/exec/Watchdog.h"

#include "isa_ext/Extensions.h"
#include "base/Config.h"
#include "ptx/exec/Counters.h"
#include "ptx/exec/Program.h"

#include "runtime/fatbin/Fatbin.h"

#include <algorithm>
#include <cerrno>
#include <cxxabi.h>
#include <dirent.h>
#include <fstream>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>

namespace ptxsim::runtime {

namespace {

constexpr uint32_t kFatbinWrapperMagic = 0x466243b1;
constexpr uint32_t kFatbinMagic = 0xBA55ED50;

struct FatbinWrapper {
  int magic;
  int version;
  const void *data;
  void *filenameOrFatbins;
};

unsigned envUnsigned(const char *name, unsigned dflt) {
  const char *v = std::getenv(name);
  if (!v || !*v)
    return dflt;
  char *end = nullptr;
  unsigned long n = std::strtoul(v, &end, 10);
  if (*end != '\0') {
    std::fprintf(stderr, "ptxsim: ignoring %s=%s (not a number)\n", name, v);
    return dflt;
  }
  return static_cast<unsigned>(n);
}

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
/// Ends the program after a user input error (bad configuration). exit() would run the
/// application's atexit handlers, which call back into the runtime while this thread holds
/// the context lock; so flush and leave directly.
[[noreturn]] void stopForUserError() {
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(2);
}
} // namespace

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
    if (const char *pc = std::getenv("PTXSIM_PRINT_CONFIG"); pc && *pc && std::strcmp(pc, "0") != 0)
      std::fprintf(stderr, "# ptxsim: functional mode, no GPU configuration (give one with "
                           "--config to print it)\n");
    return;
  }
  if (!functional && std::strcmp(mode, "timing") != 0) {
    std::fprintf(stderr, "ptxsim: PTXSIM_MODE must be 'functional' or 'timing', not '%s'\n", mode);
    stopForUserError();
  }
  timingMode_ = !functional;
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
  if (const char *pc = std::getenv("PTXSIM_PRINT_CONFIG"); pc && *pc && std::strcmp(pc, "0") != 0)
    std::fprintf(stderr, "%s", timing::timingConfigText(timingCfg_).c_str());
  if (!timingMode_)
    return;
  // Power: PTXSIM_POWER=1, with the XML from PTXSIM_POWER_CONFIG or beside the last timing
  // configuration file (configs/gtx480.config -> configs/gtx480.power.xml).
  if (const char *pw = std::getenv("PTXSIM_POWER"); pw && *pw && std::strcmp(pw, "0") != 0) {
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
      std::fprintf(stderr, "ptxsim: PTXSIM_POWER needs a power configuration: set PTXSIM_POWER_CONFIG "
                           "or use a timing configuration that has a .power.xml beside it\n");
      stopForUserError();
    }
    DiagEngine pd;
    timing::registerTimingStatistics(); // the counters the power model checks it can read
    if (!power::PowerModel::load(xml, timingCfg_, powerModel_, pd)) {
      std::ostringstream os;
      pd.print(os);
      std::fprintf(stderr, "%sptxsim: cannot use the power configuration '%s'; stopping\n",
                   os.str().c_str(), xml.c_str());
      stopForUserError();
    }
    powerOn_ = true;
  }
}

sim::KernelSimulator &Context::simulator() {
  if (!sim_) {
    sim_ = std::make_unique<sim::KernelSimulator>(timingCfg_, engine());
    // (testing: the parallel timing engine's threads even for few busy SMs; docs/timing.md)
    if (const char *v = std::getenv("PTXSIM_PARALLEL_MIN_SMS"))
      sim_->gpu().setParallelMinBusySms((uint32_t)std::strtoul(v, nullptr, 10));
    // sampled simulation (docs/sampling.md)
    if (const char *v = std::getenv("PTXSIM_SAMPLE")) {
      sim::SampleMode m;
      if (!sim::parseSampleMode(v, m)) {
        std::fprintf(stderr, "ptxsim: PTXSIM_SAMPLE must be off, kernels or ctas, not '%s'; stopping\n", v);
        stopForUserError();
      }
      sim_->setSampling(m);
    }
    if (powerOn_)
      sim_->enablePower(powerModel_);
  }
  return *sim_;
}

timing::Gpu &Context::timingGpu() {
  return simulator().gpu();
}

void Context::noteDeviceFill(const void *p, uint64_t bytes) {
  loadTimingConfigOnce();
  if (timingMode_ && bytes)
    timingGpu().noteDeviceWrite(p, bytes);
}

void Context::noteCopy(uint64_t bytes, const void *deviceDst) {
  loadTimingConfigOnce();
  if (!timingMode_ || !bytes)
    return;
  if (deviceDst)
    timingGpu().noteDeviceWrite(deviceDst, bytes);
  double s = timingGpu().copySeconds(bytes);
  simSeconds_ += s;
  copySeconds_ += s;
  ++copies_;
  copyBytes_ += bytes;
}

ptx::exec::Engine &Context::engine() {
  if (!engine_) {
    // set-up (reading the configuration) on the service thread: its temporary memory stays
    // out of the application's malloc arena (WorkerPool::run says why)
    ptx::exec::WorkerPool::instance().runOffCaller([&] {
      loadTimingConfigOnce();
      ptx::exec::EngineConfig cfg;
      cfg.hostThreads = envUnsigned("PTXSIM_THREADS", 0);
      if (timingMode_ || !timingCfg_.sources.empty()) { // a configured GPU, also in functional mode
        ptx::exec::parseSimtMode(timingCfg_.core.simt, cfg.simt);
        cfg.scheduleLoads = timingCfg_.core.scheduleLoads;
        cfg.fusePairs = timingCfg_.core.fusePairs;
        cfg.mergeSharedLoads = timingCfg_.core.mergeSharedLoads;
        cfg.numSms = timingCfg_.numSms();
        cfg.maxSharedPerBlock = std::min<uint32_t>(48 * 1024, timingCfg_.core.sharedBytesPerSm);
        // the system's reserve per CTA comes out of the SM's shared memory (227 KiB on an H100)
        cfg.maxSharedPerBlockOptin =
            timingCfg_.core.sharedBytesPerSm -
            std::min(timingCfg_.core.reservedSharedPerCta, timingCfg_.core.sharedBytesPerSm);
      }
      if (const char *simt = std::getenv("PTXSIM_SIMT");
          simt && *simt && !ptx::exec::parseSimtMode(simt, cfg.simt)) {
        std::fprintf(stderr, "ptxsim: PTXSIM_SIMT must be 'its', 'ipdom' or 'auto', not '%s'\n",
                     simt);
        stopForUserError();
      }
      if (const char *t = std::getenv("PTXSIM_KERNEL_TIMEOUT"); t && *t) {
        std::string why = ptx::exec::parseKernelTimeout(t, cfg.kernelTimeoutSeconds);
        if (!why.empty()) {
          std::fprintf(stderr, "ptxsim: PTXSIM_KERNEL_TIMEOUT %s\n", why.c_str());
          stopForUserError();
        }
      }
      engine_ = std::make_unique<ptx::exec::Engine>(cfg);
      if (isatty(2))
        engine_->setProgress([](const std::string &k, uint64_t done, uint64_t total, bool last) {
          std::fprintf(stderr, "\rptxsim: %s: %llu/%llu CTAs%s", k.c_str(),
                       (unsigned long long)done, (unsigned long long)total, last ? "\n" : "");
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
        value = deviceAttribute(*this, attr);
        return true;
      };
      engine_->setDeviceRuntimeHooks(std::move(hooks));
    });
  }
  return *engine_;
}

namespace {
/// Bytes readable from `p` on: to the end of the run of adjacent readable mappings that holds it
/// (/proc/self/maps); 0 when none does, SIZE_MAX when the maps cannot be read. An embedded fat
/// binary's sizes are checked against this, so a corrupted size is an error, not a read past the
/// end of the program's image.
size_t readableFrom(const void *p) {
  FILE *f = std::fopen("/proc/self/maps", "re");
  if (!f)
    return SIZE_MAX;
  uint64_t a = reinterpret_cast<uint64_t>(p), end = 0;
  bool found = false;
  char *line = nullptr;
  size_t cap = 0;
  while (getline(&line, &cap, f) > 0) {
    unsigned long long lo, hi;
    char perms[8];
    if (std::sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) != 3)
      continue;
    bool readable = perms[0] == 'r';
    if (!found && readable && a >= lo && a < hi) {
      found = true;
      end = hi;
    } else if (found) {
      if (!readable || lo != end)
        break;
      end = hi;
    }
  }
  std::free(line);
  std::fclose(f);
  return found ? size_t(end - a) : 0;
}

/// Picks the newest PTX entry of the fat binary at `data`. Returns false with `err` set when
/// there is none (naming the SASS architecture it does carry, if any). Fills `sassRegs` with
/// the register counts of the newest SASS entry's kernels, when there is one.
bool pickPtx(const uint8_t *data, std::string &ptx, uint32_t &arch, std::string &err,
             std::map<std::string, uint32_t> &sassRegs) {
  uint32_t magic;
  uint16_t headerSize;
  uint64_t bodySize;
  size_t readable = readableFrom(data);
  if (readable < 16) {
    err = "the fat binary's address is not readable memory";
    return false;
  }
  std::memcpy(&magic, data, 4);
  std::memcpy(&headerSize, data + 6, 2);
  std::memcpy(&bodySize, data + 8, 8);
  if (magic != kFatbinMagic) {
    err = "fat binary has a bad magic number";
    return false;
  }
  // the header's sizes come from the program's image: trust them no further than it reaches
  if (headerSize > readable || bodySize > readable - headerSize) {
    std::ostringstream os;
    os << "cannot read the embedded fat binary: its header claims " << headerSize << " + "
       << bodySize << " bytes, but the program's image holds only " << readable
       << " bytes from its start (a corrupted fat binary)";
    err = os.str();
    return false;
  }
  std::vector<fatbin::Entry> entries;
  std::string perr = fatbin::parseFatbin(data, size_t(headerSize) + bodySize, entries);
  if (!perr.empty()) {
    err = "cannot read the embedded fat binary: " + perr;
    return false;
  }
  const fatbin::Entry *best = nullptr, *sass = nullptr;
  uint32_t sassArch = 0;
  for (const fatbin::Entry &e : entries) {
    if (e.kind != fatbin::EntryKind::Ptx) {
      sassArch = std::max(sassArch, e.arch);
      if (e.kind == fatbin::EntryKind::Elf && (!sass || e.arch > sass->arch))
        sass = &e;
      continue;
    }
    auto key = [](const fatbin::Entry &x) {
      return std::make_tuple(x.arch, x.versionMajor, x.versionMinor);
    };
    if (!best || key(e) > key(*best))
      best = &e;
  }
  if (sass) {
    std::map<std::string, uint32_t> regs;
    if (fatbin::cubinRegisterCounts(sass->data, regs).empty())
      sassRegs.insert(regs.begin(), regs.end());
  }
  if (!best) {
    std::ostringstream os;
    os << "the program carries no PTX";
    if (sassArch)
      os << " (only SASS for sm_" << sassArch << "); rebuild it with PTX, e.g. nvcc -gencode "
         << "arch=compute_" << sassArch << ",code=compute_" << sassArch;
    err = os.str();
    return false;
  }
  ptx = best->data;
  arch = best->arch;
  return true;
}
} // namespace

FatbinModule *Context::registerFatbin(const void *wrapperPtr) {
  auto fb = std::make_unique<FatbinModule>();
  FatbinModule *result = fb.get();
  fatbins_.push_back(std::move(fb));
  const auto *w = static_cast<const FatbinWrapper *>(wrapperPtr);
  if (!w || static_cast<uint32_t>(w->magic) != kFatbinWrapperMagic || !w->data) {
    result->loadError = "unrecognised fat binary wrapper";
    return result;
  }
  // Diagnostics name the program, as `ptxsim ptx extract` names the files it writes.
  std::string base = program_invocation_short_name;
  if (fatbins_.size() > 1)
    base += "." + std::to_string(fatbins_.size());
  std::string err;
  uint32_t arch = 0;
  if (w->version == 2 && w->filenameOrFatbins) {
    // -rdc=true: the wrapper holds the device-linked SASS; the PTX of each translation unit is
    // in the NULL-terminated list of pre-linked fat binaries. Each becomes one module, linked
    // by name like the device linker would.
    auto *units = static_cast<const uint8_t *const *>(w->filenameOrFatbins);
    for (size_t i = 0; readableFrom(units + i) >= sizeof *units && units[i]; ++i) {
      std::string ptx, uerr;
      if (!pickPtx(units[i], ptx, arch, uerr, result->sassRegs)) {
        err = uerr;
        continue;
      }
      // NVIDIA's device runtime (-lcudadevrt: ~800 KB of PTX over hardware syscalls); the
      // engine implements its functions itself (ptx/exec/DeviceRuntime.h).
      if (ptx.find(".visible .func (.param .b32 func_retval0) __cudaCDP2LaunchDeviceV2(") !=
          std::string::npos)
        continue;
      result->units.push_back({base + ".unit" + std::to_string(i) + ".sm_" + std::to_string(arch) + ".ptx",
                               std::move(ptx)});
      if (!result->ptxArch)
        result->ptxArch = arch;
    }
    if (!result->units.empty()) {
      // The wrapper's own fat binary is the device-linked SASS: its counts win.
      std::string ignored, none;
      uint32_t a;
      std::map<std::string, uint32_t> linked;
      pickPtx(static_cast<const uint8_t *>(w->data), ignored, a, none, linked);
      for (auto &[k, v] : linked)
        result->sassRegs[k] = v;
      result->ptx = result->units[0].second;
      result->name = result->units[0].first;
      return result;
    }
  }
  std::string ptx;
  if (!pickPtx(static_cast<const uint8_t *>(w->data), ptx, arch, err, result->sassRegs)) {
    result->loadError = err;
    return result;
  }
  result->ptx = std::move(ptx);
  result->ptxArch = arch;
  result->name = base + ".sm_" + std::to_string(arch) + ".ptx";
  result->units.push_back({result->name, result->ptx});
  return result;
}

void Context::registerFunction(FatbinModule *fb, const void *hostStub, const char *deviceName) {
  auto &slot = kernels_[hostStub];
  if (slot)
    kernelHandles_.erase(slot.get());
  slot = std::make_unique<KernelEntry>();
  slot->fatbin = fb;
  slot->deviceName = deviceName ? deviceName : "";
  kernelHandles_.insert(slot.get());
}

void Context::registerVar(FatbinModule *fb, const void *hostVar, const char *deviceName,
                          size_t size, bool isConst, void **managedHostPtr) {
  VarEntry &v = vars_[hostVar];
  v.fatbin = fb;
  v.deviceName = deviceName ? deviceName : "";
  v.size = size;
  v.isConst = isConst;
  v.managedHostPtr = managedHostPtr;
  v.symbol = nullptr;
  if (fb->module >= 0)
    bindSymbols(*fb);
}

void Context::loadModule(FatbinModule &fb) {
  fb.loadTried = true;
  if (fb.ptx.empty()) {
    std::fprintf(stderr, "ptxsim: %s\n", fb.loadError.c_str());
    return;
  }
  fb.modules.clear();
  for (auto &[name, text] : fb.units) {
    DiagEngine diags;
    int id = engine().loadModule(text, name, diags);
    if (id < 0) {
      std::ostringstream os;
      diags.print(os);
      fb.loadError = "cannot load the program's PTX:\n" + os.str();
      std::fprintf(stderr, "ptxsim: %s", fb.loadError.c_str());
      fb.modules.clear();
      return;
    }
    fb.modules.push_back(id);
  }
  fb.module = fb.modules.empty() ? -1 : fb.modules[0];
  for (int id : fb.modules)
    for (auto &[name, regs] : fb.sassRegs)
      engine().setHardwareRegisters(name, id, regs);
  bindSymbols(fb);
}

const std::vector<int> &Context::overrideModules() {
  if (overridesLoaded_)
    return overrideIds_;
  overridesLoaded_ = true;
  const char *path = std::getenv("PTXSIM_PTX_OVERRIDE");
  if (!path || !*path)
    return overrideIds_;
  std::vector<std::string> files;
  if (DIR *d = opendir(path)) {
    while (dirent *e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 4 && n.compare(n.size() - 4, 4, ".ptx") == 0)
        files.push_back(std::string(path) + "/" + n);
    }
    closedir(d);
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(path);
  }
  for (const std::string &f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "ptxsim: PTXSIM_PTX_OVERRIDE: cannot open '%s'; stopping\n", f.c_str());
      stopForUserError();
    }
    std::stringstream ss;
    ss << in.rdbuf();
    DiagEngine diags;
    int id = engine().loadModule(ss.str(), f, diags);
    if (id < 0) {
      std::ostringstream os;
      diags.print(os);
      // running the program's own kernels instead would give results that look right to a
      // script: stop before any kernel runs
      std::fprintf(stderr, "ptxsim: PTXSIM_PTX_OVERRIDE: cannot load '%s':\n%sptxsim: stopping\n",
                   f.c_str(), os.str().c_str());
      stopForUserError();
    }
    std::fprintf(stderr, "ptxsim: using PTX from %s\n", f.c_str());
    overrideIds_.push_back(id);
  }
  return overrideIds_;
}

void Context::bindKernel(KernelEntry &entry) {
  ptx::exec::Engine &eng = engine();
  const std::vector<int> &overrides = overrideModules();
  KernelEntry *k = &entry;
  FatbinModule &fb = *k->fatbin;
  k->kernel = nullptr;
  for (int id : fb.modules)
    if (!k->kernel)
      k->kernel = eng.findKernel(k->deviceName, id);
  // A kernel of the same name in an override file replaces the binary's, if it takes the
  // same parameters (the host stub packs arguments for the original signature).
  for (int id : overrides) {
    const ptx::exec::Kernel *o = eng.findKernel(k->deviceName, id);
    if (!o || !k->kernel)
      continue;
    overridesUsed_.insert(id);
    if (o->paramSizes != k->kernel->paramSizes) {
      std::fprintf(stderr,
                   "ptxsim: PTXSIM_PTX_OVERRIDE: kernel '%s' has different parameters:\n"
                   "  override: %s\n  program:  %s\n",
                   k->deviceName.c_str(), o->fn->signature.c_str(),
                   k->kernel->fn->signature.c_str());
      k->kernel = nullptr;
      k->overrideError = true;
      break;
    }
    k->kernel = o;
  }
}

void Context::bindSymbols(FatbinModule &fb) {
  ptx::exec::Engine &eng = engine();
  const std::vector<int> &overrides = overrideModules();
  for (auto &[stub, k] : kernels_)
    if (k->fatbin == &fb)
      bindKernel(*k);
  for (auto &[host, v] : vars_) {
    if (v.fatbin != &fb)
      continue;
    v.symbol = nullptr;
    for (int id : fb.modules)
      if (!v.symbol)
        v.symbol = eng.findGlobal(v.deviceName, id);
    for (int id : overrides) // the override's copy is the one its kernels use
      if (const ptx::exec::GlobalSymbol *g = eng.findGlobal(v.deviceName, id))
        v.symbol = g;
    if (v.symbol && v.managedHostPtr)
      *v.managedHostPtr = ptx::exec::DeviceMemory::host(v.symbol->addr);
  }
}

FatbinModule *Context::loadImage(const void *image, cudaError_t &err, bool lazy) {
  // Parsing and loading allocate a lot: on the service thread, out of the application's malloc
  // arena (WorkerPool::run says why), as __cudaRegisterFatBinary does.
  FatbinModule *result = nullptr;
  ptx::exec::WorkerPool::instance().runOffCaller(
      [&] { result = loadImageHere(image, err, lazy); });
  return result;
}

FatbinModule *Context::loadImageHere(const void *image, cudaError_t &err, bool lazy) {
  err = cudaSuccess;
  if (!image) {
    err = cudaErrorInvalidValue;
    return nullptr;
  }
  uint32_t magic;
  std::memcpy(&magic, image, 4);
  FatbinModule *fb = nullptr;
  if (magic == kFatbinWrapperMagic) {
    fb = registerFatbin(image);
  } else if (magic == kFatbinMagic) {
    FatbinWrapper w{int(kFatbinWrapperMagic), 1, image, nullptr};
    fb = registerFatbin(&w);
  } else if (std::memcmp(image, "\x7f" "ELF", 4) == 0) {
    // A cubin holds SASS only (nvcc -cubin); ptxsim executes PTX.
    std::fprintf(stderr, "ptxsim: the module image is a cubin (SASS only, no PTX): load its PTX "
                         "text or a fat binary carrying PTX (nvcc -fatbin -gencode "
                         "arch=compute_XX,code=compute_XX) instead\n");
    err = cudaErrorNoKernelImageForDevice;
    return nullptr;
  } else {
    auto own = std::make_unique<FatbinModule>();
    fb = own.get();
    fatbins_.push_back(std::move(own));
    fb->ptx = static_cast<const char *>(image);
    fb->name = std::string(program_invocation_short_name) + ".module" +
               std::to_string(fatbins_.size()) + ".ptx";
    fb->units.push_back({fb->name, fb->ptx});
  }
  fb->driver = true;
  if (lazy && !fb->ptx.empty())
    return fb;
  loadModule(*fb);
  if (fb->module < 0) {
    err = fb->ptx.empty() ? cudaErrorNoKernelImageForDevice : cudaErrorInvalidPtx;
    fb->unregistered = true;
    return nullptr;
  }
  return fb;
}

cudaError_t Context::ensureModule(FatbinModule *fb) {
  if (!fb->loadTried)
    ensureLoaded();
  if (fb->module >= 0)
    return cudaSuccess;
  return fb->ptx.empty() ? cudaErrorNoKernelImageForDevice : cudaErrorInvalidPtx;
}

KernelEntry *Context::moduleFunction(FatbinModule *fb, const char *name) {
  auto it = fb->functions.find(name);
  if (it != fb->functions.end())
    return it->second;
  auto k = std::make_unique<KernelEntry>();
  k->fatbin = fb;
  k->deviceName = name;
  bindKernel(*k);
  if (!k->kernel && !k->overrideError)
    return nullptr;
  KernelEntry *raw = k.get();
  kernelHandles_.insert(raw);
  kernels_[raw] = std::move(k); // keyed by itself: a driver kernel has no host stub
  fb->functions[name] = raw;
  return raw;
}

const ptx::exec::GlobalSymbol *Context::moduleGlobal(FatbinModule *fb, const char *name) {
  const ptx::exec::GlobalSymbol *g = nullptr;
  for (int id : fb->modules)
    if (!g)
      g = engine().findGlobal(name, id);
  if (g)
    for (int id : overrideModules())
      if (const ptx::exec::GlobalSymbol *o = engine().findGlobal(name, id))
        g = o;
  return g;
}

bool Context::validModule(const FatbinModule *fb) const {
  if (!fb)
    return false;
  for (const auto &m : fatbins_)
    if (m.get() == fb)
      return !fb->unregistered && (fb->module >= 0 || !fb->loadTried);
  return false;
}

cudaError_t Context::ensureLoaded() {
  cudaError_t result = cudaSuccess;
  for (auto &fb : fatbins_) {
    if (fb->unregistered)
      continue;
    if (!fb->loadTried) { // parsing PTX allocates much: off the application's arena
      drainHeld();          // loading changes the engine's modules: nothing may run meanwhile
      ptx::exec::WorkerPool::instance().runOffCaller([&] { loadModule(*fb); });
    }
    if (fb->module < 0)
      result = fb->ptx.empty() ? cudaErrorNoKernelImageForDevice : cudaErrorInvalidPtx;
  }
  return result;
}

KernelEntry *Context::findKernel(const void *func) {
  auto it = kernels_.find(func);
  KernelEntry *k = nullptr;
  if (it != kernels_.end())
    k = it->second.get();
  else if (kernelHandles_.count(static_cast<const KernelEntry *>(func)))
    k = const_cast<KernelEntry *>(static_cast<const KernelEntry *>(func));
  if (k && !k->fatbin->loadTried)
    ensureLoaded();
  return k;
}

VarEntry *Context::findVar(const void *hostVar) {
  auto it = vars_.find(hostVar);
  if (it == vars_.end())
    return nullptr;
  if (!it->second.fatbin->loadTried)
    ensureLoaded();
  return &it->second;
}

bool Context::validStream(cudaStream_t s) const {
  return s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread ||
         streams.count(reinterpret_cast<StreamObj *>(s));
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

void Context::executeLaunch(Work &w) {
  const ptx::exec::LaunchParams &lp = w.lp;
  // Runs one grid (the host's, or one launched from the device) and records its statistics.
  auto runGrid = [this](const ptx::exec::LaunchParams &q) {
    ptx::exec::LaunchResult r;
    timing::KernelTimingStats ts;
    if (timingMode_) {
      // off the application's threads (the executor, or the service thread when the queue
      // runs synchronously): the model's allocations stay out of the application's malloc
      // arena (WorkerPool::run says why)
      ptx::exec::WorkerPool::instance().runOffCaller([&] {
        sim::KernelRun run = simulator().run(q);
        r = std::move(run.launch);
        ts = std::move(run.stats);
        if (run.power)
          powerStats_.push_back(std::move(*run.power));
      });
      launchShapes_.push_back({{q.grid.x, q.grid.y, q.grid.z},
                               {q.block.x, q.block.y, q.block.z},
                               simSeconds_});
      simSeconds_ += ts.seconds;
    } else {
      r = engine().launchGrid(q);
    }
    const std::string &name = q.kernel->name;
    auto it = statsIndex_.find(name);
    if (it == statsIndex_.end()) {
      it = statsIndex_.emplace(name, stats_.size()).first;
      stats_.push_back({name, KernelStats{}});
    }
    KernelStats &st = stats_[it->second].second;
    ++st.launches;
    st.ctas += q.grid.count();
    st.threadInsts += r.threadInsts;
    st.warpInsts += r.warpInsts;
    st.seconds += r.seconds;
    if (st.counters.size() < r.counters.size())
      st.counters.resize(r.counters.size(), 0);
    for (size_t i = 0; i < r.counters.size(); ++i)
      st.counters[i] += r.counters[i];
    if (timingMode_) {
      st.cycles += ts.cycles;
      st.simSeconds += ts.seconds;
      launchStats_.push_back(std::move(ts));
    }
    char cfgText[96];
    std::snprintf(cfgText, sizeof cfgText, "(%u,%u,%u)x(%u,%u,%u)", q.grid.x, q.grid.y, q.grid.z,
                  q.block.x, q.block.y, q.block.z);
    st.lastConfig = cfgText;
    return r;
  };
  // The GPU's front end spends this long between back-to-back host launches; events see it.
  if (timingMode_ && timingCfg_.launch.kernelGapCycles)
    simSeconds_ += timingCfg_.launch.kernelGapCycles / (timingCfg_.core.clockMHz * 1e6);
  // Grids the kernel launches from the device (dynamic parallelism) run before this returns.
  ptx::exec::LaunchResult r = engine().launchTree(lp, runGrid);
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

namespace {
std::string demangle(const std::string &name) {
  int status = 0;
  char *d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string r = status == 0 && d ? d : name;
  std::free(d);
  return r;
}
} // namespace

void Context::reportAtExit() {
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const char *sum = std::getenv("PTXSIM_SUMMARY");
  unsigned threads = engine_ ? engine_->config().hostThreads : 0;
  if (!(sum && std::strcmp(sum, "0") == 0) && !stats_.empty()) {
    uint64_t launches = 0, insts = 0;
    double secs = 0;
    if (timingMode_)
      std::fprintf(stderr, "\nptxsim: run summary (timing mode, %s, %u SMs at %.0f MHz)\n",
                   timingCfg_.name.c_str(), timingCfg_.numSms(), timingCfg_.core.clockMHz);
    else
      std::fprintf(stderr, "\nptxsim: run summary (functional mode, %s host threads)\n",
                   threads ? std::to_string(threads).c_str() : "all");
    std::fprintf(stderr, "  %-40s %8s %24s %14s %10s %10s\n", "kernel", "launches",
                 "last grid x block", "thread-insts", "seconds", "Minsts/s");
    for (auto &[name, st] : stats_) {
      std::string n = demangle(name);
      if (n.size() > 40)
        n = n.substr(0, 37) + "...";
      std::fprintf(stderr, "  %-40s %8llu %24s %14llu %10.4f %10.1f\n", n.c_str(),
                   (unsigned long long)st.launches, st.lastConfig.c_str(),
                   (unsigned long long)st.threadInsts, st.seconds,
                   st.seconds > 0 ? st.threadInsts / st.seconds / 1e6 : 0.0);
      launches += st.launches;
      insts += st.threadInsts;
      secs += st.seconds;
    }
    std::fprintf(stderr,
                 "  total: %llu launches, %llu thread instructions, %.4f s in kernels, %.3f s "
                 "wall\n",
                 (unsigned long long)launches, (unsigned long long)insts, secs, wall);
    if (timingMode_) {
      uint64_t cycles = 0;
      double ksec = 0;
      for (auto &[name, st] : stats_) {
        cycles += st.cycles;
        ksec += st.simSeconds;
      }
      std::fprintf(stderr, "  simulated: %llu cycles, %.6f s in kernels, %.6f s in %llu host-device "
                           "copies (%llu bytes), %.6f s in all; %.0f simulated cycles per host second\n",
                   (unsigned long long)cycles, ksec, copySeconds_, (unsigned long long)copies_,
                   (unsigned long long)copyBytes_, simSeconds_, secs > 0 ? cycles / secs : 0.0);
      // per kernel, summed over its launches (every launch is in the JSON stats)
      std::vector<std::string> order;
      std::unordered_map<std::string, timing::KernelTimingStats> sums;
      for (const auto &ks : launchStats_) {
        auto it = sums.find(ks.kernel);
        if (it == sums.end()) {
          order.push_back(ks.kernel);
          sums[ks.kernel] = ks;
          continue;
        }
        timing::KernelTimingStats &t = it->second;
        t.cycles += ks.cycles;
        for (const auto &kv : ks.values())
          t.add(kv.first, kv.second);
      }
      if (powerOn_) {
        double e = 0, t = 0, peak = 0;
        for (const auto &kp : powerStats_) {
          e += kp.energyJ;
          t += kp.seconds;
          peak = std::max(peak, kp.peakW);
        }
        std::fprintf(stderr, "  power (%s): %.6f J over %.6f s of kernels, average %.1f W, peak %.1f W\n",
                     powerModel_.name().c_str(), e, t, t > 0 ? e / t : 0.0, peak);
        if (powerModel_.hasIdle())
          std::fprintf(stderr, "  idle power (no kernel running): %.1f W\n", powerModel_.idleW());
        // the biggest components over all kernels
        std::vector<std::pair<double, std::string>> comps;
        for (const auto &kp : powerStats_)
          for (size_t i = 0; i < kp.components.size(); ++i) {
            const auto &c = kp.components[i];
            if (i >= comps.size())
              comps.push_back({0, c.name});
            comps[i].first += c.dynamicJ + c.staticJ;
          }
        std::sort(comps.begin(), comps.end(), [](auto &a, auto &b) { return a.first > b.first; });
        std::string top;
        for (size_t i = 0; i < comps.size() && i < 5; ++i) {
          char buf[96];
          std::snprintf(buf, sizeof buf, "%s%s %.0f%%", i ? ", " : "", comps[i].second.c_str(),
                        e > 0 ? 100 * comps[i].first / e : 0.0);
          top += buf;
        }
        std::fprintf(stderr, "  energy by component: %s\n", top.c_str());
        // how an extension's cores were charged (power::CoreAccounting), once
        if (!powerStats_.empty())
          for (const std::string &n : powerStats_.back().notes)
            std::fprintf(stderr, "  power note: %s\n", n.c_str());
      }
      std::fprintf(stderr, "  %-40s %12s %7s %12s %10s %10s %10s %10s%s\n", "kernel (all launches)", "cycles",
                   "IPC", "stall cyc", "mem stall", "l1d miss", "l2 miss", "dram rd",
                   powerOn_ ? "   energy J    avg W" : "");
      // energy and time per kernel name, over its launches
      std::unordered_map<std::string, std::pair<double, double>> kEnergy;
      for (const auto &kp : powerStats_) {
        kEnergy[kp.kernel].first += kp.energyJ;
        kEnergy[kp.kernel].second += kp.seconds;
      }
      for (const std::string &k : order) {
        const timing::KernelTimingStats &t = sums[k];
        std::string n = demangle(k);
        if (n.size() > 40)
          n = n.substr(0, 37) + "...";
        char pw[64] = "";
        if (powerOn_) {
          auto &ke = kEnergy[k];
          std::snprintf(pw, sizeof pw, " %11.6f %8.1f", ke.first, ke.second > 0 ? ke.first / ke.second : 0.0);
        }
        std::fprintf(stderr, "  %-40s %12llu %7.2f %12.0f %10.0f %10.0f %10.0f %10.0f%s\n", n.c_str(),
                     (unsigned long long)t.cycles, t.cycles ? t.get("gpu.warp_insts") / t.cycles : 0.0,
                     t.get("sm.stall_cycles"), t.get("sm.stall.memory"), t.get("l1d.misses"),
                     t.get("l2.misses"), t.get("dram.reads"), pw);
      }
    }
  }
  if (const char *path = std::getenv("PTXSIM_STATS_JSON"); path && *path) {
    std::ofstream os(path);
    if (!os) {
      std::fprintf(stderr, "ptxsim: cannot write PTXSIM_STATS_JSON file '%s'\n", path);
      return;
    }
    // the program's command line (for reports), from /proc: arguments separated by NULs
    std::string cmdline;
    if (std::ifstream cl("/proc/self/cmdline", std::ios::binary); cl) {
      std::string arg;
      while (std::getline(cl, arg, '\0'))
        cmdline += (cmdline.empty() ? "" : " ") + arg;
    }
    os << "{\n  \"mode\": \"" << (timingMode_ ? "timing" : "functional") << "\",\n  \"program\": "
       << jsonQuote(cmdline) << ",\n  \"wall_seconds\": " << wall << ",\n  \"kernels\": [";
    bool first = true;
    for (auto &[name, st] : stats_) {
      os << (first ? "\n" : ",\n") << "    {\"name\": " << jsonQuote(name)
         << ", \"demangled\": " << jsonQuote(demangle(name))
         << ", \"launches\": " << st.launches << ", \"ctas\": " << st.ctas
         << ", \"thread_insts\": " << st.threadInsts << ", \"warp_insts\": " << st.warpInsts
         << ", \"seconds\": " << st.seconds;
      if (!st.lastConfig.empty())
        os << ", \"last_grid_block\": " << jsonQuote(st.lastConfig);
      // extension counters that saw activity (ptx/exec/Counters.h)
      const auto &names = ptx::exec::execCounters();
      for (size_t i = 0; i < st.counters.size() && i < names.size(); ++i)
        if (st.counters[i])
          os << ", " << jsonQuote(names[i].name) << ": " << st.counters[i];
      os << "}";
      first = false;
    }
    os << "\n  ]";
    if (timingMode_) {
      os << ",\n  \"config\": " << timing::timingConfigJson(timingCfg_) << ",\n  \"copies\": {\"count\": "
         << copies_ << ", \"bytes\": " << copyBytes_ << ", \"sim_seconds\": " << copySeconds_
         << "},\n  \"sim_seconds\": " << simSeconds_ << ",\n  \"launches\": [";
      bool f = true;
      for (size_t li = 0; li < launchStats_.size(); ++li) {
        const timing::KernelTimingStats &ks = launchStats_[li];
        os << (f ? "\n    " : ",\n    ");
        f = false;
        if (li >= launchShapes_.size()) {
          os << timing::kernelStatsJson(ks);
          continue;
        }
        const LaunchShape &sh = launchShapes_[li];
        std::string members = ks.jsonMembers();
        os << "{\"kernel\": " << jsonQuote(ks.kernel) << ", \"grid\": [" << sh.grid[0] << ", "
           << sh.grid[1] << ", " << sh.grid[2] << "], \"block\": [" << sh.block[0] << ", "
           << sh.block[1] << ", " << sh.block[2] << "], \"start_seconds\": "
           << stats::formatValue(sh.startSeconds, true) << (members.empty() ? "" : ", ") << members
           << "}";
      }
      os << "\n  ]";
      if (powerOn_) {
        os << ",\n  \"power\": [";
        bool pf = true;
        for (const auto &kp : powerStats_) {
          os << (pf ? "\n    " : ",\n    ") << power::kernelPowerJson(kp);
          pf = false;
        }
        os << "\n  ],\n  \"power_idle_w\": " << powerModel_.idleW();
      }
    }
    os << "\n}\n";
  }
  // An override none of whose kernels replaced one of the program's changed nothing: the run
  // must not look like one of the override (`ptxsim run` refuses such a file up front when it
  // can read the program's PTX; this covers PTXSIM_PTX_OVERRIDE alone and PTX loaded at run time).
  bool unusedOverride = false;
  for (int id : overrideIds_)
    if (!overridesUsed_.count(id) && engine_ && !engine_->kernelNames(id).empty()) {
      std::fprintf(stderr,
                   "ptxsim: error: PTXSIM_PTX_OVERRIDE: no kernel of '%s' (%s, ...) was a kernel "
                   "of the program: the override replaced nothing\n",
                   engine_->program().modules()[size_t(id)]->fileName.c_str(),
                   engine_->kernelNames(id).front().c_str());
      unusedOverride = true;
    }
  if (unusedOverride)
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
  overrideIds_.clear();
  overridesLoaded_ = false;
  for (auto &fb : fatbins_) {
    fb->module = -1;
    fb->modules.clear();
    fb->loadTried = false;
  }
  for (auto &[stub, k] : kernels_)
    k->kernel = nullptr;
  for (auto &[host, v] : vars_)
    v.symbol = nullptr;
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
  for (auto &[host, v] : vars_)
    if (v.managedHostPtr) {
      ensureLoaded();
      break;
    }
}

} // namespace ptxsim::runtime

#include "runtime/api/Modules.h"

#include "ptx/exec/Program.h"
#include "ptx/exec/WorkerPool.h"
#include "runtime/api/UserError.h"
#include "runtime/fatbin/Fatbin.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <tuple>

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

} // namespace

ModuleRegistry::ModuleRegistry(std::function<ptx::exec::Engine &()> engine,
                               std::function<void()> beforeLoad)
    : engine_(std::move(engine)), beforeLoad_(std::move(beforeLoad)) {}

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
             std::map<std::string, uint32_t> &sassRegs,
             std::map<std::string, uint32_t> *sassFrames = nullptr) {
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
    std::map<std::string, uint32_t> regs, frames;
    if (fatbin::cubinRegisterCounts(sass->data, regs, &frames).empty()) {
      sassRegs.insert(regs.begin(), regs.end());
      if (sassFrames)
        sassFrames->insert(frames.begin(), frames.end());
    }
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

FatbinModule *ModuleRegistry::registerFatbin(const void *wrapperPtr) {
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
      if (!pickPtx(units[i], ptx, arch, uerr, result->sassRegs, &result->sassFrames)) {
        err = uerr;
        continue;
      }
      // NVIDIA's device runtime (-lcudadevrt: ~800 KB of PTX over hardware syscalls); the
      // engine implements its functions itself (ptx/exec/DeviceRuntime.h).
      if (ptx.find(".visible .func (.param .b32 func_retval0) __cudaCDP2LaunchDeviceV2(") !=
          std::string::npos)
        continue;
      result->units.push_back(
          {base + ".unit" + std::to_string(i) + ".sm_" + std::to_string(arch) + ".ptx",
           std::move(ptx)});
      if (!result->ptxArch)
        result->ptxArch = arch;
    }
    if (!result->units.empty()) {
      // The wrapper's own fat binary is the device-linked SASS: its counts win.
      std::string ignored, none;
      uint32_t a;
      std::map<std::string, uint32_t> linked, linkedFrames;
      pickPtx(static_cast<const uint8_t *>(w->data), ignored, a, none, linked, &linkedFrames);
      for (auto &[k, v] : linked)
        result->sassRegs[k] = v;
      for (auto &[k, v] : linkedFrames)
        result->sassFrames[k] = v;
      result->ptx = result->units[0].second;
      result->name = result->units[0].first;
      return result;
    }
  }
  std::string ptx;
  if (!pickPtx(static_cast<const uint8_t *>(w->data), ptx, arch, err, result->sassRegs,
               &result->sassFrames)) {
    result->loadError = err;
    return result;
  }
  result->ptx = std::move(ptx);
  result->ptxArch = arch;
  result->name = base + ".sm_" + std::to_string(arch) + ".ptx";
  result->units.push_back({result->name, result->ptx});
  return result;
}

void ModuleRegistry::registerFunction(FatbinModule *fb, const void *hostStub,
                                      const char *deviceName) {
  auto &slot = kernels_[hostStub];
  if (slot)
    kernelHandles_.erase(slot.get());
  slot = std::make_unique<KernelEntry>();
  slot->fatbin = fb;
  slot->deviceName = deviceName ? deviceName : "";
  kernelHandles_.insert(slot.get());
}

void ModuleRegistry::registerVar(FatbinModule *fb, const void *hostVar, const char *deviceName,
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

void ModuleRegistry::loadModule(FatbinModule &fb) {
  fb.loadTried = true;
  if (fb.ptx.empty()) {
    std::fprintf(stderr, "ptxsim: %s\n", fb.loadError.c_str());
    return;
  }
  fb.modules.clear();
  for (auto &[name, text] : fb.units) {
    DiagEngine diags;
    int id = engine_().loadModule(text, name, diags);
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
  for (int id : fb.modules) {
    for (auto &[name, regs] : fb.sassRegs)
      engine_().setHardwareRegisters(name, id, regs);
    for (auto &[name, bytes] : fb.sassFrames)
      engine_().setHardwareFrameSize(name, id, bytes);
  }
  bindSymbols(fb);
}

const std::vector<int> &ModuleRegistry::overrideModules() {
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
    int id = engine_().loadModule(ss.str(), f, diags);
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

void ModuleRegistry::bindKernel(KernelEntry &entry) {
  ptx::exec::Engine &eng = engine_();
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

void ModuleRegistry::bindSymbols(FatbinModule &fb) {
  ptx::exec::Engine &eng = engine_();
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

FatbinModule *ModuleRegistry::loadImage(const void *image, cudaError_t &err, bool lazy) {
  // Parsing and loading allocate a lot: on the service thread, out of the application's malloc
  // arena (WorkerPool::run says why), as __cudaRegisterFatBinary does.
  FatbinModule *result = nullptr;
  ptx::exec::WorkerPool::instance().runOffCaller([&] { result = loadImageHere(image, err, lazy); });
  return result;
}

FatbinModule *ModuleRegistry::loadImageHere(const void *image, cudaError_t &err, bool lazy) {
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
  } else if (std::memcmp(image,
                         "\x7f"
                         "ELF",
                         4) == 0) {
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

cudaError_t ModuleRegistry::ensureModule(FatbinModule *fb) {
  if (!fb->loadTried)
    ensureLoaded();
  if (fb->module >= 0)
    return cudaSuccess;
  return fb->ptx.empty() ? cudaErrorNoKernelImageForDevice : cudaErrorInvalidPtx;
}

KernelEntry *ModuleRegistry::moduleFunction(FatbinModule *fb, const char *name) {
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

const ptx::exec::GlobalSymbol *ModuleRegistry::moduleGlobal(FatbinModule *fb, const char *name) {
  const ptx::exec::GlobalSymbol *g = nullptr;
  for (int id : fb->modules)
    if (!g)
      g = engine_().findGlobal(name, id);
  if (g)
    for (int id : overrideModules())
      if (const ptx::exec::GlobalSymbol *o = engine_().findGlobal(name, id))
        g = o;
  return g;
}

bool ModuleRegistry::validModule(const FatbinModule *fb) const {
  if (!fb)
    return false;
  for (const auto &m : fatbins_)
    if (m.get() == fb)
      return !fb->unregistered && (fb->module >= 0 || !fb->loadTried);
  return false;
}

cudaError_t ModuleRegistry::ensureLoaded() {
  cudaError_t result = cudaSuccess;
  for (auto &fb : fatbins_) {
    if (fb->unregistered)
      continue;
    if (!fb->loadTried) { // parsing PTX allocates much: off the application's arena
      beforeLoad_();      // loading changes the engine's modules: nothing may run meanwhile
      ptx::exec::WorkerPool::instance().runOffCaller([&] { loadModule(*fb); });
    }
    if (fb->module < 0)
      result = fb->ptx.empty() ? cudaErrorNoKernelImageForDevice : cudaErrorInvalidPtx;
  }
  return result;
}

KernelEntry *ModuleRegistry::findKernel(const void *func) {
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

VarEntry *ModuleRegistry::findVar(const void *hostVar) {
  auto it = vars_.find(hostVar);
  if (it == vars_.end())
    return nullptr;
  if (!it->second.fatbin->loadTried)
    ensureLoaded();
  return &it->second;
}

void ModuleRegistry::forgetLoads() {
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
}

bool ModuleRegistry::hasManagedVars() const {
  for (auto &[host, v] : vars_)
    if (v.managedHostPtr)
      return true;
  return false;
}

bool ModuleRegistry::reportUnusedOverrides(ptx::exec::Engine *engine) const {
  bool unused = false;
  for (int id : overrideIds_)
    if (!overridesUsed_.count(id) && engine && !engine->kernelNames(id).empty()) {
      std::fprintf(stderr,
                   "ptxsim: error: PTXSIM_PTX_OVERRIDE: no kernel of '%s' (%s, ...) was a kernel "
                   "of the program: the override replaced nothing\n",
                   engine->program().modules()[size_t(id)]->fileName.c_str(),
                   engine->kernelNames(id).front().c_str());
      unused = true;
    }
  return unused;
}

} // namespace ptxsim::runtime

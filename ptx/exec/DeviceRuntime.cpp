#include "ptx/exec/DeviceRuntime.h"

#include "ptx/exec/Exec.h"
#include "ptx/exec/Program.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>

namespace ptxsim::ptx::exec {

namespace {

// cudaError_t values of CUDA 13's driver_types.h (the executor does not include CUDA headers).
enum : int32_t {
  kSuccess = 0,
  kInvalidValue = 1,
  kMemoryAllocation = 2,
  kInvalidConfiguration = 9,
  kInvalidMemcpyDirection = 21,
  kLaunchMaxDepthExceeded = 65,
  kLaunchPendingCountExceeded = 69,
  kInvalidDeviceFunction = 98,
  kInvalidDevice = 101,
  kUnsupportedLimit = 215,
  kInvalidResourceHandle = 400,
  kLaunchOutOfResources = 701,
  kNotSupported = 801,
};

// Stream handles of CUDA 12+ device code (cuda_device_runtime_api.h).
constexpr uint64_t kStreamTailLaunch = 0x3, kStreamFireAndForget = 0x4;
// Handles of streams and events a block creates: tagged so they are easy to recognise.
constexpr uint64_t kStreamTag = 0x57e4000000000000ull, kEventTag = 0xe7e4000000000000ull;

constexpr uint64_t kParamRegionBytes = 8ull << 20;
constexpr uint64_t kTextRegionBytes = 64ull << 10;

enum class Fn : uint32_t {
  GetParameterBufferV2, GetParameterBuffer, LaunchDeviceV2, LaunchDevice, GetLastError,
  PeekAtLastError, GetErrorString, GetErrorName, GetDeviceCount, GetDevice, DeviceGetAttribute,
  DeviceGetLimit, DeviceGetCacheConfig, DeviceGetSharedMemConfig, StreamCreateWithFlags,
  StreamDestroy, StreamWaitEvent, EventCreateWithFlags, EventRecord, EventRecordWithFlags,
  EventDestroy, Malloc, Free, MemcpyAsync, Memcpy2DAsync, MemsetAsync, Memset2DAsync,
  RuntimeGetVersion, GraphSetConditional, NotSupported
};

struct NamedFn {
  std::string_view name; ///< after the `__cudaCDP2` or `cuda` prefix
  Fn fn;
};
// The device runtime API of cuda_device_runtime_api.h; `_ptsz` variants behave alike.
constexpr NamedFn kFunctions[] = {
    {"GetParameterBufferV2", Fn::GetParameterBufferV2},
    {"GetParameterBuffer", Fn::GetParameterBuffer},
    {"LaunchDeviceV2", Fn::LaunchDeviceV2},
    {"LaunchDeviceV2_ptsz", Fn::LaunchDeviceV2},
    {"LaunchDevice", Fn::LaunchDevice},
    {"LaunchDevice_ptsz", Fn::LaunchDevice},
    {"GetLastError", Fn::GetLastError},
    {"PeekAtLastError", Fn::PeekAtLastError},
    {"GetErrorString", Fn::GetErrorString},
    {"GetErrorName", Fn::GetErrorName},
    {"GetDeviceCount", Fn::GetDeviceCount},
    {"GetDevice", Fn::GetDevice},
    {"DeviceGetAttribute", Fn::DeviceGetAttribute},
    {"DeviceGetLimit", Fn::DeviceGetLimit},
    {"DeviceGetCacheConfig", Fn::DeviceGetCacheConfig},
    {"DeviceGetSharedMemConfig", Fn::DeviceGetSharedMemConfig},
    {"StreamCreateWithFlags", Fn::StreamCreateWithFlags},
    {"StreamDestroy", Fn::StreamDestroy},
    {"StreamWaitEvent", Fn::StreamWaitEvent},
    {"StreamWaitEvent_ptsz", Fn::StreamWaitEvent},
    {"EventCreateWithFlags", Fn::EventCreateWithFlags},
    {"EventRecord", Fn::EventRecord},
    {"EventRecord_ptsz", Fn::EventRecord},
    {"EventRecordWithFlags", Fn::EventRecordWithFlags},
    {"EventRecordWithFlags_ptsz", Fn::EventRecordWithFlags},
    {"EventDestroy", Fn::EventDestroy},
    {"Malloc", Fn::Malloc},
    {"Free", Fn::Free},
    {"MemcpyAsync", Fn::MemcpyAsync},
    {"MemcpyAsync_ptsz", Fn::MemcpyAsync},
    {"Memcpy2DAsync", Fn::Memcpy2DAsync},
    {"Memcpy2DAsync_ptsz", Fn::Memcpy2DAsync},
    {"MemsetAsync", Fn::MemsetAsync},
    {"MemsetAsync_ptsz", Fn::MemsetAsync},
    {"Memset2DAsync", Fn::Memset2DAsync},
    {"Memset2DAsync_ptsz", Fn::Memset2DAsync},
    {"RuntimeGetVersion", Fn::RuntimeGetVersion},
    {"GraphSetConditional", Fn::GraphSetConditional},
    // known, not modelled: return cudaErrorNotSupported (and say so once)
    {"Memcpy3DAsync", Fn::NotSupported},
    {"Memcpy3DAsync_ptsz", Fn::NotSupported},
    {"Memset3DAsync", Fn::NotSupported},
    {"Memset3DAsync_ptsz", Fn::NotSupported},
    {"FuncGetAttributes", Fn::NotSupported},
    {"OccupancyMaxActiveBlocksPerMultiprocessor", Fn::NotSupported},
    {"OccupancyMaxActiveBlocksPerMultiprocessorWithFlags", Fn::NotSupported},
    {"GraphLaunch", Fn::NotSupported},
    {"GraphKernelNodeSetParam", Fn::NotSupported},
    {"GraphKernelNodeSetEnabled", Fn::NotSupported},
    {"GraphKernelNodeSetGridDim", Fn::NotSupported},
    {"GraphKernelNodeUpdatesApply", Fn::NotSupported},
};
constexpr uint32_t kNumFunctions = sizeof(kFunctions) / sizeof(kFunctions[0]);

struct Buffer {
  uint64_t addr = 0, bytes = 0;
  const Kernel *kernel = nullptr; ///< null for cudaGetParameterBuffer (launch names the kernel)
  Dim3 grid, block;
  uint32_t shared = 0;
};

} // namespace

struct DeviceRuntimeCta {
  std::vector<int32_t> lastError; ///< per thread of the CTA
  std::vector<Buffer> buffers;    ///< handed out, not launched yet
  std::vector<uint64_t> streams, events;
  uint64_t nextHandle = 0;
  CtaDeviceWork queue;
};

void DeviceRuntimeCtaDeleter::operator()(DeviceRuntimeCta *p) const { delete p; }

// --- engine-wide state ----------------------------------------------------------------------------

DeviceRuntime::~DeviceRuntime() {
  if (paramBase_)
    mem_.release(paramBase_);
  if (textBase_)
    mem_.release(textBase_);
}

void DeviceRuntime::prepareGrid() {
  if (!prog_.usesDeviceRuntime)
    return;
  if (!paramBase_) {
    paramBase_ = mem_.allocate(kParamRegionBytes, AllocKind::Param);
    paramBytes_ = paramBase_ ? kParamRegionBytes : 0;
    textBase_ = mem_.allocate(kTextRegionBytes, AllocKind::Const);
    textBytes_ = textBase_ ? kTextRegionBytes : 0;
  }
  paramUsed_.store(0, std::memory_order_relaxed);
  if (kernelModules_ != prog_.modules().size()) {
    kernelModules_ = prog_.modules().size();
    kernels_.clear();
    for (const auto &m : prog_.modules())
      for (const auto &[name, k] : m->kernels)
        kernels_[k.fn] = &k;
  }
}

uint64_t DeviceRuntime::paramBuffer(uint64_t bytes) {
  if (bytes > paramBytes_) // (also keeps the rounding below from wrapping)
    return 0;
  uint64_t need = (std::max<uint64_t>(bytes, 1) + 15) & ~15ull;
  uint64_t at = paramUsed_.fetch_add(need, std::memory_order_relaxed);
  if (at + need > paramBytes_)
    return 0;
  std::memset(reinterpret_cast<void *>(paramBase_ + at), 0, need);
  return paramBase_ + at;
}

const Kernel *DeviceRuntime::kernelOf(const ir::Function *f) const {
  auto it = kernels_.find(f);
  return it == kernels_.end() ? nullptr : it->second;
}

uint64_t DeviceRuntime::errorText(int32_t code, bool name) {
  std::lock_guard<std::mutex> lock(textMu_);
  int64_t key = int64_t(code) * 2 + (name ? 1 : 0);
  auto it = texts_.find(key);
  if (it != texts_.end())
    return it->second;
  std::string text;
  if (hooks.errorText)
    if (const char *t = hooks.errorText(code, name))
      text = t;
  if (text.empty())
    text = code == 0 ? (name ? "cudaSuccess" : "no error") : "cuda error " + std::to_string(code);
  if (textUsed_ + text.size() + 1 > textBytes_)
    return 0;
  uint64_t addr = textBase_ + textUsed_;
  std::memcpy(reinterpret_cast<void *>(addr), text.c_str(), text.size() + 1);
  textUsed_ += text.size() + 1;
  texts_[key] = addr;
  return addr;
}

bool DeviceRuntime::attribute(int32_t attr, int32_t &value) const {
  if (hooks.attribute)
    return hooks.attribute(attr, value);
  // Without an embedder: the engine's own limits (cudaDeviceAttr numbering).
  switch (attr) {
  case 1: value = int32_t(cfg_.maxThreadsPerBlock); return true;           // MaxThreadsPerBlock
  case 8: value = int32_t(cfg_.maxSharedPerBlock); return true;            // MaxSharedMemoryPerBlock
  case 10: value = 32; return true;                                        // WarpSize
  case 16: value = int32_t(cfg_.numSms); return true;                      // MultiProcessorCount
  case 97: value = int32_t(cfg_.maxSharedPerBlockOptin); return true;      // MaxSharedMemoryPerBlockOptin
  default: return false;
  }
}

// --- name binding ---------------------------------------------------------------------------------

uint32_t deviceRuntimeBuiltin(std::string_view name) {
  std::string_view rest;
  if (name.substr(0, 10) == "__cudaCDP2")
    rest = name.substr(10);
  else if (name.substr(0, 4) == "cuda")
    rest = name.substr(4); // CDP1 spellings, and cudaGetParameterBuffer/cudaLaunchDevice of PTX
  else
    return 0;
  for (uint32_t i = 0; i < kNumFunctions; ++i)
    if (kFunctions[i].name == rest)
      return uint32_t(Builtin::DeviceRuntimeFirst) + i;
  return 0;
}

// --- queues ---------------------------------------------------------------------------------------

CtaDeviceWork takeCtaDeviceWork(Cta &cta) {
  CtaDeviceWork w;
  if (cta.devrt) {
    w = std::move(cta.devrt->queue);
    cta.devrt.reset();
  }
  return w;
}

std::vector<DeviceWork> mergeDeviceWork(std::vector<std::pair<uint64_t, CtaDeviceWork>> &ctas) {
  std::sort(ctas.begin(), ctas.end(),
            [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<DeviceWork> out;
  for (auto &c : ctas)
    for (DeviceWork &w : c.second.work)
      out.push_back(std::move(w));
  for (auto &c : ctas)
    for (DeviceWork &w : c.second.tail)
      out.push_back(std::move(w));
  return out;
}

// --- the calls ------------------------------------------------------------------------------------

namespace {

struct Call {
  ExecCtx &ctx;
  Warp &w;
  const ir::Inst &in;
  const ir::CallSite &site;
  DeviceRuntime &rt;
  DeviceRuntimeCta &st;
  unsigned lane = 0;

  uint64_t arg(size_t i) const { return builtinArg(w, site.args[i], lane); }
  Dim3 dimArg(size_t i) const {
    uint32_t d[3] = {1, 1, 1};
    builtinArgBytes(w, site.args[i], lane, d, sizeof d);
    return Dim3{d[0], d[1], d[2]};
  }
  void ret(uint64_t v) const { builtinReturn(w, site, lane, v); }
  int32_t &lastError() const { return st.lastError[w.linearTid(lane)]; }
  /// Returns `e` from the call and, when it is an error, makes it the thread's last error.
  void status(int32_t e) const {
    if (e != kSuccess)
      lastError() = e;
    ret(uint64_t(uint32_t(e)));
  }
  /// Host pointer for `n` bytes at generic address `addr` that the call writes, or null.
  uint8_t *out(uint64_t addr, unsigned n) const {
    return addr ? translateGeneric(ctx, w, lane, addr, n) : nullptr;
  }
  template <class T> bool store(uint64_t addr, T v) const {
    uint8_t *p = out(addr, sizeof(T));
    if (p)
      std::memcpy(p, &v, sizeof(T));
    return p != nullptr;
  }
};

DeviceRuntimeCta &ctaState(Cta &cta) {
  if (!cta.devrt) {
    cta.devrt.reset(new DeviceRuntimeCta());
    cta.devrt->lastError.assign(cta.grid->threadsPerCta, kSuccess);
  }
  return *cta.devrt;
}

/// Checks a device launch configuration like the host runtime does.
int32_t checkConfig(const EngineConfig &cfg, const Kernel &k, Dim3 g, Dim3 b, uint32_t shared) {
  uint64_t threads = b.count();
  if (!g.x || !g.y || !g.z || !b.x || !b.y || !b.z || b.x > 1024 || b.y > 1024 || b.z > 64 ||
      threads > cfg.maxThreadsPerBlock || g.x > 0x7fffffffu || g.y > 65535 || g.z > 65535)
    return kInvalidConfiguration;
  if (k.maxThreads && threads > k.maxThreads)
    return kLaunchOutOfResources;
  if (uint64_t(k.staticShared) + shared > cfg.maxSharedPerBlockOptin)
    return kInvalidValue;
  return kSuccess;
}

/// cudaGetParameterBufferV2 (`kernel` set) or cudaGetParameterBuffer: a buffer, or 0 with the
/// thread's last error set.
uint64_t getBuffer(const Call &c, const Kernel *kernel, uint64_t bytes, Dim3 g, Dim3 b,
                   uint32_t shared) {
  uint64_t addr = c.rt.paramBuffer(bytes);
  if (!addr) {
    c.lastError() = kMemoryAllocation;
    return 0;
  }
  c.st.buffers.push_back(Buffer{addr, bytes, kernel, g, b, shared});
  return addr;
}

bool knownStream(const DeviceRuntimeCta &st, uint64_t s) {
  return s == 0 || s == kStreamTailLaunch || s == kStreamFireAndForget ||
         std::find(st.streams.begin(), st.streams.end(), s) != st.streams.end();
}

/// Queues work for `stream`: the tail-launch stream runs after every other launch of the grid.
void enqueue(const Call &c, uint64_t stream, DeviceWork &&w) {
  w.launcher = c.ctx.grid->kernel->name;
  (stream == kStreamTailLaunch ? c.st.queue.tail : c.st.queue.work).push_back(std::move(w));
}

/// cudaLaunchDevice(V2): launches the buffer at `addr`; `kernel`, when given, overrides the
/// buffer's (cudaLaunchDevice names the kernel and configuration at the launch).
int32_t launch(const Call &c, uint64_t addr, uint64_t stream, const Kernel *kernel, Dim3 g,
               Dim3 b, uint32_t shared) {
  auto it = std::find_if(c.st.buffers.rbegin(), c.st.buffers.rend(),
                         [&](const Buffer &x) { return x.addr == addr; });
  if (it == c.st.buffers.rend())
    return kInvalidValue;
  Buffer buf = *it;
  c.st.buffers.erase(std::next(it).base());
  if (!kernel) {
    kernel = buf.kernel;
    g = buf.grid;
    b = buf.block;
    shared = buf.shared;
  }
  if (!kernel)
    return kInvalidDeviceFunction;
  if (!knownStream(c.st, stream))
    return kInvalidResourceHandle;
  uint32_t depth = c.ctx.grid->depth + 1;
  if (depth > kMaxLaunchDepth)
    return kLaunchMaxDepthExceeded;
  if (c.rt.pending.fetch_add(1, std::memory_order_relaxed) >= c.rt.pendingLimit) {
    c.rt.pending.fetch_sub(1, std::memory_order_relaxed);
    return kLaunchPendingCountExceeded;
  }
  DeviceWork w;
  w.kind = DeviceWork::Kind::Kernel;
  w.kernel = kernel;
  w.grid = g;
  w.block = b;
  w.dynamicShared = shared;
  w.depth = depth;
  w.params.assign(kernel->paramBytes, 0);
  std::memcpy(w.params.data(), reinterpret_cast<const void *>(addr),
              std::min<uint64_t>(kernel->paramBytes, buf.bytes));
  enqueue(c, stream, std::move(w));
  return kSuccess;
}

/// The kernel a device function address names, with its configuration checked.
int32_t resolveKernel(const Call &c, uint64_t func, Dim3 g, Dim3 b, uint32_t shared,
                      const Kernel *&k) {
  const ir::Function *f = c.ctx.prog->functionAt(func);
  k = f && f->isEntry ? c.rt.kernelOf(f) : nullptr;
  if (!k)
    return kInvalidDeviceFunction;
  return checkConfig(c.rt.config(), *k, g, b, shared);
}

bool validRange(DeviceMemory &mem, uint64_t addr, uint64_t n) { return mem.valid(addr, n); }

/// Queues `height` rows of a device-side copy or memset.
int32_t queueRows(const Call &c, DeviceWork::Kind kind, uint64_t dst, uint64_t dpitch,
                  uint64_t src, uint64_t spitch, uint64_t width, uint64_t height,
                  uint64_t stream) {
  if (!knownStream(c.st, stream))
    return kInvalidResourceHandle;
  if (!width || !height)
    return kSuccess;
  DeviceMemory &mem = c.rt.memory();
  if (height > 1 && (dpitch < width || (kind == DeviceWork::Kind::Memcpy && spitch < width)))
    return kInvalidValue;
  uint64_t dspan = dpitch * (height - 1) + width, sspan = spitch * (height - 1) + width;
  if (!validRange(mem, dst, dspan) ||
      (kind == DeviceWork::Kind::Memcpy && !validRange(mem, src, sspan)))
    return kInvalidValue;
  for (uint64_t r = 0; r < height; ++r) {
    DeviceWork w;
    w.kind = kind;
    w.dst = dst + r * dpitch;
    w.src = kind == DeviceWork::Kind::Memcpy ? src + r * spitch : src;
    w.bytes = width;
    enqueue(c, stream, std::move(w));
  }
  return kSuccess;
}

void reportNotSupported(std::string_view name) {
  static auto *mu = new std::mutex(); // never destroyed (no destructor at exit)
  static auto *said = new std::set<std::string, std::less<>>();
  std::lock_guard<std::mutex> lock(*mu);
  if (said->insert(std::string(name)).second)
    std::fprintf(stderr, "ptxsim: device-side cuda%.*s is not supported; it returns cudaErrorNotSupported\n",
                 int(name.size()), name.data());
}

/// Argument count each function needs (a declaration with fewer cannot be called safely).
size_t argCount(Fn f) {
  switch (f) {
  case Fn::GetParameterBufferV2: return 4;
  case Fn::GetParameterBuffer: return 2;
  case Fn::LaunchDeviceV2: return 2;
  case Fn::LaunchDevice: return 6;
  case Fn::GetLastError: case Fn::PeekAtLastError: return 0;
  case Fn::GetErrorString: case Fn::GetErrorName: return 1;
  case Fn::GetDeviceCount: case Fn::GetDevice: return 1;
  case Fn::DeviceGetAttribute: return 3;
  case Fn::DeviceGetLimit: return 2;
  case Fn::DeviceGetCacheConfig: case Fn::DeviceGetSharedMemConfig: return 1;
  case Fn::StreamCreateWithFlags: return 2;
  case Fn::StreamDestroy: return 1;
  case Fn::StreamWaitEvent: return 3;
  case Fn::EventCreateWithFlags: return 2;
  case Fn::EventRecord: return 2;
  case Fn::EventRecordWithFlags: return 3;
  case Fn::EventDestroy: return 1;
  case Fn::Malloc: return 2;
  case Fn::Free: return 1;
  case Fn::MemcpyAsync: return 5;
  case Fn::Memcpy2DAsync: return 8;
  case Fn::MemsetAsync: return 4;
  case Fn::Memset2DAsync: return 6;
  case Fn::RuntimeGetVersion: return 1;
  case Fn::GraphSetConditional: return 2;
  case Fn::NotSupported: return 0;
  }
  return 0;
}

void callOne(Call &c, Fn fn, std::string_view name) {
  DeviceRuntimeCta &st = c.st;
  switch (fn) {
  case Fn::GetParameterBufferV2: {
    const Kernel *k = nullptr;
    Dim3 g = c.dimArg(1), b = c.dimArg(2);
    uint32_t shared = uint32_t(c.arg(3));
    int32_t e = resolveKernel(c, c.arg(0), g, b, shared, k);
    if (e != kSuccess) {
      c.lastError() = e;
      c.ret(0);
      return;
    }
    c.ret(getBuffer(c, k, k->paramBytes, g, b, shared));
    return;
  }
  case Fn::GetParameterBuffer:
    c.ret(getBuffer(c, nullptr, c.arg(1), {}, {}, 0));
    return;
  case Fn::LaunchDeviceV2:
    c.status(launch(c, c.arg(0), c.arg(1), nullptr, {}, {}, 0));
    return;
  case Fn::LaunchDevice: {
    const Kernel *k = nullptr;
    Dim3 g = c.dimArg(2), b = c.dimArg(3);
    uint32_t shared = uint32_t(c.arg(4));
    int32_t e = resolveKernel(c, c.arg(0), g, b, shared, k);
    c.status(e != kSuccess ? e : launch(c, c.arg(1), c.arg(5), k, g, b, shared));
    return;
  }
  case Fn::GetLastError: {
    int32_t e = c.lastError();
    c.lastError() = kSuccess;
    c.ret(uint32_t(e));
    return;
  }
  case Fn::PeekAtLastError:
    c.ret(uint32_t(c.lastError()));
    return;
  case Fn::GetErrorString:
  case Fn::GetErrorName:
    c.ret(c.rt.errorText(int32_t(c.arg(0)), fn == Fn::GetErrorName));
    return;
  case Fn::GetDeviceCount:
    c.status(c.store<int32_t>(c.arg(0), 1) ? kSuccess : kInvalidValue);
    return;
  case Fn::GetDevice:
    c.status(c.store<int32_t>(c.arg(0), 0) ? kSuccess : kInvalidValue);
    return;
  case Fn::DeviceGetAttribute: {
    int32_t v = 0;
    if (int32_t(c.arg(2)) != 0)
      c.status(kInvalidDevice);
    else if (!c.rt.attribute(int32_t(c.arg(1)), v))
      c.status(kInvalidValue);
    else
      c.status(c.store<int32_t>(c.arg(0), v) ? kSuccess : kInvalidValue);
    return;
  }
  case Fn::DeviceGetLimit: {
    const EngineConfig &cfg = c.rt.config();
    uint64_t v;
    switch (uint32_t(c.arg(1))) { // cudaLimit
    case 0: v = cfg.stackBytes; break;
    case 1: v = 1 << 20; break; // printf FIFO
    case 2: v = cfg.heapBytes; break;
    case 3: v = 2; break;       // sync depth (CDP1 only)
    case 4: v = c.rt.pendingLimit; break;
    default: c.status(kUnsupportedLimit); return;
    }
    c.status(c.store<uint64_t>(c.arg(0), v) ? kSuccess : kInvalidValue);
    return;
  }
  case Fn::DeviceGetCacheConfig: // cudaFuncCachePreferNone
    c.status(c.store<int32_t>(c.arg(0), 0) ? kSuccess : kInvalidValue);
    return;
  case Fn::DeviceGetSharedMemConfig: // cudaSharedMemBankSizeFourByte
    c.status(c.store<int32_t>(c.arg(0), 1) ? kSuccess : kInvalidValue);
    return;
  case Fn::StreamCreateWithFlags: {
    if (uint32_t(c.arg(1)) != 1) { // device streams must be cudaStreamNonBlocking
      c.status(kInvalidValue);
      return;
    }
    uint64_t h = kStreamTag + 16 * ++st.nextHandle;
    if (!c.store<uint64_t>(c.arg(0), h)) {
      c.status(kInvalidValue);
      return;
    }
    st.streams.push_back(h);
    c.status(kSuccess);
    return;
  }
  case Fn::StreamDestroy: {
    auto it = std::find(st.streams.begin(), st.streams.end(), c.arg(0));
    if (it == st.streams.end()) {
      c.status(kInvalidResourceHandle);
      return;
    }
    st.streams.erase(it);
    c.status(kSuccess);
    return;
  }
  case Fn::StreamWaitEvent: {
    // Work queued by a block runs in the order it was queued, so every event dependency
    // inside the block already holds.
    bool ok = knownStream(st, c.arg(0)) &&
              std::find(st.events.begin(), st.events.end(), c.arg(1)) != st.events.end();
    c.status(ok ? kSuccess : kInvalidResourceHandle);
    return;
  }
  case Fn::EventCreateWithFlags: {
    if (!(uint32_t(c.arg(1)) & 2)) { // device events must be cudaEventDisableTiming
      c.status(kInvalidValue);
      return;
    }
    uint64_t h = kEventTag + 16 * ++st.nextHandle;
    if (!c.store<uint64_t>(c.arg(0), h)) {
      c.status(kInvalidValue);
      return;
    }
    st.events.push_back(h);
    c.status(kSuccess);
    return;
  }
  case Fn::EventRecord:
  case Fn::EventRecordWithFlags: {
    bool ok = knownStream(st, c.arg(1)) &&
              std::find(st.events.begin(), st.events.end(), c.arg(0)) != st.events.end();
    c.status(ok ? kSuccess : kInvalidResourceHandle);
    return;
  }
  case Fn::EventDestroy: {
    auto it = std::find(st.events.begin(), st.events.end(), c.arg(0));
    if (it == st.events.end()) {
      c.status(kInvalidResourceHandle);
      return;
    }
    st.events.erase(it);
    c.status(kSuccess);
    return;
  }
  case Fn::Malloc: {
    uint64_t p = c.ctx.prog->heapMalloc(c.arg(1));
    if (!c.store<uint64_t>(c.arg(0), p)) {
      if (p)
        c.ctx.prog->heapFree(p);
      c.status(kInvalidValue);
      return;
    }
    c.status(p ? kSuccess : kMemoryAllocation);
    return;
  }
  case Fn::Free:
    c.ctx.prog->heapFree(c.arg(0));
    c.status(kSuccess);
    return;
  case Fn::MemcpyAsync:
  case Fn::Memcpy2DAsync: {
    bool twoD = fn == Fn::Memcpy2DAsync;
    uint64_t dst = c.arg(0), dpitch = twoD ? c.arg(1) : 0, src = c.arg(twoD ? 2 : 1);
    uint64_t spitch = twoD ? c.arg(3) : 0, width = c.arg(twoD ? 4 : 2), height = twoD ? c.arg(5) : 1;
    uint32_t kind = uint32_t(c.arg(twoD ? 6 : 3));
    uint64_t stream = c.arg(twoD ? 7 : 4);
    if (kind != 3 && kind != 4) { // device code copies device to device (or cudaMemcpyDefault)
      c.status(kInvalidMemcpyDirection);
      return;
    }
    c.status(queueRows(c, DeviceWork::Kind::Memcpy, dst, dpitch, src, spitch, width, height, stream));
    return;
  }
  case Fn::MemsetAsync:
  case Fn::Memset2DAsync: {
    bool twoD = fn == Fn::Memset2DAsync;
    uint64_t dst = c.arg(0), pitch = twoD ? c.arg(1) : 0;
    uint64_t value = uint8_t(c.arg(twoD ? 2 : 1));
    uint64_t width = c.arg(twoD ? 3 : 2), height = twoD ? c.arg(4) : 1;
    uint64_t stream = c.arg(twoD ? 5 : 3);
    c.status(queueRows(c, DeviceWork::Kind::Memset, dst, pitch, value, 0, width, height, stream));
    return;
  }
  case Fn::RuntimeGetVersion:
    c.status(c.store<int32_t>(c.arg(0), 13000) ? kSuccess : kInvalidValue);
    return;
  case Fn::GraphSetConditional: {
    // the handle is the device address of the condition's 32-bit slot (runtime/api/Graphs.cpp)
    uint64_t h = c.arg(0);
    if (!c.store<uint32_t>(h, uint32_t(c.arg(1)))) {
      char msg[96];
      std::snprintf(msg, sizeof msg,
                    "cudaGraphSetConditional: 0x%llx is not a conditional handle",
                    (unsigned long long)h);
      c.ctx.fault(FaultKind::Invalid, c.w, c.in, c.lane, msg);
    }
    return;
  }
  case Fn::NotSupported:
    reportNotSupported(name);
    c.status(kNotSupported);
    return;
  }
}

} // namespace

bool deviceRuntimeCall(ExecCtx &ctx, Warp &w, const ir::Inst &in, uint32_t id,
                       const ir::CallSite &site, uint32_t mask) {
  uint32_t idx = id - uint32_t(Builtin::DeviceRuntimeFirst);
  Fn fn = kFunctions[idx].fn;
  std::string_view name = kFunctions[idx].name;
  if (site.args.size() < argCount(fn)) {
    ctx.fault(FaultKind::Invalid, w, in, (unsigned)__builtin_ctz(mask),
              "call to device runtime function cuda" + std::string(name) + " with " +
                  std::to_string(site.args.size()) + " arguments; it takes " +
                  std::to_string(argCount(fn)));
    return false;
  }
  if (!ctx.grid->devrt) {
    ctx.fault(FaultKind::Invalid, w, in, (unsigned)__builtin_ctz(mask),
              "device runtime call cuda" + std::string(name) + " outside a launch");
    return false;
  }
  Call c{ctx, w, in, site, *ctx.grid->devrt, ctaState(*w.cta)};
  forLanes(mask, [&](unsigned l) {
    c.lane = l;
    callOne(c, fn, name);
  });
  return true;
}

} // namespace ptxsim::ptx::exec

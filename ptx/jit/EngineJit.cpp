// The engine's side of the JIT (docs/executor.md, "The JIT engine"): the mode, compiling a
// kernel and the functions it calls before its first launch, and the differential mode.

#include "ptx/exec/Engine.h"
#include "ptx/exec/Program.h"
#include "ptx/jit/JitCache.h"
#include "ptx/jit/JitOps.h"
#include "ptx/jit/ObjectLoader.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <map>
#include <memory>
#include <thread>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ptxsim::ptx::exec {

namespace cache = jit::cache;

void Engine::initJit() {
  jit::Mode m = jit::Mode::Off;
  std::string err;
  const char *v = std::getenv("PTXSIM_JIT");
  if (!jit::parseMode(v, m, err)) {
    std::fprintf(stderr, "ptxsim: %s; the interpreter runs every kernel\n", err.c_str());
    m = jit::Mode::Off;
  }
  // the default (auto) in a build without the JIT module: the interpreter, without a word
  // (--jit auto asked for explicitly names the reason in the summary once a kernel is hot)
  if (m == jit::Mode::Auto && (!v || !*v) && jit::moduleFile().empty())
    m = jit::Mode::Off;
  jitMode_ = (uint8_t)m;
}

namespace {
/// Warns once per process about each text (a damaged cache file, an unwritable directory).
void warnOnce(const std::string &text) {
  static std::mutex mu;
  static auto &said = *new std::vector<std::string>;
  std::lock_guard<std::mutex> lock(mu);
  if (std::find(said.begin(), said.end(), text) != said.end())
    return;
  said.push_back(text);
  std::fprintf(stderr, "ptxsim: warning: %s\n", text.c_str());
}

/// A positive count from the environment variable `name`, else `dflt` (said once when the
/// value is not one).
size_t envCount(const char *name, size_t dflt, const char *what) {
  const char *v = std::getenv(name);
  if (!v || !*v)
    return dflt;
  char *end = nullptr;
  unsigned long long n = std::strtoull(v, &end, 10);
  if (*end || n == 0 || n > UINT32_MAX) {
    warnOnce(std::string(name) + " must be a positive number of instructions, not '" + v + "'; " + what);
    return dflt;
  }
  return size_t(n);
}
/// The largest function (in PTX instructions) the JIT compiles: PTXSIM_JIT_MAX_INSTS, else no
/// limit (a large function is compiled in pc ranges, in time linear in its size).
size_t jitMaxInsts() {
  static const size_t max = envCount("PTXSIM_JIT_MAX_INSTS", SIZE_MAX, "there is no limit");
  return max;
}
/// The instructions of one pc range (Backend::compile): PTXSIM_JIT_RANGE_INSTS, else
/// kRangeInsts (docs/executor.md, "Large functions", for the measurements behind it).
constexpr size_t kRangeInsts = 256;
uint32_t jitRangeInsts() { // read at every compile (tests set it per kernel)
  return (uint32_t)envCount("PTXSIM_JIT_RANGE_INSTS", kRangeInsts, "ranges stay 256 instructions");
}

/// The kernel and every function it reaches by direct calls that has no code yet (indirect
/// callees are interpreted).
std::vector<const ir::Function *> closure(const Program &prog, const ir::Function *kernel) {
  std::vector<const ir::Function *> todo{kernel}, fns;
  while (!todo.empty()) {
    const ir::Function *f = todo.back();
    todo.pop_back();
    if (!f || !f->hasBody || f->jit || std::find(fns.begin(), fns.end(), f) != fns.end())
      continue;
    fns.push_back(f);
    for (const ir::CallSite &c : f->calls)
      if (!c.builtin)
        todo.push_back(prog.function(c.callee));
  }
  return fns;
}

/// ptxsim's build, for the cache key: the object holding the handlers.
const void *handlerAnchor() { return reinterpret_cast<const void *>(&jit::describedOp); }
const std::string &engineBuild() {
  static const std::string &b = *new std::string(cache::buildOf(handlerAnchor()));
  return b;
}

/// The disk cache's key of `f`'s code. The pc ranges shape the code: the default size is part
/// of the build, another one (PTXSIM_JIT_RANGE_INSTS) is part of the key.
std::string cacheKey(const ir::Function &f) {
  const uint32_t ranges = jitRangeInsts();
  return cache::key(f, handlerAnchor(),
                    ranges == kRangeInsts ? engineBuild() : engineBuild() + "; pc ranges of " + std::to_string(ranges));
}

/// This process's loader::identity() (computed once: it reads the JIT module's build id).
const std::string &loaderIdentity() {
  static const std::string &id = *new std::string(jit::loader::identity(jit::moduleFile()));
  return id;
}

/// The code of a kernel's functions, from the disk cache or from LLVM.
struct Obtained {
  std::vector<const jit::FunctionCode *> code; ///< one per function on success
  std::string err;
  double compileSeconds = 0, cacheSeconds = 0;
  uint32_t compiled = 0, cached = 0, loaded = 0, inRanges = 0;
};

/// Maps the cached code of `f` with the JIT's own loader (no LLVM), when the cache holds code
/// this loader may run; null otherwise, with a warning when the file or its object is bad (then
/// `refused` is set: the object is not handed to LLVM either, whose linker aborts on some
/// malformed objects; it is compiled again and rewritten).
const jit::FunctionCode *loadCached(const ir::Function &f, const std::string &dir, const std::string &key,
                                    bool &refused) {
  const std::string &lid = loaderIdentity();
  if (lid.empty())
    return nullptr;
  cache::Entry e;
  std::string why;
  const cache::Load r = cache::load(dir, key, std::string(), e, why, lid);
  if (r == cache::Load::Corrupt)
    warnOnce(why);
  if (r != cache::Load::Hit)
    return nullptr;
  refused = true;
  if (e.entry.size() != f.code.size() + 1) {
    warnOnce("the JIT cache's code of '" + f.name + "' has " + std::to_string(e.entry.size()) +
             " entry flags for " + std::to_string(f.code.size()) + " instructions; it is compiled again");
    return nullptr;
  }
  std::string lerr;
  void *run = jit::loader::load(e.object, jit::kRunSymbol, lerr);
  if (!run) {
    warnOnce("the JIT cache's code of '" + f.name + "' (" + dir + "/" + key + ".jitobj) cannot be loaded: " +
             lerr + "; it is compiled again");
    return nullptr;
  }
  refused = false;
  auto *c = new jit::FunctionCode; // lives as long as the process, like the IR it runs
  c->run = reinterpret_cast<jit::RunFn>(run);
  c->entry = std::move(e.entry);
  c->nativeInsts = e.nativeInsts, c->calledInsts = e.calledInsts, c->branches = e.branches;
  return c;
}

/// `be` may be null: LLVM is then loaded only when a function is not in the cache in a form the
/// JIT's own loader runs (`loaderOnly`: not at all; the result is then incomplete, with no
/// reason named, and the caller goes on interpreting).
Obtained obtain(jit::Backend *be, const std::vector<const ir::Function *> &fns,
                const ir::Function *kernel, bool loaderOnly = false) {
  Obtained o;
  const std::string dir = cache::directory();
  const size_t maxInsts = jitMaxInsts();
  std::string beErr;
  bool beTried = be != nullptr;
  auto llvm = [&] {
    if (!beTried) {
      beTried = true;
      be = jit::backend(beErr);
    }
    return be;
  };
  for (const ir::Function *f : fns) {
    if (f->code.size() > maxInsts) {
      o.err = (f == kernel ? std::string("it") : "function '" + f->name + "'") + " has " +
              std::to_string(f->code.size()) + " instructions, above the JIT's limit of " +
              std::to_string(maxInsts) + " (PTXSIM_JIT_MAX_INSTS)";
      break;
    }
    auto t0 = std::chrono::steady_clock::now();
    auto since = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    std::string key;
    if (!dir.empty()) {
      key = cacheKey(*f);
      bool refused = false;
      if (const jit::FunctionCode *c = loadCached(*f, dir, key, refused)) {
        o.code.push_back(c);
        ++o.cached, ++o.loaded;
        o.cacheSeconds += since();
        continue;
      }
      if (loaderOnly)
        break;
      cache::Entry e;
      std::string why;
      const cache::Load r =
          !refused && llvm() ? cache::load(dir, key, be->identity(), e, why) : cache::Load::Miss;
      if (r == cache::Load::Corrupt)
        warnOnce(why);
      if (r == cache::Load::Hit && e.identity == be->identity()) {
        jit::FunctionCode meta;
        meta.entry = std::move(e.entry);
        meta.nativeInsts = e.nativeInsts, meta.calledInsts = e.calledInsts,
        meta.branches = e.branches;
        std::string lerr;
        if (const jit::FunctionCode *c = be->link(*f, e.object, meta, lerr)) {
          o.code.push_back(c);
          ++o.cached;
          o.cacheSeconds += since();
          continue;
        }
        warnOnce("the JIT cache's code of '" + f->name + "' cannot be linked (" + lerr +
                 "); it is compiled again");
      }
    }
    if (loaderOnly)
      break;
    if (!llvm()) {
      o.err = beErr;
      break;
    }
    std::string object;
    const jit::FunctionCode *c =
        be->compile(*f, jit::describedOp, jitRangeInsts(), o.err, dir.empty() ? nullptr : &object);
    if (!c)
      break;
    ++o.compiled;
    o.inRanges += c->ranges > 1;
    o.compileSeconds += since();
    o.code.push_back(c);
    if (!dir.empty() && !object.empty()) { // empty: code that holds this process's addresses
      cache::Entry e;
      e.identity = be->identity();
      e.loaderIdentity = loaderIdentity();
      e.nativeInsts = c->nativeInsts, e.calledInsts = c->calledInsts, e.branches = c->branches;
      e.entry = c->entry;
      e.object = std::move(object);
      std::string serr;
      if (!cache::store(dir, key, e, serr))
        warnOnce("JIT cache: " + serr + " (the run goes on without the cache)");
    }
  }
  return o;
}

/// Sets the functions' code at a launch boundary (a function that got code meanwhile keeps
/// it) and counts; false, with the reason named once per kernel, when `o` is incomplete.
bool install(const Kernel &k, const std::vector<const ir::Function *> &fns, const Obtained &o,
             bool background) {
  jit::Stats &st = jit::stats();
  std::lock_guard<std::mutex> lock(st.mu);
  if (o.code.size() != fns.size()) {
    ++st.launchesFallback;
    std::string line = "kernel '" + k.name + "': " + o.err;
    if (std::find(st.fallbacks.begin(), st.fallbacks.end(), line) == st.fallbacks.end())
      st.fallbacks.push_back(line);
    return false;
  }
  for (size_t i = 0; i < fns.size(); ++i) {
    if (!fns[i]->jit)
      fns[i]->jit = o.code[i];
    st.nativeInsts += o.code[i]->nativeInsts;
    st.calledInsts += o.code[i]->calledInsts;
    st.branches += o.code[i]->branches;
  }
  ++st.kernelsCompiled;
  ++st.launchesJit;
  st.backgroundCompiles += background;
  st.functionsCompiled += o.compiled;
  st.functionsCached += o.cached;
  st.functionsLoaded += o.loaded;
  st.functionsInRanges += o.inRanges;
  st.compileSeconds += o.compileSeconds;
  st.cacheSeconds += o.cacheSeconds;
  return true;
}

// --jit auto: a kernel runs interpreted until the thread instructions it has run exceed
// kHotFactor times what the interpreter runs (at kInterpRate) in the time the switch is
// estimated to cost: for a kernel whose functions are all in the disk cache, mapping them with
// the JIT's own loader (kLoaderSeconds each, measured: 0.3 ms for a 20 KB object), or, where
// the loader cannot, loading LLVM and linking them (kLoadSeconds; both then at the next launch,
// on the launching thread), else LLVM's time for its functions, linear in their size since
// large ones are compiled in pc ranges (kCompileBase + kCompilePerInst each; then on one
// background thread, switched in at the first launch after it ends). So a program never spends
// more than about a tenth of the time it has run on the switch (the exit waits for a compile in
// flight). PTXSIM_JIT_HOT_INSTS sets the count. Across runs, the hotness record (recordRun,
// below) makes a kernel hot at its first launch when the last run reached the bound, and
// compiles kernels hot over several runs after a run, in a detached process.
constexpr double kHotFactor = 10, kInterpRate = 1e9, kLoadSeconds = 0.1, kLoaderSeconds = 0.0005;
constexpr double kCompileBase = 0.02, kCompilePerInst = 0.005; // CPU s; docs/executor.md
uint64_t hotAfter(const std::vector<const ir::Function *> &fns, bool cached, bool viaLoader) {
  const uint64_t fixed = [] { // read at a kernel's first launch
    const char *v = std::getenv("PTXSIM_JIT_HOT_INSTS");
    if (!v || !*v)
      return uint64_t(0);
    char *end = nullptr;
    unsigned long long n = std::strtoull(v, &end, 10);
    if (*end || n == 0) {
      std::fprintf(stderr,
                   "ptxsim: PTXSIM_JIT_HOT_INSTS must be a positive number of thread "
                   "instructions, not '%s'; the JIT estimates it per kernel\n",
                   v);
      return uint64_t(0);
    }
    return uint64_t(n);
  }();
  if (fixed)
    return fixed;
  double s = viaLoader ? 0 : cached ? kLoadSeconds : 0;
  for (const ir::Function *f : fns)
    s += viaLoader ? kLoaderSeconds : cached ? 0.002 : kCompileBase + kCompilePerInst * double(f->code.size());
  return uint64_t(kHotFactor * kInterpRate * s);
}

struct Job {
  const Program *prog = nullptr;
  const ir::Function *kernel = nullptr;
  jit::Backend *be = nullptr;
  std::vector<const ir::Function *> fns;
  bool done = false;
  Obtained result;
};
struct KernelTier {
  uint64_t threadInsts = 0, hotAt = 0;
  uint64_t runInsts = 0; ///< thread instructions of every launch this run (the hotness record's)
  bool seen = false;
  bool cached = false;  ///< every function was in the disk cache at the first launch
  bool viaLoader = false; ///< cached, and the JIT's own loader may run this host's code
  bool linkNow = false; ///< hot and cached: the next launch links the code
  std::string dir, key; ///< the disk cache and the kernel function's key (empty: no cache)
  jit::cache::Hotness past; ///< the hotness record at the first launch (runs 0: none)
  std::shared_ptr<Job> job;
};
struct Tier {
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::pair<const Program *, const ir::Function *>, KernelTier> kernels;
  std::deque<std::shared_ptr<Job>> queue;
  bool started = false, busy = false;
  pid_t pid = 0; ///< the process the worker runs in (a forked child has none)
  pid_t recordPid = 0; ///< the process whose exit writes the hotness records
};
Tier &tier() {
  static Tier &t = *new Tier; // never destroyed: the worker may outlive static destructors
  return t;
}

void worker() {
  Tier &t = tier();
  std::unique_lock<std::mutex> lock(t.mu);
  for (;;) {
    t.cv.wait(lock, [&] { return !t.queue.empty(); });
    std::shared_ptr<Job> job = t.queue.front();
    t.queue.pop_front();
    t.busy = true;
    lock.unlock();
    Obtained o = obtain(job->be, job->fns, job->kernel);
    lock.lock();
    job->result = std::move(o);
    job->done = true;
    t.busy = false;
    t.cv.notify_all();
  }
}

/// At exit: drops queued compiles and waits for the one in flight (LLVM's static destructors
/// run after this handler, registered once the module was loaded).
void waitAtExit() {
  Tier &t = tier();
  std::unique_lock<std::mutex> lock(t.mu);
  if (t.pid != ::getpid())
    return;
  t.queue.clear();
  t.cv.wait(lock, [&] { return !t.busy; });
}

void recordAtExit();
/// Registers recordAtExit (again) once LLVM is loaded in this process, so that at exit it runs
/// before LLVM's static destructors (registered when the module was loaded; exit handlers run
/// last-registered first): the detached compile it may fork uses LLVM's state. The earlier
/// registration then finds nothing left to record. `t.mu` is held.
void recordAfterLlvm(Tier &t) {
  static bool done = false;
  if (done || !t.recordPid)
    return;
  const std::string m = jit::moduleFile();
  void *h = m.empty() ? nullptr : ::dlopen(m.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (!h)
    return;
  ::dlclose(h);
  done = true;
  std::atexit(recordAtExit);
}

/// Queues `k`'s compile on the background thread (loading LLVM first, on this thread, so that
/// waitAtExit runs before LLVM's destructors). `lock` holds t.mu and is held again on return;
/// false, with the reason named once, when LLVM cannot be loaded.
bool startCompile(Tier &t, std::unique_lock<std::mutex> &lock, KernelTier &kt, const Program &prog,
                  const Kernel &k) {
  auto job = std::make_shared<Job>();
  job->prog = &prog;
  job->kernel = k.fn;
  job->fns = closure(prog, k.fn);
  lock.unlock();
  std::string err;
  job->be = jit::backend(err);
  lock.lock();
  if (!job->be) {
    kt.hotAt = UINT64_MAX; // never again: the launch runs interpreted, the reason named once
    lock.unlock();
    Obtained o;
    o.err = err;
    install(k, job->fns, o, false);
    lock.lock();
    return false;
  }
  if (!t.started || t.pid != ::getpid()) { // (a forked child has no worker: it starts its own)
    if (!t.started) {
      recordAfterLlvm(t); // (runs after waitAtExit, before LLVM's destructors)
      std::atexit(waitAtExit);
    }
    t.started = true;
    t.pid = ::getpid();
    t.busy = false;
    t.queue.clear();
    std::thread(worker).detach();
  }
  kt.job = job;
  t.queue.push_back(std::move(job));
  t.cv.notify_all();
  return true;
}

// The hotness record and the detached compile (docs/executor.md, "Hotness record"). A kernel
// that ran fewer thread instructions in a run than kRecordFrom and its hotness bound, and has no
// record, gets none (a millisecond of interpretation cannot pay for anything).
constexpr uint64_t kRecordFrom = 1000000;

/// The thread instructions after which a kernel not in the cache is compiled for later runs,
/// counted over the runs its record remembers: as many as the interpreter runs (kInterpRate) in
/// the compile's estimated time, so the compile costs at most what interpreting the kernel has
/// cost so far. PTXSIM_JIT_DEFER_INSTS sets the count (`fixed`; then the code is compiled even
/// where a run like this one would not map it).
uint64_t deferAfter(const std::vector<const ir::Function *> &fns, bool &fixed) {
  const size_t n = envCount("PTXSIM_JIT_DEFER_INSTS", 0, "the JIT estimates it per kernel");
  fixed = n != 0;
  if (fixed)
    return n;
  double s = 0;
  for (const ir::Function *f : fns)
    s += kCompileBase + kCompilePerInst * double(f->code.size());
  return uint64_t(kInterpRate * s);
}

/// Whether a run may leave a detached compile behind it (PTXSIM_JIT_COMPILE_LATER=1). Off by
/// default: a process that outlives the program surprises a user (and a batch system, which kills
/// it with the job), so the hotness records are always kept but the compile for later runs is
/// opt-in. Read at each run's end (tests set it per run); any other value than 0 or 1 is said once.
bool compileLaterAllowed() {
  const char *v = std::getenv("PTXSIM_JIT_COMPILE_LATER");
  if (!v || !*v || std::strcmp(v, "0") == 0)
    return false;
  if (std::strcmp(v, "1") == 0)
    return true;
  warnOnce(std::string("PTXSIM_JIT_COMPILE_LATER must be 0 or 1, not '") + v +
           "'; no kernel is compiled after the run");
  return false;
}

/// Closes every file descriptor from 3 on (the program's pipes and sockets, which a reader may
/// wait on for their end).
void closeInheritedFds() {
  std::vector<int> fds;
  if (DIR *d = ::opendir("/proc/self/fd")) {
    while (dirent *de = ::readdir(d))
      if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
        fds.push_back(std::atoi(de->d_name));
    ::closedir(d);
  } else {
    for (int fd = 3; fd < 1024; ++fd)
      fds.push_back(fd);
  }
  for (int fd : fds)
    if (fd > 2)
      ::close(fd);
}

/// A kernel to compile for later runs: it, the functions it needs, and its claim (busyClaim).
struct Deferred {
  const ir::Function *kernel;
  std::vector<const ir::Function *> fns;
  std::string busy;
};

/// Claims the detached compile of a kernel for this process: creates `path` (`<key>.jitbusy`)
/// unless it exists, so that runs ending while a compile is under way do not start it again. A
/// claim older than an hour is taken over (its process was killed).
bool busyClaim(const std::string &path) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::close(fd);
      return true;
    }
    struct stat st {};
    if (errno != EEXIST || ::stat(path.c_str(), &st) != 0 || st.st_mtime + 3600 >= ::time(nullptr))
      return false;
    ::unlink(path.c_str());
  }
  return false;
}

/// Compiles `work` (each: the kernel and the functions it needs) into the disk cache in a
/// detached process at low priority, and returns at once: the program neither waits for it nor
/// pays its wall time on a machine with an idle core; the next run maps the code. The process
/// is a grandchild (the child exits at once and is reaped here, so the program's own wait()
/// never sees it), in a session of its own, with /dev/null as its standard streams and no other
/// inherited descriptor; it runs only obtain() and leaves with _exit, and an alarm ends it
/// should it ever hang.
void compileDetached(const std::vector<Deferred> &work) {
  double estimate = 0;
  for (const auto &w : work)
    for (const ir::Function *f : w.fns)
      estimate += kCompileBase + kCompilePerInst * double(f->code.size());
  std::fflush(nullptr); // nothing buffered is written twice (the children leave with _exit)
  const pid_t child = ::fork();
  if (child < 0) {
    for (const Deferred &w : work)
      ::unlink(w.busy.c_str());
    return; // no process: nothing compiled for later, nothing else changes
  }
  if (child == 0) {
    if (::fork() != 0)
      ::_exit(0);
    ::setsid();
    const int null = ::open("/dev/null", O_RDWR);
    if (null >= 0) {
      ::dup2(null, 0), ::dup2(null, 1), ::dup2(null, 2);
    }
    closeInheritedFds();
    // the program's device memory (the arenas ptx/exec/Memory.cpp places from 16 TiB on) is not
    // the compile's: dropped, so that this process does not keep it after the program ended
    ::munmap(reinterpret_cast<void *>(uintptr_t(16) << 40), uintptr_t(32) << 40);
    if (::nice(10) == -1) {
      // (keeps its priority)
    }
    std::signal(SIGALRM, SIG_DFL);
    sigset_t alrm;
    sigemptyset(&alrm);
    sigaddset(&alrm, SIGALRM);
    ::sigprocmask(SIG_UNBLOCK, &alrm, nullptr);
    ::alarm(unsigned(60 + 20 * estimate));
    const rlimit noCore{0, 0}; // should it crash, no core file in the program's directory
    ::setrlimit(RLIMIT_CORE, &noCore);
    for (const Deferred &w : work) {
      obtain(nullptr, w.fns, w.kernel);
      ::unlink(w.busy.c_str());
    }
    ::_exit(0);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
}

/// Writes the hotness records of the kernels `pick` selects (when the run or an earlier one
/// makes them worth one) and compiles, in a detached process, those not in the cache whose
/// instructions over the remembered runs pass deferAfter. `lock` holds t.mu; the selected
/// entries are erased when `erase`.
template <class Pick>
void recordRun(Tier &t, std::unique_lock<std::mutex> &lock, Pick pick, bool erase) {
  struct Item {
    std::string dir, key;
    jit::cache::Hotness h;
  };
  std::vector<Item> records;
  std::vector<Deferred> work;
  for (auto it = t.kernels.begin(); it != t.kernels.end();) {
    const KernelTier &kt = it->second;
    if (!pick(it->first)) {
      ++it;
      continue;
    }
    if (kt.seen && !kt.key.empty()) {
      std::vector<const ir::Function *> fns = closure(*it->first.first, it->first.second);
      bool fixed = false;
      const uint64_t deferAt = fns.empty() || kt.hotAt == UINT64_MAX ? UINT64_MAX : deferAfter(fns, fixed);
      if (kt.runInsts >= std::min({kRecordFrom, kt.hotAt, deferAt}) || kt.past.runs) {
        jit::cache::Hotness h;
        h.runs = kt.past.runs + 1;
        h.lastInsts = kt.runInsts;
        h.totalInsts = std::max(kt.past.totalInsts + kt.runInsts, kt.past.totalInsts); // saturating
        records.push_back({kt.dir, kt.key, h});
        // compiled for later only when a run like this one would switch to the cached code
        const bool used = fixed || kt.runInsts >= hotAfter(fns, true, !loaderIdentity().empty());
        bool inCache = true;
        for (const ir::Function *f : fns)
          inCache = inCache && jit::cache::exists(kt.dir, cacheKey(*f));
        if (!inCache && used && h.totalInsts >= deferAt)
          work.push_back({it->first.second, std::move(fns), kt.dir + "/" + kt.key + ".jitbusy"});
      }
    }
    it = erase ? t.kernels.erase(it) : std::next(it);
  }
  // not while this process's background thread compiles (the fork would copy LLVM's locks held):
  // the kernel is left to the end of a later run
  if (t.started && t.pid == ::getpid() && (t.busy || !t.queue.empty()))
    work.clear();
  if (!compileLaterAllowed())
    work.clear();
  lock.unlock();
  for (const Item &r : records) {
    // a hint only: a directory that cannot be written costs the next run its early switch, and
    // the code's own store names the problem when something is compiled
    std::string err;
    jit::cache::storeHotness(r.dir, r.key, r.h, err);
  }
  work.erase(std::remove_if(work.begin(), work.end(), [](const Deferred &w) { return !busyClaim(w.busy); }),
             work.end());
  if (!work.empty()) {
    {
      jit::Stats &st = jit::stats();
      std::lock_guard<std::mutex> slock(st.mu);
      st.kernelsDeferred += work.size();
    }
    compileDetached(work);
  }
  lock.lock();
}

/// At exit, after waitAtExit (registered later, so run first): the records of the kernels whose
/// engines are still alive (their entries go, so an engine destroyed after this writes none).
void recordAtExit() {
  Tier &t = tier();
  std::unique_lock<std::mutex> lock(t.mu);
  if (t.recordPid != ::getpid())
    return;
  t.queue.clear();
  if (t.started && t.pid == ::getpid())
    t.cv.wait(lock, [&] { return !t.busy; });
  recordRun(t, lock, [](const auto &) { return true; }, true); // (an engine ending later: none twice)
}

/// A kernel's first launch under --jit auto: whether its code is cached, its hotness bound, and
/// its hotness record, which may make it hot at once. `lock` holds t.mu.
void firstLaunch(Tier &t, std::unique_lock<std::mutex> &lock, KernelTier &kt, const Program &prog,
                 const Kernel &k) {
  kt.seen = true;
  const std::string dir = cache::directory();
  kt.cached = !dir.empty();
  for (const ir::Function *f : closure(prog, k.fn))
    kt.cached = kt.cached && cache::exists(dir, cacheKey(*f));
  kt.viaLoader = kt.cached && !loaderIdentity().empty();
  kt.hotAt = hotAfter(closure(prog, k.fn), kt.cached, kt.viaLoader);
  if (!dir.empty()) {
    kt.dir = dir;
    kt.key = cacheKey(*k.fn);
    std::string why;
    if (cache::loadHotness(dir, kt.key, kt.past, why) == cache::Load::Corrupt)
      warnOnce(why);
    if (!t.recordPid) {
      t.recordPid = ::getpid();
      std::atexit(recordAtExit);
    }
    // hot in the last run by this run's bound: switch now (the cached code at this launch,
    // else the background compile from this launch on), not after the bound again
    if (kt.past.lastInsts >= kt.hotAt) {
      {
        jit::Stats &st = jit::stats();
        std::lock_guard<std::mutex> slock(st.mu);
        ++st.kernelsEarly;
      }
      if (kt.cached)
        kt.linkNow = true;
      else
        startCompile(t, lock, kt, prog, k);
    }
  }
}

} // namespace

bool Engine::prepareJit(const Kernel &k) {
  jit::Stats &st = jit::stats();
  if (k.fn->jit) {
    std::lock_guard<std::mutex> lock(st.mu);
    ++st.launchesJit;
    return true;
  }
  std::vector<const ir::Function *> fns;
  if (jitMode_ == (uint8_t)jit::Mode::Auto) {
    Tier &t = tier();
    std::unique_lock<std::mutex> lock(t.mu);
    KernelTier &kt = t.kernels[{prog_.get(), k.fn}];
    if (kt.job && kt.job->done) { // compiled in the background: switch at this launch
      std::shared_ptr<Job> job = std::move(kt.job);
      if (job->result.code.size() != job->fns.size())
        kt.hotAt = UINT64_MAX; // not again: it runs interpreted, the reason named once
      lock.unlock();
      return install(k, job->fns, job->result, true);
    }
    if (!kt.seen)
      firstLaunch(t, lock, kt, *prog_, k);
    if (!kt.linkNow) {
      std::lock_guard<std::mutex> slock(st.mu);
      ++st.launchesInterpreted;
      return false;
    }
    kt.linkNow = false; // once: a failure falls back below and names the reason
    fns = closure(*prog_, k.fn);
    if (kt.viaLoader) {
      // the JIT's own loader maps the cached code without LLVM; when it cannot (code of
      // another host or module build, a refused object), the kernel is treated as not cached:
      // the background thread links or compiles it once it is hot by LLVM's bound
      kt.viaLoader = kt.cached = false;
      lock.unlock();
      Obtained o = obtain(nullptr, fns, k.fn, true);
      if (o.code.size() == fns.size())
        return install(k, fns, o, false);
      lock.lock();
      kt.hotAt = hotAfter(fns, false, false);
      std::lock_guard<std::mutex> slock(st.mu);
      ++st.launchesInterpreted;
      return false;
    }
    kt.hotAt = UINT64_MAX;
  } else {
    fns = closure(*prog_, k.fn);
  }
  // LLVM is loaded only for what the JIT's own loader cannot map from the cache
  const Obtained o = obtain(nullptr, fns, k.fn);
  if (jitMode_ == (uint8_t)jit::Mode::Auto) {
    std::lock_guard<std::mutex> lock(tier().mu);
    recordAfterLlvm(tier()); // (when that linked or compiled with LLVM)
  }
  return install(k, fns, o, false);
}

void Engine::observeJit(const Kernel &k, const LaunchResult &r) {
  Tier &t = tier();
  std::unique_lock<std::mutex> lock(t.mu);
  KernelTier &kt = t.kernels[{prog_.get(), k.fn}];
  kt.runInsts += r.threadInsts;
  if (k.fn->jit) // the launch ran compiled code (prepareJit answers yes exactly when it is set)
    return;
  kt.threadInsts += r.threadInsts;
  if (kt.job || kt.linkNow || kt.threadInsts < kt.hotAt || kt.hotAt == UINT64_MAX)
    return;
  if (kt.cached) {
    kt.linkNow = true;
    return;
  }
  startCompile(t, lock, kt, *prog_, k);
}

void Engine::stopJit() {
  // the background compiler reads this engine's functions: drop its queued jobs and wait for
  // the one in flight before they go away
  Tier &t = tier();
  std::unique_lock<std::mutex> lock(t.mu);
  const Program *prog = prog_.get();
  t.queue.erase(std::remove_if(t.queue.begin(), t.queue.end(),
                               [&](const std::shared_ptr<Job> &j) { return j->prog == prog; }),
                t.queue.end());
  if (t.started && t.pid == ::getpid())
    t.cv.wait(lock, [&] { return !t.busy; });
  // the hotness records of this program's kernels (a forked child's engine writes none)
  if (t.recordPid == ::getpid())
    recordRun(t, lock, [&](const auto &key) { return key.first == prog; }, true);
  for (auto it = t.kernels.begin(); it != t.kernels.end();)
    it = it->first.first == prog ? t.kernels.erase(it) : std::next(it);
}

namespace {
/// The bytes of every allocation a kernel may write (not the launch's own parameter buffers).
struct Snapshot {
  std::vector<Allocation> allocs;
  std::vector<std::vector<uint8_t>> bytes;
};
Snapshot snapshot(const DeviceMemory &mem) {
  Snapshot s;
  for (const Allocation &a : mem.allocations()) {
    if (a.kind == AllocKind::Param)
      continue;
    s.allocs.push_back(a);
    const uint8_t *p = static_cast<const uint8_t *>(DeviceMemory::host(a.base));
    s.bytes.emplace_back(p, p + a.size);
  }
  return s;
}
void restore(const Snapshot &s) {
  for (size_t i = 0; i < s.allocs.size(); ++i)
    if (!s.bytes[i].empty())
      std::memcpy(DeviceMemory::host(s.allocs[i].base), s.bytes[i].data(), s.bytes[i].size());
}
/// The first address where memory differs from `s` ("" when none).
std::string firstDifference(const Snapshot &s) {
  for (size_t i = 0; i < s.allocs.size(); ++i) {
    const uint8_t *p = static_cast<const uint8_t *>(DeviceMemory::host(s.allocs[i].base));
    const std::vector<uint8_t> &b = s.bytes[i];
    if (b.empty() || std::memcmp(p, b.data(), b.size()) == 0)
      continue;
    size_t j = 0;
    while (p[j] == b[j])
      ++j;
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "global memory differs at 0x%llx (%s allocation 0x%llx + %zu): "
                  "interpreter 0x%02x, jit 0x%02x",
                  (unsigned long long)(s.allocs[i].base + j),
                  std::string(allocKindName(s.allocs[i].kind)).c_str(),
                  (unsigned long long)s.allocs[i].base, j, b[j], p[j]);
    return buf;
  }
  return {};
}
} // namespace

LaunchResult Engine::launchDiff(const LaunchParams &p) {
  const Snapshot before = snapshot(*mem_);
  const Program::HeapState heap = prog_->heapState();
  auto sink = printfSink_;
  std::string outInterp, outJit;
  printfSink_ = [&](const std::string &s) { outInterp += s; };
  LaunchResult ri = runGrid(p, false);
  const Snapshot interp = snapshot(*mem_);
  restore(before);
  prog_->restoreHeap(heap);
  printfSink_ = [&](const std::string &s) { outJit += s; };
  LaunchResult rj = runGrid(p, true);
  printfSink_ = sink;
  if (!outJit.empty() && printfSink_)
    printfSink_(outJit);
  std::string what;
  if (ri.status != rj.status || ri.message != rj.message)
    what = "the interpreter's result was '" + (ri.ok() ? std::string("ok") : ri.message) +
           "', the jit's '" + (rj.ok() ? std::string("ok") : rj.message) + "'";
  else if (!p.cooperative && (ri.threadInsts != rj.threadInsts || ri.warpInsts != rj.warpInsts))
    what = "instruction counts differ (interpreter " + std::to_string(ri.warpInsts) + " warp / " +
           std::to_string(ri.threadInsts) + " thread, jit " + std::to_string(rj.warpInsts) + " / " +
           std::to_string(rj.threadInsts) + ")";
  else if (outInterp != outJit)
    what = "device printf output differs";
  else
    what = firstDifference(interp);
  jit::Stats &st = jit::stats();
  {
    std::lock_guard<std::mutex> lock(st.mu);
    ++st.diffLaunches;
    st.diffMismatches += !what.empty();
  }
  if (!what.empty()) {
    rj.status = LaunchStatus::Fault;
    rj.message = "kernel '" + p.kernel->name + "': PTXSIM_JIT=diff: " + what;
  }
  return rj;
}

} // namespace ptxsim::ptx::exec

// The process's endpoint (created from the environment when the library loads, finished when
// the process exits) and the C host API on top of it.

#include "isa_ext/chiplet/tools/runtime/Endpoint.h"
#include "isa_ext/chiplet/include/ptxsim_chiplet_host.h"
#include "isa_ext/chiplet/tools/cpu/CpuModel.h"
#include "isa_ext/chiplet/tools/runtime/CpuHeap.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define PTXSIM_HAVE_CALLGRIND 1
#else
#define PTXSIM_HAVE_CALLGRIND 0 // built without Valgrind's headers: --cpu-model says so at run time
#define RUNNING_ON_VALGRIND 0
#define CALLGRIND_DUMP_STATS_AT(s)
#define CALLGRIND_STOP_INSTRUMENTATION
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_ZERO_STATS
#define VALGRIND_MONITOR_COMMAND(c) 1
#endif

namespace ptxsim::chiplet {
namespace {

Endpoint *gEndpoint = nullptr;
bool gTried = false;
/// This chiplet's coordinates and grid, in static storage: ptxsimChipletSelf() reads them
/// without touching the endpoint (a heap object at a transport-dependent address, whose cache
/// lines a CPU chiplet under the model would count).
int gSelf[4] = {0, 0, 0, 0};

/// The CPU chiplet's core model (--cpu-model): the process runs under callgrind, instrumented
/// only between chiplet operations. At the start of an operation the interval's counts are
/// dumped, read and turned into cycles that advance the clock before the operation acts, and
/// instrumentation stops; it starts again (cold simulated caches, zeroed counts) when the
/// operation returns, so nothing the transport does (its waits differ from run to run and
/// between transports) is ever counted.
struct CpuMeter {
  std::unique_ptr<cpu::CpuCoreModel> model;
  std::string dump; ///< callgrind's --callgrind-out-file; dump n is `dump.n`
  unsigned part = 0;
  std::string noisyThread; ///< a thread that never went quiet (cpuQuiesce gave up), if any
};
/// Made when the process joins (from a load-time constructor, before this file's dynamic
/// initializers may run) and kept to the end (atExit uses it): a plain pointer. It is on the
/// heap, at an address that depends on what the transport allocated, so measured code never
/// reads it: the flags that it does read are in static storage (gCpuState).
CpuMeter *gCpu = nullptr;
struct CpuState {
  bool finished, exitHook;
  int depth; ///< nested API calls (passGpuMessage -> sendGpuMessage) are one operation
};
CpuState gCpuState = {false, false, 0};
bool gQuiesceGaveUp = false; ///< a thread stayed busy for a whole cpuQuiesce: it stops trying

const char *env(const char *n) {
  const char *v = std::getenv(n);
  return v && *v ? v : nullptr;
}

void cpuExitHook();

/// Reads a small /proc file into buf (NUL-terminated, without allocating): false if it cannot.
bool readProc(const char *path, char *buf, size_t size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  ssize_t n = read(fd, buf, size - 1);
  close(fd);
  buf[n > 0 ? n : 0] = 0;
  return n > 0;
}

/// Whether thread `tid` of this process is blocked in a system call of its own: not runnable,
/// not running, not waiting for valgrind's scheduler lock (a read of valgrind's pipe, whose
/// descriptor lies above the client's RLIMIT_NOFILE). A thread that exited is quiet.
bool threadQuiet(const char *tid, unsigned long nofile) {
  char path[320], buf[512];
  std::snprintf(path, sizeof path, "/proc/self/task/%s/stat", tid);
  if (!readProc(path, buf, sizeof buf))
    return true;
  const char *paren = std::strrchr(buf, ')'); // the name in parentheses may hold anything
  char state = paren && paren[1] && paren[2] ? paren[2] : 'R';
  if (state == 'R')
    return false;
  std::snprintf(path, sizeof path, "/proc/self/task/%s/syscall", tid);
  if (!readProc(path, buf, sizeof buf))
    return true;
  if (std::strncmp(buf, "running", 7) == 0)
    return false;
  unsigned long nr = 0, fd = 0;
  if (std::sscanf(buf, "%lu %lx", &nr, &fd) == 2 && nr == SYS_read && fd >= nofile)
    return false;
  return true;
}

/// The first other thread of this process that is not quiet (threadQuiet), or "" if none.
std::string noisyThread() {
  struct rlimit rl;
  unsigned long nofile = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? (unsigned long)rl.rlim_cur : ~0ul;
  std::string self = std::to_string((long)syscall(SYS_gettid)), noisy;
  DIR *d = opendir("/proc/self/task");
  if (!d)
    return noisy;
  while (dirent *e = readdir(d))
    if (e->d_name[0] != '.' && self != e->d_name && !threadQuiet(e->d_name, nofile)) {
      noisy = e->d_name;
      break;
    }
  closedir(d);
  return noisy;
}

/// Callgrind simulates one set of caches and one branch predictor for the whole process, so
/// another thread that runs while an interval is measured (the CUDA runtime's service thread
/// finishing a job it was handed at load time, Open MPI's progress threads handling what an
/// operation queued) changes the program's misses and mispredictions, differently run to run.
/// Before an interval starts, the main thread therefore lets every other thread run until it
/// blocks in a system call of its own (its syscalls and sched_yield hand valgrind's scheduler
/// lock over); a thread still busy after 2 s (the program's own worker, say) is given up on
/// for the rest of the run and reported (cpuFinish counts what such threads ran).
void cpuQuiesce() {
  if (gQuiesceGaveUp)
    return;
  timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (unsigned tries = 0;; ++tries) {
    std::string noisy = noisyThread();
    if (noisy.empty())
      return;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec >= 2) {
      gQuiesceGaveUp = true;
      gCpu->noisyThread = noisy;
      return;
    }
    if (tries < 16)
      sched_yield();
    else {
      timespec pause = {0, 100000}; // a loaded machine: give the thread time on a core
      nanosleep(&pause, nullptr);
    }
  }
}

/// Instructions that threads other than the main one ran while intervals were measured (none
/// after a clean cpuQuiesce, unless a thread woke on its own inside an interval): a dump of every
/// thread (callgrind's `dump` monitor command), whose costs are since each thread began.
uint64_t otherThreadInstructions() {
  if (VALGRIND_MONITOR_COMMAND("dump other threads") != 0)
    return 0;
  std::string prefix = gCpu->dump + "." + std::to_string(++gCpu->part) + "-";
  std::string dir = prefix.substr(0, prefix.rfind('/') + 1);
  std::string base = prefix.substr(dir.size());
  uint64_t other = 0;
  DIR *d = opendir(dir.c_str());
  if (!d)
    return 0;
  while (dirent *e = readdir(d)) {
    std::string name = e->d_name;
    if (name.compare(0, base.size(), base) != 0)
      continue;
    std::string path = dir + name;
    if (name.substr(base.size()) != "01") {
      std::ifstream f(path);
      std::stringstream text;
      text << f.rdbuf();
      cpu::CpuCounts counts;
      std::string err;
      if (cpu::parseCallgrindTotals(text.str(), counts, err))
        other += counts.ir;
    }
    if (!env("PTXSIM_CHIPLET_CPU_KEEP_DUMPS"))
      unlink(path.c_str());
  }
  closedir(d);
  return other;
}

/// Ends the running interval: its cycles move the clock. Instrumentation stays off until
/// cpuIntervalBegin().
void cpuIntervalEnd() {
  if (!gCpu || gCpuState.finished || gCpuState.depth++ > 0)
    return;
  // dump, then stop at once: reading the dump (whose length varies with the pid) is not counted
  CALLGRIND_DUMP_STATS_AT("chiplet operation");
  CALLGRIND_STOP_INSTRUMENTATION;
  cpuHeapSetUser(false);
  if (!gCpuState.exitHook) {
    // The last interval ends where exit() begins (or main returns). atExit was registered from
    // a load-time constructor, before the C library registered the libraries' destructors, so
    // it runs after them (Open MPI's under mpi): registered now, from main, this hook runs first.
    gCpuState.exitHook = true;
    std::atexit(cpuExitHook);
  }
  Endpoint &ep = *gEndpoint; // only now: its address varies with what the transport allocated
  // --separate-threads=yes: the program's main thread only (thread 1); another thread (Open
  // MPI's progress thread) may run at any time
  std::string path = gCpu->dump + "." + std::to_string(++gCpu->part) + "-01", err;
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  cpu::CpuCounts counts;
  if (!f || !cpu::parseCallgrindTotals(text.str(), counts, err))
    fatalAt(&ep.config(), "CPU model: cannot read callgrind's dump " + path + ": " +
                              (err.empty() ? "missing" : err));
  if (!env("PTXSIM_CHIPLET_CPU_KEEP_DUMPS")) {
    unlink(path.c_str());
    for (int t = 2; t <= 8; ++t) // the other threads' dumps (Open MPI's: two or three)
      unlink((gCpu->dump + "." + std::to_string(gCpu->part) + (t < 10 ? "-0" : "-") +
              std::to_string(t))
                 .c_str());
  }
  ep.advanceClock(ep.clock() + gCpu->model->addInterval(counts));
}

void cpuIntervalBegin() {
  if (!gCpu || gCpuState.finished || --gCpuState.depth > 0)
    return;
  cpuQuiesce();
  cpuHeapSetUser(true);
  CALLGRIND_START_INSTRUMENTATION;
  CALLGRIND_ZERO_STATS; // nothing before this point belongs to the interval
}

/// RAII: a host API call is a chiplet operation between two intervals. It comes first in the
/// call, before anything reads the endpoint (whose heap address differs between transports).
struct CpuOp {
  CpuOp() { cpuIntervalEnd(); }
  ~CpuOp() { cpuIntervalBegin(); }
};

void cpuStart(Endpoint &ep) {
  const char *model = env("PTXSIM_CHIPLET_CPU_MODEL");
  const char *role = env("PTXSIM_CHIPLET_ROLE");
  if (!model || !role || std::string(role) != "cpu")
    return;
  cpu::CpuConfig cfg;
  std::string err;
  if (!cpu::loadCpuConfig(model, cfg, err))
    fatalAt(&ep.config(), err);
  const char *dump = env("PTXSIM_CHIPLET_CPU_DUMP");
  if (!dump)
    fatalAt(&ep.config(), std::string("the CPU model '") + model +
                              "' needs the chiplet to run under callgrind (start it with "
                              "`ptxsim chiplets --cpu-model`)");
  if (!cpuHeapInit())
    fatalAt(&ep.config(), "CPU model: cannot reserve the program's heap (16 GiB of address space)");
  gCpu = new CpuMeter;
  gCpu->model = std::make_unique<cpu::CpuCoreModel>(cfg);
  gCpu->dump = dump;
  // instrumentation starts at main (mainUnderModel below): what runs before it walks the
  // dynamic linker's lists, whose addresses depend on the libraries loaded (more under mpi)
}

void cpuFinish(Endpoint &ep) {
  if (!gCpu || gCpuState.finished)
    return;
  gCpuState.depth = 0;
  gCpuState.exitHook = true;
  cpuIntervalEnd();
  gCpuState.finished = true; // instrumentation stays off
  uint64_t other = otherThreadInstructions();
  gCpu->model->setOtherThreadInstructions(other);
  if (other)
    std::fprintf(stderr,
                 "ptxsim chiplet (%u,%u): warning: CPU model: other threads ran %llu instructions "
                 "inside measured intervals%s%s; they share callgrind's simulated caches and branch "
                 "predictor, so this chiplet's CPU cycles may differ run to run\n",
                 ep.config().x, ep.config().y, (unsigned long long)other,
                 gCpu->noisyThread.empty() ? "" : " (thread ",
                 gCpu->noisyThread.empty() ? "" : (gCpu->noisyThread + " never blocked)").c_str());
  std::string path = ep.config().dir + "/cpu." + std::to_string(ep.config().x) + "." +
                     std::to_string(ep.config().y) + ".json";
  std::ofstream(path) << gCpu->model->json();
}

void cpuExitHook() {
  if (gEndpoint)
    cpuFinish(*gEndpoint);
}

void atExit() {
  if (!gEndpoint)
    return;
  cpuFinish(*gEndpoint);
  std::string err;
  if (!gEndpoint->finish(gEndpoint->clock(), err))
    fatalAt(&gEndpoint->config(), err);
  gEndpoint->close();
}

Endpoint *create() {
  const char *grid = env("PTXSIM_CHIPLET_GRID");
  if (!grid)
    return nullptr;
  // --cpu-model starts the chiplet as `valgrind ... PROGRAM`: valgrind's launchers (Debian's is a
  // shell script) get the preload too, and are no chiplet; the program they run under valgrind is.
  if (env("PTXSIM_CHIPLET_CPU_DUMP") && !PTXSIM_HAVE_CALLGRIND)
    fatalAt(nullptr, "--cpu-model: libptxsim_chiplet was built without Valgrind's headers "
                     "(apt-get install valgrind, or scripts/setup.sh, and rebuild)");
  if (env("PTXSIM_CHIPLET_CPU_DUMP") && !RUNNING_ON_VALGRIND)
    return nullptr;
  EndpointConfig cfg;
  if (std::sscanf(grid, "%ux%u", &cfg.width, &cfg.height) != 2 || cfg.width == 0 ||
      cfg.height == 0 || cfg.width > 64 || cfg.height > 64)
    fatalAt(nullptr, std::string("PTXSIM_CHIPLET_GRID='") + grid + "' is not WxH");
  std::string transport = env("PTXSIM_CHIPLET_TRANSPORT") ? env("PTXSIM_CHIPLET_TRANSPORT") : "files";
  const char *xs = env("PTXSIM_CHIPLET_X"), *ys = env("PTXSIM_CHIPLET_Y");
  if (transport == "mpi" && (!xs || !ys)) {
    // run directly under mpirun: the rank is the chiplet index
    const char *rank = env("OMPI_COMM_WORLD_RANK") ? env("OMPI_COMM_WORLD_RANK")
                       : env("PMIX_RANK")          ? env("PMIX_RANK")
                       : env("PMI_RANK")           ? env("PMI_RANK")
                                                   : env("SLURM_PROCID");
    if (!rank)
      fatalAt(nullptr, "transport mpi without PTXSIM_CHIPLET_X/Y needs mpirun (no rank found)");
    unsigned r = (unsigned)std::atoi(rank);
    cfg.x = r % cfg.width;
    cfg.y = r / cfg.width;
  } else {
    if (!xs || !ys)
      fatalAt(nullptr, "PTXSIM_CHIPLET_X and PTXSIM_CHIPLET_Y must give this chiplet's coordinates");
    cfg.x = (unsigned)std::atoi(xs);
    cfg.y = (unsigned)std::atoi(ys);
  }
  if (cfg.x >= cfg.width || cfg.y >= cfg.height)
    fatalAt(nullptr, "chiplet (" + std::to_string(cfg.x) + "," + std::to_string(cfg.y) +
                         ") is outside the " + grid + " grid");
  if (const char *d = env("PTXSIM_CHIPLET_DIR"))
    cfg.dir = d;
  if (const char *t = env("PTXSIM_CHIPLET_TIMEOUT"))
    cfg.timeoutSec = std::atof(t);
  cfg.net.radix = std::max(cfg.width, cfg.height);
  std::string err;
  if (const char *n = env("PTXSIM_CHIPLET_NET"))
    if (!parseNetOptions(n, cfg.net, err))
      fatalAt(&cfg, "PTXSIM_CHIPLET_NET: " + err);
  if (cfg.net.dims != 2 || cfg.net.radix < std::max(cfg.width, cfg.height))
    fatalAt(&cfg, "the network must be 2D with at least " +
                      std::to_string(std::max(cfg.width, cfg.height)) + " nodes per dimension");
  std::unique_ptr<Transport> t;
  if (transport == "files")
    t = makeFilesTransport();
  else if (transport == "mpi") {
    t = makeMpiTransport(err);
    if (!t)
      fatalAt(&cfg, err);
  } else
    fatalAt(&cfg, "unknown PTXSIM_CHIPLET_TRANSPORT '" + transport + "' (files or mpi)");
  auto *ep = new Endpoint(cfg, std::move(t));
  if (!ep->start(err))
    fatalAt(&cfg, err);
  std::atexit(atExit);
  gSelf[0] = (int)cfg.x, gSelf[1] = (int)cfg.y, gSelf[2] = (int)cfg.width, gSelf[3] = (int)cfg.height;
  cpuStart(*ep);
  return ep;
}

using MainFn = int (*)(int, char **, char **);
MainFn gRealMain = nullptr;

/// The program's main under the CPU model: its first interval starts here.
int mainUnderModel(int argc, char **argv, char **envp) {
  if (gCpu) {
    cpuQuiesce(); // the CUDA runtime's service thread may still be finishing a load-time job
    cpuHeapSetUser(true);
    CALLGRIND_START_INSTRUMENTATION;
    CALLGRIND_ZERO_STATS;
  }
  int rc = gRealMain(argc, argv, envp);
  if (gCpu && gEndpoint)
    cpuFinish(*gEndpoint); // the last interval ends where main returns
  return rc;
}

/// Every chiplet process joins at load time, so one that never sends still takes part in the
/// synchronization (and its exit counts as finishing).
__attribute__((constructor)) void joinAtLoad() { processEndpoint(); }

} // namespace

std::unique_ptr<Transport> makeMpiTransport(std::string &err) {
  std::string path;
  if (const char *p = env("PTXSIM_CHIPLET_MPI_PLUGIN"))
    path = p;
  else {
    Dl_info info;
    if (dladdr((void *)&makeMpiTransport, &info) && info.dli_fname) {
      path = info.dli_fname;
      path = path.substr(0, path.rfind('/') + 1);
    }
    path += "libptxsim_chiplet_mpi.so";
  }
  void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!h) {
    err = std::string("cannot load the mpi transport: ") + dlerror() +
          " (build with libopenmpi-dev installed)";
    return nullptr;
  }
  auto make = (Transport * (*)()) dlsym(h, "ptxsimChipletMakeMpiTransport");
  if (!make) {
    err = path + " has no ptxsimChipletMakeMpiTransport";
    return nullptr;
  }
  return std::unique_ptr<Transport>(make());
}

Endpoint *processEndpoint() {
  if (!gTried) {
    gTried = true;
    gEndpoint = create();
  }
  return gEndpoint;
}

} // namespace ptxsim::chiplet

using namespace ptxsim::chiplet;

/// The C library's program start, interposed (this library is preloaded into every chiplet) so
/// a CPU chiplet under the model starts measuring at main; everyone else passes through.
extern "C" __attribute__((visibility("default"))) int
__libc_start_main(MainFn main, int argc, char **argv, void (*init)(), void (*fini)(),
                  void (*rtldFini)(), void *stackEnd) {
  using StartFn = int (*)(MainFn, int, char **, void (*)(), void (*)(), void (*)(), void *);
  static StartFn real = (StartFn)dlsym(RTLD_NEXT, "__libc_start_main");
  if (!real)
    fatalAt(nullptr, "cannot find the C library's __libc_start_main");
  if (std::getenv("PTXSIM_CHIPLET_CPU_DUMP")) {
    gRealMain = main;
    main = mainUnderModel;
  }
  return real(main, argc, argv, init, fini, rtldFini, stackEnd);
}

namespace {

Endpoint &need(const char *fn) {
  Endpoint *ep = processEndpoint();
  if (!ep)
    fatalAt(nullptr, std::string(fn) +
                         ": not a chiplet run (start the program with `ptxsim chiplets`)");
  return *ep;
}

void checkSelf(Endpoint &ep, const char *fn, int x, int y) {
  if ((unsigned)x != ep.config().x || (unsigned)y != ep.config().y)
    fatalAt(&ep.config(), std::string(fn) + ": this chiplet is (" + std::to_string(ep.config().x) +
                              "," + std::to_string(ep.config().y) + "), the call says (" +
                              std::to_string(x) + "," + std::to_string(y) + ")");
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) void sendGpuMessage(int dstX, int dstY, int srcX, int srcY,
                                                            const int *data, int dataSize) {
  CpuOp op;
  Endpoint &ep = need("sendGpuMessage");
  checkSelf(ep, "sendGpuMessage", srcX, srcY);
  std::string err;
  if (dstX < 0 || dstY < 0 || dataSize < 0 ||
      !ep.send((unsigned)dstX, (unsigned)dstY, (const uint32_t *)data, (size_t)dataSize, 0, err, 0,
               "sendGpuMessage (host code)"))
    fatalAt(&ep.config(), "sendGpuMessage: " + (err.empty() ? "bad arguments" : err));
}

__attribute__((visibility("default"))) void passGpuMessage(int dstX, int dstY, int srcX, int srcY,
                                                            const int *data, int dataSize) {
  sendGpuMessage(dstX, dstY, srcX, srcY, data, dataSize);
}

__attribute__((visibility("default"))) void readGpuMessage(int srcX, int srcY, int dstX, int dstY,
                                                            int *data, int dataSize) {
  CpuOp op;
  Endpoint &ep = need("readGpuMessage");
  checkSelf(ep, "readGpuMessage", dstX, dstY);
  std::string err;
  if (srcX < 0 || srcY < 0 || dataSize < 0 ||
      !ep.receive((unsigned)srcX, (unsigned)srcY, (uint32_t *)data, (size_t)dataSize, 0, err, 0,
                  false, "readGpuMessage (host code)"))
    fatalAt(&ep.config(), "readGpuMessage: " + (err.empty() ? "bad arguments" : err));
}

__attribute__((visibility("default"))) int ptxsimChipletSelf(int *x, int *y, int *w, int *h) {
  Endpoint *ep = processEndpoint();
  if (!ep)
    return 0;
  if (x)
    *x = gSelf[0];
  if (y)
    *y = gSelf[1];
  if (w)
    *w = gSelf[2];
  if (h)
    *h = gSelf[3];
  return 1;
}

__attribute__((visibility("default"))) void ptxsimChipletAdvance(uint64_t cycles) {
  CpuOp op;
  Endpoint &ep = need("ptxsimChipletAdvance");
  ep.advanceClock(ep.clock() + cycles);
}

__attribute__((visibility("default"))) uint64_t ptxsimChipletClock(void) {
  CpuOp op; // the clock includes the host work so far
  Endpoint *ep = processEndpoint();
  return ep ? ep->clock() : 0;
}

} // extern "C"

// --- entry points for the simulator's chiplet instructions (isa_ext/chiplet/ChipletIsa.cpp) ---
// libcudart finds them with dlsym: the launcher preloads this library into every chiplet.
// Return 0, or 1 with `err` for a bad argument (the instruction faults); synchronization and
// transport failures end the process (fatalAt), as for the host API.

namespace {
void copyErr(const std::string &e, char *err, size_t len) {
  if (err && len) {
    std::snprintf(err, len, "%s", e.c_str());
  }
}
} // namespace

extern "C" {

__attribute__((visibility("default"))) int ptxsimChipletDeviceSelf(unsigned *x, unsigned *y) {
  Endpoint *ep = processEndpoint();
  if (!ep)
    return 0;
  *x = ep->config().x;
  *y = ep->config().y;
  return 1;
}

/// Sends one message of `n` words on `channel` (the sending warp's); `site` names the
/// instruction in errors.
__attribute__((visibility("default"))) int
ptxsimChipletDeviceSendMsg(unsigned dx, unsigned dy, const uint32_t *words, size_t n, uint64_t at,
                           uint32_t channel, const char *site, char *err, size_t errLen) {
  Endpoint *ep = processEndpoint();
  if (!ep) {
    copyErr("this process is not a chiplet (run the program with `ptxsim chiplets`)", err, errLen);
    return 1;
  }
  if (dx >= ep->config().width || dy >= ep->config().height) {
    copyErr("destination chiplet (" + std::to_string(dx) + "," + std::to_string(dy) +
                ") is outside the " + std::to_string(ep->config().width) + "x" +
                std::to_string(ep->config().height) + " grid",
            err, errLen);
    return 1;
  }
  std::string e;
  if (!ep->send(dx, dy, words, n, at, e, channel, site ? site : ""))
    fatalAt(&ep->config(), "chiplet send: " + e);
  return 0;
}

/// Receives `n` words from (sx,sy) on `channel`: with `whole`, exactly the next message (a
/// different size is an error naming both sites), otherwise from the channel's word stream.
__attribute__((visibility("default"))) int
ptxsimChipletDeviceRecvMsg(unsigned sx, unsigned sy, uint32_t *words, size_t n, uint64_t at,
                           uint32_t channel, int whole, const char *site, uint64_t *doneAt,
                           char *err, size_t errLen) {
  Endpoint *ep = processEndpoint();
  if (!ep) {
    copyErr("this process is not a chiplet (run the program with `ptxsim chiplets`)", err, errLen);
    return 1;
  }
  if (sx >= ep->config().width || sy >= ep->config().height) {
    copyErr("source chiplet (" + std::to_string(sx) + "," + std::to_string(sy) +
                ") is outside the " + std::to_string(ep->config().width) + "x" +
                std::to_string(ep->config().height) + " grid",
            err, errLen);
    return 1;
  }
  std::string e;
  if (!ep->receive(sx, sy, words, n, at, e, channel, whole != 0, site ? site : ""))
    fatalAt(&ep->config(), "chiplet receive: " + e);
  *doneAt = ep->clock();
  return 0;
}

} // extern "C"

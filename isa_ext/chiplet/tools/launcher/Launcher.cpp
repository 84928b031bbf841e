#include "isa_ext/chiplet/tools/launcher/Launcher.h"

#include "base/SelfPath.h"

#include "isa_ext/chiplet/tools/cpu/CpuModel.h"
#include "isa_ext/chiplet/tools/runtime/Endpoint.h"
#include "isa_ext/chiplet/noc/Network.h"
#include "isa_ext/chiplet/noc/PathModel.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <ostream>
#include <regex>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace ptxsim::chiplet {
namespace {

void usage(std::ostream &os) {
  os << "usage: ptxsim chiplets --grid WxH [options] -- PROGRAM [ARGS...]\n"
        "  Runs PROGRAM once per chiplet; {x} and {y} in ARGS become the chiplet's coordinates\n"
        "  (also in PTXSIM_CHIPLET_X/Y). Prints the network report, totals and a per-chiplet table.\n"
        "options:\n"
        "  --grid WxH             chiplets in x and y (required)\n"
        "  --cpu X,Y              this chiplet is a CPU chiplet (host code only; repeatable)\n"
        "  --transport files|mpi  how chiplets exchange data (default files)\n"
        "  --dir DIR              run directory for data, trace and synchronization files\n"
        "                         (default ./chiplet_run; emptied of a previous run's files)\n"
        "  --config FILE          timing configuration for the GPU chiplets (repeatable)\n"
        "  --mode functional|timing, --power   as for `ptxsim run`\n"
        "  --net 'OPTIONS'        the inter-chiplet network in popnet options (default\n"
        "                         '-A <max(W,H)> -c 2 -V 3 -B 12 -O 12 -F 4 -L 1000 -r 1 -R 0')\n"
        "  --timeout SEC          a chiplet missing at a barrier is checked every SEC/2 s and\n"
        "                         fails the run when its process is gone, stopped or idle (used\n"
        "                         no CPU time since the last check); a computing one never (60)\n"
        "  --stats-json FILE      everything (per chiplet, network, totals) as JSON\n"
        "  --hosts H1,H2,...      mpi: hosts for mpirun --host (ranks spread over them)\n"
        "  --report               print the report of a finished run in --dir (after starting\n"
        "                         `mpirun -np N ptxsim chiplets --transport mpi ...` yourself)\n"
        "  --legacy-addc          GPU chiplets treat addc.u32/addc.s32 as the document's send/receive\n"
        "  --cpu-model M          CPU chiplets' core model: off (default: native, clock by messages\n"
        "                         only), gainestown, modern or a preset file (configs/*.cpu.config);\n"
        "                         the CPU chiplets run under valgrind's callgrind\n";
}

std::string selfExe() {
  std::string exe = selfExecutable();
  return exe.empty() ? "ptxsim" : exe;
}

bool readWhole(const std::string &p, std::string &out) {
  std::ifstream in(p, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

/// The number after `"key": ` in a flat JSON object, or `dflt`.
double jsonNumber(const std::string &s, const std::string &key, double dflt = 0) {
  size_t p = s.find("\"" + key + "\":");
  if (p == std::string::npos)
    return dflt;
  return std::strtod(s.c_str() + p + key.size() + 3, nullptr);
}

/// Sum of every `"key": number` in `s`.
double jsonSum(const std::string &s, const std::string &key) {
  double sum = 0;
  std::string pat = "\"" + key + "\": ";
  for (size_t p = s.find(pat); p != std::string::npos; p = s.find(pat, p + 1))
    sum += std::strtod(s.c_str() + p + pat.size(), nullptr);
  return sum;
}

struct Chiplet {
  unsigned x, y;
  bool cpu = false;
  pid_t pid = -1;
  int status = -1;      ///< exit status, or 128 + signal
  std::string died;     ///< how it failed, empty when it exited 0
  // gathered
  bool haveStats = false;
  double clock = 0, sends = 0, sentBytes = 0, receives = 0, receivedBytes = 0, barriers = 0,
         waitCycles = 0;
  double gpuCycles = 0, energyJ = 0, powerW = 0;
  double kernelSeconds = 0; ///< simulated time of its kernels (what energyJ covers)
  double maxRssKb = 0;
  bool timing = false;
  // the CPU model's (cpu.<x>.<y>.json), with --cpu-model
  bool cpuModel = false;
  double cpuCycles = 0, cpuInstructions = 0, cpuSeconds = 0;
  double cpuOtherThreads = 0; ///< other threads' instructions inside measured intervals
};

std::string xyName(unsigned x, unsigned y) { return std::to_string(x) + "." + std::to_string(y); }

void cleanDir(const std::string &dir) {
  DIR *d = opendir(dir.c_str());
  if (!d)
    return;
  static const char *prefixes[] = {"buffer_", "bench.", "synchronization", "status.", "stats.",
                                   "abort", ".tmp.", ".buffer_", ".synchronization", "chiplet.",
                                   "ptxsim.", ".trace", ".sites.", "cpu.", ".cpu."};
  std::system(("rm -rf '" + dir + "/.tmp' '" + dir + "/.status' '" + dir + "/.sync'").c_str());
  while (dirent *e = readdir(d)) {
    std::string n = e->d_name;
    for (const char *p : prefixes)
      if (n.rfind(p, 0) == 0) {
        unlink((dir + "/" + n).c_str());
        break;
      }
  }
  closedir(d);
}

std::vector<std::string> substitute(const std::vector<std::string> &args, unsigned x, unsigned y) {
  std::vector<std::string> out;
  for (std::string a : args) {
    for (size_t p; (p = a.find("{x}")) != std::string::npos;)
      a.replace(p, 3, std::to_string(x));
    for (size_t p; (p = a.find("{y}")) != std::string::npos;)
      a.replace(p, 3, std::to_string(y));
    out.push_back(a);
  }
  return out;
}

/// Environment of one chiplet process (set in the child before exec).
void setChipletEnv(const std::string &dir, const std::string &lib, unsigned x, unsigned y, bool cpu) {
  setenv("PTXSIM_CHIPLET_X", std::to_string(x).c_str(), 1);
  setenv("PTXSIM_CHIPLET_Y", std::to_string(y).c_str(), 1);
  setenv("PTXSIM_CHIPLET_ROLE", cpu ? "cpu" : "gpu", 1);
  setenv("PTXSIM_STATS_JSON", (dir + "/ptxsim." + xyName(x, y) + ".json").c_str(), 1);
  // Functional mode runs chiplet instructions of different CTAs in host-thread order; one host
  // thread keeps message order (and so results and cycles) reproducible.
  setenv("PTXSIM_THREADS", "1", 0);
  std::string pre = lib + "/libptxsim_chiplet.so";
  if (const char *old = getenv("LD_PRELOAD"); old && *old)
    pre += std::string(":") + old;
  setenv("LD_PRELOAD", pre.c_str(), 1);
  std::string lp = lib;
  if (const char *old = getenv("LD_LIBRARY_PATH"); old && *old)
    lp += std::string(":") + old;
  setenv("LD_LIBRARY_PATH", lp.c_str(), 1);
  if (cpu) {
    unsetenv("PTXSIM_CONFIG");
    unsetenv("PTXSIM_MODE");
    unsetenv("PTXSIM_POWER");
  }
}

/// valgrind's path on PATH (empty when missing).
std::string findValgrind() {
  const char *path = getenv("PATH");
  std::string p = path ? path : "/usr/bin:/bin";
  for (size_t b = 0, e; b <= p.size(); b = e + 1) {
    e = p.find(':', b);
    if (e == std::string::npos)
      e = p.size();
    std::string f = (e > b ? p.substr(b, e - b) : ".") + "/valgrind";
    if (access(f.c_str(), X_OK) == 0)
      return f;
  }
  return "";
}

/// Puts a CPU chiplet's initial stack pointer at the same address whatever its environment
/// (mpirun adds variables the files transport does not have, the working directory is in PWD)
/// and however its path is written. The stack's argument and environment strings plus their
/// pointers are padded to 128 KiB (or the next multiple) with two variables. Then the program's
/// stack lines, and their L1 and LLC sets, are the same, and so are its simulated cache misses.
/// Padding to a multiple of 4096 bytes kept the L1 sets but not the LLC's (set period 512 KiB):
/// the manual's matmul run from another directory had one more LLC miss under mpi.
void padEnvironment(const std::vector<std::string> &args) {
  const char *pads[] = {"PTXSIM_CHIPLET_PAD", "PTXSIM_CHIPLET_PAD2"};
  for (const char *p : pads)
    unsetenv(p);
  size_t bytes = 0, pointers = 0;
  for (auto &s : args)
    bytes += s.size() + 1, ++pointers;
  if (!args.empty()) // valgrind copies the program's name once more, for the aux vector's AT_EXECFN
    bytes += args[0].size() + 1;
  for (char **e = environ; *e; ++e)
    bytes += std::strlen(*e) + 1, ++pointers;
  for (const char *p : pads)
    bytes += std::strlen(p) + 2, ++pointers; // "NAME=" and the NUL
  constexpr size_t kTotal = size_t(128) << 10, kMaxVar = size_t(120) << 10;
  size_t fixed = 8 * pointers + bytes;
  size_t pad = (fixed + kTotal - 1) / kTotal * kTotal - fixed;
  for (const char *p : pads) { // one variable holds at most 128 KiB (MAX_ARG_STRLEN)
    size_t n = std::min(pad, kMaxVar);
    setenv(p, std::string(n, 'x').c_str(), 1);
    pad -= n;
  }
}

[[noreturn]] void execApp(const std::string &dir, unsigned x, unsigned y,
                          const std::vector<std::string> &app) {
  std::string out = dir + "/chiplet." + xyName(x, y) + ".out";
  std::string errf = dir + "/chiplet." + xyName(x, y) + ".err";
  int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int e = open(errf.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (o >= 0)
    dup2(o, 1);
  if (e >= 0)
    dup2(e, 2);
  std::vector<std::string> a = substitute(app, x, y);
  const char *model = getenv("PTXSIM_CHIPLET_CPU_MODEL");
  const char *role = getenv("PTXSIM_CHIPLET_ROLE");
  if (model && *model && role && std::string(role) == "cpu") {
    // the CPU model: under callgrind, instrumented only between chiplet operations (HostApi.cpp)
    cpu::CpuConfig cfg;
    std::string cerr;
    if (!cpu::loadCpuConfig(model, cfg, cerr)) {
      std::fprintf(stderr, "ptxsim chiplets: --cpu-model: %s\n", cerr.c_str());
      _exit(2);
    }
    std::string base = dir + "/.cpu." + xyName(x, y);
    setenv("PTXSIM_CHIPLET_CPU_DUMP", (base + ".cg").c_str(), 1);
    // symbols bound at load time, not at their first call inside a measured interval (the
    // dynamic linker's lookup costs depend on the libraries loaded, which differ by transport)
    setenv("LD_BIND_NOW", "1", 1);
    std::vector<std::string> vg = {"valgrind", "--tool=callgrind", "--instr-atstart=no",
                                   "--cache-sim=yes", "--branch-sim=yes", "--dump-line=no",
                                   "--separate-threads=yes",
                                   "--compress-strings=no", "--compress-pos=no",
                                   "--log-file=" + base + ".valgrind.log",
                                   "--callgrind-out-file=" + base + ".cg"};
    for (auto &c : cpu::valgrindCacheArgs(cfg))
      vg.push_back(c);
    // Debian's `valgrind` is a shell script that edits the environment; run the real launcher
    std::string bin = findValgrind();
    if (access((bin + ".bin").c_str(), X_OK) == 0)
      bin += ".bin";
    vg[0] = bin;
    padEnvironment(a);
    a.insert(a.begin(), vg.begin(), vg.end());
  }
  std::vector<char *> argv;
  for (auto &s : a)
    argv.push_back(s.data());
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  std::fprintf(stderr, "ptxsim chiplets: cannot run %s: %s\n", argv[0], std::strerror(errno));
  _exit(127);
}

/// This process's rank and the job's size when started as one of several MPI ranks: by mpirun
/// (Open MPI's variables) or directly by Slurm's `srun --mpi=pmix` (PMIx's and Slurm's).
bool mpiRank(unsigned &rank, unsigned &size) {
  const char *r = getenv("OMPI_COMM_WORLD_RANK"), *n = getenv("OMPI_COMM_WORLD_SIZE");
  if (!r && getenv("SLURM_PROCID") && getenv("SLURM_STEP_NUM_TASKS") &&
      std::atoi(getenv("SLURM_STEP_NUM_TASKS")) > 1) {
    r = getenv("SLURM_PROCID");
    n = getenv("SLURM_STEP_NUM_TASKS");
  }
  if (!r)
    return false;
  rank = (unsigned)std::atoi(r);
  size = n ? (unsigned)std::atoi(n) : 0;
  return true;
}

std::string describeStatus(int st) {
  if (WIFSIGNALED(st))
    return std::string("killed by signal ") + std::to_string(WTERMSIG(st)) + " (" +
           strsignal(WTERMSIG(st)) + ")";
  return "exited with status " + std::to_string(WEXITSTATUS(st));
}

/// The signals that stop a run (Ctrl-C, kill, a closed terminal) and are not ignored (as under
/// nohup). While the launcher waits for its chiplets (or mpirun) it blocks them and takes them
/// with sigtimedwait beside SIGCHLD, so a stop reaches every child instead of leaving them running.
sigset_t stopSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old = {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler != SIG_IGN)
      sigaddset(&set, sig);
  }
  return set;
}

/// Sends `sig` to every child in `pids` (0 for one already reaped), waits up to 5 s for them and
/// kills whoever is left, so no chiplet outlives a stopped launcher.
void stopChildren(std::vector<pid_t> pids, int sig) {
  for (pid_t p : pids)
    if (p > 0)
      kill(p, sig);
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (;;) {
    bool left = false;
    for (pid_t &p : pids)
      if (p > 0) {
        if (waitpid(p, nullptr, WNOHANG) == p)
          p = 0;
        else
          left = true;
      }
    if (!left)
      return;
    if (std::chrono::steady_clock::now() > until) {
      for (pid_t p : pids)
        if (p > 0) {
          kill(p, SIGKILL);
          waitpid(p, nullptr, 0);
        }
      return;
    }
    usleep(20000);
  }
}

} // namespace

int chipletsCommand(const std::vector<std::string> &args, std::ostream &out, std::ostream &err) {
  unsigned w = 0, h = 0;
  std::vector<std::pair<unsigned, unsigned>> cpus;
  std::string transport = "files", dir = "chiplet_run", net, statsJson, hosts;
  std::vector<std::string> configs;
  double timeout = 60;
  bool rankMode = false, reportOnly = false;
  size_t i = 0;
  auto need = [&](const std::string &opt) -> const std::string * {
    if (i + 1 >= args.size()) {
      err << "ptxsim chiplets: option " << opt << " needs a value\n";
      return nullptr;
    }
    return &args[++i];
  };
  for (; i < args.size(); ++i) {
    const std::string &a = args[i];
    const std::string *v = nullptr;
    if (a == "--") {
      ++i;
      break;
    } else if (a == "-h" || a == "--help") {
      usage(out);
      return 0;
    } else if (a == "--rank") {
      rankMode = true;
    } else if (a == "--report") {
      reportOnly = true;
    } else if (a == "--legacy-addc") {
      setenv("PTXSIM_CHIPLET_LEGACY_ADDC", "1", 1);
    } else if (a == "--power") {
      setenv("PTXSIM_POWER", "1", 1);
      setenv("PTXSIM_MODE", "timing", 0);
    } else if (!(v = need(a))) {
      return 2;
    } else if (a == "--grid") {
      if (std::sscanf(v->c_str(), "%ux%u", &w, &h) != 2 || !w || !h || w > 64 || h > 64) {
        err << "ptxsim chiplets: --grid needs WxH (1..64 each), not '" << *v << "'\n";
        return 2;
      }
    } else if (a == "--cpu") {
      unsigned x, y;
      if (std::sscanf(v->c_str(), "%u,%u", &x, &y) != 2) {
        err << "ptxsim chiplets: --cpu needs X,Y, not '" << *v << "'\n";
        return 2;
      }
      cpus.push_back({x, y});
    } else if (a == "--transport") {
      if (*v != "files" && *v != "mpi") {
        err << "ptxsim chiplets: --transport is files or mpi, not '" << *v << "'\n";
        return 2;
      }
      transport = *v;
    } else if (a == "--dir") {
      dir = *v;
    } else if (a == "--config") {
      struct stat st;
      if (stat(v->c_str(), &st) != 0) {
        err << "ptxsim chiplets: --config: no such file '" << *v << "'\n";
        return 2;
      }
      configs.push_back(*v);
    } else if (a == "--mode") {
      if (*v != "functional" && *v != "timing") {
        err << "ptxsim chiplets: --mode is functional or timing, not '" << *v << "'\n";
        return 2;
      }
      setenv("PTXSIM_MODE", v->c_str(), 1);
    } else if (a == "--net") {
      net = *v;
    } else if (a == "--timeout") {
      timeout = std::atof(v->c_str());
      if (timeout <= 0) {
        err << "ptxsim chiplets: --timeout needs seconds > 0\n";
        return 2;
      }
    } else if (a == "--stats-json") {
      statsJson = *v;
    } else if (a == "--hosts") {
      hosts = *v;
    } else if (a == "--cpu-model") {
      if (*v == "off") {
        unsetenv("PTXSIM_CHIPLET_CPU_MODEL");
      } else {
        cpu::CpuConfig cfg;
        std::string cerr;
        if (!cpu::loadCpuConfig(*v, cfg, cerr)) {
          err << "ptxsim chiplets: --cpu-model: " << cerr << "\n";
          return 2;
        }
        char abs[PATH_MAX];
        bool builtin = cpu::builtinPreset(*v, cfg);
        setenv("PTXSIM_CHIPLET_CPU_MODEL", builtin || !realpath(v->c_str(), abs) ? v->c_str() : abs,
               1);
        if (findValgrind().empty()) {
          err << "ptxsim chiplets: --cpu-model needs valgrind (apt-get install valgrind; "
                 "scripts/setup.sh installs it)\n";
          return 2;
        }
      }
    } else {
      err << "ptxsim chiplets: unknown option '" << a << "'\n";
      usage(err);
      return 2;
    }
  }
  std::vector<std::string> app(args.begin() + (long)std::min(i, args.size()), args.end());
  std::string lib = ptxsim::libraryDir();

  if (rankMode) {
    // One rank under mpirun: the rank is the chiplet index; the launcher exported the rest.
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    const char *grid = getenv("PTXSIM_CHIPLET_GRID");
    if (!rank || !grid || std::sscanf(grid, "%ux%u", &w, &h) != 2 || app.empty()) {
      err << "ptxsim chiplets --rank: run by `ptxsim chiplets --transport mpi` under mpirun\n";
      return 2;
    }
    unsigned r = (unsigned)std::atoi(rank);
    unsigned x = r % w, y = r / w;
    const char *cpuList = getenv("PTXSIM_CHIPLET_CPUS");
    bool cpu = cpuList && std::string(" ") .append(cpuList).find(" " + std::to_string(x) + "," +
                                                                std::to_string(y) + " ") !=
                              std::string::npos;
    std::string d = getenv("PTXSIM_CHIPLET_DIR") ? getenv("PTXSIM_CHIPLET_DIR") : ".";
    setChipletEnv(d, lib, x, y, cpu);
    execApp(d, x, y, app);
  }

  if (!w || (app.empty() && !reportOnly)) {
    err << "ptxsim chiplets: " << (!w ? "--grid WxH is required" : "no program after --") << "\n";
    usage(err);
    return 2;
  }
  for (auto &c : cpus)
    if (c.first >= w || c.second >= h) {
      err << "ptxsim chiplets: --cpu " << c.first << "," << c.second << " is outside the grid\n";
      return 2;
    }
  noc::NetworkConfig ncfg;
  ncfg.radix = std::max(w, h);
  if (net.empty())
    net = "-A " + std::to_string(ncfg.radix) + " -c 2 -V 3 -B 12 -O 12 -F 4 -L 1000 -r 1 -R 0";
  std::string perr;
  if (!parseNetOptions(net, ncfg, perr) || ncfg.dims != 2 || ncfg.radix < std::max(w, h)) {
    err << "ptxsim chiplets: --net: "
        << (perr.empty() ? "needs a 2D network of at least " + std::to_string(std::max(w, h)) +
                               " nodes per dimension"
                         : perr)
        << "\n";
    return 2;
  }
  for (size_t p = 1; p != std::string::npos; p = dir.find('/', p + 1))
    mkdir(dir.substr(0, p).c_str(), 0755); // the parents
  mkdir(dir.c_str(), 0755);
  char absBuf[PATH_MAX];
  if (!realpath(dir.c_str(), absBuf)) {
    err << "ptxsim chiplets: cannot create the run directory '" << dir << "'\n";
    return 2;
  }
  dir = absBuf;
  // Started by the user under mpirun (every rank runs this launcher): each rank becomes its
  // chiplet below, and `ptxsim chiplets --report` prints the report afterwards.
  unsigned mpiR = 0, mpiN = 0;
  bool underMpi = transport == "mpi" && mpiRank(mpiR, mpiN) && !reportOnly;
  if (!reportOnly && !underMpi) {
    cleanDir(dir);
    uint64_t window = noc::PathModel(ncfg).minDelay();
    std::ofstream(dir + "/synchronization") << window << "\n" << window << "\n";
  }

  std::string cfgList;
  for (auto &c : configs)
    cfgList += (cfgList.empty() ? "" : ",") + c;
  if (!cfgList.empty()) {
    setenv("PTXSIM_CONFIG", cfgList.c_str(), 1);
    setenv("PTXSIM_MODE", "timing", 0);
  }
  std::string cpuList = " ";
  for (auto &c : cpus)
    cpuList += std::to_string(c.first) + "," + std::to_string(c.second) + " ";
  setenv("PTXSIM_CHIPLET_GRID", (std::to_string(w) + "x" + std::to_string(h)).c_str(), 1);
  setenv("PTXSIM_CHIPLET_DIR", dir.c_str(), 1);
  setenv("PTXSIM_CHIPLET_TRANSPORT", transport.c_str(), 1);
  setenv("PTXSIM_CHIPLET_TIMEOUT", std::to_string(timeout).c_str(), 1);
  setenv("PTXSIM_CHIPLET_NET", net.c_str(), 1);
  setenv("PTXSIM_CHIPLET_CPUS", cpuList.c_str(), 1);
  setenv("PTXSIM_SUMMARY", "0", 0);
  // Shared-memory transfers by process_vm_readv fail in containers without ptrace rights.
  setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
  if (underMpi) {
    unsigned r = mpiR;
    if (mpiN && mpiN != w * h) {
      // Said on the terminal once, by rank 0, whose status fails the job; the other ranks leave
      // quietly (exiting with an error first would make mpirun kill rank 0 before it speaks).
      if (r != 0)
        return 0;
      err << "ptxsim chiplets: error: mpirun started " << mpiN << " ranks for the " << w << "x" << h
          << " grid, which needs " << w * h << " (mpirun -np " << w * h << ")\n";
      return 2;
    }
    if (r >= w * h) {
      err << "ptxsim chiplets: rank " << r << " is beyond the " << w << "x" << h << " grid\n";
      return 2;
    }
    unsigned x = r % w, y = r / w;
    bool cpu = std::find(cpus.begin(), cpus.end(), std::make_pair(x, y)) != cpus.end();
    setChipletEnv(dir, lib, x, y, cpu);
    execApp(dir, x, y, app);
  }

  std::vector<Chiplet> chips;
  for (unsigned y = 0; y < h; ++y)
    for (unsigned x = 0; x < w; ++x) {
      Chiplet c;
      c.x = x;
      c.y = y;
      c.cpu = std::find(cpus.begin(), cpus.end(), std::make_pair(x, y)) != cpus.end();
      chips.push_back(c);
    }

  auto t0 = std::chrono::steady_clock::now();
  std::string firstFailure;
  bool mpiFailed = false;
  std::string mpiLog;
  if (reportOnly) {
    for (Chiplet &c : chips)
      c.status = 0; // set from the statistics below
  } else if (transport == "files") {
    sigset_t chld = stopSignals();
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, nullptr); // taken with sigtimedwait below
    for (Chiplet &c : chips) {
      c.pid = fork();
      if (c.pid == 0) {
        sigprocmask(SIG_UNBLOCK, &chld, nullptr);
        setChipletEnv(dir, lib, c.x, c.y, c.cpu);
        execApp(dir, c.x, c.y, app);
      }
    }
    size_t left = chips.size();
    bool killedRest = false;
    auto deadline = std::chrono::steady_clock::time_point::max();
    while (left > 0) {
      int st;
      pid_t p = waitpid(-1, &st, WNOHANG);
      if (p < 0 && errno != EINTR)
        break;
      if (p <= 0) {
        // Nothing exited: sleep until a child does (SIGCHLD) or a second passes.
        // A stop signal ends every chiplet first (tests/cli: chiplets_stopped_by_signal).
        struct timespec ts = {1, 0};
        int got = sigtimedwait(&chld, nullptr, &ts);
        if (got > 0 && got != SIGCHLD) {
          std::vector<pid_t> live;
          for (const Chiplet &c : chips)
            live.push_back(c.status < 0 ? c.pid : 0);
          stopChildren(live, SIGTERM);
          err << "ptxsim chiplets: stopped by signal " << got << " (" << strsignal(got)
              << "); every chiplet was stopped\n";
          return 128 + got;
        }
        if (!killedRest && std::chrono::steady_clock::now() > deadline) {
          // The others were told; whoever is still there after the timeout is stuck.
          for (Chiplet &c : chips)
            if (c.status < 0)
              kill(c.pid, SIGKILL);
          killedRest = true;
        }
        continue;
      }
      for (Chiplet &c : chips)
        if (c.pid == p) {
          c.status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
          --left;
          if (c.status != 0) {
            c.died = describeStatus(st);
            if (firstFailure.empty()) {
              firstFailure = "chiplet (" + std::to_string(c.x) + "," + std::to_string(c.y) +
                             ") " + c.died;
              // A chiplet that failed at a barrier names the one it waited for; otherwise its own
              // error says why.
              std::string e;
              std::smatch m;
              if (readWhole(dir + "/chiplet." + xyName(c.x, c.y) + ".err", e) &&
                  std::regex_search(e, m, std::regex("waiting for (chiplet \\([0-9]+,[0-9]+\\)[^\n]*)")))
                firstFailure = m[1].str() + " (reported by chiplet (" + std::to_string(c.x) +
                               "," + std::to_string(c.y) + "), which waited for it)";
              else if (std::regex_search(e, m, std::regex("ptxsim chiplet \\([0-9]+,[0-9]+\\): error: ([^\n]*)"))) {
                // "run aborted: X": X (a deadlock another chiplet found) is the cause
                std::string msg = m[1].str();
                size_t ab = msg.find("run aborted: ");
                firstFailure = ab != std::string::npos ? msg.substr(ab + 13)
                                                       : firstFailure + ": " + msg;
              }
              // Tell the others (they wait on the directory) instead of letting them time out.
              std::ofstream(dir + "/.abort.tmp") << firstFailure << "\n";
              rename((dir + "/.abort.tmp").c_str(), (dir + "/abort").c_str());
              std::ofstream(dir + "/.abort.tmp") << "\n"; // waiters watch .sync/ for renames
              rename((dir + "/.abort.tmp").c_str(), (dir + "/.sync/abort").c_str());
              // Waiting chiplets see the abort within a second; one still there after 3 s is
              // the stuck or stopped one just reported, or computing in a run that failed
              // anyway (waiting the whole timeout again for it took 8 of a stuck run's 14 s).
              deadline = std::chrono::steady_clock::now() +
                         std::chrono::milliseconds(
                             std::min<int64_t>((int64_t)(timeout * 1000), 1000) + 2000);
            }
          }
        }
    }
  } else {
    std::vector<std::string> cmd = {"mpirun"};
    if (geteuid() == 0) {
      // Open MPI refuses root unless told twice; CI containers run as root.
      cmd.push_back("--allow-run-as-root");
      setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
      setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    }
    cmd.insert(cmd.end(), {"--oversubscribe", "-np", std::to_string(w * h)});
    if (!hosts.empty())
      cmd.insert(cmd.end(), {"--host", hosts});
    for (const char *v : {"PTXSIM_CHIPLET_GRID", "PTXSIM_CHIPLET_DIR", "PTXSIM_CHIPLET_TRANSPORT",
                          "PTXSIM_CHIPLET_TIMEOUT", "PTXSIM_CHIPLET_NET", "PTXSIM_CHIPLET_CPUS",
                          "PTXSIM_CHIPLET_LEGACY_ADDC", "PTXSIM_CONFIG", "PTXSIM_MODE",
                          "PTXSIM_POWER", "PTXSIM_SUMMARY", "PTXSIM_THREADS", "PTXSIM_CHIPLET_CPU_MODEL",
                          "LD_LIBRARY_PATH",
                          "PATH"})
      if (getenv(v))
        cmd.insert(cmd.end(), {"-x", v});
    cmd.insert(cmd.end(), {selfExe(), "chiplets", "--rank", "--"});
    cmd.insert(cmd.end(), app.begin(), app.end());
    std::string logPath = dir + "/chiplet.mpirun.log";
    sigset_t waitSet = stopSignals();
    sigaddset(&waitSet, SIGCHLD);
    sigprocmask(SIG_BLOCK, &waitSet, nullptr); // taken with sigtimedwait below
    pid_t p = fork();
    if (p == 0) {
      sigprocmask(SIG_UNBLOCK, &waitSet, nullptr);
      int fd = open(logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
      }
      std::vector<char *> argv;
      for (auto &s : cmd)
        argv.push_back(s.data());
      argv.push_back(nullptr);
      execvp("mpirun", argv.data());
      std::fprintf(stderr, "cannot run mpirun: %s (apt-get install openmpi-bin)\n",
                   std::strerror(errno));
      _exit(127);
    }
    int st = 0;
    for (;;) {
      pid_t r = waitpid(p, &st, WNOHANG);
      if (r == p || (r < 0 && errno != EINTR))
        break;
      // A stop signal goes to mpirun, which passes SIGTERM on to every rank and exits.
      struct timespec ts = {1, 0};
      int got = sigtimedwait(&waitSet, nullptr, &ts);
      if (got > 0 && got != SIGCHLD) {
        stopChildren({p}, SIGTERM);
        err << "ptxsim chiplets: stopped by signal " << got << " (" << strsignal(got)
            << "); mpirun and its ranks were stopped\n";
        return 128 + got;
      }
    }
    readWhole(logPath, mpiLog);
    if (st != 0) {
      mpiFailed = true;
      // mpirun names ranks: "process rank 3 with PID ... exited on signal 9"
      std::smatch m;
      std::regex re("rank ([0-9]+)");
      if (std::regex_search(mpiLog, m, re)) {
        unsigned r = (unsigned)std::stoul(m[1]);
        if (r < chips.size()) {
          std::string how = "failed";
          std::smatch s2;
          if (std::regex_search(mpiLog, s2, std::regex("exited on signal ([0-9]+)")))
            how = "killed by signal " + s2[1].str();
          firstFailure = "chiplet (" + std::to_string(chips[r].x) + "," +
                         std::to_string(chips[r].y) + ") [rank " + std::to_string(r) + "] " + how;
          chips[r].died = how;
        }
      }
      // The chiplets' own errors say why (a deadlock, a message mismatch, a fault): the first
      // in rank order that is not a consequence of another's failure.
      std::string cause, consequence;
      for (const Chiplet &c : chips) {
        std::string e;
        if (!readWhole(dir + "/chiplet." + xyName(c.x, c.y) + ".err", e))
          continue;
        std::smatch em;
        if (!std::regex_search(e, em, std::regex("ptxsim chiplet \\([0-9]+,[0-9]+\\): error: ([^\n]*)")) &&
            !std::regex_search(e, em, std::regex("ptxsim: error: ([^\n]*)")))
          continue;
        unsigned r = c.y * w + c.x;
        std::string line = "chiplet (" + std::to_string(c.x) + "," + std::to_string(c.y) +
                           ") [rank " + std::to_string(r) + "]: " + em[1].str();
        bool secondary = em[1].str().find("run aborted") != std::string::npos;
        if (!secondary && cause.empty())
          cause = line;
        else if (secondary && consequence.empty())
          consequence = line;
      }
      if (!cause.empty())
        firstFailure = cause + (firstFailure.empty() ? "" : " (mpirun: " + firstFailure + ")");
      else if (firstFailure.empty())
        firstFailure = consequence.empty() ? "mpirun " + describeStatus(st) + " (see " + logPath + ")"
                                           : consequence;
    }
    for (Chiplet &c : chips)
      c.status = mpiFailed && !c.died.empty() ? 1 : (mpiFailed ? -1 : 0);
  }
  double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // --- the chiplets' output, then what they report ---------------------------------------
  for (Chiplet &c : chips) {
    std::string o;
    if (readWhole(dir + "/chiplet." + xyName(c.x, c.y) + ".out", o) && !o.empty()) {
      std::istringstream in(o);
      std::string line;
      while (std::getline(in, line))
        out << "[" << c.x << "," << c.y << "] " << line << "\n";
    }
    std::string e;
    if (readWhole(dir + "/chiplet." + xyName(c.x, c.y) + ".err", e) && !e.empty()) {
      std::istringstream in(e);
      std::string line;
      while (std::getline(in, line))
        err << "[" << c.x << "," << c.y << "] " << line << "\n";
    }
    std::string s;
    if (reportOnly && !readWhole(dir + "/stats." + xyName(c.x, c.y) + ".json", s)) {
      c.status = -1;
      c.died = "no statistics";
      if (firstFailure.empty())
        firstFailure = "chiplet (" + std::to_string(c.x) + "," + std::to_string(c.y) +
                       ") left no statistics in " + dir;
    }
    if (readWhole(dir + "/stats." + xyName(c.x, c.y) + ".json", s)) {
      c.haveStats = true;
      c.clock = jsonNumber(s, "clock");
      c.sends = jsonNumber(s, "sends");
      c.sentBytes = jsonNumber(s, "sent_bytes");
      c.receives = jsonNumber(s, "receives");
      c.receivedBytes = jsonNumber(s, "received_bytes");
      c.barriers = jsonNumber(s, "barriers");
      c.waitCycles = jsonNumber(s, "wait_cycles");
      c.maxRssKb = jsonNumber(s, "max_rss_kb");
    }
    std::string p;
    if (readWhole(dir + "/ptxsim." + xyName(c.x, c.y) + ".json", p)) {
      c.timing = p.find("\"mode\": \"timing\"") != std::string::npos;
      c.gpuCycles = jsonSum(p, "gpu.cycles");
      // Energy is the power reports' (one per kernel); the power is that energy over the
      // simulated time the reports cover, the kernels' (their "seconds"), not the copies'.
      size_t pw = p.find("\"power\": [");
      if (pw != std::string::npos) {
        std::string reports = p.substr(pw, p.find("\"power_idle_w\"", pw) - pw);
        c.energyJ = jsonSum(reports, "energy_j");
        c.kernelSeconds = jsonSum(reports, "seconds");
      }
      c.powerW = c.kernelSeconds > 0 ? c.energyJ / c.kernelSeconds : 0;
    }
    std::string cj;
    if (c.cpu && readWhole(dir + "/cpu." + xyName(c.x, c.y) + ".json", cj)) {
      // the CPU model's energy covers its modelled cycles (host work between operations)
      c.cpuModel = true;
      c.cpuCycles = jsonNumber(cj, "cycles");
      c.cpuInstructions = jsonNumber(cj, "instructions");
      c.cpuSeconds = jsonNumber(cj, "seconds");
      c.cpuOtherThreads = jsonNumber(cj, "other_thread_instructions");
      c.energyJ = jsonNumber(cj, "energy_j");
      c.powerW = jsonNumber(cj, "power_w");
    }
  }
  if (!mpiLog.empty() && mpiFailed)
    err << mpiLog;

  std::vector<noc::Packet> packets;
  std::string terr;
  noc::NetworkConfig replay = ncfg;
  replay.maxCycles = 0; // every packet: the report is about all of them
  if (!noc::readTraces(replay, dir + "/bench", packets, terr)) {
    err << "ptxsim chiplets: " << terr << "\n";
    return 1;
  }
  noc::NetworkResult nr = noc::simulate(replay, packets);
  double netPower = nr.powerW(replay.clockGhz);

  double syncs = 0, maxClock = 0, maxChipletCycles = 0, chipletEnergy = 0, chipletPower = 0;
  for (Chiplet &c : chips) {
    syncs = std::max(syncs, c.barriers);
    // A GPU chiplet in timing mode runs on after its last message: its own cycle count is later.
    c.clock = std::max(c.clock, c.timing ? c.gpuCycles : 0.0);
    maxClock = std::max(maxClock, c.clock);
    maxChipletCycles = std::max(maxChipletCycles, c.timing ? c.gpuCycles : c.clock);
    chipletEnergy += c.energyJ;
    chipletPower += c.powerW;
  }
  double docTotal = syncs * nr.avgDelay + maxChipletCycles;
  double docX16 = nr.avgDelay * 16 + maxChipletCycles;

  err << "\n== ptxsim chiplets: " << w << "x" << h << " grid, transport " << transport
      << ", wall " << wall << " s ==\n";
  err << "network (popnet " << net << "):\n";
  {
    std::istringstream in(noc::formatReport(replay, nr));
    std::string line;
    while (std::getline(in, line))
      err << "  " << line << "\n";
  }
  char buf[512];
  err << "per chiplet:\n";
  std::snprintf(buf, sizeof buf, "  %-7s %-4s %-22s %12s %7s %7s %10s %9s %10s %12s %12s %9s\n",
                "chiplet", "role", "status", "clock", "sends", "recvs", "bytes out", "barriers",
                "wait cyc", "gpu cycles", "cpu cycles", "power W");
  err << buf;
  for (Chiplet &c : chips) {
    std::string status = c.status == 0 ? "ok" : c.died.empty() ? "stopped" : c.died;
    if (status.size() > 22)
      status = status.substr(0, 22);
    std::snprintf(buf, sizeof buf,
                  "  (%u,%u)%*s %-4s %-22s %12.0f %7.0f %7.0f %10.0f %9.0f %10.0f %12s %12s %9.3f\n",
                  c.x, c.y, (int)(5 - std::to_string(c.x).size() - std::to_string(c.y).size()), "",
                  c.cpu ? "cpu" : "gpu", status.c_str(), c.clock, c.sends, c.receives,
                  c.sentBytes, c.barriers, c.waitCycles,
                  c.timing ? std::to_string((unsigned long long)c.gpuCycles).c_str() : "-",
                  c.cpuModel ? std::to_string((unsigned long long)c.cpuCycles).c_str() : "-",
                  c.powerW);
    err << buf;
  }
  std::snprintf(buf, sizeof buf,
                "totals:\n"
                "  synchronized simulation (slowest chiplet's clock): %.0f cycles\n"
                "  document formula (syncs %.0f x avg network delay %.2f + slowest chiplet %.0f): "
                "%.0f cycles\n"
                "  document x16 variant (avg network delay %.2f x 16 + slowest chiplet %.0f): %.0f "
                "cycles\n"
                "  power: chiplets %.4f W + network %.6f W = %.4f W\n",
                maxClock, syncs, nr.avgDelay, maxChipletCycles, docTotal, nr.avgDelay,
                maxChipletCycles, docX16, chipletPower, netPower, chipletPower + netPower);
  err << buf;
  double cpuCycles = 0, cpuEnergy = 0, cpuInstr = 0;
  bool anyCpuModel = false;
  for (Chiplet &c : chips)
    if (c.cpuModel) {
      anyCpuModel = true;
      cpuCycles += c.cpuCycles, cpuEnergy += c.energyJ, cpuInstr += c.cpuInstructions;
    }
  if (anyCpuModel) {
    std::snprintf(buf, sizeof buf,
                  "  CPU model (%s): %.0f instructions, %.0f cycles, %.6g J in the CPU chiplets "
                  "(counted in the chiplets' power above)\n",
                  getenv("PTXSIM_CHIPLET_CPU_MODEL") ? getenv("PTXSIM_CHIPLET_CPU_MODEL") : "?",
                  cpuInstr, cpuCycles, cpuEnergy);
    err << buf;
    for (Chiplet &c : chips)
      if (c.cpuOtherThreads > 0) {
        std::snprintf(buf, sizeof buf,
                      "  warning: CPU chiplet (%u,%u): other threads ran %.0f instructions inside "
                      "measured intervals (they share callgrind's simulated caches): its CPU "
                      "cycles may differ run to run\n",
                      c.x, c.y, c.cpuOtherThreads);
        err << buf;
      }
  }

  if (!statsJson.empty()) {
    std::ofstream js(statsJson);
    js.precision(17); // every double reads back exactly (cycles beyond 10^6 too)
    js << "{\n  \"grid\": [" << w << ", " << h << "], \"transport\": \"" << transport
       << "\", \"wall_seconds\": " << wall << ", \"network_options\": \"" << net << "\",\n"
       << "  \"ok\": " << (firstFailure.empty() ? "true" : "false") << ",\n"
       << "  \"network\": {\"injected\": " << nr.injected << ", \"finished\": " << nr.finished
       << ", \"avg_delay\": " << nr.avgDelay << ", \"max_delay\": " << nr.maxDelay
       << ", \"cycles\": " << nr.cycles << ", \"energy_pj\": {\"buffer\": " << nr.energy.bufferPj
       << ", \"crossbar\": " << nr.energy.crossbarPj << ", \"arbiter\": " << nr.energy.arbiterPj
       << ", \"link\": " << nr.energy.linkPj << ", \"total\": " << nr.energy.totalPj()
       << "}, \"power_w\": " << netPower << "},\n"
       << "  \"totals\": {\"synchronized_cycles\": " << maxClock
       << ", \"document_formula_cycles\": " << docTotal << ", \"document_x16_cycles\": " << docX16
       << ", \"synchronizations\": " << syncs << ", \"slowest_chiplet_cycles\": "
       << maxChipletCycles << ", \"chiplet_power_w\": " << chipletPower
       << ", \"network_power_w\": " << netPower << ", \"total_power_w\": "
       << chipletPower + netPower << ", \"cpu_model_cycles\": " << cpuCycles
       << ", \"cpu_model_energy_j\": " << cpuEnergy << "},\n  \"chiplets\": [";
    for (size_t k = 0; k < chips.size(); ++k) {
      const Chiplet &c = chips[k];
      js << (k ? ",\n" : "\n") << "    {\"x\": " << c.x << ", \"y\": " << c.y << ", \"role\": \""
         << (c.cpu ? "cpu" : "gpu") << "\", \"status\": " << c.status << ", \"clock\": " << c.clock
         << ", \"sends\": " << c.sends << ", \"sent_bytes\": " << c.sentBytes
         << ", \"receives\": " << c.receives << ", \"received_bytes\": " << c.receivedBytes
         << ", \"barriers\": " << c.barriers << ", \"wait_cycles\": " << c.waitCycles
         << ", \"timing\": " << (c.timing ? "true" : "false") << ", \"gpu_cycles\": "
         << c.gpuCycles << ", \"energy_j\": " << c.energyJ << ", \"kernel_seconds\": "
         << c.kernelSeconds << ", \"power_w\": " << c.powerW << ", \"max_rss_kb\": " << c.maxRssKb;
      if (c.cpuModel)
        js << ", \"cpu_cycles\": " << c.cpuCycles << ", \"cpu_instructions\": "
           << c.cpuInstructions << ", \"cpu_seconds\": " << c.cpuSeconds;
      js << "}";
    }
    js << "\n  ]\n}\n";
  }
  if (!firstFailure.empty()) {
    err << "ptxsim chiplets: error: " << firstFailure << "\n";
    return 1;
  }
  return 0;
}

} // namespace ptxsim::chiplet

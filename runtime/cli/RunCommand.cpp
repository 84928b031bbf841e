#include "runtime/cli/RunCommand.h"

#include "base/Diagnostics.h"
#include "base/SelfPath.h"
#include "ptx/exec/Watchdog.h"
#include "ptx/parser/Parser.h"
#include "ptx/sema/Checker.h"

#include "runtime/fatbin/Fatbin.h"
#include "runtime/report/Report.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <iterator>
#include <set>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ptxsim::cli {

namespace {

void runUsage(std::ostream &os) {
  os << "usage: ptxsim run [options] -- PROGRAM [ARGS...]\n"
        "options:\n"
        "  --threads N            host threads that run CTAs (default: all cores)\n"
        "  --simt its|ipdom|auto  lane scheduling: independent thread scheduling (Volta and\n"
        "                         later), the pre-Volta reconvergence stack, or auto (its for\n"
        "                         code compiled for sm_70 and newer; the default)\n"
        "  --jit on|off|auto|diff functional mode's engine: compile kernels with the LLVM JIT\n"
        "                         (on), the interpreter (off), hot kernels compiled in the\n"
        "                         background and cached code mapped once hot (auto, the\n"
        "                         default; a per-kernel hotness record makes later runs\n"
        "                         switch at once and compiles kernels hot over several runs\n"
        "                         after a run), or both for every launch, failing on the first\n"
        "                         difference (diff); code is cached on disk\n"
        "                         ($PTXSIM_JIT_CACHE, else ~/.cache/ptxsim/jit; off: none)\n"
        "  --ptx-override PATH    use the kernels of PATH (.ptx file or directory) instead of\n"
        "                         the program's own PTX (same-named kernels, same parameters)\n"
        "  --kernel-timeout SECONDS  stop a kernel launch that runs longer than this (host\n"
        "                         time), print where each warp is, and fail the launch with\n"
        "                         cudaErrorLaunchTimeout (a sticky error, as a GPU's watchdog)\n"
        "  --stats-json FILE      write per-kernel statistics as JSON at exit\n"
        "  --report FILE.html     write an HTML report of the run at exit (see ptxsim report)\n"
        "  --no-summary           do not print the end-of-run summary on stderr\n"
        "  --api-errors           print each CUDA call that returns an error, by name\n"
        "  --mode functional|timing  execution mode (default functional; --config implies timing)\n"
        "  --config FILE          timing configuration (GPGPU-Sim option syntax; repeatable,\n"
        "                         later files override earlier ones), e.g. configs/gtx480.config\n"
        "  --lenient              unknown configuration options are warnings, not errors\n"
        "  --print-config         print the effective configuration (every option, defaults\n"
        "                         included, extensions' too) on stderr at start-up\n"
        "  --sample kernels|ctas|off  sampled timing simulation (default kernels): repeated\n"
        "                         kernels' launches (past the first few of a kernel, shape and\n"
        "                         parameter values) or a kernel's CTAs past a steady IPC are\n"
        "                         estimated, with their error; off: every launch simulated in\n"
        "                         full (docs/sampling.md)\n"
        "  --power                per-kernel power and energy (timing mode; the power XML is\n"
        "                         the config's .power.xml or PTXSIM_POWER_CONFIG)\n"
        "PROGRAM may use the CUDA 13 runtime linked statically (nvcc's default) or shared\n"
        "(-cudart shared), or the driver API (libcuda.so.1, NVRTC): ptxsim serves them all.\n";
}

bool fileExists(const std::string &p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

/// Says why a CUDA program cannot be served when its fat binaries carry SASS only (ptxsim runs
/// PTX), naming the architecture and the nvcc flags that add PTX. True when it has PTX, or when
/// there is nothing to read (the runtime then reports what it finds).
bool carriesPtx(const std::string &prog, const std::string &file, std::ostream &err) {
  std::vector<fatbin::Entry> entries;
  if (!fatbin::readElfFatbins(file, entries).empty() || entries.empty())
    return true;
  uint32_t sass = 0;
  for (const fatbin::Entry &e : entries) {
    if (e.kind == fatbin::EntryKind::Ptx)
      return true;
    sass = std::max(sass, e.arch);
  }
  err << "ptxsim run: '" << prog << "' carries no PTX (only SASS for sm_" << sass
      << "), and ptxsim executes PTX.\n  Rebuild it with PTX, e.g. add '-gencode arch=compute_"
      << sass << ",code=compute_" << sass << "' to the nvcc command.\n";
  return false;
}

/// Refuses programs ptxsim cannot serve: a CUDA runtime other than 13's (it would find no
/// driver and print only "CUDA driver version is insufficient") or fat binaries without PTX.
/// Programs with the shared runtime, NVIDIA's static runtime (which talks to ptxsim's
/// libcuda.so.1) or only the driver API run. Returns false after saying why and what to do.
bool runtimeUsable(const std::string &prog, std::ostream &err) {
  std::string file = findOnPath(prog);
  if (file.empty())
    return true;
  fatbin::CudaRuntimeInfo info;
  if (!fatbin::inspectCudaRuntime(file, info).empty())
    return true; // unreadable here: let exec say what is wrong
  switch (info.link) {
  case fatbin::CudaRuntimeLink::Static:
  case fatbin::CudaRuntimeLink::Shared13:
    return carriesPtx(prog, file, err);
  case fatbin::CudaRuntimeLink::SharedOther:
    err << "ptxsim run: '" << prog << "' needs " << info.library
        << ", but ptxsim provides the CUDA 13 runtime (libcudart.so.13).\n"
           "  Rebuild it with nvcc 13 (the default static runtime or '-cudart shared').\n";
    return false;
  default:
    return true; // the driver API (libcuda.so.1) or no CUDA at all
  }
}

/// The names of the kernels (`.entry`) in PTX text, by a scan (the program's PTX is
/// nvcc's, already checked by ptxas; a full parse of a large program would take seconds).
std::set<std::string> ptxEntryNames(const std::string &ptx) {
  std::set<std::string> names;
  for (size_t p = ptx.find(".entry"); p != std::string::npos; p = ptx.find(".entry", p + 6)) {
    size_t b = p + 6;
    if (b >= ptx.size() || !std::isspace((unsigned char)ptx[b]))
      continue;
    while (b < ptx.size() && std::isspace((unsigned char)ptx[b]))
      ++b;
    size_t e = b;
    while (e < ptx.size() && (std::isalnum((unsigned char)ptx[e]) || ptx[e] == '_' ||
                              ptx[e] == '$' || ptx[e] == '%'))
      ++e;
    if (e > b)
      names.insert(ptx.substr(b, e - b));
  }
  return names;
}

/// Checks a PTX override (PTXSIM_PTX_OVERRIDE: a file, or a directory of .ptx files) before
/// the program starts: every file must parse and check cleanly, and each must define a kernel
/// of the program (when the program's own PTX can be read: a program that loads PTX at run
/// time cannot be checked here). Otherwise the program would run its own kernels and end as if
/// all were well. A kernel of a file that matches none of the program's is a warning.
bool overrideUsable(const std::string &path, const std::string &prog, std::ostream &err) {
  std::vector<std::string> files;
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    std::error_code ec;
    for (const auto &e : std::filesystem::directory_iterator(path, ec))
      if (e.path().extension() == ".ptx")
        files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    if (files.empty()) {
      err << "ptxsim run: --ptx-override: no .ptx file in the directory '" << path << "'\n";
      return false;
    }
  } else {
    files.push_back(path);
  }
  std::set<std::string> programKernels;
  std::string file = findOnPath(prog);
  std::vector<fatbin::Entry> entries;
  if (!file.empty() && fatbin::readElfFatbins(file, entries).empty())
    for (const fatbin::Entry &e : entries)
      if (e.kind == fatbin::EntryKind::Ptx)
        for (const std::string &n : ptxEntryNames(e.data))
          programKernels.insert(n);
  bool ok = true;
  for (const std::string &f : files) {
    DiagEngine diags;
    auto module = ptx::parsePtxFile(f, diags);
    bool clean = ptx::checkModule(*module, diags) && !diags.hasErrors();
    diags.sortByLocation();
    diags.printWithSource(err, module->fileName, module->text());
    if (!clean) {
      err << "ptxsim run: --ptx-override: '" << f << "' has " << diags.errorCount()
          << " error(s); the program was not started\n";
      ok = false;
      continue;
    }
    if (programKernels.empty())
      continue;
    std::vector<std::string> used, unused;
    for (const ptx::Function &fn : module->functions)
      if (fn.isEntry && fn.hasBody)
        (programKernels.count(std::string(fn.name)) ? used : unused).emplace_back(fn.name);
    if (used.empty()) {
      err << "ptxsim run: --ptx-override: no kernel of '" << f << "'";
      if (!unused.empty()) {
        err << " (";
        for (size_t k = 0; k < unused.size(); ++k)
          err << (k ? ", " : "") << unused[k];
        err << ")";
      }
      err << " is a kernel of '" << prog << "' (";
      size_t k = 0;
      for (const std::string &n : programKernels) {
        if (k == 8) {
          err << ", ... " << programKernels.size() - 8 << " more";
          break;
        }
        err << (k++ ? ", " : "") << n;
      }
      err << "): it would replace nothing; the program was not started\n";
      ok = false;
      continue;
    }
    for (const std::string &n : unused)
      err << "ptxsim run: warning: --ptx-override: kernel '" << n << "' of '" << f
          << "' is not a kernel of '" << prog << "' and is not used\n";
  }
  return ok;
}

/// The child `ptxsim run --report` waits for, and the signal that stopped the launcher (0: none).
/// A signal handler reads and writes them; they are set before the signals are unblocked.
volatile sig_atomic_t gChild = 0;
volatile sig_atomic_t gStopSignal = 0;

/// The signals the launcher passes on to the program: a terminal's (INT, QUIT, HUP) and a
/// job system's or `kill`'s (TERM). Ending the launcher without its child would leave the
/// simulation running on every core and its temporary statistics file behind.
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

extern "C" void forwardSignal(int sig) {
  if (!gStopSignal)
    gStopSignal = sig;
  if (gChild > 0)
    kill(pid_t(gChild), sig); // (a terminal's signal also reached the child: it ends once)
}

/// Runs the program as a child (the report is written after it exits, from the statistics
/// file it writes at exit) and returns its exit status (128 + signal when a signal ended it).
/// SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to the launcher are passed on to the program, which
/// is waited for; the temporary statistics file is removed whatever ends the program.
int runWithReport(std::vector<char *> &argv, const std::string &reportPath, std::ostream &err) {
  std::string stats;
  bool tempStats = false;
  if (const char *s = std::getenv("PTXSIM_STATS_JSON"); s && *s) {
    stats = s;
  } else {
    const char *tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/ptxsim-stats-XXXXXX";
    int fd = mkstemp(tmpl.data());
    if (fd < 0) {
      err << "ptxsim run: --report: cannot create a temporary statistics file in '"
          << (tmp && *tmp ? tmp : "/tmp") << "': " << std::strerror(errno) << "\n";
      return 2;
    }
    close(fd);
    stats = tmpl;
    tempStats = true;
    setenv("PTXSIM_STATS_JSON", stats.c_str(), 1);
  }
  // The signals stay blocked until the child's pid is known, so that none is lost in between;
  // the child gets the dispositions and mask the launcher started with.
  sigset_t fwd, oldMask;
  sigemptyset(&fwd);
  for (int sig : kForwarded)
    sigaddset(&fwd, sig);
  sigprocmask(SIG_BLOCK, &fwd, &oldMask);
  struct sigaction on = {}, old[std::size(kForwarded)];
  on.sa_handler = forwardSignal;
  sigfillset(&on.sa_mask);
  for (size_t k = 0; k < std::size(kForwarded); ++k) {
    sigaction(kForwarded[k], nullptr, &old[k]);
    if (old[k].sa_handler != SIG_IGN) // (ignored, as under nohup: stays ignored)
      sigaction(kForwarded[k], &on, nullptr);
  }
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    for (size_t k = 0; k < std::size(kForwarded); ++k)
      sigaction(kForwarded[k], &old[k], nullptr);
    // the launcher killed outright (SIGKILL) cannot pass anything on: the kernel stops the
    // program instead of leaving it to run alone
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
      _exit(128 + SIGTERM);
    sigprocmask(SIG_SETMASK, &oldMask, nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "ptxsim run: cannot run '%s': %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0, rc;
  if (pid < 0) {
    err << "ptxsim run: cannot start '" << argv[0] << "': " << std::strerror(errno) << "\n";
    rc = 2;
  } else {
    gChild = pid;
    sigprocmask(SIG_SETMASK, &oldMask, nullptr);
    // wait without reaping, so that a signal forwarded meanwhile cannot reach a recycled pid
    siginfo_t info;
    while (waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
    }
    sigprocmask(SIG_BLOCK, &fwd, nullptr);
    gChild = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  for (size_t k = 0; k < std::size(kForwarded); ++k)
    sigaction(kForwarded[k], &old[k], nullptr);
  sigprocmask(SIG_SETMASK, &oldMask, nullptr);
  if (gStopSignal && pid > 0 && WIFSIGNALED(status)) {
    // stopped from outside: no report of a run that did not finish
    err << "ptxsim run: the program was stopped by signal " << WTERMSIG(status) << " ("
        << strsignal(WTERMSIG(status)) << "); no report written\n";
    if (tempStats)
      unlink(stats.c_str());
    return rc;
  }
  struct stat st;
  if (pid > 0 && rc != 127 && stat(stats.c_str(), &st) == 0 && st.st_size > 0) {
    std::string prog = argv[0];
    size_t slash = prog.find_last_of('/');
    if (report::writeReport({stats}, {slash == std::string::npos ? prog : prog.substr(slash + 1)},
                            "", reportPath, err,
                            {tempStats ? "(not kept; ptxsim run --stats-json FILE keeps it)" : stats}))
      err << "ptxsim run: report written to " << reportPath << "\n";
    else if (rc == 0)
      rc = 1;
  } else if (pid > 0 && rc != 127) {
    err << "ptxsim run: no report: the program wrote no statistics (it ended "
        << (WIFSIGNALED(status) ? "by a signal" : "before the simulator's exit handler ran")
        << ")\n";
    if (rc == 0)
      rc = 1;
  }
  if (tempStats)
    unlink(stats.c_str());
  return rc;
}

} // namespace

namespace {

/// What the options decide besides the PTXSIM_* variables they set.
struct RunOptions {
  bool configSeen = false; ///< a --config came already (later ones add to the list)
  std::string reportPath;  ///< --report
};

bool takesValue(const std::string &a) {
  static const char *const kValueOptions[] = {"--threads",        "--simt",       "--sample",       "--jit",
                                              "--ptx-override",   "--stats-json", "--report",
                                              "--kernel-timeout", "--mode",       "--config"};
  for (const char *o : kValueOptions)
    if (a == o)
      return true;
  return false;
}

/// --config FILE: one more configuration file (timing mode unless --mode says otherwise).
int configOption(const std::string &v, RunOptions &o, std::ostream &err) {
  if (!fileExists(v)) {
    err << "ptxsim run: --config: no such file '" << v << "'\n";
    return 2;
  }
  struct stat st;
  if (stat(v.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    err << "ptxsim run: --config: '" << v << "' is a directory, not a configuration file\n";
    return 2;
  }
  const char *prev = std::getenv("PTXSIM_CONFIG");
  std::string all = prev && *prev && o.configSeen ? std::string(prev) + "," + v : v;
  o.configSeen = true;
  setenv("PTXSIM_CONFIG", all.c_str(), 1);
  if (!std::getenv("PTXSIM_MODE"))
    setenv("PTXSIM_MODE", "timing", 1);
  return 0;
}

/// An option with a value (takesValue): checks the value and sets its variable. 0, or 2 when
/// the value is bad (said on `err`).
int valueOption(const std::string &a, const std::string &v, RunOptions &o, std::ostream &err) {
  if (a == "--threads") {
    char *end = nullptr;
    unsigned long n = std::strtoul(v.c_str(), &end, 10);
    if (v.empty() || *end || n == 0 || n > 1024) {
      err << "ptxsim run: --threads needs a number from 1 to 1024, not '" << v << "'\n";
      return 2;
    }
    setenv("PTXSIM_THREADS", v.c_str(), 1);
  } else if (a == "--simt") {
    if (v != "its" && v != "ipdom" && v != "auto") {
      err << "ptxsim run: --simt needs its, ipdom or auto, not '" << v << "'\n";
      return 2;
    }
    setenv("PTXSIM_SIMT", v.c_str(), 1);
  } else if (a == "--jit") {
    if (v != "on" && v != "off" && v != "auto" && v != "diff") {
      err << "ptxsim run: --jit needs on, off, auto or diff, not '" << v << "'\n";
      return 2;
    }
    setenv("PTXSIM_JIT", v.c_str(), 1);
  } else if (a == "--sample") {
    if (v != "kernels" && v != "ctas" && v != "off") {
      err << "ptxsim run: --sample needs kernels, ctas or off, not '" << v << "'\n";
      return 2;
    }
    setenv("PTXSIM_SAMPLE", v.c_str(), 1);
  } else if (a == "--ptx-override") {
    if (!fileExists(v)) {
      err << "ptxsim run: --ptx-override: no such file or directory '" << v << "'\n";
      return 2;
    }
    setenv("PTXSIM_PTX_OVERRIDE", v.c_str(), 1);
  } else if (a == "--kernel-timeout") {
    double seconds = 0;
    std::string why = ptx::exec::parseKernelTimeout(v, seconds);
    if (!why.empty()) {
      err << "ptxsim run: --kernel-timeout " << why << "\n";
      return 2;
    }
    setenv("PTXSIM_KERNEL_TIMEOUT", v.c_str(), 1);
  } else if (a == "--stats-json") {
    setenv("PTXSIM_STATS_JSON", v.c_str(), 1);
  } else if (a == "--report") {
    o.reportPath = v;
  } else if (a == "--mode") {
    if (v != "functional" && v != "timing") {
      err << "ptxsim run: --mode must be 'functional' or 'timing', not '" << v << "'\n";
      return 2;
    }
    setenv("PTXSIM_MODE", v.c_str(), 1);
  } else if (a == "--config") {
    return configOption(v, o, err);
  }
  return 0;
}

/// An option without a value: sets its variable; false when `a` is none.
bool flagOption(const std::string &a) {
  if (a == "--no-summary")
    setenv("PTXSIM_SUMMARY", "0", 1);
  else if (a == "--api-errors")
    setenv("PTXSIM_API_ERRORS", "1", 1);
  else if (a == "--print-config")
    setenv("PTXSIM_PRINT_CONFIG", "1", 1);
  else if (a == "--lenient")
    setenv("PTXSIM_CONFIG_LENIENT", "1", 1);
  else if (a == "--power") {
    setenv("PTXSIM_POWER", "1", 1);
    if (!std::getenv("PTXSIM_MODE"))
      setenv("PTXSIM_MODE", "timing", 1);
  } else
    return false;
  return true;
}

/// Reads the options before the program; `i` ends at the program's word. -1 to go on, or the
/// exit status (0 after --help, 2 on a usage error).
int parseRunOptions(const std::vector<std::string> &args, size_t &i, RunOptions &o,
                    std::ostream &err) {
  for (; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (a == "-h" || a == "--help") {
      runUsage(err);
      return 0;
    }
    if (takesValue(a)) {
      if (i + 1 >= args.size()) {
        err << "ptxsim run: option " << a << " needs a value\n";
        return 2;
      }
      if (int rc = valueOption(a, args[++i], o, err))
        return rc;
      continue;
    }
    if (flagOption(a))
      continue;
    if (!a.empty() && a[0] == '-') {
      err << "ptxsim run: unknown option '" << a << "'\n";
      runUsage(err);
      return 2;
    }
    break; // the program, without a `--`
  }
  return -1;
}

} // namespace

int runCommand(const std::vector<std::string> &args, std::ostream &err) {
  size_t i = 0;
  RunOptions o;
  if (int rc = parseRunOptions(args, i, o, err); rc >= 0)
    return rc;
  if (i >= args.size()) {
    err << "ptxsim run: no program given\n";
    runUsage(err);
    return 2;
  }
  if (!runtimeUsable(args[i], err))
    return 2;
  if (const char *ov = std::getenv("PTXSIM_PTX_OVERRIDE");
      ov && *ov && !overrideUsable(ov, args[i], err))
    return 2;
  std::string lib = ptxsim::libraryDir();
  if (lib.empty() || !fileExists(lib + "/libcudart.so.13") || !fileExists(lib + "/libcuda.so.1")) {
    err << "ptxsim run: cannot find libcudart.so.13 and libcuda.so.1 next to the ptxsim "
           "executable (looked in '"
        << lib << "'); build the cudart_ptxsim target\n";
    return 2;
  }
  const char *old = std::getenv("LD_LIBRARY_PATH");
  std::string path = lib + (old && *old ? ":" + std::string(old) : "");
  setenv("LD_LIBRARY_PATH", path.c_str(), 1);
  std::vector<char *> argv;
  for (size_t k = i; k < args.size(); ++k)
    argv.push_back(const_cast<char *>(args[k].c_str()));
  argv.push_back(nullptr);
  if (!o.reportPath.empty())
    return runWithReport(argv, o.reportPath, err);
  execvp(argv[0], argv.data());
  err << "ptxsim run: cannot run '" << args[i] << "': " << std::strerror(errno) << "\n";
  return 127;
}

} // namespace ptxsim::cli

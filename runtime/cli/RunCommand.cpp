#include "runtime/cli/RunCommand.h"

#include "base/SelfPath.h"

#include "runtime/fatbin/Fatbin.h"
#include "runtime/report/Report.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ostream>
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
        "  --ptx-override PATH    use the kernels of PATH (.ptx file or directory) instead of\n"
        "                         the program's own PTX (same-named kernels, same parameters)\n"
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
        "  --sample kernels|ctas|off  sampled timing simulation (default off): repeated kernels'\n"
        "                         launches or a kernel's CTAs past a steady IPC are estimated,\n"
        "                         with their error (docs/sampling.md)\n"
        "  --power                per-kernel power and energy (timing mode; the power XML is\n"
        "                         the config's .power.xml or PTXSIM_POWER_CONFIG)\n";
}

bool fileExists(const std::string &p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}


/// The file execvp would run for `prog`: itself when it names a path, else the first
/// executable of that name on PATH; empty when there is none (execvp then reports it).
std::string resolveProgram(const std::string &prog) {
  if (prog.find('/') != std::string::npos)
    return prog;
  const char *path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos)
      end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string cand = (dir.empty() ? "." : dir) + "/" + prog;
    if (access(cand.c_str(), X_OK) == 0 && fileExists(cand))
      return cand;
    start = end + 1;
  }
  return {};
}

/// Refuses programs that cannot reach ptxsim's libcudart.so.13: without this they run on
/// NVIDIA's runtime, find no driver and print only "CUDA driver version is insufficient".
/// Returns false (after saying why and what to do) for such a program.
bool runtimeUsable(const std::string &prog, std::ostream &err) {
  std::string file = resolveProgram(prog);
  if (file.empty())
    return true;
  fatbin::CudaRuntimeInfo info;
  if (!fatbin::inspectCudaRuntime(file, info).empty())
    return true; // unreadable here: let exec say what is wrong
  switch (info.link) {
  case fatbin::CudaRuntimeLink::Static:
    err << "ptxsim run: '" << prog << "' is linked with NVIDIA's static CUDA runtime (nvcc's "
           "default, -cudart static), so it cannot use ptxsim's libcudart.so.13 and would only "
           "report that no CUDA driver is present.\n"
           "  Rebuild it with the shared runtime: add '-cudart shared' to the nvcc command that "
           "links it\n  (CMake: set CUDA_RUNTIME_LIBRARY Shared, or "
           "CMAKE_CUDA_RUNTIME_LIBRARY=Shared).\n";
    return false;
  case fatbin::CudaRuntimeLink::SharedOther:
    err << "ptxsim run: '" << prog << "' needs " << info.library
        << ", but ptxsim provides the CUDA 13 runtime (libcudart.so.13).\n"
           "  Rebuild it with nvcc 13 and '-cudart shared'.\n";
    return false;
  case fatbin::CudaRuntimeLink::DriverApi:
    err << "ptxsim run: '" << prog << "' uses the CUDA driver API (" << info.library
        << ") without the runtime; ptxsim implements the CUDA runtime API (libcudart.so.13) "
           "only.\n";
    return false;
  default:
    return true;
  }
}

/// Runs the program as a child (the report is written after it exits, from the statistics
/// file it writes at exit) and returns its exit status (128 + signal when a signal ended it).
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
  // like system(): Ctrl-C ends the program, and the report of what it wrote is still written
  struct sigaction ign = {}, oldInt, oldQuit;
  ign.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ign, &oldInt);
  sigaction(SIGQUIT, &ign, &oldQuit);
  pid_t pid = fork();
  if (pid == 0) {
    sigaction(SIGINT, &oldInt, nullptr);
    sigaction(SIGQUIT, &oldQuit, nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "ptxsim run: cannot run '%s': %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0, rc;
  if (pid < 0) {
    err << "ptxsim run: cannot start '" << argv[0] << "': " << std::strerror(errno) << "\n";
    rc = 2;
  } else {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  sigaction(SIGINT, &oldInt, nullptr);
  sigaction(SIGQUIT, &oldQuit, nullptr);
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

int runCommand(const std::vector<std::string> &args, std::ostream &err) {
  size_t i = 0;
  bool configSeen = false;
  std::string reportPath;
  auto need = [&](const std::string &opt) -> const std::string * {
    if (i + 1 >= args.size()) {
      err << "ptxsim run: option " << opt << " needs a value\n";
      return nullptr;
    }
    return &args[++i];
  };
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
    if (a == "--threads") {
      const std::string *v = need(a);
      if (!v)
        return 2;
      char *end = nullptr;
      unsigned long n = std::strtoul(v->c_str(), &end, 10);
      if (v->empty() || *end || n == 0 || n > 1024) {
        err << "ptxsim run: --threads needs a number from 1 to 1024, not '" << *v << "'\n";
        return 2;
      }
      setenv("PTXSIM_THREADS", v->c_str(), 1);
    } else if (a == "--simt") {
      const std::string *v = need(a);
      if (!v)
        return 2;
      if (*v != "its" && *v != "ipdom" && *v != "auto") {
        err << "ptxsim run: --simt needs its, ipdom or auto, not '" << *v << "'\n";
        return 2;
      }
      setenv("PTXSIM_SIMT", v->c_str(), 1);
    } else if (a == "--sample") {
      const std::string *v = need(a);
      if (!v)
        return 2;
      if (*v != "kernels" && *v != "ctas" && *v != "off") {
        err << "ptxsim run: --sample needs kernels, ctas or off, not '" << *v << "'\n";
        return 2;
      }
      setenv("PTXSIM_SAMPLE", v->c_str(), 1);
    } else if (a == "--ptx-override") {
      const std::string *v = need(a);
      if (!v)
        return 2;
      if (!fileExists(*v)) {
        err << "ptxsim run: --ptx-override: no such file or directory '" << *v << "'\n";
        return 2;
      }
      setenv("PTXSIM_PTX_OVERRIDE", v->c_str(), 1);
    } else if (a == "--stats-json") {
      const std::string *v = need(a);
      if (!v)
        return 2;
      setenv("PTXSIM_STATS_JSON", v->c_str(), 1);
    } else if (a == "--report") {
      const std::string *v = need(a);
      if (!v)
        return 2;
      reportPath = *v;
    } else if (a == "--no-summary") {
      setenv("PTXSIM_SUMMARY", "0", 1);
    } else if (a == "--api-errors") {
      setenv("PTXSIM_API_ERRORS", "1", 1);
    } else if (a == "--print-config") {
      setenv("PTXSIM_PRINT_CONFIG", "1", 1);
    } else if (a == "--mode") {
      const std::string *v = need(a);
      if (!v)
        return 2;
      if (*v != "functional" && *v != "timing") {
        err << "ptxsim run: --mode must be 'functional' or 'timing', not '" << *v << "'\n";
        return 2;
      }
      setenv("PTXSIM_MODE", v->c_str(), 1);
    } else if (a == "--config") {
      const std::string *v = need(a);
      if (!v)
        return 2;
      if (!fileExists(*v)) {
        err << "ptxsim run: --config: no such file '" << *v << "'\n";
        return 2;
      }
      const char *prev = std::getenv("PTXSIM_CONFIG");
      std::string all = prev && *prev && configSeen ? std::string(prev) + "," + *v : *v;
      configSeen = true;
      setenv("PTXSIM_CONFIG", all.c_str(), 1);
      if (!std::getenv("PTXSIM_MODE"))
        setenv("PTXSIM_MODE", "timing", 1);
    } else if (a == "--lenient") {
      setenv("PTXSIM_CONFIG_LENIENT", "1", 1);
    } else if (a == "--power") {
      setenv("PTXSIM_POWER", "1", 1);
      if (!std::getenv("PTXSIM_MODE"))
        setenv("PTXSIM_MODE", "timing", 1);
    } else if (!a.empty() && a[0] == '-') {
      err << "ptxsim run: unknown option '" << a << "'\n";
      runUsage(err);
      return 2;
    } else {
      break; // the program, without a `--`
    }
  }
  if (i >= args.size()) {
    err << "ptxsim run: no program given\n";
    runUsage(err);
    return 2;
  }
  if (!runtimeUsable(args[i], err))
    return 2;
  std::string lib = ptxsim::libraryDir();
  if (lib.empty() || !fileExists(lib + "/libcudart.so.13")) {
    err << "ptxsim run: cannot find libcudart.so.13 next to the ptxsim executable (looked in '"
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
  if (!reportPath.empty())
    return runWithReport(argv, reportPath, err);
  execvp(argv[0], argv.data());
  err << "ptxsim run: cannot run '" << args[i] << "': " << std::strerror(errno) << "\n";
  return 127;
}

} // namespace ptxsim::cli

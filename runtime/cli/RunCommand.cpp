#include "runtime/cli/RunCommand.h"

#include "base/SelfPath.h"

#include "runtime/fatbin/Fatbin.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <sys/stat.h>
#include <unistd.h>

namespace ptxsim::cli {

namespace {

void runUsage(std::ostream &os) {
  os << "usage: ptxsim run [options] -- PROGRAM [ARGS...]\n"
        "options:\n"
        "  --threads N            host threads that run CTAs (default: all cores)\n"
        "  --ptx-override PATH    use the kernels of PATH (.ptx file or directory) instead of\n"
        "                         the program's own PTX (same-named kernels, same parameters)\n"
        "  --stats-json FILE      write per-kernel statistics as JSON at exit\n"
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

} // namespace

int runCommand(const std::vector<std::string> &args, std::ostream &err) {
  size_t i = 0;
  bool configSeen = false;
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
  execvp(argv[0], argv.data());
  err << "ptxsim run: cannot run '" << args[i] << "': " << std::strerror(errno) << "\n";
  return 127;
}

} // namespace ptxsim::cli

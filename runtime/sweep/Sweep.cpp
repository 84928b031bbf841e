#include "runtime/sweep/Sweep.h"

#include "base/SelfPath.h"
#include "runtime/sweep/ProgramKind.h"
#include "runtime/sweep/Sha256.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PTXSIM_VERSION
#define PTXSIM_VERSION "unknown"
#endif

extern char **environ;

namespace ptxsim::sweep {

namespace {

volatile sig_atomic_t gStopSignal = 0;
void onStop(int sig) { gStopSignal = sig; }

void sweepUsage(std::ostream &os) {
  os << "usage: ptxsim sweep SPEC.toml [options]\n"
        "  Runs every point of the spec's grid (programs x axes; docs/sweep.md), each in\n"
        "  OUTPUT/points/ID, skips the points already done with the same inputs, and merges\n"
        "  them into OUTPUT/results.csv, results.json and report.html.\n"
        "options:\n"
        "  --backend local|slurm  local (default): N simulations at a time here, N from the\n"
        "                         cores and memory; slurm: one sbatch array job (a task per\n"
        "                         point; a job of one task per chiplet for each chiplet\n"
        "                         point) and a dependent job that merges\n"
        "  -o, --output DIR       output directory (default: the spec's `output`)\n"
        "  --set NAME=VALUE       override a [vars] entry (repeatable)\n"
        "  -j, --jobs N           local: simulations at a time\n"
        "  --retry-failed         run the failed points again (else they are listed and kept)\n"
        "  --dry-run              print what would run (slurm: the sbatch scripts); run nothing\n"
        "  --wait                 slurm: wait until the merge job ends; exit 1 if a point failed\n"
        "  --list                 print every point with its state and stop\n"
        "  --merge                only merge the finished points into the tables and report\n"
        "  --run-task I --tasks FILE  run the point on line I of FILE (the Slurm array task)\n";
}

std::string shellQuote(const std::string &s) {
  std::string o = "'";
  for (char c : s)
    o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

bool mkdirs(const std::string &path, std::string &error) {
  std::string cur;
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos)
      j = path.size();
    cur = path.substr(0, j);
    if (!cur.empty() && mkdir(cur.c_str(), 0777) != 0 && errno != EEXIST) {
      error = "cannot create directory '" + cur + "': " + std::strerror(errno);
      return false;
    }
    i = j + 1;
  }
  return true;
}

bool readFile(const std::string &path, std::string &out) {
  std::ifstream is(path, std::ios::binary);
  if (!is)
    return false;
  std::ostringstream ss;
  ss << is.rdbuf();
  out = ss.str();
  return true;
}

/// Writes `text` to `path` through a temporary file in the same directory and rename(2), so
/// readers (and a restarted sweep) see the old file or the whole new one, never a part.
bool writeAtomic(const std::string &path, const std::string &text, std::string &error) {
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
  if (fd < 0) {
    error = "cannot write '" + tmp + "': " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error = "cannot write '" + tmp + "': " + std::strerror(errno);
      close(fd);
      unlink(tmp.c_str());
      return false;
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0 || rename(tmp.c_str(), path.c_str()) != 0) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

std::string jsonString(const std::string &s) {
  std::string o;
  report::appendJsonString(o, s);
  return o;
}

/// The shortest text that reads back as `v` (to_chars), so tables stay exact and readable.
std::string shortest(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string jsonNumber(double v) { return std::isfinite(v) ? shortest(v) : "null"; }

/// Fills a point's ${NAME}s from the values its axis values set (later axes win); "$$" is a
/// '$'. The first name no value sets is kept in `missing`.
struct PointFiller {
  std::map<std::string, std::string> values;
  std::string missing;

  std::string fill(const std::string &in) {
    std::string o;
    for (size_t i = 0; i < in.size(); ++i) {
      size_t end;
      if (in.compare(i, 2, "$$") == 0) {
        o += '$';
        ++i;
      } else if (in.compare(i, 2, "${") == 0 && (end = in.find('}', i + 2)) != std::string::npos) {
        std::string name = in.substr(i + 2, end - i - 2);
        auto it = values.find(name);
        if (it == values.end() && missing.empty())
          missing = name;
        o += it == values.end() ? std::string() : it->second;
        i = end;
      } else {
        o += in[i];
      }
    }
    return o;
  }

  /// Arguments that consist of a ${NAME} set to "" at this point are left out.
  void fillArgs(const std::vector<std::string> &in, std::vector<std::string> &o) {
    for (const std::string &x : in) {
      std::string f = fill(x);
      if (!f.empty() || x.find("${") == std::string::npos)
        o.push_back(f);
    }
  }
};

/// The inputs of every point, hashed once per file.
class Planner : public PointHashes {
public:
  explicit Planner(const Spec &spec) : spec_(spec) {}
  std::string error;

  bool init() {
    // the simulator is libcudart.so.13 (ptxsim run only sets its options and starts the
    // program): its bytes and the version decide whether old results still hold, so rebuilding
    // the command-line tool alone does not invalidate a sweep
    self_ = selfExecutable();
    std::string lib = libraryDir() + "/libcudart.so.13";
    std::string b;
    if (self_.empty())
      return fail("cannot find the ptxsim executable (/proc/self/exe)");
    if (!sha256File(lib, b, error))
      return fail("cannot read the simulator (" + error + "); build the cudart_ptxsim target");
    version_ = std::string("ptxsim ") + PTXSIM_VERSION + " libcudart.so.13 " + b;
    return true;
  }
  const std::string &self() const { return self_; }

  std::string hashOf(const std::string &path, const std::string &what) override {
    auto it = hashes_.find(path);
    if (it != hashes_.end())
      return it->second;
    std::string h, e;
    if (!sha256File(path, h, e)) {
      fail(what + ": " + e);
      return {};
    }
    return hashes_[path] = h;
  }

  /// `ptxsim run` arguments (after "run"), the program's environment additions and the key
  /// material of point `p`; false on error.
  bool plan(const Point &p, const std::string &dir, unsigned threads,
            std::vector<std::string> &runArgs, std::string &inputs, std::string &overrides,
            std::vector<std::pair<std::string, std::string>> *envOut = nullptr) {
    const Program &prog = spec_.programs[p.program];
    PointFiller f;
    for (size_t a = 0; a < spec_.axes.size(); ++a)
      for (const auto &[k, v] : spec_.axes[a].values[p.values[a]].vars)
        f.values[k] = v;
    std::vector<std::string> cmd, progRunArgs;
    f.fillArgs(prog.command, cmd);
    for (size_t a = 0; a < spec_.axes.size(); ++a)
      f.fillArgs(spec_.axes[a].values[p.values[a]].args, cmd);
    f.fillArgs(prog.runArgs, progRunArgs);
    std::vector<std::pair<std::string, std::string>> env;
    for (const auto &[k, v] : prog.env)
      env.emplace_back(k, f.fill(v));
    KindPoint kp;
    kp.point = &p;
    kp.program = &prog;
    for (const auto &[k, v] : prog.settings)
      kp.settings[k] = f.fill(v);
    if (!f.missing.empty())
      return fail("point " + p.id + ": no value of its axes sets '${" + f.missing +
                  "}' (program '" + prog.name + "')");
    if (cmd.empty())
      return fail("point " + p.id + ": the command is empty");
    if (envOut)
      *envOut = env;
    std::ostringstream in;
    ModeKind mode = pointMode(spec_, p);
    if (!keyProgram(p, prog, cmd, env, mode, in))
      return false;
    kp.mode = mode;
    kp.dir = dir;
    kp.threads = threads;
    KindPlan kplan;
    if (!prog.kind->plan(kp, *this, kplan))
      return kplan.error.empty() ? false : fail(kplan.error);
    processes_ = kplan.processes;
    in << kplan.key;
    runArgs = kplan.args;
    if (!planSettings(p, dir, mode, kplan.timingMode, progRunArgs, in, runArgs, overrides))
      return false;
    runArgs.push_back("--");
    runArgs.insert(runArgs.end(), cmd.begin(), cmd.end());
    inputs = in.str();
    return true;
  }

  /// The simulator processes the last planned point runs (1 for `ptxsim run`).
  unsigned processes() const { return processes_; }

  std::string key(const std::string &inputs) {
    Sha256 s;
    s.update(inputs);
    return s.hex();
  }

private:
  bool fail(const std::string &m) {
    error = m;
    return false;
  }

  /// The key material of what the program is: the simulator, the program's and its inputs'
  /// bytes, the PTXSIM_ environment, the command, working directory, env, mode and repeat.
  bool keyProgram(const Point &p, const Program &prog, const std::vector<std::string> &cmd,
                  const std::vector<std::pair<std::string, std::string>> &env, ModeKind mode,
                  std::ostringstream &in) {
    in << version_ << "\n";
    std::string bin = findOnPath(cmd[0]);
    if (bin.empty())
      return fail("program '" + prog.name + "': '" + cmd[0] + "' is not on PATH");
    std::string h = hashOf(bin, "program '" + prog.name + "'");
    if (h.empty())
      return false;
    in << "program " << h << "\n";
    for (const std::string &f : prog.inputs) {
      std::string fh = hashOf(f, "program '" + prog.name + "': input");
      if (fh.empty())
        return false;
      in << "input " << fh << "\n";
    }
    // the simulator's own variables that the sweep inherits (PTXSIM_POWER_CONFIG, PTXSIM_SPU,
    // ...) change results too; `ptxsim run` sets the ones it has options for
    for (char **e = environ; *e; ++e)
      if (std::strncmp(*e, "PTXSIM_", 7) == 0)
        in << "environ " << *e << "\n";
    for (const std::string &c : cmd)
      in << "arg " << c << "\n";
    in << "cwd " << (prog.cwd.empty() ? "<point>" : prog.cwd) << "\n";
    for (const auto &[k, v] : env)
      in << "env " << k << "=" << v << "\n";
    in << "mode " << modeName(mode) << "\n";
    for (size_t a = 0; a < spec_.axes.size(); ++a)
      if (spec_.axes[a].name == "repeat")
        in << "repeat " << spec_.axes[a].values[p.values[a]].name << "\n";
    return true;
  }

  /// The configurations, option overrides and extra `ptxsim run` options of the spec, the
  /// program and the point's axis values, with the mode's options.
  bool planSettings(const Point &p, const std::string &dir, ModeKind mode,
                    const std::vector<std::string> &timingMode,
                    const std::vector<std::string> &progRunArgs, std::ostringstream &in,
                    std::vector<std::string> &runArgs, std::string &overrides) {
    std::vector<std::string> configs = spec_.configs;
    std::vector<std::pair<std::string, std::string>> options = spec_.options;
    std::vector<std::string> extra = spec_.runArgs;
    extra.insert(extra.end(), progRunArgs.begin(), progRunArgs.end());
    for (size_t a = 0; a < spec_.axes.size(); ++a) {
      const AxisValue &v = spec_.axes[a].values[p.values[a]];
      configs.insert(configs.end(), v.configs.begin(), v.configs.end());
      options.insert(options.end(), v.options.begin(), v.options.end());
      extra.insert(extra.end(), v.runArgs.begin(), v.runArgs.end());
    }
    overrides.clear();
    for (const auto &[k, v] : options)
      overrides += k + " " + v + "\n";
    if (mode == ModeKind::Functional) {
      runArgs.insert(runArgs.end(), {"--mode", "functional"});
    } else {
      runArgs.insert(runArgs.end(), timingMode.begin(), timingMode.end());
      if (configs.empty())
        return fail("point " + p.id + ": " + modeName(mode) +
                    " mode needs a configuration (configs = [...] in the spec or an axis)");
      if (!keyConfigs(p, configs, mode, in, runArgs))
        return false;
      if (!overrides.empty()) {
        in << "overrides " << overrides;
        runArgs.insert(runArgs.end(), {"--config", dir + "/overrides.config"});
      }
      if (mode == ModeKind::Power)
        runArgs.push_back("--power");
      else if (mode == ModeKind::SampleKernels)
        runArgs.insert(runArgs.end(), {"--sample", "kernels"});
      else if (mode == ModeKind::SampleCtas)
        runArgs.insert(runArgs.end(), {"--sample", "ctas"});
    }
    for (const std::string &x : extra)
      in << "run_arg " << x << "\n";
    runArgs.insert(runArgs.end(), extra.begin(), extra.end());
    return true;
  }

  bool keyConfigs(const Point &p, const std::vector<std::string> &configs, ModeKind mode,
                  std::ostringstream &in, std::vector<std::string> &runArgs) {
    for (const std::string &c : configs) {
      std::string ch = hashOf(c, "point " + p.id + ": configuration");
      if (ch.empty())
        return false;
      in << "config " << ch << "\n";
      runArgs.insert(runArgs.end(), {"--config", c});
      // the power model reads the XML beside a preset (docs/power.md)
      std::string xml = c.size() > 7 && c.compare(c.size() - 7, 7, ".config") == 0
                            ? c.substr(0, c.size() - 7) + ".power.xml"
                            : std::string();
      if (mode == ModeKind::Power && !xml.empty() && access(xml.c_str(), R_OK) == 0) {
        std::string xh = hashOf(xml, "point " + p.id + ": power configuration");
        if (xh.empty())
          return false;
        in << "power_xml " << xh << "\n";
      }
    }
    return true;
  }

  const Spec &spec_;
  std::string self_, version_;
  unsigned processes_ = 1;
  std::map<std::string, std::string> hashes_;
};

std::string pointDir(const Spec &spec, const Point &p) { return spec.output + "/points/" + p.id; }

bool readResult(const std::string &path, PointResult &r) {
  std::string text, e;
  report::JsonValue j;
  if (!readFile(path, text) || !report::parseJson(text, j, e) || !j.isObject())
    return false;
  r.id = j.str("id");
  r.key = j.str("key");
  r.ok = j.str("status") == "ok";
  r.exitCode = static_cast<int>(j.num("exit"));
  r.wallSeconds = j.num("wall_s");
  r.peakRssMiB = j.num("peak_rss_mib");
  r.reason = j.str("reason");
  r.stderrTail = j.str("stderr_tail");
  r.host = j.str("host");
  r.backend = j.str("backend");
  return true;
}

std::string resultJson(const PointResult &r) {
  return "{\n  \"id\": " + jsonString(r.id) + ",\n  \"key\": " + jsonString(r.key) +
         ",\n  \"status\": " + jsonString(r.ok ? "ok" : "failed") +
         ",\n  \"exit\": " + std::to_string(r.exitCode) +
         ",\n  \"wall_s\": " + jsonNumber(r.wallSeconds) +
         ",\n  \"peak_rss_mib\": " + jsonNumber(r.peakRssMiB) +
         ",\n  \"reason\": " + jsonString(r.reason) +
         ",\n  \"stderr_tail\": " + jsonString(r.stderrTail) +
         ",\n  \"host\": " + jsonString(r.host) + ",\n  \"backend\": " + jsonString(r.backend) +
         "\n}\n";
}

std::string tailOf(const std::string &path, size_t lines, size_t maxBytes) {
  std::string text;
  if (!readFile(path, text))
    return {};
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  size_t pos = text.size();
  for (size_t n = 0; n < lines && pos > 0; ++n) {
    size_t nl = text.rfind('\n', pos - 1);
    if (nl == std::string::npos) {
      pos = 0;
      break;
    }
    pos = nl;
  }
  std::string t = text.substr(pos == 0 ? 0 : pos + 1);
  if (t.size() > maxBytes)
    t = "..." + t.substr(t.size() - maxBytes);
  return t;
}

std::string hostName() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

/// A point being run: the child and what to record when it ends.
struct Running {
  pid_t pid = -1;
  const Point *point = nullptr;
  std::string dir, key, expect;
  unsigned processes = 1;
  std::chrono::steady_clock::time_point start;
};

bool startPoint(Planner &planner, const Spec &spec, const Point &p, unsigned threads, Running &run,
                std::ostream &err) {
  std::string dir = pointDir(spec, p), e;
  std::vector<std::string> runArgs;
  std::string inputs, overrides;
  std::vector<std::pair<std::string, std::string>> env;
  if (!planner.plan(p, dir, threads, runArgs, inputs, overrides, &env)) {
    err << "ptxsim sweep: " << planner.error << "\n";
    return false;
  }
  if (!mkdirs(dir, e)) {
    err << "ptxsim sweep: " << e << "\n";
    return false;
  }
  unlink((dir + "/result.json").c_str()); // running again: the old result no longer holds
  unlink((dir + "/stats.json").c_str());
  unlink((dir + "/stats.json.part").c_str());
  std::string cmdline = shellQuote(planner.self());
  for (const std::string &a : runArgs)
    cmdline += " " + shellQuote(a);
  if (!writeAtomic(dir + "/inputs.txt", inputs, e) ||
      !writeAtomic(dir + "/command.sh", "#!/bin/sh\n# how this point ran\n" + cmdline + "\n", e) ||
      (!overrides.empty() && !writeAtomic(dir + "/overrides.config", overrides, e))) {
    err << "ptxsim sweep: " << e << "\n";
    return false;
  }
  const Program &prog = spec.programs[p.program];
  std::string cwd = prog.cwd.empty() ? dir : prog.cwd;
  std::vector<char *> argv;
  std::string self = planner.self();
  argv.push_back(self.data());
  for (std::string &a : runArgs)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string out = dir + "/stdout.txt", errPath = dir + "/stderr.txt";
  run.start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    // a sweep that is killed (even by SIGKILL) takes its simulations with it
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    int er = open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    int nul = open("/dev/null", O_RDONLY);
    if (o < 0 || er < 0 || nul < 0 || dup2(o, 1) < 0 || dup2(er, 2) < 0 || dup2(nul, 0) < 0)
      _exit(126);
    if (chdir(cwd.c_str()) != 0) {
      std::fprintf(stderr, "ptxsim sweep: cannot enter '%s': %s\n", cwd.c_str(),
                   std::strerror(errno));
      _exit(126);
    }
    for (const auto &[k, v] : env)
      setenv(k.c_str(), v.c_str(), 1);
    execv(argv[0], argv.data());
    std::fprintf(stderr, "ptxsim sweep: cannot run '%s': %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  if (pid < 0) {
    err << "ptxsim sweep: cannot start point " << p.id << ": " << std::strerror(errno) << "\n";
    return false;
  }
  run.pid = pid;
  run.point = &p;
  run.dir = dir;
  run.key = planner.key(inputs);
  run.expect = prog.expect;
  return true;
}

/// Records a finished point: stats.json into place, then result.json (atomically, last).
bool finishPoint(const Running &run, int status, const struct rusage &ru, const char *backend,
                 PointResult &r, std::ostream &err) {
  r = PointResult();
  r.id = run.point->id;
  r.key = run.key;
  r.backend = backend;
  r.host = hostName();
  r.wallSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - run.start).count();
  r.peakRssMiB = ru.ru_maxrss / 1024.0;
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::string part = run.dir + "/stats.json.part";
  struct stat st;
  bool stats = stat(part.c_str(), &st) == 0 && st.st_size > 0;
  if (stats && rename(part.c_str(), (run.dir + "/stats.json").c_str()) != 0)
    stats = false;
  if (WIFSIGNALED(status))
    r.reason = std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
               strsignal(WTERMSIG(status)) + ")";
  else if (r.exitCode != 0)
    r.reason = "exit status " + std::to_string(r.exitCode);
  else if (!stats)
    r.reason = "the program wrote no statistics";
  else if (!run.expect.empty()) {
    std::string text;
    readFile(run.dir + "/stdout.txt", text);
    if (text.find(run.expect) == std::string::npos)
      r.reason = "stdout does not contain \"" + run.expect + "\"";
  }
  r.ok = r.reason.empty();
  if (!r.ok)
    r.stderrTail = tailOf(run.dir + "/stderr.txt", 15, 3000);
  std::string e;
  if (!writeAtomic(run.dir + "/result.json", resultJson(r), e)) {
    err << "ptxsim sweep: " << e << "\n";
    return false;
  }
  return true;
}

enum class State { Done, Failed, Pending };

struct Plan {
  std::vector<Point> points;
  std::vector<std::string> keys;
  std::vector<State> states;
  std::vector<PointResult> results;
  std::vector<unsigned> processes; ///< simulator processes per point (ProgramKind::plan)
};

bool makePlan(Planner &planner, const Spec &spec, Plan &plan, std::ostream &err) {
  plan.points = expandGrid(spec);
  for (const Point &p : plan.points) {
    std::vector<std::string> runArgs;
    std::string inputs, overrides;
    if (!planner.plan(p, pointDir(spec, p), spec.resources.cpus, runArgs, inputs, overrides)) {
      err << "ptxsim sweep: " << planner.error << "\n";
      return false;
    }
    plan.keys.push_back(planner.key(inputs));
    plan.processes.push_back(planner.processes());
    PointResult r;
    State s = State::Pending;
    if (readResult(pointDir(spec, p) + "/result.json", r) && r.key == plan.keys.back())
      s = r.ok ? State::Done : State::Failed;
    plan.states.push_back(s);
    plan.results.push_back(r);
  }
  return true;
}

/// How many simulator processes run at a time here: min(cores / cpus, available memory /
/// memory), at most `pending` (the processes to run), at least 1.
unsigned localParallelism(const Spec &spec, size_t pending) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    cores = CPU_COUNT(&set);
  uint64_t availMiB = 0;
  std::ifstream mi("/proc/meminfo");
  std::string line;
  while (std::getline(mi, line))
    if (line.rfind("MemAvailable:", 0) == 0)
      availMiB = std::strtoull(line.c_str() + 13, nullptr, 10) / 1024;
  uint64_t n = std::max<long>(1, cores / std::max(1u, spec.resources.cpus));
  if (availMiB > 0)
    n = std::min<uint64_t>(n, std::max<uint64_t>(1, availMiB / spec.resources.memoryMiB));
  return static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>(n, pending)));
}

// --- merge ----------------------------------------------------------------------------------

bool isDerived(const std::string &n) {
  static const char *names[] = {
      "cycles",       "warp_insts",   "thread_insts", "ipc",
      "stall_cycles", "l1d_hit_rate", "l2_hit_rate",  "l1d_misses_per_kinst",
      "dram_bytes",   "energy_j",     "avg_watts",    "sim_seconds",
      "launches",     "ctas"};
  for (const char *x : names)
    if (n == x)
      return true;
  return false;
}

std::string csvField(const std::string &s) {
  if (s.find_first_of(",\"\n") == std::string::npos)
    return s;
  std::string o = "\"";
  for (char c : s)
    o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

std::string csvNumber(double v) { return std::isfinite(v) ? shortest(v) : ""; }

/// The table's axes: "program", then the spec's, each with its values and baseline.
void tableAxes(const Spec &spec, Table &t) {
  t.axes.push_back("program");
  t.axisValues.emplace_back();
  for (const Program &p : spec.programs)
    t.axisValues.back().push_back(p.name);
  auto it = spec.baseline.find("program");
  t.baseline.push_back(it == spec.baseline.end() ? spec.programs[0].name : it->second);
  for (const Axis &a : spec.axes) {
    t.axes.push_back(a.name);
    t.axisValues.emplace_back();
    for (const AxisValue &v : a.values)
      t.axisValues.back().push_back(v.name);
    t.baseline.push_back(spec.baseline.at(a.name));
  }
}

/// Point `i`'s row: its result and (when ok) statistics; `seenStat` marks those found.
Row readRow(const Spec &spec, const Plan &plan, size_t i, std::vector<bool> &seenStat) {
  Row row;
  row.point = &plan.points[i];
  row.stats.assign(spec.stats.size(), std::nan(""));
  PointResult r;
  std::string dir = pointDir(spec, plan.points[i]);
  if (readResult(dir + "/result.json", r) && r.key == plan.keys[i]) {
    row.result = r;
    row.state = r.ok ? "ok" : "failed";
  } else {
    row.state = "missing";
    row.result.id = plan.points[i].id;
  }
  if (row.state != "ok")
    return row;
  const ProgramKind &kind = *spec.programs[plan.points[i].program].kind;
  std::string text, e;
  report::JsonValue json;
  if (!readFile(dir + "/stats.json", text) || !report::parseJson(text, json, e) ||
      !kind.statistics(json, spec.stats, row.stats, e)) {
    row.state = "failed";
    row.result.ok = false;
    row.result.reason =
        "unreadable statistics: " + dir + "/stats.json" + (e.empty() ? "" : ": " + e);
    return row;
  }
  for (size_t s = 0; s < row.stats.size(); ++s)
    seenStat[s] = seenStat[s] || std::isfinite(row.stats[s]);
  return row;
}

/// CSV: coordinates, state, statistics, then the host-dependent measurements.
std::string tableCsv(const Table &t) {
  std::string csv = "point";
  for (const std::string &a : t.axes)
    csv += "," + csvField(a);
  csv += ",status";
  for (const std::string &s : t.statNames)
    csv += "," + csvField(s);
  csv += ",exit,wall_s,peak_rss_mib\n";
  for (const Row &r : t.rows) {
    csv += csvField(r.point->id);
    for (const std::string &x : t.coords(r))
      csv += "," + csvField(x);
    csv += "," + r.state;
    for (double v : r.stats)
      csv += "," + csvNumber(v);
    bool ran = r.state != "missing";
    csv += "," + (ran ? std::to_string(r.result.exitCode) : "") + "," +
           (ran ? csvNumber(r.result.wallSeconds) : "") + "," +
           (ran ? csvNumber(r.result.peakRssMiB) : "") + "\n";
  }
  return csv;
}

std::string pointJson(const Table &t, const Row &r) {
  std::vector<std::string> c = t.coords(r);
  std::string json = "{\"id\": " + jsonString(r.point->id) +
                     ", \"dir\": " + jsonString("points/" + r.point->id) + ", \"coords\": {";
  for (size_t a = 0; a < c.size(); ++a)
    json += (a ? ", " : "") + jsonString(t.axes[a]) + ": " + jsonString(c[a]);
  json += "}, \"status\": " + jsonString(r.state) + ", \"stats\": {";
  for (size_t s = 0; s < r.stats.size(); ++s)
    json += (s ? ", " : "") + jsonString(t.statNames[s]) + ": " + jsonNumber(r.stats[s]);
  json += "}";
  if (r.state != "missing")
    json += ", \"exit\": " + std::to_string(r.result.exitCode) +
            ", \"wall_s\": " + jsonNumber(r.result.wallSeconds) +
            ", \"peak_rss_mib\": " + jsonNumber(r.result.peakRssMiB) +
            ", \"host\": " + jsonString(r.result.host) +
            ", \"backend\": " + jsonString(r.result.backend);
  if (r.state == "failed")
    json += ", \"reason\": " + jsonString(r.result.reason) +
            ", \"stderr_tail\": " + jsonString(r.result.stderrTail);
  return json + "}";
}

std::string tableJson(const Spec &spec, const Table &t) {
  std::string json = "{\n  \"sweep\": " + jsonString(spec.name) +
                     ",\n  \"title\": " + jsonString(spec.title) +
                     ",\n  \"spec\": " + jsonString(spec.path) + ",\n  \"axes\": [";
  for (size_t a = 0; a < t.axes.size(); ++a) {
    json += std::string(a ? ", " : "") + "{\"name\": " + jsonString(t.axes[a]) +
            ", \"baseline\": " + jsonString(t.baseline[a]) + ", \"values\": [";
    for (size_t v = 0; v < t.axisValues[a].size(); ++v)
      json += (v ? ", " : "") + jsonString(t.axisValues[a][v]);
    json += "]}";
  }
  json += "],\n  \"stats\": [";
  for (size_t s = 0; s < t.statNames.size(); ++s)
    json += (s ? ", " : "") + jsonString(t.statNames[s]);
  json += "],\n  \"points\": [";
  for (size_t i = 0; i < t.rows.size(); ++i)
    json += std::string(i ? ",\n    " : "\n    ") + pointJson(t, t.rows[i]);
  return json + "\n  ]\n}\n";
}

/// Reads every point's result and statistics into a table and writes the CSV, JSON and HTML.
bool merge(const Spec &spec, const Plan &plan, Table &t, std::ostream &err, bool write = true) {
  t = Table();
  t.spec = &spec;
  t.name = spec.name;
  t.title = spec.title;
  t.specPath = spec.path;
  t.output = spec.output;
  t.statNames = spec.stats;
  tableAxes(spec, t);
  std::vector<bool> seenStat(spec.stats.size(), false);
  for (size_t i = 0; i < plan.points.size(); ++i)
    t.rows.push_back(readRow(spec, plan, i, seenStat));
  bool anyOk =
      std::any_of(t.rows.begin(), t.rows.end(), [](const Row &r) { return r.state == "ok"; });
  for (size_t s = 0; s < spec.stats.size(); ++s)
    if (anyOk && !seenStat[s])
      err << "ptxsim sweep: warning: statistic '" << spec.stats[s]
          << "' is in no point's statistics (see docs/sweep.md and `ptxsim stats`)\n";
  if (!write)
    return true;
  std::string e;
  if (!mkdirs(spec.output, e) || !writeAtomic(spec.output + "/" + spec.csvName, tableCsv(t), e) ||
      !writeAtomic(spec.output + "/" + spec.jsonName, tableJson(spec, t), e) ||
      !writeAtomic(spec.output + "/" + spec.reportName, renderSweepPage(t), e)) {
    err << "ptxsim sweep: " << e << "\n";
    return false;
  }
  return true;
}

/// Prints the counts and every failed point with its stderr tail; returns whether all are ok.
bool summarize(const Table &t, std::ostream &out) {
  size_t ok = 0, failed = 0, missing = 0;
  for (const Row &r : t.rows)
    (r.state == "ok" ? ok : r.state == "failed" ? failed : missing)++;
  out << "ptxsim sweep: " << t.name << ": " << t.rows.size() << " points: " << ok << " ok, "
      << failed << " failed, " << missing << " not run\n";
  for (const Row &r : t.rows) {
    if (r.state != "failed")
      continue;
    out << "  FAILED " << r.point->id << ": " << r.result.reason << " (" << t.output << "/points/"
        << r.point->id << ")\n";
    std::istringstream is(r.result.stderrTail);
    std::string line;
    while (std::getline(is, line))
      out << "    | " << line << "\n";
  }
  if (failed)
    out << "  (run again with --retry-failed to retry the failed points)\n";
  out << "  table: " << t.output << "/" << t.spec->csvName << ", " << t.spec->jsonName
      << "; report: " << t.output << "/" << t.spec->reportName << "\n";
  return ok == t.rows.size();
}

/// Refuses a second sweep on the same output directory while one runs (the Slurm tasks run
/// distinct points and take no lock).
int lockOutput(const Spec &spec, std::ostream &err) {
  std::string e;
  if (!mkdirs(spec.output, e)) {
    err << "ptxsim sweep: " << e << "\n";
    return -1;
  }
  std::string path = spec.output + "/.sweep.lock";
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
    err << "ptxsim sweep: another ptxsim sweep is using '" << spec.output << "'\n";
    if (fd >= 0)
      close(fd);
    return -1;
  }
  return fd;
}

void installStopHandlers() {
  struct sigaction sa = {};
  sa.sa_handler = onStop;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0; // no SA_RESTART: wait4 returns EINTR
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
}

/// The points to run here: pending ones (failed ones too with --retry-failed), in grid order.
std::vector<size_t> localTodo(const Plan &plan, bool retryFailed, size_t &done, size_t &failed) {
  std::vector<size_t> todo;
  for (size_t i = 0; i < plan.points.size(); ++i) {
    if (plan.states[i] == State::Done)
      ++done;
    else if (plan.states[i] == State::Failed && !retryFailed)
      ++failed;
    else
      todo.push_back(i);
  }
  return todo;
}

void printLocalDryRun(const Spec &spec, Planner &planner, const Plan &plan,
                      const std::vector<size_t> &todo, std::ostream &out) {
  for (size_t i : todo) {
    std::vector<std::string> a;
    std::string inputs, overrides;
    planner.plan(plan.points[i], pointDir(spec, plan.points[i]), spec.resources.cpus, a, inputs,
                 overrides);
    out << plan.points[i].id << ": " << shellQuote(planner.self());
    for (const std::string &x : a)
      out << " " << shellQuote(x);
    out << "\n";
  }
}

/// After a stop signal: Ctrl-C reaches the simulations too, so a point that a signal ended now
/// was interrupted, not failed, and is not recorded (the next run runs it); one that exited
/// (`pid`, `status`) is kept. The others are stopped and waited for. Returns 128 + signal.
int stopRunning(const std::vector<Running> &running, pid_t pid, int status, const struct rusage &ru,
                std::ostream &err) {
  for (const Running &r : running) {
    if (r.pid == pid && !WIFSIGNALED(status)) {
      PointResult res;
      finishPoint(r, status, ru, "local", res, err);
    }
    if (r.pid != pid)
      kill(r.pid, SIGTERM);
  }
  for (const Running &r : running) {
    int st;
    struct rusage u;
    while (r.pid != pid && wait4(r.pid, &st, 0, &u) < 0 && errno == EINTR) {
    }
  }
  err << "ptxsim sweep: stopped by signal " << gStopSignal
      << "; the points that were running will run again, every finished point is kept\n";
  return 128 + gStopSignal;
}

/// Runs `todo`, at most `n` processes at a time; 0 when every point ran (ok or failed), 2 when
/// one could not be started or recorded, 128 + signal when stopped.
int runLocalPoints(const Spec &spec, Planner &planner, const Plan &plan,
                   const std::vector<size_t> &todo, unsigned n, std::ostream &out,
                   std::ostream &err) {
  installStopHandlers();
  std::vector<Running> running;
  size_t next = 0, finished = 0, busy = 0;
  bool broken = false;
  while ((next < todo.size() && !broken) || !running.empty()) {
    // in grid order; a point with more processes than the limit runs alone
    while (!gStopSignal && !broken && next < todo.size() &&
           (running.empty() || busy + plan.processes[todo[next]] <= n)) {
      Running r;
      if (!startPoint(planner, spec, plan.points[todo[next]], spec.resources.cpus, r, err)) {
        broken = true;
        break;
      }
      r.processes = plan.processes[todo[next]];
      busy += r.processes;
      running.push_back(r);
      ++next;
    }
    if (running.empty())
      break;
    int status = 0;
    struct rusage ru = {};
    pid_t pid = wait4(-1, &status, 0, &ru);
    if (gStopSignal)
      return stopRunning(running, pid, status, ru, err);
    auto it = std::find_if(running.begin(), running.end(),
                           [&](const Running &r) { return r.pid == pid; });
    if (pid < 0 || it == running.end())
      continue;
    PointResult res;
    if (!finishPoint(*it, status, ru, "local", res, err))
      broken = true;
    ++finished;
    out << "[" << finished << "/" << todo.size() << "] " << res.id << ": "
        << (res.ok ? "ok" : "FAILED (" + res.reason + ")") << ", "
        << static_cast<long>(res.wallSeconds * 10 + 0.5) / 10.0 << " s\n";
    out.flush();
    busy -= it->processes;
    running.erase(it);
  }
  // a stop signal that came between two points (none running, the next not started) stops
  // the sweep as one that came while a point ran
  if (gStopSignal)
    return stopRunning(running, -1, 0, {}, err);
  return broken ? 2 : 0;
}

int runLocal(const Spec &spec, Planner &planner, Plan &plan, bool retryFailed, unsigned jobs,
             bool dryRun, std::ostream &out, std::ostream &err) {
  size_t done = 0, failed = 0;
  std::vector<size_t> todo = localTodo(plan, retryFailed, done, failed);
  // a point counts as its number of simulator processes toward the limit
  size_t weight = 0;
  for (size_t i : todo)
    weight += plan.processes[i];
  unsigned n = jobs ? jobs : localParallelism(spec, weight);
  out << "ptxsim sweep: " << spec.name << ": " << plan.points.size() << " points, " << done
      << " done, " << failed << " failed (kept" << (failed ? "; --retry-failed runs them" : "")
      << "), " << todo.size() << " to run";
  if (!todo.empty())
    out << ", " << n << " at a time";
  out << "\n";
  if (dryRun) {
    printLocalDryRun(spec, planner, plan, todo, out);
    return 0;
  }
  if (int rc = runLocalPoints(spec, planner, plan, todo, n, out, err))
    return rc;
  Table t;
  if (!merge(spec, plan, t, err))
    return 2;
  return summarize(t, out) ? 0 : 1;
}

/// Runs the point on line `task` of `tasksFile` (a Slurm array task).
int runTask(const Spec &spec, Planner &planner, size_t task, const std::string &tasksFile,
            unsigned threads, std::ostream &out, std::ostream &err) {
  std::ifstream is(tasksFile);
  if (!is) {
    err << "ptxsim sweep: cannot read the task list '" << tasksFile << "'\n";
    return 2;
  }
  std::string id;
  for (size_t i = 0; i <= task; ++i)
    if (!std::getline(is, id)) {
      err << "ptxsim sweep: " << tasksFile << " has no line " << task << "\n";
      return 2;
    }
  std::vector<Point> points = expandGrid(spec);
  auto p = std::find_if(points.begin(), points.end(), [&](const Point &x) { return x.id == id; });
  if (p == points.end()) {
    err << "ptxsim sweep: point '" << id << "' (" << tasksFile << ":" << task + 1
        << ") is not in the spec's grid (was the spec changed after submitting?)\n";
    return 2;
  }
  installStopHandlers();
  Running r;
  if (!startPoint(planner, spec, *p, threads, r, err))
    return 2;
  int status = 0;
  struct rusage ru = {};
  while (wait4(r.pid, &status, 0, &ru) < 0) {
    if (errno != EINTR)
      return 2;
    if (gStopSignal)
      kill(r.pid, SIGTERM); // scancel: stop the simulation, record nothing
  }
  if (gStopSignal)
    return 128 + gStopSignal;
  PointResult res;
  if (!finishPoint(r, status, ru, "slurm", res, err))
    return 2;
  out << "ptxsim sweep: point " << res.id << ": " << (res.ok ? "ok" : "FAILED: " + res.reason)
      << "\n";
  return res.ok ? 0 : 1;
}

bool runCapture(const std::vector<std::string> &argv, std::string &output, int &status) {
  int pipefd[2];
  if (pipe(pipefd) != 0)
    return false;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(pipefd[1], 1);
    close(pipefd[0]);
    close(pipefd[1]);
    std::vector<char *> a;
    for (const std::string &s : argv)
      a.push_back(const_cast<char *>(s.c_str()));
    a.push_back(nullptr);
    execvp(a[0], a.data());
    std::fprintf(stderr, "ptxsim sweep: cannot run '%s': %s\n", a[0], std::strerror(errno));
    _exit(127);
  }
  close(pipefd[1]);
  if (pid < 0) {
    close(pipefd[0]);
    return false;
  }
  char buf[4096];
  ssize_t n;
  output.clear();
  while ((n = read(pipefd[0], buf, sizeof buf)) != 0) {
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      break;
    output.append(buf, static_cast<size_t>(n));
  }
  close(pipefd[0]);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return true;
}

std::string sweepArgs(const Spec &spec,
                      const std::vector<std::pair<std::string, std::string>> &sets) {
  std::string a = shellQuote(spec.absPath) + " --output " + shellQuote(spec.output);
  for (const auto &[k, v] : sets)
    a += " --set " + shellQuote(k + "=" + v);
  return a;
}

/// What one `--backend slurm` submission sends: the task list, the array job's points, the
/// points of kinds that run several processes (each its own job; ProgramKind::ownJob) and the
/// scripts, all in the submission's directory.
struct SlurmSubmission {
  std::string sub;                   ///< the submission's directory
  std::vector<std::string> todo;     ///< tasks.txt: the array's points, then the own-job points
  std::vector<size_t> jobPoints;     ///< the own-job points, into Plan::points
  std::string jobNouns;              ///< their kinds' nouns ("chiplet"), for messages
  size_t done = 0, failed = 0, arrayTasks = 0;
  std::string common; ///< the #SBATCH lines every job has (partition, extra options)
  std::string array, mergeScript;
  std::vector<std::pair<std::string, std::string>> jobs; // file name, script
};

/// tasks.txt: the array's points, then the own-job points (each its own job: one Slurm task
/// per process, where the array gives every task the same single-task resources).
void slurmTodo(const Spec &spec, const Plan &plan, bool retryFailed, SlurmSubmission &s) {
  for (int pass = 0; pass < 2; ++pass)
    for (size_t i = 0; i < plan.points.size(); ++i) {
      const ProgramKind &kind = *spec.programs[plan.points[i].program].kind;
      bool own = kind.ownJob();
      if (own != (pass == 1))
        continue;
      if (plan.states[i] == State::Done)
        ++s.done;
      else if (plan.states[i] == State::Failed && !retryFailed)
        ++s.failed;
      else if (own) {
        s.todo.push_back(plan.points[i].id), s.jobPoints.push_back(i);
        std::string noun = kind.noun();
        if (("/" + s.jobNouns + "/").find("/" + noun + "/") == std::string::npos)
          s.jobNouns += (s.jobNouns.empty() ? "" : "/") + noun;
      } else
        s.todo.push_back(plan.points[i].id), ++s.arrayTasks;
    }
}

/// One job per own-job point, its tasks as its kind says (ProgramKind::job).
void pointJobScripts(const Spec &spec, const Plan &plan, const std::string &self,
                     const std::string &args, SlurmSubmission &s) {
  const Resources &res = spec.resources;
  for (size_t k = 0; k < s.jobPoints.size(); ++k) {
    const Point &p = plan.points[s.jobPoints[k]];
    const Program &prog = spec.programs[p.program];
    KindJob job = prog.kind->job(prog, p, plan.processes[s.jobPoints[k]]);
    s.jobs.emplace_back(job.file,
                        "#!/bin/sh\n# ptxsim sweep " + spec.name + ": " + job.what +
                            "\n#SBATCH --job-name=ptxsim-sweep:" + spec.name + ":" + p.id + "\n" +
                            job.tasks + "#SBATCH --mem-per-cpu=" + std::to_string(res.memoryMiB) +
                            "M\n#SBATCH --time=" + res.time + "\n#SBATCH --output=" + s.sub + "/" +
                            p.id + ".out\n" + s.common + "exec " + self + " sweep " + args +
                            " --run-task " + std::to_string(s.arrayTasks + k) + " --tasks " +
                            shellQuote(s.sub + "/tasks.txt") + "\n");
  }
}

void slurmScripts(const Spec &spec, const Plan &plan, const std::string &self,
                  const std::vector<std::pair<std::string, std::string>> &sets,
                  SlurmSubmission &s) {
  const Resources &res = spec.resources;
  if (!res.partition.empty())
    s.common += "#SBATCH --partition=" + res.partition + "\n";
  for (const std::string &x : res.sbatch)
    s.common += "#SBATCH " + x + "\n";
  std::string args = sweepArgs(spec, sets), sub = s.sub;
  pointJobScripts(spec, plan, self, args, s);
  s.array = "#!/bin/sh\n# ptxsim sweep " + spec.name + ": one array task per point (" + sub +
            "/tasks.txt)\n#SBATCH --job-name=ptxsim-sweep:" + spec.name + ":" +
            std::to_string(s.arrayTasks) + "-points\n#SBATCH --array=0-" +
            std::to_string(s.arrayTasks ? s.arrayTasks - 1 : 0) +
            (res.maxParallel ? "%" + std::to_string(res.maxParallel) : std::string()) +
            "\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=" + std::to_string(res.cpus) +
            "\n#SBATCH --mem=" + std::to_string(res.memoryMiB) + "M\n#SBATCH --time=" + res.time +
            "\n#SBATCH --output=" + sub + "/task-%a.out\n" + s.common +
            "# the task's own name says which point it runs (squeue, sacct)\n"
            "point=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" " +
            shellQuote(sub + "/tasks.txt") +
            ")\nscontrol update JobId=\"$SLURM_JOB_ID\" JobName=\"ptxsim-sweep:" + spec.name +
            ":$point\" >/dev/null 2>&1 || true\n" + "exec " + self + " sweep " + args +
            " --run-task \"$SLURM_ARRAY_TASK_ID\" --tasks " + shellQuote(sub + "/tasks.txt") +
            " --threads " + std::to_string(res.cpus) + "\n";
  s.mergeScript = "#!/bin/sh\n# ptxsim sweep " + spec.name +
                  ": merges the points into the tables and the report once the array job ended\n"
                  "#SBATCH --job-name=ptxsim-merge:" +
                  spec.name +
                  "\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n#SBATCH --mem=1024M\n"
                  "#SBATCH --time=30:00\n#SBATCH --output=" +
                  sub + "/merge.out\n" + s.common + "exec " + self + " sweep " + args +
                  " --merge\n";
}

void printSlurmDryRun(const SlurmSubmission &s, std::ostream &out) {
  out << "# " << s.sub << "/tasks.txt (line i: the point array task i runs"
      << (s.jobs.empty() ? "" : "; then the " + s.jobNouns + " points, each its own job") << ")\n";
  for (const std::string &id : s.todo)
    out << "#   " << id << "\n";
  if (s.arrayTasks)
    out << "# sbatch --parsable " << s.sub << "/array.sbatch\n" << s.array;
  for (const auto &[file, script] : s.jobs)
    out << "# sbatch --parsable " << s.sub << "/" << file << "\n" << script;
  out << "# sbatch --parsable --dependency=afterany:<" << (s.arrayTasks ? "array job id" : "")
      << (s.arrayTasks && !s.jobs.empty() ? ":" : "")
      << (s.jobs.empty() ? "" : s.jobNouns + " job ids") << "> " << s.sub << "/merge.sbatch\n"
      << s.mergeScript;
}

bool writeSlurmFiles(const SlurmSubmission &s, std::ostream &err) {
  std::string e, tasks;
  for (const std::string &id : s.todo)
    tasks += id + "\n";
  if (!mkdirs(s.sub, e) || !writeAtomic(s.sub + "/tasks.txt", tasks, e) ||
      (s.arrayTasks && !writeAtomic(s.sub + "/array.sbatch", s.array, e)) ||
      !writeAtomic(s.sub + "/merge.sbatch", s.mergeScript, e)) {
    err << "ptxsim sweep: " << e << "\n";
    return false;
  }
  for (const auto &[file, script] : s.jobs)
    if (!writeAtomic(s.sub + "/" + file, script, e)) {
      err << "ptxsim sweep: " << e << "\n";
      return false;
    }
  return true;
}

/// `sbatch --parsable` of one script of the submission: its job id in `job`.
bool submitJob(const SlurmSubmission &s, const std::string &file, std::string &job,
               std::ostream &err) {
  std::string output;
  int status = 0;
  if (!runCapture({"sbatch", "--parsable", s.sub + "/" + file}, output, status) ||
      !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    err << "ptxsim sweep: sbatch failed for " << s.sub << "/" << file
        << (output.empty() ? "" : ": " + output)
        << " (is Slurm installed and SLURM_CONF set? scripts/slurm_local.sh starts one here)\n";
    return false;
  }
  job = output.substr(0, output.find_first_of(";\n"));
  return true;
}

/// Submits the array job and the own-job points' jobs; their ids, ':'-separated, in `jobs`.
bool submitPointJobs(const Spec &spec, const Plan &plan, const SlurmSubmission &s,
                     std::string &jobs, std::ostream &out, std::ostream &err) {
  std::string job;
  if (s.arrayTasks) {
    if (!submitJob(s, "array.sbatch", job, err))
      return false;
    jobs = job;
    out << "ptxsim sweep: submitted array job " << job << " (" << s.arrayTasks << " tasks)\n";
  }
  for (size_t k = 0; k < s.jobs.size(); ++k) {
    std::string cj;
    if (!submitJob(s, s.jobs[k].first, cj, err))
      return false; // the jobs already submitted run; their points are kept
    jobs += (jobs.empty() ? "" : ":") + cj;
    const Point &p = plan.points[s.jobPoints[k]];
    out << "ptxsim sweep: submitted " << spec.programs[p.program].kind->noun() << " job " << cj
        << " (" << p.id << ", " << plan.processes[s.jobPoints[k]] << " tasks)\n";
  }
  out.flush();
  return true;
}

/// The merge job, after `jobs`; with `wait`, until it ends, then the summary.
int submitMerge(const Spec &spec, Planner &planner, const SlurmSubmission &s,
                const std::string &jobs, bool wait, std::ostream &out, std::ostream &err) {
  std::string output;
  int status = 0;
  std::vector<std::string> mergeCmd = {"sbatch", "--parsable", "--dependency=afterany:" + jobs};
  if (wait)
    mergeCmd.push_back("--wait");
  mergeCmd.push_back(s.sub + "/merge.sbatch");
  if (!runCapture(mergeCmd, output, status) || !WIFEXITED(status)) {
    err << "ptxsim sweep: sbatch failed for the merge job: " << output << "\n";
    return 2;
  }
  std::string mergeJob = output.substr(0, output.find_first_of(";\n"));
  if (!wait) {
    if (WEXITSTATUS(status) != 0) {
      err << "ptxsim sweep: sbatch failed for the merge job: " << output << "\n";
      return 2;
    }
    out << "ptxsim sweep: submitted merge job " << mergeJob << " (after " << jobs
        << "); the report will be " << spec.output << "/" << spec.reportName << "\n";
    return 0;
  }
  out << "ptxsim sweep: merge job " << mergeJob << " ended (exit " << WEXITSTATUS(status) << ")\n";
  // the merge job wrote the tables and the report; read the points again for the summary
  Plan again;
  if (!makePlan(planner, spec, again, err))
    return 2;
  Table t;
  if (!merge(spec, again, t, err, false))
    return 2;
  return summarize(t, out) ? 0 : 1;
}

int runSlurm(const Spec &spec, Planner &planner, Plan &plan,
             const std::vector<std::pair<std::string, std::string>> &sets, bool retryFailed,
             bool dryRun, bool wait, std::ostream &out, std::ostream &err) {
  SlurmSubmission s;
  slurmTodo(spec, plan, retryFailed, s);
  out << "ptxsim sweep: " << spec.name << ": " << plan.points.size() << " points, " << s.done
      << " done, " << s.failed << " failed (kept" << (s.failed ? "; --retry-failed runs them" : "")
      << "), " << s.todo.size() << " to submit\n";
  out.flush();
  if (s.todo.empty() && !dryRun) {
    Table t;
    if (!merge(spec, plan, t, err))
      return 2;
    return summarize(t, out) ? 0 : 1;
  }
  // one directory per submission: a later one never rewrites the task list of a running array
  s.sub = spec.output + "/slurm/" + std::to_string(time(nullptr)) + "-" + std::to_string(getpid());
  slurmScripts(spec, plan, shellQuote(planner.self()), sets, s);
  if (dryRun) {
    printSlurmDryRun(s, out);
    return 0;
  }
  if (!writeSlurmFiles(s, err))
    return 2;
  std::string jobs;
  if (!submitPointJobs(spec, plan, s, jobs, out, err))
    return 2;
  return submitMerge(spec, planner, s, jobs, wait, out, err);
}

} // namespace

std::vector<std::string> Table::coords(const Row &r) const {
  std::vector<std::string> c{axisValues[0][r.point->program]};
  for (size_t a = 0; a < r.point->values.size(); ++a)
    c.push_back(axisValues[a + 1][r.point->values[a]]);
  return c;
}

namespace {

/// Whether a kernel is one that `kernel` (the KERNEL of NAME@KERNEL) selects: every kernel when
/// empty, else those whose mangled or demangled name contains it.
bool kernelSelected(const std::string &kernel, const std::string &mangled,
                    const std::string &demangled) {
  return kernel.empty() || mangled.find(kernel) != std::string::npos ||
         demangled.find(kernel) != std::string::npos;
}

/// The selected kernels' totals that the derived statistics are made of.
struct KernelSums {
  double cyc = 0, wi = 0, ti = 0, stall = 0, l1a = 0, l1h = 0, l1m = 0, l2a = 0, l2h = 0;
  double dram = 0, energy = 0, psec = 0, sim = 0, launches = 0, ctas = 0;
  bool any = false;

  void add(const report::KernelRow &k) {
    any = true;
    cyc += k.cycles;
    wi += k.warpInsts;
    ti += k.threadInsts;
    stall += k.stallCycles;
    l1a += k.l1Accesses;
    l1h += k.l1Hits;
    l1m += k.l1Misses;
    l2a += k.l2Accesses;
    l2h += k.l2Hits;
    dram += k.dramBytes();
    energy += k.energyJ;
    psec += k.powerSeconds;
    sim += k.simSeconds;
    launches += k.launches;
    ctas += k.ctas;
  }
};

/// A derived statistic (isDerived) of the sums; NaN when it does not apply to the run's mode.
double derivedValue(const std::string &name, const KernelSums &s, const report::RunModel &run) {
  bool timing = run.timing;
  if (name == "cycles" && timing)
    return s.cyc;
  if (name == "warp_insts")
    return s.wi;
  if (name == "thread_insts")
    return s.ti;
  if (name == "ipc" && timing)
    return s.cyc > 0 ? s.wi / s.cyc : 0;
  if (name == "stall_cycles" && timing)
    return s.stall;
  if (name == "l1d_hit_rate" && s.l1a > 0)
    return s.l1h / s.l1a;
  if (name == "l2_hit_rate" && s.l2a > 0)
    return s.l2h / s.l2a;
  if (name == "l1d_misses_per_kinst" && timing)
    return s.wi > 0 ? 1000 * s.l1m / s.wi : 0;
  if (name == "dram_bytes" && timing)
    return s.dram;
  if (name == "energy_j" && run.power)
    return s.energy;
  if (name == "avg_watts" && run.power && s.psec > 0)
    return s.energy / s.psec;
  if (name == "sim_seconds")
    return s.sim;
  if (name == "launches")
    return s.launches;
  if (name == "ctas")
    return s.ctas;
  return std::nan("");
}

/// A per-launch counter, summed over the selected kernels' launches; NaN when none has it.
double launchCounterSum(const report::JsonValue &json, const std::string &name,
                        const std::string &kernel) {
  bool found = false;
  double sum = 0;
  std::map<std::string, std::string> demangled;
  for (const report::JsonValue &k : json.array("kernels"))
    demangled[k.str("name")] = k.str("demangled");
  for (const report::JsonValue &l : json.array("launches")) {
    std::string kn = l.str("kernel");
    if (!kernelSelected(kernel, kn, demangled[kn]))
      continue;
    const report::JsonValue *x = l.get(name);
    if (x && x->isNumber()) {
      found = true;
      sum += x->number;
    }
  }
  return found ? sum : std::nan("");
}

} // namespace

std::vector<double> pointStatistics(const report::JsonValue &json, const report::RunModel &run,
                                    const std::vector<std::string> &names) {
  std::vector<double> out;
  for (const std::string &full : names) {
    size_t at = full.find('@');
    std::string name = full.substr(0, at);
    std::string kernel = at == std::string::npos ? "" : full.substr(at + 1);
    if (!isDerived(name)) {
      out.push_back(launchCounterSum(json, name, kernel));
      continue;
    }
    KernelSums s;
    for (const report::KernelRow &k : run.kernels)
      if (kernelSelected(kernel, k.name, k.demangled))
        s.add(k);
    out.push_back(s.any ? derivedValue(name, s, run) : std::nan(""));
  }
  return out;
}

namespace {

/// `ptxsim sweep`'s command line.
struct SweepArgs {
  std::string specPath, output, backend = "local", tasksFile;
  std::vector<std::pair<std::string, std::string>> sets;
  bool retryFailed = false, dryRun = false, wait = false, list = false, mergeOnly = false;
  bool help = false; ///< -h: print the usage and stop (the arguments after it are not read)
  unsigned jobs = 0, threads = 0;
  long task = -1;
};

class SweepArgParser {
public:
  SweepArgParser(const std::vector<std::string> &args, std::ostream &err)
      : args_(args), err_(err) {}

  /// False on a bad argument (reported on `err`).
  bool parse(SweepArgs &o) {
    for (i_ = 0; i_ < args_.size() && !o.help; ++i_)
      if (!flag(args_[i_], o) && !option(args_[i_], o))
        return false;
    return true;
  }

private:
  const std::vector<std::string> &args_;
  std::ostream &err_;
  size_t i_ = 0;

  bool value(const std::string &a, std::string &dst) {
    if (i_ + 1 >= args_.size()) {
      err_ << "ptxsim sweep: option " << a << " needs a value\n";
      return false;
    }
    dst = args_[++i_];
    return true;
  }

  bool number(const std::string &a, unsigned long lo, unsigned long &dst) {
    std::string s;
    if (!value(a, s))
      return false;
    char *end = nullptr;
    dst = std::strtoul(s.c_str(), &end, 10);
    if (s.empty() || *end || dst < lo) {
      err_ << "ptxsim sweep: " << a << " needs an integer >= " << lo << ", not '" << s << "'\n";
      return false;
    }
    return true;
  }

  /// The options without a value; false when `a` is not one.
  static bool flag(const std::string &a, SweepArgs &o) {
    for (auto [name, dst] : {std::pair<const char *, bool *>{"-h", &o.help},
                             {"--help", &o.help},
                             {"--retry-failed", &o.retryFailed},
                             {"--dry-run", &o.dryRun},
                             {"--wait", &o.wait},
                             {"--list", &o.list},
                             {"--merge", &o.mergeOnly}})
      if (a == name) {
        *dst = true;
        return true;
      }
    return false;
  }

  bool option(const std::string &a, SweepArgs &o) {
    unsigned long u;
    std::string s;
    if (a == "--backend") {
      if (!value(a, o.backend))
        return false;
      if (o.backend != "local" && o.backend != "slurm") {
        err_ << "ptxsim sweep: unknown backend '" << o.backend << "' (local or slurm)\n";
        return false;
      }
    } else if (a == "-o" || a == "--output") {
      return value(a, o.output);
    } else if (a == "--set") {
      if (!value(a, s))
        return false;
      size_t eq = s.find('=');
      if (eq == std::string::npos || eq == 0) {
        err_ << "ptxsim sweep: --set needs NAME=VALUE, not '" << s << "'\n";
        return false;
      }
      o.sets.emplace_back(s.substr(0, eq), s.substr(eq + 1));
    } else if (a == "-j" || a == "--jobs" || a == "--threads") {
      if (!number(a, 1, u))
        return false;
      (a == "--threads" ? o.threads : o.jobs) = static_cast<unsigned>(u);
    } else if (a == "--run-task") {
      if (!number(a, 0, u))
        return false;
      o.task = static_cast<long>(u);
    } else if (a == "--tasks") {
      return value(a, o.tasksFile);
    } else if (!a.empty() && a[0] == '-') {
      err_ << "ptxsim sweep: unknown option '" << a << "' (see ptxsim sweep --help)\n";
      return false;
    } else if (o.specPath.empty()) {
      o.specPath = a;
    } else {
      err_ << "ptxsim sweep: one spec at a time ('" << o.specPath << "', then '" << a << "')\n";
      return false;
    }
    return true;
  }
};

void listPoints(const Plan &plan, std::ostream &out) {
  for (size_t i = 0; i < plan.points.size(); ++i)
    out << plan.points[i].id << " "
        << (plan.states[i] == State::Done     ? "done"
            : plan.states[i] == State::Failed ? "failed: " + plan.results[i].reason
                                              : "pending")
        << "\n";
}

/// The grid's points: listed, merged, or run on the backend (under the output's lock).
int runSweep(const Spec &spec, const SweepArgs &o, Planner &planner, std::ostream &out,
             std::ostream &err) {
  Plan plan;
  if (!makePlan(planner, spec, plan, err))
    return 2;
  if (o.list) {
    listPoints(plan, out);
    return 0;
  }
  if (o.mergeOnly) {
    Table t;
    if (!merge(spec, plan, t, err))
      return 2;
    return summarize(t, out) ? 0 : 1;
  }
  int lock = -1;
  if (!o.dryRun && (lock = lockOutput(spec, err)) < 0)
    return 2;
  int rc = o.backend == "slurm"
               ? runSlurm(spec, planner, plan, o.sets, o.retryFailed, o.dryRun, o.wait, out, err)
               : runLocal(spec, planner, plan, o.retryFailed, o.jobs, o.dryRun, out, err);
  if (lock >= 0)
    close(lock);
  return rc;
}

} // namespace

int sweepCommand(const std::vector<std::string> &args, std::ostream &out, std::ostream &err) {
  SweepArgs o;
  if (!SweepArgParser(args, err).parse(o))
    return 2;
  if (o.help) {
    sweepUsage(out);
    return 0;
  }
  if (o.specPath.empty()) {
    sweepUsage(err);
    return 2;
  }
  if ((o.task >= 0) != !o.tasksFile.empty()) {
    err << "ptxsim sweep: --run-task and --tasks go together\n";
    return 2;
  }
  Spec spec;
  std::string e;
  if (!loadSpec(o.specPath, o.sets, o.output, spec, e)) {
    err << "ptxsim sweep: " << e << "\n";
    return 2;
  }
  Planner planner(spec);
  if (!planner.init()) {
    err << "ptxsim sweep: " << planner.error << "\n";
    return 2;
  }
  if (o.task >= 0)
    return runTask(spec, planner, static_cast<size_t>(o.task), o.tasksFile,
                   o.threads ? o.threads : spec.resources.cpus, out, err);
  return runSweep(spec, o, planner, out, err);
}

} // namespace ptxsim::sweep

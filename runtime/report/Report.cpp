#include "runtime/report/Report.h"

#include "base/SelfPath.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

namespace ptxsim::report {

namespace {

bool readFile(const std::string &path, std::string &text) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  text = ss.str();
  return true;
}

std::string baseName(const std::string &path) {
  size_t slash = path.find_last_of('/');
  std::string b = slash == std::string::npos ? path : path.substr(slash + 1);
  if (b.size() > 5 && b.compare(b.size() - 5, 5, ".json") == 0)
    b.resize(b.size() - 5);
  return b;
}

/// `f(float const*, int)` -> `f`; `ns::k<(int)3>(float*)` -> `ns::k<(int)3>`: the name before
/// the parameter list (a '(' outside template arguments).
std::string shortKernelName(const std::string &demangled) {
  int depth = 0;
  for (size_t i = 0; i < demangled.size(); ++i) {
    char c = demangled[i];
    if (c == '<')
      ++depth;
    else if (c == '>')
      --depth;
    else if (c == '(' && depth <= 0 && i > 0)
      return demangled.substr(0, i);
  }
  return demangled;
}

std::string gridBlockText(const JsonValue &launch) {
  const JsonValue *g = launch.get("grid"), *b = launch.get("block");
  if (!g || !b || !g->isArray() || !b->isArray() || g->items.size() != 3 || b->items.size() != 3)
    return {};
  char buf[128];
  std::snprintf(buf, sizeof buf, "(%.0f,%.0f,%.0f)x(%.0f,%.0f,%.0f)", g->items[0].number,
                g->items[1].number, g->items[2].number, b->items[0].number, b->items[1].number,
                b->items[2].number);
  return buf;
}

std::string scalarText(const JsonValue &v) {
  char buf[64];
  switch (v.kind) {
  case JsonKind::Null:
    return "null";
  case JsonKind::Bool:
    return v.boolean ? "true" : "false";
  case JsonKind::Number:
    if (std::fabs(v.number) < 1e15 && v.number == std::floor(v.number))
      std::snprintf(buf, sizeof buf, "%.0f", v.number);
    else
      std::snprintf(buf, sizeof buf, "%.10g", v.number);
    return buf;
  case JsonKind::String:
    return v.string;
  default:
    return {};
  }
}

void flattenConfig(const JsonValue &v, const std::string &prefix,
                   std::vector<std::pair<std::string, std::string>> &out) {
  if (v.isObject()) {
    for (const auto &[k, m] : v.members)
      flattenConfig(m, prefix.empty() ? k : prefix + "." + k, out);
  } else if (v.isArray()) {
    std::string s;
    for (const JsonValue &e : v.items)
      s += (s.empty() ? "" : ", ") + (e.isObject() || e.isArray() ? std::string("{...}") : scalarText(e));
    out.push_back({prefix, s});
  } else {
    out.push_back({prefix, scalarText(v)});
  }
}

/// Averages consecutive points down to at most `maxPoints` (NaN gap markers are kept).
std::vector<std::pair<double, double>> downsample(const std::vector<std::pair<double, double>> &in,
                                                  size_t maxPoints) {
  if (in.size() <= maxPoints)
    return in;
  size_t group = (in.size() + maxPoints - 1) / maxPoints;
  std::vector<std::pair<double, double>> out;
  double sum = 0;
  size_t n = 0;
  double t = 0;
  for (const auto &p : in) {
    if (std::isnan(p.second)) {
      if (n)
        out.push_back({t, sum / double(n)});
      sum = 0;
      n = 0;
      out.push_back(p);
      continue;
    }
    sum += p.second;
    t = p.first;
    if (++n == group) {
      out.push_back({t, sum / double(n)});
      sum = 0;
      n = 0;
    }
  }
  if (n)
    out.push_back({t, sum / double(n)});
  return out;
}

} // namespace

double RunModel::totalCycles() const {
  double s = 0;
  for (const KernelRow &k : kernels)
    s += k.cycles;
  return s;
}

double RunModel::totalWarpInsts() const {
  double s = 0;
  for (const KernelRow &k : kernels)
    s += k.warpInsts;
  return s;
}

namespace {

/// The file's run-wide fields: mode, program, times, copies and configuration.
void readRunHeader(const JsonValue &json, RunModel &out) {
  out.mode = json.str("mode", "functional");
  out.program = json.str("program");
  out.wallSeconds = json.num("wall_seconds");
  out.simSeconds = json.num("sim_seconds");
  if (const JsonValue *c = json.get("copies")) {
    out.copies = c->num("count");
    out.copyBytes = c->num("bytes");
    out.copySeconds = c->num("sim_seconds");
  }
  if (const JsonValue *cfg = json.get("config"); cfg && cfg->isObject()) {
    out.configName = cfg->str("name");
    for (const JsonValue &s : cfg->array("sources"))
      if (s.isString())
        out.configSources.push_back(s.string);
    flattenConfig(*cfg, "", out.config);
  }
}

/// buildRunModel's steps: kernels by name in first-seen order, then each launch (timing mode)
/// or each kernel's totals (functional mode).
class RunModelBuilder {
public:
  RunModelBuilder(const JsonValue &kernelsJson, RunModel &out) : out_(out) {
    for (const JsonValue &k : kernelsJson.items)
      demangled_[k.str("name")] = k.str("demangled", k.str("name"));
  }

  /// Functional mode: per-kernel totals only (host seconds, no cycles).
  void functionalTotals(const JsonValue &kernelsJson) {
    for (const JsonValue &k : kernelsJson.items) {
      KernelRow &r = kernelFor(k.str("name"));
      r.launches = uint64_t(k.num("launches"));
      r.ctas = uint64_t(k.num("ctas"));
      r.threadInsts = k.num("thread_insts");
      r.warpInsts = k.num("warp_insts");
      r.simSeconds = k.num("seconds");
      r.gridBlock = k.str("last_grid_block");
    }
  }

  /// Stall reasons and power components, in first-seen order.
  void collectNames(const std::vector<JsonValue> &launches, const std::vector<JsonValue> &power) {
    for (const JsonValue &l : launches)
      for (const auto &[key, v] : l.members)
        if (key.compare(0, 9, "sm.stall.") == 0 &&
            std::find(out_.stallReasons.begin(), out_.stallReasons.end(), key.substr(9)) ==
                out_.stallReasons.end())
          out_.stallReasons.push_back(key.substr(9));
    for (const JsonValue &p : power)
      for (const JsonValue &c : p.array("components")) {
        std::string n = c.str("name");
        if (std::find(out_.powerComponents.begin(), out_.powerComponents.end(), n) ==
            out_.powerComponents.end())
          out_.powerComponents.push_back(n);
      }
  }

  void launches(const std::vector<JsonValue> &launches, const std::vector<JsonValue> &power) {
    bool haveStarts = !launches.empty() && launches[0].get("start_seconds");
    double clock = 0; // kernel time so far, when the file has no start times
    size_t nextPower = 0;
    for (const JsonValue &l : launches) {
      std::string name = l.str("kernel");
      uint32_t ki = index_.count(name) ? index_[name] : uint32_t(out_.kernels.size());
      KernelRow &r = kernelFor(name);
      LaunchRow lr = launchRow(l, ki, haveStarts ? l.num("start_seconds") : clock);
      double secs = l.num("gpu.sim_seconds");
      clock += secs;
      addToKernel(l, lr, secs, r);
      if (const JsonValue *est = l.get("sample.estimated")) {
        out_.sampled = true;
        if (est->number > 0) {
          out_.estimatedLaunches += 1;
          out_.estimatedCycles += lr.cycles;
        }
        out_.errorBoundCycles += lr.cycles * l.num("sample.error_pct") / 100.0;
      }
      // the power entry of this launch: power[] has one per launch the power model saw, in
      // launch order (a cursor, so a launch without one does not shift the rest)
      if (nextPower < power.size() && power[nextPower].str("kernel") == name)
        addPower(power[nextPower++], lr, r);
      r.launchIndex.push_back(uint32_t(out_.launches.size()));
      out_.launches.push_back(std::move(lr));
    }
  }

  void finish() {
    for (KernelRow &r : out_.kernels) {
      r.occupancy = r.cycles > 0 ? r.occupancy / r.cycles : 0;
      r.stalls.resize(out_.stallReasons.size());
      if (out_.power)
        r.componentJ.resize(out_.powerComponents.size());
      out_.kernelSimSeconds += r.simSeconds;
    }
    // launches in the kernels[] list that timing did not record (none today) keep their count
    out_.trace = downsample(trace_, RunModel::kMaxTracePoints);
  }

private:
  RunModel &out_;
  std::unordered_map<std::string, std::string> demangled_;
  std::unordered_map<std::string, uint32_t> index_;
  std::vector<std::pair<double, double>> trace_;
  double lastEnd_ = -1;

  KernelRow &kernelFor(const std::string &name) {
    auto [it, fresh] = index_.emplace(name, uint32_t(out_.kernels.size()));
    if (fresh) {
      KernelRow r;
      r.name = name;
      auto d = demangled_.find(name);
      r.demangled = d != demangled_.end() && !d->second.empty() ? d->second : name;
      r.shortName = shortKernelName(r.demangled);
      out_.kernels.push_back(std::move(r));
    }
    return out_.kernels[it->second];
  }

  static LaunchRow launchRow(const JsonValue &l, uint32_t kernel, double start) {
    LaunchRow lr;
    lr.kernel = kernel;
    lr.gridBlock = gridBlockText(l);
    lr.start = start;
    lr.cycles = l.num("gpu.cycles");
    lr.warpInsts = l.num("gpu.warp_insts");
    lr.ipc = lr.cycles > 0 ? lr.warpInsts / lr.cycles : 0;
    lr.occupancy = l.num("sm.occupancy");
    lr.stallCycles = l.num("sm.stall_cycles");
    double l1a = l.num("l1d.accesses"), l2a = l.num("l2.accesses");
    lr.l1HitRate = l1a > 0 ? l.num("l1d.hits") / l1a : -1;
    lr.l2HitRate = l2a > 0 ? l.num("l2.hits") / l2a : -1;
    lr.dramBytes = l.num("dram.read_bytes") + l.num("dram.write_bytes");
    return lr;
  }

  void addToKernel(const JsonValue &l, const LaunchRow &lr, double secs, KernelRow &r) {
    ++r.launches;
    r.ctas += uint64_t(l.num("gpu.ctas"));
    if (!r.gridBlock.empty() && r.gridBlock != lr.gridBlock)
      r.gridVaries = true;
    r.gridBlock = lr.gridBlock;
    r.cycles += lr.cycles;
    r.warpInsts += lr.warpInsts;
    r.threadInsts += l.num("gpu.thread_insts");
    r.occupancy += lr.occupancy * lr.cycles; // divided by cycles in finish()
    r.stallCycles += lr.stallCycles;
    r.stalls.resize(out_.stallReasons.size());
    for (size_t s = 0; s < out_.stallReasons.size(); ++s)
      r.stalls[s] += l.num("sm.stall." + out_.stallReasons[s]);
    r.l1Accesses += l.num("l1d.accesses");
    r.l1Hits += l.num("l1d.hits");
    r.l1Misses += l.num("l1d.misses");
    r.l2Accesses += l.num("l2.accesses");
    r.l2Hits += l.num("l2.hits");
    r.dramReadBytes += l.num("dram.read_bytes");
    r.dramWriteBytes += l.num("dram.write_bytes");
    r.simSeconds += secs;
  }

  void addPower(const JsonValue &p, LaunchRow &lr, KernelRow &r) {
    lr.energyJ = p.num("energy_j");
    lr.avgWatts = p.num("avg_w");
    r.energyJ += lr.energyJ;
    r.powerSeconds += p.num("seconds");
    out_.energyJ += lr.energyJ;
    out_.peakWatts = std::max(out_.peakWatts, p.num("peak_w"));
    r.componentJ.resize(out_.powerComponents.size());
    for (const JsonValue &c : p.array("components")) {
      size_t ci =
          std::find(out_.powerComponents.begin(), out_.powerComponents.end(), c.str("name")) -
          out_.powerComponents.begin();
      r.componentJ[ci] += c.num("dynamic_j") + c.num("static_j");
    }
    const std::vector<JsonValue> &tr = p.array("trace");
    if (tr.empty())
      return;
    if (lastEnd_ >= 0 && lr.start > lastEnd_ * (1 + 1e-9))
      trace_.push_back({lastEnd_, std::nan("")}); // the GPU ran no kernel in between
    const JsonValue &first = tr[0];
    if (first.isArray() && first.items.size() == 2)
      trace_.push_back({lr.start, first.items[1].number});
    for (const JsonValue &pt : tr)
      if (pt.isArray() && pt.items.size() == 2)
        trace_.push_back({lr.start + pt.items[0].number, pt.items[1].number});
    lastEnd_ = trace_.back().first;
  }
};

} // namespace

bool buildRunModel(const JsonValue &json, RunModel &out, std::string &error) {
  const JsonValue *kernelsJson = json.get("kernels");
  if (!kernelsJson || !kernelsJson->isArray()) {
    error = "not a ptxsim statistics file (it has no \"kernels\" array; write one with "
            "ptxsim run --stats-json FILE)";
    return false;
  }
  readRunHeader(json, out);
  RunModelBuilder b(*kernelsJson, out);
  const std::vector<JsonValue> &launches = json.array("launches");
  if (!json.get("mode") && !launches.empty())
    out.mode = "timing"; // files trimmed to their launches (tests/golden/stats) say no mode
  out.timing = out.mode == "timing" && json.get("launches");
  if (!out.timing) {
    b.functionalTotals(*kernelsJson);
    return true;
  }
  const std::vector<JsonValue> &power = json.array("power");
  out.power = !power.empty();
  b.collectNames(launches, power);
  b.launches(launches, power);
  b.finish();
  return true;
}

bool loadRun(const std::string &path, RunModel &out, std::string &error) {
  std::string text;
  if (!readFile(path, text)) {
    error = path + ": cannot read the file";
    return false;
  }
  JsonValue json;
  std::string e;
  if (!parseJson(text, json, e)) {
    error = path + ":" + e;
    return false;
  }
  if (!buildRunModel(json, out, e)) {
    error = path + ": " + e;
    return false;
  }
  out.path = path;
  if (out.label.empty())
    out.label = baseName(path);
  return true;
}

ChartLibrary findChartLibrary() {
  std::vector<std::string> dirs;
  if (const char *d = std::getenv("PTXSIM_UPLOT_DIR"); d && *d)
    dirs.push_back(d);
  std::string lib = libraryDir();
  if (!lib.empty())
    dirs.push_back(lib + "/../share/ptxsim/uplot");
  std::string cache;
  if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x)
    cache = x;
  else if (const char *h = std::getenv("HOME"); h && *h)
    cache = std::string(h) + "/.cache";
  if (!cache.empty())
    dirs.push_back(cache + "/ptxsim/uplot-" + kUplotVersion);
  ChartLibrary lib2;
  for (const std::string &d : dirs) {
    if (readFile(d + "/uPlot.iife.min.js", lib2.js) && !lib2.js.empty()) {
      readFile(d + "/uPlot.min.css", lib2.css);
      readFile(d + "/LICENSE", lib2.license);
      lib2.where = d;
      return lib2;
    }
  }
  lib2.js.clear();
  std::string looked;
  for (const std::string &d : dirs)
    looked += (looked.empty() ? "" : ", ") + d;
  lib2.where = "uPlot " + std::string(kUplotVersion) + " was not found (looked in " + looked +
               "); run scripts/setup.sh, or set PTXSIM_UPLOT_DIR to a directory holding "
               "uPlot.iife.min.js";
  return lib2;
}

} // namespace ptxsim::report

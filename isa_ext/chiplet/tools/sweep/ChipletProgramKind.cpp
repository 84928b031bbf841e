#include "isa_ext/chiplet/tools/sweep/ChipletProgramKind.h"

#include "base/SelfPath.h"
#include "runtime/sweep/ProgramKind.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace ptxsim::chiplet {

namespace {

/// One simulator process per chiplet, started by `ptxsim chiplets` (docs/chiplets.md); the spec
/// keys `grid` ("WxH"; an axis value's vars may set it) and `transport` (files or mpi).
class ChipletProgramKind : public sweep::ProgramKind {
public:
  const char *name() const override { return "chiplets"; }
  std::vector<std::string> keys() const override { return {"grid", "transport"}; }
  std::string noun() const override { return "chiplet"; }
  bool ownJob() const override { return true; }

  bool readSpec(sweep::ProgramKeys &keys,
                std::map<std::string, std::string> &settings) const override {
    if (!keys.has("grid"))
      return keys.fail("", "a chiplets program needs a grid (\"WxH\")");
    std::string grid, transport = "files";
    if (!keys.string("grid", grid, true))
      return false;
    unsigned gw, gh;
    if (grid.find('$') == std::string::npos && !parseSweepGrid(grid, gw, gh))
      return keys.fail("grid", "'" + grid + "' is not WxH (1..64 each)");
    if (keys.has("transport")) {
      if (!keys.string("transport", transport, false))
        return false;
      if (transport != "files" && transport != "mpi")
        return keys.fail("transport", "'" + transport + "' is not files or mpi");
    }
    settings["grid"] = grid;
    settings["transport"] = transport;
    return true;
  }

  bool plan(const sweep::KindPoint &p, sweep::PointHashes &hashes,
            sweep::KindPlan &out) const override {
    const std::string &grid = p.settings.at("grid"), &transport = p.settings.at("transport");
    const std::string &id = p.point->id;
    unsigned gw = 0, gh = 0;
    if (!parseSweepGrid(grid, gw, gh)) {
      out.error = "point " + id + ": chiplet grid '" + grid + "' is not WxH (1..64 each)";
      return false;
    }
    if (p.mode == sweep::ModeKind::SampleKernels || p.mode == sweep::ModeKind::SampleCtas) {
      out.error = "point " + id + ": a chiplets program runs in functional, timing or power " +
                  "mode, not " + sweep::modeName(p.mode);
      return false;
    }
    out.processes = gw * gh;
    std::ostringstream key;
    key << "chiplets " << grid << " " << transport << "\n";
    // the launcher, the synchronization and the network model are in the ptxsim executable,
    // the chiplets' runtime in libptxsim_chiplet.so (and its MPI transport's plugin)
    std::string sh = hashes.hashOf(selfExecutable(), "the ptxsim executable (chiplet launcher)");
    if (sh.empty())
      return false;
    key << "launcher " << sh << "\n";
    std::vector<std::string> libs = {libraryDir() + "/libptxsim_chiplet.so"};
    if (transport == "mpi")
      libs.push_back(libraryDir() + "/libptxsim_chiplet_mpi.so");
    for (const std::string &l : libs) {
      std::string lh =
          hashes.hashOf(l, "point " + id + ": chiplet runtime (build the chiplet targets)");
      if (lh.empty())
        return false;
      key << "chiplet_lib " << lh << "\n";
    }
    out.key = key.str();
    out.args = {"chiplets",     "--grid",       grid,
                "--transport",  transport,      "--dir",
                p.dir + "/run", "--stats-json", p.dir + "/stats.json.part"};
    out.timingMode = {"--mode", "timing"};
    return true;
  }

  /// As many Slurm tasks as chiplets (the launcher's mpirun takes the allocation through Open
  /// MPI's Slurm support; the files transport needs one node).
  sweep::KindJob job(const sweep::Program &prog, const sweep::Point &p,
                     unsigned processes) const override {
    const std::string &transport = prog.settings.at("transport");
    std::string np = std::to_string(processes);
    return {"chiplets-" + p.id + ".sbatch",
            "chiplet point " + p.id + " (" + np + " chiplets, transport " + transport + ")",
            "#SBATCH --ntasks=" + np + "\n#SBATCH --cpus-per-task=1\n" +
                (transport == "files" ? "#SBATCH --nodes=1\n" : "")};
  }

  bool statistics(const report::JsonValue &json, const std::vector<std::string> &names,
                  std::vector<double> &out, std::string &) const override {
    if (!json.isObject() || !json.get("totals"))
      return false;
    out = chipletStatistics(json, names);
    return true;
  }
};

const ChipletProgramKind gKind;
const sweep::ProgramKindRegistration gRegistration(gKind);

/// A number at a dotted path of the launcher's JSON ("network.energy_pj.total"); NaN if none.
double numberAt(const report::JsonValue &root, const std::string &path) {
  const report::JsonValue *v = &root;
  size_t i = 0;
  while (v && v->isObject() && i <= path.size()) {
    size_t dot = path.find('.', i);
    if (dot == std::string::npos)
      dot = path.size();
    v = v->get(path.substr(i, dot - i));
    i = dot + 1;
  }
  return v && i > path.size() && v->isNumber() ? v->number : std::nan("");
}

/// `FIELD` summed over the chiplets that have it; NaN when none has.
double chipletsSum(const std::vector<report::JsonValue> &chips, const std::string &field) {
  double v = std::nan("");
  for (const report::JsonValue &c : chips) {
    const report::JsonValue *f = c.get(field);
    if (f && f->isNumber())
      v = (std::isfinite(v) ? v : 0) + f->number;
  }
  return v;
}

/// One statistic of the launcher's JSON (chipletStatistics lists the names).
double chipletStatistic(const report::JsonValue &json, const std::string &name) {
  const report::JsonValue *totals = json.get("totals");
  const std::vector<report::JsonValue> &chips = json.array("chiplets");
  double v = std::nan("");
  unsigned x = 0, y = 0;
  int used = 0;
  if (name.find('@') != std::string::npos)
    return v; // per kernel: not in the launcher's statistics
  if (name == "cycles")
    return numberAt(json, "totals.synchronized_cycles");
  if (name == "avg_watts")
    return numberAt(json, "totals.total_power_w");
  if (name == "energy_j") {
    // the chiplets' kernels (power mode) and the network
    v = numberAt(json, "network.energy_pj.total") * 1e-12;
    for (const report::JsonValue &c : chips)
      v += c.num("energy_j");
    return v;
  }
  if (name.rfind("chiplets.", 0) == 0)
    return chipletsSum(chips, name.substr(9));
  if (std::sscanf(name.c_str(), "chiplet.%u.%u.%n", &x, &y, &used) == 2 && used > 0) {
    std::string field = name.substr(static_cast<size_t>(used));
    for (const report::JsonValue &c : chips)
      if (c.num("x", -1) == x && c.num("y", -1) == y) {
        const report::JsonValue *f = c.get(field);
        if (f && f->isNumber())
          v = f->number;
      }
    return v;
  }
  if (totals && totals->get(name))
    return numberAt(*totals, name);
  return numberAt(json, name);
}

} // namespace

bool parseSweepGrid(const std::string &s, unsigned &w, unsigned &h) {
  size_t x = s.find('x');
  auto num = [](const std::string &t, unsigned &v) {
    if (t.empty() || t.size() > 2 || t.find_first_not_of("0123456789") != std::string::npos)
      return false;
    v = static_cast<unsigned>(std::stoul(t));
    return v >= 1 && v <= 64;
  };
  return x != std::string::npos && num(s.substr(0, x), w) && num(s.substr(x + 1), h);
}

std::vector<double> chipletStatistics(const report::JsonValue &json,
                                      const std::vector<std::string> &names) {
  std::vector<double> out;
  for (const std::string &name : names)
    out.push_back(chipletStatistic(json, name));
  return out;
}

} // namespace ptxsim::chiplet

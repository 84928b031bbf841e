#include "runtime/sweep/ProgramKind.h"

#include "runtime/report/Report.h"
#include "runtime/sweep/Sweep.h"

namespace ptxsim::sweep {

namespace {

/// The built-in kind: one `ptxsim run` of the program, its statistics the stats catalog's JSON.
class RunKind : public ProgramKind {
public:
  const char *name() const override { return "run"; }

  bool plan(const KindPoint &p, PointHashes &, KindPlan &out) const override {
    out.args = {"run",       "--no-summary",           "--stats-json", p.dir + "/stats.json.part",
                "--threads", std::to_string(p.threads)};
    return true;
  }

  bool statistics(const report::JsonValue &json, const std::vector<std::string> &names,
                  std::vector<double> &out, std::string &error) const override {
    report::RunModel model;
    if (!report::buildRunModel(json, model, error))
      return false;
    out = pointStatistics(json, model, names);
    return true;
  }
};

} // namespace

NamedRegistry<const ProgramKind *> &programKinds() {
  // built on first use, so kinds that register from other files' static objects find it
  static NamedRegistry<const ProgramKind *> *registry = [] {
    static const RunKind run;
    auto *r = new NamedRegistry<const ProgramKind *>;
    r->add(run.name(), &run);
    return r;
  }();
  return *registry;
}

std::string programKindList() {
  std::vector<std::string> names = programKinds().names();
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

} // namespace ptxsim::sweep

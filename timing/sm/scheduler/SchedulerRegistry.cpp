#include "timing/sm/scheduler/IWarpScheduler.h"

#include "base/Stats.h"
#include "timing/TimingConfig.h"

namespace ptxsim::timing {

void SchedulerRegistry::add(std::string name, SchedulerFactory f, SchedulerSyntax syntax) {
  // its counters are statistics (`sched.<counter>`): declared now, from an instance with the
  // policy's defaults
  std::vector<stats::Counter> counters;
  if (std::unique_ptr<IWarpScheduler> s = f(SchedulerParams{})) {
    std::vector<std::pair<std::string, uint64_t>> v;
    s->stats(v);
    for (auto &kv : v)
      counters.emplace_back("sched." + kv.first, stats::Unit::Count,
                            name + " scheduler: " + kv.first);
  }
  bool known = false;
  for (auto &e : counters_)
    if (e.first == name) {
      e.second = counters;
      known = true;
    }
  if (!known)
    counters_.emplace_back(name, std::move(counters));
  bool replaced = false;
  for (auto &e : syntax_)
    if (e.first == name) {
      e.second = syntax;
      replaced = true;
    }
  if (!replaced)
    syntax_.emplace_back(name, syntax);
  NamedRegistry<SchedulerFactory>::add(std::move(name), f);
}

const std::vector<stats::Counter> *SchedulerRegistry::counters(const std::string &name) const {
  for (auto &e : counters_)
    if (e.first == name)
      return &e.second;
  return nullptr;
}

const SchedulerSyntax *SchedulerRegistry::syntaxOf(const std::string &name) const {
  for (auto &e : syntax_)
    if (e.first == name)
      return &e.second;
  return nullptr;
}

bool SchedulerRegistry::parseOption(const std::string &value, std::string &name,
                                    SchedulerParams &p, std::string &err) const {
  // a policy's own spelling first (it may start with its name: two_level:4)
  for (auto &[n, syntax] : syntax_) {
    if (!syntax.parse)
      continue;
    SchedulerParams q = p;
    int r = syntax.parse(value, q, err);
    if (r < 0)
      return false;
    if (r > 0) {
      name = n;
      p = q;
      return true;
    }
  }
  if (find(value)) {
    name = value; // any registered policy (built-in or added by an extension or a study)
    return true;
  }
  err = "expected ";
  for (auto &e : syntax_)
    if (e.second.spelling)
      err += std::string(e.second.spelling) + " or ";
  err += "a registered policy:";
  for (const std::string &n : names())
    err += " " + n;
  return false;
}

std::string SchedulerRegistry::formatOption(const std::string &name,
                                            const SchedulerParams &p) const {
  const SchedulerSyntax *s = syntaxOf(name);
  return s && s->format ? s->format(p) : name;
}

std::string SchedulerRegistry::check(const std::string &name, const SchedulerParams &p) const {
  if (!find(name))
    return "unknown scheduler '" + name + "'";
  const SchedulerSyntax *s = syntaxOf(name);
  return s && s->check ? s->check(p) : std::string();
}

SchedulerParams schedulerParams(const CoreConfig &c) {
  SchedulerParams p;
  p.twoLevelActiveWarps = c.twoLevelActiveWarps;
  p.ccwsBaseScore = c.ccwsBaseScore;
  p.ccwsKThrottle = c.ccwsKThrottle;
  p.ccwsVtaEntries = c.ccwsVtaEntries;
  return p;
}

void setSchedulerParams(CoreConfig &c, const SchedulerParams &p) {
  c.twoLevelActiveWarps = p.twoLevelActiveWarps;
  c.ccwsBaseScore = p.ccwsBaseScore;
  c.ccwsKThrottle = p.ccwsKThrottle;
  c.ccwsVtaEntries = p.ccwsVtaEntries;
}

void registerBuiltinWarpSchedulers(SchedulerRegistry &r) {
  r.add("lrr", createLrrScheduler);
  r.add("gto", createGtoScheduler);
  r.add("two_level", createTwoLevelScheduler, twoLevelSchedulerSyntax());
  r.add("ccws", createCcwsScheduler);
}

SchedulerRegistry &schedulerRegistry() {
  // built on first use and never destroyed (no static destructor runs at exit)
  static SchedulerRegistry *registry = [] {
    auto *r = new SchedulerRegistry();
    registerBuiltinWarpSchedulers(*r);
    return r;
  }();
  return *registry;
}

const SchedulerRegistry &builtinSchedulers() { return schedulerRegistry(); }

} // namespace ptxsim::timing

#include "power/PowerModel.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace ptxsim::power {

double PowerModel::eventJ(const std::string &key) const {
  for (auto &e : events_)
    if (e.key == key)
      return e.joules;
  return 0;
}

double PowerModel::leakageW(const std::string &component) const {
  for (auto &c : components_)
    if (c->name() == component)
      return c->leakageW();
  if (component == "uncore")
    return uncoreLeakW_ + constantW_;
  return 0;
}

void PowerModel::addComponent(std::shared_ptr<IPowerComponent> c) {
  if (!c)
    return;
  c->bind(stats_);
  if (const std::vector<EventEnergy> *evs = c->events())
    events_.insert(events_.end(), evs->begin(), evs->end());
  components_.push_back(std::move(c));
}

std::vector<std::string> PowerModel::componentNames() const {
  std::vector<std::string> n;
  for (auto &c : components_)
    n.push_back(c->name());
  n.push_back("uncore");
  return n;
}

std::vector<double> PowerModel::dynamicJ(const StatValues &s) const {
  std::vector<double> v;
  v.reserve(components_.size() + 1);
  for (auto &c : components_)
    v.push_back(std::max(0.0, c->dynamicJ(s)));
  v.push_back(0); // uncore: static only
  return v;
}

std::vector<double> PowerModel::leakagesW() const {
  std::vector<double> v;
  for (auto &c : components_)
    v.push_back(std::max(0.0, c->leakageW()));
  v.push_back(uncoreLeakW_ + constantW_);
  return v;
}

double PowerModel::idleW() const {
  if (idleVdd_ <= 0 || tech_.vdd <= 0)
    return staticW();
  double scale = idleVdd_ / tech_.vdd, dramW = leakageW("dram");
  return dramW + (staticW() - dramW) * scale * scale * scale;
}

double PowerModel::staticW() const {
  double w = 0;
  for (double x : leakagesW())
    w += x;
  return w;
}

namespace {
double total(const std::vector<double> &v) {
  double t = 0;
  for (double x : v)
    t += x;
  return t;
}
} // namespace

KernelPower PowerModel::kernel(const std::string &kernelName, const stats::Snapshot &s,
                               const std::vector<stats::Snapshot> &samples) const {
  KernelPower p;
  p.kernel = kernelName;
  StatReader reader(stats_);
  StatValues fin = reader.read(s);
  p.seconds = fin[seconds_];
  std::vector<std::string> names = componentNames();
  std::vector<double> dyn = dynamicJ(fin), leak = leakagesW();
  for (size_t i = 0; i < names.size(); ++i) {
    ComponentEnergy c;
    c.name = names[i];
    c.dynamicJ = dyn[i];
    c.staticJ = leak[i] * p.seconds;
    p.energyJ += c.dynamicJ + c.staticJ;
    p.components.push_back(std::move(c));
  }
  double staticPower = total(leak);
  p.avgW = p.seconds > 0 ? p.energyJ / p.seconds : staticPower;

  // trace: intervals between consecutive cumulative snapshots, ending with the final statistics
  double prevT = 0, prevE = 0;
  auto point = [&](double t, double e) {
    if (t <= prevT)
      return;
    p.trace.push_back({t, std::max(0.0, e - prevE) / (t - prevT) + staticPower});
    prevT = t;
    prevE = e;
  };
  for (auto &snap : samples) {
    StatValues v = reader.read(snap);
    double t = v[seconds_];
    if (t < p.seconds)
      point(t, total(dynamicJ(v)));
  }
  point(p.seconds, total(dyn));
  if (p.trace.empty())
    p.trace.push_back({p.seconds, p.avgW});
  p.peakW = p.avgW;
  for (auto &pt : p.trace)
    p.peakW = std::max(p.peakW, pt.second);
  p.notes = notes_;
  return p;
}

std::string PowerModel::describe() const {
  std::ostringstream os;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "power model %s: %g nm, Vdd %.3g V, leakage %.3g W/mm^2, die %.4g mm^2, "
                "constant %.4g W, DRAM %s\n",
                name_.c_str(), tech_.nodeNm, tech_.vdd, tech_.leakageWPerMm2, dieAreaMm2_,
                constantW_, dram_.type.c_str());
  os << buf;
  os << "  per-event energies:\n";
  for (auto &e : events_) {
    std::snprintf(buf, sizeof buf, "    %-28s %12.4f pJ  %s\n", e.key.c_str(), e.joules * 1e12,
                  e.help.c_str());
    os << buf;
  }
  for (auto &l : reductionLines_)
    os << "  heterogeneous cores: " << l << "\n";
  for (auto &n : notes_)
    os << "  note: " << n << "\n";
  os << "  leakage / static power:\n";
  std::vector<std::string> names = componentNames();
  std::vector<double> leak = leakagesW();
  for (size_t i = 0; i < names.size(); ++i) {
    double area = i < components_.size() ? components_[i]->areaMm2() : 0;
    std::snprintf(buf, sizeof buf, "    %-28s %10.4f W   (%.3f mm^2 modelled)\n", names[i].c_str(),
                  leak[i], area);
    os << buf;
  }
  if (hasIdle()) {
    std::snprintf(buf, sizeof buf, "  idle (no kernel running): %.4g W at %.3g V, %.4g MHz\n",
                  idleW(), idleVdd_, idleClockMHz_);
    os << buf;
  }
  return os.str();
}

} // namespace ptxsim::power

#include "power/components/EventComponent.h"

#include <algorithm>

namespace ptxsim::power {

EventComponent::Count EventComponent::Count::sum(std::vector<std::string> stats) {
  Count c;
  c.stats = std::move(stats);
  return c;
}

EventComponent::Count EventComponent::Count::laneOps(const std::string &issued, double warpSize) {
  Count c;
  c.stats = {issued, "gpu.warp_insts", "sm.active_lane_insts"};
  c.warpSize = warpSize;
  return c;
}

EventComponent::EventComponent(std::string name, const Technology &tech, bool perSm)
    : name_(std::move(name)), tech_(tech), perSm_(perSm) {}

void EventComponent::event(const std::string &key, double joules, const std::string &help,
                           Count count) {
  events_.push_back({key, joules, help});
  terms_.push_back({std::move(count), {}});
}

void EventComponent::bind(StatBinder &b) {
  for (Term &t : terms_) {
    t.refs.clear();
    for (const std::string &n : t.count.stats)
      t.refs.push_back(b.stat(n));
  }
}

double EventComponent::countOf(const Term &t, const StatValues &v) const {
  if (t.count.warpSize == 0) {
    double sum = 0;
    for (StatRef r : t.refs)
      sum += v[r];
    return sum;
  }
  const double warp = t.count.warpSize;
  double wi = v[t.refs[1]];
  double lanes = v[t.refs[2]];
  double frac = (wi > 0 && lanes > 0) ? std::min(1.0, lanes / (wi * warp)) : 1.0;
  return v[t.refs[0]] * frac * warp;
}

double EventComponent::dynamicJ(const StatValues &v) const {
  double j = 0;
  for (size_t i = 0; i < terms_.size(); ++i)
    j += std::max(0.0, countOf(terms_[i], v)) * events_[i].joules;
  return j;
}

bool EventComponent::setAreaMm2(double mm2) {
  areaMm2_ = mm2;
  leakW_ = tech_.leakageW(mm2);
  return true;
}

bool EventComponent::setLeakageW(double w) {
  leakW_ = w;
  return true;
}

} // namespace ptxsim::power

#include "sim/KernelSimulator.h"

#include <vector>

namespace ptxsim::sim {

KernelSimulator::KernelSimulator(const timing::TimingConfig &cfg, ptx::exec::Engine &engine)
    : gpu_(cfg, engine) {}

KernelSimulator::~KernelSimulator() = default;

bool KernelSimulator::enablePower(const std::string &xmlPath, DiagEngine &diags) {
  timing::registerTimingStatistics();
  power::PowerModel m;
  if (!power::PowerModel::load(xmlPath, gpu_.config(), m, diags))
    return false;
  power_ = std::move(m);
  return true;
}

void KernelSimulator::enablePower(power::PowerModel model) { power_ = std::move(model); }

KernelRun KernelSimulator::run(const ptx::exec::LaunchParams &p) {
  KernelRun r;
  std::vector<stats::Snapshot> samples;
  if (power_)
    gpu_.setSampler(power_->traceInterval(),
                    [&samples](const timing::KernelTimingStats &s) { samples.push_back(s); });
  r.launch = gpu_.runKernel(p, r.stats);
  if (power_) {
    gpu_.setSampler(0, {});
    r.power = power_->kernel(r.stats.kernel, r.stats, samples);
  }
  return r;
}

} // namespace ptxsim::sim

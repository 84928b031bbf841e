#pragma once
// The one place that runs a kernel through the cycle-level model with the power model attached.
//
// Contract: the runtime (libcudart), the benches and the tests all simulate kernels through this
// class, so timing and power are joined the same way everywhere: run() executes one launch in
// timing mode (ptx/exec's functional core at issue, timing::Gpu for the cycles), and, when power
// is enabled, samples the cumulative statistics every PowerModel::traceInterval() cycles and
// turns the final statistics and the samples into the kernel's energy, power and trace. Power
// depends only on the statistics (base/Stats.h) and the configuration; this class is the only
// code that sees both the Gpu and the PowerModel.

#include "base/Diagnostics.h"
#include "power/PowerModel.h"
#include "ptx/exec/Engine.h"
#include "timing/TimingConfig.h"
#include "timing/gpu/Gpu.h"

#include <memory>
#include <optional>
#include <string>

namespace ptxsim::sim {

struct KernelRun {
  ptx::exec::LaunchResult launch;
  timing::KernelTimingStats stats;
  std::optional<power::KernelPower> power; ///< when power is enabled
};

class KernelSimulator {
public:
  KernelSimulator(const timing::TimingConfig &cfg, ptx::exec::Engine &engine);
  ~KernelSimulator();

  /// Attaches the power model from `xmlPath` (timing statistics are registered first so the
  /// model can check every counter it reads). False with diagnostics on errors.
  bool enablePower(const std::string &xmlPath, DiagEngine &diags);
  /// Attaches an already loaded power model.
  void enablePower(power::PowerModel model);
  bool powerEnabled() const { return power_.has_value(); }
  const power::PowerModel &powerModel() const { return *power_; }

  KernelRun run(const ptx::exec::LaunchParams &p);

  timing::Gpu &gpu() { return gpu_; }
  const timing::TimingConfig &config() const { return gpu_.config(); }

private:
  timing::Gpu gpu_;
  std::optional<power::PowerModel> power_;
};

} // namespace ptxsim::sim

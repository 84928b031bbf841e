#pragma once
// A power component an extension adds (SPU buffers, chiplet network).
//
// Contract: the component reads its own counters from the kernel's named statistics (which are
// cumulative: the same object is called with snapshots taken during the kernel and with the final
// values), and its dynamic energy must be a non-decreasing function of those counters, zero when
// they are zero. Leakage is a constant power in watts, charged for the kernel's simulated time.
// The model lists extension components after the built-ins, in the order they were added.

#include "timing/gpu/Gpu.h"

#include <string>

namespace ptxsim::power {

class IPowerComponent {
public:
  virtual ~IPowerComponent() = default;
  virtual std::string name() const = 0;
  /// Dynamic energy (J) for the counters in `s` (cumulative).
  virtual double dynamicJ(const timing::KernelTimingStats &s) const = 0;
  /// Leakage power (W).
  virtual double leakageW() const = 0;
};

} // namespace ptxsim::power

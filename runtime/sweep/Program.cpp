#include "runtime/sweep/Program.h"

namespace ptxsim::sweep {

const char *modeName(ModeKind m) {
  switch (m) {
  case ModeKind::Functional:
    return "functional";
  case ModeKind::Timing:
    return "timing";
  case ModeKind::Power:
    return "power";
  case ModeKind::SampleKernels:
    return "sample-kernels";
  case ModeKind::SampleCtas:
    return "sample-ctas";
  }
  return "timing";
}

} // namespace ptxsim::sweep

// Stub: filled in by the Atomic family.
#include "ptx/exec/OpsCommon.h"
namespace ptxsim::ptx::exec {
void registerAtomicOps() {}
} // namespace ptxsim::ptx::exec

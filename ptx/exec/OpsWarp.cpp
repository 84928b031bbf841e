// Stub: filled in by the Warp family.
#include "ptx/exec/OpsCommon.h"
namespace ptxsim::ptx::exec {
void registerWarpOps() {}
void registerMiscOps() {}
} // namespace ptxsim::ptx::exec

// Stub: filled in by the Convert family.
#include "ptx/exec/OpsCommon.h"
namespace ptxsim::ptx::exec {
void registerConvertOps() {}
} // namespace ptxsim::ptx::exec

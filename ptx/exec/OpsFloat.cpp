// Stub: filled in by the Float family.
#include "ptx/exec/OpsCommon.h"
namespace ptxsim::ptx::exec {
bool lowerFloatArith(LowerCtx &c, FArith) { return c.unsupported("float"); }
bool lowerFloatCompare(LowerCtx &c, bool) { return c.unsupported("float"); }
void registerFloatOps() {}
void registerHalfOps() {}
} // namespace ptxsim::ptx::exec

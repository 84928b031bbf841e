#pragma once
// Calls of NVIDIA's runtime API that ptxsim does not implement (generated stubs in
// Unsupported.cpp): each prints one line naming the call, the first time, and returns
// cudaErrorNotSupported, which also becomes the thread's last error.

namespace ptxsim::runtime {

int unsupportedCall(const char *name);

} // namespace ptxsim::runtime

#pragma once
// Hardware register estimate of a lowered function.
//
// Contract: estimateRegisters() returns how many 32-bit registers per thread a register
// allocator would need for `f`: the most 32-bit register slots live at once (a 64-bit virtual
// register counts as two, predicates are not counted), from a backward liveness analysis over
// the IR's control flow, plus a small fixed reserve for the addressing and stack registers that
// SASS keeps. It stands in for ptxas's count when a program carries no SASS for its kernels;
// the runtime uses the SASS count when it has one. Callees are not included: callers add the
// estimates of what they call (see Lower.cpp).

#include "ptx/ir/Ir.h"

namespace ptxsim::ptx::ir {

uint32_t estimateRegisters(const Function &f);

} // namespace ptxsim::ptx::ir

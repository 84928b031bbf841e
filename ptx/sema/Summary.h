#pragma once
// A human- and machine-readable summary of a checked PTX module: kernels, parameters, register
// counts, memory footprints and the instruction mix. Used by `ptxsim ptx check --summary` and
// by the demo until the executor exists.

#include "ptx/ast/Ast.h"

#include <iosfwd>

namespace ptxsim::ptx {

void printSummary(const Module &m, std::ostream &os);
void printSummaryJson(const Module &m, std::ostream &os);

} // namespace ptxsim::ptx

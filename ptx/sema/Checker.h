#pragma once
// The PTX checker: name resolution, declaration rules and instruction validation.
//
// Contract: checkModule() walks a parsed Module and reports every problem it finds to `diags`
// (file:line:col naming the token): unknown opcode/modifier combinations, wrong operand counts
// and kinds, register types that do not fit the instruction type, unknown registers, labels and
// symbols, bad state spaces, duplicate definitions and malformed declarations. It records in each
// Instruction which opcode-table variant matched. It returns true when the module is clean; only
// then may the module be lowered to IR. It never throws and needs time linear in the input.

#include "base/Diagnostics.h"
#include "ptx/ast/Ast.h"

namespace ptxsim::ptx {

bool checkModule(Module &module, DiagEngine &diags);

} // namespace ptxsim::ptx

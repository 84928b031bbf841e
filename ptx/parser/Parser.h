#pragma once
// Entry point of the PTX front end's syntax phase.

#include "base/Diagnostics.h"
#include "ptx/ast/Ast.h"

#include <memory>
#include <string>

namespace ptxsim::ptx {

/// Parses PTX text into a Module. Always returns a module (partial when there were syntax
/// errors); every problem is reported to `diags` as `fileName:line:col: error: ...`. The module
/// keeps `text` alive. Thread-safe: no state is shared between calls.
std::unique_ptr<Module> parsePtx(std::string text, std::string fileName, DiagEngine &diags);

/// Reads a file ("-" is standard input, named "<stdin>") and parses it; a file that cannot be
/// read is reported as an error.
std::unique_ptr<Module> parsePtxFile(const std::string &path, DiagEngine &diags);

} // namespace ptxsim::ptx

#pragma once
// Helpers shared by the front-end unit tests.

#include "base/Diagnostics.h"
#include "ptx/parser/Parser.h"
#include "ptx/sema/Checker.h"
#include "ptx/sema/OpcodeTable.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace ptxsim::test {

/// Directory of the test sources (tests/), set by CMake.
inline std::string testDir() { return PTXSIM_TEST_DIR; }

inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct CheckResult {
  std::unique_ptr<ptx::Module> module;
  std::vector<std::string> errors; ///< "line:col: message", errors only, sorted by location
  bool clean = false;
};

/// Parses and checks PTX text the way `ptxsim ptx check` does.
inline CheckResult checkText(const std::string &text, const std::string &name = "t.ptx") {
  CheckResult r;
  DiagEngine diags;
  r.module = ptx::parsePtx(text, name, diags);
  bool ok = ptx::checkModule(*r.module, diags);
  diags.sortByLocation();
  for (const Diagnostic &d : diags.diagnostics())
    if (d.severity == Severity::Error)
      r.errors.push_back(std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " +
                         d.message);
  r.clean = ok && !diags.hasErrors();
  return r;
}

/// A minimal module header and a kernel wrapping `body`.
inline std::string kernel(const std::string &decls, const std::string &body) {
  return ".version 9.0\n.target sm_80\n.address_size 64\n" + decls +
         "\n.visible .entry k(.param .u64 p, .param .u32 n)\n{\n" + body + "\n}\n";
}

} // namespace ptxsim::test

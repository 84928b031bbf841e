#include "runtime/cli/PtxCommands.h"

#include "base/Diagnostics.h"
#include "ptx/parser/Parser.h"
#include "ptx/sema/Checker.h"
#include "ptx/sema/Summary.h"

#include <ostream>

namespace ptxsim::cli {

int ptxCheck(const std::vector<std::string> &args, std::ostream &out, std::ostream &err) {
  bool summary = false, json = false, showSource = true;
  std::vector<std::string> files;
  for (const std::string &a : args) {
    if (a == "--summary")
      summary = true;
    else if (a == "--json")
      json = summary = true;
    else if (a == "--no-source")
      showSource = false;
    else if (a == "-h" || a == "--help") {
      out << "usage: ptxsim ptx check [--summary] [--json] [--no-source] FILE.ptx...\n"
             "  Parses and checks PTX files (\"-\" reads standard input); prints diagnostics as\n"
             "  file:line:col: error: ..., each followed by the source line and a caret.\n"
             "  --summary    print kernels, parameters, registers, memory sizes, instruction mix\n"
             "  --json       print the summary as JSON (one object per line)\n"
             "  --no-source  print only the diagnostic lines\n"
             "  Exit status: 0 when every file is clean, 1 otherwise.\n";
      return 0;
    } else if (!a.empty() && a[0] == '-' && a != "-") {
      err << "ptxsim ptx check: unknown option '" << a << "'\n";
      return 2;
    } else
      files.push_back(a);
  }
  if (files.empty()) {
    err << "ptxsim ptx check: no input files (usage: ptxsim ptx check [--summary] FILE.ptx...)\n";
    return 2;
  }
  int rc = 0;
  for (const std::string &f : files) {
    DiagEngine diags;
    auto module = ptx::parsePtxFile(f, diags);
    // Check even a module with syntax errors: the parser recovers statement by statement, so
    // the checker still finds the independent mistakes in the rest of the file.
    bool ok = ptx::checkModule(*module, diags) && !diags.hasErrors();
    diags.sortByLocation();
    if (showSource)
      diags.printWithSource(err, module->fileName, module->text());
    else
      diags.print(err);
    if (!ok || diags.hasErrors()) {
      err << module->fileName << ": " << diags.errorCount() << " error(s)\n";
      rc = 1;
      continue;
    }
    if (json)
      ptx::printSummaryJson(*module, out);
    else if (summary)
      ptx::printSummary(*module, out);
  }
  return rc;
}

} // namespace ptxsim::cli

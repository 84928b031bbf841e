// libFuzzer target: any byte string goes through the parser and the checker. The front end must
// never crash, hang, leak or read out of bounds, whatever it is given.

#include "base/Diagnostics.h"
#include "ptx/parser/Parser.h"
#include "ptx/sema/Checker.h"
#include "ptx/sema/Summary.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ptxsim::DiagEngine diags;
  auto module = ptxsim::ptx::parsePtx(std::string(reinterpret_cast<const char *>(data), size),
                                      "fuzz.ptx", diags);
  bool ok = ptxsim::ptx::checkModule(*module, diags);
  diags.sortByLocation();
  std::ostringstream sink;
  diags.print(sink);
  if (ok && !diags.hasErrors())
    ptxsim::ptx::printSummary(*module, sink);
  return 0;
}

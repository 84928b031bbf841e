// libFuzzer entry point for the fat-binary reader (runtime/fatbin): any byte string is parsed as
// consecutive fatbin containers, and every cubin entry's register counts are read, as the runtime
// does with an embedded fat binary. A malformed input must give an error message, never a crash,
// an out-of-bounds read (AddressSanitizer) or undefined behaviour.
#include "runtime/fatbin/Fatbin.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<ptxsim::fatbin::Entry> entries;
  std::string err = ptxsim::fatbin::parseFatbin(data, size, entries);
  (void)err;
  for (const ptxsim::fatbin::Entry &e : entries) {
    if (e.kind != ptxsim::fatbin::EntryKind::Elf)
      continue;
    std::map<std::string, uint32_t> regs;
    (void)ptxsim::fatbin::cubinRegisterCounts(e.data, regs);
  }
  return 0;
}

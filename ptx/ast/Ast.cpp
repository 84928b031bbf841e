#include "ptx/ast/Ast.h"

namespace ptxsim::ptx {

std::string selectorText(uint16_t sel) {
  if (!sel)
    return {};
  std::string s = (sel & 0x8000) ? ".h" : ".b";
  unsigned n = (sel >> 12) & 7;
  for (unsigned i = 0; i < n; ++i)
    s += static_cast<char>('0' + ((sel >> (3 * i)) & 7));
  return s;
}

uint64_t VarDecl::elementCount() const {
  uint64_t n = 1;
  for (uint64_t d : dims) {
    if (d == 0)
      return 0;
    if (n > UINT64_MAX / d)
      return 0;
    n *= d;
  }
  return n;
}

uint64_t VarDecl::sizeBytes() const {
  uint64_t n = elementCount();
  uint64_t elem = (typeBits(type) + 7) / 8 * vecWidth;
  if (n == 0 || elem == 0 || n > UINT64_MAX / elem)
    return 0;
  return n * elem;
}

std::string_view Module::debugFileName(uint32_t index) const {
  for (const auto &f : files)
    if (f.first == index)
      return f.second;
  return {};
}

unsigned Module::smVersion() const {
  for (std::string_view t : targets) {
    if (t.size() > 3 && t.substr(0, 3) == "sm_") {
      unsigned v = 0;
      for (char c : t.substr(3)) {
        if (c < '0' || c > '9')
          break;
        v = v * 10 + static_cast<unsigned>(c - '0');
      }
      return v;
    }
  }
  return 0;
}

} // namespace ptxsim::ptx

// Names of instruction classes and memory spaces, built-in and registered by ISA extensions.

#include "ptx/ir/Ir.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace ptxsim::ptx::ir {
namespace {

/// A small name table: built-in names first, then registered ones, never more than `limit`.
struct NameTable {
  std::vector<std::string> names;
  size_t limit;
  const char *what;

  uint8_t add(std::string_view name) {
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == name)
        return uint8_t(i);
    if (names.size() >= limit) {
      std::fprintf(stderr, "ptxsim: internal error: more than %zu %s registered\n", limit, what);
      std::abort();
    }
    names.emplace_back(name);
    return uint8_t(names.size() - 1);
  }
};

NameTable &opClasses() {
  static auto *t = new NameTable{{"alu", "mul", "fp32", "fp64", "half", "sfu", "mem", "atomic",
                                  "control", "sync", "warp", "misc", "tensor"},
                                 kMaxOpClasses,
                                 "instruction classes"};
  return *t;
}

NameTable &memSpaces() {
  static auto *t = new NameTable{
      {"global", "shared", "local", "const", "generic", "param"}, kMaxMemSpaces, "memory spaces"};
  return *t;
}

} // namespace

OpClass registerOpClass(std::string_view name) { return OpClass(opClasses().add(name)); }
std::string_view opClassName(OpClass c) {
  const auto &n = opClasses().names;
  return size_t(c) < n.size() ? std::string_view(n[size_t(c)]) : std::string_view("?");
}
uint8_t opClassCount() { return uint8_t(opClasses().names.size()); }

MemSpace registerMemSpace(std::string_view name) { return MemSpace(memSpaces().add(name)); }
std::string_view memSpaceName(MemSpace s) {
  const auto &n = memSpaces().names;
  return size_t(s) < n.size() ? std::string_view(n[size_t(s)]) : std::string_view("?");
}
uint8_t memSpaceCount() { return uint8_t(memSpaces().names.size()); }

} // namespace ptxsim::ptx::ir

#include "ptx/ast/Types.h"

#include <algorithm>
#include <array>
#include <string>
#include <unordered_map>

namespace ptxsim::ptx {
namespace {

struct TypeRow {
  std::string_view name;
  uint8_t bits;
  TypeClass cls;
};

constexpr TypeRow kTypeRows[] = {
#define TYPE(name, spelling, bits, cls) {spelling, bits, TypeClass::cls},
#include "ptx/ast/Types.def"
#undef TYPE
};

constexpr std::string_view kModNames[] = {
#define MOD(name, spelling) spelling,
#include "ptx/ast/Modifiers.def"
#undef MOD
};

const std::unordered_map<std::string_view, uint16_t> &modifierIndex() {
  static const auto *index = [] {
    auto *m = new std::unordered_map<std::string_view, uint16_t>();
    for (unsigned i = 0; i < kNumTypes; ++i)
      m->emplace(kTypeRows[i].name, static_cast<uint16_t>(i));
    for (unsigned i = 0; i < static_cast<unsigned>(Mod::Count); ++i)
      m->emplace(kModNames[i], static_cast<uint16_t>(kNumTypes + i));
    return m;
  }();
  return *index;
}

} // namespace

std::string_view typeName(ScalarType t) {
  return t == ScalarType::None ? "none" : kTypeRows[static_cast<unsigned>(t)].name;
}
unsigned typeBits(ScalarType t) {
  return t == ScalarType::None ? 0 : kTypeRows[static_cast<unsigned>(t)].bits;
}
TypeClass typeClass(ScalarType t) {
  return t == ScalarType::None ? TypeClass::Opaque : kTypeRows[static_cast<unsigned>(t)].cls;
}
ScalarType lookupType(std::string_view spelling) {
  uint16_t id = lookupModifier(spelling);
  return modType(id == kInvalidModifier ? kNumTypes : id);
}

std::string_view spaceName(Space s) {
  static constexpr std::string_view names[] = {"none",  "reg",    "sreg",   "const", "global",
                                               "local", "param",  "shared", "tex",   "generic"};
  return names[static_cast<unsigned>(s)];
}

std::string_view linkageName(Linkage l) {
  static constexpr std::string_view names[] = {"none", "visible", "extern", "weak", "common"};
  return names[static_cast<unsigned>(l)];
}

std::string_view modifierName(uint16_t id) {
  if (id < kNumTypes)
    return kTypeRows[id].name;
  if (id < kNumModifiers)
    return kModNames[id - kNumTypes];
  return "<invalid>";
}

uint16_t lookupModifier(std::string_view spelling) {
  const auto &index = modifierIndex();
  auto it = index.find(spelling);
  return it == index.end() ? kInvalidModifier : it->second;
}

} // namespace ptxsim::ptx

#include "ptx/ast/Types.h"

#include <algorithm>
#include <array>
#include <deque>
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

std::unordered_map<std::string_view, uint16_t> &modifierIndex() {
  static auto *index = [] {
    auto *m = new std::unordered_map<std::string_view, uint16_t>();
    for (unsigned i = 0; i < kNumTypes; ++i)
      m->emplace(kTypeRows[i].name, static_cast<uint16_t>(i));
    for (unsigned i = 0; i < static_cast<unsigned>(Mod::Count); ++i)
      m->emplace(kModNames[i], static_cast<uint16_t>(kNumTypes + i));
    return m;
  }();
  return *index;
}

/// Modifiers ISA extensions registered, in order (ids from kNumModifiers on). A deque keeps the
/// strings (and the index's views of them) stable as it grows.
std::deque<std::string> &extensionModifiers() {
  static auto *v = new std::deque<std::string>();
  return *v;
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
  const auto &ext = extensionModifiers();
  if (id != kInvalidModifier && size_t(id - kNumModifiers) < ext.size())
    return ext[id - kNumModifiers];
  return "<invalid>";
}

uint16_t registerModifier(std::string_view spelling) {
  uint16_t id = lookupModifier(spelling);
  if (id != kInvalidModifier)
    return id;
  auto &ext = extensionModifiers();
  ext.emplace_back(spelling);
  id = static_cast<uint16_t>(kNumModifiers + ext.size() - 1);
  modifierIndex().emplace(ext.back(), id);
  return id;
}

uint16_t modifierCount() {
  return static_cast<uint16_t>(kNumModifiers + extensionModifiers().size());
}

uint16_t lookupModifier(std::string_view spelling) {
  const auto &index = modifierIndex();
  auto it = index.find(spelling);
  return it == index.end() ? kInvalidModifier : it->second;
}

} // namespace ptxsim::ptx

#pragma once
// PTX vocabulary: fundamental types, state spaces, linkage and instruction modifiers.
//
// Contract: types and modifiers are dense small integers generated from Types.def and
// Modifiers.def, so later layers can switch on them. A type spelling (`.f32`) is also a modifier:
// the modifier table holds every type first (modifier id == type id), then the other modifiers.

#include <cstdint>
#include <string_view>

namespace ptxsim::ptx {

enum class ScalarType : uint8_t {
#define TYPE(name, spelling, bits, cls) name,
#include "ptx/ast/Types.def"
#undef TYPE
  None,
};
constexpr unsigned kNumTypes = static_cast<unsigned>(ScalarType::None);

enum class TypeClass : uint8_t { Bits, Unsigned, Signed, Float, Pred, Opaque };

/// Spelling without the dot ("f32"); "none" for None.
std::string_view typeName(ScalarType t);
unsigned typeBits(ScalarType t);
TypeClass typeClass(ScalarType t);
inline bool isIntType(ScalarType t) {
  TypeClass c = typeClass(t);
  return c == TypeClass::Unsigned || c == TypeClass::Signed;
}
inline bool isFloatType(ScalarType t) { return typeClass(t) == TypeClass::Float; }
/// Type for a spelling without the dot, or None.
ScalarType lookupType(std::string_view spelling);

enum class Space : uint8_t { None, Reg, SReg, Const, Global, Local, Param, Shared, Tex, Generic };
std::string_view spaceName(Space s);

enum class Linkage : uint8_t { None, Visible, Extern, Weak, Common };
std::string_view linkageName(Linkage l);

/// Non-type modifiers. Modifier ids: [0, kNumTypes) are types, then these, offset by kNumTypes.
enum class Mod : uint16_t {
#define MOD(name, spelling) name,
#include "ptx/ast/Modifiers.def"
#undef MOD
  Count,
};
constexpr uint16_t kNumModifiers = kNumTypes + static_cast<uint16_t>(Mod::Count);
constexpr uint16_t kInvalidModifier = 0xffff;

constexpr uint16_t modId(Mod m) { return static_cast<uint16_t>(kNumTypes + static_cast<uint16_t>(m)); }
constexpr uint16_t modId(ScalarType t) { return static_cast<uint16_t>(t); }
inline bool modIsType(uint16_t id) { return id < kNumTypes; }
inline ScalarType modType(uint16_t id) {
  return id < kNumTypes ? static_cast<ScalarType>(id) : ScalarType::None;
}
/// Spelling without the leading dot.
std::string_view modifierName(uint16_t id);
/// Modifier id for a spelling without the leading dot, or kInvalidModifier.
uint16_t lookupModifier(std::string_view spelling);
/// Extension point: adds a modifier spelling (without the dot) that opcode specs registered
/// with registerOpcode() may then use, and returns its id (>= kNumModifiers; the existing id
/// when the spelling is known already). Call at start-up, before any module is parsed: the
/// table is not locked against concurrent parsing.
uint16_t registerModifier(std::string_view spelling);
/// Number of modifier ids in use (built-in types and modifiers plus registered ones).
uint16_t modifierCount();

} // namespace ptxsim::ptx

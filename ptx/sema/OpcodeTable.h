#pragma once
// The PTX instruction table: which modifiers each opcode accepts and what operands it takes.
//
// Contract: the table is data. Each opcode has one or more variants written in a small spec
// language (see OpcodeTable.cpp), parsed once on first use. The parser uses lookupOpcode() to
// classify an instruction's first word; the checker matches an instruction against the variants
// and reports the closest variant's complaint. Adding an instruction is one table row; an
// extension (SPU, chiplet) adds rows at start-up with registerOpcode() and special registers
// with registerSpecialRegister(), without editing this file.

#include "ptx/ast/Types.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptxsim::ptx {

constexpr uint16_t kInvalidOpcode = 0xffff;

/// One operand position of a variant.
struct OperandSpec {
  enum class Kind : uint8_t {
    Dst,     ///< destination register (or vector of registers for `.vN`)
    Src,     ///< source register, immediate, or vector of them for `.vN`
    Reg,     ///< source register only
    PredDst, ///< predicate destination register (or sink)
    PredSrc, ///< predicate source: register, `!register`, or 0/1
    Addr,    ///< memory address `[base+offset]`
    Label,   ///< branch target label
    Callee,  ///< call target: function name or register
    List,    ///< `( ... )` call argument/return list
    Symbol,  ///< any declared name (label, function, prototype, variable)
    Any,     ///< anything; the table does not check it
  };
  Kind kind = Kind::Any;
  int8_t typeSlot = -1;                 ///< type from the instruction's Nth type modifier
  ScalarType fixed = ScalarType::None;  ///< or a fixed type
  bool wide = false;     ///< register may be wider than the type (ld/st/cvt rule)
  bool doubled = false;  ///< operand is twice the type's width (`mul.wide` results)
  bool optional = false; ///< may be omitted (only trailing operands)
  bool pair = false;     ///< destination may be `a|p`
  bool symbolOk = false; ///< source may be a variable/function name (mov, cvta)
  bool vector = false;   ///< brace vector of any width allowed (mma fragments, mov packing)
  bool vecMod = false;   ///< brace vector whose width is the instruction's `.vN`
  bool rest = false;     ///< this spec repeats for any further operands
  bool selectorOk = false; ///< video operand selector (`%r1.b0`, `%r2.h10`) allowed
  bool addrLoose = false;  ///< address that may also be written as a register or immediate
  bool constOnly = false;  ///< an integer constant, not a register (lop3's LUT)
  bool braceOnly = false;  ///< with `vector`: a scalar is not accepted (mma fragments)
};

/// A set of alternative modifiers, of which at most one (exactly one if required) is written.
struct ModSlot {
  std::vector<uint16_t> allowed;
  bool required = false;
  bool isType = false;
  int8_t typeIndex = -1; ///< for type slots: 0 for the first type slot of the variant, ...
};

struct OpcodeVariant {
  std::string spec; ///< the spec text, for diagnostics and documentation
  std::vector<ModSlot> slots;
  std::vector<OperandSpec> operands;
  unsigned minOperands = 0, maxOperands = 0; ///< maxOperands == ~0u with a `rest` spec
  unsigned numTypeSlots = 0;
  uint16_t minSm = 0;          ///< lowest target (`sm_80` -> 80) that has this form; 0: any
  bool archSpecific = false;   ///< needs an architecture-specific target (`sm_90a`, `sm_100f`)
};

struct OpcodeInfo {
  std::string name;
  std::vector<OpcodeVariant> variants;
};

/// Opcode id for an opcode name (`ld`), or kInvalidOpcode.
uint16_t lookupOpcode(std::string_view name);
const OpcodeInfo &opcodeInfo(uint16_t id);
size_t opcodeCount();

/// Adds an opcode variant (`name`, modifier spec, operand spec). Returns an error message for a
/// malformed spec, or an empty string. Used by the built-in table and by ISA extensions.
/// `minSm` (`sm_80`, `sm_90a`) is the lowest target that has the form, empty for any.
std::string registerOpcode(std::string_view name, std::string_view mods, std::string_view operands,
                           std::string_view minSm = {});

/// Special registers (`%tid`, `%laneid`, ...). `vec` tells whether `.x/.y/.z` components exist.
struct SpecialRegInfo {
  ScalarType type;
  bool vec;
};
/// Looks up a special register by its base name (`%tid` for `%tid.x`); null if none.
const SpecialRegInfo *lookupSpecialRegister(std::string_view base);
void registerSpecialRegister(std::string_view base, ScalarType type, bool vec);

} // namespace ptxsim::ptx

#pragma once
// The typed PTX abstract syntax tree.
//
// Contract: the parser builds a Module whose names are string_views into the module's own copy
// of the source text (Module::source), so a Module is self-contained and cheap to build. Every
// node carries the SourceLoc of its first token. The AST records what was written, already
// classified (opcode id, modifier ids, types, state spaces) but not yet checked: the checker
// (ptx/sema) resolves names and validates operand kinds and types, and only a Module that the
// checker accepted may be lowered to IR.

#include "base/Diagnostics.h"
#include "ptx/ast/Types.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ptxsim::ptx {

/// One instruction operand. Composite kinds keep their parts in `elems`.
struct Operand {
  enum class Kind : uint8_t {
    Reg,       ///< a name (register, symbol, label or function; the checker decides): `name`
    Imm,       ///< integer literal: `ival`
    FImm,      ///< float literal: `fbits` holds the IEEE bits, `fwidth` 32 or 64
    Address,   ///< `[base+off]`: elems[0] is the base (Reg or Imm), `ival` the byte offset;
               ///< further elems are extra address operands (`[tex, {x, y}]`)
    Vector,    ///< `{a, b, ...}`: elems
    Pair,      ///< `a|b` (e.g. setp/shfl second destination): elems[0], elems[1]
    Not,       ///< `!a` (negated predicate source): elems[0]
    List,      ///< `(a, b, ...)` (call arguments and returns): elems
    Sink,      ///< `_`
    Generic,   ///< `generic(sym)+off` in initializers: `name`, `ival`
  };
  Kind kind = Kind::Imm;
  /// Component suffix of a name such as `%tid.x`: 0 none, else 'x','y','z','w','r','g','b','a'.
  char comp = 0;
  uint8_t fwidth = 0;
  uint8_t depth = 0; ///< nesting depth of composite operands (bounded by the parser)
  /// Video operand selector (`%r1.b3210`, `%r2.h10`), 0 when absent. Bit 15: halfwords (`.h`)
  /// rather than bytes (`.b`); bits 12-14: number of digits (1-4); bits 0-11: the digits, 3 bits
  /// each, first digit lowest. See selectorText().
  uint16_t sel = 0;
  SourceLoc loc;
  std::string_view name;
  union {
    int64_t ival = 0; ///< Imm value; byte offset for Reg (symbol+offset), Address and Generic
    uint64_t fbits;   ///< FImm IEEE bits
  };
  std::vector<Operand> elems;
};

/// The selector suffix as written (".b3210"), or empty for 0.
std::string selectorText(uint16_t sel);

/// A reference to one modifier written on an instruction, with its column for diagnostics.
struct ModRef {
  uint16_t id;  ///< index into the modifier table (ptx/ast/Types.h, modifierName)
  uint32_t col; ///< 1-based column of the modifier's '.'
};

struct Instruction {
  SourceLoc loc;          ///< location of the opcode
  uint16_t opcode = 0;    ///< index into the opcode table; kInvalidOpcode when unknown
  std::string_view text;  ///< full opcode spelling as written, e.g. `ld.global.nc.f32`
  std::vector<ModRef> mods;
  /// The type modifiers in the order written (also present in `mods`).
  ScalarType types[6] = {ScalarType::None, ScalarType::None, ScalarType::None,
                         ScalarType::None, ScalarType::None, ScalarType::None};
  uint8_t numTypes = 0;
  /// Which variant of the opcode table row matched (set by the checker).
  uint8_t variant = 0;
  /// Set by the checker for control transfers: the index in Function::labels of a `bra`
  /// target, or in Function::targets of a `brx.idx` table; -1 otherwise.
  int32_t target = -1;
  std::vector<Operand> operands;
  /// Guard predicate (`@%p` / `@!%p`); empty name when unguarded.
  std::string_view guard;
  SourceLoc guardLoc;
  bool guardNegated = false;
  /// Index into Function::debugLocs of the `.loc` in force, or -1.
  int32_t debugLoc = -1;
};

/// `.align`, linkage, state space, vector width and type of a variable or parameter.
struct VarDecl {
  SourceLoc loc;          ///< location of the name
  std::string_view name;
  Linkage linkage = Linkage::None;
  Space space = Space::None;
  ScalarType type = ScalarType::None;
  uint8_t vecWidth = 1;   ///< 1, 2, 4 or 8
  uint32_t align = 0;     ///< 0 when not given
  /// `.ptr` attribute on kernel parameters: pointee space and alignment.
  Space ptrSpace = Space::None;
  uint32_t ptrAlign = 0;
  bool isPtr = false;
  /// Array dimensions; 0 for `[]` (size from initializer or extern/dynamic).
  std::vector<uint64_t> dims;
  bool hasDims = false;
  /// `%r<N>`: declares N registers %r0..%r(N-1). 0 when not a range.
  uint32_t rangeCount = 0;
  bool isRange = false;
  /// `.attribute(.managed)` and similar, as written (without the dot).
  std::vector<std::string_view> attributes;
  /// Initializer: flattened leaves in order (nested braces flattened), and whether present.
  bool hasInit = false;
  std::vector<Operand> init;

  /// Number of elements (product of dims, 1 for scalars; 0 if unknown).
  uint64_t elementCount() const;
  /// Size in bytes, or 0 when unknown (`[]`).
  uint64_t sizeBytes() const;
};

/// A `.loc file line col` directive.
struct DebugLoc {
  uint32_t file = 0, line = 0, col = 0;
  /// `inlined_at file line col`, 0 when absent.
  uint32_t inlFile = 0, inlLine = 0, inlCol = 0;
};

/// A statement of a function body, in source order. Scopes are flattened: `ScopeBegin` and
/// `ScopeEnd` bracket the statements of a nested `{ }` block.
struct Statement {
  enum class Kind : uint8_t { Instr, Label, Decl, ScopeBegin, ScopeEnd, Prototype, Targets };
  Kind kind;
  uint32_t index; ///< into Function::instrs / labels / decls / prototypes / targets
};

struct Label {
  SourceLoc loc;
  std::string_view name;
  uint32_t instrIndex; ///< index of the next instruction (== instrs.size() at end)
};

/// A function signature: `.entry`/`.func` header or a `.callprototype`.
struct Signature {
  std::vector<VarDecl> returns;
  std::vector<VarDecl> params;
};

struct Prototype {
  SourceLoc loc;
  std::string_view name; ///< the label before `.callprototype`
  Signature sig;
};

/// `L: .branchtargets A, B;` or `L: .calltargets f, g;`
struct TargetList {
  SourceLoc loc;
  std::string_view name; ///< the label before the directive
  bool isCall = false;
  std::vector<Operand> targets;
  /// For `.branchtargets`: the entries resolved to Function::labels indices (by the checker).
  std::vector<uint32_t> labels;
};

/// Performance and other directives on a function header (`.maxntid 256, 1, 1`).
struct FuncDirective {
  SourceLoc loc;
  std::string_view name; ///< without the dot
  std::vector<uint64_t> values;
};

struct Function {
  SourceLoc loc; ///< location of the name
  std::string_view name;
  bool isEntry = false;
  bool hasBody = false;
  Linkage linkage = Linkage::None;
  Signature sig;
  std::vector<FuncDirective> directives;
  std::vector<Statement> body;
  std::vector<Instruction> instrs;
  std::vector<Label> labels;
  std::vector<VarDecl> decls;
  std::vector<Prototype> prototypes;
  std::vector<TargetList> targets;
  std::vector<DebugLoc> debugLocs;
  std::vector<std::string_view> pragmas;
};

/// A `.section` of debug data, kept opaque (name and size of its contents).
struct Section {
  SourceLoc loc;
  std::string_view name;
  uint64_t bytes = 0;
};

struct Module {
  /// Owns the text that every string_view in the module points into (followed by two NUL
  /// bytes the scanner needs; text() leaves them out).
  std::shared_ptr<const std::string> source;
  std::string_view text() const {
    return source && source->size() >= 2 ? std::string_view(*source).substr(0, source->size() - 2)
                                         : std::string_view();
  }
  std::string fileName;

  uint32_t versionMajor = 0, versionMinor = 0;
  SourceLoc versionLoc;
  std::vector<std::string_view> targets; ///< `.target sm_90a, debug` -> {sm_90a, debug}
  SourceLoc targetLoc;
  uint32_t addressSize = 32; ///< PTX's default when `.address_size` is absent

  std::vector<VarDecl> globals; ///< module-scope variables, in source order
  std::vector<Function> functions;
  /// `.alias a, b;` pairs.
  std::vector<std::pair<std::string_view, std::string_view>> aliases;
  /// `.file N "name"`: index N -> name (may be declared after its uses).
  std::vector<std::pair<uint32_t, std::string>> files;
  std::vector<Section> sections;
  std::vector<std::string_view> pragmas;

  /// File name for a `.file` index, or empty.
  std::string_view debugFileName(uint32_t index) const;
  /// SM number of the first `sm_NN[a|f]` target, or 0.
  unsigned smVersion() const;
};

} // namespace ptxsim::ptx

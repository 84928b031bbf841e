#pragma once
// State shared by the flex scanner and the bison parser while one PTX file is parsed.
//
// Contract: a ParseContext lives for one parse. The scanner writes token locations into it; the
// grammar actions call its build methods, which append to `module` and report problems through
// `diags` with the file name and location of the offending token. Nothing here is global, so
// several files may be parsed at once on different threads.

#include "base/Diagnostics.h"
#include "ptx/ast/Ast.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ptxsim::ptx {

/// A token's text (a view into the module source) and where it starts.
struct Tok {
  std::string_view text;
  SourceLoc loc;
};

/// An instruction parsed up to its ';'.
struct PendingInstr {
  Tok op;
  std::vector<Operand> operands;
  bool hasGuard = false; ///< the guard itself is in ParseContext::guard
};

/// Attributes written before (and, for parameters, after) a declaration's type.
struct DeclAttrs {
  SourceLoc loc;
  Linkage linkage = Linkage::None;
  Space space = Space::None;
  uint32_t align = 0;
  uint8_t vecWidth = 1;
  bool isPtr = false;
  Space ptrSpace = Space::None;
  uint32_t ptrAlign = 0;
  std::vector<std::string_view> attributes;
};

struct Declarator {
  Tok name;
  std::vector<uint64_t> dims;
  bool hasDims = false;
  uint32_t rangeCount = 0;
  bool isRange = false;
  bool hasInit = false;
  std::vector<Operand> init;
};

class ParseContext {
public:
  ParseContext(Module &module, DiagEngine &diags) : module(module), diags(diags) {}

  Module &module;
  DiagEngine &diags;
  /// Scanner position: line and column of the next character, and of the last token.
  uint32_t line = 1, col = 1;
  Tok last;
  /// Function whose body is being parsed, or null at module scope.
  Function *fn = nullptr;
  int32_t curDebugLoc = -1;
  unsigned scopeDepth = 0;
  /// Attributes of a `.func` header, stashed before its signature is parsed.
  DeclAttrs pending;
  bool hasPending = false;

  /// True when only blanks precede token `t` on its line.
  bool firstOnLine(const Tok &t) const {
    const char *begin = module.source->data();
    for (const char *p = t.text.data(); p > begin;) {
      char c = *--p;
      if (c == '\n')
        return true;
      if (c != ' ' && c != '\t' && c != '\r')
        return false;
    }
    return true;
  }
  void error(SourceLoc loc, std::string msg) { diags.error(module.fileName, loc, std::move(msg)); }
  /// A scanner error; syntax errors on the same line are then not reported (they follow from it).
  void lexError(SourceLoc loc, std::string msg) {
    lexErrorLine = loc.line;
    error(loc, std::move(msg));
  }
  uint32_t lexErrorLine = 0;
  SourceLoc commentStart;

  // --- attribute and declaration builders (called from grammar actions) ---
  void addAttr(DeclAttrs &a, const Tok &tok);         ///< linkage / space / vector token
  void addAlign(DeclAttrs &a, const Tok &kw, const Tok &value);
  void addAttribute(DeclAttrs &a, const Tok &name);    ///< `.attribute(.managed)`
  VarDecl makeVar(const DeclAttrs &a, const Tok &type, const DeclAttrs *post, Declarator d);
  void addVars(const DeclAttrs &a, const Tok &type, std::vector<Declarator> ds);

  // --- functions ---
  void beginFunction(const DeclAttrs *a, bool isEntry, const Tok &name, Signature sig);
  void addFuncDirective(const Tok &name, std::vector<uint64_t> values);
  void endFunctionDecl();   ///< `;` after a header: a declaration only
  void beginBody();
  void endBody();

  // --- statements ---
  void addInstr(PendingInstr &p);
  void addLabel(const Tok &name);
  void addPrototype(const Tok &kw, Signature sig);
  void addTargets(const Tok &kw, std::vector<Operand> targets); ///< `.branchtargets`/`.calltargets`
  void addLoc(const Tok &kw, const std::vector<Tok> &nums, const std::vector<Tok> &tail);
  void addPragma(const Tok &kw, std::vector<Tok> strings);
  void beginScope(SourceLoc brace);
  void endScope();

  // --- module directives ---
  void setVersion(const Tok &kw, const Tok &value);
  void setTarget(const Tok &kw, const std::vector<Tok> &targets);
  void setAddressSize(const Tok &kw, const Tok &value);
  void addFile(const Tok &kw, const Tok &index, const Tok &name);
  void addSection(const Tok &kw, const Tok &name, uint64_t bytes);
  void addAlias(const Tok &a, const Tok &b);

  // --- operands ---
  Operand name(const Tok &t);
  Operand intLit(const Tok &t);
  Operand floatLit(const Tok &t);
  Operand binary(char op, Operand a, Operand b, SourceLoc loc);
  Operand unary(char op, Operand a, SourceLoc loc);
  Operand call(const Tok &fn, std::vector<Operand> args);   ///< `generic(sym)`
  Operand address(SourceLoc loc, Operand base, std::vector<Operand> extra);
  uint64_t toUnsigned(const Tok &t);
  /// `N` of `%r<N>`, saturated to UINT32_MAX (the checker rejects huge ranges).
  uint32_t toRangeCount(const Tok &t);
  /// Guard of the instruction being parsed.
  Tok guard;
  bool guardNeg = false;
  /// Makes `o` a composite of `elems`, refusing nesting deeper than kMaxOperandDepth.
  void nest(Operand &o, Operand::Kind kind, std::vector<Operand> elems, SourceLoc loc);
  static constexpr unsigned kMaxOperandDepth = 32;
  /// Brackets open in the scanner; past kMaxBracketDepth the scan stops (bounded memory).
  unsigned bracketDepth = 0;
  static constexpr unsigned kMaxBracketDepth = 1000;
  /// Consecutive prefix operators (`- - ~ !x`); each waits on the parser stack, so a run past
  /// kMaxUnaryRun stops the scan (bounded memory).
  unsigned unaryRun = 0;
  static constexpr unsigned kMaxUnaryRun = 100;

private:
  bool inFunction(const Tok &t, const char *what);
};

} // namespace ptxsim::ptx

#include "ptx/sema/Checker.h"

#include "ptx/sema/OpcodeTable.h"

#include <unordered_map>

namespace ptxsim::ptx {
namespace {

std::string q(std::string_view s) { return "'" + std::string(s.substr(0, 80)) + "'"; }

enum class SymKind : uint8_t { Reg, Var, Label, Proto, Targets, Func, Global, SReg };

struct Sym {
  explicit Sym(SymKind k) : kind(k) {}
  SymKind kind;
  const VarDecl *decl = nullptr;  ///< Reg, Var, Global
  const Function *fn = nullptr;   ///< Func
  const Prototype *proto = nullptr;
  const TargetList *targets = nullptr;
  SourceLoc loc;
  ScalarType type = ScalarType::None;
  bool vec = false;               ///< vector register / special register with components
  uint32_t index = 0;             ///< Label: index in Function::labels; Targets: in ::targets
};

struct Scope {
  int parent = -1;
  std::unordered_map<std::string_view, Sym> names;
  std::unordered_map<std::string_view, const VarDecl *> ranges; ///< `%r<N>` prefix -> decl
};

/// Splits `%r12` into `%r` and 12; false if there is no trailing number.
bool splitRegNumber(std::string_view n, std::string_view &prefix, uint64_t &num) {
  size_t i = n.size();
  while (i > 0 && n[i - 1] >= '0' && n[i - 1] <= '9')
    --i;
  if (i == n.size() || i == 0 || n.size() - i > 9)
    return false;
  if (n[i] == '0' && n.size() - i > 1)
    return false; // `%r01` is not `%r1`
  num = 0;
  for (size_t j = i; j < n.size(); ++j)
    num = num * 10 + static_cast<uint64_t>(n[j] - '0');
  prefix = n.substr(0, i);
  return true;
}

bool typesCompatible(ScalarType reg, ScalarType want, bool wide) {
  if (want == ScalarType::None || reg == want)
    return true;
  if (reg == ScalarType::pred || want == ScalarType::pred)
    return false;
  TypeClass rc = typeClass(reg), wc = typeClass(want);
  if (rc == TypeClass::Opaque || wc == TypeClass::Opaque)
    return rc == wc;
  unsigned rb = typeBits(reg), wb = typeBits(want);
  bool rInt = rc == TypeClass::Unsigned || rc == TypeClass::Signed;
  bool wInt = wc == TypeClass::Unsigned || wc == TypeClass::Signed;
  if (rb == wb && (rc == TypeClass::Bits || wc == TypeClass::Bits || (rInt && wInt)))
    return true;
  // Sub-32-bit and narrow types live in wider registers for ld/st/cvt and friends.
  if (wide && rb > wb && (rInt || rc == TypeClass::Bits) && (wInt || wc == TypeClass::Bits))
    return true;
  if (wide && rb > wb && wb < 16 && rc == TypeClass::Bits)
    return true;
  // ptxas also lets a wider bit-size register hold any narrower type (`cvt.rn.f16.f32 %h, %rd`,
  // `st.f32 [a], %rd`), and any wider register hold a bit-size type (`ld.b16 %f, [a]`).
  if (wide && rb > wb && (rc == TypeClass::Bits || wc == TypeClass::Bits))
    return true;
  return false;
}

/// The integer type twice as wide (`mul.wide.s32` produces `.s64`).
ScalarType doubleWidth(ScalarType t) {
  switch (t) {
  case ScalarType::u16: return ScalarType::u32;
  case ScalarType::u32: return ScalarType::u64;
  case ScalarType::s16: return ScalarType::s32;
  case ScalarType::s32: return ScalarType::s64;
  default: return t;
  }
}

class FunctionChecker;

class ModuleChecker {
public:
  ModuleChecker(Module &m, DiagEngine &d) : m_(m), diags_(d) {}
  bool run();

  void error(SourceLoc loc, std::string msg) { diags_.error(m_.fileName, loc, std::move(msg)); }
  void note(SourceLoc loc, std::string msg) {
    diags_.report(Severity::Note, m_.fileName, loc, std::move(msg));
  }
  const Sym *lookupGlobal(std::string_view n) const {
    auto it = globals_.find(n);
    return it == globals_.end() ? nullptr : &it->second;
  }
  DiagEngine &diags() { return diags_; }
  void checkVarDecl(const VarDecl &v, bool moduleScope);
  unsigned sm() const { return sm_; }
  bool archSpecific() const { return archSpecific_; }
  std::string_view target() const { return target_; }

private:
  void declareGlobal(const VarDecl &v);
  void declareFunction(const Function &f);
  void checkInitializer(const VarDecl &v);

  void checkTargetVersion();

  Module &m_;
  DiagEngine &diags_;
  unsigned sm_ = 0;           ///< `.target sm_90a` -> 90; 0 when there is no sm target
  bool archSpecific_ = false; ///< the target has an `a` or `f` suffix
  std::string_view target_;   ///< `sm_90a`
  std::unordered_map<std::string_view, Sym> globals_;
  /// Where each module-scope name was first declared (initializers may only use names declared
  /// before them, as ptxas requires).
  std::unordered_map<std::string_view, SourceLoc> firstSeen_;
};

class FunctionChecker {
public:
  FunctionChecker(ModuleChecker &mc, Function &f) : mc_(mc), f_(f) {}
  void run();

private:
  void declare(int scope, std::string_view name, Sym sym);
  const Sym *lookup(int scope, std::string_view name, SourceLoc loc, bool report);
  void checkInstr(int scope, Instruction &in);
  bool matchMods(const Instruction &in, const OpcodeVariant &v, std::string *err, SourceLoc *loc,
                 unsigned *score);
  bool checkOperand(int scope, const Instruction &in, const OpcodeVariant &v, const OperandSpec &os,
                    const Operand &op, std::string *err, SourceLoc *loc);
  bool checkReg(int scope, const Operand &op, ScalarType want, bool wide, bool dst,
                std::string *err, SourceLoc *loc, bool selectorOk = false);
  void checkAnyNames(int scope, const Operand &op);
  void checkCall(int scope, const Instruction &in);
  void checkArch(const Instruction &in, const OpcodeVariant &v);
  void resolveTarget(int scope, Instruction &in, const OpcodeVariant &v);
  Space instrSpace(const Instruction &in, unsigned addrIndex = 0) const;

  ModuleChecker &mc_;
  Function &f_;
  std::vector<Scope> scopes_;
};

// ------------------------------------------------------------------ module level

void ModuleChecker::declareGlobal(const VarDecl &v) {
  firstSeen_.emplace(v.name, v.loc);
  Sym s(SymKind::Global);
  s.decl = &v;
  s.loc = v.loc;
  s.type = v.type;
  auto [it, inserted] = globals_.emplace(v.name, s);
  if (inserted)
    return;
  const Sym &prev = it->second;
  bool prevExtern = prev.kind == SymKind::Global && prev.decl->linkage == Linkage::Extern;
  bool thisExtern = v.linkage == Linkage::Extern;
  bool common = v.linkage == Linkage::Common || (prev.decl && prev.decl->linkage == Linkage::Common);
  if (prev.kind == SymKind::Global && (prevExtern || thisExtern || common)) {
    if (prev.decl->type != v.type || prev.decl->space != v.space)
      error(v.loc, "declaration of " + q(v.name) + " conflicts with an earlier declaration");
    if (prevExtern && !thisExtern)
      it->second = s; // the definition wins
    return;
  }
  error(v.loc, "redefinition of " + q(v.name));
  note(prev.loc, "previous definition is here");
}

bool sameSignature(const Signature &a, const Signature &b) {
  auto same = [](const std::vector<VarDecl> &x, const std::vector<VarDecl> &y) {
    if (x.size() != y.size())
      return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i].space != y[i].space || typeBits(x[i].type) != typeBits(y[i].type) ||
          x[i].elementCount() != y[i].elementCount())
        return false;
    return true;
  };
  return same(a.returns, b.returns) && same(a.params, b.params);
}

void ModuleChecker::declareFunction(const Function &f) {
  firstSeen_.emplace(f.name, f.loc);
  Sym s(SymKind::Func);
  s.fn = &f;
  s.loc = f.loc;
  auto [it, inserted] = globals_.emplace(f.name, s);
  if (inserted)
    return;
  Sym &prev = it->second;
  if (prev.kind != SymKind::Func) {
    error(f.loc, "redefinition of " + q(f.name) + " as a function");
    note(prev.loc, "previous definition is here");
    return;
  }
  if (prev.fn->hasBody && f.hasBody) {
    error(f.loc, "redefinition of function " + q(f.name));
    note(prev.loc, "previous definition is here");
    return;
  }
  if (prev.fn->isEntry != f.isEntry || !sameSignature(prev.fn->sig, f.sig)) {
    error(f.loc, "declaration of " + q(f.name) + " does not match an earlier declaration");
    note(prev.loc, "previous declaration is here");
    return;
  }
  if (f.hasBody)
    prev = s;
}

void ModuleChecker::checkVarDecl(const VarDecl &v, bool moduleScope) {
  if (moduleScope && (v.space == Space::Reg || v.space == Space::Param || v.space == Space::SReg))
    error(v.loc, "'." + std::string(spaceName(v.space)) + "' variable " + q(v.name) +
                     " is not allowed at module scope");
  if (v.type == ScalarType::pred && v.space != Space::Reg)
    error(v.loc, "'.pred' variables must be in '.reg'");
  if ((v.type == ScalarType::texref || v.type == ScalarType::samplerref ||
       v.type == ScalarType::surfref) && v.space != Space::Global && v.space != Space::Param)
    error(v.loc, "texture, sampler and surface references must be '.global' or '.param'");
  if (v.isRange && v.space != Space::Reg)
    error(v.loc, "register ranges like " + q(v.name) + "<N> are only allowed in '.reg'");
  if (v.isRange && v.rangeCount == 0)
    error(v.loc, "register range " + q(v.name) + " declares no registers");
  if (v.isRange && v.rangeCount > 10000000)
    error(v.loc, "register range " + q(v.name) + " is too large");
  if (v.hasInit && v.space != Space::Global && v.space != Space::Const)
    error(v.loc, "initializer not allowed for '." + std::string(spaceName(v.space)) + "' variable " +
                     q(v.name));
  if (v.hasInit && v.linkage == Linkage::Extern)
    error(v.loc, "'.extern' variable " + q(v.name) + " cannot have an initializer");
  if (v.isPtr && v.space != Space::Param)
    error(v.loc, "'.ptr' is only allowed on kernel parameters");
  if (v.vecWidth != 1 && typeBits(v.type) * v.vecWidth > 128 + 0u && v.vecWidth != 8)
    error(v.loc, "vector of " + std::to_string(v.vecWidth) + " x ." + std::string(typeName(v.type)) +
                     " exceeds 128 bits");
  if (v.hasDims && v.elementCount() == 0) {
    bool lastOnly = true;
    for (size_t i = 0; i + 1 < v.dims.size(); ++i)
      lastOnly &= v.dims[i] != 0;
    bool unsizedOk = v.hasInit || v.linkage == Linkage::Extern ||
                     (v.space == Space::Shared && v.linkage == Linkage::Extern);
    if (!lastOnly || (v.dims.size() == 1 && v.dims[0] == 0 && !unsizedOk))
      error(v.loc, "array " + q(v.name) + " has no size");
  }
  if (v.hasInit)
    checkInitializer(v);
}

void ModuleChecker::checkInitializer(const VarDecl &v) {
  uint64_t n = v.elementCount() * v.vecWidth;
  if (n != 0 && v.init.size() > n)
    error(v.loc, "too many initializers for " + q(v.name) + " (" + std::to_string(v.init.size()) +
                     " for " + std::to_string(n) + " elements)");
  if (!v.hasDims && v.vecWidth == 1 && v.init.size() > 1)
    error(v.loc, "brace initializer for scalar " + q(v.name));
  for (const Operand &o : v.init) {
    switch (o.kind) {
    case Operand::Kind::Imm:
      break;
    case Operand::Kind::FImm:
      if (!isFloatType(v.type) && typeClass(v.type) != TypeClass::Bits)
        error(o.loc, "floating-point initializer for '." + std::string(typeName(v.type)) +
                         "' variable " + q(v.name));
      break;
    case Operand::Kind::Reg:
    case Operand::Kind::Generic: {
      const Sym *s = lookupGlobal(o.name);
      auto first = firstSeen_.find(o.name);
      if (!s)
        error(o.loc, "use of undeclared symbol " + q(o.name) + " in initializer");
      else if (first != firstSeen_.end() &&
               (first->second.line > o.loc.line ||
                (first->second.line == o.loc.line && first->second.col > o.loc.col)))
        error(o.loc, "symbol " + q(o.name) + " is used in an initializer before its declaration");
      else if (typeBits(v.type) < 32 && typeClass(v.type) != TypeClass::Bits)
        error(o.loc, "address of " + q(o.name) + " does not fit '." + std::string(typeName(v.type)) +
                         "'");
      break;
    }
    default:
      error(o.loc, "initializer must be a constant or a symbol address");
    }
  }
}

/// The lowest PTX ISA version (major * 10 + minor) that knows a target, as ptxas (CUDA 13)
/// enforces it; 0 for targets it does not know.
unsigned minVersionForTarget(unsigned sm, char suffix) {
  struct T {
    unsigned sm, base, a, f;
  };
  static constexpr T kTargets[] = {
      {50, 40, 0, 0},  {52, 41, 0, 0},  {53, 42, 0, 0},  {60, 50, 0, 0},  {61, 50, 0, 0},
      {62, 50, 0, 0},  {70, 60, 0, 0},  {72, 61, 0, 0},  {75, 63, 0, 0},  {80, 70, 0, 0},
      {86, 71, 0, 0},  {87, 74, 0, 0},  {88, 73, 0, 0},  {89, 78, 0, 0},  {90, 78, 80, 0},
      {100, 86, 86, 88}, {101, 86, 86, 88}, {103, 88, 88, 88}, {110, 90, 90, 90},
      {120, 87, 87, 88}, {121, 88, 88, 88},
  };
  for (const T &t : kTargets)
    if (t.sm == sm)
      return suffix == 'a' ? t.a : suffix == 'f' ? t.f : t.base;
  return 0;
}

void ModuleChecker::checkTargetVersion() {
  for (std::string_view t : m_.targets) {
    if (t.size() <= 3 || t.substr(0, 3) != "sm_")
      continue;
    target_ = t;
    sm_ = m_.smVersion();
    char suffix = t.back() == 'a' || t.back() == 'f' ? t.back() : 0;
    archSpecific_ = suffix != 0;
    unsigned need = minVersionForTarget(sm_, suffix);
    unsigned have = m_.versionMajor * 10 + m_.versionMinor;
    if (need && m_.versionLoc.line && have < need)
      error(m_.targetLoc, "'.target " + std::string(t) + "' requires PTX ISA version " +
                              std::to_string(need / 10) + "." + std::to_string(need % 10) +
                              " or later (module has .version " +
                              std::to_string(m_.versionMajor) + "." +
                              std::to_string(m_.versionMinor) + ")");
    break;
  }
}

bool ModuleChecker::run() {
  size_t before = diags_.errorCount();
  if (!m_.targetLoc.line && m_.versionLoc.line)
    error(m_.versionLoc, "missing '.target' directive");
  checkTargetVersion();
  for (const VarDecl &v : m_.globals)
    declareGlobal(v);
  for (const Function &f : m_.functions)
    declareFunction(f);
  for (const VarDecl &v : m_.globals)
    checkVarDecl(v, true);
  for (const auto &a : m_.aliases)
    if (!lookupGlobal(a.second))
      error({}, ".alias target " + q(a.second) + " is not declared");
  for (Function &f : m_.functions) {
    if (diags_.full())
      break;
    FunctionChecker(*this, f).run();
  }
  return diags_.errorCount() == before;
}

// ------------------------------------------------------------------ functions

void FunctionChecker::declare(int scope, std::string_view name, Sym sym) {
  auto [it, inserted] = scopes_[scope].names.emplace(name, sym);
  if (!inserted) {
    mc_.error(sym.loc, "redefinition of " + q(name));
    mc_.note(it->second.loc, "previous definition is here");
  }
}

const Sym *FunctionChecker::lookup(int scope, std::string_view name, SourceLoc loc, bool report) {
  for (int s = scope; s >= 0; s = scopes_[s].parent) {
    auto it = scopes_[s].names.find(name);
    if (it != scopes_[s].names.end())
      return &it->second;
  }
  std::string_view prefix;
  uint64_t num = 0;
  if (splitRegNumber(name, prefix, num)) {
    for (int s = scope; s >= 0; s = scopes_[s].parent) {
      auto it = scopes_[s].ranges.find(prefix);
      if (it != scopes_[s].ranges.end()) {
        if (num >= it->second->rangeCount)
          break; // out of range: fall through to the error below
        // Materialise the register so later lookups are one probe.
        Sym sym(SymKind::Reg);
        sym.decl = it->second;
        sym.loc = it->second->loc;
        sym.type = it->second->type;
        sym.vec = it->second->vecWidth > 1;
        return &scopes_[s].names.emplace(name, sym).first->second;
      }
    }
  }
  if (const Sym *g = mc_.lookupGlobal(name))
    return g;
  if (!name.empty() && name[0] == '%') {
    if (const SpecialRegInfo *sr = lookupSpecialRegister(name)) {
      // Cache special registers in the root scope.
      Sym sym(SymKind::SReg);
      sym.type = sr->type;
      sym.vec = sr->vec;
      return &scopes_[0].names.emplace(name, sym).first->second;
    }
  }
  if (report) {
    if (splitRegNumber(name, prefix, num)) {
      for (int s = scope; s >= 0; s = scopes_[s].parent) {
        auto it = scopes_[s].ranges.find(prefix);
        if (it != scopes_[s].ranges.end()) {
          mc_.error(loc, "register " + q(name) + " is out of range: " + std::string(prefix) + "<" +
                             std::to_string(it->second->rangeCount) + "> declares " +
                             std::string(prefix) + "0.." + std::string(prefix) +
                             std::to_string(it->second->rangeCount - 1));
          return nullptr;
        }
      }
    }
    mc_.error(loc, "use of undeclared identifier " + q(name));
  }
  return nullptr;
}

void FunctionChecker::run() {
  Function &f = f_;
  scopes_.emplace_back();
  if (f.isEntry && !f.sig.returns.empty())
    mc_.error(f.loc, "kernel " + q(f.name) + " cannot return values");
  auto declareParam = [&](const VarDecl &p, bool isReturn) {
    if (f.isEntry && p.space != Space::Param)
      mc_.error(p.loc, "kernel parameter " + q(p.name) + " must be in '.param'");
    else if (!f.isEntry && p.space != Space::Param && p.space != Space::Reg)
      mc_.error(p.loc, std::string(isReturn ? "return value " : "parameter ") + q(p.name) +
                           " must be in '.param' or '.reg'");
    if (p.isPtr && !f.isEntry)
      mc_.error(p.loc, "'.ptr' is only allowed on kernel parameters");
    if (p.name == "_")
      return;
    Sym s(p.space == Space::Reg ? SymKind::Reg : SymKind::Var);
    s.decl = &p;
    s.loc = p.loc;
    s.type = p.type;
    s.vec = p.vecWidth > 1;
    declare(0, p.name, s);
  };
  for (const VarDecl &p : f.sig.returns)
    declareParam(p, true);
  for (const VarDecl &p : f.sig.params)
    declareParam(p, false);
  for (const FuncDirective &d : f.directives) {
    size_t n = d.values.size();
    bool ok = true;
    if (d.name == "maxntid" || d.name == "reqntid" || d.name == "reqnctapercluster")
      ok = n >= 1 && n <= 3;
    else if (d.name == "minnctapersm" || d.name == "maxnctapersm" || d.name == "maxnreg" ||
             d.name == "maxclusterrank")
      ok = n == 1;
    else if (d.name == "noreturn" || d.name == "explicitcluster" || d.name == "blocksareclusters")
      ok = n == 0;
    if (!ok)
      mc_.error(d.loc, "wrong number of values for '." + std::string(d.name) + "'");
    if (d.name == "noreturn" && f.isEntry)
      mc_.error(d.loc, "'.noreturn' is only allowed on '.func'");
    for (uint64_t v : d.values)
      if (v == 0 && d.name != "maxnreg")
        mc_.error(d.loc, "'." + std::string(d.name) + "' values must be positive");
  }
  if (!f.hasBody)
    return;

  // Pass 1: scopes and declarations.
  std::vector<int> stmtScope(f.body.size());
  int cur = 0;
  for (size_t i = 0; i < f.body.size(); ++i) {
    const Statement &st = f.body[i];
    switch (st.kind) {
    case Statement::Kind::ScopeBegin:
      scopes_.emplace_back();
      scopes_.back().parent = cur;
      cur = static_cast<int>(scopes_.size() - 1);
      break;
    case Statement::Kind::ScopeEnd:
      cur = scopes_[cur].parent < 0 ? 0 : scopes_[cur].parent;
      break;
    case Statement::Kind::Decl: {
      const VarDecl &v = f.decls[st.index];
      if (v.space == Space::Param && v.linkage != Linkage::None)
        mc_.error(v.loc, "linkage directives are not allowed on local '.param' variables");
      mc_.checkVarDecl(v, false);
      Sym s(v.space == Space::Reg ? SymKind::Reg : SymKind::Var);
      s.decl = &v;
      s.loc = v.loc;
      s.type = v.type;
      s.vec = v.vecWidth > 1;
      if (v.isRange) {
        auto [it, inserted] = scopes_[cur].ranges.emplace(v.name, &v);
        if (!inserted) {
          mc_.error(v.loc, "redefinition of register range " + q(v.name));
          mc_.note(it->second->loc, "previous definition is here");
        }
      } else {
        declare(cur, v.name, s);
      }
      break;
    }
    case Statement::Kind::Label: {
      Sym s(SymKind::Label);
      s.loc = f.labels[st.index].loc;
      s.index = st.index;
      declare(cur, f.labels[st.index].name, s);
      break;
    }
    case Statement::Kind::Prototype: {
      Sym s(SymKind::Proto);
      s.proto = &f.prototypes[st.index];
      s.loc = s.proto->loc;
      declare(cur, s.proto->name, s);
      break;
    }
    case Statement::Kind::Targets: {
      Sym s(SymKind::Targets);
      s.targets = &f.targets[st.index];
      s.index = st.index;
      s.loc = s.targets->loc;
      declare(cur, s.targets->name, s);
      break;
    }
    case Statement::Kind::Instr:
      break;
    }
    stmtScope[i] = cur;
  }

  // Pass 2: instructions and target lists.
  for (size_t i = 0; i < f.body.size(); ++i) {
    if (mc_.diags().full())
      return;
    const Statement &st = f.body[i];
    if (st.kind == Statement::Kind::Instr) {
      checkInstr(stmtScope[i], f.instrs[st.index]);
    } else if (st.kind == Statement::Kind::Targets) {
      TargetList &t = f.targets[st.index];
      t.labels.clear();
      for (const Operand &o : t.targets) {
        if (o.kind != Operand::Kind::Reg) {
          mc_.error(o.loc, "target list entries must be names");
          continue;
        }
        const Sym *s = lookup(stmtScope[i], o.name, o.loc, true);
        if (s && t.isCall && s->kind != SymKind::Func)
          mc_.error(o.loc, q(o.name) + " in '.calltargets' is not a function");
        if (s && !t.isCall && s->kind != SymKind::Label)
          mc_.error(o.loc, q(o.name) + " in '.branchtargets' is not a label");
        if (s && !t.isCall && s->kind == SymKind::Label)
          t.labels.push_back(s->index);
      }
    }
  }
}

/// The state space address operand `addrIndex` accesses. Copies name one space per address
/// in operand order (`cp.async.bulk.global.shared::cta [dst], [src]`); further addresses (the
/// mbarrier of a bulk copy) and every address of a one-space instruction use the first.
Space FunctionChecker::instrSpace(const Instruction &in, unsigned addrIndex) const {
  Space spaces[4];
  unsigned n = 0;
  for (const ModRef &m : in.mods) {
    if (modIsType(m.id) || n == 4)
      continue;
    switch (static_cast<Mod>(m.id - kNumTypes)) {
    case Mod::global: spaces[n++] = Space::Global; break;
    case Mod::shared:
    case Mod::shared_cta:
    case Mod::shared_cluster: spaces[n++] = Space::Shared; break;
    case Mod::local: spaces[n++] = Space::Local; break;
    case Mod::const_: spaces[n++] = Space::Const; break;
    case Mod::param:
    case Mod::param_entry:
    case Mod::param_func: spaces[n++] = Space::Param; break;
    default: break;
    }
  }
  if (n == 0)
    return Space::None;
  return addrIndex < n ? spaces[addrIndex] : spaces[0];
}

/// testp classes, tensormap field names, `.acc::f32/f16` and the ldmatrix element formats: ptxas
/// accepts them as no-ops on any instruction
/// (`add.finite.s32`, `bar.sync.rank 0`), so they must not be rejected.
bool isIgnoredByPtxas(uint16_t id) {
  if (modIsType(id))
    return false;
  switch (static_cast<Mod>(id - kNumTypes)) {
  case Mod::finite: case Mod::infinite: case Mod::number: case Mod::notanumber: case Mod::normal:
  case Mod::subnormal: case Mod::global_address: case Mod::rank: case Mod::box_dim:
  case Mod::global_dim: case Mod::global_stride: case Mod::element_stride: case Mod::elemtype:
  case Mod::interleave_layout: case Mod::swizzle_mode: case Mod::swizzle_atomicity:
  case Mod::fill_mode: case Mod::acc_f32: case Mod::acc_f16: case Mod::b8x16:
  case Mod::b6x16_p32: case Mod::b4x16_p64:
    return true;
  default:
    return false;
  }
}

/// ptxas ignores a `.pred` written next to the real type (`add.pred.s32`, `cvt.s64.pred.s32`),
/// except on ld/st/ldu and where `.pred` is itself a type the variant takes.
bool ignoresExtraPred(const Instruction &in, const OpcodeVariant &v) {
  if (in.numTypes <= v.numTypeSlots)
    return false;
  std::string_view op = in.text.substr(0, in.text.find('.'));
  if (op == "ld" || op == "st" || op == "ldu")
    return false;
  for (const ModSlot &slot : v.slots)
    if (slot.isType)
      for (uint16_t a : slot.allowed)
        if (a == modId(ScalarType::pred))
          return false;
  return true;
}

/// The instruction's type for type slot `slot` of variant `v`, skipping an ignored `.pred`.
ScalarType typeForSlot(const Instruction &in, const OpcodeVariant &v, unsigned slot) {
  bool skipPred = ignoresExtraPred(in, v);
  for (unsigned i = 0; i < in.numTypes; ++i) {
    if (skipPred && in.types[i] == ScalarType::pred)
      continue;
    if (slot-- == 0)
      return in.types[i];
  }
  return ScalarType::None;
}

/// ptxas ignores a repeat of these flag modifiers (`bar.sync.sync`, `cvt.sat.sat`); a repeat of
/// any other modifier is an error (found with tests/tools/ptxas_diff.py).
bool isRepeatableFlag(uint16_t id) {
  if (modIsType(id))
    return false;
  switch (static_cast<Mod>(id - kNumTypes)) {
  case Mod::sync: case Mod::sat: case Mod::satfinite: case Mod::approx: case Mod::uni:
  case Mod::relu: case Mod::NaN: case Mod::cc:
    return true;
  default:
    return false;
  }
}

bool FunctionChecker::matchMods(const Instruction &in, const OpcodeVariant &v, std::string *err,
                                SourceLoc *loc, unsigned *score) {
  uint64_t used = 0; // slot bitmask (variants have < 64 slots)
  uint16_t filled[64]; // which modifier filled each used slot
  const std::string op = std::string(in.text.substr(0, in.text.find('.')));
  *score = 0;
  // Types fill the type slots in the order written (`cvt.s32.f32` is not `cvt.f32.s32`).
  int typesSeen = 0;
  const bool skipPred = ignoresExtraPred(in, v);
  for (const ModRef &m : in.mods) {
    int chosen = -1, conflict = -1;
    const bool isTypeMod = modIsType(m.id) && !(skipPred && m.id == modId(ScalarType::pred));
    for (size_t s = 0; s < v.slots.size() && s < 64; ++s) {
      const ModSlot &slot = v.slots[s];
      if (isTypeMod && slot.isType && slot.typeIndex != typesSeen)
        continue;
      bool ok = false;
      for (uint16_t a : slot.allowed)
        ok |= a == m.id;
      if (!ok)
        continue;
      if (used & (1ull << s)) {
        if (conflict < 0)
          conflict = static_cast<int>(s);
        continue;
      }
      chosen = static_cast<int>(s);
      break;
    }
    if (m.id == modId(ScalarType::pred) && skipPred) {
      ++*score;
      continue;
    }
    if (chosen < 0 && conflict < 0 && isIgnoredByPtxas(m.id)) {
      ++*score; // ptxas (CUDA 13) accepts and ignores these on any instruction
      continue;
    }
    if (chosen < 0 && conflict >= 0 && filled[conflict] == m.id && isRepeatableFlag(m.id)) {
      ++*score; // ptxas ignores a repeated flag modifier (`.sync.sync`, `.relu.relu`)
      continue;
    }
    if (chosen < 0) {
      *loc = {in.loc.line, m.col};
      if (conflict >= 0) {
        std::string other;
        for (const ModRef &m2 : in.mods) {
          if (&m2 == &m)
            break;
          for (uint16_t a : v.slots[conflict].allowed)
            if (a == m2.id)
              other = std::string(modifierName(m2.id));
        }
        *err = "modifier '." + std::string(modifierName(m.id)) + "' conflicts with '." + other +
               "' on '" + op + "'";
      } else {
        *err = "modifier '." + std::string(modifierName(m.id)) + "' is not valid on " + q(in.text);
      }
      return false;
    }
    used |= 1ull << chosen;
    filled[chosen] = m.id;
    if (isTypeMod && v.slots[chosen].isType)
      ++typesSeen;
    ++*score;
  }
  for (size_t s = 0; s < v.slots.size() && s < 64; ++s) {
    const ModSlot &slot = v.slots[s];
    if (!slot.required || (used & (1ull << s)))
      continue;
    std::string alts;
    for (size_t k = 0; k < slot.allowed.size() && k < 8; ++k)
      alts += (k ? ", ." : ".") + std::string(modifierName(slot.allowed[k]));
    if (slot.allowed.size() > 8)
      alts += ", ...";
    *loc = in.loc;
    *err = q(in.text) + " needs " + (slot.isType ? "a type" : "a modifier") + " (one of " + alts +
           ")";
    return false;
  }
  return true;
}

bool FunctionChecker::checkReg(int scope, const Operand &op, ScalarType want, bool wide, bool dst,
                               std::string *err, SourceLoc *loc, bool selectorOk) {
  *loc = op.loc;
  if (op.kind == Operand::Kind::Sink) {
    if (!dst) {
      *err = "'_' can only be a destination";
      return false;
    }
    return true;
  }
  if (op.kind != Operand::Kind::Reg) {
    *err = "expected a register";
    return false;
  }
  const Sym *s = lookup(scope, op.name, op.loc, false);
  if (!s) {
    lookup(scope, op.name, op.loc, true);
    *err = "";
    return false;
  }
  if (s->kind != SymKind::Reg && s->kind != SymKind::SReg) {
    *err = q(op.name) + " is not a register";
    return false;
  }
  if (op.ival != 0) {
    *err = "register offsets are only allowed inside '[ ]'";
    return false;
  }
  if (dst && s->kind == SymKind::SReg) {
    *err = "special register " + q(op.name) + " is read-only";
    return false;
  }
  if (op.sel && !selectorOk) {
    *err = "operand selector '" + selectorText(op.sel) + "' is only allowed on video instructions";
    return false;
  }
  if (op.sel && (op.sel & 0x8000)) {
    for (unsigned i = 0; i < ((op.sel >> 12) & 7u); ++i)
      if (((op.sel >> (3 * i)) & 7u) > 3) {
        *err = "halfword selector '" + selectorText(op.sel) + "' names a halfword above 3";
        return false;
      }
  }
  if (op.comp && !s->vec) {
    *err = q(op.name) + " has no vector components";
    return false;
  }
  if (!typesCompatible(s->type, want, wide)) {
    *err = "register " + q(std::string(op.name) + (op.comp ? std::string(".") + op.comp : "")) +
           " has type ." + std::string(typeName(s->type)) + ", expected ." +
           std::string(typeName(want));
    return false;
  }
  return true;
}

void FunctionChecker::checkAnyNames(int scope, const Operand &op) {
  switch (op.kind) {
  case Operand::Kind::Reg:
  case Operand::Kind::Generic:
    lookup(scope, op.name, op.loc, true);
    break;
  default:
    for (const Operand &e : op.elems)
      checkAnyNames(scope, e);
  }
}

bool FunctionChecker::checkOperand(int scope, const Instruction &in, const OpcodeVariant &v,
                                   const OperandSpec &os, const Operand &op, std::string *err,
                                   SourceLoc *loc) {
  *loc = op.loc;
  ScalarType want = os.fixed;
  if (os.typeSlot >= 0)
    want = typeForSlot(in, v, static_cast<unsigned>(os.typeSlot));
  if (os.doubled)
    want = doubleWidth(want);
  unsigned vecN = 1;
  for (const ModRef &m : in.mods) {
    if (m.id == modId(Mod::v2))
      vecN = 2;
    else if (m.id == modId(Mod::v4))
      vecN = 4;
    else if (m.id == modId(Mod::v8))
      vecN = 8;
  }
  using K = OperandSpec::Kind;
  bool dst = os.kind == K::Dst || os.kind == K::PredDst;
  auto scalarOrVector = [&](const Operand &o, ScalarType t) -> bool {
    if (o.kind == Operand::Kind::Vector && !os.vector && !(os.vecMod && vecN > 1) &&
        (t == ScalarType::bf16 || t == ScalarType::bf16x2)) {
      // ptxas accepts a brace vector for any .bf16/.bf16x2 operand (`add.bf16 %h, {%a, %b}, %c`).
      for (const Operand &e : o.elems)
        if (e.kind != Operand::Kind::Imm && e.kind != Operand::Kind::FImm &&
            !checkReg(scope, e, ScalarType::None, false, dst, err, loc))
          return false;
      return true;
    }
    if (o.kind == Operand::Kind::Vector) {
      if (!os.vector && !(os.vecMod && vecN > 1)) {
        *err = "unexpected vector operand";
        return false;
      }
      if (os.vecMod && !os.vector && o.elems.size() != vecN) {
        *err = "expected a vector of " + std::to_string(vecN) + " elements, got " +
               std::to_string(o.elems.size());
        return false;
      }
      // A `.vN` vector has N elements of the instruction type; a free-width vector (mov
      // packing, mma fragments) has elements whose type the executor checks.
      ScalarType et = (os.vecMod && vecN > 1) ? t : ScalarType::None;
      for (const Operand &e : o.elems) {
        if (!dst && (e.kind == Operand::Kind::Imm || e.kind == Operand::Kind::FImm))
          continue;
        if (!checkReg(scope, e, et, os.wide, dst, err, loc))
          return false;
      }
      return true;
    }
    if (os.braceOnly) {
      *err = "expected a brace vector '{...}'";
      return false;
    }
    if (os.vecMod && vecN > 1 && !os.vector) {
      *err = "expected a vector of " + std::to_string(vecN) + " elements for '.v" +
             std::to_string(vecN) + "'";
      return false;
    }
    if (os.constOnly && o.kind != Operand::Kind::Imm) {
      *err = "expected an integer constant";
      return false;
    }
    if (!dst && o.kind == Operand::Kind::FImm && o.fwidth == 64 && t != ScalarType::None &&
        t != ScalarType::f32 && typeBits(t) != 64) {
      *err = "double-precision constant for a ." + std::string(typeName(t)) + " operand";
      return false;
    }
    // ptxas takes no constants for half-precision operands, and only floating-point constants
    // for .f32/.f64 operands.
    bool half = t == ScalarType::f16 || t == ScalarType::f16x2 || t == ScalarType::bf16 ||
                t == ScalarType::bf16x2;
    if (!dst && o.kind == Operand::Kind::Imm) {
      if (half || t == ScalarType::f32 || t == ScalarType::f64) {
        *err = "integer constant for a ." + std::string(typeName(t)) + " operand";
        return false;
      }
      return true;
    }
    if (!dst && o.kind == Operand::Kind::FImm) {
      if (half || (t != ScalarType::None && !isFloatType(t) && typeClass(t) != TypeClass::Bits)) {
        *err = "floating-point constant for a ." + std::string(typeName(t)) + " operand";
        return false;
      }
      return true;
    }
    if (!dst && o.kind == Operand::Kind::Reg && os.symbolOk) {
      const Sym *s = lookup(scope, o.name, o.loc, true);
      if (!s) {
        *err = "";
        return false;
      }
      if (s->kind == SymKind::Var || s->kind == SymKind::Global || s->kind == SymKind::Func)
        return true;
    }
    return checkReg(scope, o, t, os.wide, dst, err, loc, os.selectorOk);
  };

  switch (os.kind) {
  case K::Dst:
  case K::Src:
  case K::Reg:
  case K::PredDst: {
    ScalarType t = os.kind == K::PredDst ? ScalarType::pred : want;
    if (op.kind == Operand::Kind::Pair) {
      if (!os.pair) {
        *err = "unexpected '|' operand pair";
        return false;
      }
      if (!checkReg(scope, op.elems[0], t, os.wide, true, err, loc))
        return false;
      return checkReg(scope, op.elems[1], ScalarType::pred, false, true, err, loc);
    }
    if (os.kind == K::Reg)
      return checkReg(scope, op, t, os.wide, false, err, loc);
    return scalarOrVector(op, t);
  }
  case K::PredSrc:
    if (op.kind == Operand::Kind::Not)
      return checkReg(scope, op.elems[0], ScalarType::pred, false, false, err, loc);
    if (op.kind == Operand::Kind::Imm)
      return true; // ptxas takes any integer constant as a predicate (non-zero is true)
    return checkReg(scope, op, ScalarType::pred, false, false, err, loc);
  case K::Addr: {
    if (op.kind != Operand::Kind::Address && os.addrLoose) {
      if (op.kind == Operand::Kind::Imm || op.kind == Operand::Kind::FImm)
        return true;
      return checkReg(scope, op, ScalarType::None, false, false, err, loc);
    }
    if (op.kind != Operand::Kind::Address) {
      *err = "expected a memory address '[...]'";
      return false;
    }
    const Operand &base = op.elems[0];
    for (size_t i = 1; i < op.elems.size(); ++i)
      checkAnyNames(scope, op.elems[i]);
    if (base.kind == Operand::Kind::Imm)
      return true;
    if (base.kind != Operand::Kind::Reg) {
      *err = "malformed address";
      return false;
    }
    const Sym *s = lookup(scope, base.name, base.loc, true);
    if (!s) {
      *err = "";
      return false;
    }
    *loc = base.loc;
    if (s->kind == SymKind::Reg || s->kind == SymKind::SReg) {
      if (s->type == ScalarType::pred || (typeBits(s->type) != 32 && typeBits(s->type) != 64) ||
          isFloatType(s->type)) {
        *err = "address register " + q(base.name) + " must be a 32- or 64-bit integer";
        return false;
      }
      return true;
    }
    if (s->kind == SymKind::Var || s->kind == SymKind::Global) {
      unsigned addrIndex = 0;
      for (const Operand &prev : in.operands) {
        if (&prev == &op)
          break;
        addrIndex += prev.kind == Operand::Kind::Address;
      }
      Space want = instrSpace(in, addrIndex);
      Space have = s->decl->space;
      if (want == Space::None && (have == Space::Const || have == Space::Param)) {
        *err = "bad state space: " + q(base.name) + " is in '." + std::string(spaceName(have)) +
               "', which " + q(in.text) + " cannot reach through a generic address";
        return false;
      }
      if (want != Space::None && have != want &&
          !(want == Space::Global && have == Space::Tex)) {
        *err = "bad state space: " + q(base.name) + " is in '." + std::string(spaceName(have)) +
               "' but " + q(in.text) + " accesses '." + std::string(spaceName(want)) + "'";
        return false;
      }
      return true;
    }
    if (s->kind == SymKind::Func)
      return true;
    *err = q(base.name) + " cannot be used as an address";
    return false;
  }
  case K::Label: {
    if (op.kind != Operand::Kind::Reg) {
      *err = "expected a label";
      return false;
    }
    const Sym *s = lookup(scope, op.name, op.loc, false);
    if (!s) {
      mc_.error(op.loc, "use of undeclared label " + q(op.name));
      *err = "";
      return false;
    }
    if (s->kind != SymKind::Label) {
      *err = q(op.name) + " is not a label";
      return false;
    }
    return true;
  }
  case K::Symbol:
    if (op.kind != Operand::Kind::Reg) {
      *err = "expected a name";
      return false;
    }
    if (!lookup(scope, op.name, op.loc, true)) {
      *err = "";
      return false;
    }
    return true;
  case K::Callee:
  case K::List:
  case K::Any:
    checkAnyNames(scope, op);
    return true;
  }
  return true;
}

void FunctionChecker::checkCall(int scope, const Instruction &in) {
  const auto &ops = in.operands;
  size_t i = 0;
  const Operand *rets = nullptr, *args = nullptr, *callee = nullptr, *proto = nullptr;
  if (i < ops.size() && ops[i].kind == Operand::Kind::List)
    rets = &ops[i++];
  if (i < ops.size())
    callee = &ops[i++];
  if (i < ops.size() && ops[i].kind == Operand::Kind::List)
    args = &ops[i++];
  if (i < ops.size())
    proto = &ops[i++];
  if (!callee || callee->kind != Operand::Kind::Reg) {
    mc_.error(callee ? callee->loc : in.loc, "'call' needs a function name or register");
    return;
  }
  if (i < ops.size()) {
    mc_.error(ops[i].loc, "too many operands for 'call'");
    return;
  }
  for (const Operand *l : {rets, args})
    if (l)
      for (const Operand &e : l->elems)
        if (e.kind != Operand::Kind::Imm && e.kind != Operand::Kind::FImm)
          checkAnyNames(scope, e);
  const Sym *s = lookup(scope, callee->name, callee->loc, true);
  if (!s)
    return;
  const Signature *sig = nullptr;
  std::string what;
  if (s->kind == SymKind::Func) {
    if (s->fn->isEntry) {
      mc_.error(callee->loc, "cannot call kernel " + q(callee->name));
      return;
    }
    if (proto) {
      mc_.error(proto->loc, "a direct call takes no prototype");
      return;
    }
    sig = &s->fn->sig;
    what = "function " + q(callee->name);
  } else if (s->kind == SymKind::Reg) {
    if (!proto || proto->kind != Operand::Kind::Reg) {
      mc_.error(callee->loc, "indirect call through " + q(callee->name) +
                                 " needs a '.callprototype' or '.calltargets' label");
      return;
    }
    const Sym *p = lookup(scope, proto->name, proto->loc, true);
    if (!p)
      return;
    if (p->kind == SymKind::Proto) {
      sig = &p->proto->sig;
      what = "prototype " + q(proto->name);
    } else if (p->kind != SymKind::Targets || !p->targets->isCall) {
      mc_.error(proto->loc, q(proto->name) + " is not a '.callprototype' or '.calltargets' label");
      return;
    }
  } else {
    mc_.error(callee->loc, q(callee->name) + " is not a function");
    return;
  }
  if (!sig)
    return;
  size_t nr = rets ? rets->elems.size() : 0, na = args ? args->elems.size() : 0;
  if (nr != sig->returns.size())
    mc_.error(rets ? rets->loc : callee->loc,
              "call to " + what + " takes " + std::to_string(nr) + " return value(s), expected " +
                  std::to_string(sig->returns.size()));
  else if (na != sig->params.size())
    mc_.error(args ? args->loc : callee->loc,
              "call to " + what + " passes " + std::to_string(na) + " argument(s), expected " +
                  std::to_string(sig->params.size()));
}

void FunctionChecker::checkArch(const Instruction &in, const OpcodeVariant &v) {
  if (!v.minSm || !mc_.sm())
    return;
  if (mc_.sm() >= v.minSm && (!v.archSpecific || mc_.archSpecific()))
    return;
  mc_.error(in.loc, q(in.text) + " requires sm_" + std::to_string(v.minSm) +
                        (v.archSpecific ? "a" : "") + " or later (module targets " +
                        std::string(mc_.target()) + ")");
}

/// Records the label (bra) or branch-target list (brx.idx) an accepted instruction names, so the
/// control-flow graph needs no name lookup (labels are scoped, names may repeat).
void FunctionChecker::resolveTarget(int scope, Instruction &in, const OpcodeVariant &v) {
  for (size_t i = 0; i < in.operands.size() && i < v.operands.size(); ++i) {
    OperandSpec::Kind k = v.operands[i].kind;
    if (k != OperandSpec::Kind::Label && k != OperandSpec::Kind::Symbol)
      continue;
    const Operand &op = in.operands[i];
    if (op.kind != Operand::Kind::Reg)
      continue;
    const Sym *s = lookup(scope, op.name, op.loc, false);
    if (s && (s->kind == SymKind::Label || s->kind == SymKind::Targets)) {
      in.target = static_cast<int32_t>(s->index);
      return;
    }
  }
}

void FunctionChecker::checkInstr(int scope, Instruction &in) {
  if (!in.guard.empty()) {
    const Sym *g = lookup(scope, in.guard, in.guardLoc, true);
    if (g && ((g->kind != SymKind::Reg && g->kind != SymKind::SReg) || g->type != ScalarType::pred))
      mc_.error(in.guardLoc, "guard " + q(in.guard) + " is not a '.pred' register");
  }
  if (in.opcode == kInvalidOpcode)
    return; // reported by the parser
  const OpcodeInfo &info = opcodeInfo(in.opcode);

  // Best failing variant: most modifiers accepted, then operand count, then operand position.
  std::string bestErr;
  SourceLoc bestLoc = in.loc;
  unsigned bestScore = 0;
  bool haveBest = false;
  for (size_t vi = 0; vi < info.variants.size(); ++vi) {
    const OpcodeVariant &v = info.variants[vi];
    std::string err;
    SourceLoc loc = in.loc;
    unsigned score = 0;
    if (!matchMods(in, v, &err, &loc, &score)) {
      if (!haveBest || score > bestScore) {
        bestErr = err, bestLoc = loc, bestScore = score, haveBest = true;
      }
      continue;
    }
    if (info.name == "call") {
      // Calls have their own operand grammar: returns, callee, arguments, prototype.
      in.variant = static_cast<uint8_t>(vi);
      checkCall(scope, in);
      return;
    }
    score = 1000;
    size_t n = in.operands.size();
    if (n < v.minOperands || n > v.maxOperands) {
      std::string expect = v.minOperands == v.maxOperands
                               ? std::to_string(v.minOperands)
                               : std::to_string(v.minOperands) + " to " +
                                     (v.maxOperands == ~0u ? std::string("any number of")
                                                           : std::to_string(v.maxOperands));
      err = q(in.text) + " takes " + expect + " operand" + (v.maxOperands == 1 ? "" : "s") +
            ", got " + std::to_string(n);
      if (!haveBest || score > bestScore) {
        bestErr = err, bestLoc = in.loc, bestScore = score, haveBest = true;
      }
      continue;
    }
    bool ok = true;
    for (size_t i = 0; i < n; ++i) {
      const OperandSpec &os = v.operands[std::min(i, v.operands.size() - 1)];
      if (!checkOperand(scope, in, v, os, in.operands[i], &err, &loc)) {
        ok = false;
        score = 2000 + static_cast<unsigned>(i);
        if (err.empty()) {
          // Already reported (undeclared name): no variant can fix that.
          in.variant = static_cast<uint8_t>(vi);
          return;
        }
        break;
      }
    }
    if (ok) {
      in.variant = static_cast<uint8_t>(vi);
      checkArch(in, v);
      resolveTarget(scope, in, v);
      return;
    }
    if (!haveBest || score > bestScore) {
      bestErr = err, bestLoc = loc, bestScore = score, haveBest = true;
    }
  }
  if (haveBest && !bestErr.empty())
    mc_.error(bestLoc, bestErr);
}

} // namespace

bool checkModule(Module &module, DiagEngine &diags) { return ModuleChecker(module, diags).run(); }

} // namespace ptxsim::ptx

#include "ptx/parser/ParseContext.h"

#include "ptx/sema/OpcodeTable.h"

#include <algorithm>
#include <cstring>

namespace ptxsim::ptx {
namespace {

std::string quote(std::string_view s) {
  if (s.size() > 60)
    return "'" + std::string(s.substr(0, 60)) + "...'";
  return "'" + std::string(s) + "'";
}

Space spaceFromText(std::string_view t) {
  if (t == ".reg") return Space::Reg;
  if (t == ".sreg") return Space::SReg;
  if (t == ".const") return Space::Const;
  if (t == ".global") return Space::Global;
  if (t == ".local") return Space::Local;
  if (t == ".param") return Space::Param;
  if (t == ".shared") return Space::Shared;
  if (t == ".tex") return Space::Tex;
  return Space::None;
}

Linkage linkageFromText(std::string_view t) {
  if (t == ".visible") return Linkage::Visible;
  if (t == ".extern") return Linkage::Extern;
  if (t == ".weak") return Linkage::Weak;
  if (t == ".common") return Linkage::Common;
  return Linkage::None;
}

/// Parses a PTX integer literal (decimal, 0x hex, 0b binary, leading-0 octal, optional U).
bool parseInt(std::string_view t, uint64_t &out) {
  if (!t.empty() && t.back() == 'U')
    t.remove_suffix(1);
  unsigned base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    base = 16;
    t.remove_prefix(2);
  } else if (t.size() > 2 && t[0] == '0' && (t[1] == 'b' || t[1] == 'B')) {
    base = 2;
    t.remove_prefix(2);
  } else if (t.size() > 1 && t[0] == '0') {
    base = 8;
    t.remove_prefix(1);
  }
  uint64_t v = 0;
  for (char c : t) {
    unsigned d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return false;
    if (d >= base)
      return false;
    if (v > (UINT64_MAX - d) / base)
      return false;
    v = v * base + d;
  }
  out = v;
  return true;
}

void flattenInit(const Operand &op, std::vector<Operand> &out) {
  if (op.kind == Operand::Kind::Vector) {
    for (const Operand &e : op.elems)
      flattenInit(e, out);
  } else {
    out.push_back(op);
  }
}

bool isName(const Operand &o) { return o.kind == Operand::Kind::Reg; }
bool isInt(const Operand &o) { return o.kind == Operand::Kind::Imm; }

/// A one-element `( x )` list in an expression is just `x`.
Operand unwrap(Operand o) {
  while (o.kind == Operand::Kind::List && o.elems.size() == 1) {
    Operand inner = std::move(o.elems[0]);
    o = std::move(inner);
  }
  return o;
}

} // namespace

void ParseContext::nest(Operand &o, Operand::Kind kind, std::vector<Operand> elems, SourceLoc loc) {
  uint8_t depth = 0;
  for (const Operand &e : elems)
    depth = std::max<uint8_t>(depth, e.depth);
  o.loc = loc;
  if (depth >= kMaxOperandDepth) {
    error(o.loc, "operand or initializer nested too deeply");
    o.kind = Operand::Kind::Imm;
    return;
  }
  o.kind = kind;
  o.depth = static_cast<uint8_t>(depth + 1);
  o.elems = std::move(elems);
}

uint32_t ParseContext::toRangeCount(const Tok &t) {
  uint64_t v = toUnsigned(t);
  return v > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(v);
}

uint64_t ParseContext::toUnsigned(const Tok &t) {
  uint64_t v = 0;
  if (!parseInt(t.text, v))
    error(t.loc, "invalid integer " + quote(t.text));
  return v;
}

// ------------------------------------------------------------------ declarations

void ParseContext::addAttr(DeclAttrs &a, const Tok &t) {
  if (a.loc.line == 0)
    a.loc = t.loc;
  if (Space s = spaceFromText(t.text); s != Space::None) {
    if (a.isPtr) {
      if (a.ptrSpace != Space::None)
        error(t.loc, "duplicate .ptr state space " + quote(t.text));
      a.ptrSpace = s;
    } else if (a.space != Space::None) {
      error(t.loc, "more than one state space: " + quote(t.text) + " after '." +
                       std::string(spaceName(a.space)) + "'");
    } else {
      a.space = s;
    }
    return;
  }
  if (Linkage l = linkageFromText(t.text); l != Linkage::None) {
    if (a.linkage != Linkage::None)
      error(t.loc, "more than one linkage directive: " + quote(t.text));
    a.linkage = l;
    return;
  }
  if (t.text == ".v2" || t.text == ".v4" || t.text == ".v8") {
    if (a.vecWidth != 1)
      error(t.loc, "more than one vector width: " + quote(t.text));
    a.vecWidth = static_cast<uint8_t>(t.text[2] - '0');
    return;
  }
  if (t.text == ".ptr") {
    if (a.isPtr)
      error(t.loc, "duplicate '.ptr'");
    a.isPtr = true;
    return;
  }
  error(t.loc, "unexpected " + quote(t.text) + " in declaration");
}

void ParseContext::addAlign(DeclAttrs &a, const Tok &kw, const Tok &value) {
  if (a.loc.line == 0)
    a.loc = kw.loc;
  uint64_t v = toUnsigned(value);
  if (v == 0 || (v & (v - 1)) != 0 || v > (1u << 20)) {
    error(value.loc, "alignment must be a power of two, got " + quote(value.text));
    v = 1;
  }
  if (a.isPtr)
    a.ptrAlign = static_cast<uint32_t>(v);
  else
    a.align = static_cast<uint32_t>(v);
}

void ParseContext::addAttribute(DeclAttrs &a, const Tok &name) {
  std::string_view n = name.text.substr(1);
  if (n != "managed" && n != "unified")
    error(name.loc, "unknown variable attribute " + quote(name.text));
  a.attributes.push_back(n);
}

VarDecl ParseContext::makeVar(const DeclAttrs &a, const Tok &type, const DeclAttrs *post,
                              Declarator d) {
  VarDecl v;
  v.loc = d.name.loc;
  v.name = d.name.text;
  v.linkage = a.linkage;
  v.space = a.space;
  v.align = a.align;
  v.vecWidth = a.vecWidth;
  v.isPtr = a.isPtr;
  v.ptrSpace = a.ptrSpace;
  v.ptrAlign = a.ptrAlign;
  v.attributes = a.attributes;
  if (post) {
    if (post->space != Space::None || post->linkage != Linkage::None || post->vecWidth != 1)
      error(post->loc, "state space, linkage and vector width must precede the type");
    if (post->align)
      v.align = post->align;
    if (post->isPtr) {
      v.isPtr = true;
      v.ptrSpace = post->ptrSpace;
      v.ptrAlign = post->ptrAlign;
    }
  }
  if (a.space == Space::None)
    error(a.loc.line ? a.loc : type.loc, "declaration of " + quote(v.name) + " has no state space");
  v.type = lookupType(type.text.substr(1));
  v.dims = std::move(d.dims);
  v.hasDims = d.hasDims;
  v.rangeCount = d.rangeCount;
  v.isRange = d.isRange;
  if (d.hasInit) {
    v.hasInit = true;
    for (const Operand &o : d.init)
      flattenInit(o, v.init);
  }
  return v;
}

void ParseContext::addVars(const DeclAttrs &a, const Tok &type, std::vector<Declarator> ds) {
  for (Declarator &d : ds) {
    VarDecl v = makeVar(a, type, nullptr, std::move(d));
    if (fn) {
      if (!fn->hasBody) {
        error(v.loc, "declaration outside of a function body");
        continue;
      }
      fn->body.push_back({Statement::Kind::Decl, static_cast<uint32_t>(fn->decls.size())});
      fn->decls.push_back(std::move(v));
    } else {
      module.globals.push_back(std::move(v));
    }
  }
}

// ------------------------------------------------------------------ functions

void ParseContext::beginFunction(const DeclAttrs *a, bool isEntry, const Tok &name, Signature sig) {
  module.functions.emplace_back();
  fn = &module.functions.back();
  fn->loc = name.loc;
  fn->name = name.text;
  fn->isEntry = isEntry;
  fn->sig = std::move(sig);
  if (a) {
    fn->linkage = a->linkage;
    if (a->space != Space::None || a->vecWidth != 1 || a->align || a->isPtr)
      error(a->loc, "only a linkage directive may precede " +
                        std::string(isEntry ? "'.entry'" : "'.func'"));
  }
  hasPending = false;
}

void ParseContext::addFuncDirective(const Tok &name, std::vector<uint64_t> values) {
  static constexpr std::string_view known[] = {
      "maxntid", "reqntid", "minnctapersm", "maxnctapersm", "maxnreg", "noreturn",
      "explicitcluster", "reqnctapercluster", "maxclusterrank", "blocksareclusters",
      "abi_preserve", "abi_preserve_control"};
  std::string_view n = name.text.substr(1);
  bool ok = false;
  for (std::string_view k : known)
    ok |= k == n;
  if (!ok) {
    error(name.loc, "unknown function directive " + quote(name.text));
    return;
  }
  if (fn)
    fn->directives.push_back({name.loc, n, std::move(values)});
}

void ParseContext::endFunctionDecl() { fn = nullptr; }

void ParseContext::beginBody() {
  fn->hasBody = true;
  curDebugLoc = -1;
  scopeDepth = 0;
}

void ParseContext::endBody() {
  fn = nullptr;
  scopeDepth = 0;
}

// ------------------------------------------------------------------ statements

bool ParseContext::inFunction(const Tok &t, const char *what) {
  if (fn && fn->hasBody)
    return true;
  error(t.loc, std::string(what) + " outside of a function body");
  return false;
}

void ParseContext::addInstr(PendingInstr &p) {
  const Tok &op = p.op;
  if (!inFunction(op, "instruction"))
    return;
  Instruction in;
  in.loc = op.loc;
  in.text = op.text;
  in.operands = std::move(p.operands);
  in.debugLoc = curDebugLoc;
  if (p.hasGuard) {
    in.guard = guard.text;
    in.guardLoc = guard.loc;
    in.guardNegated = guardNeg;
  }
  std::string_view text = op.text;
  size_t dot = text.find('.');
  std::string_view base = text.substr(0, dot);
  in.opcode = lookupOpcode(base);
  if (in.opcode == kInvalidOpcode)
    error(op.loc, "unknown opcode " + quote(base));
  bool badMod = false;
  while (dot != std::string_view::npos) {
    size_t next = text.find('.', dot + 1);
    std::string_view part = text.substr(dot + 1, next == std::string_view::npos ? next : next - dot - 1);
    uint16_t id = lookupModifier(part);
    SourceLoc mloc{op.loc.line, op.loc.col + static_cast<uint32_t>(dot)};
    if (id == kInvalidModifier) {
      if (in.opcode != kInvalidOpcode)
        error(mloc, "unknown modifier '." + std::string(part) + "' on '" + std::string(base) + "'");
      badMod = true;
    } else {
      in.mods.push_back({id, mloc.col});
      if (modIsType(id)) {
        if (in.numTypes < 6)
          in.types[in.numTypes++] = modType(id);
        else
          error(mloc, "too many type modifiers");
      }
    }
    dot = next;
  }
  if (badMod)
    in.opcode = kInvalidOpcode; // reported; the checker skips it
  fn->body.push_back({Statement::Kind::Instr, static_cast<uint32_t>(fn->instrs.size())});
  fn->instrs.push_back(std::move(in));
}

void ParseContext::addLabel(const Tok &name) {
  if (!inFunction(name, "label"))
    return;
  fn->body.push_back({Statement::Kind::Label, static_cast<uint32_t>(fn->labels.size())});
  fn->labels.push_back({name.loc, name.text, static_cast<uint32_t>(fn->instrs.size())});
}

void ParseContext::addPrototype(const Tok &kw, Signature sig) {
  if (!inFunction(kw, "'.callprototype'"))
    return;
  if (fn->body.empty() || fn->body.back().kind != Statement::Kind::Label) {
    error(kw.loc, "'.callprototype' must follow a label");
    return;
  }
  Label &l = fn->labels[fn->body.back().index];
  fn->body.back() = {Statement::Kind::Prototype, static_cast<uint32_t>(fn->prototypes.size())};
  fn->prototypes.push_back({l.loc, l.name, std::move(sig)});
  fn->labels.pop_back();
}

void ParseContext::addTargets(const Tok &kw, std::vector<Operand> targets) {
  if (!inFunction(kw, "directive"))
    return;
  bool isCall = kw.text == ".calltargets";
  if (!isCall && kw.text != ".branchtargets") {
    error(kw.loc, "unknown directive " + quote(kw.text) + " in function body");
    return;
  }
  if (fn->body.empty() || fn->body.back().kind != Statement::Kind::Label) {
    error(kw.loc, quote(kw.text) + " must follow a label");
    return;
  }
  Label &l = fn->labels[fn->body.back().index];
  fn->body.back() = {Statement::Kind::Targets, static_cast<uint32_t>(fn->targets.size())};
  fn->targets.push_back({l.loc, l.name, isCall, std::move(targets)});
  fn->labels.pop_back();
}

void ParseContext::addLoc(const Tok &kw, const std::vector<Tok> &nums, const std::vector<Tok> &tail) {
  if (!inFunction(kw, "'.loc'"))
    return;
  DebugLoc d;
  d.file = static_cast<uint32_t>(toUnsigned(nums[0]));
  d.line = static_cast<uint32_t>(toUnsigned(nums[1]));
  d.col = static_cast<uint32_t>(toUnsigned(nums[2]));
  for (size_t i = 0; i < tail.size();) {
    if (tail[i].text == "function_name" && i + 1 < tail.size()) {
      i += 2;
    } else if (tail[i].text == "inlined_at" && i + 3 < tail.size()) {
      d.inlFile = static_cast<uint32_t>(toUnsigned(tail[i + 1]));
      d.inlLine = static_cast<uint32_t>(toUnsigned(tail[i + 2]));
      d.inlCol = static_cast<uint32_t>(toUnsigned(tail[i + 3]));
      i += 4;
    } else {
      error(tail[i].loc, "unknown '.loc' attribute " + quote(tail[i].text));
      break;
    }
  }
  curDebugLoc = static_cast<int32_t>(fn->debugLocs.size());
  fn->debugLocs.push_back(d);
}

void ParseContext::addPragma(const Tok &kw, std::vector<Tok> strings) {
  (void)kw;
  for (const Tok &s : strings) {
    std::string_view v = s.text.size() >= 2 ? s.text.substr(1, s.text.size() - 2) : s.text;
    if (fn && fn->hasBody)
      fn->pragmas.push_back(v);
    else
      module.pragmas.push_back(v);
  }
}

void ParseContext::beginScope(SourceLoc brace) {
  if (!fn || !fn->hasBody) {
    error(brace, "block outside of a function body");
    return;
  }
  if (++scopeDepth == 200)
    error(brace, "blocks nested too deeply (limit 200)");
  fn->body.push_back({Statement::Kind::ScopeBegin, 0});
}

void ParseContext::endScope() {
  if (!fn || !fn->hasBody)
    return;
  if (scopeDepth)
    --scopeDepth;
  fn->body.push_back({Statement::Kind::ScopeEnd, 0});
}

// ------------------------------------------------------------------ module directives

void ParseContext::setVersion(const Tok &kw, const Tok &value) {
  if (module.versionLoc.line)
    error(kw.loc, "duplicate '.version' directive");
  module.versionLoc = kw.loc;
  std::string_view t = value.text;
  size_t dot = t.find('.');
  uint64_t major = 0, minor = 0;
  if (dot == std::string_view::npos || !parseInt(t.substr(0, dot), major) ||
      !parseInt(t.substr(dot + 1), minor) || t.substr(dot + 1).empty()) {
    error(value.loc, "malformed PTX version " + quote(t) + ", expected MAJOR.MINOR");
    return;
  }
  if (major < 1 || major > 9) {
    error(value.loc, "unsupported PTX version " + quote(t) + " (ptxsim reads 1.0 to 9.x)");
    return;
  }
  module.versionMajor = static_cast<uint32_t>(major);
  module.versionMinor = static_cast<uint32_t>(minor);
}

void ParseContext::setTarget(const Tok &kw, const std::vector<Tok> &targets) {
  module.targetLoc = kw.loc;
  for (const Tok &t : targets) {
    std::string_view n = t.text;
    bool ok = n == "texmode_unified" || n == "texmode_independent" || n == "debug" ||
              n == "map_f64_to_f32";
    if (!ok && n.size() > 3 && n.substr(0, 3) == "sm_") {
      std::string_view num = n.substr(3);
      if (!num.empty() && (num.back() == 'a' || num.back() == 'f'))
        num.remove_suffix(1);
      uint64_t v = 0;
      ok = !num.empty() && parseInt(num, v) && v >= 10 && v < 1000;
    }
    if (!ok)
      error(t.loc, "unknown target " + quote(n));
    module.targets.push_back(n);
  }
}

void ParseContext::setAddressSize(const Tok &kw, const Tok &value) {
  (void)kw;
  uint64_t v = toUnsigned(value);
  if (v != 32 && v != 64)
    error(value.loc, "address size must be 32 or 64, got " + quote(value.text));
  else
    module.addressSize = static_cast<uint32_t>(v);
}

void ParseContext::addFile(const Tok &kw, const Tok &index, const Tok &name) {
  (void)kw;
  std::string n(name.text.size() >= 2 ? name.text.substr(1, name.text.size() - 2) : name.text);
  module.files.emplace_back(static_cast<uint32_t>(toUnsigned(index)), std::move(n));
}

void ParseContext::addSection(const Tok &kw, const Tok &name, uint64_t bytes) {
  module.sections.push_back({kw.loc, name.text, bytes});
}

void ParseContext::addAlias(const Tok &a, const Tok &b) {
  module.aliases.emplace_back(a.text, b.text);
}

// ------------------------------------------------------------------ operands

Operand ParseContext::name(const Tok &t) {
  Operand o;
  o.loc = t.loc;
  if (t.text == "_") {
    o.kind = Operand::Kind::Sink;
    return o;
  }
  if (t.text == "WARP_SZ") {
    // The PTX ISA's one predefined constant (`mov.u32 %r, WARP_SZ;` is what nvcc emits for
    // warpSize): the warp width, which is 32 on every target, so it folds like a literal.
    o.kind = Operand::Kind::Imm;
    o.ival = 32;
    return o;
  }
  o.kind = Operand::Kind::Reg;
  o.name = t.text;
  size_t n = t.text.size();
  if (n > 2 && t.text[0] == '%' && t.text[n - 2] == '.') {
    o.comp = t.text[n - 1];
    o.name = t.text.substr(0, n - 2);
    return o;
  }
  // Video selector: `%r1.b3210`, `%r2.h10` (the scanner only returns well-formed ones).
  size_t dot = t.text.rfind('.');
  if (t.text[0] == '%' && dot != std::string_view::npos && dot + 2 < n + 1 &&
      (t.text[dot + 1] == 'b' || t.text[dot + 1] == 'h')) {
    std::string_view digits = t.text.substr(dot + 2);
    uint16_t sel = static_cast<uint16_t>((t.text[dot + 1] == 'h' ? 0x8000 : 0) |
                                         (digits.size() << 12));
    for (size_t i = 0; i < digits.size(); ++i)
      sel |= static_cast<uint16_t>((digits[i] - '0') << (3 * i));
    o.sel = sel;
    o.name = t.text.substr(0, dot);
  }
  return o;
}

Operand ParseContext::intLit(const Tok &t) {
  Operand o;
  o.kind = Operand::Kind::Imm;
  o.loc = t.loc;
  uint64_t v = 0;
  if (!parseInt(t.text, v))
    error(t.loc, "integer literal " + quote(t.text) + " is malformed or too large for 64 bits");
  o.ival = static_cast<int64_t>(v);
  return o;
}

Operand ParseContext::floatLit(const Tok &t) {
  Operand o;
  o.kind = Operand::Kind::FImm;
  o.loc = t.loc;
  std::string_view s = t.text;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
    uint64_t bits = 0;
    for (char c : s.substr(2))
      bits = bits * 16 + (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    o.fbits = bits;
    o.fwidth = (s[1] == 'f' || s[1] == 'F') ? 32 : 64;
    return o;
  }
  std::string tmp(s);
  double d = std::strtod(tmp.c_str(), nullptr);
  std::memcpy(&o.fbits, &d, sizeof d);
  o.fwidth = 64;
  return o;
}

Operand ParseContext::binary(char op, Operand a, Operand b, SourceLoc loc) {
  a = unwrap(std::move(a));
  b = unwrap(std::move(b));
  if (isInt(a) && isInt(b)) {
    uint64_t x = static_cast<uint64_t>(a.ival), y = static_cast<uint64_t>(b.ival);
    uint64_t r = 0;
    switch (op) {
    case '+': r = x + y; break;
    case '-': r = x - y; break;
    case '*': r = x * y; break;
    case '/':
    case '%':
      if (y == 0) {
        error(b.loc, "division by zero in constant expression");
        break;
      }
      if (a.ival == INT64_MIN && b.ival == -1)
        r = op == '/' ? x : 0;
      else
        r = op == '/' ? static_cast<uint64_t>(a.ival / b.ival) : static_cast<uint64_t>(a.ival % b.ival);
      break;
    case '<': r = y >= 64 ? 0 : x << y; break;
    case '>': r = y >= 64 ? (a.ival < 0 ? ~0ull : 0) : static_cast<uint64_t>(a.ival >> y); break;
    case '&': r = x & y; break;
    case '^': r = x ^ y; break;
    case '|': r = x | y; break;
    }
    a.ival = static_cast<int64_t>(r);
    return a;
  }
  if ((op == '+' || op == '-') && (isName(a) || a.kind == Operand::Kind::Generic) && isInt(b)) {
    a.ival = op == '+' ? a.ival + b.ival : a.ival - b.ival;
    return a;
  }
  if (op == '+' && isInt(a) && (isName(b) || b.kind == Operand::Kind::Generic)) {
    b.ival += a.ival;
    return b;
  }
  if (op == '|' && (isName(a) || a.kind == Operand::Kind::Sink) &&
      (isName(b) || b.kind == Operand::Kind::Sink)) {
    Operand p;
    p.kind = Operand::Kind::Pair;
    p.loc = a.loc;
    p.elems.push_back(std::move(a));
    p.elems.push_back(std::move(b));
    return p;
  }
  error(loc, std::string("unsupported operand expression with '") +
                 (op == '<' ? "<<" : op == '>' ? ">>" : std::string(1, op)) + "'");
  return a;
}

Operand ParseContext::unary(char op, Operand a, SourceLoc loc) {
  a = unwrap(std::move(a));
  if (isInt(a)) {
    if (op == '-')
      a.ival = static_cast<int64_t>(0 - static_cast<uint64_t>(a.ival));
    else if (op == '~')
      a.ival = ~a.ival;
    else
      a.ival = !a.ival;
    return a;
  }
  if (op == '-' && a.kind == Operand::Kind::FImm) {
    a.fbits ^= a.fwidth == 32 ? 0x80000000ull : 0x8000000000000000ull;
    return a;
  }
  if (op == '!' && isName(a)) {
    Operand n;
    n.kind = Operand::Kind::Not;
    n.loc = a.loc;
    n.elems.push_back(std::move(a));
    return n;
  }
  error(a.loc.line ? a.loc : loc, std::string("unsupported operand expression with '") + op + "'");
  return a;
}

Operand ParseContext::call(const Tok &f, std::vector<Operand> args) {
  Operand o;
  o.loc = f.loc;
  if (f.text != "generic") {
    error(f.loc, "unknown operator " + quote(f.text) + " (only 'generic(symbol)' is allowed)");
    return o;
  }
  if (args.size() != 1 || args[0].kind != Operand::Kind::Reg) {
    error(f.loc, "'generic' takes one symbol name");
    return o;
  }
  o.kind = Operand::Kind::Generic;
  o.name = args[0].name;
  o.ival = args[0].ival;
  return o;
}

Operand ParseContext::address(SourceLoc loc, Operand base, std::vector<Operand> extra) {
  base = unwrap(std::move(base));
  Operand a;
  a.kind = Operand::Kind::Address;
  a.loc = loc;
  if (base.kind == Operand::Kind::Reg) {
    a.ival = base.ival;
    base.ival = 0;
  } else if (base.kind == Operand::Kind::Imm) {
    a.ival = base.ival;
  } else {
    error(base.loc.line ? base.loc : loc, "malformed address: expected a register, symbol or "
                                          "integer, with an optional constant offset");
  }
  a.elems.push_back(std::move(base));
  for (Operand &e : extra)
    a.elems.push_back(std::move(e));
  return a;
}

} // namespace ptxsim::ptx

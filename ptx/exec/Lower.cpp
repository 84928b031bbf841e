#include "ptx/exec/Lower.h"
#include "ptx/exec/Schedule.h"

#include "ptx/exec/DeviceRuntime.h"
#include "ptx/exec/Exec.h"
#include "ptx/exec/RegInit.h"
#include "ptx/exec/RegShare.h"
#include "ptx/ir/Cfg.h"
#include "ptx/ir/RegPressure.h"
#include "ptx/jit/JitOps.h"
#include "ptx/parser/Parser.h"
#include "ptx/sema/Checker.h"
#include "ptx/sema/OpcodeTable.h"

#include <cstring>
#include <map>
#include <mutex>
#include <unordered_set>

namespace ptxsim::ptx::exec {

// --- opcode -> lowering registry ------------------------------------------------------------

namespace {
std::vector<LowerFn> &loweringTable() {
  static auto *t = new std::vector<LowerFn>();
  return *t;
}
/// By opcode: the lowering is a built-in one of the arithmetic groups (integer, float, half,
/// conversion, video), whose handlers compute on registers only (ir::Inst::pure).
std::vector<uint8_t> &pureLoweringTable() {
  static auto *t = new std::vector<uint8_t>();
  return *t;
}
/// Per opcode: 1 while its lowering is a built-in one (an extension's, even one that wraps a
/// built-in, may name registers anywhere: shareRegisterSlots leaves its functions alone).
std::vector<uint8_t> &builtinLoweringTable() {
  static auto *t = new std::vector<uint8_t>();
  return *t;
}
std::once_flag gBuiltinsOnce;
bool gRegisteringBuiltins = false;
bool gRegisteringPure = false;
void registerBuiltins() {
  std::call_once(gBuiltinsOnce, [] {
    gRegisteringBuiltins = true;
    gRegisteringPure = true;
    registerIntOps();
    registerFloatOps();
    registerHalfOps();
    registerConvertOps();
    gRegisteringPure = false;
    registerMemoryOps();
    registerAtomicOps();
    registerWarpOps();
    registerControlOps();
    registerMiscOps();
    registerMatrixOps();
    registerVideoOps();
    registerMbarrierOps();
    registerMmaOps();
    registerTextureOps();
    gRegisteringBuiltins = false;
  });
}
} // namespace

LowerFn registerLowering(std::string_view opcode, LowerFn fn) {
  // built-ins first, so that an extension's registration wraps them instead of being replaced
  if (!gRegisteringBuiltins)
    registerBuiltins();
  uint16_t id = lookupOpcode(opcode);
  if (id == kInvalidOpcode) {
    std::fprintf(stderr, "ptxsim: internal error: lowering for unknown opcode '%.*s'\n",
                 (int)opcode.size(), opcode.data());
    std::abort();
  }
  auto &t = loweringTable();
  if (t.size() <= id)
    t.resize(id + 1, nullptr);
  LowerFn previous = t[id];
  t[id] = fn;
  // (an extension's lowering, even one that wraps a built-in, may emit anything)
  auto &pure = pureLoweringTable();
  if (pure.size() <= id)
    pure.resize(id + 1, 0);
  pure[id] = gRegisteringPure;
  auto &builtin = builtinLoweringTable();
  if (builtin.size() <= id)
    builtin.resize(id + 1, 0);
  builtin[id] = gRegisteringBuiltins;
  return previous;
}

namespace {
bool pureLowering(uint16_t id) {
  const auto &t = pureLoweringTable();
  return id < t.size() && t[id];
}
bool builtinLowering(uint16_t id) {
  const auto &t = builtinLoweringTable();
  return id < t.size() && t[id];
}
/// An instruction an extension's lowering emitted whose registers are all in its operand
/// fields: a branch, exit or return, or one the JIT describes (jit::describedOp: a built-in
/// handler an extension that wraps a built-in opcode, such as ld or st, hands on).
bool namesOnlyOperands(const ir::Inst &in) {
  switch (in.ctl) {
  case ir::Ctl::Bra:
  case ir::Ctl::Exit:
  case ir::Ctl::Ret:
  case ir::Ctl::Trap:
    return true;
  case ir::Ctl::None:
  case ir::Ctl::WarpSync:
    return jit::describedOp(in.fn).op != jit::Op::None;
  default:
    return false;
  }
}
} // namespace

LowerFn findLowering(uint16_t id) {
  auto &t = loweringTable();
  return id < t.size() ? t[id] : nullptr;
}

std::string instructionText(const Instruction &in) { return std::string(in.text); }

// --- per-function lowering ------------------------------------------------------------------

namespace {
uint64_t alignUp(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

uint32_t declAlign(const VarDecl &v) {
  uint32_t a = v.align ? v.align : (typeBits(v.type) + 7) / 8 * v.vecWidth;
  return a ? a : 1;
}

uint64_t declSize(const VarDecl &v) {
  uint64_t s = v.sizeBytes();
  if (s == 0 && v.hasInit && v.dims.size() == 1 && v.dims[0] == 0)
    s = v.init.size() * ((typeBits(v.type) + 7) / 8) * v.vecWidth;
  return s;
}

// Splits "%r12" into ("%r", 12); false when there is no trailing number.
bool splitNumbered(std::string_view name, std::string_view &prefix, uint64_t &n) {
  size_t i = name.size();
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
    --i;
  if (i == name.size() || i == 0 || name.size() - i > 9)
    return false;
  // "%r012" is not a range member
  if (name[i] == '0' && name.size() - i > 1)
    return false;
  prefix = name.substr(0, i);
  n = 0;
  for (size_t k = i; k < name.size(); ++k)
    n = n * 10 + (name[k] - '0');
  return true;
}
} // namespace

/// Module-level facts shared by the functions of one module being loaded.
struct ModuleLowering {
  Program &prog;
  LoadedModule &mod;
  const EngineConfig &cfg;
  std::unordered_map<std::string_view, SymbolRef> symbols; ///< module scope
  std::unordered_map<std::string_view, const VarDecl *> sharedDecls; ///< module-scope shared
  std::unordered_map<std::string_view, uint64_t> funcShared; ///< shared placed for all functions
  uint64_t funcSharedBytes = 0;
};

namespace {

/// Names an operand mentions (registers of composite operands and addresses too).
void operandNames(const Operand &o, std::vector<std::string_view> &out) {
  if (o.kind == Operand::Kind::Reg)
    out.push_back(o.name);
  for (const Operand &e : o.elems)
    operandNames(e, out);
}

/// Whether the block that starts at instruction `first` only returns: it leaves the function
/// and holds at most 4 instructions (the return value's st.param and the ret). ptxas copies such
/// a tail into each path that jumps to it, so the paths meet nowhere (EngineConfig::itsLeaveCalls).
bool returnsOnly(const Cfg &cfg, uint32_t first) {
  const BasicBlock &b = cfg.blocks[cfg.blockOf[first]];
  return b.succs.size() == 1 && b.succs[0] == Cfg::kExit && b.end - b.first <= 4;
}

bool isContractibleMul(std::string_view t) { return t == "mul.f32" || t == "mul.ftz.f32"; }
bool isContractibleAdd(std::string_view t) { return t == "add.f32" || t == "add.ftz.f32"; }
bool isControl(std::string_view t) {
  for (std::string_view p : {"bra", "brx", "call", "ret", "exit", "trap"})
    if (t.substr(0, p.size()) == p)
      return true;
  return false;
}

} // namespace

/// Floating-point contraction as ptxas does it: a `mul.f32` and an `add.f32` without rounding
/// modifiers (which the PTX ISA lets the code generator fuse) become one FFMA when the add reads
/// the product and nothing else does. On an H200 the inline-PTX pair `mul.f32 t, a, b;
/// add.f32 d, t, c` gives fma.rn's bits on all 262,144 inputs of tools/hw/probes/math_bits.cu
/// (38,489 of them differ from the two rounded steps; the SASS is one FFMA), while `mul.rn` and
/// `add.rn` stay two instructions. Returned per AST instruction: the index of the mul an add
/// absorbs, or -1. The pair must sit in one straight run of instructions of one scope, unguarded,
/// with the same .ftz, the product read only by the add (counted over the whole function) and
/// neither factor written in between; an add of two such products is left alone (which one
/// ptxas would fuse is not known). Only the result changes: the mul still executes.
std::vector<int32_t> findContractedAdds(const Function &af) {
  std::vector<int32_t> fuse(af.instrs.size(), -1);
  // Mentions of each register, per declaring scope: inline PTX blocks (`{ .reg .f32 t; ... }`)
  // reuse names, so a name counts in the innermost enclosing scope that declares it (0: the
  // function's). `scopeOf[i]`: the chain of scopes of instruction i, innermost last.
  std::vector<std::vector<uint32_t>> chainOf(af.instrs.size());
  std::vector<std::unordered_map<std::string_view, bool>> declared(1);
  {
    std::vector<uint32_t> chain{0};
    for (const Statement &st : af.body) {
      if (st.kind == Statement::Kind::ScopeBegin) {
        chain.push_back((uint32_t)declared.size());
        declared.emplace_back();
      } else if (st.kind == Statement::Kind::ScopeEnd) {
        if (chain.size() > 1)
          chain.pop_back();
      } else if (st.kind == Statement::Kind::Decl && chain.size() > 1) {
        const VarDecl &d = af.decls[st.index];
        if (!d.isRange)
          declared[chain.back()][d.name] = true;
      } else if (st.kind == Statement::Kind::Instr) {
        chainOf[st.index] = chain;
      }
    }
  }
  auto scopeOf = [&](uint32_t instr, std::string_view name) -> uint32_t {
    const std::vector<uint32_t> &c = chainOf[instr];
    for (size_t k = c.size(); k-- > 1;)
      if (declared[c[k]].count(name))
        return c[k];
    return 0;
  };
  std::map<std::pair<uint32_t, std::string_view>, uint32_t> mentions;
  std::vector<std::string_view> names;
  for (uint32_t i = 0; i < af.instrs.size(); ++i)
    for (const Operand &o : af.instrs[i].operands) {
      names.clear();
      operandNames(o, names);
      for (std::string_view n : names)
        ++mentions[{scopeOf(i, n), n}];
    }
  auto mentionsOf = [&](uint32_t instr, std::string_view name) {
    auto it = mentions.find({scopeOf(instr, name), name});
    return it == mentions.end() ? 0u : it->second;
  };
  constexpr size_t kWindow = 64; // statements searched after a mul for its add
  for (size_t s = 0; s < af.body.size(); ++s) {
    if (af.body[s].kind != Statement::Kind::Instr)
      continue;
    const uint32_t mi = af.body[s].index;
    const Instruction &mul = af.instrs[mi];
    if (!isContractibleMul(mul.text) || !mul.guard.empty() || mul.operands.size() != 3 ||
        mul.operands[0].kind != Operand::Kind::Reg)
      continue;
    std::string_view t = mul.operands[0].name;
    if (mentionsOf(mi, t) != 2)
      continue; // written or read elsewhere
    std::vector<std::string_view> factors;
    operandNames(mul.operands[1], factors);
    operandNames(mul.operands[2], factors);
    for (size_t k = s + 1; k < af.body.size() && k <= s + kWindow; ++k) {
      if (af.body[k].kind != Statement::Kind::Instr)
        break; // label, scope or declaration: another block or scope
      const uint32_t ai = af.body[k].index;
      const Instruction &in = af.instrs[ai];
      bool reads = false;
      for (size_t i = 1; i < in.operands.size(); ++i) {
        names.clear();
        operandNames(in.operands[i], names);
        for (std::string_view n : names)
          reads |= n == t;
      }
      if (reads) {
        const bool ftzMul = mul.text.find(".ftz") != std::string_view::npos;
        const bool ftzAdd = in.text.find(".ftz") != std::string_view::npos;
        if (isContractibleAdd(in.text) && in.guard.empty() && ftzMul == ftzAdd && in.operands.size() == 3 &&
            !(in.operands[1].kind == Operand::Kind::Reg && in.operands[2].kind == Operand::Kind::Reg &&
              in.operands[1].name == in.operands[2].name))
          fuse[ai] = (int32_t)mi;
        break;
      }
      if (isControl(in.text))
        break;
      if (!in.operands.empty()) {
        names.clear();
        operandNames(in.operands[0], names);
        bool clobbers = false;
        for (std::string_view n : names)
          for (std::string_view f : factors)
            clobbers |= n == f;
        if (clobbers)
          break;
      }
    }
  }
  // an add of two contractible products: leave both unfused
  std::map<std::pair<uint32_t, std::string_view>, bool> products;
  for (uint32_t i = 0; i < af.instrs.size(); ++i) {
    const Instruction &in = af.instrs[i];
    if (isContractibleMul(in.text) && !in.operands.empty() && in.operands[0].kind == Operand::Kind::Reg &&
        mentionsOf(i, in.operands[0].name) == 2)
      products[{scopeOf(i, in.operands[0].name), in.operands[0].name}] = true;
  }
  for (uint32_t i = 0; i < fuse.size(); ++i)
    if (fuse[i] >= 0) {
      const Instruction &in = af.instrs[i];
      auto isProduct = [&](const Operand &o) {
        return o.kind == Operand::Kind::Reg && products.count({scopeOf(i, o.name), o.name});
      };
      if (isProduct(in.operands[1]) && isProduct(in.operands[2]))
        fuse[i] = -1;
    }
  return fuse;
}

class FunctionLowering {
public:
  FunctionLowering(ModuleLowering &ml, const Function &af, ir::Function &out)
      : ml_(ml), af_(af), out_(out), ctx_(*this) {}

  void run();
  ir::Function &out() { return out_; }
  const Function &ast() const { return af_; }

  // services for LowerCtx
  SymbolRef lookup(std::string_view name) const;
  ir::Opnd constant(uint64_t bits);
  uint32_t newReg() {
    out_.regBytes.push_back(4);
    out_.regDeclIndex.push_back(declCursor_++);
    return out_.numRegs++;
  }
  /// The register (index in the warp's register store) of the declared register whose index
  /// in declaration order is `decl`: given the next free index the first time a name resolves
  /// to it (with the `span` slots it and the next declared ones occupy from there).
  uint32_t place(uint32_t decl, uint32_t span) const {
    uint32_t &r = placed_[decl];
    if (r == ~0u) {
      r = out_.numRegs;
      for (uint32_t k = 0; k < span; ++k) {
        const uint32_t d = decl + k;
        out_.regBytes.push_back(d < declBytes_.size() ? declBytes_[d] : 4);
        out_.regDeclIndex.push_back(d);
        if (k && d < placed_.size() && placed_[d] == ~0u)
          placed_[d] = r + k;
      }
      out_.numRegs += span;
      multiSlot_ |= span > 1;
    }
    return r;
  }
  /// A resolved register symbol: its index placed (place()).
  SymbolRef placed(SymbolRef s) const {
    if (s.kind == SymbolRef::Kind::Reg)
      s.index = place(s.index, std::max<uint32_t>(s.slots, (s.bits + 63) / 64));
    return s;
  }
  ir::Inst &emit();
  const Instruction *cur_ = nullptr;
  std::vector<uint32_t> labelFixups; ///< pcs whose `target` holds a label index
  /// Registers the operands resolved so far read and write; the next emit() takes them.
  std::vector<uint16_t> pendR, pendW;

private:
  void declare(const VarDecl &v);
  /// Marks the instructions emitted from `first` on for `opcode` ir::Inst::pure when its
  /// lowering is a pure built-in one: plain register computations of the arithmetic classes
  /// (not the helpers that read special registers or runtime addresses).
  void markPure(uint16_t opcode, size_t first);
  uint64_t allocFrame(uint64_t size, uint32_t align) {
    frameCursor_ = alignUp(frameCursor_, align);
    uint64_t off = frameCursor_;
    frameCursor_ += size;
    if (frameCursor_ > frameMax_)
      frameMax_ = frameCursor_;
    return off;
  }
  uint64_t allocShared(uint64_t size, uint32_t align) {
    sharedCursor_ = alignUp(sharedCursor_, align);
    uint64_t off = sharedCursor_;
    sharedCursor_ += size;
    return off;
  }

  ModuleLowering &ml_;
  const Function &af_;
  ir::Function &out_;
  LowerCtx ctx_;
  struct Scope {
    std::unordered_map<std::string_view, SymbolRef> names;
    std::unordered_map<std::string_view, std::pair<SymbolRef, uint64_t>> ranges; ///< ref, count
    uint64_t frameCursor;
  };
  std::vector<Scope> scopes_;
  uint64_t frameCursor_ = 0, frameMax_ = 0;
  uint64_t sharedCursor_ = 0;
  std::unordered_map<std::string_view, uint64_t> kernelShared_; ///< module shared placed here
  std::unordered_map<uint64_t, uint32_t> constIndex_;
  uint32_t sinkReg_ = ~0u;
  /// Registers are placed in the warp's register store in the order the code first names
  /// them, not as declared: PTX declares ranges such as %r<75> of which a kernel may use a
  /// few, and nvcc leaves index 0 of each range unused, so a declared register that no
  /// instruction, call or handler field reaches takes no room (a warp's registers are most
  /// of a CTA's host memory and its first-touch page faults). SymbolRef::index of a data
  /// register in the scopes is its index in declaration order (declCursor_ counts them, and
  /// the lowering's own registers, as ir::Function::regDeclIndex keeps them); placed_ maps
  /// it to its place, ~0u until the code names it; declBytes_ holds each one's width.
  uint32_t declCursor_ = 0;
  /// An instruction an ISA extension's lowering emitted that may name registers outside its
  /// operand fields (namesOnlyOperands): the function's registers keep their own slots.
  bool extensionCode_ = false;
  /// A register of two or more slots (.b128, vectors): handlers address its halves as its
  /// offset + 32, so the function's registers keep their own slots.
  mutable bool multiSlot_ = false;
  mutable std::vector<uint32_t> placed_;
  std::vector<uint8_t> declBytes_;
  friend class ptxsim::ptx::exec::LowerCtx;
};

SymbolRef FunctionLowering::lookup(std::string_view name) const {
  // (every name the code uses comes here: a data register it returns is placed, a vector
  // register's span counted generously)
  auto reached = [this](const SymbolRef &s) { return placed(s); };
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto f = it->names.find(name);
    if (f != it->names.end())
      return reached(f->second);
    if (!it->ranges.empty()) {
      std::string_view prefix;
      uint64_t n;
      if (splitNumbered(name, prefix, n)) {
        auto r = it->ranges.find(prefix);
        if (r != it->ranges.end() && n < r->second.second) {
          SymbolRef s = r->second.first;
          s.index += (uint32_t)n * s.slots;
          return reached(s);
        }
      }
    }
  }
  auto g = ml_.symbols.find(name);
  if (g == ml_.symbols.end())
    return {};
  SymbolRef s = g->second;
  if (s.kind == SymbolRef::Kind::Shared) {
    auto fs = ml_.funcShared.find(name);
    if (fs != ml_.funcShared.end()) {
      s.addr = fs->second;
    } else {
      auto *self = const_cast<FunctionLowering *>(this);
      auto ks = self->kernelShared_.find(name);
      if (ks == self->kernelShared_.end()) {
        const VarDecl *d = ml_.sharedDecls.at(name);
        ks = self->kernelShared_.emplace(name, self->allocShared(declSize(*d), declAlign(*d))).first;
      }
      s.addr = ks->second;
    }
  }
  return s;
}

ir::Opnd FunctionLowering::constant(uint64_t bits) {
  auto it = constIndex_.find(bits);
  uint32_t idx;
  if (it != constIndex_.end()) {
    idx = it->second;
  } else {
    idx = (uint32_t)out_.consts.size();
    out_.consts.emplace_back();
    out_.consts.back().fill(bits);
    constIndex_[bits] = idx;
  }
  ir::Opnd o;
  o.cst = out_.consts[idx].data();
  return o;
}

ir::Inst &FunctionLowering::emit() {
  out_.code.emplace_back();
  ir::Inst &in = out_.code.back();
  in.line = cur_->loc.line;
  in.col = cur_->loc.col;
  in.debugLoc = cur_->debugLoc;
  in.opcode = cur_->opcode;
  return in;
}

void FunctionLowering::declare(const VarDecl &v) {
  Scope &sc = scopes_.back();
  SymbolRef s;
  switch (v.space) {
  case Space::Reg: {
    bool pred = v.type == ScalarType::pred;
    s.kind = pred ? SymbolRef::Kind::Pred : SymbolRef::Kind::Reg;
    s.bits = typeBits(v.type) * v.vecWidth;
    s.slots = v.type == ScalarType::b128 && v.vecWidth == 1 ? 2 : 1;
    uint64_t count = v.isRange ? v.rangeCount : 1;
    if (pred) {
      s.index = out_.numPreds;
      out_.numPreds += (uint32_t)count;
    } else {
      s.index = declCursor_; // (placed when the code names it: lookup())
      declCursor_ += (uint32_t)(count * s.slots);
      declBytes_.resize(declCursor_, (uint8_t)std::min<uint32_t>(s.bits / 8 / s.slots, 255));
      placed_.resize(declCursor_, ~0u);
    }
    if (v.isRange)
      sc.ranges[v.name] = {s, count};
    else
      sc.names[v.name] = s;
    return;
  }
  case Space::Local:
  case Space::Param:
    s.kind = SymbolRef::Kind::Frame;
    s.size = declSize(v);
    s.addr = allocFrame(s.size, std::max<uint32_t>(declAlign(v), 4));
    s.space = v.space;
    break;
  case Space::Shared:
    if (v.linkage == Linkage::Extern) {
      s.kind = SymbolRef::Kind::DynShared;
    } else {
      s.kind = SymbolRef::Kind::Shared;
      s.size = declSize(v);
      auto fs = ml_.funcShared.find(v.name);
      s.addr = !af_.isEntry && fs != ml_.funcShared.end() ? fs->second
                                                           : allocShared(s.size, declAlign(v));
    }
    s.space = Space::Shared;
    break;
  default: {
    // function-scope .global/.const (static device variables declared inside a function) were
    // placed by the module loader under their name
    auto g = ml_.symbols.find(v.name);
    if (g != ml_.symbols.end())
      s = g->second;
    else
      s.kind = SymbolRef::Kind::Other;
    break;
  }
  }
  sc.names[v.name] = s;
}

/// ir::Function::pureRun, aheadRowFirst and aheadRows (the code is final).
static void computeAheadRuns(ir::Function &f) {
  const size_t n = f.code.size();
  f.pureRun.assign(n, 0);
  f.aheadRowFirst.assign(n + 1, 0);
  f.aheadRows.clear();
  for (size_t pc = 0; pc < n; ++pc) {
    f.aheadRowFirst[pc] = uint32_t(f.aheadRows.size());
    const size_t end = std::min<size_t>(n, pc + 1 + Warp::kAheadMax);
    size_t p = pc;
    while (p < end && f.code[p].pure)
      ++p;
    f.pureRun[pc] = uint8_t(p - pc);
    uint64_t seen[4] = {};
    auto row = [&](uint16_t r) {
      if (r & ir::Inst::kPredBit)
        return;
      if (r < f.regSlot.size())
        r = uint16_t(f.regSlot[r]); // (the register's row in the store)
      if (r >= 256 || (seen[r >> 6] >> (r & 63) & 1))
        return;
      seen[r >> 6] |= uint64_t(1) << (r & 63);
      f.aheadRows.push_back(r);
    };
    for (size_t q = pc; q < p; ++q) {
      const ir::Inst &in = f.code[q];
      for (unsigned i = 0; i < in.nrs; ++i)
        row(in.rs[i]);
      for (unsigned i = 0; i < in.nrd; ++i)
        row(in.rd[i]);
    }
  }
  f.aheadRowFirst[n] = uint32_t(f.aheadRows.size());
}

void FunctionLowering::markPure(uint16_t opcode, size_t first) {
  if (!pureLowering(opcode))
    return;
  for (size_t i = first; i < out_.code.size(); ++i) {
    ir::Inst &in = out_.code[i];
    if (in.ctl != ir::Ctl::None || !in.fn || in.fn == movSpecial || in.fn == movRuntimeAddress)
      continue;
    switch (in.cls) {
    case ir::OpClass::Alu:
    case ir::OpClass::Mul:
    case ir::OpClass::Fp32:
    case ir::OpClass::Fp64:
    case ir::OpClass::Half:
    case ir::OpClass::Sfu: in.pure = true; break;
    default: break;
    }
  }
}

void FunctionLowering::run() {
  out_.name = std::string(af_.name);
  out_.isEntry = af_.isEntry;
  out_.hasBody = true;
  out_.ast = &af_;
  out_.fileName = ml_.mod.fileName;
  out_.smVersion = ml_.mod.ast->smVersion();
  sharedCursor_ = af_.isEntry ? ml_.funcSharedBytes : 0;
  scopes_.emplace_back();
  scopes_.back().frameCursor = 0;
  // parameters
  if (af_.isEntry) {
    uint64_t off = 0;
    for (const VarDecl &p : af_.sig.params) {
      uint64_t size = declSize(p);
      uint32_t align = std::max<uint32_t>(declAlign(p), 1);
      off = alignUp(off, align);
      SymbolRef s;
      s.kind = SymbolRef::Kind::KParam;
      s.addr = off;
      s.size = size;
      s.space = Space::Param;
      scopes_.back().names[p.name] = s;
      out_.kparamOffsets.push_back((uint32_t)off);
      out_.kparamSizes.push_back((uint32_t)size);
      off += size;
    }
    out_.kparamBytes = (uint32_t)off;
  } else {
    auto place = [&](const VarDecl &p, std::vector<uint32_t> &offs, std::vector<uint32_t> &sizes) {
      if (p.space == Space::Reg) {
        // register-passed parameter: a callee register; calls copy into it
        declare(p);
        const SymbolRef s = placed(scopes_.back().names[p.name]); // (calls copy into it)
        offs.push_back(0x80000000u | s.index);
        sizes.push_back((typeBits(p.type) + 7) / 8);
        return;
      }
      uint64_t size = declSize(p);
      SymbolRef s;
      s.kind = SymbolRef::Kind::Frame;
      s.size = size;
      s.addr = allocFrame(size, std::max<uint32_t>(declAlign(p), 4));
      s.space = Space::Param;
      scopes_.back().names[p.name] = s;
      offs.push_back((uint32_t)s.addr);
      sizes.push_back((uint32_t)size);
    };
    for (const VarDecl &p : af_.sig.params)
      place(p, out_.paramOffsets, out_.paramSizes);
    for (const VarDecl &p : af_.sig.returns)
      place(p, out_.retOffsets, out_.retSizes);
  }
  for (const FuncDirective &d : af_.directives) {
    if (d.name == "maxntid" || d.name == "reqntid") {
      uint64_t n = 1;
      for (uint64_t v : d.values)
        n *= v;
      out_.maxThreads = (uint32_t)n;
    }
  }
  {
    std::string sig = out_.name + "(";
    for (size_t i = 0; i < af_.sig.params.size(); ++i) {
      const VarDecl &p = af_.sig.params[i];
      sig += (i ? ", " : "") + std::string(".") + std::string(typeName(p.type));
      if (p.hasDims)
        sig += "[" + std::to_string(p.elementCount()) + "]";
    }
    out_.signature = sig + ")";
  }
  scopes_.back().frameCursor = frameCursor_;

  std::vector<uint32_t> astToPc(af_.instrs.size() + 1, 0);
  out_.numPreds = std::max<uint32_t>(out_.numPreds, 2);
  const std::vector<int32_t> contracted = findContractedAdds(af_);
  for (const Statement &st : af_.body) {
    switch (st.kind) {
    case Statement::Kind::Decl:
      declare(af_.decls[st.index]);
      break;
    case Statement::Kind::ScopeBegin:
      scopes_.emplace_back();
      scopes_.back().frameCursor = frameCursor_;
      break;
    case Statement::Kind::ScopeEnd:
      frameCursor_ = scopes_.back().frameCursor;
      scopes_.pop_back();
      break;
    case Statement::Kind::Instr: {
      const Instruction &ai = af_.instrs[st.index];
      astToPc[st.index] = (uint32_t)out_.code.size();
      cur_ = &ai;
      ctx_.ai_ = &ai;
      ctx_.fusedMul_ = contracted[st.index] >= 0 ? &af_.instrs[contracted[st.index]] : nullptr;
      LowerFn fn = findLowering(ai.opcode);
      size_t before = out_.code.size();
      if (!fn)
        ctx_.unsupported("");
      else if (!fn(ctx_)) {
        if (out_.code.size() == before)
          ctx_.unsupported("");
      }
      markPure(ai.opcode, before);
      if (!builtinLowering(ai.opcode))
        for (size_t i = before; i < out_.code.size(); ++i)
          extensionCode_ |= !namesOnlyOperands(out_.code[i]);
      break;
    }
    default:
      break;
    }
  }
  astToPc[af_.instrs.size()] = (uint32_t)out_.code.size();
  // Implicit return at the end of a function.
  {
    Instruction fake;
    fake.loc = af_.loc;
    cur_ = &fake;
    ctx_.ai_ = &fake;
    ir::Inst &in = emit();
    in.ctl = af_.isEntry ? ir::Ctl::Exit : ir::Ctl::Ret;
    in.cls = ir::OpClass::Control;
    in.guard = ir::kPredTrue;
    cur_ = nullptr;
  }
  // Branch targets: label index -> pc.
  for (uint32_t pc : labelFixups) {
    ir::Inst &in = out_.code[pc];
    in.target = astToPc[af_.labels[in.target].instrIndex];
  }
  for (auto &tbl : out_.jumpTables)
    for (uint32_t &t : tbl)
      t = astToPc[af_.labels[t].instrIndex];
  // Reconvergence points from the AST CFG's post-dominators, mapped to IR pcs.
  out_.reconv.assign(out_.code.size(), ir::kNoPc);
  if (!af_.instrs.empty()) {
    Cfg cfg = buildCfg(af_);
    for (size_t i = 0; i < af_.instrs.size(); ++i) {
      uint32_t b = cfg.blockOf[i];
      if (i + 1 != cfg.blocks[b].end)
        continue; // only the block's last instruction branches
      uint32_t r = cfg.reconvergencePc(b, (uint32_t)af_.instrs.size());
      uint32_t rpc = r >= af_.instrs.size() ? ir::kNoPc : astToPc[r];
      if (ml_.cfg.itsLeaveCalls && !af_.isEntry && rpc != ir::kNoPc && returnsOnly(cfg, r))
        rpc = ir::kNoPc; // no join: each path returns (the lanes' call decides where they meet)
      // the branch is the last IR instruction emitted for AST instruction i
      uint32_t last = astToPc[i + 1 <= af_.instrs.size() ? i + 1 : i];
      for (uint32_t pc = astToPc[i]; pc < last; ++pc)
        out_.reconv[pc] = rpc;
    }
    assignSassRoles(out_, af_, astToPc); // (for the timing model's latencies too)
    markConstOperands(out_, af_, astToPc);
    markCountingAtomics(out_);
    if (ml_.cfg.mergeSharedLoads)
      mergeSharedLoads(out_, af_, cfg, astToPc); // (before the scheduler moves them)
    // blocks joined where a short branch became predication (the scheduler's and the
    // fusion's unit)
    const Cfg sched = ml_.cfg.ifConvertMax
                          ? ifConvertShortBranches(out_, af_, cfg, astToPc, ml_.cfg.ifConvertMax)
                          : cfg;
    if (ml_.cfg.scheduleLoads)
      scheduleLoadsEarly(out_, af_, sched, astToPc);
    if (ml_.cfg.fusePairs)
      fuseSassPairs(out_, sched, astToPc);
  }
  for (const ir::Inst &in : out_.code)
    if (in.ctl == ir::Ctl::Call || in.ctl == ir::Ctl::CallIndirect)
      out_.makesCalls = true;
  out_.frameSize = (uint32_t)alignUp(frameMax_, 16);
  if (af_.isEntry) {
    out_.staticShared = (uint32_t)sharedCursor_;
    if (ml_.cfg.shareRegisterSlots && !extensionCode_ && !multiSlot_)
      shareRegisterSlots(out_); // (the code is final: after the passes above)
    computeZeroAtStart(out_);
    computeSpinRegs(out_);
  }
  computeAheadRuns(out_);
}

// --- LowerCtx ---------------------------------------------------------------------------------

bool LowerCtx::has(Mod m) const { return hasModifier(modId(m)); }

bool LowerCtx::hasModifier(uint16_t id) const {
  for (const ModRef &r : ai_->mods)
    if (r.id == id)
      return true;
  return false;
}

Mod LowerCtx::first(std::initializer_list<Mod> choices) const {
  for (const ModRef &r : ai_->mods)
    for (Mod m : choices)
      if (r.id == modId(m))
        return m;
  return Mod::Count;
}

unsigned LowerCtx::vecWidth() const {
  Mod m = first({Mod::v2, Mod::v4, Mod::v8});
  return m == Mod::v2 ? 2 : m == Mod::v4 ? 4 : m == Mod::v8 ? 8 : 1;
}

ir::Function &LowerCtx::fn() { return fl_.out(); }

const Function &LowerCtx::astFn() const { return fl_.ast(); }

void LowerCtx::labelTarget(ir::Inst &in, uint32_t labelIndex) {
  in.target = labelIndex;
  fl_.labelFixups.push_back(uint32_t(&in - fl_.out().code.data()));
}

SymbolRef LowerCtx::lookup(std::string_view name) const { return fl_.lookup(name); }

ir::Opnd LowerCtx::constant(uint64_t bits) { return fl_.constant(bits); }

uint32_t LowerCtx::temp() { return fl_.newReg() * ir::kWarpSize; }

ir::Inst &LowerCtx::emit(ir::ExecFn fn, ir::OpClass cls) {
  ir::Inst &in = fl_.emit();
  in.fn = fn;
  in.cls = cls;
  if (!ai_->guard.empty()) {
    SymbolRef s = fl_.lookup(ai_->guard);
    in.guard = (uint16_t)s.index;
    in.guardXor = ai_->guardNegated ? ~0u : 0u;
    fl_.pendR.push_back(ir::Inst::kPredBit | in.guard);
  }
  for (uint16_t r : fl_.pendW)
    if (in.nrd < sizeof in.rd / sizeof in.rd[0])
      in.rd[in.nrd++] = r;
  for (uint16_t r : fl_.pendR) {
    bool dup = false;
    for (unsigned i = 0; i < in.nrs; ++i)
      dup |= in.rs[i] == r;
    if (!dup && in.nrs < sizeof in.rs / sizeof in.rs[0])
      in.rs[in.nrs++] = r;
  }
  fl_.pendR.clear();
  fl_.pendW.clear();
  return in;
}

ir::Inst &LowerCtx::emitHelper(ir::ExecFn fn, uint32_t dstReg, int predRead) {
  std::vector<uint16_t> r, w;
  std::swap(r, fl_.pendR);
  std::swap(w, fl_.pendW);
  ir::Inst &in = fl_.emit(); // unguarded, and the pending operands are not its own
  in.fn = fn;
  in.cls = ir::OpClass::Alu;
  in.dst[0] = dstReg;
  in.rd[0] = (uint16_t)(dstReg / ir::kWarpSize);
  in.nrd = 1;
  if (predRead >= 0) {
    in.rs[0] = ir::Inst::kPredBit | (uint16_t)predRead;
    in.nrs = 1;
  }
  std::swap(r, fl_.pendR);
  std::swap(w, fl_.pendW);
  fl_.pendR.push_back((uint16_t)(dstReg / ir::kWarpSize));
  return in;
}

ir::Inst &LowerCtx::emitCtl(ir::Ctl ctl, ir::OpClass cls) {
  ir::Inst &in = emit(nullptr, cls);
  in.ctl = ctl;
  return in;
}

ir::Inst &LowerCtx::emitWait(ir::PollFn poll, ir::OpClass cls) {
  ir::Inst &in = emitCtl(ir::Ctl::Wait, cls);
  in.poll = poll;
  return in;
}

bool LowerCtx::unsupported(const std::string &what) {
  (void)what; // the instruction text says enough: 'cvt.rs.f16x2.f32'
  fn().notes.push_back(std::string(ai_->text));
  ir::Inst &in = emitCtl(ir::Ctl::Unsupported, ir::OpClass::Misc);
  in.guard = ir::kPredTrue;
  in.guardXor = 0;
  in.aux = (uint32_t)fn().notes.size() - 1;
  return false;
}

bool LowerCtx::isPredOperand(const Operand &o) const {
  if (o.kind == Operand::Kind::Not)
    return true;
  if (o.kind != Operand::Kind::Reg)
    return false;
  return fl_.lookup(o.name).kind == SymbolRef::Kind::Pred;
}

unsigned LowerCtx::regBits(const Operand &o) const {
  if (o.kind != Operand::Kind::Reg)
    return 0;
  SymbolRef s = fl_.lookup(o.name);
  return s.kind == SymbolRef::Kind::Reg ? s.bits : 0;
}

uint32_t LowerCtx::dst(const Operand &o) {
  if (o.kind == Operand::Kind::Reg) {
    SymbolRef s = fl_.lookup(o.name);
    if (s.kind == SymbolRef::Kind::Reg) {
      fl_.pendW.push_back((uint16_t)s.index);
      return s.index * ir::kWarpSize;
    }
  }
  if (fl_.sinkReg_ == ~0u)
    fl_.sinkReg_ = fl_.newReg();
  return fl_.sinkReg_ * ir::kWarpSize;
}

uint16_t LowerCtx::predDst(const Operand &o) {
  if (o.kind == Operand::Kind::Reg) {
    SymbolRef s = fl_.lookup(o.name);
    if (s.kind == SymbolRef::Kind::Pred) {
      fl_.pendW.push_back(ir::Inst::kPredBit | (uint16_t)s.index);
      return (uint16_t)s.index;
    }
  }
  // sink: a scratch predicate
  return (uint16_t)fl_.out().numPreds++;
}

void LowerCtx::predSrc(const Operand &o, uint16_t &idx, uint32_t &x) {
  x = 0;
  const Operand *p = &o;
  if (p->kind == Operand::Kind::Not) {
    x = ~0u;
    p = &p->elems[0];
  }
  if (p->kind == Operand::Kind::Imm) {
    idx = p->ival ? ir::kPredTrue : ir::kPredFalse;
    return;
  }
  SymbolRef s = fl_.lookup(p->name);
  if (s.kind == SymbolRef::Kind::Pred) {
    idx = (uint16_t)s.index;
    fl_.pendR.push_back(ir::Inst::kPredBit | idx);
    return;
  }
  // a data register used as a predicate (non-zero is true): convert
  uint32_t tmp = temp();
  ir::Opnd v = src(*p, ScalarType::b32);
  uint16_t t = (uint16_t)fl_.out().numPreds++;
  // reuse the helper path for its bookkeeping, then make it a predicate write
  ir::Inst &in = emitHelper(nonZeroToPred, tmp);
  fl_.pendR.pop_back();
  in.src[0] = v;
  in.dst[0] = t;
  in.rd[0] = ir::Inst::kPredBit | t;
  if (!v.cst) {
    in.rs[0] = (uint16_t)(v.reg / ir::kWarpSize);
    in.nrs = 1;
  }
  fl_.pendR.push_back(ir::Inst::kPredBit | t);
  idx = t;
}

namespace {
uint64_t immToType(const Operand &o, ScalarType t) {
  unsigned bits = typeBits(t);
  if (o.kind == Operand::Kind::FImm) {
    if (t == ScalarType::f64 || (bits == 64 && o.fwidth == 64)) {
      if (o.fwidth == 64)
        return o.fbits;
      float f;
      uint32_t b = (uint32_t)o.fbits;
      std::memcpy(&f, &b, 4);
      double d = f;
      uint64_t r;
      std::memcpy(&r, &d, 8);
      return r;
    }
    if (t == ScalarType::f32 || bits == 32) {
      if (o.fwidth == 32)
        return o.fbits;
      double d;
      std::memcpy(&d, &o.fbits, 8);
      float f = (float)d;
      uint32_t r;
      std::memcpy(&r, &f, 4);
      return r;
    }
    if (t == ScalarType::f16 || t == ScalarType::bf16) {
      double d;
      if (o.fwidth == 64)
        std::memcpy(&d, &o.fbits, 8);
      else {
        float f;
        uint32_t b = (uint32_t)o.fbits;
        std::memcpy(&f, &b, 4);
        d = f;
      }
      return t == ScalarType::f16 ? f64ToF16Bits(d) : f64ToBf16Bits(d);
    }
    return o.fbits;
  }
  // integer literal: for float types the value is taken as the integer's bits... PTX requires
  // float literals for float operands except 0; convert the value for safety.
  if (isFloatType(t) && o.ival != 0) {
    double d = (double)o.ival;
    if (t == ScalarType::f64) {
      uint64_t r;
      std::memcpy(&r, &d, 8);
      return r;
    }
    if (t == ScalarType::f32) {
      float f = (float)d;
      uint32_t r;
      std::memcpy(&r, &f, 4);
      return r;
    }
  }
  return (uint64_t)o.ival;
}
} // namespace

ir::Opnd LowerCtx::src(const Operand &o, ScalarType t) {
  switch (o.kind) {
  case Operand::Kind::Imm:
  case Operand::Kind::FImm:
    return constant(immToType(o, t));
  case Operand::Kind::Reg: {
    if (o.name.size() > 1 && o.name[0] == '%' && lookupSpecialRegister(o.name)) {
      uint32_t r = temp();
      ir::Inst &in = emitHelper(movSpecial, r);
      in.aux = specialRegId(o.name, o.comp);
      ir::Opnd v;
      v.reg = r;
      return v;
    }
    SymbolRef s = fl_.lookup(o.name);
    ir::Opnd v;
    switch (s.kind) {
    case SymbolRef::Kind::Reg:
      v.reg = s.index * ir::kWarpSize;
      fl_.pendR.push_back((uint16_t)s.index);
      return v;
    case SymbolRef::Kind::Pred: {
      // predicate used as a value (e.g. mov.pred, selp with pred data): 0/1 per lane
      uint32_t r = temp();
      ir::Inst &in = emitHelper(predToValue, r, (int)s.index);
      in.psrc[0] = (uint16_t)s.index;
      v.reg = r;
      return v;
    }
    case SymbolRef::Kind::Global:
    case SymbolRef::Kind::Shared:
      return constant(s.addr + (uint64_t)o.ival);
    case SymbolRef::Kind::Function:
      return constant(kCodeBase + 16ull * s.index);
    case SymbolRef::Kind::Frame:
    case SymbolRef::Kind::DynShared:
    case SymbolRef::Kind::KParam: {
      uint32_t r = temp();
      ir::Inst &in = emitHelper(movRuntimeAddress, r);
      in.abase = s.kind == SymbolRef::Kind::Frame       ? ir::AddrBase::Frame
                 : s.kind == SymbolRef::Kind::DynShared ? ir::AddrBase::DynShared
                                                        : ir::AddrBase::KParam;
      in.off = (int64_t)s.addr + o.ival;
      v.reg = r;
      return v;
    }
    default:
      return constant(0);
    }
  }
  default:
    return constant(0);
  }
}

void LowerCtx::address(const Operand &o, Space sp, ir::Inst &in, unsigned slot) {
  // Space of the access
  auto setSpace = [&](Space s) {
    switch (s) {
    case Space::Global: in.space = ir::MemSpace::Global; break;
    case Space::Shared: in.space = ir::MemSpace::Shared; break;
    case Space::Local: in.space = ir::MemSpace::Local; break;
    case Space::Const: in.space = ir::MemSpace::Const; break;
    case Space::Param:
      in.space = fl_.out().isEntry ? ir::MemSpace::Param : ir::MemSpace::Local;
      break;
    default: in.space = ir::MemSpace::Generic; break;
    }
  };
  setSpace(sp);
  const Operand *base = &o;
  int64_t off = 0;
  if (o.kind == Operand::Kind::Address) {
    base = &o.elems[0];
    off = o.ival;
  }
  if (base->kind == Operand::Kind::Imm) {
    in.abase = ir::AddrBase::None;
    in.off = base->ival + off;
    return;
  }
  if (base->kind != Operand::Kind::Reg) {
    in.abase = ir::AddrBase::None;
    in.off = off;
    return;
  }
  SymbolRef s = fl_.lookup(base->name);
  off += base->ival;
  switch (s.kind) {
  case SymbolRef::Kind::Reg:
    in.abase = ir::AddrBase::Reg;
    in.src[slot].reg = s.index * ir::kWarpSize;
    fl_.pendR.push_back((uint16_t)s.index);
    in.addr32 = s.bits == 32;
    in.off = off;
    return;
  case SymbolRef::Kind::Global:
    in.abase = ir::AddrBase::None;
    in.off = (int64_t)s.addr + off;
    if (in.space == ir::MemSpace::Generic)
      in.space = ir::MemSpace::Global;
    return;
  case SymbolRef::Kind::Shared:
    in.abase = ir::AddrBase::None;
    in.off = (int64_t)s.addr + off;
    in.space = ir::MemSpace::Shared;
    return;
  case SymbolRef::Kind::DynShared:
    in.abase = ir::AddrBase::DynShared;
    in.off = off;
    in.space = ir::MemSpace::Shared;
    return;
  case SymbolRef::Kind::Frame:
    in.abase = ir::AddrBase::Frame;
    in.off = (int64_t)s.addr + off;
    in.space = ir::MemSpace::Local;
    return;
  case SymbolRef::Kind::KParam:
    in.abase = ir::AddrBase::KParam;
    in.off = (int64_t)s.addr + off;
    in.space = ir::MemSpace::Param;
    return;
  default:
    in.abase = ir::AddrBase::None;
    in.off = off;
    return;
  }
}

// --- module loading -----------------------------------------------------------------------------

namespace {
void collectNames(const Operand &o, std::vector<std::string_view> &out) {
  if (o.kind == Operand::Kind::Reg || o.kind == Operand::Kind::Generic)
    out.push_back(o.name);
  for (const Operand &e : o.elems)
    collectNames(e, out);
}

Builtin builtinFor(std::string_view name) {
  if (name == "vprintf")
    return Builtin::Vprintf;
  if (name == "malloc")
    return Builtin::Malloc;
  if (name == "free")
    return Builtin::Free;
  if (name == "__assertfail" || name == "__assert_fail")
    return Builtin::AssertFail;
  if (uint32_t id = deviceRuntimeBuiltin(name))
    return Builtin(id);
  return Builtin::Unresolved;
}
} // namespace

namespace {
/// Registers of function `idx` and the functions it calls directly: the largest estimate along
/// any call chain (a callee's registers come from the same per-thread file, and what the caller
/// keeps live across a call is saved by the ABI). Recursion stops at a function on the chain.
constexpr uint32_t kMinRegsWithCalls = 24;

uint32_t hardwareRegisterEstimate(const std::vector<std::unique_ptr<ir::Function>> &fns,
                                  uint32_t idx) {
  std::unordered_map<uint32_t, uint32_t> memo;
  std::unordered_set<uint32_t> onChain;
  auto rec = [&](auto &self, uint32_t i) -> uint32_t {
    if (i >= fns.size() || !fns[i]->hasBody || onChain.count(i))
      return 0;
    if (auto it = memo.find(i); it != memo.end())
      return it->second;
    onChain.insert(i);
    uint32_t r = ir::estimateRegisters(*fns[i]);
    for (const ir::Inst &in : fns[i]->code) {
      if (in.ctl != ir::Ctl::Call && in.ctl != ir::Ctl::CallIndirect)
        continue;
      // The calling convention passes arguments in R4 up and keeps values live across the
      // call in callee-saved registers (R16 up): ptxas gives a caller at least 24.
      r = std::max(r, kMinRegsWithCalls);
      if (in.ctl == ir::Ctl::Call && !fns[i]->calls[in.target].builtin)
        r = std::max(r, self(self, fns[i]->calls[in.target].callee));
    }
    onChain.erase(i);
    return memo[i] = r;
  };
  return rec(rec, idx);
}
} // namespace

int Program::load(std::string_view text, const std::string &fileName, DiagEngine &diags,
                  const EngineConfig &cfg) {
  registerBuiltins();
  auto lm = std::make_unique<LoadedModule>();
  lm->fileName = fileName;
  lm->ast = parsePtx(std::string(text), fileName, diags);
  if (diags.hasErrors() || !checkModule(*lm->ast, diags))
    return -1;
  Module &m = *lm->ast;
  ModuleLowering ml{*this, *lm, cfg, {}, {}, {}, 0};
  auto err = [&](SourceLoc loc, std::string msg) { diags.error(fileName, loc, std::move(msg)); };

  // Functions: indices first, so bodies and initializers can take their addresses.
  std::vector<std::pair<const Function *, uint32_t>> bodies;
  for (const Function &f : m.functions) {
    SymbolRef s;
    s.kind = SymbolRef::Kind::Function;
    auto existing = ml.symbols.find(f.name);
    if (f.hasBody) {
      uint32_t idx;
      auto pending = pendingFunctions_.find(std::string(f.name));
      bool visible = f.linkage == Linkage::Visible || f.linkage == Linkage::Weak || f.isEntry;
      if (existing != ml.symbols.end() && existing->second.kind == SymbolRef::Kind::Function &&
          !functions_[existing->second.index]->hasBody) {
        idx = existing->second.index; // a declaration earlier in the module
      } else if (visible && pending != pendingFunctions_.end()) {
        idx = pending->second; // an earlier module's .extern declaration: link it to this body
        pendingFunctions_.erase(pending);
      } else {
        idx = (uint32_t)functions_.size();
        functions_.push_back(std::make_unique<ir::Function>());
      }
      functions_[idx]->name = std::string(f.name);
      functions_[idx]->builtin = 0;
      s.index = idx;
      bodies.push_back({&f, idx});
      lm->functions.push_back(idx);
      lm->functionByName[std::string(f.name)] = idx;
      if (f.linkage == Linkage::Visible || f.linkage == Linkage::Weak || f.isEntry)
        visibleFunctions_[std::string(f.name)] = idx;
    } else {
      if (existing != ml.symbols.end())
        continue;
      // The device runtime is ptxsim's own even when a module (NVIDIA's cudadevrt) defines it.
      auto vis = visibleFunctions_.find(std::string(f.name));
      if (vis != visibleFunctions_.end() && !deviceRuntimeBuiltin(f.name)) {
        s.index = vis->second;
      } else {
        // external function without a body: a runtime builtin, or unresolved until called
        s.index = (uint32_t)functions_.size();
        functions_.push_back(std::make_unique<ir::Function>());
        auto &fn = *functions_.back();
        fn.name = std::string(f.name);
        fn.hasBody = false;
        fn.builtin = (uint32_t)builtinFor(f.name);
        if (fn.builtin >= (uint32_t)Builtin::DeviceRuntimeFirst)
          usesDeviceRuntime = true;
        // a later module may define it (separate compilation, -rdc=true)
        if (fn.builtin == (uint32_t)Builtin::Unresolved)
          pendingFunctions_[fn.name] = s.index;
      }
    }
    ml.symbols[f.name] = s;
  }

  // Variables: allocate .global/.const, resolve externs, remember shared ones.
  struct Pending {
    const VarDecl *v;
    uint64_t addr;
  };
  std::vector<Pending> inits;
  auto placeVar = [&](const VarDecl &v) {
    SymbolRef s;
    s.space = v.space;
    if (v.space == Space::Shared) {
      ml.sharedDecls[v.name] = &v;
      s.kind = v.linkage == Linkage::Extern ? SymbolRef::Kind::DynShared : SymbolRef::Kind::Shared;
      s.size = declSize(v);
      ml.symbols[v.name] = s;
      return;
    }
    if (v.space != Space::Global && v.space != Space::Const) {
      s.kind = SymbolRef::Kind::Other;
      ml.symbols[v.name] = s;
      return;
    }
    s.kind = SymbolRef::Kind::Global;
    if (v.linkage == Linkage::Extern) {
      auto g = visibleGlobals_.find(std::string(v.name));
      if (g == visibleGlobals_.end()) {
        // Defined by a module loaded later (separate compilation): reserve it now with its
        // declared size; the definition fills in the same storage.
        uint64_t size = declSize(v);
        if (!size) {
          err(v.loc, "unresolved external variable '" + std::string(v.name) +
                         "' (no module loaded so far defines it, and its size is unknown)");
          return;
        }
        uint64_t addr = mem_.allocate(size, v.space == Space::Const ? AllocKind::Const : AllocKind::Global);
        GlobalSymbol pg{std::string(v.name), addr, size, v.space == Space::Const, false};
        pendingGlobals_[pg.name] = pg;
        visibleGlobals_[pg.name] = pg;
        g = visibleGlobals_.find(pg.name);
      }
      s.addr = g->second.addr;
      s.size = g->second.size;
      ml.symbols[v.name] = s;
      return;
    }
    uint64_t size = declSize(v);
    uint64_t addr = 0;
    auto pend = pendingGlobals_.find(std::string(v.name));
    if (pend != pendingGlobals_.end() && v.linkage != Linkage::None) {
      if (size > pend->second.size) {
        err(v.loc, "variable '" + std::string(v.name) + "' is defined with " + std::to_string(size) +
                       " bytes but an earlier module declared it .extern with " +
                       std::to_string(pend->second.size));
        return;
      }
      addr = pend->second.addr;
      size = pend->second.size;
      pendingGlobals_.erase(pend);
    } else {
      addr = mem_.allocate(size, v.space == Space::Const ? AllocKind::Const : AllocKind::Global);
    }
    if (!addr) {
      err(v.loc, "out of device memory for variable '" + std::string(v.name) + "'");
      return;
    }
    s.addr = addr;
    s.size = size;
    ml.symbols[v.name] = s;
    GlobalSymbol g{std::string(v.name), addr, size, v.space == Space::Const, false};
    for (std::string_view a : v.attributes)
      if (a.find("managed") != std::string_view::npos)
        g.isManaged = true;
    lm->globals[g.name] = g;
    if (v.linkage == Linkage::Visible || v.linkage == Linkage::Weak || v.linkage == Linkage::Common)
      visibleGlobals_[g.name] = g;
    if (v.hasInit)
      inits.push_back({&v, addr});
  };
  for (const VarDecl &v : m.globals)
    placeVar(v);
  // function-scope .global/.const variables (static device variables)
  for (const Function &f : m.functions)
    for (const VarDecl &v : f.decls)
      if (v.space == Space::Global || v.space == Space::Const)
        placeVar(v);
  if (diags.hasErrors())
    return -1;

  // Initializers.
  for (const Pending &p : inits) {
    const VarDecl &v = *p.v;
    unsigned elemBytes = (typeBits(v.type) + 7) / 8;
    uint64_t size = declSize(v);
    uint64_t pos = 0;
    for (const Operand &leaf : v.init) {
      if (pos + elemBytes > size)
        break;
      uint64_t bits = 0;
      if (leaf.kind == Operand::Kind::Reg || leaf.kind == Operand::Kind::Generic) {
        auto sym = ml.symbols.find(leaf.name);
        if (sym != ml.symbols.end()) {
          if (sym->second.kind == SymbolRef::Kind::Function)
            bits = kCodeBase + 16ull * sym->second.index;
          else
            bits = sym->second.addr;
        }
        bits += (uint64_t)leaf.ival;
      } else {
        bits = immToType(leaf, v.type);
      }
      std::memcpy(reinterpret_cast<void *>(p.addr + pos), &bits, elemBytes);
      pos += elemBytes;
    }
  }

  // Shared variables that non-entry functions reference get module-wide offsets first.
  {
    std::vector<std::string_view> names;
    for (const Function &f : m.functions) {
      if (f.isEntry || !f.hasBody)
        continue;
      for (const Instruction &in : f.instrs)
        for (const Operand &o : in.operands)
          collectNames(o, names);
      for (const VarDecl &v : f.decls)
        if (v.space == Space::Shared && v.linkage != Linkage::Extern) {
          ml.funcSharedBytes = alignUp(ml.funcSharedBytes, declAlign(v));
          ml.funcShared[v.name] = ml.funcSharedBytes;
          ml.funcSharedBytes += declSize(v);
        }
    }
    for (std::string_view n : names) {
      auto d = ml.sharedDecls.find(n);
      if (d == ml.sharedDecls.end() || d->second->linkage == Linkage::Extern ||
          ml.funcShared.count(n))
        continue;
      ml.funcSharedBytes = alignUp(ml.funcSharedBytes, declAlign(*d->second));
      ml.funcShared[n] = ml.funcSharedBytes;
      ml.funcSharedBytes += declSize(*d->second);
    }
  }

  // Bodies.
  for (auto &[af, idx] : bodies) {
    FunctionLowering fl(ml, *af, *functions_[idx]);
    fl.run();
  }
  int id = (int)modules_.size();
  for (auto &[af, idx] : bodies) {
    const ir::Function &f = *functions_[idx];
    if (!f.isEntry)
      continue;
    Kernel k;
    k.name = f.name;
    k.fn = &f;
    k.module = (uint32_t)id;
    k.paramOffsets = f.kparamOffsets;
    k.paramSizes = f.kparamSizes;
    k.paramBytes = f.kparamBytes;
    k.staticShared = f.staticShared;
    k.localBytes = f.frameSize;
    k.numRegs = f.numRegs;
    k.hwRegs = hardwareRegisterEstimate(functions_, idx);
    k.maxThreads = f.maxThreads;
    for (const auto &[gname, g] : lm->globals)
      if (g.isConst)
        k.constBytes += g.size;
    lm->kernels[k.name] = k;
  }
  modules_.push_back(std::move(lm));
  return id;
}

uint32_t Program::functionIndex(const ir::Function *f) const {
  for (uint32_t i = 0; i < functions_.size(); ++i)
    if (functions_[i].get() == f)
      return i;
  return ~0u;
}

void Program::setHeap(uint64_t addr, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(heapMu_);
  heapBase_ = addr;
  heapBytes_ = bytes;
  heapFreeBlocks_.clear();
  heapUsed_.clear();
  if (bytes)
    heapFreeBlocks_[addr] = bytes;
}

uint64_t Program::heapMalloc(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(heapMu_);
  if (bytes > (uint64_t(1) << 62)) // no heap is that large (and the rounding would wrap)
    return 0;
  uint64_t need = alignUp(bytes ? bytes : 1, 16);
  for (auto it = heapFreeBlocks_.begin(); it != heapFreeBlocks_.end(); ++it) {
    if (it->second < need)
      continue;
    uint64_t addr = it->first, size = it->second;
    heapFreeBlocks_.erase(it);
    if (size > need)
      heapFreeBlocks_[addr + need] = size - need;
    heapUsed_[addr] = need;
    return addr;
  }
  return 0;
}

void Program::heapFree(uint64_t addr) {
  std::lock_guard<std::mutex> lock(heapMu_);
  auto it = heapUsed_.find(addr);
  if (it == heapUsed_.end())
    return;
  uint64_t size = it->second;
  heapUsed_.erase(it);
  auto next = heapFreeBlocks_.lower_bound(addr);
  if (next != heapFreeBlocks_.end() && addr + size == next->first) {
    size += next->second;
    next = heapFreeBlocks_.erase(next);
  }
  if (next != heapFreeBlocks_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == addr) {
      prev->second += size;
      return;
    }
  }
  heapFreeBlocks_[addr] = size;
}

} // namespace ptxsim::ptx::exec

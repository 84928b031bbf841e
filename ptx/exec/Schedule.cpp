#include "ptx/exec/Schedule.h"

#include <unordered_map>

#include <algorithm>
#include <string_view>

namespace ptxsim::ptx::exec {

namespace {

/// Arithmetic that reads only its operands and writes only its destinations.
bool pureArithmetic(std::string_view op) {
  static constexpr std::string_view kOps[] = {
      "add",  "sub",   "mul",  "mad",   "mul24", "mad24", "sad",  "div",  "rem",   "abs",
      "neg",  "min",   "max",  "popc",  "clz",   "bfind", "fns",  "brev", "bfe",   "bfi",
      "and",  "or",    "xor",  "not",   "cnot",  "lop3",  "shl",  "shr",  "shf",   "setp",
      "selp", "set",   "slct", "cvt",   "cvta",  "mov",   "prmt", "fma",  "rcp",   "sqrt",
      "rsqrt", "sin",  "cos",  "lg2",   "ex2",   "tanh",  "copysign", "testp", "dp4a", "dp2a",
      "szext", "bmsk", "addc", "subc",  "madc"};
  for (std::string_view k : kOps)
    if (op == k)
      return true;
  return false;
}

/// Operands that read a clock, a timer or a performance counter: their instruction must stay
/// between the instructions around it (microbenchmarks time regions with them).
bool readsTime(const Operand &o) {
  if (o.kind == Operand::Kind::Reg)
    return o.name.rfind("%clock", 0) == 0 || o.name.rfind("%globaltimer", 0) == 0 ||
           o.name.rfind("%pm", 0) == 0;
  for (const Operand &e : o.elems)
    if (readsTime(e))
      return true;
  return false;
}

/// SharedStore: a plain st.shared, which global loads may pass (the spaces cannot alias) but
/// shared and generic accesses may not. Atomic: a relaxed atom/red, which moves past arithmetic
/// but keeps its place among every other memory access.
enum class Kind : uint8_t { Fixed, Alu, Load, SharedStore, Atomic };

const std::string_view kOrderedModifiers[] = {".volatile", ".relaxed", ".acquire", ".release",
                                              ".mmio", ".sys", ".gpu", ".cta", ".cluster"};

Kind classify(const Instruction &ai, const ir::Inst &in) {
  if (in.hints & kHintIfConverted)
    return Kind::Alu; // a no-op now: no operands, no effect
  if (in.ctl != ir::Ctl::None || in.nrd >= 8 || in.nrs >= 16)
    return Kind::Fixed;
  for (const Operand &o : ai.operands)
    if (readsTime(o))
      return Kind::Fixed;
  std::string_view text = ai.text;
  std::string_view op = text.substr(0, text.find('.'));
  if (op == "ld" || op == "ldu") {
    if (in.cls != ir::OpClass::Mem || in.nrd == 0)
      return Kind::Fixed;
    for (std::string_view m : {".volatile", ".relaxed", ".acquire", ".mmio", ".sys", ".gpu", ".cta"})
      if (text.find(m) != std::string_view::npos)
        return Kind::Fixed;
    return Kind::Load;
  }
  if (op == "st" && in.cls == ir::OpClass::Mem && in.nrd == 0 &&
      in.space == ir::MemSpace::Shared && (in.hints & ir::Inst::kHintOtherSpace) == 0) {
    for (std::string_view m : kOrderedModifiers)
      if (text.find(m) != std::string_view::npos)
        return Kind::Fixed;
    return Kind::SharedStore;
  }
  if (op == "atom" || op == "red") {
    // relaxed (no ordering or scope qualifier) atomics move past arithmetic, never past another
    // memory access (memoryOrdered)
    if (in.cls != ir::OpClass::Atomic)
      return Kind::Fixed;
    for (std::string_view m : {".relaxed", ".acquire", ".release", ".acq_rel", ".mmio", ".sys", ".gpu", ".cta", ".cluster"})
      if (text.find(m) != std::string_view::npos)
        return Kind::Fixed;
    return Kind::Atomic;
  }
  return pureArithmetic(op) ? Kind::Alu : Kind::Fixed;
}

/// Cycles an instruction keeps its consumers waiting, for the scheduler's priorities (the order
/// matters, not the values: loads first, then long arithmetic).
uint32_t weight(const ir::Inst &in, Kind k) {
  if (k == Kind::Load || k == Kind::Atomic)
    return in.space == ir::MemSpace::Global || in.space == ir::MemSpace::Generic ||
                   in.space == ir::MemSpace::Local
               ? 400
               : 30;
  switch (in.cls) {
  case ir::OpClass::Sfu: return 20;
  case ir::OpClass::Fp64: return 8;
  default: return 4;
  }
}

bool overlap(const uint16_t *a, unsigned na, const uint16_t *b, unsigned nb) {
  for (unsigned i = 0; i < na; ++i)
    for (unsigned j = 0; j < nb; ++j)
      if (a[i] == b[j])
        return true;
  return false;
}

/// A relaxed atomic keeps its place among all memory accesses; a shared store among the accesses
/// that may reach shared memory (shared and generic loads, other shared stores).
bool memoryOrdered(const ir::Inst &a, Kind ka, const ir::Inst &b, Kind kb) {
  // an atomic keeps its place among the loads, shared stores and atomics (they may touch its
  // address)
  if ((ka == Kind::Atomic && kb != Kind::Alu) || (kb == Kind::Atomic && ka != Kind::Alu))
    return true;
  if (ka != Kind::SharedStore && kb != Kind::SharedStore)
    return false;
  const ir::Inst &other = ka == Kind::SharedStore ? b : a;
  const Kind ko = ka == Kind::SharedStore ? kb : ka;
  return ko == Kind::SharedStore ||
         (ko == Kind::Load && (other.space == ir::MemSpace::Shared || other.space == ir::MemSpace::Generic));
}

/// List-schedules code[s, e), all movable: highest latency-weighted height first, the original
/// order among equals.
void scheduleSegment(std::vector<ir::Inst> &code, uint32_t s, uint32_t e,
                     const std::vector<Kind> &kind) {
  uint32_t n = e - s;
  if (n < 3)
    return;
  std::vector<std::vector<uint32_t>> succ(n);
  std::vector<uint32_t> preds(n, 0);
  for (uint32_t j = 1; j < n; ++j) {
    const ir::Inst &b = code[s + j];
    for (uint32_t i = 0; i < j; ++i) {
      const ir::Inst &a = code[s + i];
      if (overlap(a.rd, a.nrd, b.rs, b.nrs) || overlap(a.rs, a.nrs, b.rd, b.nrd) ||
          overlap(a.rd, a.nrd, b.rd, b.nrd) ||
          memoryOrdered(a, kind[s + i], b, kind[s + j])) {
        succ[i].push_back(j);
        ++preds[j];
      }
    }
  }
  // Priority: loads and what they depend on by their latency-weighted height, everything else
  // 0, so other arithmetic keeps its order (and its registers' live ranges).
  std::vector<uint32_t> height(n, 0);
  std::vector<char> feedsLoad(n, 0);
  for (uint32_t i = n; i-- > 0;) {
    uint32_t h = 0;
    bool feeds = kind[s + i] == Kind::Load || kind[s + i] == Kind::Atomic;
    for (uint32_t k : succ[i]) {
      h = std::max(h, height[k]);
      feeds |= feedsLoad[k] != 0;
    }
    height[i] = h + weight(code[s + i], kind[s + i]);
    feedsLoad[i] = feeds;
  }
  bool any = false;
  for (uint32_t i = 0; i < n; ++i) {
    any |= kind[s + i] == Kind::Load || kind[s + i] == Kind::Atomic;
    if (!feedsLoad[i])
      height[i] = 0;
  }
  if (!any)
    return;
  std::vector<uint32_t> order;
  order.reserve(n);
  std::vector<uint32_t> ready;
  for (uint32_t i = 0; i < n; ++i)
    if (!preds[i])
      ready.push_back(i);
  while (!ready.empty()) {
    size_t best = 0;
    for (size_t r = 1; r < ready.size(); ++r)
      if (height[ready[r]] > height[ready[best]] ||
          (height[ready[r]] == height[ready[best]] && ready[r] < ready[best]))
        best = r;
    uint32_t i = ready[best];
    ready.erase(ready.begin() + long(best));
    order.push_back(i);
    for (uint32_t k : succ[i])
      if (--preds[k] == 0)
        ready.push_back(k);
  }
  std::vector<ir::Inst> copy(code.begin() + s, code.begin() + e);
  for (uint32_t k = 0; k < n; ++k)
    code[s + k] = copy[order[k]];
}

/// The role of one PTX instruction in ptxas's merges (see SassRole).
SassRole roleOf(const Instruction &ai, const ir::Inst &in) {
  std::string_view text = ai.text;
  // A call's arguments and return values are .param slots of the caller's frame in PTX
  // (st.param before the call, ld.param after it; ld.param and st.param in the callee); the
  // SASS passes them in registers (R4, R5, ...), so they are no memory access.
  if (in.cls == ir::OpClass::Mem && in.space == ir::MemSpace::Local &&
      in.abase == ir::AddrBase::Frame && (text.rfind("ld.param", 0) == 0 || text.rfind("st.param", 0) == 0))
    return SassRole::ParamReg;
  if (in.ctl != ir::Ctl::None || in.nrd != 1 || (in.rd[0] & ir::Inst::kPredBit))
    return SassRole::None;
  size_t dot = text.find('.');
  std::string_view op = text.substr(0, dot), mods = dot == std::string_view::npos ? "" : text.substr(dot);
  auto has = [&](std::string_view m) { return mods.find(m) != std::string_view::npos; };
  const bool i32 = has(".s32") || has(".u32") || has(".b32");
  const bool i64 = has(".s64") || has(".u64") || has(".b64");
  if (has(".cc") || has(".sat") || has(".f") || has(".x"))
    return SassRole::None; // carries, saturation, floating point, packed halves
  if (op == "add" || op == "sub")
    return i32 ? SassRole::Add32 : i64 ? SassRole::Add64 : SassRole::None;
  if ((op == "shl" || op == "shr") && i32 && ai.operands.size() == 3 &&
      ai.operands[2].kind != Operand::Kind::Reg)
    return SassRole::Shift32;
  if (op == "mul" && i32 && (has(".lo") || has(".wide")))
    return SassRole::MulInt;
  return SassRole::None;
}

bool writes(const ir::Inst &in, uint16_t r) {
  for (unsigned i = 0; i < in.nrd; ++i)
    if (in.rd[i] == r)
      return true;
  return false;
}

} // namespace

void assignSassRoles(ir::Function &fn, const Function &ast, const std::vector<uint32_t> &astToPc) {
  for (size_t i = 0; i < ast.instrs.size(); ++i) {
    uint32_t pc = astToPc[i];
    if (astToPc[i + 1] == pc + 1 && pc < fn.code.size())
      fn.code[pc].sassRole = uint8_t(roleOf(ast.instrs[i], fn.code[pc]));
  }
}

void markCountingAtomics(ir::Function &fn) {
  std::vector<uint16_t> results; // destinations of the candidates
  for (const ir::Inst &in : fn.code)
    if ((in.hints & kHintCountingAtomic) && in.nrd)
      results.push_back(in.rd[0]);
  if (results.empty())
    return;
  std::sort(results.begin(), results.end());
  std::vector<uint16_t> read;
  for (const ir::Inst &in : fn.code)
    for (unsigned i = 0; i < in.nrs; ++i)
      if (std::binary_search(results.begin(), results.end(), in.rs[i]))
        read.push_back(in.rs[i]);
  std::sort(read.begin(), read.end());
  for (ir::Inst &in : fn.code)
    if ((in.hints & kHintCountingAtomic) && in.nrd &&
        std::binary_search(read.begin(), read.end(), in.rd[0]))
      in.hints &= uint8_t(~kHintCountingAtomic);
}

namespace {

/// An instruction that can read a constant-bank operand in place of a register (FFMA, FADD,
/// FMUL, IADD3, IMAD, LOP3, ISETP/FSETP, SEL, SHF, I2F/F2F, ...).
bool takesConstOperand(std::string_view text) {
  std::string_view op = text.substr(0, text.find('.'));
  for (std::string_view k : {"add", "sub", "mul", "mad", "fma", "min", "max", "neg", "abs", "setp", "selp",
                             "and", "or", "xor", "shl", "shr", "cvt"})
    if (op == k)
      return true;
  return false;
}

/// `ld.const` of one register from a fixed address: `[symbol]`, `[symbol+imm]` or `[imm]`.
bool fixedConstLoad(const Instruction &ai, const ir::Inst &in) {
  if (in.cls != ir::OpClass::Mem || in.space != ir::MemSpace::Const || in.nrd != 1 ||
      (in.rd[0] & ir::Inst::kPredBit) || in.guard != ir::kPredTrue || std::string_view(ai.text).substr(0, 9) != "ld.const." ||
      ai.operands.size() != 2)
    return false;
  const Operand &a = ai.operands[1];
  if (a.kind != Operand::Kind::Address || a.elems.size() != 1)
    return false;
  const Operand &b = a.elems[0];
  return b.kind == Operand::Kind::Imm || (b.kind == Operand::Kind::Reg && !b.name.empty() && b.name[0] != '%');
}

} // namespace

void markConstOperands(ir::Function &fn, const Function &ast, const std::vector<uint32_t> &astToPc) {
  std::vector<ir::Inst> &code = fn.code;
  // the AST instruction of each pc that is one lowered instruction (others: none)
  std::vector<const Instruction *> src(code.size(), nullptr);
  for (size_t i = 0; i < ast.instrs.size(); ++i)
    if (astToPc[i + 1] == astToPc[i] + 1 && astToPc[i] < code.size())
      src[astToPc[i]] = &ast.instrs[i];
  // candidate register -> its load's pc; registers written more than once are out
  std::unordered_map<uint16_t, uint32_t> cand;
  std::unordered_map<uint16_t, uint32_t> defs;
  for (uint32_t pc = 0; pc < code.size(); ++pc)
    for (unsigned i = 0; i < code[pc].nrd; ++i)
      ++defs[code[pc].rd[i]];
  for (uint32_t pc = 0; pc < code.size(); ++pc)
    if (src[pc] && fixedConstLoad(*src[pc], code[pc]) && defs[code[pc].rd[0]] == 1)
      cand.emplace(code[pc].rd[0], pc);
  if (cand.empty())
    return;
  // every reader must take it as an operand, and take only one such register
  std::vector<uint16_t> drop;
  for (uint32_t pc = 0; pc < code.size(); ++pc) {
    const ir::Inst &in = code[pc];
    bool foldable = src[pc] && takesConstOperand(src[pc]->text);
    int first = -1;
    for (unsigned i = 0; i < in.nrs; ++i) {
      auto it = cand.find(in.rs[i]);
      if (it == cand.end())
        continue;
      if (!foldable || (first >= 0 && in.rs[i] != in.rs[first]))
        drop.push_back(in.rs[i]);
      else
        first = int(i);
    }
  }
  for (uint16_t r : drop)
    cand.erase(r);
  for (const auto &[reg, pc] : cand)
    code[pc].sassRole = uint8_t(SassRole::ConstOperand);
}

void fuseSassPairs(ir::Function &fn, const Cfg &cfg, const std::vector<uint32_t> &astToPc) {
  std::vector<ir::Inst> &code = fn.code;
  // reads of each data register in the function (a value read once, by the pair's second
  // instruction, lives only in the merged instruction)
  std::vector<uint32_t> readCount;
  for (const ir::Inst &in : code)
    for (unsigned i = 0; i < in.nrs; ++i)
      if (!(in.rs[i] & ir::Inst::kPredBit)) {
        if (in.rs[i] >= readCount.size())
          readCount.resize(size_t(in.rs[i]) + 1, 0);
        ++readCount[in.rs[i]];
      }
  for (const BasicBlock &b : cfg.blocks) {
    uint32_t begin = astToPc[b.first], end = astToPc[b.end];
    for (uint32_t pc = begin; pc + 1 < end; ++pc) {
      ir::Inst &a = code[pc];
      const ir::Inst &n = code[pc + 1];
      SassRole ra = SassRole(a.sassRole), rn = SassRole(n.sassRole);
      bool kinds = (rn == SassRole::Add32 && (ra == SassRole::Add32 || ra == SassRole::Shift32 ||
                                              ra == SassRole::MulInt)) ||
                   (rn == SassRole::Add64 && ra == SassRole::MulInt);
      if (!kinds || a.guard != ir::kPredTrue || n.guard != ir::kPredTrue)
        continue;
      uint16_t r = a.rd[0];
      uint32_t nReads = 0;
      for (unsigned i = 0; i < n.nrs; ++i)
        nReads += n.rs[i] == r;
      if (!nReads || !(writes(n, r) || (r < readCount.size() && readCount[r] == nReads)))
        continue;
      a.hints |= ir::Inst::kHintFusedIntoNext;
      ++pc; // the second one is complete: it absorbs nothing more and is folded into nothing
    }
  }
}

namespace {

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

uint32_t lowBit(uint64_t v) { return v ? uint32_t(std::min<uint64_t>(v & (~v + 1), 16)) : 16; }

bool isSharedScalarLoad(const Instruction &in) {
  return in.text == "ld.shared.f32" || in.text == "ld.shared.u32" || in.text == "ld.shared.b32" ||
         in.text == "ld.shared.s32";
}

/// Instructions a merge may not cross: memory writes, barriers, fences, control, calls.
bool endsGroups(const Instruction &in) {
  for (std::string_view p : {"st", "atom", "red", "bar", "membar", "fence", "bra", "brx", "call", "ret", "exit",
                             "cp", "mbarrier", "wmma", "mma", "ldmatrix", "stmatrix", "trap", "ld.volatile"})
    if (startsWith(in.text, p))
      return true;
  return false;
}

} // namespace

void mergeSharedLoads(ir::Function &fn, const Function &ast, const Cfg &cfg, const std::vector<uint32_t> &astToPc) {
  // known byte alignment (1..16) of each register: the minimum over its definitions, iterated
  // from 16 down to a fixed point; registers nothing defines (special registers) are 1
  std::unordered_map<std::string_view, uint32_t> align;
  for (const Instruction &in : ast.instrs)
    if (!in.operands.empty() && in.operands[0].kind == Operand::Kind::Reg)
      align[in.operands[0].name] = 16;
  auto of = [&](const Operand &o) -> uint32_t {
    if (o.kind == Operand::Kind::Imm)
      return lowBit(uint64_t(o.ival));
    if (o.kind != Operand::Kind::Reg)
      return 1;
    auto it = align.find(o.name);
    if (it != align.end())
      return it->second;
    return o.name.empty() || o.name[0] == '%' ? 1 : 16; // a shared (or other) symbol's address
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (const Instruction &in : ast.instrs) {
      if (in.operands.empty() || in.operands[0].kind != Operand::Kind::Reg)
        continue;
      const auto &o = in.operands;
      std::string_view t = in.text;
      uint32_t v = 1;
      if ((startsWith(t, "mov.") || startsWith(t, "cvta.shared") || startsWith(t, "cvta.to.shared") ||
           startsWith(t, "cvt.u64.u32") || startsWith(t, "cvt.u32.u64") || startsWith(t, "cvt.s64.s32")) && o.size() == 2)
        v = of(o[1]);
      else if ((startsWith(t, "add.") || startsWith(t, "sub.")) && o.size() == 3 && t.find(".f") == std::string_view::npos)
        v = std::min(of(o[1]), of(o[2]));
      else if (startsWith(t, "shl.") && o.size() == 3 && o[2].kind == Operand::Kind::Imm)
        v = uint32_t(std::min<uint64_t>(16, uint64_t(of(o[1])) << std::min<int64_t>(o[2].ival, 8)));
      else if ((startsWith(t, "mul.lo.") || startsWith(t, "mul.wide.")) && o.size() == 3)
        v = std::min<uint32_t>(16, of(o[1]) * of(o[2]));
      else if (startsWith(t, "mad.lo.") && o.size() == 4)
        v = std::min<uint32_t>(std::min<uint32_t>(16, of(o[1]) * of(o[2])), of(o[3]));
      uint32_t &a = align[o[0].name];
      if (v < a) {
        a = v;
        changed = true;
      }
    }
  }
  struct Cand {
    uint32_t instr;
    int64_t off;
  };
  auto mark = [&](const std::vector<Cand> &group) {
    uint32_t lead = group[0].instr;
    for (const Cand &c : group)
      lead = std::min(lead, c.instr);
    for (const Cand &c : group) {
      uint32_t pc = astToPc[c.instr];
      if (c.instr == lead)
        fn.code[pc].mergedLoads = uint8_t(group.size());
      else
        fn.code[pc].hints |= ir::Inst::kHintMergedLoad;
    }
  };
  for (const BasicBlock &b : cfg.blocks) {
    // open loads per base register, flushed at a store, barrier or control transfer, or when
    // the base is written
    std::unordered_map<std::string_view, std::vector<Cand>> open;
    auto flush = [&](std::vector<Cand> &v, std::string_view base) {
      auto it = align.find(base);
      uint32_t a = it != align.end() ? it->second : (base.empty() || base[0] == '%' ? 1 : 16);
      std::vector<bool> used(v.size(), false);
      for (uint32_t width : {4u, 2u}) {
        if (a < width * 4)
          continue;
        for (size_t i = 0; i < v.size(); ++i) {
          if (used[i] || v[i].off % (width * 4))
            continue;
          std::vector<Cand> g{v[i]};
          std::vector<size_t> idx{i};
          for (uint32_t k = 1; k < width; ++k)
            for (size_t j = 0; j < v.size(); ++j)
              if (!used[j] && v[j].off == v[i].off + int64_t(4 * k)) {
                g.push_back(v[j]);
                idx.push_back(j);
                break;
              }
          if (g.size() != width)
            continue;
          for (size_t j : idx)
            used[j] = true;
          mark(g);
        }
      }
      v.clear();
    };
    auto flushAll = [&]() {
      for (auto &kv : open)
        flush(kv.second, kv.first);
    };
    for (uint32_t i = b.first; i < b.end; ++i) {
      const Instruction &in = ast.instrs[i];
      bool single = astToPc[i + 1] == astToPc[i] + 1;
      if (endsGroups(in) || !single) {
        flushAll();
        continue;
      }
      if (isSharedScalarLoad(in) && in.guard.empty() && in.operands.size() == 2 &&
          in.operands[1].kind == Operand::Kind::Address && !in.operands[1].elems.empty() &&
          in.operands[1].elems[0].kind == Operand::Kind::Reg && in.operands[1].elems.size() == 1) {
        std::string_view base = in.operands[1].elems[0].name;
        std::vector<Cand> &v = open[base];
        bool dup = false;
        for (const Cand &c : v)
          dup |= c.off == in.operands[1].ival;
        if (dup)
          flush(v, base); // the same word again: a new group
        open[base].push_back({i, in.operands[1].ival});
      }
      // a written register ends the groups on it as a base
      if (!in.operands.empty() && in.operands[0].kind == Operand::Kind::Reg) {
        auto it = open.find(in.operands[0].name);
        if (it != open.end())
          flush(it->second, it->first);
      }
    }
    flushAll();
  }
}

namespace {

/// What a converted branch becomes: nothing to execute (the timing model issues it with the
/// next instruction).
void ifConvertedBranchFn(ExecCtx &, Warp &, const ir::Inst &, uint32_t) {}

/// Whether ifConvertShortBranches may predicate body instruction `ai` (lowered to `in`) by
/// `guard`: one unguarded instruction that runs the same for any lane mask and leaves the
/// guard alone, and no atomic (ptxas keeps a branch around hist64's 5-instruction merge with a
/// RED while it predicates conv5's 8-instruction load and store).
bool predicable(const Instruction &ai, const ir::Inst &in, uint16_t guard) {
  if (in.ctl != ir::Ctl::None || in.guard != ir::kPredTrue || in.nrs >= 16 ||
      in.cls == ir::OpClass::Warp || in.cls == ir::OpClass::Sync || in.cls == ir::OpClass::Control ||
      in.cls == ir::OpClass::Atomic)
    return false;
  for (const Operand &o : ai.operands)
    if (readsTime(o))
      return false;
  return !writes(in, uint16_t(ir::Inst::kPredBit | guard));
}

} // namespace

Cfg ifConvertShortBranches(ir::Function &fn, const Function &ast, const Cfg &cfg,
                           const std::vector<uint32_t> &astToPc, uint32_t maxInsts) {
  std::vector<ir::Inst> &code = fn.code;
  const std::vector<BasicBlock> &blocks = cfg.blocks;
  auto single = [&](uint32_t i) { return astToPc[i + 1] == astToPc[i] + 1 && astToPc[i] < code.size(); };
  std::vector<char> absorbed(blocks.size(), 0); // a converted body or the block at its target
  for (uint32_t b = 0; b + 2 < blocks.size(); ++b) {
    const BasicBlock &head = blocks[b], &body = blocks[b + 1], &join = blocks[b + 2];
    if (head.end == head.first || !single(head.end - 1))
      continue;
    ir::Inst &br = code[astToPc[head.end - 1]];
    uint32_t n = body.end - body.first;
    if (br.ctl != ir::Ctl::Bra || br.guard == ir::kPredTrue || br.guard == ir::kPredFalse ||
        br.target != astToPc[join.first] || body.first != head.end || body.end != join.first ||
        n == 0 || n > maxInsts)
      continue;
    // only this branch and the body's fall-through reach the target; only the branch's
    // fall-through reaches the body
    std::vector<uint32_t> jp = join.preds;
    std::sort(jp.begin(), jp.end());
    if (body.preds != std::vector<uint32_t>{b} || jp != std::vector<uint32_t>{b, b + 1})
      continue;
    bool ok = true;
    for (uint32_t i = body.first; i < body.end && ok; ++i)
      ok = single(i) && predicable(ast.instrs[i], code[astToPc[i]], br.guard);
    if (!ok)
      continue;
    for (uint32_t i = body.first; i < body.end; ++i) {
      ir::Inst &in = code[astToPc[i]];
      in.guard = br.guard;
      in.guardXor = ~br.guardXor; // the body ran where the branch was not taken
      in.rs[in.nrs++] = uint16_t(ir::Inst::kPredBit | br.guard);
    }
    br.ctl = ir::Ctl::None;
    br.fn = ifConvertedBranchFn;
    br.cls = ir::OpClass::Misc;
    br.guard = ir::kPredTrue;
    br.guardXor = 0;
    br.target = ir::kNoPc;
    br.nrs = br.nrd = br.nsrc = br.ndst = 0;
    br.sassRole = 0;
    br.hints |= uint8_t(ir::Inst::kHintFusedIntoNext | kHintIfConverted);
    absorbed[b + 1] = absorbed[b + 2] = 1;
  }
  Cfg merged;
  for (uint32_t b = 0; b < blocks.size(); ++b) {
    if (absorbed[b] && !merged.blocks.empty()) {
      merged.blocks.back().end = blocks[b].end;
      continue;
    }
    BasicBlock m;
    m.first = blocks[b].first;
    m.end = blocks[b].end;
    merged.blocks.push_back(m);
  }
  return merged;
}

void scheduleLoadsEarly(ir::Function &fn, const Function &ast, const Cfg &cfg,
                        const std::vector<uint32_t> &astToPc) {
  std::vector<ir::Inst> &code = fn.code;
  // what may move: the only IR instruction of its PTX instruction, of a known kind
  std::vector<Kind> kind(code.size(), Kind::Fixed);
  for (size_t i = 0; i < ast.instrs.size(); ++i) {
    uint32_t pc = astToPc[i];
    if (astToPc[i + 1] == pc + 1 && pc < code.size())
      kind[pc] = classify(ast.instrs[i], code[pc]);
  }
  constexpr uint32_t kMaxSegment = 256; // bounds the quadratic dependence scan
  for (const BasicBlock &b : cfg.blocks) {
    uint32_t begin = astToPc[b.first], end = astToPc[b.end];
    uint32_t s = begin;
    for (uint32_t pc = begin; pc <= end; ++pc) {
      if (pc == end || kind[pc] == Kind::Fixed || pc - s == kMaxSegment) {
        scheduleSegment(code, s, pc, kind);
        s = pc == end || kind[pc] == Kind::Fixed ? pc + 1 : pc;
      }
    }
  }
}

} // namespace ptxsim::ptx::exec

#include "ptx/exec/Schedule.h"

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

enum class Kind : uint8_t { Fixed, Alu, Load };

Kind classify(const Instruction &ai, const ir::Inst &in) {
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
  return pureArithmetic(op) ? Kind::Alu : Kind::Fixed;
}

/// Cycles an instruction keeps its consumers waiting, for the scheduler's priorities (the order
/// matters, not the values: loads first, then long arithmetic).
uint32_t weight(const ir::Inst &in, Kind k) {
  if (k == Kind::Load)
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
          overlap(a.rd, a.nrd, b.rd, b.nrd)) {
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
    bool feeds = kind[s + i] == Kind::Load;
    for (uint32_t k : succ[i]) {
      h = std::max(h, height[k]);
      feeds |= feedsLoad[k] != 0;
    }
    height[i] = h + weight(code[s + i], kind[s + i]);
    feedsLoad[i] = feeds;
  }
  bool any = false;
  for (uint32_t i = 0; i < n; ++i) {
    any |= kind[s + i] == Kind::Load;
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
  if (in.ctl != ir::Ctl::None || in.nrd != 1 || (in.rd[0] & ir::Inst::kPredBit))
    return SassRole::None;
  std::string_view text = ai.text;
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

#include "ptx/exec/RegInit.h"

#include "ptx/exec/Schedule.h"

#include "ptx/jit/JitOps.h"
#include "ptx/jit/Liveness.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace ptxsim::ptx::exec {

namespace {

using jit::Op;

/// Above this many bitset words (instructions x register words) the analysis is skipped and
/// every register zeroed: its cost stays a small part of lowering.
constexpr size_t kMaxWords = size_t(1) << 22;

/// What one instruction does to the analysis.
enum class Effect : uint8_t {
  Known,      ///< reads its source registers in its own lanes, writes dst (see writes)
  ReadsAny,   ///< a per-lane handler: reads its operands (and destinations) in its own lanes;
              ///< its writes are not counted
  WholeFile,  ///< may read any register of any lane (or control flow we do not follow)
};

/// A short branch ifConvertShortBranches turned into a no-op (Schedule.h): it reads and writes
/// nothing (its body's instructions carry the guard).
bool ifConvertedNoOp(const ir::Inst &in) {
  return in.ctl == ir::Ctl::None && (in.hints & kHintIfConverted);
}

Effect effectOf(const ir::Inst &in, jit::OpDesc &d) {
  d = jit::OpDesc{};
  if (ifConvertedNoOp(in))
    return Effect::Known; // (a guarded load's `x = p ? a[i] : 0`: most kernels that tile)
  switch (in.ctl) {
  case ir::Ctl::Bra: // reads its guard predicate only
  case ir::Ctl::Exit:
  case ir::Ctl::Ret:
  case ir::Ctl::Trap:
    return Effect::Known;
  case ir::Ctl::None:
  case ir::Ctl::WarpSync:
    break;
  case ir::Ctl::Bar: // barrier number, thread count, reduction operand: their sources start
  case ir::Ctl::BarArrive: // zeroed (the caller), whichever lane the handler reads them in
  case ir::Ctl::BarRed:
    return Effect::Known;
  default: // calls, indirect branches, blocking instructions, yields
    return Effect::WholeFile;
  }
  d = jit::describedOp(in.fn);
  if (jit::analysedAsHandler(d.op))
    d.op = Op::None;
  switch (d.op) {
  case Op::None:
    break;
  case Op::Vote:       // lane l reads its own member mask (src0) and predicates
  case Op::ActiveMask:
  case Op::Shfl:       // src0 of other lanes: handled by the caller
    return Effect::Known;
  default:
    return in.ctl == ir::Ctl::None ? Effect::Known : Effect::WholeFile;
  }
  if (in.ctl != ir::Ctl::None)
    return Effect::WholeFile; // match, redux, elect, bar.warp.sync: lanes' values combined
  // the per-lane handler families; memory, atomics, warp-wide and tensor instructions may read
  // other lanes (ldmatrix's row addresses, mma's fragments) or registers named outside their
  // operands
  return jit::perLaneClass(in.cls) ? Effect::ReadsAny : Effect::WholeFile;
}

/// The registers (indices) a Known instruction writes in every lane it runs in.
template <class F> void forWrites(const ir::Inst &in, const jit::OpDesc &d, F f) {
  switch (d.op) {
  case Op::None:
  case Op::Setp: // predicates
  case Op::St:
    return;
  case Op::Vote:
    if (in.aux == 3) // ballot; all/any/uni write a predicate
      f(in.dst[0] / ir::kWarpSize);
    return;
  case Op::Ld:
    for (unsigned i = 0; i < in.vec && i < 4; ++i)
      f(in.dst[i] / ir::kWarpSize);
    return;
  default:
    f(in.dst[0] / ir::kWarpSize);
    return;
  }
}

/// The operand slots (Inst::src) a Known instruction reads, as a bit set (a branch, exit,
/// return or trap: a predicate at most).
unsigned readSlots(const ir::Inst &in, const jit::OpDesc &d) {
  if (ifConvertedNoOp(in))
    return 0;
  if (in.ctl == ir::Ctl::Bra || in.ctl == ir::Ctl::Exit || in.ctl == ir::Ctl::Ret || in.ctl == ir::Ctl::Trap)
    return 0;
  return jit::describedReadSlots(in, d.op);
}

struct Bits {
  size_t words;
  std::vector<uint64_t> v;
  uint64_t *row(size_t i) { return v.data() + i * words; }
};

/// The must-write analysis: row pc = the registers every lane reaching pc has written (the
/// intersection over the predecessors; a lane's own path is a path of the control-flow graph
/// whatever the warp's divergence), from none at the entry. False for a branch it cannot follow.
bool mustWrite(const ir::Function &fn, const std::vector<jit::OpDesc> &desc,
               const std::vector<Effect> &eff, Bits &in) {
  const size_t n = fn.code.size(), regs = fn.numRegs, words = in.words;
  in.v.assign((n + 1) * words, ~0ull);
  std::fill(in.row(0), in.row(0) + words, 0);
  std::vector<uint64_t> out(words);
  auto meet = [&](size_t to) {
    bool changed = false;
    uint64_t *r = in.row(to);
    for (size_t i = 0; i < words; ++i) {
      uint64_t m = r[i] & out[i];
      changed |= m != r[i];
      r[i] = m;
    }
    return changed;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t pc = 0; pc < n; ++pc) {
      const ir::Inst &inst = fn.code[pc];
      std::copy(in.row(pc), in.row(pc) + words, out.begin());
      const bool all = inst.guard == ir::kPredTrue && inst.guardXor == 0;
      if (all && eff[pc] == Effect::Known)
        forWrites(inst, desc[pc], [&](uint32_t r) {
          if (r < regs)
            out[r / 64] |= 1ull << (r % 64);
        });
      if (inst.ctl == ir::Ctl::Exit || inst.ctl == ir::Ctl::Ret || inst.ctl == ir::Ctl::Trap)
        continue;
      if (inst.ctl == ir::Ctl::Bra) {
        if (inst.target > n)
          return false;
        changed |= meet(inst.target);
      }
      changed |= meet(pc + 1); // (a guarded or not branch: the fall-through too)
    }
  }
  return true;
}

/// The set bits of `set` (of `regs` registers) as runs [first, first + count).
std::vector<std::pair<uint32_t, uint32_t>> runsOf(const std::vector<uint64_t> &set, uint32_t regs) {
  std::vector<std::pair<uint32_t, uint32_t>> runs;
  auto has = [&](uint32_t r) { return (set[r / 64] >> (r % 64) & 1) != 0; };
  for (uint32_t r = 0; r < regs;) {
    if (!has(r)) {
      ++r;
      continue;
    }
    uint32_t first = r;
    while (r < regs && has(r))
      ++r;
    runs.emplace_back(first, r - first);
  }
  return runs;
}

} // namespace

void computeZeroAtStart(ir::Function &fn) {
  fn.zeroAtStart.clear();
  fn.zeroAtStartKnown = false;
  const size_t n = fn.code.size(), regs = fn.numRegs, words = (regs + 63) / 64;
  if (n == 0 || regs == 0 || (n + 1) * words > kMaxWords)
    return;
  std::vector<jit::OpDesc> desc(n);
  std::vector<Effect> eff(n);
  for (size_t pc = 0; pc < n; ++pc) {
    eff[pc] = effectOf(fn.code[pc], desc[pc]);
    if (eff[pc] == Effect::WholeFile)
      return; // every register zeroed
  }
  Bits in{words, {}};
  if (!mustWrite(fn, desc, eff, in))
    return;
  // reads: a register some lane may read before writing it starts zeroed, and so does every
  // register no described instruction writes (a handler may read it through a field other
  // than its operands, as the carry chains' hidden register in Inst::aux)
  std::vector<uint64_t> zero(words, ~0ull);
  auto mark = [&](std::vector<uint64_t> &set, uint32_t r) {
    if (r < regs)
      set[r / 64] |= 1ull << (r % 64);
  };
  std::vector<uint64_t> written(words, 0);
  for (size_t pc = 0; pc < n; ++pc)
    if (eff[pc] == Effect::Known)
      forWrites(fn.code[pc], desc[pc], [&](uint32_t r) { mark(written, r); });
  for (size_t i = 0; i < words; ++i)
    zero[i] = ~written[i];
  auto readReg = [&](size_t pc, uint32_t off) {
    uint32_t r = off / ir::kWarpSize;
    if (r < regs && !(in.row(pc)[r / 64] >> (r % 64) & 1))
      mark(zero, r);
  };
  for (size_t pc = 0; pc < n; ++pc) {
    const ir::Inst &inst = fn.code[pc];
    const unsigned slots = eff[pc] == Effect::Known ? readSlots(inst, desc[pc]) : 31u;
    for (unsigned i = 0; i < 5; ++i) {
      if (inst.src[i].cst || !(slots >> i & 1))
        continue;
      const bool otherLanes = (desc[pc].op == Op::Shfl && i == 0) || // lanes read other lanes
                              (inst.ctl != ir::Ctl::None && inst.ctl != ir::Ctl::WarpSync);
      if (otherLanes)
        mark(zero, inst.src[i].reg / ir::kWarpSize);
      else
        readReg(pc, inst.src[i].reg);
    }
    if (eff[pc] == Effect::ReadsAny) // a handler that writes part of a register reads the rest
      for (unsigned i = 0; i < 4; ++i)
        readReg(pc, inst.dst[i]);
  }
  fn.zeroAtStart = runsOf(zero, (uint32_t)regs);
  fn.zeroAtStartKnown = true;
}

void computeSpinRegs(ir::Function &fn) {
  fn.spinFirst.clear();
  fn.spinRegs.clear();
  const size_t n = fn.code.size();
  bool loops = false;
  for (size_t pc = 0; pc < n && !loops; ++pc)
    loops = fn.code[pc].ctl == ir::Ctl::Bra && fn.code[pc].target <= pc;
  if (!loops)
    return;
  const jit::Liveness live(fn, jit::describedOp);
  if (!live.known())
    return;
  fn.spinFirst.assign(n + 1, 0);
  for (size_t pc = 0; pc < n; ++pc) {
    fn.spinFirst[pc] = (uint32_t)fn.spinRegs.size();
    const ir::Inst &in = fn.code[pc];
    if (in.ctl == ir::Ctl::Bra && in.target <= pc)
      for (uint32_t r = 0; r < fn.numRegs; ++r)
        if (live.live((uint32_t)pc, r * ir::kWarpSize))
          fn.spinRegs.push_back(r);
  }
  fn.spinFirst[n] = (uint32_t)fn.spinRegs.size();
}

} // namespace ptxsim::ptx::exec

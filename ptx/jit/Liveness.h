#pragma once
// Which registers a lane may still read, per pc (docs/executor.md, "Register writes").
//
// Contract: row pc holds every register that some lane reaching pc may read before writing it,
// on the lane's own path through the control-flow graph (a lane's path is a path of the graph
// whatever the warp's divergence). The JIT writes a block's results to the register file only
// where a row after them holds the register, and the interpreter's spin watch (spinState,
// Exec.cpp) hashes only the registers live at the loop's branch, so both engines compare the
// same values. Conservative: whatever it cannot bound keeps registers live.

#include "ptx/ir/Ir.h"
#include "ptx/jit/JitOps.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ptxsim::ptx::jit {

/// The operand slots (Inst::src) an instruction the JIT describes as `op` reads, as a bit set;
/// every slot for Op::None (Inst::nsrc is not set by every lowering). Shared by this analysis
/// and RegInit's must-write analysis, so the two count reads alike.
inline unsigned describedReadSlots(const ir::Inst &in, Op op) {
  const unsigned addr = in.abase == ir::AddrBase::Reg ? 1u : 0u;
  switch (op) {
  case Op::Ld: return addr;
  case Op::St: return addr | (((1u << std::min<unsigned>(in.vec, 4)) - 1) << 1);
  case Op::Not:
  case Op::Mov:
  case Op::Vote: return 1;
  case Op::ActiveMask:
  case Op::Special: return 0;
  case Op::Cvta: return 1;
  case Op::MadLo:
  case Op::FFma:
  case Op::Shfl: return 7;
  case Op::None: return 31;
  default: return 3; // two-operand arithmetic, selp, setp
  }
}

/// The analysis over one function. Instructions the JIT describes read and write their operand
/// slots (as RegInit.cpp counts them; a warp-synchronous one also its member mask), per-lane
/// handlers read their operands and destinations, every other instruction reads every
/// register, and the registers it names, like shfl's source (other lanes read it, active or
/// not), are live everywhere. A function with
/// instructions whose reads cannot be bounded (indirect branches and calls, blocking,
/// extension or tensor instructions) keeps every register live.
class Liveness {
public:
  Liveness(const ir::Function &fn, DescribeFn describe) {
    const size_t n = fn.code.size();
    regs_ = fn.numRegs;
    words_ = (regs_ + 63) / 64;
    if (n == 0 || regs_ == 0 || (n + 1) * words_ > (size_t(1) << 22) || !analyse(fn, describe))
      all_ = true;
  }
  /// False when the analysis could not bound the reads (every register live everywhere).
  bool known() const { return !all_; }
  /// Whether register `off` (index * 32) may be read at or after `pc` (any pc past the code:
  /// yes).
  bool live(uint32_t pc, uint32_t off) const {
    const uint32_t r = off / ir::kWarpSize;
    if (all_ || r >= regs_ || (size_t)pc + 1 >= rows_)
      return true;
    return (in_[pc * words_ + r / 64] >> (r % 64) & 1) != 0;
  }

private:
  bool analyse(const ir::Function &fn, DescribeFn describe) {
    const size_t n = fn.code.size();
    rows_ = n + 1;
    std::vector<uint64_t> uses(n * words_, 0), kills(n * words_, 0), always(words_, 0);
    std::vector<uint8_t> readsAll(n, 0);
    auto mark = [&](uint64_t *set, uint32_t off) {
      const uint32_t r = off / ir::kWarpSize;
      if (r < regs_)
        set[r / 64] |= 1ull << (r % 64);
    };
    for (size_t pc = 0; pc < n; ++pc) {
      const ir::Inst &in = fn.code[pc];
      if (in.cls == ir::OpClass::Tensor || (uint8_t)in.cls >= ir::kNumBuiltinOpClasses)
        return false;
      uint64_t *u = &uses[pc * words_];
      switch (in.ctl) {
      case ir::Ctl::Bra:
        if (in.target > n)
          return false;
        continue; // a predicate only
      case ir::Ctl::Exit:
        continue;
      case ir::Ctl::Ret:
        readsAll[pc] = !fn.isEntry; // a callee's caller goes on
        continue;
      case ir::Ctl::None:
      case ir::Ctl::WarpSync:
      case ir::Ctl::Call:
      case ir::Ctl::Trap:
      case ir::Ctl::Bar:
      case ir::Ctl::BarArrive:
      case ir::Ctl::BarRed:
        break;
      default: // indirect branches and calls, blocking instructions, yields
        return false;
      }
      const bool inBlock = in.ctl == ir::Ctl::None || in.ctl == ir::Ctl::WarpSync;
      Op op = inBlock ? describe(in.fn).op : Op::None;
      if (analysedAsHandler(op))
        op = Op::None;
      if (op == Op::None && in.ctl == ir::Ctl::None && perLaneClass(in.cls)) {
        // a per-lane handler (conversions, math, special registers, bit operations): its
        // operands and destinations (a handler that writes part of a register reads the rest)
        // in its own lanes. A register it names elsewhere (a carry chain's in Inst::aux) is one
        // no described instruction writes, so the code never holds it back.
        for (const ir::Opnd &o : in.src)
          if (!o.cst)
            mark(u, o.reg);
        for (uint32_t d : in.dst)
          mark(u, d);
        continue;
      }
      if (op == Op::None) { // a handler or control instruction: everything, its operands anywhere
        readsAll[pc] = 1;
        for (const ir::Opnd &o : in.src)
          if (!o.cst)
            mark(always.data(), o.reg);
        for (uint32_t d : in.dst)
          mark(always.data(), d);
        continue;
      }
      unsigned slots = describedReadSlots(in, op);
      if (in.ctl == ir::Ctl::WarpSync && in.memberSrc < 5) // the interpreter gathers by it
        slots |= 1u << in.memberSrc;
      for (unsigned i = 0; i < 5; ++i)
        if (!in.src[i].cst && (slots >> i & 1))
          mark(u, in.src[i].reg);
      if (op == Op::Shfl && !in.src[0].cst)
        mark(always.data(), in.src[0].reg);
      if (in.guard != ir::kPredTrue || in.guardXor) // a guarded write keeps other lanes' values
        continue;
      uint64_t *k = &kills[pc * words_];
      if (op == Op::Ld)
        for (unsigned i = 0; i < in.vec && i < 4; ++i)
          mark(k, in.dst[i]);
      else if (op != Op::Setp && op != Op::St && (op != Op::Vote || in.aux == 3))
        mark(k, in.dst[0]);
    }
    in_.assign(rows_ * words_, 0);
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t pc = n; pc-- > 0;) {
        const ir::Inst &in = fn.code[pc];
        uint64_t *row = &in_[pc * words_];
        for (size_t w = 0; w < words_; ++w) {
          uint64_t out = 0;
          if (in.ctl == ir::Ctl::Bra)
            out = in_[in.target * words_ + w];
          if (in.ctl != ir::Ctl::Exit && in.ctl != ir::Ctl::Ret && in.ctl != ir::Ctl::Trap)
            out |= in_[(pc + 1) * words_ + w];
          uint64_t v = readsAll[pc] ? ~0ull : uses[pc * words_ + w] | (out & ~kills[pc * words_ + w]);
          v |= always[w];
          if (v != row[w]) {
            row[w] = v;
            changed = true;
          }
        }
      }
    }
    return true;
  }

  uint32_t regs_ = 0;
  size_t words_ = 0, rows_ = 0;
  bool all_ = false;
  std::vector<uint64_t> in_; ///< (n + 1) rows of words_ (the row past the code: none)
};

} // namespace ptxsim::ptx::jit

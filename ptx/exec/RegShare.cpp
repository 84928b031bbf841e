#include "ptx/exec/RegShare.h"

#include "ptx/exec/Schedule.h"
#include "ptx/jit/JitOps.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ptxsim::ptx::exec {

namespace {

using ir::kWarpSize;
using jit::Op;

/// Bit sets of registers, one row per pc.
struct Rows {
  size_t words = 0;
  std::vector<uint64_t> v;
  Rows(size_t rows, size_t w) : words(w), v(rows * w, 0) {}
  uint64_t *row(size_t i) { return v.data() + i * words; }
  const uint64_t *row(size_t i) const { return v.data() + i * words; }
};

inline void setBit(uint64_t *s, uint32_t r) { s[r >> 6] |= uint64_t(1) << (r & 63); }
inline bool testBit(const uint64_t *s, uint32_t r) { return s[r >> 6] >> (r & 63) & 1; }

} // namespace

bool shareRegisterSlots(ir::Function &fn) {
  const size_t n = fn.code.size();
  const uint32_t nregs = fn.numRegs;
  if (n == 0 || nregs < 4 || nregs > 8192 || fn.regBytes.size() != nregs ||
      fn.regDeclIndex.size() != nregs || !fn.regSlot.empty() || fn.makesCalls)
    return false;
  for (uint8_t b : fn.regBytes)
    if (b > 8)
      return false; // .b128 or vector registers: slot pairs handlers address as base + 32
  // registers [0, fixed) keep their slot: a dst field holding a predicate index (below
  // numPreds) reads as their offset
  const uint32_t fixed = std::max<uint32_t>(1, (fn.numPreds + kWarpSize - 1) / kWarpSize);
  if (fixed + 2 >= nregs)
    return false;
  const size_t words = (nregs + 63) / 64;
  if ((n + 1) * words > (size_t(1) << 21))
    return false; // (four bit sets of over 16 MB each: an enormous kernel keeps its registers)

  // what each instruction reads (use), may write (def) and writes in every lane it runs in
  // (kill); registers named by an instruction whose effects are not described keep a slot of
  // their own (own)
  Rows use(n, words), def(n, words), kill(n, words);
  std::vector<uint64_t> own(words, 0);
  for (uint32_t r = 0; r < fixed; ++r)
    setBit(own.data(), r);
  auto regOf = [&](uint32_t off, uint32_t &r) {
    if (off % kWarpSize)
      return false;
    r = off / kWarpSize;
    return r < nregs;
  };
  for (size_t pc = 0; pc < n; ++pc) {
    const ir::Inst &in = fn.code[pc];
    switch (in.ctl) {
    case ir::Ctl::Bra:
      if (in.target >= n)
        return false;
      break;
    case ir::Ctl::None:
    case ir::Ctl::WarpSync:
    case ir::Ctl::Exit:
    case ir::Ctl::Ret:
    case ir::Ctl::Trap:
    case ir::Ctl::Bar:
    case ir::Ctl::BarArrive:
    case ir::Ctl::BarRed:
      break;
    default: // calls, indirect branches, blocking instructions, yields
      return false;
    }
    if (in.cls == ir::OpClass::Tensor || uint8_t(in.cls) >= ir::kNumBuiltinOpClasses)
      return false;
    if ((in.flags & 0x80) && in.aux)
      return false; // (a carry chain: its hidden register is in Inst::aux, OpsInt.cpp)
    // the registers in the operand fields
    uint32_t srcReg[5] = {}, dstReg[4] = {};
    bool isSrc[5], isDst[4];
    for (unsigned i = 0; i < 5; ++i)
      isSrc[i] = !in.src[i].cst && regOf(in.src[i].reg, srcReg[i]);
    for (unsigned k = 0; k < 4; ++k)
      isDst[k] = in.dst[k] >= fixed * kWarpSize && regOf(in.dst[k], dstReg[k]);
    // every register the lowering named for it is in a field
    auto inFields = [&](uint32_t r) {
      for (unsigned i = 0; i < 5; ++i)
        if (isSrc[i] && srcReg[i] == r)
          return true;
      for (unsigned k = 0; k < 4; ++k)
        if (isDst[k] && dstReg[k] == r)
          return true;
      return false;
    };
    for (unsigned i = 0; i < in.nrs + in.nrd; ++i) {
      const uint16_t r = i < in.nrs ? in.rs[i] : in.rd[i - in.nrs];
      if (r & ir::Inst::kPredBit)
        continue;
      if (r >= nregs || (r >= fixed && !inFields(r)))
        return false;
    }
    jit::OpDesc d;
    if (in.ctl == ir::Ctl::None || in.ctl == ir::Ctl::WarpSync)
      d = jit::describedOp(in.fn);
    if (jit::analysedAsHandler(d.op))
      d.op = Op::None;
    const bool branchLike = in.ctl == ir::Ctl::Bra || in.ctl == ir::Ctl::Exit ||
                            in.ctl == ir::Ctl::Ret || in.ctl == ir::Ctl::Trap;
    const bool perLane = d.op == Op::None && in.ctl == ir::Ctl::None && jit::perLaneClass(in.cls);
    if (!branchLike && d.op == Op::None && !perLane) {
      // a memory, atomic, warp-wide or barrier handler: it may read other lanes' values or
      // write part of a register, so what it names stays as it was
      for (unsigned i = 0; i < 5; ++i)
        if (isSrc[i])
          setBit(own.data(), srcReg[i]);
      for (unsigned k = 0; k < 4; ++k)
        if (isDst[k])
          setBit(own.data(), dstReg[k]);
      continue;
    }
    if (d.op == Op::Shfl && isSrc[0])
      setBit(own.data(), srcReg[0]); // (other lanes read it, active or not)
    uint64_t *u = use.row(pc), *w = def.row(pc), *k = kill.row(pc);
    for (unsigned i = 0; i < 5; ++i)
      if (isSrc[i])
        setBit(u, srcReg[i]);
    // the destinations it writes whole in its lanes (as RegInit's must-write counts them)
    bool whole[4] = {false, false, false, false};
    if (!perLane && !branchLike) {
      switch (d.op) {
      case Op::Setp:
      case Op::St:
        break;
      case Op::Vote:
        whole[0] = in.aux == 3; // ballot; all/any/uni write a predicate
        break;
      case Op::Ld:
        for (unsigned j = 0; j < in.vec && j < 4; ++j)
          whole[j] = true;
        break;
      default:
        whole[0] = true;
        break;
      }
    }
    const bool guarded = in.guard != ir::kPredTrue || in.guardXor;
    for (unsigned j = 0; j < 4; ++j) {
      if (!isDst[j])
        continue;
      setBit(w, dstReg[j]);
      if (whole[j] && !guarded)
        setBit(k, dstReg[j]);
      else
        setBit(u, dstReg[j]); // (a guarded or partial write keeps the other lanes' values)
    }
  }

  // liveness: in = use | (out & ~kill), out = the successors' in; a lane's path is a path of
  // the graph (the fall-through counted after every instruction but an unguarded exit)
  Rows live(n + 1, words); // (row n: past the code, nothing)
  auto outOf = [&](size_t pc, uint64_t *out) {
    const ir::Inst &in = fn.code[pc];
    const bool guarded = in.guard != ir::kPredTrue || in.guardXor;
    const bool ends = !guarded && (in.ctl == ir::Ctl::Exit || in.ctl == ir::Ctl::Ret ||
                                   in.ctl == ir::Ctl::Trap);
    const uint64_t *next = live.row(pc + 1), *tgt = in.ctl == ir::Ctl::Bra ? live.row(in.target) : nullptr;
    for (size_t i = 0; i < words; ++i)
      out[i] = (ends ? 0 : next[i]) | (tgt ? tgt[i] : 0);
  };
  std::vector<uint64_t> out(words);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t pc = n; pc-- > 0;) {
      outOf(pc, out.data());
      uint64_t *row = live.row(pc);
      const uint64_t *u = use.row(pc), *k = kill.row(pc);
      for (size_t i = 0; i < words; ++i) {
        const uint64_t v = u[i] | (out[i] & ~k[i]);
        if (v != row[i]) {
          row[i] = v;
          changed = true;
        }
      }
    }
  }

  // interference: what an instruction may write, with what is live after it, with what it
  // reads and with its other destinations
  Rows conflict(nregs, words);
  for (size_t pc = 0; pc < n; ++pc) {
    const uint64_t *w = def.row(pc);
    bool any = false;
    for (size_t i = 0; i < words && !any; ++i)
      any = w[i] != 0;
    if (!any)
      continue;
    outOf(pc, out.data());
    const uint64_t *u = use.row(pc);
    for (size_t i = 0; i < words; ++i)
      out[i] |= u[i] | w[i];
    for (size_t i = 0; i < words; ++i)
      for (uint64_t bits = w[i]; bits; bits &= bits - 1) {
        const uint32_t d = uint32_t(i * 64 + __builtin_ctzll(bits));
        uint64_t *c = conflict.row(d);
        for (size_t j = 0; j < words; ++j)
          c[j] |= out[j];
        for (size_t j = 0; j < words; ++j)
          for (uint64_t o = out[j]; o; o &= o - 1)
            setBit(conflict.row(uint32_t(j * 64 + __builtin_ctzll(o))), d);
      }
  }

  // slots: the first `fixed` registers keep theirs, a register of its own takes a fresh one,
  // the others the lowest slot no conflicting register holds (registers in the order the code
  // names them, so a loop's short-lived values take a few slots in turn)
  std::vector<uint32_t> slot(nregs, ~0u);
  std::vector<uint8_t> exclusive;
  for (uint32_t r = 0; r < fixed; ++r) {
    slot[r] = r;
    exclusive.push_back(1);
  }
  std::vector<uint8_t> busy;
  for (uint32_t r = fixed; r < nregs; ++r) {
    if (testBit(own.data(), r)) {
      slot[r] = uint32_t(exclusive.size());
      exclusive.push_back(1);
      continue;
    }
    busy.assign(exclusive.size(), 0);
    const uint64_t *c = conflict.row(r);
    for (size_t j = 0; j < words; ++j)
      for (uint64_t o = c[j]; o; o &= o - 1) {
        const uint32_t q = uint32_t(j * 64 + __builtin_ctzll(o));
        if (q != r && slot[q] != ~0u)
          busy[slot[q]] = 1;
      }
    uint32_t s = fixed;
    while (s < exclusive.size() && (exclusive[s] || busy[s]))
      ++s;
    if (s == exclusive.size())
      exclusive.push_back(0);
    slot[r] = s;
  }
  const uint32_t slots = uint32_t(exclusive.size());
  if (slots >= nregs)
    return false;

  // rewrite the operand fields
  for (ir::Inst &in : fn.code) {
    uint32_t r;
    for (ir::Opnd &o : in.src)
      if (!o.cst && regOf(o.reg, r))
        o.reg = slot[r] * kWarpSize;
    for (uint32_t &dst : in.dst)
      if (dst >= fixed * kWarpSize && regOf(dst, r))
        dst = slot[r] * kWarpSize;
  }
  fn.regSlot = std::move(slot);
  fn.numRegs = slots;
  return true;
}

} // namespace ptxsim::ptx::exec

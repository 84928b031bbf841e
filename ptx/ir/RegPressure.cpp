#include "ptx/ir/RegPressure.h"

#include <algorithm>

namespace ptxsim::ptx::ir {

namespace {

/// Dense bit set over the function's data registers.
struct Bits {
  std::vector<uint64_t> w;
  explicit Bits(size_t n = 0) : w((n + 63) / 64, 0) {}
  bool test(uint32_t i) const { return (w[i >> 6] >> (i & 63)) & 1; }
  void set(uint32_t i) { w[i >> 6] |= uint64_t(1) << (i & 63); }
  void reset(uint32_t i) { w[i >> 6] &= ~(uint64_t(1) << (i & 63)); }
  /// this |= o; true when anything changed.
  bool merge(const Bits &o) {
    bool changed = false;
    for (size_t i = 0; i < w.size(); ++i) {
      uint64_t v = w[i] | o.w[i];
      changed |= v != w[i];
      w[i] = v;
    }
    return changed;
  }
};

} // namespace

uint32_t estimateRegisters(const Function &f) {
  const size_t n = f.code.size();
  const uint32_t nregs = f.numDataRegs(); // (Inst::rs/rd name registers, not slots)
  if (n == 0 || nregs == 0)
    return 0;
  auto slots = [&](uint32_t r) -> uint32_t {
    uint8_t b = r < f.regBytes.size() ? f.regBytes[r] : 4;
    return b > 4 ? (b + 3) / 4 : 1;
  };

  // Successors of each pc.
  std::vector<std::vector<uint32_t>> succ(n);
  for (uint32_t pc = 0; pc < n; ++pc) {
    const Inst &in = f.code[pc];
    bool guarded = in.guard != kPredTrue || in.guardXor != 0;
    auto add = [&](uint32_t t) {
      if (t < n)
        succ[pc].push_back(t);
    };
    switch (in.ctl) {
    case Ctl::Bra:
      add(in.target);
      if (guarded)
        add(pc + 1);
      break;
    case Ctl::Brx:
      if (in.target < f.jumpTables.size())
        for (uint32_t t : f.jumpTables[in.target])
          add(t);
      break;
    case Ctl::Ret:
    case Ctl::Exit:
    case Ctl::Trap:
      if (guarded)
        add(pc + 1);
      break;
    default:
      add(pc + 1);
    }
  }

  // Basic blocks: leaders are pc 0, branch targets and the pc after a control transfer.
  std::vector<uint8_t> leader(n + 1, 0);
  leader[0] = 1;
  for (uint32_t pc = 0; pc < n; ++pc) {
    if (f.code[pc].ctl == Ctl::None || f.code[pc].ctl == Ctl::WarpSync)
      continue;
    leader[pc + 1] = 1;
    for (uint32_t t : succ[pc])
      leader[t] = 1;
  }
  std::vector<uint32_t> first;
  for (uint32_t pc = 0; pc < n; ++pc)
    if (leader[pc])
      first.push_back(pc);
  const size_t nb = first.size();
  // Keep the analysis bounded on enormous unrolled kernels: over ~32 MB of bit sets, report
  // the virtual register count itself.
  if ((uint64_t)nb * ((nregs + 63) / 64) > (uint64_t(1) << 22))
    return std::min<uint32_t>(nregs, 255);
  std::vector<uint32_t> blockOf(n);
  for (size_t b = 0; b < nb; ++b) {
    uint32_t end = b + 1 < nb ? first[b + 1] : (uint32_t)n;
    for (uint32_t pc = first[b]; pc < end; ++pc)
      blockOf[pc] = (uint32_t)b;
  }
  auto blockEnd = [&](size_t b) { return b + 1 < nb ? first[b + 1] : (uint32_t)n; };

  // Transfer of one instruction, backwards: live = (live - written) + read. A guarded write
  // may leave the old value live, so only unguarded writes kill.
  auto transfer = [&](const Inst &in, Bits &live) {
    bool guarded = in.guard != kPredTrue || in.guardXor != 0;
    if (!guarded)
      for (unsigned i = 0; i < in.nrd; ++i)
        if (!(in.rd[i] & Inst::kPredBit) && in.rd[i] < nregs)
          live.reset(in.rd[i]);
    for (unsigned i = 0; i < in.nrs; ++i)
      if (!(in.rs[i] & Inst::kPredBit) && in.rs[i] < nregs)
        live.set(in.rs[i]);
  };

  // Block-level backward liveness to a fixed point, visiting blocks in reverse order.
  std::vector<Bits> liveIn(nb, Bits(nregs));
  Bits live(nregs);
  bool changed = true;
  for (int round = 0; changed && round < 64; ++round) {
    changed = false;
    for (size_t b = nb; b-- > 0;) {
      uint32_t last = blockEnd(b) - 1;
      live = Bits(nregs);
      for (uint32_t s : succ[last])
        live.merge(liveIn[blockOf[s]]);
      for (uint32_t pc = last + 1; pc-- > first[b];)
        transfer(f.code[pc], live);
      changed |= liveIn[b].merge(live);
    }
  }

  // Pressure at each pc: what is live after it plus what it reads and defines (a result
  // occupies a register even when nothing reads it).
  uint32_t best = 0;
  auto pressure = [&](const Bits &bits) {
    uint32_t p = 0;
    for (size_t wi = 0; wi < bits.w.size(); ++wi)
      for (uint64_t v = bits.w[wi]; v; v &= v - 1)
        p += slots(uint32_t(wi * 64 + __builtin_ctzll(v)));
    return p;
  };
  for (size_t b = 0; b < nb; ++b) {
    uint32_t last = blockEnd(b) - 1;
    live = Bits(nregs);
    for (uint32_t s : succ[last])
      live.merge(liveIn[blockOf[s]]);
    for (uint32_t pc = last + 1; pc-- > first[b];) {
      const Inst &in = f.code[pc];
      uint32_t p = pressure(live);
      for (unsigned i = 0; i < in.nrd; ++i)
        if (!(in.rd[i] & Inst::kPredBit) && in.rd[i] < nregs && !live.test(in.rd[i]))
          p += slots(in.rd[i]);
      best = std::max(best, p);
      transfer(in, live);
      best = std::max(best, pressure(live));
    }
  }
  // SASS keeps a few registers ptx does not show (stack pointer, address pairs, loop
  // temporaries); ptxas never reports fewer than a handful for a non-empty kernel.
  constexpr uint32_t kReserve = 4;
  return std::min<uint32_t>(best + kReserve, 255);
}

} // namespace ptxsim::ptx::ir

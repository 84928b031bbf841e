// Registers that share slots of the warp's register store (ptx/exec/RegShare.h): the same
// results as registers with slots of their own, on random kernels written as nvcc writes them (a
// fresh register for almost every value, values that die within a few instructions), with
// divergence, loops, guarded writes, values some lanes never wrote, shuffles and barriers; and
// the functions and registers that keep slots of their own.

#include "ExecHarness.h"

#include <cstdlib>
#include <random>

using namespace ptxsim;
using namespace ptxsim::test;

namespace {

/// Random kernels in nvcc's style: each operation writes a fresh register (%v b32, %w b64,
/// %x f32, %q pred) from recent values, so most values are dead a few instructions later; a few
/// accumulators (%acc, %accw, %accf) carry a fold of many of them to the output.
class ValueKernelGen {
public:
  explicit ValueKernelGen(uint32_t seed) : rng_(seed) {}

  std::string kernel() {
    std::string body;
    v32_ = {"%tid32"};
    v64_ = {"%w0"}; // (not %in: an address differs from one engine to the other)
    vf_ = {"%accf"};
    preds_ = {"%pT"};
    const int n = 40 + int(rng_() % 80);
    for (int i = 0; i < n; ++i)
      body += step(0);
    // the last few values of each kind, and the accumulators
    std::string tail;
    for (size_t i = 0; i < 4 && i < v32_.size(); ++i)
      tail += "  xor.b32 %acc, %acc, " + v32_[v32_.size() - 1 - i] + ";\n";
    for (size_t i = 0; i < 2 && i < v64_.size(); ++i)
      tail += "  xor.b64 %accw, %accw, " + v64_[v64_.size() - 1 - i] + ";\n";
    std::string s = ptxHeader() +
                    ".visible .entry k(.param .u64 out, .param .u64 in) {\n"
                    "  .reg .b32 %v<" + std::to_string(nv_ + 1) + ">; .reg .b64 %w<" +
                    std::to_string(nw_ + 1) + ">; .reg .f32 %x<" + std::to_string(nx_ + 1) +
                    ">; .reg .pred %q<" + std::to_string(nq_ + 1) + ">;\n"
                    "  .reg .b32 %tid32, %gt, %acc, %c<" + std::to_string(nc_ + 1) + ">, %bits;\n"
                    "  .reg .b64 %out, %in, %accw, %a<" + std::to_string(na_ + 1) + ">;\n"
                    "  .reg .f32 %accf; .reg .pred %pT, %pl<" + std::to_string(nc_ + 1) + ">;\n"
                    "  .shared .align 4 .b32 sh[64];\n"
                    "  ld.param.u64 %out, [out];\n  ld.param.u64 %in, [in];\n"
                    "  mov.u32 %tid32, %tid.x;\n  setp.eq.u32 %pT, %tid32, %tid32;\n"
                    "  mul.wide.u32 %w0, %tid32, 40503;\n"
                    "  mov.u32 %acc, 0;\n  mov.u64 %accw, 0;\n"
                    "  mov.f32 %accf, 0f00000000;\n" +
                    body + tail +
                    "  mov.b32 %bits, %accf;\n"
                    "  mov.u32 %gt, %ctaid.x;\n  mad.lo.u32 %gt, %gt, 64, %tid32;\n"
                    "  mul.wide.u32 %a0, %gt, 16;\n  add.s64 %a0, %out, %a0;\n"
                    "  st.global.u32 [%a0], %acc;\n  st.global.u32 [%a0+4], %bits;\n"
                    "  st.global.u64 [%a0+8], %accw;\n  ret;\n}\n";
    return s;
  }

private:
  std::string v(const std::vector<std::string> &pool) {
    // mostly a recent value (a short life), sometimes an old one (a long one)
    if (rng_() % 4 && pool.size() > 1)
      return pool[pool.size() - 1 - rng_() % std::min<size_t>(6, pool.size())];
    return pool[rng_() % pool.size()];
  }
  std::string a32() { return v(v32_); }
  std::string a64() { return v(v64_); }
  std::string af() { return v(vf_); }
  std::string pred() { return v(preds_); }
  std::string imm() { return std::to_string(int32_t(rng_()) >> (rng_() % 24)); }
  std::string new32() { return "%v" + std::to_string(++nv_); }
  std::string new64() { return "%w" + std::to_string(++nw_); }
  std::string newf() { return "%x" + std::to_string(++nx_); }
  std::string newp() { return "%q" + std::to_string(++nq_); }
  std::string pick(std::initializer_list<const char *> l) {
    auto it = l.begin();
    std::advance(it, rng_() % l.size());
    return *it;
  }
  std::string guard() {
    if (rng_() % 6)
      return "";
    return "@" + std::string(rng_() % 2 ? "!" : "") + v(preds_) + " ";
  }
  /// A fold of `x` into an accumulator, sometimes.
  std::string fold(const std::string &x, char kind) {
    if (rng_() % 3)
      return "";
    if (kind == 'v')
      return "  add.u32 %acc, %acc, " + x + ";\n";
    if (kind == 'w')
      return "  xor.b64 %accw, %accw, " + x + ";\n";
    return "  add.f32 %accf, %accf, " + x + ";\n";
  }

  /// One operation or control structure at divergence depth `depth` (0: every lane of the
  /// CTA runs it, so barriers and .sync warp primitives are allowed).
  std::string step(int depth) {
    const unsigned k = rng_() % 26;
    std::string s;
    if (k == 0 && depth < 2) { // forward branch around a few operations (lanes diverge)
      const std::string l = "L" + std::to_string(labels_++);
      s += "  @" + std::string(rng_() % 2 ? "!" : "") + pred() + " bra " + l + ";\n";
      for (int j = 1 + int(rng_() % 5); j-- > 0;)
        s += step(depth + 1);
      return s + l + ":\n";
    }
    if (k == 1 && depth < 2) { // if / else
      const std::string e = "L" + std::to_string(labels_++), end = "L" + std::to_string(labels_++);
      s += "  @" + pred() + " bra " + e + ";\n";
      for (int j = 1 + int(rng_() % 4); j-- > 0;)
        s += step(depth + 1);
      s += "  bra.uni " + end + ";\n" + e + ":\n";
      for (int j = 1 + int(rng_() % 4); j-- > 0;)
        s += step(depth + 1);
      return s + end + ":\n";
    }
    if (k == 2 && depth < 2) { // a counted loop, uniform or with a trip count per lane
      const std::string l = "L" + std::to_string(labels_++);
      const std::string c = "%c" + std::to_string(++nc_), p = "%pl" + std::to_string(nc_);
      const bool perLane = rng_() % 2;
      if (perLane)
        s += "  and.b32 " + c + ", " + a32() + ", 7;\n  add.u32 " + c + ", " + c + ", 1;\n";
      else
        s += "  mov.u32 " + c + ", " + std::to_string(1 + rng_() % 9) + ";\n";
      s += l + ":\n";
      for (int j = 1 + int(rng_() % 6); j-- > 0;)
        s += step(depth + (perLane ? 1 : 0));
      // a value carried round the loop
      s += "  add.u32 %acc, %acc, " + a32() + ";\n";
      return s + "  sub.u32 " + c + ", " + c + ", 1;\n  setp.ne.u32 " + p + ", " + c +
             ", 0;\n  @" + p + " bra " + l + ";\n";
    }
    if (k == 3 && depth == 0) { // shared memory round trip between the CTA's lanes
      const std::string a = "%a" + std::to_string(++na_), d = new32();
      s += "  and.b32 %c0, %tid32, 55;\n  mul.wide.u32 " + a + ", %c0, 4;\n  mov.u64 %a0, sh;\n"
           "  add.s64 " + a + ", " + a + ", %a0;\n  st.shared.u32 [" + a + "], " + a32() +
           ";\n  bar.sync 0;\n  ld.shared.u32 " + d + ", [" + a + "+" +
           std::to_string(4 * (rng_() % 8)) + "];\n  bar.sync 0;\n";
      v32_.push_back(d);
      return s + fold(d, 'v');
    }
    if (k == 4) { // a load from the input, at an address made of a value
      const std::string t = new32(), o = new64(), a = new64(), d = new32();
      s += "  and.b32 " + t + ", " + a32() + ", 255;\n  mul.wide.u32 " + o + ", " + t +
           ", 4;\n  add.s64 " + a + ", %in, " + o + ";\n  " + guard() + "ld.global.u32 " + d +
           ", [" + a + "];\n";
      v32_.push_back(d);
      return s + fold(d, 'v');
    }
    if (k == 5) { // a shuffle (other lanes read the source)
      const std::string d = new32();
      if (depth == 0)
        s += "  shfl.sync." + pick({"bfly", "down", "up", "idx"}) + ".b32 " + d + ", " + a32() +
             ", " + std::to_string(rng_() % 32) + ", " + pick({"0x1f", "0"}) + ", 0xffffffff;\n";
      else
        s += "  shfl." + pick({"bfly", "down", "up", "idx"}) + ".b32 " + d + ", " + a32() + ", " +
             std::to_string(rng_() % 32) + ", 0x1f;\n";
      v32_.push_back(d);
      return s + fold(d, 'v');
    }
    if (k == 6) { // warp votes
      const std::string d = new32();
      s += rng_() % 2 ? "  vote.ballot.b32 " + d + ", " + pred() + ";\n"
                      : "  activemask.b32 " + d + ";\n";
      v32_.push_back(d);
      return s + fold(d, 'v');
    }
    if (k == 7) { // two destinations, and two halves into one
      const std::string lo = new32(), hi = new32(), w = new64();
      s += "  mov.b64 {" + lo + ", " + hi + "}, " + a64() + ";\n";
      v32_.push_back(lo);
      v32_.push_back(hi);
      s += "  mov.b64 " + w + ", {" + a32() + ", " + a32() + "};\n";
      v64_.push_back(w);
      return s + fold(w, 'w');
    }
    if (k == 8 && !v32_.empty()) { // a write into an older register (not a fresh one)
      const std::string d = v(v32_);
      if (d == "%tid32")
        return "";
      return "  " + guard() + "add.u32 " + d + ", " + d + ", " + a32() + ";\n";
    }
    if (k == 9) {
      const std::string p = newp();
      s += "  setp." + pick({"lt", "ge", "ne", "eq"}) + "." + pick({"u32", "s32"}) + " " + p + ", " +
           a32() + ", " + (rng_() % 2 ? a32() : imm()) + ";\n";
      preds_.push_back(p);
      return s;
    }
    if (k == 10) {
      const std::string d = new32();
      s += "  selp.b32 " + d + ", " + a32() + ", " + a32() + ", " + pred() + ";\n";
      v32_.push_back(d);
      return s + fold(d, 'v');
    }
    if (k == 11) {
      const std::string d = new64();
      s += "  " + guard() + "mul.wide." + pick({"u32", "s32"}) + " " + d + ", " + a32() + ", " +
           a32() + ";\n";
      v64_.push_back(d);
      return s + fold(d, 'w');
    }
    if (k == 12) {
      const std::string d = new64();
      s += "  " + guard() + pick({"add.u64", "sub.u64", "xor.b64", "and.b64"}) + " " + d + ", " +
           a64() + ", " + a64() + ";\n";
      v64_.push_back(d);
      return s + fold(d, 'w');
    }
    if (k == 13) {
      const std::string d = new32();
      s += "  cvt.u32.u64 " + d + ", " + a64() + ";\n";
      v32_.push_back(d);
      return s + fold(d, 'v');
    }
    if (k == 14) {
      const std::string d = newf();
      s += "  cvt.rn.f32.s32 " + d + ", " + a32() + ";\n";
      vf_.push_back(d);
      return s + fold(d, 'f');
    }
    if (k == 15) {
      const std::string d = newf();
      s += "  " + guard() + "fma.rn.f32 " + d + ", " + af() + ", " + af() + ", " + af() + ";\n";
      vf_.push_back(d);
      return s + fold(d, 'f');
    }
    if (k == 16) {
      const std::string d = new32();
      s += "  cvt.rzi.s32.f32 " + d + ", " + af() + ";\n";
      v32_.push_back(d);
      return s + fold(d, 'v');
    }
    if (k == 17) {
      const std::string d = new32();
      s += "  mad.lo.u32 " + d + ", " + a32() + ", " + a32() + ", " + a32() + ";\n";
      v32_.push_back(d);
      return s + fold(d, 'v');
    }
    if (k == 18) {
      const std::string d = new32();
      s += "  " + pick({"shl", "shr"}) + ".b32 " + d + ", " + a32() + ", " +
           std::to_string(rng_() % 32) + ";\n";
      v32_.push_back(d);
      return s + fold(d, 'v');
    }
    // two-operand integer arithmetic, sometimes guarded (the other lanes never write it)
    const std::string d = new32();
    s += "  " + guard() + pick({"add", "sub", "mul.lo", "min", "max"}) + "." +
         pick({"u32", "s32"}) + " " + d + ", " + a32() + ", " + (rng_() % 3 ? a32() : imm()) +
         ";\n";
    v32_.push_back(d);
    return s + fold(d, 'v');
  }

  std::mt19937 rng_;
  std::vector<std::string> v32_, v64_, vf_, preds_;
  int nv_ = 0, nw_ = 0, nx_ = 0, nq_ = 0, nc_ = 0, na_ = 0, labels_ = 0;
};

/// The output of kernel `text` on 2 CTAs of 64 threads, with registers sharing slots or not,
/// and the kernel's registers and slots.
struct KernelRun {
  std::vector<uint32_t> out;
  uint32_t regs = 0, slots = 0;
};
KernelRun runKernel(const std::string &text, bool share, ptx::exec::SimtMode simt) {
  ExecHarness h(1, simt, false, false, false, 0, false, share);
  KernelRun r;
  EXPECT_TRUE(h.load(text)) << h.errors << "\n" << text;
  if (h.module < 0)
    return r;
  const ptx::exec::Kernel *k = h.engine->findKernel("k", h.module);
  r.regs = k->fn->numDataRegs();
  r.slots = k->fn->numRegs;
  std::vector<uint32_t> in(256);
  for (uint32_t i = 0; i < 256; ++i)
    in[i] = i * 2654435761u ^ 0x5bd1e995u;
  const uint64_t inA = h.upload(in), outA = h.alloc(2 * 64 * 16);
  std::memset(reinterpret_cast<void *>(outA), 0xab, 2 * 64 * 16);
  auto res = h.launch("k", {2}, {64}, {outA, inA});
  EXPECT_TRUE(res.ok()) << res.message << "\n" << text;
  r.out = h.read<uint32_t>(outA, 2 * 64 * 4);
  return r;
}

TEST(RegShare, RandomKernelsGiveTheSameResultsWithSharedSlots) {
  // PTXSIM_REGSHARE_FUZZ_KERNELS / _SEED for longer runs
  int count = 40;
  uint32_t seed = 1;
  if (const char *v = std::getenv("PTXSIM_REGSHARE_FUZZ_KERNELS"))
    count = std::atoi(v);
  if (const char *v = std::getenv("PTXSIM_REGSHARE_FUZZ_SEED"))
    seed = uint32_t(std::strtoul(v, nullptr, 10));
  int shared = 0;
  for (int i = 0; i < count; ++i) {
    const std::string text = ValueKernelGen(seed + uint32_t(i)).kernel();
    const auto simt = i % 2 ? ptx::exec::SimtMode::Ipdom : ptx::exec::SimtMode::Auto;
    const KernelRun own = runKernel(text, false, simt), share = runKernel(text, true, simt);
    ASSERT_EQ(own.slots, own.regs) << "seed " << seed + i;
    EXPECT_EQ(share.regs, own.regs) << "seed " << seed + i;
    shared += share.slots < share.regs;
    size_t first = 0;
    while (first < own.out.size() && first < share.out.size() && own.out[first] == share.out[first])
      ++first;
    ASSERT_EQ(share.out, own.out) << "seed " << seed + i << " (" << share.slots << " slots for "
                                  << share.regs << " registers): first difference at word "
                                  << first << " (thread " << first / 4 << ")\n" << text;
  }
  // (the kernels are written so that registers die: nearly all of them share slots)
  EXPECT_GE(shared, count * 9 / 10);
}

/// The registers and slots of kernel "k" of `body`.
std::pair<uint32_t, uint32_t> regsAndSlots(const std::string &body) {
  ExecHarness h;
  EXPECT_TRUE(h.load(ptxHeader() + body)) << h.errors;
  if (h.module < 0)
    return {0, 0};
  const ptx::ir::Function &fn = *h.engine->findKernel("k", h.module)->fn;
  return {fn.numDataRegs(), fn.numRegs};
}

// An unrolled chain of short-lived values (a tiled loop's loads and products) takes a few slots.
TEST(RegShare, ShortLivedValuesTakeAFewSlots) {
  std::string body = R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<80>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
)";
  for (int i = 0; i < 24; ++i) {
    const int a = 3 + 3 * i;
    body += "  mul.lo.u32 %r" + std::to_string(a) + ", %r1, " + std::to_string(i + 3) + ";\n";
    body += "  add.u32 %r" + std::to_string(a + 1) + ", %r" + std::to_string(a) + ", " +
            std::to_string(i) + ";\n";
    body += "  add.u32 %r2, %r2, %r" + std::to_string(a + 1) + ";\n";
  }
  body += R"(
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";
  const auto [regs, slots] = regsAndSlots(body);
  EXPECT_GE(regs, 50u);
  EXPECT_LE(slots, 10u);
  // and it computes what it did
  for (bool share : {false, true}) {
    ExecHarness h(1, ptx::exec::SimtMode::Auto, false, false, false, 0, false, share);
    ASSERT_TRUE(h.load(ptxHeader() + body)) << h.errors;
    std::vector<uint32_t> v = h.runOneWarp("k");
    ASSERT_EQ(v.size(), 32u);
    for (uint32_t t = 0; t < 32; ++t) {
      uint32_t want = 0;
      for (uint32_t i = 0; i < 24; ++i)
        want += t * (i + 3) + i;
      EXPECT_EQ(v[t], want) << "thread " << t << (share ? " (shared slots)" : "");
    }
  }
}

// What keeps every register in a slot of its own: a carry chain (its hidden register is named in
// Inst::aux), a .b128 register (two slots), a call; and PTXSIM_SHARE_REGISTER_SLOTS' engine
// setting off.
TEST(RegShare, FunctionsItCannotAccountForKeepTheirSlots) {
  const std::string chain = R"(
  mul.lo.u32 %r3, %r1, 3;
  add.u32 %r4, %r3, 1;
  mul.lo.u32 %r5, %r4, 5;
  add.u32 %r6, %r5, 1;
  mul.lo.u32 %r7, %r6, 7;
  add.u32 %r8, %r7, 1;
)";
  const std::string head = R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<12>; .reg .b64 %rd<4>; .reg .b128 %x;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
)";
  const std::string tail = R"(
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r8;
  ret;
}
)";
  {
    const auto [regs, slots] = regsAndSlots(head + chain + tail);
    EXPECT_LT(slots, regs) << "the plain chain shares";
  }
  {
    const auto [regs, slots] =
        regsAndSlots(head + chain + "  add.cc.u32 %r9, %r8, %r1;\n  addc.u32 %r8, %r9, 0;\n" + tail);
    EXPECT_EQ(slots, regs) << "carry chain";
  }
  {
    const auto [regs, slots] =
        regsAndSlots(head + chain + "  mov.b128 %x, {%rd1, %rd1};\n  mov.b128 {%rd2, %rd3}, %x;\n" + tail);
    EXPECT_EQ(slots, regs) << ".b128 register";
  }
  {
    ExecHarness h(1, ptx::exec::SimtMode::Auto, false, false, false, 0, false, false);
    ASSERT_TRUE(h.load(ptxHeader() + head + chain + tail)) << h.errors;
    const ptx::ir::Function &fn = *h.engine->findKernel("k", h.module)->fn;
    EXPECT_EQ(fn.numRegs, fn.numDataRegs()) << "sharing off";
    EXPECT_TRUE(fn.regSlot.empty());
  }
}

// A shuffle's source is read in other lanes, active or not: it keeps a slot of its own, so a
// lane that took the other path and wrote a register of its own there cannot change what a
// shuffle reads from it.
TEST(RegShare, AShuffleSourceKeepsItsOwnSlot) {
  const std::string body = R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<16>; .reg .b64 %rd<4>; .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra EVEN;
  add.u32 %r3, %r1, 1000;
  shfl.bfly.b32 %r4, %r3, 1, 0x1f;
  add.u32 %r5, %r4, 7;
  bra.uni JOIN;
EVEN:
  mul.lo.u32 %r6, %r1, 3;
  add.u32 %r7, %r6, 2;
  mul.lo.u32 %r8, %r7, 5;
  add.u32 %r5, %r8, 1;
JOIN:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
}
)";
  std::vector<uint32_t> got[2];
  for (bool share : {false, true}) {
    ExecHarness h(1, ptx::exec::SimtMode::Ipdom, false, false, false, 0, false, share);
    ASSERT_TRUE(h.load(ptxHeader() + body)) << h.errors;
    got[share] = h.runOneWarp("k");
    const ptx::ir::Function &fn = *h.engine->findKernel("k", h.module)->fn;
    if (share) {
      ASSERT_FALSE(fn.regSlot.empty());
      // %r3 (the shuffle's source) is in no other register's slot
      uint32_t r3 = ~0u;
      for (uint32_t r = 0; r < fn.regDeclIndex.size(); ++r)
        if (fn.regDeclIndex[r] == 3)
          r3 = r;
      ASSERT_NE(r3, ~0u);
      for (uint32_t r = 0; r < fn.regSlot.size(); ++r) {
        if (r != r3) {
          EXPECT_NE(fn.regSlot[r], fn.regSlot[r3]) << "register " << r;
        }
      }
    }
  }
  EXPECT_EQ(got[1], got[0]);
}

} // namespace

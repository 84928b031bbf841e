// The issue path's bookkeeping (Sm::issueSmWith and what it inlines): the per-instruction table
// (Sm::issueInfo) keeps any 256 consecutive instructions of a function at once, whatever the
// code's address, and its entry says which instructions may skip the parallel phase's stop test
// (IssueInfo::localOnly: register-only and window-safe); the warp's scoreboard never grows past
// kPredBit entries (a register is tested against its end in one comparison, which a predicate
// operand must fail); and the scoreboard holds every destination's ready cycle, a predicate's
// too, and one past the scoreboard's end that grows it in the middle of an instruction's
// destinations: a one-warp chain of dependent instructions costs each link its latency,
// whichever register or predicate carries it.

#include "ExecHarness.h"
#include "ptx/exec/Schedule.h"
#include "sim/KernelSimulator.h"
#include "timing/gpu/Gpu.h"
#include "timing/sm/Sm.h"
#include "timing/sm/scheduler/IWarpScheduler.h"

#include <algorithm>
#include <cstring>
#include <sstream>

using namespace ptxsim;
using namespace ptxsim::test;

namespace {

/// The full SM with its table of instruction facts read from outside.
class IssueInfoProbeSm : public timing::Sm {
public:
  using Sm::Sm;
  using Info = IssueInfo;
  const Info &info(const ptx::ir::Inst &in, const ptx::ir::Function &fn = noFunction()) {
    return issueInfo(in, fn);
  }
  static const ptx::ir::Function &noFunction() {
    static const ptx::ir::Function fn;
    return fn;
  }
  /// The entries that are for `in` now (without filling one)
  size_t entriesFor(const ptx::ir::Inst &in) const {
    return size_t(std::count_if(issueInfo_.get(), issueInfo_.get() + kIssueInfoEntries,
                                [&](const Info &e) { return e.in == &in; }));
  }
  static constexpr size_t entries() { return kIssueInfoEntries; }
  /// A fresh slot's scoreboard after `r` is written: the entries of r's kind (registers or
  /// predicates) and what r reads back.
  static std::pair<size_t, timing::Cycle> grownBy(uint16_t r, timing::Cycle at) {
    Slot s;
    s.ready(r) = at;
    const size_t n = (r & ptx::ir::Inst::kPredBit) ? s.predReady.size() : s.regReady.size();
    return {n, s.readyAt(r)};
  }
};

} // namespace

TEST(TimingIssuePath, AnyTableSizeOfConsecutiveInstructionsKeepTheirEntries) {
  timing::TimingConfig cfg;
  IssueInfoProbeSm sm(cfg, 0, timing::builtinSchedulers());
  const size_t n = IssueInfoProbeSm::entries();
  std::vector<ptx::ir::Inst> code(3 * n);
  // windows starting at several residues of the code's address
  for (size_t start : {size_t(0), size_t(1), size_t(37), n - 1, n + 5}) {
    for (size_t i = start; i < start + n; ++i)
      ASSERT_EQ(sm.info(code[i]).in, &code[i]);
    // (none of them took another one's entry)
    for (size_t i = start; i < start + n; ++i)
      ASSERT_EQ(sm.entriesFor(code[i]), 1u) << "window at " << start << ", instruction " << i;
  }
}

TEST(TimingIssuePath, TheScoreboardGrowsToAtMostThePredicateBitsEntries) {
  // (the issue tests a register against the scoreboard's end in one comparison, which an
  // operand with kPredBit must fail: Slot::grow never makes kPredBit entries or more)
  const uint16_t pred = ptx::ir::Inst::kPredBit;
  for (uint16_t r : {uint16_t(0), uint16_t(5), uint16_t(300), uint16_t(pred - 16),
                     uint16_t(pred - 2), uint16_t(pred - 1), uint16_t(pred | 3),
                     uint16_t(pred | (pred - 1))}) {
    const auto [n, back] = IssueInfoProbeSm::grownBy(r, 1234);
    EXPECT_EQ(back, 1234u) << r;
    EXPECT_GT(n, size_t(r & (pred - 1))) << r;
    EXPECT_LE(n, size_t(pred)) << r;
  }
}

TEST(TimingIssuePath, LocalOnlyIsRegisterOnlyAndWindowSafe) {
  timing::TimingConfig cfg;
  IssueInfoProbeSm sm(cfg, 0, timing::builtinSchedulers());
  using ptx::ir::Ctl;
  using ptx::ir::MemSpace;
  using ptx::ir::OpClass;
  struct Case {
    OpClass cls;
    Ctl ctl;
    MemSpace space;
    bool local;
  };
  const Case cases[] = {
      {OpClass::Alu, Ctl::None, MemSpace::Global, true},
      {OpClass::Fp32, Ctl::None, MemSpace::Global, true},
      {OpClass::Sfu, Ctl::None, MemSpace::Global, true},
      {OpClass::Alu, Ctl::Exit, MemSpace::Global, false},   // ends the warp (not register-only)
      {OpClass::Control, Ctl::Bra, MemSpace::Global, false}, // window-safe, not Ctl::None
      {OpClass::Alu, Ctl::Call, MemSpace::Global, false},
      {OpClass::Mem, Ctl::None, MemSpace::Shared, false},    // window-safe, not register-only
      {OpClass::Mem, Ctl::None, MemSpace::Global, false},
      {OpClass::Sync, Ctl::None, MemSpace::Global, false},
  };
  std::vector<ptx::ir::Inst> code(std::size(cases));
  for (size_t i = 0; i < code.size(); ++i) {
    code[i].cls = cases[i].cls;
    code[i].ctl = cases[i].ctl;
    code[i].space = cases[i].space;
    const IssueInfoProbeSm::Info &e = sm.info(code[i]);
    EXPECT_EQ(bool(e.localOnly), cases[i].local) << "case " << i;
    EXPECT_EQ(bool(e.localOnly), e.registerOnly && e.windowSafe) << "case " << i;
  }
  // an arithmetic instruction ptxas folds a constant-bank operand into is not window-safe
  ptx::ir::Inst folded;
  folded.sassRole = uint8_t(ptx::exec::SassRole::ConstOperand);
  EXPECT_FALSE(sm.info(folded).localOnly);
}

TEST(TimingIssuePath, RegisterBanksFollowTheDeclarationOrderNotTheStore) {
  // The lowering places registers in the store in the order the code names them
  // (ir::Function::regDeclIndex keeps each one's index among the declarations); the operand
  // collector's banks are those of the declarations. 16 banks: declarations 0 and 16 share one.
  timing::TimingConfig cfg;
  cfg.core.regBanks = 16;
  IssueInfoProbeSm sm(cfg, 0, timing::builtinSchedulers());
  ptx::ir::Function fn;
  fn.numRegs = 4;
  fn.regDeclIndex = {0, 16, 1, 33};
  std::vector<ptx::ir::Inst> code(4);
  auto reads = [](ptx::ir::Inst &in, std::initializer_list<uint16_t> rs) {
    in.nrs = 0;
    for (uint16_t r : rs)
      in.rs[in.nrs++] = r;
  };
  reads(code[0], {0, 1});    // declarations 0 and 16: one bank, read twice
  reads(code[1], {0, 2});    // 0 and 1: two banks
  reads(code[2], {2, 3, 0}); // 1, 33 (bank 1) and 0
  reads(code[3], {0, 1, 3}); // 0, 16 (bank 0) and 33
  EXPECT_EQ(sm.info(code[0], fn).bankWorst, 2);
  EXPECT_EQ(sm.info(code[1], fn).bankWorst, 1);
  EXPECT_EQ(sm.info(code[2], fn).bankWorst, 2);
  EXPECT_EQ(sm.info(code[3], fn).bankWorst, 2);
  // without the table (a function made by hand), the store's index is the bank's
  IssueInfoProbeSm plain(cfg, 0, timing::builtinSchedulers());
  EXPECT_EQ(plain.info(code[0]).bankWorst, 1);
  EXPECT_EQ(plain.info(code[1]).bankWorst, 1);
}

namespace {

// One warp, `iters` times round a loop whose chain runs through a predicate (setp, then an add
// it guards), a 64-bit pack and a two-destination unpack, then an add of the unpack's second
// destination: five dependent links an iteration. Registers are numbered in declaration order
// and the warp's scoreboard grows as they are written: with `early` (written before the loop)
// %h3, the unpack's first destination %h299 lies past its end, so the scoreboard grows in the
// middle of the unpack's destinations, before the second one's ready cycle goes in; with
// `early` %h299 it has grown before.
std::string chainKernel(int iters, const char *early) {
  std::ostringstream os;
  os << ptxHeader() << R"(.visible .entry k(.param .u64 out) {
  .reg .b64 %rd<4>; .reg .b32 %r<10>; .reg .pred %p<3>; .reg .b32 %h<300>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 0;
  mov.u32 %r9, 0;
  mov.u32 )" << early << R"(, 0;
LOOP:
  setp.lt.u32 %p1, %r1, 1000000;
  @%p1 add.u32 %r1, %r1, 1;
  mov.b64 %rd2, {%r1, %r1};
  mov.b64 {%h299, %r2}, %rd2;
  add.u32 %r1, %r2, 1;
  add.u32 %r9, %r9, 1;
  setp.lt.u32 %p2, %r9, )" << iters << R"(;
  @%p2 bra LOOP;
  st.global.u32 [%rd1], %r1;
  ret;
}
)";
  return os.str();
}

} // namespace

TEST(TimingIssuePath, ScoreboardChainsThroughPredicatesAndAGrowingScoreboard) {
  timing::TimingConfig cfg; // defaults, with long arithmetic latencies
  cfg.core.intLatency = 24;
  cfg.core.spLatency = 24;
  cfg.core.regBanks = 1; // (bank conflicts by source count only, not by register numbers)
  cfg.mem.l1i.enabled = false; // (no instruction fetch to wait for: every link's latency shows)
  auto cycles = [&](int iters, const char *early) -> double {
    ExecHarness h;
    EXPECT_TRUE(h.load(chainKernel(iters, early))) << h.errors;
    const ptx::exec::Kernel *k = h.engine->findKernel("k", h.module);
    EXPECT_TRUE(k && k->fn);
    if (!k || !k->fn)
      return 0;
    uint64_t out = h.alloc(4);
    std::vector<uint8_t> buf(k->paramBytes + 8);
    std::memcpy(buf.data() + k->paramOffsets[0], &out, 8);
    ptx::exec::LaunchParams p;
    p.kernel = k;
    p.grid = {1};
    p.block = {1};
    p.params = buf.data();
    sim::KernelSimulator sim(cfg, *h.engine);
    sim::KernelRun run = sim.run(p);
    EXPECT_TRUE(run.launch.ok()) << run.launch.message;
    // each iteration adds 2
    EXPECT_EQ(h.read<uint32_t>(out, 1)[0], uint32_t(2 * iters));
    return double(run.stats.cycles);
  };
  // sixteen more iterations: at least five links of 24 cycles each
  const double extra = cycles(32, "%h299") - cycles(16, "%h299");
  EXPECT_GE(extra, 16.0 * 5 * 24);
  // the unpack's second destination is waited for alike when its first grew the scoreboard
  EXPECT_EQ(cycles(16, "%h3"), cycles(16, "%h299"));
}

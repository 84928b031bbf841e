// What the SM keeps of an instruction from its first issue in a launch (Sm::IssueInfo: its pipe,
// latency, register-bank degree and register counts) must follow each SM's own configuration
// and each launch: the register-file reads and the operand collector's bank-conflict cycles
// of a straight-line kernel (every instruction issued once by one warp) are those the
// instructions' operands give, with 1 bank (all sources in one bank), 2 and 64, on GPUs
// running the same loaded code, twice each.

#include "ExecHarness.h"
#include "sim/KernelSimulator.h"
#include "timing/gpu/Gpu.h"

#include <algorithm>
#include <cstring>
#include <map>

using namespace ptxsim;
using namespace ptxsim::test;

namespace {

// two and three register sources (a register read twice is one source), a load and a store
const char *kPtx = R"(
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  add.u32 %r2, %r1, %r1;
  mad.lo.u32 %r3, %r1, %r2, %r1;
  xor.b32 %r4, %r3, %r2;
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}
)";

/// The busiest bank's register reads of `in` with `banks` banks (predicates aside): the model
/// reads a bank's registers one per cycle, so an instruction takes degree - 1 extra cycles. A
/// register's bank is that of its index among the declarations (ir::Function::regDeclIndex).
uint32_t bankDegree(const ptx::ir::Function &fn, const ptx::ir::Inst &in, uint32_t banks) {
  std::map<uint32_t, uint32_t> perBank;
  uint32_t worst = 0;
  for (unsigned i = 0; i < in.nrs; ++i)
    if (!(in.rs[i] & ptx::ir::Inst::kPredBit))
      worst = std::max(worst, ++perBank[fn.regDeclIndex.at(in.rs[i]) % banks]);
  return worst;
}

} // namespace

TEST(TimingIssueInfo, BankConflictsAndReadsFollowEachSmConfig) {
  ExecHarness h;
  ASSERT_TRUE(h.load(ptxHeader() + kPtx)) << h.errors;
  const ptx::exec::Kernel *k = h.engine->findKernel("k", h.module);
  ASSERT_TRUE(k && k->fn);
  uint64_t out = h.alloc(32 * 4);
  std::vector<uint8_t> buf(k->paramBytes + 8);
  std::memcpy(buf.data() + k->paramOffsets[0], &out, 8);
  ptx::exec::LaunchParams p;
  p.kernel = k;
  p.grid = {1};
  p.block = {32};
  p.params = buf.data();
  for (uint32_t banks : {1u, 2u, 64u}) {
    // what the operands give: every instruction issues once; arithmetic ones (not memory
    // accesses) go through the collector
    double conflicts = 0, reads = 0, maxSources = 0;
    for (const ptx::ir::Inst &in : k->fn->code) {
      const uint32_t degree = bankDegree(*k->fn, in, 1);
      reads += degree; // (one bank: the degree is the register sources' count)
      maxSources = std::max(maxSources, double(degree));
      if (in.cls != ptx::ir::OpClass::Mem && in.cls != ptx::ir::OpClass::Atomic)
        conflicts += std::max(bankDegree(*k->fn, in, banks), 1u) - 1;
    }
    ASSERT_GE(maxSources, 2) << "the kernel's add and mad have two register sources";
    timing::TimingConfig cfg; // defaults: GTX480-like
    cfg.core.regBanks = banks;
    sim::KernelSimulator sim(cfg, *h.engine);
    for (int launch = 0; launch < 2; ++launch) {
      sim::KernelRun run = sim.run(p);
      ASSERT_TRUE(run.launch.ok()) << run.launch.message;
      EXPECT_EQ(run.stats.get("sm.regfile_reads"), reads) << banks << " banks, launch " << launch;
      EXPECT_EQ(run.stats.get("sm.reg_bank_conflict_cycles"), conflicts)
          << banks << " banks, launch " << launch;
      if (banks == 64) {
        EXPECT_EQ(conflicts, 0) << "registers below 64: each in its own bank";
      } else if (banks == 1) {
        EXPECT_GT(conflicts, 0);
      }
    }
  }
}

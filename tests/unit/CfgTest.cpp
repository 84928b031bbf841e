// Control-flow graphs and immediate post-dominators (the SIMT reconvergence points): small
// hand-written shapes with known answers, and a brute-force cross-check on every function of
// the nvcc kernel corpus.

#include "TestUtil.h"

#include "ptx/ir/Cfg.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

namespace ptxsim::test {
namespace {

using ptx::Cfg;

struct Built {
  CheckResult r;
  Cfg g;
};

Built build(const std::string &body) {
  Built b{checkText(kernel("", ".reg .pred %p<4>;\n.reg .b32 %r<8>;\n" + body)), {}};
  EXPECT_TRUE(b.r.clean) << ::testing::PrintToString(b.r.errors);
  if (b.r.clean)
    b.g = ptx::buildCfg(b.r.module->functions[0]);
  return b;
}

/// Block index of the instruction at `pc`.
uint32_t at(const Built &b, uint32_t pc) { return b.g.blockOf.at(pc); }

TEST(Cfg, StraightLine) {
  Built b = build("mov.u32 %r1, 1;\nadd.s32 %r1, %r1, 1;\nret;\n");
  ASSERT_EQ(b.g.blocks.size(), 1u);
  EXPECT_EQ(b.g.blocks[0].succs, std::vector<uint32_t>{Cfg::kExit});
  EXPECT_EQ(b.g.ipdom[0], Cfg::kExit);
  EXPECT_EQ(b.g.reconvergencePc(0, 3), 3u);
}

TEST(Cfg, IfElseReconvergesAtTheJoin) {
  Built b = build("setp.eq.s32 %p1, %r1, 0;\n"  // 0
                  "@%p1 bra ELSE;\n"            // 1
                  "mov.u32 %r2, 1;\n"           // 2
                  "bra JOIN;\n"                 // 3
                  "ELSE:\nmov.u32 %r2, 2;\n"    // 4
                  "JOIN:\nadd.s32 %r3, %r2, 1;\n" // 5
                  "ret;\n");                    // 6
  ASSERT_EQ(b.g.blocks.size(), 4u);
  EXPECT_EQ(b.g.blocks[0].succs, (std::vector<uint32_t>{at(b, 4), at(b, 2)}));
  EXPECT_EQ(b.g.ipdom[at(b, 0)], at(b, 5));
  EXPECT_EQ(b.g.reconvergencePc(at(b, 0), 7), 5u);
  EXPECT_EQ(b.g.ipdom[at(b, 2)], at(b, 5));
  EXPECT_EQ(b.g.ipdom[at(b, 4)], at(b, 5));
}

TEST(Cfg, LoopWithBreak) {
  Built b = build("mov.u32 %r1, 0;\n"                 // 0
                  "LOOP:\nsetp.ge.s32 %p1, %r1, 10;\n" // 1
                  "@%p1 bra DONE;\n"                   // 2
                  "setp.eq.s32 %p2, %r1, %r2;\n"       // 3
                  "@%p2 bra DONE;\n"                   // 4  break
                  "add.s32 %r1, %r1, 1;\n"             // 5
                  "bra LOOP;\n"                        // 6
                  "DONE:\nret;\n");                    // 7
  EXPECT_EQ(b.g.ipdom[at(b, 1)], at(b, 7));
  EXPECT_EQ(b.g.ipdom[at(b, 3)], at(b, 7));
  EXPECT_EQ(b.g.ipdom[at(b, 5)], at(b, 1));
  EXPECT_EQ(b.g.blocks[at(b, 5)].succs, std::vector<uint32_t>{at(b, 1)});
  EXPECT_EQ(b.g.blocks[at(b, 1)].preds.size(), 2u);
}

TEST(Cfg, SwitchThroughBranchTargets) {
  Built b = build("and.b32 %r1, %r1, 3;\n"                  // 0
                  "TBL: .branchtargets C0, C1, C2;\n"
                  "brx.idx %r1, TBL;\n"                      // 1
                  "C0:\nmov.u32 %r2, 0;\nbra.uni OUT;\n"     // 2, 3
                  "C1:\nmov.u32 %r2, 1;\nbra.uni OUT;\n"     // 4, 5
                  "C2:\nmov.u32 %r2, 2;\n"                   // 6
                  "OUT:\nret;\n");                           // 7
  EXPECT_EQ(b.g.blocks[at(b, 1)].succs, (std::vector<uint32_t>{at(b, 2), at(b, 4), at(b, 6)}));
  EXPECT_EQ(b.g.ipdom[at(b, 1)], at(b, 7));
}

TEST(Cfg, EarlyReturnReconvergesOnlyAtExit) {
  Built b = build("setp.eq.s32 %p1, %r1, 0;\n@%p1 ret;\nmov.u32 %r2, 1;\nret;\n");
  EXPECT_EQ(b.g.blocks[0].succs, (std::vector<uint32_t>{Cfg::kExit, at(b, 2)}));
  EXPECT_EQ(b.g.ipdom[0], Cfg::kExit);
  EXPECT_EQ(b.g.reconvergencePc(0, 4), 4u);
}

TEST(Cfg, InfiniteLoopHasNoPostDominatorButExit) {
  Built b = build("SPIN:\nadd.s32 %r1, %r1, 1;\nbra SPIN;\n");
  ASSERT_EQ(b.g.blocks.size(), 1u);
  EXPECT_EQ(b.g.ipdom[0], Cfg::kExit);
}

TEST(Cfg, ScopedLabelsResolveToTheRightBlock) {
  // The same label name in two sibling blocks; each branch goes to its own.
  Built b = build("{\n@%p1 bra L;\nmov.u32 %r1, 1;\nL:\nmov.u32 %r2, 2;\n}\n"   // 0 1 2
                  "{\n@%p2 bra L;\nmov.u32 %r3, 3;\nL:\nmov.u32 %r4, 4;\n}\nret;\n"); // 3 4 5 6
  EXPECT_EQ(b.g.blocks[at(b, 0)].succs[0], at(b, 2));
  EXPECT_EQ(b.g.blocks[at(b, 3)].succs[0], at(b, 5));
}

// --- brute force over real nvcc output ----------------------------------------------------

/// True when every path from `from` to the exit passes `via` (via == kExit: always).
bool postDominates(const Cfg &g, uint32_t via, uint32_t from) {
  if (via == Cfg::kExit || via == from)
    return true;
  std::vector<bool> seen(g.blocks.size(), false);
  std::vector<uint32_t> work{from};
  seen[from] = true;
  bool reachesExit = false;
  while (!work.empty()) {
    uint32_t b = work.back();
    work.pop_back();
    for (uint32_t s : g.blocks[b].succs) {
      if (s == Cfg::kExit) {
        reachesExit = true;
        continue;
      }
      if (s != via && !seen[s]) {
        seen[s] = true;
        work.push_back(s);
      }
    }
  }
  return !reachesExit;
}

bool reachesExit(const Cfg &g, uint32_t from) {
  std::vector<bool> seen(g.blocks.size(), false);
  std::vector<uint32_t> work{from};
  seen[from] = true;
  while (!work.empty()) {
    uint32_t b = work.back();
    work.pop_back();
    for (uint32_t s : g.blocks[b].succs) {
      if (s == Cfg::kExit)
        return true;
      if (!seen[s]) {
        seen[s] = true;
        work.push_back(s);
      }
    }
  }
  return false;
}

TEST(Cfg, MatchesBruteForceOnTheKernelCorpus) {
  std::string dir = PTXSIM_KERNEL_PTX_DIR;
  if (!std::filesystem::exists(dir))
    GTEST_SKIP() << "no kernel corpus at " << dir << " (built with nvcc)";
  size_t functions = 0, checked = 0;
  for (const auto &setting : std::filesystem::directory_iterator(dir)) {
    for (const auto &file : std::filesystem::directory_iterator(setting.path())) {
      CheckResult r = checkText(readFile(file.path().string()), file.path().string());
      ASSERT_TRUE(r.clean) << file.path();
      for (const ptx::Function &f : r.module->functions) {
        if (!f.hasBody)
          continue;
        ++functions;
        Cfg g = ptx::buildCfg(f);
        const uint32_t nb = static_cast<uint32_t>(g.blocks.size());
        if (nb > 80)
          continue; // brute force is cubic
        ++checked;
        for (uint32_t b = 0; b < nb; ++b) {
          uint32_t p = g.ipdom[b];
          if (!reachesExit(g, b)) {
            EXPECT_EQ(p, Cfg::kExit);
            continue;
          }
          ASSERT_NE(p, b);
          ASSERT_TRUE(postDominates(g, p, b)) << f.name << " block " << b;
          // Immediate: every other strict post-dominator of b post-dominates p.
          for (uint32_t q = 0; q < nb; ++q)
            if (q != b && q != p && postDominates(g, q, b))
              ASSERT_TRUE(p != Cfg::kExit && postDominates(g, q, p))
                  << f.name << " block " << b << ": " << q << " is closer than " << p;
        }
      }
    }
  }
  EXPECT_GT(checked, 100u) << functions << " functions";
}

} // namespace
} // namespace ptxsim::test

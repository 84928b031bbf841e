// Checker rules one at a time, each asserting the exact location and message.

#include "TestUtil.h"

#include <gtest/gtest.h>

namespace ptxsim::test {
namespace {

// kernel() puts the first body line on line 7.
std::vector<std::string> errs(const std::string &body, const std::string &decls = "") {
  return checkText(kernel(decls, body)).errors;
}
using V = std::vector<std::string>;

TEST(Checker, AcceptsRegisterTypeAliases) {
  // .b32 registers hold .u32/.s32/.f32; .u32 and .s32 are interchangeable; ld/cvt widen.
  EXPECT_EQ(errs(".reg .b32 %r<3>;\n.reg .u32 %u;\n.reg .f32 %f;\n.reg .b64 %rd;\n"
                 "add.s32 %r1, %r2, 1;\nadd.f32 %r1, %r2, %r2;\nadd.u32 %u, %u, %r1;\n"
                 "ld.global.u8 %r1, [%rd];\ncvt.u64.u8 %rd, %r1;\nmov.b32 %f, %r1;\n"),
            V{});
}

TEST(Checker, RejectsFloatRegisterForIntegerOp) {
  EXPECT_EQ(errs(".reg .f32 %f;\nadd.s32 %f, %f, 1;\n"),
            V{"8:9: register '%f' has type .f32, expected .s32"});
}

TEST(Checker, RejectsWideningOutsideMemoryAndConversions) {
  EXPECT_EQ(errs(".reg .b64 %rd;\nadd.s32 %rd, %rd, 1;\n"),
            V{"8:9: register '%rd' has type .b64, expected .s32"});
}

TEST(Checker, PredicateRules) {
  EXPECT_EQ(errs(".reg .pred %p;\n.reg .b32 %r;\nsetp.eq.and.s32 %p, %r, 0, !%p;\n"
                 "@%p add.s32 %r, %r, 1;\nselp.b32 %r, 1, 0, %r;\n"),
            (V{"11:20: register '%r' has type .b32, expected .pred"}));
}

TEST(Checker, UndeclaredNamesAreReportedOnce) {
  EXPECT_EQ(errs("add.s32 %x, %x, 1;\n"), (V{"7:9: use of undeclared identifier '%x'"}));
}

TEST(Checker, LabelsAreScopedAndUnique) {
  EXPECT_EQ(errs("bra L;\n{\nL:\n ret;\n}\n"), V{"7:5: use of undeclared label 'L'"});
  EXPECT_EQ(errs("{\nL:\n bra L;\n}\nret;\n"), V{});
}

TEST(Checker, InnerScopeMayShadow) {
  EXPECT_EQ(errs(".reg .b32 x;\n{\n.reg .f32 x;\nadd.f32 x, x, x;\n}\nadd.s32 x, x, 1;\n"), V{});
}

TEST(Checker, StateSpaceOfSymbols) {
  EXPECT_EQ(errs(".reg .b32 %r;\nld.shared.u32 %r, [gv];\nld.global.u32 %r, [sv];\n"
                 "ld.u32 %r, [gv];\nst.shared.u32 [sv+4], %r;\n",
                 ".global .u32 gv;\n.shared .u32 sv[4];"),
            (V{"9:20: bad state space: 'gv' is in '.global' but 'ld.shared.u32' accesses '.shared'",
               "10:20: bad state space: 'sv' is in '.shared' but 'ld.global.u32' accesses '.global'"}));
}

// Copies name one space per address in operand order; an address past them (a bulk copy's
// mbarrier) uses the first.
TEST(Checker, StateSpacePerAddressOfCopies) {
  std::string decls = ".global .align 16 .b8 gv[64];\n.shared .align 16 .b8 sv[64];\n"
                      ".shared .align 8 .b64 bar;";
  EXPECT_EQ(checkText(".version 8.8\n.target sm_90\n.address_size 64\n" + decls +
                      "\n.visible .entry k()\n{\n"
                      "cp.async.bulk.global.shared::cta.bulk_group [gv], [sv], 64;\n"
                      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [sv], [gv], 64, [bar];\n"
                      "cp.async.ca.shared.global [sv], [gv], 16;\n"
                      "cp.async.ca.shared.global [gv], [sv], 16;\n"
                      "ret;\n}\n")
                .errors,
            (V{"12:28: bad state space: 'gv' is in '.global' but 'cp.async.ca.shared.global' accesses '.shared'"}));
}

TEST(Checker, VectorWidthMustMatch) {
  EXPECT_EQ(errs(".reg .f32 %f<5>;\n.reg .b64 %rd;\nld.global.v4.f32 {%f1,%f2,%f3,%f4}, [%rd];\n"
                 "st.global.v2.f32 [%rd], {%f1,%f2,%f3};\nst.global.f32 [%rd], {%f1};\n"),
            (V{"10:25: expected a vector of 2 elements, got 3", "11:22: unexpected vector operand"}));
}

TEST(Checker, ModifierCombinations) {
  EXPECT_EQ(errs(".reg .f32 %f;\n.reg .b32 %r;\n"
                 "sqrt.f32 %f, %f;\n"             // needs .approx or a rounding mode
                 "div.full.f64 %f, %f, %f;\n"     // .full is f32 only
                 "shfl.sync.idx.b32 %r, %r, 0, 31, -1;\n"
                 "mul.wide.u32 %r, %r, %r;\n"),   // wide result needs a 64-bit register
            (V{"9:1: 'sqrt.f32' needs a modifier (one of .approx, .rn, .rz, .rm, .rp)",
               "10:9: modifier '.f64' is not valid on 'div.full.f64'",
               "12:14: register '%r' has type .b32, expected .u64"}));
}

TEST(Checker, CallSignatures) {
  std::string decls = ".func (.param .b32 r) f(.param .b32 a)\n{\nret;\n}\n";
  EXPECT_EQ(errs(".reg .b32 %r;\n.reg .b64 %rd;\n{\n.param .b32 a0;\n.param .b32 r0;\n"
                 "call.uni (r0), f, (a0);\ncall.uni (r0), f, (a0, a0);\ncall (r0), %rd, (a0);\n"
                 "call.uni (r0), nosuch, (a0);\n}\n",
                 decls),
            (V{"17:19: call to function 'f' passes 2 argument(s), expected 1",
               "18:12: indirect call through '%rd' needs a '.callprototype' or '.calltargets' label",
               "19:16: use of undeclared identifier 'nosuch'"}));
}

TEST(Checker, KernelParametersAndDirectives) {
  CheckResult r = checkText(".version 9.0\n.target sm_80\n"
                            ".entry k(.param .u32 a, .param .u32 a)\n.reqntid 0\n{\nret;\n}\n"
                            ".func f() .noreturn\n{\nret;\n}\n");
  EXPECT_EQ(r.errors, (V{"3:37: redefinition of 'a'", "4:1: '.reqntid' values must be positive"}));
}

TEST(Checker, DeclarationConflicts) {
  CheckResult r = checkText(".version 9.0\n.target sm_80\n"
                            ".extern .global .u32 x;\n.global .u32 x;\n.global .f32 x;\n"
                            ".func f(.param .b32 a);\n.func f(.param .b64 a)\n{\nret;\n}\n");
  EXPECT_EQ(r.errors, (V{"5:14: redefinition of 'x'",
                         "7:7: declaration of 'f' does not match an earlier declaration"}));
}

TEST(Checker, ReportsEveryErrorNotOnlyTheFirst) {
  std::string body = ".reg .b32 %r;\n";
  for (int i = 0; i < 50; ++i)
    body += "add.s32 %r, %undefined" + std::to_string(i) + ", 1;\n";
  EXPECT_EQ(errs(body).size(), 50u);
}

TEST(Checker, ErrorLimitStopsRunawayOutput) {
  std::string body = ".reg .b32 %r;\n";
  for (int i = 0; i < 3000; ++i)
    body += "add.s32 %r, %u" + std::to_string(i) + ", 1;\n";
  EXPECT_EQ(errs(body).size(), 1000u);
}

TEST(Checker, RecordsMatchedVariant) {
  CheckResult r = checkText(kernel("", ".reg .f32 %f;\n.reg .b32 %r;\nadd.s32 %r, %r, 1;\nadd.rn.f32 %f, %f, %f;\n"));
  ASSERT_TRUE(r.clean);
  const auto &in = r.module->functions[0].instrs;
  EXPECT_EQ(in[0].variant, 0);
  EXPECT_EQ(in[1].variant, 1);
}

TEST(Checker, TargetNeedsMinimumVersion) {
  auto e = [](const std::string &head) {
    return checkText(head + ".address_size 64\n.visible .entry k()\n{\nret;\n}\n").errors;
  };
  EXPECT_EQ(e(".version 7.7\n.target sm_90\n"),
            V{"2:1: '.target sm_90' requires PTX ISA version 7.8 or later (module has .version 7.7)"});
  EXPECT_EQ(e(".version 7.8\n.target sm_90a\n"),
            V{"2:1: '.target sm_90a' requires PTX ISA version 8.0 or later (module has .version 7.8)"});
  EXPECT_EQ(e(".version 8.7\n.target sm_100f\n"),
            V{"2:1: '.target sm_100f' requires PTX ISA version 8.8 or later (module has .version 8.7)"});
  EXPECT_EQ(e(".version 6.3\n.target sm_75\n"), V{});
  EXPECT_EQ(e(".version 7.0\n.target sm_80\n"), V{});
  EXPECT_EQ(e(".version 8.7\n.target sm_120\n"), V{});
  EXPECT_EQ(e(".version 9.0\n.target sm_110f\n"), V{});
}

TEST(Checker, InstructionsNeedTheirArchitecture) {
  auto e = [](const std::string &target, const std::string &body) {
    return checkText(".version 9.0\n.target " + target + "\n.address_size 64\n"
                     ".visible .entry k()\n{\n.reg .b32 %r<3>;\n" + body + "\n}\n")
        .errors;
  };
  EXPECT_EQ(e("sm_75", "redux.sync.add.u32 %r1, %r2, -1;"),
            V{"7:1: 'redux.sync.add.u32' requires sm_80 or later (module targets sm_75)"});
  EXPECT_EQ(e("sm_80", "redux.sync.add.u32 %r1, %r2, -1;"), V{});
  EXPECT_EQ(e("sm_90", "wgmma.fence.sync.aligned;"),
            V{"7:1: 'wgmma.fence.sync.aligned' requires sm_90a or later (module targets sm_90)"});
  EXPECT_EQ(e("sm_90a", "wgmma.fence.sync.aligned;"), V{});
  EXPECT_EQ(e("sm_100f", "setmaxnreg.inc.sync.aligned.u32 232;"), V{});
}

} // namespace
} // namespace ptxsim::test

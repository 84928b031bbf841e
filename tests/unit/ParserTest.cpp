// The parser builds the AST faithfully: directives, declarations, literals, operands, scopes
// and debug information, each with its source location.

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cstring>

namespace ptxsim::test {
namespace {

using ptx::Operand;
using ptx::ScalarType;
using ptx::Space;

TEST(Parser, ModuleDirectives) {
  CheckResult r = checkText(".version 8.0\n.target sm_90a, debug\n.address_size 64\n");
  ASSERT_TRUE(r.clean) << ::testing::PrintToString(r.errors);
  EXPECT_EQ(r.module->versionMajor, 8u);
  EXPECT_EQ(r.module->versionMinor, 0u);
  ASSERT_EQ(r.module->targets.size(), 2u);
  EXPECT_EQ(r.module->targets[0], "sm_90a");
  EXPECT_EQ(r.module->targets[1], "debug");
  EXPECT_EQ(r.module->smVersion(), 90u);
  EXPECT_EQ(r.module->addressSize, 64u);
}

TEST(Parser, AddressSizeDefaultsTo32) {
  CheckResult r = checkText(".version 6.0\n.target sm_70\n");
  ASSERT_TRUE(r.clean);
  EXPECT_EQ(r.module->addressSize, 32u);
}

TEST(Parser, GlobalsWithInitializers) {
  CheckResult r = checkText(".version 9.0\n.target sm_80\n.address_size 64\n"
                            ".global .align 4 .b8 g[16] = {1, 0, 0, 0, 2};\n"
                            ".global .align 8 .u64 p = generic(g)+4;\n"
                            ".global .u32 m[2][2] = {{1, 2}, {3, -4}};\n"
                            ".const .f32 c = 0f3F800000;\n"
                            ".global .u32 lits[4] = {010, 0x10, 0b10, 10U};\n");
  ASSERT_TRUE(r.clean) << ::testing::PrintToString(r.errors);
  const auto &gs = r.module->globals;
  ASSERT_EQ(gs.size(), 5u);
  EXPECT_EQ(gs[0].name, "g");
  EXPECT_EQ(gs[0].space, Space::Global);
  EXPECT_EQ(gs[0].type, ScalarType::b8);
  EXPECT_EQ(gs[0].align, 4u);
  EXPECT_EQ(gs[0].sizeBytes(), 16u);
  ASSERT_EQ(gs[0].init.size(), 5u);
  EXPECT_EQ(gs[0].init[4].ival, 2);
  EXPECT_EQ(gs[0].loc.line, 4u);
  EXPECT_EQ(gs[0].loc.col, 22u);
  ASSERT_EQ(gs[1].init.size(), 1u);
  EXPECT_EQ(gs[1].init[0].kind, Operand::Kind::Generic);
  EXPECT_EQ(gs[1].init[0].name, "g");
  EXPECT_EQ(gs[1].init[0].ival, 4);
  ASSERT_EQ(gs[2].init.size(), 4u);
  EXPECT_EQ(gs[2].init[3].ival, -4);
  EXPECT_EQ(gs[2].elementCount(), 4u);
  EXPECT_EQ(gs[3].init[0].kind, Operand::Kind::FImm);
  EXPECT_EQ(gs[3].init[0].fwidth, 32);
  EXPECT_EQ(gs[3].init[0].fbits, 0x3F800000u);
  EXPECT_EQ(gs[4].init[0].ival, 8);
  EXPECT_EQ(gs[4].init[1].ival, 16);
  EXPECT_EQ(gs[4].init[2].ival, 2);
  EXPECT_EQ(gs[4].init[3].ival, 10);
}

TEST(Parser, FunctionSignaturesAndDirectives) {
  CheckResult r = checkText(
      ".version 9.0\n.target sm_80\n.address_size 64\n"
      ".extern .func (.param .b32 rv) ext(.param .b64 a, .param .b64 b);\n"
      ".visible .entry k(.param .u64 .ptr .global .align 16 k_p0, .param .align 8 .b8 k_p1[24])\n"
      ".maxntid 128, 1, 1\n.minnctapersm 4\n{\n ret;\n}\n");
  ASSERT_TRUE(r.clean) << ::testing::PrintToString(r.errors);
  const auto &fs = r.module->functions;
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_EQ(fs[0].name, "ext");
  EXPECT_FALSE(fs[0].hasBody);
  EXPECT_EQ(fs[0].linkage, ptx::Linkage::Extern);
  ASSERT_EQ(fs[0].sig.returns.size(), 1u);
  ASSERT_EQ(fs[0].sig.params.size(), 2u);
  const auto &k = fs[1];
  EXPECT_TRUE(k.isEntry);
  EXPECT_TRUE(k.hasBody);
  EXPECT_EQ(k.linkage, ptx::Linkage::Visible);
  ASSERT_EQ(k.sig.params.size(), 2u);
  EXPECT_TRUE(k.sig.params[0].isPtr);
  EXPECT_EQ(k.sig.params[0].ptrSpace, Space::Global);
  EXPECT_EQ(k.sig.params[0].ptrAlign, 16u);
  EXPECT_EQ(k.sig.params[1].sizeBytes(), 24u);
  EXPECT_EQ(k.sig.params[1].align, 8u);
  ASSERT_EQ(k.directives.size(), 2u);
  EXPECT_EQ(k.directives[0].name, "maxntid");
  EXPECT_EQ(k.directives[0].values, (std::vector<uint64_t>{128, 1, 1}));
  EXPECT_EQ(k.directives[1].name, "minnctapersm");
}

TEST(Parser, InstructionsOperandsAndModifiers) {
  CheckResult r = checkText(kernel("", ".reg .b32 %r<4>;\n.reg .pred %p<3>;\n.reg .b64 %rd<3>;\n"
                                       "@!%p1 ld.global.nc.v2.u32 {%r1, _}, [%rd1+-8];\n"
                                       "shfl.sync.down.b32 %r2|%p2, %r1, 1, 31, -1;\n"
                                       "mov.u32 %r3, %tid.y;\n"));
  ASSERT_TRUE(r.clean) << ::testing::PrintToString(r.errors);
  const auto &f = r.module->functions[0];
  ASSERT_EQ(f.instrs.size(), 3u);
  const auto &ld = f.instrs[0];
  EXPECT_EQ(ld.text, "ld.global.nc.v2.u32");
  EXPECT_EQ(ptx::opcodeInfo(ld.opcode).name, "ld");
  EXPECT_EQ(ld.guard, "%p1");
  EXPECT_TRUE(ld.guardNegated);
  ASSERT_EQ(ld.mods.size(), 4u);
  EXPECT_EQ(ld.mods[0].id, ptx::modId(ptx::Mod::global));
  EXPECT_EQ(ld.mods[1].id, ptx::modId(ptx::Mod::nc));
  EXPECT_EQ(ld.mods[2].id, ptx::modId(ptx::Mod::v2));
  EXPECT_EQ(ld.mods[3].id, ptx::modId(ScalarType::u32));
  EXPECT_EQ(ld.mods[1].col, 16u);
  EXPECT_EQ(ld.numTypes, 1u);
  EXPECT_EQ(ld.types[0], ScalarType::u32);
  ASSERT_EQ(ld.operands.size(), 2u);
  EXPECT_EQ(ld.operands[0].kind, Operand::Kind::Vector);
  EXPECT_EQ(ld.operands[0].elems[1].kind, Operand::Kind::Sink);
  EXPECT_EQ(ld.operands[1].kind, Operand::Kind::Address);
  EXPECT_EQ(ld.operands[1].elems[0].name, "%rd1");
  EXPECT_EQ(ld.operands[1].ival, -8);
  const auto &sh = f.instrs[1];
  EXPECT_EQ(sh.operands[0].kind, Operand::Kind::Pair);
  EXPECT_EQ(sh.operands[4].ival, -1);
  const auto &mv = f.instrs[2];
  EXPECT_EQ(mv.operands[1].name, "%tid");
  EXPECT_EQ(mv.operands[1].comp, 'y');
}

TEST(Parser, VideoSelectors) {
  CheckResult r = checkText(kernel("", ".reg .b32 %r<4>;\nvadd4.u32.u32.u32 %r1.b0, %r2.b3210, %r3.b7654, %r1;\n"
                                       "vadd2.u32.u32.u32 %r1, %r2.h10, %r3, %r1;\n"));
  ASSERT_TRUE(r.clean) << ::testing::PrintToString(r.errors);
  const auto &in = r.module->functions[0].instrs;
  EXPECT_EQ(in[0].operands[0].name, "%r1");
  EXPECT_EQ(ptx::selectorText(in[0].operands[0].sel), ".b0");
  EXPECT_EQ(ptx::selectorText(in[0].operands[1].sel), ".b3210");
  EXPECT_EQ(ptx::selectorText(in[0].operands[2].sel), ".b7654");
  EXPECT_EQ(in[0].operands[3].sel, 0);
  EXPECT_EQ(ptx::selectorText(in[1].operands[1].sel), ".h10");
}

TEST(Parser, ConstantExpressionsFold) {
  CheckResult r = checkText(kernel("", ".reg .b32 %r<2>;\nmov.u32 %r1, (1 << 4) + 3 * 2 - ~0;\n"
                                       "mov.u32 %r1, -(8 / 3) % 5;\n"));
  ASSERT_TRUE(r.clean) << ::testing::PrintToString(r.errors);
  const auto &in = r.module->functions[0].instrs;
  EXPECT_EQ(in[0].operands[1].ival, 16 + 6 + 1);
  EXPECT_EQ(in[1].operands[1].ival, -2);
}

TEST(Parser, FloatLiterals) {
  CheckResult r = checkText(kernel("", ".reg .f64 %fd<2>;\n.reg .f32 %f<2>;\n"
                                       "mov.f64 %fd1, 0d4000000000000000;\nmov.f32 %f1, -0f3F800000;\n"
                                       "mov.f64 %fd1, 2.5;\n"));
  ASSERT_TRUE(r.clean) << ::testing::PrintToString(r.errors);
  const auto &in = r.module->functions[0].instrs;
  EXPECT_EQ(in[0].operands[1].fbits, 0x4000000000000000ull);
  EXPECT_EQ(in[1].operands[1].fbits, 0xBF800000ull);
  double d;
  std::memcpy(&d, &in[2].operands[1].fbits, 8);
  EXPECT_EQ(d, 2.5);
}

TEST(Parser, DebugLocationsAndFiles) {
  CheckResult r = checkText(".version 9.0\n.target sm_80\n.address_size 64\n"
                            ".visible .entry k()\n{\n"
                            ".loc 2 17 3\n ret;\n"
                            ".loc 1 5 9, function_name $L__info_string0, inlined_at 2 18 30\n exit;\n}\n"
                            ".file 1 \"a.cu\"\n.file 2 \"/src/b.cu\", 1700000000, 1234\n"
                            ".section .debug_str\n{\n$L__info_string0:\n.b8 95,90,0\n.b32 .debug_abbrev+4\n}\n");
  ASSERT_TRUE(r.clean) << ::testing::PrintToString(r.errors);
  const auto &f = r.module->functions[0];
  ASSERT_EQ(f.debugLocs.size(), 2u);
  EXPECT_EQ(f.instrs[0].debugLoc, 0);
  EXPECT_EQ(f.debugLocs[0].file, 2u);
  EXPECT_EQ(f.debugLocs[0].line, 17u);
  EXPECT_EQ(f.debugLocs[1].inlLine, 18u);
  EXPECT_EQ(f.instrs[1].debugLoc, 1);
  EXPECT_EQ(r.module->debugFileName(2), "/src/b.cu");
  EXPECT_EQ(r.module->debugFileName(1), "a.cu");
  ASSERT_EQ(r.module->sections.size(), 1u);
  EXPECT_EQ(r.module->sections[0].name, ".debug_str");
  EXPECT_EQ(r.module->sections[0].bytes, 7u);
}

TEST(Parser, NestedScopesAndInlineAsmBlocks) {
  CheckResult r = checkText(kernel("", ".reg .b32 %r<3>;\n"
                                       "{\n .reg .pred p;\n setp.ne.b32 p, %r1, 0;\n"
                                       " { .reg .b32 t; selp.b32 t, 1, 2, p; mov.b32 %r2, t; }\n}\n"));
  ASSERT_TRUE(r.clean) << ::testing::PrintToString(r.errors);
  const auto &f = r.module->functions[0];
  int depth = 0, maxDepth = 0;
  for (const auto &st : f.body) {
    if (st.kind == ptx::Statement::Kind::ScopeBegin)
      maxDepth = std::max(maxDepth, ++depth);
    if (st.kind == ptx::Statement::Kind::ScopeEnd)
      --depth;
  }
  EXPECT_EQ(depth, 0);
  EXPECT_EQ(maxDepth, 2);
  EXPECT_EQ(f.instrs.size(), 3u);
}

TEST(Parser, RegisterRanges) {
  CheckResult r = checkText(kernel("", ".reg .b32 %r<17>;\n.reg .pred %p<2>, %q;\nmov.u32 %r16, 0;\n"));
  ASSERT_TRUE(r.clean) << ::testing::PrintToString(r.errors);
  const auto &d = r.module->functions[0].decls;
  ASSERT_EQ(d.size(), 3u);
  EXPECT_TRUE(d[0].isRange);
  EXPECT_EQ(d[0].rangeCount, 17u);
  EXPECT_EQ(d[2].name, "%q");
  EXPECT_FALSE(d[2].isRange);
}

TEST(Parser, SyntaxErrorsRecoverPerStatement) {
  CheckResult r = checkText(kernel("", ".reg .b32 %r<3>;\nadd.s32 %r1 %r2, 1;\nmov.u32 %r1 5;\nmov.u32 %r1, 5;\n"));
  ASSERT_EQ(r.errors.size(), 2u) << ::testing::PrintToString(r.errors);
  EXPECT_EQ(r.errors[0], "8:13: syntax error at '%r2', expected ',' or ';'");
  EXPECT_EQ(r.errors[1], "9:13: syntax error at '5', expected ',' or ';'");
  EXPECT_EQ(r.module->functions[0].instrs.size(), 1u);
}

TEST(Parser, MissingVersionIsAnError) {
  CheckResult r = checkText(".target sm_80\n");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0], "1:1: missing '.version' directive");
}

} // namespace
} // namespace ptxsim::test

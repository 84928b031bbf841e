// The instruction table is data: rows parse, extensions can add opcodes and special registers
// at start-up without touching the core, and a malformed row is an error, not a crash.

#include "TestUtil.h"

#include "ptx/sema/OpcodeTable.h"

#include <gtest/gtest.h>

namespace ptxsim::test {
namespace {

TEST(OpcodeTable, KnowsTheCoreInstructions) {
  for (const char *op : {"add", "ld", "st", "atom", "bar", "shfl", "cp", "mma", "tex", "redux",
                         "match", "cvt", "call", "brx", "vote", "wmma", "ldmatrix", "vadd"})
    EXPECT_NE(ptx::lookupOpcode(op), ptx::kInvalidOpcode) << op;
  EXPECT_EQ(ptx::lookupOpcode("frobnicate"), ptx::kInvalidOpcode);
}

TEST(OpcodeTable, ExtensionsRegisterOpcodes) {
  std::string src = kernel("", ".reg .b32 %r<3>;\nspu_send.sync.b32 %r1, %r2;\nmov.u32 %r1, %spu_id;\n");
  EXPECT_FALSE(checkText(src).clean);
  EXPECT_EQ(ptx::registerOpcode("spu_send", ".sync .b32", "d0 s0"), "");
  ptx::registerSpecialRegister("%spu_id", ptx::ScalarType::u32, false);
  CheckResult r = checkText(src);
  EXPECT_TRUE(r.clean) << ::testing::PrintToString(r.errors);
}

TEST(OpcodeTable, MalformedRowsAreErrors) {
  EXPECT_NE(ptx::registerOpcode("bad1", ".nosuchmod", "d0"), "");
  EXPECT_NE(ptx::registerOpcode("bad2", ".b32", "d5"), "");
  EXPECT_NE(ptx::registerOpcode("bad3", "$nosuchset", ""), "");
  EXPECT_NE(ptx::registerOpcode("bad4", ".b32", "z0"), "");
}

TEST(OpcodeTable, SpecialRegisters) {
  const ptx::SpecialRegInfo *tid = ptx::lookupSpecialRegister("%tid");
  ASSERT_NE(tid, nullptr);
  EXPECT_TRUE(tid->vec);
  EXPECT_EQ(ptx::lookupSpecialRegister("%clock64")->type, ptx::ScalarType::u64);
  EXPECT_EQ(ptx::lookupSpecialRegister("%nosuch"), nullptr);
}

TEST(Types, ModifierIdsRoundTrip) {
  for (uint16_t id = 0; id < ptx::kNumModifiers; ++id)
    EXPECT_EQ(ptx::lookupModifier(ptx::modifierName(id)), id) << ptx::modifierName(id);
  EXPECT_EQ(ptx::lookupType("bf16x2"), ptx::ScalarType::bf16x2);
  EXPECT_EQ(ptx::typeBits(ptx::ScalarType::f16x2), 32u);
}

TEST(Diagnostics, FormatAndOrder) {
  DiagEngine d;
  d.error("b.ptx", {3, 4}, "second");
  d.error("a.ptx", {9, 1}, "first");
  d.report(Severity::Note, "a.ptx", {1, 1}, "note for first");
  d.sortByLocation();
  ASSERT_EQ(d.diagnostics().size(), 3u);
  EXPECT_EQ(d.diagnostics()[0].str(), "a.ptx:9:1: error: first");
  EXPECT_EQ(d.diagnostics()[1].str(), "a.ptx:1:1: note: note for first");
  EXPECT_EQ(d.diagnostics()[2].str(), "b.ptx:3:4: error: second");
}

} // namespace
} // namespace ptxsim::test

// The hardware register estimate (ir::estimateRegisters via Kernel::hwRegs).

#include "ExecHarness.h"

namespace ptxsim::test {
namespace {

const char *kHeader = ".version 8.0\n.target sm_80\n.address_size 64\n";

uint32_t regsOf(const std::string &body, const char *kernel = "k") {
  ExecHarness h;
  EXPECT_TRUE(h.load(std::string(kHeader) + body)) << h.errors;
  const ptx::exec::Kernel *k = h.engine->findKernel(kernel, h.module);
  return k ? k->hwRegs : 0;
}

// Many virtual registers, each dead right after its use: a chain needs only a few at once.
TEST(RegPressure, ShortLivedValuesShareRegisters) {
  std::string body = ".visible .entry k(.param .u64 p) {\n.reg .b32 %r<100>;\n.reg .b64 %rd<3>;\n"
                     "ld.param.u64 %rd1, [p];\nmov.u32 %r0, 1;\n";
  for (int i = 1; i < 100; ++i)
    body += "add.u32 %r" + std::to_string(i) + ", %r" + std::to_string(i - 1) + ", 3;\n";
  body += "st.global.u32 [%rd1], %r99;\nret;\n}\n";
  uint32_t r = regsOf(body);
  EXPECT_GE(r, 4u);
  EXPECT_LE(r, 10u); // 100 virtual registers, about 4 live (pointer pair + 2) plus the reserve
}

// Values that are all live at once: the estimate grows with them, and 64-bit ones count twice.
TEST(RegPressure, SimultaneouslyLiveValuesAreCounted) {
  auto make = [](int n, const char *type) {
    std::string t = type;
    std::string body = ".visible .entry k(.param .u64 p) {\n.reg ." + t + " %v<" +
                       std::to_string(n) + ">;\n.reg .b64 %rd<3>;\nld.param.u64 %rd1, [p];\n";
    for (int i = 0; i < n; ++i)
      body += "ld.global." + t + " %v" + std::to_string(i) + ", [%rd1+" +
              std::to_string(i * 8) + "];\n";
    for (int i = 1; i < n; ++i)
      body += "add." + t + " %v0, %v0, %v" + std::to_string(i) + ";\n";
    body += "st.global." + t + " [%rd1], %v0;\nret;\n}\n";
    return body;
  };
  uint32_t r32 = regsOf(make(40, "u32"));
  uint32_t r64 = regsOf(make(40, "u64"));
  EXPECT_GE(r32, 40u);
  EXPECT_LE(r32, 50u);
  EXPECT_GE(r64, 80u);
  EXPECT_LE(r64, 90u);
}

// A value live around a loop's back edge stays live through the whole loop body.
TEST(RegPressure, LoopCarriedValuesStayLive) {
  std::string body = ".visible .entry k(.param .u64 p) {\n.reg .pred %p<2>;\n.reg .b32 %r<40>;\n"
                     ".reg .b64 %rd<3>;\nld.param.u64 %rd1, [p];\n";
  for (int i = 0; i < 30; ++i)
    body += "mov.u32 %r" + std::to_string(i) + ", " + std::to_string(i) + ";\n";
  body += "mov.u32 %r35, 0;\nLOOP:\n";
  for (int i = 0; i < 30; ++i)
    body += "add.u32 %r" + std::to_string(i) + ", %r" + std::to_string(i) + ", 1;\n";
  body += "add.u32 %r35, %r35, 1;\nsetp.lt.u32 %p1, %r35, 8;\n@%p1 bra LOOP;\n"
          "st.global.u32 [%rd1], %r7;\nret;\n}\n";
  uint32_t r = regsOf(body);
  EXPECT_GE(r, 31u); // the 30 counters and the trip count all cross the back edge
}

// A kernel needs at least the registers of the functions it calls.
TEST(RegPressure, CalleesCount) {
  std::string callee = ".func (.reg .b32 ret) f(.reg .b32 a) {\n.reg .b32 %t<40>;\n";
  for (int i = 0; i < 40; ++i)
    callee += "add.u32 %t" + std::to_string(i) + ", a, " + std::to_string(i) + ";\n";
  callee += "mov.u32 ret, %t0;\n";
  for (int i = 1; i < 40; ++i)
    callee += "add.u32 ret, ret, %t" + std::to_string(i) + ";\n";
  callee += "ret;\n}\n";
  std::string body = callee + ".visible .entry k(.param .u64 p) {\n.reg .b32 %r<3>;\n"
                     ".reg .b64 %rd<3>;\nld.param.u64 %rd1, [p];\nmov.u32 %r1, 5;\n"
                     "call (%r2), f, (%r1);\nst.global.u32 [%rd1], %r2;\nret;\n}\n";
  EXPECT_GE(regsOf(body), 40u);
}

} // namespace
} // namespace ptxsim::test

// The front end never crashes, hangs or exhausts memory, whatever the input: truncations and
// byte mutations of real PTX, pathological nesting, and every input the fuzzer ever found.

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

namespace ptxsim::test {
namespace {

const char *kSeed = R"(.version 9.0
.target sm_80
.address_size 64
.global .align 4 .b8 g[8] = {1, 2, 3};
.visible .entry k(.param .u64 p, .param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 4;
	@%p1 bra $L_done;
	{ .reg .b32 t; add.s32 t, %r1, 1; mul.wide.u32 %rd2, t, 4; }
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3+4], %r1;
$L_done:
	ret;
}
)";

TEST(Robustness, EveryPrefixOfAValidFile) {
  std::string s = kSeed;
  for (size_t n = 0; n <= s.size(); ++n)
    checkText(s.substr(0, n));
}

TEST(Robustness, RandomByteMutations) {
  std::mt19937 rng(12345);
  std::string s = kSeed;
  const char alphabet[] = "{}[]();,.%@!<>+-|_$:\"/*\n 0123456789abcxyzLBfdeu\0\x80\xff";
  for (int iter = 0; iter < 3000; ++iter) {
    std::string m = s;
    int edits = 1 + static_cast<int>(rng() % 8);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % (m.size() + 1);
      char c = alphabet[rng() % (sizeof alphabet - 1)];
      switch (rng() % 3) {
      case 0: if (pos < m.size()) m[pos] = c; break;
      case 1: m.insert(m.begin() + static_cast<long>(pos), c); break;
      case 2: if (pos < m.size()) m.erase(pos, 1 + rng() % 5); break;
      }
    }
    checkText(m);
  }
}

bool hasError(const CheckResult &r, const std::string &text) {
  for (const std::string &e : r.errors)
    if (e.find(text) != std::string::npos)
      return true;
  return false;
}

TEST(Robustness, DeepNestingIsDiagnosedNotFatal) {
  std::string body(100000, '{');
  body += std::string(100000, '}');
  CheckResult r = checkText(kernel("", body));
  EXPECT_TRUE(hasError(r, "7:200: blocks nested too deeply (limit 200)"));
  EXPECT_TRUE(hasError(r, "7:1000: brackets nested deeper than 1000; giving up"));
  std::string init = ".global .u32 x[1] = " + std::string(100, '{') + "1" + std::string(100, '}') + ";";
  r = checkText(kernel(init, "ret;"));
  EXPECT_TRUE(hasError(r, "operand or initializer nested too deeply"));
}

TEST(Robustness, LongPrefixOperatorRunsAreBounded) {
  std::string minus;
  for (int i = 0; i < 200000; ++i)
    minus += "- ";
  CheckResult r = checkText(kernel("", ".reg .b32 %r;\nmov.u32 %r, " + minus + "1;\n"));
  EXPECT_TRUE(hasError(r, "8:213: more than 100 operators in a row; giving up"));
  r = checkText(kernel("", ".reg .b32 %r;\nmov.u32 %r, - - ~ ! 1;\nsub.s32 %r, %r, -1;\n"));
  EXPECT_TRUE(r.clean) << ::testing::PrintToString(r.errors);
}

TEST(Robustness, HugeRegisterRangeIsRejected) {
  CheckResult r = checkText(kernel("", ".reg .b32 %r<4000000000>;\nmov.u32 %r3999999999, 0;\n"));
  ASSERT_FALSE(r.errors.empty());
  EXPECT_EQ(r.errors[0], "7:11: register range '%r' is too large");
}

TEST(Robustness, EmbeddedNulAndBinaryBytes) {
  std::string s = kSeed;
  s.insert(40, std::string("\0\x01\xfe", 3));
  CheckResult r = checkText(s);
  EXPECT_FALSE(r.clean);
}

TEST(Robustness, UnterminatedComment) {
  CheckResult r = checkText(".version 9.0\n.target sm_80\n/* never closed\n");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0], "3:1: unterminated '/*' comment");
}

TEST(Robustness, FuzzerRegressions) {
  std::string dir = testDir() + "/fuzz/regressions";
  size_t n = 0;
  for (const auto &e : std::filesystem::directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().filename() == "README.md")
      continue;
    checkText(readFile(e.path().string()), e.path().filename().string());
    ++n;
  }
  SUCCEED() << n << " regression inputs";
}

} // namespace
} // namespace ptxsim::test

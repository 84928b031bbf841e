// Malformed PTX files under tests/ptx/errors carry their expected diagnostics as comments:
//   `// expect: COL: message`     an error at COL on this comment's line
//   `// expect@LINE: COL: message` an error at LINE:COL
// The checker must report exactly these errors, in this order, and no others.

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

namespace ptxsim::test {
namespace {

std::vector<std::string> expectations(const std::string &text) {
  std::vector<std::pair<std::pair<unsigned, unsigned>, std::string>> exp;
  std::istringstream in(text);
  std::string line;
  unsigned lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    size_t p = line.find("// expect");
    if (p == std::string::npos)
      continue;
    std::string rest = line.substr(p + 9);
    unsigned target = lineNo;
    if (!rest.empty() && rest[0] == '@') {
      target = static_cast<unsigned>(std::stoul(rest.substr(1)));
      rest = rest.substr(rest.find(':'));
    }
    rest = rest.substr(2); // ": "
    unsigned col = static_cast<unsigned>(std::stoul(rest));
    std::string msg = rest.substr(rest.find(": ") + 2);
    while (!msg.empty() && (msg.back() == ' ' || msg.back() == '\r'))
      msg.pop_back();
    exp.push_back({{target, col}, msg});
  }
  std::stable_sort(exp.begin(), exp.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (auto &e : exp)
    out.push_back(std::to_string(e.first.first) + ":" + std::to_string(e.first.second) + ": " +
                  e.second);
  return out;
}

class ErrorCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(ErrorCorpus, ReportsExactlyTheExpectedErrors) {
  std::string path = testDir() + "/ptx/errors/" + GetParam();
  std::string text = readFile(path);
  std::vector<std::string> want = expectations(text);
  ASSERT_FALSE(want.empty()) << path << " has no expectations";
  CheckResult r = checkText(text, GetParam());
  EXPECT_FALSE(r.clean);
  EXPECT_EQ(r.errors, want);
}

/// The .ptx files of tests/ptx/<sub>, sorted.
std::vector<std::string> ptxFiles(const std::string &sub) {
  std::vector<std::string> files;
  for (const auto &e : std::filesystem::directory_iterator(testDir() + "/ptx/" + sub))
    if (e.path().extension() == ".ptx")
      files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

/// Test name for a file: its stem with non-alphanumerics replaced.
std::string testName(const ::testing::TestParamInfo<std::string> &info) {
  std::string n = info.param.substr(0, info.param.size() - 4);
  std::replace_if(n.begin(), n.end(), [](char c) { return !isalnum(static_cast<unsigned char>(c)); }, '_');
  return n;
}

INSTANTIATE_TEST_SUITE_P(Files, ErrorCorpus, ::testing::ValuesIn(ptxFiles("errors")), testName);

class ValidCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(ValidCorpus, IsAccepted) {
  std::string path = testDir() + "/ptx/valid/" + GetParam();
  CheckResult r = checkText(readFile(path), GetParam());
  EXPECT_TRUE(r.clean);
  EXPECT_EQ(r.errors, std::vector<std::string>{});
}

INSTANTIATE_TEST_SUITE_P(Files, ValidCorpus, ::testing::ValuesIn(ptxFiles("valid")), testName);

} // namespace
} // namespace ptxsim::test

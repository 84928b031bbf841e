#include "timing/ConfigParts.h"

namespace ptxsim::timing {

namespace config {

bool isPow2(uint64_t v) { return v && !(v & (v - 1)); }

std::vector<std::string> split(const std::string &s, const std::string &seps) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (seps.find(c) != std::string::npos)
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

std::string trim(const std::string &s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b])))
    ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])))
    --e;
  return s.substr(b, e - b);
}

bool toU32(const std::string &s, uint32_t &out) {
  std::string t = trim(s);
  if (t.empty() || !std::isdigit(static_cast<unsigned char>(t[0])))
    return false;
  char *end = nullptr;
  unsigned long long v = std::strtoull(t.c_str(), &end, 10);
  if (*end != '\0' || v > UINT32_MAX)
    return false;
  out = uint32_t(v);
  return true;
}

bool toDouble(const std::string &s, double &out) {
  std::string t = trim(s);
  if (t.empty())
    return false;
  char *end = nullptr;
  out = std::strtod(t.c_str(), &end);
  return *end == '\0';
}
void checkAtLeastOne(std::initializer_list<std::pair<const char *, uint32_t>> values,
                     const ConfigFail &fail) {
  for (const auto &[opt, v] : values)
    if (v == 0)
      fail(opt, "must be at least 1");
}

} // namespace config

} // namespace ptxsim::timing

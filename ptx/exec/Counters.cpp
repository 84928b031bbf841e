#include "ptx/exec/Counters.h"

#include <cstdio>
#include <cstdlib>

namespace ptxsim::ptx::exec {
namespace {
std::vector<ExecCounterInfo> &counters() {
  static auto *v = new std::vector<ExecCounterInfo>();
  return *v;
}
} // namespace

uint16_t registerExecCounter(std::string_view name, stats::Unit unit, std::string_view help) {
  auto &v = counters();
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i].name == name)
      return uint16_t(i);
  if (v.size() >= kMaxExecCounters) {
    std::fprintf(stderr, "ptxsim: internal error: more than %u execution counters registered\n",
                 kMaxExecCounters);
    std::abort();
  }
  v.push_back(ExecCounterInfo{std::string(name), stats::Counter(name, unit, help)});
  return uint16_t(v.size() - 1);
}

const std::vector<ExecCounterInfo> &execCounters() { return counters(); }

} // namespace ptxsim::ptx::exec

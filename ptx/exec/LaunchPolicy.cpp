#include "ptx/exec/LaunchPolicy.h"

#include <vector>

namespace ptxsim::ptx::exec {
namespace {
std::vector<LaunchPolicyFn> &policies() {
  static auto *v = new std::vector<LaunchPolicyFn>();
  return *v;
}
} // namespace

void registerLaunchPolicy(LaunchPolicyFn fn) { policies().push_back(fn); }

std::unique_ptr<LaunchExtension> applyLaunchPolicies(const LaunchParams &p, uint32_t numSms,
                                                     uint64_t numCtas, std::string &error) {
  for (LaunchPolicyFn fn : policies()) {
    std::unique_ptr<LaunchExtension> ext = fn(p, numSms);
    if (!ext)
      continue;
    numCtas += ext->helperCtas;
    std::vector<uint8_t> seen(numCtas, 0);
    uint64_t count = 0;
    for (const auto &g : ext->groups)
      for (uint64_t c : g) {
        if (c >= numCtas || seen[c]) {
          error = std::string(ext->name()) + ": CTA " + std::to_string(c) +
                  (c >= numCtas ? " does not exist" : " is in two groups");
          return nullptr;
        }
        seen[c] = 1;
        ++count;
      }
    if (count != numCtas) {
      error = std::string(ext->name()) + ": " + std::to_string(numCtas - count) +
              " CTAs are in no group";
      return nullptr;
    }
    if (!ext->smOf.empty() && ext->smOf.size() != numCtas) {
      error = std::string(ext->name()) + ": SM placement lists " +
              std::to_string(ext->smOf.size()) + " CTAs of " + std::to_string(numCtas);
      return nullptr;
    }
    return ext;
  }
  return nullptr;
}

} // namespace ptxsim::ptx::exec

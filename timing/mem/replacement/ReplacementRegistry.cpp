#include "timing/mem/replacement/IReplacementPolicy.h"

namespace ptxsim::timing {

void ReplacementRegistry::add(std::string name, ReplacementFactory f) {
  for (auto &e : entries_)
    if (e.first == name) {
      e.second = f;
      return;
    }
  entries_.emplace_back(std::move(name), f);
}

std::unique_ptr<IReplacementPolicy> ReplacementRegistry::create(const std::string &name,
                                                                uint32_t sets, uint32_t ways) const {
  for (const auto &e : entries_)
    if (e.first == name)
      return e.second(sets, ways);
  return nullptr;
}

std::vector<std::string> ReplacementRegistry::names() const {
  std::vector<std::string> out;
  for (const auto &e : entries_)
    out.push_back(e.first);
  return out;
}

ReplacementRegistry &replacementRegistry() {
  static ReplacementRegistry *r = [] {
    auto *reg = new ReplacementRegistry();
    reg->add("L", createLruPolicy);
    reg->add("F", createFifoPolicy);
    return reg;
  }();
  return *r;
}

} // namespace ptxsim::timing

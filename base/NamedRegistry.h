#pragma once
// A name -> factory table, the shape every plug-in family shares (warp schedulers, cache
// replacement policies, interconnect topologies, DRAM schedulers).
//
// Contract: names keep their registration order; adding a name again replaces its factory.
// find() returns null for an unknown name (the caller reports it with the option it came from
// and names()). Registration happens at start-up; lookups afterwards need no lock.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptxsim {

template <class Factory> class NamedRegistry {
public:
  void add(std::string name, Factory f) {
    for (auto &e : entries_)
      if (e.first == name) {
        e.second = f;
        return;
      }
    entries_.emplace_back(std::move(name), f);
  }
  Factory find(std::string_view name) const {
    for (const auto &e : entries_)
      if (e.first == name)
        return e.second;
    return nullptr;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto &e : entries_)
      out.push_back(e.first);
    return out;
  }

private:
  std::vector<std::pair<std::string, Factory>> entries_;
};

} // namespace ptxsim

#include "power/StatTable.h"

namespace ptxsim::power {

StatRef StatTable::stat(const std::string &name) {
  auto it = slots_.find(name);
  if (it != slots_.end())
    return StatRef{it->second};
  uint32_t slot = uint32_t(names_.size());
  names_.push_back(name);
  slots_.emplace(name, slot);
  stats::Stat h = stats::Catalog::global().resolve(name);
  handles_.push_back(h.valid() && h.name() == name ? h : stats::Stat());
  if (catalog_ && !catalog_->find(name))
    unregistered_.push_back(name);
  return StatRef{slot};
}

void StatTable::checkAgainst(const stats::Catalog *catalog) {
  catalog_ = catalog;
  if (catalog)
    for (const std::string &n : names_)
      if (!catalog->find(n))
        unregistered_.push_back(n);
}

uint32_t StatTable::slotOf(const std::string &name) const {
  auto it = slots_.find(name);
  return it == slots_.end() ? UINT32_MAX : it->second;
}

StatValues StatReader::read(const stats::Snapshot &s) {
  const size_t n = table_.size();
  values_.assign(n, 0.0);
  for (uint32_t i = 0; i < n; ++i) {
    stats::Stat h = table_.handle(i);
    if (h.valid())
      s.find(h, values_[i]);
    else
      s.find(table_.name(i), values_[i]);
  }
  return StatValues(values_);
}

} // namespace ptxsim::power

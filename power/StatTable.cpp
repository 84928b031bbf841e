#include "power/StatTable.h"

namespace ptxsim::power {

StatRef StatTable::stat(const std::string &name) {
  auto it = slots_.find(name);
  if (it != slots_.end())
    return StatRef{it->second};
  uint32_t slot = uint32_t(names_.size());
  names_.push_back(name);
  slots_.emplace(name, slot);
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
  const auto &vals = s.values();
  const size_t n = table_.size();
  bool same = values_.size() == n;
  for (size_t i = 0; same && i < n; ++i) {
    size_t p = pos_[i];
    if (p < vals.size() && vals[p].first == table_.name(uint32_t(i)))
      values_[i] = vals[p].second;
    else
      same = false;
  }
  if (!same)
    locate(s);
  return StatValues(values_);
}

void StatReader::locate(const stats::Snapshot &s) {
  const auto &vals = s.values();
  const size_t n = table_.size();
  values_.assign(n, 0.0);
  pos_.assign(n, SIZE_MAX);
  for (size_t j = 0; j < vals.size(); ++j) {
    uint32_t slot = table_.slotOf(vals[j].first);
    if (slot != UINT32_MAX && pos_[slot] == SIZE_MAX) { // the first entry, as Snapshot::get
      pos_[slot] = j;
      values_[slot] = vals[j].second;
    }
  }
}

} // namespace ptxsim::power

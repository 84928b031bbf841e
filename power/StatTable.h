#pragma once
// The statistics a power model reads: names resolved to handles once at load, values read from
// each snapshot by position.
//
// Contract: StatTable hands out one handle (StatRef) per distinct name, in first-bound order, and
// records the names the catalog it checks against does not register. StatReader::read() returns
// the value of every bound statistic in a snapshot (0 for one the snapshot has no value for, as
// stats::Snapshot::get); it remembers where each name was in the last snapshot it read, so the
// snapshots of one kernel (the same layout) cost one comparison per statistic, and a snapshot of
// another layout is located again in one pass.

#include "base/Stats.h"
#include "power/IPowerComponent.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ptxsim::power {

class StatTable : public StatBinder {
public:
  /// Checks the names bound so far and from now on against `catalog` (null: stop checking).
  void checkAgainst(const stats::Catalog *catalog);
  StatRef stat(const std::string &name) override;
  /// The names bound while checking that the catalog does not register, in binding order.
  const std::vector<std::string> &unregistered() const { return unregistered_; }
  size_t size() const { return names_.size(); }
  const std::string &name(uint32_t slot) const { return names_[slot]; }
  /// The slot of `name`, or UINT32_MAX when no component bound it.
  uint32_t slotOf(const std::string &name) const;

private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> slots_;
  const stats::Catalog *catalog_ = nullptr;
  std::vector<std::string> unregistered_;
};

class StatReader {
public:
  explicit StatReader(const StatTable &t) : table_(t) {}
  /// The values of `s`; valid until the next read().
  StatValues read(const stats::Snapshot &s);

private:
  void locate(const stats::Snapshot &s);
  const StatTable &table_;
  std::vector<double> values_;
  std::vector<size_t> pos_; ///< position in the last snapshot's values(); SIZE_MAX: absent
};

} // namespace ptxsim::power

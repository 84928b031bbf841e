#pragma once
// The statistics a power model reads: names resolved to the statistics catalog's handles once at
// load, values read from each snapshot through those handles.
//
// Contract: StatTable hands out one handle (StatRef) per distinct name, in first-bound order,
// resolves each name once to its stats::Stat in the global catalog (the one snapshots are
// keyed by), and records the names the catalog it checks against does not register.
// StatReader::read() returns the value of every bound statistic in a snapshot (0 for one the
// snapshot has no value for, as stats::Snapshot::get), reading each through its stats::Stat (an
// index, no name compared). Only a name the catalog did not know at load (a model loaded without
// the check) or an instance name (`sm[3].x`) is looked up by name.

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
  /// The catalog handle of a slot: invalid for a name the global catalog did not register when
  /// it was bound, or for an instance of a family.
  stats::Stat handle(uint32_t slot) const { return handles_[slot]; }

private:
  std::vector<std::string> names_;
  std::vector<stats::Stat> handles_;
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
  const StatTable &table_;
  std::vector<double> values_;
};

} // namespace ptxsim::power

#pragma once
// Statistics: one catalog of every counter a component or extension reports, and the snapshot
// of values a kernel produces, with one text and one JSON printer.
//
// Contract: a component registers each statistic it reports once, at start-up or when it is
// built (Catalog::add: name, unit, description, and how it aggregates); names are hierarchical
// and lowercase (`l1d.misses`, `dram.row_hits`); a name with `[]` is a family of instances
// (`l2[].misses` covers `l2[0].misses`, `l2[1].misses`, ...: per SM, per partition, per chiplet).
// A Snapshot holds values in the order they were set; reading a name that no component
// registered is a simulator bug and aborts with the name (a registered name with no value in
// the snapshot reads as 0: the component had no activity). Consumers (the power model, reports)
// check up front with Catalog::find() that the counters they need exist, so a renamed counter
// fails loudly at start-up instead of zeroing an energy.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ptxsim::stats {

enum class Unit : uint8_t { Count, Cycles, Bytes, Seconds, Joules, Watts, Ratio, PerKiloInst };
std::string_view unitName(Unit u);

struct Desc {
  std::string name; ///< `gpu.cycles`, `l2[].misses`
  Unit unit = Unit::Count;
  std::string help;
};

/// A distribution of samples (latencies, sizes): count, sum, min, max and a histogram with one
/// bucket per power of two (bucket b holds [2^(b-1), 2^b), bucket 0 holds 0), enough for
/// percentiles within a factor of two. Cheap to sample; merges by adding.
struct Distribution {
  static constexpr unsigned kBuckets = 48;
  uint64_t count = 0;
  double sum = 0, min = 0, max = 0;
  uint64_t buckets[kBuckets] = {};

  void sample(uint64_t v) {
    double d = double(v);
    min = count ? (d < min ? d : min) : d;
    max = count ? (d > max ? d : max) : d;
    ++count;
    sum += d;
    unsigned b = v ? 64u - unsigned(__builtin_clzll(v)) : 0u;
    ++buckets[b < kBuckets ? b : kBuckets - 1];
  }
  void merge(const Distribution &o);
  /// The smallest bucket bound below which at least fraction `q` of the samples lie (an upper
  /// bound of the q-quantile within a factor of two), clamped to [min, max]; 0 when empty.
  double quantile(double q) const;
};

class Catalog {
public:
  /// The process-wide catalog (components register into it; never destroyed).
  static Catalog &global();
  /// Registers (or re-registers identically) a statistic. Registering one name with another
  /// unit is a simulator bug (aborts).
  void add(std::string_view name, Unit unit, std::string_view help);
  /// Registers a distribution `name`: its summary statistics `name.count`, `.mean`, `.min`,
  /// `.max`, `.p50`, `.p90`, `.p99` (Snapshot::setDistribution writes them).
  void addDistribution(std::string_view name, Unit unit, std::string_view help);
  /// The description of `name` (an instance `l2[3].misses` matches the family `l2[].misses`),
  /// or null when no component registered it.
  const Desc *find(std::string_view name) const;
  const std::vector<Desc> &all() const { return descs_; }
  /// Every statistic as a markdown table (name, unit, description), sorted by name.
  std::string markdown() const;

private:
  std::vector<Desc> descs_;
  std::unordered_map<std::string, size_t> byName_; ///< family name -> index in descs_
};

/// Named values of one kernel (or of a moment during it), in a stable order.
class Snapshot {
public:
  Snapshot() = default;
  // (the name index points into values_: a copy starts without one)
  Snapshot(const Snapshot &o) : values_(o.values_) {}
  Snapshot(Snapshot &&o) noexcept : values_(std::move(o.values_)) { o.index_.clear(); }
  Snapshot &operator=(const Snapshot &o) {
    if (this != &o) {
      values_ = o.values_;
      index_.clear();
    }
    return *this;
  }
  Snapshot &operator=(Snapshot &&o) noexcept {
    values_ = std::move(o.values_);
    index_.clear();
    o.index_.clear();
    return *this;
  }
  /// Sets (or adds to the end) `name`. The name must be registered in the global catalog.
  void set(std::string_view name, double value);
  /// Adds `value` to `name` (set when absent).
  void add(std::string_view name, double value);
  /// Writes the summary statistics of a distribution registered with addDistribution().
  void setDistribution(std::string_view name, const Distribution &d);
  /// The value of `name`; 0 for a registered name that has none; aborts for an unregistered one.
  double get(std::string_view name) const;
  /// The value of `name`, or false when it has none.
  bool find(std::string_view name, double &value) const;
  const std::vector<std::pair<std::string, double>> &values() const { return values_; }
  /// The values for edits in place (names must stay registered ones; e.g. scaling every value).
  std::vector<std::pair<std::string, double>> &values() {
    index_.clear();
    return values_;
  }
  void clear() {
    values_.clear();
    index_.clear();
  }

  /// `name = value` lines; instance entries (`l2[3].x`) only when `instances` is set.
  std::string text(bool instances = false, std::string_view indent = "  ") const;
  /// The values as JSON members (`"name": value, ...`, no braces), every entry included.
  std::string jsonMembers() const;

private:
  /// Position of `name` in values_, or values_.size() when absent. Large snapshots (a kernel's
  /// statistics have per-SM and per-partition entries: thousands) look names up in index_, so
  /// building one costs O(n) rather than O(n^2).
  size_t position(std::string_view name);
  size_t positionConst(std::string_view name) const;
  static constexpr size_t kIndexFrom = 32;
  std::vector<std::pair<std::string, double>> values_;
  /// name (viewing values_[i].first) -> i for every entry while indexFor_ == values_.data();
  /// extended by the non-const lookups, used by the const ones only when complete.
  std::unordered_map<std::string_view, size_t> index_;
  const void *indexFor_ = nullptr;
};

/// A number as JSON/text show it: integers exactly, others with 17 significant digits (JSON) or
/// 6 (text).
std::string formatValue(double v, bool exact);

} // namespace ptxsim::stats

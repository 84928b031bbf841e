#pragma once
// Statistics: one catalog of every counter a component or extension reports, and the snapshot
// of values a kernel produces, with one text and one JSON printer.
//
// Contract: a component declares each statistic it reports once, as a typed handle beside its
// counters (gem5's stats groups): a Counter (a value it sets or adds), a DistributionStat
// (count, mean, min, max, percentiles of samples), a Formula (a value derived from others in the
// snapshot, e.g. instructions per cycle) or an Alias (another name for a statistic, e.g.
// GPGPU-Sim's `gpu_tot_sim_cycle`), each with name, unit and description. Declaring registers
// it in the process-wide catalog; the component then sets values through the handle (no name
// is written twice). Names are hierarchical and lowercase (`l1d.misses`, `dram.row_hits`); a
// name with `[]` is a family of instances (`l2[].misses` covers `l2[0].misses`, ...: per SM,
// per partition, per chiplet). Consumers that know a statistic only by name (the power model,
// reports, configuration files) resolve it once at load with Catalog::resolve(), which fails
// loudly for a renamed statistic instead of zeroing an energy, and read values through the
// handle (no string lookup per read).
// A Snapshot holds values in the order they were first set; reading a name that no component
// registered is a simulator bug and aborts with the name (a registered name with no value in
// the snapshot reads as 0: the component had no activity). The older name-based calls
// (Catalog::add, Snapshot::set(name, ...)) remain for code not yet declaring handles.

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ptxsim::stats {

enum class Unit : uint8_t { Count, Cycles, Bytes, Seconds, Joules, Watts, Ratio, PerKiloInst };
std::string_view unitName(Unit u);

/// A statistic's place in the catalog (dense, in registration order).
using StatId = uint32_t;
inline constexpr StatId kNoStat = ~StatId(0);

enum class StatKind : uint8_t {
  Counter,      ///< a value the component sets or adds
  Distribution, ///< one of a distribution's summary values (`.count`, `.mean`, ...)
  Formula,      ///< derived from other statistics of the same snapshot
  Alias,        ///< another name for the statistic `Desc::of`
};
std::string_view kindName(StatKind k);

/// A statistic's name as a snapshot holds it: interned once per process (StatName::of), so a
/// snapshot's entry is a pointer and a value, and building or copying a launch's thousands of
/// entries allocates no string. Equal names are the same pointer. Default: the empty name.
class StatName {
public:
  StatName();
  /// The interned copy of `name` (made at its first use, never freed; thread-safe).
  static StatName of(std::string_view name);
  const std::string &str() const { return *s_; }
  operator std::string_view() const { return *s_; }
  const char *c_str() const { return s_->c_str(); }
  size_t size() const { return s_->size(); }
  size_t find(char c, size_t pos = 0) const { return s_->find(c, pos); }
  friend bool operator==(StatName a, StatName b) { return a.s_ == b.s_; }
  friend bool operator!=(StatName a, StatName b) { return a.s_ != b.s_; }
  friend bool operator==(StatName a, std::string_view b) { return *a.s_ == b; }
  friend bool operator!=(StatName a, std::string_view b) { return *a.s_ != b; }
  friend bool operator==(std::string_view a, StatName b) { return a == *b.s_; }
  friend bool operator!=(std::string_view a, StatName b) { return a != *b.s_; }

private:
  explicit StatName(const std::string *s) : s_(s) {}
  const std::string *s_;
};
std::ostream &operator<<(std::ostream &os, StatName n);

struct Desc {
  std::string name; ///< `gpu.cycles`, `l2[].misses`
  Unit unit = Unit::Count;
  std::string help;
  StatKind kind = StatKind::Counter;
  StatId of = kNoStat; ///< Alias: the statistic it repeats
};

class Snapshot;

/// A handle on a registered statistic: its catalog id. Cheap to copy; reading or setting a
/// snapshot through it costs an array index, not a name lookup. Default-constructed: none
/// (valid() is false; using it is a simulator bug).
class Stat {
public:
  Stat() = default;
  StatId id() const { return id_; }
  bool valid() const { return id_ != kNoStat; }
  /// The registered name (the family name for `[]` families).
  const std::string &name() const;
  /// name(), interned (what a snapshot's entry holds).
  StatName internedName() const;
  Unit unit() const;
  /// The name of instance `i` of a family (`sm[].ctas` -> `sm[3].ctas`); the name itself for a
  /// statistic that is no family.
  std::string instance(size_t i) const;
  bool operator==(const Stat &o) const { return id_ == o.id_; }

protected:
  explicit Stat(StatId id) : id_(id) {}
  friend class Catalog;
  friend class DistributionStat;
  StatId id_ = kNoStat;
};

/// A statistic the component sets (Snapshot::set) or accumulates (Snapshot::add).
class Counter : public Stat {
public:
  Counter() = default;
  /// Declares `name` in the global catalog (again with the same unit: the same handle).
  Counter(std::string_view name, Unit unit, std::string_view help);
};

/// A value derived from other statistics of the snapshot when it is computed
/// (Snapshot::compute), e.g. `gpu.ipc` from `gpu.warp_insts` and `gpu.cycles`.
class Formula : public Stat {
public:
  using Fn = std::function<double(const Snapshot &)>;
  Formula() = default;
  Formula(std::string_view name, Unit unit, std::string_view help, Fn fn);
  double eval(const Snapshot &s) const { return fn_(s); }

private:
  Fn fn_;
};

/// `a / b`, 0 when `b` is 0 (the usual formula: a rate over a count that may be zero).
inline double ratio(double a, double b) { return b != 0 ? a / b : 0; }

/// Another name for a statistic (GPGPU-Sim's or a study's); Snapshot::copy sets it to the
/// target's value. Its help says whose name it is: "alias of <target> (<whose>)".
class Alias : public Stat {
public:
  Alias() = default;
  Alias(std::string_view name, const Stat &of, std::string_view whose);
  Stat target() const { return of_; }

private:
  Stat of_;
};

/// A distribution's summary statistics `name.count`, `.mean`, `.min`, `.max`, `.p50`, `.p90`,
/// `.p99` (Snapshot::setDistribution writes them).
class DistributionStat {
public:
  DistributionStat() = default;
  DistributionStat(std::string_view name, Unit unit, std::string_view help);
  const std::string &name() const { return name_; }
  static constexpr unsigned kParts = 7;
  /// count, mean, min, max, p50, p90, p99
  Stat part(unsigned i) const { return parts_[i]; }

private:
  std::string name_;
  Stat parts_[kParts];
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

/// One counter of a component's stats struct `S`, declared once: its name (after the prefix
/// the struct is reported under), unit and description beside the field that holds it.
template <class S> struct FieldStat {
  const char *name;
  Unit unit;
  const char *help;
  uint64_t S::*field;
};

/// A table of FieldStat declared under one prefix (`l1d.`, `l2[].`): registers each statistic
/// (help prefixed with `what: ` when `what` is given) and reports a struct's values in the
/// table's order, under the statistics' names (or instance `i` of a `[]` family).
template <class S> class FieldStats {
public:
  template <size_t N>
  FieldStats(const FieldStat<S> (&table)[N], std::string_view prefix, std::string_view what = {});
  size_t size() const { return fields_.size(); }
  const Counter &stat(size_t i) const { return fields_[i].first; }
  uint64_t value(const S &s, size_t i) const { return s.*(fields_[i].second); }
  void append(const S &s, std::vector<std::pair<std::string, uint64_t>> &out) const {
    for (const auto &f : fields_)
      out.emplace_back(f.first.name(), s.*(f.second));
  }
  /// Each field's handle and value, for a component reporting its totals by handle.
  void append(const S &s, std::vector<std::pair<Stat, double>> &out) const {
    for (const auto &f : fields_)
      out.emplace_back(f.first, (double)(s.*(f.second)));
  }
  void appendInstance(const S &s, size_t i,
                      std::vector<std::pair<std::string, uint64_t>> &out) const {
    for (const auto &f : fields_)
      out.emplace_back(f.first.instance(i), s.*(f.second));
  }

private:
  std::vector<std::pair<Counter, uint64_t S::*>> fields_;
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
  /// Registers (or finds, with the same unit) `name` with `kind`: its id.
  StatId declare(std::string_view name, Unit unit, std::string_view help,
                 StatKind kind = StatKind::Counter, StatId of = kNoStat);
  /// The handle of `name` (a family for an instance name), resolved once by consumers that
  /// know statistics by name; invalid when no component registered it.
  Stat resolve(std::string_view name) const;
  /// The id of `name`'s family, or kNoStat.
  StatId idOf(std::string_view name) const;
  const Desc &desc(StatId id) const { return descs_[id]; }
  /// desc(id).name, interned.
  StatName nameOf(StatId id) const { return names_[id]; }
  size_t size() const { return descs_.size(); }
  /// The description of `name` (an instance `l2[3].misses` matches the family `l2[].misses`),
  /// or null when no component registered it.
  const Desc *find(std::string_view name) const;
  const std::vector<Desc> &all() const { return descs_; }
  /// Every statistic as a markdown table (name, unit, description), sorted by name.
  std::string markdown() const;

private:
  std::vector<Desc> descs_;
  std::vector<StatName> names_; ///< descs_[i].name, interned
  std::unordered_map<std::string, size_t> byName_; ///< family name -> index in descs_
};

/// Named values of one kernel (or of a moment during it), in a stable order.
class Snapshot {
public:
  using Entry = std::pair<StatName, double>;
  Snapshot() = default;
  // (the name index points into values_: a copy starts without one)
  // (positions by id are plain numbers and copy along)
  Snapshot(const Snapshot &o) : values_(o.values_), slots_(o.slots_), slotsOk_(o.slotsOk_) {}
  Snapshot(Snapshot &&o) noexcept
      : values_(std::move(o.values_)), slots_(std::move(o.slots_)), slotsOk_(o.slotsOk_) {
    o.index_.clear();
    o.slots_.clear();
  }
  Snapshot &operator=(const Snapshot &o) {
    if (this != &o) {
      values_ = o.values_;
      index_.clear();
      slots_ = o.slots_;
      slotsOk_ = o.slotsOk_;
    }
    return *this;
  }
  Snapshot &operator=(Snapshot &&o) noexcept {
    values_ = std::move(o.values_);
    slots_ = std::move(o.slots_);
    slotsOk_ = o.slotsOk_;
    index_.clear();
    o.index_.clear();
    o.slots_.clear();
    return *this;
  }
  /// Sets (or adds to the end) the statistic of a handle from the global catalog.
  void set(Stat s, double value);
  /// Adds `value` to a statistic (set when absent).
  void add(Stat s, double value);
  /// The value of a statistic; 0 when it has none (the component had no activity).
  double get(Stat s) const;
  /// The value of a statistic, or false when it has none.
  bool find(Stat s, double &value) const;
  /// Sets a formula to its value over this snapshot's current values.
  void compute(const Formula &f) { set(f, f.eval(*this)); }
  /// Sets an alias to its target's current value.
  void copy(const Alias &a) { set(a, get(a.target())); }
  /// Writes a distribution's summary statistics.
  void setDistribution(const DistributionStat &ds, const Distribution &d);

  /// Sets (or adds to the end) `name`. The name must be registered in the global catalog.
  void set(std::string_view name, double value);
  void set(StatName name, double value);
  /// Adds `value` to `name` (set when absent).
  void add(std::string_view name, double value);
  void add(StatName name, double value);
  /// Writes the summary statistics of a distribution registered with addDistribution().
  void setDistribution(std::string_view name, const Distribution &d);
  /// The value of `name`; 0 for a registered name that has none; aborts for an unregistered one.
  double get(std::string_view name) const;
  /// The value of `name`, or false when it has none.
  bool find(std::string_view name, double &value) const;
  const std::vector<Entry> &values() const { return values_; }
  /// The values for edits in place (names must stay registered ones; e.g. scaling every value).
  std::vector<Entry> &values() {
    index_.clear();
    slotsOk_ = false; // names may be edited: positions by id are rebuilt on the next use
    return values_;
  }
  /// set(names[i], values[i]) for every i, for instance names (`l2[3].misses`) of registered
  /// families that are distinct, in that order: appended at once when the snapshot holds no
  /// instance entry yet (none can then be set already), else set one by one. A launch's
  /// per-partition and per-SM values (thousands) without a lookup each.
  void setInstances(const std::vector<StatName> &names, const std::vector<double> &values);
  /// Multiplies each entry by the factor its kind gives, by position: entry i by
  /// `factors[kinds[i] - 1]`, unchanged where kinds[i] is 0 (or past the end of `kinds`). For
  /// many snapshots of one layout whose kinds were worked out once (timing::scaleStats); the
  /// names stay, and so do the name index and the positions by id.
  void scaleByKind(const std::vector<uint8_t> &kinds, const double *factors);
  /// Room for `n` entries (names and positions stay as they are).
  void reserve(size_t n) { values_.reserve(n); }
  void clear() {
    values_.clear();
    index_.clear();
    slots_.clear();
    slotsOk_ = true;
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
  /// Appends `name` (registered: checked) with `value`.
  void append(StatName name, double value);
  std::vector<Entry> values_;
  /// name (viewing values_[i].first) -> i for every entry while indexFor_ == values_.data();
  /// extended by the non-const lookups, used by the const ones only when complete.
  std::unordered_map<std::string_view, size_t> index_;
  const void *indexFor_ = nullptr;
  /// Position + 1 of each statistic (by StatId) set under its exact registered name; 0: none.
  /// Rebuilt from values_ when !slotsOk_ (after edits through values()).
  std::vector<uint32_t> slots_;
  bool slotsOk_ = true;
  size_t slotOf(StatId id) const;
  void noteSlot(StatId id, size_t pos);
  void rebuildSlots();
};

template <class S>
template <size_t N>
FieldStats<S>::FieldStats(const FieldStat<S> (&table)[N], std::string_view prefix,
                          std::string_view what) {
  fields_.reserve(N);
  for (const FieldStat<S> &f : table) {
    std::string help = what.empty() ? std::string(f.help) : std::string(what) + ": " + f.help;
    fields_.emplace_back(Counter(std::string(prefix) + f.name, f.unit, help), f.field);
  }
}

/// A number as JSON/text show it: integers exactly, others with 17 significant digits (JSON) or
/// 6 (text).
std::string formatValue(double v, bool exact);

} // namespace ptxsim::stats

#include "base/Stats.h"

#include "base/Config.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <ostream>
#include <sstream>

namespace ptxsim::stats {
namespace {
/// `l2[3].misses` -> `l2[].misses` (every bracketed index removed).
std::string familyOf(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size(); ++i) {
    out += name[i];
    if (name[i] == '[') {
      size_t j = name.find(']', i);
      if (j == std::string_view::npos)
        break;
      i = j - 1;
    }
  }
  return out;
}
} // namespace

std::string_view unitName(Unit u) {
  switch (u) {
  case Unit::Count: return "count";
  case Unit::Cycles: return "cycles";
  case Unit::Bytes: return "bytes";
  case Unit::Seconds: return "s";
  case Unit::Joules: return "J";
  case Unit::Watts: return "W";
  case Unit::Ratio: return "ratio";
  case Unit::PerKiloInst: return "per 1000 warp insts";
  }
  return "?";
}

std::string_view kindName(StatKind k) {
  switch (k) {
  case StatKind::Counter: return "counter";
  case StatKind::Distribution: return "distribution";
  case StatKind::Formula: return "formula";
  case StatKind::Alias: return "alias";
  }
  return "?";
}

namespace {
/// Every interned statistic name (StatName::of): owned here, never freed (no static destructors).
struct InternTable {
  std::mutex m;
  std::unordered_map<std::string_view, const std::string *> names; ///< viewing *second
};
InternTable &internTable() {
  static auto *t = new InternTable();
  return *t;
}
} // namespace

StatName StatName::of(std::string_view name) {
  InternTable &t = internTable();
  std::lock_guard<std::mutex> lock(t.m);
  auto it = t.names.find(name);
  if (it != t.names.end())
    return StatName(it->second);
  const std::string *owned = new std::string(name);
  t.names.emplace(std::string_view(*owned), owned);
  return StatName(owned);
}

StatName::StatName() : StatName(of(std::string_view())) {}

std::ostream &operator<<(std::ostream &os, StatName n) { return os << n.str(); }

Catalog &Catalog::global() {
  static auto *c = new Catalog();
  return *c;
}

void Catalog::add(std::string_view name, Unit unit, std::string_view help) {
  declare(name, unit, help);
}

StatId Catalog::declare(std::string_view name, Unit unit, std::string_view help, StatKind kind,
                        StatId of) {
  std::string fam = familyOf(name);
  auto it = byName_.find(fam);
  if (it != byName_.end()) {
    if (descs_[it->second].unit != unit) {
      std::fprintf(stderr,
                   "ptxsim: internal error: statistic '%s' registered twice with "
                   "different units\n",
                   fam.c_str());
      std::abort();
    }
    return StatId(it->second);
  }
  StatId id = StatId(descs_.size());
  byName_.emplace(fam, id); // (before names_ and descs_ take `fam`)
  names_.push_back(StatName::of(fam));
  descs_.push_back(Desc{std::move(fam), unit, std::string(help), kind, of});
  return id;
}

StatId Catalog::idOf(std::string_view name) const {
  auto it = byName_.find(familyOf(name));
  return it == byName_.end() ? kNoStat : StatId(it->second);
}

Stat Catalog::resolve(std::string_view name) const { return Stat(idOf(name)); }

const std::string &Stat::name() const { return Catalog::global().desc(id_).name; }

StatName Stat::internedName() const { return Catalog::global().nameOf(id_); }

Unit Stat::unit() const { return Catalog::global().desc(id_).unit; }

std::string Stat::instance(size_t i) const {
  const std::string &n = name();
  size_t b = n.find("[]");
  if (b == std::string::npos)
    return n;
  return n.substr(0, b + 1) + std::to_string(i) + n.substr(b + 1);
}

Counter::Counter(std::string_view name, Unit unit, std::string_view help)
    : Stat(Catalog::global().declare(name, unit, help, StatKind::Counter)) {}

Formula::Formula(std::string_view name, Unit unit, std::string_view help, Fn fn)
    : Stat(Catalog::global().declare(name, unit, help, StatKind::Formula)), fn_(std::move(fn)) {}

Alias::Alias(std::string_view name, const Stat &of, std::string_view whose)
    : Stat(Catalog::global().declare(name, of.unit(),
                                     "alias of " + of.name() + " (" + std::string(whose) + ")",
                                     StatKind::Alias, of.id())),
      of_(of) {}

namespace {
const char *const kPartNames[DistributionStat::kParts] = {".count", ".mean", ".min", ".max",
                                                           ".p50",   ".p90",  ".p99"};
const char *const kPartHelp[DistributionStat::kParts] = {
    ": samples",
    ": mean",
    ": smallest sample",
    ": largest sample",
    ": median (upper bound within a factor of two)",
    ": 90th percentile (upper bound within a factor of two)",
    ": 99th percentile (upper bound within a factor of two)"};
} // namespace

DistributionStat::DistributionStat(std::string_view name, Unit unit, std::string_view help)
    : name_(name) {
  Catalog &c = Catalog::global();
  for (unsigned i = 0; i < kParts; ++i)
    parts_[i] = Stat(c.declare(name_ + kPartNames[i], i == 0 ? Unit::Count : unit,
                               std::string(help) + kPartHelp[i], StatKind::Distribution));
}

void Catalog::addDistribution(std::string_view name, Unit unit, std::string_view help) {
  std::string n(name), h(help);
  for (unsigned i = 0; i < DistributionStat::kParts; ++i)
    declare(n + kPartNames[i], i == 0 ? Unit::Count : unit, h + kPartHelp[i],
            StatKind::Distribution);
}

void Distribution::merge(const Distribution &o) {
  if (!o.count)
    return;
  min = count ? (o.min < min ? o.min : min) : o.min;
  max = count ? (o.max > max ? o.max : max) : o.max;
  count += o.count;
  sum += o.sum;
  for (unsigned b = 0; b < kBuckets; ++b)
    buckets[b] += o.buckets[b];
}

double Distribution::quantile(double q) const {
  if (!count)
    return 0;
  double need = q * double(count), seen = 0;
  for (unsigned b = 0; b < kBuckets; ++b) {
    seen += double(buckets[b]);
    if (seen >= need && buckets[b]) {
      double upper = b == 0 ? 0 : double(uint64_t(1) << (b < 63 ? b : 63)) - 1;
      return upper < min ? min : upper > max ? max : upper;
    }
  }
  return max;
}

namespace {
/// The summary values in DistributionStat's part order.
void distributionParts(const Distribution &d, double out[DistributionStat::kParts]) {
  out[0] = double(d.count);
  out[1] = d.count ? d.sum / double(d.count) : 0;
  out[2] = d.min;
  out[3] = d.max;
  out[4] = d.quantile(0.5);
  out[5] = d.quantile(0.9);
  out[6] = d.quantile(0.99);
}
} // namespace

void Snapshot::setDistribution(const DistributionStat &ds, const Distribution &d) {
  double v[DistributionStat::kParts];
  distributionParts(d, v);
  for (unsigned i = 0; i < DistributionStat::kParts; ++i)
    set(ds.part(i), v[i]);
}

void Snapshot::setDistribution(std::string_view name, const Distribution &d) {
  std::string n(name);
  set(n + ".count", double(d.count));
  set(n + ".mean", d.count ? d.sum / double(d.count) : 0);
  set(n + ".min", d.min);
  set(n + ".max", d.max);
  set(n + ".p50", d.quantile(0.5));
  set(n + ".p90", d.quantile(0.9));
  set(n + ".p99", d.quantile(0.99));
}

const Desc *Catalog::find(std::string_view name) const {
  auto it = byName_.find(familyOf(name));
  return it == byName_.end() ? nullptr : &descs_[it->second];
}

std::string Catalog::markdown() const {
  std::vector<const Desc *> v;
  for (const Desc &d : descs_)
    v.push_back(&d);
  std::sort(v.begin(), v.end(), [](const Desc *a, const Desc *b) { return a->name < b->name; });
  std::ostringstream os;
  os << "| statistic | unit | meaning |\n| --- | --- | --- |\n";
  for (const Desc *d : v)
    os << "| `" << d->name << "` | " << unitName(d->unit) << " | " << d->help << " |\n";
  return os.str();
}

namespace {
[[noreturn]] void unregistered(std::string_view name, const char *what) {
  std::fprintf(stderr, "ptxsim: internal error: %s statistic '%.*s', which no component "
                       "registers (stats::Catalog)\n", what, (int)name.size(), name.data());
  std::abort();
}
} // namespace

size_t Snapshot::positionConst(std::string_view name) const {
  const size_t n = values_.size();
  if (n >= kIndexFrom && indexFor_ == values_.data() && index_.size() == n) {
    auto it = index_.find(name);
    return it == index_.end() ? n : it->second;
  }
  for (size_t i = 0; i < n; ++i)
    if (values_[i].first == name)
      return i;
  return n;
}

size_t Snapshot::position(std::string_view name) {
  const size_t n = values_.size();
  if (n < kIndexFrom)
    return positionConst(name);
  // the views point into values_' buffer: a new buffer needs a new index
  if (indexFor_ != values_.data()) {
    index_.clear();
    indexFor_ = values_.data();
  }
  if (index_.size() < n) {
    for (size_t i = index_.size(); i < n; ++i)
      if (!index_.emplace(values_[i].first, i).second)
        break; // a name twice (edited through values()): stay linear
    if (index_.size() < n) {
      index_.clear();
      return positionConst(name);
    }
  }
  auto it = index_.find(name);
  return it == index_.end() ? n : it->second;
}

void Snapshot::set(std::string_view name, double value) {
  size_t i = position(name);
  if (i < values_.size()) {
    values_[i].second = value;
    return;
  }
  append(StatName::of(name), value);
}

void Snapshot::set(StatName name, double value) {
  size_t i = position(name);
  if (i < values_.size()) {
    values_[i].second = value;
    return;
  }
  append(name, value);
}

void Snapshot::append(StatName name, double value) {
  const Catalog &cat = Catalog::global();
  StatId id = cat.idOf(name);
  if (id == kNoStat)
    unregistered(name, "setting");
  if (cat.desc(id).name.size() == name.size()) // the statistic itself, not an instance
    noteSlot(id, values_.size());
  values_.emplace_back(name, value);
}

void Snapshot::setInstances(const std::vector<StatName> &names,
                            const std::vector<double> &values) {
  const size_t n = std::min(names.size(), values.size());
  bool fresh = true;
  for (const auto &kv : values_)
    if (kv.first.find('[') != std::string::npos) {
      fresh = false;
      break;
    }
  if (!fresh) {
    for (size_t i = 0; i < n; ++i)
      set(names[i], values[i]);
    return;
  }
  // (instances take no slot: noteSlot() is for the registered names themselves; the name
  // index, when there is one, extends itself over the new entries at its next use)
  values_.reserve(values_.size() + n);
  for (size_t i = 0; i < n; ++i) {
    assert(names[i].find('[') != std::string::npos && Catalog::global().idOf(names[i]) != kNoStat);
    values_.emplace_back(names[i], values[i]);
  }
}

void Snapshot::scaleByKind(const std::vector<uint8_t> &kinds, const double *factors) {
  const size_t n = std::min(kinds.size(), values_.size());
  for (size_t i = 0; i < n; ++i)
    if (kinds[i])
      values_[i].second *= factors[kinds[i] - 1];
}

void Snapshot::noteSlot(StatId id, size_t pos) {
  if (!slotsOk_)
    return;
  if (slots_.size() <= id)
    slots_.resize(size_t(id) + 1, 0);
  slots_[id] = uint32_t(pos + 1);
}

void Snapshot::rebuildSlots() {
  slots_.clear();
  slotsOk_ = true;
  const Catalog &cat = Catalog::global();
  for (size_t i = 0; i < values_.size(); ++i) {
    StatId id = cat.idOf(values_[i].first);
    if (id != kNoStat && cat.nameOf(id) == values_[i].first &&
        (slots_.size() <= id || !slots_[id]))
      noteSlot(id, i);
  }
}

size_t Snapshot::slotOf(StatId id) const {
  if (id == kNoStat) {
    std::fprintf(stderr, "ptxsim: internal error: a statistic handle that names no statistic "
                         "(stats::Stat default-constructed or resolved from an unknown name)\n");
    std::abort();
  }
  if (slotsOk_)
    return id < slots_.size() && slots_[id] ? slots_[id] - 1 : values_.size();
  return positionConst(Catalog::global().desc(id).name);
}

void Snapshot::set(Stat s, double value) {
  if (!slotsOk_)
    rebuildSlots();
  size_t i = slotOf(s.id());
  if (i < values_.size()) {
    values_[i].second = value;
    return;
  }
  const StatName name = Catalog::global().nameOf(s.id());
  if (name.str().find("[]") != std::string::npos) {
    std::fprintf(stderr, "ptxsim: internal error: statistic '%s' is a family: set one instance "
                         "of it by name (Stat::instance)\n", name.c_str());
    std::abort();
  }
  noteSlot(s.id(), values_.size());
  values_.emplace_back(name, value);
}

void Snapshot::add(Stat s, double value) {
  if (!slotsOk_)
    rebuildSlots();
  size_t i = slotOf(s.id());
  if (i < values_.size()) {
    values_[i].second += value;
    return;
  }
  set(s, value);
}

bool Snapshot::find(Stat s, double &value) const {
  size_t i = slotOf(s.id());
  if (i == values_.size())
    return false;
  value = values_[i].second;
  return true;
}

double Snapshot::get(Stat s) const {
  double v = 0;
  find(s, v);
  return v;
}

void Snapshot::add(std::string_view name, double value) {
  size_t i = position(name);
  if (i < values_.size()) {
    values_[i].second += value;
    return;
  }
  append(StatName::of(name), value);
}

void Snapshot::add(StatName name, double value) {
  size_t i = position(name);
  if (i < values_.size()) {
    values_[i].second += value;
    return;
  }
  append(name, value);
}

bool Snapshot::find(std::string_view name, double &value) const {
  size_t i = positionConst(name);
  if (i == values_.size())
    return false;
  value = values_[i].second;
  return true;
}

double Snapshot::get(std::string_view name) const {
  double v = 0;
  if (find(name, v))
    return v;
  if (!Catalog::global().find(name))
    unregistered(name, "reading");
  return 0;
}

std::string formatValue(double v, bool exact) {
  char buf[64];
  if (v == (double)(uint64_t)v && v < 1e15)
    std::snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
  else
    std::snprintf(buf, sizeof buf, exact ? "%.17g" : "%.6g", v);
  return buf;
}

std::string Snapshot::text(bool instances, std::string_view indent) const {
  std::string out;
  for (auto &kv : values_) {
    if (!instances && kv.first.find('[') != std::string::npos)
      continue;
    out += indent;
    out += kv.first.str();
    out += " = " + formatValue(kv.second, false) + "\n";
  }
  return out;
}

namespace {
/// `v` as printf's "%.17g" writes it: integers below 10^15 by the integer conversion (the same
/// digits: fewer than 17 of them, so no exponent), the rest by to_chars with precision 17 (C++
/// defines it as printf's conversion in the "C" locale). A launch's statistics are thousands of
/// values, written once per launch into the JSON.
size_t formatG17(double v, char *buf, size_t size) {
  if (v == std::trunc(v) && std::fabs(v) < 1e15 && !(v == 0 && std::signbit(v)))
    return size_t(std::to_chars(buf, buf + size, int64_t(v)).ptr - buf);
  auto r = std::to_chars(buf, buf + size, v, std::chars_format::general, 17);
  return r.ec == std::errc() ? size_t(r.ptr - buf)
                             : size_t(std::snprintf(buf, size, "%.17g", v)); // (never: 64 bytes)
}

/// jsonQuote() without a temporary for the names that need no escape (all the catalog's).
void appendJsonName(std::string &out, const std::string &name) {
  for (char c : name)
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) {
      out += jsonQuote(name);
      return;
    }
  out += '"';
  out += name;
  out += '"';
}
} // namespace

std::string Snapshot::jsonMembers() const {
  std::string out;
  size_t need = 0;
  for (auto &kv : values_)
    need += kv.first.size() + 32;
  out.reserve(need);
  for (auto &kv : values_) {
    if (!out.empty())
      out += ", ";
    char buf[64];
    size_t n = formatG17(kv.second, buf, sizeof buf);
    appendJsonName(out, kv.first.str());
    out += ": ";
    out.append(buf, n);
  }
  return out;
}

} // namespace ptxsim::stats

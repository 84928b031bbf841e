#include "base/Stats.h"

#include "base/Config.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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

Catalog &Catalog::global() {
  static auto *c = new Catalog();
  return *c;
}

void Catalog::add(std::string_view name, Unit unit, std::string_view help) {
  std::string fam = familyOf(name);
  for (Desc &d : descs_)
    if (d.name == fam) {
      if (d.unit != unit) {
        std::fprintf(stderr, "ptxsim: internal error: statistic '%s' registered twice with "
                             "different units\n", fam.c_str());
        std::abort();
      }
      return;
    }
  descs_.push_back(Desc{fam, unit, std::string(help)});
}

const Desc *Catalog::find(std::string_view name) const {
  std::string fam = familyOf(name);
  for (const Desc &d : descs_)
    if (d.name == fam)
      return &d;
  return nullptr;
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

void Snapshot::set(std::string_view name, double value) {
  for (auto &kv : values_)
    if (kv.first == name) {
      kv.second = value;
      return;
    }
  if (!Catalog::global().find(name))
    unregistered(name, "setting");
  values_.emplace_back(std::string(name), value);
}

void Snapshot::add(std::string_view name, double value) {
  for (auto &kv : values_)
    if (kv.first == name) {
      kv.second += value;
      return;
    }
  set(name, value);
}

bool Snapshot::find(std::string_view name, double &value) const {
  for (auto &kv : values_)
    if (kv.first == name) {
      value = kv.second;
      return true;
    }
  return false;
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
    out += kv.first + " = " + formatValue(kv.second, false) + "\n";
  }
  return out;
}

std::string Snapshot::jsonMembers() const {
  std::string out;
  for (auto &kv : values_) {
    if (!out.empty())
      out += ", ";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", kv.second);
    out += jsonQuote(kv.first) + ": " + buf;
  }
  return out;
}

} // namespace ptxsim::stats

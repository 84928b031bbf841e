#include "base/ExtensionOptions.h"

#include "base/Config.h"

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <unordered_map>

namespace ptxsim {
namespace {
struct ExtOption {
  std::string name, help;
  bool isString = false;
  uint32_t slot = 0; ///< index in ExtensionValues::numbers or ::strings
  double def = 0, lo = 0, hi = 0;
  std::string strDef;
  std::vector<std::string> choices;
};

/// Every registered option (a deque: handles and bindings keep references), its name index
/// and the values of the configuration loaded last.
struct Registry {
  std::deque<ExtOption> options;
  std::vector<const ExtOption *> numbers, strings; ///< by slot
  std::unordered_map<std::string, const ExtOption *> byName;
  ExtensionValues current;
};
Registry &registry() {
  static auto *r = new Registry();
  return *r;
}

const ExtOption *lookup(std::string_view name) {
  auto &m = registry().byName;
  auto it = m.find(std::string(name));
  return it == m.end() ? nullptr : it->second;
}

[[noreturn]] void unknown(std::string_view name) {
  std::fprintf(stderr, "ptxsim: internal error: extension option '%.*s' is not registered\n",
               (int)name.size(), name.data());
  std::abort();
}

[[noreturn]] void invalidHandle() {
  std::fprintf(stderr, "ptxsim: internal error: an extension option handle that names no "
                       "option (default-constructed or found under an unknown name)\n");
  std::abort();
}

ExtOption &addOption(ExtOption o) {
  Registry &r = registry();
  std::vector<const ExtOption *> &slots = o.isString ? r.strings : r.numbers;
  o.slot = uint32_t(slots.size());
  r.options.push_back(std::move(o));
  ExtOption &added = r.options.back();
  slots.push_back(&added);
  r.byName.emplace(added.name, &added);
  // the current values start at the default
  if (added.isString)
    r.current.strings.push_back(added.strDef);
  else
    r.current.numbers.push_back(added.def);
  return added;
}

/// `v` extended with the defaults of options registered since it was filled.
void extend(ExtensionValues &v) {
  const Registry &r = registry();
  for (size_t i = v.numbers.size(); i < r.numbers.size(); ++i)
    v.numbers.push_back(r.numbers[i]->def);
  for (size_t i = v.strings.size(); i < r.strings.size(); ++i)
    v.strings.push_back(r.strings[i]->strDef);
}
} // namespace

/// Builds handles from slots (the handles' constructors stay private to users).
struct ExtensionOptionAccess {
  static NumberOption number(uint32_t slot) {
    NumberOption h;
    h.slot_ = slot;
    return h;
  }
  static StringOption string(uint32_t slot) {
    StringOption h;
    h.slot_ = slot;
    return h;
  }
};

double NumberOption::in(const ExtensionValues &v) const {
  if (slot_ < v.numbers.size())
    return v.numbers[slot_];
  if (slot_ == kNone)
    invalidHandle();
  return registry().numbers[slot_]->def;
}

double NumberOption::value() const { return in(registry().current); }

const std::string &NumberOption::name() const {
  if (slot_ == kNone)
    invalidHandle();
  return registry().numbers[slot_]->name;
}

const std::string &StringOption::in(const ExtensionValues &v) const {
  if (slot_ < v.strings.size())
    return v.strings[slot_];
  if (slot_ == kNone)
    invalidHandle();
  return registry().strings[slot_]->strDef;
}

const std::string &StringOption::value() const { return in(registry().current); }

const std::string &StringOption::name() const {
  if (slot_ == kNone)
    invalidHandle();
  return registry().strings[slot_]->name;
}

NumberOption registerOption(std::string_view name, double defaultValue, std::string_view help,
                            double lo, double hi) {
  if (const ExtOption *o = lookup(name)) {
    if (o->isString)
      unknown(name);
    return ExtensionOptionAccess::number(o->slot);
  }
  ExtOption o;
  o.name = std::string(name);
  o.help = std::string(help);
  o.def = defaultValue;
  o.lo = lo;
  o.hi = hi;
  return ExtensionOptionAccess::number(addOption(std::move(o)).slot);
}

StringOption registerStringOption(std::string_view name, std::string_view defaultValue,
                                  std::string_view help, std::vector<std::string> choices) {
  if (const ExtOption *o = lookup(name)) {
    if (!o->isString)
      unknown(name);
    return ExtensionOptionAccess::string(o->slot);
  }
  ExtOption o;
  o.name = std::string(name);
  o.help = std::string(help);
  o.isString = true;
  o.strDef = std::string(defaultValue);
  o.choices = std::move(choices);
  return ExtensionOptionAccess::string(addOption(std::move(o)).slot);
}

NumberOption findNumberOption(std::string_view name) {
  const ExtOption *o = lookup(name);
  return o && !o->isString ? ExtensionOptionAccess::number(o->slot) : NumberOption();
}

StringOption findStringOption(std::string_view name) {
  const ExtOption *o = lookup(name);
  return o && o->isString ? ExtensionOptionAccess::string(o->slot) : StringOption();
}

double option(std::string_view name) {
  NumberOption h = findNumberOption(name);
  if (!h.valid())
    unknown(name);
  return h.value();
}

const std::string &stringOption(std::string_view name) {
  StringOption h = findStringOption(name);
  if (!h.valid())
    unknown(name);
  return h.value();
}

ExtensionValues defaultExtensionValues() {
  ExtensionValues v;
  extend(v);
  return v;
}

void bindExtensionOptions(OptionSet &opts, ExtensionValues &values) {
  extend(values);
  for (const ExtOption &o : registry().options) {
    if (opts.find(o.name))
      continue;
    if (o.isString) {
      Option &op = opts.add(o.name, &values.strings[o.slot], o.help);
      if (!o.choices.empty())
        op.choices(o.choices);
    } else {
      opts.add(o.name, &values.numbers[o.slot], o.help).range(o.lo, o.hi);
    }
  }
}

void setCurrentExtensionValues(const ExtensionValues &values) {
  Registry &r = registry();
  r.current = values;
  extend(r.current);
}

void resetExtensionOptions() { registry().current = defaultExtensionValues(); }

} // namespace ptxsim

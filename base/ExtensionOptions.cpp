#include "base/ExtensionOptions.h"

#include "base/Config.h"

#include <cstdio>
#include <cstdlib>
#include <deque>

namespace ptxsim {
namespace {
struct ExtOption {
  std::string name, help;
  bool isString = false;
  double value = 0, def = 0, lo = 0, hi = 0;
  std::string str, strDef;
  std::vector<std::string> choices;
};
/// A deque: bound OptionSets keep pointers to the values.
std::deque<ExtOption> &table() {
  static auto *t = new std::deque<ExtOption>();
  return *t;
}
ExtOption *lookup(std::string_view name) {
  for (ExtOption &o : table())
    if (o.name == name)
      return &o;
  return nullptr;
}
[[noreturn]] void unknown(std::string_view name) {
  std::fprintf(stderr, "ptxsim: internal error: extension option '%.*s' is not registered\n",
               (int)name.size(), name.data());
  std::abort();
}
} // namespace

void registerOption(std::string_view name, double defaultValue, std::string_view help, double lo,
                    double hi) {
  if (lookup(name))
    return;
  ExtOption o;
  o.name = std::string(name);
  o.help = std::string(help);
  o.value = o.def = defaultValue;
  o.lo = lo;
  o.hi = hi;
  table().push_back(std::move(o));
}

void registerStringOption(std::string_view name, std::string_view defaultValue,
                          std::string_view help, std::vector<std::string> choices) {
  if (lookup(name))
    return;
  ExtOption o;
  o.name = std::string(name);
  o.help = std::string(help);
  o.isString = true;
  o.str = o.strDef = std::string(defaultValue);
  o.choices = std::move(choices);
  table().push_back(std::move(o));
}

double option(std::string_view name) {
  ExtOption *o = lookup(name);
  if (!o || o->isString)
    unknown(name);
  return o->value;
}

const std::string &stringOption(std::string_view name) {
  ExtOption *o = lookup(name);
  if (!o || !o->isString)
    unknown(name);
  return o->str;
}

void bindExtensionOptions(OptionSet &opts) {
  for (ExtOption &o : table()) {
    if (opts.find(o.name))
      continue;
    if (o.isString) {
      Option &op = opts.add(o.name, &o.str, o.help);
      if (!o.choices.empty())
        op.choices(o.choices);
    } else {
      opts.add(o.name, &o.value, o.help).range(o.lo, o.hi);
    }
  }
}

void resetExtensionOptions() {
  for (ExtOption &o : table()) {
    o.value = o.def;
    o.str = o.strDef;
  }
}

} // namespace ptxsim

#pragma once
// A small typed option system for configuration files and command lines in GPGPU-Sim's syntax.
//
// A component binds each field of its config struct to an option name with a help text:
//
//   OptionSet opts;
//   opts.add("-gpgpu_n_clusters", &cfg.numClusters, "number of SM clusters").min(1);
//   opts.addCustom("-gpgpu_clock_domains", "core:icnt:l2:dram", parseFn, printFn, "clocks (MHz)");
//   opts.addIgnored("-visualizer_enabled", "GPGPU-Sim's visualizer log");
//   opts.parseFile("gtx480.config", diags);           // later files and lines override earlier
//   opts.parseArgs({"-gpgpu_n_clusters", "30"}, diags); // same rules, "<command line>" locations
//
// Input syntax (GPGPU-Sim's): whitespace-separated `-name value` pairs, any number per line; `#`
// starts a comment to the end of the line; a value in double quotes may contain spaces and span
// lines (runs of whitespace inside it become one space, as in GPGPU-Sim). A token is an option name
// when it starts with `-` followed by a letter or `_` (so `-1` is a value). A bool option given
// without a value is set to true.
//
// Contract: every problem is a diagnostic with file:line:col: an unknown option (an error with a
// "did you mean" suggestion, a warning when `lenient`), a missing value, a value of the wrong type,
// a value out of range or not among the choices, a value without an option. Options added with
// addIgnored() are known: they take a value and produce one warning each ("accepted, no effect in
// ptxsim"). Bound fields are written only when their value parses; the field keeps its previous
// value otherwise. The bound fields must outlive the OptionSet.

#include "base/Diagnostics.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ptxsim {

enum class OptionKind : uint8_t { Bool, UInt32, UInt64, Double, String, Custom, Ignored };

/// One bound option. Returned by OptionSet::add() to attach constraints fluently.
class Option {
public:
  /// Parses `value` into the bound field; on failure returns false and sets `error` to the reason
  /// (lowercase, no option name: "expected a number").
  using ParseFn = std::function<bool(const std::string &value, std::string &error)>;
  /// The current value of the bound field, in a form parse accepts back.
  using PrintFn = std::function<std::string()>;

  /// Accepted numeric range, inclusive (UInt32, UInt64, Double).
  Option &range(double lo, double hi) {
    lo_ = lo;
    hi_ = hi;
    return *this;
  }
  Option &min(double lo) {
    lo_ = lo;
    return *this;
  }
  Option &max(double hi) {
    hi_ = hi;
    return *this;
  }
  /// The only accepted values (String).
  Option &choices(std::vector<std::string> values) {
    choices_ = std::move(values);
    return *this;
  }

  const std::string &name() const { return name_; }
  const std::string &help() const { return help_; }
  OptionKind kind() const { return kind_; }
  /// "bool", "uint32", "uint64", "double", "string", or the custom type's description.
  const std::string &typeName() const { return typeName_; }
  /// The value when the option was added (the component's default).
  const std::string &defaultValue() const { return default_; }
  const std::vector<std::string> &choiceList() const { return choices_; }
  std::optional<double> lowerBound() const { return lo_; }
  std::optional<double> upperBound() const { return hi_; }
  /// The current value as text (empty for ignored options).
  std::string value() const { return print_ ? print_() : std::string(); }
  /// The current value as a JSON value (number, bool or quoted string).
  std::string jsonValue() const;
  /// Times the option was given in the input (0: it still has its default).
  unsigned setCount() const { return setCount_; }
  /// `file:line` of the last assignment, empty when never set.
  const std::string &setAt() const { return setAt_; }

private:
  friend class OptionSet;
  std::string name_, help_, typeName_, default_;
  OptionKind kind_ = OptionKind::Ignored;
  ParseFn parse_;
  PrintFn print_;
  std::optional<double> lo_, hi_;
  std::vector<std::string> choices_;
  unsigned setCount_ = 0;
  std::string setAt_;
};

class OptionSet {
public:
  OptionSet() = default;
  OptionSet(const OptionSet &) = delete;
  OptionSet &operator=(const OptionSet &) = delete;

  Option &add(const std::string &name, bool *field, const std::string &help);
  Option &add(const std::string &name, uint32_t *field, const std::string &help);
  Option &add(const std::string &name, uint64_t *field, const std::string &help);
  Option &add(const std::string &name, double *field, const std::string &help);
  Option &add(const std::string &name, std::string *field, const std::string &help);
  /// A composite value (`1536:32`, a cache spec): `parse` validates and stores it, `print` gives
  /// it back. `typeName` describes the format for the reference (`max_threads:warp_size`).
  Option &addCustom(const std::string &name, const std::string &typeName, Option::ParseFn parse,
                    Option::PrintFn print, const std::string &help);
  /// A known option that has no effect: it takes a value and warns when given.
  Option &addIgnored(const std::string &name, const std::string &help);
  /// `alias` is another spelling of `target` (which must exist), e.g. GPGPU-Sim's renamed options.
  void addAlias(const std::string &alias, const std::string &target);

  /// Reads an option file. Returns false when it could not be read or had errors.
  bool parseFile(const std::string &path, DiagEngine &diags, bool lenient = false);
  /// Parses option text; `fileName` is the name diagnostics carry.
  bool parseText(std::string_view text, const std::string &fileName, DiagEngine &diags,
                 bool lenient = false);
  /// Parses a command-line style list (`{"-gpgpu_n_clusters", "30", ...}`, already split into
  /// words; no comments or quotes). Locations are line 1 and the column of the word in the list
  /// joined by single spaces, under the name `source`.
  bool parseArgs(const std::vector<std::string> &args, DiagEngine &diags, bool lenient = false,
                 const std::string &source = "<command line>");

  /// The option named `name` (or an alias of it), null when unknown.
  const Option *find(const std::string &name) const;
  Option *find(const std::string &name) {
    return const_cast<Option *>(static_cast<const OptionSet *>(this)->find(name));
  }
  bool wasSet(const std::string &name) const {
    const Option *o = find(name);
    return o && o->setCount() != 0;
  }
  /// The known name closest to `name` by edit distance, empty when none is close.
  std::string suggest(const std::string &name) const;
  /// Options in the order they were added.
  std::vector<const Option *> options() const;
  /// alias -> target
  const std::map<std::string, std::string> &aliases() const { return aliases_; }

  /// Effective values as one JSON object `{"-name": value, ...}` (ignored options left out).
  std::string json(int indent = 2) const;
  /// Effective values as an option file that parses back to the same values, each with its help.
  std::string text() const;
  /// The option reference as markdown: a table of every option (name, type, default, meaning),
  /// then the aliases and the accepted-but-ignored options.
  std::string markdown() const;

private:
  struct Token {
    std::string text;
    SourceLoc loc;
    bool quoted = false;
  };
  Option &insert(std::unique_ptr<Option> opt);
  bool parseTokens(const std::vector<Token> &tokens, const std::string &file, DiagEngine &diags,
                   bool lenient);
  bool assign(Option &opt, const Token &value, const std::string &file, DiagEngine &diags);

  std::vector<std::unique_ptr<Option>> opts_;
  std::map<std::string, Option *> byName_;
  std::map<std::string, std::string> aliases_;
  std::set<std::string> warnedIgnored_;
};

/// `s` as a JSON string literal, quotes included.
std::string jsonQuote(std::string_view s);
/// Levenshtein distance.
size_t editDistance(std::string_view a, std::string_view b);
/// Formats a double the way option files and JSON show it: shortest form that parses back
/// exactly, always with a digit after the point when integral (`700.0`).
std::string formatDouble(double v);

} // namespace ptxsim

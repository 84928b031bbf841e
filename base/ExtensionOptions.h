#pragma once
// Extension point: configuration options of ISA extensions and studies.
//
// Contract: an extension registers its options once at start-up (a GPGPU-Sim-style name such
// as `-spu_rows`, a default, a help text and a range, or a string with its choices) and keeps
// the typed handle registerOption() returns. The timing configuration's loader binds them
// beside the built-in options into the configuration's own part for them
// (TimingConfig::ext, an ExtensionValues), so they are accepted in configuration files and on
// the command line with the same diagnostics (unknown name, wrong type, out of range:
// file:line), listed in the option reference and dumped with the effective configuration.
// Reading goes through the handle, never by name on a hot path:
//   - `handle.in(cfg.ext)`: the value in one configuration (timing components, power, pipes);
//   - `handle.value()`: the value in the configuration loaded last (functional-mode code, which
//     sees no TimingConfig; one array read);
// both give the default until a configuration sets the option. findNumberOption() /
// findStringOption() resolve a name to a handle once (a consumer that knows options by name).
// The name-based option()/stringOption() remain for code not yet holding handles (a map
// lookup each call: keep them off hot paths). Reading an unregistered name is a simulator bug
// (aborts).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptxsim {

class OptionSet;

/// The values of every registered extension option in one configuration, by handle slot.
/// Entries past the end (a configuration built before an option was registered) read as the
/// option's default.
struct ExtensionValues {
  std::vector<double> numbers;
  std::vector<std::string> strings;
};

/// Handle on a numeric extension option (registerOption).
class NumberOption {
public:
  NumberOption() = default;
  bool valid() const { return slot_ != kNone; }
  /// The value in configuration `v`.
  double in(const ExtensionValues &v) const;
  /// The value in the configuration loaded last (the default before any).
  double value() const;
  const std::string &name() const;

private:
  friend struct ExtensionOptionAccess;
  static constexpr uint32_t kNone = ~0u;
  uint32_t slot_ = kNone;
};

/// Handle on a string extension option (registerStringOption).
class StringOption {
public:
  StringOption() = default;
  bool valid() const { return slot_ != kNone; }
  const std::string &in(const ExtensionValues &v) const;
  const std::string &value() const;
  const std::string &name() const;

private:
  friend struct ExtensionOptionAccess;
  static constexpr uint32_t kNone = ~0u;
  uint32_t slot_ = kNone;
};

/// Registers a numeric option (registering a name again returns its handle).
NumberOption registerOption(std::string_view name, double defaultValue, std::string_view help,
                            double lo, double hi);
/// Registers a string option; `choices`, when given, are its only accepted values.
StringOption registerStringOption(std::string_view name, std::string_view defaultValue,
                                  std::string_view help, std::vector<std::string> choices = {});
/// The handle of a registered option, or an invalid one.
NumberOption findNumberOption(std::string_view name);
StringOption findStringOption(std::string_view name);

/// By name (a map lookup): the value in the configuration loaded last.
double option(std::string_view name);
const std::string &stringOption(std::string_view name);

/// Every registered option at its default.
ExtensionValues defaultExtensionValues();
/// Binds every registered option into `opts`, storing into `values` (extended with defaults for
/// options registered since it was filled; it must not be resized while `opts` is used).
void bindExtensionOptions(OptionSet &opts, ExtensionValues &values);
/// Makes `values` those value() and option() read (the loader, after a configuration loaded).
void setCurrentExtensionValues(const ExtensionValues &values);
/// Every option's current value back to its default.
void resetExtensionOptions();

} // namespace ptxsim

#pragma once
// Extension point: configuration options of ISA extensions and studies.
//
// Contract: an extension registers its options at start-up (a GPGPU-Sim-style name such as
// `-spu_rows`, a default, a help text and a range, or a string with its choices). The timing
// configuration's loader binds them beside the built-in options, so they are accepted in
// configuration files and on the command line with the same diagnostics (unknown name, wrong
// type, out of range: file:line), listed in the option reference and dumped with the effective
// configuration. Values are process-wide (one simulated machine per process) and read with
// option()/stringOption() anywhere, in functional and timing mode; they hold their defaults
// until a configuration sets them. Reading an unregistered name is a simulator bug (aborts).

#include <string>
#include <string_view>
#include <vector>

namespace ptxsim {

class OptionSet;

void registerOption(std::string_view name, double defaultValue, std::string_view help, double lo,
                    double hi);
void registerStringOption(std::string_view name, std::string_view defaultValue,
                          std::string_view help, std::vector<std::string> choices = {});
double option(std::string_view name);
const std::string &stringOption(std::string_view name);
/// Binds every registered option into `opts`.
void bindExtensionOptions(OptionSet &opts);
/// Every option back to its default (the loader calls it before reading a configuration).
void resetExtensionOptions();

} // namespace ptxsim

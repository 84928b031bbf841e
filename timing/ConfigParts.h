#pragma once
// The parts of the timing configuration: each component describes its own options and checks
// them, in a file beside the component (timing/sm/CoreOptions.cpp, timing/mem/MemoryOptions.cpp,
// ...); timing/ConfigParts.def lists the parts; timing/ConfigLoad.cpp drives them.
//
// Contract: a part's describe() binds options to fields of OptionContext::cfg (name, type,
// default = the field's value, range, help: base/Config.h); the parts run in the order of
// ConfigParts.def, which is the order of the option reference (docs/config.md), the dumps
// (`ptxsim run --print-config`) and configuration files written from them, so a part's place
// there is fixed once it exists (the dumps are compared byte for byte: tests/golden/config).
// check() reports inconsistent values through `fail`, naming the option (it runs on configs built
// in code too, so it repeats what the option ranges enforce). finish() folds values GPGPU-Sim
// spreads over several options (ConfigFolds) into the fields, once, after all input is read.
// Adding a component's options: one file defining `extern const ConfigPart kMine = {...}` and
// one line `PTXSIM_CONFIG_PART(kMine)` in ConfigParts.def.

#include "base/Config.h"
#include "timing/TimingConfig.h"

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ptxsim::timing {

/// Values GPGPU-Sim spreads over options that the parts fold into TimingConfig fields at the end.
struct ConfigFolds {
  uint32_t subPartitions = 1;   ///< -gpgpu_n_sub_partition_per_mchannel (memory)
  uint32_t chipsPerChannel = 1; ///< -gpgpu_n_mem_per_ctrlr (DRAM)
  std::optional<uint32_t> wl, cdlr; ///< -gpgpu_dram_timing_opt's WL and CDLR (DRAM)
  bool rtwGiven = false, wtrGiven = false, burstGiven = false;
};

/// What a part's describe() and finish() work on: the options being built, the configuration
/// they are bound to, and the values folded in at the end.
struct OptionContext {
  OptionSet &opts;
  TimingConfig &cfg;
  ConfigFolds &folds;
};

/// Reports one inconsistent option: its name and why.
using ConfigFail = std::function<void(const std::string &opt, const std::string &msg)>;

struct ConfigPart {
  void (*describe)(OptionContext &ctx);
  void (*check)(const TimingConfig &cfg, const ConfigFail &fail); ///< may be null
  void (*finish)(OptionContext &ctx);                             ///< may be null
};

#define PTXSIM_CONFIG_PART(part) extern const ConfigPart part;
#include "timing/ConfigParts.def"
#undef PTXSIM_CONFIG_PART

namespace config {
// Parsing helpers the parts share (ConfigParts.cpp).
bool isPow2(uint64_t v);
std::vector<std::string> split(const std::string &s, const std::string &seps);
std::string trim(const std::string &s);
/// A decimal number that fits 32 bits (surrounding blanks allowed).
bool toU32(const std::string &s, uint32_t &out);
bool toDouble(const std::string &s, double &out);
/// Each named count, size, latency or interval must be at least 1.
void checkAtLeastOne(std::initializer_list<std::pair<const char *, uint32_t>> values,
                     const ConfigFail &fail);
} // namespace config

} // namespace ptxsim::timing

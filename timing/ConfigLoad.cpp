// Loading, checking and dumping a timing configuration: every part of it (timing/ConfigParts.h,
// listed in ConfigParts.def) describes its options into one OptionSet bound to a TimingConfig,
// then the extensions' options (base/ExtensionOptions.h); files and command-line options are
// parsed over the defaults; each part folds and checks its values.
//
// Every field of TimingConfig is bound to one option (GPGPU-Sim's name where GPGPU-Sim has the
// concept, `-ptxsim_...` otherwise) by the part of the configuration that owns it, in a file
// beside its component.
// docs/config.md is generated from the bindings (ConfigDoc test); the dumps of every preset are
// compared byte for byte (config_print_* tests). A few GPGPU-Sim options describe a field
// differently from ptxsim; their values are folded in after all input is read (ConfigPart::finish):
//  - `-gpgpu_cache:dl2` is per memory sub-partition: the L2 slice of a partition has
//    `-gpgpu_n_sub_partition_per_mchannel` times its sets and MSHR entries (two caches told apart
//    by one address bit behave as one with twice the sets);
//  - `-gpgpu_dram_buswidth` is per DRAM chip: a partition's bus is `-gpgpu_n_mem_per_ctrlr` chips
//    wide;
//  - GPGPU-Sim derives tRTW, tWTR and the burst time from CL, WL, CDLR, the burst length and the
//    data/command clock ratio; so does ptxsim unless RTW, WTR or BURST are given.
#include "base/Config.h"
#include "base/ExtensionOptions.h"
#include "timing/ConfigParts.h"
#include "timing/TimingConfig.h"

namespace ptxsim::timing {

namespace {

/// The largest latency, interval or cycle count an option accepts when it names no other bound.
constexpr double kMaxCycleOption = 1e6;

/// Every part of the configuration, in the order of ConfigParts.def.
const ConfigPart *const kParts[] = {
#define PTXSIM_CONFIG_PART(part) &part,
#include "timing/ConfigParts.def"
#undef PTXSIM_CONFIG_PART
};

/// The options of one TimingConfig, bound to `cfg`.
class TimingOptions {
public:
  explicit TimingOptions(TimingConfig &cfg);
  /// Folds the GPGPU-Sim-shaped values into the fields (call once, after all input).
  void finish();

  OptionSet opts;

private:
  void limitCycleOptions();

  TimingConfig &cfg_;
  ConfigFolds folds_;
  OptionContext ctx_{opts, cfg_, folds_};
};

TimingOptions::TimingOptions(TimingConfig &cfg) : cfg_(cfg) {
  for (const ConfigPart *p : kParts)
    p->describe(ctx_);
  limitCycleOptions();
  // options of registered extensions and studies (base/ExtensionOptions.h), stored in cfg.ext
  bindExtensionOptions(opts, cfg_.ext);
}

void TimingOptions::finish() {
  for (const ConfigPart *p : kParts)
    if (p->finish)
      p->finish(ctx_);
}

/// Caps options counted in cycles that have no range of their own.
void TimingOptions::limitCycleOptions() {
  // A latency, interval or cycle count past a million cycles is a value in the wrong unit (ps,
  // ns, Hz), and a run with it would take hours: an error naming the option, file and line.
  for (const Option *o : opts.options()) {
    const std::string &n = o->name();
    bool numeric = o->kind() == OptionKind::UInt32 || o->kind() == OptionKind::UInt64 ||
                   o->kind() == OptionKind::Double;
    if (numeric && !o->upperBound() &&
        (n.find("latency") != std::string::npos || n.find("interval") != std::string::npos ||
         n.find("cycles") != std::string::npos))
      opts.find(n)->max(kMaxCycleOption);
  }
}

bool loadInto(const std::vector<std::string> &files, const std::vector<std::string> &args,
              bool lenient, TimingConfig &out, DiagEngine &diags) {
  TimingConfig cfg = out;
  resetExtensionOptions();
  cfg.ext = defaultExtensionValues(); // each load starts extension options at their defaults
  bool ok = true;
  {
    TimingOptions t(cfg);
    for (const std::string &f : files) {
      ok &= t.opts.parseFile(f, diags, lenient);
      cfg.sources.push_back(f);
    }
    if (!args.empty())
      ok &= t.opts.parseArgs(args, diags, lenient);
    t.finish();
  }
  if (!ok)
    return false;
  out = std::move(cfg);
  setCurrentExtensionValues(out.ext); // what functional-mode code reads (handle.value())
  return true;
}

} // namespace

// Declared in TimingConfig.h.
bool loadTimingConfig(const std::vector<std::string> &files, bool lenient, TimingConfig &out,
                      DiagEngine &diags) {
  return loadInto(files, {}, lenient, out, diags);
}

// Not yet declared in TimingConfig.h (owned by another component); used by the tests and meant
// for the launcher: files, then command-line options (`{"-gpgpu_n_clusters", "30"}`) over them.
bool loadTimingConfig(const std::vector<std::string> &files, const std::vector<std::string> &args,
                      bool lenient, TimingConfig &out, DiagEngine &diags) {
  return loadInto(files, args, lenient, out, diags);
}

/// The effective configuration as an option file that loads back to the same values.
std::string timingConfigText(const TimingConfig &cfg) {
  TimingConfig copy = cfg;
  TimingOptions t(copy);
  return "# ptxsim effective configuration: " + cfg.name + "\n" + t.opts.text();
}

/// The option reference (docs/config.md's table), generated from the bindings above.
std::string timingConfigMarkdown() {
  TimingConfig cfg;
  TimingOptions t(cfg);
  return t.opts.markdown();
}

bool validateTimingConfig(const TimingConfig &cfg, DiagEngine &diags) {
  const std::string file = "<config>";
  size_t before = diags.errorCount();
  ConfigFail fail = [&](const std::string &opt, const std::string &msg) {
    diags.error(file, {}, "'" + opt + "': " + msg);
  };
  for (const ConfigPart *p : kParts)
    if (p->check)
      p->check(cfg, fail);
  return diags.errorCount() == before;
}

} // namespace ptxsim::timing

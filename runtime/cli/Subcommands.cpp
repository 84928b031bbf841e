#include "runtime/cli/Subcommands.h"

#include "base/Stats.h"
#include "runtime/cli/PtxCommands.h"
#include "runtime/cli/RunCommand.h"
#include "runtime/report/Report.h"
#include "sim/FunctionalStats.h"
#include "timing/gpu/Gpu.h"
#ifdef PTXSIM_HAVE_SWEEP
#include "runtime/sweep/Sweep.h"
#endif

#include <iomanip>
#include <ostream>

namespace ptxsim::cli {

void SubcommandRegistry::add(const std::string &name, Subcommand command) {
  commands_.push_back(std::move(command));
  byName_.add(name, &commands_.back());
}

const Subcommand *SubcommandRegistry::find(const std::vector<std::string> &words,
                                           size_t &nameWords) const {
  if (words.size() >= 2)
    if (const Subcommand *c = byName_.find(words[0] + " " + words[1])) {
      nameWords = 2;
      return c;
    }
  nameWords = 1;
  return words.empty() ? nullptr : byName_.find(words[0]);
}

void SubcommandRegistry::printUsage(std::ostream &os) const {
  constexpr int kSynopsisWidth = 45;
  os << "usage: ptxsim <command> [args]\ncommands:\n";
  auto line = [&](const std::string &synopsis, const std::string &help) {
    os << "  " << std::left << std::setw(kSynopsisWidth) << synopsis;
    if (synopsis.size() >= size_t(kSynopsisWidth))
      os << ' ';
    for (char c : help)
      os << c << (c == '\n' ? std::string(kSynopsisWidth + 2, ' ') : "");
    os << '\n';
  };
  for (const std::string &name : byName_.names())
    if (const Subcommand *c = byName_.find(name))
      line(c->synopsis, c->help);
  line("help", "this text");
}

namespace {

int run(const std::vector<std::string> &args, std::ostream &, std::ostream &err) {
  return runCommand(args, err);
}

int stats(const std::vector<std::string> &args, std::ostream &out, std::ostream &err) {
  if (!args.empty()) {
    err << "ptxsim stats: takes no arguments, got '" << args[0] << "'\n";
    return 2;
  }
  timing::registerTimingStatistics();
  sim::registerFunctionalStatistics();
  out << stats::Catalog::global().markdown();
  return 0;
}

int sweep(const std::vector<std::string> &args, std::ostream &out, std::ostream &err) {
#ifdef PTXSIM_HAVE_SWEEP
  return sweep::sweepCommand(args, out, err);
#else
  (void)args, (void)out;
  err << "ptxsim sweep: this ptxsim was built without toml++, which reads sweep specs: "
         "install libtomlplusplus-dev (scripts/setup.sh does) and reconfigure\n";
  return 2;
#endif
}

} // namespace

void registerBuiltinSubcommands(SubcommandRegistry &r) {
  r.add("ptx check",
        {"ptx check [--summary] [--json] FILE.ptx...", "parse and check PTX files", ptxCheck});
  r.add("ptx extract",
        {"ptx extract BINARY [-o DIR]", "write the PTX embedded in an nvcc binary", ptxExtract});
  r.add("ptx resources", {"ptx resources BINARY|FILE.ptx...",
                          "registers, shared and local use per kernel", ptxResources});
  r.add("run", {"run [options] -- PROGRAM [ARGS]", "run a CUDA program under the simulator", run});
  r.add("report", {"report STATS.json... [-o FILE]",
                   "one self-contained HTML page of a run (or a\ncomparison of runs)",
                   report::reportCommand});
  r.add("sweep", {"sweep SPEC.toml [options]",
                  "a grid of simulations (programs x\nconfigurations), locally or on Slurm,\n"
                  "merged into one table and report",
                  sweep});
  r.add(
      "stats",
      {"stats", "every statistic the simulator reports\n(name, unit, meaning) as markdown", stats});
}

} // namespace ptxsim::cli

// The `ptxsim` command-line tool.

#include "isa_ext/chiplet/tools/launcher/Launcher.h"
#include "runtime/cli/PtxCommands.h"
#include "isa_ext/Extensions.h"
#include "base/Stats.h"
#include "timing/gpu/Gpu.h"
#include "runtime/cli/RunCommand.h"
#include "runtime/report/Report.h"
#ifdef PTXSIM_HAVE_SWEEP
#include "runtime/sweep/Sweep.h"
#endif

#include <iostream>
#include <string>
#include <vector>

namespace {

void usage(std::ostream &os) {
  os << "usage: ptxsim <command> [args]\n"
        "commands:\n"
        "  ptx check [--summary] [--json] FILE.ptx...   parse and check PTX files\n"
        "  ptx extract BINARY [-o DIR]                  write the PTX embedded in an nvcc binary\n"
        "  ptx resources BINARY|FILE.ptx...             registers, shared and local use per kernel\n"
        "  run [options] -- PROGRAM [ARGS]               run a CUDA program under the simulator\n"
        "  chiplets --grid WxH [options] -- PROGRAM      one simulator process per chiplet\n"
        "  report STATS.json... [-o FILE]               one self-contained HTML page of a run (or a\n"
        "                                               comparison of runs)\n"
        "  sweep SPEC.toml [options]                    a grid of simulations (programs x\n"
        "                                               configurations), locally or on Slurm,\n"
        "                                               merged into one table and report\n"
        "  stats                                        every statistic the simulator reports\n"
        "                                               (name, unit, meaning) as markdown\n"
        "  help                                         this text\n";
}

} // namespace

int main(int argc, char **argv) {
  ptxsim::ext::registerExtensions(); // extension opcodes are known to `ptx check` too
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
    usage(args.empty() ? std::cerr : std::cout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "run")
    return ptxsim::cli::runCommand({args.begin() + 1, args.end()}, std::cerr);
  if (args[0] == "chiplets")
    return ptxsim::chiplet::chipletsCommand({args.begin() + 1, args.end()}, std::cout, std::cerr);
  if (args[0] == "report")
    return ptxsim::report::reportCommand({args.begin() + 1, args.end()}, std::cout, std::cerr);
  if (args[0] == "sweep") {
#ifdef PTXSIM_HAVE_SWEEP
    return ptxsim::sweep::sweepCommand({args.begin() + 1, args.end()}, std::cout, std::cerr);
#else
    std::cerr << "ptxsim sweep: this ptxsim was built without toml++, which reads sweep specs: "
                 "install libtomlplusplus-dev (scripts/setup.sh does) and reconfigure\n";
    return 2;
#endif
  }
  if (args[0] == "stats" && args.size() == 1) {
    ptxsim::timing::registerTimingStatistics();
    std::cout << ptxsim::stats::Catalog::global().markdown();
    return 0;
  }
  if (args[0] == "ptx" && args.size() >= 2 && args[1] == "check")
    return ptxsim::cli::ptxCheck({args.begin() + 2, args.end()}, std::cout, std::cerr);
  if (args[0] == "ptx" && args.size() >= 2 && args[1] == "extract")
    return ptxsim::cli::ptxExtract({args.begin() + 2, args.end()}, std::cout, std::cerr);
  if (args[0] == "ptx" && args.size() >= 2 && args[1] == "resources")
    return ptxsim::cli::ptxResources({args.begin() + 2, args.end()}, std::cout, std::cerr);
  std::cerr << "ptxsim: unknown command '" << args[0] << (args.size() > 1 ? " " + args[1] : "")
            << "'\n";
  usage(std::cerr);
  return 2;
}

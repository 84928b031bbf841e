// The `ptxsim` command-line tool: the subcommands' registry (Subcommands.h), filled by the
// built-in commands and the extensions' tools, and the dispatch to one of them.

#include "isa_ext/ExtensionCommands.h"
#include "isa_ext/Extensions.h"
#include "runtime/cli/Subcommands.h"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  ptxsim::ext::registerExtensions(); // extension opcodes are known to `ptx check` too
  ptxsim::cli::SubcommandRegistry commands;
  ptxsim::cli::registerBuiltinSubcommands(commands);
  ptxsim::ext::registerExtensionCommands(commands);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
    commands.printUsage(args.empty() ? std::cerr : std::cout);
    return args.empty() ? 2 : 0;
  }
  size_t nameWords = 0;
  if (const ptxsim::cli::Subcommand *c = commands.find(args, nameWords))
    return c->run({args.begin() + long(nameWords), args.end()}, std::cout, std::cerr);
  std::cerr << "ptxsim: unknown command '" << args[0] << (args.size() > 1 ? " " + args[1] : "")
            << "'\n";
  commands.printUsage(std::cerr);
  return 2;
}

#pragma once
// The `ptxsim` subcommands that extensions bring (their tools, such as a launcher), registered
// like the built-in ones (runtime/cli/Subcommands.h), so the command line names no extension.
//
// Contract: registerExtensionCommands() adds each extension's commands to `r`; the `ptxsim`
// command calls it once at start-up, after the built-in commands. It is defined in
// isa_ext/tools/Commands.cpp, in the library ptxsim_isa_ext_commands, which only the `ptxsim`
// command links (libcudart carries no tool). An extension with a command adds one line there
// and links its tool's library into ptxsim_isa_ext_commands from its own CMakeLists.txt.

namespace ptxsim::cli {
class SubcommandRegistry;
}

namespace ptxsim::ext {

void registerExtensionCommands(cli::SubcommandRegistry &r);

} // namespace ptxsim::ext

// `ptxsim chiplets` in the command line's registry (isa_ext/ExtensionCommands.h).

#include "isa_ext/chiplet/tools/launcher/Launcher.h"
#include "runtime/cli/Subcommands.h"

namespace ptxsim::ext::chiplet {

void registerChipletsCommand(cli::SubcommandRegistry &r) {
  r.add("chiplets", {"chiplets --grid WxH [options] -- PROGRAM",
                     "one simulator process per chiplet", ptxsim::chiplet::chipletsCommand});
}

} // namespace ptxsim::ext::chiplet

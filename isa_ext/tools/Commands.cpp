#include "isa_ext/ExtensionCommands.h"

namespace ptxsim::ext {

// Each extension's command registration, defined with its tool.
namespace chiplet {
void registerChipletsCommand(cli::SubcommandRegistry &r);
}

void registerExtensionCommands(cli::SubcommandRegistry &r) {
  chiplet::registerChipletsCommand(r); // isa_ext/chiplet/tools/launcher: `ptxsim chiplets`
}

} // namespace ptxsim::ext

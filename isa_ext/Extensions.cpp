#include "isa_ext/Extensions.h"

#include <mutex>

namespace ptxsim::ext {

// Each extension's registration function, defined in its folder.
namespace example {
void registerExample();
}

void registerExtensions() {
  static std::once_flag once;
  std::call_once(once, [] {
    example::registerExample(); // isa_ext/example: the template to copy
  });
}

} // namespace ptxsim::ext

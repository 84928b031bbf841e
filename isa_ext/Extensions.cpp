#include "isa_ext/Extensions.h"

#include <mutex>

namespace ptxsim::spu {
void registerSpuExtension();
}

namespace ptxsim::ext {

// Each extension's registration function, defined in its folder.
namespace example {
void registerExample();
}
namespace chiplet {
void registerChiplet();
}

void registerExtensions() {
  static std::once_flag once;
  std::call_once(once, [] {
    example::registerExample(); // isa_ext/example: the template to copy
    spu::registerSpuExtension(); // isa_ext/spu: the Stencil Processing Unit (docs/spu.md)
    chiplet::registerChiplet(); // isa_ext/chiplet: multi-chiplet message passing
  });
}

} // namespace ptxsim::ext

#include "isa_ext/Extensions.h"

#include <mutex>

// Each extension's registration function, defined in its folder (Extensions.def lists them).
#define PTXSIM_EXTENSION(ns, fn)                                                                   \
  namespace ns {                                                                                   \
  void fn();                                                                                       \
  }
#include "isa_ext/Extensions.def"
#undef PTXSIM_EXTENSION

namespace ptxsim::ext {

void registerExtensions() {
  static std::once_flag once;
  std::call_once(once, [] {
#define PTXSIM_EXTENSION(ns, fn) ::ns::fn();
#include "isa_ext/Extensions.def"
#undef PTXSIM_EXTENSION
  });
}

} // namespace ptxsim::ext

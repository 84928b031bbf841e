#include "timing/mem/replacement/IReplacementPolicy.h"

namespace ptxsim::timing {

ReplacementRegistry &replacementRegistry() {
  static ReplacementRegistry *r = [] {
    auto *reg = new ReplacementRegistry();
    reg->add("L", createLruPolicy);
    reg->add("F", createFifoPolicy);
    return reg;
  }();
  return *r;
}

} // namespace ptxsim::timing

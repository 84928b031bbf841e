#pragma once
// Execution pipelines of the SM: the registry that says which pipe each instruction class
// issues to, and how many units, what latency and what issue interval each pipe has.
//
// Contract: a pipe is a name, the instruction classes that issue to it and a spec read from the
// configuration when each SM is built. A pipe whose spec has no units (`units == 0`) and that
// names a `fallback` sends its classes to that pipe instead and counts nothing (Fermi runs FP64
// on the SFUs; a GPU without tensor cores runs mma on the SP lanes); without a fallback it gets
// one unit. Classes no pipe claims issue to `misc`. The pipe of OpClass::Mem also needs an issue
// slot of the LD/ST unit. Built-ins (registerBuiltinPipes) and extensions
// (timing::registerPipe, timing/ext/Extension.h) register the same way, at start-up only;
// pipes keep their registration order, which is the order of SmStats::fuIssued and of the
// `sm.issued.<name>` statistics each registration declares.

#include "base/Stats.h"
#include "ptx/ir/Ir.h"
#include "timing/TimingConfig.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptxsim::timing {

/// Pipes an SM can have (built-ins and extensions together).
constexpr size_t kMaxPipes = 32;

struct PipeSpec {
  uint32_t units = 1, latency = 1, interval = 1;
};
using PipeSpecFn = PipeSpec (*)(const TimingConfig &cfg);

struct PipeDesc {
  std::string name;
  std::vector<ptx::ir::OpClass> classes;
  PipeSpecFn spec = nullptr;
  std::string fallback; ///< takes the classes when spec().units == 0 ("": none)
  stats::Counter issued; ///< `sm.issued.<name>`: warp instructions issued to the pipe
};

class PipeRegistry {
public:
  /// Adds pipe `name` for `classes` (a name registered before gets the classes and the new spec
  /// and fallback); a class another pipe claimed moves here. Declares `sm.issued.<name>`.
  /// Fails (message on stderr, exit) beyond kMaxPipes: a start-up mistake, not a user's.
  void add(std::string_view name, std::vector<ptx::ir::OpClass> classes, PipeSpecFn spec,
           std::string_view fallback = {});
  const std::vector<PipeDesc> &pipes() const { return pipes_; }
  /// Index of pipe `name`, or -1.
  int find(std::string_view name) const;

private:
  std::vector<PipeDesc> pipes_;
};

/// sp, dp, sfu, tensor, ldst, branch, sync, misc (one line each, Pipes.cpp).
void registerBuiltinPipes(PipeRegistry &r);
/// The process-wide registry: the built-ins, then what extensions add at start-up.
PipeRegistry &pipeRegistry();

} // namespace ptxsim::timing

// The example extension: the smallest complete ISA extension, meant to be copied.
//
// It adds one PTX instruction, `exhash.b32 d, a;`, which mixes a 32-bit value in one step (the
// murmur3 finalizer: what hash tables and random-number code spend several instructions on), and
// everything a study of such a unit needs:
// - front end: the opcode and its operands (ptx::registerOpcode), checked like any built-in;
// - functional: its lowering and its per-warp handler (exec::registerLowering);
// - a counter of hashed values (exec::registerExecCounter: `example.hash_ops`, thread ops);
// - timing: its own instruction class and a pipeline of its own (`-example_hash_units`,
//   `-example_hash_latency` options), whose issues appear as `sm.issued.exhash`;
// - power: a component whose energy per hash scales with the technology node (`example_hash`).
// Nothing in ptx/, timing/ or power/ names it; its line in isa_ext/Extensions.def calls
// registerExample(). ExampleScheduler.cpp beside it is the template of a warp scheduler.

#include "base/Config.h"
#include "base/ExtensionOptions.h"
#include "ptx/exec/Counters.h"
#include "ptx/exec/Exec.h"
#include "ptx/exec/Lower.h"
#include "ptx/exec/Program.h"
#include "ptx/sema/OpcodeTable.h"
#include "power/IPowerComponent.h"
#include "timing/TimingConfig.h"
#include "timing/ext/Extension.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace ptxsim::ext::example {
namespace {

using namespace ptxsim::ptx;

uint16_t gHashOps = 0;            ///< counter id
ir::OpClass gHashClass = ir::OpClass::Alu;
NumberOption gUnits, gLatency;    ///< -example_hash_units, -example_hash_latency (handles)

/// The mixing function (exposed to the test through the instruction only).
inline uint32_t mix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

void execHash(exec::ExecCtx &ctx, exec::Warp &w, const ir::Inst &in, uint32_t mask) {
  if (gUnits.value() < 1) {
    // a GPU without the unit: the instruction is an error, never a silent no-op
    ctx.fault(exec::FaultKind::Invalid, w, in, (unsigned)__builtin_ctz(mask),
              "exhash needs the example hash unit (set -example_hash_units to 1 or more)");
    return;
  }
  const uint64_t *a = w.src(in.src[0]);
  uint64_t *d = w.reg(in.dst[0]);
  exec::forLanes(mask, [&](unsigned l) { d[l] = mix(uint32_t(a[l])); });
  ctx.count(gHashOps, (uint64_t)__builtin_popcount(mask));
}

bool lowerHash(exec::LowerCtx &c) {
  ir::Opnd a = c.src(c.op(1), ScalarType::b32);
  uint32_t d = c.dst(c.op(0));
  ir::Inst &in = c.emit(execHash, gHashClass);
  in.dst[0] = d;
  in.src[0] = a;
  return true;
}

/// A hash unit: a handful of multiplier-sized gates per lane operation.
class HashUnitPower : public power::IPowerComponent {
public:
  HashUnitPower(const timing::TimingConfig &cfg, const power::Technology &t)
      : opJ_(t.logicJ(kGatesPerOp)),
        leakW_(t.leakageW(t.logicAreaMm2(kGatesPerOp) * cfg.numSms() * 32 *
                          gUnits.in(cfg.ext))) {}
  std::string name() const override { return "example_hash"; }
  void bind(power::StatBinder &b) override { ops_ = b.stat("example.hash_ops"); }
  double dynamicJ(const power::StatValues &v) const override { return v[ops_] * opJ_; }
  double leakageW() const override { return leakW_; }

private:
  static constexpr double kGatesPerOp = 12000; ///< two 32x32 multipliers' worth, shared xors
  double opJ_, leakW_;
  power::StatRef ops_;
};

} // namespace

void registerExample() {
  // front end + functional
  if (std::string err = registerOpcode("exhash", ".b32", "d s"); !err.empty()) {
    std::fprintf(stderr, "ptxsim: internal error: example extension: %s\n", err.c_str());
    std::abort();
  }
  exec::registerLowering("exhash", lowerHash);
  gHashOps = exec::registerExecCounter("example.hash_ops", stats::Unit::Count,
                                       "values hashed by exhash (thread operations)");
  // timing: a class of its own on a pipe of its own, sized by two options
  gHashClass = ir::registerOpClass("exhash");
  gUnits = registerOption("-example_hash_units", 0,
                          "example extension: exhash pipelines per SM (0: the GPU has no hash unit)",
                          0, 64);
  gLatency =
      registerOption("-example_hash_latency", 6, "example extension: exhash latency (cycles)", 1, 1000);
  timing::registerPipe(gHashClass, "exhash", [](const timing::TimingConfig &cfg) {
    return timing::PipeSpec{std::max(1u, uint32_t(gUnits.in(cfg.ext))),
                            uint32_t(gLatency.in(cfg.ext)), 1};
  });
  // power
  power::registerPowerComponent(
      [](const power::PowerContext &ctx) -> std::shared_ptr<power::IPowerComponent> {
        if (gUnits.in(ctx.cfg.ext) < 1)
          return nullptr; // no unit, no energy
        return std::make_shared<HashUnitPower>(ctx.cfg, ctx.tech);
      });
}

} // namespace ptxsim::ext::example

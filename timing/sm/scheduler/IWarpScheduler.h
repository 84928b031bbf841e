#pragma once
// Warp-scheduler policies: the interface the SM model drives, the parameters a policy may read,
// and the registry that maps a policy name (CoreConfig::scheduler) to a factory.

#include "base/NamedRegistry.h"
#include "base/Stats.h"
#include "timing/Types.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ptxsim::timing {

/// Contract: one scheduler instance per SM scheduler unit; it manages the warp slots assigned
/// to it. Each cycle the SM calls tick(now) once, then pick() with the slots of its warps that
/// can issue this cycle (ascending slot order); pick returns one of them or -1. The SM then
/// reports what happened with the notification hooks. Deterministic: no randomness.
class IWarpScheduler {
public:
  virtual ~IWarpScheduler() = default;
  virtual const char *name() const = 0;
  /// A warp was assigned to this scheduler (a new CTA's warp). `age` increases with dispatch
  /// order (lower = older).
  virtual void addWarp(uint32_t slot, uint64_t age) = 0;
  virtual void removeWarp(uint32_t slot) = 0; ///< the warp finished
  virtual void tick(Cycle /*now*/) {}
  /// True when tick() does something: a policy that overrides tick() must say so, as the SM
  /// otherwise accounts the cycles in which none of its warps can change in one batch
  /// (Sm::idleTicks), without calling tick() for each.
  virtual bool ticks() const { return false; }
  virtual int pick(const std::vector<uint32_t> &ready, Cycle now) = 0;
  /// True for a policy whose pick() returns the warp it picked last whenever that warp is among
  /// the ready ones, whatever the others (greedy), and changes nothing of its own then: the SM
  /// then need not look at the others while none of them can change (Sm::QuietScan::greedy),
  /// and need not call pick() when that warp is the only one it offers. Its tick() and
  /// issued() must not change that.
  virtual bool keepsLastWhileReady() const { return false; }
  /// The picked warp issued an instruction; `longLatency` when it is a global/local memory
  /// access or anything else that will make the warp wait long (two-level demotes it).
  virtual void issued(uint32_t /*slot*/, bool /*longLatency*/, Cycle /*now*/) {}
  /// False for a policy whose issued() does nothing: the SM then does not call it (a virtual
  /// call on every issue). A policy that overrides issued() keeps the default.
  virtual bool hearsIssues() const { return true; }
  /// L1 data cache feedback (CCWS): a miss by `slot` on line `lineAddr`; an eviction of a line
  /// that was brought in by warp `ownerSlot`.
  virtual void l1Miss(uint32_t /*slot*/, uint64_t /*lineAddr*/, Cycle /*now*/) {}
  virtual void l1Evict(uint32_t /*ownerSlot*/, uint64_t /*lineAddr*/, Cycle /*now*/) {}
  /// Counters for statistics (name, value), e.g. CCWS VTA hits: the same counters in the same
  /// order at every call (the registry declares them, `sched.<name>`, from the first call).
  virtual void stats(std::vector<std::pair<std::string, uint64_t>> & /*out*/) const {}
};

/// The CoreConfig fields a policy may read (copied so policies do not depend on the config).
/// The defaults here are the only ones the policies have (a SchedulerParams{} is a policy with
/// its defaults: the registry makes one to learn a policy's counters).
struct SchedulerParams {
  uint32_t twoLevelActiveWarps = 8; ///< two_level: size of the active set
  uint32_t ccwsBaseScore = 100;     ///< ccws: Base_Locality_Score
  uint32_t ccwsKThrottle = 8;       ///< ccws: K_Throttle
  uint32_t ccwsVtaEntries = 16;     ///< ccws: victim tag array entries per warp
};

using SchedulerFactory = std::unique_ptr<IWarpScheduler> (*)(const SchedulerParams &);

/// A policy's own spelling in `-gpgpu_scheduler` beyond its bare name, declared by the policy
/// (GPGPU-Sim's `two_level_active:<N>:<inner>:<outer>`). All members may be null.
struct SchedulerSyntax {
  /// How the spelling reads, for error messages ("two_level_active:<active_warps>").
  const char *spelling = nullptr;
  /// Reads option value `value`: 0 when it is not this policy's, 1 when it is (its parameters
  /// into `p`), -1 when it is this policy's but malformed (`err` says how).
  int (*parse)(const std::string &value, SchedulerParams &p, std::string &err) = nullptr;
  /// The option value that parse() reads back to `p` (null: the bare name).
  std::string (*format)(const SchedulerParams &p) = nullptr;
  /// What is wrong with `p` for this policy, or "" (validateTimingConfig).
  std::string (*check)(const SchedulerParams &p) = nullptr;
};

/// Policy name -> factory. Names keep their registration order; a name registered twice keeps
/// the later factory.
class SchedulerRegistry : public NamedRegistry<SchedulerFactory> {
public:
  /// Adds (or replaces) a policy and registers its counters as statistics (`sched.<counter>`).
  void add(std::string name, SchedulerFactory f, SchedulerSyntax syntax = {});
  /// A new scheduler, or null when `name` is not registered (the caller reports the error with
  /// the option it came from, see names()).
  std::unique_ptr<IWarpScheduler> create(const std::string &name, const SchedulerParams &p) const {
    SchedulerFactory f = find(name);
    return f ? f(p) : nullptr;
  }
  /// The statistics of policy `name`'s counters, in the order its stats() reports them (null
  /// for an unknown name).
  const std::vector<stats::Counter> *counters(const std::string &name) const;
  /// A `-gpgpu_scheduler` value: a registered name, or a policy's own spelling (its parameters
  /// into `p`). False with `err` set when it is neither or malformed.
  bool parseOption(const std::string &value, std::string &name, SchedulerParams &p,
                   std::string &err) const;
  /// The `-gpgpu_scheduler` value for policy `name` with parameters `p`.
  std::string formatOption(const std::string &name, const SchedulerParams &p) const;
  /// "" or what is wrong: an unknown name, or parameters the policy rejects.
  std::string check(const std::string &name, const SchedulerParams &p) const;

private:
  std::vector<std::pair<std::string, SchedulerSyntax>> syntax_;
  std::vector<std::pair<std::string, std::vector<stats::Counter>>> counters_;
  const SchedulerSyntax *syntaxOf(const std::string &name) const;
};

struct CoreConfig;
/// The parameters CoreConfig gives the policies, and back (SchedulerRegistry.cpp).
SchedulerParams schedulerParams(const CoreConfig &c);
void setSchedulerParams(CoreConfig &c, const SchedulerParams &p);

// Factories of the built-in policies, each defined in the policy's own .cpp.
std::unique_ptr<IWarpScheduler> createLrrScheduler(const SchedulerParams &p);
std::unique_ptr<IWarpScheduler> createGtoScheduler(const SchedulerParams &p);
std::unique_ptr<IWarpScheduler> createTwoLevelScheduler(const SchedulerParams &p);
SchedulerSyntax twoLevelSchedulerSyntax();
std::unique_ptr<IWarpScheduler> createCcwsScheduler(const SchedulerParams &p);

/// Registers lrr, gto, two_level, ccws (one line each).
void registerBuiltinWarpSchedulers(SchedulerRegistry &r);
/// The process-wide registry: the built-ins, then what extensions and studies add at start-up
/// (`timing::schedulerRegistry().add("mine", createMine);` from isa_ext/Extensions.def). The
/// `-gpgpu_scheduler` option accepts exactly its names.
SchedulerRegistry &schedulerRegistry();
/// The same registry, read-only (the name predates extensions).
const SchedulerRegistry &builtinSchedulers();

} // namespace ptxsim::timing

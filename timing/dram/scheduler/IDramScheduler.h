#pragma once
// DRAM command schedulers: which queued request of a channel gets the next command.
//
// Contract: when the channel may issue, it describes every queued request (oldest first) as a
// DramCandidate: its bank, the command it needs next (activate, precharge or column) and the
// earliest cycle that command is legal. pick() returns the index of the request to issue now
// (its `earliest` must be <= now), or -1; with -1 it sets `soonest` to the earliest cycle at
// which its choice could change (kNever if none), so the channel can sleep until then. The
// channel re-asks only after a command issued or a request arrived. Deterministic.

#include "base/NamedRegistry.h"
#include "timing/Types.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ptxsim::timing {

enum class DramCmd : uint8_t { Act, Pre, Col };

struct DramCandidate {
  uint32_t bank = 0;
  DramCmd cmd = DramCmd::Col; ///< the next command: Col means the row is open (a row hit)
  Cycle earliest = 0;
  bool write = false;
};

class IDramScheduler {
public:
  virtual ~IDramScheduler() = default;
  virtual int pick(const std::vector<DramCandidate> &queue, uint32_t numBanks, Cycle now,
                   Cycle &soonest) = 0;
  /// Told once, before the first pick(), how many requests the channel's queue holds.
  virtual void setQueueEntries(uint32_t entries) { (void)entries; }
};

using DramSchedulerFactory = std::unique_ptr<IDramScheduler> (*)();

/// Name -> factory: `frfcfs`, `fcfs`, `frfcfs_wd` (FR-FCFS with write draining) built in; `-gpgpu_dram_scheduler` accepts every registered
/// name (studies add theirs from a registration function listed in isa_ext/Extensions.def).
class DramSchedulerRegistry : public NamedRegistry<DramSchedulerFactory> {
public:
  std::unique_ptr<IDramScheduler> create(const std::string &name) const {
    DramSchedulerFactory f = find(name);
    return f ? f() : nullptr;
  }
};

DramSchedulerRegistry &dramSchedulerRegistry();

std::unique_ptr<IDramScheduler> createFcfsDramScheduler();
std::unique_ptr<IDramScheduler> createFrFcfsDramScheduler();
std::unique_ptr<IDramScheduler> createFrFcfsWriteDrainDramScheduler();

} // namespace ptxsim::timing

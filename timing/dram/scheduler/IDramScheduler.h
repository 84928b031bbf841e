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

/// The queue seen per bank, for pickByBank(): in each bank, for each direction (index 0 reads,
/// 1 writes), the oldest queued request that hits the bank's open row and the oldest other one
/// (it needs an ACT when the bank is closed, a PRE when it is open), by arrival number (smaller
/// is older; kNone when there is none). The requests of one bank, direction and kind all need
/// the same command at the same earliest cycle (DramQueueView's hitEarliest / otherEarliest), so
/// a policy that prefers the older of otherwise equal requests sees in these representatives
/// everything the full candidate list would tell it.
struct DramBankView {
  static constexpr uint64_t kNone = ~uint64_t(0);
  uint64_t hit[2] = {kNone, kNone};   ///< oldest row hit (column command next)
  uint64_t other[2] = {kNone, kNone}; ///< oldest request needing otherCmd
  Cycle colReady = 0;   ///< the bank's earliest column command (ACT + tRCD)
  Cycle otherReady = 0; ///< open: its earliest PRE; closed: its earliest ACT (before tRRD)
  bool open = false;
};

struct DramQueueView {
  const DramBankView *banks = nullptr; ///< numBanks entries
  uint32_t numBanks = 0;
  /// Bit masks over the banks (bit b % 64 of word b / 64): those with a hit[w], an other[w].
  const uint64_t *hitBanks[2] = {nullptr, nullptr};
  const uint64_t *otherBanks[2] = {nullptr, nullptr};
  uint32_t maskWords = 0;
  uint32_t reads = 0, writes = 0; ///< queued requests by direction
  Cycle colAt[2] = {0, 0}; ///< the bus: earliest column command by direction (tCCD, turnarounds)
  Cycle actAt = 0;         ///< earliest ACT to any bank (tRRD)

  /// The earliest cycle of bank `v`'s row hits of direction `w` (their column command).
  Cycle hitEarliest(const DramBankView &v, unsigned w) const {
    return v.colReady > colAt[w] ? v.colReady : colAt[w];
  }
  /// The earliest cycle of bank `v`'s other requests (their ACT or PRE).
  Cycle otherEarliest(const DramBankView &v) const {
    return v.open || v.otherReady > actAt ? v.otherReady : actAt;
  }
  DramCmd otherCmd(const DramBankView &v) const { return v.open ? DramCmd::Pre : DramCmd::Act; }
};

/// pickByBank()'s choice: the representative (bank, direction, hit or other) to serve.
struct DramChoice {
  uint32_t bank = 0;
  bool write = false;
  bool hit = false;
};

class IDramScheduler {
public:
  virtual ~IDramScheduler() = default;
  virtual int pick(const std::vector<DramCandidate> &queue, uint32_t numBanks, Cycle now,
                   Cycle &soonest) = 0;
  /// Told once, before the first pick(), how many requests the channel's queue holds.
  virtual void setQueueEntries(uint32_t entries) { (void)entries; }
  /// True if pickByBank() is implemented; the channel then calls it instead of pick(), at the
  /// same points, and builds no candidate list (its cost is per bank, not per queued request).
  virtual bool picksByBank() const { return false; }
  /// pick() on the queue summarised per bank: it must decide exactly what pick() would on the
  /// full list (the same request, the same `soonest`, the same state change), returning true
  /// with the request to serve in `choice`, or false with `soonest` set.
  virtual bool pickByBank(const DramQueueView &queue, Cycle now, DramChoice &choice,
                          Cycle &soonest) {
    (void)queue, (void)now, (void)choice;
    soonest = kNever;
    return false;
  }
};

/// FR-FCFS on a per-bank view (frfcfs, frfcfs_wd): among the directions in `dirs` (bit 0 reads,
/// bit 1 writes), the oldest row hit whose column command can issue at `now`, else the oldest
/// other request whose ACT or PRE can, never precharging a bank that a queued request of those
/// directions still hits; pick()'s rule on the full list, decided from the representatives.
bool frFcfsPickByBank(const DramQueueView &queue, Cycle now, unsigned dirs, DramChoice &choice,
                      Cycle &soonest);

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

#pragma once
// One DRAM channel: per-bank row buffers, a shared command bus and data bus, FR-FCFS or FCFS
// scheduling, and refresh.
//
// Contract: the memory partition owns one DramChannel per channel. Requests arrive through
// canAccept()/push() into a queue of `queueEntries`; tick(now) is called once per DRAM
// command-clock cycle; completed requests come out of hasResponse()/popResponse() in completion
// order, as the same MemRequest with `isResponse` set (reads: the last data beat has arrived;
// writes: the last data beat has been written). A request never leaves the channel any other way.
// In a cycle the caller pushes first, then ticks: a request pushed at cycle P can have its first
// command issued by tick(P), so an idle-bank row hit pushed at P completes at P + tCL + burst.
//
// Address: `addr` is the byte address within this channel's space (the caller has removed the
// partition and channel interleave bits). From the low bits up it is column | bank | row:
//   column = addr % rowBytes, bank = (addr / rowBytes) % banks, row = addr / (rowBytes * banks)
// so consecutive addresses fill one row, then move to the next bank (a sequential stream opens
// each row once). With DramAddressMapKind::BankXor the bank is XOR-ed with the low bits of the
// row (bank ^= row % banks, banks a power of two), which spreads same-bank strides over banks.
// A request is mapped by its start address and must not straddle a row.
//
// Data bus: one burst moves busWidthBytes * burstLength bytes and holds the bus for
// burstCycles = ceil(burstLength / dataRate) command cycles. A request of `bytes` is
// ceil(bytes / burstBytes) bursts (at least one), issued as back-to-back column commands
// colSpacing = max(tCCD, burstCycles) apart; it holds the bus bursts * burstCycles cycles. Peak
// bandwidth is burstBytes / colSpacing bytes per cycle (busWidthBytes * dataRate when
// tCCD <= burstCycles). DramConfig::tBurst is not read (it is derived as above).
//
// Timing (command cycles; one command per cycle on the shared command bus):
//   ACT  bank b: >= PRE(b) + tRP, >= ACT(b) + tRC, >= ACT(any bank) + tRRD, >= REF + tRFC
//   RD/WR bank b: >= ACT(b) + tRCD; >= previous column command + bursts * colSpacing;
//        RD >= end of the last write data + tWTR; WR data may start no earlier than tRTW after
//        the end of the last read data. Write data follows WR after tCL (no separate tCWL).
//   PRE  bank b: >= ACT(b) + tRAS, >= end of read bursts to b (no separate tRTP),
//        >= end of write data to b + tWR
//   Completion = last column command + tCL + burstCycles.
// Refresh (tREFI and tRFC non-zero): every tREFI cycles the channel stops serving requests,
// precharges all open banks, issues REF once every bank may be activated, and the banks stay
// closed for tRFC. Refreshes that fall due while the channel is idle and not ticked are applied
// when it is next pushed or ticked, exactly as if it had been ticked every cycle.
//
// Scheduling (one command per tick): FR-FCFS issues the oldest request whose row is open and
// whose column command can issue now; otherwise the ACT or PRE of the oldest request that can
// issue one now (a bank is not precharged while a queued request hits its open row). FCFS
// serves each bank's requests in arrival order (only each bank's oldest request is eligible),
// the oldest eligible request first; other banks still work in parallel. A request is counted
// as a row hit, miss (it needed an ACT) or conflict (it needed a PRE) when its column command
// issues; a request whose row another request opened counts as a hit.
// A scheduler that implements IDramScheduler::pickByBank decides from each bank's oldest row
// hit and oldest other request per direction (kept as requests come and go), at a cost per
// bank; others get every queued request as a DramCandidate, oldest first.

#include "base/Stats.h"
#include "base/HugeAlloc.h"
#include "timing/TimingConfig.h"
#include "timing/Types.h"
#include "timing/dram/scheduler/IDramScheduler.h"
#include "timing/mem/Ring.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace ptxsim::timing {

enum class DramAddressMapKind : uint8_t {
  RowBankColumn, ///< row | bank | column
  BankXor,       ///< row | bank ^ (row % banks) | column
};


/// A decoded channel address.
struct DramAddress {
  uint64_t row = 0;
  uint32_t bank = 0;
  uint32_t column = 0; ///< byte offset within the row
};

class DramChannel : public base::HugeAllocated {
public:
  struct Stats {
    uint64_t reads = 0, writes = 0; ///< requests completed
    uint64_t readBytes = 0, writeBytes = 0;
    uint64_t rowHits = 0, rowMisses = 0, rowConflicts = 0;
    uint64_t activates = 0, precharges = 0, refreshes = 0;
    uint64_t busBusyCycles = 0;   ///< cycles the data bus carried data
    uint64_t queueFullCycles = 0; ///< ticks that found the request queue full
    uint64_t totalLatency = 0;    ///< sum over completed requests of completion - push cycle
    uint64_t maxLatency = 0;
    double avgLatency = 0.0; ///< totalLatency / (reads + writes)
    stats::Distribution latency; ///< completion - push cycle of each request
  };

  /// `cfg` must pass checkConfig(); `id` names the channel in diagnostics.
  DramChannel(const DramConfig &cfg, uint32_t id,
              DramAddressMapKind mapping = DramAddressMapKind::RowBankColumn);

  /// Empty if `cfg` can build a channel, else a message naming the offending DramConfig field.
  static std::string checkConfig(const DramConfig &cfg,
                                 DramAddressMapKind mapping = DramAddressMapKind::RowBankColumn);

  /// True when push() may be called (the request queue has a free entry).
  bool canAccept() const;
  /// Queues `r` (requires canAccept()); `now` is the current command cycle.
  void push(const MemRequest &r, Cycle now);
  /// Advances to cycle `now` (non-decreasing between calls; cycles may be skipped up to
  /// nextEventCycle()): retires finished requests, then issues at most one command.
  void tick(Cycle now);
  bool hasResponse() const { return !ready_.empty(); }
  /// The earliest-completed request not yet popped, with `isResponse` set.
  MemRequest popResponse();
  /// Nothing queued, in flight, or waiting to be popped.
  bool idle() const { return count_ == 0 && inFlight_.empty() && ready_.empty(); }
  /// After tick(now): the earliest cycle > now at which a command could issue or a request
  /// complete (never later than the next completion); kNever when nothing is queued or in flight.
  /// After a tick that issued nothing (and with room in the queue), the cycle the scheduler's
  /// scan found its first candidate command may go, where commands the scheduler does not yet
  /// serve may come earlier: the ticks between would change nothing.
  Cycle nextEventCycle(Cycle now) const;

  const Stats &stats() const { return stats_; }
  void resetStats() { stats_ = Stats{}; }

  DramAddress decode(uint64_t addr) const;
  uint32_t id() const { return id_; }
  /// Cycles one burst holds the data bus.
  uint32_t burstCycles() const { return burstCycles_; }
  /// Cycles between consecutive column commands: max(tCCD, burstCycles).
  uint32_t colSpacing() const { return colSpacing_; }
  uint32_t burstBytes() const { return burstBytes_; }
  /// Bursts a request of `bytes` needs (at least one).
  uint32_t burstsFor(uint32_t bytes) const;
  /// Peak data-bus bandwidth in bytes per command cycle.
  double peakBytesPerCycle() const { return double(burstBytes_) / colSpacing_; }
  size_t queued() const { return count_; }

private:
  enum class Cmd : uint8_t { Act, Pre, Col };
  static constexpr uint32_t kNil = ~uint32_t(0);

  /// A bank's state, and its queued requests: a list in arrival order through Entry::bankNext,
  /// and per direction the oldest that hits the open row and the oldest other (the
  /// representatives of DramBankView, whose arrival numbers views_ holds).
  struct Bank {
    bool open = false;
    uint64_t row = 0;
    Cycle actReady = 0; ///< earliest ACT
    Cycle colReady = 0; ///< earliest RD/WR (ACT + tRCD)
    Cycle preReady = 0; ///< earliest PRE
    uint32_t head = kNil, tail = kNil; ///< oldest and youngest queued request (slots)
    uint32_t count = 0;
    uint32_t hit[2] = {kNil, kNil}, other[2] = {kNil, kNil}; ///< slots, by direction
  };

  /// A queued request, in a slot of entries_ (free slots: freeSlots_).
  struct Entry {
    MemRequest req;
    DramAddress da;
    Cycle arrival = 0;
    uint64_t seq = 0; ///< arrival number (queue order)
    bool write = false;
    bool didAct = false, didPre = false;
    uint32_t ageNext = kNil, agePrev = kNil;   ///< the whole queue, oldest first
    uint32_t bankNext = kNil, bankPrev = kNil; ///< its bank's requests, oldest first
  };

  /// A request whose column command issued: its completion cycle and its slot in
  /// inFlightPool_ (the order is inFlight_'s; the payloads stay put).
  struct InFlight {
    Cycle done = 0;
    uint32_t slot = 0;
  };
  struct InFlightReq {
    MemRequest req;
    Cycle arrival = 0;
  };
  /// inFlight_: the live entries are v[head..) in one array (a deque's order without its
  /// block map: the front pops by moving `head`, and the popped prefix is dropped when it is
  /// at least half the array or the queue empties; the capacity stays).
  struct InFlightQueue {
    std::vector<InFlight> v;
    size_t head = 0;
    bool empty() const { return head == v.size(); }
    const InFlight &front() const { return v[head]; }
    void pop_front() {
      if (++head == v.size()) {
        v.clear();
        head = 0;
      }
    }
    InFlight *begin() { return v.data() + head; }
    InFlight *end() { return v.data() + v.size(); }
    /// Inserts `x` before `pos` (a pointer from begin()..end()).
    void insert(InFlight *pos, const InFlight &x) {
      size_t at = size_t(pos - v.data());
      if (head != 0 && head * 2 >= v.size()) {
        v.erase(v.begin(), v.begin() + std::ptrdiff_t(head));
        at -= head;
        head = 0;
      }
      v.insert(v.begin() + std::ptrdiff_t(at), x);
    }
  };

  Cmd nextCmd(const Entry &e) const;
  Cycle earliest(const Entry &e, Cmd c) const;
  /// The earliest command of any queued request (kNever if none).
  Cycle firstCommand() const;
  /// qview_'s bus part (colAt, actAt) and the queue's counts (its arrays are the channel's own,
  /// set once: the vectors keep their buffers for the channel's life).
  void fillQueueView();
  void issue(uint32_t slot, Cmd c, Cycle now);
  void scheduleRequests(Cycle now);
  /// The generic path: pick() on every queued request, oldest first.
  void scheduleFromList(Cycle now);
  /// Recomputes bank `bi`'s representatives from its list (its row opened or closed, or a
  /// representative left).
  void rescanBank(uint32_t bi);
  /// views_[bi]'s representatives and the masks, from the bank's slots.
  void setView(uint32_t bi);
  /// views_[bi]'s timing, from the bank's (after a command or a refresh step changed it).
  void syncBank(uint32_t bi) {
    const Bank &b = banks_[bi];
    DramBankView &v = views_[bi];
    v.open = b.open;
    v.colReady = b.colReady;
    v.otherReady = b.open ? b.preReady : b.actReady;
  }
  /// One refresh step at cycle `now`; true if the refresh machinery owns this cycle.
  bool refreshStep(Cycle now);
  void catchUpIdle(Cycle now);
  void retire(Cycle now);
  bool refreshEnabled() const { return cfg_.tREFI != 0 && cfg_.tRFC != 0; }

  DramConfig cfg_;
  uint32_t id_;
  DramAddressMapKind mapping_;
  std::unique_ptr<IDramScheduler> sched_;
  bool byBank_ = false;                   ///< sched_->picksByBank()
  std::vector<DramCandidate> candidates_; ///< scratch for the scheduler (generic path)
  std::vector<uint32_t> candidateSlots_;  ///< the slot of each candidate
  uint32_t burstCycles_, colSpacing_, burstBytes_;

  base::HugeVector<Bank> banks_;
  base::HugeVector<DramBankView> views_; ///< per bank, kept as requests and commands come
  base::HugeVector<uint64_t> hitMask_[2], otherMask_[2]; ///< DramQueueView's bank masks
  uint32_t maskWords_ = 0;
  DramQueueView qview_; ///< pickByBank()'s view: views_ and the masks, and fillQueueView()'s part
  /// Waiting for their column command: slots, each linked into the queue's list (ageHead_:
  /// oldest) and its bank's.
  base::HugeVector<Entry> entries_;
  std::vector<uint32_t> freeSlots_;
  uint32_t ageHead_ = kNil, ageTail_ = kNil;
  uint32_t count_ = 0, writes_ = 0; ///< queued requests, and of them writes
  uint64_t nextSeq_ = 0;
  /// Column command issued, in retirement order: each is inserted after those whose
  /// completion is at most its column data's end (before a read's return pipeline).
  InFlightQueue inFlight_;
  base::HugeVector<InFlightReq> inFlightPool_;
  std::vector<uint32_t> inFlightFree_;
  Ring<MemRequest> ready_;  ///< completed, not yet popped

  Cycle nextAct_ = 0;   ///< tRRD
  Cycle nextCol_ = 0;   ///< tCCD / data bus
  Cycle nextRead_ = 0;  ///< tWTR
  Cycle nextWrite_ = 0; ///< tRTW
  Cycle nextTick_ = 0;  ///< first cycle not yet ticked
  Cycle refreshDue_ = 0;
  bool refreshPending_ = false;
  /// scheduleRequests() found nothing to issue before this cycle (reset by push and issue).
  Cycle sleepUntil_ = 0;
  /// The earliest command over every queued request (valid while queueFirstOk_: the queue and
  /// the bank and bus state it depends on have not changed since nextEventCycle() found it).
  mutable Cycle queueFirst_ = kNever;
  mutable bool queueFirstOk_ = false;
  /// The queue or the bank or bus state changed: scheduleRequests() must scan again.
  void stateChanged() {
    sleepUntil_ = 0;
    queueFirstOk_ = false;
  }

  Stats stats_;
};

} // namespace ptxsim::timing

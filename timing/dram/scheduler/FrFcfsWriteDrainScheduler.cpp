// FR-FCFS with write draining ("frfcfs_wd"): reads and writes are served in batches, as memory
// controllers with a write buffer do. Reads go first while the queue holds fewer than the high
// watermark of writes (half the queue); once it reaches it, or no read is queued, only writes
// are served until at most the low watermark (a quarter of the queue) remain, or none when no
// read waits. Within the class being served the policy is FR-FCFS (frfcfs). Batching saves the
// read-to-write and write-to-read bus turnarounds (tRTW, tWTR) that plain FR-FCFS pays whenever
// it alternates, and keeps the rows a class is streaming through open.
// The mode depends only on the queue's contents, so it changes only when a request arrives or
// issues: idle skipping (re-asking less often) gives the same decisions.
#include "timing/dram/scheduler/IDramScheduler.h"

#include <algorithm>

namespace ptxsim::timing {
namespace {

class FrFcfsWriteDrainScheduler : public IDramScheduler {
public:
  void setQueueEntries(uint32_t entries) override {
    high_ = std::max(1u, entries / 2);
    low_ = entries / 4;
  }

  int pick(const std::vector<DramCandidate> &q, uint32_t numBanks, Cycle now,
           Cycle &soonest) override {
    uint32_t writes = 0;
    for (const DramCandidate &c : q)
      writes += c.write;
    updateMode(uint32_t(q.size()) - writes, writes);
    soonest = kNever;
    pendingHit_.assign(numBanks, 0);
    for (size_t i = 0; i < q.size(); ++i) {
      if (q[i].write != draining_ || q[i].cmd != DramCmd::Col)
        continue;
      if (q[i].earliest <= now)
        return int(i);
      soonest = std::min(soonest, q[i].earliest);
      pendingHit_[q[i].bank] = 1;
    }
    for (size_t i = 0; i < q.size(); ++i) {
      if (q[i].write != draining_ || q[i].cmd == DramCmd::Col ||
          (q[i].cmd == DramCmd::Pre && pendingHit_[q[i].bank]))
        continue;
      if (q[i].earliest <= now)
        return int(i);
      soonest = std::min(soonest, q[i].earliest);
    }
    return -1;
  }

  bool picksByBank() const override { return true; }
  bool pickByBank(const DramQueueView &q, Cycle now, DramChoice &choice,
                  Cycle &soonest) override {
    updateMode(q.reads, q.writes);
    return frFcfsPickByBank(q, now, draining_ ? 2 : 1, choice, soonest);
  }

private:
  void updateMode(uint32_t reads, uint32_t writes) {
    if (draining_) {
      if (writes == 0 || (reads && writes <= low_))
        draining_ = false;
    } else if (writes && (writes >= high_ || !reads)) {
      draining_ = true;
    }
  }

  std::vector<uint8_t> pendingHit_;
  uint32_t high_ = 16, low_ = 8;
  bool draining_ = false;
};

} // namespace

std::unique_ptr<IDramScheduler> createFrFcfsWriteDrainDramScheduler() {
  return std::make_unique<FrFcfsWriteDrainScheduler>();
}

} // namespace ptxsim::timing

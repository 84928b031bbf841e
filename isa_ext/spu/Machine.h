#pragma once
// The SPU's run-time state for one launch: the passes, the double-buffered Communication
// Buffers, the SPU-wide block synchronization, LAST and regstart, and the virtual IUs that spill
// and restore CBs between passes (the report's Algorithm 1, supplied by the simulator).
//
// Contract: the simulator core drives it through four calls and never needs to know what it
// models: beginPass(k) before the pass's units start, arrive(u) when every warp of unit u has
// reached a block synchronization, exited(u) when unit u's last warp has finished, and
// passDone() to know when the next pass may start. A unit u waits at a block synchronization
// until step() > the step at which it arrived. The units of one pass are co-resident but may run
// on several host threads: the caller serializes the calls above (SpuLaunch::mu), and CB reads
// and writes, which run unlocked, touch per-half atomics only; passes run one after another.
//
// Time steps: step 0 is the computation before the first block synchronization, and each
// completed synchronization starts the next step. During step s a unit writes half s%2 of its
// south/east CBs and reads half (s+1)%2 of its north/west CBs, so a value written at step s is
// read by the neighbour at step s+1 and never earlier. Each pass starts again at step 0: a
// block sees the same step numbers whatever pass it runs in, which is what lets the VIUs line
// a later pass up with an earlier one. A spill VIU stores, at the synchronization that ends
// step s, the half its CB's producer wrote during s (slot s); a restore VIU writes slot s into
// its CB at the same point, so the consumer reads at step s+1 what its producer wrote at s,
// exactly as if both passes had run at once.

#include "isa_ext/spu/Topology.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ptxsim::spu {

struct Options {
  Shape shape;
  uint32_t cbBytes = 16384;    ///< bytes of one CB half (the double buffer has two)
  bool regstart = true;        ///< section 3.3: VIUs skip steps that carried no data
  bool oneD = false;           ///< section 5: a 1D chain of blocks
  bool skipDummySyncs = false; ///< section 5: syncs that move no data cost no barrier time
  uint32_t blocksPerSm = 1;    ///< section 5: blocks per SM, linked by virtual CBs (figure 10)
};

/// Counters of one pass.
struct PassStats {
  uint64_t steps = 0;                 ///< block synchronizations completed (time steps - 1)
  uint64_t dummySyncs = 0;            ///< of which moved no data (no CB written in the step)
  uint64_t cbReads = 0, cbWrites = 0; ///< warp-level CB instructions
  uint64_t cbReadBytes = 0, cbWriteBytes = 0;
  uint64_t spillBytes = 0, restoreBytes = 0;
  uint64_t spills = 0, restores = 0;               ///< CB halves moved by VIUs
  uint64_t skippedSpills = 0, skippedRestores = 0; ///< work regstart saved
};

class Machine {
public:
  Machine(const Options &o, uint32_t gridX, uint32_t gridY);

  const Options &options() const { return opt_; }
  const std::vector<Pass> &passes() const { return passes_; }
  uint32_t currentPass() const { return pass_; }
  const Pass &pass() const { return passes_[pass_]; }

  void beginPass(uint32_t k);
  /// Unit u (index into pass().units) reached a block synchronization with all its warps.
  /// Returns true when that completed the synchronization.
  bool arrive(uint32_t u);
  /// Unit u finished. Returns true when that completed a synchronization the others wait at.
  bool exited(uint32_t u);
  bool passDone() const { return liveUnits_ == 0; }
  /// Units of the pass that have not exited, and of those, units arrived at the current block
  /// synchronization.
  uint32_t liveUnits() const { return liveUnits_; }
  uint32_t arrivedUnits() const { return arrivedUnits_; }
  /// Ends the pass: the spill VIUs' last iteration (Algorithm 1 spills once more after the last
  /// block is done).
  void endPass();

  uint32_t step() const { return step_; }
  /// The step unit u waits to leave (valid while it is arrived).
  bool arrived(uint32_t u) const { return unitState_[u].arrived; }
  bool last() const { return last_; }
  /// %spu_regstart: data has started to flow in this pass (some CB was written, or a restore
  /// brought data, in an earlier step).
  bool regstartFlag() const { return dataStarted_; }

  /// Host pointer to bytes [off, off+bytes) of the half of CB `cb` a reader sees now, or null
  /// when the range is outside the CB.
  const uint8_t *cbRead(int32_t cb, uint64_t off, uint32_t bytes);
  /// Whether bytes [off, off+bytes) of the half of CB `cb` a reader sees now were written in
  /// the previous step (by the unit or a restore VIU), as far as the half's written extent
  /// from offset 0 tells.
  bool cbReadFresh(int32_t cb, uint64_t off, uint32_t bytes) const;
  /// Same for the half a writer writes now; marks the CB as written in this step.
  uint8_t *cbWrite(int32_t cb, uint64_t off, uint32_t bytes);
  /// Counts one warp-level CB instruction of `bytes` in total.
  void countAccess(bool write, uint64_t bytes) {
    PassStats &s = stats_[pass_];
    (write ? s.cbWrites : s.cbReads)++;
    (write ? s.cbWriteBytes : s.cbReadBytes) += bytes;
  }

  const std::vector<PassStats> &stats() const { return stats_; }
  PassStats totals() const;
  /// Spill slots held for a boundary (tests): empty vectors are steps regstart skipped.
  const std::vector<std::vector<uint8_t>> *spillSlots(const SpillKey &k) const;
  /// Bytes moved by all VIUs, and by the busiest one, at the synchronization that just
  /// completed (VIUs work in parallel: timing charges the busiest).
  uint64_t lastTransitionVIUBytes() const { return lastViuBytes_; }
  uint64_t lastTransitionVIUMaxBytes() const { return lastViuMax_; }
  /// Whether the synchronization that just completed moved no data (a dummy one).
  bool lastTransitionDummy() const { return lastDummy_; }

private:
  struct UnitState {
    bool arrived = false;
    bool live = true;
  };
  void release();
  void viuWork(bool spillOnly);
  void noteViu(uint64_t bytes);
  /// A store reached offset `end` (exclusive) of CB `cb` in this step: with regstart, VIUs move
  /// only that extent.
  void noteWriteExtent(int32_t cb, uint64_t end);

  Options opt_;
  std::vector<Pass> passes_;
  uint32_t pass_ = 0;
  uint32_t step_ = 0;
  std::vector<UnitState> unitState_;
  uint32_t liveUnits_ = 0, liveSms_ = 0, arrivedUnits_ = 0;
  bool last_ = false, viusLive_ = false, dataStarted_ = false;
  /// CB stores of units on several host threads set these (same values): atomics, relaxed.
  std::atomic<bool> wroteThisStep_{false};
  std::vector<uint8_t> cbData_; ///< numCbs x 2 halves x cbBytes
  size_t numHalves_ = 0;
  std::unique_ptr<std::atomic<int64_t>[]> cbWrittenAt_; ///< per CB half: last step written
  std::map<SpillKey, std::vector<std::vector<uint8_t>>> spill_;
  std::vector<PassStats> stats_;
  uint64_t lastViuBytes_ = 0, lastViuMax_ = 0;
  std::unique_ptr<std::atomic<uint32_t>[]> cbExtent_; ///< per CB half: bytes written from 0
  bool lastDummy_ = false;
};

} // namespace ptxsim::spu

#include "timing/gpu/ThreadTuner.h"

#include <algorithm>

namespace ptxsim::timing {

void ThreadTuner::record(double seconds, bool typical) {
  ++tunedSince_;
  if (probing_) {
    // Sub-windows of kSub cycles, on the threads, then on one thread, and so on; the first
    // cycle of each is not counted (the pool's threads may be waking up, caches moving), nor,
    // while enough others are, cycles with CTAs dispatched (the SMs fill in the new CTAs'
    // state in the phase: at a kernel's start that outweighs everything else).
    if (cycles_++ > 0) {
      secs_[threads_] += seconds;
      ++counted_[threads_];
      if (typical) {
        typicalSecs_[threads_] += seconds;
        ++typicalCounted_[threads_];
      }
    }
    if (cycles_ < kSub)
      return;
    cycles_ = 0;
    threads_ = !threads_;
    if (threads_ && ++pairs_ >= kMinPairs) { // a pair done
      const bool typicalOk = typicalCounted_[0] >= 3 && typicalCounted_[1] >= 3;
      const double *secs = typicalOk ? typicalSecs_ : secs_;
      const uint32_t *counted = typicalOk ? typicalCounted_ : counted_;
      const double one = secs[0] / counted[0], many = secs[1] / counted[1];
      const double ratio = one > 0 ? many / one : 0;
      // (where clearGain() cycles run on the threads too, one thread in the others would move
      // the SMs' state out of the threads' caches between them: the threads need only not lose)
      const double margin =
          clearSince_ && clearSince_ * kClearShare >= tunedSince_ ? 1.0 : kMargin;
      // clear outcomes end the probe at once, close ones (or too few cycles without dispatch)
      // get more pairs (the cycles vary)
      const bool clear = typicalOk && (ratio < kClear * margin || ratio > margin / kClear);
      if (pairs_ >= kMaxPairs || clear) {
        bool choice = ratio < margin;
        gap_ = decided_ && choice == decision_ ? std::min(gap_ * 2, kMaxGap) : kFirstGap;
        // a clear winner (many threads on a full GPU; a small kernel on one thread): probe
        // less often, a probe on one thread costs most where the threads pay most
        if (ratio < margin / 2 || ratio > 2 / margin)
          gap_ = std::min(gap_ * 4, kMaxGap);
        decided_ = true;
        decision_ = threads_ = choice;
        serialCycle_ = one;
        probing_ = false;
        windowsLeft_ = gap_;
        pairs_ = strikes_ = 0;
        secs_[0] = secs_[1] = typicalSecs_[0] = typicalSecs_[1] = 0;
        counted_[0] = counted_[1] = typicalCounted_[0] = typicalCounted_[1] = 0;
        ++probes_;
        clearSince_ /= 2; // (the share decays: a kernel's phases change it, a probe's
        tunedSince_ /= 2; // few cycles alone do not)
      }
    }
    return;
  }
  // A cycle on the threads much slower than one thread was in the probe: a thread was
  // descheduled (a loaded host: each such cycle can cost milliseconds) or the kernel's work
  // changed. A few in a window end the run: probe again.
  bool again =
      decided_ && threads_ && typical && seconds > 2 * serialCycle_ && ++strikes_ >= kStrikes;
  if (++cycles_ < kWindow && !again)
    return;
  cycles_ = 0;
  strikes_ = 0;
  if (again || --windowsLeft_ == 0) {
    probing_ = true;
    threads_ = true;
    if (again)
      gap_ = kFirstGap;
  }
}

} // namespace ptxsim::timing

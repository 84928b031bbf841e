// The scan's operand check (Sm::operandsWait): 0 when every operand of the warp's next
// instruction is ready (RAW on its sources, WAW on its destinations), else the cycle the last one
// is ready (kNever while one is a load not back yet) and the reason operandsReady() gives (the
// first operand not ready, in its order: Memory for a pending load, else Scoreboard). It answers
// from the slot's note of the operands (Slot::opsFor, opsAt, opsMemFrom, which the issue writes:
// noteNextOperands; inline in the scan) or from the scoreboard (operandsWaitPass); both must say
// what operandsReady() and the operands' latest ready cycle say, at every cycle.

#include "timing/sm/Sm.h"
#include "timing/sm/scheduler/IWarpScheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

using namespace ptxsim;

namespace {

class OperandsProbeSm : public timing::Sm {
public:
  using Sm::Sm;
  struct Answer {
    timing::Cycle wake = 0;
    timing::StallReason why = timing::StallReason::None;
  };
  /// operandsWait for `in` with the operands ready at `reg` (registers 0..3) and `pred`
  /// (predicate 0), from the note (`noted`) or from the scoreboard.
  Answer wait(const ptx::ir::Inst &in, const timing::Cycle (&reg)[4], timing::Cycle pred,
              timing::Cycle now, bool noted) const {
    Slot s;
    s.regReady.assign(reg, reg + 4);
    s.predReady.assign(1, pred);
    s.nextCache = &in;
    s.opsFor = nullptr;
    if (noted) {
      // the note, as its definition says (Slot::opsAt, opsMemFrom): the operands' latest ready
      // cycle, and with a load pending the latest of those before the first pending one
      // (kNever: none pending), in operandsReady()'s order of sources then destinations
      std::vector<timing::Cycle> order;
      for (unsigned i = 0; i < in.nrs; ++i)
        order.push_back(s.readyAt(in.rs[i]));
      for (unsigned i = 0; i < in.nrd; ++i)
        order.push_back(s.readyAt(in.rd[i]));
      s.opsFor = &in;
      s.opsAt = *std::max_element(order.begin(), order.end());
      s.opsMemFrom = timing::kNever;
      timing::Cycle before = 0;
      for (timing::Cycle c : order) {
        if (c == timing::kNever) {
          s.opsMemFrom = before;
          break;
        }
        before = std::max(before, c);
      }
    }
    Answer a;
    a.wake = operandsWait(s, in, now, a.why);
    return a;
  }
  /// operandsReady()'s reason (None when ready).
  timing::StallReason readyWhy(const ptx::ir::Inst &in, const timing::Cycle (&reg)[4],
                               timing::Cycle pred, timing::Cycle now) const {
    Slot s;
    s.regReady.assign(reg, reg + 4);
    s.predReady.assign(1, pred);
    timing::StallReason why = timing::StallReason::None;
    return operandsReady(s, in, now, why) ? timing::StallReason::None : why;
  }
};

} // namespace

TEST(TimingOperandsWait, NotedAndScoreboardAnswersAgreeWithOperandsReady) {
  timing::TimingConfig cfg;
  OperandsProbeSm sm(cfg, 0, timing::builtinSchedulers());
  // sources r0, the guard p0, r1, r2 (a register read twice), destination r3 (WAW)
  ptx::ir::Inst in;
  in.nrs = 4;
  in.rs[0] = 0;
  in.rs[1] = ptx::ir::Inst::kPredBit | 0;
  in.rs[2] = 1;
  in.rs[3] = 2;
  in.nrd = 1;
  in.rd[0] = 3;
  const timing::Cycle kNever = timing::kNever;
  const timing::Cycle times[] = {0, 5, 9, kNever};
  const timing::Cycle nows[] = {0, 4, 5, 8, 9, 10, 1000};
  unsigned waits = 0, memory = 0, scoreboard = 0;
  for (timing::Cycle a : times)
    for (timing::Cycle b : times)
      for (timing::Cycle c : times)
        for (timing::Cycle d : times)
          for (timing::Cycle p : times) {
            const timing::Cycle reg[4] = {a, b, c, d};
            const timing::Cycle latest = std::max({a, b, c, d, p});
            for (timing::Cycle now : nows) {
              const timing::StallReason want = sm.readyWhy(in, reg, p, now);
              for (bool noted : {false, true}) {
                const auto got = sm.wait(in, reg, p, now, noted);
                SCOPED_TRACE(::testing::Message() << "r0..r3 " << a << " " << b << " " << c << " "
                                                  << d << " p0 " << p << " now " << now
                                                  << (noted ? " noted" : " scoreboard"));
                if (want == timing::StallReason::None) {
                  EXPECT_EQ(got.wake, 0u);
                  continue;
                }
                EXPECT_EQ(got.wake, latest);
                EXPECT_EQ(int(got.why), int(want));
                ++waits;
                memory += want == timing::StallReason::Memory;
                scoreboard += want == timing::StallReason::Scoreboard;
              }
            }
          }
  // both reasons and both answers' paths were met
  EXPECT_GT(memory, 100u);
  EXPECT_GT(scoreboard, 100u);
  EXPECT_GT(waits, 1000u);
}

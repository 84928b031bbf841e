#pragma once
// The busy-until cycles of interchangeable units (the SM's operand collectors): an issue takes
// the soonest free unit, busy from its free cycle (or now, if later) for some cycles. Only the
// cycles matter, never which unit is which, so they are kept as a ring ascending from its first
// entry: the soonest free is the first, and the cycle it takes, mostly the latest of all, goes
// in from the ring's back (no pass over the units for the least, no per-unit search).

#include "timing/Types.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ptxsim::timing {

class FreeRing {
public:
  /// `units` units (at least one), all free from cycle 0.
  void reset(uint32_t units) {
    at_.assign(std::max(1u, units), 0);
    n_ = (uint32_t)at_.size();
    first_ = 0;
    back_ = 0;
  }
  uint32_t units() const { return (uint32_t)at_.size(); }
  /// The cycle from which the soonest free unit is free.
  Cycle least() const { return at_[first_]; }
  /// The soonest free unit is busy from max(its free cycle, `now`) for `busy` cycles. Returns
  /// the new least().
  Cycle take(Cycle now, Cycle busy) {
    Cycle *c = at_.data();
    const uint32_t n = n_;
    const uint32_t first = first_;
    const Cycle v = std::max(c[first], now) + busy;
    const uint32_t next = first + 1 == n ? 0 : first + 1;
    first_ = next;
    // (the old first's place is the ring's back now; the new cycle is mostly the latest of
    // all, and then it goes there: with one unit the back is the first, which v is not below)
    if (__builtin_expect(v >= back_, 1)) {
      c[first] = v;
      back_ = v;
      return c[next];
    }
    // (the latest stays the latest: it is not the old first, which is not above v)
    uint32_t at = first;
    for (uint32_t k = 1; k < n; ++k) {
      const uint32_t before = at == 0 ? n - 1 : at - 1;
      if (c[before] <= v)
        break;
      c[at] = c[before];
      at = before;
    }
    c[at] = v;
    return c[next];
  }
  /// The units' free cycles, ascending.
  std::vector<Cycle> cycles() const {
    std::vector<Cycle> v;
    for (uint32_t k = 0; k < at_.size(); ++k)
      v.push_back(at_[(first_ + k) % at_.size()]);
    return v;
  }

private:
  std::vector<Cycle> at_; ///< ascending from first_, around the end
  uint32_t first_ = 0;
  uint32_t n_ = 0; ///< at_.size()
  Cycle back_ = 0;  ///< the latest free cycle (the ring's back)
};

} // namespace ptxsim::timing

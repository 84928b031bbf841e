#pragma once
// A FIFO on a power-of-two ring buffer that grows by doubling and never shrinks, so a queue on a
// hot path allocates only while it reaches its steady-state depth.

#include "base/HugeAlloc.h"
#include <cassert>
#include <cstddef>
#include <utility>
#include <vector>

namespace ptxsim::timing {

template <typename T> class Ring {
public:
  explicit Ring(size_t initialCapacity = 8) {
    size_t c = 1;
    while (c < initialCapacity)
      c <<= 1;
    buf_.resize(c);
    mask_ = c - 1;
  }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  T &front() {
    assert(size_ && "Ring::front on an empty ring");
    return buf_[head_];
  }
  const T &front() const {
    assert(size_ && "Ring::front on an empty ring");
    return buf_[head_];
  }
  const T &operator[](size_t i) const { return buf_[(head_ + i) & mask_]; }
  T &operator[](size_t i) { return buf_[(head_ + i) & mask_]; }
  void push(const T &v) {
    if (size_ > mask_)
      grow();
    buf_[(head_ + size_) & mask_] = v;
    ++size_;
  }
  /// Pushes `v` into a ring kept in ascending order (operator<), after the elements not
  /// greater: front() is then the least. A priority queue for values that mostly arrive in
  /// order (completion cycles from now + a fixed latency): the insertion moves an element or
  /// two, where a heap pays its log n on every push and pop.
  /// (The greater elements move up one place each and `v` is written once where they began,
  /// one store per element passed where a swap took two loads and two stores.)
  void pushSorted(const T &v) {
    if (size_ > mask_)
      grow();
    const size_t mask = mask_;
    size_t i = size_;
    for (; i > 0 && v < buf_[(head_ + i - 1) & mask]; --i)
      buf_[(head_ + i) & mask] = std::move(buf_[(head_ + i - 1) & mask]);
    buf_[(head_ + i) & mask] = v;
    ++size_;
  }
  T pop() {
    assert(size_ && "Ring::pop on an empty ring");
    T v = std::move(buf_[head_]);
    head_ = (head_ + 1) & mask_;
    --size_;
    return v;
  }
  void clear() { head_ = size_ = 0; }

private:
  // (out of line: the pushes on hot paths keep only the test, not the reallocation)
  __attribute__((noinline)) void grow() {
    base::HugeVector<T> n(buf_.size() * 2);
    for (size_t i = 0; i < size_; ++i)
      n[i] = std::move(buf_[(head_ + i) & mask_]);
    buf_.swap(n);
    head_ = 0;
    mask_ = buf_.size() - 1;
  }
  base::HugeVector<T> buf_; // (huge-page memory: base/HugeAlloc.h)
  size_t mask_ = 0; ///< buf_.size() - 1 (kept: the size of a vector is a subtraction and a shift)
  size_t head_ = 0, size_ = 0;
};

} // namespace ptxsim::timing

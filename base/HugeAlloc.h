#pragma once
// Memory for the simulator's large, hot state (warps and their registers, cache tag arrays): from
// 2 MiB-aligned regions that the kernel is asked to back with transparent huge pages
// (madvise(MADV_HUGEPAGE)). A timing run touches tens of MB of such state spread over all SMs;
// on 4 KiB pages most visits to another SM's state miss the host's TLB, and a fresh CTA's warps
// take a page fault per 4 KiB. Blocks are handed out by size class (64 B to 1 MiB, at most a
// quarter wasted, 64-byte aligned) and reused after a free; larger ones are mapped alone.
// PTXSIM_HUGE_PAGES=0 gives the same containers plain operator new memory instead (as does
// `auto`, the default, where huge pages do not pay: hugePagesPay()).

#include <cstddef>
#include <new>
#include <string>
#include <vector>

namespace ptxsim::base {

/// `bytes` of memory aligned to `align` (never null: throws std::bad_alloc when none can be
/// mapped). The regions' blocks are 64-byte aligned; a larger `align` takes operator new's
/// aligned form in either mode, as does one over operator new's own alignment when off.
void *hugeAlloc(size_t bytes, size_t align = alignof(std::max_align_t));
/// Gives back a block of hugeAlloc(bytes, align) (the same `bytes` and `align`).
void hugeFree(void *p, size_t bytes, size_t align = alignof(std::max_align_t)) noexcept;
/// Whether the blocks come from the huge-page regions (PTXSIM_HUGE_PAGES, read once: 1 on, 0
/// off, unset or `auto` as hugePagesPay() says; always off in sanitizer builds).
bool hugePagesOn();
/// `auto`'s choice: transparent huge pages are available (enabled `always` or `madvise`) and the
/// host is not a virtual machine whose balloon takes freed memory back (free page reporting).
/// `root` prefixes the /sys paths it reads (tests give a made-up tree).
bool hugePagesPay(const std::string &root);
/// The huge-page regions' allocator itself, whatever hugePagesOn() says (hugeAlloc's when on).
void *regionAlloc(size_t bytes);
void regionFree(void *p, size_t bytes) noexcept;
/// Host bytes the regions hold (mapped, whether touched or not), for tests.
size_t hugeRegionBytes();

template <class T> struct HugeAllocator {
  using value_type = T;
  HugeAllocator() noexcept = default;
  template <class U> HugeAllocator(const HugeAllocator<U> &) noexcept {}
  T *allocate(size_t n) { return static_cast<T *>(hugeAlloc(n * sizeof(T), alignof(T))); }
  void deallocate(T *p, size_t n) noexcept { hugeFree(p, n * sizeof(T), alignof(T)); }
  template <class U> bool operator==(const HugeAllocator<U> &) const noexcept { return true; }
  template <class U> bool operator!=(const HugeAllocator<U> &) const noexcept { return false; }
};

template <class T> using HugeVector = std::vector<T, HugeAllocator<T>>;

/// A base that puts objects of the class made with `new` (make_unique) in the same memory.
struct HugeAllocated {
  static void *operator new(size_t n) { return hugeAlloc(n); }
  static void *operator new(size_t n, std::align_val_t a) { return hugeAlloc(n, size_t(a)); }
  static void operator delete(void *p, size_t n) noexcept { hugeFree(p, n); }
  static void operator delete(void *p, size_t n, std::align_val_t a) noexcept {
    hugeFree(p, n, size_t(a));
  }
};

} // namespace ptxsim::base

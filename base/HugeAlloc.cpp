#include "base/HugeAlloc.h"

#include <pthread.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <new>
#include <string>

namespace ptxsim::base {
namespace {

constexpr size_t kHuge = size_t(2) << 20;  // a transparent huge page
constexpr size_t kRegion = size_t(64) << 20; // what one mapping holds for the small blocks
constexpr size_t kMaxSmall = size_t(1) << 20;
constexpr unsigned kClasses = 8 + 11 * 4;    // 64..512 by 64, then 4 a doubling to 1 MiB

/// The class of a block of `s` bytes (s <= kMaxSmall) and its size.
unsigned classOf(size_t s, size_t &size) {
  if (s <= 512) {
    const size_t n = s ? (s + 63) / 64 : 1;
    size = n * 64;
    return unsigned(n - 1);
  }
  const unsigned lg = 63u - unsigned(__builtin_clzll(uint64_t(s - 1))); // 2^lg < s <= 2^(lg+1)
  const size_t base = size_t(1) << lg, step = base / 4;
  const size_t n = (s - base + step - 1) / step; // 1..4
  size = base + n * step;
  return 8 + (lg - 9) * 4 + unsigned(n - 1);
}

/// `bytes` (a multiple of kHuge) at a kHuge-aligned address, marked for huge pages; null when
/// the host has no address space left.
void *mapAligned(size_t bytes) {
  const size_t span = bytes + kHuge;
  void *p = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED)
    return nullptr;
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  const uintptr_t start = (a + kHuge - 1) & ~(kHuge - 1);
  if (start > a)
    munmap(p, start - a);
  const uintptr_t end = start + bytes, spanEnd = a + span;
  if (spanEnd > end)
    munmap(reinterpret_cast<void *>(end), spanEnd - end);
#ifdef MADV_HUGEPAGE
  // (fails harmlessly where transparent huge pages are off: the region stays on 4 KiB pages)
  madvise(reinterpret_cast<void *>(start), bytes, MADV_HUGEPAGE);
#endif
  return reinterpret_cast<void *>(start);
}

struct FreeBlock {
  FreeBlock *next;
};

struct Pool {
  std::mutex m;
  FreeBlock *free[kClasses] = {};
  char *cur = nullptr, *end = nullptr; // the region the small blocks are cut from
  size_t mapped = 0;
};

Pool *thePool = nullptr;

Pool &pool() {
  // (never destroyed: blocks may be freed during static destruction; a fork's child, whose
  // other threads are gone, may find the lock held by one of them: the handlers below hold it
  // over the fork, and the child starts with a new one)
  static Pool *p = [] {
    thePool = new Pool;
    pthread_atfork([] { thePool->m.lock(); }, [] { thePool->m.unlock(); },
                   [] { new (&thePool->m) std::mutex(); });
    return thePool;
  }();
  return *p;
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

std::string firstLine(const std::string &path) {
  std::ifstream f(path);
  std::string s;
  std::getline(f, s);
  return s;
}

} // namespace

bool hugePagesPay(const std::string &root) {
  // transparent huge pages at all (madvise'd regions get them under "always" and "madvise")
  const std::string thp = firstLine(root + "/sys/kernel/mm/transparent_hugepage/enabled");
  if (thp.find("[always]") == std::string::npos && thp.find("[madvise]") == std::string::npos)
    return false;
  // A virtual machine whose balloon reports free memory to the host (virtio device 5, feature
  // bit 5, VIRTIO_BALLOON_F_REPORTING) gets back whole free 2 MiB blocks from the guest after a
  // few seconds, and the host discards them: a huge page is then mostly fresh host memory, and
  // its first touch cost more than short runs saved (docs/timing.md, "Huge pages").
  for (int i = 0; i < 64; ++i) {
    const std::string d = root + "/sys/bus/virtio/devices/virtio" + std::to_string(i);
    const std::string id = firstLine(d + "/device");
    if (id.empty()) {
      if (i > 16)
        break;
      continue;
    }
    const std::string features = firstLine(d + "/features");
    if (std::strtoul(id.c_str(), nullptr, 0) == 5 && features.size() > 5 && features[5] == '1')
      return false;
  }
  return true;
}

namespace {

bool readOn() {
  if (kSanitized) // (the sanitizer's allocator checks these containers' bounds and lifetimes)
    return false;
  const char *v = std::getenv("PTXSIM_HUGE_PAGES");
  if (v && std::strcmp(v, "0") == 0)
    return false;
  if (v && std::strcmp(v, "1") == 0)
    return true;
  return hugePagesPay(""); // (unset or "auto")
}

} // namespace

bool hugePagesOn() {
  static const bool on = readOn();
  return on;
}

size_t hugeRegionBytes() {
  Pool &p = pool();
  std::lock_guard<std::mutex> lock(p.m);
  return p.mapped;
}

namespace {
/// Whether a block of this alignment comes from operator new's aligned form (see hugeAlloc).
bool alignedNew(size_t align) {
  return align > 64 || (!hugePagesOn() && align > __STDCPP_DEFAULT_NEW_ALIGNMENT__);
}
} // namespace

void *hugeAlloc(size_t bytes, size_t align) {
  if (alignedNew(align))
    return ::operator new(bytes, std::align_val_t(align));
  return hugePagesOn() ? regionAlloc(bytes) : ::operator new(bytes);
}

void hugeFree(void *q, size_t bytes, size_t align) noexcept {
  if (!q)
    return;
  if (alignedNew(align))
    ::operator delete(q, std::align_val_t(align));
  else if (hugePagesOn())
    regionFree(q, bytes);
  else
    ::operator delete(q);
}

void *regionAlloc(size_t bytes) {
  Pool &p = pool();
  if (bytes > kMaxSmall) {
    const size_t n = (bytes + kHuge - 1) & ~(kHuge - 1);
    void *q = mapAligned(n);
    if (!q)
      throw std::bad_alloc();
    std::lock_guard<std::mutex> lock(p.m);
    p.mapped += n;
    return q;
  }
  size_t size = 0;
  const unsigned c = classOf(bytes, size);
  std::lock_guard<std::mutex> lock(p.m);
  if (FreeBlock *b = p.free[c]) {
    p.free[c] = b->next;
    return b;
  }
  if (size_t(p.end - p.cur) < size) { // (the rest of the region, under 1 MiB, stays unused)
    void *r = mapAligned(kRegion);
    if (!r)
      throw std::bad_alloc();
    p.cur = static_cast<char *>(r);
    p.end = p.cur + kRegion;
    p.mapped += kRegion;
  }
  void *q = p.cur;
  p.cur += size;
  return q;
}

void regionFree(void *q, size_t bytes) noexcept {
  if (!q)
    return;
  Pool &p = pool();
  if (bytes > kMaxSmall) {
    const size_t n = (bytes + kHuge - 1) & ~(kHuge - 1);
    munmap(q, n);
    std::lock_guard<std::mutex> lock(p.m);
    p.mapped -= n;
    return;
  }
  size_t size = 0;
  const unsigned c = classOf(bytes, size);
  std::lock_guard<std::mutex> lock(p.m);
  FreeBlock *b = static_cast<FreeBlock *>(q);
  b->next = p.free[c];
  p.free[c] = b;
}

} // namespace ptxsim::base

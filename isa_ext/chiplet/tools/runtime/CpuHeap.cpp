// The heap of a CPU chiplet's program under the CPU model (docs/chiplets.md).
//
// The measured code's cache misses and the allocator's own instructions depend on where its
// blocks lie and on the allocator's state. With the C library's heap both depend on what the
// transport allocated before (Open MPI allocates much more than the files transport, and
// differently from run to run), so the same program would get other cycles under mpi. While an
// interval is measured, malloc and friends therefore serve blocks from a heap of their own: a
// private reservation aligned to 2 MiB, power-of-two size classes with LIFO free lists and a bump
// pointer, whose state depends only on the program's own allocations. Blocks the runtime or the
// libraries allocate outside intervals, and everything in processes without the model, go to the
// C library as before (this file only forwards there).

#include "isa_ext/chiplet/tools/runtime/CpuHeap.h"

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <pthread.h>
#include <sys/mman.h>

extern "C" {
void *__libc_malloc(size_t);
void __libc_free(void *);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);
}

namespace ptxsim::chiplet {
namespace {

constexpr size_t kReserve = size_t(16) << 30; ///< address space of the program's heap
constexpr size_t kAlign = size_t(2) << 20;
constexpr unsigned kClasses = 40;             ///< blocks of 32 B .. 2^44 B

/// Before every block's user pointer: its size class and the distance back to the block.
struct Header {
  uint64_t cls;
  uint64_t offset;
};

char *gBase = nullptr, *gTop = nullptr, *gEnd = nullptr;
void *gFree[kClasses] = {};
std::atomic<bool> gUser{false};
pthread_t gMainThread; ///< the program's thread (another one, Open MPI's, allocates from libc)
std::atomic_flag gLock = ATOMIC_FLAG_INIT;

struct Guard {
  Guard() {
    while (gLock.test_and_set(std::memory_order_acquire)) {
    }
  }
  ~Guard() { gLock.clear(std::memory_order_release); }
};

/// The C library's malloc_usable_size (not exported under another name).
size_t libcUsable(void *p) {
  static auto fn = (size_t(*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
  return fn ? fn(p) : 0;
}

bool inHeap(const void *p) { return gBase && (const char *)p >= gBase && (const char *)p < gEnd; }

unsigned classOf(size_t total) {
  unsigned c = 0;
  while ((size_t(32) << c) < total)
    ++c;
  return c;
}

/// A block of at least n bytes whose user pointer is aligned to `align` (a power of two >= 16).
void *heapAlloc(size_t n, size_t align) {
  if (n > (size_t(1) << 43) || align > (size_t(1) << 30))
    return nullptr;
  size_t total = n + sizeof(Header) + (align > 16 ? align : 0);
  unsigned c = classOf(total);
  if (c >= kClasses)
    return nullptr;
  Guard g;
  char *block;
  if (gFree[c]) {
    block = (char *)gFree[c];
    gFree[c] = *(void **)block;
  } else {
    size_t size = size_t(32) << c;
    if ((size_t)(gEnd - gTop) < size)
      return nullptr;
    block = gTop;
    gTop += size;
  }
  char *user = block + sizeof(Header);
  if (align > 16)
    user = (char *)(((uintptr_t)user + align - 1) & ~(uintptr_t)(align - 1));
  Header *h = (Header *)user - 1;
  h->cls = c;
  h->offset = (uint64_t)(user - block);
  return user;
}

void heapFree(void *p) {
  Header *h = (Header *)p - 1;
  char *block = (char *)p - h->offset;
  Guard g;
  *(void **)block = gFree[h->cls];
  gFree[h->cls] = block;
}

size_t heapUsable(const void *p) {
  const Header *h = (const Header *)p - 1;
  return (size_t(32) << h->cls) - h->offset;
}

/// The program's own code is running on its main thread: its allocation is the program's.
bool userAlloc() {
  return gUser.load(std::memory_order_relaxed) && pthread_equal(pthread_self(), gMainThread);
}

void *alignedAlloc(size_t align, size_t n) {
  if (userAlloc())
    return heapAlloc(n, align < 16 ? 16 : align);
  return __libc_memalign(align, n);
}

} // namespace

bool cpuHeapInit() {
  if (gBase)
    return true;
  void *m = mmap(nullptr, kReserve + kAlign, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return false;
  gBase = (char *)(((uintptr_t)m + kAlign - 1) & ~(uintptr_t)(kAlign - 1));
  gTop = gBase;
  gEnd = gBase + kReserve;
  gMainThread = pthread_self();
  return true;
}

void cpuHeapSetUser(bool user) { gUser.store(user && gBase, std::memory_order_relaxed); }

} // namespace ptxsim::chiplet

using namespace ptxsim::chiplet;

// The C library's allocation functions (the set its manual says a replacement provides).
extern "C" {

__attribute__((visibility("default"))) void *malloc(size_t n) {
  if (userAlloc()) {
    void *p = heapAlloc(n, 16);
    if (!p)
      errno = ENOMEM;
    return p;
  }
  return __libc_malloc(n);
}

__attribute__((visibility("default"))) void free(void *p) {
  if (!p)
    return;
  if (inHeap(p))
    heapFree(p);
  else
    __libc_free(p);
}

__attribute__((visibility("default"))) void *calloc(size_t k, size_t n) {
  if (!userAlloc())
    return __libc_calloc(k, n);
  if (n && k > SIZE_MAX / n) {
    errno = ENOMEM;
    return nullptr;
  }
  void *p = heapAlloc(k * n, 16);
  if (p)
    std::memset(p, 0, k * n);
  else
    errno = ENOMEM;
  return p;
}

__attribute__((visibility("default"))) void *realloc(void *p, size_t n) {
  if (!p)
    return malloc(n);
  if (!inHeap(p)) {
    if (!userAlloc())
      return __libc_realloc(p, n);
    // a C library block grown by the program: moved into the program's heap
    void *q = heapAlloc(n, 16);
    if (!q)
      return nullptr;
    size_t old = libcUsable(p);
    std::memcpy(q, p, old < n ? old : n);
    __libc_free(p);
    return q;
  }
  if (n == 0) {
    heapFree(p);
    return nullptr;
  }
  if (heapUsable(p) >= n)
    return p;
  void *q = userAlloc() ? heapAlloc(n, 16) : __libc_malloc(n);
  if (!q)
    return nullptr;
  std::memcpy(q, p, heapUsable(p));
  heapFree(p);
  return q;
}

__attribute__((visibility("default"))) void *reallocarray(void *p, size_t k, size_t n) {
  if (n && k > SIZE_MAX / n) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(p, k * n);
}

__attribute__((visibility("default"))) void *memalign(size_t align, size_t n) {
  return alignedAlloc(align, n);
}

__attribute__((visibility("default"))) void *aligned_alloc(size_t align, size_t n) {
  return alignedAlloc(align, n);
}

__attribute__((visibility("default"))) int posix_memalign(void **out, size_t align, size_t n) {
  if (align < sizeof(void *) || (align & (align - 1)))
    return EINVAL;
  void *p = alignedAlloc(align, n);
  if (!p)
    return ENOMEM;
  *out = p;
  return 0;
}

__attribute__((visibility("default"))) void *valloc(size_t n) { return alignedAlloc(4096, n); }

__attribute__((visibility("default"))) void *pvalloc(size_t n) {
  return alignedAlloc(4096, (n + 4095) & ~size_t(4095));
}

__attribute__((visibility("default"))) size_t malloc_usable_size(void *p) {
  if (!p)
    return 0;
  if (inHeap(p))
    return heapUsable(p);
  return libcUsable(p);
}

} // extern "C"

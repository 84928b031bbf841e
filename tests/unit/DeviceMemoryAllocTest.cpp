// DeviceMemory's allocator: overflow-checked sizes, address-ordered best fit with coalescing,
// freed pages handed back to the host (and reading zero on reuse), the device's memory as a
// budget, and sharing an allocation with another DeviceMemory through a memfd (IPC).
#include "ptx/exec/Memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace ex = ptxsim::ptx::exec;

namespace {

constexpr uint64_t kMiB = 1ull << 20;

uint8_t *bytes(uint64_t a) { return static_cast<uint8_t *>(ex::DeviceMemory::host(a)); }

/// Pages of [addr, addr + n) the host holds in memory (mincore).
size_t residentPages(uint64_t addr, uint64_t n) {
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  n += addr % page; // mincore wants a page-aligned start
  addr -= addr % page;
  std::vector<unsigned char> v((n + page - 1) / page);
  EXPECT_EQ(mincore(ex::DeviceMemory::host(addr), n, v.data()), 0);
  size_t r = 0;
  for (unsigned char c : v)
    r += c & 1;
  return r;
}

TEST(DeviceMemoryAlloc, SizesThatOverflowAreRefusedAndAliasNothing) {
  ex::DeviceMemory mem(1ull << 30);
  uint64_t a = mem.allocate(1000, ex::AllocKind::Device);
  ASSERT_NE(a, 0u);
  for (uint64_t huge : std::initializer_list<uint64_t>{UINT64_MAX, UINT64_MAX - 255, UINT64_MAX - 4095,
                                                     1ull << 63, (1ull << 30) + 1})
    EXPECT_EQ(mem.allocate(huge, ex::AllocKind::Device), 0u) << huge;
  EXPECT_EQ(mem.reserveRange(UINT64_MAX, 1 << 21), 0u);
  EXPECT_EQ(mem.reserveRange(1 << 21, 1ull << 63), 0u);
  uint64_t b = mem.allocate(1000, ex::AllocKind::Device);
  ASSERT_NE(b, 0u);
  EXPECT_TRUE(b >= a + 1000 || b + 1000 <= a) << "aliasing allocation";
  EXPECT_EQ(b % 256, 0u);
  EXPECT_EQ(mem.bytesInUse(), 2 * 1024u);
}

TEST(DeviceMemoryAlloc, TheDevicesMemoryIsABudgetOnLiveBytes) {
  ex::DeviceMemory mem(1ull << 30);
  EXPECT_EQ(mem.capacity(), 1ull << 30);
  uint64_t a = mem.allocate(600 * kMiB, ex::AllocKind::Device);
  ASSERT_NE(a, 0u);
  EXPECT_EQ(mem.allocate(600 * kMiB, ex::AllocKind::Device), 0u);
  EXPECT_TRUE(mem.release(a));
  EXPECT_EQ(mem.bytesInUse(), 0u);
  EXPECT_NE(mem.allocate(600 * kMiB, ex::AllocKind::Device), 0u);
}

TEST(DeviceMemoryAlloc, FreedNeighboursCoalesceAndTheTopComesBack) {
  ex::DeviceMemory mem(1ull << 30);
  uint64_t a = mem.allocate(kMiB, ex::AllocKind::Device);
  uint64_t b = mem.allocate(kMiB, ex::AllocKind::Device);
  uint64_t c = mem.allocate(kMiB, ex::AllocKind::Device);
  uint64_t d = mem.allocate(kMiB, ex::AllocKind::Device);
  ASSERT_TRUE(a && b == a + kMiB && c == b + kMiB && d == c + kMiB);
  EXPECT_TRUE(mem.release(a));
  EXPECT_TRUE(mem.release(c));
  EXPECT_EQ(mem.freeListBytes(), 2 * kMiB);
  EXPECT_TRUE(mem.release(b)); // a, b and c merge into one 3 MiB block
  EXPECT_EQ(mem.allocate(3 * kMiB, ex::AllocKind::Device), a);
  EXPECT_EQ(mem.freeListBytes(), 0u);
  EXPECT_TRUE(mem.release(a));
  EXPECT_TRUE(mem.release(d)); // the last one merges everything back into the top
  EXPECT_EQ(mem.freeListBytes(), 0u);
  EXPECT_EQ(mem.allocate(8 * kMiB, ex::AllocKind::Device), a);
}

TEST(DeviceMemoryAlloc, BestFitTakesTheSmallestBlockThatHolds) {
  ex::DeviceMemory mem(1ull << 30);
  uint64_t big = mem.allocate(4 * kMiB, ex::AllocKind::Device);
  uint64_t sep1 = mem.allocate(256, ex::AllocKind::Device);
  uint64_t mid = mem.allocate(2 * kMiB, ex::AllocKind::Device);
  uint64_t sep2 = mem.allocate(256, ex::AllocKind::Device);
  ASSERT_TRUE(big && sep1 && mid && sep2);
  EXPECT_TRUE(mem.release(big));
  EXPECT_TRUE(mem.release(mid));
  EXPECT_EQ(mem.allocate(kMiB + kMiB / 2, ex::AllocKind::Device), mid);
  EXPECT_EQ(mem.allocate(3 * kMiB, ex::AllocKind::Device), big);
  EXPECT_EQ(mem.allocate(kMiB / 2, ex::AllocKind::Device), mid + kMiB + kMiB / 2);
}

TEST(DeviceMemoryAlloc, GrowingABufferToOneGiBNeverFails) {
  ex::DeviceMemory mem(2ull << 30);
  uint64_t old = 0;
  for (uint64_t mib = 1; mib <= 1024; ++mib) {
    uint64_t p = mem.allocate(mib * kMiB, ex::AllocKind::Device);
    ASSERT_NE(p, 0u) << "failed at " << mib << " MiB";
    bytes(p)[0] = uint8_t(mib);
    bytes(p)[mib * kMiB - 1] = uint8_t(mib);
    if (old) {
      EXPECT_TRUE(mem.release(old));
    }
    old = p;
    EXPECT_EQ(mem.bytesInUse(), mib * kMiB);
    // freed buffers merge until the next one fits in them: the free space below the top stays
    // under twice the live buffer (without merging it would be the sum of all the old ones)
    EXPECT_LE(mem.freeListBytes(), 2 * mib * kMiB);
  }
}

TEST(DeviceMemoryAlloc, FreedPagesGoBackToTheHostAndReadZeroWhenReused) {
  ex::DeviceMemory mem(1ull << 30);
  uint64_t lo = mem.allocate(100, ex::AllocKind::Device); // neighbours share the edge pages
  uint64_t a = mem.allocate(16 * kMiB + 300, ex::AllocKind::Device);
  uint64_t hi = mem.allocate(100, ex::AllocKind::Device);
  ASSERT_TRUE(lo && a && hi);
  std::memset(bytes(lo), 0x11, 100);
  std::memset(bytes(a), 0xab, 16 * kMiB + 300);
  std::memset(bytes(hi), 0x22, 100);
  EXPECT_GE(residentPages(a, 16 * kMiB), 16 * kMiB / 4096 - 1);
  EXPECT_TRUE(mem.release(a));
  EXPECT_LE(residentPages(a, 16 * kMiB + 300), 2u) << "freed pages still held";
  EXPECT_EQ(bytes(lo)[99], 0x11) << "the neighbour below lost its bytes";
  EXPECT_EQ(bytes(hi)[0], 0x22) << "the neighbour above lost its bytes";
  uint64_t b = mem.allocate(16 * kMiB + 300, ex::AllocKind::Device);
  ASSERT_EQ(b, a);
  EXPECT_LE(residentPages(b, 16 * kMiB + 300), 2u) << "the reuse touched the pages";
  size_t nonzero = 0;
  for (uint64_t i = 0; i < 16 * kMiB + 300; i += 61)
    nonzero += bytes(b)[i] != 0;
  nonzero += bytes(b)[16 * kMiB + 299] != 0;
  EXPECT_EQ(nonzero, 0u) << "reused memory is not zero";
}

TEST(DeviceMemoryAlloc, ChurnKeepsTheHostMemorySmall) {
  ex::DeviceMemory mem(64ull << 30);
  std::mt19937_64 rng(42);
  uint64_t live[8] = {};
  uint64_t size[8] = {};
  for (int it = 0; it < 3000; ++it) {
    unsigned s = unsigned(rng() % 8);
    if (live[s]) {
      EXPECT_EQ(bytes(live[s])[size[s] / 2], uint8_t(s + 1)) << "allocation " << it;
      ASSERT_TRUE(mem.release(live[s]));
    }
    size[s] = (1 + rng() % 64) * kMiB;
    live[s] = mem.allocate(size[s], ex::AllocKind::Device);
    ASSERT_NE(live[s], 0u);
    EXPECT_EQ(bytes(live[s])[size[s] / 2], 0);
    std::memset(bytes(live[s]) + size[s] / 2, int(s + 1), 4096);
  }
  size_t resident = 0;
  for (int s = 0; s < 8; ++s)
    resident += residentPages(live[s], size[s]);
  // one touched page each (a 2 MiB one where the host backs memory with huge pages)
  EXPECT_LE(resident, 8u * 513) << "pages of freed allocations are still held";
  // all the address space ever used is within a few live sets of the start
  EXPECT_LE(mem.freeListBytes(), 8 * 64 * kMiB);
}

TEST(DeviceMemoryAlloc, ZeroByteAllocationsHaveUniqueAddresses) {
  ex::DeviceMemory mem(1ull << 30);
  uint64_t a = mem.allocate(0, ex::AllocKind::Device), b = mem.allocate(0, ex::AllocKind::Device);
  EXPECT_TRUE(a && b && a != b);
  EXPECT_FALSE(mem.valid(a, 1));
}

TEST(DeviceMemoryAlloc, SharedAllocationIsSeenThroughAnotherMapping) {
  ex::DeviceMemory exporter(1ull << 30), importer(1ull << 30);
  uint64_t lo = exporter.allocate(300, ex::AllocKind::Device); // shares the first page
  uint64_t a = exporter.allocate(3 * 4096 + 1000, ex::AllocKind::Device);
  uint64_t hi = exporter.allocate(300, ex::AllocKind::Device); // shares the last page
  ASSERT_TRUE(lo && a && hi);
  std::memset(bytes(lo), 0x33, 300);
  std::memset(bytes(hi), 0x44, 300);
  for (int i = 0; i < 3 * 4096 + 1000; ++i)
    bytes(a)[i] = uint8_t(i * 7);
  uint64_t off = 0, fdBytes = 0;
  int fd = exporter.exportShared(a, off, fdBytes);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(fdBytes % 4096, 0u);
  EXPECT_EQ(bytes(a)[5000], uint8_t(5000 * 7)) << "contents lost when shared";
  EXPECT_EQ(bytes(lo)[299], 0x33);
  uint64_t off2 = 0, fdBytes2 = 0;
  EXPECT_EQ(exporter.exportShared(a, off2, fdBytes2), fd) << "not idempotent";
  EXPECT_EQ(exporter.exportShared(lo, off2, fdBytes2), -1) << "page shared twice";
  EXPECT_EQ(importer.importShared(fd, fdBytes, off, UINT64_MAX), 0u);
  uint64_t b = importer.importShared(fd, fdBytes, off, 3 * 4096 + 1000);
  ASSERT_NE(b, 0u);
  EXPECT_EQ(importer.find(b)->kind, ex::AllocKind::Ipc);
  EXPECT_EQ(bytes(b)[5000], uint8_t(5000 * 7));
  bytes(b)[6000] = 0xee; // the importer writes, the exporter sees it
  EXPECT_EQ(bytes(a)[6000], 0xee);
  EXPECT_FALSE(importer.release(b)) << "an opened handle is not freed like an allocation";
  EXPECT_TRUE(importer.closeShared(b));
  EXPECT_FALSE(importer.valid(b, 1));
  EXPECT_EQ(bytes(a)[6000], 0xee);
  EXPECT_TRUE(exporter.release(a));
  EXPECT_EQ(bytes(lo)[299], 0x33) << "neighbour lost its bytes when the share ended";
  EXPECT_EQ(bytes(hi)[0], 0x44);
  uint64_t c = exporter.allocate(3 * 4096 + 1000, ex::AllocKind::Device);
  ASSERT_EQ(c, a);
  EXPECT_EQ(bytes(c)[6000], 0) << "reused memory is not zero after sharing";
  bytes(c)[10] = 1; // private again: writable
}

TEST(DeviceMemoryAlloc, LocalBytesAreZeroAndLazy) {
  ex::LocalBytes l;
  ASSERT_TRUE(l.reset(1000, false));
  EXPECT_EQ(l.data()[999], 0);
  l.data()[10] = 5;
  ASSERT_TRUE(l.reset(1000, true));
  EXPECT_EQ(l.data()[10], 0);
  ASSERT_TRUE(l.reset(8ull << 30, false)); // 8 GiB: reserved, not touched
  l.data()[(8ull << 30) - 1] = 7;
  l.data()[0] = 7;
  ASSERT_TRUE(l.reset(8ull << 30, true));
  EXPECT_EQ(l.data()[(8ull << 30) - 1], 0);
  EXPECT_EQ(l.data()[0], 0);
  ASSERT_TRUE(l.reset(100, false));
  EXPECT_EQ(l.data()[10], 0);
  // written as a small buffer, then a large one, then small again: still zero
  l.data()[20] = 9;
  ASSERT_TRUE(l.reset(4ull << 20, true));
  ASSERT_TRUE(l.reset(100, false));
  EXPECT_EQ(l.data()[20], 0);
}

} // namespace

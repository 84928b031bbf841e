// DeviceMemory's reserved ranges and mappings (the driver's virtual memory management).
#include "ptx/exec/Memory.h"

#include <gtest/gtest.h>

#include <cstring>

namespace ex = ptxsim::ptx::exec;

namespace {

constexpr uint64_t kMiB = 1ull << 20;

TEST(DeviceMemoryVmm, ReservedRangeIsNotAccessibleUntilMapped) {
  ex::DeviceMemory mem(1ull << 30);
  uint64_t before = mem.allocate(100, ex::AllocKind::Device); // leaves the bump unaligned
  uint64_t va = mem.reserveRange(8 * kMiB, 2 * kMiB);
  ASSERT_NE(va, 0u);
  EXPECT_EQ(va % (2 * kMiB), 0u);
  EXPECT_FALSE(mem.valid(va, 4));
  ASSERT_TRUE(mem.mapRange(va, 2 * kMiB));
  EXPECT_TRUE(mem.valid(va, 2 * kMiB));
  EXPECT_FALSE(mem.valid(va, 2 * kMiB + 1)); // nothing mapped after it
  EXPECT_FALSE(mem.mapRange(va + kMiB, 2 * kMiB)) << "overlapping mapping accepted";
  ASSERT_TRUE(mem.mapRange(va + 2 * kMiB, 2 * kMiB));
  // adjacent mappings are one buffer for copies, a gap is not
  EXPECT_TRUE(mem.valid(va + kMiB, 2 * kMiB));
  ASSERT_TRUE(mem.mapRange(va + 6 * kMiB, 2 * kMiB));
  EXPECT_FALSE(mem.valid(va + 3 * kMiB, 4 * kMiB));
  EXPECT_EQ(mem.find(va + 10)->kind, ex::AllocKind::Mapped);
  EXPECT_TRUE(mem.unmapRange(va));
  EXPECT_FALSE(mem.valid(va, 4));
  EXPECT_FALSE(mem.unmapRange(va));
  EXPECT_TRUE(mem.valid(before, 100)) << "ordinary allocation disturbed";
  // the alignment gap below the reservation serves later allocations
  uint64_t small = mem.allocate(256, ex::AllocKind::Device);
  EXPECT_LT(small, va);
  std::memset(ex::DeviceMemory::host(va + 6 * kMiB), 0x7f, 2 * kMiB);
  EXPECT_TRUE(mem.unmapRange(va + 2 * kMiB));
  EXPECT_TRUE(mem.unmapRange(va + 6 * kMiB));
  mem.releaseRange(va, 8 * kMiB);
  // the released range merges with the free gap below it: the next allocation starts in the gap
  uint64_t reuse = mem.allocate(8 * kMiB, ex::AllocKind::Device);
  EXPECT_TRUE(reuse <= va && reuse + 8 * kMiB > va) << "released range not reused";
  EXPECT_EQ(*static_cast<uint8_t *>(ex::DeviceMemory::host(va + 7 * kMiB - (va - reuse))), 0);
  EXPECT_EQ(*static_cast<uint8_t *>(ex::DeviceMemory::host(va + 6 * kMiB)), 0) << "not cleared";
}

} // namespace

// base/HugeAlloc.h: the memory of the simulator's warps, registers, scoreboards and cache tags.
// Blocks of every size class must be usable, apart and aligned; freed blocks are reused; large
// blocks come from mappings of their own that go back to the host; and the regions are the
// ones the kernel was asked to back with huge pages.

#include "base/HugeAlloc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace ptxsim::base;

namespace {

/// The "THPeligible" line of /proc/self/smaps for the mapping holding `p`: -1 when not found.
int thpEligible(const void *p) {
  std::ifstream f("/proc/self/smaps");
  std::string line;
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  while (std::getline(f, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find('-') < 17) {
      inside = a >= lo && a < hi;
      continue;
    }
    if (inside && line.rfind("THPeligible:", 0) == 0)
      return std::atoi(line.c_str() + 12);
  }
  return -1;
}

bool thpOff() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string s;
  std::getline(f, s);
  return s.empty() || s.find("[never]") != std::string::npos;
}

} // namespace

TEST(HugeAlloc, BlocksOfEverySizeAreApartAlignedAndKeepTheirBytes) {
  std::mt19937 rng(7);
  std::vector<std::pair<unsigned char *, size_t>> blocks;
  for (int i = 0; i < 3000; ++i) {
    // sizes from 1 byte to 1.5 MiB, most of them small, some on the class boundaries
    size_t n = i % 7 == 0    ? (size_t(64) << (i % 15))
               : i % 50 == 1 ? size_t(1) + rng() % (1536 * 1024)
                             : size_t(1) + rng() % 4096;
    auto *p = static_cast<unsigned char *>(hugeAlloc(n));
    ASSERT_NE(p, nullptr);
    if (hugePagesOn()) {
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << n;
    }
    std::memset(p, i & 0xff, n);
    blocks.push_back({p, n});
  }
  std::vector<std::pair<uintptr_t, uintptr_t>> spans;
  for (size_t i = 0; i < blocks.size(); ++i) {
    auto [p, n] = blocks[i];
    // every byte as it was written: no other block overlaps it
    for (size_t k = 0; k < n; k += 61)
      ASSERT_EQ(p[k], i & 0xff) << "block " << i << " of " << n << " bytes, byte " << k;
    ASSERT_EQ(p[n - 1], i & 0xff);
    spans.push_back({reinterpret_cast<uintptr_t>(p), reinterpret_cast<uintptr_t>(p) + n});
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i)
    ASSERT_LE(spans[i - 1].second, spans[i].first);
  for (auto [p, n] : blocks)
    hugeFree(p, n);
}

TEST(HugeAlloc, AFreedBlockIsReusedForItsSizeClass) {
  if (!hugePagesOn())
    GTEST_SKIP() << "PTXSIM_HUGE_PAGES=0 or a sanitizer build: operator new's blocks";
  void *a = hugeAlloc(3000);
  hugeFree(a, 3000);
  void *b = hugeAlloc(2900); // (the same class: 2,560 < n <= 3,072)
  EXPECT_EQ(a, b);
  void *c = hugeAlloc(3500); // (the next class)
  EXPECT_NE(c, b);
  hugeFree(b, 2900);
  hugeFree(c, 3500);
}

TEST(HugeAlloc, LargeBlocksAreMappedAloneOnHugePageBoundariesAndGoBack) {
  if (!hugePagesOn())
    GTEST_SKIP() << "PTXSIM_HUGE_PAGES=0 or a sanitizer build: operator new's blocks";
  const size_t before = hugeRegionBytes();
  const size_t n = (size_t(5) << 20) + 12345;
  void *p = hugeAlloc(n);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (size_t(2) << 20), 0u);
  EXPECT_EQ(hugeRegionBytes(), before + (size_t(6) << 20));
  std::memset(p, 1, n);
  if (!thpOff()) {
    EXPECT_EQ(thpEligible(p), 1) << "the mapping was not marked for transparent huge pages";
  }
  hugeFree(p, n);
  EXPECT_EQ(hugeRegionBytes(), before);
}

TEST(HugeAlloc, SmallBlocksComeFromRegionsMarkedForHugePages) {
  if (!hugePagesOn())
    GTEST_SKIP() << "PTXSIM_HUGE_PAGES=0 or a sanitizer build: operator new's blocks";
  if (thpOff())
    GTEST_SKIP() << "transparent huge pages are off on this host";
  void *p = hugeAlloc(4096);
  EXPECT_EQ(thpEligible(p), 1);
  hugeFree(p, 4096);
}

TEST(HugeAlloc, VectorsGrowShrinkAndCopyLikeStdVectors) {
  HugeVector<uint64_t> v;
  std::vector<uint64_t> ref;
  std::mt19937 rng(3);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t x = rng();
    if (x % 5 == 0 && !v.empty()) {
      v.pop_back();
      ref.pop_back();
    } else {
      v.push_back(x);
      ref.push_back(x);
    }
    if (i % 4999 == 0) {
      v.assign(ref.size() / 2, 9);
      ref.assign(ref.size() / 2, 9);
    }
  }
  ASSERT_EQ(v.size(), ref.size());
  EXPECT_TRUE(std::equal(v.begin(), v.end(), ref.begin()));
  HugeVector<uint64_t> w = v;
  v.clear();
  v.shrink_to_fit();
  EXPECT_TRUE(std::equal(w.begin(), w.end(), ref.begin()));
}

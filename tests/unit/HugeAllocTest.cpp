// base/HugeAlloc.h: the memory of the simulator's warps, registers, scoreboards and cache tags.
// The regions' allocator (whether or not this host's `auto` uses it): blocks of every size class
// must be usable, apart and aligned; freed blocks are reused; large blocks come from mappings of
// their own that go back to the host; the regions are the ones the kernel was asked to back with
// huge pages. And `auto`'s choice from the host's /sys.

#include "base/HugeAlloc.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
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
    auto *p = static_cast<unsigned char *>(regionAlloc(n));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << n;
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
    regionFree(p, n);
}

TEST(HugeAlloc, AFreedBlockIsReusedForItsSizeClass) {
  void *a = regionAlloc(3000);
  regionFree(a, 3000);
  void *b = regionAlloc(2900); // (the same class: 2,560 < n <= 3,072)
  EXPECT_EQ(a, b);
  void *c = regionAlloc(3500); // (the next class)
  EXPECT_NE(c, b);
  regionFree(b, 2900);
  regionFree(c, 3500);
}

TEST(HugeAlloc, LargeBlocksAreMappedAloneOnHugePageBoundariesAndGoBack) {
  const size_t before = hugeRegionBytes();
  const size_t n = (size_t(5) << 20) + 12345;
  void *p = regionAlloc(n);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (size_t(2) << 20), 0u);
  EXPECT_EQ(hugeRegionBytes(), before + (size_t(6) << 20));
  std::memset(p, 1, n);
  if (!thpOff()) {
    EXPECT_EQ(thpEligible(p), 1) << "the mapping was not marked for transparent huge pages";
  }
  regionFree(p, n);
  EXPECT_EQ(hugeRegionBytes(), before);
}

TEST(HugeAlloc, SmallBlocksComeFromRegionsMarkedForHugePages) {
  if (thpOff())
    GTEST_SKIP() << "transparent huge pages are off on this host";
  void *p = regionAlloc(4096);
  EXPECT_EQ(thpEligible(p), 1);
  regionFree(p, 4096);
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

namespace {

/// A made-up /sys under a fresh directory: the THP setting and one virtio device.
std::string fakeSys(const std::string &thp, const char *deviceId, const char *features) {
  char tmpl[] = "/tmp/ptxsim_hugesys_XXXXXX";
  std::string root = mkdtemp(tmpl);
  auto mk = [](const std::string &d) { mkdir(d.c_str(), 0755); };
  mk(root + "/sys");
  mk(root + "/sys/kernel");
  mk(root + "/sys/kernel/mm");
  mk(root + "/sys/kernel/mm/transparent_hugepage");
  std::ofstream(root + "/sys/kernel/mm/transparent_hugepage/enabled") << thp << "\n";
  if (deviceId) {
    mk(root + "/sys/bus");
    mk(root + "/sys/bus/virtio");
    mk(root + "/sys/bus/virtio/devices");
    mk(root + "/sys/bus/virtio/devices/virtio0"); // (a block device first, as on a VM)
    std::ofstream(root + "/sys/bus/virtio/devices/virtio0/device") << "0x0002\n";
    std::ofstream(root + "/sys/bus/virtio/devices/virtio0/features") << "0010001001100100\n";
    mk(root + "/sys/bus/virtio/devices/virtio1");
    std::ofstream(root + "/sys/bus/virtio/devices/virtio1/device") << deviceId << "\n";
    std::ofstream(root + "/sys/bus/virtio/devices/virtio1/features") << features << "\n";
  }
  return root;
}

void removeTree(const std::string &root) {
  std::string cmd = "rm -rf '" + root + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
}

} // namespace

TEST(HugeAlloc, AutoUsesHugePagesWhereTheyAreOnAndNoBalloonTakesFreedMemoryBack) {
  struct Case {
    const char *thp, *device, *features;
    bool pay;
  } cases[] = {
      {"always [madvise] never", nullptr, nullptr, true},           // bare metal
      {"[always] madvise never", nullptr, nullptr, true},
      {"always madvise [never]", nullptr, nullptr, false},          // THP off
      {"always [madvise] never", "0x0005", "0110010100000000", false}, // balloon, free page reporting
      {"always [madvise] never", "0x0005", "0110000100000000", true},  // balloon without it
      {"always [madvise] never", "0x0001", "0110010100000000", true},  // bit 5 of a network device
  };
  for (const Case &c : cases) {
    const std::string root = fakeSys(c.thp, c.device, c.features);
    EXPECT_EQ(hugePagesPay(root), c.pay) << c.thp << " " << (c.device ? c.device : "-") << " "
                                         << (c.features ? c.features : "-");
    removeTree(root);
  }
  // no /sys at all: no transparent huge pages to ask for
  EXPECT_FALSE(hugePagesPay("/nonexistent/ptxsim"));
  // this process: `auto` (the test runs without PTXSIM_HUGE_PAGES) is this host's answer
  const char *v = std::getenv("PTXSIM_HUGE_PAGES");
  if (!v || std::string(v) == "auto") {
    EXPECT_EQ(hugePagesOn(), hugePagesPay(""));
  }
}

TEST(HugeAlloc, TheContainersGetWorkingMemoryEitherWay) {
  // hugeAlloc follows hugePagesOn(): regions or operator new; both must serve a vector
  HugeVector<uint32_t> v(100000, 7);
  v.push_back(8);
  EXPECT_EQ(v[99999], 7u);
  EXPECT_EQ(v.back(), 8u);
}

TEST(HugeAlloc, OverAlignedTypesKeepTheirAlignmentEitherWay) {
  // (an SM's warp slots are alignas(64): one cache line each; operator new's plain form gives
  // 16 bytes, so the allocator takes its aligned form when the regions are off)
  struct alignas(64) Line64 {
    uint64_t v[8];
  };
  struct alignas(256) Line256 {
    uint64_t v[32];
  };
  for (size_t n : {1u, 3u, 17u, 1000u}) {
    HugeVector<Line64> a(n);
    HugeVector<Line256> b(n);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % 64, 0u) << n;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 256, 0u) << n;
    a.back().v[7] = 1;
    b.back().v[31] = 2;
  }
  struct alignas(128) Obj : HugeAllocated {
    uint64_t v[20];
  };
  for (int i = 0; i < 8; ++i) {
    auto o = std::make_unique<Obj>();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(o.get()) % 128, 0u);
  }
}

// Every identifier the PTX ISA predefines (its "Predefined Identifiers" table: the special
// registers plus the WARP_SZ constant), each read by a kernel and checked against the value the
// launch implies. One test per identifier, so a regression names the register.

#include "ExecHarness.h"
#include "ptx/sema/OpcodeTable.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace ptxsim::test {
namespace {

constexpr unsigned kGridX = 3, kGridY = 2, kGridZ = 2;
constexpr unsigned kBlockX = 8, kBlockY = 4, kBlockZ = 2; // 64 threads: two warps per CTA
constexpr unsigned kThreads = kBlockX * kBlockY * kBlockZ;
constexpr unsigned kCtas = kGridX * kGridY * kGridZ;
constexpr unsigned kStaticShared = 256, kDynShared = 100;

/// Where a value came from: the launch coordinates of the thread that read it.
struct Where {
  unsigned ctaid[3], tid[3];
  unsigned linearTid() const { return (tid[2] * kBlockY + tid[1]) * kBlockX + tid[0]; }
  unsigned lane() const { return linearTid() % 32; }
};

/// Launches a kernel that reads `reg` (of PTX type `type`: u32, u64, b32 or pred) into a 64-bit
/// slot per thread, with a static shared array and dynamic shared memory so the smem registers
/// have something to report. Returns the values in (CTA, thread) order.
std::vector<uint64_t> readEverywhere(ExecHarness &h, const std::string &reg, const std::string &type) {
  std::string read;
  if (type == "pred")
    read = "  mov.pred %p, " + reg + "; selp.u64 %v, 1, 0, %p;\n";
  else if (type == "u64" || type == "b64")
    read = "  mov." + type + " %v, " + reg + ";\n";
  else
    read = "  mov." + type + " %w, " + reg + "; cvt.u64.u32 %v, %w;\n";
  std::string ptx = ptxHeader() +
                    ".visible .entry k(.param .u64 out) {\n"
                    "  .shared .align 8 .b8 stat[" + std::to_string(kStaticShared) + "];\n"
                    "  .reg .b64 %o, %v, %a; .reg .b32 %w, %t, %c, %n; .reg .pred %p;\n"
                    "  mov.u32 %w, 0; st.shared.u32 [stat], %w;\n" +
                    read +
                    // linear CTA id, then linear thread id within the CTA
                    "  mov.u32 %c, %ctaid.z; mov.u32 %n, %nctaid.y; mov.u32 %t, %ctaid.y;\n"
                    "  mad.lo.u32 %c, %c, %n, %t; mov.u32 %n, %nctaid.x; mov.u32 %t, %ctaid.x;\n"
                    "  mad.lo.u32 %c, %c, %n, %t;\n"
                    "  mov.u32 %t, %tid.z; mov.u32 %n, %ntid.y; mov.u32 %w, %tid.y;\n"
                    "  mad.lo.u32 %t, %t, %n, %w; mov.u32 %n, %ntid.x; mov.u32 %w, %tid.x;\n"
                    "  mad.lo.u32 %t, %t, %n, %w;\n"
                    "  mov.u32 %n, " + std::to_string(kThreads) + "; mad.lo.u32 %c, %c, %n, %t;\n"
                    "  ld.param.u64 %o, [out]; mul.wide.u32 %a, %c, 8; add.s64 %o, %o, %a;\n"
                    "  st.global.u64 [%o], %v;\n"
                    "  ret;\n}\n";
  EXPECT_TRUE(h.load(ptx)) << h.errors << "\n" << ptx;
  if (h.module < 0)
    return {};
  uint64_t out = h.alloc(kCtas * kThreads * 8);
  auto r = h.launch("k", {kGridX, kGridY, kGridZ}, {kBlockX, kBlockY, kBlockZ}, {out}, kDynShared);
  EXPECT_TRUE(r.ok()) << r.message;
  return r.ok() ? h.read<uint64_t>(out, kCtas * kThreads) : std::vector<uint64_t>();
}

/// Checks `want(where)` for every thread.
void expectEverywhere(const std::string &reg, const std::string &type,
                      const std::function<uint64_t(const Where &)> &want) {
  ExecHarness h;
  std::vector<uint64_t> v = readEverywhere(h, reg, type);
  ASSERT_EQ(v.size(), kCtas * kThreads);
  unsigned bad = 0;
  for (unsigned cz = 0; cz < kGridZ; ++cz)
    for (unsigned cy = 0; cy < kGridY; ++cy)
      for (unsigned cx = 0; cx < kGridX; ++cx)
        for (unsigned tz = 0; tz < kBlockZ; ++tz)
          for (unsigned ty = 0; ty < kBlockY; ++ty)
            for (unsigned tx = 0; tx < kBlockX; ++tx) {
              Where w{{cx, cy, cz}, {tx, ty, tz}};
              unsigned cta = (cz * kGridY + cy) * kGridX + cx;
              uint64_t got = v[cta * kThreads + w.linearTid()];
              uint64_t exp = want(w);
              if (got != exp && bad++ < 5)
                ADD_FAILURE() << reg << " in CTA (" << cx << "," << cy << "," << cz << ") thread ("
                              << tx << "," << ty << "," << tz << "): got " << got << ", want " << exp;
            }
}

uint64_t constant(uint64_t v, const Where &) { return v; }

// --- thread and grid geometry ----------------------------------------------------------------

TEST(SpecialRegister, Tid) {
  for (int c = 0; c < 3; ++c)
    expectEverywhere(std::string("%tid.") + "xyz"[c], "u32", [c](const Where &w) { return w.tid[c]; });
}
TEST(SpecialRegister, Ntid) {
  const unsigned dims[3] = {kBlockX, kBlockY, kBlockZ};
  for (int c = 0; c < 3; ++c)
    expectEverywhere(std::string("%ntid.") + "xyz"[c], "u32", [&](const Where &) { return dims[c]; });
}
TEST(SpecialRegister, Ctaid) {
  for (int c = 0; c < 3; ++c)
    expectEverywhere(std::string("%ctaid.") + "xyz"[c], "u32", [c](const Where &w) { return w.ctaid[c]; });
}
TEST(SpecialRegister, Nctaid) {
  const unsigned dims[3] = {kGridX, kGridY, kGridZ};
  for (int c = 0; c < 3; ++c)
    expectEverywhere(std::string("%nctaid.") + "xyz"[c], "u32", [&](const Where &) { return dims[c]; });
}
TEST(SpecialRegister, Laneid) {
  expectEverywhere("%laneid", "u32", [](const Where &w) { return w.lane(); });
}
TEST(SpecialRegister, Warpid) {
  // The warp's slot; ptxsim numbers a CTA's warps from 0 (hardware may use any free slot, which
  // is why the ISA says the value is volatile; within one CTA the slots are distinct).
  expectEverywhere("%warpid", "u32", [](const Where &w) { return w.linearTid() / 32; });
}
TEST(SpecialRegister, Nwarpid) {
  expectEverywhere("%nwarpid", "u32", [](const Where &w) { return constant(64, w); });
}
TEST(SpecialRegister, SmidAndNsmid) {
  ExecHarness h;
  uint32_t sms = ptx::exec::EngineConfig().numSms;
  std::vector<uint64_t> n = readEverywhere(h, "%nsmid", "u32");
  ASSERT_FALSE(n.empty());
  for (uint64_t x : n)
    EXPECT_EQ(x, sms);
  ExecHarness h2;
  std::vector<uint64_t> s = readEverywhere(h2, "%smid", "u32");
  ASSERT_FALSE(s.empty());
  for (size_t i = 0; i < s.size(); ++i) {
    EXPECT_LT(s[i], sms);
    EXPECT_EQ(s[i], s[i / kThreads * kThreads]) << "all threads of a CTA share an SM";
  }
}
TEST(SpecialRegister, Gridid) {
  ExecHarness h;
  std::vector<uint64_t> a = readEverywhere(h, "%gridid", "u64");
  ExecHarness h2;
  std::vector<uint64_t> b = readEverywhere(h2, "%gridid", "u64");
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i], a[0]);
    EXPECT_EQ(b[i], b[0]);
  }
  EXPECT_NE(a[0], b[0]) << "each launch gets its own grid id";
}

// --- lane masks ------------------------------------------------------------------------------

TEST(SpecialRegister, LanemaskEq) {
  expectEverywhere("%lanemask_eq", "u32", [](const Where &w) { return 1ull << w.lane(); });
}
TEST(SpecialRegister, LanemaskLe) {
  expectEverywhere("%lanemask_le", "u32", [](const Where &w) { return (2ull << w.lane()) - 1; });
}
TEST(SpecialRegister, LanemaskLt) {
  expectEverywhere("%lanemask_lt", "u32", [](const Where &w) { return (1ull << w.lane()) - 1; });
}
TEST(SpecialRegister, LanemaskGe) {
  expectEverywhere("%lanemask_ge", "u32",
                   [](const Where &w) { return 0xffffffffull & ~((1ull << w.lane()) - 1); });
}
TEST(SpecialRegister, LanemaskGt) {
  expectEverywhere("%lanemask_gt", "u32",
                   [](const Where &w) { return 0xffffffffull & ~((2ull << w.lane()) - 1); });
}

// --- clocks and timers -----------------------------------------------------------------------

/// Runs one warp that reads `first`, does some work, reads `second`, and stores both.
/// A register of 32 bits is widened to 64.
std::string readInto(const std::string &dst, const std::string &reg) {
  const ptx::SpecialRegInfo *sr = ptx::lookupSpecialRegister(reg);
  if (sr && sr->type == ptx::ScalarType::u64)
    return "  mov.u64 " + dst + ", " + reg + ";\n";
  return "  mov.u32 %w, " + reg + "; cvt.u64.u32 " + dst + ", %w;\n";
}

std::pair<std::vector<uint64_t>, std::vector<uint64_t>> twoReads(const std::string &first,
                                                                 const std::string &second) {
  std::string ptx = ptxHeader() +
                    ".visible .entry k(.param .u64 out) {\n"
                    "  .reg .b64 %o, %x, %y, %a; .reg .b32 %w, %i; .reg .pred %p;\n" + readInto("%x", first) +
                    "  mov.u32 %i, 0;\nL: add.u32 %i, %i, 1; setp.lt.u32 %p, %i, 50; @%p bra L;\n" +
                    readInto("%y", second) +
                    "  ld.param.u64 %o, [out]; mov.u32 %w, %laneid; mul.wide.u32 %a, %w, 16;\n"
                    "  add.s64 %o, %o, %a; st.global.v2.u64 [%o], {%x, %y};\n"
                    "  ret;\n}\n";
  ExecHarness h;
  EXPECT_TRUE(h.load(ptx)) << h.errors << "\n" << ptx;
  uint64_t out = h.alloc(32 * 16);
  auto r = h.launch("k", {1}, {32}, {out});
  EXPECT_TRUE(r.ok()) << r.message;
  std::vector<uint64_t> v = h.read<uint64_t>(out, 64), a, b;
  for (int l = 0; l < 32; ++l) {
    a.push_back(v[2 * l]);
    b.push_back(v[2 * l + 1]);
  }
  return {a, b};
}

TEST(SpecialRegister, Clock64) {
  auto [a, b] = twoReads("%clock64", "%clock64");
  for (int l = 0; l < 32; ++l)
    EXPECT_GT(b[l], a[l] + 50) << "the clock advances with the work between the reads";
}
TEST(SpecialRegister, ClockIsLowHalfOfClock64) {
  auto [a, b] = twoReads("%clock64", "%clock");
  for (int l = 0; l < 32; ++l) {
    EXPECT_GT(b[l], (uint32_t)a[l]);
    EXPECT_LE(b[l], 0xffffffffull);
  }
}
TEST(SpecialRegister, ClockHiIsHighHalfOfClock64) {
  auto [a, b] = twoReads("%clock64", "%clock_hi");
  for (int l = 0; l < 32; ++l)
    EXPECT_EQ(b[l], a[l] >> 32) << "no wrap of the low half in 50 iterations";
}
TEST(SpecialRegister, Globaltimer) {
  auto [a, b] = twoReads("%globaltimer", "%globaltimer");
  for (int l = 0; l < 32; ++l) {
    EXPECT_GT(a[l], 0u) << "nanoseconds since an epoch";
    EXPECT_GT(b[l], a[l]);
  }
}
TEST(SpecialRegister, GlobaltimerLo) {
  auto [a, b] = twoReads("%globaltimer", "%globaltimer_lo");
  for (int l = 0; l < 32; ++l)
    EXPECT_EQ(b[l] >> 16, (a[l] & 0xffffffffull) >> 16) << "low word, moments apart";
}
TEST(SpecialRegister, GlobaltimerHi) {
  auto [a, b] = twoReads("%globaltimer", "%globaltimer_hi");
  for (int l = 0; l < 32; ++l)
    EXPECT_EQ(b[l], a[l] >> 32);
}

// --- shared memory sizes ---------------------------------------------------------------------

TEST(SpecialRegister, DynamicSmemSize) {
  expectEverywhere("%dynamic_smem_size", "u32", [](const Where &w) { return constant(kDynShared, w); });
}
TEST(SpecialRegister, TotalSmemSize) {
  expectEverywhere("%total_smem_size", "u32",
                   [](const Where &w) { return constant(kStaticShared + kDynShared, w); });
}
TEST(SpecialRegister, AggrSmemSize) {
  // static + dynamic + the reserved region, which ptxsim keeps empty (see ReservedSmem*)
  expectEverywhere("%aggr_smem_size", "u32",
                   [](const Where &w) { return constant(kStaticShared + kDynShared, w); });
}
TEST(SpecialRegister, ReservedSmemOffsetBeginEnd) {
  // An empty reserved region right after the CTA's own shared memory.
  for (const char *r : {"%reserved_smem_offset_begin", "%reserved_smem_offset_end",
                        "%reserved_smem_offset_0", "%reserved_smem_offset_1"})
    expectEverywhere(r, "b32", [](const Where &w) { return constant(kStaticShared + kDynShared, w); });
}
TEST(SpecialRegister, ReservedSmemOffsetCap) {
  expectEverywhere("%reserved_smem_offset_cap", "b32", [](const Where &w) { return constant(0, w); });
}

// --- clusters: without cluster launches every CTA is a cluster of one ------------------------

TEST(SpecialRegister, ClusterCtaid) {
  for (char c : {'x', 'y', 'z'})
    expectEverywhere(std::string("%cluster_ctaid.") + c, "u32", [](const Where &w) { return constant(0, w); });
}
TEST(SpecialRegister, ClusterNctaid) {
  for (char c : {'x', 'y', 'z'})
    expectEverywhere(std::string("%cluster_nctaid.") + c, "u32", [](const Where &w) { return constant(1, w); });
}
TEST(SpecialRegister, Clusterid) {
  for (int c = 0; c < 3; ++c)
    expectEverywhere(std::string("%clusterid.") + "xyz"[c], "u32", [c](const Where &w) { return w.ctaid[c]; });
}
TEST(SpecialRegister, Nclusterid) {
  const unsigned dims[3] = {kGridX, kGridY, kGridZ};
  for (int c = 0; c < 3; ++c)
    expectEverywhere(std::string("%nclusterid.") + "xyz"[c], "u32", [&](const Where &) { return dims[c]; });
}
TEST(SpecialRegister, ClusterCtarank) {
  expectEverywhere("%cluster_ctarank", "u32", [](const Where &w) { return constant(0, w); });
}
TEST(SpecialRegister, ClusterNctarank) {
  expectEverywhere("%cluster_nctarank", "u32", [](const Where &w) { return constant(1, w); });
}
TEST(SpecialRegister, IsExplicitCluster) {
  expectEverywhere("%is_explicit_cluster", "pred", [](const Where &w) { return constant(0, w); });
}

// --- driver-defined and profiling registers --------------------------------------------------

TEST(SpecialRegister, CurrentGraphExec) {
  // Zero outside a device-launchable graph (ptxsim runs none).
  expectEverywhere("%current_graph_exec", "u64", [](const Where &w) { return constant(0, w); });
}
TEST(SpecialRegister, Envreg) {
  // %envreg1:%envreg2 hold the launch's grid workspace (what cooperative groups' grid.sync
  // uses); the driver defines no others.
  ExecHarness h1, h2;
  std::vector<uint64_t> hi = readEverywhere(h1, "%envreg1", "b32");
  std::vector<uint64_t> lo = readEverywhere(h2, "%envreg2", "b32");
  ASSERT_FALSE(hi.empty());
  ASSERT_FALSE(lo.empty());
  uint64_t ws = hi[0] << 32 | lo[0];
  EXPECT_NE(ws, 0u);
  EXPECT_EQ(ws % 16, 0u);
  for (int i = 0; i < 32; ++i) {
    if (i == 1 || i == 2)
      continue;
    expectEverywhere("%envreg" + std::to_string(i), "b32", [](const Where &w) { return constant(0, w); });
  }
}
TEST(SpecialRegister, Pm) {
  // Performance-monitor counters read zero: no profiler has programmed them.
  for (int i = 0; i < 8; ++i) {
    expectEverywhere("%pm" + std::to_string(i), "u32", [](const Where &w) { return constant(0, w); });
    expectEverywhere("%pm" + std::to_string(i) + "_64", "u64", [](const Where &w) { return constant(0, w); });
  }
}

// --- WARP_SZ ---------------------------------------------------------------------------------

TEST(SpecialRegister, WarpSz) {
  expectEverywhere("WARP_SZ", "u32", [](const Where &w) { return constant(32, w); });
}
TEST(SpecialRegister, WarpSzInArithmeticAndExpressions) {
  // What nvcc emits for `i % warpSize` / `i / warpSize`, and a folded constant expression.
  ExecHarness h;
  std::string ptx = ptxHeader() + ".visible .entry k(.param .u64 out) {\n"
                                  "  .reg .b64 %o, %a; .reg .b32 %r<6>;\n"
                                  "  mov.u32 %r0, 77;\n"
                                  "  rem.u32 %r1, %r0, WARP_SZ; div.u32 %r2, %r0, WARP_SZ;\n"
                                  "  add.u32 %r3, %r0, WARP_SZ-1; mov.u64 %a, WARP_SZ*2;\n"
                                  "  ld.param.u64 %o, [out];\n"
                                  "  st.global.v4.u32 [%o], {%r1, %r2, %r3, %r0}; st.global.u64 [%o+16], %a;\n"
                                  "  ret;\n}\n";
  ASSERT_TRUE(h.load(ptx)) << h.errors;
  uint64_t out = h.alloc(32);
  auto r = h.launch("k", {1}, {1}, {out});
  ASSERT_TRUE(r.ok()) << r.message;
  std::vector<uint32_t> v = h.read<uint32_t>(out, 6);
  EXPECT_EQ(v[0], 77u % 32);
  EXPECT_EQ(v[1], 77u / 32);
  EXPECT_EQ(v[2], 77u + 31);
  EXPECT_EQ(h.read<uint64_t>(out + 16, 1)[0], 64u);
}

TEST(SpecialRegister, TableHasEveryPredefinedRegister) {
  // The checker's table (what `ptxsim ptx check` accepts) lists every special register above.
  for (const char *n :
       {"%tid", "%ntid", "%ctaid", "%nctaid", "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid",
        "%gridid", "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt",
        "%clock", "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi",
        "%dynamic_smem_size", "%total_smem_size", "%aggr_smem_size", "%reserved_smem_offset_begin",
        "%reserved_smem_offset_end", "%reserved_smem_offset_cap", "%reserved_smem_offset_0",
        "%reserved_smem_offset_1", "%cluster_ctaid", "%cluster_nctaid", "%clusterid",
        "%nclusterid", "%cluster_ctarank", "%cluster_nctarank", "%is_explicit_cluster",
        "%current_graph_exec", "%pm0", "%pm7", "%pm0_64", "%pm7_64", "%envreg0", "%envreg31"})
    EXPECT_NE(ptx::lookupSpecialRegister(n), nullptr) << n;
}

} // namespace
} // namespace ptxsim::test

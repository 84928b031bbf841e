// Heterogeneous cores in the power model (power::registerCoreAccounting) and the SPU's use of it:
// reduced IU cores leak less by exactly the structures they lack, the report's SM + IU pair
// convention charges them as full SMs, both say which convention they printed, and a GPU
// without the extension is unchanged.
#include "isa_ext/spu/SpuExtension.h"
#include "power/PowerModel.h"
#include "timing/gpu/Gpu.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace ptxsim;
using namespace ptxsim::power;

namespace {

std::string repoPath(const std::string &rel) { return std::string(PTXSIM_TEST_DIR) + "/../" + rel; }

timing::TimingConfig preset(const std::string &name) {
  timing::TimingConfig cfg;
  DiagEngine d;
  EXPECT_TRUE(timing::loadTimingConfig({repoPath("configs/" + name + ".config")}, false, cfg, d));
  return cfg;
}

bool load(const std::string &name, const timing::TimingConfig &cfg, PowerModel &m,
          std::string *errors = nullptr) {
  timing::registerTimingStatistics();
  DiagEngine d;
  bool ok = PowerModel::load(repoPath("configs/" + name + ".power.xml"), cfg, m, d);
  std::ostringstream os;
  d.print(os);
  if (errors)
    *errors = os.str();
  return ok;
}

// A test accounting function, idle unless a test arms it (the registry is global).
CoreAccounting gTestAccounting;
bool gArmed = false;
CoreAccounting testAccounting(const timing::TimingConfig &) {
  return gArmed ? gTestAccounting : CoreAccounting{};
}

struct Arm {
  explicit Arm(CoreAccounting a) {
    static bool registered = (registerCoreAccounting(testAccounting), true);
    (void)registered;
    gTestAccounting = std::move(a);
    gArmed = true;
  }
  ~Arm() { gArmed = false; }
};

stats::Snapshot someActivity(const timing::TimingConfig &cfg) {
  stats::Snapshot s;
  s.set("gpu.cycles", 100000);
  s.set("gpu.sim_seconds", 100000 / (cfg.core.clockMHz * 1e6));
  s.set("gpu.warp_insts", 1e6);
  s.set("sm.active_lane_insts", 3.2e7);
  s.set("sm.issued.sp", 5e5);
  s.set("sm.issued.sfu", 1e4);
  s.set("ldst.shared_insts", 1e5);
  s.set("l1d.accesses", 1e5);
  s.set("sm.active_cycles", 1e6);
  return s;
}

} // namespace

TEST(PowerCoreAccounting, ReducedCoresLoseExactlyTheirStructuresLeakage) {
  timing::TimingConfig cfg = preset("gtx480"); // 15 SMs
  PowerModel full;
  ASSERT_TRUE(load("gtx480", cfg, full));
  PowerModel reduced;
  {
    Arm arm({{{"test-core", 5, {"shared", "l1d", "sfu"}}}, "test: 5 reduced cores"});
    ASSERT_TRUE(load("gtx480", cfg, reduced));
  }
  double expectedCut = 0;
  for (const char *n : {"shared", "l1d", "sfu"}) {
    EXPECT_NEAR(reduced.leakageW(n), full.leakageW(n) * 10.0 / 15.0, 1e-12) << n;
    expectedCut += full.leakageW(n) * 5.0 / 15.0;
  }
  EXPECT_GT(expectedCut, 0.0);
  // the rest of the chip, the uncore included, is unchanged: the area left the die
  for (const char *n : {"regfile", "sp", "dp", "l2", "dram", "uncore"})
    EXPECT_DOUBLE_EQ(reduced.leakageW(n), full.leakageW(n)) << n;
  EXPECT_NEAR(reduced.staticW(), full.staticW() - expectedCut, 1e-9);
  // dynamic energy follows the counters only
  stats::Snapshot s = someActivity(cfg);
  KernelPower a = full.kernel("k", s, {}), b = reduced.kernel("k", s, {});
  double dynA = 0, dynB = 0;
  for (auto &c : a.components)
    dynA += c.dynamicJ;
  for (auto &c : b.components)
    dynB += c.dynamicJ;
  EXPECT_DOUBLE_EQ(dynA, dynB);
  // the report says how the cores were charged, and only when an extension said so
  EXPECT_TRUE(a.notes.empty());
  EXPECT_EQ(kernelPowerJson(a).find("notes"), std::string::npos);
  ASSERT_EQ(b.notes.size(), 1u);
  EXPECT_NE(formatKernelPower(b).find("note: test: 5 reduced cores"), std::string::npos);
  EXPECT_NE(kernelPowerJson(b).find("\"notes\": [\"test: 5 reduced cores\"]"), std::string::npos);
  EXPECT_NE(reduced.describe().find("5 test-core cores without shared, l1d, sfu"),
            std::string::npos);
}

TEST(PowerCoreAccounting, BadDeclarationsAreLoadErrors) {
  timing::TimingConfig cfg = preset("gtx480");
  PowerModel m;
  std::string err;
  {
    Arm arm({{{"x", 3, {"l2"}}}, ""});
    EXPECT_FALSE(load("gtx480", cfg, m, &err));
    EXPECT_NE(err.find("reduced cores of kind 'x' lack 'l2', which is not a per-SM component"),
              std::string::npos)
        << err;
  }
  {
    Arm arm({{{"x", 16, {"sfu"}}}, ""});
    EXPECT_FALSE(load("gtx480", cfg, m, &err));
    EXPECT_NE(err.find("16 reduced cores (kind 'x') but the GPU has only 15"), std::string::npos)
        << err;
  }
}

TEST(SpuPower, IusAreReducedSmsPerUnitAndFullSmsInThePairConvention) {
  spu::registerSpuExtension();
  timing::TimingConfig cfg = preset("spu-gtx480"); // 16 SMs + 16 IUs
  ASSERT_EQ(cfg.numSms(), 32u);
  spu::Config c;
  c.enabled = true;
  c.powerPairs = true;
  spu::setConfig(c);
  PowerModel pairs;
  ASSERT_TRUE(load("spu-gtx480", cfg, pairs));
  c.powerPairs = false;
  spu::setConfig(c);
  PowerModel unit;
  ASSERT_TRUE(load("spu-gtx480", cfg, unit));
  spu::Config off;
  spu::setConfig(off);
  PowerModel gpu;
  ASSERT_TRUE(load("spu-gtx480", cfg, gpu));

  // per unit: the 16 IUs drop shared memory, L1D, SFU, FP64 and tensor leakage (half of each)
  double cut = 0;
  for (const char *n : {"shared", "l1d", "sfu", "dp", "tensor"}) {
    EXPECT_NEAR(unit.leakageW(n), pairs.leakageW(n) / 2, 1e-12) << n;
    cut += pairs.leakageW(n) / 2;
  }
  EXPECT_GT(cut, 0.1); // watts: shared memory and L1 are large SRAMs
  EXPECT_NEAR(unit.staticW(), pairs.staticW() - cut, 1e-9);
  for (const char *n : {"sp", "regfile", "fetch_decode", "ldst", "uncore"})
    EXPECT_DOUBLE_EQ(unit.leakageW(n), pairs.leakageW(n)) << n;
  // the pair convention charges every core as a full SM: the built-ins are the GPU's
  for (const char *n : {"shared", "l1d", "sfu", "sp", "uncore"})
    EXPECT_DOUBLE_EQ(pairs.leakageW(n), gpu.leakageW(n)) << n;

  stats::Snapshot s = someActivity(cfg);
  s.set("spu.cb_read_bytes", 0);
  KernelPower pu = unit.kernel("k", s, {}), pp = pairs.kernel("k", s, {}), pg = gpu.kernel("k", s, {});
  ASSERT_EQ(pu.notes.size(), 1u);
  ASSERT_EQ(pp.notes.size(), 1u);
  EXPECT_NE(pu.notes[0].find("per unit (16 SMs as full SMs, 16 IUs as reduced SMs"),
            std::string::npos)
      << pu.notes[0];
  EXPECT_NE(pp.notes[0].find("the report's (energy of one SM + IU pair x 16 pairs"),
            std::string::npos)
      << pp.notes[0];
  EXPECT_TRUE(pg.notes.empty());
  EXPECT_LT(pu.energyJ, pp.energyJ);
}

// The SPU machine's die is GF100's with 17 more SM-sized cores (<chip die_sms="15">): each core
// leaks for its whole SM share of the die, not only for the structures the model names, and DMA
// IUs, which are not SMs, take their whole share off the die again.
TEST(SpuPower, DieGrowsWithTheCores) {
  spu::registerSpuExtension();
  PowerModel gtx;
  ASSERT_TRUE(load("gtx480", preset("gtx480"), gtx)); // 15 SMs on 529 mm^2
  timing::TimingConfig cfg = preset("spu-gtx480");
  spu::Config c;
  c.enabled = true;
  c.powerPairs = true;
  spu::setConfig(c);
  PowerModel pairs;
  ASSERT_TRUE(load("spu-gtx480", cfg, pairs));
  c.powerPairs = false;
  c.dmaIus = true;
  spu::setConfig(c);
  PowerModel dma;
  ASSERT_TRUE(load("spu-gtx480", cfg, dma));
  spu::setConfig(spu::Config{});
  const double density = 0.075, smArea = 529 * 0.6 / 15; // W/mm^2, mm^2
  // everything on the die leaks at one density: 17 more SM areas (and the SPU's own CBs and
  // barrier network), the uncore unchanged
  double spuOwn = pairs.leakageW("spu_cb") + pairs.leakageW("spu_sync_viu");
  EXPECT_GT(spuOwn, 0.0);
  EXPECT_NEAR(pairs.staticW() - spuOwn - gtx.staticW(), 17 * smArea * density, 1e-6);
  EXPECT_GT(pairs.leakageW("uncore"), gtx.leakageW("uncore"));
  // 16 DMA engines instead of 16 SM-sized IUs: their whole share goes, spu_dma's own comes
  EXPECT_NEAR(dma.staticW() - dma.leakageW("spu_dma"),
              pairs.staticW() - 16 * smArea * density, 1e-6);
}

// The CPU chiplets' core model (tools/cpu): cycles and energy of small instruction mixes against
// hand-computed values, the presets' files, and callgrind's dump format.

#include "isa_ext/chiplet/tools/cpu/CpuModel.h"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

using namespace ptxsim::chiplet::cpu;

namespace {

CpuConfig gainestown() {
  CpuConfig c;
  EXPECT_TRUE(builtinPreset("gainestown", c));
  return c;
}

std::string slurp(const std::string &path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

} // namespace

TEST(CpuModel, MixedIntervalByHand) {
  CpuCoreModel m(gainestown());
  CpuCounts c;
  c.ir = 1000, c.dr = 200, c.dw = 100, c.bc = 100; // 600 other instructions
  c.i1mr = 2, c.d1mr = 10, c.d1mw = 3;             // 15 L1 misses ...
  c.ilmr = 1, c.dlmr = 4;                          // ... 5 of them miss the LLC too
  c.bcm = 7;
  CpuCycles y = m.intervalCycles(c);
  // 600 x 0.25 + 200 x 0.35 + 100 x 0.3 + 100 x 0.3 = 280
  EXPECT_EQ(y.baseM, 280000u);
  EXPECT_EQ(y.l1MissM, 10u * 12000u);  // 10 L1 misses that hit the LLC x 12
  EXPECT_EQ(y.llcMissM, 5u * 100000u); // 5 LLC misses x 100
  EXPECT_EQ(y.mispredictM, 7u * 14000u);
  EXPECT_EQ(m.addInterval(c), 998u);
  EXPECT_EQ(m.cycles(), 998u);
  // 600x350 + 200x400 + 100x400 + 100x350 + 1300 L1 x 40 + 15 LLC x 500 + 5 DRAM x 15000
  // + 7 mispredictions x 2000 = 513500 pJ
  EXPECT_NEAR(m.dynamicEnergyJ(), 513500e-12, 1e-18);
  EXPECT_NEAR(m.leakageEnergyJ(), 6.0 * 998 / 2.66e9, 1e-15);
}

// The statistics the launcher reads: the hand-computed interval's figures, and the instructions
// other threads ran inside the intervals (0 unless the runtime saw some)
TEST(CpuModel, JsonHasTheCountsAndOtherThreadInstructions) {
  CpuCoreModel m(gainestown());
  CpuCounts c;
  c.ir = 1000, c.dr = 200, c.dw = 100, c.bc = 100, c.bcm = 7;
  m.addInterval(c); // 280 base + 7 x 14 = 378 cycles
  std::string j = m.json();
  for (const char *want : {"\"cycles\": 378,", "\"instructions\": 1000,", "\"loads\": 200,",
                           "\"branches\": 100,", "\"other\": 600,", "\"mispredicts\": 7,",
                           "\"other_thread_instructions\": 0}"})
    EXPECT_NE(j.find(want), std::string::npos) << want << " in " << j;
  m.setOtherThreadInstructions(96);
  EXPECT_NE(m.json().find("\"other_thread_instructions\": 96}"), std::string::npos) << m.json();
}

TEST(CpuModel, IndirectBranchesAndModernPreset) {
  CpuConfig cfg;
  ASSERT_TRUE(builtinPreset("modern", cfg));
  CpuCoreModel m(cfg);
  CpuCounts c;
  c.ir = 600, c.bc = 50, c.bi = 10, c.bim = 2, c.bcm = 3, c.dr = 40;
  // other 500 x 0.167 + loads 40 x 0.25 + branches 60 x 0.25 = 83.5 + 10 + 15 = 108.5;
  // 5 mispredictions x 16 = 80: 188.5 cycles, 188 now and the half carried
  EXPECT_EQ(m.intervalCycles(c).totalM(), 188500u);
  EXPECT_EQ(m.addInterval(c), 188u);
  EXPECT_EQ(m.addInterval(c), 189u);
  EXPECT_EQ(m.cycles(), 377u);
}

TEST(CpuModel, FractionsCarryAcrossIntervals) {
  CpuCoreModel m(gainestown());
  CpuCounts c;
  c.ir = 3; // 0.75 cycles each
  EXPECT_EQ(m.addInterval(c), 0u);
  EXPECT_EQ(m.addInterval(c), 1u);
  EXPECT_EQ(m.addInterval(c), 1u);
  EXPECT_EQ(m.addInterval(c), 1u);
  EXPECT_EQ(m.cycles(), 3u);
  EXPECT_EQ(m.intervals(), 4u);
  EXPECT_EQ(m.totals().ir, 12u);
}

TEST(CpuModel, MoreWorkMoreCyclesAndEnergy) {
  CpuCoreModel a(gainestown()), b(gainestown());
  CpuCounts c;
  c.ir = 10000, c.dr = 3000, c.dw = 1000, c.bc = 1500, c.bcm = 100, c.d1mr = 50, c.dlmr = 10;
  a.addInterval(c);
  b.addInterval(c);
  b.addInterval(c);
  EXPECT_EQ(b.cycles(), 2 * a.cycles());
  EXPECT_NEAR(b.dynamicEnergyJ() + b.leakageEnergyJ(), 2 * (a.dynamicEnergyJ() + a.leakageEnergyJ()),
              1e-15);
}

TEST(CpuModel, PresetFilesMatchTheBuiltinPresets) {
  for (const char *name : {"gainestown", "modern"}) {
    std::string path = std::string(PTXSIM_SOURCE_DIR) + "/configs/" + name + ".cpu.config";
    CpuConfig f, b;
    std::string err;
    ASSERT_TRUE(parseCpuConfig(slurp(path), path, f, err)) << err;
    ASSERT_TRUE(builtinPreset(name, b));
    EXPECT_EQ(f.name, b.name);
    EXPECT_EQ(f.freqGhz, b.freqGhz);
    EXPECT_EQ(valgrindCacheArgs(f), valgrindCacheArgs(b));
    EXPECT_EQ(f.cpiOtherM, b.cpiOtherM);
    EXPECT_EQ(f.cpiLoadM, b.cpiLoadM);
    EXPECT_EQ(f.cpiStoreM, b.cpiStoreM);
    EXPECT_EQ(f.cpiBranchM, b.cpiBranchM);
    EXPECT_EQ(f.l1MissPenaltyM, b.l1MissPenaltyM);
    EXPECT_EQ(f.llcMissPenaltyM, b.llcMissPenaltyM);
    EXPECT_EQ(f.mispredictPenaltyM, b.mispredictPenaltyM);
    EXPECT_EQ(f.eOtherPj, b.eOtherPj);
    EXPECT_EQ(f.eLoadPj, b.eLoadPj);
    EXPECT_EQ(f.eStorePj, b.eStorePj);
    EXPECT_EQ(f.eBranchPj, b.eBranchPj);
    EXPECT_EQ(f.eL1AccessPj, b.eL1AccessPj);
    EXPECT_EQ(f.eLlcAccessPj, b.eLlcAccessPj);
    EXPECT_EQ(f.eDramAccessPj, b.eDramAccessPj);
    EXPECT_EQ(f.eMispredictPj, b.eMispredictPj);
    EXPECT_EQ(f.leakageW, b.leakageW);
  }
}

TEST(CpuModel, BadPresetsAreErrorsNamingTheLine) {
  std::string path = std::string(PTXSIM_SOURCE_DIR) + "/configs/gainestown.cpu.config";
  std::string good = slurp(path), err;
  CpuConfig c;
  EXPECT_FALSE(parseCpuConfig(good + "-cpu_rob 128\n", "x.config", c, err));
  EXPECT_NE(err.find("unknown CPU option '-cpu_rob'"), std::string::npos) << err;
  std::string threeSets = good;
  threeSets.replace(threeSets.find("-cpu_l1d 32768:8:64"), 19, "-cpu_l1d 24576:8:64");
  EXPECT_FALSE(parseCpuConfig(threeSets, "x.config", c, err));
  EXPECT_NE(err.find("-cpu_l1d needs SIZE:ASSOC:LINE"), std::string::npos) << err;
  EXPECT_NE(err.find("x.config:"), std::string::npos) << err;
  std::string fine = good;
  fine.replace(fine.find("-cpu_cpi_load 0.35"), 18, "-cpu_cpi_load 0.3501");
  EXPECT_FALSE(parseCpuConfig(fine, "x.config", c, err));
  EXPECT_NE(err.find("at most 3 decimals"), std::string::npos) << err;
  std::string missing = good;
  missing.replace(missing.find("-cpu_leakage_w"), 14, "#");
  EXPECT_FALSE(parseCpuConfig(missing, "x.config", c, err));
  EXPECT_NE(err.find("missing CPU option -cpu_leakage_w"), std::string::npos) << err;
  EXPECT_FALSE(loadCpuConfig("no-such-preset", c, err));
  EXPECT_NE(err.find("neither a preset"), std::string::npos) << err;
}

TEST(CpuModel, CallgrindTotalsWithOmittedTrailingZeros) {
  CpuCounts c;
  std::string err;
  ASSERT_TRUE(parseCallgrindTotals("version: 1\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc "
                                   "Bcm Bi Bim\nsummary: 1 2\ntotals: 3016 1 7 4 0 2 4 0 2 1002 8\n",
                                   c, err))
      << err;
  EXPECT_EQ(c.ir, 3016u);
  EXPECT_EQ(c.dw, 7u);
  EXPECT_EQ(c.bc, 1002u);
  EXPECT_EQ(c.bcm, 8u);
  EXPECT_EQ(c.bi, 0u);
  EXPECT_FALSE(parseCallgrindTotals("events: Ir\ntotals: 5\n", c, err));
  EXPECT_NE(err.find("lacks event Dr"), std::string::npos) << err;
  EXPECT_FALSE(parseCallgrindTotals("garbage", c, err));
}

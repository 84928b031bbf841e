// The power model (power/): per-event energies from technology and sizes, per-kernel breakdowns,
// traces, XML errors and extension components. Statistics are built by hand.
#include "power/PowerModel.h"
#include "power/components/EventComponent.h"

#include "power/Xml.h"
#include "timing/gpu/Gpu.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <map>

using namespace ptxsim;
using namespace ptxsim::power;
using KernelTimingStats = stats::Snapshot;

namespace {

/// The timing model's statistics are registered before any test loads a power model.
class StatsEnvironment : public ::testing::Environment {
  void SetUp() override { timing::registerTimingStatistics(); }
};
[[maybe_unused]] ::testing::Environment *const gStatsEnv =
    ::testing::AddGlobalTestEnvironment(new StatsEnvironment);

std::string repoPath(const std::string &rel) { return std::string(PTXSIM_TEST_DIR) + "/../" + rel; }

timing::TimingConfig presetConfig(const std::string &name) {
  timing::TimingConfig cfg;
  DiagEngine d;
  EXPECT_TRUE(timing::loadTimingConfig({repoPath("configs/" + name + ".config")}, false, cfg, d));
  return cfg;
}

PowerModel presetModel(const std::string &name, const timing::TimingConfig &cfg) {
  timing::registerTimingStatistics();
  PowerModel m;
  DiagEngine d;
  bool ok = PowerModel::load(repoPath("configs/" + name + ".power.xml"), cfg, m, d);
  std::ostringstream os;
  d.print(os);
  EXPECT_TRUE(ok) << os.str();
  EXPECT_EQ(d.diagnostics().size(), 0u) << os.str();
  return m;
}

KernelTimingStats makeStats(const std::map<std::string, double> &v, double cycles,
                            double clockMHz) {
  timing::registerTimingStatistics();
  stats::Catalog::global().add("spu.buffer_accesses", stats::Unit::Count, "test extension counter");
  KernelTimingStats s;
  s.set("gpu.cycles", cycles);
  s.set("gpu.sim_seconds", cycles / (clockMHz * 1e6));
  for (auto &kv : v)
    s.set(kv.first, kv.second);
  return s;
}

/// Counters of the tiled matmul sample on the GTX480 preset (186680 cycles at 700 MHz).
std::map<std::string, double> matmulCounters() {
  return {{"gpu.warp_insts", 2036940},      {"gpu.thread_insts", 65067840},
          {"sm.active_cycles", 2791302},    {"sm.issued.sp", 930240},
          {"sm.issued.ldst", 967980},       {"sm.issued.branch", 85680},
          {"sm.issued.sync", 53040},        {"sm.regfile_reads", 2911080},
          {"sm.regfile_writes", 1649340},   {"sm.active_lane_insts", 63265920},
          {"l1i.hits", 163065},             {"l1i.misses", 135},
          {"ldst.shared_insts", 901680},    {"ldst.shared_bank_conflict_cycles", 0},
          {"ldst.const_accesses", 12240},   {"l1d.accesses", 133320},
          {"l1d.hits", 37080},              {"l1d.misses", 96240},
          {"l1d.fills", 91200},             {"const.accesses", 13931},
          {"const.fills", 15},              {"l2.accesses", 96309},
          {"l2.hits", 89823},               {"l2.misses", 5131},
          {"l2.fills", 3151},               {"icnt.flits", 463965},
          {"icnt.bytes", 11928000},         {"icnt.packets", 187470},
          {"dram.reads", 3151},             {"dram.read_bytes", 403264},
          {"dram.activates", 210},          {"dram.precharges", 114}};
}

/// A streaming kernel: little arithmetic, every access goes to DRAM.
std::map<std::string, double> memoryHeavyCounters() {
  return {{"gpu.warp_insts", 200000},      {"sm.active_cycles", 3000000},
          {"sm.issued.sp", 40000},         {"sm.issued.ldst", 100000},
          {"sm.regfile_reads", 250000},    {"sm.regfile_writes", 150000},
          {"sm.active_lane_insts", 6400000}, {"l1i.hits", 20000},
          {"l1d.accesses", 400000},        {"l1d.misses", 400000},
          {"l1d.fills", 400000},           {"l2.accesses", 800000},
          {"l2.misses", 800000},           {"l2.fills", 800000},
          {"l2.writebacks", 200000},       {"icnt.flits", 3200000},
          {"dram.reads", 800000},          {"dram.writes", 200000},
          {"dram.read_bytes", 102400000},  {"dram.write_bytes", 25600000},
          {"dram.activates", 200000},      {"dram.precharges", 200000}};
}

/// An FMA loop on registers: no memory traffic beyond the instruction cache. 15 SMs x 200000
/// cycles issuing 1.8 warp instructions per SM-cycle (two schedulers, near peak).
std::map<std::string, double> computeHeavyCounters() {
  return {{"gpu.warp_insts", 5400000},     {"sm.active_cycles", 3000000},
          {"sm.issued.sp", 5130000},       {"sm.issued.branch", 270000},
          {"sm.regfile_reads", 15390000},  {"sm.regfile_writes", 5130000},
          {"sm.active_lane_insts", 172800000}, {"l1i.hits", 270000}};
}

double dynamicOf(const KernelPower &p, const std::string &name) {
  for (auto &c : p.components)
    if (c.name == name)
      return c.dynamicJ;
  ADD_FAILURE() << "no component " << name;
  return 0;
}

double totalDynamic(const KernelPower &p) {
  double d = 0;
  for (auto &c : p.components)
    d += c.dynamicJ;
  return d;
}

const char *kMinimalXml = R"(<?xml version="1.0"?>
<ptxsim_power>
  <technology node_nm="40" vdd="1.0" leakage_w_per_mm2="0.075"/>
  <chip die_area_mm2="529" constant_w="28"/>
</ptxsim_power>
)";

} // namespace

TEST(PowerModel, ZeroDynamicEnergyWithoutActivity) {
  auto cfg = presetConfig("gtx480");
  PowerModel m = presetModel("gtx480", cfg);
  KernelPower idle = m.kernel("k", makeStats({}, 1000, cfg.core.clockMHz), {});
  for (auto &c : idle.components)
    EXPECT_EQ(c.dynamicJ, 0) << c.name;
  EXPECT_NEAR(idle.avgW, m.staticW(), 1e-9);
  // matmul uses no FP64, SFU or tensor pipe: those components have no dynamic energy
  KernelPower mm = m.kernel("k", makeStats(matmulCounters(), 186680, cfg.core.clockMHz), {});
  EXPECT_EQ(dynamicOf(mm, "dp"), 0);
  EXPECT_EQ(dynamicOf(mm, "sfu"), 0);
  EXPECT_EQ(dynamicOf(mm, "tensor"), 0);
  EXPECT_GT(dynamicOf(mm, "sp"), 0);
  EXPECT_GT(dynamicOf(mm, "regfile"), 0);
  EXPECT_GT(dynamicOf(mm, "dram"), 0);
}

TEST(PowerModel, EveryComponentListedInFixedOrder) {
  auto cfg = presetConfig("gtx480");
  PowerModel m = presetModel("gtx480", cfg);
  KernelPower p = m.kernel("k", makeStats({}, 10, cfg.core.clockMHz), {});
  std::vector<std::string> names;
  for (auto &c : p.components)
    names.push_back(c.name);
  std::vector<std::string> expected = {
      "fetch_decode", "icache", "regfile", "operand_collector", "sp",     "dp",
      "sfu",          "tensor", "ldst",    "shared",            "l1d",    "const_cache",
      "l2",           "icnt",   "dram",    "sm_clock",          "uncore"};
  EXPECT_EQ(names, expected);
}

TEST(PowerModel, DoublingCountersDoublesDynamicEnergy) {
  auto cfg = presetConfig("gtx480");
  PowerModel m = presetModel("gtx480", cfg);
  auto once = matmulCounters();
  auto twice = once;
  for (auto &kv : twice)
    kv.second *= 2;
  KernelPower a = m.kernel("k", makeStats(once, 186680, cfg.core.clockMHz), {});
  KernelPower b = m.kernel("k", makeStats(twice, 2 * 186680, cfg.core.clockMHz), {});
  EXPECT_NEAR(totalDynamic(b) / totalDynamic(a), 2.0, 0.02);
  for (size_t i = 0; i < a.components.size(); ++i)
    EXPECT_NEAR(b.components[i].dynamicJ, 2 * a.components[i].dynamicJ,
                1e-9 + 0.02 * a.components[i].dynamicJ)
        << a.components[i].name;
  // same activity per second: the same average power
  EXPECT_NEAR(b.avgW, a.avgW, 0.01 * a.avgW);
}

TEST(PowerModel, MemoryHeavyKernelIsDominatedByDramAndL2) {
  auto cfg = presetConfig("gtx480");
  PowerModel m = presetModel("gtx480", cfg);
  KernelPower p = m.kernel("k", makeStats(memoryHeavyCounters(), 200000, cfg.core.clockMHz), {});
  double mem = dynamicOf(p, "dram") + dynamicOf(p, "l2");
  double alu = dynamicOf(p, "sp") + dynamicOf(p, "regfile");
  EXPECT_GT(mem, alu * 3);
  for (auto &c : p.components) {
    if (c.name != "dram" && c.name != "l2") {
      EXPECT_GT(mem, c.dynamicJ) << c.name;
    }
  }
  EXPECT_GT(mem, 0.4 * totalDynamic(p)) << formatKernelPower(p);
}

TEST(PowerModel, ComputeHeavyKernelIsDominatedByAlusAndRegisterFile) {
  auto cfg = presetConfig("gtx480");
  PowerModel m = presetModel("gtx480", cfg);
  KernelPower p = m.kernel("k", makeStats(computeHeavyCounters(), 200000, cfg.core.clockMHz), {});
  double alu = dynamicOf(p, "sp") + dynamicOf(p, "regfile") + dynamicOf(p, "operand_collector");
  double mem = dynamicOf(p, "dram") + dynamicOf(p, "l2") + dynamicOf(p, "l1d");
  EXPECT_GT(alu, 0.5 * totalDynamic(p)) << formatKernelPower(p);
  EXPECT_GT(alu, 10 * mem + 1e-12);
}

TEST(PowerModel, HigherClockGivesHigherPower) {
  auto cfg = presetConfig("gtx480");
  PowerModel m = presetModel("gtx480", cfg);
  auto c = matmulCounters();
  KernelPower slow = m.kernel("k", makeStats(c, 186680, 700), {});
  KernelPower fast = m.kernel("k", makeStats(c, 186680, 1400), {});
  EXPECT_NEAR(fast.seconds, slow.seconds / 2, 1e-12);
  EXPECT_GT(fast.avgW, slow.avgW);
  // same work: the same dynamic energy, half the static energy
  EXPECT_NEAR(totalDynamic(fast), totalDynamic(slow), 1e-12);
  EXPECT_LT(fast.energyJ, slow.energyJ);
}

TEST(PowerPresets, Gtx480MatmulLandsInTensToLowHundredsOfWatts) {
  auto cfg = presetConfig("gtx480");
  PowerModel m = presetModel("gtx480", cfg);
  KernelPower p = m.kernel("k", makeStats(matmulCounters(), 186680, cfg.core.clockMHz), {});
  EXPECT_GT(p.avgW, 40) << formatKernelPower(p);
  EXPECT_LT(p.avgW, 250) << formatKernelPower(p);
  // the GTX 480 idles at a few tens of watts: static power alone is below the kernel's
  EXPECT_GT(m.staticW(), 20);
  EXPECT_LT(m.staticW(), p.avgW);
  // a busy compute kernel draws more than the memory-stalled matmul, and stays under ~300 W
  KernelPower busy = m.kernel("k", makeStats(computeHeavyCounters(), 200000, cfg.core.clockMHz), {});
  EXPECT_GT(busy.avgW, p.avgW);
  EXPECT_LT(busy.avgW, 350) << formatKernelPower(busy);
}

TEST(PowerPresets, AllPresetsLoadAndScaleWithTechnology) {
  auto g = presetConfig("gtx480"), v = presetConfig("v100"), h = presetConfig("h100");
  PowerModel mg = presetModel("gtx480", g), mv = presetModel("v100", v),
             mh = presetModel("h100", h);
  // newer nodes: cheaper logic operations
  EXPECT_LT(mv.eventJ("sp.lane_op"), mg.eventJ("sp.lane_op"));
  EXPECT_LT(mh.eventJ("sp.lane_op"), mv.eventJ("sp.lane_op"));
  // HBM moves a byte for less than GDDR5
  EXPECT_LT(mv.eventJ("dram.io_byte") + mv.eventJ("dram.read_byte"),
            mg.eventJ("dram.io_byte") + mg.eventJ("dram.read_byte"));
  for (auto *m : {&mg, &mv, &mh}) {
    EXPECT_GT(m->staticW(), 20) << m->describe();
    EXPECT_LT(m->staticW(), 200) << m->describe();
    for (auto &e : m->events())
      EXPECT_GT(e.joules, 0) << m->name() << " " << e.key;
  }
}

TEST(PowerModel, SramEnergyGrowsWithCapacityAndWidth) {
  Technology t;
  EXPECT_GT(t.sramReadJ(1 << 20, 256), t.sramReadJ(1 << 16, 256));
  EXPECT_NEAR(t.sramReadJ(1 << 16, 512), 2 * t.sramReadJ(1 << 16, 256), 1e-18);
  EXPECT_GT(t.sramWriteJ(1 << 16, 256), t.sramReadJ(1 << 16, 256));
  EXPECT_GT(t.sramReadJ(1 << 16, 256, 2), t.sramReadJ(1 << 16, 256, 1));
  Technology lowV = t;
  lowV.vdd = 0.5;
  EXPECT_NEAR(lowV.logicJ(1000), t.logicJ(1000) / 4, 1e-20);
  Technology small = t;
  small.nodeNm = 20;
  EXPECT_NEAR(small.logicJ(1000), t.logicJ(1000) / 2, 1e-20);
}

TEST(PowerModel, LargerRegisterFileCostsMorePerAccess) {
  auto cfg = presetConfig("gtx480");
  auto big = cfg;
  big.core.registersPerSm *= 4;
  PowerModel a, b;
  DiagEngine d;
  ASSERT_TRUE(PowerModel::loadText("min.xml", kMinimalXml, cfg, a, d));
  ASSERT_TRUE(PowerModel::loadText("min.xml", kMinimalXml, big, b, d));
  EXPECT_GT(b.eventJ("regfile.read"), a.eventJ("regfile.read"));
  EXPECT_GT(b.leakageW("regfile"), a.leakageW("regfile"));
}

TEST(PowerModel, TraceFollowsSnapshots) {
  auto cfg = presetConfig("gtx480");
  PowerModel m = presetModel("gtx480", cfg);
  EXPECT_EQ(m.traceInterval(), 10000u);
  // first half idle, second half all the activity
  auto c = matmulCounters();
  KernelTimingStats fin = makeStats(c, 200000, cfg.core.clockMHz);
  std::map<std::string, double> none;
  none["sm.active_cycles"] = 0;
  std::vector<KernelTimingStats> samples = {makeStats(none, 50000, cfg.core.clockMHz),
                                            makeStats(none, 100000, cfg.core.clockMHz)};
  KernelPower p = m.kernel("k", fin, samples);
  ASSERT_EQ(p.trace.size(), 3u);
  EXPECT_NEAR(p.trace[0].second, m.staticW(), 1e-6);
  EXPECT_NEAR(p.trace[1].second, m.staticW(), 1e-6);
  EXPECT_GT(p.trace[2].second, p.avgW);
  EXPECT_NEAR(p.peakW, p.trace[2].second, 1e-9);
  // the trace integrates to the kernel's energy
  double e = 0, prev = 0;
  for (auto &pt : p.trace) {
    e += pt.second * (pt.first - prev);
    prev = pt.first;
  }
  EXPECT_NEAR(e, p.energyJ, 1e-9 * p.energyJ + 1e-12);
  // no samples: one point, the average
  KernelPower one = m.kernel("k", fin, {});
  ASSERT_EQ(one.trace.size(), 1u);
  EXPECT_NEAR(one.trace[0].second, one.avgW, 1e-9);
  EXPECT_NEAR(one.peakW, one.avgW, 1e-9);
}

TEST(PowerModel, ExplicitOverridesReplaceDerivedValues) {
  auto cfg = presetConfig("gtx480");
  std::string xml = R"(<ptxsim_power>
  <technology node_nm="40" vdd="1.0" leakage_w_per_mm2="0.075"/>
  <chip die_area_mm2="529" constant_w="28"/>
  <energy event="regfile.read" pj="123"/>
  <leakage component="l2" w="3.5"/>
  <trace interval_cycles="500"/>
</ptxsim_power>)";
  PowerModel m;
  DiagEngine d;
  ASSERT_TRUE(PowerModel::loadText("o.xml", xml, cfg, m, d));
  EXPECT_NEAR(m.eventJ("regfile.read"), 123e-12, 1e-18);
  EXPECT_NEAR(m.leakageW("l2"), 3.5, 1e-12);
  EXPECT_EQ(m.traceInterval(), 500u);
}

TEST(PowerModel, IdlePowerScalesTheRailWithTheCubeOfTheVoltage) {
  auto cfg = presetConfig("gtx480");
  std::string base = R"(<ptxsim_power>
  <technology node_nm="40" vdd="1.0" leakage_w_per_mm2="0.075"/>
  <chip die_area_mm2="529" constant_w="28"/>
  <leakage component="dram" w="10"/>
)";
  PowerModel full, idle;
  DiagEngine d1, d2;
  ASSERT_TRUE(PowerModel::loadText("a.xml", base + "</ptxsim_power>", cfg, full, d1));
  ASSERT_TRUE(PowerModel::loadText("b.xml", base + "<idle vdd=\"0.5\" clock_mhz=\"100\"/></ptxsim_power>",
                                   cfg, idle, d2));
  EXPECT_FALSE(full.hasIdle());
  EXPECT_DOUBLE_EQ(full.idleW(), full.staticW()); // no <idle>: the floor at full clock
  ASSERT_TRUE(idle.hasIdle());
  EXPECT_NEAR(idle.staticW(), full.staticW(), 1e-9); // kernels see the same floor
  // DRAM background stays, the rest of the static power scales by 0.5^3
  EXPECT_NEAR(idle.idleW(), 10 + (full.staticW() - 10) * 0.125, 1e-9);
  EXPECT_NE(idle.describe().find("idle (no kernel running)"), std::string::npos);
}

TEST(PowerPresets, H100IdleIsTheMeasuredBoardIdleWithin15Percent) {
  // ../shared/hw/h100/power_samples.csv: 70 W before the first phase (345 MHz SM clock)
  auto cfg = presetConfig("h100");
  PowerModel m = presetModel("h100", cfg);
  ASSERT_TRUE(m.hasIdle());
  EXPECT_NEAR(m.idleW(), 70.0, 70.0 * 0.15);
  EXPECT_LT(m.idleW(), m.staticW());
}

namespace {
std::string firstError(const std::string &xml, const timing::TimingConfig &cfg) {
  PowerModel m;
  DiagEngine d;
  EXPECT_FALSE(PowerModel::loadText("bad.xml", xml, cfg, m, d));
  EXPECT_TRUE(d.hasErrors());
  return d.diagnostics().empty() ? "" : d.diagnostics()[0].str();
}
} // namespace

TEST(PowerXml, ErrorsNameTheElementAndLine) {
  timing::TimingConfig cfg;
  EXPECT_NE(firstError("<ptxsim_power>\n  <technology node_nm=\"40\" leakage_w_per_mm2=\"0.1\"/>\n"
                       "  <chip die_area_mm2=\"500\" constant_w=\"10\"/>\n</ptxsim_power>",
                       cfg)
                .find("bad.xml:2:3: error: <technology>: missing attribute 'vdd'"),
            std::string::npos);
  EXPECT_NE(firstError("<ptxsim_power>\n  <technology node_nm=\"40\" vdd=\"one\" "
                       "leakage_w_per_mm2=\"0.1\"/>\n  <chip die_area_mm2=\"500\" "
                       "constant_w=\"10\"/>\n</ptxsim_power>",
                       cfg)
                .find("bad.xml:2:28: error: <technology>: attribute 'vdd' is not a number: 'one'"),
            std::string::npos);
  EXPECT_NE(firstError("<ptxsim_power>\n  <technology node_nm=\"40\" vdd=\"9\" "
                       "leakage_w_per_mm2=\"0.1\"/>\n  <chip die_area_mm2=\"500\" "
                       "constant_w=\"10\"/>\n</ptxsim_power>",
                       cfg)
                .find("<technology>: attribute 'vdd' = 9 is out of range"),
            std::string::npos);
  EXPECT_NE(firstError("<ptxsim_power>\n  <technology node_nm=\"40\" vdd=\"1\" "
                       "leakage_w_per_mm2=\"0.1\"/>\n</ptxsim_power>",
                       cfg)
                .find("bad.xml:1:1: error: <ptxsim_power>: missing element <chip>"),
            std::string::npos);
  std::string unknownElem = std::string(kMinimalXml);
  unknownElem.insert(unknownElem.find("</ptxsim_power>"), "  <cache size=\"1\"/>\n");
  EXPECT_NE(firstError(unknownElem, cfg).find("bad.xml:5:3: error: <cache>: unknown element"),
            std::string::npos);
  std::string unknownAttr = std::string(kMinimalXml);
  unknownAttr.replace(unknownAttr.find("constant_w"), 0, "colour=\"red\" ");
  EXPECT_NE(firstError(unknownAttr, cfg).find("bad.xml:4:28: error: <chip>: unknown attribute 'colour'"),
            std::string::npos);
  std::string badEvent = std::string(kMinimalXml);
  badEvent.insert(badEvent.find("</ptxsim_power>"), "  <energy event=\"regfile.reed\" pj=\"1\"/>\n");
  EXPECT_NE(firstError(badEvent, cfg).find("bad.xml:5:11: error: <energy>: unknown event 'regfile.reed'"),
            std::string::npos);
  EXPECT_NE(firstError("<ptxsim_power>\n  <technology node_nm=\"40\"\n</ptxsim_power>", cfg)
                .find("bad.xml:3:1:"),
            std::string::npos);
  EXPECT_NE(firstError("<ptxsim_power>\n  <chip>\n</ptxsim_power>", cfg)
                .find("expected '</chip>'"),
            std::string::npos);
  std::string badDram = std::string(kMinimalXml);
  badDram.insert(badDram.find("</ptxsim_power>"), "  <dram type=\"RDRAM\"/>\n");
  EXPECT_NE(firstError(badDram, cfg).find("bad.xml:5:3: error: <dram>: unknown DRAM type 'RDRAM'"),
            std::string::npos);
  PowerModel m;
  DiagEngine d;
  EXPECT_FALSE(PowerModel::load("/nonexistent/p.power.xml", cfg, m, d));
  EXPECT_NE(d.diagnostics().at(0).str().find("cannot open"), std::string::npos);
}

TEST(PowerXml, ParsesCommentsAttributesAndNesting) {
  XmlElement root;
  DiagEngine d;
  ASSERT_TRUE(parseXml("x.xml",
                       "<?xml version='1.0'?>\n<!-- c -->\n<a x='1' y=\"a&amp;b\">\n <!-- <b/> -->\n"
                       " text <b z=\"2\"/>\n</a>\n",
                       root, d));
  EXPECT_EQ(root.name, "a");
  EXPECT_EQ(root.attribute("y")->value, "a&b");
  ASSERT_EQ(root.children.size(), 1u);
  EXPECT_EQ(root.children[0]->name, "b");
  EXPECT_EQ(root.children[0]->loc.line, 5u);
  EXPECT_EQ(root.children[0]->loc.col, 7u);
}

namespace {
/// An extension unit with its own counter (as the SPU would add).
class ScratchBuffer : public IPowerComponent {
public:
  std::string name() const override { return "spu_buffer"; }
  void bind(StatBinder &b) override { accesses_ = b.stat("spu.buffer_accesses"); }
  double dynamicJ(const StatValues &v) const override { return v[accesses_] * 5e-12; }
  double leakageW() const override { return 0.5; }

private:
  StatRef accesses_;
};
} // namespace

TEST(PowerExtension, ComponentAppearsInBreakdown) {
  auto cfg = presetConfig("gtx480");
  PowerModel m = presetModel("gtx480", cfg);
  double staticBefore = m.staticW();
  m.addComponent(std::make_shared<ScratchBuffer>());
  EXPECT_NEAR(m.staticW(), staticBefore + 0.5, 1e-9);
  auto c = matmulCounters();
  c["spu.buffer_accesses"] = 1e6;
  KernelPower p = m.kernel("k", makeStats(c, 186680, cfg.core.clockMHz), {});
  ASSERT_GE(p.components.size(), 2u);
  EXPECT_EQ(p.components[p.components.size() - 2].name, "spu_buffer");
  EXPECT_EQ(p.components.back().name, "uncore");
  EXPECT_NEAR(dynamicOf(p, "spu_buffer"), 5e-6, 1e-12);
  EXPECT_NE(formatKernelPower(p).find("spu_buffer"), std::string::npos);
  EXPECT_NE(kernelPowerJson(p).find("{\"name\": \"spu_buffer\", \"dynamic_j\": 5e-06"),
            std::string::npos);
}

TEST(PowerReport, TextAndJsonCarryTotalsAndTrace) {
  auto cfg = presetConfig("gtx480");
  PowerModel m = presetModel("gtx480", cfg);
  KernelPower p = m.kernel("k", makeStats(matmulCounters(), 186680, cfg.core.clockMHz), {});
  std::string text = formatKernelPower(p);
  EXPECT_NE(text.find("power k:"), std::string::npos);
  EXPECT_NE(text.find("regfile"), std::string::npos);
  std::string json = kernelPowerJson(p);
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json.back(), '}');
  EXPECT_NE(json.find("\"avg_w\": "), std::string::npos);
  EXPECT_NE(json.find("\"trace\": [["), std::string::npos);
  std::cout << m.describe() << text;
}

// The power model reads counters by name: renaming one in the timing model (here: a catalog in
// which `dram.read_bytes` became `dram.bytes_read`) must fail the load, naming the counter,
// instead of silently zeroing the DRAM energy.
TEST(PowerModel, RenamedCounterFailsTheLoad) {
  auto cfg = presetConfig("gtx480");
  std::ifstream in(repoPath("configs/gtx480.power.xml"));
  std::stringstream xml;
  xml << in.rdbuf();
  stats::Catalog renamed;
  for (const stats::Desc &d : stats::Catalog::global().all())
    renamed.add(d.name == "dram.read_bytes" ? "dram.bytes_read" : d.name, d.unit, d.help);
  PowerModel m;
  DiagEngine d;
  ASSERT_TRUE(PowerModel::loadText("gtx480.power.xml", xml.str(), cfg, m, d, stats::Catalog::global()));
  DiagEngine d2;
  EXPECT_FALSE(PowerModel::loadText("gtx480.power.xml", xml.str(), cfg, m, d2, renamed));
  std::ostringstream os;
  d2.print(os);
  EXPECT_NE(os.str().find("'dram.read_bytes'"), std::string::npos) << os.str();
}

namespace {
/// An extension component built like the built-ins (EventComponent), through the registry; idle
/// (its factory returns null) unless a test arms it, since the registry is global.
bool gBufferArmed = false;
std::string gBufferStat = "test.buffer_accesses";
class TestBuffer : public EventComponent {
public:
  explicit TestBuffer(const PowerContext &c) : EventComponent("test_buffer", c.tech, false) {
    event("test_buffer.access", 3e-12, "one access", Count::sum({gBufferStat}));
    setArea(2.0);
  }
};
std::shared_ptr<IPowerComponent> testBuffer(const PowerContext &c) {
  return gBufferArmed ? std::make_shared<TestBuffer>(c) : nullptr;
}
struct ArmBuffer {
  ArmBuffer() {
    static bool registered = (registerPowerComponent(testBuffer), true);
    (void)registered;
    stats::Catalog::global().add("test.buffer_accesses", stats::Unit::Count, "test counter");
    gBufferArmed = true;
  }
  ~ArmBuffer() {
    gBufferArmed = false;
    gBufferStat = "test.buffer_accesses";
  }
};

std::string presetXml(const std::string &name, const std::string &extra) {
  std::ifstream in(repoPath("configs/" + name + ".power.xml"));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string xml = ss.str();
  xml.insert(xml.rfind("</ptxsim_power>"), extra);
  return xml;
}
} // namespace

// A registered extension component is one more entry of the built-ins' registry: listed after
// them, its event and leakage overridable by the XML, its area taken off the uncore.
TEST(PowerExtension, RegisteredComponentIsTreatedLikeTheBuiltins) {
  auto cfg = presetConfig("gtx480");
  PowerModel plain = presetModel("gtx480", cfg);
  ArmBuffer arm;
  PowerModel m = presetModel("gtx480", cfg);
  auto c = matmulCounters();
  c["test.buffer_accesses"] = 1e6;
  KernelPower p = m.kernel("k", makeStats(c, 186680, cfg.core.clockMHz), {});
  ASSERT_EQ(p.components.size(), 18u);
  EXPECT_EQ(p.components[15].name, "sm_clock");
  EXPECT_EQ(p.components[16].name, "test_buffer");
  EXPECT_NEAR(p.components[16].dynamicJ, 1e6 * 3e-12, 1e-18);
  EXPECT_NEAR(m.eventJ("test_buffer.access"), 3e-12, 1e-24);
  // its 2 mm^2 leak at the preset's density instead of the uncore's
  double density = m.leakageW("test_buffer") / 2.0;
  EXPECT_GT(density, 0);
  EXPECT_NEAR(plain.leakageW("uncore") - m.leakageW("uncore"), m.leakageW("test_buffer"), 1e-12);
  EXPECT_NEAR(m.staticW(), plain.staticW(), 1e-12);

  PowerModel o;
  DiagEngine d;
  ASSERT_TRUE(PowerModel::loadText("x.xml",
                                   presetXml("gtx480", "<energy event=\"test_buffer.access\" "
                                                       "pj=\"7\"/><leakage component=\""
                                                       "test_buffer\" w=\"0.25\"/>"),
                                   cfg, o, d));
  EXPECT_NEAR(o.eventJ("test_buffer.access"), 7e-12, 1e-24);
  EXPECT_NEAR(o.leakageW("test_buffer"), 0.25, 1e-15);
  KernelPower q = o.kernel("k", makeStats(c, 186680, cfg.core.clockMHz), {});
  EXPECT_NEAR(dynamicOf(q, "test_buffer"), 7e-6, 1e-15);
  EXPECT_NE(o.describe().find("test_buffer.access"), std::string::npos);
}

// A statistic a registered component binds that nothing registers fails the load, naming it.
TEST(PowerExtension, UnregisteredStatisticOfAComponentFailsTheLoad) {
  auto cfg = presetConfig("gtx480");
  ArmBuffer arm;
  gBufferStat = "test.never_registered";
  PowerModel m;
  DiagEngine d;
  EXPECT_FALSE(PowerModel::loadText("x.xml", presetXml("gtx480", ""), cfg, m, d));
  std::ostringstream os;
  d.print(os);
  EXPECT_NE(os.str().find("'test.never_registered'"), std::string::npos) << os.str();
}

// Statistics are bound once and read by position: snapshots in another order, or lacking some
// counters, read the same values as a snapshot evaluated on its own.
TEST(PowerModel, SnapshotsOfAnyLayoutReadTheirOwnValues) {
  auto cfg = presetConfig("gtx480");
  PowerModel m = presetModel("gtx480", cfg);
  auto c = matmulCounters();
  KernelTimingStats fin = makeStats(c, 200000, cfg.core.clockMHz);
  std::map<std::string, double> half, most;
  for (auto &kv : c) {
    half[kv.first] = kv.second / 2;
    if (kv.first != "sm.regfile_reads" && kv.first != "l2.accesses")
      most[kv.first] = kv.second * 3 / 4;
  }
  // the same names in reverse order
  KernelTimingStats h = makeStats(half, 100000, cfg.core.clockMHz), reversed;
  for (auto it = h.values().rbegin(); it != h.values().rend(); ++it)
    reversed.set(it->first, it->second);
  std::vector<KernelTimingStats> samples = {reversed,
                                            makeStats(most, 150000, cfg.core.clockMHz)};
  KernelPower p = m.kernel("k", fin, samples);
  ASSERT_EQ(p.trace.size(), 3u);
  double staticW = m.staticW(), prevE = 0, prevT = 0;
  for (size_t i = 0; i < 3; ++i) {
    const KernelTimingStats &s = i < 2 ? samples[i] : fin;
    KernelPower alone = m.kernel("k", s, {});
    double e = totalDynamic(alone), t = alone.seconds;
    EXPECT_NEAR(p.trace[i].second, std::max(0.0, e - prevE) / (t - prevT) + staticW, 1e-9) << i;
    prevE = e;
    prevT = t;
  }
  EXPECT_GT(dynamicOf(m.kernel("k", samples[0], {}), "regfile"), 0);
  EXPECT_EQ(dynamicOf(m.kernel("k", samples[1], {}), "operand_collector"), 0);
}

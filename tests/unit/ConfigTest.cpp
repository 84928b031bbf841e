// base/Config (option sets) and timing/TimingConfig (GPGPU-Sim option files, presets, dumps).

#include "base/Config.h"
#include "timing/TimingConfig.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ptxsim {
namespace {

std::string rootDir() { return std::string(PTXSIM_TEST_DIR) + "/.."; }

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A directory of this test process's own: ctest runs the tests as parallel processes, which
// must not overwrite each other's files. Removed with its files when the process exits.
struct TempDir {
  std::string path =
      ::testing::TempDir() + "ptxsim_config_test_" + std::to_string(getpid()) + "/";
  TempDir() { mkdir(path.c_str(), 0700); }
  ~TempDir() {
    std::error_code ec; // (nothing to report at exit if it is already gone)
    std::filesystem::remove_all(path, ec);
  }
};

const std::string &tempDir() {
  static const TempDir dir;
  return dir.path;
}

std::string writeTemp(const std::string &name, const std::string &text) {
  std::string path = tempDir() + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Diagnostics of one severity as text, temporary files named without their directory.
std::vector<std::string> messages(const DiagEngine &d, Severity sev) {
  std::vector<std::string> v;
  const std::string tmp = tempDir();
  for (const Diagnostic &x : d.diagnostics())
    if (x.severity == sev) {
      std::string s = x.str();
      if (s.compare(0, tmp.size(), tmp) == 0)
        s.erase(0, tmp.size());
      v.push_back(s);
    }
  return v;
}
std::vector<std::string> errors(const DiagEngine &d) { return messages(d, Severity::Error); }
std::vector<std::string> warnings(const DiagEngine &d) { return messages(d, Severity::Warning); }

struct Sample {
  bool flag = false;
  uint32_t count = 4;
  uint64_t big = 1;
  double mhz = 700.0;
  std::string mode = "gto";
  uint32_t a = 0, b = 0;
};

// Binds every kind of option to a Sample.
void bind(OptionSet &o, Sample &s) {
  o.add("-flag", &s.flag, "a flag");
  o.add("-count", &s.count, "a count").range(1, 64);
  o.add("-big", &s.big, "a big number");
  o.add("-mhz", &s.mhz, "a clock").min(1);
  o.add("-mode", &s.mode, "a mode").choices({"lrr", "gto"});
  o.addCustom(
      "-pair", "a:b",
      [&s](const std::string &v, std::string &err) {
        size_t c = v.find(':');
        if (c == std::string::npos) {
          err = "expected a:b";
          return false;
        }
        s.a = uint32_t(std::stoul(v.substr(0, c)));
        s.b = uint32_t(std::stoul(v.substr(c + 1)));
        return true;
      },
      [&s] { return std::to_string(s.a) + ":" + std::to_string(s.b); }, "a pair");
  o.addIgnored("-visualizer_enabled", "a log");
  o.addAlias("-n", "-count");
}

TEST(ConfigOptionSet, ParsesEveryKindSeveralPerLineCommentsAndQuotes) {
  Sample s;
  OptionSet o;
  bind(o, s);
  DiagEngine d;
  EXPECT_TRUE(o.parseText("# header comment\n\n-flag 1 -count 16   # trailing comment\n"
                          "-big 0x100000000\n-mhz 1312.5\n-mode lrr\n"
                          "-pair \"3:\n       4\"\n",
                          "a.config", d));
  EXPECT_TRUE(d.diagnostics().empty());
  EXPECT_TRUE(s.flag);
  EXPECT_EQ(s.count, 16u);
  EXPECT_EQ(s.big, 0x100000000ull);
  EXPECT_DOUBLE_EQ(s.mhz, 1312.5);
  EXPECT_EQ(s.mode, "lrr");
  EXPECT_EQ(s.a, 3u); // the quoted value spans lines; whitespace runs become one space
  EXPECT_EQ(s.b, 4u);
  EXPECT_EQ(o.find("-count")->setAt(), "a.config:3");
  EXPECT_TRUE(o.wasSet("-mode"));
}

TEST(ConfigOptionSet, LaterLinesFilesAndArgsOverride) {
  Sample s;
  OptionSet o;
  bind(o, s);
  DiagEngine d;
  ASSERT_TRUE(o.parseText("-count 2\n-count 3\n-mode lrr\n", "a", d));
  EXPECT_EQ(s.count, 3u);
  ASSERT_TRUE(o.parseText("-count 5\n", "b", d));
  EXPECT_EQ(s.count, 5u);
  EXPECT_EQ(s.mode, "lrr");
  ASSERT_TRUE(o.parseArgs({"-n", "7", "-flag"}, d)); // alias; a bool without a value is true
  EXPECT_EQ(s.count, 7u);
  EXPECT_TRUE(s.flag);
  EXPECT_EQ(o.find("-count")->setCount(), 4u);
}

TEST(ConfigOptionSet, UnknownOptionWithSuggestion) {
  Sample s;
  OptionSet o;
  bind(o, s);
  DiagEngine d;
  EXPECT_FALSE(o.parseText("-count 2\n  -cuont 3\n-zzzzzzzz 1\n", "u.config", d));
  EXPECT_EQ(errors(d), (std::vector<std::string>{
                           "u.config:2:3: error: unknown option '-cuont'; did you mean '-count'?",
                           "u.config:3:1: error: unknown option '-zzzzzzzz'"}));
  EXPECT_EQ(s.count, 2u);
}

TEST(ConfigOptionSet, LenientTurnsUnknownOptionsIntoWarnings) {
  Sample s;
  OptionSet o;
  bind(o, s);
  DiagEngine d;
  EXPECT_TRUE(o.parseText("-cuont 3 -count 9\n", "l.config", d, /*lenient=*/true));
  EXPECT_TRUE(errors(d).empty());
  EXPECT_EQ(warnings(d), (std::vector<std::string>{
                             "l.config:1:1: warning: unknown option '-cuont'; did you mean "
                             "'-count'? (ignored)"}));
  EXPECT_EQ(s.count, 9u); // the unknown option's value was skipped, not misread
}

TEST(ConfigOptionSet, MissingValue) {
  Sample s;
  OptionSet o;
  bind(o, s);
  DiagEngine d;
  EXPECT_FALSE(o.parseText("-count\n-mode gto\n-mhz", "m.config", d));
  EXPECT_EQ(errors(d),
            (std::vector<std::string>{"m.config:1:1: error: option '-count' needs a value",
                                      "m.config:3:1: error: option '-mhz' needs a value"}));
}

TEST(ConfigOptionSet, WrongType) {
  Sample s;
  OptionSet o;
  bind(o, s);
  DiagEngine d;
  EXPECT_FALSE(o.parseText("-count abc\n-flag maybe\n-mhz 7x\n-mode fifo\n-pair 12\n-big -1\n",
                           "t.config", d));
  EXPECT_EQ(errors(d),
            (std::vector<std::string>{
                "t.config:1:8: error: invalid value 'abc' for option '-count': expected an "
                "unsigned integer",
                "t.config:2:7: error: invalid value 'maybe' for option '-flag': expected a "
                "boolean (0, 1, true, false)",
                "t.config:3:6: error: invalid value '7x' for option '-mhz': expected a number",
                "t.config:4:7: error: invalid value 'fifo' for option '-mode': expected one of "
                "lrr, gto",
                "t.config:5:7: error: invalid value '12' for option '-pair': expected a:b",
                "t.config:6:6: error: invalid value '-1' for option '-big': expected an unsigned "
                "integer"}));
  EXPECT_EQ(s.count, 4u); // fields keep their values
  EXPECT_EQ(s.mode, "gto");
}

TEST(ConfigOptionSet, OutOfRange) {
  Sample s;
  OptionSet o;
  bind(o, s);
  DiagEngine d;
  EXPECT_FALSE(o.parseText("-count 65\n-count 0\n-mhz 0.5\n-count 99999999999\n", "r.config", d));
  EXPECT_EQ(errors(d),
            (std::vector<std::string>{
                "r.config:1:8: error: value '65' for option '-count' is out of range: must be "
                "between 1 and 64",
                "r.config:2:8: error: value '0' for option '-count' is out of range: must be "
                "between 1 and 64",
                "r.config:3:6: error: value '0.5' for option '-mhz' is out of range: must be at "
                "least 1.0",
                "r.config:4:8: error: value '99999999999' for option '-count' is out of range: "
                "must be between 1 and 64"}));
}

TEST(ConfigOptionSet, StrayValuesAndUnterminatedQuote) {
  Sample s;
  OptionSet o;
  bind(o, s);
  DiagEngine d;
  EXPECT_FALSE(o.parseText("15\n-count 2 3\n", "v.config", d));
  EXPECT_EQ(errors(d), (std::vector<std::string>{
                           "v.config:1:1: error: expected an option name (-name value), found '15'",
                           "v.config:2:10: error: unexpected value '3' (one value per option)"}));
  DiagEngine d2;
  EXPECT_FALSE(o.parseText("-pair \"1:2\n", "q.config", d2));
  EXPECT_EQ(errors(d2),
            (std::vector<std::string>{"q.config:1:7: error: unterminated quoted value"}));
}

TEST(ConfigOptionSet, IgnoredOptionsWarnOnce) {
  Sample s;
  OptionSet o;
  bind(o, s);
  DiagEngine d;
  EXPECT_TRUE(o.parseText("-visualizer_enabled 0\n-visualizer_enabled 1 -count 3\n", "i", d));
  EXPECT_EQ(warnings(d), (std::vector<std::string>{
                             "i:1:1: warning: option '-visualizer_enabled' is accepted but has "
                             "no effect in ptxsim"}));
  EXPECT_EQ(s.count, 3u);
}

TEST(ConfigOptionSet, CommandLineLocations) {
  Sample s;
  OptionSet o;
  bind(o, s);
  DiagEngine d;
  EXPECT_FALSE(o.parseArgs({"-count", "8", "-mode", "rr", "-bogus"}, d));
  EXPECT_EQ(errors(d),
            (std::vector<std::string>{
                "<command line>:1:16: error: invalid value 'rr' for option '-mode': expected one "
                "of lrr, gto",
                "<command line>:1:19: error: unknown option '-bogus'"}));
  EXPECT_EQ(s.count, 8u);
}

TEST(ConfigOptionSet, MissingFile) {
  OptionSet o;
  DiagEngine d;
  EXPECT_FALSE(o.parseFile("/nonexistent/x.config", d));
  EXPECT_EQ(errors(d),
            (std::vector<std::string>{"/nonexistent/x.config: error: cannot open config file"}));
}

TEST(ConfigOptionSet, DumpsJsonTextAndMarkdown) {
  Sample s;
  OptionSet o;
  bind(o, s);
  EXPECT_EQ(o.find("-mhz")->defaultValue(), "700.0");
  DiagEngine d;
  ASSERT_TRUE(o.parseText("-count 9 -mode lrr -pair 1:2 -mhz 1312", "a", d));
  EXPECT_EQ(o.json(), "{\n  \"-flag\": 0,\n  \"-count\": 9,\n  \"-big\": 1,\n  \"-mhz\": 1312.0,\n"
                      "  \"-mode\": \"lrr\",\n  \"-pair\": \"1:2\"\n}");
  // the text dump parses back to the same values
  Sample s2;
  OptionSet o2;
  bind(o2, s2);
  ASSERT_TRUE(o2.parseText(o.text(), "dump", d)) << o.text();
  EXPECT_EQ(o2.json(), o.json());
  std::string md = o.markdown();
  EXPECT_NE(md.find("| `-count` | uint32 | `4` | a count (between 1 and 64) |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| `-pair` | `a:b` | `0:0` | a pair |"), std::string::npos) << md;
  EXPECT_NE(md.find("| `-n` | `-count` |"), std::string::npos) << md;
  EXPECT_NE(md.find("| `-visualizer_enabled` | a log |"), std::string::npos) << md;
}

TEST(ConfigOptionSet, EditDistanceAndJsonQuote) {
  EXPECT_EQ(editDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(editDistance("", "abc"), 3u);
  EXPECT_EQ(jsonQuote("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
  EXPECT_EQ(formatDouble(0.1), "0.1");
  EXPECT_EQ(formatDouble(924), "924.0");
}

// --- TimingConfig ------------------------------------------------------------------------------

using timing::CacheConfig;
using timing::TimingConfig;

bool loadText(const std::string &text, TimingConfig &cfg, DiagEngine &d, bool lenient = false,
              const std::string &name = "t.config") {
  return timing::loadTimingConfig({writeTemp(name, text)}, lenient, cfg, d);
}

TEST(ConfigTiming, NoInputKeepsTheDefaults) {
  TimingConfig cfg;
  DiagEngine d;
  ASSERT_TRUE(timing::loadTimingConfig({}, false, cfg, d));
  EXPECT_EQ(timing::timingConfigJson(cfg), timing::timingConfigJson(TimingConfig{}));
  EXPECT_TRUE(timing::validateTimingConfig(cfg, d));
  EXPECT_TRUE(d.diagnostics().empty());
}

TEST(ConfigTiming, CoreOptions) {
  TimingConfig cfg;
  DiagEngine d;
  ASSERT_TRUE(
      loadText("-gpgpu_n_clusters 40 -gpgpu_n_cores_per_cluster 2\n"
               "-gpgpu_shader_core_pipeline 2048:32\n-gpgpu_scheduler two_level_active:6:0:1\n"
               "-gpgpu_clock_domains 1132.0:1000:1132:850.5\n-ptxsim_one_cta_per_sm 1\n",
               cfg, d));
  EXPECT_EQ(cfg.numSms(), 80u);
  EXPECT_EQ(cfg.core.maxThreadsPerSm, 2048u);
  EXPECT_EQ(cfg.core.scheduler, "two_level");
  EXPECT_EQ(cfg.core.twoLevelActiveWarps, 6u);
  EXPECT_DOUBLE_EQ(cfg.core.clockMHz, 1132.0);
  EXPECT_DOUBLE_EQ(cfg.mem.icntClockMHz, 1000.0);
  EXPECT_DOUBLE_EQ(cfg.dram.clockMHz, 850.5);
  EXPECT_TRUE(cfg.core.oneCtaPerSm);
}

TEST(ConfigTiming, CacheSpecs) {
  TimingConfig cfg;
  DiagEngine d;
  ASSERT_TRUE(loadText("-gpgpu_cache:dl1 N:64:128:6,L:L:m:N:H,A:128:8,8\n"
                       "-gpgpu_cache:il1 32:64:2,L:R:f:N,A:4:4\n" // GPGPU-Sim 3.x: no type letter
                       "-gpgpu_const_cache:l1 none\n"
                       "-gpgpu_cache:dl2 S:32:128:24,L:B:m:W:L,A:192:4,32:0,32\n"
                       "-gpgpu_n_sub_partition_per_mchannel 2\n",
                       cfg, d))
      << d.diagnostics()[0].str();
  const CacheConfig &l1 = cfg.mem.l1d;
  EXPECT_EQ(l1.sets, 64u);
  EXPECT_EQ(l1.lineBytes, 128u);
  EXPECT_EQ(l1.ways, 6u);
  EXPECT_EQ(l1.sectorBytes, 128u);
  EXPECT_FALSE(l1.writeBack); // L: local write-back, global write-through
  EXPECT_FALSE(l1.writeAllocate);
  EXPECT_EQ(l1.mshrEntries, 128u);
  EXPECT_EQ(l1.mshrMaxMerge, 8u);
  EXPECT_EQ(cfg.mem.l1i.sets, 32u);
  EXPECT_EQ(cfg.mem.l1i.lineBytes, 64u);
  EXPECT_FALSE(cfg.mem.constCache.enabled);
  const CacheConfig &l2 = cfg.mem.l2; // two sub-partitions fold into one slice
  EXPECT_EQ(l2.sets, 64u);
  EXPECT_EQ(l2.ways, 24u);
  EXPECT_EQ(l2.sectorBytes, 32u);
  EXPECT_TRUE(l2.writeBack);
  EXPECT_TRUE(l2.writeAllocate);
  EXPECT_EQ(l2.mshrEntries, 384u);
  EXPECT_EQ(l2.capacity(), 192u * 1024);
}

TEST(ConfigTiming, CacheSpecErrorsNameTheFieldAtTheValue) {
  TimingConfig cfg;
  DiagEngine d;
  EXPECT_FALSE(loadText("-gpgpu_n_mem 6\n-gpgpu_cache:dl1   X:64:128:6,L:L:m:N:H,A:128:8,8\n"
                        "-gpgpu_cache:dl2 N:64:128,L:B:m:N,A:4:4\n"
                        "-gpgpu_cache:il1 N:4:128:4,L:Q:f:N:L,S:2:32,4\n"
                        "-gpgpu_cache:dl1 N:4:128:4\n",
                        cfg, d, false, "c.config"));
  EXPECT_EQ(errors(d),
            (std::vector<std::string>{
                "c.config:2:20: error: invalid value 'X:64:128:6,L:L:m:N:H,A:128:8,8' for option "
                "'-gpgpu_cache:dl1': cache type 'X' is not N (normal) or S (sectored)",
                "c.config:3:18: error: invalid value 'N:64:128,L:B:m:N,A:4:4' for option "
                "'-gpgpu_cache:dl2': expected [N|S:]<sets>:<line_bytes>:<assoc> before the first "
                "comma",
                "c.config:4:18: error: invalid value 'N:4:128:4,L:Q:f:N:L,S:2:32,4' for option "
                "'-gpgpu_cache:il1': write policy 'Q' is not one of RBTEL",
                "c.config:5:18: error: invalid value 'N:4:128:4' for option '-gpgpu_cache:dl1': "
                "expected a cache spec like N:64:128:6,L:L:m:N:H,A:128:8,8 or 'none'"}));
  EXPECT_EQ(cfg.mem.numPartitions, 6u) << "a failed load leaves the output untouched";
}

TEST(ConfigTiming, DramTimingNamedPositionalAndDerived) {
  TimingConfig cfg;
  DiagEngine d;
  ASSERT_TRUE(loadText("-gpgpu_dram_burst_length 8\n-dram_data_command_freq_ratio 4\n"
                       "-gpgpu_dram_timing_opt \"nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:\n"
                       "      CL=12:WL=4:CDLR=5:WR=12:nbkgrp=1:CCDL=0:RTPL=0\"\n"
                       "-gpgpu_dram_buswidth 4 -gpgpu_n_mem_per_ctrlr 2\n",
                       cfg, d));
  const timing::DramConfig &dr = cfg.dram;
  EXPECT_EQ(dr.banks, 16u);
  EXPECT_EQ(dr.tCCD, 2u);
  EXPECT_EQ(dr.tRRD, 6u);
  EXPECT_EQ(dr.tRCD, 12u);
  EXPECT_EQ(dr.tRAS, 28u);
  EXPECT_EQ(dr.tRP, 12u);
  EXPECT_EQ(dr.tRC, 40u);
  EXPECT_EQ(dr.tCL, 12u);
  EXPECT_EQ(dr.tWR, 12u);
  EXPECT_EQ(dr.tBurst, 2u);        // BL / ratio
  EXPECT_EQ(dr.tRTW, 12u);         // CL + BL/ratio + 2 - WL
  EXPECT_EQ(dr.tWTR, 11u);         // WL + BL/ratio + CDLR
  EXPECT_EQ(dr.busWidthBytes, 8u); // two x32 chips
  EXPECT_EQ(dr.dataRate, 4u);

  TimingConfig p;
  ASSERT_TRUE(loadText("-gpgpu_dram_timing_opt 8:1:3:10:25:11:36:10:2:3:9\n"
                       "-gpgpu_dram_timing_opt \"RTW=7 REFI=3900 RFC=260 BURST=4\"\n",
                       p, d));
  EXPECT_EQ(p.dram.banks, 8u);
  EXPECT_EQ(p.dram.tRC, 36u);
  EXPECT_EQ(p.dram.tWR, 9u);
  EXPECT_EQ(p.dram.tRTW, 7u); // given, not derived
  EXPECT_EQ(p.dram.tREFI, 3900u);
  EXPECT_EQ(p.dram.tBurst, 4u);

  DiagEngine e;
  TimingConfig q;
  EXPECT_FALSE(loadText("-gpgpu_dram_timing_opt nbk=16:XYZ=3\n-gpgpu_dram_timing_opt 1:2:3\n", q, e,
                        false, "d.config"));
  ASSERT_EQ(errors(e).size(), 2u);
  EXPECT_EQ(errors(e)[0].find("d.config:1:24: error: invalid value 'nbk=16:XYZ=3' for option "
                              "'-gpgpu_dram_timing_opt': unknown DRAM timing 'XYZ' (known: nbk",
                              0),
            0u)
      << errors(e)[0];
  EXPECT_NE(errors(e)[1].find("d.config:2:24:"), std::string::npos) << errors(e)[1];
}

TEST(ConfigTiming, GpgpuSimShapedOptions) {
  TimingConfig cfg;
  DiagEngine d;
  ASSERT_TRUE(
      loadText("-gpgpu_dram_scheduler 0\n-network_mode 2\n"
               "-gpgpu_mem_addr_mapping dramid@9;00000000.0000RRRR.BBBCCCCB.CCSSSSSS\n"
               "-ptx_opcode_latency_fp 5,13,4,5,39\n-ptx_opcode_latency_int 6,13,9,5,145,32\n"
               "-ptx_opcode_latency_tensor 70\n-l1_latency 28\n",
               cfg, d));
  EXPECT_EQ(cfg.dram.scheduler, "fcfs");
  EXPECT_EQ(cfg.mem.topology, "crossbar");
  EXPECT_EQ(cfg.mem.partitionInterleaveBytes, 512u);
  EXPECT_EQ(cfg.core.spLatency, 5u);
  EXPECT_EQ(cfg.core.intLatency, 6u);
  EXPECT_EQ(cfg.core.mulLatency, 9u);
  EXPECT_EQ(cfg.core.tensorLatency, 70u);
  EXPECT_EQ(cfg.mem.l1Latency, 28u);
  // GPGPU-Sim's partition hashing schemes (2 = IPOLY in its Volta and later configs) load and
  // select the model's hash; past its last scheme (5, custom) is an error
  TimingConfig hashed;
  ASSERT_TRUE(loadText("-gpgpu_memory_partition_indexing 2\n", hashed, d));
  EXPECT_EQ(hashed.mem.partitionIndexing, 2u);
  TimingConfig bad;
  DiagEngine d2;
  EXPECT_FALSE(loadText("-gpgpu_memory_partition_indexing 6\n", bad, d2));
}

TEST(ConfigTiming, ErrorsCarryFileAndLine) {
  TimingConfig cfg;
  DiagEngine d;
  EXPECT_FALSE(loadText("# comment\n-gpgpu_n_cluster 15\n-gpgpu_n_clusters\n"
                        "-gpgpu_scheduler fifo\n-gpgpu_shader_cta 0\n-gpgpu_num_sp_units two\n",
                        cfg, d, false, "e.config"));
  std::vector<std::string> e = errors(d);
  ASSERT_EQ(e.size(), 5u);
  EXPECT_EQ(e[0], "e.config:2:1: error: unknown option '-gpgpu_n_cluster'; did you mean "
                  "'-gpgpu_n_clusters'?");
  EXPECT_EQ(e[1], "e.config:3:1: error: option '-gpgpu_n_clusters' needs a value");
  // the policies listed are the registry's (a test may have added one after the built-ins)
  EXPECT_EQ(e[2].rfind("e.config:4:18: error: invalid value 'fifo' for option '-gpgpu_scheduler': "
                       "expected two_level_active:<active_warps> or a registered policy: lrr gto "
                       "two_level ccws", 0),
            0u)
      << e[2];
  EXPECT_EQ(e[3], "e.config:5:19: error: value '0' for option '-gpgpu_shader_cta' is out of "
                  "range: must be between 1 and 1024");
  EXPECT_EQ(e[4], "e.config:6:21: error: invalid value 'two' for option '-gpgpu_num_sp_units': "
                  "expected an unsigned integer");
}

TEST(ConfigTiming, LenientAndIgnoredGpgpuSimOptions) {
  std::string text = "-gpgpu_ptx_sim_mode 0\n-visualizer_enabled 0\n-power_simulation_enabled 1\n"
                     "-gpgpu_n_clusters 20\n-my_private_option 3\n";
  TimingConfig strict;
  DiagEngine d;
  EXPECT_FALSE(loadText(text, strict, d, false, "g.config"));
  EXPECT_EQ(errors(d),
            (std::vector<std::string>{"g.config:5:1: error: unknown option '-my_private_option'"}));
  TimingConfig lenient;
  DiagEngine w;
  EXPECT_TRUE(loadText(text, lenient, w, true, "g.config"));
  EXPECT_EQ(lenient.core.numClusters, 20u);
  std::vector<std::string> ws = warnings(w);
  ASSERT_EQ(ws.size(), 4u);
  EXPECT_EQ(ws[0], "g.config:1:1: warning: option '-gpgpu_ptx_sim_mode' is accepted but has no "
                   "effect in ptxsim");
  EXPECT_EQ(ws[3], "g.config:5:1: warning: unknown option '-my_private_option' (ignored)");
}

TEST(ConfigTiming, CommandLineOverridesFiles) {
  TimingConfig cfg;
  DiagEngine d;
  std::string f = writeTemp("o.config", "-gpgpu_n_clusters 15\n-gpgpu_scheduler lrr\n");
  ASSERT_TRUE(timing::loadTimingConfig({f}, {"-gpgpu_scheduler", "gto", "-gpgpu_n_mem", "8"}, false,
                                       cfg, d));
  EXPECT_EQ(cfg.core.scheduler, "gto");
  EXPECT_EQ(cfg.mem.numPartitions, 8u);
  EXPECT_EQ(cfg.sources, std::vector<std::string>{f});
}

TEST(ConfigTiming, ValidateNamesTheOption) {
  TimingConfig cfg;
  cfg.mem.l1d.sets = 48;
  cfg.dram.tRC = 10;
  cfg.core.maxThreadsPerSm = 1000;
  DiagEngine d;
  EXPECT_FALSE(timing::validateTimingConfig(cfg, d));
  EXPECT_EQ(errors(d),
            (std::vector<std::string>{
                "<config>: error: '-gpgpu_shader_core_pipeline': max threads per SM 1000 is not a "
                "positive multiple of the warp size 32",
                "<config>: error: '-gpgpu_cache:dl1': number of sets 48 is not a power of two",
                "<config>: error: '-gpgpu_dram_timing_opt': RC (10) is shorter than RAS (28)"}));
}

TEST(ConfigTiming, JsonHasEveryField) {
  TimingConfig cfg;
  std::string j = timing::timingConfigJson(cfg);
  for (const char *key : {"\"name\": \"GTX480-like\"",
                          "\"numSms\": 15",
                          "\"numClusters\": 15",
                          "\"warpSize\": 32",
                          "\"maxThreadsPerSm\": 1536",
                          "\"scheduler\": \"gto\"",
                          "\"ccwsVtaEntries\": 16",
                          "\"tensorInterval\": 16",
                          "\"clockMHz\": 700.0",
                          "\"l1d\": {",
                          "\"constCache\": {",
                          "\"capacityBytes\": 16384",
                          "\"mshrMaxMerge\": 8",
                          "\"l2TotalBytes\": 786432",
                          "\"partitionInterleaveBytes\": 256",
                          "\"topology\": \"crossbar\"",
                          "\"type\": \"GDDR5\"",
                          "\"tRFC\": 0",
                          "\"dataRate\": 2",
                          "\"pcieLatencyUs\": 8.0",
                          "\"sources\": []"})
    EXPECT_NE(j.find(key), std::string::npos) << key << "\n" << j;
  // balanced braces, one object
  EXPECT_EQ(j.front(), '{');
  EXPECT_EQ(j.back(), '}');
  EXPECT_EQ(std::count(j.begin(), j.end(), '{'), std::count(j.begin(), j.end(), '}'));
}

TEST(ConfigTiming, TextDumpLoadsBackToTheSameConfig) {
  for (const char *preset : {"gtx480", "v100", "h100"}) {
    TimingConfig cfg;
    DiagEngine d;
    ASSERT_TRUE(
        timing::loadTimingConfig({rootDir() + "/configs/" + preset + ".config"}, false, cfg, d));
    TimingConfig back;
    bool loaded = loadText(timing::timingConfigText(cfg), back, d, false, "dump.config");
    for (const Diagnostic &x : d.diagnostics())
      ADD_FAILURE() << preset << ": " << x.str();
    ASSERT_TRUE(loaded) << timing::timingConfigText(cfg);
    back.sources = cfg.sources;
    EXPECT_EQ(timing::timingConfigJson(back), timing::timingConfigJson(cfg)) << preset;
  }
}

// --- presets -----------------------------------------------------------------------------------

TimingConfig loadPreset(const std::string &name) {
  TimingConfig cfg;
  DiagEngine d;
  bool ok = timing::loadTimingConfig({rootDir() + "/configs/" + name + ".config"}, false, cfg, d);
  EXPECT_TRUE(ok) << name;
  EXPECT_TRUE(timing::validateTimingConfig(cfg, d)) << name;
  for (const Diagnostic &x : d.diagnostics())
    ADD_FAILURE() << x.str(); // no errors and no warnings
  return cfg;
}

TEST(ConfigPresets, Gtx480) {
  TimingConfig c = loadPreset("gtx480");
  EXPECT_EQ(c.name, "GTX480");
  EXPECT_EQ(c.numSms(), 15u);
  EXPECT_EQ(c.core.maxThreadsPerSm, 1536u);
  EXPECT_EQ(c.core.registersPerSm, 32768u);
  EXPECT_EQ(c.core.sharedBytesPerSm, 48u * 1024);
  EXPECT_EQ(c.mem.l1d.capacity(), 16u * 1024);
  EXPECT_EQ(c.mem.l2.capacity() * c.mem.numPartitions, 768u * 1024);
  EXPECT_EQ(c.mem.numPartitions, 6u);
  EXPECT_EQ(c.dram.type, "GDDR5");
  EXPECT_EQ(c.dram.busWidthBytes, 8u);
  EXPECT_DOUBLE_EQ(c.core.clockMHz, 700.0);
  EXPECT_DOUBLE_EQ(c.dram.clockMHz, 924.0);
}

TEST(ConfigPresets, V100) {
  TimingConfig c = loadPreset("v100");
  EXPECT_EQ(c.numSms(), 80u);
  EXPECT_EQ(c.core.maxThreadsPerSm, 2048u);
  EXPECT_EQ(c.core.sharedBytesPerSm, 96u * 1024);
  EXPECT_EQ(c.mem.l1d.capacity() + c.core.sharedBytesPerSm, 128u * 1024);
  EXPECT_EQ(c.mem.l2.capacity() * c.mem.numPartitions, 6u * 1024 * 1024);
  EXPECT_EQ(c.mem.l2.capacity(), 192u * 1024); // SST-GPU's slice
  EXPECT_EQ(c.dram.type, "HBM2");
  EXPECT_GE(c.core.clockMHz, 1132.0);
  EXPECT_LE(c.core.clockMHz, 1380.0);
  double gbps = double(c.dram.busWidthBytes) * c.dram.dataRate * c.dram.clockMHz * 1e6 *
                c.mem.numPartitions / 1e9;
  EXPECT_NEAR(gbps, 900.0, 10.0);
}

TEST(ConfigPresets, H100) {
  TimingConfig c = loadPreset("h100");
  EXPECT_EQ(c.numSms(), 132u);
  EXPECT_EQ(c.core.sharedBytesPerSm, 228u * 1024);
  // no adaptive carve-out in the model: the L1D is what a kernel without shared memory gets (a
  // chase hits L1 up to 128 KiB and half of 256 KiB on the H100), shared memory its largest size
  EXPECT_GE(c.mem.l1d.capacity(), 128u * 1024);
  EXPECT_LE(c.mem.l1d.capacity(), 256u * 1024 - 28u * 1024);
  EXPECT_EQ(c.mem.l2.capacity() * c.mem.numPartitions, 50u * 1024 * 1024);
  EXPECT_EQ(c.dram.type, "HBM3");
  double gbps = double(c.dram.busWidthBytes) * c.dram.dataRate * c.dram.clockMHz * 1e6 *
                c.mem.numPartitions / 1e9;
  EXPECT_NEAR(gbps, 3350.0, 20.0);
  // hashed L2 slice selection: with the linear mapping a grid-stride write reaches only 1.43 of
  // the measured 3.14 TB/s (configs/h100.config, tools/correlate/README.md)
  EXPECT_EQ(c.mem.partitionIndexing, 1u);
}

TEST(ConfigPresets, OverridingAPresetFromASecondFile) {
  std::string extra = writeTemp("more.config", "-gpgpu_scheduler lrr\n-gpgpu_n_clusters 30\n");
  TimingConfig c;
  DiagEngine d;
  ASSERT_TRUE(timing::loadTimingConfig({rootDir() + "/configs/gtx480.config", extra}, false, c, d));
  EXPECT_EQ(c.core.scheduler, "lrr");
  EXPECT_EQ(c.numSms(), 30u);
  EXPECT_EQ(c.core.registersPerSm, 32768u);
  EXPECT_EQ(c.sources.size(), 2u);
}

// docs/config.md carries the option table generated from the bindings; this fails when they
// drift. PTXSIM_UPDATE_DOCS=1 rewrites the table in place.
TEST(ConfigDoc, ReferenceTableMatchesTheOptions) {
  const std::string path = rootDir() + "/docs/config.md";
  const std::string begin = "<!-- BEGIN GENERATED OPTIONS (tests/unit/ConfigTest.cpp) -->\n";
  const std::string end = "<!-- END GENERATED OPTIONS -->";
  std::string doc = readFile(path);
  size_t b = doc.find(begin), e = doc.find(end);
  ASSERT_TRUE(b != std::string::npos && e != std::string::npos && b < e)
      << path << " lacks the generated-table markers";
  std::string generated = timing::timingConfigMarkdown();
  std::string current = doc.substr(b + begin.size(), e - b - begin.size());
  const char *update = std::getenv("PTXSIM_UPDATE_DOCS");
  if (update && std::string(update) == "1" && current != generated) {
    doc.replace(b + begin.size(), e - b - begin.size(), generated);
    std::ofstream(path, std::ios::binary) << doc;
    return;
  }
  EXPECT_EQ(current, generated) << "docs/config.md is out of date: run the unit tests with "
                                   "PTXSIM_UPDATE_DOCS=1 (ctest -R ConfigDoc) and commit it";
}

} // namespace
} // namespace ptxsim

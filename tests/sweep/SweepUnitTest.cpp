// Unit tests of `ptxsim sweep`'s parts: SHA-256 (the point keys), the spec reader and the grid,
// and the statistics of a point against an independent sum over a real stats file's launches.

#include "isa_ext/chiplet/tools/sweep/ChipletProgramKind.h"
#include "runtime/report/Json.h"
#include "runtime/report/Report.h"
#include "runtime/sweep/ProgramKind.h"
#include "runtime/sweep/Sha256.h"
#include "runtime/sweep/Spec.h"
#include "runtime/sweep/Sweep.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <unistd.h>

using namespace ptxsim::sweep;

namespace {

std::string sha(const std::string &s) {
  Sha256 h;
  h.update(s);
  return h.hex();
}

/// A spec file in a fresh temporary directory (removed with the object).
struct TempSpec {
  std::string dir, path;
  explicit TempSpec(const std::string &text) {
    char tmpl[] = "/tmp/ptxsim-sweep-unit-XXXXXX";
    dir = mkdtemp(tmpl);
    path = dir + "/spec.toml";
    std::ofstream(path) << text;
  }
  ~TempSpec() {
    unlink(path.c_str());
    rmdir(dir.c_str());
  }
};

bool load(const std::string &text, Spec &spec, std::string &error,
          const std::vector<std::pair<std::string, std::string>> &sets = {}) {
  TempSpec t(text);
  return loadSpec(t.path, sets, "/tmp/out", spec, error);
}

} // namespace

TEST(SweepSha256, KnownVectors) {
  EXPECT_EQ(sha(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // fed in pieces that straddle the 64-byte blocks: the same digest
  Sha256 h;
  std::string a(1000, 'a');
  for (size_t i = 0; i < a.size(); i += 37)
    h.update(a.substr(i, 37));
  EXPECT_EQ(h.hex(), sha(a));
  EXPECT_EQ(sha(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(SweepSpec, GridOrderIdsAndDefaults) {
  Spec s;
  std::string e;
  ASSERT_TRUE(load(R"(
name = "g"
configs = ["a.config"]
repeats = 2
[[program]]
name = "p1"
command = ["/bin/true"]
[[program]]
name = "p2"
command = ["./x", "${n}"]
[vars]
n = "7"
[[axis]]
name = "sched"
option = "-gpgpu_scheduler"
values = ["lrr", { name = "two", value = "two_level_active:4" }]
[baseline]
sched = "two"
)",
                   s, e, {{"n", "9"}}))
      << e;
  EXPECT_EQ(s.output, "/tmp/out");
  EXPECT_EQ(s.programs[1].command[0], s.dir + "/x");
  EXPECT_EQ(s.programs[1].command[1], "9"); // --set wins over [vars]
  ASSERT_EQ(s.axes.size(), 2u);             // sched, then repeat
  EXPECT_EQ(s.axes[1].name, "repeat");
  EXPECT_EQ(s.axes[0].values[1].options[0].first, "-gpgpu_scheduler");
  EXPECT_EQ(s.axes[0].values[1].options[0].second, "two_level_active:4");
  EXPECT_EQ(s.baseline["sched"], "two");
  EXPECT_EQ(s.baseline["repeat"], "1");
  std::vector<Point> g = expandGrid(s);
  std::vector<std::string> ids;
  for (const Point &p : g)
    ids.push_back(p.id);
  EXPECT_EQ(ids,
            (std::vector<std::string>{"p1__lrr__1", "p1__lrr__2", "p1__two__1", "p1__two__2",
                                      "p2__lrr__1", "p2__lrr__2", "p2__two__1", "p2__two__2"}));
  EXPECT_EQ(pointMode(s, g[0]), ModeKind::Timing);
}

TEST(SweepSpec, ModesBecomeAnAxis) {
  Spec s;
  std::string e;
  ASSERT_TRUE(load("name = \"m\"\nmodes = [\"functional\", \"power\"]\n[[program]]\nname = "
                   "\"p\"\ncommand = [\"/bin/true\"]\n",
                   s, e))
      << e;
  std::vector<Point> g = expandGrid(s);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[1].id, "p__power");
  EXPECT_EQ(pointMode(s, g[0]), ModeKind::Functional);
  EXPECT_EQ(pointMode(s, g[1]), ModeKind::Power);
}

TEST(SweepSpec, ErrorsNameThePlace) {
  Spec s;
  std::string e;
  EXPECT_FALSE(load("name = \"x\"\n[[program]]\nname = \"p\"\ncommand = [\"a\"]\nfoo = 1\n", s, e));
  EXPECT_NE(e.find("spec.toml:5:7: program[0]: unknown key 'foo'"), std::string::npos) << e;
  EXPECT_FALSE(load("name = \"x\"\n[[program]]\nname = \"a__b\"\ncommand = [\"a\"]\n", s, e));
  EXPECT_NE(e.find("program[0].name: 'a__b' is not a safe name"), std::string::npos) << e;
  EXPECT_FALSE(load(
      "name = \"x\"\nmodes = [\"fast\"]\n[[program]]\nname = \"p\"\ncommand = [\"a\"]\n", s, e));
  EXPECT_NE(e.find("unknown mode 'fast'"), std::string::npos) << e;
  EXPECT_FALSE(load("name = \"x\"\n", s, e));
  EXPECT_NE(e.find("runs no program"), std::string::npos) << e;
  EXPECT_FALSE(load("name = \"x\"\n[[program]]\nname = \"p\"\ncommand = [\"a\"]\n[[axis]]\nname = "
                    "\"s\"\nvalues = [\"lrr\"]\n",
                    s, e));
  EXPECT_NE(e.find("a bare value needs the axis' 'option'"), std::string::npos) << e;
  EXPECT_FALSE(load("name = \"x\"\n[resources]\nmemory = \"lots\"\n[[program]]\nname = \"p\"\n"
                    "command = [\"a\"]\n",
                    s, e));
  EXPECT_NE(e.find("'lots' is not a size"), std::string::npos) << e;
}

TEST(SweepStatistics, AgreeWithTheLaunches) {
  std::string path = std::string(PTXSIM_TEST_DIR) + "/report/launches3_gtx480_power.json";
  std::ifstream is(path);
  std::stringstream ss;
  ss << is.rdbuf();
  ptxsim::report::JsonValue json;
  ptxsim::report::RunModel run;
  std::string e;
  ASSERT_TRUE(ptxsim::report::parseJson(ss.str(), json, e)) << e;
  ASSERT_TRUE(ptxsim::report::buildRunModel(json, run, e)) << e;
  // independent sums over the launches
  double cycles = 0, wi = 0, l1h = 0, l1a = 0, dram = 0, scaleCycles = 0;
  for (const auto &l : json.array("launches")) {
    cycles += l.num("gpu.cycles");
    wi += l.num("gpu.warp_insts");
    l1h += l.num("l1d.hits");
    l1a += l.num("l1d.accesses");
    dram += l.num("dram.read_bytes") + l.num("dram.write_bytes");
    if (l.str("kernel").find("scaleAll") != std::string::npos)
      scaleCycles += l.num("gpu.cycles");
  }
  ASSERT_GT(cycles, 0);
  ASSERT_GT(scaleCycles, 0);
  std::vector<double> v = pointStatistics(json, run,
                                          {"cycles", "ipc", "l1d_hit_rate", "dram_bytes",
                                           "gpu.cycles", "cycles@scaleAll", "gpu.cycles@scaleAll",
                                           "no.such_counter", "cycles@noSuchKernel", "energy_j"});
  EXPECT_EQ(v[0], cycles);
  EXPECT_DOUBLE_EQ(v[1], wi / cycles);
  EXPECT_DOUBLE_EQ(v[2], l1a > 0 ? l1h / l1a : std::nan(""));
  EXPECT_EQ(v[3], dram);
  EXPECT_EQ(v[4], cycles);
  EXPECT_EQ(v[5], scaleCycles);
  EXPECT_EQ(v[6], scaleCycles);
  EXPECT_TRUE(std::isnan(v[7]));
  EXPECT_TRUE(std::isnan(v[8]));
  EXPECT_GT(v[9], 0); // a power-mode file
}

TEST(SweepSpec, ExcludeAndPointVariables) {
  Spec s;
  std::string e;
  ASSERT_TRUE(load(R"(
name = "x"
configs = ["a.config"]
exclude = [{ program = "b", m = ["two"] }]
[[program]]
name = "a"
command = ["/bin/echo", "${flag}", "n"]
[[program]]
name = "b"
command = ["/bin/echo"]
[[axis]]
name = "m"
[[axis.values]]
name = "one"
vars = { flag = "" }
[[axis.values]]
name = "two"
vars = { flag = "--gpu" }
)",
                   s, e))
      << e;
  std::vector<Point> g = expandGrid(s);
  std::vector<std::string> ids;
  for (const Point &p : g)
    ids.push_back(p.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"a__one", "a__two", "b__one"}));
  // the command keeps ${flag} for the point to fill in
  EXPECT_EQ(s.programs[0].command[1], "${flag}");
  EXPECT_FALSE(load("name = \"x\"\nexclude = [{ m = \"three\" }]\n[[program]]\nname = \"a\"\n"
                    "command = [\"a\"]\n[[axis]]\nname = \"m\"\noption = \"-o\"\n"
                    "values = [\"one\"]\n",
                    s, e));
  EXPECT_NE(e.find("exclude[0].m: axis 'm' has no value 'three'"), std::string::npos) << e;
}

TEST(SweepSpec, ChipletPrograms) {
  Spec s;
  std::string e;
  ASSERT_TRUE(load("name = \"c\"\n[vars]\nt = \"mpi\"\n[[program]]\nname = \"p\"\nkind = "
                   "\"chiplets\"\ngrid = \"${g}\"\ntransport = \"${t}\"\ncommand = [\"a\"]\n"
                   "[[axis]]\nname = \"size\"\nvalues = [{ name = \"s\", vars = { g = \"2x1\" } },"
                   " { name = \"l\", vars = { g = \"4x4\" } }]\n",
                   s, e))
      << e;
  ASSERT_EQ(s.programs.size(), 1u);
  // the kind registered itself (isa_ext/chiplet/tools/sweep), after the built-in run
  EXPECT_EQ(programKinds().names(), (std::vector<std::string>{"run", "chiplets"}));
  EXPECT_EQ(s.programs[0].kind, programKinds().find("chiplets"));
  EXPECT_EQ(s.programs[0].settings.at("grid"), "${g}"); // filled per point
  EXPECT_EQ(s.programs[0].settings.at("transport"), "mpi");
  using ptxsim::chiplet::parseSweepGrid;
  unsigned w = 0, h = 0;
  EXPECT_TRUE(parseSweepGrid("4x16", w, h));
  EXPECT_EQ(w, 4u);
  EXPECT_EQ(h, 16u);
  EXPECT_FALSE(parseSweepGrid("0x2", w, h));
  EXPECT_FALSE(parseSweepGrid("65x1", w, h));
  EXPECT_FALSE(parseSweepGrid("2x", w, h));
  EXPECT_FALSE(parseSweepGrid("2x-1", w, h));
  ASSERT_TRUE(load("name = \"c\"\n[[program]]\nname = \"p\"\ncommand = [\"a\"]\n", s, e)) << e;
  EXPECT_STREQ(s.programs[0].kind->name(), "run"); // no kind: run
  EXPECT_TRUE(s.programs[0].settings.empty());
  EXPECT_FALSE(load("name = \"c\"\n[[program]]\nname = \"p\"\nkind = \"chiplets\"\ncommand = "
                    "[\"a\"]\n",
                    s, e));
  EXPECT_NE(e.find("spec.toml:2:1: program[0]: a chiplets program needs a grid"),
            std::string::npos)
      << e;
  EXPECT_FALSE(load("name = \"c\"\n[[program]]\nname = \"p\"\nkind = \"gpu\"\ncommand = [\"a\"]\n",
                    s, e));
  EXPECT_NE(e.find("spec.toml:4:8: program[0].kind: 'gpu' is not run or chiplets"),
            std::string::npos)
      << e;
}

TEST(SweepStatistics, ChipletColumns) {
  // the shape `ptxsim chiplets --stats-json` writes (isa_ext/chiplet/tools/launcher)
  const char *text = R"({
  "grid": [2, 1], "transport": "files", "wall_seconds": 0.5, "network_options": "-A 2",
  "ok": true,
  "network": {"injected": 12, "finished": 12, "avg_delay": 19.5, "max_delay": 30, "cycles": 900,
    "energy_pj": {"buffer": 100, "crossbar": 50, "arbiter": 25, "link": 1000, "total": 1175},
    "power_w": 0.004},
  "totals": {"synchronized_cycles": 6155, "document_formula_cycles": 7000,
    "document_x16_cycles": 6500, "synchronizations": 69, "slowest_chiplet_cycles": 6155,
    "chiplet_power_w": 145.5, "network_power_w": 0.004, "total_power_w": 145.504},
  "chiplets": [
    {"x": 0, "y": 0, "role": "gpu", "status": 0, "clock": 6155, "sends": 8, "sent_bytes": 768,
     "gpu_cycles": 6155, "energy_j": 0.0006, "kernel_seconds": 0.000008, "power_w": 72.5},
    {"x": 1, "y": 0, "role": "gpu", "status": 0, "clock": 5990, "sends": 4, "sent_bytes": 256,
     "gpu_cycles": 5990, "energy_j": 0.0005, "kernel_seconds": 0.000007, "power_w": 73}
  ]
})";
  ptxsim::report::JsonValue j;
  std::string e;
  ASSERT_TRUE(ptxsim::report::parseJson(text, j, e)) << e;
  // through the registry, as the merge reads a chiplet point
  const ProgramKind *kind = programKinds().find("chiplets");
  ASSERT_NE(kind, nullptr);
  std::vector<double> v;
  ASSERT_TRUE(kind->statistics(
      j,
      {"cycles", "energy_j", "avg_watts", "synchronizations", "chiplet.1.0.gpu_cycles",
       "chiplet.0.0.power_w", "chiplets.sent_bytes", "network.avg_delay", "network.energy_pj.link",
       "ipc", "cycles@kernel", "chiplet.2.0.clock", "network"},
      v, e))
      << e;
  ASSERT_EQ(v.size(), 13u);
  EXPECT_EQ(v[0], 6155);
  EXPECT_DOUBLE_EQ(v[1], 0.0006 + 0.0005 + 1175e-12);
  EXPECT_EQ(v[2], 145.504);
  EXPECT_EQ(v[3], 69);
  EXPECT_EQ(v[4], 5990);
  EXPECT_EQ(v[5], 72.5);
  EXPECT_EQ(v[6], 1024);
  EXPECT_EQ(v[7], 19.5);
  EXPECT_EQ(v[8], 1000);
  for (size_t i = 9; i < 13; ++i) // not in the file (per-kernel, a missing chiplet, an object)
    EXPECT_TRUE(std::isnan(v[i])) << i;
}

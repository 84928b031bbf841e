// `ptxsim report` (runtime/report): the JSON reader, and the numbers on the page against the
// statistics file they come from.

#include "runtime/report/Json.h"
#include "runtime/report/Report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <regex>
#include <string>

using namespace ptxsim::report;

namespace {

const std::string kFixture =
    std::string(PTXSIM_TEST_DIR) + "/report/launches3_gtx480_power.json"; // ptxsim run output

/// data-k -> data-v of every cell of the row that starts at `pos` in `html`.
std::map<std::string, std::string> rowCells(const std::string &html, size_t pos) {
  size_t end = html.find("</tr>", pos);
  std::string row = html.substr(pos, end - pos);
  std::map<std::string, std::string> cells;
  static const std::regex cell(R"re(<td[^>]*data-k="([a-z_0-9]+)" data-v="([^"]*)")re");
  for (auto it = std::sregex_iterator(row.begin(), row.end(), cell); it != std::sregex_iterator(); ++it)
    cells[(*it)[1]] = (*it)[2];
  return cells;
}

/// The cells of the kernel-table row of `mangled` (run 0).
std::map<std::string, std::string> kernelRow(const std::string &html, const std::string &mangled) {
  size_t pos = html.find("<tr class=\"kernel\" tabindex=\"0\" data-run=\"0\"");
  while (pos != std::string::npos) {
    size_t close = html.find('>', pos);
    if (html.substr(pos, close - pos).find("data-kernel=\"" + mangled + "\"") != std::string::npos)
      return rowCells(html, pos);
    pos = html.find("<tr class=\"kernel\"", close);
  }
  ADD_FAILURE() << "no kernel row for " << mangled;
  return {};
}

void expectNear(const std::map<std::string, std::string> &cells, const std::string &key,
                double want) {
  auto it = cells.find(key);
  ASSERT_NE(it, cells.end()) << "no cell " << key;
  double got = std::stod(it->second);
  EXPECT_NEAR(got, want, std::fabs(want) * 1e-12 + 1e-15) << key;
}

} // namespace

TEST(ReportJson, ParsesValuesEscapesAndNesting) {
  JsonValue v;
  std::string err;
  ASSERT_TRUE(parseJson(R"({"a": [1, -2.5e3, true, null], "s": "x\"\u00e9\ud83d\ude00\n", "o": {}})",
                        v, err))
      << err;
  ASSERT_TRUE(v.isObject());
  ASSERT_EQ(v.array("a").size(), 4u);
  EXPECT_EQ(v.array("a")[1].number, -2500);
  EXPECT_TRUE(v.array("a")[2].boolean);
  EXPECT_EQ(v.str("s"), "x\"\xc3\xa9\xf0\x9f\x98\x80\n");
  EXPECT_EQ(v.num("missing", 7), 7);
  EXPECT_EQ(v.str("a", "dflt"), "dflt"); // another kind reads as the default
}

TEST(ReportJson, LargeObjectsLookUpEveryKey) {
  std::string text = "{";
  for (int i = 0; i < 300; ++i)
    text += (i ? ",\"k" : "\"k") + std::to_string(299 - i) + "\": " + std::to_string(i);
  text += "}";
  JsonValue v;
  std::string err;
  ASSERT_TRUE(parseJson(text, v, err)) << err;
  for (int i = 0; i < 300; ++i)
    EXPECT_EQ(v.num("k" + std::to_string(i), -1), 299 - i);
  EXPECT_EQ(v.get("k300"), nullptr);
}

TEST(ReportJson, ErrorsNameLineAndColumn) {
  JsonValue v;
  std::string err;
  EXPECT_FALSE(parseJson("{\n  \"a\": [1, 2,,]\n}", v, err));
  EXPECT_EQ(err.substr(0, 5), "2:14:") << err; // the second comma
  EXPECT_FALSE(parseJson("{\"a\": 1} x", v, err));
  EXPECT_NE(err.find("1:10: unexpected text"), std::string::npos) << err;
  EXPECT_FALSE(parseJson("\"abc", v, err));
  EXPECT_NE(err.find("unterminated string"), std::string::npos) << err;
}

TEST(ReportJson, StringsAreSafeInsideScriptElements) {
  std::string out;
  appendJsonString(out, "k<int>(</script>)&\"\\\n");
  EXPECT_EQ(out, "\"k\\u003cint\\u003e(\\u003c/script\\u003e)\\u0026\\\"\\\\\\n\"");
}

TEST(ReportModel, RejectsFilesThatAreNotStatistics) {
  JsonValue v;
  std::string err;
  ASSERT_TRUE(parseJson("{\"launches\": []}", v, err));
  RunModel m;
  EXPECT_FALSE(buildRunModel(v, m, err));
  EXPECT_NE(err.find("\"kernels\""), std::string::npos) << err;
  EXPECT_FALSE(loadRun("/nonexistent/stats.json", m, err));
  EXPECT_NE(err.find("/nonexistent/stats.json: cannot read"), std::string::npos) << err;
}

// The kernel table's numbers, recomputed here from the launches and power entries of the file.
TEST(ReportPage, KernelTableMatchesTheStatisticsFile) {
  RunModel run;
  std::string err;
  ASSERT_TRUE(loadRun(kFixture, run, err)) << err;
  std::string html = renderReport({run}, ChartLibrary{}, "t");

  std::string text;
  {
    std::FILE *f = std::fopen(kFixture.c_str(), "rb");
    ASSERT_NE(f, nullptr);
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
      text.append(buf, n);
    std::fclose(f);
  }
  JsonValue json;
  ASSERT_TRUE(parseJson(text, json, err)) << err;
  const auto &launches = json.array("launches");
  const auto &power = json.array("power");
  ASSERT_EQ(launches.size(), 4u);
  ASSERT_EQ(power.size(), launches.size());
  std::map<std::string, int> rows;
  for (const JsonValue &k : json.array("kernels"))
    rows[k.str("name")] = 0;
  ASSERT_EQ(rows.size(), 2u);
  size_t kernelRows = 0;
  for (size_t p = html.find("<tr class=\"kernel\""); p != std::string::npos;
       p = html.find("<tr class=\"kernel\"", p + 1))
    ++kernelRows;
  EXPECT_EQ(kernelRows, rows.size());

  for (const auto &[name, unused] : rows) {
    double n = 0, cycles = 0, warp = 0, stall = 0, occW = 0, l1a = 0, l1h = 0, l2a = 0, l2h = 0;
    double dram = 0, energy = 0, secs = 0;
    for (size_t i = 0; i < launches.size(); ++i) {
      const JsonValue &l = launches[i];
      if (l.str("kernel") != name)
        continue;
      ++n;
      cycles += l.num("gpu.cycles");
      warp += l.num("gpu.warp_insts");
      stall += l.num("sm.stall_cycles");
      occW += l.num("sm.occupancy") * l.num("gpu.cycles");
      l1a += l.num("l1d.accesses");
      l1h += l.num("l1d.hits");
      l2a += l.num("l2.accesses");
      l2h += l.num("l2.hits");
      dram += l.num("dram.read_bytes") + l.num("dram.write_bytes");
      EXPECT_EQ(power[i].str("kernel"), name);
      energy += power[i].num("energy_j");
      secs += power[i].num("seconds");
    }
    SCOPED_TRACE(name);
    auto cells = kernelRow(html, name);
    expectNear(cells, "launches", n);
    expectNear(cells, "cycles", cycles);
    expectNear(cells, "warp_insts", warp);
    expectNear(cells, "ipc", warp / cycles);
    expectNear(cells, "occupancy", occW / cycles);
    expectNear(cells, "stall_cycles", stall);
    if (l1a > 0) {
      expectNear(cells, "l1_hit", l1h / l1a);
    } else {
      EXPECT_EQ(cells["l1_hit"], "");
    }
    expectNear(cells, "l2_hit", l2h / l2a);
    expectNear(cells, "dram_bytes", dram);
    expectNear(cells, "energy_j", energy);
    expectNear(cells, "avg_w", energy / secs);
  }
  // the accumulate kernel ran with two grid shapes: the table says the launches differ
  EXPECT_NE(html.find("(4,1,1)x(64,1,1) *"), std::string::npos);
  // shown as people read them: integers with thousands separators, rates as percentages
  static const std::regex shown(R"re(data-k="cycles" data-v="(\d+)">([0-9,]+)<)re");
  size_t checked = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), shown);
       it != std::sregex_iterator(); ++it, ++checked) {
    std::string digits = (*it)[1], text = (*it)[2], grouped;
    for (size_t i = 0; i < digits.size(); ++i)
      grouped += (i && (digits.size() - i) % 3 == 0 ? "," : "") + std::string(1, digits[i]);
    EXPECT_EQ(text, grouped);
  }
  EXPECT_GE(checked, 3u); // two kernels and the total
  EXPECT_NE(html.find(">all kernels<"), std::string::npos);
}

TEST(ReportPage, SummaryAndTraceCoverTheRun) {
  RunModel run;
  std::string err;
  ASSERT_TRUE(loadRun(kFixture, run, err)) << err;
  EXPECT_EQ(run.label, "launches3_gtx480_power");
  EXPECT_EQ(run.program, "launches 3");
  EXPECT_TRUE(run.timing);
  EXPECT_TRUE(run.power);
  EXPECT_EQ(run.configName, "GTX480");
  ASSERT_EQ(run.launches.size(), 4u);
  // launches are placed on the simulated timeline in order; the trace stays inside it
  for (size_t i = 1; i < run.launches.size(); ++i)
    EXPECT_GT(run.launches[i].start, run.launches[i - 1].start);
  ASSERT_FALSE(run.trace.empty());
  EXPECT_GE(run.trace.front().first, run.launches[0].start);
  EXPECT_LE(run.trace.back().first, run.simSeconds);
  double e = 0;
  for (const KernelRow &k : run.kernels) {
    e += k.energyJ;
    double parts = 0;
    for (double c : k.componentJ)
      parts += c;
    EXPECT_NEAR(parts, k.energyJ, k.energyJ * 1e-6) << k.name; // components add up
    // the reasons add up to the stall cycles, plus `idle` (no warp resident), which
    // sm.stall_cycles leaves out
    double stalls = 0;
    for (size_t r = 0; r < k.stalls.size(); ++r)
      stalls += run.stallReasons[r] == "idle" ? 0 : k.stalls[r];
    EXPECT_NEAR(stalls, k.stallCycles, 0.5) << k.name;
  }
  EXPECT_NEAR(e, run.energyJ, 1e-15);
  std::string html = renderReport({run}, ChartLibrary{}, "t");
  ASSERT_NE(html.find("<table class=\"summary\">"), std::string::npos);
  EXPECT_NE(html.find("data-k=\"sim_seconds\" data-v=\"" + [&] {
              char b[64];
              std::snprintf(b, sizeof b, "%.17g", run.simSeconds);
              return std::string(b);
            }() + "\""),
            std::string::npos);
}

TEST(ReportPage, SelfContainedAndSaysWhenChartsAreMissing) {
  RunModel run;
  std::string err;
  ASSERT_TRUE(loadRun(kFixture, run, err)) << err;
  ChartLibrary none;
  none.where = "uPlot 1.6.32 was not found (looked in /x)";
  std::string html = renderReport({run}, none, "t");
  EXPECT_NE(html.find("Charts are unavailable: uPlot 1.6.32 was not found"), std::string::npos);
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);

  ChartLibrary lib;
  lib.js = "var uPlot = function () {}; // </script> must not end the element";
  lib.css = ".uplot{}";
  lib.license = "The MIT License\n";
  lib.where = "/somewhere";
  html = renderReport({run}, lib, "t");
  EXPECT_EQ(html.find("Charts are unavailable"), std::string::npos);
  EXPECT_NE(html.find("var uPlot = function () {}; // <\\/script> must not"), std::string::npos);
  EXPECT_NE(html.find("The MIT License"), std::string::npos);
}

TEST(ReportPage, ComparisonRatiosAgainstTheFirstRun) {
  RunModel a, b;
  std::string err;
  ASSERT_TRUE(loadRun(kFixture, a, err)) << err;
  b = a;
  a.label = "base";
  b.label = "other";
  for (KernelRow &k : b.kernels) {
    k.cycles *= 2; // twice as slow
    k.energyJ *= 0.5;
  }
  std::string html = renderReport({a, b}, ChartLibrary{}, "t");
  ASSERT_NE(html.find("id=\"comparison\""), std::string::npos);
  size_t pos = html.find("<tr data-kernel=\"" + a.kernels[0].name + "\" data-run=\"1\">");
  ASSERT_NE(pos, std::string::npos);
  auto cells = rowCells(html, pos);
  expectNear(cells, "cycles_ratio", 2.0);
  expectNear(cells, "energy_ratio", 0.5);
  pos = html.find("<tr class=\"first\" data-kernel=\"" + a.kernels[0].name + "\" data-run=\"0\">");
  ASSERT_NE(pos, std::string::npos);
  expectNear(rowCells(html, pos), "cycles_ratio", 1.0);
}

TEST(ReportPage, FunctionalModeFilesAndEscapedNames) {
  JsonValue v;
  std::string err;
  ASSERT_TRUE(parseJson(R"js({"mode": "functional", "wall_seconds": 0.5, "kernels": [
      {"name": "_Z1kIiEvPT_", "demangled": "void k<int>(int*)", "launches": 3, "ctas": 12,
       "thread_insts": 4000, "warp_insts": 125, "seconds": 0.25}]})js",
                        v, err))
      << err;
  RunModel run;
  ASSERT_TRUE(buildRunModel(v, run, err)) << err;
  run.label = "f";
  EXPECT_FALSE(run.timing);
  std::string html = renderReport({run}, ChartLibrary{}, "t");
  auto cells = kernelRow(html, "_Z1kIiEvPT_");
  expectNear(cells, "launches", 3);
  expectNear(cells, "ctas", 12);
  expectNear(cells, "thread_insts", 4000);
  expectNear(cells, "warp_insts", 125);
  EXPECT_NE(html.find("void k&lt;int&gt;(int*)"), std::string::npos);
  EXPECT_EQ(html.find("k<int>"), std::string::npos); // never raw, not even in the script data
  EXPECT_EQ(html.find("id=\"chart-stalls\""), std::string::npos); // no cycle data, no chart
}

// Long traces are averaged down; idle time between kernels is a gap, not a line.
TEST(ReportModel, TraceIsBoundedAndBreaksBetweenKernels) {
  std::string text = R"({"mode": "timing", "kernels": [{"name": "k", "launches": 3}], "launches": [)";
  for (int l = 0; l < 3; ++l)
    text += std::string(l ? "," : "") + "{\"kernel\": \"k\", \"start_seconds\": " +
            std::to_string(l * 2.0) + ", \"gpu.cycles\": 100, \"gpu.sim_seconds\": 1}";
  text += "], \"power\": [";
  for (int l = 0; l < 3; ++l) {
    text += std::string(l ? "," : "") +
            "{\"kernel\": \"k\", \"seconds\": 1, \"energy_j\": 50, \"avg_w\": 50, \"trace\": [";
    for (int i = 1; i <= 3000; ++i)
      text += std::string(i > 1 ? "," : "") + "[" + std::to_string(i / 3000.0) + ", 50]";
    text += "]}";
  }
  text += "]}";
  JsonValue v;
  std::string err;
  ASSERT_TRUE(parseJson(text, v, err)) << err;
  RunModel run;
  ASSERT_TRUE(buildRunModel(v, run, err)) << err;
  size_t gaps = 0;
  for (size_t i = 0; i < run.trace.size(); ++i) {
    if (std::isnan(run.trace[i].second)) {
      ++gaps;
    } else {
      EXPECT_DOUBLE_EQ(run.trace[i].second, 50);
    }
    if (i) {
      EXPECT_GE(run.trace[i].first, run.trace[i - 1].first);
    }
  }
  EXPECT_EQ(gaps, 2u); // between launches 1-2 and 2-3 (each ends at 1 s of a 2 s period)
  EXPECT_LE(run.trace.size(), RunModel::kMaxTracePoints + gaps + 3);
  EXPECT_GT(run.trace.size(), RunModel::kMaxTracePoints / 2);
  EXPECT_DOUBLE_EQ(run.trace.back().first, 5.0);
  EXPECT_DOUBLE_EQ(run.energyJ, 150);
}

// Files trimmed to launches and kernels (the golden statistics) say no mode: they are timing.
TEST(ReportModel, GoldenStatisticsWithoutModeAreTiming) {
  RunModel run;
  std::string err;
  ASSERT_TRUE(loadRun(std::string(PTXSIM_TEST_DIR) + "/golden/stats/matmul_gtx480.json", run, err))
      << err;
  EXPECT_TRUE(run.timing);
  EXPECT_FALSE(run.power);
  ASSERT_EQ(run.kernels.size(), 1u);
  EXPECT_GT(run.kernels[0].cycles, 0);
  EXPECT_EQ(run.kernels[0].launches, run.launches.size());
}

// Sampled runs: the summary's sampling row states the estimated share and the bound on the
// error of the total (each launch's sample.error_pct of its cycles); files without sample.*
// statistics say every launch was simulated.
TEST(ReportPage, SamplingRowStatesTheErrorBound) {
  const char *text = R"({"mode": "timing", "kernels": [{"name": "k", "launches": 3}], "launches": [
      {"kernel": "k", "gpu.cycles": 1000, "sample.estimated": 0, "sample.error_pct": 0},
      {"kernel": "k", "gpu.cycles": 1000, "sample.estimated": 0, "sample.error_pct": 1},
      {"kernel": "k", "gpu.cycles": 2000, "sample.estimated": 1, "sample.error_pct": 2}]})";
  JsonValue v;
  std::string err;
  ASSERT_TRUE(parseJson(text, v, err)) << err;
  RunModel run;
  ASSERT_TRUE(buildRunModel(v, run, err)) << err;
  EXPECT_TRUE(run.sampled);
  EXPECT_DOUBLE_EQ(run.estimatedLaunches, 1);
  EXPECT_DOUBLE_EQ(run.estimatedCycles, 2000);
  EXPECT_DOUBLE_EQ(run.errorBoundCycles, 10 + 40); // 1 % of 1000 + 2 % of 2000
  run.label = "s";
  std::string html = renderReport({run}, ChartLibrary{}, "t");
  size_t row = html.find("<th class=\"t\">sampling</th>");
  ASSERT_NE(row, std::string::npos);
  auto cells = rowCells(html, row);
  expectNear(cells, "sample_error_pct", 1.25); // 50 of 4000 cycles
  EXPECT_NE(html.find("1 launches estimated (50.0% of the cycles)", row), std::string::npos);

  ASSERT_TRUE(parseJson(R"({"mode": "timing", "kernels": [{"name": "k", "launches": 1}],
      "launches": [{"kernel": "k", "gpu.cycles": 1000}]})", v, err)) << err;
  RunModel full;
  ASSERT_TRUE(buildRunModel(v, full, err)) << err;
  full.label = "f";
  EXPECT_FALSE(full.sampled);
  EXPECT_NE(renderReport({full}, ChartLibrary{}, "t").find("off: every launch simulated"),
            std::string::npos);
}

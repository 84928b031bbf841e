// renderReport(): the HTML page; reportCommand(): `ptxsim report`.

#include "runtime/report/PageAssets.h"
#include "runtime/report/Report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

namespace ptxsim::report {

namespace {

std::string esc(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
    case '&': o += "&amp;"; break;
    case '<': o += "&lt;"; break;
    case '>': o += "&gt;"; break;
    case '"': o += "&quot;"; break;
    default: o += c;
    }
  }
  return o;
}

std::string printf1(const char *fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

/// Exact enough to compare with the JSON (17 significant digits), for data-v attributes.
std::string exact(double v) { return printf1("%.17g", v); }
/// Compact, for the page's script data.
std::string compact(double v) { return std::isfinite(v) ? printf1("%.6g", v) : "null"; }

std::string fmtCount(double v) {
  std::string digits = printf1("%.0f", std::fabs(v));
  std::string o;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0)
      o += ',';
    o += digits[i];
  }
  return (v < 0 ? "-" : "") + o;
}

std::string fmtPct(double rate) { return rate < 0 ? "&ndash;" : printf1("%.1f%%", 100 * rate); }

/// 3 significant digits with an SI prefix: 403 kB, 17.7 mJ, 144 us.
std::string fmtSi(double v, const char *unit) {
  if (v == 0)
    return std::string("0 ") + unit;
  static const char *big[] = {"", "k", "M", "G", "T"};
  static const char *small[] = {"m", "&micro;", "n", "p"};
  double a = std::fabs(v);
  std::string prefix;
  if (a >= 1) {
    int i = 0;
    while (a >= 1000 && i < 4) {
      a /= 1000;
      v /= 1000;
      ++i;
    }
    prefix = big[i];
  } else {
    int i = 0;
    while (a < 1 && i < 4) {
      a *= 1000;
      v *= 1000;
      ++i;
    }
    prefix = small[i - 1];
  }
  return printf1("%.3g", v) + " " + prefix + unit;
}

std::string cell(const char *key, double v, const std::string &text) {
  return "<td data-k=\"" + std::string(key) + "\" data-v=\"" + exact(v) + "\">" + text + "</td>";
}
std::string rateCell(const char *key, double rate) {
  return "<td data-k=\"" + std::string(key) + "\" data-v=\"" + (rate < 0 ? "" : exact(rate)) +
         "\">" + fmtPct(rate) + "</td>";
}
std::string textCell(const char *key, const std::string &v, const std::string &cls = "t") {
  return "<td class=\"" + cls + "\" data-k=\"" + key + "\" data-v=\"" + esc(v) + "\">" + esc(v) +
         "</td>";
}

const char *kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
                          "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#1f77b4", "#8c564b",
                          "#17becf", "#bcbd22", "#7f7f7f", "#d62728", "#2ca02c", "#9467bd",
                          "#0b3d91", "#c7a76c", "#6b8e23", "#e377c2", "#393b79", "#ad494a"};
// (the same colours, in the same order, as PALETTE in the page's script)

std::string stallBar(const RunModel &run, const KernelRow &k) {
  std::string o = "<td data-k=\"stalls\" class=\"t\"><div class=\"sbar\">";
  double all = 0; // the reasons include `idle` (no warp resident), which stall cycles leave out
  for (double s : k.stalls)
    all += s;
  if (all > 0)
    for (size_t s = 0; s < k.stalls.size(); ++s) {
      if (k.stalls[s] <= 0)
        continue;
      double pct = 100 * k.stalls[s] / all;
      o += "<span style=\"width:" + printf1("%.2f", pct) + "%;background:" +
           kPalette[s % (sizeof kPalette / sizeof *kPalette)] + "\" title=\"" +
           esc(run.stallReasons[s]) + " " + printf1("%.1f", pct) + "%\"></span>";
    }
  return o + "</div></td>";
}

std::string kernelCellName(const KernelRow &k, bool expandable) {
  std::string shown = k.demangled.size() > 90 ? k.demangled.substr(0, 87) + "..." : k.demangled;
  return "<td class=\"name\" data-k=\"name\" data-v=\"" + esc(k.demangled) + "\" title=\"" +
         esc(k.demangled) + "\">" +
         (expandable ? "<button class=\"exp\" tabindex=\"-1\" aria-label=\"launches\">&#9656;</button>"
                     : "") +
         esc(shown) + "</td>";
}

/// Column headers of a kernel table: {label, sort kind ("num"/"text"/""), tooltip}.
struct Col {
  const char *label, *sort, *help;
};

std::string kernelTableHead(const RunModel &run, size_t ri) {
  std::vector<Col> cols;
  if (run.timing) {
    static const Col timingCols[] = {
        {"kernel", "text", "demangled name; click a row for its launches"},
        {"launches", "num", ""},
        {"grid x block", "text", "of the last launch (* when launches differ)"},
        {"cycles", "num", "core cycles, summed over launches"},
        {"IPC", "num", "warp instructions per cycle (whole GPU)"},
        {"occupancy", "num", "sm.occupancy, weighted by cycles"},
        {"warp insts", "num", ""},
        {"stall cycles", "num", "sm.stall_cycles, summed over SMs"},
        {"stalls", "", "stall reasons (hover for shares)"},
        {"L1D hit", "num", "l1d.hits / l1d.accesses"},
        {"L2 hit", "num", "l2.hits / l2.accesses"},
        {"DRAM", "num", "dram.read_bytes + dram.write_bytes"},
        {"energy", "num", "dynamic + static energy"},
        {"avg W", "num", "energy / simulated kernel time"}};
    size_t n = sizeof timingCols / sizeof *timingCols - (run.power ? 0 : 2);
    for (size_t i = 0; i < n; ++i)
      cols.push_back(timingCols[i]);
  } else {
    static const Col functionalCols[] = {
        {"kernel", "text", "demangled name"}, {"launches", "num", ""},
        {"CTAs", "num", ""},                  {"thread insts", "num", ""},
        {"warp insts", "num", ""},            {"host seconds", "num", "wall time in kernels"}};
    for (const Col &c : functionalCols)
      cols.push_back(c);
  }
  std::string o = "<table class=\"kernels sortable\" data-run=\"" + std::to_string(ri) +
                  "\"><thead><tr>";
  for (const Col &c : cols) {
    o += "<th";
    if (*c.sort)
      o += std::string(" data-sort=\"") + c.sort + "\"";
    if (*c.help)
      o += std::string(" title=\"") + esc(c.help) + "\"";
    if (std::string(c.sort) == "text" || !*c.sort)
      o += " class=\"t\"";
    o += std::string(">") + c.label + "</th>";
  }
  return o + "</tr></thead>";
}

/// A kernel's cells after its name and launches (or the totals row's, with `k` the sums).
std::string kernelCells(const RunModel &run, const KernelRow &k) {
  std::string o;
  if (run.timing) {
    o += cell("cycles", k.cycles, fmtCount(k.cycles));
    o += cell("ipc", k.ipc(), printf1("%.2f", k.ipc()));
    o += cell("occupancy", k.occupancy, fmtPct(k.occupancy));
    o += cell("warp_insts", k.warpInsts, fmtCount(k.warpInsts));
    o += cell("stall_cycles", k.stallCycles, fmtCount(k.stallCycles));
    o += stallBar(run, k);
    o += rateCell("l1_hit", k.l1HitRate());
    o += rateCell("l2_hit", k.l2HitRate());
    o += cell("dram_bytes", k.dramBytes(), fmtSi(k.dramBytes(), "B"));
    if (run.power) {
      o += cell("energy_j", k.energyJ, fmtSi(k.energyJ, "J"));
      o += cell("avg_w", k.avgWatts(), printf1("%.1f", k.avgWatts()));
    }
  } else {
    o += cell("ctas", double(k.ctas), fmtCount(double(k.ctas)));
    o += cell("thread_insts", k.threadInsts, fmtCount(k.threadInsts));
    o += cell("warp_insts", k.warpInsts, fmtCount(k.warpInsts));
    o += cell("seconds", k.simSeconds, fmtSi(k.simSeconds, "s"));
  }
  return o;
}

/// The sums over kernels (occupancy weighted by cycles) and the number of launches.
KernelRow kernelTotals(const RunModel &run, double &launches) {
  KernelRow t;
  double occ = 0;
  launches = 0;
  t.stalls.resize(run.stallReasons.size());
  for (const KernelRow &k : run.kernels) {
    launches += double(k.launches);
    t.ctas += k.ctas;
    t.cycles += k.cycles;
    t.warpInsts += k.warpInsts;
    t.threadInsts += k.threadInsts;
    occ += k.occupancy * k.cycles;
    t.stallCycles += k.stallCycles;
    for (size_t s = 0; s < k.stalls.size() && s < t.stalls.size(); ++s)
      t.stalls[s] += k.stalls[s];
    t.l1Accesses += k.l1Accesses;
    t.l1Hits += k.l1Hits;
    t.l2Accesses += k.l2Accesses;
    t.l2Hits += k.l2Hits;
    t.dramReadBytes += k.dramReadBytes;
    t.dramWriteBytes += k.dramWriteBytes;
    t.energyJ += k.energyJ;
    t.powerSeconds += k.powerSeconds;
    t.simSeconds += k.simSeconds;
  }
  if (run.timing)
    t.occupancy = t.cycles > 0 ? occ / t.cycles : 0;
  return t;
}

std::string kernelTable(const RunModel &run, size_t ri) {
  std::string o = kernelTableHead(run, ri) + "<tbody>";
  for (size_t ki = 0; ki < run.kernels.size(); ++ki) {
    const KernelRow &k = run.kernels[ki];
    o += "<tr class=\"kernel\" tabindex=\"0\" data-run=\"" + std::to_string(ri) + "\" data-k=\"" +
         std::to_string(ki) + "\" data-kernel=\"" + esc(k.name) + "\">";
    o += kernelCellName(k, run.timing);
    o += cell("launches", double(k.launches), fmtCount(double(k.launches)));
    if (run.timing)
      o += textCell("grid", k.gridBlock + (k.gridVaries ? " *" : ""));
    o += kernelCells(run, k) + "</tr>";
  }
  o += "</tbody>";
  double launches;
  KernelRow t = kernelTotals(run, launches);
  o += "<tfoot><tr class=\"total\"><td class=\"name\">all kernels</td>" +
       cell("launches", launches, fmtCount(launches));
  if (run.timing)
    o += "<td></td>";
  return o + kernelCells(run, t) + "</tr></tfoot></table>";
}

std::string summaryTable(const std::vector<RunModel> &runs) {
  std::string o = "<table class=\"summary\"><thead><tr><th class=\"t\"></th>";
  for (const RunModel &r : runs)
    o += "<th class=\"t\">" + esc(r.label) + "</th>";
  o += "</tr></thead><tbody>";
  auto row = [&](const char *label, auto fn) {
    o += std::string("<tr><th class=\"t\">") + label + "</th>";
    for (const RunModel &r : runs)
      o += fn(r);
    o += "</tr>";
  };
  row("statistics file", [](const RunModel &r) { return textCell("file", r.path); });
  row("program", [](const RunModel &r) {
    return textCell("program", r.program.empty() ? "(not recorded)" : r.program);
  });
  row("mode", [](const RunModel &r) { return textCell("mode", r.mode); });
  row("configuration", [](const RunModel &r) {
    std::string s = r.configName;
    for (const std::string &src : r.configSources) // file names; the full paths are below
      s += (s.empty() ? "" : (&src == &r.configSources[0] ? " from " : ", ")) +
           src.substr(src.find_last_of('/') + 1);
    return textCell("config", s.empty() ? "(none: functional mode)" : s);
  });
  row("wall time", [](const RunModel &r) {
    return cell("wall_seconds", r.wallSeconds, fmtSi(r.wallSeconds, "s"));
  });
  row("kernels / launches", [](const RunModel &r) {
    double l = 0;
    for (const KernelRow &k : r.kernels)
      l += double(k.launches);
    return "<td data-k=\"launches\" data-v=\"" + exact(l) + "\">" +
           std::to_string(r.kernels.size()) + " / " + fmtCount(l) + "</td>";
  });
  bool timing = std::any_of(runs.begin(), runs.end(), [](const RunModel &r) { return r.timing; });
  bool power = std::any_of(runs.begin(), runs.end(), [](const RunModel &r) { return r.power; });
  if (timing) {
    row("simulated time", [](const RunModel &r) {
      return r.timing ? cell("sim_seconds", r.simSeconds, fmtSi(r.simSeconds, "s")) : "<td></td>";
    });
    row("&nbsp;&nbsp;in kernels", [](const RunModel &r) {
      return r.timing ? cell("kernel_seconds", r.kernelSimSeconds, fmtSi(r.kernelSimSeconds, "s"))
                      : "<td></td>";
    });
    row("&nbsp;&nbsp;in copies", [](const RunModel &r) {
      if (!r.timing)
        return std::string("<td></td>");
      return "<td data-k=\"copy_seconds\" data-v=\"" + exact(r.copySeconds) + "\">" +
             fmtSi(r.copySeconds, "s") + " (" + fmtCount(r.copies) + " copies, " +
             fmtSi(r.copyBytes, "B") + ")</td>";
    });
    row("cycles", [](const RunModel &r) {
      return r.timing ? cell("cycles", r.totalCycles(), fmtCount(r.totalCycles())) : "<td></td>";
    });
    row("warp instructions", [](const RunModel &r) {
      return cell("warp_insts", r.totalWarpInsts(), fmtCount(r.totalWarpInsts()));
    });
    row("IPC", [](const RunModel &r) {
      double c = r.totalCycles(), ipc = c > 0 ? r.totalWarpInsts() / c : 0;
      return r.timing ? cell("ipc", ipc, printf1("%.2f", ipc)) : "<td></td>";
    });
    row("sampling", [](const RunModel &r) {
      if (!r.timing)
        return std::string("<td></td>");
      if (!r.sampled)
        return textCell("sampling", "off: every launch simulated");
      double c = r.totalCycles(), bound = c > 0 ? 100 * r.errorBoundCycles / c : 0;
      return "<td data-k=\"sample_error_pct\" data-v=\"" + exact(bound) + "\">" +
             fmtCount(r.estimatedLaunches) + " launches estimated (" +
             fmtPct(c > 0 ? r.estimatedCycles / c : 0) + " of the cycles); error of the total " +
             "within " + printf1("%.2f%%", bound) + "</td>";
    });
  }
  if (power) {
    row("energy", [](const RunModel &r) {
      return r.power ? cell("energy_j", r.energyJ, fmtSi(r.energyJ, "J")) : "<td></td>";
    });
    row("average power (kernels)", [](const RunModel &r) {
      double w = r.kernelSimSeconds > 0 ? r.energyJ / r.kernelSimSeconds : 0;
      return r.power ? cell("avg_w", w, printf1("%.1f W", w)) : "<td></td>";
    });
    row("peak power", [](const RunModel &r) {
      return r.power ? cell("peak_w", r.peakWatts, printf1("%.1f W", r.peakWatts)) : "<td></td>";
    });
  }
  return o + "</tbody></table>";
}

/// Kernels of all runs, matched by mangled name, in order of first appearance (baseline first).
std::vector<std::string> unionKernels(const std::vector<RunModel> &runs) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const RunModel &r : runs)
    for (const KernelRow &k : r.kernels)
      if (seen.insert(k.name).second)
        names.push_back(k.name);
  return names;
}

const KernelRow *findKernel(const RunModel &r, const std::string &name) {
  for (const KernelRow &k : r.kernels)
    if (k.name == name)
      return &k;
  return nullptr;
}

std::string ratioCell(const char *key, double v, double base, bool lowerIsBetter) {
  if (!(base > 0))
    return "<td data-k=\"" + std::string(key) + "\" data-v=\"\">&ndash;</td>";
  double r = v / base;
  std::string cls;
  if (r < 0.995)
    cls = lowerIsBetter ? " class=\"better\"" : " class=\"worse\"";
  else if (r > 1.005)
    cls = lowerIsBetter ? " class=\"worse\"" : " class=\"better\"";
  return "<td data-k=\"" + std::string(key) + "\" data-v=\"" + exact(r) + "\"" + cls + ">" +
         printf1("%.3f", r) + "&times;</td>";
}

std::string comparisonTable(const std::vector<RunModel> &runs) {
  bool power = std::all_of(runs.begin(), runs.end(), [](const RunModel &r) { return r.power; });
  std::string o = "<table class=\"cmp\"><thead><tr><th class=\"t\">kernel</th><th class=\"t\">run</th>"
                  "<th>cycles</th><th title=\"cycles / baseline cycles\">vs base</th><th>IPC</th>"
                  "<th>stall cycles</th><th title=\"l1d misses per 1000 warp instructions\">L1D "
                  "miss/1k</th><th>L1D hit</th><th>L2 hit</th><th>DRAM</th>";
  if (power)
    o += "<th>energy</th><th title=\"energy / baseline energy\">vs base</th>";
  o += "</tr></thead><tbody>";
  std::vector<std::string> names = unionKernels(runs);
  auto rows = [&](const std::string &label, const std::string &mangled,
                  std::vector<const KernelRow *> ks) {
    const KernelRow *base = ks[0];
    for (size_t r = 0; r < runs.size(); ++r) {
      const KernelRow *k = ks[r];
      o += std::string("<tr") + (r == 0 ? " class=\"first\"" : "") + " data-kernel=\"" +
           esc(mangled) + "\" data-run=\"" + std::to_string(r) + "\">";
      o += r == 0 ? "<td class=\"name\" rowspan=\"" + std::to_string(runs.size()) + "\" title=\"" +
                        esc(label) + "\">" + esc(label.size() > 60 ? label.substr(0, 57) + "..." : label) +
                        "</td>"
                  : "";
      o += "<td class=\"t\">" + esc(runs[r].label) + "</td>";
      if (!k) {
        o += "<td colspan=\"" + std::to_string(power ? 10 : 8) + "\" class=\"t\">not launched</td></tr>";
        continue;
      }
      o += cell("cycles", k->cycles, fmtCount(k->cycles));
      o += ratioCell("cycles_ratio", k->cycles, base ? base->cycles : 0, true);
      o += cell("ipc", k->ipc(), printf1("%.2f", k->ipc()));
      o += cell("stall_cycles", k->stallCycles, fmtCount(k->stallCycles));
      o += cell("l1_mpki", k->l1MissesPerKiloInst(), printf1("%.1f", k->l1MissesPerKiloInst()));
      o += rateCell("l1_hit", k->l1HitRate());
      o += rateCell("l2_hit", k->l2HitRate());
      o += cell("dram_bytes", k->dramBytes(), fmtSi(k->dramBytes(), "B"));
      if (power) {
        o += cell("energy_j", k->energyJ, fmtSi(k->energyJ, "J"));
        o += ratioCell("energy_ratio", k->energyJ, base ? base->energyJ : 0, true);
      }
      o += "</tr>";
    }
  };
  std::vector<KernelRow> totals(runs.size());
  for (const std::string &n : names) {
    std::vector<const KernelRow *> ks;
    std::string label;
    for (size_t r = 0; r < runs.size(); ++r) {
      ks.push_back(findKernel(runs[r], n));
      if (ks.back() && label.empty())
        label = ks.back()->demangled;
      if (const KernelRow *k = ks.back()) {
        KernelRow &t = totals[r];
        t.cycles += k->cycles;
        t.warpInsts += k->warpInsts;
        t.stallCycles += k->stallCycles;
        t.l1Misses += k->l1Misses;
        t.l1Accesses += k->l1Accesses;
        t.l1Hits += k->l1Hits;
        t.l2Accesses += k->l2Accesses;
        t.l2Hits += k->l2Hits;
        t.dramReadBytes += k->dramReadBytes;
        t.dramWriteBytes += k->dramWriteBytes;
        t.energyJ += k->energyJ;
      }
    }
    rows(label, n, ks);
  }
  if (names.size() > 1) {
    std::vector<const KernelRow *> ks;
    for (const KernelRow &t : totals)
      ks.push_back(&t);
    rows("all kernels", "", ks);
  }
  return o + "</tbody></table>";
}

std::string configTable(const std::vector<RunModel> &runs) {
  std::vector<std::string> keys;
  std::set<std::string> seen;
  std::vector<std::map<std::string, std::string>> values(runs.size());
  for (size_t r = 0; r < runs.size(); ++r)
    for (const auto &[k, v] : runs[r].config) {
      values[r][k] = v;
      if (seen.insert(k).second)
        keys.push_back(k);
    }
  if (keys.empty())
    return "<p class=\"note\">No timing configuration (functional-mode runs).</p>";
  size_t differ = 0;
  for (const std::string &k : keys) {
    std::set<std::string> distinct;
    for (auto &m : values)
      distinct.insert(m.count(k) ? m[k] : "\x01");
    differ += distinct.size() > 1;
  }
  // long (every option of every component): folded, the summary says what is inside
  std::string o = "<details id=\"config-details\"><summary>" + std::to_string(keys.size()) +
                  " options" +
                  (runs.size() > 1 ? ", " + std::to_string(differ) + " differ between the runs" : "") +
                  " (click to show)</summary>";
  if (runs.size() > 1)
    o += "<label><input type=\"checkbox\" id=\"config-only-diff\"> only the options that differ</label>";
  o += "<table class=\"config\" id=\"config-table\"><thead><tr><th class=\"t\">option</th>";
  for (const RunModel &r : runs)
    o += "<th class=\"t\">" + esc(r.label) + "</th>";
  o += "</tr></thead><tbody>";
  for (const std::string &k : keys) {
    std::set<std::string> distinct;
    for (auto &m : values)
      distinct.insert(m.count(k) ? m[k] : "\x01");
    o += std::string("<tr") + (distinct.size() > 1 ? " class=\"diff\"" : "") + "><td class=\"t\">" +
         esc(k) + "</td>";
    for (auto &m : values)
      o += "<td class=\"t\">" + (m.count(k) ? esc(m[k]) : std::string("&ndash;")) + "</td>";
    o += "</tr>";
  }
  return o + "</tbody></table></details>";
}

/// At most this many kernels per run in the bar charts (the largest by cycles); tables list all.
constexpr size_t kChartKernels = 24;

/// A run's kernels for the page's script: short name, stalls, component energies, launches.
void kernelsData(std::string &o, const RunModel &r) {
  for (size_t ki = 0; ki < r.kernels.size(); ++ki) {
    const KernelRow &k = r.kernels[ki];
    o += ki ? ",{\"n\":" : "{\"n\":";
    appendJsonString(o, k.shortName);
    o += ",\"stalls\":[";
    for (size_t i = 0; i < k.stalls.size(); ++i)
      o += (i ? "," : "") + compact(k.stalls[i]);
    o += "],\"compJ\":[";
    for (size_t i = 0; i < k.componentJ.size(); ++i)
      o += (i ? "," : "") + compact(k.componentJ[i]);
    o += "],\"launches\":[";
    for (size_t i = 0; i < k.launchIndex.size(); ++i)
      o += (i ? "," : "") + std::to_string(k.launchIndex[i]);
    o += "]}";
  }
}

/// The kernels the charts show: the largest by cycles, in table order.
std::vector<size_t> chartKernels(const RunModel &r) {
  std::vector<size_t> order(r.kernels.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return r.kernels[a].cycles > r.kernels[b].cycles; });
  if (order.size() > kChartKernels)
    order.resize(kChartKernels);
  std::sort(order.begin(), order.end());
  return order;
}

/// A run's launches (one array each) and its power trace (times, watts), for the page's script.
void launchesAndTraceData(std::string &o, const RunModel &r) {
  for (size_t i = 0; i < r.launches.size(); ++i) {
    const LaunchRow &l = r.launches[i];
    o += i ? ",[" : "[";
    o += std::to_string(l.kernel) + ",";
    appendJsonString(o, l.gridBlock);
    for (double v : {l.start, l.cycles, l.ipc, l.occupancy, l.warpInsts, l.stallCycles, l.l1HitRate,
                     l.l2HitRate, l.dramBytes, l.energyJ, l.avgWatts})
      o += "," + compact(v);
    o += "]";
  }
  o += "],\"trace\":[[";
  for (size_t i = 0; i < r.trace.size(); ++i)
    o += (i ? "," : "") + printf1("%.9g", r.trace[i].first);
  o += "],[";
  for (size_t i = 0; i < r.trace.size(); ++i)
    o += (i ? "," : "") + compact(r.trace[i].second);
  o += "]]}";
}

void runData(std::string &o, const RunModel &r) {
  o += "\"label\":";
  appendJsonString(o, r.label);
  o += ",\"timing\":" + std::string(r.timing ? "true" : "false") +
       ",\"power\":" + (r.power ? "true" : "false") + ",\"stallReasons\":[";
  for (size_t i = 0; i < r.stallReasons.size(); ++i) {
    o += i ? "," : "";
    appendJsonString(o, r.stallReasons[i]);
  }
  o += "],\"components\":[";
  for (size_t i = 0; i < r.powerComponents.size(); ++i) {
    o += i ? "," : "";
    appendJsonString(o, r.powerComponents[i]);
  }
  o += "],\"kernels\":[";
  kernelsData(o, r);
  std::vector<size_t> order = chartKernels(r);
  o += "],\"chartKernels\":[";
  for (size_t i = 0; i < order.size(); ++i)
    o += (i ? "," : "") + std::to_string(order[i]);
  o += "],\"launches\":[";
  launchesAndTraceData(o, r);
}

/// Comparison: cycles of each kernel relative to the baseline (first run).
void compareData(std::string &o, const std::vector<RunModel> &runs) {
  std::vector<std::string> names = unionKernels(runs);
  if (names.size() > kChartKernels)
    names.resize(kChartKernels);
  o += ",\"compare\":{\"kernels\":[";
  for (size_t i = 0; i < names.size(); ++i) {
    o += i ? "," : "";
    const KernelRow *k = nullptr;
    for (const RunModel &r : runs)
      if (!k)
        k = findKernel(r, names[i]);
    appendJsonString(o, k ? k->shortName : names[i]);
  }
  o += "],\"cycleRatio\":[";
  for (size_t i = 0; i < names.size(); ++i) {
    const KernelRow *base = findKernel(runs[0], names[i]);
    o += i ? ",[" : "[";
    for (size_t r = 0; r < runs.size(); ++r) {
      const KernelRow *k = findKernel(runs[r], names[i]);
      o += r ? "," : "";
      o += k && base && base->cycles > 0 ? compact(k->cycles / base->cycles) : "null";
    }
    o += "]";
  }
  o += "]}";
}

std::string pageData(const std::vector<RunModel> &runs, const ChartLibrary &charts) {
  std::string o = "{\"runs\":[";
  for (size_t ri = 0; ri < runs.size(); ++ri) {
    o += ri ? ",{" : "{";
    runData(o, runs[ri]);
  }
  o += "]";
  if (runs.size() > 1 && runs[0].timing)
    compareData(o, runs);
  o += ",\"chartsMissing\":";
  appendJsonString(o, charts.available() ? "" : charts.where);
  return o + "}";
}

/// `</script` must not appear inside an inlined script.
std::string scriptSafe(const std::string &js) {
  std::string o;
  o.reserve(js.size());
  for (size_t i = 0; i < js.size(); ++i) {
    if (js[i] == '<' && i + 1 < js.size() && js[i + 1] == '/' &&
        js.compare(i + 2, 6, "script") == 0) {
      o += "<\\/";
      ++i;
      continue;
    }
    o += js[i];
  }
  return o;
}

} // namespace

std::string renderReport(const std::vector<RunModel> &runs, const ChartLibrary &charts,
                         const std::string &title) {
  bool timing = std::any_of(runs.begin(), runs.end(), [](const RunModel &r) { return r.timing; });
  bool power = std::any_of(runs.begin(), runs.end(), [](const RunModel &r) { return r.power; });
  std::string o;
  o.reserve(1 << 20);
  o += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
       "<meta name=\"generator\" content=\"ptxsim report\"><title>" +
       esc(title) + "</title>\n<style>" + kReportCss + "</style>\n";
  if (charts.available())
    o += "<style>" + charts.css + "</style>\n";
  o += "</head>\n<body data-runs=\"" + std::to_string(runs.size()) + "\">\n<header><h1>" +
       esc(title) + "</h1><p class=\"sub\">";
  for (size_t i = 0; i < runs.size(); ++i)
    o += (i ? ", " : "") + esc(runs[i].label) + (i == 0 && runs.size() > 1 ? " (baseline)" : "");
  o += " &middot; written by <code>ptxsim report</code></p><nav><a href=\"#summary\">summary</a>";
  if (runs.size() > 1)
    o += "<a href=\"#comparison\">comparison</a>";
  o += "<a href=\"#kernels\">kernels</a>";
  if (timing)
    o += "<a href=\"#stalls\">stalls</a>";
  if (power)
    o += "<a href=\"#power\">power</a>";
  o += "<a href=\"#config\">configuration</a></nav></header>\n";
  if (!charts.available())
    o += "<p class=\"charts-missing\" id=\"charts-missing\">Charts are unavailable: " +
         esc(charts.where) + ". The tables below are complete.</p>\n";

  o += "<section id=\"summary\"><h2>Run summary</h2>" + summaryTable(runs) + "</section>\n";
  if (runs.size() > 1) {
    o += "<section id=\"comparison\"><h2>Comparison</h2><p class=\"note\">Each kernel in every "
         "run, matched by name; ratios are against " +
         esc(runs[0].label) +
         " (green: better, red: worse).</p>";
    if (runs[0].timing)
      o += "<div class=\"chart\" id=\"chart-compare\"></div>";
    o += comparisonTable(runs) + "</section>\n";
  }
  o += "<section id=\"kernels\"><h2>Kernels</h2><p class=\"note\">Click a column to sort";
  if (timing)
    o += ", a kernel to list its launches";
  o += ".</p>";
  for (size_t ri = 0; ri < runs.size(); ++ri) {
    if (runs.size() > 1)
      o += "<h3>" + esc(runs[ri].label) + "</h3>";
    o += kernelTable(runs[ri], ri);
  }
  o += "</section>\n";
  if (timing)
    o += "<section id=\"stalls\"><h2>Stall reasons</h2><div class=\"chart\" "
         "id=\"chart-stalls\"></div><p class=\"note\">Scheduler cycles without an issue, by "
         "reason (sm.stall.*); <em>idle</em> counts cycles with no warp resident, which "
         "<em>stall cycles</em> (sm.stall_cycles) leave out.</p></section>\n";
  if (power)
    o += "<section id=\"power\"><h2>Power</h2><div class=\"chart\" id=\"chart-power\"></div>"
         "<div class=\"chart\" id=\"chart-trace\"></div><p class=\"note\">The trace is the power "
         "model's samples during each kernel on the run's simulated timeline (gaps: no kernel "
         "running).</p></section>\n";
  o += "<section id=\"config\"><h2>Effective configuration</h2>" + configTable(runs) +
       "</section>\n";
  o += "<script type=\"application/json\" id=\"ptxsim-data\">" + pageData(runs, charts) +
       "</script>\n";
  if (charts.available())
    o += "<script>" +
         (charts.license.empty() || charts.license.find("*/") != std::string::npos
              ? std::string()
              : "/* uPlot " + std::string(kUplotVersion) + " (inlined by ptxsim report)\n" +
                    scriptSafe(charts.license) + "*/\n") +
         scriptSafe(charts.js) + "</script>\n";
  o += std::string("<script>") + kReportJs + "</script>\n</body></html>\n";
  return o;
}

bool writeReport(const std::vector<std::string> &files, const std::vector<std::string> &labels,
                 const std::string &title, const std::string &output, std::ostream &err,
                 const std::vector<std::string> &shownPaths) {
  std::vector<RunModel> runs(files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    if (i < labels.size())
      runs[i].label = labels[i];
    std::string e;
    if (!loadRun(files[i], runs[i], e)) {
      err << "ptxsim report: " << e << "\n";
      return false;
    }
    if (i < shownPaths.size())
      runs[i].path = shownPaths[i];
  }
  ChartLibrary charts = findChartLibrary();
  if (!charts.available())
    err << "ptxsim report: warning: charts are unavailable: " << charts.where << "\n";
  std::string t = title;
  if (t.empty()) {
    t = "ptxsim report: ";
    for (size_t i = 0; i < runs.size(); ++i)
      t += (i ? " vs " : "") + runs[i].label;
  }
  std::string page = renderReport(runs, charts, t);
  std::ofstream os(output, std::ios::binary);
  if (!os || !(os << page) || !os.flush()) {
    err << "ptxsim report: cannot write '" << output << "'\n";
    return false;
  }
  return true;
}

int reportCommand(const std::vector<std::string> &args, std::ostream &out, std::ostream &err) {
  std::vector<std::string> files, labels;
  std::string output = "report.html", title;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "-h" || a == "--help") {
      out << "usage: ptxsim report STATS.json [MORE.json...] [-o report.html] [--label NAME]... "
             "[--title TEXT]\n"
             "  Writes one self-contained HTML page (no network needed) from statistics files\n"
             "  written by `ptxsim run --stats-json FILE` (or PTXSIM_STATS_JSON): run summary,\n"
             "  per-kernel table (sortable; a kernel expands into its launches), stall and power\n"
             "  breakdowns, the power trace, the effective configuration; with several files a\n"
             "  comparison against the first.\n"
             "  -o FILE       output file (default report.html)\n"
             "  --label NAME  name of the next run in tables and legends, in file order\n"
             "                (default: the file name without .json)\n"
             "  --title TEXT  page title\n";
      return 0;
    }
    if (a == "-o" || a == "--label" || a == "--title") {
      if (i + 1 >= args.size()) {
        err << "ptxsim report: option " << a << " needs a value\n";
        return 2;
      }
      const std::string &v = args[++i];
      if (a == "-o")
        output = v;
      else if (a == "--label")
        labels.push_back(v);
      else
        title = v;
    } else if (!a.empty() && a[0] == '-') {
      err << "ptxsim report: unknown option '" << a << "' (see ptxsim report --help)\n";
      return 2;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    err << "ptxsim report: no statistics files (usage: ptxsim report STATS.json... -o "
           "report.html)\n";
    return 2;
  }
  if (labels.size() > files.size()) {
    err << "ptxsim report: " << labels.size() << " labels for " << files.size() << " files\n";
    return 2;
  }
  if (!writeReport(files, labels, title, output, err))
    return 1;
  out << "ptxsim report: wrote " << output << "\n";
  return 0;
}

} // namespace ptxsim::report

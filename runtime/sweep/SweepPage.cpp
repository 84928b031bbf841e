// The HTML page of a sweep: `ptxsim report`'s stylesheet and script (sorting; the page's
// render flags for tests) around the grid's own tables. Every number cell carries its exact
// value in data-v (17 significant digits), which the tests compare against the stats files.

#include "runtime/report/PageAssets.h"
#include "runtime/sweep/Sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace ptxsim::sweep {

namespace {

std::string esc(const std::string &s) {
  std::string o;
  for (char c : s) {
    switch (c) {
    case '&':
      o += "&amp;";
      break;
    case '<':
      o += "&lt;";
      break;
    case '>':
      o += "&gt;";
      break;
    case '"':
      o += "&quot;";
      break;
    default:
      o += c;
    }
  }
  return o;
}

std::string fmt(const char *f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string exact(double v) { return std::isfinite(v) ? fmt("%.17g", v) : ""; }

/// Rates (names ending in _rate) as percentages, integers with separators, others 4 digits.
std::string shown(const std::string &stat, double v) {
  if (!std::isfinite(v))
    return "&ndash;";
  std::string base = stat.substr(0, stat.find('@'));
  if (base.size() > 5 && base.compare(base.size() - 5, 5, "_rate") == 0)
    return fmt("%.1f%%", 100 * v);
  if (std::fabs(v) >= 1e15 || (v != std::floor(v)))
    return fmt("%.4g", v);
  std::string digits = fmt("%.0f", v), o;
  size_t start = digits[0] == '-' ? 1 : 0;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > start && (digits.size() - i) % 3 == 0)
      o += ',';
    o += digits[i];
  }
  return o;
}

std::string numCell(const std::string &stat, double v, const std::string &cls = "") {
  return "<td" + (cls.empty() ? std::string() : " class=\"" + cls + "\"") + " data-v=\"" +
         exact(v) + "\">" + shown(stat, v) + "</td>";
}

/// A diverging colour for a ratio: blue below 1, red above, white at 1; `span` is the largest
/// |log2 ratio| on the map (so the extremes are the darkest).
std::string heat(double ratio, double span) {
  if (!std::isfinite(ratio) || ratio <= 0)
    return "";
  if (ratio == 1)
    return "";
  // differences well under 1.5x never reach the darkest colour, whatever the map's range
  span = std::max(span, std::log2(1.5));
  double t = std::log2(ratio) / span;
  t = std::max(-1.0, std::min(1.0, t));
  int hue = t < 0 ? 215 : 4;
  double light = 97 - 42 * std::fabs(t);
  return " style=\"background:hsl(" + std::to_string(hue) + ",70%," + fmt("%.0f", light) + "%)\"";
}

std::string ratioCell(double v, double base, double span) {
  double r = std::isfinite(v) && std::isfinite(base) && base != 0 ? v / base : std::nan("");
  return "<td class=\"ratio\" data-v=\"" + exact(r) + "\"" + heat(r, span) + ">" +
         (std::isfinite(r) ? fmt("%.3f", r) + "&times;" : std::string("&ndash;")) + "</td>";
}

const char *kSweepCss = R"CSS(
table.heat td.ratio, table.axis td.ratio { min-width: 64px; }
table.heat th.t, table.axis th.t { text-align: left; }
td.failed { color: #b3261e; font-weight: 600; } td.missing { color: #5b6577; }
pre.tail { background: #fbf3f2; border: 1px solid #e7c9c6; padding: 8px; overflow-x: auto;
           max-height: 260px; font-size: 12px; }
.legend-heat span.sw { display: inline-block; width: 40px; text-align: center; font-size: 12px; }
)CSS";

/// The rows of a table by their coordinates (program first, then each axis' value).
using RowIndex = std::map<std::vector<std::string>, const Row *>;

const Row *rowAt(const RowIndex &at, const std::vector<std::string> &coords) {
  auto it = at.find(coords);
  return it == at.end() ? nullptr : it->second;
}

/// `others` (coordinates without axis `a`) with `value` put back at position `a`.
std::vector<std::string> withValue(const std::vector<std::string> &others, size_t a,
                                   const std::string &value) {
  std::vector<std::string> c = others;
  c.insert(c.begin() + static_cast<long>(a), value);
  return c;
}

void pageHead(std::string &o, const Table &t, size_t failed) {
  o += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
       "content=\"width=device-width, initial-scale=1\"><meta name=\"generator\" "
       "content=\"ptxsim sweep\"><title>" +
       esc(t.title) + "</title>\n<style>" + report::kReportCss + kSweepCss + "</style>\n</head>\n";
  o += "<body data-runs=\"0\" data-points=\"" + std::to_string(t.rows.size()) +
       "\">\n<header><h1>" + esc(t.title) + "</h1><p class=\"sub\">sweep " + esc(t.name) +
       " &middot; " + std::to_string(t.rows.size()) +
       " points &middot; written by <code>ptxsim sweep</code>"
       "</p><nav><a href=\"#summary\">summary</a>";
  if (failed)
    o += "<a href=\"#failed\">failed</a>";
  o += "<a href=\"#points\">points</a><a href=\"#axes\">per axis</a><a href=\"#heatmap\">heat "
       "map</a></nav></header>\n";
}

void summarySection(std::string &o, const Table &t, size_t ok, size_t failed, size_t missing) {
  o += "<section id=\"summary\"><h2>Sweep summary</h2><table class=\"summary\" "
       "id=\"summary-table\"><tbody>";
  auto row2 = [&](const std::string &k, const std::string &v) {
    o += "<tr><th class=\"t\">" + k + "</th><td class=\"t\">" + v + "</td></tr>";
  };
  row2("spec", "<code>" + esc(t.specPath) + "</code>");
  row2("output", "<code>" + esc(t.output) + "</code>");
  std::string product;
  for (size_t a = 0; a < t.axes.size(); ++a)
    product +=
        (a ? " &times; " : "") + std::to_string(t.axisValues[a].size()) + " " + esc(t.axes[a]);
  row2("points", std::to_string(t.rows.size()) + " = " + product);
  row2("state", "<span data-k=\"ok\">" + std::to_string(ok) +
                    " ok</span>, <span data-k=\"failed\">" + std::to_string(failed) +
                    " failed</span>, <span data-k=\"missing\">" + std::to_string(missing) +
                    " not run</span>");
  std::string base;
  for (size_t a = 0; a < t.axes.size(); ++a)
    base += (a ? ", " : "") + esc(t.axes[a]) + " = " + esc(t.baseline[a]);
  row2("baseline", base);
  std::string stats;
  for (size_t s = 0; s < t.statNames.size(); ++s)
    stats += (s ? ", " : "") + std::string("<code>") + esc(t.statNames[s]) + "</code>";
  row2("statistics", stats);
  o += "</tbody></table><p class=\"note\">Each point ran <code>ptxsim run</code> in its own "
       "directory (<code>points/ID</code>: stats.json, stdout.txt, stderr.txt, result.json, "
       "command.sh); the same numbers are in " +
       esc(t.spec ? t.spec->csvName : "results.csv") + " and " +
       esc(t.spec ? t.spec->jsonName : "results.json") + ".</p></section>\n";
}

void failedSection(std::string &o, const Table &t) {
  o += "<section id=\"failed\"><h2>Failed points</h2>";
  for (const Row &r : t.rows) {
    if (r.state != "failed")
      continue;
    o += "<h3 class=\"failed-point\" data-id=\"" + esc(r.point->id) + "\">" + esc(r.point->id) +
         "</h3><p>" + esc(r.result.reason) + " &middot; <code>points/" + esc(r.point->id) +
         "/stderr.txt</code>, last lines:</p><pre class=\"tail\">" + esc(r.result.stderrTail) +
         "</pre>";
  }
  o += "<p class=\"note\"><code>ptxsim sweep SPEC --retry-failed</code> runs them again.</p>"
       "</section>\n";
}

void pointsSection(std::string &o, const Table &t) {
  o += "<section id=\"points\"><h2>Every point</h2><p class=\"note\">Click a column to sort."
       "</p><table class=\"sortable points\" id=\"points-table\"><thead><tr><th class=\"t\" "
       "data-sort=\"text\">point</th>";
  for (const std::string &a : t.axes)
    o += "<th class=\"t\" data-sort=\"text\">" + esc(a) + "</th>";
  o += "<th class=\"t\" data-sort=\"text\">status</th>";
  for (const std::string &s : t.statNames)
    o += "<th data-sort=\"num\" data-stat=\"" + esc(s) + "\">" + esc(s) + "</th>";
  o += "<th data-sort=\"num\">wall s</th><th data-sort=\"num\">peak MiB</th></tr></thead><tbody>";
  for (const Row &r : t.rows) {
    o += "<tr data-id=\"" + esc(r.point->id) + "\"><td class=\"t\" data-v=\"" + esc(r.point->id) +
         "\">" + esc(r.point->id) + "</td>";
    for (const std::string &c : t.coords(r))
      o += "<td class=\"t\" data-v=\"" + esc(c) + "\">" + esc(c) + "</td>";
    o += "<td class=\"t " + r.state + "\" data-v=\"" + r.state + "\">" + r.state + "</td>";
    for (size_t s = 0; s < r.stats.size(); ++s)
      o += numCell(t.statNames[s], r.stats[s]);
    bool ran = r.state != "missing";
    o += "<td data-v=\"" + (ran ? exact(r.result.wallSeconds) : "") + "\">" +
         (ran ? fmt("%.2f", r.result.wallSeconds) : "&ndash;") + "</td><td data-v=\"" +
         (ran ? exact(r.result.peakRssMiB) : "") + "\">" +
         (ran ? fmt("%.0f", r.result.peakRssMiB) : "&ndash;") + "</td></tr>";
  }
  o += "</tbody></table></section>\n";
}

/// The largest |log2| of a ratio to the baseline value over the axis' table (its colour scale).
double axisSpan(const Table &t, const RowIndex &at, size_t a, size_t baseIdx,
                const std::vector<std::vector<std::string>> &others) {
  const std::vector<std::string> &vals = t.axisValues[a];
  double span = 0;
  for (const auto &oc : others)
    for (size_t s = 0; s < t.statNames.size(); ++s) {
      const Row *b = rowAt(at, withValue(oc, a, vals[baseIdx]));
      for (const std::string &v : vals) {
        const Row *x = rowAt(at, withValue(oc, a, v));
        if (b && x && std::isfinite(x->stats[s]) && std::isfinite(b->stats[s]) && b->stats[s] > 0 &&
            x->stats[s] > 0)
          span = std::max(span, std::fabs(std::log2(x->stats[s] / b->stats[s])));
      }
    }
  return span;
}

void axisTableHead(std::string &o, const Table &t, size_t a, size_t baseIdx) {
  const std::vector<std::string> &vals = t.axisValues[a];
  o += "<h3>" + esc(t.axes[a]) + " <span class=\"legend-note\">(baseline " + esc(vals[baseIdx]) +
       ")</span></h3><table class=\"axis\" data-axis=\"" + esc(t.axes[a]) + "\"><thead><tr>";
  size_t nOther = t.axes.size() - 1;
  o += "<th class=\"t\" colspan=\"" + std::to_string(std::max<size_t>(1, nOther)) + "\"></th>";
  for (const std::string &s : t.statNames)
    o += "<th colspan=\"" + std::to_string(2 * vals.size() - 1) + "\">" + esc(s) + "</th>";
  o += "</tr><tr>";
  if (nOther == 0)
    o += "<th class=\"t\"></th>";
  for (size_t k = 0; k < t.axes.size(); ++k)
    if (k != a)
      o += "<th class=\"t\">" + esc(t.axes[k]) + "</th>";
  for (size_t s = 0; s < t.statNames.size(); ++s)
    for (size_t v = 0; v < vals.size(); ++v) {
      o += "<th>" + esc(vals[v]) + "</th>";
      if (v != baseIdx)
        o += "<th>&times; " + esc(vals[baseIdx]) + "</th>";
    }
  o += "</tr></thead><tbody>";
}

/// Axis `a`'s table: a row per combination of the other coordinates, a column per value.
void axisTable(std::string &o, const Table &t, const RowIndex &at, size_t a) {
  const std::vector<std::string> &vals = t.axisValues[a];
  size_t baseIdx = std::find(vals.begin(), vals.end(), t.baseline[a]) - vals.begin();
  // the distinct combinations of the other axes, in grid order
  std::vector<std::vector<std::string>> others;
  for (const Row &r : t.rows) {
    std::vector<std::string> c = t.coords(r);
    c.erase(c.begin() + static_cast<long>(a));
    if (std::find(others.begin(), others.end(), c) == others.end())
      others.push_back(c);
  }
  double span = axisSpan(t, at, a, baseIdx, others);
  axisTableHead(o, t, a, baseIdx);
  for (const auto &oc : others) {
    o += "<tr>";
    if (oc.empty())
      o += "<td class=\"t\"></td>";
    for (const std::string &c : oc)
      o += "<td class=\"t\">" + esc(c) + "</td>";
    const Row *b = rowAt(at, withValue(oc, a, vals[baseIdx]));
    for (size_t s = 0; s < t.statNames.size(); ++s) {
      double bv = b ? b->stats[s] : std::nan("");
      for (size_t v = 0; v < vals.size(); ++v) {
        const Row *x = rowAt(at, withValue(oc, a, vals[v]));
        double xv = x ? x->stats[s] : std::nan("");
        o += numCell(t.statNames[s], xv);
        if (v != baseIdx)
          o += ratioCell(xv, bv, span);
      }
    }
    o += "</tr>";
  }
  o += "</tbody></table>";
}

void axesSection(std::string &o, const Table &t, const RowIndex &at) {
  o += "<section id=\"axes\"><h2>Per axis</h2><p class=\"note\">For each axis, every "
       "combination of the other coordinates is a row; ratios are against the axis' baseline "
       "value in the same row (blue: smaller, red: larger).</p>";
  // (not for programs: their ratios compare different work; the heat maps have them as rows)
  for (size_t a = 1; a < t.axes.size(); ++a)
    if (t.axisValues[a].size() >= 2)
      axisTable(o, t, at, a);
  o += "</section>\n";
}

/// The heat maps' columns: every configuration (coordinates but the program) and the baseline.
struct HeatColumns {
  std::vector<std::vector<std::string>> configs;
  std::vector<std::string> base;
};

/// Statistic `s`'s heat map: programs x configurations, as ratios to the baseline configuration.
void heatTable(std::string &o, const Table &t, const RowIndex &at, const HeatColumns &cols,
               size_t s) {
  auto key = [](const std::string &p, const std::vector<std::string> &c) {
    std::vector<std::string> k{p};
    k.insert(k.end(), c.begin(), c.end());
    return k;
  };
  double span = 0;
  for (const std::string &p : t.axisValues[0]) {
    const Row *b = rowAt(at, key(p, cols.base));
    for (const auto &c : cols.configs) {
      const Row *x = rowAt(at, key(p, c));
      if (b && x && b->stats[s] > 0 && x->stats[s] > 0)
        span = std::max(span, std::fabs(std::log2(x->stats[s] / b->stats[s])));
    }
  }
  o += "<h3>" + esc(t.statNames[s]) + "</h3><table class=\"heat\" data-stat=\"" +
       esc(t.statNames[s]) + "\"><thead><tr><th class=\"t\">program</th>";
  for (const auto &c : cols.configs) {
    std::string label;
    for (size_t k = 0; k < c.size(); ++k)
      label += (k ? " &middot; " : "") + esc(c[k]);
    o += "<th>" + (label.empty() ? std::string("(all)") : label) + "</th>";
  }
  o += "</tr></thead><tbody>";
  for (const std::string &p : t.axisValues[0]) {
    o += "<tr><td class=\"t\">" + esc(p) + "</td>";
    const Row *b = rowAt(at, key(p, cols.base));
    for (const auto &c : cols.configs) {
      const Row *x = rowAt(at, key(p, c));
      double xv = x ? x->stats[s] : std::nan(""), bv = b ? b->stats[s] : std::nan("");
      double r = std::isfinite(xv) && std::isfinite(bv) && bv != 0 ? xv / bv : std::nan("");
      o += "<td class=\"ratio\" data-v=\"" + exact(r) + "\" data-value=\"" + exact(xv) +
           "\" title=\"" + esc(t.statNames[s]) + " = " + exact(xv) + "\"" + heat(r, span) + ">" +
           (std::isfinite(r) ? fmt("%.3f", r) + "&times;" : std::string("&ndash;")) + "</td>";
    }
    o += "</tr>";
  }
  o += "</tbody></table>";
}

void heatmapSection(std::string &o, const Table &t, const RowIndex &at) {
  o += "<section id=\"heatmap\"><h2>Heat map</h2><p class=\"note\">Per statistic: each program "
       "(row) in each configuration (column), as a ratio to that program in the baseline "
       "configuration (";
  for (size_t a = 1; a < t.axes.size(); ++a)
    o += (a > 1 ? ", " : "") + esc(t.axes[a]) + " = " + esc(t.baseline[a]);
  o += "). Hover a cell for its value.</p>";
  HeatColumns cols;
  for (const Row &r : t.rows) {
    std::vector<std::string> c = t.coords(r);
    c.erase(c.begin());
    if (std::find(cols.configs.begin(), cols.configs.end(), c) == cols.configs.end())
      cols.configs.push_back(c);
  }
  cols.base.assign(t.baseline.begin() + 1, t.baseline.end());
  for (size_t s = 0; s < t.statNames.size(); ++s)
    heatTable(o, t, at, cols, s);
  if (t.statNames.empty())
    o += "<p>No statistics chosen.</p>";
  o += "<p class=\"legend-heat\">";
  for (double r : {0.5, 0.667, 0.8, 1.0, 1.25, 1.5, 2.0})
    o += "<span class=\"sw\"" + heat(r, 1) + ">" + fmt("%.2g", r) + "&times;</span>";
  o += " <span class=\"legend-note\">the colour scale when the largest ratio of a map or table "
       "is 2&times; or 0.5&times; (its darkest colour; with smaller ratios, 1.5&times; and "
       "0.67&times;)</span></p></section>\n";
}

} // namespace

std::string renderSweepPage(const Table &t) {
  size_t ok = 0, failed = 0, missing = 0;
  for (const Row &r : t.rows)
    (r.state == "ok" ? ok : r.state == "failed" ? failed : missing)++;
  std::string o;
  o.reserve(1 << 18);
  pageHead(o, t, failed);
  summarySection(o, t, ok, failed, missing);
  if (failed)
    failedSection(o, t);
  pointsSection(o, t);
  RowIndex at;
  for (const Row &r : t.rows)
    at[t.coords(r)] = &r;
  axesSection(o, t, at);
  heatmapSection(o, t, at);
  o += "<script type=\"application/json\" id=\"ptxsim-data\">{\"runs\":[],\"chartsMissing\":\"\"}"
       "</script>\n<script>" +
       std::string(report::kReportJs) + "</script>\n</body></html>\n";
  return o;
}

} // namespace ptxsim::sweep

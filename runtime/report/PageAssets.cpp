#include "runtime/report/PageAssets.h"

namespace ptxsim::report {

const char *const kReportCss = R"CSS(
:root { --fg: #1d2430; --muted: #5b6577; --line: #d9dee7; --head: #f3f5f9; --accent: #2f6fdb; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
       margin: 0; padding: 0 24px 48px; max-width: 1600px; }
header { border-bottom: 2px solid var(--accent); margin-bottom: 8px; }
h1 { font-size: 22px; margin: 18px 0 4px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
p.sub, p.note { color: var(--muted); margin: 4px 0 10px; }
nav a { margin-right: 14px; color: var(--accent); text-decoration: none; }
table { border-collapse: collapse; margin: 6px 0 12px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: right; white-space: nowrap; }
th { background: var(--head); font-weight: 600; position: sticky; top: 0; }
td.t, th.t { text-align: left; }
table.summary td.t { white-space: normal; max-width: 420px; overflow-wrap: anywhere; }
td.name { text-align: left; max-width: 460px; overflow: hidden; text-overflow: ellipsis; }
th[data-sort] { cursor: pointer; user-select: none; }
th[data-dir="asc"]::after { content: " \25B2"; font-size: 10px; }
th[data-dir="desc"]::after { content: " \25BC"; font-size: 10px; }
tr.kernel { cursor: pointer; }
tr.kernel:hover, tr.launch:hover { background: #f7f9fd; }
tr.launch td { color: var(--muted); font-size: 13px; background: #fbfcfe; }
tr.launch td.name { padding-left: 28px; }
tfoot td { font-weight: 600; background: var(--head); }
button.exp { border: none; background: none; cursor: pointer; padding: 0 4px 0 0; color: var(--accent); }
tr.kernel[data-open="1"] button.exp { transform: rotate(90deg); }
button.more { cursor: pointer; }
.sbar { display: flex; width: 140px; height: 12px; background: #eef1f6; border-radius: 2px; overflow: hidden; }
.sbar span { display: block; height: 100%; }
table.cmp tr.first td { border-top: 2px solid #aeb6c4; }
td.better { color: #13795b; } td.worse { color: #b3261e; }
table.config tr.diff td { background: #fff6e0; }
table.config.only-diff tr:not(.diff) { display: none; }
.chart { margin: 8px 0 18px; min-height: 40px; }
details > summary { cursor: pointer; color: var(--accent); margin: 4px 0 8px; }
.charts-missing { border: 1px solid #e0b252; background: #fff8e6; padding: 8px 12px; border-radius: 4px; }
.legend-note { color: var(--muted); font-size: 12px; }
.uplot { font-family: inherit; }
)CSS";

const char *const kReportJs = R"JS(
(function () {
  'use strict';
  var errors = [];
  function noteError(msg) {
    errors.push(String(msg));
    document.body.dataset.errors = errors.join(' | ');
  }
  window.addEventListener('error', function (e) { noteError(e.message); });
  var D = JSON.parse(document.getElementById('ptxsim-data').textContent);
  var PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1',
                 '#ff9da7', '#9c755f', '#bab0ac', '#1f77b4', '#8c564b', '#17becf', '#bcbd22',
                 '#7f7f7f', '#d62728', '#2ca02c', '#9467bd', '#0b3d91', '#c7a76c', '#6b8e23',
                 '#e377c2', '#393b79', '#ad494a'];
  function color(i) { return PALETTE[i % PALETTE.length]; }
  function fmtCount(v) { return v == null ? '' : Math.round(v).toLocaleString('en-US'); }
  function fmtSi(v, unit) {
    if (v == null || isNaN(v)) return '';
    var a = Math.abs(v), p = ['', 'k', 'M', 'G', 'T'], q = ['m', '\u00b5', 'n', 'p'], s = '';
    if (a === 0) return '0' + (unit ? ' ' + unit : '');
    var i = 0;
    if (a >= 1) { while (a >= 1000 && i < 4) { a /= 1000; v /= 1000; i++; } s = p[i]; }
    else { while (a < 1 && i < 4) { a *= 1000; v *= 1000; i++; } s = q[i - 1]; }
    return (+v.toPrecision(3)) + (unit || s ? ' ' + s + (unit || '') : '');
  }
  function fmtPct(v) { return v == null || v < 0 ? '\u2013' : (100 * v).toFixed(1) + '%'; }
  function fmtFixed(v, d) { return v == null ? '' : v.toFixed(d); }

  // ---- sortable tables -------------------------------------------------------------------------
  function collapseAll(table) {
    Array.prototype.slice.call(table.querySelectorAll('tr.launch, tr.more')).forEach(function (r) { r.remove(); });
    Array.prototype.forEach.call(table.querySelectorAll('tr.kernel[data-open="1"]'), function (r) { r.dataset.open = ''; });
  }
  function sortTable(table, col, th) {
    collapseAll(table);
    var numeric = th.dataset.sort === 'num';
    var dir = th.dataset.dir === (numeric ? 'desc' : 'asc') ? (numeric ? 'asc' : 'desc') : (numeric ? 'desc' : 'asc');
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[col].dataset.v, y = b.cells[col].dataset.v, r;
      if (numeric) {
        x = x === '' || x == null ? -Infinity : parseFloat(x);
        y = y === '' || y == null ? -Infinity : parseFloat(y);
        r = x < y ? -1 : x > y ? 1 : 0;
      } else {
        r = String(x).localeCompare(String(y));
      }
      return dir === 'asc' ? r : -r;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { delete c.dataset.dir; c.removeAttribute('aria-sort'); });
    th.dataset.dir = dir;
    th.setAttribute('aria-sort', dir === 'asc' ? 'ascending' : 'descending');
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      if (th.dataset.sort) th.addEventListener('click', function () { sortTable(table, col, th); });
    });
  });

  // ---- kernels expand into their launches (rows built on demand) ---------------------------------
  var PAGE = 200;
  function td(text, cls) {
    var c = document.createElement('td');
    c.textContent = text;
    if (cls) c.className = cls;
    return c;
  }
  function launchRow(run, n, L) {
    // L = [kernel, gridBlock, start, cycles, ipc, occupancy, warpInsts, stallCycles, l1, l2, dram, energy, avgW]
    var tr = document.createElement('tr');
    tr.className = 'launch';
    tr.appendChild(td('launch #' + (n + 1) + (L[2] >= 0 ? ' at ' + fmtSi(L[2], 's') : ''), 'name'));
    tr.appendChild(td(''));
    tr.appendChild(td(L[1], 't'));
    tr.appendChild(td(fmtCount(L[3])));
    tr.appendChild(td(fmtFixed(L[4], 2)));
    tr.appendChild(td(fmtPct(L[5])));
    tr.appendChild(td(fmtCount(L[6])));
    tr.appendChild(td(fmtCount(L[7])));
    tr.appendChild(td(''));
    tr.appendChild(td(fmtPct(L[8])));
    tr.appendChild(td(fmtPct(L[9])));
    tr.appendChild(td(fmtSi(L[10], 'B')));
    if (run.power) {
      tr.appendChild(td(fmtSi(L[11], 'J')));
      tr.appendChild(td(fmtFixed(L[12], 1)));
    }
    return tr;
  }
  function showLaunches(tr, from) {
    var run = D.runs[+tr.dataset.run], k = run.kernels[+tr.dataset.k];
    var idx = k.launches, end = Math.min(idx.length, from + PAGE);
    var anchor = tr;
    while (anchor.nextElementSibling && /launch|more/.test(anchor.nextElementSibling.className)) anchor = anchor.nextElementSibling;
    if (anchor.className === 'more') { var m = anchor; anchor = anchor.previousElementSibling; m.remove(); }
    var frag = document.createDocumentFragment();
    for (var i = from; i < end; i++) frag.appendChild(launchRow(run, idx[i], run.launches[idx[i]]));
    if (end < idx.length) {
      var more = document.createElement('tr');
      more.className = 'more';
      var c = document.createElement('td');
      c.colSpan = tr.cells.length;
      c.className = 't';
      var b = document.createElement('button');
      b.className = 'more';
      b.textContent = 'show launches ' + (end + 1) + '\u2013' + Math.min(idx.length, end + PAGE) + ' of ' + idx.length;
      b.addEventListener('click', function (e) { e.stopPropagation(); showLaunches(tr, end); });
      c.appendChild(b);
      more.appendChild(c);
      frag.appendChild(more);
    }
    anchor.parentNode.insertBefore(frag, anchor.nextSibling);
  }
  function toggle(tr) {
    if (tr.dataset.open === '1') {
      while (tr.nextElementSibling && /launch|more/.test(tr.nextElementSibling.className)) tr.nextElementSibling.remove();
      tr.dataset.open = '';
      return;
    }
    if (!D.runs[+tr.dataset.run].timing) return;
    tr.dataset.open = '1';
    showLaunches(tr, 0);
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.kernels'), function (table) {
    table.tBodies[0].addEventListener('click', function (e) {
      var tr = e.target.closest('tr.kernel');
      if (tr) toggle(tr);
    });
    table.tBodies[0].addEventListener('keydown', function (e) {
      var tr = e.target.closest('tr.kernel');
      if (tr && (e.key === 'Enter' || e.key === ' ')) { e.preventDefault(); toggle(tr); }
    });
  });

  // ---- configuration: only the options that differ between runs ----------------------------------
  var onlyDiff = document.getElementById('config-only-diff');
  if (onlyDiff) onlyDiff.addEventListener('change', function () {
    document.getElementById('config-table').classList.toggle('only-diff', onlyDiff.checked);
  });

  // ---- charts ------------------------------------------------------------------------------------
  function width(el) { return Math.max(480, Math.min(1400, (el.parentNode.clientWidth || 1000) - 8)); }
  function short(s, n) { return s.length > n ? s.slice(0, n - 1) + '\u2026' : s; }
  function xAxis(labels, splits) {
    return {
      splits: function () { return splits; },
      values: function (u, sp) { return sp.map(function (x, i) { return short(labels[i] || '', 22); }); },
      rotate: labels.length > 6 ? -30 : 0,
      size: labels.length > 6 ? 110 : 40,
      grid: { show: false }
    };
  }
  // bars stacked per label: values[label][part]; parts drawn largest-total first so each
  // segment shows (the library draws series in order, each bar from zero)
  function stackedBars(el, title, labels, parts, values, unit) {
    // parts that are zero everywhere only clutter the legend
    var keep = parts.map(function (x, p) { return p; }).filter(function (p) {
      return values.some(function (v) { return (v[p] || 0) > 0; });
    });
    if (!keep.length) keep = parts.map(function (x, p) { return p; });
    // colours follow the part's index in the full list, as in the tables' stall bars
    var colors = keep.map(function (p) { return color(p); });
    parts = keep.map(function (p) { return parts[p]; });
    values = values.map(function (v) { return keep.map(function (p) { return v[p] || 0; }); });
    var n = labels.length, xs = [], i, p;
    for (i = 0; i < n; i++) xs.push(i);
    var cum = parts.map(function () { return new Array(n).fill(0); });
    var max = 0;
    for (i = 0; i < n; i++) {
      var s = 0;
      for (p = 0; p < parts.length; p++) { s += values[i][p] || 0; cum[p][i] = s; }
      max = Math.max(max, s);
    }
    var series = [{ label: 'kernel', value: function (u, v) { return v == null ? '' : labels[v]; } }];
    var data = [xs];
    for (p = parts.length - 1; p >= 0; p--) {
      (function (p) {
        series.push({
          label: parts[p], fill: colors[p], stroke: colors[p], width: 0,
          paths: uPlot.paths.bars({ size: [0.7, 90] }), points: { show: false },
          value: function (u, v, si, idx) { return idx == null ? '' : fmtSi(values[idx][p] || 0, unit); }
        });
      })(p);
      data.push(cum[p]);
    }
    return new uPlot({
      title: title, width: width(el), height: 320 + (n > 6 ? 70 : 0), series: series,
      scales: { x: { time: false, range: function () { return [-0.6, n - 0.4]; } },
                y: { range: function () { return [0, max > 0 ? max * 1.08 : 1]; } } },
      axes: [xAxis(labels, xs), { size: 70, values: function (u, sp) { return sp.map(function (v) { return fmtSi(v, unit); }); } }],
      cursor: { points: { show: false } }
    }, data, el);
  }
  // bars grouped per label, one per run (slots: run r of group g sits at g*(R+1)+r)
  function groupedBars(el, title, labels, runs, values, fmt) {
    var R = runs.length, n = labels.length, xs = [], splits = [], g, r;
    for (g = 0; g < n; g++) { for (r = 0; r <= R; r++) xs.push(g * (R + 1) + r); splits.push(g * (R + 1) + (R - 1) / 2); }
    var data = [xs], max = 0;
    var series = [{ label: 'kernel', value: function (u, v) { return v == null ? '' : labels[Math.floor(v / (R + 1))]; } }];
    for (r = 0; r < R; r++) {
      var ys = xs.map(function (x) { var gg = Math.floor(x / (R + 1)), rr = x % (R + 1); return rr === r ? values[gg][r] : null; });
      ys.forEach(function (y) { if (y != null) max = Math.max(max, y); });
      data.push(ys);
      (function (r) {
        series.push({ label: runs[r], fill: color(r), stroke: color(r), width: 0,
                      paths: uPlot.paths.bars({ size: [0.9, 60] }), points: { show: false },
                      value: function (u, v, si, idx) {
                        if (idx == null) return '';
                        var gg = Math.floor(xs[idx] / (R + 1));
                        return values[gg][r] == null ? '\u2013' : fmt(values[gg][r]);
                      } });
      })(r);
    }
    var ax = xAxis(labels, splits);
    ax.values = function (u, sp) { return sp.map(function (x, i) { return short(labels[i] || '', 22); }); };
    return new uPlot({
      title: title, width: width(el), height: 320 + (n > 6 ? 70 : 0), series: series,
      scales: { x: { time: false, range: function () { return [-0.7, n * (R + 1) - 1.3]; } },
                y: { range: function () { return [0, max > 0 ? max * 1.1 : 1]; } } },
      axes: [ax, { size: 60, values: function (u, sp) { return sp.map(function (v) { return fmt(v); }); } }],
      cursor: { points: { show: false } }
    }, data, el);
  }
  function traceChart(el, runs) {
    // one x axis (simulated seconds); each run its own series, null where it has no sample
    var keyed = [], r;
    runs.forEach(function (run, ri) {
      for (var i = 0; i < run.trace[0].length; i++) keyed.push([run.trace[0][i], ri, run.trace[1][i]]);
    });
    keyed.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    var xs = [], cols = runs.map(function () { return []; });
    keyed.forEach(function (k) {
      xs.push(k[0]);
      for (r = 0; r < runs.length; r++) cols[r].push(r === k[1] ? k[2] : undefined);
    });
    var series = [{ label: 'time', value: function (u, v) { return v == null ? '' : fmtSi(v, 's'); } }];
    runs.forEach(function (run, ri) {
      // a sample is the average power since the previous one: a step that ends at its time
      series.push({ label: run.label, stroke: color(ri), width: 1.5, spanGaps: false,
                    paths: uPlot.paths.stepped({ align: -1 }),
                    points: { show: false }, value: function (u, v) { return v == null ? '' : v.toFixed(1) + ' W'; } });
    });
    return new uPlot({
      title: 'Power over simulated time', width: width(el), height: 300,
      series: series,
      scales: { x: { time: false } },
      axes: [{ values: function (u, sp) { return sp.map(function (v) { return fmtSi(v, 's'); }); }, size: 40 },
             { size: 60, label: 'W', values: function (u, sp) { return sp.map(function (v) { return String(+v.toPrecision(4)); }); } }]
    }, [xs].concat(cols), el);
  }

  var charts = 0;
  function draw(id, fn) {
    var el = document.getElementById(id);
    if (!el) return;
    try { fn(el); charts++; } catch (e) { noteError(e && e.message ? e.message : e); el.textContent = 'chart failed: ' + e; }
  }
  if (typeof uPlot === 'undefined') {
    Array.prototype.forEach.call(document.querySelectorAll('.chart'), function (el) {
      el.textContent = 'Chart unavailable: ' + D.chartsMissing;
      el.classList.add('charts-missing');
    });
  } else {
    var many = D.runs.length > 1;
    var labels = [], stalls = [], comps = [], reasons = [], components = [];
    function union(into, names) { names.forEach(function (n) { if (into.indexOf(n) < 0) into.push(n); }); }
    D.runs.forEach(function (run) { // runs of other machines may have other parts (the SPU's)
      if (run.timing) union(reasons, run.stallReasons);
      if (run.power) union(components, run.components);
    });
    D.runs.forEach(function (run) {
      if (!run.timing) return;
      run.chartKernels.forEach(function (ki) {
        var k = run.kernels[ki];
        labels.push(many ? run.label + ': ' + k.n : k.n);
        stalls.push(reasons.map(function (r) { var j = run.stallReasons.indexOf(r); return j < 0 ? 0 : k.stalls[j]; }));
        if (run.power) comps.push(components.map(function (c) { var j = run.components.indexOf(c); return j < 0 ? 0 : k.compJ[j]; }));
      });
    });
    if (labels.length) draw('chart-stalls', function (el) {
      stackedBars(el, 'Stall cycles by reason (summed over SMs)', labels, reasons, stalls, '');
    });
    var powerRuns = D.runs.filter(function (r) { return r.power; });
    if (powerRuns.length) {
      var plabels = [];
      D.runs.forEach(function (run) {
        if (run.power) run.chartKernels.forEach(function (ki) { plabels.push(many ? run.label + ': ' + run.kernels[ki].n : run.kernels[ki].n); });
      });
      draw('chart-power', function (el) { stackedBars(el, 'Energy by power component', plabels, components, comps, 'J'); });
      draw('chart-trace', function (el) { traceChart(el, powerRuns.filter(function (r) { return r.trace[0].length; })); });
    }
    if (D.compare) draw('chart-compare', function (el) {
      groupedBars(el, 'Cycles relative to ' + D.runs[0].label, D.compare.kernels, D.runs.map(function (r) { return r.label; }),
                  D.compare.cycleRatio, function (v) { return v == null ? '' : (+v.toPrecision(3)) + '\u00d7'; });
    });
  }
  document.body.dataset.charts = String(charts);
  setTimeout(function () {
    document.body.dataset.renderMs = performance.now().toFixed(1);
    document.body.dataset.rendered = errors.length ? 'errors' : 'ok';
  }, 0);
})();
)JS";

} // namespace ptxsim::report

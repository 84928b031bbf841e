#!/usr/bin/env python3
"""Checks the merged output of `ptxsim sweep` against the points' own files.

usage: check_sweep.py OUT_DIR [--failed ID]... [--same-as OTHER_OUT_DIR] [--browser CHROMIUM]

- results.json, results.csv and report.html list every point of the grid once, in the same
  order, with the same state;
- each statistic of each ok point, recomputed here from points/ID/stats.json (sums over the
  launches, independently of ptxsim's code; for a chiplet point from each chiplet's own
  run/ptxsim.X.Y.json where it has the number, else the launcher's file), equals the value in results.json, in results.csv
  and in the page's table of every point (data-v, 17 significant digits);
- the per-axis tables' and heat maps' ratios are the values' ratios;
- each point's result.json agrees (status, exit); --failed IDs are exactly the failed points,
  each listed on the page with its stderr tail;
- --same-as: the statistics and states equal another sweep's (the local and Slurm backends);
- --browser: the page renders in headless Chromium with nothing on the console and a sortable
  points table (tests/report/browser_check.py drives the browser).
- --render-later LIST: instead, the page is copied (report.checkN.html, next to it) and listed
  in LIST with its row count; `check_sweep.py --render LIST --browser CHROMIUM` then opens every
  listed page in one Chromium (its start is most of the 3-4 s an opening costs).
Exit 0 when everything holds, 1 otherwise, 77 when --browser names no installed Chromium.
"""
import argparse
import csv
import json
import math
import os
import shutil
import sys
import tempfile
from html.parser import HTMLParser

HERE = os.path.dirname(os.path.abspath(__file__))


def launches(stats, kernel=None):
    dem = {k["name"]: k.get("demangled", k["name"]) for k in stats.get("kernels", [])}
    for l in stats.get("launches", []):
        if kernel is None or kernel in l["kernel"] or kernel in dem.get(l["kernel"], ""):
            yield l


def recompute(stats, name):
    base, _, kernel = name.partition("@")
    ls = list(launches(stats, kernel or None))
    if not ls:
        return None
    s = lambda key: sum(l.get(key, 0) for l in ls)
    if base == "cycles":
        return s("gpu.cycles")
    if base == "warp_insts":
        return s("gpu.warp_insts")
    if base == "ipc":
        return s("gpu.warp_insts") / s("gpu.cycles") if s("gpu.cycles") else 0
    if base == "l1d_hit_rate":
        return s("l1d.hits") / s("l1d.accesses") if s("l1d.accesses") else None
    if base == "launches":
        return len(ls)
    if base in ("energy_j", "avg_watts"):
        names = {l["kernel"] for l in ls}
        pw = [p for p in stats.get("power", []) if p["kernel"] in names]
        if not pw:
            return None
        e = sum(p["energy_j"] for p in pw)
        secs = sum(p["seconds"] for p in pw)
        return e if base == "energy_j" else (e / secs if secs else None)
    if base == "l1d_misses_per_kinst":
        return 1000 * s("l1d.misses") / s("gpu.warp_insts") if s("gpu.warp_insts") else 0
    if base == "l2_hit_rate":
        return s("l2.hits") / s("l2.accesses") if s("l2.accesses") else None
    if base == "thread_insts":
        return s("gpu.thread_insts")
    if base == "dram_bytes":
        return s("dram.read_bytes") + s("dram.write_bytes")
    if base == "stall_cycles":
        return s("sm.stall_cycles")
    vals = [l[base] for l in ls if isinstance(l.get(base), (int, float))]
    return sum(vals) if vals else None


def close(a, b, rel=1e-12):
    if a is None or b is None:
        return a is None and b is None
    return a == b or abs(a - b) <= rel * max(abs(a), abs(b))


def recompute_chiplets(stats, run_dir, name):
    """A statistic of a chiplet point (`ptxsim chiplets --stats-json`), from each chiplet's own
    simulator statistics (run/ptxsim.X.Y.json) where they hold it, else from the launcher's file."""
    own = {}
    for c in stats["chiplets"]:
        f = os.path.join(run_dir, "ptxsim.%d.%d.json" % (c["x"], c["y"]))
        own[(c["x"], c["y"])] = json.load(open(f)) if os.path.exists(f) else {}

    def chiplet_field(c, field):
        p = own[(c["x"], c["y"])]
        if field == "gpu_cycles" and p.get("launches") is not None:
            return sum(l.get("gpu.cycles", 0) for l in p["launches"])
        if field in ("energy_j", "power_w", "kernel_seconds") and "power" in p:
            e = sum(k["energy_j"] for k in p["power"])
            secs = sum(k["seconds"] for k in p["power"])
            return {"energy_j": e, "kernel_seconds": secs,
                    "power_w": e / secs if secs > 0 else 0}[field]
        v = c.get(field)
        return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    def path(root, dotted):
        for k in dotted.split("."):
            if not isinstance(root, dict) or k not in root:
                return None
            root = root[k]
        return root if isinstance(root, (int, float)) and not isinstance(root, bool) else None

    chips = stats["chiplets"]
    if "@" in name:
        return None
    if name == "cycles":  # the slowest chiplet's clock (a timing GPU's clock is >= its cycles)
        return max(max(c["clock"], chiplet_field(c, "gpu_cycles") or 0) for c in chips)
    if name == "energy_j":
        return sum(chiplet_field(c, "energy_j") or 0 for c in chips) + \
            stats["network"]["energy_pj"]["total"] * 1e-12
    if name == "avg_watts":
        return sum(chiplet_field(c, "power_w") or 0 for c in chips) + stats["network"]["power_w"]
    if name.startswith("chiplets."):
        vals = [chiplet_field(c, name[9:]) for c in chips]
        vals = [v for v in vals if v is not None]
        return sum(vals) if vals else None
    if name.startswith("chiplet."):
        _, x, y, field = name.split(".", 3)
        c = [c for c in chips if c["x"] == int(x) and c["y"] == int(y)]
        return chiplet_field(c[0], field) if c else None
    if name in stats["totals"]:
        return path(stats["totals"], name)
    return path(stats, name)


class Page(HTMLParser):
    """Collects the points table (data-v per cell), the per-axis and heat-map tables, failed ids."""

    def __init__(self):
        super().__init__()
        self.tables, self.cur, self.row, self.failed, self.tails = [], None, None, [], 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.cur = {"attrs": a, "rows": []}
            self.tables.append(self.cur)
        elif tag == "tr" and self.cur is not None:
            self.row = []
            self.cur["rows"].append(self.row)
        elif tag == "td" and self.row is not None:
            self.row.append(a)
        elif tag == "h3" and a.get("class") == "failed-point":
            self.failed.append(a.get("data-id"))
        elif tag == "pre" and a.get("class") == "tail":
            self.tails += 1

    def handle_endtag(self, tag):
        if tag == "table":
            self.cur, self.row = None, None


def num(v):
    return None if v in (None, "") else float(v)


def render(binary, pages):
    """Opens each (page, rows) in one headless Chromium: problems found, per page."""
    sys.path.insert(0, os.path.join(HERE, "..", "report"))
    import browser_check as bc
    import time
    problems = []
    with tempfile.TemporaryDirectory() as profile:
        b = bc.Browser(binary, profile)
        try:
            for page, rows in pages:
                b.events = []
                b.open(1400)
                b.send("Page.navigate", {"url": "file://" + os.path.abspath(page)})
                facts = None
                for _ in range(600):
                    facts = b.eval("({r: document.body && document.body.dataset.rendered || '',"
                                   " e: document.body && document.body.dataset.errors || ''})")
                    if facts["r"]:
                        break
                    time.sleep(0.05)
                if facts["r"] != "ok":
                    problems.append(f"{page}: page did not render cleanly: {facts}")
                sort = b.eval(r"""(() => {
                  const t = document.getElementById('points-table');
                  const th = Array.from(t.tHead.rows[0].cells).find(c => c.dataset.stat);
                  const col = th.cellIndex;
                  const vals = () => Array.from(t.tBodies[0].rows).map(r => r.cells[col].dataset.v)
                                       .filter(v => v !== '').map(parseFloat);
                  th.click(); const d = vals(); th.click(); const u = vals();
                  return {rows: t.tBodies[0].rows.length,
                          desc: d.every((v, i) => i === 0 || d[i - 1] >= v),
                          asc: u.every((v, i) => i === 0 || u[i - 1] <= v)};
                })()""")
                if sort["rows"] != rows or not sort["desc"] or not sort["asc"]:
                    problems.append(f"{page}: sorting the points table: {sort}")
                time.sleep(0.2)
                b.eval("1")
                problems += [f"{page}: {p}" for p in bc.console_problems(b.events)]
                print(f"browser: {page} rendered, {rows} rows")
        finally:
            b.close()
    return problems


def chromium(name):
    return shutil.which(name) or (name if os.access(name, os.X_OK) else None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?")
    ap.add_argument("--failed", action="append", default=[])
    ap.add_argument("--same-as")
    ap.add_argument("--browser")
    ap.add_argument("--render-later", metavar="LIST")
    ap.add_argument("--render", metavar="LIST")
    a = ap.parse_args()
    if a.render:
        binary = chromium(a.browser or "chromium")
        if not binary:
            print(f"SKIP: {a.browser} not found (scripts/setup.sh installs Debian's chromium)")
            return 77
        pages = []
        for line in open(a.render):
            page, rows = line.rstrip("\n").rsplit("\t", 1)
            pages.append((page, int(rows)))
        problems = render(binary, pages)
        for p in problems:
            print("FAIL:", p)
        print(f"{len(pages)} pages in Chromium: {'ok' if not problems else str(len(problems)) + ' problems'}")
        return 1 if problems or not pages else 0
    if not a.out:
        ap.error("OUT_DIR is needed (or --render LIST)")
    problems = []
    res = json.load(open(os.path.join(a.out, "results.json")))
    names = res["stats"]
    points = res["points"]
    ids = [p["id"] for p in points]
    if len(set(ids)) != len(ids):
        problems.append("duplicate point ids")
    # the grid: product of the axes
    n = 1
    for ax in res["axes"]:
        n *= len(ax["values"])
    if len(points) > n or not points:  # fewer when the spec excludes some
        problems.append(f"{len(points)} points for a grid of {n}")
    failed = []
    for p in points:
        d = os.path.join(a.out, p["dir"])
        if p["status"] == "missing":
            problems.append(f"{p['id']}: not run")
            continue
        r = json.load(open(os.path.join(d, "result.json")))
        if r["status"] != p["status"] or r["exit"] != p["exit"]:
            problems.append(f"{p['id']}: result.json says {r['status']}/{r['exit']}, the table {p['status']}/{p['exit']}")
        if p["status"] == "failed":
            failed.append(p["id"])
            if not p.get("stderr_tail"):
                problems.append(f"{p['id']}: failed without a stderr tail")
            tail = open(os.path.join(d, "stderr.txt")).read().rstrip("\n")
            if not tail.endswith(p["stderr_tail"].split("\n")[-1]):
                problems.append(f"{p['id']}: the stderr tail is not the end of stderr.txt")
            continue
        stats = json.load(open(os.path.join(d, "stats.json")))
        chiplets = "chiplets" in stats and "totals" in stats
        for s in names:
            got = p["stats"][s]
            if chiplets:  # sums in another order than the launcher's: a few ulps apart
                want = recompute_chiplets(stats, os.path.join(d, "run"), s)
                ok = close(want, got, 1e-9)
            else:
                want = recompute(stats, s)
                ok = close(want, got)
            if not ok:
                problems.append(f"{p['id']}: {s} is {got} in results.json, {want} in stats.json")
    if sorted(failed) != sorted(a.failed):
        problems.append(f"failed points {sorted(failed)}, expected {sorted(a.failed)}")

    # CSV: same rows, same numbers
    with open(os.path.join(a.out, "results.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    if [r["point"] for r in rows] != ids:
        problems.append("results.csv lists other points than results.json")
    for r, p in zip(rows, points):
        if r["status"] != p["status"]:
            problems.append(f"{p['id']}: status {r['status']} in the CSV, {p['status']} in the JSON")
        for s in names:
            if not close(num(r[s]), p["stats"][s]):
                problems.append(f"{p['id']}: {s} is {r[s]} in the CSV, {p['stats'][s]} in the JSON")

    # the page
    page = Page()
    page.feed(open(os.path.join(a.out, "report.html"), encoding="utf-8").read())
    pts = next((t for t in page.tables if t["attrs"].get("id") == "points-table"), None)
    if pts is None:
        problems.append("the page has no table of points")
    else:
        body = [r for r in pts["rows"] if r]
        if [r[0].get("data-v") for r in body] != ids:
            problems.append("the page's points table lists other points")
        first = 1 + len(res["axes"]) + 1  # point, coordinates, status
        for r, p in zip(body, points):
            if r[first - 1].get("data-v") != p["status"]:
                problems.append(f"{p['id']}: status {r[first - 1].get('data-v')} on the page")
            for k, s in enumerate(names):
                if not close(num(r[first + k].get("data-v")), p["stats"][s]):
                    problems.append(f"{p['id']}: {s} is {r[first + k].get('data-v')} on the page, {p['stats'][s]} in the JSON")
    # ratios: every ratio cell is the quotient of its value and the baseline's
    by_coords = {tuple(p["coords"][ax["name"]] for ax in res["axes"]): p for p in points}
    axes = [ax["name"] for ax in res["axes"]]
    base = [ax["baseline"] for ax in res["axes"]]
    heat = [t for t in page.tables if t["attrs"].get("class") == "heat"]
    if len(heat) != len(names):
        problems.append(f"{len(heat)} heat maps for {len(names)} statistics")
    progs = res["axes"][0]["values"]
    for t in heat:
        s = t["attrs"]["data-stat"]
        body = [r for r in t["rows"] if r]
        if len(body) != len(progs):
            problems.append(f"heat map {s}: {len(body)} rows for {len(progs)} programs")
        for prog, r in zip(progs, body):
            b = by_coords[(prog,) + tuple(base[1:])]["stats"].get(s)
            for c in r[1:]:
                v = num(c.get("data-value"))
                want = v / b if v is not None and b else None
                if not close(num(c.get("data-v")), want):
                    problems.append(f"heat map {s}, {prog}: ratio {c.get('data-v')}, expected {want}")
    axis_tables = [t for t in page.tables if t["attrs"].get("class") == "axis"]
    if len(axis_tables) != sum(1 for ax in res["axes"][1:] if len(ax["values"]) > 1):
        problems.append(f"{len(axis_tables)} per-axis tables")
    for t in axis_tables:
        ax = axes.index(t["attrs"]["data-axis"])
        vals = res["axes"][ax]["values"]
        others = len(axes) - 1
        bi = vals.index(base[ax])
        body = [r for r in t["rows"] if r]
        for r in body:
            cells = r[others:]
            per_stat = 2 * len(vals) - 1
            if len(cells) != per_stat * len(names):
                problems.append(f"axis table {axes[ax]}: {len(cells)} cells in a row")
                break
            for k in range(len(names)):
                group = cells[k * per_stat:(k + 1) * per_stat]
                values, ratios, j = [], [], 0
                for v in range(len(vals)):
                    values.append(num(group[j].get("data-v")))
                    j += 1
                    if v != bi:
                        ratios.append((v, num(group[j].get("data-v"))))
                        j += 1
                for v, got in ratios:
                    b = values[bi]
                    want = values[v] / b if values[v] is not None and b else None
                    if not close(got, want):
                        problems.append(f"axis table {axes[ax]}, {names[k]}: ratio {got}, expected {want}")
    if sorted(page.failed) != sorted(a.failed) or page.tails != len(a.failed):
        problems.append(f"the page lists failed points {page.failed} ({page.tails} stderr tails)")

    if a.same_as:
        other = json.load(open(os.path.join(a.same_as, "results.json")))
        mine = [(p["id"], p["status"], p["stats"]) for p in points]
        theirs = [(p["id"], p["status"], p["stats"]) for p in other["points"]]
        if mine != theirs:
            problems.append(f"the table differs from {a.same_as}'s")

    if a.render_later:
        listed = open(a.render_later).read().count("\n") if os.path.exists(a.render_later) else 0
        copy = os.path.join(a.out, f"report.check{listed + 1}.html")
        shutil.copyfile(os.path.join(a.out, "report.html"), copy)
        with open(a.render_later, "a") as f:
            f.write(f"{os.path.abspath(copy)}\t{len(points)}\n")
    elif a.browser:
        binary = chromium(a.browser)
        if not binary:
            print(f"SKIP: {a.browser} not found (scripts/setup.sh installs Debian's chromium)")
            return 77
        problems += render(binary, [(os.path.join(a.out, "report.html"), len(points))])

    for p in problems:
        print("FAIL:", p)
    print(f"{a.out}: {len(points)} points, {len(failed)} failed, {len(names)} statistics checked"
          f" against the stats files: {'ok' if not problems else str(len(problems)) + ' problems'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

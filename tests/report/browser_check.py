#!/usr/bin/env python3
"""Opens a `ptxsim report` page in headless Chromium and checks what a reader would see.

usage: browser_check.py PAGE.html --kernels N[,N...] [--charts N] [--no-charts]
                        [--screenshot OUT.png] [--max-bytes N] [--chromium PATH]

Checks: the page renders (<body data-rendered="ok">), nothing at all reaches the browser console
(errors, warnings, logs) and the page caught no script error; each kernel table (one per run, in
file order) has as many kernel rows as the run has kernels; --charts N: exactly N charts drew
(uPlot roots with a canvas); --no-charts: no chart drew and the page says charts are unavailable;
--screenshot: Chromium writes a PNG of the page. It prints the render time the page measured
(informational: the machine is loaded, so no time is checked). Exit 0 on success, 1 on a failed
check, 77 (skipped) when Chromium or, for --charts, the chart library is not installed.
"""
import argparse
import html.parser
import os
import shutil
import subprocess
import sys
import tempfile

UPLOT_VERSION = "1.6.32"


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.body = {}
        self.tables = []      # kernel rows per table.kernels, in page order
        self.uplots = 0       # div.uplot roots
        self.canvases = 0
        self.missing = False  # the "charts are unavailable" notice
        self.chart_notes = 0  # .chart elements that say "Chart unavailable"
        self._in_kernels = 0
        self._in_chart = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "body":
            self.body = a
        if tag == "table" and "kernels" in cls:
            self.tables.append(0)
            self._in_kernels = 1
        if tag == "tr" and "kernel" in cls and self._in_kernels:
            self.tables[-1] += 1
        if tag == "div" and "uplot" in cls:
            self.uplots += 1
        if tag == "canvas":
            self.canvases += 1
        if a.get("id") == "charts-missing":
            self.missing = True
        if tag == "div" and "chart" in cls and "charts-missing" in cls:
            self.chart_notes += 1

    def handle_endtag(self, tag):
        if tag == "table":
            self._in_kernels = 0


def chromium_cmd(binary, profile):
    return [binary, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--no-first-run", "--disable-extensions", "--user-data-dir=" + profile,
            "--enable-logging=stderr", "--v=0", "--virtual-time-budget=20000"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--kernels", required=True)
    ap.add_argument("--charts", type=int)
    ap.add_argument("--no-charts", action="store_true")
    ap.add_argument("--screenshot")
    ap.add_argument("--max-bytes", type=int)
    ap.add_argument("--chromium", default="chromium")
    a = ap.parse_args()
    binary = shutil.which(a.chromium) or (a.chromium if os.access(a.chromium, os.X_OK) else None)
    if not binary:
        print(f"SKIP: {a.chromium} not found (scripts/setup.sh installs Debian's chromium)")
        return 77
    if a.charts:
        d = os.environ.get("PTXSIM_UPLOT_DIR") or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "ptxsim",
            "uplot-" + UPLOT_VERSION)
        if not os.path.isfile(os.path.join(d, "uPlot.iife.min.js")):
            print(f"SKIP: uPlot {UPLOT_VERSION} is not installed in {d} (run scripts/setup.sh)")
            return 77
    failures = []
    size = os.path.getsize(a.page)
    print(f"page: {a.page}, {size} bytes")
    if a.max_bytes and size > a.max_bytes:
        failures.append(f"page is {size} bytes, more than {a.max_bytes}")
    url = "file://" + os.path.abspath(a.page)
    with tempfile.TemporaryDirectory() as profile:
        p = subprocess.run(chromium_cmd(binary, profile) + ["--dump-dom", url],
                           capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        failures.append(f"chromium --dump-dom exited with {p.returncode}: {p.stderr[-2000:]}")
    console = [l for l in p.stderr.splitlines() if ":CONSOLE" in l]
    for l in console:
        failures.append("browser console: " + l)
    dom = Dom()
    dom.feed(p.stdout)
    body = dom.body
    print(f"render: {body.get('data-render-ms', '?')} ms after navigation start (page's own "
          f"measure), charts drawn: {body.get('data-charts', '?')}")
    if body.get("data-rendered") != "ok":
        failures.append(f"page did not finish rendering: body is {body}")
    if body.get("data-errors"):
        failures.append("script errors: " + body["data-errors"])
    want = [int(x) for x in a.kernels.split(",")]
    if dom.tables != want:
        failures.append(f"kernel rows per table: {dom.tables}, expected {want}")
    if a.charts is not None:
        if dom.uplots != a.charts or dom.canvases < a.charts:
            failures.append(f"{dom.uplots} charts ({dom.canvases} canvases), expected {a.charts}")
        if dom.missing:
            failures.append("the page says charts are unavailable")
    if a.no_charts:
        if dom.uplots:
            failures.append(f"{dom.uplots} charts drew without the chart library")
        if not dom.missing or dom.chart_notes == 0:
            failures.append("the page does not say that charts are unavailable")
    if a.screenshot:
        if os.path.exists(a.screenshot):
            os.unlink(a.screenshot)
        with tempfile.TemporaryDirectory() as profile:
            q = subprocess.run(chromium_cmd(binary, profile) +
                               ["--window-size=1400,2800", "--screenshot=" + a.screenshot, url],
                               capture_output=True, text=True, timeout=300)
        ok = os.path.exists(a.screenshot)
        if ok:
            with open(a.screenshot, "rb") as f:
                ok = f.read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(a.screenshot) > 20000
        if not ok:
            failures.append(f"no screenshot written ({q.returncode}): {q.stderr[-2000:]}")
        else:
            print(f"screenshot: {a.screenshot}")
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("PASS browser check")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

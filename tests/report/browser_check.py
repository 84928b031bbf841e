#!/usr/bin/env python3
"""Opens a `ptxsim report` page in headless Chromium and checks what a reader sees and does.

usage: browser_check.py PAGE.html --kernels N[,N...] [--charts N | --no-charts]
                        [--screenshot OUT.png] [--max-bytes N] [--chromium PATH]

Drives Chromium over the DevTools protocol (--remote-debugging-pipe, no network port) and checks:
- the page renders (<body data-rendered="ok">) with nothing on the console (any console call,
  uncaught exception or browser log entry of level warning or error fails) and no script error;
- each kernel table (one per run, in file order) has one row per kernel (--kernels);
- --charts N: exactly N charts drew (uPlot roots with a canvas); --no-charts: none drew and the
  page says that charts are unavailable;
- in the first kernel table: clicking the kernel with the most launches lists them (200 at a
  time, "show" adds the next 200), clicking again collapses them, clicking the cycles (or
  launches) header sorts the rows descending, again ascending;
- --screenshot: a PNG of the whole page (first kernel expanded).
It prints the render time the page measured and the size (informational: the machine is loaded,
so no time is checked). Exit 0 on success, 1 on a failed check, 77 (skipped) when Chromium or,
for --charts, the chart library is not installed.
"""
import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

UPLOT_VERSION = "1.6.32"


class Browser:
    """Headless Chromium on a DevTools pipe (fd 3: commands in, fd 4: replies out)."""

    def __init__(self, binary, profile):
        r0, self._w = os.pipe()
        self._r, w1 = os.pipe()

        def wire():
            a, b = os.dup(r0), os.dup(w1)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--no-first-run", "--disable-extensions", "--remote-debugging-pipe",
             "--user-data-dir=" + profile, "about:blank"],
            preexec_fn=wire, close_fds=False, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(r0)
        os.close(w1)
        self._buf = b""
        self._id = 0
        self.events = []
        self.session = None

    def send(self, method, params=None, session=True):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        while True:
            while b"\0" in self._buf:
                raw, self._buf = self._buf.split(b"\0", 1)
                m = json.loads(raw)
                if m.get("id") == self._id:
                    if "error" in m:
                        raise RuntimeError(f"{method}: {m['error']}")
                    return m.get("result", {})
                self.events.append(m)
            chunk = os.read(self._r, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buf += chunk

    def open(self, width):
        t = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": t["targetId"], "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            self.send(domain + ".enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": 1000, "deviceScaleFactor": 1, "mobile": False})

    def eval(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError(f"evaluating the check failed: {r['exceptionDetails']}")
        return r["result"].get("value")

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


DOM_FACTS = r"""(() => {
  const b = document.body, q = s => document.querySelectorAll(s);
  return {
    rendered: b.dataset.rendered || '', errors: b.dataset.errors || '',
    renderMs: b.dataset.renderMs || '', charts: b.dataset.charts || '',
    tables: Array.from(q('table.kernels')).map(t => t.querySelectorAll('tbody tr.kernel').length),
    uplots: q('div.uplot').length, canvases: q('div.uplot canvas').length,
    missing: !!document.getElementById('charts-missing'),
    chartNotes: q('.chart.charts-missing').length
  };
})()"""

INTERACT = r"""(() => {
  const out = {};
  const D = JSON.parse(document.getElementById('ptxsim-data').textContent);
  const table = document.querySelector('table.kernels');
  const run = D.runs[+table.dataset.run];
  const launchRows = () => table.querySelectorAll('tbody tr.launch').length;
  let best = null, most = -1;
  table.querySelectorAll('tbody tr.kernel').forEach(tr => {
    const n = run.timing ? run.kernels[+tr.dataset.k].launches.length : 0;
    if (n > most) { most = n; best = tr; }
  });
  out.launches = most;
  best.click();
  out.shown = launchRows();
  const more = table.querySelector('button.more');
  out.more = !!more;
  if (more) { more.click(); out.shownAfterMore = launchRows(); }
  best.click();
  out.afterCollapse = launchRows();
  const th = Array.from(table.tHead.rows[0].cells).find(c => c.textContent === 'cycles') ||
             Array.from(table.tHead.rows[0].cells).find(c => c.textContent === 'launches');
  const col = th.cellIndex;
  const values = () => Array.from(table.tBodies[0].rows).map(r => parseFloat(r.cells[col].dataset.v));
  th.click();
  const d = values();
  out.sortedDesc = d.every((v, i) => i === 0 || d[i - 1] >= v);
  th.click();
  const a = values();
  out.sortedAsc = a.every((v, i) => i === 0 || a[i - 1] <= v);
  out.sortColumn = th.textContent;
  best.click(); // expanded in the screenshot
  return out;
})()"""


def console_problems(events):
    out = []
    for e in events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.consoleAPICalled":
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            out.append(f"console.{p.get('type')}: {args}")
        elif m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            out.append("uncaught exception: " +
                       str(d.get("exception", {}).get("description", d.get("text"))))
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") in ("warning", "error"):
            en = p["entry"]
            out.append(f"browser log ({en.get('level')}, {en.get('source')}): {en.get('text')}")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--kernels", required=True)
    ap.add_argument("--charts", type=int)
    ap.add_argument("--no-charts", action="store_true")
    ap.add_argument("--screenshot")
    ap.add_argument("--max-bytes", type=int)
    ap.add_argument("--chromium", default="chromium")
    ap.add_argument("--width", type=int, default=1400)
    ap.add_argument("--shot-height", type=int, default=8000, help="crop the screenshot (px)")
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
    with tempfile.TemporaryDirectory() as profile:
        b = Browser(binary, profile)
        try:
            b.open(a.width)
            start = time.monotonic()
            b.send("Page.navigate", {"url": "file://" + os.path.abspath(a.page)})
            # a guard against a hang, not a time check
            while not b.eval("document.body ? (document.body.dataset.rendered || "
                             "document.body.dataset.errors || '') : ''"):
                if time.monotonic() - start > 240:
                    failures.append("the page did not finish rendering in 240 s")
                    break
                time.sleep(0.05)
            facts = b.eval(DOM_FACTS)
            print(f"render: {facts['renderMs']} ms after navigation start (page's own measure); "
                  f"{time.monotonic() - start:.2f} s until this check saw it; "
                  f"charts drawn: {facts['charts']}")
            if facts["rendered"] != "ok":
                failures.append(f"page rendered with errors: {facts}")
            if facts["errors"]:
                failures.append("script errors: " + facts["errors"])
            want = [int(x) for x in a.kernels.split(",")]
            if facts["tables"] != want:
                failures.append(f"kernel rows per table: {facts['tables']}, expected {want}")
            if a.charts is not None:
                if facts["uplots"] != a.charts or facts["canvases"] < a.charts:
                    failures.append(f"{facts['uplots']} charts ({facts['canvases']} canvases), "
                                    f"expected {a.charts}")
                if facts["missing"]:
                    failures.append("the page says charts are unavailable")
            if a.no_charts:
                if facts["uplots"]:
                    failures.append(f"{facts['uplots']} charts drew without the chart library")
                if not facts["missing"] or facts["chartNotes"] == 0:
                    failures.append("the page does not say that charts are unavailable")
            if facts["tables"] and facts["rendered"]:
                r = b.eval(INTERACT)
                print(f"interaction: {r}")
                n = r["launches"]
                if n > 0:
                    if r["shown"] != min(200, n):
                        failures.append(f"expanding a kernel of {n} launches showed {r['shown']} rows")
                    if r["more"] != (n > 200):
                        failures.append(f"'show more' button present: {r['more']}, launches {n}")
                    if n > 200 and r.get("shownAfterMore") != min(400, n):
                        failures.append(f"'show more' gave {r.get('shownAfterMore')} rows")
                if r["afterCollapse"] != 0:
                    failures.append(f"{r['afterCollapse']} launch rows left after collapsing")
                if not r["sortedDesc"] or not r["sortedAsc"]:
                    failures.append(f"sorting by {r['sortColumn']} failed: {r}")
            if a.screenshot:
                h = b.send("Page.getLayoutMetrics")["cssContentSize"]["height"]
                shot = b.send("Page.captureScreenshot", {
                    "format": "png", "captureBeyondViewport": True,
                    "clip": {"x": 0, "y": 0, "width": a.width, "height": min(h, a.shot_height), "scale": 1}})
                png = base64.b64decode(shot["data"])
                with open(a.screenshot, "wb") as f:
                    f.write(png)
                if png[:8] != b"\x89PNG\r\n\x1a\n" or len(png) < 20000:
                    failures.append(f"screenshot is not a page image ({len(png)} bytes)")
                else:
                    print(f"screenshot: {a.screenshot} ({len(png)} bytes)")
            failures += ["browser console: " + c for c in console_problems(b.events)]
        except (RuntimeError, OSError, KeyError, TypeError) as e:
            failures.append(f"driving chromium failed: {e}")
        finally:
            b.close()
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("PASS browser check")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

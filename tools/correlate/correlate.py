#!/usr/bin/env python3
"""Correlates ptxsim's per-kernel cycles with Nsight Compute measurements of the same programs.

Reads hardware cycles (an ncu --csv file with `### PROGRAM` blocks, as in
../shared/hw/h100/ncu_project_programs.csv, or the compact CSV `--extract` writes), builds each
program the way it was measured (nvcc -cudart shared -O2 -arch=sm_90), runs it under
`ptxsim run --config <preset> --stats-json`, matches launch i of the program under ncu with
launch i under ptxsim, and prints per-kernel error, MAPE, the correlation of log cycles, and a
scatter plot (PNG). With --max-mape it fails (exit 1) when MAPE exceeds the given figure.

Usage (from the repository root, after building ptxsim and libcudart):
  python3 tools/correlate/correlate.py --data tools/correlate/data/h100_ncu_cycles.csv \
      --config configs/h100.config --plot build/correlate/h100.png
  python3 tools/correlate/correlate.py --ncu ../shared/hw/h100/ncu_project_programs.csv \
      --extract tools/correlate/data/h100_ncu_cycles.csv     # refresh the compact data

Program names: train__NN_name is tests/kernels/NN_name.cu, sample__name is
samples/name/name.cu. Binaries are cached in --work (rebuilt when the source or
tests/kernels/test_common.h / samples/common/sample.h is newer).
"""

import argparse
import csv
import io
import json
import math
import os
import re
import struct
import subprocess
import sys
import time
import zlib
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CYCLE_METRIC = "gpc__cycles_elapsed.max"
CLASSES = os.path.join(ROOT, "tools", "correlate", "classes.txt")
# issue 31's bar: no kernel class (per-class MAPE) above this, and the single kernels above it listed
CLASS_LIMIT_PCT = 25.0


# --- hardware data --------------------------------------------------------------------------

def read_ncu(path):
    """{program: [(launch_id, kernel, cycles)]} from an ncu --csv file with ### blocks."""
    blocks, prog, header = {}, None, None
    with open(path, newline="") as f:
        for line in f:
            if line.startswith("### "):
                prog = line[4:].strip()
                continue
            if line.startswith('"ID"'):
                header = line
                continue
            if prog and header and line.startswith('"'):
                blocks.setdefault(prog, []).append(line)
    out = {}
    for prog, lines in blocks.items():
        per = {}
        for r in csv.DictReader(io.StringIO(header + "".join(lines))):
            if r["Metric Name"] == CYCLE_METRIC:
                per[int(r["ID"])] = (r["Kernel Name"], float(r["Metric Value"].replace(",", "")))
        out[prog] = [(i, k, c) for i, (k, c) in sorted(per.items())]
    return out


def read_compact(path):
    out = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(row for row in f if not row.startswith("#")):
            out.setdefault(r["program"], []).append((int(r["launch"]), r["kernel"], float(r["hw_cycles"])))
    for v in out.values():
        v.sort()
    return out


def write_compact(data, path, source):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", newline="") as f:
        f.write("# %s per kernel launch, extracted by tools/correlate/correlate.py --extract from\n" % CYCLE_METRIC)
        f.write("# %s\n" % os.path.basename(source))
        w = csv.writer(f)
        w.writerow(["program", "launch", "kernel", "hw_cycles"])
        for prog in sorted(data):
            for i, k, c in data[prog]:
                w.writerow([prog, i, k, int(c)])


# --- building and running -------------------------------------------------------------------

def source_of(prog):
    if prog.startswith("train__"):
        return os.path.join(ROOT, "tests", "kernels", prog[len("train__"):] + ".cu"), \
            os.path.join(ROOT, "tests", "kernels", "test_common.h")
    if prog.startswith("kern__"):
        return os.path.join(ROOT, "tools", "correlate", "kernels", prog[len("kern__"):] + ".cu"), ""
    if prog.startswith("sample__"):
        n = prog[len("sample__"):]
        return os.path.join(ROOT, "samples", n, n + ".cu"), os.path.join(ROOT, "samples", "common", "sample.h")
    return None, None


def build(prog, work, nvcc):
    src, hdr = source_of(prog)
    if not src or not os.path.exists(src):
        return None, "no source for %s" % prog
    exe = os.path.join(work, "bin", prog)
    newest = max(os.path.getmtime(src), os.path.getmtime(hdr) if hdr and os.path.exists(hdr) else 0)
    if os.path.exists(exe) and os.path.getmtime(exe) >= newest:
        return exe, None
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    cmd = [nvcc, "-cudart", "shared", "-O2", "-arch=sm_90", "-o", exe, src]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        return None, "nvcc failed for %s:\n%s" % (prog, p.stderr[-2000:])
    return exe, None


# Programs that take their launch count from the environment: they run only the launches the
# hardware data has (the stencil sample's first 20 of 500 Jacobi steps were profiled; later
# launches cannot change the cycles of earlier ones, and the program checks its result against
# the host for any count).
LAUNCH_COUNT_ENV = {"sample__stencil": "STENCIL_ITERATIONS"}


def run(prog, exe, ptxsim, config, work, timeout, extra, launches=None):
    stats = os.path.join(work, "stats", prog + ".json")
    os.makedirs(os.path.dirname(stats), exist_ok=True)
    cmd = [ptxsim, "run", "--no-summary", "--sample", "off", "--config", config, "--stats-json", stats] + extra + ["--", exe]
    env = dict(os.environ)
    if launches and prog in LAUNCH_COUNT_ENV:
        env[LAUNCH_COUNT_ENV[prog]] = str(launches)
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           cwd=os.path.dirname(exe), env=env)
    except subprocess.TimeoutExpired:
        return None, "timed out after %ds" % timeout
    if p.returncode:
        return None, "exit %d: %s" % (p.returncode, (p.stdout + p.stderr)[-600:])
    with open(stats) as f:
        js = json.load(f)
    cyc = [(l.get("kernel", ""), float(l["gpu.cycles"])) for l in js.get("launches", [])]
    return (cyc, time.time() - t0), None


# --- kernel classes ---------------------------------------------------------------------------

def read_classes(path):
    """[(class, program regex, kernel regex or None)] from a classes file (classes.txt: one rule a
    line, `CLASS PROGRAM_REGEX [KERNEL_REGEX]`, '#' comments); ValueError naming file:line for a
    malformed line or a bad regex."""
    rules = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) not in (2, 3):
                raise ValueError("%s:%d: expected CLASS PROGRAM_REGEX [KERNEL_REGEX], got %d fields"
                                 % (path, n, len(parts)))
            try:
                prog = re.compile(parts[1])
                kern = re.compile(parts[2]) if len(parts) == 3 else None
            except re.error as e:
                raise ValueError("%s:%d: bad regex: %s" % (path, n, e))
            rules.append((parts[0], prog, kern))
    if not rules:
        raise ValueError("%s: no class rules" % path)
    return rules


def class_of(rules, program, kernel):
    """The class of the first rule matching the program and kernel names; None when none does."""
    for cls, prog, kern in rules:
        if prog.search(program) and (kern is None or kern.search(kernel)):
            return cls
    return None


def class_figures(rows, rules):
    """Per class of `rows` (dicts with program, launch, kernel, err_pct): its kernels, MAPE and
    worst kernel (largest |err|), in class-rule order; launches no rule matches form the class
    'unclassified'."""
    order = []
    groups = {}
    for r in rows:
        cls = class_of(rules, r["program"], r["kernel"]) or "unclassified"
        if cls not in groups:
            groups[cls] = []
            order.append(cls)
        groups[cls].append(r)
    rank = {cls: i for i, (cls, _, _) in reversed(list(enumerate(rules)))}
    order.sort(key=lambda c: rank.get(c, len(rules)))
    out = []
    for cls in order:
        g = groups[cls]
        worst = max(g, key=lambda r: abs(r["err_pct"]))
        out.append({"class": cls, "n": len(g), "mape": sum(abs(r["err_pct"]) for r in g) / len(g),
                    "worst": {k: worst[k] for k in ("program", "launch", "kernel", "err_pct")}})
    return out


def print_classes(figs, rows, limit=CLASS_LIMIT_PCT):
    print("\n%-17s %7s %7s  %-28s %-30s %8s" % ("class", "kernels", "MAPE", "worst: program", "kernel", "err%"))
    for c in figs:
        w = c["worst"]
        print("%-17s %7d %6.1f%%  %-28s %-30.30s %+8.1f" % (c["class"], c["n"], c["mape"], w["program"],
                                                            w["kernel"], w["err_pct"]))
    over = [c["class"] for c in figs if c["mape"] > limit]
    print("classes above %g %% (per-class MAPE): %s" % (limit, ", ".join(over) if over else "none"))
    big = sorted((r for r in rows if abs(r["err_pct"]) > limit), key=lambda r: -abs(r["err_pct"]))
    print("kernels above %g %%: %s" % (limit, "none" if not big else "%d: %s" % (len(big), "; ".join(
        "%s %d %s %+.1f" % (r["program"], r["launch"], r["kernel"], r["err_pct"]) for r in big))))
    return over, big


# --- statistics and plot ----------------------------------------------------------------------

def pearson(x, y):
    n = len(x)
    if n < 2:
        return float("nan")
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def summarize(pairs):
    if not pairs:
        return {"n": 0}
    errs = [abs(s - h) / h for h, s in pairs]
    big = [abs(s - h) / h for h, s in pairs if h >= 20000]
    return {
        "n": len(pairs),
        "mape": 100 * sum(errs) / len(errs),
        "log_corr": pearson([math.log(h) for h, _ in pairs], [math.log(s) for _, s in pairs]),
        "n_big": len(big),
        "mape_big": 100 * sum(big) / len(big) if big else float("nan"),
        "median_ratio": sorted(s / h for h, s in pairs)[len(pairs) // 2],
    }


def write_png(path, pairs, title=""):
    """Scatter of (hardware, simulated) cycles on log-log axes; matplotlib when present, else a
    small PNG drawn here (points, axes, the y = x diagonal, decade ticks)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 6))
        hx, sy = [h for h, _ in pairs], [s for _, s in pairs]
        lo, hi = min(hx + sy) / 1.5, max(hx + sy) * 1.5
        ax.loglog(hx, sy, "o", ms=4, alpha=0.7)
        ax.plot([lo, hi], [lo, hi], "k--", lw=1)
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_xlabel("hardware cycles (ncu gpc__cycles_elapsed.max)")
        ax.set_ylabel("ptxsim cycles")
        ax.set_title(title)
        fig.savefig(path, dpi=100)
        return "matplotlib"
    except ImportError:
        pass
    size, margin = 480, 40
    img = [[(255, 255, 255)] * size for _ in range(size)]
    vals = [v for p in pairs for v in p]
    lo, hi = math.log10(min(vals) / 1.5), math.log10(max(vals) * 1.5)

    def pos(v):
        return margin + int((math.log10(v) - lo) / (hi - lo) * (size - 2 * margin))

    def put(x, y, c):
        if 0 <= x < size and 0 <= y < size:
            img[size - 1 - y][x] = c
    for t in range(margin, size - margin):  # axes and diagonal
        put(t, margin, (0, 0, 0))
        put(margin, t, (0, 0, 0))
        put(t, t, (160, 160, 160))
    for d in range(int(math.ceil(lo)), int(math.floor(hi)) + 1):  # decade ticks
        p = pos(10 ** d)
        for k in range(6):
            put(p, margin - k, (0, 0, 0))
            put(margin - k, p, (0, 0, 0))
    for h, s in pairs:
        x, y = pos(h), pos(s)
        for dx in range(-2, 3):
            for dy in range(-2, 3):
                if dx * dx + dy * dy <= 5:
                    put(x + dx, y + dy, (200, 30, 30))
    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in img)

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xffffffff)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)) + \
        chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)
    return "built-in writer (matplotlib not installed; log-log axes, decade ticks, grey y = x)"


# --- main -------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--ncu", help="ncu --csv file with ### PROGRAM blocks")
    src.add_argument("--data", help="compact CSV (program,launch,kernel,hw_cycles)")
    src.add_argument("--from-json", nargs="+", metavar="JSON",
                     help="print the figures and the class table of the kernels in earlier --json "
                          "files (e.g. the subset's and the kern__ rows' together) instead of running")
    ap.add_argument("--extract", help="write the compact CSV of --ncu here and stop")
    ap.add_argument("--config", default=os.path.join(ROOT, "configs", "h100.config"))
    ap.add_argument("--warm", action="store_true",
                    help="keep caches warm between kernels (default: configs/cold_caches.config on "
                         "top of --config, as ncu flushes caches before each kernel it profiles)")
    ap.add_argument("--ptxsim", default=os.path.join(ROOT, "build", "bin", "ptxsim"))
    ap.add_argument("--nvcc", default=os.environ.get("NVCC", "nvcc"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "correlate"))
    ap.add_argument("--programs", default="", help="regex: only programs whose name matches")
    ap.add_argument("--exclude", default="", help="regex: skip programs whose name matches")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=600, help="seconds per program under ptxsim")
    ap.add_argument("--plot", help="write the scatter plot (PNG) here")
    ap.add_argument("--json", help="write per-kernel results, the summary and the class figures here")
    ap.add_argument("--classes", default=CLASSES,
                    help="kernel classes for the per-class figures (default tools/correlate/classes.txt)")
    ap.add_argument("--max-mape", type=float, help="fail when MAPE is above this (percent)")
    ap.add_argument("--min-log-corr", type=float, help="fail when log-correlation is below this")
    ap.add_argument("--ptxsim-arg", action="append", default=[], help="extra argument to ptxsim run")
    ap.add_argument("--baseline", help="JSON with the last recorded figures ({\"programs\": regex, "
                                       "\"mape\": %%, \"log_corr\": r}): runs those programs and "
                                       "fails when MAPE is worse or log-correlation lower")
    ap.add_argument("--record", action="store_true", help="with --baseline: write today's figures into it")
    ap.add_argument("--build-only", action="store_true",
                    help="build (or find up to date in --work) the programs and stop: the build "
                         "does this, so that the ctest run only simulates")
    a = ap.parse_args()
    baseline = None
    if a.baseline:
        with open(a.baseline) as f:
            baseline = json.load(f)
        if not a.programs:
            a.programs = baseline.get("programs", "")
        if not a.record:
            if a.max_mape is None:
                a.max_mape = baseline["mape"] + 0.05  # rounding of the recorded figure
            if a.min_log_corr is None:
                a.min_log_corr = baseline["log_corr"] - 0.0005

    try:
        rules = read_classes(a.classes)
    except (OSError, ValueError) as e:
        print("correlate: %s" % e, file=sys.stderr)
        return 2
    if a.from_json:
        rows = []
        for path in a.from_json:
            with open(path) as f:
                rows += json.load(f)["kernels"]
        s = summarize([(r["hw"], r["sim"]) for r in rows])
        if s["n"]:
            print("kernels %d  MAPE %.1f%%  log-correlation %.3f  median sim/hw %.2f" %
                  (s["n"], s["mape"], s["log_corr"], s["median_ratio"]))
            print("kernels >= 20,000 hw cycles: %d  MAPE %.1f%%" % (s["n_big"], s["mape_big"]))
            print_classes(class_figures(rows, rules), rows)
        return 0
    data = read_ncu(a.ncu) if a.ncu else read_compact(a.data)
    if a.extract:
        write_compact(data, a.extract, a.ncu or a.data)
        print("wrote %s: %d programs, %d launches" % (a.extract, len(data), sum(map(len, data.values()))))
        return 0
    progs = sorted(p for p in data if (not a.programs or re.search(a.programs, p))
                   and not (a.exclude and re.search(a.exclude, p)))
    if a.build_only:
        with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
            errors = [err for _, err in ex.map(lambda p: build(p, a.work, a.nvcc), progs) if err]
        for err in errors:
            print(err, file=sys.stderr)
        print("correlate: %d programs built or up to date in %s" % (len(progs) - len(errors),
                                                                   os.path.join(a.work, "bin")))
        return 1 if errors else 0
    if not os.path.exists(a.ptxsim):
        print("correlate: %s not found (build the ptxsim target)" % a.ptxsim, file=sys.stderr)
        return 2
    config = os.path.abspath(a.config)

    extra = list(a.ptxsim_arg)
    if not a.warm:
        extra = ["--config", os.path.join(ROOT, "configs", "cold_caches.config")] + extra

    def one(prog):
        exe, err = build(prog, a.work, a.nvcc)
        if err:
            return prog, None, err
        res, err = run(prog, exe, a.ptxsim, config, a.work, a.timeout, extra, len(data[prog]))
        return prog, res, err

    rows, pairs, failures = [], [], []
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        for prog, res, err in ex.map(one, progs):
            if err:
                failures.append((prog, err))
                print("%-28s FAILED: %s" % (prog, err.strip().splitlines()[-1] if err.strip() else err))
                continue
            sim, secs = res
            hw = data[prog]
            if len(sim) != len(hw):
                print("%-28s note: %d launches under ncu, %d under ptxsim (matching the first %d)"
                      % (prog, len(hw), len(sim), min(len(sim), len(hw))))
            for (i, kernel, h), (_, s) in zip(hw, sim):
                rows.append({"program": prog, "launch": i, "kernel": kernel, "hw": h, "sim": s,
                             "err_pct": 100 * (s - h) / h})
                pairs.append((h, s))
            print("%-28s %2d launches, %.1f s under ptxsim" % (prog, min(len(sim), len(hw)), secs))

    print("\n%-28s %3s  %-34s %10s %10s %8s" % ("program", "id", "kernel", "hw", "ptxsim", "err%"))
    for r in rows:
        print("%-28s %3d  %-34.34s %10.0f %10.0f %+8.1f" % (r["program"], r["launch"], r["kernel"],
                                                          r["hw"], r["sim"], r["err_pct"]))
    s = summarize(pairs)
    print("\nconfig %s" % os.path.relpath(config, ROOT))
    if s["n"]:
        print("kernels %d  MAPE %.1f%%  log-correlation %.3f  median sim/hw %.2f" %
              (s["n"], s["mape"], s["log_corr"], s["median_ratio"]))
        print("kernels >= 20,000 hw cycles: %d  MAPE %.1f%%" % (s["n_big"], s["mape_big"]))
    figs = class_figures(rows, rules)
    over, big = print_classes(figs, rows) if rows else ([], [])
    if failures:
        print("%d programs failed: %s" % (len(failures), ", ".join(p for p, _ in failures)))
    if a.plot and pairs:
        os.makedirs(os.path.dirname(os.path.abspath(a.plot)), exist_ok=True)
        how = write_png(a.plot, pairs, "ptxsim %s vs H100" % os.path.basename(config))
        print("plot: %s (%s)" % (a.plot, how))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"summary": s, "classes": figs,
                       "over_limit": {"limit_pct": CLASS_LIMIT_PCT, "classes": over,
                                      "kernels": [{k: r[k] for k in ("program", "launch", "kernel", "err_pct")}
                                                  for r in big]},
                       "kernels": rows, "failures": failures}, f, indent=1)
    if baseline is not None and a.record and s["n"]:
        baseline.update({"mape": round(s["mape"], 2), "log_corr": round(s["log_corr"], 4),
                         "kernels": s["n"], "mape_big": round(s["mape_big"], 2) if s["n_big"] else None,
                         "config": os.path.relpath(config, ROOT)})
        with open(a.baseline, "w") as f:
            json.dump(baseline, f, indent=1)
            f.write("\n")
        print("recorded in %s" % a.baseline)
    rc = 0
    if failures:
        rc = 1
    if a.max_mape is not None and (not s["n"] or s["mape"] > a.max_mape):
        print("FAIL: MAPE %.2f%% is above the recorded %.2f%%" % (s.get("mape", float("nan")), a.max_mape))
        rc = 1
    if a.min_log_corr is not None and (not s["n"] or not s["log_corr"] >= a.min_log_corr):
        print("FAIL: log-correlation %.3f is below the recorded %.3f" % (s.get("log_corr", float("nan")), a.min_log_corr))
        rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())

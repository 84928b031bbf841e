#!/usr/bin/env python3
"""Plot ptxsim power results from a stats JSON file (`ptxsim run --power --stats-json FILE`).

The file's "power" array holds one object per kernel launch (power::kernelPowerJson):
  {"kernel", "seconds", "energy_j", "avg_w", "peak_w",
   "components": [{"name", "dynamic_j", "static_j"}, ...], "trace": [[t_s, watts], ...]}

With matplotlib: a stacked bar of average power per component for each kernel, and the power
trace over simulated time (kernels laid end to end), saved to --out (default power.png).
Without matplotlib (or with --ascii): the same as text charts on stdout.

usage: plot_power.py STATS.json [--out power.png] [--ascii] [--width 60]
"""
import argparse
import json
import sys


def load(path):
    with open(path) as f:
        d = json.load(f)
    runs = d.get("power", d if isinstance(d, list) else [])
    if isinstance(runs, dict):
        runs = [runs]
    if not runs:
        sys.exit(f"{path}: no \"power\" array (run with --power)")
    return runs


def component_watts(k):
    s = k.get("seconds") or 0
    return [(c["name"], (c["dynamic_j"] + c["static_j"]) / s if s > 0 else 0.0)
            for c in k["components"]]


def joined_trace(runs):
    """All kernels' traces on one time axis (each kernel starts where the previous ended)."""
    pts, t0 = [], 0.0
    for k in runs:
        for t, w in k.get("trace", []):
            pts.append((t0 + t, w))
        t0 += k.get("seconds", 0.0)
    return pts


def ascii_report(runs, width):
    symbols = "#=*+o%@x~-:.ABCDEFGHIJ"
    names = [c["name"] for c in runs[0]["components"]]
    print("average power per component (W)")
    top = max(k["avg_w"] for k in runs) or 1.0
    for k in runs:
        bar = ""
        for i, (_, w) in enumerate(component_watts(k)):
            bar += symbols[i % len(symbols)] * int(round(w / top * width))
        label = k["kernel"][:28]
        print(f"  {label:<28} {bar} {k['avg_w']:.1f} W (peak {k['peak_w']:.1f})")
    print("  legend: " + "  ".join(f"{symbols[i % len(symbols)]}={n}" for i, n in enumerate(names)))
    pts = joined_trace(runs)
    if not pts:
        return
    print("\npower trace (W over simulated time)")
    peak = max(w for _, w in pts) or 1.0
    step = max(1, len(pts) // 40)
    for t, w in pts[::step]:
        print(f"  {t * 1e6:12.2f} us |{'#' * int(round(w / peak * width))} {w:.1f}")


def plot(runs, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5))
    names = [c["name"] for c in runs[0]["components"]]
    labels = [k["kernel"][:20] for k in runs]
    bottoms = [0.0] * len(runs)
    cmap = plt.get_cmap("tab20")
    for i, n in enumerate(names):
        vals = []
        for k in runs:
            w = dict(component_watts(k)).get(n, 0.0)
            vals.append(w)
        ax1.bar(range(len(runs)), vals, bottom=bottoms, label=n, color=cmap(i % 20))
        bottoms = [b + v for b, v in zip(bottoms, vals)]
    ax1.set_xticks(range(len(runs)))
    ax1.set_xticklabels(labels, rotation=30, ha="right")
    ax1.set_ylabel("average power (W)")
    ax1.set_title("power breakdown per kernel")
    ax1.legend(fontsize=7, ncol=2)
    pts = joined_trace(runs)
    if pts:
        xs, ys, prev = [], [], 0.0
        for t, w in pts:  # each point is the average over (previous t, t]: draw steps
            xs += [prev * 1e6, t * 1e6]
            ys += [w, w]
            prev = t
        ax2.plot(xs, ys)
    ax2.set_xlabel("simulated time (us)")
    ax2.set_ylabel("power (W)")
    ax2.set_title("power trace")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("stats")
    ap.add_argument("--out", default="power.png")
    ap.add_argument("--ascii", action="store_true", help="text charts even if matplotlib exists")
    ap.add_argument("--width", type=int, default=60)
    a = ap.parse_args()
    runs = load(a.stats)
    if not a.ascii:
        try:
            plot(runs, a.out)
            return
        except ImportError:
            print("matplotlib not available: text charts", file=sys.stderr)
    ascii_report(runs, a.width)


if __name__ == "__main__":
    main()

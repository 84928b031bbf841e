#!/usr/bin/env python3
"""Reproduces the SPU report's figure 8 with ptxsim and extends it to stencils and to the
report's section-5 options (docs/spu.md).

For each workload it runs, in timing mode with power:
  SPU without regstart, SPU with regstart (section 3.3), the GPU limited to one block per SM and
  the unmodified GPU (configs/gtx480.config, as the report used GPGPU-Sim's GTX480), then the
  SPU with each section-5 option that applies (DMA IUs included: same results, IUs that issue no
  instructions). Every run checks its result against the CPU.
It prints a table (cycles, average power, energy, DRAM traffic) and draws figure8.png. The runs
are the sweep samples/spu/figure8.toml (`ptxsim sweep`, docs/sweep.md), kept in OUT/sweep: a
second run only runs the points whose inputs changed.

usage: figure8.py BUILD_DIR [--out DIR] [--quick]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the machine axis of figure8.toml, in the figure's order, with the figure's labels
MACHINES = [("spu-noregstart", "SPU, no regstart"), ("spu", "SPU, regstart"),
            ("gpu-1cta", "GPU, 1 block/SM"), ("gpu", "GPU"),
            ("spu-skip-syncs", "SPU + skip dummy syncs"), ("spu-2blocks", "SPU + 2 blocks/SM"),
            ("spu-1d", "SPU + 1D grid"), ("spu-dma", "SPU + DMA IUs")]


def collect(point_dir, label, stats):
    """The figure's numbers of one sweep point (its stats.json, copied to `stats`)."""
    shutil.copyfile(os.path.join(point_dir, "stats.json"), stats)
    with open(stats) as f:
        d = json.load(f)
    cycles = sum(l["gpu.cycles"] for l in d["launches"])
    dram = sum(l.get("dram.read_bytes", 0) + l.get("dram.write_bytes", 0) for l in d["launches"])
    viu = sum(l.get("spu.spill_bytes", 0) + l.get("spu.restore_bytes", 0) for l in d["launches"])
    syncs = sum(l.get("spu.block_syncs", 0) for l in d["launches"])
    energy = sum(k["energy_j"] for k in d["power"])
    secs = sum(k["seconds"] for k in d["power"])
    return {"label": label, "cycles": cycles, "avg_w": energy / secs if secs else 0.0,
            "energy_j": energy, "dram_bytes": dram, "viu_bytes": viu, "syncs": syncs,
            "launches": len(d["launches"])}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--out", default=".")
    ap.add_argument("--quick", action="store_true", help="smaller problems (tests)")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    ptxsim = os.path.join(build, "bin", "ptxsim")

    n_mm, t_mm = (64, 16) if a.quick else (192, 16)
    n_h2, it_h2 = (32, 16) if a.quick else (64, 64)
    n_h1, it_h1 = (1024, 64) if a.quick else (4096, 256)
    n_hb, it_hb = (160, 8) if a.quick else (384, 32) # two arrays larger than the 768 KB L2
    sizes = {"n_mm": n_mm, "t_mm": t_mm, "n_h2": n_h2, "it_h2": it_h2, "n_h1": n_h1,
             "it_h1": it_h1, "n_hb": n_hb, "it_hb": it_hb}
    # the runs are the sweep samples/spu/figure8.toml (ptxsim sweep, docs/sweep.md): points
    # whose inputs did not change since the last run are not run again
    sweep = os.path.join(os.path.abspath(a.out), "sweep")
    cmd = [ptxsim, "sweep", os.path.join(ROOT, "samples", "spu", "figure8.toml"),
           "--set", "build=" + build, "-o", sweep]
    for k, v in sizes.items():
        cmd += ["--set", f"{k}={v}"]
    env = dict(os.environ)
    for k in ("PTXSIM_SPU", "PTXSIM_CONFIG", "PTXSIM_POWER_CONFIG", "PTXSIM_PTX_OVERRIDE"):
        env.pop(k, None)
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"figure8: the sweep failed:\n{p.stdout}\n{p.stderr}")
    with open(os.path.join(sweep, "results.json")) as f:
        points = {pt["id"] for pt in json.load(f)["points"]}
    workloads = [(f"matmul {n_mm}x{n_mm}, {t_mm}x{t_mm} tiles", "matmul"),
                 (f"heat2d {n_h2}x{n_h2}, {it_h2} steps", "heat2d"),
                 (f"heat2d {n_hb}x{n_hb}, {it_hb} steps", "heat2d_big"),
                 (f"heat1d {n_h1} points, {it_h1} steps", "heat1d")]
    results = []
    os.makedirs(os.path.join(a.out, "stats"), exist_ok=True)
    reports = []
    for w, (name, prog) in enumerate(workloads):
        runs = [(label, f"{prog}__{m}") for m, label in MACHINES if f"{prog}__{m}" in points]
        files = [os.path.join(a.out, "stats", f"w{w}-r{i}.json") for i in range(len(runs))]
        rows = [collect(os.path.join(sweep, "points", pid), label, f)
                for (label, pid), f in zip(runs, files)]
        results.append((name, rows))
        # one HTML report per workload: every machine against the first (ptxsim report)
        html = os.path.join(a.out, f"figure8-{w}.html")
        cmd = [ptxsim, "report", "--title", f"SPU figure 8: {name}", "-o", html]
        for label, _ in runs:
            cmd += ["--label", label]
        p = subprocess.run(cmd + files, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"figure8: ptxsim report failed:\n{p.stderr}")
        reports.append(html)

    lines = ["| workload | machine | cycles | avg power (W) | energy (mJ) | DRAM bytes | + VIU bytes | block syncs |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, rows in results:
        for r in rows:
            lines.append(f"| {name} | {r['label']} | {r['cycles']} | {r['avg_w']:.1f} | "
                         f"{r['energy_j'] * 1e3:.3f} | {int(r['dram_bytes'])} | {int(r['viu_bytes'])} | "
                         f"{int(r['syncs'])} |")
    table = "\n".join(lines)
    print(table)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "figure8.md"), "w") as f:
        f.write(table + "\n")
    with open(os.path.join(a.out, "figure8.json"), "w") as f:
        json.dump([{"workload": n, "runs": rows} for n, rows in results], f, indent=1)
    for html in reports:
        print(f"figure8: wrote {html}", file=sys.stderr)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("figure8: matplotlib missing (scripts/setup.sh installs it): no PNG", file=sys.stderr)
        return
    fig, axes = plt.subplots(3, len(results), figsize=(4.5 * len(results), 12))
    for col, (name, rows) in enumerate(results):
        labels = [r["label"] for r in rows]
        colors = ["#c44", "#e84", "#48c", "#26a", "#a6c", "#c9a", "#6a4", "#888"][: len(rows)]
        for row, (key, title, scale) in enumerate([("cycles", "cycles", 1),
                                                    ("avg_w", "average power (W)", 1),
                                                    ("dram_bytes", "DRAM + VIU traffic (KB, log)", 1 / 1024)]):
            ax = axes[row][col]
            vals = [(r[key] + (r["viu_bytes"] if key == "dram_bytes" else 0)) * scale for r in rows]
            ax.bar(range(len(rows)), vals, color=colors)
            ax.set_xticks(range(len(rows)))
            ax.set_xticklabels(labels, fontsize=7, rotation=40, ha="right")
            ax.set_title(f"{name}: {title}" if row == 0 else title, fontsize=9)
            if key == "dram_bytes":
                ax.set_yscale("log") # the VIUs' traffic without regstart dwarfs the rest
    fig.tight_layout()
    png = os.path.join(a.out, "figure8.png")
    fig.savefig(png, dpi=90)
    print(f"figure8: wrote {png}", file=sys.stderr)


if __name__ == "__main__":
    main()

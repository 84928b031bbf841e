#!/usr/bin/env python3
"""Reproduces the SPU report's figure 8 with ptxsim and extends it to stencils and to the
report's section-5 options (docs/spu.md).

For each workload it runs, in timing mode with power:
  SPU without regstart, SPU with regstart (section 3.3), the GPU limited to one block per SM and
  the unmodified GPU (configs/gtx480.config, as the report used GPGPU-Sim's GTX480), then the
  SPU with each section-5 option that applies (DMA IUs included: same results, IUs that issue no
  instructions). Every run checks its result against the CPU.
It prints a table (cycles, average power, energy, DRAM traffic) and draws figure8.png.

usage: figure8.py BUILD_DIR [--out DIR] [--quick]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(build, program, args, env_extra, label, stats):
    env = dict(os.environ)
    env.update({"LD_LIBRARY_PATH": os.path.join(build, "lib"), "PTXSIM_MODE": "timing",
                "PTXSIM_POWER": "1", "PTXSIM_STATS_JSON": stats, "PTXSIM_SUMMARY": "0"})
    env.pop("PTXSIM_SPU", None)
    env.update(env_extra)
    exe = os.path.join(build, "tests", "spu", program)
    p = subprocess.run([exe] + args, env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0 or "PASS" not in p.stdout:
        sys.exit(f"figure8: {label}: {program} {' '.join(args)} failed:\n{p.stdout}\n{p.stderr}")
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
    spu_cfg = os.path.join(ROOT, "configs", "spu-gtx480.config")
    gpu_cfg = os.path.join(ROOT, "configs", "gtx480.config")
    one = tempfile.NamedTemporaryFile("w", suffix=".config", delete=False)
    one.write("-ptxsim_one_cta_per_sm 1\n")
    one.close()
    override = os.path.join(ROOT, "samples", "spu", "matmul_spu.ptx")

    def spu(opts=""):
        e = {"PTXSIM_CONFIG": spu_cfg, "PTXSIM_POWER_CONFIG": spu_cfg[:-7] + ".power.xml"}
        if opts:
            e["PTXSIM_SPU"] = opts
        return e
    gpu_power = gpu_cfg[:-7] + ".power.xml"
    gpu = {"PTXSIM_CONFIG": gpu_cfg, "PTXSIM_POWER_CONFIG": gpu_power}
    gpu1 = {"PTXSIM_CONFIG": gpu_cfg + "," + one.name, "PTXSIM_POWER_CONFIG": gpu_power}

    n_mm, t_mm = (64, 16) if a.quick else (192, 16)
    n_h2, it_h2 = (32, 16) if a.quick else (64, 64)
    n_h1, it_h1 = (1024, 64) if a.quick else (4096, 256)
    n_hb, it_hb = (160, 8) if a.quick else (384, 32) # two arrays larger than the 768 KB L2
    hb = [str(n_hb), str(it_hb)]
    mm = [str(n_mm), str(t_mm)]
    h2 = [str(n_h2), str(it_h2)]
    h1 = [str(n_h1), str(it_h1)]
    ov = {"PTXSIM_PTX_OVERRIDE": override}
    workloads = [
        (f"matmul {n_mm}x{n_mm}, {t_mm}x{t_mm} tiles", [
            ("SPU, no regstart", "matmul", mm, {**spu("-spu_regstart 0"), **ov}),
            ("SPU, regstart", "matmul", mm, {**spu(), **ov}),
            ("GPU, 1 block/SM", "matmul", mm, gpu1),
            ("GPU", "matmul", mm, gpu),
            ("SPU + skip dummy syncs", "matmul", mm, {**spu("-spu_skip_dummy_syncs 1"), **ov}),
            ("SPU + 2 blocks/SM", "matmul", mm, {**spu("-spu_blocks_per_sm 2 -spu_cb_bytes 4096"), **ov}),
            ("SPU + DMA IUs", "matmul", mm, {**spu("-spu_dma_ius 1"), **ov}),
        ]),
        (f"heat2d {n_h2}x{n_h2}, {it_h2} steps", [
            ("SPU, no regstart", "heat2d_spu", h2, spu("-spu_regstart 0")),
            ("SPU, regstart", "heat2d_spu", h2, spu()),
            ("GPU, 1 block/SM", "heat2d_spu", ["--gpu"] + h2, gpu1),
            ("GPU", "heat2d_spu", ["--gpu"] + h2, gpu),
            ("SPU + skip dummy syncs", "heat2d_spu", h2, spu("-spu_skip_dummy_syncs 1")),
            ("SPU + 2 blocks/SM", "heat2d_spu", h2, spu("-spu_blocks_per_sm 2 -spu_cb_bytes 4096")),
            ("SPU + DMA IUs", "heat2d_spu", h2, spu("-spu_dma_ius 1")),
        ]),
        (f"heat2d {n_hb}x{n_hb}, {it_hb} steps", [
            ("SPU, no regstart", "heat2d_spu", hb, spu("-spu_regstart 0")),
            ("SPU, regstart", "heat2d_spu", hb, spu()),
            ("GPU, 1 block/SM", "heat2d_spu", ["--gpu"] + hb, gpu1),
            ("GPU", "heat2d_spu", ["--gpu"] + hb, gpu),
            ("SPU + skip dummy syncs", "heat2d_spu", hb, spu("-spu_skip_dummy_syncs 1")),
            ("SPU + 2 blocks/SM", "heat2d_spu", hb, spu("-spu_blocks_per_sm 2 -spu_cb_bytes 4096")),
            ("SPU + DMA IUs", "heat2d_spu", hb, spu("-spu_dma_ius 1")),
        ]),
        (f"heat1d {n_h1} points, {it_h1} steps", [
            ("SPU, no regstart", "heat1d_spu", h1, spu("-spu_regstart 0")),
            ("SPU, regstart", "heat1d_spu", h1, spu()),
            ("GPU, 1 block/SM", "heat1d_spu", ["--gpu"] + h1, gpu1),
            ("GPU", "heat1d_spu", ["--gpu"] + h1, gpu),
            ("SPU + skip dummy syncs", "heat1d_spu", h1, spu("-spu_skip_dummy_syncs 1")),
            ("SPU + 2 blocks/SM", "heat1d_spu", h1, spu("-spu_blocks_per_sm 2 -spu_cb_bytes 4096")),
            ("SPU + 1D grid", "heat1d_spu", h1, spu("-spu_1d 1")),
            ("SPU + DMA IUs", "heat1d_spu", h1, spu("-spu_dma_ius 1")),
        ]),
    ]
    results = []
    os.makedirs(os.path.join(a.out, "stats"), exist_ok=True)
    reports = []
    for w, (name, runs) in enumerate(workloads):
        files = [os.path.join(a.out, "stats", f"w{w}-r{i}.json") for i in range(len(runs))]
        rows = [run(build, prog, args, env, label, f)
                for (label, prog, args, env), f in zip(runs, files)]
        results.append((name, rows))
        # one HTML report per workload: every machine against the first (ptxsim report)
        html = os.path.join(a.out, f"figure8-{w}.html")
        cmd = [os.path.join(build, "bin", "ptxsim"), "report", "--title", f"SPU figure 8: {name}",
               "-o", html]
        for (label, _, _, _), f in zip(runs, files):
            cmd += ["--label", label]
        p = subprocess.run(cmd + files, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"figure8: ptxsim report failed:\n{p.stderr}")
        reports.append(html)
    os.unlink(one.name)

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

#!/usr/bin/env python3
"""Board power of the H100 power phases beside ptxsim's power model.

Hardware: tools/correlate/data/h100_power_samples.csv (nvidia-smi every 100 ms: time, W, SM MHz,
memory MHz, temperature, utilization) and h100_power_phases.txt (the epoch second each phase of
../shared/hw/h100/power.cu started and ended); the phase average is the mean of the samples inside
it. The board's reading lags the phase marks (whole seconds) by about a second (the samples show
each step ~1 s after its mark), so each window is shifted by 1 s and trimmed by 0.5 s at both ends
to keep the steady state. Idle is the host's sleep before the first phase, at idle clocks.
Model: tools/correlate/power/power_phases.cu (the same kernels, shorter) under
`ptxsim run --power --config <preset>`: each launch's average power.

  python3 tools/correlate/power_compare.py [--config configs/h100.config] [--check 15]
"""

import argparse
import datetime
import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(ROOT, "tools", "correlate", "data")


def hardware_phases():
    phases, first = {}, None
    with open(os.path.join(DATA, "h100_power_phases.txt")) as f:
        for line in f:
            w = line.split()
            if len(w) >= 4 and w[0] == "PHASE":
                phases.setdefault(w[1], {})[w[2]] = int(w[3])
    samples = []
    with open(os.path.join(DATA, "h100_power_samples.csv")) as f:
        for line in f:
            parts = [p.strip() for p in line.split(",")]
            try:
                t = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f").replace(
                    tzinfo=datetime.timezone.utc).timestamp()
                samples.append((t, float(parts[1].split()[0])))
            except (ValueError, IndexError):
                continue
    def mean(lo, hi):
        v = [w for t, w in samples if lo <= t < hi]
        return sum(v) / len(v) if v else float("nan")
    lag = 1.0
    out = {"idle": mean(samples[0][0], phases["idle_host"]["end"] - 1.5)}  # clocks rise ~1 s early (context set-up)
    for name in ("fma", "copy", "spin1sm"):
        out[name] = mean(phases[name]["start"] + lag + 0.5, phases[name]["end"] + lag - 0.5)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default=os.path.join(ROOT, "configs", "h100.config"))
    ap.add_argument("--ptxsim", default=os.path.join(ROOT, "build", "bin", "ptxsim"))
    ap.add_argument("--nvcc", default=os.environ.get("NVCC", "nvcc"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "correlate"))
    ap.add_argument("--fma-iters", default="100")
    ap.add_argument("--copy-mib", default="96")  # larger than the 50 MiB L2: writes reach DRAM
    ap.add_argument("--check", type=float, help="exit 1 when a kernel phase is off by more than this percent")
    a = ap.parse_args()
    hw = hardware_phases()
    src = os.path.join(ROOT, "tools", "correlate", "power", "power_phases.cu")
    exe = os.path.join(a.work, "bin", "power_phases")
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        subprocess.run([a.nvcc, "-cudart", "shared", "-O2", "-arch=sm_90", "-o", exe, src], check=True)
    stats = os.path.join(a.work, "power_phases.json")
    subprocess.run([a.ptxsim, "run", "--no-summary", "--sample", "off", "--power", "--config", a.config, "--stats-json", stats,
                    "--", exe, a.fma_iters, a.copy_mib], check=True, stdout=subprocess.DEVNULL)
    with open(stats) as f:
        js = json.load(f)
    sim = {}
    for p in js["power"]:
        k = p["kernel"]
        sim["fma" if "fma" in k else "copy" if "copy" in k else "spin1sm"] = p["avg_w"]
    # with no kernel the model reports its idle power (<idle> in the power XML: idle voltage);
    # without it, its static power at the boost clock
    static = js.get("power_idle_w")
    if static is None:
        static = sum(c["static_j"] for c in js["power"][-1]["components"]) / (
            js["launches"][-1]["gpu.cycles"] / (js["config"]["core"]["clockMHz"] * 1e6))
    print("%-9s %10s %10s %8s" % ("phase", "H100 W", "ptxsim W", "diff%"))
    bad = 0
    for name in ("idle", "fma", "copy", "spin1sm"):
        s = static if name == "idle" else sim.get(name, float("nan"))
        d = 100 * (s - hw[name]) / hw[name]
        note = "  (model: idle power, <idle> in the power XML)" if name == "idle" else ""
        if a.check is not None and abs(d) > a.check:
            bad += 1
            note += "  <-- off by more than %.0f%%" % a.check
        print("%-9s %10.1f %10.1f %+8.1f%s" % (name, hw[name], s, d, note))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

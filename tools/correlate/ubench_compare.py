#!/usr/bin/env python3
"""Runs tools/correlate/ubench/ubench.cu under ptxsim and prints its figures beside the hardware's.

The hardware figures (tools/correlate/data/h100_ubench.txt) are ubench's output on an H100 SXM at
full size (argument 1); under the simulator it runs with argument 0 (chases up to 8 MiB with the
same 8,192 hops, the FMA rate from the difference of two short launches so that the launch's fixed
cost cancels, no DRAM copy: 32 MiB would stay in the L2, --dram measures it), so metrics present
in both are compared: latencies in cycles from clock64() differences
(the simulated cycle in timing mode), bandwidths from CUDA events (simulated time).

  python3 tools/correlate/ubench_compare.py [--config configs/h100.config] [--tolerance 10]

With --dram it runs tools/correlate/ubench/dram_bw.cu instead (steady-state DRAM copy, read and
write bandwidth, each streaming 96 MiB: 2 x --dram-mib) beside bw.cu's figures on the H100
(tools/correlate/data/h100_bw.txt, 1 GiB buffers). Slow: several minutes of simulation. dram_bw
reports each bandwidth projected to bw.cu's 1 GiB (its own fixed launch cost plus its streaming
time scaled to 1 GiB; at 96 MiB that fixed cost, ~4 us, is ~12 % of a read, at 1 GiB ~1 %), which
is what is compared, and the raw figure over its own bytes (*_raw_GBps, printed below the table).

Exit status 0; with --check, 1 when a compared metric is off by more than --tolerance percent.
"""

import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def metrics(text):
    out = {}
    for m in re.finditer(r"^METRIC (\S+) ([-0-9.eE+]+) (.*)$", text, re.M):
        out[m.group(1)] = (float(m.group(2)), m.group(3).split()[0])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", action="append", help="ptxsim config(s); default configs/h100.config")
    ap.add_argument("--hw", default=os.path.join(ROOT, "tools", "correlate", "data", "h100_ubench.txt"))
    ap.add_argument("--ptxsim", default=os.path.join(ROOT, "build", "bin", "ptxsim"))
    ap.add_argument("--nvcc", default=os.environ.get("NVCC", "nvcc"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "correlate"))
    ap.add_argument("--tolerance", type=float, default=10.0)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--dram", action="store_true", help="DRAM bandwidth (dram_bw.cu) instead of ubench.cu")
    ap.add_argument("--dram-mib", default="48", help="--dram: the copy moves this many MiB, read and write twice as many (2x must be well over the L2)")
    a = ap.parse_args()
    configs = a.config or [os.path.join(ROOT, "configs", "h100.config")]
    prog, prog_args = ("dram_bw", [a.dram_mib]) if a.dram else ("ubench", ["0"])
    if a.dram and a.hw.endswith("h100_ubench.txt"):
        a.hw = os.path.join(ROOT, "tools", "correlate", "data", "h100_bw.txt")
    src = os.path.join(ROOT, "tools", "correlate", "ubench", prog + ".cu")
    exe = os.path.join(a.work, "bin", prog)
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        subprocess.run([a.nvcc, "-cudart", "shared", "-O2", "-arch=sm_90", "-o", exe, src], check=True)
    cmd = [a.ptxsim, "run", "--no-summary", "--sample", "off"]
    for c in configs:
        cmd += ["--config", c]
    p = subprocess.run(cmd + ["--", exe] + prog_args, capture_output=True, text=True)
    if p.returncode:
        print(p.stdout + p.stderr)
        return 2
    sim = metrics(p.stdout)
    with open(a.hw) as f:
        hw = metrics(f.read())
    bad = 0
    print("%-26s %12s %12s %8s  %s" % ("metric", "H100", "ptxsim", "diff%", "unit"))
    for name, (s, unit) in sim.items():
        if name not in hw:
            continue
        h = hw[name][0]
        d = 100 * (s - h) / h if h else float("nan")
        flag = "" if abs(d) <= a.tolerance else "  <-- off by more than %.0f%%" % a.tolerance
        bad += bool(flag)
        print("%-26s %12.2f %12.2f %+8.1f  %s%s" % (name, h, s, d, unit, flag))
    for name, (s, unit) in sim.items():
        if name not in hw and a.dram:
            print("%-26s %12s %12.2f %8s  %s" % (name, "", s, "", unit))
    for m in re.finditer(r"^NOTE (\S+) (.*)$", p.stdout, re.M):
        print("%-26s %12.2f %12s %8s  %s (%s)" % (m.group(1), hw.get(m.group(1), (float("nan"),))[0], "-", "", "not compared", m.group(2)))
    print("%d of %d compared metrics outside +-%.0f%% (configs: %s)" %
          (bad, sum(1 for n in sim if n in hw), a.tolerance, ", ".join(os.path.relpath(c, ROOT) for c in configs)))
    return 1 if a.check and bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Sampled vs full timing simulation of CUDA programs: cycles error and speed-up.

Usage: bench/sampling_compare.py [--build DIR] [--presets gtx480,h100] [--modes kernels,ctas]
                                 [PROGRAM ...]

Runs each program (default: the samples) in timing mode on one host thread, in full and with
each --sample mode, and prints per program and preset: total simulated cycles in full, each
mode's cycle error against it, the mode's own error estimate (cycle-weighted sample.error_pct),
the share of launches (kernels) or CTAs (ctas) it estimated instead of simulating, and the
speed-up in host CPU seconds (user + system of the whole program, start-up included, measured
without --stats-json, whose output of every per-instance counter of every launch costs the same
either way; CPU time rather than wall time because the machine may be shared). Results are for docs/sampling.md.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cpu_seconds(prog, env):
    p = subprocess.Popen(prog, env=env, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        raise SystemExit(f"{prog[0]} ({env['PTXSIM_CONFIG']}, {env['PTXSIM_SAMPLE']}) failed with status {status}")
    return ru.ru_utime + ru.ru_stime


def run(prog, build, preset, mode, out):
    """The launches' statistics (from a run with --stats-json) and the CPU seconds of a run
    without it (writing thousands of per-instance statistics per launch is no simulation)."""
    env = dict(os.environ, PTXSIM_MODE="timing", PTXSIM_CONFIG=f"{ROOT}/configs/{preset}.config",
               PTXSIM_SAMPLE=mode, PTXSIM_SUMMARY="0", PTXSIM_THREADS="1",
               LD_LIBRARY_PATH=f"{build}/lib")
    cpu_seconds(prog, dict(env, PTXSIM_STATS_JSON=out))
    return cpu_seconds(prog, env), json.load(open(out))["launches"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=f"{ROOT}/build")
    ap.add_argument("--presets", default="gtx480,h100")
    ap.add_argument("--modes", default="kernels,ctas")
    ap.add_argument("programs", nargs="*")
    a = ap.parse_args()
    progs = a.programs or [f"{a.build}/samples/{s}/{s}" for s in
                           ("stencil", "scan", "reduction", "matmul", "histogram", "transpose", "vecadd")]
    modes = a.modes.split(",")
    print(f"{'program':<12} {'preset':<7} {'launches':>8} {'full cycles':>12} {'CPU s':>7}  " +
          "  ".join(f"{m + ' err %':>12} {'own %':>6} {'est. %':>6} {'speed-up':>8}" for m in modes))
    with tempfile.TemporaryDirectory() as d:
        for prog in progs:
            for preset in a.presets.split(","):
                sf, full = run([prog], a.build, preset, "off", f"{d}/f.json")
                cf = sum(l["gpu.cycles"] for l in full)
                cols = []
                for m in modes:
                    ss, sl = run([prog], a.build, preset, m, f"{d}/s.json")
                    cs = sum(l["gpu.cycles"] for l in sl)
                    own = sum(l.get("sample.error_pct", 0) * l["gpu.cycles"] for l in sl) / cs
                    if m == "kernels":
                        share = sum(l.get("sample.estimated", 0) for l in sl) / len(sl)
                    else:
                        ctas = sum(l["gpu.ctas"] for l in sl)
                        share = 1 - sum(l.get("sample.detailed_ctas", l["gpu.ctas"]) for l in sl) / ctas
                    cols.append(f"{100 * (cs - cf) / cf:>+12.2f} {own:>6.2f} {100 * share:>6.0f} {sf / ss:>7.1f}x")
                print(f"{os.path.basename(prog):<12} {preset:<7} {len(full):>8} {cf:>12.0f} {sf:>7.2f}  " + "  ".join(cols))
                sys.stdout.flush()


if __name__ == "__main__":
    main()

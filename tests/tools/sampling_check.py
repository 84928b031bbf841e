#!/usr/bin/env python3
"""Runs a CUDA program in timing mode in full and with --sample MODE, and checks the sampled
run's total cycles against the full run's.

Usage: sampling_check.py MODE CONFIG MAX_ERROR_PCT MIN_ESTIMATED_SHARE PROGRAM [ARGS...]

Passes when the program prints the same output both ways, the sampled total is within
MAX_ERROR_PCT of the full total, and at least MIN_ESTIMATED_SHARE of the launches (kernels) or of
the CTAs (ctas) were estimated rather than simulated. Prints both totals, the error, the
sampling's own error estimate and the share estimated (docs/sampling.md).
"""
import json
import os
import subprocess
import sys
import tempfile


def run(prog, config, mode, out):
    env = dict(os.environ, PTXSIM_MODE="timing", PTXSIM_CONFIG=config, PTXSIM_SAMPLE=mode,
               PTXSIM_STATS_JSON=out, PTXSIM_SUMMARY="0")
    p = subprocess.run(prog, env=env, stdout=subprocess.PIPE, check=True)
    return p.stdout, json.load(open(out))["launches"]


def main():
    if len(sys.argv) < 6:
        print(__doc__)
        return 2
    mode, config, max_err, min_share = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    prog = sys.argv[5:]
    with tempfile.TemporaryDirectory() as d:
        out_full, full = run(prog, config, "off", os.path.join(d, "full.json"))
        out_s, sampled = run(prog, config, mode, os.path.join(d, "s.json"))
    if out_full != out_s:
        print("FAIL: the program's output differs with sampling")
        return 1
    cf = sum(l["gpu.cycles"] for l in full)
    cs = sum(l["gpu.cycles"] for l in sampled)
    err = 100.0 * (cs - cf) / cf
    own = sum(l.get("sample.error_pct", 0) * l["gpu.cycles"] for l in sampled) / cs
    if mode == "kernels":
        share = sum(1 for l in sampled if l.get("sample.estimated") == 1) / len(sampled)
    else:
        ctas = sum(l["gpu.ctas"] for l in sampled)
        share = 1 - sum(l.get("sample.detailed_ctas", l["gpu.ctas"]) for l in sampled) / ctas
    print(f"full {cf:.0f} cycles, sampled ({mode}) {cs:.0f}: error {err:+.2f} %, "
          f"own estimate {own:.2f} %, {100 * share:.0f} % estimated")
    ok = abs(err) <= max_err and share >= min_share
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

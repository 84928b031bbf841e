#!/usr/bin/env python3
"""Checks a sampled timing run against the full simulation of the same program.

Usage: check_sampling.py FULL.json SAMPLED.json BOUND_PCT MIN_ESTIMATED_SHARE

FULL.json and SAMPLED.json are PTXSIM_STATS_JSON files of the same program (`--sample off` and
a sampled run). Passes when: both have the same launches (kernel, grid, block) with the same
warp instruction counts (estimated launches run functionally: their instructions stay exact);
at least MIN_ESTIMATED_SHARE (0..1) of the sampled run's launches were estimated; the sampled
total cycles are within BOUND_PCT percent of the full run's; and the sampler's own bound on the
error of the total (each estimated launch's sample.error_pct weighted by its cycles, as the run
summary states it) is itself within BOUND_PCT.
"""
import json
import sys


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    full = json.load(open(sys.argv[1]))["launches"]
    sampled = json.load(open(sys.argv[2]))["launches"]
    bound, min_share = float(sys.argv[3]), float(sys.argv[4])
    bad = []
    if len(full) != len(sampled):
        bad.append(f"launch count: full {len(full)}, sampled {len(sampled)}")
    for i, (f, s) in enumerate(zip(full, sampled)):
        for key in ("kernel", "grid", "block", "gpu.warp_insts", "gpu.thread_insts"):
            if f.get(key) != s.get(key):
                bad.append(f"launch {i}: '{key}' full {f.get(key)}, sampled {s.get(key)}")
    cf = sum(l["gpu.cycles"] for l in full)
    cs = sum(l["gpu.cycles"] for l in sampled)
    est = sum(1 for l in sampled if l.get("sample.estimated", 0) > 0)
    own = sum(l.get("sample.error_pct", 0) * l["gpu.cycles"] for l in sampled) / cs if cs else 0
    err = 100.0 * (cs - cf) / cf if cf else 0
    print(f"{len(sampled)} launches, {est} estimated; cycles full {cf}, sampled {cs}: "
          f"{err:+.3f} %; stated bound {own:.3f} %")
    if len(sampled) == 0 or est < min_share * len(sampled):
        bad.append(f"only {est} of {len(sampled)} launches estimated (want {min_share:.0%})")
    if abs(err) > bound:
        bad.append(f"total cycles {err:+.3f} % off the full run (bound {bound} %)")
    if own > bound:
        bad.append(f"stated bound {own:.3f} % above {bound} %")
    for b in bad[:20]:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

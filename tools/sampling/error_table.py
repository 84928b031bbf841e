#!/usr/bin/env python3
"""Kernel sampling's error against full timing simulation over the project's programs.

Usage: tools/sampling/error_table.py [--build DIR] [--config h100] [--mode kernels]
                                     [--only REGEX] [--timeout S] [--json OUT] [PROGRAM ...]

Runs every program of tests/kernels and tests/e2e (the sm90_ptx build, as the timing tests run
them) and of samples/ in timing mode on one host thread, once with `--sample off` (every launch
simulated cycle by cycle) and once with the sampling mode, and prints a Markdown table for
docs/sampling.md: per program the launches, the share the sampler estimated, total cycles in
full and sampled, the error of the total, the worst error of one kernel's cycles summed over its
launches (per kernel name), the sampler's own bound for the run (the summary's
line 'sampling: ... within X %'), whether the program's output was identical and the host CPU seconds of
both runs ("instructions differ": the program's work depends on the order of execution, e.g.
CTAs spinning on other CTAs' flags, or on host timing, e.g. a kernel spinning on a flag the host
sets). Programs that fail in full timing mode (or time out) are listed as such. The totals
line sums the cycles of all programs. --json writes every program's per-kernel figures.

The extra environment of the timing tests (smaller problems, tests/CMakeLists.txt) is applied.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLES = ("stencil", "scan", "reduction", "matmul", "histogram", "transpose", "vecadd")
# the environment the timing tests give these programs (tests/CMakeLists.txt)
EXTRA_ENV = {
    "thrust_radix_sort_1m": {"RADIX_SORT_N": "8192", "RADIX_SORT_ITERS": "1"},
    "cp_async_pipeline_copy": {"COPY_N": "20000"},
    "thrust_algorithms": {"THRUST_N": "16384"},
}


def programs(build):
    names = [os.path.basename(p)[:-3] for p in glob.glob(f"{ROOT}/tests/kernels/*.cu")]
    names += [os.path.basename(p)[:-3] for p in glob.glob(f"{ROOT}/tests/e2e/*.cu")]
    progs = [f"{build}/tests/e2e/sm90_ptx/{n}" for n in sorted(names)]
    progs += [f"{build}/samples/{s}/{s}" for s in SAMPLES]
    return [p for p in progs if os.path.exists(p)]


def run_timed(prog, build, config, mode, timeout, json_path):
    before = os.times()
    name = os.path.basename(prog)
    env = dict(os.environ, PTXSIM_MODE="timing", PTXSIM_CONFIG=f"{ROOT}/configs/{config}.config",
               PTXSIM_SAMPLE=mode, PTXSIM_THREADS="1", PTXSIM_STATS_JSON=json_path,
               LD_LIBRARY_PATH=f"{build}/lib", **EXTRA_ENV.get(name, {}))
    env.pop("PTXSIM_SUMMARY", None)
    if os.path.exists(json_path):
        os.remove(json_path)
    try:
        p = subprocess.run([prog], env=env, capture_output=True, timeout=timeout,
                           cwd=os.path.dirname(prog))
    except subprocess.TimeoutExpired:
        return "timeout", b"", 0.0, [], ""
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    summary = p.stderr.decode(errors="replace")
    if p.returncode != 0 or not os.path.exists(json_path):
        return f"exit {p.returncode}", p.stdout, cpu, [], summary
    with open(json_path) as f:
        launches = json.load(f).get("launches", [])
    return "ok", p.stdout, cpu, launches, summary


def per_kernel(launches):
    k = {}
    for l in launches:
        k[l["kernel"]] = k.get(l["kernel"], 0) + l["gpu.cycles"]
    return k


def own_bound(launches):
    """The sampler's bound on the error of the total, as the summary computes it: each estimated
    launch's sample.error_pct weighted by its cycles (errors of one sign: no averaging out)."""
    total = sum(l["gpu.cycles"] for l in launches)
    err = sum(l.get("sample.error_pct", 0) * l["gpu.cycles"] for l in launches)
    return err / total if total else 0.0


def short_name(path):
    """tests/e2e/sm90_ptx/NAME -> NAME, samples/NAME/NAME -> samples/NAME."""
    m = re.search(r"samples/([^/]+)/[^/]+$", path)
    return f"samples/{m.group(1)}" if m else os.path.basename(path)


def row(r):
    return (f"| {short_name(r['program'])} | {r['launches']} | {r['estimated']} | "
            f"{r['full_cycles']:,} | {r['sampled_cycles']:,} | {r['error_pct']:+.2f} % | "
            f"{r['worst_kernel_pct']:+.2f} % | {r['own_bound_pct']:.2f} % | {r['output']} | "
            f"{r['cpu_full']:.1f} / {r['cpu_sampled']:.1f} |")


def print_table(records, estimated_only):
    print("| program | launches | estimated | full cycles | sampled cycles | error | worst kernel error "
          "| own bound | output | CPU s full / sampled |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
    ok = [r for r in records if r["status"] == "ok"]
    exact = [r for r in ok if not r["estimated"]]
    for r in records:
        if r["status"] != "ok":
            print(f"| {short_name(r['program'])} | | | | | | | | {r['status']} | |")
        elif r["estimated"] or not estimated_only:
            print(row(r))
    tf, ts = sum(r["full_cycles"] for r in ok), sum(r["sampled_cycles"] for r in ok)
    cf, cs = sum(r["cpu_full"] for r in ok), sum(r["cpu_sampled"] for r in ok)
    if tf:
        print(f"| **all {len(ok)} programs** | {sum(r['launches'] for r in ok)} | "
              f"{sum(r['estimated'] for r in ok)} | {tf:,} | {ts:,} | {100.0 * (ts - tf) / tf:+.2f} % "
              f"| | | | {cf:.1f} / {cs:.1f} |")
    if estimated_only and exact:
        print(f"\n{len(exact)} programs had no launch estimated (too few launches of one kernel and shape, "
              "or samples that never agreed within 2 %): identical cycles.")
    worst = max(ok, key=lambda r: abs(r["error_pct"]), default=None)
    if worst:
        print(f"Worst error of one program's total cycles: {worst['error_pct']:+.2f} % "
              f"({short_name(worst['program'])}).")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=f"{ROOT}/build")
    ap.add_argument("--config", default="h100")
    ap.add_argument("--mode", default="kernels")
    ap.add_argument("--only", default="")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--json", default="")
    ap.add_argument("--estimated-only", action="store_true",
                    help="list only programs with estimated launches (the others: a count)")
    ap.add_argument("--from-json", default="", help="print the table of a saved --json run")
    ap.add_argument("programs", nargs="*")
    a = ap.parse_args()
    if a.from_json:
        with open(a.from_json) as f:
            print_table(json.load(f), a.estimated_only)
        return
    build = os.path.abspath(a.build)
    progs = a.programs or programs(build)
    if a.only:
        progs = [p for p in progs if re.search(a.only, p)]
    print(f"`{' '.join(['tools/sampling/error_table.py'] + sys.argv[1:])}` "
          f"({a.config} preset, `--sample {a.mode}` against `--sample off`, 1 host thread)\n")
    print("| program | launches | estimated | full cycles | sampled cycles | error | worst kernel error "
          "| own bound | output | CPU s full / sampled |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
    sys.stdout.flush()
    records, tot_full, tot_sampled, tot_cpu_f, tot_cpu_s = [], 0, 0, 0.0, 0.0
    worst_total = 0.0
    with tempfile.TemporaryDirectory() as d:
        for prog in progs:
            name = os.path.relpath(prog, build)
            sf, of, cf, lf, _ = run_timed(prog, build, a.config, "off", a.timeout, f"{d}/f.json")
            if sf != "ok":
                print(f"| {name} | | | | | | | | full timing run: {sf} | |")
                records.append({"program": name, "status": sf})
                sys.stdout.flush()
                continue
            ss, os_, cs, ls, summ = run_timed(prog, build, a.config, a.mode, a.timeout, f"{d}/s.json")
            if ss != "ok":
                print(f"| {name} | {len(lf)} | | | | | | | sampled run: {ss} | |")
                records.append({"program": name, "status": "sampled " + ss})
                sys.stdout.flush()
                continue
            full, sampled = sum(l["gpu.cycles"] for l in lf), sum(l["gpu.cycles"] for l in ls)
            est = sum(1 for l in ls if l.get("sample.estimated", 0))
            kf, ks = per_kernel(lf), per_kernel(ls)
            kerr = {k: 100.0 * (ks.get(k, 0) - v) / v if v else 0.0 for k, v in kf.items()}
            wk = max(kerr, key=lambda k: abs(kerr[k])) if kerr else ""
            err = 100.0 * (sampled - full) / full if full else 0.0
            worst_total = max(worst_total, abs(err))
            bound = own_bound(ls)
            same = "same" if of == os_ else "**differs**"
            # estimated launches run functionally: when instruction counts differ, the program's
            # work depends on the order of execution (CTAs spinning on other CTAs' flags, as in
            # CUB's decoupled look-back) or on host timing (a kernel spinning on a flag the host
            # sets), and so do its cycles
            if [l["gpu.warp_insts"] for l in lf] != [l["gpu.warp_insts"] for l in ls]:
                same += ", instructions differ"
            tot_full += full
            tot_sampled += sampled
            tot_cpu_f += cf
            tot_cpu_s += cs
            print(f"| {name} | {len(lf)} | {est} | {full:,} | {sampled:,} | {err:+.2f} % | "
                  f"{(f'{kerr[wk]:+.2f} %' if wk else '')} | "
                  f"{('' if bound is None else f'{bound:.2f} %')} | {same} | {cf:.1f} / {cs:.1f} |")
            sys.stdout.flush()
            records.append({"program": name, "status": "ok", "launches": len(lf), "estimated": est,
                            "full_cycles": full, "sampled_cycles": sampled, "error_pct": err,
                            "worst_kernel_pct": kerr[wk] if wk else 0.0, "output": same,
                            "own_bound_pct": bound, "output_same": of == os_,
                            "cpu_full": cf, "cpu_sampled": cs,
                            "kernels": {k: {"full": kf[k], "sampled": ks.get(k, 0), "error_pct": kerr[k]}
                                        for k in kf}})
    if tot_full:
        print(f"| **all programs** | | | {tot_full:,} | {tot_sampled:,} | "
              f"{100.0 * (tot_sampled - tot_full) / tot_full:+.2f} % | | | | {tot_cpu_f:.1f} / {tot_cpu_s:.1f} |")
        print(f"\nworst error of one program's total cycles: {worst_total:.2f} %")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(records, f, indent=1)


if __name__ == "__main__":
    main()

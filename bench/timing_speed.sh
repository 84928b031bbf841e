#!/bin/sh
# Timing-mode speed per preset and host thread count: simulated cycles/s and thread-instructions/s
# for a compute-bound, a memory-bound and a divergent kernel that fill the GPU (bench_timing), and
# for a whole program (samples/stencil: 500 launches of a small Jacobi kernel, run through the
# CUDA runtime like any application). Results are identical for every thread count; only the
# host time changes. Run on an idle machine: the figures are wall-clock rates. The last table
# gives each kernel's speed-up over the first thread count given (docs/timing.md; issue 19's
# acceptance: 2 threads >= 1.7x over 1 on the H100 preset on the 2-core machine, 16 threads
# >= 8x over 1 on a 16-core one). PRESETS="h100" limits the presets.
# Usage: bench/timing_speed.sh [BUILD_DIR] [THREADS...]   (default: build, 1 2 and nproc)
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
[ $# -gt 0 ] && shift
threads=${*:-"1 2 $(nproc)"}
threads=$(printf '%s\n' $threads | awk '!seen[$0]++' | tr '\n' ' ')
presets=${PRESETS:-gtx480 v100 h100}
bench=$build/bin/bench_timing
# the kernels' PTX (nvcc output at build time; BENCH_PTX=FILE to give one built elsewhere)
ptx=${BENCH_PTX:-$build/bench/exec_kernels.ptx}
if ! grep -q '^\.version' "$ptx" 2>/dev/null; then
  echo "timing_speed.sh: $ptx is not PTX (built without nvcc?): build the bench_exec_ptx target or set BENCH_PTX" >&2
  exit 1
fi
stencil=$build/samples/stencil/stencil
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "host: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for preset in $presets; do
  for t in $threads; do
    echo "== $preset, $t host thread(s)"
    "$bench" --threads "$t" "$root/configs/$preset.config" "$ptx" | grep -v -e '^config' -e 'energy' |
      tee "$tmp/run.$preset.$t"
    if [ -x "$stencil" ]; then
      start=$(date +%s.%N)
      PTXSIM_MODE=timing PTXSIM_SAMPLE=off PTXSIM_CONFIG="$root/configs/$preset.config" PTXSIM_THREADS=$t \
        PTXSIM_STATS_JSON="$tmp/s.json" PTXSIM_SUMMARY=0 LD_LIBRARY_PATH="$build/lib" \
        "$stencil" > /dev/null
      end=$(date +%s.%N)
      python3 - "$tmp/s.json" "$start" "$end" <<'PY' | tee -a "$tmp/run.$preset.$t"
import json, sys
j = json.load(open(sys.argv[1]))
s = float(sys.argv[3]) - float(sys.argv[2])
cyc = sum(l["gpu.cycles"] for l in j["launches"])
ti = sum(l["gpu.thread_insts"] for l in j["launches"])
print(f"{'stencil_program':<17} {len(j['launches']):>6} {cyc:>12.0f} {ti:>14.0f} {s:>9.3f} {cyc/s:>12.0f} {'':>14} {ti/s:>14.0f}   (launches instead of CTAs)")
PY
    fi
  done
done
echo "host load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
first=$(echo $threads | cut -d' ' -f1)
echo "== speed-up over $first host thread(s): its host seconds / those of each count"
python3 - "$tmp" "$presets" $threads <<'PY'
import os, sys
tmp, presets, counts = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
for preset in presets:
    secs = {}
    for t in counts:
        path = os.path.join(tmp, f"run.{preset}.{t}")
        if not os.path.exists(path):
            continue
        for line in open(path):
            f = line.split()
            try:
                secs.setdefault(f[0], {})[t] = float(f[4])
            except (IndexError, ValueError):
                pass
    if not secs:
        continue
    print(f"{preset:<8} {'kernel':<17}" + "".join(f"{t + ' thr':>10}" for t in counts))
    for k, v in secs.items():
        base = v.get(counts[0])
        print(f"{preset:<8} {k:<17}" + "".join(
            f"{base / v[t]:>9.2f}x" if base and v.get(t) else f"{'-':>10}" for t in counts))
PY

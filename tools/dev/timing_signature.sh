#!/bin/sh
# What a cycle-exact change to the timing model must leave unchanged, written to a directory:
# bench_timing's cycles, thread instructions and energy per kernel on 1 and 2 host threads (H100
# preset), and the full stats JSON of samples/stencil (--sample off, kernels, ctas; 1 and 2 threads)
# and samples/matmul, without the fields that measure host time. Compare two builds with
#   tools/dev/timing_signature.sh BUILD_A DIR_A; tools/dev/timing_signature.sh BUILD_B DIR_B
#   diff -r DIR_A DIR_B    # nothing printed: exact
# Usage: tools/dev/timing_signature.sh BUILD_DIR OUT_DIR [CONFIG]
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?build directory}" && pwd)
out=${2:?output directory}
config=${3:-$root/configs/h100.config}
mkdir -p "$out"
ptx=$build/bench/exec_kernels.ptx
strip() { # stats JSON without host-time fields (wall_seconds, start_seconds, ...)
  python3 - "$1" "$2" <<'PY'
import json, sys
def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items() if 'seconds' not in k and k not in ('program',)}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v
with open(sys.argv[1]) as f:
    d = json.load(f)
with open(sys.argv[2], 'w') as f:
    json.dump(clean(d), f, indent=1, sort_keys=True)
PY
}
for t in 1 2; do
  "$build/bin/bench_timing" --threads $t "$config" "$ptx" |
    awk '/^config/ || /^kernel/ {next} /energy/ {print $2, $3; next} {print $1, $2, $3, $4}' \
      > "$out/bench_timing.$t.txt"
done
run() { # name threads sample program
  PTXSIM_MODE=timing PTXSIM_SAMPLE=$3 PTXSIM_CONFIG="$config" PTXSIM_THREADS=$2 PTXSIM_SUMMARY=0 \
    PTXSIM_STATS_JSON="$out/.raw.json" LD_LIBRARY_PATH="$build/lib" "$4" > "$out/$1.$2.$3.stdout"
  strip "$out/.raw.json" "$out/$1.$2.$3.json"
  rm -f "$out/.raw.json"
}
for t in 1 2; do
  for s in off kernels ctas; do
    run stencil $t $s "$build/samples/stencil/stencil"
  done
done
run matmul 1 off "$build/samples/matmul/matmul"
echo "timing_signature: $(ls "$out" | wc -l) files in $out"

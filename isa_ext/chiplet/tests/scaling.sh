#!/usr/bin/env bash
# The scaling figure of docs/chiplets.md: wall time and simulated cycles of the halo-exchange
# stencil on 2x2, 3x3 and 4x4 GPU chiplet grids (timing mode, GTX480 preset), both transports.
#   scaling.sh BUILD_DIR [WORK_DIR]
set -euo pipefail
build=$(cd "$1" && pwd) work=${2:-/tmp/chiplet_scaling}
src=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$work"
printf "%-5s %-9s %8s %14s %14s %10s %9s\n" grid transport wall_s sync_cycles doc_cycles packets syncs
for g in 2x2 3x3 4x4; do
  for t in files mpi; do
    "$build/bin/ptxsim" chiplets --grid $g --transport $t --timeout 300 --config "$src/configs/gtx480.config" \
      --dir "$work/$g.$t" --stats-json "$work/$g.$t.json" -- "$build/samples/chiplets/chiplet_stencil" \
      > "$work/$g.$t.out" 2> "$work/$g.$t.err" || { echo "$g $t failed"; tail "$work/$g.$t.err"; exit 1; }
    grep -q "PASS" "$work/$g.$t.out" || { echo "$g $t: no PASS"; exit 1; }
    python3 - "$work/$g.$t.json" $g $t <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["totals"]
print("%-5s %-9s %8.2f %14d %14d %10d %9d" % (sys.argv[2], sys.argv[3], d["wall_seconds"],
      t["synchronized_cycles"], t["document_formula_cycles"], d["network"]["finished"],
      t["synchronizations"]))
PY
  done
done

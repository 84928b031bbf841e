#!/usr/bin/env bash
# The warp-scheduling study: runs samples/schedulers under each warp scheduler in timing mode on
# a GPU preset and prints, per kernel, cycles, stall cycles (NUM_STALL_CYCLES) and L1D misses
# per 1000 warp instructions (MISSES_PER_1000_INSTR), the two numbers the OMSCS assignment grades.
#
# usage: samples/schedulers/compare.sh [--check] [--report FILE] [BUILD_DIR] [CONFIG]
#        (defaults: build, configs/gtx480.config, BUILD_DIR/reports/schedulers.html)
# With --check it also exits non-zero unless the results go the CCWS paper's way on the
# cache-sensitive kernel: CCWS has fewer misses per 1000 instructions than LRR.
# It writes an HTML report comparing the four schedulers (ptxsim report, LRR the baseline) and
# the sweep's own page and table in FILE-sweep/. The grid is schedulers.toml (ptxsim sweep).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
check=0
args=()
report=
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1 ;;
    --report) report=${2:?--report needs a file}; shift ;;
    *) args+=("$1") ;;
  esac
  shift
done
build=${args[0]:-$root/build}
config=${args[1]:-$root/configs/gtx480.config}
report=${report:-$build/reports/schedulers.html}
out=${report%.html}-sweep
# the grid is samples/schedulers/schedulers.toml (ptxsim sweep, docs/sweep.md); points whose
# inputs did not change since the last run are not run again
mkdir -p "$(dirname "$out")"
"$build/bin/ptxsim" sweep "$here/schedulers.toml" --set build="$build" --set config="$config" \
  -o "$out" > "$out.log" || { cat "$out.log"; exit 1; }
mkdir -p "$(dirname "$report")"
"$build/bin/ptxsim" report --title "Warp schedulers on $(basename "$config" .config)" \
  --label lrr --label gto --label two_level --label ccws \
  "$out"/points/schedulers__{lrr,gto,two_level,ccws}/stats.json -o "$report" >/dev/null
echo "report: $report (the sweep's: $out/report.html, table: $out/results.csv)"
python3 - "$out/results.json" "$check" <<'PY'
import json, sys
res = {p["coords"]["scheduler"]: p["stats"] for p in json.load(open(sys.argv[1]))["points"]}
check = sys.argv[2] == "1"
print(f"{'kernel':16} {'scheduler':10} {'cycles':>9} {'NUM_STALL_CYCLES':>17} {'MISSES_PER_1000_INSTR':>22}")
for k in ["cacheSensitive", "computeBound"]:
    for s in ["lrr", "gto", "two_level", "ccws"]:
        st = res[s]
        print(f"{k:16} {s:10} {st['cycles@' + k]:9.0f} {st['NUM_STALL_CYCLES@' + k]:17.0f} {st['MISSES_PER_1000_INSTR@' + k]:22.1f}")
if check:
    lrr, ccws = res["lrr"], res["ccws"]
    ok = ccws["MISSES_PER_1000_INSTR@cacheSensitive"] < lrr["MISSES_PER_1000_INSTR@cacheSensitive"]
    print("check: CCWS misses/1000 < LRR misses/1000 on the cache-sensitive kernel:", "yes" if ok else "NO")
    sys.exit(0 if ok else 1)
PY

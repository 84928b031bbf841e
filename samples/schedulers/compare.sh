#!/usr/bin/env bash
# The warp-scheduling study: runs samples/schedulers under each warp scheduler in timing mode on
# a GPU preset and prints, per kernel, cycles, stall cycles (NUM_STALL_CYCLES) and L1D misses
# per 1000 warp instructions (MISSES_PER_1000_INSTR), the two numbers the OMSCS assignment grades.
#
# usage: samples/schedulers/compare.sh [--check] [--report FILE] [BUILD_DIR] [CONFIG]
#        (defaults: build, configs/gtx480.config, BUILD_DIR/reports/schedulers.html)
# With --check it also exits non-zero unless the results go the CCWS paper's way on the
# cache-sensitive kernel: CCWS has fewer misses per 1000 instructions than LRR.
# It writes an HTML report comparing the four schedulers (ptxsim report, LRR the baseline).
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
app=$build/samples/schedulers/schedulers
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for s in lrr gto two_level ccws; do
  "$build/bin/ptxsim" run --no-summary --config "$config" --config "$here/$s.config" \
    --stats-json "$out/$s.json" -- "$app" > "$out/$s.txt"
  grep -q PASS "$out/$s.txt"
done
mkdir -p "$(dirname "$report")"
"$build/bin/ptxsim" report --title "Warp schedulers on $(basename "$config" .config)" \
  "$out/lrr.json" "$out/gto.json" "$out/two_level.json" "$out/ccws.json" -o "$report" >/dev/null
echo "report: $report"
python3 - "$out" "$check" <<'PY'
import json, sys
out, check = sys.argv[1], sys.argv[2] == "1"
res = {}
print(f"{'kernel':16} {'scheduler':10} {'cycles':>9} {'NUM_STALL_CYCLES':>17} {'MISSES_PER_1000_INSTR':>22}")
for s in ["lrr", "gto", "two_level", "ccws"]:
    d = json.load(open(f"{out}/{s}.json"))
    for l in d["launches"]:
        k = "cacheSensitive" if "cacheSensitive" in l["kernel"] else "computeBound"
        res[(k, s)] = l
for k in ["cacheSensitive", "computeBound"]:
    for s in ["lrr", "gto", "two_level", "ccws"]:
        l = res[(k, s)]
        print(f"{k:16} {s:10} {l['gpu.cycles']:9.0f} {l['NUM_STALL_CYCLES']:17.0f} {l['MISSES_PER_1000_INSTR']:22.1f}")
if check:
    lrr, ccws = res[("cacheSensitive", "lrr")], res[("cacheSensitive", "ccws")]
    ok = ccws["MISSES_PER_1000_INSTR"] < lrr["MISSES_PER_1000_INSTR"]
    print("check: CCWS misses/1000 < LRR misses/1000 on the cache-sensitive kernel:", "yes" if ok else "NO")
    sys.exit(0 if ok else 1)
PY

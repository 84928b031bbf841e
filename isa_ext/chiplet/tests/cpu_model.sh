#!/usr/bin/env bash
# The CPU chiplets' core model end to end (docs/chiplets.md): chiplet_cpuwork's CPU chiplet (0,0)
# under --cpu-model gainestown, WORK 1 and 3 on the first transport given, WORK 3 on every one,
# all runs at once. Requires that the modelled cycles and energy grow with the work; that a second
# run (the program named by a longer path, from another directory, with a larger environment)
# gives the same CPU statistics byte for byte; that every transport gives the same CPU statistics
# byte for byte and the same clocks and totals; that no other thread ran inside a measured
# interval (cpuwork's load-time helper thread must have been let finish); that a thread waking
# inside the intervals (cpuwork's napper) is reported; and that --cpu-model off keeps the old
# clock (messages only: far fewer cycles, no CPU statistics).
#   cpu_model.sh PTXSIM CPUWORK WORKDIR TRANSPORT...
set -euo pipefail
ptxsim=$1 prog=$2 work=$3
shift 3
rm -rf "$work" && mkdir -p "$work"
run() { # name transport model work [napper]
  "$ptxsim" chiplets --grid 2x1 --cpu 0,0 --cpu-model "$3" --transport "$2" --timeout 120 \
    --dir "$work/$1" --stats-json "$work/$1.json" -- "${runprog:-$prog}" "$4" ${5:-} > "$work/$1.out" 2> "$work/$1.err" || {
    echo "run $1 failed:"; cat "$work/$1.err"; exit 1; }
  [ "$(grep -c 'PASS$' "$work/$1.out")" = 2 ] || { echo "run $1 did not pass:"; cat "$work/$1.out"; exit 1; }
}
# the runs at once (each is mostly one single-threaded valgrind): determinism under load too
first=$1
pids=()
run "$first-w1" "$first" gainestown 1 & pids+=($!)
# the same program under a 40-byte longer name (valgrind copies it onto the stack twice), from
# another directory (PWD) and with 5000 more bytes of environment: the same stack addresses
(cd / && PTXSIM_TEST_FILL=$(printf 'y%.0s' {1..5000}) \
  runprog="$(dirname "$prog")/$(printf './%.0s' {1..20})$(basename "$prog")" \
  run "$first-w1-again" "$first" gainestown 1) & pids+=($!)
for t in "$@"; do
  run "$t-w3" "$t" gainestown 3 & pids+=($!)
done
run "$first-w1-napper" "$first" gainestown 1 napper & pids+=($!)
run "$first-w3-off" "$first" off 3 & pids+=($!)
failed=0
for p in "${pids[@]}"; do
  wait "$p" || failed=1
done
[ "$failed" = 0 ] || exit 1
cmp "$work/$first-w1/cpu.0.0.json" "$work/$first-w1-again/cpu.0.0.json"
for t in "$@"; do
  cmp "$work/$first-w3/cpu.0.0.json" "$work/$t-w3/cpu.0.0.json"
done
grep -q "warning: CPU chiplet (0,0): other threads ran [1-9][0-9]* instructions inside measured intervals" \
  "$work/$first-w1-napper.err" || { echo "a waking thread was not reported:"; cat "$work/$first-w1-napper.err"; exit 1; }
[ ! -e "$work/$first-w3-off/cpu.0.0.json" ] || { echo "--cpu-model off wrote CPU statistics"; exit 1; }
python3 - "$work" "$first" "$@" <<'PY'
import json, sys
work, first, transports = sys.argv[1], sys.argv[2], sys.argv[3:]
def load(name):
    return json.load(open(f"{work}/{name}.json"))
def cpu(name):
    return json.load(open(f"{work}/{name}/cpu.0.0.json"))
w1, w3, off = cpu(f"{first}-w1"), cpu(f"{first}-w3"), load(f"{first}-w3-off")
for k in ("cycles", "instructions", "energy_j"):
    assert w3[k] > 1.5 * w1[k], (k, w1[k], w3[k])  # one-time table set-up, then rounds
assert w1["cycles"] > 0 and w1["llc_misses"] > 0 and w1["mispredicts"] > 0, w1
assert w1["other_thread_instructions"] == 0 and w3["other_thread_instructions"] == 0, (w1, w3)
assert cpu(f"{first}-w1-napper")["other_thread_instructions"] > 0
for t in transports:
    a, b = load(f"{first}-w3"), load(f"{t}-w3")
    for ca, cb in zip(a["chiplets"], b["chiplets"]):
        for k in ("sends", "clock", "cpu_cycles", "energy_j", "power_w", "wait_cycles"):
            assert ca.get(k) == cb.get(k), (t, ca["x"], k, ca.get(k), cb.get(k))
    for k in ("synchronized_cycles", "cpu_model_energy_j"):
        assert a["totals"][k] == b["totals"][k], (t, k, a["totals"][k], b["totals"][k])
m3 = load(f"{first}-w3")
cpu3 = m3["chiplets"][0]
assert cpu3["role"] == "cpu" and cpu3["cpu_cycles"] == w3["cycles"], cpu3
assert cpu3["clock"] >= w3["cycles"], cpu3
offc = off["chiplets"][0]
assert "cpu_cycles" not in offc and offc["energy_j"] == 0, offc
assert offc["clock"] * 100 < cpu3["clock"], (offc["clock"], cpu3["clock"])
print("cpu model grows with the work: cycles %d -> %d (x%.2f), instructions %d -> %d (x%.2f), "
      "energy %.4g -> %.4g J (x%.2f); --cpu-model off: clock %d; same statistics over %s and "
      "run to run" % (w1["cycles"], w3["cycles"], w3["cycles"] / w1["cycles"], w1["instructions"],
                      w3["instructions"], w3["instructions"] / w1["instructions"], w1["energy_j"],
                      w3["energy_j"], w3["energy_j"] / w1["energy_j"], offc["clock"],
                      " and ".join(transports)))
PY

#!/usr/bin/env bash
# Runs the same chiplet program over the files and the mpi transport and requires identical
# results: every chiplet's output, clock and counters, byte-identical traces, the same network
# report and the same cycle totals.
#   compare_transports.sh PTXSIM GRID WORKDIR -- PROGRAM ARGS...
# CHIPLET_OPTS adds launcher options (e.g. --config configs/gtx480.config for timing mode).
set -euo pipefail
ptxsim=$1 grid=$2 work=$3
shift 4
rm -rf "$work" && mkdir -p "$work"
for t in files mpi; do
  "$ptxsim" chiplets --grid "$grid" --transport $t --timeout 60 --dir "$work/$t" \
    --stats-json "$work/$t.json" ${CHIPLET_OPTS:-} -- "$@" > "$work/$t.out" 2> "$work/$t.err" || {
    echo "transport $t failed:"; cat "$work/$t.err"; exit 1; }
done
diff "$work/files.out" "$work/mpi.out"
n=0
for f in "$work"/files/bench.*; do
  cmp "$f" "$work/mpi/$(basename "$f")"
  n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "no traces written"; exit 1; }
python3 - "$work/files.json" "$work/mpi.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["ok"] and b["ok"], "a run failed"
keys = ("clock", "sends", "sent_bytes", "receives", "received_bytes", "wait_cycles")
for ca, cb in zip(a["chiplets"], b["chiplets"]):
    for k in keys:
        assert ca[k] == cb[k], (ca["x"], ca["y"], k, ca[k], cb[k])
assert a["network"] == b["network"], (a["network"], b["network"])
for k in ("synchronized_cycles", "document_formula_cycles", "document_x16_cycles", "synchronizations"):
    assert a["totals"][k] == b["totals"][k], (k, a["totals"][k], b["totals"][k])
print("files and mpi agree: synchronized %d cycles, document formula %d, x16 %d, %d packets" % (
    a["totals"]["synchronized_cycles"], a["totals"]["document_formula_cycles"],
    a["totals"]["document_x16_cycles"], a["network"]["finished"]))
PY

#!/usr/bin/env bash
# The per-chiplet power the launcher prints and writes (--stats-json) must be each chiplet's
# energy over the simulated time that energy covers: the sum of its kernels' power reports
# (ptxsim.<x>.<y>.json "power": energy_j and seconds), recomputed here independently; every GPU
# chiplet that used energy shows power.
#   power_columns.sh PTXSIM GRID WORK CONFIG -- PROGRAM ARGS...
set -euo pipefail
ptxsim=$1 grid=$2 work=$3 config=$4
shift 5
rm -rf "$work" && mkdir -p "$work"
"$ptxsim" chiplets --grid "$grid" --power --config "$config" --dir "$work/run" \
  --stats-json "$work/stats.json" -- "$@" > "$work/out" 2> "$work/err" || { tail "$work/err"; exit 1; }
python3 - "$work" <<'PY'
import json, re, sys
work = sys.argv[1]
d = json.load(open(work + "/stats.json"))
table = {}
for line in open(work + "/err"):
    m = re.match(r"\s+\((\d+),(\d+)\)\s+(cpu|gpu)\s.*\s([0-9.]+)$", line)
    if m:
        table[(int(m.group(1)), int(m.group(2)))] = float(m.group(4))
total = 0
for c in d["chiplets"]:
    p = json.load(open("%s/run/ptxsim.%d.%d.json" % (work, c["x"], c["y"])))
    energy = sum(k["energy_j"] for k in p["power"])
    secs = sum(k["seconds"] for k in p["power"])
    assert energy > 0 and secs > 0, (c["x"], c["y"], energy, secs)
    want = energy / secs
    assert abs(c["energy_j"] - energy) <= 1e-5 * energy, (c, energy)
    assert abs(c["power_w"] - want) <= 1e-5 * want, (c["x"], c["y"], c["power_w"], want)
    assert abs(table[(c["x"], c["y"])] - want) <= 0.0005 + 1e-4 * want, (table, want)
    # not the copies' time, which the launcher once divided by
    if p["copies"]["sim_seconds"] > 0 and abs(p["copies"]["sim_seconds"] - secs) > 1e-3 * secs:
        assert abs(c["power_w"] - energy / p["copies"]["sim_seconds"]) > 1e-6 * want
    total += want
assert abs(d["totals"]["chiplet_power_w"] - total) <= 1e-5 * total
print("power columns are energy / kernel time: %s W" % ", ".join("%.3f" % c["power_w"] for c in d["chiplets"]))
PY

#!/usr/bin/env bash
# Regenerates the golden timing statistics (tests/golden/stats) from the current build, after a
# change that is MEANT to change cycle counts (say why in the commit). Run from the repository
# root after building: bash tests/golden/update.sh [build-dir]
set -euo pipefail
B=${1:-build}
for cfg in gtx480 v100 h100; do
  for app in vecadd matmul reduction histogram transpose scan; do
    PTXSIM_SAMPLE=off LD_LIBRARY_PATH=$B/lib PTXSIM_MODE=timing PTXSIM_CONFIG=configs/$cfg.config \
      PTXSIM_STATS_JSON=/tmp/golden_$$.json PTXSIM_SUMMARY=0 $B/samples/$app/$app >/dev/null
    python3 - "$app" "$cfg" <<'PY'
import json, os, sys
app, cfg = sys.argv[1], sys.argv[2]
j = json.load(open(f"/tmp/golden_{os.getppid()}.json"))
keep = ("name", "launches", "ctas", "thread_insts", "warp_insts")
out = {"launches": j["launches"], "kernels": [{k: v for k, v in e.items() if k in keep} for e in j["kernels"]]}
json.dump(out, open(f"tests/golden/stats/{app}_{cfg}.json", "w"), indent=0)
PY
  done
done
rm -f /tmp/golden_$$.json
echo "updated tests/golden/stats"

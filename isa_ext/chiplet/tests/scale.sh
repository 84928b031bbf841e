#!/usr/bin/env bash
# The synchronization-cost figures of docs/chiplets.md (not a ctest: 64 processes take minutes
# on 2 cores): for 2x2, 4x4 and 8x8 grids and both transports, the host-API halo exchange
# (tests/halo.cpp: ROUNDS rounds of one word to each mesh neighbour) gives wall time, barriers and
# wall / barriers (the cost of one synchronization); the GPU stencil sample (timing mode, GTX480
# preset) gives the wall time of a real halo-exchange program. Peak memory per process is the
# largest `max_rss_kb` the chiplets report (stats.<x>.<y>.json), or, with RSS_PRELOAD=lib.so
# (a library writing ru_maxrss to $CHIPLET_RSS_DIR/rss.<pid> at exit), what it wrote.
#   scale.sh PTXSIM HALO STENCIL [GRIDS] [WORK]
set -uo pipefail
ptxsim=$1 halo=$2 stencil=$3 grids=${4:-"2x2 4x4 8x8"} work=${5:-/tmp/chiplet_scale}
src=$(cd "$(dirname "$0")/../../.." && pwd)
rounds=${ROUNDS:-100}
mkdir -p "$work"
printf "%-5s %-6s %-8s %8s %9s %12s %12s %s\n" grid transp program wall_s barriers ms_per_barrier peak_rss_MB result
for g in $grids; do
  for t in ${TRANSPORTS:-files mpi}; do
    for p in halo stencil; do
      d="$work/$g.$t.$p" && rm -rf "$d" "$d.rss" && mkdir -p "$d.rss"
      if [ $p = halo ]; then prog=("$halo" "$rounds" 1); opts=(); else prog=("$stencil"); opts=(--config "$src/configs/gtx480.config"); fi
      timeout ${RUN_TIMEOUT:-900} env ${RSS_PRELOAD:+LD_PRELOAD=$RSS_PRELOAD CHIPLET_RSS_DIR=$d.rss} \
        "$ptxsim" chiplets --grid $g --transport $t --timeout 600 "${opts[@]}" --dir "$d" \
        --stats-json "$d.json" -- "${prog[@]}" > "$d.out" 2> "$d.err"
      rc=$?
      python3 - "$d.json" "$d.rss" $g $t $p $rc "$d.out" <<'PY'
import glob, json, os, sys
js, rssdir, g, t, p, rc, out = sys.argv[1:8]
try:
    d = json.load(open(js))
except Exception:
    print("%-5s %-6s %-8s %s (rc %s)" % (g, t, p, "timed out" if rc == "124" else "failed", rc)); sys.exit(0)
syncs = d["totals"]["synchronizations"]
rss = [int(open(f).read()) for f in glob.glob(rssdir + "/rss.*")]
rss += [c.get("max_rss_kb", 0) for c in d["chiplets"]]
passes = open(out).read().count("PASS")
print("%-5s %-6s %-8s %8.2f %9d %12.2f %12.1f %s" % (g, t, p, d["wall_seconds"], syncs,
      1000 * d["wall_seconds"] / max(syncs, 1), max(rss or [0]) / 1024.0,
      "ok %d PASS" % passes if d["ok"] and rc == "0" else "FAILED rc " + rc))
PY
    done
  done
done

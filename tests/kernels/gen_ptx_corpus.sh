#!/bin/bash
# Compile every tests/kernels/*.cu to PTX with every setting in ptx_settings.txt,
# and build each as a full sm_75 executable (compile/link check only).
# Usage: gen_ptx_corpus.sh [outdir] (default /tmp/ptxcorpus). Uses 2 parallel jobs.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-/tmp/ptxcorpus}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
JOBS=${JOBS:-2}
mkdir -p "$OUT/logs" "$OUT/bin"
: > "$OUT/jobs.txt"
while IFS='|' read -r name flags; do
  [ -z "$name" ] && continue
  mkdir -p "$OUT/$name"
  for f in "$HERE"/*.cu; do
    b=$(basename "$f" .cu)
    echo "$name|$flags|$f|$OUT/$name/$b.ptx" >> "$OUT/jobs.txt"
  done
done < "$HERE/ptx_settings.txt"
for f in "$HERE"/*.cu; do
  b=$(basename "$f" .cu)
  echo "exe|-cudart shared -arch=sm_75|$f|$OUT/bin/$b" >> "$OUT/jobs.txt"
done
export NVCC OUT
run_one() {
  IFS='|' read -r name flags src dst <<< "$1"
  b=$(basename "$src" .cu)
  if [ "$name" = exe ]; then cmd="$NVCC $flags $src -o $dst"; else cmd="$NVCC -ptx $flags $src -o $dst"; fi
  if $cmd > "$OUT/logs/$name.$b.log" 2>&1; then echo "OK $name $b"; else echo "FAILED $name $b"; fi
}
export -f run_one
tr '\n' '\0' < "$OUT/jobs.txt" | xargs -0 -P "$JOBS" -I{} bash -c 'run_one "$@"' _ {} > "$OUT/results.txt"
grep -c '^OK' "$OUT/results.txt" | sed 's/^/ok: /'
grep '^FAILED' "$OUT/results.txt" || echo "no failures"

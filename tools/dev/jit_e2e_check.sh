#!/bin/sh
# The JIT's differential check over the e2e suite (docs/executor.md, "Differential mode"): runs
# every program of a build's sm80_O3 e2e setting with PTXSIM_JIT=diff on 1 host thread (every
# launch in both engines, global memory, status, fault message, instruction counts and printf
# output compared) and with PTXSIM_JIT=on on 2 host threads, and prints one line per run:
#   <program> <mode> <PASS|FAIL (why)> <seconds> <the run summary's diff and fallback counts>
# then the totals. Exits 1 when a run failed or diff mode found a mismatch.
# Usage: tools/dev/jit_e2e_check.sh [BUILD_DIR] [MODES]   (MODES: "diff on", the default)
# PROGRAMS=DIR takes the programs from another build (the simulator stays BUILD_DIR's);
# TIMEOUT=S limits each run (600 s); ONLY=REGEX selects programs.
build=${1:-build}
modes=${2:-diff on}
progs=${PROGRAMS:-$build/tests/e2e/sm80_O3}
limit=${TIMEOUT:-600}
lib=$(cd "$build/lib" && pwd) || exit 2
cache=$(mktemp -d "${TMPDIR:-/tmp}/jit_e2e_check.XXXXXX") || exit 2
trap 'rm -rf "$cache"' EXIT
fails=0 runs=0 mism=0
for p in "$progs"/*; do
  [ -x "$p" ] && [ -f "$p" ] || continue
  name=$(basename "$p")
  if [ -n "$ONLY" ] && ! printf '%s\n' "$name" | grep -Eq "$ONLY"; then
    continue
  fi
  for mode in $modes; do
    threads=2
    [ "$mode" = diff ] && threads=1
    out="$cache/$name.$mode.txt"
    t0=$(date +%s.%N)
    (cd "$cache" && LD_LIBRARY_PATH="$lib" PTXSIM_THREADS=$threads PTXSIM_JIT=$mode \
      PTXSIM_JIT_CACHE="$cache/objects" timeout "$limit" "$p" > "$out" 2>&1)
    rc=$?
    t1=$(date +%s.%N)
    runs=$((runs + 1))
    result=PASS
    if [ "$rc" -ne 0 ]; then
      result="FAIL (exit $rc)"
    elif ! grep -q '^PASS ' "$out"; then
      result="FAIL (no PASS line)"
    fi
    m=$(sed -n 's/.*diff: \([0-9]*\) launch(es) compared, \([0-9]*\) mismatch(es).*/\1 compared, \2 mismatches/p' "$out" | tail -1)
    fb=$(grep -c 'jit fallback:' "$out")
    n=$(printf '%s\n' "$m" | sed -n 's/.*, \([0-9]*\) mismatches/\1/p')
    mism=$((mism + ${n:-0}))
    [ "$result" = PASS ] || fails=$((fails + 1))
    printf '%-32s %-4s %-22s %7.2f s  %s%s\n' "$name" "$mode" "$result" \
      "$(echo "$t1 - $t0" | bc)" "${m:+$m, }" "$fb fallback(s)"
    if [ "$result" != PASS ] || [ "${n:-0}" != 0 ]; then
      grep -E 'PTXSIM_JIT=diff|error|fault|FAIL|jit fallback' "$out" | head -5 | sed 's/^/    /'
    fi
  done
done
echo "total: $runs run(s), $fails failed, $mism mismatch(es)"
[ "$fails" -eq 0 ] && [ "$mism" -eq 0 ]

#!/bin/sh
# Runs a CUDA program in timing mode with 1 host thread and with each of THREADS (a
# comma-separated list of thread counts, e.g. 4 or 2,8) and checks that every statistic of every
# launch and the program's output are identical to the one-thread run (the parallel timing
# engine's determinism, docs/timing.md). PTXSIM_PARALLEL_MIN_SMS=0 makes the engine use its
# threads even when few SMs are busy, so small programs exercise the parallel phases too.
# Usage: threads_identical.sh COMPARE_STATS.py CONFIG WORKDIR THREADS PROGRAM [ARGS...]
set -e
compare=$1; config=$2; work=$3; counts=$4; threads=$(echo "$4" | tr ',' ' '); shift 4
mkdir -p "$work"
for t in 1 $threads; do
  PTXSIM_MODE=timing PTXSIM_CONFIG="$config" PTXSIM_THREADS=$t PTXSIM_PARALLEL_MIN_SMS=0 \
    PTXSIM_STATS_JSON="$work/t$t.json" PTXSIM_SUMMARY=0 "$@" > "$work/t$t.out"
done
for t in $threads; do
  python3 "$compare" "$work/t1.json" "$work/t$t.json"
  python3 "$compare" "$work/t$t.json" "$work/t1.json" > /dev/null
  cmp "$work/t1.out" "$work/t$t.out"
done
echo "identical for 1 and $counts threads"

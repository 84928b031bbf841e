#!/bin/sh
# Runs a CUDA program in timing mode with an environment switch of the host's side at 0 and at 1
# and checks that every statistic of every launch and the program's output are identical: such a
# switch changes what the host does, not what the simulated GPU does. Used for
# PTXSIM_SHARE_REGISTER_SLOTS (every register in a slot of its own, or registers sharing slots:
# ptx/exec/RegShare.h) and PTXSIM_HUGE_PAGES (base/HugeAlloc.h). THREADS (default 1) sets the
# host threads.
# Usage: env_identical.sh VARIABLE COMPARE_STATS.py CONFIG WORKDIR PROGRAM [ARGS...]
set -e
var=$1; compare=$2; config=$3; work=$4; shift 4
mkdir -p "$work"
for s in 0 1; do
  env "$var=$s" PTXSIM_MODE=timing PTXSIM_CONFIG="$config" PTXSIM_THREADS="${THREADS:-1}" \
    PTXSIM_STATS_JSON="$work/s$s.json" PTXSIM_SUMMARY=0 "$@" > "$work/s$s.out"
done
python3 "$compare" "$work/s0.json" "$work/s1.json"
python3 "$compare" "$work/s1.json" "$work/s0.json" > /dev/null
cmp "$work/s0.out" "$work/s1.out"
echo "identical with $var=0 and $var=1"

#!/bin/sh
# Runs a CUDA program in timing mode with every register in a slot of its own
# (PTXSIM_SHARE_REGISTER_SLOTS=0) and with registers sharing slots (the default; ptx/exec/RegShare.h),
# and checks that every statistic of every launch and the program's output are identical: sharing
# slots changes what the host keeps, not what the simulated GPU does.
# Usage: reg_slots_identical.sh COMPARE_STATS.py CONFIG WORKDIR PROGRAM [ARGS...]
set -e
compare=$1; config=$2; work=$3; shift 3
mkdir -p "$work"
for s in 0 1; do
  PTXSIM_SHARE_REGISTER_SLOTS=$s PTXSIM_MODE=timing PTXSIM_CONFIG="$config" PTXSIM_THREADS=1 \
    PTXSIM_STATS_JSON="$work/s$s.json" PTXSIM_SUMMARY=0 "$@" > "$work/s$s.out"
done
python3 "$compare" "$work/s0.json" "$work/s1.json"
python3 "$compare" "$work/s1.json" "$work/s0.json" > /dev/null
cmp "$work/s0.out" "$work/s1.out"
echo "identical with registers in slots of their own and sharing slots"

#!/bin/sh
# Runs a CUDA program in timing mode on 1 host thread without SM windows (PTXSIM_SM_WINDOW=0:
# cycle by cycle) and with them (the default, and windows of 3 cycles, whose many boundaries
# test the stops and resumptions), and with the default on 2 host threads (the threads in every
# cycle: shorter windows, and finer ends in cycles with few SMs ticking), and checks that every
# statistic of every launch and the program's output are identical (docs/timing.md, "Speed": SM
# windows change no result).
# Usage: sm_window_identical.sh COMPARE_STATS.py CONFIG WORKDIR PROGRAM [ARGS...]
set -e
compare=$1; config=$2; work=$3; shift 3
mkdir -p "$work"
for w in 0 default 3 threads; do
  threads=1
  case $w in
    default) unset PTXSIM_SM_WINDOW ;;
    threads) unset PTXSIM_SM_WINDOW; threads=2 ;;
    *) export PTXSIM_SM_WINDOW=$w ;;
  esac
  PTXSIM_MODE=timing PTXSIM_CONFIG="$config" PTXSIM_THREADS=$threads PTXSIM_PARALLEL_MIN_SMS=0 \
    PTXSIM_STATS_JSON="$work/w$w.json" PTXSIM_SUMMARY=0 "$@" > "$work/w$w.out"
done
unset PTXSIM_SM_WINDOW
for w in default 3 threads; do
  python3 "$compare" "$work/w0.json" "$work/w$w.json"
  python3 "$compare" "$work/w$w.json" "$work/w0.json" > /dev/null
  cmp "$work/w0.out" "$work/w$w.out"
done
echo "identical without SM windows, with the default, with 3-cycle windows and on 2 threads"

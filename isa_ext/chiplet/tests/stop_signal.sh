#!/usr/bin/env bash
# `ptxsim chiplets` stopped by a signal (SIGTERM, SIGHUP): the launcher ends with 128 + the
# signal's number and no chiplet process (nor mpirun) outlives it. Every wait is bounded; whatever
# is left at the end is killed and fails the test.
#   stop_signal.sh PTXSIM WORKDIR TRANSPORT...
set -u
ptxsim=$1 work=$2
shift 2
rm -rf "$work" && mkdir -p "$work"
tag="ptxsim-stop-test-$$"
chiplets() { pgrep -f -- "^sh -c sleep 60; : $tag" | wc -l; }
fail=0
for t in "$@"; do
  for sig in TERM HUP; do
    "$ptxsim" chiplets --grid 2x1 --transport "$t" --dir "$work/$t-$sig" -- sh -c "sleep 60; : $tag" \
      > "$work/$t-$sig.out" 2> "$work/$t-$sig.err" &
    launcher=$!
    for _ in $(seq 300); do [ "$(chiplets)" -ge 2 ] && break; sleep 0.1; done
    if [ "$(chiplets)" -lt 2 ]; then
      echo "$t $sig: the chiplets did not start"; cat "$work/$t-$sig.err"; fail=1
    fi
    kill -"$sig" "$launcher"
    wait "$launcher"
    rc=$?
    want=$((128 + $(kill -l "$sig")))
    [ "$rc" = "$want" ] || { echo "$t $sig: launcher exited with $rc, not $want"; cat "$work/$t-$sig.err"; fail=1; }
    grep -q "stopped by signal" "$work/$t-$sig.err" || { echo "$t $sig: no 'stopped by signal' line"; fail=1; }
    # mpirun passes the stop on to its ranks as it exits: allow it a few seconds
    for _ in $(seq 100); do [ "$(chiplets)" = 0 ] && break; sleep 0.1; done
    if [ "$(chiplets)" != 0 ]; then
      echo "$t $sig: $(chiplets) chiplet processes outlived the launcher"; fail=1
      pkill -KILL -f -- "^sh -c sleep 60; : $tag"
    else
      echo "$t $sig: launcher exited with $rc, no chiplet left"
    fi
  done
done
[ "$fail" = 0 ] && echo "every chiplet stopped with its launcher"
exit "$fail"

#!/usr/bin/env bash
# The multi-warp exchange of tests/messages.cu must print the same on every chiplet in
# functional and timing mode and over each transport given; in timing mode the transports must
# also agree cycle for cycle (compare_transports.sh).
#   messages_agree.sh PTXSIM MESSAGES WORK CONFIG TRANSPORTS...
set -euo pipefail
ptxsim=$1 prog=$2 work=$3 config=$4
shift 4
rm -rf "$work" && mkdir -p "$work"
ref=""
for t in "$@"; do
  for m in functional timing; do
    opts=(--mode "$m")
    [ "$m" = timing ] && opts=(--config "$config")
    "$ptxsim" chiplets --grid 2x1 --transport "$t" "${opts[@]}" --dir "$work/$t.$m" -- "$prog" warps 3 \
      > "$work/$t.$m.out" 2> "$work/$t.$m.err" || { echo "$t $m failed"; tail -5 "$work/$t.$m.err"; exit 1; }
    [ "$(grep -c 'PASS$' "$work/$t.$m.out")" = 2 ] || { echo "$t $m: not 2 PASS"; cat "$work/$t.$m.out"; exit 1; }
    if [ -z "$ref" ]; then ref="$work/$t.$m.out"; else diff "$ref" "$work/$t.$m.out"; fi
  done
done
if [ $# -gt 1 ]; then
  CHIPLET_OPTS="--config $config" bash "$(dirname "$0")/compare_transports.sh" "$ptxsim" 2x1 "$work/cmp" -- "$prog" warps 3
fi
echo "multi-warp exchange agrees: $(head -1 "$ref")"

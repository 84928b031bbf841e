#!/bin/sh
# Checks the PTX nvcc emits for TARGET as another setting's PTX with its .target line rewritten:
# for the targets in PTX_RETARGETS (tests/CMakeLists.txt) nvcc 13 emits the same PTX as for that
# setting but for the .target line, so compiling them again would check nothing new.
# Usage: retarget_check.sh PTXSIM TARGET WORKDIR FILE...
set -e
ptxsim=$1; target=$2; work=$3; shift 3
rm -rf "$work"
mkdir -p "$work"
for f in "$@"; do
  grep -q '^\.target ' "$f" || { echo "$f has no .target line"; exit 1; }
  sed "s/^\.target [a-z0-9_]*/.target $target/" "$f" > "$work/$(basename "$f")"
done
exec "$ptxsim" ptx check "$work"/*.ptx

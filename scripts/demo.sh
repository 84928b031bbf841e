#!/usr/bin/env bash
# Builds ptxsim and runs the demo on samples/vecadd.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD=${BUILD_DIR:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} >/dev/null
cmake --build "$BUILD" -j "$(nproc)" --target ptxsim vecadd_ptx
PTX="$BUILD/samples/vecadd/vecadd.ptx"
echo "== ptxsim ptx check --summary $PTX"
"$BUILD/bin/ptxsim" ptx check --summary "$PTX"

#!/usr/bin/env bash
# Builds ptxsim and runs the demo: the PTX that nvcc 13 emits for samples/vecadd is parsed,
# checked and summarised (kernels, parameters, registers, memory, instruction mix), then a
# deliberately broken PTX file shows what diagnostics look like.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD=${BUILD_DIR:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} >/dev/null
cmake --build "$BUILD" -j "$(nproc)" --target ptxsim vecadd_ptx >/dev/null
PTX="$BUILD/samples/vecadd/vecadd.ptx"
echo "== ptxsim ptx check --summary $PTX"
"$BUILD/bin/ptxsim" ptx check --summary "$PTX"
echo
echo "== ptxsim ptx check tests/ptx/errors/instructions.ptx (a file with mistakes; first lines)"
"$BUILD/bin/ptxsim" ptx check tests/ptx/errors/instructions.ptx 2>&1 | head -12 || true

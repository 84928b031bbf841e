#!/usr/bin/env bash
# Builds ptxsim and runs the demo: samples/vecadd is built with nvcc as a user would build it,
# ptxsim extracts the (compressed) PTX from the executable's fatbin, then parses, checks and
# summarises it (kernels, parameters, registers, memory, instruction mix). A deliberately broken
# PTX file then shows what diagnostics look like. (Running the program under the simulator comes
# with the executor and runtime.)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD=${BUILD_DIR:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} >/dev/null
cmake --build "$BUILD" -j "$(nproc)" --target ptxsim vecadd_bin >/dev/null
BIN="$BUILD/samples/vecadd/vecadd"
OUT="$BUILD/samples/vecadd/extracted"
echo "== ptxsim ptx extract $BIN -o $OUT"
"$BUILD/bin/ptxsim" ptx extract "$BIN" -o "$OUT"
echo
echo "== ptxsim ptx check --summary $OUT/vecadd.sm_75.ptx"
"$BUILD/bin/ptxsim" ptx check --summary "$OUT/vecadd.sm_75.ptx"
echo
echo "== ptxsim ptx check tests/ptx/errors/instructions.ptx (a file with mistakes; first lines)"
"$BUILD/bin/ptxsim" ptx check tests/ptx/errors/instructions.ptx 2>&1 | head -12 || true

#!/usr/bin/env bash
# Builds ptxsim and runs the demo: the CUDA programs in samples/ are built with nvcc exactly as a
# user builds them (`nvcc -cudart shared`), then run unmodified under the simulator by pointing
# the dynamic loader at ptxsim's libcudart.so.13 (LD_LIBRARY_PATH=build/lib). Each program checks
# its results against a host reference and prints them with PASS or FAIL; ptxsim adds a summary
# of the kernels it ran (launches, thread instructions, speed). Finally, a short look at the PTX
# front end: the PTX extracted from a sample's fatbin, and what diagnostics look like.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD=${BUILD_DIR:-build}
SAMPLES="vecadd matmul reduction histogram transpose scan stencil"
echo "== building ptxsim, its libcudart.so.13 and the samples in $BUILD (a few minutes the first time)"
mkdir -p "$BUILD"
if ! { cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} &&
       cmake --build "$BUILD" -j "$(nproc)" --target ptxsim cudart_ptxsim samples; } \
     >"$BUILD/demo-build.log" 2>&1; then
  tail -n 40 "$BUILD/demo-build.log"
  echo "demo: the build failed (whole log: $BUILD/demo-build.log)"
  exit 1
fi

failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for name in $SAMPLES; do
  echo
  echo "== LD_LIBRARY_PATH=$BUILD/lib $BUILD/samples/$name/$name"
  # the program's results first, then ptxsim's run summary (which it prints on stderr at exit)
  status=0
  LD_LIBRARY_PATH="$BUILD/lib" "$BUILD/samples/$name/$name" 2>"$log" || status=$?
  sed -e '/^$/d' "$log"
  if [ "$status" -ne 0 ]; then
    echo "(exit status $status)"
    failed=$((failed + 1))
  fi
done

# The same program on a configured GPU: cycle-level timing and a power report (the summary on
# stderr gives cycles, IPC, stalls, cache and DRAM misses, energy and power per kernel).
echo
echo "== $BUILD/bin/ptxsim run --power --config configs/gtx480.config -- $BUILD/samples/matmul/matmul"
status=0
"$BUILD/bin/ptxsim" run --power --config configs/gtx480.config -- "$BUILD/samples/matmul/matmul" \
  2>"$log" || status=$?
sed -e '/^$/d' "$log"
if [ "$status" -ne 0 ]; then
  echo "(exit status $status)"
  failed=$((failed + 1))
fi

BIN="$BUILD/samples/vecadd/vecadd"
OUT="$BUILD/samples/vecadd/extracted"
echo
echo "== ptxsim ptx extract $BIN -o $OUT; ptxsim ptx check --summary (first lines)"
"$BUILD/bin/ptxsim" ptx extract "$BIN" -o "$OUT"
"$BUILD/bin/ptxsim" ptx check --summary "$OUT/vecadd.sm_75.ptx" | head -14 || true
echo
echo "== ptxsim ptx check tests/ptx/errors/instructions.ptx (a file with mistakes; first lines)"
"$BUILD/bin/ptxsim" ptx check tests/ptx/errors/instructions.ptx 2>&1 | head -6 || true
echo
if [ "$failed" -ne 0 ]; then
  echo "demo: $failed sample(s) FAILED"
  exit 1
fi
echo "demo: all $(echo $SAMPLES | wc -w) samples PASSED under ptxsim (functional mode), and matmul in timing mode with power"

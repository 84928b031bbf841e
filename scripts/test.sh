#!/usr/bin/env bash
# Builds ptxsim and runs every test (unit, PTX corpus, CLI, bounded fuzzing).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD=${BUILD_DIR:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} >/dev/null
cmake --build "$BUILD" -j "$(nproc)"
ctest --test-dir "$BUILD" --output-on-failure -j "$(nproc)"
# The build without LLVM (-DPTXSIM_JIT=OFF): the interpreter alone; the JIT's tests skip, and
# one checks that PTXSIM_JIT=on runs interpreted and names the reason (docs/executor.md). A second
# build of the ptx library: only with PTXSIM_TEST_NOJIT=1, so the
# default command stays under 20 minutes on a fresh clone.
if [ "${PTXSIM_TEST_NOJIT:-0}" = 1 ]; then
  cmake -S . -B "$BUILD-nojit" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} -DPTXSIM_JIT=OFF \
    -DPTXSIM_CUDA_TESTS=OFF -DPTXSIM_FUZZ=OFF >/dev/null
  cmake --build "$BUILD-nojit" -j "$(nproc)" --target ptxsim_jit_tests
  ctest --test-dir "$BUILD-nojit" -R '^jit\.' --output-on-failure -j "$(nproc)"
fi

#!/usr/bin/env bash
# The SPU report's figure 8, reproduced and extended (docs/spu.md): cycles, average power and
# DRAM traffic of the SPU without and with regstart, the GPU limited to one block per SM and
# the unmodified GPU, for the tiled matrix multiply and two stencils, plus section 5's options.
#
#   samples/spu/figure8.sh [BUILD_DIR [OUT_DIR]] [--quick]
#
# Builds the test programs it needs (target spu_test_programs) and writes OUT_DIR/figure8.md,
# figure8.json, figure8.png and one HTML report per workload, figure8-N.html (ptxsim report;
# the statistics files are kept in OUT_DIR/stats) (default OUT_DIR: BUILD_DIR/figure8).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
quick=()
args=()
for a in "$@"; do
  if [ "$a" = "--quick" ]; then quick=(--quick); else args+=("$a"); fi
done
build=${args[0]:-$root/build}
out=${args[1]:-$build/figure8}
cmake --build "$build" --target spu_test_programs cudart_ptxsim ptxsim -j2 >/dev/null
# the plot needs matplotlib: use a python that has it (scripts/setup.sh installs Debian's)
py=python3
for c in python3 /usr/bin/python3; do
  if "$c" -c 'import matplotlib' >/dev/null 2>&1; then py=$c; break; fi
done
exec "$py" "$here/figure8.py" "$build" --out "$out" "${quick[@]}"

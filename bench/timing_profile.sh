#!/bin/sh
# The timing engine's host-time profile (PTXSIM_TIMING_PROFILE=1, docs/timing.md "Profile") for
# the compute-bound, memory-bound and divergent kernels of bench_timing and for the 500-launch
# stencil program, on one preset and one host thread count: where the time goes (serial steps,
# the SMs' phase on the threads or one thread, fork-joins) and the Amdahl estimate of the
# speed-up on more threads. Run with 1 thread to predict the scaling on a larger host, with N
# to see what N threads did. Also times the fork-join alone (bench_timing --fork-join).
# Usage: bench/timing_profile.sh [BUILD_DIR] [THREADS] [PRESET]   (default: build, nproc, h100)
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
threads=${2:-$(nproc)}
preset=${3:-h100}
bench=$build/bin/bench_timing
ptx=${BENCH_PTX:-$build/bench/exec_kernels.ptx}
if ! grep -q '^\.version' "$ptx" 2>/dev/null; then
  echo "timing_profile.sh: $ptx is not PTX (built without nvcc?): build the bench_exec_ptx target or set BENCH_PTX" >&2
  exit 1
fi
echo "host: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $preset preset, $threads host thread(s)"
for k in alu_bound memory_bound divergent_shuffle; do
  echo "== $k"
  PTXSIM_TIMING_PROFILE=1 "$bench" --threads "$threads" --kernel "$k" "$root/configs/$preset.config" "$ptx" 2>&1 |
    grep -v -e '^config' -e 'energy' -e '^kernel '
done
stencil=$build/samples/stencil/stencil
if [ -x "$stencil" ]; then
  echo "== stencil_program (500 launches)"
  PTXSIM_TIMING_PROFILE=1 PTXSIM_MODE=timing PTXSIM_SAMPLE=off PTXSIM_CONFIG="$root/configs/$preset.config" \
    PTXSIM_THREADS="$threads" PTXSIM_SUMMARY=0 LD_LIBRARY_PATH="$build/lib" "$stencil" 2>&1 >/dev/null
fi
if [ "$threads" -gt 1 ]; then
  echo "== fork-join alone"
  "$bench" --threads "$threads" --fork-join --kernel none "$root/configs/$preset.config" "$ptx" | grep fork-join
fi

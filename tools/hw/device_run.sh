#!/bin/bash
# One prepared run for a lent GPU machine (the device tool): the native check of every test
# program (tools/hw/native_check.sh, drv_vmm included), the memory-bound functional slowdown
# (bench_exec), timing speed on 1, 2 and 16 host threads (issue 19's 16-core figure) and the
# engine's profile at 16 threads. Writes under $OUT (the device tool's output folder).
# Build here first, then run with the device tool, carrying build/bin/bench_timing,
# build/bin/bench_exec, build/lib, build/bench and build/samples/stencil:
#   bash tools/hw/device_run.sh        (about 8 minutes; give the machine back afterwards)
set -u
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/device_run}
mkdir -p "$OUT"
git log -1 --format=%H > "$OUT/commit.txt" 2>/dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
timeout 240 bash tools/hw/native_check.sh "$OUT/native" 16 > "$OUT/native.log" 2>&1
echo "native rc $?" >> "$OUT/native.log"
build/bin/bench_exec --kernel memory_bound --reps 5 > "$OUT/bench_exec.txt" 2>&1
PRESETS=h100 timeout 200 sh bench/timing_speed.sh build 1 2 16 > "$OUT/speed.txt" 2>&1
echo "speed rc $?" >> "$OUT/speed.txt"
timeout 60 sh bench/timing_profile.sh build 16 h100 > "$OUT/profile16.txt" 2>&1

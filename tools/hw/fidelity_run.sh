#!/bin/bash
# One device run for issue 31 (bits of the approximate f32 operations, shared-memory tiled kernels,
# contended atomics) on a lent H100/H200. Expects the prebuilt binaries math_bits, smem_tiled and
# atomics_contended (nvcc -cudart shared -O2 -arch=sm_90 from tools/hw/probes/math_bits.cu and
# tools/correlate/kernels/*.cu) beside it; writes at most 8 files under $OUT.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?set OUT}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
log=$out/log.txt
tmp=$(mktemp -d)
cd "$here"
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  /usr/local/cuda/bin/nvcc --version | tail -2
  for b in math_bits smem_tiled atomics_contended; do echo "### $b"; ldd ./$b | grep -i cuda; done
} > "$log" 2>&1
echo "### math_bits" >> "$log"
timeout 60 ./math_bits "$tmp/bits.bin" > "$out/math_bits_gpu.txt" 2>> "$log"; echo "exit $?" >> "$log"
echo "### math_bits --sweep" >> "$log"
timeout 60 ./math_bits --sweep "$tmp/sweep.bin" >> "$log" 2>&1; echo "exit $?" >> "$log"
for r in 1 2; do
  echo "### smem_tiled run $r" >> "$log"
  timeout 30 ./smem_tiled >> "$log" 2>&1; echo "exit $?" >> "$log"
  echo "### atomics_contended run $r" >> "$log"
  timeout 30 ./atomics_contended >> "$log" 2>&1; echo "exit $?" >> "$log"
done
nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv >> "$log" 2>&1
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda*/nsight-compute*/ncu 2>/dev/null | head -1)
echo "### ncu: $ncu" >> "$log"
if [ -n "$ncu" ]; then
  for b in smem_tiled atomics_contended; do
    echo "### PROGRAM $b"
    timeout 60 "$ncu" --csv --clock-control none --metrics gpc__cycles_elapsed.max,sm__cycles_active.avg,smsp__inst_executed.sum,gpu__time_duration.sum,launch__grid_size,launch__block_size ./$b 2>&1
  done > "$out/ncu.csv"
fi
objdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
for b in math_bits smem_tiled atomics_contended; do echo "##### $b"; "$objdump" -sass ./$b 2>&1; done | gzip -9 > "$out/sass.txt.gz"
gzip -1 -c "$tmp/bits.bin" > "$tmp/bits.bin.gz" && split -b 15M -d "$tmp/bits.bin.gz" "$out/bits.bin.gz."
gzip -6 -c "$tmp/sweep.bin" > "$tmp/sweep.bin.gz" && split -b 15M -d "$tmp/sweep.bin.gz" "$out/sweep.bin.gz."
ls -la "$out" >> "$log"
date -u >> "$log"

#!/bin/bash
# Builds every probe in tools/hw/probes and runs them one at a time on a real GPU; all output goes
# to one file (OUT), each probe's under a "##### name" line. Each probe prints what the hardware
# does for one question ptxsim's tests asked (which error code, which rounding, which default).
# Usage (on a machine with a GPU and nvcc):  tools/hw/run_probes.sh OUT
set -u
out=${1:?usage: run_probes.sh OUT}
case "$out" in /*) ;; *) out=$PWD/$out ;; esac
C=$(dirname "$(dirname "$(command -v nvcc)")")
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
cd "$(dirname "$0")/probes"
nvidia-smi --query-gpu=name,compute_mode,clocks.sm --format=csv > "$out"
ls *.cu | xargs -P"$(nproc)" -I{} sh -c "n=\$(basename {} .cu); nvcc -cudart shared -arch=sm_90 {} -o $bin/\$n -L$C/lib64/stubs -lcuda > $bin/\$n.log 2>&1 || echo BUILD_FAILED >> $bin/\$n.log"
for f in *.cu; do
  n=${f%.cu}
  { echo "##### $n"; cat "$bin/$n.log"; } >> "$out"
  if [ -x "$bin/$n" ]; then
    (cd "$bin" && timeout 8 "./$n") > "$bin/o.txt" 2>&1; rc=$?
    { head -c 3000000 "$bin/o.txt"; echo "exit $rc"; } >> "$out"
  fi
done

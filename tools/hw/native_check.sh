#!/bin/bash
# Builds the project's own test programs with nvcc and runs them natively on a real NVIDIA GPU,
# recording each program's exit status and whether it printed its PASS line. Whatever passes under
# ptxsim must pass here too: a program that fails natively is a defect in ptxsim or in the test.
#
# Usage (on a machine with a GPU, the CUDA toolkit and nvcc):  tools/hw/native_check.sh OUTDIR [JOBS]
# Writes OUTDIR/native_tests.tsv (setting, program, exit status, PASS printed) and OUTDIR/failures.txt
# (the output of every program that did not pass). Settings:
#   shared  tests/kernels/*.cu, tests/e2e/*.cu   nvcc -cudart shared -O2 -arch=sm_90 (as ncu measured)
#   static  the same sources, plain nvcc -O2 -arch=sm_90 (NVIDIA's static runtime)
#   its     tests/e2e/its/*.cu                   nvcc -cudart shared -arch=sm_80 (as the ctests build)
#   driver  tests/driver programs (driver API, NVRTC, runtime + driver in one process)
# ONLY=REGEX (environment) keeps the tests/kernels and tests/e2e programs whose name matches REGEX
# and skips the its, driver and sticky-probe parts: a short check of the programs a change touched.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: native_check.sh OUTDIR [JOBS]}
jobs=${2:-$(nproc)}
nvcc=${NVCC:-nvcc}
cuda=$(dirname "$(dirname "$(command -v "$nvcc")")")
mkdir -p "$out"
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
mkdir -p "$bin/shared" "$bin/static" "$bin/its" "$bin/driver"

# One build command per line, run JOBS at a time.
{
  for cu in "$root"/tests/kernels/*.cu "$root"/tests/e2e/*.cu; do
    n=$(basename "$cu" .cu)
    if [ -n "${ONLY:-}" ] && ! echo "$n" | grep -Eq "$ONLY"; then continue; fi
    echo "$nvcc -cudart shared -O2 -arch=sm_90 $cu -o $bin/shared/$n"
    echo "$nvcc -O2 -arch=sm_90 $cu -o $bin/static/$n"
  done
  [ -n "${ONLY:-}" ] || for cu in "$root"/tests/e2e/its/*.cu; do
    echo "$nvcc -cudart shared -arch=sm_80 $cu -o $bin/its/$(basename "$cu" .cu)"
  done
  d=$root/tests/driver
  [ -n "${ONLY:-}" ] || {
  echo "$nvcc -ptx -arch=compute_90 $d/drv_kernels.cu -o $bin/driver/drv_kernels.ptx && $nvcc -fatbin -gencode arch=compute_90,code=compute_90 $d/drv_kernels.cu -o $bin/driver/drv_kernels.fatbin"
  echo "$nvcc -fatbin -gencode arch=compute_90,code=compute_90 $root/tests/kernels/01_vecadd.cu -o $bin/driver/vecadd_kernels.fatbin"
  echo "g++ -O1 -I$cuda/include $d/drv_api.cpp -L$cuda/lib64/stubs -lcuda -o $bin/driver/drv_api"
  echo "g++ -O1 -I$cuda/include $d/drv_vmm.cpp -L$cuda/lib64/stubs -lcuda -o $bin/driver/drv_vmm"
  echo "g++ -O1 -I$cuda/include $d/drv_vecadd.cpp -L$cuda/lib64/stubs -lcuda -o $bin/driver/drv_vecadd"
  echo "g++ -O1 -I$cuda/include $d/drv_nvrtc.cpp -L$cuda/lib64/stubs -L$cuda/lib64 -lcuda -lnvrtc -Wl,-rpath,$cuda/lib64 -o $bin/driver/drv_nvrtc"
  echo "$nvcc -cudart shared -gencode arch=compute_90,code=compute_90 $d/drv_mixed.cu -L$cuda/lib64/stubs -lcuda -o $bin/driver/drv_mixed"
  }
} > "$bin/build.txt"
start=$(date +%s)
xargs -P "$jobs" -I{} sh -c '{} > /dev/null 2>&1 || echo "BUILD FAILED: {}"' < "$bin/build.txt" | tee "$out/build_failures.txt"
echo "built in $(( $(date +%s) - start )) s"

printf 'setting\tprogram\texit_status\tpass_line\n' > "$out/native_tests.tsv"
: > "$out/failures.txt"
pass=0; fail=0
for setting in shared static its driver; do
  for exe in "$bin/$setting"/*; do
    [ -x "$exe" ] && [ -f "$exe" ] || continue
    case "$exe" in *.ptx|*.fatbin) continue ;; esac
    n=$(basename "$exe")
    (cd "$bin/$setting" && timeout 30 "$exe") > "$bin/log" 2>&1
    rc=$?
    p=no; grep -q '^PASS ' "$bin/log" && p=yes
    printf '%s\t%s\t%s\t%s\n' "$setting" "$n" "$rc" "$p" >> "$out/native_tests.tsv"
    if [ "$rc" = 0 ] && [ "$p" = yes ]; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1))
      { echo "### $setting/$n (exit $rc)"; tail -n 25 "$bin/log"; } >> "$out/failures.txt"
    fi
  done
done
echo "native: $pass passed, $fail did not (see $out/failures.txt)"

# The sticky-error sequence after a kernel fault, static and shared runtime (tools/hw/sticky_probe.cu).
[ -n "${ONLY:-}" ] || for rt in shared static; do
  flag=; [ $rt = shared ] && flag="-cudart shared"
  $nvcc $flag -arch=sm_90 "$root/tools/hw/sticky_probe.cu" -o "$bin/sticky_$rt" &&
    { echo "## $rt runtime"; timeout 60 "$bin/sticky_$rt"; echo "exit $?"; } >> "$out/sticky_probe.txt" 2>&1
done

#!/usr/bin/env bash
# Installs the Debian packages ptxsim needs that a fresh Debian 12 image may lack.
# Idempotent: does nothing when everything is already present.
set -euo pipefail
need=()
command -v flex  >/dev/null 2>&1 || need+=(flex)
command -v bison >/dev/null 2>&1 || need+=(bison)
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v clang++ >/dev/null 2>&1 || need+=(clang)
# tests compare JSON statistics and run the scheduler-study script with python3
command -v python3 >/dev/null 2>&1 || need+=(python3)
# samples/spu/figure8.sh draws its plot with matplotlib
python3 -c 'import matplotlib' >/dev/null 2>&1 || /usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1 || need+=(python3-matplotlib)
[ -f /usr/include/lz4.h ] || need+=(liblz4-dev)
[ -f /usr/include/zstd.h ] || need+=(libzstd-dev)
[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
[ -f /usr/include/benchmark/benchmark.h ] || need+=(libbenchmark-dev)
# the chiplet extension's mpi transport (isa_ext/chiplet) and its tests (mpirun, 9 ranks)
[ -f /usr/include/x86_64-linux-gnu/mpi/mpi.h ] || [ -f /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h ] || need+=(libopenmpi-dev)
command -v mpirun >/dev/null 2>&1 || need+=(openmpi-bin)
# the chiplet extension's CPU model (`ptxsim chiplets --cpu-model`): callgrind and its client requests
{ command -v valgrind >/dev/null 2>&1 && [ -f /usr/include/valgrind/callgrind.h ]; } || need+=(valgrind)
# the functional engine's LLVM JIT (ptx/jit, docs/executor.md; the build works without it)
[ -f /usr/lib/llvm-14/lib/cmake/llvm/LLVMConfig.cmake ] || need+=(llvm-14-dev)
# libFuzzer runtime for clang 14 (the fuzz target).
ls /usr/lib/llvm-14/lib/clang/14*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-14-dev)
# `ptxsim sweep` reads its TOML specs with toml++ (header-only)
[ -f /usr/include/toml++/toml.h ] || need+=(libtomlplusplus-dev)
# the MUFU tests read the H200's sweeps (tools/hw/data/*.d.xz) through xz
command -v xz >/dev/null 2>&1 || need+=(xz-utils)
# the headless-browser test of `ptxsim report` pages (tests/report)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
# the sweep tests run a real single-node Slurm (Debian's slurmctld, slurmd, munge; tests/sweep)
if [ "$(id -u)" -eq 0 ]; then
  bash "$(dirname "$0")/slurm_local.sh" install ||
    echo "setup: warning: could not install Slurm: the test sweep_slurm will be skipped" >&2
elif ! command -v slurmd >/dev/null 2>&1; then
  echo "setup: warning: Slurm is not installed (scripts/slurm_local.sh install, as root): the test sweep_slurm will be skipped" >&2
fi
if [ ! -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null 2>&1; then
  echo "setup: warning: nvcc not found (expected CUDA 13 at /usr/local/cuda); CUDA tests will be skipped" >&2
fi

# `ptxsim report` inlines the uPlot chart library (MIT) into its pages: a pinned release from the
# npm registry, checked against the registry's sha512 integrity, unpacked into the user's cache
# (never committed). Without it reports still have every table and say that charts are missing.
UPLOT_VERSION=1.6.32 # keep equal to kUplotVersion in runtime/report/Report.h
UPLOT_INTEGRITY=sha512-KIMVnG68zvu5XXUbC4LQEPnhwOxBuLyW1AHtpm6IKTXImkbLgkMy+jabjLgSLMasNuGGzQm/ep3tOkyTxpiQIw==
uplot_dir=${XDG_CACHE_HOME:-$HOME/.cache}/ptxsim/uplot-$UPLOT_VERSION
if [ ! -s "$uplot_dir/uPlot.iife.min.js" ]; then
  tmp=$(mktemp -d)
  tgz=$tmp/uplot-$UPLOT_VERSION.tgz
  if command -v npm >/dev/null 2>&1; then
    (cd "$tmp" && npm pack --silent "uplot@$UPLOT_VERSION" >/dev/null 2>&1) || true
  fi
  if [ ! -s "$tgz" ] && command -v curl >/dev/null 2>&1; then
    curl -fsSL "https://registry.npmjs.org/uplot/-/uplot-$UPLOT_VERSION.tgz" -o "$tgz" || true
  fi
  got=
  [ -s "$tgz" ] && got=sha512-$(python3 -c 'import base64,hashlib,sys; print(base64.b64encode(hashlib.sha512(open(sys.argv[1],"rb").read()).digest()).decode())' "$tgz")
  if [ -n "$got" ] && [ "$got" = "$UPLOT_INTEGRITY" ]; then
    mkdir -p "$uplot_dir"
    tar -xzf "$tgz" -C "$tmp" package/dist/uPlot.iife.min.js package/dist/uPlot.min.css package/LICENSE
    cp "$tmp/package/dist/uPlot.iife.min.js" "$tmp/package/dist/uPlot.min.css" "$tmp/package/LICENSE" "$uplot_dir/"
    echo "setup: uPlot $UPLOT_VERSION in $uplot_dir"
  elif [ -n "$got" ]; then
    echo "setup: warning: uplot-$UPLOT_VERSION.tgz has integrity $got, expected $UPLOT_INTEGRITY: not used" >&2
  else
    echo "setup: warning: could not fetch uPlot $UPLOT_VERSION from the npm registry: ptxsim report pages will have no charts" >&2
  fi
  rm -rf "$tmp"
fi

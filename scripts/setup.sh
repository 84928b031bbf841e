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
# libFuzzer runtime for clang 14 (the fuzz target).
ls /usr/lib/llvm-14/lib/clang/14*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-14-dev)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
if [ ! -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null 2>&1; then
  echo "setup: warning: nvcc not found (expected CUDA 13 at /usr/local/cuda); CUDA tests will be skipped" >&2
fi

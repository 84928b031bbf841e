#!/bin/sh
# Runs one e2e program (with the environment ctest gives it) and passes when it exits with 0 and
# prints a line "PASS <name>". Its output is echoed so `ctest --output-on-failure` shows it.
# (A shell, not `cmake -P`: ctest starts this for some 650 tests, and cmake's start-up cost
# 10-50 ms of CPU each.)
# Usage: run_e2e.sh PROGRAM [ARGS...]
out=$("$@")
rc=$?
printf '%s\n' "$out"
if [ "$rc" -gt 128 ]; then
  echo "$1 was killed by signal $((rc - 128))"
  exit 1
elif [ "$rc" -ne 0 ]; then
  echo "$1 exited with '$rc'"
  exit 1
fi
if ! printf '%s\n' "$out" | grep -q '^PASS '; then
  echo "$1 did not print PASS"
  exit 1
fi

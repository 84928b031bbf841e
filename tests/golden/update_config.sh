#!/usr/bin/env bash
# Regenerates the golden configuration dumps (tests/golden/config: `ptxsim run --print-config` of
# every GPU preset in configs/ and of the defaults) after a change MEANT to change an option's
# name, default, help or place (say why in the commit). Run from the repository root after
# building: bash tests/golden/update_config.sh [build-dir]
set -euo pipefail
B=${1:-build}
PROG=$B/tests/cli/scale
for f in configs/*.config; do
  case $f in *.cpu.config) continue ;; esac # CPU chiplet presets are no GPU configurations
  n=$(basename "$f" .config)
  $B/bin/ptxsim run --mode functional --print-config --no-summary --config "$f" -- $PROG \
    2>tests/golden/config/$n.txt >/dev/null
done
$B/bin/ptxsim run --mode timing --print-config --no-summary -- $PROG \
  2>tests/golden/config/default.txt >/dev/null
echo "updated tests/golden/config"

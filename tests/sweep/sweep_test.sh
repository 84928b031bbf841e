#!/usr/bin/env bash
# End-to-end tests of `ptxsim sweep` (ctest sweep_cli_errors, sweep_local, sweep_slurm).
#
#   sweep_test.sh errors|local|slurm PTXSIM BIN_DIR WORK_DIR CHROMIUM [CHIPLETS_DIR|none]
#
# local: the 8-point grid of tiny.toml with one point made to fail (its stderr tail listed, the
#   re-run skips everything, --retry-failed runs it alone), the tables checked against the stats
#   files and the page in headless Chromium; then a sweep killed with SIGKILL mid-way and
#   restarted loses no finished point and ends with the same table.
# slurm: the same grid through `--backend slurm` on a real single-node Slurm started here
#   (scripts/slurm_local.sh; stopped on exit), with the same failure, re-run and retry; its table
#   must equal the local one. Skips (77) when not root or Slurm is not installed.
# Both then run chiplets.toml (a program and a 2-chiplet samples/chiplets/chiplet_stencil point,
# x 2 schedulers, power mode) when CHIPLETS_DIR holds the sample: local with the files
# transport, Slurm with mpi (one job of 2 tasks per chiplet point, the launcher's mpirun inside
# the allocation); the tables are checked against each chiplet's statistics and must be equal.
# CHIPLETS_DIR "none" leaves the chiplet points out.
set -uo pipefail
mode=$1 ptxsim=$2 bin=$3 work=$4 chromium=$5 chipdir=${6:-none}
here=$(cd "$(dirname "$0")" && pwd)
chipspec=$here/chiplets.toml
chipsets=(--set bin="$bin" --set chiplets="$chipdir")
have_chiplets() {
  [ "$chipdir" != none ] || { echo "note: no chiplet sample given: the chiplet points are left out"; return 1; }
  [ -x "$chipdir/chiplet_stencil" ] || fail "$chipdir/chiplet_stencil is not built (target chiplet_stencil_bin)"
}
root=$(cd "$here/../.." && pwd)
spec=$here/tiny.toml
check="python3 $here/check_sweep.py"
bad=saxpy__gto__48k
# the page is opened in Chromium when there is one (scripts/setup.sh installs it)
browser=()
if command -v "$chromium" >/dev/null 2>&1; then
  browser=(--browser "$chromium")
else
  echo "note: $chromium not found: the pages are checked without a browser"
fi

fail() { echo "FAIL: $*"; exit 1; }
expect_rc() { # expect_rc WANT LOG CMD...
  local want=$1 log=$2; shift 2
  "$@" >"$log" 2>&1
  local rc=$?
  cat "$log"
  [ "$rc" -eq "$want" ] || fail "exit status $rc, expected $want: $*"
}
has() { grep -qF -- "$2" "$1" || fail "$1 lacks: $2"; }
mtimes() { (cd "$1" && find points -name result.json -printf '%p %T@\n' | sort); }

case "$mode" in
errors)
  d=$work/errors
  rm -rf "$d" && mkdir -p "$d" && cd "$d" || exit 1
  printf 'name = "e"\nbogus = 1\n[[program]]\nname = "p"\ncommand = ["true"]\n' >unknown.toml
  expect_rc 2 e1.txt "$ptxsim" sweep unknown.toml
  has e1.txt "unknown.toml:2:9: spec: unknown key 'bogus'"
  printf 'name = "e"\n[[program]]\nname = "p"\ncommand = ["${nope}/x"]\n' >undef.toml
  expect_rc 2 e2.txt "$ptxsim" sweep undef.toml
  has e2.txt "undef.toml:4:12: program[0].command[0]: undefined variable '\${nope}'"
  printf 'name = "e"\n[[program]]\nname = "p"\ncommand = ["./missing-program"]\n' >missing.toml
  expect_rc 2 e3.txt "$ptxsim" sweep missing.toml
  has e3.txt "program 'p': $d/missing-program: cannot read: No such file or directory"
  printf 'name = "e"\n[[program]]\nname = "p"\ncommand = ["true"]\n[[axis]]\nname = "s"\noption = "-x"\nvalues = ["a", "a"]\n' >dup.toml
  expect_rc 2 e4.txt "$ptxsim" sweep dup.toml
  has e4.txt "dup.toml:8:16: axis[0].values[1]: a second value named 'a'"
  printf 'name = "e"\n[[program]\n' >syntax.toml
  expect_rc 2 e5.txt "$ptxsim" sweep syntax.toml
  has e5.txt "syntax.toml:2:"
  expect_rc 2 e6.txt "$ptxsim" sweep "$spec" --backend pbs
  has e6.txt "unknown backend 'pbs' (local or slurm)"
  printf 'name = "e"\nconfigs = ["nowhere.config"]\n[[program]]\nname = "p"\ncommand = ["true"]\n' >cfg.toml
  expect_rc 2 e7.txt "$ptxsim" sweep cfg.toml
  has e7.txt "point p: configuration: $d/nowhere.config: cannot read"
  printf 'name = "e"\n[baseline]\nx = "y"\n[[program]]\nname = "p"\ncommand = ["true"]\n' >base.toml
  expect_rc 2 e8.txt "$ptxsim" sweep base.toml
  has e8.txt "baseline.x: no axis named 'x'"
  printf 'name = "e"\n[[program]]\nname = "p"\nkind = "chiplets"\ngrid = "2y2"\ncommand = ["true"]\n' >grid.toml
  expect_rc 2 e9.txt "$ptxsim" sweep grid.toml
  has e9.txt "grid.toml:5:8: program[0].grid: '2y2' is not WxH (1..64 each)"
  printf 'name = "e"\n[[program]]\nname = "p"\nkind = "chiplets"\ngrid = "2x1"\ntransport = "tcp"\ncommand = ["true"]\n' >tr.toml
  expect_rc 2 e10.txt "$ptxsim" sweep tr.toml
  has e10.txt "tr.toml:6:13: program[0].transport: 'tcp' is not files or mpi"
  printf 'name = "e"\n[[program]]\nname = "p"\ngrid = "2x1"\ncommand = ["true"]\n' >nokind.toml
  expect_rc 2 e11.txt "$ptxsim" sweep nokind.toml
  has e11.txt "nokind.toml:4:8: program[0].grid: only a program of kind = \"chiplets\" has one"
  printf 'name = "e"\nmodes = ["sample-kernels"]\nconfigs = ["%s"]\n[[program]]\nname = "p"\nkind = "chiplets"\ngrid = "2x1"\ncommand = ["true"]\n' "$root/configs/gtx480.config" >smp.toml
  expect_rc 2 e12.txt "$ptxsim" sweep smp.toml
  has e12.txt "point p: a chiplets program runs in functional, timing or power mode, not sample-kernels"
  echo "PASS sweep_cli_errors"
  ;;

local)
  d=$work/local
  rm -rf "$d" && mkdir -p "$d" || exit 1
  # the three pages are opened in Chromium together at the end (one start of the browser)
  later=()
  [ ${#browser[@]} -eq 0 ] || later=(--render-later "$d/pages.txt")
  out=$d/out
  mkdir -p "$out/points/$bad" && touch "$out/points/$bad/inject-failure"
  # 1. every point runs; one fails, with its stderr tail in the summary and on the page
  expect_rc 1 "$d/run1.txt" timeout 600 "$ptxsim" sweep "$spec" --set bin="$bin" -o "$out"
  has "$d/run1.txt" "8 points, 0 done, 0 failed (kept), 8 to run"
  has "$d/run1.txt" "tiny: 8 points: 7 ok, 1 failed, 0 not run"
  has "$d/run1.txt" "FAILED $bad: exit status 3"
  has "$d/run1.txt" "| injected failure in $bad"
  $check "$out" --failed $bad "${later[@]}" || fail "check of the first run"
  before=$(mtimes "$out")
  # 2. a re-run runs nothing: the failed point is kept and listed
  expect_rc 1 "$d/run2.txt" "$ptxsim" sweep "$spec" --set bin="$bin" -o "$out"
  has "$d/run2.txt" "8 points, 7 done, 1 failed (kept; --retry-failed runs them), 0 to run"
  has "$d/run2.txt" "| injected failure in $bad"
  [ "$(mtimes "$out")" = "$before" ] || fail "the re-run touched a finished point"
  # 3. --retry-failed runs only the failed point
  rm "$out/points/$bad/inject-failure"
  expect_rc 0 "$d/run3.txt" timeout 300 "$ptxsim" sweep "$spec" --set bin="$bin" -o "$out" --retry-failed
  has "$d/run3.txt" "8 points, 7 done, 0 failed (kept), 1 to run"
  has "$d/run3.txt" "tiny: 8 points: 8 ok, 0 failed, 0 not run"
  [ "$(mtimes "$out" | grep -v "$bad")" = "$(echo "$before" | grep -v "$bad")" ] ||
    fail "--retry-failed ran a point that had not failed"
  $check "$out" "${later[@]}" || fail "check after --retry-failed"
  expect_rc 0 "$d/run4.txt" "$ptxsim" sweep "$spec" --set bin="$bin" -o "$out"
  has "$d/run4.txt" "8 points, 8 done, 0 failed (kept), 0 to run"
  # 4. killed (SIGKILL) after two points, restarted: no finished point is lost or run again
  k=$d/killed
  "$ptxsim" sweep "$spec" --set bin="$bin" -o "$k" -j 1 >"$d/kill1.txt" 2>&1 &
  pid=$!
  for _ in $(seq 1200); do
    [ "$(find "$k/points" -name result.json 2>/dev/null | wc -l)" -ge 2 ] && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL $pid 2>/dev/null
  wait $pid 2>/dev/null
  sleep 1 # the running simulation got SIGTERM from the kernel (PR_SET_PDEATHSIG)
  kept=$(mtimes "$k")
  n=$(echo "$kept" | grep -c result.json)
  [ "$n" -ge 2 ] && [ "$n" -lt 8 ] || fail "killed with $n finished points (expected 2..7)"
  expect_rc 0 "$d/kill2.txt" timeout 600 "$ptxsim" sweep "$spec" --set bin="$bin" -o "$k"
  has "$d/kill2.txt" "8 points, $n done, 0 failed (kept), $((8 - n)) to run"
  [ "$(mtimes "$k" | grep -F -f <(echo "$kept" | cut -d' ' -f1))" = "$kept" ] ||
    fail "the restarted sweep ran a point that had finished"
  $check "$k" --same-as "$out" || fail "the killed and restarted sweep's table differs"
  # 5. stopped with SIGTERM: it ends its simulations and records none of them as failed
  t=$d/terminated
  "$ptxsim" sweep "$spec" --set bin="$bin" -o "$t" -j 1 >"$d/term1.txt" 2>&1 &
  pid=$!
  for _ in $(seq 1200); do
    [ "$(find "$t/points" -name result.json 2>/dev/null | wc -l)" -ge 2 ] && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.1
  done
  kill -TERM $pid 2>/dev/null
  wait $pid
  rc=$?
  cat "$d/term1.txt"
  [ $rc -eq 143 ] || fail "SIGTERM: exit status $rc, expected 143"
  ! grep -rq '"status": "failed"' "$t/points" || fail "an interrupted point was recorded as failed"
  n=$(find "$t/points" -name result.json | wc -l)
  expect_rc 0 "$d/term2.txt" timeout 600 "$ptxsim" sweep "$spec" --set bin="$bin" -o "$t"
  has "$d/term2.txt" "8 points, $n done, 0 failed (kept), $((8 - n)) to run"
  # 6. chiplet points: `ptxsim chiplets` runs them (files transport); the table holds the
  # launcher's totals and per-chiplet columns, recomputed from each chiplet's own statistics
  if have_chiplets; then
    c=$d/chiplets
    expect_rc 0 "$d/chip1.txt" timeout 300 "$ptxsim" sweep "$chipspec" "${chipsets[@]}" -o "$c"
    has "$d/chip1.txt" "4 points, 0 done, 0 failed (kept), 4 to run"
    has "$d/chip1.txt" "chiplets: 4 points: 4 ok, 0 failed, 0 not run"
    has "$c/points/stencil__gto/command.sh" "'chiplets' '--grid' '2x1' '--transport' 'files'"
    has "$c/points/stencil__gto/stdout.txt" "[0,0] PASS"
    $check "$c" "${later[@]}" || fail "check of the chiplet sweep"
    python3 - "$c/results.json" <<'PY' || fail "the chiplet columns are not filled"
import json, sys
pts = {p["id"]: p["stats"] for p in json.load(open(sys.argv[1]))["points"]}
for s in ("stencil__lrr", "stencil__gto"):
    st = pts[s]
    assert st["cycles"] > 0 and st["chiplet.0.0.gpu_cycles"] > 0 and st["chiplet.1.0.power_w"] > 0, st
    assert st["energy_j"] > 0 and st["synchronizations"] > 0 and st["ipc"] is None, st
assert pts["vecadd__lrr"]["synchronizations"] is None and pts["vecadd__lrr"]["ipc"] > 0
PY
    before=$(mtimes "$c")
    expect_rc 0 "$d/chip2.txt" "$ptxsim" sweep "$chipspec" "${chipsets[@]}" -o "$c"
    has "$d/chip2.txt" "4 points, 4 done, 0 failed (kept), 0 to run"
    [ "$(mtimes "$c")" = "$before" ] || fail "the re-run touched a finished chiplet point"
    # the launcher's options are part of the key: another transport runs the chiplet points again
    expect_rc 0 "$d/chip3.txt" "$ptxsim" sweep "$chipspec" "${chipsets[@]}" --set transport=mpi -o "$c" --list
    [ "$(grep -c ' pending$' "$d/chip3.txt")" -eq 2 ] && grep -q '^vecadd__lrr done$' "$d/chip3.txt" ||
      fail "--set transport=mpi should make exactly the 2 chiplet points pending"
  fi
  if [ ${#later[@]} -gt 0 ]; then
    $check --render "$d/pages.txt" "${browser[@]}" || fail "the pages in Chromium"
  fi
  echo "PASS sweep_local"
  ;;

slurm)
  [ "$(id -u)" -eq 0 ] || { echo "SKIP: the local Slurm needs root (slurmd runs jobs as their user)"; exit 77; }
  for b in munged slurmctld slurmd sbatch; do
    command -v $b >/dev/null 2>&1 || { echo "SKIP: $b is not installed (scripts/setup.sh installs Slurm)"; exit 77; }
  done
  local_out=$work/local/out
  [ -f "$local_out/results.json" ] || fail "no local table to compare with (run sweep_local first)"
  d=$work/slurm
  rm -rf "$d" && mkdir -p "$d" || exit 1
  # a short path: munge's socket must fit in a sockaddr_un
  sdir=$(mktemp -d /tmp/ptxsim-slurm.XXXXXX)
  trap 'bash "$root/scripts/slurm_local.sh" stop "$sdir"; rm -rf "$sdir"' EXIT
  timeout 120 bash "$root/scripts/slurm_local.sh" start "$sdir" || fail "the local Slurm did not start"
  eval "$(bash "$root/scripts/slurm_local.sh" env "$sdir")"
  out=$d/out
  expect_rc 0 "$d/dry.txt" "$ptxsim" sweep "$spec" --set bin="$bin" -o "$out" --backend slurm --dry-run
  has "$d/dry.txt" "#SBATCH --job-name=ptxsim-sweep:tiny:8-points"
  has "$d/dry.txt" "#SBATCH --array=0-7"
  has "$d/dry.txt" "--dependency=afterany:<array job id>"
  has "$d/dry.txt" "#SBATCH --job-name=ptxsim-merge:tiny"
  [ ! -e "$out/slurm" ] || fail "--dry-run submitted or wrote scripts"
  mkdir -p "$out/points/$bad" && touch "$out/points/$bad/inject-failure"
  expect_rc 1 "$d/run1.txt" timeout 600 "$ptxsim" sweep "$spec" --set bin="$bin" -o "$out" --backend slurm --wait
  has "$d/run1.txt" "submitted array job"
  has "$d/run1.txt" "tiny: 8 points: 7 ok, 1 failed, 0 not run"
  has "$d/run1.txt" "| injected failure in $bad"
  scontrol show job -o >"$d/jobs.txt"
  has "$d/jobs.txt" "JobName=ptxsim-sweep:tiny:vecadd__lrr__16k"
  has "$d/jobs.txt" "JobName=ptxsim-sweep:tiny:$bad"
  has "$d/jobs.txt" "JobName=ptxsim-merge:tiny"
  grep -q '"backend": "slurm"' "$out/points/vecadd__lrr__16k/result.json" || fail "not run by a Slurm task"
  # (the page in Chromium once, after the retry below: the failed and the chiplet pages render
  # from the same code as the local sweep's, which the local test opens in Chromium; each
  # opening costs 4-5 s)
  $check "$out" --failed $bad || fail "check of the Slurm sweep"
  before=$(mtimes "$out")
  expect_rc 1 "$d/run2.txt" "$ptxsim" sweep "$spec" --set bin="$bin" -o "$out" --backend slurm --wait
  has "$d/run2.txt" "8 points, 7 done, 1 failed (kept; --retry-failed runs them), 0 to submit"
  [ "$(mtimes "$out")" = "$before" ] || fail "the re-run touched a finished point"
  rm "$out/points/$bad/inject-failure"
  expect_rc 0 "$d/run3.txt" timeout 600 "$ptxsim" sweep "$spec" --set bin="$bin" -o "$out" --backend slurm --wait --retry-failed
  has "$d/run3.txt" "8 points, 7 done, 0 failed (kept), 1 to submit"
  has "$d/run3.txt" "tiny: 8 points: 8 ok, 0 failed, 0 not run"
  $check "$out" --same-as "$local_out" "${browser[@]}" || fail "the Slurm table differs from the local one"
  expect_rc 0 "$d/run4.txt" "$ptxsim" sweep "$spec" --set bin="$bin" -o "$out" --backend slurm --wait
  has "$d/run4.txt" "8 points, 8 done, 0 failed (kept), 0 to submit"
  # chiplet points: each its own job of 2 Slurm tasks; mpi transport (the launcher's mpirun
  # takes the allocation); the table must equal the local sweep's (files transport)
  if have_chiplets; then
    c=$d/chiplets
    expect_rc 0 "$d/chipdry.txt" "$ptxsim" sweep "$chipspec" "${chipsets[@]}" --set transport=mpi -o "$c" --backend slurm --dry-run
    has "$d/chipdry.txt" "#SBATCH --job-name=ptxsim-sweep:chiplets:stencil__lrr"
    has "$d/chipdry.txt" "#SBATCH --ntasks=2"
    has "$d/chipdry.txt" "#SBATCH --mem-per-cpu=1024M"
    has "$d/chipdry.txt" "#SBATCH --array=0-1"
    has "$d/chipdry.txt" "--dependency=afterany:<array job id:chiplet job ids>"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    expect_rc 0 "$d/chip1.txt" timeout 300 "$ptxsim" sweep "$chipspec" "${chipsets[@]}" --set transport=mpi -o "$c" --backend slurm --wait
    has "$d/chip1.txt" "submitted chiplet job"
    has "$d/chip1.txt" "chiplets: 4 points: 4 ok, 0 failed, 0 not run"
    scontrol show job -o >"$d/chipjobs.txt"
    grep "JobName=ptxsim-sweep:chiplets:stencil__gto" "$d/chipjobs.txt" | grep -q "NumTasks=2" ||
      fail "the chiplet point's job did not have 2 tasks"
    has "$c/points/stencil__gto/command.sh" "'--transport' 'mpi'"
    grep -q '"backend": "slurm"' "$c/points/stencil__gto/result.json" || fail "not run by a Slurm job"
    $check "$c" --same-as "$work/local/chiplets" ||
      fail "the Slurm chiplet table differs from the local one"
    expect_rc 0 "$d/chip2.txt" "$ptxsim" sweep "$chipspec" "${chipsets[@]}" --set transport=mpi -o "$c" --backend slurm --wait
    has "$d/chip2.txt" "4 points, 4 done, 0 failed (kept), 0 to submit"
  fi
  echo "PASS sweep_slurm"
  ;;
*)
  echo "usage: sweep_test.sh errors|local|slurm PTXSIM BIN_DIR WORK_DIR CHROMIUM" >&2
  exit 2
  ;;
esac

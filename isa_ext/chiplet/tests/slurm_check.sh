#!/usr/bin/env bash
# Chiplets under a Slurm allocation on one machine (not a ctest: it needs root and Debian's
# slurmctld, slurmd and munge, and starts daemons): a private munged + slurmctld + slurmd on
# localhost with their own ports and state in DIR (scripts/slurm_local.sh, as the sweep tests
# use), then `salloc` running the launcher's mpirun (Open MPI's Slurm support takes the
# allocation and starts its daemons with srun) and the user's own `mpirun` inside `salloc`, each
# with the halo exchange; the daemons stop at the end.
#   slurm_check.sh PTXSIM HALO [DIR] [GRID]
set -euo pipefail
ptxsim=$1 halo=$2 dir=${3:-/tmp/chiplet-slurm} grid=${4:-4x4}
root=$(cd "$(dirname "$0")/../../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "needs root (slurmd starts jobs as their user)"; exit 77; }
command -v salloc >/dev/null || { echo "no salloc: apt-get install slurmctld slurmd slurm-client munge"; exit 77; }
[ ! -d "$dir" ] || bash "$root/scripts/slurm_local.sh" stop "$dir"
rm -rf "$dir"
trap 'bash "$root/scripts/slurm_local.sh" stop "$dir"' EXIT
bash "$root/scripts/slurm_local.sh" start "$dir"
eval "$(bash "$root/scripts/slurm_local.sh" env "$dir")"
cpus=$(nproc)
sinfo
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
n=$(( ${grid%x*} * ${grid#*x} ))
echo "== salloc -n $cpus ptxsim chiplets --grid $grid --transport mpi (the launcher's mpirun inside the allocation)"
salloc -n "$cpus" "$ptxsim" chiplets --grid "$grid" --transport mpi --dir "$dir/run1" -- "$halo" 20 2 2>&1 | tail -3
echo "== salloc -n $cpus mpirun --oversubscribe -np $n ptxsim chiplets ... (the user's mpirun), then --report"
salloc -n "$cpus" mpirun --oversubscribe -np "$n" "$ptxsim" chiplets --grid "$grid" --transport mpi \
  --dir "$dir/run2" -- "$halo" 20 2
"$ptxsim" chiplets --report --grid "$grid" --transport mpi --dir "$dir/run2" 2>&1 | tail -3
echo "== salloc -n $cpus srun --mpi=pmix --overcommit -n $n ptxsim chiplets ... (Slurm starts the ranks), then --report"
salloc -n "$cpus" srun --mpi=pmix --overcommit -n "$n" "$ptxsim" chiplets --grid "$grid" --transport mpi \
  --dir "$dir/run3" -- "$halo" 20 2
"$ptxsim" chiplets --report --grid "$grid" --transport mpi --dir "$dir/run3" 2>&1 | tail -3
grep -c PASS "$dir"/run1/chiplet.*.out | awk -F: '{s += $2} END {print s " PASS in the launcher run"}'
grep -c PASS "$dir"/run2/chiplet.*.out | awk -F: '{s += $2} END {print s " PASS in the user mpirun run"}'
grep -c PASS "$dir"/run3/chiplet.*.out | awk -F: '{s += $2} END {print s " PASS in the srun run"}'

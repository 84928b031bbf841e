#!/usr/bin/env bash
# Chiplets under a Slurm allocation on one machine (not a ctest: it needs root and Debian's
# slurmctld, slurmd and munge, and starts daemons): a private munged + slurmctld + slurmd on
# localhost with their own ports and state in DIR, then `salloc` running the launcher's mpirun
# (Open MPI's Slurm support takes the allocation and starts its daemons with srun) and the
# user's own `mpirun` inside `salloc`, each with the halo exchange; the daemons stop at the end.
#   slurm_check.sh PTXSIM HALO [DIR] [GRID]
set -euo pipefail
ptxsim=$1 halo=$2 dir=${3:-/tmp/chiplet-slurm} grid=${4:-4x4}
[ "$(id -u)" -eq 0 ] || { echo "needs root (slurmd starts jobs as their user)"; exit 77; }
for b in munged slurmctld slurmd salloc; do command -v $b >/dev/null || { echo "no $b: apt-get install slurmctld slurmd slurm-client munge"; exit 77; }; done
rm -rf "$dir" && mkdir -p "$dir"/{ctld,d,log,munge}
chmod 700 "$dir/munge"
head -c 1024 /dev/urandom > "$dir/munge/munge.key" && chmod 400 "$dir/munge/munge.key"
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ {print int($2 / 1024 / 2)}' /proc/meminfo)
cat > "$dir/slurm.conf" <<CONF
ClusterName=chiplets
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=${SLURM_CTLD_PORT:-25640}
SlurmdPort=${SLURM_D_PORT:-25641}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/sock
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/d
SlurmctldPidFile=$dir/ctld.pid
SlurmdPidFile=$dir/d.pid
SlurmctldLogFile=$dir/log/ctld.log
SlurmdLogFile=$dir/log/d.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=chiplets Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
stop() {
  local p pid
  for p in d ctld munged; do
    [ -f "$dir/$p.pid" ] || continue
    pid=$(cat "$dir/$p.pid")
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  done
}
trap stop EXIT
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/sock" \
  --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed"
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF" -i
slurmd -f "$SLURM_CONF" -N "$host"
for i in $(seq 60); do
  sinfo -h -o %T 2>/dev/null | grep -qx idle && break
  sleep 1
done
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

#!/usr/bin/env bash
# A real single-node Slurm cluster on localhost, for the sweep tests (tests/sweep) and for trying
# `ptxsim sweep --backend slurm` without a cluster. Debian's slurmctld, slurmd and munge, started
# directly (no systemd): munged, slurmctld and slurmd run as root with a generated slurm.conf in
# a state directory; plugins that work in a container (proctrack/linuxproc, task/none, no cgroups).
#
#   scripts/slurm_local.sh install        apt-get install slurmctld slurmd slurm-client munge
#   scripts/slurm_local.sh start DIR      start the daemons; DIR holds the config, state and logs
#   scripts/slurm_local.sh env DIR        print the environment a client needs (eval it): the
#                                         clients' slurm.conf (DIR/client.conf)
#   scripts/slurm_local.sh stop DIR       stop the daemons this script started in DIR (by pid)
#
# `start` waits (at most 60 s) until the node is idle; it exits non-zero with the daemons' logs
# when they do not come up. Must run as root (slurmd launches jobs as their submitting user).
set -euo pipefail
cmd=${1:?usage: slurm_local.sh install|start DIR|env DIR|stop DIR}

install() {
  local need=()
  command -v slurmctld >/dev/null 2>&1 || need+=(slurmctld)
  command -v slurmd >/dev/null 2>&1 || need+=(slurmd)
  command -v sbatch >/dev/null 2>&1 || need+=(slurm-client)
  command -v munged >/dev/null 2>&1 || need+=(munge)
  if [ ${#need[@]} -gt 0 ]; then
    echo "slurm_local: installing ${need[*]}"
    # without an init system the packages' scripts must not try to start the daemons (they
    # would fail without a slurm.conf): a policy-rc.d that says "no" while installing
    local policy=
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      policy=/usr/sbin/policy-rc.d
      printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy"
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
    [ -z "$policy" ] || rm -f "$policy"
  fi
}

# SIGTERM to the three daemons at once, then wait (at most 5 s) for all of them: each takes 1-2 s
# to exit (munged 2 s), one after the other they took 5-6 s of every Slurm test
stop() {
  local dir=$1 d pid pids=()
  for d in slurmd slurmctld munged; do
    [ -f "$dir/$d.pid" ] || continue
    pid=$(cat "$dir/$d.pid")
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
    rm -f "$dir/$d.pid"
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
  done
}

case "$cmd" in
install)
  [ "$(id -u)" -eq 0 ] || { echo "slurm_local: install needs root" >&2; exit 1; }
  install
  ;;
env)
  dir=$(cd "${2:?slurm_local.sh env DIR}" && pwd)
  echo "export SLURM_CONF=$dir/client.conf"
  ;;
stop)
  stop "${2:?slurm_local.sh stop DIR}"
  ;;
start)
  dir=${2:?slurm_local.sh start DIR}
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  [ "$(id -u)" -eq 0 ] || { echo "slurm_local: start needs root (slurmd runs jobs as their user)" >&2; exit 1; }
  for b in munged slurmctld slurmd sbatch; do
    command -v $b >/dev/null 2>&1 || { echo "slurm_local: $b not installed (scripts/slurm_local.sh install)" >&2; exit 77; }
  done
  stop "$dir"
  mkdir -p "$dir/munge" "$dir/ctld" "$dir/d" "$dir/log"
  chmod 700 "$dir/munge"
  # munge: its own key, socket and pid file in DIR, so nothing system-wide is touched
  [ -s "$dir/munge/munge.key" ] || { dd if=/dev/urandom bs=1 count=1024 of="$dir/munge/munge.key" 2>/dev/null; chmod 400 "$dir/munge/munge.key"; }
  munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed"
  host=$(hostname -s)
  cpus=$(nproc)
  mem=$(awk '/MemTotal/ {print int($2/1024*0.8)}' /proc/meminfo)
  port=$(( 20000 + RANDOM % 20000 ))
  cat >"$dir/slurm.conf" <<EOF
ClusterName=ptxsim-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/d
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
# scheduling passes every second, not every 60 s (main) and 30 s (backfill): a job that waits
# for others (the sweep's merge job) starts within a second of their end (42 s -> 8 s a sweep)
SchedulerParameters=sched_interval=1,bf_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=300
MaxArraySize=10001
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  # The clients' copy differs in MinJobAge alone, which a client reads only for `sbatch --wait`:
  # that polls the job after 2 s, then 8 s, then 32 s while the interval is below MinJobAge / 2,
  # so that a job cannot end and be purged between two polls. The controller keeps job records
  # 300 s (the tests read them back with scontrol); with 2 in the clients' copy sbatch polls every
  # 2 s, and a sweep's merge job that ends 3 s after its submission is seen at 4 s, not at 10 s
  # or 42 s (sweep_slurm 44 s -> 32 s). (A MinJobAge below 2 is raised to 2 by Slurm.)
  sed 's/^MinJobAge=.*/MinJobAge=2/' "$dir/slurm.conf" >"$dir/client.conf"
  # no cgroup.conf: Slurm 22.05 has no "disabled" cgroup plugin; with proctrack/linuxproc and
  # task/none slurmd only loads the autodetected one and never creates a cgroup
  rm -f "$dir/cgroup.conf"
  export SLURM_CONF=$dir/slurm.conf
  failed() {
    echo "slurm_local: $1 did not start; logs:" >&2
    tail -n 30 "$dir"/log/*.log >&2 || true
    stop "$dir"
    exit 1
  }
  slurmctld -f "$dir/slurm.conf" -i || failed slurmctld
  slurmd -f "$dir/slurm.conf" -N "$host" || failed slurmd
  for _ in $(seq 120); do
    state=$(sinfo -h -N -o '%T' 2>/dev/null | head -1 || true)
    case "$state" in idle*|mixed*|allocated*) echo "slurm_local: node $host $state (SLURM_CONF=$dir/slurm.conf)"; exit 0 ;; esac
    sleep 0.5
  done
  echo "slurm_local: the node did not come up (state '${state:-none}'); logs:" >&2
  tail -n 30 "$dir"/log/*.log >&2 || true
  stop "$dir"
  exit 1
  ;;
*)
  echo "usage: slurm_local.sh install|start DIR|env DIR|stop DIR" >&2
  exit 2
  ;;
esac

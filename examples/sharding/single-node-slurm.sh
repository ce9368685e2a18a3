#!/bin/bash
# A private single-node Slurm on this machine, to try examples/sharding/numerics.sbatch
# before a real cluster (and how attnverify's own test runs it: doc/sharding.md).
#   examples/sharding/single-node-slurm.sh start DIR   # then: export SLURM_CONF=DIR/slurm.conf
#   examples/sharding/single-node-slurm.sh stop DIR
# Needs root and Debian's slurm-wlm and munge (apt-get install slurm-wlm munge). It uses
# the machine's munge key (/etc/munge/munge.key, made when missing), its own state, spool,
# logs and ports under DIR, one node with this machine's CPUs and no GPUs (submit with
# --gres=none), and leaves any other Slurm alone. Exit 0 started or stopped, 2 not possible
# here (the reason on stderr), 1 the daemons did not come up (their logs are in DIR/log).
set -uo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd) || exit 2
conf=$dir/slurm.conf

stop() {
  for d in slurmctld slurmd; do
    if [ -s "$dir/run/$d.pid" ]; then
      kill "$(cat "$dir/run/$d.pid")" 2>/dev/null
    fi
  done
  for _ in $(seq 50); do
    alive=0
    for d in slurmctld slurmd; do
      [ -s "$dir/run/$d.pid" ] && kill -0 "$(cat "$dir/run/$d.pid")" 2>/dev/null && alive=1
    done
    [ "$alive" = 0 ] && return 0
    sleep 0.1
  done
  for d in slurmctld slurmd; do
    [ -s "$dir/run/$d.pid" ] && kill -9 "$(cat "$dir/run/$d.pid")" 2>/dev/null
  done
  return 0
}

# A TCP port nobody listens on, from a range Slurm's defaults (6817-6819) stay out of.
free_port() {
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

case "$cmd" in
  stop) stop; exit 0 ;;
  start) ;;
  *) usage ;;
esac

[ "$(id -u)" -eq 0 ] || { echo "$0: needs root (slurmd runs jobs as their user)" >&2; exit 2; }
for p in slurmctld slurmd sbatch munged; do
  command -v "$p" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin
  command -v "$p" >/dev/null 2>&1 || { echo "$0: $p not found (apt-get install slurm-wlm munge)" >&2; exit 2; }
done

# munge: Slurm 22.05 authenticates every message with it.
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  [ -s /etc/munge/munge.key ] || mungekey --create >/dev/null 2>&1 || { echo "$0: cannot make /etc/munge/munge.key" >&2; exit 2; }
  mkdir -p /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null
  munged --force 2>/dev/null
  for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
  munge -n 2>/dev/null | unmunge >/dev/null 2>&1 || { echo "$0: munged does not answer" >&2; exit 2; }
fi

stop
rm -rf "$dir/state" "$dir/spool" "$dir/run"
mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/run"
host=$(hostname -s)
ctld_port=$(free_port) && slurmd_port=$(free_port) || { echo "$0: no free port" >&2; exit 2; }
mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
cat > "$conf" <<EOF
ClusterName=attnverify-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$conf
slurmctld -f "$conf" || { echo "$0: slurmctld did not start (log: $dir/log/slurmctld.log)" >&2; exit 1; }
slurmd -f "$conf" || { stop; echo "$0: slurmd did not start (log: $dir/log/slurmd.log)" >&2; exit 1; }
for _ in $(seq 150); do
  if sinfo -h -o '%t' 2>/dev/null | grep -qx idle; then
    echo "export SLURM_CONF=$conf"
    exit 0
  fi
  sleep 0.2
done
echo "$0: the node did not become idle in 30 s (logs: $dir/log)" >&2
stop
exit 1

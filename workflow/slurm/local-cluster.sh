#!/usr/bin/env bash
# A real one-node SLURM cluster on this machine, for testing the workflow's SLURM profile.
#
#   sudo workflow/slurm/local-cluster.sh          # install (Debian), configure, start; idempotent
#   sudo workflow/slurm/local-cluster.sh stop     # stop the daemons
#
# Installs Debian's slurm-wlm and munge if missing, writes /etc/slurm/slurm.conf for one node (this
# host, all its CPUs and 90 % of its memory) in one partition `debug`, and starts munged, slurmctld
# and slurmd. There is no accounting database (slurmdbd): job status comes from `squeue`, and
# MinJobAge keeps finished jobs visible there for an hour so Snakemake sees how they ended.
# Run as root (as in CI and most containers). It is not a production set-up: no cgroups, no
# accounting, daemons run as root.
set -euo pipefail

CONF_DIR=/etc/slurm
STATE=/var/spool/slurmctld
SPOOL=/var/spool/slurmd
LOGS=/var/log/slurm
say() { echo "local-cluster: $*"; }

if [ "$(id -u)" != 0 ]; then
    echo "local-cluster: must run as root (it installs packages and starts daemons)" >&2
    exit 2
fi

stop() {
    for d in slurmd slurmctld; do pkill -x "$d" 2>/dev/null || true; done
    for _ in $(seq 20); do pgrep -x slurmctld >/dev/null || pgrep -x slurmd >/dev/null || break; sleep 0.5; done
}

if [ "${1:-start}" = stop ]; then
    stop
    say "stopped"
    exit 0
fi

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    say "installing slurm-wlm and munge (Debian packages)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi

# munge: one key, daemon running as the munge user.
if [ ! -s /etc/munge/munge.key ]; then
    mungekey --create --keyfile /etc/munge/munge.key 2>/dev/null || \
        dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
fi
chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    pkill -x munged 2>/dev/null || true
    runuser -u munge -- /usr/sbin/munged --force
    for _ in $(seq 20); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.25; done
fi
munge -n | unmunge >/dev/null || { echo "local-cluster: munged did not start" >&2; exit 1; }

# slurm.conf for this host.
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ {printf "%d", $2 / 1024 * 0.9}' /proc/meminfo)
mkdir -p "$CONF_DIR" "$STATE" "$SPOOL" "$LOGS"
conf=$(cat <<CONF
# Written by mabench workflow/slurm/local-cluster.sh: one node, one partition, no accounting.
ClusterName=mabench
SlurmctldHost=${host}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=${STATE}
SlurmdSpoolDir=${SPOOL}
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=${LOGS}/slurmctld.log
SlurmdLogFile=${LOGS}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
MinJobAge=3600
SlurmctldTimeout=30
SlurmdTimeout=60
InactiveLimit=0
KillWait=10
NodeName=${host} NodeAddr=127.0.0.1 CPUs=${cpus} RealMemory=${mem} State=UNKNOWN
PartitionName=debug Nodes=${host} Default=YES MaxTime=INFINITE State=UP
CONF
)
if [ ! -f "$CONF_DIR/slurm.conf" ] || [ "$(cat "$CONF_DIR/slurm.conf")" != "$conf" ]; then
    printf '%s\n' "$conf" > "$CONF_DIR/slurm.conf"
    say "wrote $CONF_DIR/slurm.conf (node $host: $cpus CPUs, $mem MB)"
    stop
fi

pgrep -x slurmctld >/dev/null || slurmctld
pgrep -x slurmd >/dev/null || slurmd

# Wait for the node to register; bring it back if an earlier run left it down or drained.
for i in $(seq 60); do
    state=$(sinfo -h -N -n "$host" -o '%t' 2>/dev/null | head -1 || true)
    case "$state" in
        idle*|mix*|alloc*) say "node $host is $state; partition debug is up"; exit 0 ;;
        down*|drain*|drng*|fail*) scontrol update NodeName="$host" State=RESUME 2>/dev/null || true ;;
    esac
    sleep 1
done
echo "local-cluster: node $host did not come up (state: ${state:-none}); see $LOGS/slurmctld.log and $LOGS/slurmd.log" >&2
exit 1

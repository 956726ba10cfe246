#!/bin/bash
# A two-node Slurm cluster on this one host, for the `slurm` test tier: munged,
# slurmctld and two slurmd (nodes n1 on 127.0.0.1 and n2 on 127.0.0.2, two CPUs
# each, one partition `debug` that may oversubscribe), all as root, with their
# configuration, state and logs in DIR. Debian's slurm-wlm 22.05 and munge
# (`make deps` installs them).
#
#   tests/slurm/cluster.sh start DIR   # returns once both nodes are idle (30 s at most)
#   tests/slurm/cluster.sh stop DIR    # ends the jobs and the daemons it started
#
# Jobs then run with SLURM_CONF=DIR/slurm.conf, e.g. `srun --mpi=pmi2 -N 2 -n 4 prog`.
# Ports: SI_SLURM_PORT (default 6917) for slurmctld and the next two for the slurmd.
set -u
action=${1:-}
dir=${2:-}
if [ -z "$action" ] || [ -z "$dir" ]; then
    sed -n '2,12p' "$0" >&2
    exit 2
fi
port=${SI_SLURM_PORT:-6917}
conf="$dir/slurm.conf"
export SLURM_CONF="$conf"

stop() {
    # scancel only while slurmctld lives: against a dead one it retries for long.
    if [ -f "$dir/slurmctld.pid" ] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null; then
        timeout 10 scancel --state=RUNNING,PENDING --full 2>/dev/null
    fi
    for pidfile in "$dir"/slurmd-n1.pid "$dir"/slurmd-n2.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
        [ -f "$pidfile" ] || continue
        pid=$(cat "$pidfile")
        kill "$pid" 2>/dev/null
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
        rm -f "$pidfile"
    done
    return 0
}

start() {
    for program in munged slurmctld slurmd srun sinfo; do
        command -v "$program" >/dev/null || {
            echo "cluster.sh: no $program (Debian packages munge, slurmctld, slurmd, slurm-client: make deps)"
            return 1
        }
    done
    stop
    rm -rf "$dir"
    mkdir -p "$dir/state"
    cat >"$conf" <<CONF
ClusterName=si-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$port
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmUser=root
SlurmdUser=root
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmdSpoolDir=$dir/spool-%n
StateSaveLocation=$dir/state
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=n1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((port + 1)) CPUs=2 RealMemory=1000 State=UNKNOWN
NodeName=n2 NodeHostname=localhost NodeAddr=127.0.0.2 Port=$((port + 2)) CPUs=2 RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
CONF
    # A munged already running (the system's) will do; otherwise one of ours.
    if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
        mkdir -p /run/munge
        munged --force --pid-file="$dir/munged.pid" 2>"$dir/munged.err" || {
            cat "$dir/munged.err"
            return 1
        }
    fi
    slurmctld -f "$conf" || { echo "cluster.sh: slurmctld did not start"; cat "$dir/slurmctld.log"; return 1; }
    for node in n1 n2; do
        slurmd -f "$conf" -N "$node" || { echo "cluster.sh: slurmd $node did not start"; return 1; }
    done
    for _ in $(seq 300); do
        idle=$(sinfo -h -N -o '%t' 2>/dev/null | grep -c '^idle')
        if [ "$idle" = 2 ]; then
            sinfo
            return 0
        fi
        sleep 0.1
    done
    echo "cluster.sh: the nodes are not idle after 30 s:"
    sinfo -N 2>&1
    tail -n 20 "$dir"/slurmctld.log "$dir"/slurmd-*.log
    return 1
}

case "$action" in
    start) start ;;
    stop) stop ;;
    *) echo "cluster.sh: start or stop, not '$action'" >&2; exit 2 ;;
esac

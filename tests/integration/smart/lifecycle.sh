#!/bin/sh
# Helper lifecycle and faults under SI_PROGRESS=smart (see lifecycle.c):
#   lifecycle.sh <sirun> <lifecycle program>
# 1. A rank killed with SIGKILL ends the job, and no helper outlives it.
# 2. Killed helpers: the ranks finish their work and each says so once.
# 3. MPI_Finalize with a sleeping interrupt thread returns promptly.
# 4. A sender killed with SIGKILL mid-transfer ends the job promptly: its
#    receiver does not hang.
# 3 and 4 run again under SI_PROGRESS=interrupt, whose thread sleeps too,
# under SI_PROGRESS=pef, whose timer signals must stop with MPI_Finalize, and
# under SI_PROGRESS=ghost, whose ghost must stop with it, and whose copy out
# of a killed sender's memory must fail rather than hang.
# LIFECYCLE_MODES (say, "ghost") runs only 3 and 4, in those modes.
set -u
sirun=$1
program=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

export SI_PROGRESS=smart
# pef's timer signals run on shared memory only as in the paper.
export SI_PEF_SHARED_MEMORY=copy
modes=${LIFECYCLE_MODES:-smart interrupt pef ghost}

if [ -z "${LIFECYCLE_MODES:-}" ]; then
    SI_HELPERS=2 "$sirun" --timeout 60 -n 3 "$program" kill-rank "$work/pids" >"$work/out1" 2>&1
    status=$?
    [ "$status" -ne 0 ] || fail "a job whose rank was killed exited with status 0"
    [ -s "$work/pids" ] || fail "no helper pids were recorded"
    # A helper killed with its rank (PR_SET_PDEATHSIG) exits once it gets a CPU; at
    # SCHED_IDLE on busy cores that can take seconds: allow 20.
    alive() {
        [ -r "/proc/$1/comm" ] && grep -q si-helper "/proc/$1/comm" &&
            [ "$(awk '/^State:/ {print $2}' "/proc/$1/status" 2>/dev/null)" != Z ]
    }
    for pid in $(cat "$work/pids" 2>/dev/null); do
        waited=0
        while alive "$pid" && [ "$waited" -lt 200 ]; do
            sleep 0.1
            waited=$((waited + 1))
        done
        ! alive "$pid" || fail "helper $pid outlived the job by 20 s"
    done

    SI_HELPERS=1 "$sirun" --timeout 60 -n 2 "$program" kill-helper >"$work/out2" 2>&1
    status=$?
    [ "$status" -eq 0 ] && grep -qx "No Errors" "$work/out2" ||
        fail "ranks did not finish after their helper died (status $status)"
    notices=$(grep -c "helper (pid [0-9]*) died" "$work/out2")
    [ "$notices" -eq 2 ] || fail "expected one notice per rank (2), got $notices"
fi

for mode in $modes; do
    SI_PROGRESS=$mode "$sirun" --timeout 60 -n 2 "$program" finalize >"$work/out3.$mode" 2>&1
    status=$?
    [ "$status" -eq 0 ] && grep -qx "No Errors" "$work/out3.$mode" ||
        fail "$mode: finalize scenario failed (status $status)"
    seconds=$(sed -n 's/^MPI_Finalize took \([0-9.]*\) s$/\1/p' "$work/out3.$mode")
    awk -v s="${seconds:-99}" 'BEGIN { exit !(s < 2.0) }' ||
        fail "$mode: MPI_Finalize took ${seconds:-?} s with a sleeping interrupt thread"

    start=$(date +%s)
    SI_PROGRESS=$mode "$sirun" --timeout 60 -n 2 "$program" kill-sender >"$work/out4.$mode" 2>&1
    status=$?
    elapsed=$(($(date +%s) - start))
    [ "$status" -ne 0 ] || fail "$mode: a job whose sender was killed mid-transfer exited with status 0"
    [ "$status" -ne 124 ] || fail "$mode: a job whose sender was killed mid-transfer hung until the timeout"
    [ "$elapsed" -lt 30 ] || fail "$mode: a job whose sender was killed mid-transfer took $elapsed s to end"
done

if [ "$failures" -ne 0 ]; then
    for f in "$work"/out*; do echo "--- $f"; cat "$f"; done
    exit 1
fi
echo "lifecycle: all scenarios passed (MPI_Finalize took $seconds s)"

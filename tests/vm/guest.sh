#!/bin/sh
# Runs inside the guest booted by run-guest.sh, chrooted into the host's root:
#   guest.sh <run folder>/guest-env.sh
# Brings up Soft-RoCE (rxe0 on veth0, 10.77.0.1; on node I of a cluster rxe0
# on eth0, 10.79.0.I) and loads si_wake, then runs
# <run folder>/command.sh if run-guest.sh was given a command, otherwise the
# guest-VM tier: every step runs even when an earlier one failed, so that one
# boot reports everything. Output goes to the console and <run>/guest.log.
set -u
. "$1"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp
build=$SI_VM_BUILD
stats=/sys/class/misc/si_wake/stats

# SmartInterrupts tests that make interrupt threads sleep and helpers wake
# them (receiver_first), with races (random_pairs), with nothing to wake for
# (futile_scenario), with helpers dying (lifecycle), and two point-to-point
# tests; the whole testlist would take the tier past its time budget.
smart_tests='^sirun\.(receiver_first|random_pairs|futile_scenario)\..*smart|^smart\.lifecycle$'
smart_tests="$smart_tests"'|^sirun\.(p2p_sizes\.np2\.eager_limit_1k\.smart_h1|p2p_wildcard\.np2\.smart_h2)$'
# Sleeps in blocked calls, woken through the module, never ending by timeout.
smart_tests="$smart_tests"'|^sirun\.sleep_wake\.smart_h1\.np2$'
# In the guest every test has what it needs: a skip is a failure (run-tests.sh).
run_tests="$SI_VM_PROJECT/tests/run-tests.sh"
export SI_TEST_NO_SKIP=1

setup() {
    if [ "${SI_VM_NODE:-0}" != 0 ]; then
        # A node of a cluster (tests/cluster): its own address, GID and device.
        hostname "node$SI_VM_NODE"
        ip link set lo up && ip addr add "10.79.0.$SI_VM_NODE/24" dev eth0 &&
            ip link set eth0 up && rdma link add rxe0 type rxe netdev eth0 || return 1
        insmod "$SI_VM_MODULE" || return 1
        wait_active
        return
    fi
    ip link add veth0 type veth peer name veth1 &&
        ip addr add 10.77.0.1/24 dev veth0 &&
        ip link set lo up && ip link set veth0 up && ip link set veth1 up &&
        rdma link add rxe0 type rxe netdev veth0 || return 1
    insmod "$SI_VM_MODULE" || return 1
    wait_active
}

# The port turns ACTIVE once the veth carrier is up.
wait_active() {
    for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
        ibv_devinfo -d rxe0 2>/dev/null | grep -q PORT_ACTIVE && return 0
        sleep 0.5
    done
    echo "rxe0 did not become ACTIVE"
    return 1
}

. "$(dirname "$0")/step.sh"

counter() { awk -v k="$1" '$1 == k { print $2 }' "$stats"; }

step_devinfo() { ibv_devinfo -v -d rxe0 | grep -E 'hca_id|transport|state|active_mtu|link_layer|GID'; }

# The stress program, then unloading after use (fails if it leaked a file or
# a module reference), then loading again for the runtime's tests.
step_kmod() {
    "$build/bin/kmod_stress" || return 1
    cat "$stats"
    rmmod si_wake || return 1
    [ ! -e /dev/si_wake ] || { echo "/dev/si_wake still there after rmmod"; return 1; }
    insmod "$SI_VM_MODULE"
}

# The interrupt threads must really have slept in the module: its counters move.
step_smart_kmod() {
    sleeps0=$(counter sleeps)
    wakes0=$(counter wakes)
    SI_WAKE=kmod "$run_tests" --build "$build" -j 1 -R "$smart_tests" --timeout 300 || return 1
    cat "$stats"
    sleeps=$(($(counter sleeps) - sleeps0))
    wakes=$(($(counter wakes) - wakes0))
    echo "si_wake during the tests: $sleeps sleeps, $wakes wakes"
    [ "$sleeps" -gt 0 ] && [ "$wakes" -gt 0 ] || return 1
    # Every job has ended, so every slot went with its process.
    [ "$(counter slots_in_use)" = 0 ] || { echo "slots left behind"; return 1; }
}

# Fault injection with the module (tests/stress/fault_inject.py): ranks,
# helpers and ghosts killed at random while interrupt threads sleep in
# si_wake; every slot must go with its process. The guest is emulated: the
# faults come 1.5-4 s after the start (past MPI_Init, where the slots are
# registered, and before the 8 s of traffic end), and a job gets 10 s to end
# instead of 2.
step_faults_kmod() {
    registrations0=$(counter registrations)
    SI_WAKE=kmod python3 "$SI_VM_PROJECT/tests/stress/fault_inject.py" --sirun "$build/bin/sirun" \
        --program "$build/bin/stress_traffic" --trials 12 --seconds 8 --after 1.5 4 --limit 10 || return 1
    cat "$stats"
    [ "$(($(counter registrations) - registrations0))" -gt 0 ] || { echo "no slot registered"; return 1; }
    [ "$(counter slots_in_use)" = 0 ] || { echo "slots left behind"; return 1; }
}

step_unload() { rmmod si_wake; }

# sibench doctor with everything in place (its two-rank jobs too), then each
# problem that blocks a run made on purpose: the doctor must exit non-zero and
# name it, and the guest is put back before the next.
doctor() { ${SI_DOCTOR_PREFIX:-} "$build/bin/sibench" doctor --build "$build" "$@"; }
blocked() {
    what=$1 pattern=$2
    shift 2
    if out=$(doctor --no-jobs "$@" 2>&1); then
        echo "$out"
        echo "doctor: $what not reported as blocking"
        return 1
    fi
    if ! echo "$out" | grep -q -- "$pattern"; then
        echo "$out"
        echo "doctor: $what not named ('$pattern')"
        return 1
    fi
    echo "doctor names $what: $(echo "$out" | grep -m1 -- "$pattern")"
}
step_doctor() {
    doctor --need verbs,kmod || return 1
    # Root's CAP_IPC_LOCK would lift the limit: dropped from the bounding set,
    # as a user's job has it.
    (ulimit -l 64 && SI_DOCTOR_PREFIX="setpriv --bounding-set=-ipc_lock" \
        blocked "a locked-memory limit too small" "FAIL  locked memory" --need verbs) || return 1
    rmmod si_wake || return 1
    blocked "the missing module" "FAIL  si_wake module" --need kmod
    status=$?
    insmod "$SI_VM_MODULE" || return 1
    ip link set veth0 down
    blocked "a port that is down" "rxe0 port 1 is down" --need verbs || status=1
    ip link set veth0 up
    wait_active || return 1
    rdma link delete rxe0
    blocked "no RDMA device" "FAIL  RDMA .*no RDMA device" --need verbs || status=1
    rdma link add rxe0 type rxe netdev veth0
    wait_active || return 1
    return "$status"
}

# Tests the verbs transport registers with label `verbs`, if there are any yet.
step_verbs() {
    if ! ctest --test-dir "$build" -N -L verbs | grep -q 'Total Tests: [1-9]'; then
        echo "no tests labelled verbs in $build"
        return 0
    fi
    SI_TRANSPORT=verbs "$run_tests" --build "$build" -j 1 -L verbs --timeout 300
}

# perftest server and client over rxe0 (loopback through the one device).
perftest_pair() {
    program=$1
    shift
    timeout 60 "$program" -d rxe0 "$@" >/tmp/perftest-server.log 2>&1 &
    server=$!
    sleep 1
    timeout 60 "$program" -d rxe0 "$@" 10.77.0.1 >/tmp/perftest-client.log 2>&1
    status=$?
    wait "$server" || status=1
    if [ "$status" = 0 ]; then
        # The table's header and result rows.
        grep -A1 -E '^ *#bytes' /tmp/perftest-client.log | sed "s/^/$program: /"
    else
        cat /tmp/perftest-client.log /tmp/perftest-server.log
    fi
    return "$status"
}
# A client that connects before its server listens fails at once; under TCG on
# a loaded host the one-second head start is sometimes not enough: try twice.
perftest_twice() {
    perftest_pair "$@" && return 0
    echo "$1: retrying once"
    sleep 2
    perftest_pair "$@"
}
step_perftest() {
    perftest_twice ib_read_lat -s 8 -n 200 && perftest_twice ib_read_bw -s 65536 -n 200
}

step_kernel_log() {
    if dmesg | grep -E 'BUG:|WARNING:|Oops|general protection fault|Call Trace'; then
        echo "the guest kernel reported the problems above"
        return 1
    fi
    dmesg | grep -E 'si_wake|rdma_rxe' | tail -n 5
    return 0
}

main() {
    uname -r
    if ! setup; then
        echo "guest set-up failed"
        return 1
    fi
    if [ -f "$SI_VM_RUN/command.sh" ]; then
        sh "$SI_VM_RUN/command.sh"
        return
    fi
    step ibv_devinfo step_devinfo
    step kmod_stress step_kmod
    step smart_kmod step_smart_kmod
    step faults_kmod step_faults_kmod
    step verbs step_verbs
    step perftest step_perftest
    step doctor step_doctor
    step rmmod step_unload
    step kernel_log step_kernel_log
    if [ -n "$failed" ]; then
        echo "guest-VM tier: FAILED:$failed"
        return 1
    fi
    echo "guest-VM tier: all steps passed"
}

# dash has no pipefail: the status travels through a file.
{
    main
    echo $? >/tmp/guest-status
} 2>&1 | tee "$SI_VM_RUN/guest.log"
exit "$(cat /tmp/guest-status 2>/dev/null || echo 1)"

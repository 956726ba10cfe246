#!/bin/bash
# One sirun behaviour per call, checked from the outside: exit status, the
# line sirun prints, how fast the job ends, and that no process survives.
#
#   sirun_case.sh <case> <sirun> <bootstrap_probe>
#   sirun_case.sh hydra-abort <mpiexec.hydra> <bootstrap_probe>
set -u
case_name=$1
sirun=$2
probe=$3

work=$(mktemp -d)
sirun_pid=
# A failed check must not leave a background sirun (and its job) running.
cleanup() {
    [ -n "$sirun_pid" ] && kill -KILL "$sirun_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
out=$work/stdout
err=$work/stderr

fail() {
    echo "FAIL ($case_name): $*" >&2
    echo "--- sirun stdout:" >&2; cat "$out" >&2 2>/dev/null
    echo "--- sirun stderr:" >&2; cat "$err" >&2 2>/dev/null
    exit 1
}
now_ms() { date +%s%3N; }

# Runs sirun in the foreground; sets status.
run_sirun() {
    "$sirun" "$@" >"$out" 2>"$err"
    status=$?
}
expect_status() { [ "$status" -eq "$1" ] || fail "exit status $status, expected $1"; }
expect_stderr() { grep -qE -- "$1" "$err" || fail "stderr lacks /$1/"; }
expect_stdout() { grep -qE -- "$1" "$out" || fail "stdout lacks /$1/"; }

# Every process the probe recorded (ranks and helpers) must be gone.
expect_no_survivors() {
    local file pid
    for file in "$work"/pids/rank.* "$work"/pids/helper.*; do
        [ -e "$file" ] || continue
        pid=$(cat "$file")
        if kill -0 "$pid" 2>/dev/null; then
            kill -KILL "$pid" 2>/dev/null
            fail "$(basename "$file") (pid $pid) survived the job"
        fi
    done
}

expect_no_segments_left() {
    local job left
    job=$(sed -n 's/^job_id=//p' "$out")
    [ -n "$job" ] || fail "the probe did not print its job id"
    case $job in sirun-*) ;; *) fail "job id '$job' is not sirun's kvsname" ;; esac
    left=$(ls /dev/shm | grep -c "^si-$job-")
    [ "$left" -eq 0 ] || fail "$left segment(s) /dev/shm/si-$job-* left behind"
}

wait_for_files() {  # <count> <glob>
    local i
    for i in $(seq 1 500); do
        # shellcheck disable=SC2086
        [ "$(ls $2 2>/dev/null | wc -l)" -ge "$1" ] && return 0
        sleep 0.02
    done
    fail "timed out waiting for $1 file(s) $2"
}

mkdir -p "$work/pids"
case $case_name in
exit-status)
    run_sirun --timeout 20 -n 3 "$probe" exit 2 5
    expect_status 5
    expect_stderr "^sirun: rank 2 \(pid [0-9]+\) exited with status 5; ending the job$"
    ;;
kill-self)
    # The other ranks and every helper ignore SIGTERM: only the SIGKILL that
    # follows the grace period ends them, and that must still be within 1 s.
    run_sirun --timeout 20 -n 4 "$probe" kill-self 1 "$work/pids"
    end=$(now_ms)
    expect_status 137
    expect_stderr "^sirun: rank 1 \(pid [0-9]+\) was killed by signal 9 \(Killed\); ending the job$"
    elapsed=$((end - $(cat "$work/pids/killed_at_ms")))
    [ "$elapsed" -lt 1000 ] || fail "the job took $elapsed ms to end after the kill"
    expect_no_survivors
    [ "$(ls "$work"/pids/helper.* | wc -l)" -eq 4 ] || fail "not every rank started its helper"
    ;;
abort)
    run_sirun --timeout 20 -n 3 "$probe" abort 1 5
    expect_status 5
    expect_stderr "^sirun: rank 1 \(pid [0-9]+\) called MPI_Abort with code 5; ending the job$"
    expect_stderr "the probe aborts on purpose"
    [ "$(grep -c '^sirun:' "$err")" -eq 1 ] || fail "expected exactly one sirun line"
    ;;
mpi-abort)
    # Here "$probe" is mpi_abort.c: rank 1 prints a line and aborts.
    run_sirun --timeout 20 -n 2 "$probe" 1 4
    expect_status 4
    expect_stdout "^rank 1 aborts with code 4$"
    expect_stderr "^sirun: rank 1 \(pid [0-9]+\) called MPI_Abort with code 4; ending the job$"
    ;;
abi-mpich | abi-standard)
    # Here "$probe" is mpich_hello built against MPICH (abi-mpich) or for the
    # standard ABI with no path to libmpi_abi.so.1 recorded (abi-standard):
    # --abi runs it on this runtime, whose SI_STATS counters only it prints,
    # with its library from the ABI's folder.
    abi=${case_name#abi-}
    library=libmpich.so.12
    [ "$abi" = standard ] && library=libmpi_abi.so.1
    run_sirun --timeout 50 --abi "$abi" --env SI_STATS=1 -n 2 "$probe"
    expect_status 0
    expect_stdout "^No Errors$"
    expect_stderr "\[si rank 1\] info: counters:"
    run_sirun --timeout 50 --abi "$abi" -n 1 ldd "$probe"
    expect_stdout "$library => .*/lib/$abi-abi/$library"
    ;;
abi-missing-call)
    # Here "$probe" refers to MPI_Isendrecv and calls it only with an argument:
    # sirun names it before the job starts; without the call the job runs, with
    # it the rank stops naming it; LD_BIND_NOW=1 stops every rank at start.
    run_sirun --timeout 20 --abi mpich -n 2 "$probe"
    expect_status 0
    expect_stderr "^sirun: warning: .* refers to 1 MPI function\(s\) this runtime lacks: MPI_Isendrecv;"
    run_sirun --timeout 20 --abi mpich -n 2 "$probe" call
    expect_status 127
    expect_stderr "undefined symbol: MPI_Isendrecv"
    LD_BIND_NOW=1 run_sirun --timeout 20 --abi mpich -n 2 "$probe"
    expect_status 127
    ! grep -q "started" "$out" || fail "a rank ran before the missing call was named"
    ;;
abi-f08)
    # Here "$probe" is a `use mpi_f08` program built by mpifort.mpich: sirun
    # names the missing entry points and why, then the rank stops at the first.
    run_sirun --timeout 20 --abi mpich -n 1 "$probe"
    expect_status 127
    expect_stderr "^sirun: warning: .* refers to [0-9]+ MPI function\(s\) this runtime lacks: .*mpi_init_f08_"
    expect_stderr "^sirun: warning: .*: the program was compiled with the Fortran 2008 module \(use mpi_f08\)"
    expect_stderr "undefined symbol: mpi_init_f08_"
    ;;
abi-openmpi)
    # Here "$probe" is mpich_hello built against Open MPI: refused by name.
    run_sirun --timeout 20 -n 2 "$probe"
    expect_status 127
    expect_stderr "^sirun: .* is linked against libmpi.so.40 \(Open MPI's library\): this runtime has MPICH's ABI"
    ;;
hydra-abort)
    # Here "$sirun" is mpiexec.hydra.
    start=$(now_ms)
    run_sirun -n 3 "$probe" abort 1 5
    elapsed=$(($(now_ms) - start))
    expect_status 5
    # Not checked: the rank's last stderr lines, which Hydra may drop when it
    # exits on abort before its proxy forwarded them.
    [ "$elapsed" -lt 5000 ] || fail "Hydra took $elapsed ms to end an aborted job"
    ;;
no-finalize)
    run_sirun --timeout 20 -n 2 "$probe" no-finalize 1
    expect_status 1
    expect_stderr "^sirun: rank 1 \(pid [0-9]+\) exited without calling MPI_Finalize; ending the job$"
    ;;
signal-forwarding)
    "$sirun" --timeout 30 -n 3 "$probe" sleep "$work/pids" 30 >"$out" 2>"$err" &
    sirun_pid=$!
    wait_for_files 3 "$work/pids/rank.*"
    kill -USR1 "$sirun_pid"
    wait_for_files 3 "$work/pids/usr1.*"
    start=$(now_ms)
    kill -TERM "$sirun_pid"
    wait "$sirun_pid"
    status=$?
    sirun_pid=
    elapsed=$(($(now_ms) - start))
    expect_status 143
    expect_stderr "^sirun: received signal 15 \(Terminated\); forwarding it to the ranks"
    [ "$elapsed" -lt 1000 ] || fail "the job took $elapsed ms to end after SIGTERM"
    expect_no_survivors
    ;;
sigint)
    # A background job of a script ignores SIGINT unless told otherwise.
    env --default-signal=INT "$sirun" --timeout 30 -n 2 "$probe" sleep "$work/pids" 30 \
        >"$out" 2>"$err" &
    sirun_pid=$!
    wait_for_files 2 "$work/pids/rank.*"
    kill -INT "$sirun_pid"
    wait "$sirun_pid"
    status=$?
    sirun_pid=
    expect_status 130
    expect_stderr "^sirun: received signal 2 \(Interrupt\)"
    expect_no_survivors
    ;;
timeout)
    start=$(now_ms)
    run_sirun --timeout 1 -n 2 "$probe" sleep "$work/pids" 30
    elapsed=$(($(now_ms) - start))
    expect_status 124
    expect_stderr "^sirun: timed out after 1 s; ranks still running: 0 \(pid [0-9]+\), 1 \(pid [0-9]+\); ending the job$"
    [ "$elapsed" -lt 3000 ] || fail "a 1 s timeout took $elapsed ms"
    expect_no_survivors
    ;;
shm-cleanup | shm-cleanup-after-failure)
    if [ "$case_name" = shm-cleanup ]; then
        run_sirun --timeout 20 -n 3 "$probe" shm
        expect_status 0
    else
        run_sirun --timeout 20 -n 3 "$probe" shm fail
        expect_status 3
    fi
    expect_no_segments_left
    ;;
shm-cleanup-after-signal)
    "$sirun" --timeout 30 -n 3 "$probe" shm hold >"$out" 2>"$err" &
    sirun_pid=$!
    for _ in $(seq 1 500); do grep -q '^job_id=' "$out" && break; sleep 0.02; done
    kill -TERM "$sirun_pid"
    wait "$sirun_pid"
    status=$?
    sirun_pid=
    expect_status 143
    expect_no_segments_left
    ;;
env)
    run_sirun --timeout 20 -n 2 --helpers 3 --ghosts 2 --env SI_TEST_A=1 --env SI_TEST_B=x=y \
        "$probe" env SI_HELPERS=3 SI_GHOSTS=2 SI_TEST_A=1 SI_TEST_B=x=y PMI_SIZE=2
    expect_status 0
    expect_stdout "^No Errors$"
    # Program arguments pass through unchanged, even when they look like options.
    run_sirun -n 1 "$probe" args -n 5 --timeout x -- --env
    expect_status 0
    [ "$(cat "$out")" = "$(printf 'arg: -n\narg: 5\narg: --timeout\narg: x\narg: --\narg: --env')" ] ||
        fail "arguments changed on their way to the program"
    ;;
usage-errors)
    run_sirun -n 2 /nonexistent/program
    expect_status 127
    expect_stderr "/nonexistent/program"
    touch "$work/not-executable"
    run_sirun -n 2 "$work/not-executable"
    expect_status 127
    expect_stderr "not executable"
    run_sirun -n 2 no-such-program-in-path
    expect_status 127
    expect_stderr "no-such-program-in-path.*not found in PATH"
    run_sirun "$probe" kvs
    expect_status 2
    expect_stderr "-n is missing"
    run_sirun -n 0 "$probe" kvs
    expect_status 2
    expect_stderr "at least 1 rank"
    run_sirun -n 2 --env NOEQUALS "$probe" kvs
    expect_status 2
    expect_stderr "NAME=VALUE"
    run_sirun --info
    expect_status 0
    expect_stdout "^SI_PROGRESS"
    ;;
bind-core)
    # The expected CPUs come from hwloc's own tools, not from si_node.
    if ! command -v hwloc-calc >/dev/null || ! command -v hwloc-bind >/dev/null; then
        echo "SKIP ($case_name): hwloc-calc and hwloc-bind (Debian package hwloc) are missing"
        exit 77
    fi
    one_per_line() { tr ',' '\n' | sort; }
    sirun_cpuset=$(hwloc-bind --get)
    allowed=$(hwloc-calc --po -I pu "$sirun_cpuset" | one_per_line | sort -n | paste -sd, -)
    cores=$(hwloc-calc -N core "$sirun_cpuset")
    run_sirun --timeout 20 -n 2 --bind core "$probe" affinity
    expect_status 0
    core_of=()
    for rank in 0 1; do
        cpus=$(sed -n "s/^rank $rank cpus //p" "$out")
        [ -n "$cpus" ] || fail "rank $rank did not print its CPUs"
        core=$(hwloc-calc --pi -I core "pu:${cpus%%,*}")
        # All of the core's PUs that sirun itself may use.
        want=$(comm -12 <(hwloc-calc --po -I pu "core:$core" | one_per_line) \
                        <(echo "$allowed" | one_per_line) | sort -n | paste -sd, -)
        [ "$cpus" = "$want" ] || fail "rank $rank runs on CPUs $cpus, not on core $core (CPUs $want)"
        core_of[rank]=$core
    done
    if [ "$cores" -ge 2 ] && [ "${core_of[0]}" = "${core_of[1]}" ]; then
        fail "ranks 0 and 1 share core ${core_of[0]} although sirun may use $cores cores"
    fi
    # Without --bind the ranks keep sirun's CPUs.
    run_sirun --timeout 20 -n 2 "$probe" affinity
    expect_status 0
    [ "$(grep -c "^rank [01] cpus $allowed\$" "$out")" -eq 2 ] ||
        fail "unbound ranks do not run on all of sirun's CPUs ($allowed)"
    run_sirun -n 2 --bind socket "$probe" affinity
    expect_status 2
    expect_stderr "--bind"
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "PASS ($case_name)"

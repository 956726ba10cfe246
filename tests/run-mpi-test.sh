#!/bin/bash
# Runs one multi-process test and decides whether it passed. CTest's
# PASS_REGULAR_EXPRESSION alone would pass a job that printed the line and then
# crashed or exited non-zero: it ignores the exit status. Here both must hold.
#
#   run-mpi-test.sh [--expect LINE | --contains TEXT] [--status 0|nonzero]
#                   [--relaunch-on TEXT] [--] command args...
#
# Passes when the command exits with the expected status (default 0) and its
# output (stdout and stderr) has LINE as a whole line, leading blanks allowed
# (default "No Errors", which rank 0 prints after MPI_Finalize), or TEXT
# anywhere. With --status nonzero the command must fail, for tests of error
# paths. The output is passed through as it comes, so a test that times out
# still shows it. With --relaunch-on, a run that failed with TEXT in its
# output runs once more: for a baseline launcher's known start-up failure that
# happens before the program runs (Open MPI 4.1's PMIx client failing to reach
# its server under load: "OPAL ERROR: Unreachable"), which is not what the
# test examines.
set -u

expect="No Errors"
relaunch_on=""
whole_line=1
status_wanted=0
while [ $# -gt 0 ]; do
    case "$1" in
        --expect) expect=$2; whole_line=1; shift 2 ;;
        --contains) expect=$2; whole_line=0; shift 2 ;;
        --status) status_wanted=$2; shift 2 ;;
        --relaunch-on) relaunch_on=$2; shift 2 ;;
        --) shift; break ;;
        -*) echo "run-mpi-test.sh: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
if [ $# -eq 0 ]; then
    echo "usage: run-mpi-test.sh [--expect LINE | --contains TEXT] [--status 0|nonzero] [--relaunch-on TEXT] [--] command args..." >&2
    exit 2
fi
case "$status_wanted" in
    0 | nonzero) ;;
    *) echo "run-mpi-test.sh: --status takes 0 or nonzero, not '$status_wanted'" >&2; exit 2 ;;
esac

log=$(mktemp "${TMPDIR:-/tmp}/run-mpi-test.XXXXXX")
trap 'rm -f "$log"' EXIT
"$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" != 0 ] && [ -n "$relaunch_on" ] && grep -qF -- "$relaunch_on" "$log"; then
    echo "run-mpi-test.sh: the launch failed with \"$relaunch_on\"; running it once more"
    "$@" 2>&1 | tee "$log"
    status=${PIPESTATUS[0]}
fi

verdict=""
if [ "$status_wanted" = 0 ] && [ "$status" != 0 ]; then
    verdict="the command exited with status $status"
elif [ "$status_wanted" = nonzero ] && [ "$status" = 0 ]; then
    verdict="the command exited with status 0; this test expects it to fail"
fi
# -F: LINE and TEXT are text, not patterns.
if [ "$whole_line" = 1 ]; then
    sed 's/^[[:space:]]*//' "$log" | grep -qxF -- "$expect"
else
    grep -qF -- "$expect" "$log"
fi || verdict="${verdict:+$verdict, and }it never printed \"$expect\""
if [ -n "$verdict" ]; then
    echo "run-mpi-test.sh: FAIL: $verdict"
    exit 1
fi
exit 0

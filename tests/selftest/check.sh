#!/bin/sh
# The test of the test harness: tests/run-mpi-test.sh, in front of a launcher,
# passes the honest program and fails each way liar.c lies.
#   check.sh <run-mpi-test.sh> <liar> <launcher> [launcher options...]
# The launcher is given "-n 2 <liar> <mode>" after its options.
set -u
runner=$1
liar=$2
shift 2
failures=0
for mode in honest crash-after-print exit-nonzero other-rank-fails killed-before-finalize silent; do
    "$runner" -- "$@" -n 2 "$liar" "$mode" >/tmp/liar-check.$$ 2>&1
    verdict=$?
    want=1
    [ "$mode" = honest ] && want=0
    if [ "$verdict" = "$want" ]; then
        echo "ok: $mode: run-mpi-test.sh exited $verdict"
    else
        echo "FAIL: $mode: run-mpi-test.sh exited $verdict, expected $want; its output:"
        sed 's/^/    /' /tmp/liar-check.$$
        failures=$((failures + 1))
    fi
done
rm -f /tmp/liar-check.$$
[ "$failures" = 0 ] || exit 1
echo "run-mpi-test.sh told every lie from the truth"

#!/bin/bash
# Runs the CTest tests of a build tree and says at the end what did not run
# and why: `make test` and `make check-sanitizers` call it.
#
#   tests/run-tests.sh --build DIR [-j N] [--exclude-labels REGEX] [ctest options...]
#
# Left out by design, with a line saying so:
#   - label `verbs` when this machine has no RDMA port in state ACTIVE: those
#     tests need a device, and the guest-VM tier (test vm.guest) runs them on
#     Soft-RoCE;
#   - label `rdma-full`, the whole testlist over verbs, too long for the guest's
#     time budget: run it by hand (`ctest -L rdma-full` where a device exists,
#     or through tests/vm/run-guest.sh).
# Reported at the end: every test that skipped (exit 77), with the "SKIP" line
# it printed, and every tier the configuration could not register
# (<build>/missing-test-tiers.txt: MPICH, Open MPI, Hydra, Fortran, Slurm).
#
# SI_TEST_NO_SKIP=1 (CI sets it): a skipped test or a missing tier fails the
# run, so that a green CI always means every tier ran.
set -u

build=""
jobs=$(nproc)
exclude="rdma-full"
ctest_args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift 2 ;;
        -j) jobs=$2; shift 2 ;;
        --exclude-labels) exclude="$exclude|$2"; shift 2 ;;
        -h | --help) sed -n '2,21p' "$0"; exit 0 ;;
        *) ctest_args+=("$1"); shift ;;
    esac
done
if [ -z "$build" ] || [ ! -f "$build/CTestTestfile.cmake" ]; then
    echo "run-tests.sh: --build must name a configured build tree (got '${build}')" >&2
    exit 2
fi
strict=0
[ "${SI_TEST_NO_SKIP:-0}" = 1 ] && strict=1

active_rdma_port() {
    for state in /sys/class/infiniband/*/ports/*/state; do
        [ -r "$state" ] && grep -q ACTIVE "$state" && return 0
    done
    return 1
}
left_out=()
count_label() { ctest --test-dir "$build" -N -L "$1" 2>/dev/null | sed -n 's/^Total Tests: //p'; }
if ! active_rdma_port; then
    exclude="$exclude|verbs"
    left_out+=("verbs ($(count_label verbs) tests): no RDMA port here; vm.guest runs them in the guest")
fi
left_out+=("rdma-full ($(count_label rdma-full) tests): by hand, ctest -L rdma-full where a device exists")

log=$(mktemp "${TMPDIR:-/tmp}/run-tests.XXXXXX")
trap 'rm -f "$log" "$log.skipped" "$log.failed"' EXIT
ctest --test-dir "$build" --output-on-failure -j "$jobs" -LE "^($exclude)\$" "${ctest_args[@]}" \
    2>&1 | tee "$log"
status=${PIPESTATUS[0]}

# "  12 - vm.guest (Skipped)" in the block CTest prints after the totals.
# (Through a file: the guest-VM tier's /dev has no /dev/fd for <(...).)
sed -n 's/^[[:space:]]*[0-9]\{1,\} - \(.*\) (Skipped)$/\1/p' "$log" >"$log.skipped"
skipped=()
mapfile -t skipped <"$log.skipped"
# What a test printed, from CTest's log of the run.
test_output() {
    awk -v name="$1" '
        /^[0-9]+\/[0-9]+ Test: / { sub(/^[0-9]+\/[0-9]+ Test: /, ""); current = $0; output = 0; next }
        /^Output:$/ { output = 1; next }
        /^<end of output>$/ { output = 0; next }
        output && current == name { print }' "$build/Testing/Temporary/LastTest.log"
}
# The same from the console, where --output-on-failure put a failed test's output
# after its result line: the fallback if LastTest.log was replaced meanwhile.
console_output() {
    awk -v name="$1" '
        /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: / { grab = index($0, ": " name " ") > 0; next }
        /^ *Start +[0-9]+: / { grab = 0; next }
        grab { print }' "$log"
}
# The SKIP line each skipped test printed.
skip_reason() { test_output "$1" | grep -m 1 SKIP; }
# Failed tests, from the block after the totals; their output is repeated at the very end,
# where a CI log cut to its tail still shows why they failed.
sed -n '/^The following tests FAILED:$/,$ s/^[[:space:]]*[0-9]\{1,\} - \(.*\) ([^()]*)$/\1/p' "$log" >"$log.failed"
failed=()
mapfile -t failed <"$log.failed"
missing=()
[ -f "$build/missing-test-tiers.txt" ] && mapfile -t missing <"$build/missing-test-tiers.txt"

echo
echo "==== what did not run"
for line in "${left_out[@]}"; do echo "left out by design: $line"; done
echo "skipped: ${#skipped[@]} test(s)"
for name in "${skipped[@]}"; do
    echo "  $name: $(skip_reason "$name" | sed 's/^[[:space:]]*//')"
done
echo "tiers not registered by this configuration: ${#missing[@]}"
for line in "${missing[@]}"; do echo "  $line"; done

for name in "${failed[@]}"; do
    echo
    echo "==== $name failed; the end of its output:"
    output=$(test_output "$name")
    [ -n "$output" ] || output=$(console_output "$name")
    printf '%s\n' "${output:-(none found in the CTest logs)}" | grep -v "^-*$" | tail -n 40
done

if [ "$strict" = 1 ] && [ $((${#skipped[@]} + ${#missing[@]})) -gt 0 ]; then
    echo "run-tests.sh: FAIL: SI_TEST_NO_SKIP=1 and ${#skipped[@]} test(s) skipped," \
         "${#missing[@]} tier(s) missing (make deps installs what they need)"
    exit 1
fi
exit "$status"

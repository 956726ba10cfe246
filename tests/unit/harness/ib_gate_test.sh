#!/bin/bash
# harness/ci/ib-gate.sh without a cluster: its arguments, and the commands it
# would run (--dry-run): the sweep through sibench sbatch with the partition,
# a waiting sbatch per job script, sibench plot, and the gate on ratios to
# simpi-none and MPICH (absolute figures with --absolute).
set -u
script=$1
fail() { echo "FAIL: $*"; exit 1; }

"$script" --partition ib >/dev/null 2>&1
[ $? = 2 ] || fail "no --reference: expected exit status 2"
"$script" --reference r.csv --partition ib --bogus >/dev/null 2>&1
[ $? = 2 ] || fail "an unknown argument: expected exit status 2"
"$script" --reference /nonexistent.csv --partition ib >/dev/null 2>&1
[ $? = 2 ] || fail "a missing reference file: expected exit status 2"

plan=$("$script" --reference r.csv --partition ib --account a1 --nodes 4 --ranks-per-node 2 \
       --only overlap --out /tmp/gate-out --dry-run) || fail "--dry-run failed"
echo "$plan"
grep -q -- "sibench sbatch --profile full --nodes 4 --ranks-per-node 2 --partition ib .*--out /tmp/gate-out --account a1 --only overlap" <<<"$plan" ||
    fail "the sweep command"
grep -q -- "^sbatch --wait /tmp/gate-out/sibench-n\*.sbatch" <<<"$plan" || fail "sbatch --wait"
grep -q -- "sibench plot /tmp/gate-out" <<<"$plan" || fail "sibench plot"
grep -q -- "sibench compare --reference r.csv --current /tmp/gate-out/results.csv --baseline simpi-none,mpich" <<<"$plan" ||
    fail "the gate on ratios"
absolute=$("$script" --reference r.csv --partition ib --absolute --tolerance latency=5% --dry-run)
grep -q -- "--baseline" <<<"$absolute" && fail "--absolute still gates on ratios"
grep -q -- "compare .*--tolerance latency=5%" <<<"$absolute" || fail "--tolerance not passed on"
echo "PASS"

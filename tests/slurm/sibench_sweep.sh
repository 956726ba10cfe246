#!/bin/bash
# The slurm tier's sweep test: `sibench sbatch` writes the job script of a small
# study (smoke profile, latency: simpi-none, simpi-smart, MPICH on 2 nodes x 1 rank),
# `sbatch --wait` runs it, `sibench plot` folds the results; every run must be ok
# with rows. Then harness/ci/ib-gate.sh does the same end to end and gates against
# that first sweep (its exit status must say pass), and sibench compare must fail a
# sweep against a reference in which smart was twice as fast relative to none.
#   sibench_sweep.sh SIBENCH BUILD_DIR SLURM_CONF OUT_DIR
set -u
sibench=$1 build=$2 out=$4
export SLURM_CONF=$3
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out"
mkdir -p "$out"

"$sibench" sbatch --profile smoke --only latency --nodes 2 --ranks-per-node 1 --partition debug \
    --time 00:05:00 --build "$build" --out "$out/sweep" || fail "sibench sbatch"
sbatch --wait "$out/sweep/sibench-n2.sbatch" || fail "the job failed (see $out/sweep/logs)"
"$sibench" plot "$out/sweep" >/dev/null || fail "sibench plot"
for config in simpi-none simpi-smart-h1 mpich; do
    grep -q "^latency\.$config\.n2r1,.*,ok," "$out/sweep/runs.csv" || fail "run of $config not ok"
    grep -q "^p2p,latency,.*,latency_median,.*,$config," "$out/sweep/results.csv" ||
        fail "no latency_median row of $config"
done

"$here/../../harness/ci/ib-gate.sh" --reference "$out/sweep/results.csv" --partition debug \
    --nodes 2 --ranks-per-node 1 --profile smoke --only latency --build "$build" \
    --time 00:05:00 --out "$out/gate" --tolerance default=1000% || fail "ib-gate.sh did not pass"

# The reference with smart's latency halved: the same sweep must then fail the gate.
awk -F, -v OFS=, '$17 == "simpi-smart-h1" && $9 ~ /^latency_/ { $10 = $10 / 2 } { print }' \
    "$out/sweep/results.csv" >"$out/faster-reference.csv"
if "$sibench" compare --reference "$out/faster-reference.csv" --current "$out/sweep/results.csv" \
    --baseline simpi-none,mpich >"$out/regressed.txt"; then
    cat "$out/regressed.txt"
    fail "the gate passed a sweep against a reference twice as fast"
fi
echo "PASS"

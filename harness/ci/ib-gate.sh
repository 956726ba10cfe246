#!/bin/bash
# The regression gate on a Slurm cluster's InfiniBand nodes, as a CI job for a
# runner on a login node (GitLab, Jenkins, cron): sweeps a profile through
# `sibench sbatch`, waits for every job (sbatch --wait), folds the results
# (`sibench plot`) and gates them against a reference with `sibench compare`,
# on ratios to baselines measured in the same jobs (smart/none, none/MPICH) unless
# --absolute says the nodes are quiet and dedicated enough for absolute figures.
#
#   harness/ci/ib-gate.sh --reference FILE --partition P [--account A] [--nodes 2]
#       [--ranks-per-node 1] [--profile full] [--only STUDIES] [--build build]
#       [--out DIR] [--time 02:00:00] [--tolerance SPEC] [--absolute] [--dry-run]
#
# Exit status: that of `sibench compare` (0 pass, 1 regression), 2 on bad
# arguments, 3 when a Slurm job failed. --dry-run prints the commands instead.
# The reference is a results.csv of an earlier run of the same sweep on the same
# nodes (keep it with its machine-n<N>.txt, as results/reference/ does).
set -euo pipefail

reference="" partition="" account="" nodes=2 ranks_per_node=1 profile=full only=""
build=build out="" time_limit=02:00:00 tolerance="" absolute=0 dry_run=0
usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case "$1" in
        --reference) reference=$2; shift 2 ;;
        --partition) partition=$2; shift 2 ;;
        --account) account=$2; shift 2 ;;
        --nodes) nodes=$2; shift 2 ;;
        --ranks-per-node) ranks_per_node=$2; shift 2 ;;
        --profile) profile=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        --build) build=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --time) time_limit=$2; shift 2 ;;
        --tolerance) tolerance=$2; shift 2 ;;
        --absolute) absolute=1; shift ;;
        --dry-run) dry_run=1; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "ib-gate.sh: unknown argument '$1' (--help lists them)" >&2; exit 2 ;;
    esac
done
if [ -z "$reference" ] || [ -z "$partition" ]; then
    echo "ib-gate.sh: --reference and --partition are required (--help lists the options)" >&2
    exit 2
fi
if [ "$dry_run" = 0 ] && [ ! -f "$reference" ]; then
    echo "ib-gate.sh: --reference $reference: no such file" >&2
    exit 2
fi
out=${out:-$PWD/ib-gate-$(date -u +%Y%m%dT%H%M%SZ)}
sibench="$build/bin/sibench"

run() {
    if [ "$dry_run" = 1 ]; then
        echo "$*"
    else
        "$@"
    fi
}

sweep=("$sibench" sbatch --profile "$profile" --nodes "$nodes" --ranks-per-node "$ranks_per_node"
       --partition "$partition" --time "$time_limit" --build "$build" --out "$out")
[ -n "$account" ] && sweep+=(--account "$account")
[ -n "$only" ] && sweep+=(--only "$only")
run "${sweep[@]}"

# One job script per node count; each blocks until its job ends.
scripts=("$out/sibench-n*.sbatch")  # --dry-run: as a pattern
[ "$dry_run" = 0 ] && mapfile -t scripts < <(ls "$out"/sibench-n*.sbatch)
failed=0
pids=()
for script in "${scripts[@]}"; do
    if [ "$dry_run" = 1 ]; then
        echo "sbatch --wait $script"
        continue
    fi
    sbatch --wait "$script" &
    pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
run "$sibench" plot "$out"
if [ "$failed" = 1 ]; then
    echo "ib-gate.sh: a Slurm job failed; $out/runs.csv and $out/logs say which run" >&2
    exit 3
fi

gate=("$sibench" compare --reference "$reference" --current "$out/results.csv")
[ "$absolute" = 0 ] && gate+=(--baseline simpi-none,mpich)
[ -n "$tolerance" ] && gate+=(--tolerance "$tolerance")
run "${gate[@]}"

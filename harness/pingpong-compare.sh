#!/usr/bin/env bash
# Ping-pong latency, bandwidth and bidirectional bandwidth, this runtime against MPICH
# and Open MPI: a thin wrapper over sibench's `pingpong` study of the quick profile
# (harness/profiles/quick.toml, harness/README.md), which runs the configurations in
# interleaved rounds and reports per size the median with its min..max.
#
#   harness/pingpong-compare.sh [-r ROUNDS] [-o DIR] BUILD_DIR [sibench run options...]
#
#   -r ROUNDS  interleaved rounds (default: the study's, 3)
#   -o DIR     results root (default: results); the run goes to DIR/quick/<host>-<UTC time>/
#              with summary.txt, summary.csv, results.csv and plots/pingpong-*.png
#   further options go to `sibench run`, e.g. --configs simpi-none,mpich --timeout 120
#
# Benchmark options (sizes, counts, --window) are the study's: change them in a copy of
# the profile and run `sibench run --profile COPY.toml --only pingpong`.
set -euo pipefail

usage() {
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
    exit "${1:-0}"
}

rounds=()
out_dir="results"
while getopts "r:o:h" flag; do
    case "$flag" in
        r) rounds=(--rounds "$OPTARG") ;;
        o) out_dir="$OPTARG" ;;
        h) usage 0 ;;
        *) usage 2 ;;
    esac
done
shift $((OPTIND - 1))
[[ $# -ge 1 ]] || usage 2
build_dir="$1"
shift
if [[ "${1:-}" == "--" ]]; then
    echo "pingpong options after -- are the study's now: set them in a profile (see -h)" >&2
    exit 2
fi
sibench="$build_dir/bin/sibench"
[[ -x "$sibench" ]] || { echo "not found: $sibench (build first: make build)" >&2; exit 1; }
exec "$sibench" run --profile quick --only pingpong --build "$build_dir" --out "$out_dir" \
    "${rounds[@]}" "$@"

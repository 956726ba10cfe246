#!/usr/bin/env bash
# Ping-pong, this runtime against MPICH, on the same machine with the same options.
#
#   harness/pingpong-compare.sh [-r REPS] [-o DIR] BUILD_DIR [-- PINGPONG_OPTIONS...]
#
# Runs BUILD_DIR/bin/pingpong under BUILD_DIR/bin/sirun -n 2 and
# BUILD_DIR/bin/pingpong.mpich under mpiexec.hydra -n 2, REPS times each (default 3),
# in the order simpi, mpich, mpich, simpi, simpi, mpich, ... so that a slow drift of
# the machine (frequency, other load) weighs on both sides alike. Every run's CSV and
# log go to DIR (default results/pingpong/<host>-<UTC date>/), then:
#   summary.csv   median over the repetitions, both sides and simpi/mpich, every size
#   summary.txt   the table printed at the end (a few sizes)
#   pingpong.png, pingpong.svg   latency and bandwidth against size, log-log
#
# Environment:
#   PINGPONG_SIMPI_CMD  replaces "BUILD_DIR/bin/sirun -n 2 BUILD_DIR/bin/pingpong"
#                       (split on spaces), e.g. to check this script with MPICH on
#                       both sides before the runtime exists
#   PINGPONG_MPICH_CMD  replaces "mpiexec.hydra -n 2 BUILD_DIR/bin/pingpong.mpich"
#   SI_BENCH_COMMIT     recorded in the CSVs; default: git describe of this checkout
set -euo pipefail

usage() {
    sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
    exit "${1:-0}"
}

reps=3
out_dir=""
while getopts "r:o:h" flag; do
    case "$flag" in
        r) reps="$OPTARG" ;;
        o) out_dir="$OPTARG" ;;
        h) usage 0 ;;
        *) usage 2 ;;
    esac
done
shift $((OPTIND - 1))
[[ $# -ge 1 ]] || usage 2
build_dir="$(cd "$1" && pwd)"
shift
[[ "${1:-}" == "--" ]] && shift
options=("$@")
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || { echo "-r wants a positive count" >&2; exit 2; }

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
out_dir="${out_dir:-$repo/results/pingpong/$(hostname -s)-$stamp}"
mkdir -p "$out_dir"

read -ra simpi_cmd <<< "${PINGPONG_SIMPI_CMD:-$build_dir/bin/sirun -n 2 $build_dir/bin/pingpong}"
read -ra mpich_cmd <<< "${PINGPONG_MPICH_CMD:-mpiexec.hydra -n 2 $build_dir/bin/pingpong.mpich}"
for cmd in "${simpi_cmd[0]}" "${mpich_cmd[0]}" "${simpi_cmd[-1]}" "${mpich_cmd[-1]}"; do
    command -v "$cmd" > /dev/null || { echo "not found: $cmd (build first?)" >&2; exit 1; }
done

if [[ -z "${SI_BENCH_COMMIT:-}" ]]; then
    SI_BENCH_COMMIT="$(git -C "$repo" describe --always --dirty 2> /dev/null || echo unknown)"
fi
export SI_BENCH_COMMIT

# Two ranks on a laptop share it with everything else: say so when it is busy.
load="$(cut -d' ' -f1-3 /proc/loadavg 2> /dev/null || echo unknown)"
if awk -v l="${load%% *}" 'BEGIN { exit !(l + 0 > 0.5) }'; then
    echo "warning: load average $load before the runs; expect noisy numbers" >&2
fi

{
    echo "date: $stamp"
    echo "load_average: $load"
    echo "repetitions: $reps"
    echo "simpi: ${simpi_cmd[*]} ${options[*]}"
    echo "mpich: ${mpich_cmd[*]} ${options[*]}"
    echo "commit: $SI_BENCH_COMMIT"
} > "$out_dir/commands.txt"

run() {  # side rep
    local side="$1" rep="$2" cmd
    if [[ "$side" == simpi ]]; then cmd=("${simpi_cmd[@]}"); else cmd=("${mpich_cmd[@]}"); fi
    local csv="$out_dir/$side-r$rep.csv" log="$out_dir/$side-r$rep.log"
    echo "[$rep/$reps] $side"
    if ! "${cmd[@]}" "${options[@]}" --csv "$csv" > "$log" 2>&1; then
        echo "$side run $rep failed; the end of $log:" >&2
        tail -n 20 "$log" >&2
        exit 1
    fi
}

for ((rep = 1; rep <= reps; rep++)); do
    if ((rep % 2 == 1)); then run simpi "$rep"; run mpich "$rep"; else run mpich "$rep"; run simpi "$rep"; fi
done

# --- summary ------------------------------------------------------------------
# One awk program reads every CSV (RFC 4180 quoting, columns found by header name)
# and writes "side metric size unit value" lines; sort groups them for the medians.
awk '
function split_csv(line, f,    n, i, c, field, quoted) {
    n = 0; field = ""; quoted = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (quoted) {
            if (c == "\"" && substr(line, i + 1, 1) == "\"") { field = field c; i++ }
            else if (c == "\"") quoted = 0
            else field = field c
        } else if (c == "\"") quoted = 1
        else if (c == ",") { f[++n] = field; field = "" }
        else field = field c
    }
    f[++n] = field
    return n
}
FNR == 1 { header = 0; side = FILENAME; sub(/.*\//, "", side); sub(/-r[0-9]+\.csv$/, "", side) }
/^#/ { next }
!header { n = split_csv($0, names); for (i = 1; i <= n; i++) col[names[i]] = i; header = 1; next }
{
    split_csv($0, f)
    if (f[col["metric"]] !~ /_median$/) next
    metric = f[col["metric"]]; sub(/_median$/, "", metric)
    print side, metric, f[col["msg_size"]], f[col["unit"]], f[col["value"]]
    if (side == "simpi" && f[col["runtime"]] != "simpi") wrong = f[col["runtime"]]
}
END { if (wrong != "") printf "warning: the simpi side ran %s, not this runtime\n", wrong > "/dev/stderr" }
' "$out_dir"/simpi-r*.csv "$out_dir"/mpich-r*.csv \
    | LC_ALL=C sort -k2,2 -k3,3n -k1,1 -k5,5g \
    | awk '
function flush() {
    if (count == 0) return
    median[key] = count % 2 ? v[(count + 1) / 2] : (v[count / 2] + v[count / 2 + 1]) / 2
    count = 0
}
{
    k = $1 SUBSEP $2 SUBSEP $3
    if (k != key) { flush(); key = k }
    v[++count] = $5
    if (!(($2, $3) in seen)) { seen[$2, $3] = 1; order[++rows] = $2 SUBSEP $3; unit[$2] = $4 }
}
END {
    flush()
    print "metric,msg_size,unit,simpi,mpich,ratio"
    for (i = 1; i <= rows; i++) {
        split(order[i], mk, SUBSEP)
        s = (("simpi", mk[1], mk[2]) in median) ? median["simpi", mk[1], mk[2]] : ""
        m = (("mpich", mk[1], mk[2]) in median) ? median["mpich", mk[1], mk[2]] : ""
        r = (s != "" && m != "" && m + 0 != 0) ? sprintf("%.3f", s / m) : ""
        printf "%s,%s,%s,%s,%s,%s\n", mk[1], mk[2], unit[mk[1]], s, m, r
    }
}' > "$out_dir/summary.csv"

# The headline sizes: 8 B latency and 1 MiB bandwidth, with neighbours for shape.
awk -F, -v reps="$reps" '
BEGIN {
    want["latency", 8]; want["latency", 1024]; want["latency", 65536]; want["latency", 1048576]
    want["bandwidth", 8]; want["bandwidth", 65536]; want["bandwidth", 1048576]
    want["bandwidth", 4194304]
    printf "median of %d repetitions; latency: lower is better, bandwidth: higher is better\n", reps
    printf "%-10s %10s %-5s %12s %12s %12s\n", "metric", "bytes", "unit", "simpi", "mpich", "simpi/mpich"
}
function show(x) { return x == "" ? "-" : sprintf("%.2f", x) }
NR > 1 && (($1, $2) in want) {
    printf "%-10s %10s %-5s %12s %12s %12s\n", $1, $2, $3, show($4), show($5), ($6 == "" ? "-" : $6)
}' "$out_dir/summary.csv" | tee "$out_dir/summary.txt"

# --- plots --------------------------------------------------------------------
# Size 0 has no place on a log axis.
for metric in latency bandwidth; do
    awk -F, -v m="$metric" 'NR > 1 && $1 == m && $2 > 0 {
        print $2, ($4 == "" ? "NaN" : $4), ($5 == "" ? "NaN" : $5) }' \
        "$out_dir/summary.csv" > "$out_dir/$metric.dat"
done
cat > "$out_dir/pingpong.gp" << EOF
# Written by harness/pingpong-compare.sh; rerun with: gnuplot pingpong.gp
set logscale x 2
set logscale y 10
set grid
set key top left
set xlabel "message size [bytes]"
set xtics ("1" 1, "16" 16, "256" 256, "4K" 4096, "64K" 65536, "1M" 1048576, "4M" 4194304)
do for [format in "png svg"] {
    if (format eq "png") { set terminal pngcairo size 1200,480 } else { set terminal svg size 1200,480 dynamic }
    set output "pingpong." . format
    set multiplot layout 1,2 title "ping-pong, $(hostname -s), median of $reps repetitions"
    set ylabel "latency [us] (half round trip)"
    plot "latency.dat" using 1:2 with linespoints title "simpi", \
         "" using 1:3 with linespoints title "mpich"
    set ylabel "bandwidth [MB/s]"
    plot "bandwidth.dat" using 1:2 with linespoints title "simpi", \
         "" using 1:3 with linespoints title "mpich"
    unset multiplot
    set output
}
EOF
if command -v gnuplot > /dev/null; then
    (cd "$out_dir" && gnuplot pingpong.gp)
else
    echo "gnuplot not found: plots not drawn (apt-get install gnuplot-nox)" >&2
fi
echo "results in $out_dir"

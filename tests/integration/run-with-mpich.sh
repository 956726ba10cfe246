#!/usr/bin/env bash
# Builds every integration test with MPICH's mpicc and runs the testlist under
# mpiexec.hydra: the reference run, independent of CMake and of our runtime.
#
#   run-with-mpich.sh [-v] [-k] [-t SECONDS] [REGEX]
#
#   REGEX       run only testlist lines whose program name matches (grep -E)
#   -v          print the output of every run, not only of failures
#   -k          keep the build/output directory (printed at the end)
#   -t SECONDS  time limit of one run (default 60)
#
# Before building, each source is also compiled (syntax only) against this
# project's runtime/include/mpi.h, which catches any use of an MPI function
# our runtime does not declare. A run passes when it exits 0 and prints
# "No Errors". Exit status: 0 when everything built and passed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
our_include=$(cd "$here/../../runtime/include" 2>/dev/null && pwd)
verbose=0
keep=0
limit=60
while getopts "vkt:h" opt; do
    case $opt in
        v) verbose=1 ;;
        k) keep=1 ;;
        t) limit=$OPTARG ;;
        *) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
filter=${1:-.}

for tool in mpicc mpiexec.hydra; do
    command -v "$tool" >/dev/null || { echo "$tool not found" >&2; exit 2; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/si-itest.XXXXXX")
if [ "$keep" = 0 ]; then trap 'rm -rf "$work"' EXIT; fi

# Same warnings as the project's si_warnings target, as errors.
cflags=(-std=c11 -O1 -g -Wall -Wextra -Wshadow -Wno-unused-parameter -Werror)

failed=0
build_failed=()
echo "== building into $work"
programs=$(grep -Ev '^[[:space:]]*(#|$)' "$here/testlist" | awk '{print $1}' | sort -u)
for prog in $programs; do
    src="$here/$prog.c"
    if [ ! -f "$src" ]; then
        echo "BUILD FAIL $prog: no $prog.c"
        build_failed+=("$prog"); continue
    fi
    if [ -n "$our_include" ] &&
       ! gcc "${cflags[@]}" -fsyntax-only -I"$our_include" "$src" "$here/mtest.c" \
           >"$work/$prog.ourhdr.log" 2>&1; then
        echo "BUILD FAIL $prog: does not compile against runtime/include/mpi.h"
        sed 's/^/    /' "$work/$prog.ourhdr.log" | head -20
        build_failed+=("$prog"); continue
    fi
    if ! mpicc "${cflags[@]}" -pthread "$src" "$here/mtest.c" -o "$work/$prog" \
           >"$work/$prog.build.log" 2>&1; then
        echo "BUILD FAIL $prog"
        sed 's/^/    /' "$work/$prog.build.log" | head -20
        build_failed+=("$prog")
    fi
done
failed=${#build_failed[@]}

echo "== running (limit ${limit}s per run)"
passed=0
ran=0
declare -A seen
start_all=$(date +%s.%N)
lineno=0
while IFS= read -r line || [ -n "$line" ]; do
    lineno=$((lineno + 1))
    line=${line%%#*}
    read -r -a words <<<"$line"
    [ ${#words[@]} -eq 0 ] && continue
    prog=${words[0]}
    np=${words[1]:-}
    echo "$prog" | grep -Eq -- "$filter" || continue
    envs=()
    args=()
    for word in "${words[@]:2}"; do
        case $word in
            env=*) envs+=("${word#env=}") ;;
            args=*) IFS=, read -r -a more <<<"${word#args=}"; args+=("${more[@]}") ;;
            *) echo "testlist:$lineno: cannot read '$word'"; failed=$((failed + 1)); continue 2 ;;
        esac
    done
    label="$prog np=$np${envs[*]:+ ${envs[*]}}${args[*]:+ args=${args[*]}}"
    # Our runtime's SI_* settings do not change an MPICH run: run each
    # program/nprocs/args/other-environment combination once.
    key="$prog $np ${args[*]:-} $(printf '%s\n' "${envs[@]:-}" | grep -v -e '^SI_' -e '^$' | tr '\n' ' ')"
    if [ -n "${seen[$key]:-}" ]; then
        printf 'same  %-60s (as line %s for MPICH)\n' "$label" "${seen[$key]}"
        continue
    fi
    seen[$key]=$lineno
    ran=$((ran + 1))
    if [ ! -x "$work/$prog" ]; then
        printf 'FAIL  %-60s (not built)\n' "$label"; failed=$((failed + 1)); continue
    fi
    out="$work/run.$lineno.log"
    t0=$(date +%s.%N)
    # The tests' own watchdog fires first and names the rank that hung.
    env MTEST_TIMEOUT="${MTEST_TIMEOUT:-$((limit - 5))}" "${envs[@]}" timeout -k 5 "$limit" \
        mpiexec.hydra -n "$np" "$work/$prog" "${args[@]}" >"$out" 2>&1 </dev/null
    rc=$?
    t1=$(date +%s.%N)
    secs=$(echo "$t1 - $t0" | bc)
    if [ $rc -eq 0 ] && grep -q '^No Errors$' "$out"; then
        passed=$((passed + 1))
        printf 'pass  %-60s %6.2fs\n' "$label" "$secs"
        [ "$verbose" = 1 ] && sed 's/^/    /' "$out"
    else
        failed=$((failed + 1))
        why="exit $rc"; [ $rc -eq 124 ] && why="timed out"
        printf 'FAIL  %-60s %6.2fs  (%s)\n' "$label" "$secs" "$why"
        tail -n 40 "$out" | sed 's/^/    /'
    fi
done <"$here/testlist"
end_all=$(date +%s.%N)

printf '== %d of %d runs passed, %d failures (builds included), %.1fs\n' \
    "$passed" "$ran" "$failed" "$(echo "$end_all - $start_all" | bc)"
[ "$keep" = 1 ] && echo "== kept $work"
[ "$failed" -eq 0 ]

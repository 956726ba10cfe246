#!/bin/sh
# SI_WAKE=kmod where /dev/si_wake is absent: the job runs on the futex and the
# runtime says so in exactly one line (one per host, from its first rank).
#   wake_fallback.sh <sirun> <receiver_first program>
# Exit 77 (skipped) where the device exists: the guest-VM tier covers that.
set -u
[ -e /dev/si_wake ] && { echo "SKIP: /dev/si_wake exists; nothing to fall back from"; exit 77; }
sirun=$1
program=$2
out=$(SI_PROGRESS=smart SI_HELPERS=1 SI_WAKE=kmod "$sirun" --timeout 60 -n 4 "$program" arrives 2>&1)
status=$?
echo "$out"
[ "$status" -eq 0 ] || { echo "FAIL: the job exited with status $status"; exit 1; }
lines=$(printf '%s\n' "$out" | grep -c 'SI_WAKE: .*si_wake.*; using futex')
[ "$lines" -eq 1 ] || { echo "FAIL: expected one fallback line, got $lines"; exit 1; }
echo "fallback passed"

#!/bin/sh
# Every MPI_x that libsimpi exports has its Fortran twins mpi_x_ and pmpi_x_,
# except the C-only conversions (MPI_*_f2c/c2f) and the calls generate.py
# leaves out on purpose.
#   check-bindings.sh <libsimpi.so> <generate.py>
set -eu
library=$1
generator=$2
symbols=$(nm -D --defined-only "$library" | awk '{print $3}')
left_out=$(python3 "$generator" left-out | tr 'A-Z' 'a-z')
missing=0
for c_name in $(echo "$symbols" | grep '^MPI_[A-Z][a-z_]*$' | grep -v '_[fc]2[fc]$'); do
    lower=$(echo "$c_name" | tr 'A-Z' 'a-z')
    if echo "$left_out" | grep -qx "$lower"; then continue; fi
    for fortran in "${lower}_" "p${lower}_"; do
        if ! echo "$symbols" | grep -qx "$fortran"; then
            echo "missing Fortran binding: $fortran (for $c_name)"
            missing=$((missing + 1))
        fi
    done
done
checked=$(echo "$symbols" | grep -c '^mpi_.*_$')
echo "$checked Fortran entry points, $missing missing"
[ "$missing" -eq 0 ]

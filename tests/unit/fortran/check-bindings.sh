#!/bin/sh
# Every MPI_x that libsimpi exports has its Fortran twins mpi_x_ and pmpi_x_,
# except the C-only conversions (MPI_*_f2c/c2f) and the calls generate.py
# leaves out on purpose.
#   check-bindings.sh <libsimpi.so> <generate.py>
# One Python process, not a few processes per symbol: on a loaded machine a
# thousand forks took longer than the test's timeout.
set -eu
exec python3 - "$@" <<'PYTHON'
import re
import subprocess
import sys

library, generator = sys.argv[1:3]
nm = subprocess.run(["nm", "-D", "--defined-only", library], capture_output=True, text=True,
                    check=True).stdout
symbols = {fields[2] for fields in (line.split() for line in nm.splitlines()) if len(fields) == 3}
left_out = set(subprocess.run([sys.executable, generator, "left-out"], capture_output=True,
                              text=True, check=True).stdout.lower().split())
missing = 0
for c_name in sorted(symbols):
    if not re.fullmatch(r"MPI_[A-Z][a-z_]*", c_name) or re.search(r"_[fc]2[fc]$", c_name):
        continue
    lower = c_name.lower()
    if lower in left_out:
        continue
    for fortran in (lower + "_", "p" + lower + "_"):
        if fortran not in symbols:
            print(f"missing Fortran binding: {fortran} (for {c_name})")
            missing += 1
checked = sum(1 for s in symbols if re.fullmatch(r"mpi_.*_", s))
print(f"{checked} Fortran entry points, {missing} missing")
sys.exit(1 if missing else 0)
PYTHON

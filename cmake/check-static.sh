#!/bin/sh
# make check-static: cppcheck and clang-tidy over the runtime's sources, with
# the compile commands of the build tree (check-static.sh <build dir>). Any
# finding fails it; what the project keeps is in cppcheck-suppressions.txt and
# .clang-tidy, each with why. clang-tidy takes about 3 minutes on 2 cores.
set -eu
build=$1
cd "$(dirname "$0")/.."
database=$(mktemp -d)
trap 'rm -rf "$database"' EXIT
python3 - "$build/compile_commands.json" "$database/compile_commands.json" <<'PY'
import json
import sys

entries = json.load(open(sys.argv[1]))
runtime = [e for e in entries if "/runtime/src/" in e["file"]]
# GCC-only options clang-tidy does not know (op.cpp's vectoriser cost model).
for entry in runtime:
    entry["command"] = entry["command"].replace("-fvect-cost-model=dynamic", "")
json.dump(runtime, open(sys.argv[2], "w"))
print(f"static analysis: {len(runtime)} files of runtime/src")
PY
cppcheck --project="$database/compile_commands.json" --enable=warning,performance,portability \
    --inline-suppr --suppressions-list=cmake/cppcheck-suppressions.txt --error-exitcode=1 --quiet \
    -j "$(nproc)"
echo "cppcheck: no finding"
# The checks are in .clang-tidy; headers of runtime/src are checked through
# the files that include them.
run-clang-tidy -p "$database" -j "$(nproc)" -quiet "$PWD/runtime/src/.*\.cpp\$" >"$database/tidy.log" 2>&1 ||
    { grep -E "warning:|error:" "$database/tidy.log" | sort -u; echo "clang-tidy: findings above"; exit 1; }
echo "clang-tidy: no finding"

#!/bin/sh
# make check-static: cppcheck over the runtime's sources, with the compile
# commands of the build tree (check-static.sh <build dir>). Any finding fails
# it; what the project keeps is in cppcheck-suppressions.txt, each with why.
set -eu
build=$1
cd "$(dirname "$0")/.."
commands=$(mktemp --suffix=.json)
trap 'rm -f "$commands"' EXIT
python3 - "$build/compile_commands.json" "$commands" <<'PY'
import json
import sys

entries = json.load(open(sys.argv[1]))
runtime = [e for e in entries if "/runtime/src/" in e["file"]]
json.dump(runtime, open(sys.argv[2], "w"))
print(f"cppcheck: {len(runtime)} files of runtime/src")
PY
cppcheck --project="$commands" --enable=warning,performance,portability --inline-suppr \
    --suppressions-list=cmake/cppcheck-suppressions.txt --error-exitcode=1 --quiet \
    -j "$(nproc)"
echo "cppcheck: no finding"

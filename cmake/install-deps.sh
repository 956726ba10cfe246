#!/bin/sh
# Installs the Debian 12 packages the build, the tests and the benchmarks need,
# if any is missing. Called by `make test` and `make bench`; safe to rerun.
set -eu

packages="build-essential cmake ninja-build pkg-config git
libfmt-dev libcli11-dev googletest libgtest-dev libgmock-dev libbenchmark-dev
libhwloc-dev hwloc rdma-core libibverbs-dev ibverbs-providers
mpich libmpich-dev gnuplot-nox procps
libfccp-dev libcpptoml-dev"

missing=""
for package in $packages; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $package"
    fi
done
[ -z "$missing" ] && exit 0

echo "Installing Debian packages:$missing"
if [ "$(id -u)" -eq 0 ]; then
    run=""
elif command -v sudo >/dev/null 2>&1; then
    run="sudo"
else
    echo "error: missing packages and not root; run: apt-get install$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$run apt-get update -qq
# shellcheck disable=SC2086
$run apt-get install -y -qq --no-install-recommends $missing

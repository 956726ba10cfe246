#!/bin/sh
# Installs the Debian 12 packages the build, the tests and the benchmarks need,
# if any is missing. Called by `make test` and `make bench`; safe to rerun. valgrind:
# callgrind counts the instructions per operation (microbench/instructions);
# cmark-gfm and weasyprint turn sibench's report into a PDF.
set -eu

packages="build-essential cmake ninja-build pkg-config git gfortran python3
libfmt-dev libcli11-dev googletest libgtest-dev libgmock-dev libbenchmark-dev
libhwloc-dev hwloc rdma-core libibverbs-dev ibverbs-providers
mpich libmpich-dev openmpi-bin libopenmpi-dev gnuplot-nox procps cmark-gfm weasyprint
libfccp-dev libcpptoml-dev nlohmann-json3-dev clang libclang-rt-14-dev cppcheck clang-tidy
qemu-system-x86 linux-image-amd64 busybox-static ibverbs-utils perftest iproute2 kmod cpio
slurmd slurmctld slurm-client munge valgrind"

# The guest-VM tier (tests/vm/) builds the kernel module against the headers of
# the kernel it boots, which is only known once linux-image-amd64 is installed.
kernel_headers() {
    for image in $(ls /boot/vmlinuz-* 2>/dev/null | sort -V); do
        version=${image#/boot/vmlinuz-}
    done
    [ -n "${version:-}" ] && echo "linux-headers-$version"
}
packages="$packages $(kernel_headers || true)"

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
headers=$(kernel_headers || true)
if [ -n "$headers" ] && ! dpkg-query -W -f='${Status}' "$headers" 2>/dev/null | grep -q "install ok installed"; then
    $run apt-get install -y -qq --no-install-recommends "$headers"
fi

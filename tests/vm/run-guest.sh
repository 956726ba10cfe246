#!/bin/sh
# Boots Debian's kernel in a QEMU guest (TCG, no network to the outside) with
# the host's root shared read-only over 9p, Soft-RoCE up (rxe0 on veth0,
# 10.77.0.1) and the project's si_wake module loaded, then runs either the
# guest-VM tier (tests/vm/guest.sh) or one command, and powers off.
#
#   tests/vm/run-guest.sh [--build DIR] [--timeout S] [--keep]            # the tier
#   tests/vm/run-guest.sh [--build DIR] [--timeout S] -- command args...  # one command
#   tests/vm/run-guest.sh --node I --net NETDEV ... -- command args...   # node I of a cluster
#
# With --node I (1..9) the guest is node I of a cluster (tests/cluster): a
# virtio NIC on the QEMU network NETDEV (a -netdev value naming id n0), eth0
# at 10.79.0.I, hostname nodeI, Soft-RoCE rxe0 on eth0 instead of the veth.
#
# The command runs as root in the host's root file system, in the directory
# you called this from, with the build tree writable (everything else is
# read-only; /tmp, /run and /dev/shm are fresh tmpfs). Its exit status is
# this script's. Exit 77: this host cannot run the guest (CTest: skipped).
# Why a guest at all: see tests/vm/README.md (the development containers
# have no module loading and no InfiniBand in their kernel).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
build="$project/build"
timeout=840
keep=0
node=0
net=""
while [ $# -gt 0 ]; do
    case "$1" in
        --node) node=$2; shift 2 ;;
        --net) net=$2; shift 2 ;;
        --build) build=$2; shift 2 ;;
        --timeout) timeout=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        --) shift; break ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) echo "run-guest.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
build=$(cd "$build" && pwd)

skip() {
    echo "run-guest.sh: SKIP: $*" >&2
    exit 77
}

# ---- what the host must have --------------------------------------------------
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 missing (apt-get install qemu-system-x86)"
# The initramfs has no libraries: busybox must be the static one.
busybox=""
for candidate in /bin/busybox /usr/bin/busybox; do
    if [ -x "$candidate" ] && LC_ALL=C ldd "$candidate" 2>&1 | grep -q 'not a dynamic'; then
        busybox=$candidate
        break
    fi
done
[ -n "$busybox" ] || skip "no static busybox (apt-get install busybox-static)"
# The newest Debian kernel whose modules are installed.
kver=""
for image in $(ls /boot/vmlinuz-* 2>/dev/null | sort -V); do
    v=${image#/boot/vmlinuz-}
    [ -d "/lib/modules/$v/kernel/drivers/infiniband" ] && kver=$v
done
[ -n "$kver" ] || skip "no /boot/vmlinuz-<v> with /lib/modules/<v> (apt-get install linux-image-amd64)"
[ -r "/boot/vmlinuz-$kver" ] || skip "/boot/vmlinuz-$kver is not readable"
module="$build/kmod/si_wake.ko"
if [ ! -f "$module" ] || ! modinfo -F vermagic "$module" 2>/dev/null | grep -q "^$kver "; then
    skip "$module missing or not built for $kver (ninja -C $build si_kmod; needs linux-headers-$kver)"
fi

# ---- the run folder: on the host, inside the build tree the guest may write -----
mkdir -p "$build/vm"
# Keep the last few runs' logs, not all of them.
ls -dt "$build"/vm/run.* 2>/dev/null | tail -n +8 | while read -r old; do rm -rf "$old"; done
run=$(mktemp -d "$build/vm/run.XXXXXX")
cleanup() { [ "$keep" = 1 ] || rm -rf "$run/initramfs" "$run/initrd.gz"; }
trap cleanup EXIT

# The guest reads its instructions from here (the host root is visible in it).
quote() { printf "'%s'" "$(printf %s "$1" | sed "s/'/'\\\\''/g")"; }
{
    echo "SI_VM_PROJECT=$(quote "$project")"
    echo "SI_VM_BUILD=$(quote "$build")"
    echo "SI_VM_RUN=$(quote "$run")"
    echo "SI_VM_MODULE=$(quote "$module")"
    echo "SI_VM_NODE=$node"
} >"$run/guest-env.sh"
if [ $# -gt 0 ]; then
    {
        printf 'cd %s || exit 1\nexec' "$(quote "$(pwd)")"
        for arg in "$@"; do printf ' %s' "$(quote "$arg")"; done
        echo
    } >"$run/command.sh"
fi

# ---- initramfs: busybox, the modules 9p and Soft-RoCE need, and /init ------------
root="$run/initramfs"
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/mnt" "$root/modules"
cp "$busybox" "$root/bin/busybox"
# Dependency order matters; without crc32_generic `rdma link add` fails.
modules="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci netfs fscache
9pnet 9pnet_virtio 9p crc32_generic ib_core ib_uverbs udp_tunnel ip6_udp_tunnel rdma_rxe veth
failover net_failover virtio_net"
for m in $modules; do
    file=$(find "/lib/modules/$kver/kernel" -name "$m.ko" -o -name "$m.ko.xz" | head -n 1)
    [ -n "$file" ] || skip "module $m.ko not found under /lib/modules/$kver"
    case "$file" in
        *.xz) xz -dc "$file" >"$root/modules/$m.ko" ;;
        *) cp "$file" "$root/modules/$m.ko" ;;
    esac
    echo "$m" >>"$root/modules/order"
done
cat >"$root/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in \$(cat /modules/order); do
    insmod /modules/\$m.ko || echo "init: insmod \$m failed"
done
m=/mnt
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose host \$m
mount -t proc proc \$m/proc
mount -t sysfs sysfs \$m/sys
mount -t devtmpfs devtmpfs \$m/dev
mkdir -p \$m/dev/shm \$m/dev/pts
mount -t tmpfs tmpfs \$m/dev/shm
mount -t devpts devpts \$m/dev/pts
mount -t tmpfs tmpfs \$m/tmp
mount -t tmpfs tmpfs \$m/run
# The source and build trees have shares of their own, mounted after the
# tmpfs: a clone under /tmp (as CI may make) stays visible.
mkdir -p \$m$project 2>/dev/null
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose project \$m$project
mkdir -p \$m$build 2>/dev/null
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=mmap build \$m$build
# The guest's CTest runs keep their logs to themselves: written into the
# host's \$build/Testing they would replace the LastTest.log of the host's run,
# from which tests/run-tests.sh repeats each failed test's output.
mkdir -p \$m$build/Testing
mount -t tmpfs tmpfs \$m$build/Testing
chroot \$m /bin/sh $here/guest.sh $run/guest-env.sh
echo \$? >\$m$run/exit-status
sync
poweroff -f
EOF
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$run/initrd.gz"

# ---- boot ------------------------------------------------------------------------
echo "run-guest.sh: booting $kver under TCG (log: $run/console.log)" >&2
start=$(date +%s)
if [ "$node" != 0 ]; then
    # One vCPU each: the nodes of a cluster share the host's cores.
    machine="-smp 1 -m 1536 -netdev $net -device virtio-net-pci,netdev=n0,mac=52:54:00:79:00:0$node"
else
    machine="-smp 2 -m 2048 -nic none"
fi
set +e
# shellcheck disable=SC2086
timeout --kill-after=10 "$timeout" qemu-system-x86_64 \
    -accel tcg -cpu max $machine -nographic -no-reboot \
    -kernel "/boot/vmlinuz-$kver" -initrd "$run/initrd.gz" \
    -append "console=ttyS0 panic=-1 loglevel=5" \
    -fsdev local,id=h,path=/,security_model=none,readonly=on,multidevs=remap \
    -device virtio-9p-pci,fsdev=h,mount_tag=host \
    -fsdev "local,id=p,path=$project,security_model=none,readonly=on,multidevs=remap" \
    -device virtio-9p-pci,fsdev=p,mount_tag=project \
    -fsdev "local,id=b,path=$build,security_model=none,multidevs=remap" \
    -device virtio-9p-pci,fsdev=b,mount_tag=build \
    </dev/null >"$run/console.log" 2>&1
qemu_status=$?
set -e
echo "run-guest.sh: guest ran $(($(date +%s) - start)) s" >&2

status=1
if [ -f "$run/exit-status" ]; then
    status=$(cat "$run/exit-status")
elif [ "$qemu_status" = 124 ]; then
    echo "run-guest.sh: the guest did not finish within $timeout s" >&2
else
    echo "run-guest.sh: the guest stopped without a result (qemu status $qemu_status)" >&2
fi
# Kernel trouble shows on the console even when the guest could not report it.
if grep -E '(^|\] )(BUG:|WARNING:|Oops|Kernel panic|general protection fault)' "$run/console.log" >&2; then
    echo "run-guest.sh: the guest kernel reported the problems above" >&2
    [ "$status" = 0 ] && status=1
fi
if [ $# -gt 0 ]; then
    cat "$run/guest.log" 2>/dev/null || true
elif [ "$status" != 0 ]; then
    echo "---- guest output ($run/guest.log) ----" >&2
    cat "$run/guest.log" >&2 2>/dev/null || true
    echo "---- last console lines ($run/console.log) ----" >&2
    tail -n 40 "$run/console.log" >&2
fi
[ "$status" = 0 ] || [ $# -eq 0 ] || tail -n 20 "$run/console.log" >&2
exit "$status"

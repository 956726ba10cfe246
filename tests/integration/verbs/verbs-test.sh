#!/bin/sh
# Runs a verbs-transport test, or skips it (exit 77, CTest's SKIP_RETURN_CODE)
# when the machine cannot run it:
#   verbs-test.sh need-device COMMAND...  skips without an RDMA port in state ACTIVE
#   verbs-test.sh no-device COMMAND...    skips when there is an RDMA device
# The development containers have no RDMA device; the guest-VM tier (tests/vm)
# runs `ctest -L verbs` where Soft-RoCE provides rxe0.
mode=$1
shift
active_port() {
    for state in /sys/class/infiniband/*/ports/*/state; do
        [ -r "$state" ] && grep -q ACTIVE "$state" && return 0
    done
    return 1
}
case $mode in
need-device)
    if ! active_port; then
        echo "SKIP: no RDMA device with an ACTIVE port under /sys/class/infiniband"
        exit 77
    fi
    ;;
no-device)
    if [ -d /sys/class/infiniband ] && [ -n "$(ls /sys/class/infiniband)" ]; then
        echo "SKIP: this machine has an RDMA device"
        exit 77
    fi
    ;;
*)
    echo "usage: verbs-test.sh need-device|no-device command..." >&2
    exit 2
    ;;
esac
exec "$@"

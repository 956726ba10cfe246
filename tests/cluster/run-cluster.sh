#!/bin/sh
# Boots 2 QEMU guests as the nodes of a cluster: each its own
# Debian kernel, its own Soft-RoCE device rxe0 on its own virtio NIC, its own
# address 10.79.0.I and GID table, joined by one QEMU network (node 1 listens
# on a local TCP port, the others connect). Node 1 runs driver.sh (jobs whose
# ranks span the nodes, started by Hydra); the others run agent.sh, which
# starts what node 1 sends. Why guests and not network namespaces in one
# guest: tests/cluster/README.md.
#
#   tests/cluster/run-cluster.sh [--build DIR] [--nodes 2] [--timeout S] [--only STEP,...]
#
# Exit status: node 1's (0: every step passed); 77: this host cannot run the
# guests (run-guest.sh's reasons).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
project=$(cd "$here/../.." && pwd)
build="$project/build"
nodes=2
timeout=900
only=""
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift 2 ;;
        --nodes) nodes=$2; shift 2 ;;
        --timeout) timeout=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) echo "run-cluster.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
build=$(cd "$build" && pwd)
case "$nodes" in 2) ;; *) echo "run-cluster.sh: --nodes: only 2 so far (a QEMU socket network joins two guests; README.md)" >&2; exit 2 ;; esac

# The folder the nodes share (inside the build tree, which every guest may write).
mkdir -p "$build/cluster"
ls -dt "$build"/cluster/run.* 2>/dev/null | tail -n +5 | while read -r old; do rm -rf "$old"; done
run=$(mktemp -d "$build/cluster/run.XXXXXX")
# A free port for the QEMU network, chosen by the kernel.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

pids=""
# Each node's run-guest.sh leads a session of its own (setsid); `timeout`
# puts QEMU in a process group of its own within it, so the whole session goes.
cleanup() {
    for pid in $pids; do pkill -TERM -s "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT INT TERM

echo "run-cluster.sh: $nodes nodes, shared folder $run" >&2
# Node 1 listens, so that the network lives as long as the node that drives
# the jobs; the others connect to it once it has started.
"$project/tests/vm/run-guest.sh" --build "$build" --timeout "$timeout" --node 1 \
    --net "socket,id=n0,listen=127.0.0.1:$port" -- \
    sh "$here/driver.sh" "$build" "$nodes" "$only" &
driver=$!
i=2
while [ "$i" -le "$nodes" ]; do
    sleep 1
    # A session of its own: if node 1 ends without stopping it, all of it
    # (run-guest.sh, timeout, QEMU) goes (cleanup).
    setsid "$project/tests/vm/run-guest.sh" --build "$build" --timeout "$timeout" --node "$i" \
        --net "socket,id=n0,connect=127.0.0.1:$port" -- \
        sh "$here/agent.sh" >"$run/node$i.log" 2>&1 &
    pids="$pids $!"
    i=$((i + 1))
done
set +e
wait "$driver"
status=$?
set -e
# The agents power off when node 1 stops them; give them a few seconds.
n=0
for pid in $pids; do
    while kill -0 "$pid" 2>/dev/null && [ "$n" -lt 20 ]; do
        sleep 1
        n=$((n + 1))
    done
done
[ "$status" = 77 ] && exit 77
for log in "$run"/node[2-9].log; do
    [ -f "$log" ] || continue
    if grep -qE 'BUG:|WARNING:|Oops|Kernel panic' "$log"; then
        echo "run-cluster.sh: $(basename "$log" .log) reported kernel problems:" >&2
        cat "$log" >&2
        status=1
    fi
done
exit "$status"

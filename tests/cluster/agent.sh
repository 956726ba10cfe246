#!/bin/sh
# Nodes 2..N of tests/cluster: starts what node 1 sends on TCP port 7000 (one
# command per connection, its output going back) until node 1 sends `touch
# /tmp/agent-stop` (a file of this guest: the shared folder's 9p cache may not
# show a file another guest made). Hydra's manual launcher needs exactly this:
# its proxies, one per node, started by hand.
busybox nc -ll -p 7000 -e /bin/sh &
listener=$!
echo "agent: $(hostname) listens on 7000"
while [ ! -e /tmp/agent-stop ]; do sleep 1; done
# The listener holds the guest's output pipe open: the guest powers off only
# once it is gone.
kill "$listener"
echo "agent: stop"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One guest of a chain of 3 (0 - 1 - 2) of 2-port NTBs, node id = guest
# index. The ends talk to each other through node 1, which forwards:
# connections and checked streams both ways, RMA with data checked, mmap()
# refused; node 1 waits until both ends said they are done (one connection
# each to port 3100) and checks that it refused nothing it was to forward.
# Usage: scif_route_fwd.sh
set -e
me=$SCIF_NODE_INDEX
far=$((2 - me))
ok=""
trap '[ -n "$ok" ] || { echo "FAIL node $me";
	cat /sys/kernel/debug/scif/routes /sys/kernel/debug/scif/nodes;
	dmesg | grep -E "scif|ntb" | tail -30; } 2>/dev/null || true' EXIT

modprobe ntb_ivshmem
modprobe scif_ntb node_id="$me"
# Every node lists all three, the far end included.
scif-ntb-test nodes 3 60

if [ "$me" = 1 ]; then
	scif-ntb-test serve 3100 2
	# What forwarding refuses: ttl run out (-ELOOP), no route
	# (-EHOSTUNREACH), a sender the link may not speak for (-EPERM).
	if dmesg | grep -E "scif.*dropped message.*: -(40|113|1)$"; then
		echo "node 1: dropped messages while forwarding"
		exit 1
	fi
	echo "node 1: forwarded, refused nothing"
else
	# Streams and echoes both ways: each end serves 4 echo connections
	# and one stream from the other.
	scif-ntb-test serve 3000 5 &
	server=$!
	scif-ntb-test echo "$far" 3000 4
	scif-ntb-test stream "$far" 3000 8
	wait "$server"
	echo "node $me: streams both ways checked"
	# RMA across the hop: node 0 drives, node 2 serves.
	if [ "$me" = 2 ]; then
		scif-rma-ntb-test server 4000
		scif-mmap-test unmappable-server 4100
	else
		scif-rma-ntb-test client 2 4000 100
		scif-mmap-test unmappable-client 2 4100
	fi
	echo "node $me: RMA across the hop checked"
	scif-ntb-test echo 1 3100 1
fi
# Unloaded, every other node goes: the far end with the route.
rmmod scif_ntb
scif-ntb-test nodes 1 30
rmmod ntb_ivshmem
ok=1
echo "node $me: done"

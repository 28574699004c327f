#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One guest of a star of 4 (hub node 0, leaves 1, 2, 3), node id = guest
# index. Leaves 1 and 3, which share no NTB, talk through the hub: a checked
# stream each way and RMA with data checked. Every node lists all 4 nodes.
# The hub waits until both leaves said they are done (port 3100) and checks
# that it refused nothing it was to forward.
# Usage: scif_route_star.sh
set -e
me=$SCIF_NODE_INDEX
ok=""
trap '[ -n "$ok" ] || { echo "FAIL node $me";
	cat /sys/kernel/debug/scif/routes /sys/kernel/debug/scif/nodes;
	dmesg | grep -E "scif|ntb" | tail -30; } 2>/dev/null || true' EXIT

fail() {
	echo "node $me: $*"
	exit 1
}

modprobe ntb_ivshmem
modprobe scif_ntb node_id="$me"
scif-ntb-test nodes 4 60

case $me in
0)
	scif-ntb-test serve 3100 2
	if dmesg | grep -E "scif.*dropped message.*: -(40|113|1)$"; then
		echo "node 0: dropped messages while forwarding"
		exit 1
	fi
	echo "node 0: forwarded, refused nothing"
	;;
1 | 3)
	far=$((4 - me))
	scif-ntb-test serve 3000 1 &
	server=$!
	scif-ntb-test stream "$far" 3000 8
	wait "$server"
	echo "node $me: streams both ways checked"
	if [ "$me" = 3 ]; then
		scif-rma-ntb-test server 4000
	else
		scif-rma-ntb-test client 3 4000 50
	fi
	echo "node $me: RMA through the hub checked"
	scif-ntb-test echo 0 3100 1
	;;
esac
# Unload, so that the rig's leak and report checks see the teardown too.
rmmod scif_ntb || fail "rmmod scif_ntb"
rmmod ntb_ivshmem || fail "rmmod ntb_ivshmem"
ok=1
echo "node $me: done"

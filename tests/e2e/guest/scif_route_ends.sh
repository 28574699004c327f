#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One guest of a fabric of N 2-port NTB links (any topology), node id =
# guest index. Nodes A and B exchange an 8 MiB checked stream each way and
# RMA with data checked, through whatever nodes lie between them; then A
# echoes every other node, which waits for it on port 3100, so every node
# is shown reachable from A. Every node lists all N nodes first and
# unloads at the end, when A releases it (port 3101): the farthest first,
# so that no node leaves while A still needs it as a transit. Transit
# nodes must drop nothing they forward.
# Usage: scif_route_ends.sh N A B
set -e
n=$1
a=$2
b=$3
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
scif-ntb-test nodes "$n" $((60 + 10 * n)) || fail "waited for $n nodes"

if [ "$me" = "$a" ] || [ "$me" = "$b" ]; then
	far=$((a + b - me))
	scif-ntb-test serve 3000 1 &
	server=$!
	scif-ntb-test stream "$far" 3000 8
	wait "$server"
	echo "node $me: streams both ways with node $far checked"
	if [ "$me" = "$b" ]; then
		scif-rma-ntb-test server 4000
	else
		scif-rma-ntb-test client "$b" 4000 50
	fi
	echo "node $me: RMA with node $far checked"
fi
if [ "$me" = "$a" ]; then
	i=0
	while [ "$i" -lt "$n" ]; do
		[ "$i" = "$a" ] || scif-ntb-test echo "$i" 3100 1 ||
			fail "no echo from node $i"
		i=$((i + 1))
	done
	echo "node $me: every node answered"
	# By hop count, farthest first: a transit is nearer than what it leads to.
	for i in $(awk 'NR > 2 { print $2, $1 }' /sys/kernel/debug/scif/routes |
		   sort -rn | awk '{ print $2 }'); do
		scif-ntb-test echo "$i" 3101 1 || fail "could not release node $i"
	done
else
	scif-ntb-test serve 3100 1 || fail "serving node $a's echo"
	scif-ntb-test serve 3101 1 || fail "waiting for node $a's release"
fi
if dmesg | grep -E "scif.*dropped message.*: -(40|113|1)$"; then
	fail "dropped messages while forwarding"
fi
# Unload, so that the rig's leak and report checks see the teardown too.
rmmod scif_ntb || fail "rmmod scif_ntb"
rmmod ntb_ivshmem || fail "rmmod ntb_ivshmem"
ok=1
echo "node $me: done"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One guest of a ring of 4 (0 - 1 - 2 - 3 - 0) of 2-port NTBs, node id =
# guest index. Nodes 0 and 2 are two hops apart either way round: they
# exchange a checked stream each way; then the transit node on node 0's
# route to node 2 (debugfs "routes") unloads scif_ntb. A stream that went
# through it must end with ECONNRESET or ENODEV, the route must move the
# other way round, and nodes 0 and 2 must exchange checked streams again.
# The transit node comes back and every node lists all 4 nodes again.
# Signals go as one echo to port 3200 of each transit node, from node 0.
# Usage: scif_route_ring.sh
set -e
me=$SCIF_NODE_INDEX
d=/sys/kernel/debug/scif
ok=""
trap '[ -n "$ok" ] || { echo "FAIL node $me";
	cat $d/routes $d/nodes; dmesg | grep -E "scif|ntb" | tail -30; } \
	2>/dev/null || true' EXIT
fail() {
	echo "node $me: $*"
	exit 1
}
# via NODE: the neighbour this node's route to NODE goes through.
via() {
	awk -v n="$1" 'NR > 2 && $1 == n { print $3 }' $d/routes
}

modprobe ntb_ivshmem
modprobe scif_ntb node_id="$me"
scif-ntb-test nodes 4 60 || fail "waited for nodes 0..3"

case $me in
0 | 2)
	far=$((2 - me))
	scif-ntb-test serve 3000 1 &
	server=$!
	scif-ntb-test stream "$far" 3000 8
	wait "$server"
	echo "node $me: streams both ways checked"
	if [ "$me" = 0 ]; then
		t=$(via 2)
		case $t in
		1 | 3) ;;
		*) fail "route to node 2 goes through '$t', not 1 or 3" ;;
		esac
		other=$((4 - t))
		echo "node 0: route to node 2 through node $t"
		# A stream that runs while its transit node goes away.
		scif-ntb-test stream 2 3300 100000 &
		lost=$!
		sleep 2
		scif-ntb-test echo "$t" 3200 1
		if wait "$lost"; then
			fail "stream through node $t survived its unload"
		fi
		i=0
		until [ "$(via 2)" = "$other" ]; do
			i=$((i + 1))
			[ "$i" -le 300 ] ||
				fail "waited 30 s for the route to node 2 through node $other, got '$(via 2)'"
			sleep 0.1
		done
		echo "node 0: route to node 2 moved to node $other"
	else
		scif-ntb-test expect-loss 3300
	fi
	scif-ntb-test serve 3001 1 &
	server=$!
	scif-ntb-test stream "$far" 3001 4
	wait "$server"
	echo "node $me: streams both ways checked after the transit node went"
	if [ "$me" = 0 ]; then
		scif-ntb-test echo "$other" 3201 1
	fi
	;;
1 | 3)
	# Port 3200: this node is the transit, go away and come back;
	# port 3201: the route moved round the other way, stay.
	(scif-ntb-test serve 3200 1 && touch /tmp/go) &
	(scif-ntb-test serve 3201 1 && touch /tmp/stay) &
	i=0
	until [ -e /tmp/go ] || [ -e /tmp/stay ]; do
		i=$((i + 1))
		[ "$i" -le 2400 ] || fail "waited 240 s for node 0 on port 3200 or 3201"
		sleep 0.1
	done
	# The server left waiting holds an endpoint: end it (its subshell
	# then ends without touching its file).
	killall scif-ntb-test 2>/dev/null || true
	wait || true
	if [ -e /tmp/go ]; then
		echo "node $me: transit to node 2, going away"
		rmmod scif_ntb
		scif-ntb-test nodes 1 30 || fail "waited for only this node after rmmod"
		sleep 5
		modprobe scif_ntb node_id="$me"
	fi
	;;
esac
# The transit node is back: every node lists all four again.
scif-ntb-test nodes 4 120 || fail "waited for nodes 0..3 after the transit node came back"
# No node unloads before every node has checked that: each serves one
# connection of every other node on port 3900 and makes one to each of
# them (a node that is not there yet refuses it: try again), then stays
# a while for the others' connections through it. A node that unloaded
# early once failed the others' check on a slow host.
scif-ntb-test serve 3900 $((SCIF_NODES - 1)) >/dev/null &
barrier=$!
j=0
while [ "$j" -lt "$SCIF_NODES" ]; do
	if [ "$j" != "$me" ]; then
		t=0
		until scif-ntb-test echo "$j" 3900 1 >/dev/null 2>&1; do
			t=$((t + 1))
			[ "$t" -le 240 ] || fail "node $j never reached the end"
			sleep 0.5
		done
	fi
	j=$((j + 1))
done
wait "$barrier" || fail "serving the others at the end"
# The others may still be dialling each other through this node.
sleep 30
# Unload, so that the rig's leak and report checks see the teardown too.
rmmod scif_ntb || fail "rmmod scif_ntb"
rmmod ntb_ivshmem || fail "rmmod ntb_ivshmem"
ok=1
echo "node $me: done"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One guest of a chain of 2-port NTBs running SCIF, node id = guest index:
# its neighbours come online, and its route table (debugfs "routes") comes
# to hold every other node of the chain, at the hop count and through the
# neighbour the chain gives: discovery of nodes it shares no NTB with.
# Each lists all of them as nodes (scif_get_node_ids(), the bus). Unloading
# scif_ntb then takes every route and every other node away.
# Usage: scif_route_chain.sh
set -e
me=$SCIF_NODE_INDEX
n=$SCIF_NODES
d=/sys/kernel/debug/scif
fail() {
	echo "FAIL node $me: $*"
	cat $d/routes $d/nodes 2>/dev/null || true
	dmesg | grep -E 'scif|ntb' | tail -20
	exit 1
}

modprobe ntb_ivshmem || fail "modprobe ntb_ivshmem"
modprobe scif_ntb node_id="$me" || fail "modprobe scif_ntb"

# What the table must say: "node hops via" for every other node.
want=""
j=0
while [ "$j" -lt "$n" ]; do
	if [ "$j" != "$me" ]; then
		if [ "$j" -lt "$me" ]; then
			hops=$((me - j)); via=$((me - 1))
		else
			hops=$((j - me)); via=$((me + 1))
		fi
		want="$want$j $hops $via;"
	fi
	j=$((j + 1))
done
table() {
	awk 'NR > 2 { printf "%s %s %s;", $1, $2, $3 }' $d/routes
}
i=0
until [ "$(table)" = "$want" ]; do
	i=$((i + 1))
	[ "$i" -le 600 ] || fail "routes '$(table)', expected '$want'"
	sleep 0.1
done
grep -q "^self $me " $d/routes || fail "routes: self is not $me"
# Every node of the chain is a node here, the ones beyond a neighbour too.
scif-ntb-test nodes "$n" 30 || fail "scif_get_node_ids"
[ "$(ls /sys/bus/scif/devices | wc -l)" = "$n" ] ||
	fail "bus: $(ls /sys/bus/scif/devices)"
echo "node $me: routes $want"
# The others may still be learning through this node: stay a while.
sleep 10
# On a chain of 3 the transit node leaves first: each end loses the other
# end with it. How long after its neighbour (node 1) went the far end's
# device left the bus (its clients' remove() called) is printed; the
# bound SCIF promises is 2 s (Documentation/scif-routing.rst, "Tested").
has_dev() { [ -e "/sys/bus/scif/devices/scif-node$1" ]; }
now_cs() { awk '{ split($1, t, "."); print t[1] * 100 + t[2] }' /proc/uptime; }
if [ "$n" = 3 ] && [ "$me" = 1 ]; then
	# the ends are watching by then
	sleep 5
	rmmod scif_ntb || fail "rmmod scif_ntb"
elif [ "$n" = 3 ]; then
	far=$((2 - me))
	watched=0
	has_dev 1 && watched=1
	t0=""
	i=0
	while has_dev "$far"; do
		[ -n "$t0" ] || has_dev 1 || t0=$(now_cs)
		i=$((i + 1))
		[ "$i" -le 600 ] || fail "node $far still on the bus without its transit node"
		sleep 0.05
	done
	t1=$(now_cs)
	[ -n "$t0" ] || t0=$t1
	if [ "$watched" = 1 ]; then
		echo "node $me: node $far left $(((t1 - t0) * 10)) ms after node 1 (the transit node)"
	else
		echo "node $me: node 1 had left before this node watched: not measured"
	fi
fi
# Unloaded, the links go down: every route and every node beyond this one
# go with them (the other nodes see this node's links go down, in any order).
if ! [ "$n" = 3 ] || ! [ "$me" = 1 ]; then
	rmmod scif_ntb || fail "rmmod scif_ntb"
fi
i=0
until [ "$(table)" = "" ]; do
	i=$((i + 1))
	[ "$i" -le 100 ] || fail "routes left after rmmod: '$(table)'"
	sleep 0.1
done
[ "$(ls /sys/bus/scif/devices | wc -l)" = 1 ] ||
	fail "nodes left on the bus: $(ls /sys/bus/scif/devices)"
rmmod ntb_ivshmem || fail "rmmod ntb_ivshmem"
echo "node $me: done"

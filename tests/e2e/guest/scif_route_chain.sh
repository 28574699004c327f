#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One guest of a chain of 2-port NTBs running SCIF, node id = guest index:
# its neighbours come online, and its route table (debugfs "routes") comes
# to hold every other node of the chain, at the hop count and through the
# neighbour the chain gives: discovery of nodes it shares no NTB with.
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
echo "node $me: routes $want"
# The others may still be learning through this node: stay a while.
sleep 10
echo "node $me: done"

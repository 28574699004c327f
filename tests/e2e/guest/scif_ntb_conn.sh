#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every guest: the node list is exact; then connections in every direction
# (4 each way between every pair), 100 simultaneous connections from node 1
# to node 0, and a checked stream from each node to the next.
set -e
i=$SCIF_NODE_INDEX
n=$SCIF_NODES
mib=${SCIF_STREAM_MIB:-16}
scif-ntb-test nodes "$n" 60
serves=$(( (n - 1) * 4 + 1 ))
[ "$i" = 0 ] && serves=$(( serves + 100 ))
scif-ntb-test serve 3000 "$serves" &
server=$!
trap 'kill $server 2>/dev/null || true; [ -n "$ok" ] ||
	{ dmesg -s 1000000 | grep -E "scif|ntb" | tail -25;
	  cat /sys/kernel/debug/scif/nodes; } || true' EXIT
j=0
while [ "$j" -lt "$n" ]; do
	[ "$j" != "$i" ] && scif-ntb-test echo "$j" 3000 4
	j=$(( j + 1 ))
done
[ "$i" = 1 ] && scif-ntb-test echo 0 3000 100
scif-ntb-test stream $(( (i + 1) % n )) 3000 "$mib"
wait "$server"
ok=1
echo "node $i: all connections served"

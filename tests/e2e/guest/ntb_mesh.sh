#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Upstream ntb_tool on every guest of an N-guest mesh of the emulated NTB:
# N-1 peers with the other guests' port numbers in increasing order, the
# link up to each, a scratchpad written by every guest into every peer and
# a doorbell rung by every guest seen by every other (so also between pairs
# other than (0, 1)).
. ./ntb_lib.sh
me=$SCIF_NODE_INDEX
n=$SCIF_NODES

d=$(ls -d /sys/kernel/debug/ntb_tool/* 2>/dev/null | head -n 1)
[ -d "$d" ] || fail "no ntb_tool debugfs directory"
file_is "$d/port" "$me" || fail "port is $(cat "$d/port"), expected $me"

# peers: pidx 0..n-2 are the other ports in increasing order
p=0
for port in $(seq 0 $((n - 1))); do
	[ "$port" = "$me" ] && continue
	file_is "$d/peer$p/port" "$port" ||
		fail "peer$p/port is $(cat "$d/peer$p/port"), expected $port"
	p=$((p + 1))
done
[ -e "$d/peer$p" ] && fail "more than $p peers in a $n-node mesh"
echo "node $me: port $me, $p peers with the right ports"

# link up to every peer
echo Y >"$d/link" || fail "link enable"
for p in $(seq 0 $((n - 2))); do
	wait_for 60 file_is "$d/peer$p/link" Y ||
		fail "link to peer$p (port $(cat "$d/peer$p/port")) did not come up"
done
echo "node $me: link up to all $((n - 1)) peers"

# port of peer index p, and the word node a writes to node b
port_of() { head -n 1 "$d/peer$1/port"; }
word() { echo $((0x5ca000 + $1 * 16 + $2)); }

# scratchpads: node a writes word(a, b) into spad 10+a of node b
for p in $(seq 0 $((n - 2))); do
	q=$(port_of "$p")
	echo "$(word "$me" "$q")" >"$d/peer$p/spad$((10 + me))" ||
		fail "spad write to port $q"
done
for p in $(seq 0 $((n - 2))); do
	q=$(port_of "$p")
	wait_for 30 file_is "$d/spad$((10 + q))" "$(word "$q" "$me")" ||
		fail "spad$((10 + q)) is $(cat "$d/spad$((10 + q))"), expected $(word "$q" "$me") from port $q"
done
echo "node $me: scratchpads from every peer ok"

# doorbells: ring bit 8+me (broadcast), expect bit 8+q from every peer q
echo "c 0xffffffffffffffff" >"$d/db_mask" || fail "db unmask"
echo "s $((1 << (8 + me)))" >"$d/peer_db" || fail "peer_db set"
want=0
for p in $(seq 0 $((n - 2))); do
	want=$((want | (1 << (8 + $(port_of "$p")))))
done
wait_for 30 bits_set "$d/db" "$want" ||
	fail "doorbells $(printf %#x "$want") not all seen (db $(cat "$d/db"))"
[ $(($(head -n 1 "$d/db") & (1 << (8 + me)))) = 0 ] ||
	fail "own doorbell bit came back (db $(cat "$d/db"))"
echo "node $me: doorbells from every peer ok"

# barrier: nobody unloads before every peer checked everything
for p in $(seq 0 $((n - 2))); do
	echo 0xd0 >"$d/peer$p/spad$((30 + me))" || fail "spad write"
done
for p in $(seq 0 $((n - 2))); do
	q=$(port_of "$p")
	wait_for 60 file_is "$d/spad$((30 + q))" 0xd0 ||
		fail "port $q never finished"
done
echo "node $me: ntb_mesh PASS"

#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One guest of a cluster wired as TOPOLOGY (star, chain or ring: every link
# its own 2-port emulated NTB): the guest has one NTB device per neighbour,
# each a 2-port device whose link comes up, and the guest at its other end
# is the expected neighbour (each side writes its index into the peer's
# scratchpad 0 and reads the other's from its own); a doorbell rung on
# every link is seen by that neighbour only.
# Usage: ntb_topology.sh TOPOLOGY
. ./ntb_lib.sh
topo=$1
me=$SCIF_NODE_INDEX
n=$SCIF_NODES

# The expected neighbours of this guest, sorted.
neighbours() {
	case "$topo" in
	star)
		if [ "$me" = 0 ]; then seq 1 $((n - 1)); else echo 0; fi ;;
	chain | ring)
		[ "$me" -gt 0 ] && echo $((me - 1))
		[ "$me" -lt $((n - 1)) ] && echo $((me + 1))
		if [ "$topo" = ring ]; then
			[ "$me" = 0 ] && echo $((n - 1))
			[ "$me" = $((n - 1)) ] && echo 0
		fi ;;
	esac | sort -n | uniq
}
want=$(neighbours | xargs)
devs=$(ls -d /sys/kernel/debug/ntb_tool/* 2>/dev/null)
count=$(echo "$devs" | grep -c .)
[ "$count" = "$(echo "$want" | wc -w)" ] ||
	fail "$count NTB devices, expected one per neighbour ($want)"

for d in $devs; do
	[ -e "$d/peer1" ] && fail "$(basename "$d"): more than one peer"
	echo Y >"$d/link" || fail "$(basename "$d"): link enable"
done
for d in $devs; do
	wait_for 30 file_is "$d/peer0/link" Y ||
		fail "$(basename "$d"): link did not come up"
	echo $((0x70900 + me)) >"$d/peer0/spad0" ||
		fail "$(basename "$d"): peer scratchpad write"
done
got=""
for d in $devs; do
	wait_for 30 sh -c "v=\$(cat $d/spad0); [ \$((v >> 8)) = $((0x709)) ]" ||
		fail "$(basename "$d"): no index from the neighbour"
	v=$(cat "$d/spad0")
	got="$got $((v & 0xff))"
	echo "node $me: $(basename "$d") port $(cat "$d/port") joins node $((v & 0xff)) (port $(cat "$d/peer0/port"))"
done
got=$(echo "$got" | tr ' ' '\n' | sed '/^$/d' | sort -n | xargs)
[ "$got" = "$want" ] || fail "neighbours are '$got', expected '$want'"

# A doorbell on every link, seen only at its other end.
for d in $devs; do
	echo "c 0xffffffffffffffff" >"$d/db_mask" || fail "db unmask"
done
for d in $devs; do
	peer_port=$(cat "$d/peer0/port")
	echo "s $((1 << (8 + peer_port)))" >"$d/peer_db" || fail "peer_db set"
done
for d in $devs; do
	bit=$((1 << (8 + $(cat "$d/port"))))
	wait_for 30 bits_set "$d/db" "$bit" ||
		fail "$(basename "$d"): doorbell not seen (db $(cat "$d/db"))"
done
echo "node $me: $topo of $n: neighbours $got, links up, doorbells ok"
